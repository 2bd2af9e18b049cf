"""A bounded slice of benchmarks/stdlib_roundtrip.py: CPython's own tests judge unveil.

Each module's ``test.test_X`` (shipped with the interpreter) runs once as is and
once with every function of the module decompiled, recompiled and swapped in
place (function mode, see the benchmark's docstring).  The harness itself must
work on every module: the baseline ran and passed tests, functions were found
and decompiled, the swapped run completed.  The swapped run must pass on every
module, unless KNOWN_FAILING lists the module for this version with the reason;
a listed module that passes fails too (remove it), so the list only shrinks.
Likewise every function must decompile (a refusal or an internal error leaves the
original in place, so the module's tests alone would not notice) and be structured,
not lowered to the state machine (which behaves the same), unless KNOWN_REFUSED or
KNOWN_LOWERED lists it for this version with the reason.
The full run over 45 modules is ``python benchmarks/stdlib_roundtrip.py``.
"""
import importlib.util
import os
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_spec = importlib.util.spec_from_file_location("stdlib_roundtrip", os.path.join(ROOT, "benchmarks", "stdlib_roundtrip.py"))
judge = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(judge)

SLICE = ("bisect", "heapq", "fnmatch", "colorsys", "textwrap", "shlex", "string", "getopt",
         "html", "copy", "operator", "urllib.parse", "pprint", "abc", "netrc", "base64")

# Modules whose tests fail with every function swapped, per version, with the reason.
# Measured on 3.8.18, 3.9.18, 3.10.13, 3.11.7, 3.12.1 and 3.13.0 on 2026-11-26: none
# (3.13's urllib.parse, listed before for _NetlocResultMixinBase._hostinfo reading
# ``hostinfo`` before assigning it, passes now).
KNOWN_FAILING = {
    (3, 8): {},
    (3, 9): {},
    (3, 10): {},
    (3, 11): {},
    (3, 12): {},
    (3, 13): {},
}

# Functions of the slice's modules that fail to decompile, and functions that are
# lowered to the state machine, per version: {module: {"module:qualname": reason}}.
KNOWN_REFUSED = {version: {} for version in KNOWN_FAILING}
KNOWN_LOWERED = {version: {} for version in KNOWN_FAILING}

# The report fixture runs CPython's tests of the 16 modules twice each: on a loaded
# machine its setup, counted in the first test, takes more than pytest-timeout's minute.
pytestmark = pytest.mark.timeout(900)


@pytest.fixture(scope="module")
def report():
    rep = judge.run_all(list(SLICE), timeout=120, module_mode=False, jobs=1, progress=False)
    print()
    print(judge.table(rep))
    print(judge.failures(rep))
    return {m["module"]: m for m in rep["modules"]}


@pytest.mark.parametrize("name", SLICE)
def test_harness_ran(report, name):
    """The baseline ran and passed tests; functions were found and swapped; the swapped run finished."""
    m = report[name]
    base, fn = m["baseline"], m["function"]
    assert base["status"] == "ok", base
    assert base["counts"]["pass"] > 0, base
    assert fn["functions"] and fn["functions"] > 0, fn
    assert fn["decompiled"] <= fn["functions"] and fn["recompiled"] <= fn["decompiled"]
    assert fn["identical"] <= fn["recompiled"]
    if fn["recompiled"]:
        assert fn["function_objects_swapped"] > 0, fn
        targets = judge.MODULES[name][1]
        assert any(judge.wanted(s, targets) or s == "decimal" for s in fn["swapped_modules"]), fn
    # Only outcomes the judge knows; a test that passed and was skipped or did not
    # run after the swap is a regression, never a pass.
    assert fn["passes"] == (fn["status"] == "ok" and not fn["regressed"])


@pytest.mark.parametrize("name", SLICE)
def test_swapped_tests_still_pass(report, name):
    fn = report[name]["function"]
    known = KNOWN_FAILING[sys.version_info[:2]].get(name)
    if known is None:
        assert fn["passes"], judge.failures({"modules": [report[name]]})
    else:
        assert not fn["passes"], "%s passes now: remove it from KNOWN_FAILING (%s)" % (name, known)


def _names(entries):
    """The ``module:qualname`` of each function the judge lists as "name (line n): ..."."""
    return sorted(entry.split(" (line ")[0] for entry in entries)


@pytest.mark.parametrize("name", SLICE)
def test_every_function_decompiles_structured(report, name):
    fn = report[name]["function"]
    version = sys.version_info[:2]
    assert _names(fn["failed_functions"]) == sorted(KNOWN_REFUSED[version].get(name, {})), \
        fn["failed_functions"]
    assert _names(fn["lowered_functions"]) == sorted(KNOWN_LOWERED[version].get(name, {})), \
        fn["lowered_functions"]


def test_known_lists_name_modules_of_the_slice_with_reasons():
    for known in (KNOWN_FAILING, KNOWN_REFUSED, KNOWN_LOWERED):
        for version, modules in known.items():
            assert set(modules) <= set(SLICE), version
            for entry in modules.values():
                reasons = entry.values() if isinstance(entry, dict) else [entry]
                assert all(reason.strip() for reason in reasons), version


def test_compare_counts_skips_and_missing_tests_as_regressions():
    base = {"tests": {"a": "pass", "b": "pass", "c": "pass", "d": "xfail", "e": "fail", "f": "skip"}}
    after = {"tests": {"a": "pass", "b": "skip", "d": "fail", "e": "pass", "f": "pass"}}
    assert judge.compare(base, after) == ["b", "c", "d"]


def test_sabotaged_functions_are_caught(monkeypatch):
    """The judge can fail: functions given each other's code make colorsys's tests fail."""
    monkeypatch.setenv("UNVEIL_JUDGE_SABOTAGE", "1")
    rec = judge.run_module("colorsys", timeout=120)
    assert rec["baseline"]["counts"]["pass"] > 0
    assert rec["function"]["regressed"], rec["function"]
    assert not rec["function"]["passes"]


def test_the_time_limit_does_not_fire_while_an_error_is_recorded(monkeypatch):
    """Recording a test's error reads source files (traceback, linecache, tokenize); a
    per-test time limit that fired there killed the whole run (3.10 email under load)."""
    import traceback
    seen = []

    def format_exception(*err):
        seen.append(judge._in_recorder(sys._getframe()))
        return ["formatted"]

    monkeypatch.setattr(traceback, "format_exception", format_exception)
    result = judge.Recorder().result_class()(sys.stderr, True, 0)
    assert result._text((ValueError, ValueError("x"), None)) == "formatted"
    assert seen == [True]
    assert not judge._in_recorder(sys._getframe())
