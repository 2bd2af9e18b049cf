"""The case library: every case decompiles, recompiles and behaves the same."""
import pytest

from tests.cases.registry import all_cases
from tests.outcome import outcome
from tests.roundtrip import rebuild, same_bytecode

CASES = all_cases()
_identical = []


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
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


def test_case_count():
    assert len(CASES) >= 1


def teardown_module(module):
    if _identical:
        share = 100.0 * sum(_identical) / len(_identical)
        print("\nperfect decompilation: %d/%d behaviourally correct cases (%.1f%%) have identical bytecode"
              % (sum(_identical), len(_identical), share))
