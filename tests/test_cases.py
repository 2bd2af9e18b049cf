"""The case library: every case decompiles, recompiles and behaves the same.

Cases listed for this interpreter in ``known_failures.json`` (written by
``python -m tests.triage --write-known``) are strict xfails: each carries the
reason it fails, and the suite fails when one starts passing, so the list
stays exact.
"""
import json
import os
import re
import sys

import pytest

from tests.cases.registry import all_cases
from tests.outcome import outcome, raised_at
from tests.roundtrip import rebuild, same_bytecode

CASES = all_cases()
_KNOWN_PATH = os.path.join(os.path.dirname(__file__), "known_failures.json")
with open(_KNOWN_PATH) as _f:
    KNOWN = json.load(_f).get("%d.%d" % sys.version_info[:2], {})
_identical = []


def _param(case):
    marks = ()
    if case.name in KNOWN:
        marks = pytest.mark.xfail(strict=True, reason="known failure: " + KNOWN[case.name])
    return pytest.param(case, id=case.name, marks=marks)


@pytest.mark.parametrize("case", [_param(c) for c in CASES])
def test_case(case):
    new, source = rebuild(case.fn)
    for call in case.calls:
        expected = outcome(case.fn, call)
        got = outcome(new, call)
        assert got == expected, "%r: %r != %r\n%s" % (call, got, expected, source)
    identical = same_bytecode(case.fn.__code__, new.__code__)
    _identical.append(identical)
    if case.same_bytecode:
        assert identical, source
    if case.structured:
        assert not re.search(r"^\s*__state = 0$", source, re.M), source


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


def summary():
    """Lines for the terminal summary (see conftest.py)."""
    total = len(CASES)
    lines = ["case library on %d.%d: %d cases, %d checked and correct, %d known failures"
             % (sys.version_info[:2] + (total, len(_identical), len(KNOWN)))]
    if _identical:
        lines.append("perfect decompilation: %d/%d cases (%.1f%%) recompile to identical bytecode"
                     % (sum(_identical), total, 100.0 * sum(_identical) / total))
    return lines
