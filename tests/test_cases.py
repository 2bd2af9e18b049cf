"""The case library: every case decompiles, recompiles and behaves the same.

Cases listed for this interpreter in ``known_failures.json`` (written by
``python -m tests.triage --write-known``) are strict xfails: each carries the
reason it fails, and the suite fails when one starts passing, so the list
stays exact.

Every case is structured: no code object of it is lowered to the state machine
(``Decompiled.lowered``), unless ``known_lowerings.json`` lists it for this
interpreter, with the code objects that lower and why (written by ``python -m
tests.triage --write-lowerings``).  A case that lowers any other code object
fails, and so does a listed one that is now structured: the list only shrinks.

The number of cases whose recompiled bytecode is identical to the original's
must not drop below this interpreter's floor in ``identical_floors.json``
(raise the floor when it rises; never lower it).
"""
import json
import os
import re
import sys

import pytest

from tests.cases.registry import all_cases
from tests.outcome import outcome, raised_at
from tests.roundtrip import rebuild, rebuild_decompiled, same_bytecode
from unveil.errors import DecompilationError

CASES = all_cases()
HERE = os.path.dirname(__file__)
VERSION = "%d.%d" % sys.version_info[:2]


def _load(name):
    with open(os.path.join(HERE, name)) as f:
        return json.load(f)


KNOWN = _load("known_failures.json").get(VERSION, {})
#: case name -> {qualified name of a code object that lowers: the refusal}, this interpreter's
LOWERINGS = _load("known_lowerings.json").get(VERSION, {})
#: the fewest cases that must recompile to identical bytecode on this interpreter
FLOOR = _load("identical_floors.json")[VERSION]
_identical = {}   # case name -> whether its recompiled bytecode is identical


def _param(case):
    marks = ()
    if case.name in KNOWN:
        # (a refusal only: a known failure that starts to print code that runs differently fails)
        marks = pytest.mark.xfail(strict=True, raises=DecompilationError, reason="known failure: " + KNOWN[case.name])
    return pytest.param(case, id=case.name, marks=marks)


@pytest.mark.parametrize("case", [_param(c) for c in CASES])
def test_case(case):
    new, result = rebuild_decompiled(case.fn)
    source = result.source
    for call in case.calls:
        expected = outcome(case.fn, call)
        got = outcome(new, call)
        assert got == expected, "%r: %r != %r\n%s" % (call, got, expected, source)
    identical = same_bytecode(case.fn.__code__, new.__code__)
    _identical[case.name] = identical
    if case.same_bytecode:
        assert identical, source
    check_lowerings(case.name, result.lowered)


def _numbers_blanked(reason):
    """A reason with its positions and line numbers blanked: a case added above another
    moves its lines, not its reason."""
    return re.sub(r"\d+", "N", reason)


def check_lowerings(name, lowered):
    """Fail unless exactly the code objects that known_lowerings.json lists for case
    ``name`` were lowered to the state machine."""
    got = {low.name: low.reason for low in lowered}
    listed = LOWERINGS.get(name, {})
    new = {k: v for k, v in got.items() if k not in listed}
    assert not new, "lowered to the state machine, not listed in known_lowerings.json: %r" % new
    structured = sorted(set(listed) - set(got))
    assert not structured, "structured now, remove from known_lowerings.json: %r" % structured
    changed = {k: v for k, v in got.items() if _numbers_blanked(v) != _numbers_blanked(listed[k])}
    assert not changed, "lowered for another reason than known_lowerings.json says: %r" % changed


RAISING = [c for c in CASES if any(raised_at(c.fn, call) is not None for call in c.calls)]


@pytest.mark.parametrize("case", [_param(c) for c in RAISING])
def test_case_raises_on_the_original_lines(case):
    """Recompiled on the original's lines, a case raises from the same lines: the
    tracebacks through it name the same source lines."""
    new, source = rebuild(case.fn, original_lines=True)
    for call in case.calls:
        expected = raised_at(case.fn, call)
        if expected is not None:
            assert raised_at(new, call) == expected, "%r\n%s" % (call, source)


def test_case_count():
    assert len(CASES) >= 300


def test_known_failures_name_real_cases():
    names = {c.name for c in CASES}
    assert not set(KNOWN) - names, "stale entries in known_failures.json"


def test_known_lowerings_name_real_cases_with_reasons():
    cases = {c.name: c for c in CASES}
    assert not set(LOWERINGS) - set(cases), "stale entries in known_lowerings.json"
    for name, objects in LOWERINGS.items():
        assert objects and all(reason.strip() for reason in objects.values()), name
        assert not cases[name].structured, "%s is marked structured=True" % name


def test_a_lowering_not_listed_fails():
    """The lowering check can fail both ways (the state machine's output behaves the
    same, so only this check notices a case that falls back)."""
    from unveil.definitions.functions import Lowering
    with pytest.raises(AssertionError, match="not listed"):
        check_lowerings("no.such_case", [Lowering("f", 1, "a refusal")])
    if LOWERINGS:
        name = sorted(LOWERINGS)[0]
        with pytest.raises(AssertionError, match="structured now"):
            check_lowerings(name, [])
        with pytest.raises(AssertionError, match="another reason"):
            check_lowerings(name, [Lowering(k, 1, v + " (changed)") for k, v in LOWERINGS[name].items()])


def identical_count():
    """How many cases recompile to identical bytecode: from the case tests that ran,
    the others (a ``-k`` run) rebuilt here; a known failure counts as not identical."""
    for case in CASES:
        if case.name not in _identical and case.name not in KNOWN:
            new, _ = rebuild(case.fn)
            _identical[case.name] = same_bytecode(case.fn.__code__, new.__code__)
    return sum(_identical.values())


def test_identical_bytecode_does_not_drop_below_the_floor():
    count = identical_count()
    assert count >= FLOOR, "%d/%d cases recompile to identical bytecode on %s, the floor is %d" \
        % (count, len(CASES), VERSION, FLOOR)


def summary():
    """Lines for the terminal summary (see conftest.py)."""
    total = len(CASES)
    lines = ["case library on %d.%d: %d cases, %d checked and correct, %d known failures"
             % (sys.version_info[:2] + (total, len(_identical), len(KNOWN)))]
    if _identical:
        n = sum(_identical.values())
        lines.append("perfect decompilation: %d/%d cases (%.1f%%) recompile to identical bytecode"
                     " (floor %d%s)" % (n, total, 100.0 * n / total, FLOOR,
                                        ", raise it in tests/identical_floors.json" if n > FLOOR else ""))
        lines.append("lowered to the state machine (known): %d cases" % len(LOWERINGS))
    return lines
