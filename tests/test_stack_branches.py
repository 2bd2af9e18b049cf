"""Branches that run while values wait on the stack beneath them (structure/stack_branches.py),
judged by running bytecode built for the purpose (tests/stack_branch_programs.py): a
fixed slice of the fuzzer, and the samples that found each bug."""
import re
import sys
import textwrap

import pytest

from tests import stack_branch_programs as sbp

#: the seeds of the slice (benchmarks/stack_branch_fuzz.py runs more)
SLICE = range(400)


def _judged(source, tails):
    sample = sbp.sample_of(textwrap.dedent(source).lstrip("\n"), tails)
    verdict, detail = sbp.judge(sample)
    assert verdict == "same", detail
    return detail


def test_the_slice_of_the_fuzzer_is_structured_and_behaves_alike():
    """Every sample of the slice is structured (none lowered to the state machine, none
    refused) and behaves as its bytecode does, on 3.8 to 3.13."""
    found = sbp.survey(SLICE)
    assert set(found) == {"same"}, {v: [(repr(s), d) for s, d in found[v][:2]] for v in found if v != "same"}
    print("\nstack-branch slice on %d.%d: %s" % (sys.version_info[:2] + ({v: len(found[v]) for v in found},)))


def test_the_fuzzer_finds_a_wrong_order():
    """The judge sees a wrong text: the sample's code run against text that evaluates
    the value waiting beneath the branch after it."""
    sample = sbp.sample_of(textwrap.dedent("""
        def sample(log, obj, c0, c1, x, y):
            __A0__
            if c0:
                log('s1')
            __B0__
            r = log(log('p2', 2), __H0__)
            if c1 is None:
                r = 0
            return r
    """).lstrip("\n"), ["push"])
    fn = sbp.build(sample)
    wrong = "def sample(log, obj, c0, c1, x, y):\n    if c0:\n        log('s1')\n    return log(log('p2', 2), x)\n"
    namespace = sbp._globals()
    exec(wrong, namespace)
    assert sbp.run(fn, True, False) != sbp.run(namespace["sample"], True, False)
    assert sbp.run(fn, True, False)[1] == [("p2", 2), ("s1",), (2, 1)]


def test_dynamos_profiler_marks_are_statements_before_the_call():
    """torch 2.15's shape: ``enter()`` when profiling, else nothing, each arm leaving a
    value dropped where they meet, while the function and its arguments wait; the same
    for ``exit``.  Names wait in place: two ifs, then the call, no temporary (each arm
    drops its value: Dynamo's are None, written as nothing; here the local ``x``)."""
    text = _judged("""
        def sample(log, obj, c0, c1, x, y):
            __A0__
            if c0:
                y = log('enter')
                x  # kept
            else:
                x  # kept
            __B0__
            __A1__
            if y is not None:
                log('exit', y)
                x  # kept
            else:
                x  # kept
            __B1__
            r = log(__H0__, x, y, __H1__)
            if c1 is None:
                r = 0
            return r
    """, ["drop", "drop"])
    assert "__t" not in text, text
    assert "    if c0:\n        y = log('enter')\n        x\n    else:\n        x\n    if y is not None:\n" in text, text


def test_a_value_with_effects_beneath_a_branch_is_evaluated_before_it():
    text = _judged("""
        def sample(log, obj, c0, c1, x, y):
            __A0__
            if c0:
                log('s1')
            else:
                x = log('t2', 2)
            __B0__
            r = log(obj.p, x, __H0__)
            if c1 is None:
                r = 0
            return r
    """, ["push"])
    # (and ``x``, which an arm assigns)
    assert all(re.search(r"__t\d+ = %s\n(.*\n)*    if c0:" % v, text) for v in (r"obj\.p", "x")), text


def test_arms_that_run_statements_and_leave_a_value_assign_one_temporary():
    text = _judged("""
        def sample(log, obj, c0, c1, x, y):
            __A0__
            if c0:
                log('s1')
                y  # kept
            else:
                log('v2', 2)  # kept
            __B0__
            r = log(G, __H0__)
            if c1 is None:
                r = 0
            return r
    """, ["keep"])
    assert "= y\n" in text and "= log('v2', 2)" in text, text


def test_a_value_the_arm_going_on_computed_is_not_evaluated_before_the_if():
    """One arm raises, the other runs a statement and leaves ``obj.p``: that value is
    the arm's, computed after its statement, not one beneath the branch."""
    _judged("""
        def sample(log, obj, c0, c1, x, y):
            __A0__
            if not c0:
                x = log('t1', 1)
                obj.p  # kept
            else:
                raise ValueError('r2')
            __B0__
            __A1__
            (x if x > 1 else y)  # kept
            __B1__
            r = (__H0__, -x, __H1__, obj.q(7))
            if c1 is None:
                r = 0
            return r
    """, ["keep", "drop"])


def test_a_test_block_storing_a_value_is_no_part_of_a_condition():
    """``if not c0: x = f(); if not c0: ...`` with a value beneath: the store waited to
    join a parallel assignment, so the block looked like a pure test and the two tests
    were joined into ``not c0 and not c0``, losing the store."""
    _judged("""
        def sample(log, obj, c0, c1, x, y):
            __A0__
            if not c0:
                x = log('t1', 1)
                if not c0:
                    x = log('t2', 2)
            __B0__
            r = G - -x * __H0__
            if c1 is None:
                r = 0
            return r
    """, ["push"])


def test_a_walrus_in_a_dropped_value_comes_after_the_names_waiting_beneath_it():
    """``y`` waits beneath ``obj.p if (y := f()) else x``, which is dropped: written as a
    statement, the walrus ran before the later read of ``y``."""
    _judged("""
        def sample(log, obj, c0, c1, x, y):
            __A0__
            (obj.p if (y := log('c', c1)) else x)  # kept
            __B0__
            r = (G, y, __H0__, x)
            if c1 is None:
                r = 0
            return r
    """, ["drop"])


def test_a_name_waiting_beneath_a_walrus_in_a_value_evaluated_into_a_temporary_is_read_first():
    """``y`` waits beneath ``log('v1', 1) if (y := f()) else x`` (an if whose arms leave a
    value); a dropped ``y and y`` then has that value evaluated into a temporary, whose
    walrus changed ``y`` before the ``y`` beneath it was read (stack_branch_fuzz.py seed
    113777, every version)."""
    _judged("""
        def sample(log, obj, c0, c1, x, y):
            __A0__
            if (y := log('c', c1)):
                log('v1', 1)  # kept
            else:
                x  # kept
            __B0__
            __A1__
            (y and y)  # kept
            __B1__
            r = log(y, __H0__, 7, __H1__)
            if c1 is None:
                r = 0
            return r
    """, ["keep", "drop"])


def test_values_waiting_are_evaluated_in_the_order_they_began():
    """``(y := f())`` then ``x and y`` beneath a branch: ``x and y``, of names only, was
    evaluated into its temporary first, reading the old ``y``."""
    _judged("""
        def sample(log, obj, c0, c1, x, y):
            __A0__
            (x and y)  # kept
            __B0__
            __A1__
            if c0:
                log('s1')
            else:
                log('s2')
            __B1__
            r = log((y := log('p4', 4)), __H0__, y, __H1__)
            if c1 is None:
                r = 0
            return r
    """, ["keep", "push"])


def test_a_name_waiting_under_a_store_to_it_is_read_before_the_store():
    """``y - (y := f()) * ...``: the store evaluated into a temporary before a branch
    changed ``y`` before the ``y`` beneath it was read."""
    _judged("""
        def sample(log, obj, c0, c1, x, y):
            __A0__
            if c0:
                log('s1')
            else:
                x = log('t2', 2)
            __B0__
            r = y - (y := log('p3', 3)) * __H0__
            if c1 is None:
                r = 0
            return r
    """, ["push"])


def test_a_name_waiting_under_a_store_to_it_is_read_before_a_dropped_call():
    """The same, the store evaluated into a temporary before a dropped conditional
    expression of calls (``Frame.spill``, not a branch's ``if``)."""
    _judged("""
        def sample(log, obj, c0, c1, x, y):
            __A0__
            (log('v1', 1) if c0 else log('v2', 2))  # kept
            __B0__
            r = log(y, (y := log('p3', 3)), __H0__)
            if c1 is None:
                r = 0
            return r
    """, ["drop"])


def test_a_value_read_after_a_store_does_not_join_it():
    """``x = f()`` (waiting to join a parallel assignment), then ``r = (y, x)`` reading
    the new ``x``: never ``x, r = f(), (y, x)``."""
    _judged("""
        def sample(log, obj, c0, c1, x, y):
            __A0__
            if log('c', c0) and log('d', c1):
                raise ValueError('r1')
            else:
                log('s2')
                x = log('t3', 3)
            __B0__
            r = (y, __H0__)
            if c1 is None:
                r = 0
            return r
    """, ["push"])


def test_a_name_waiting_under_a_parallel_assignment_to_it_is_read_first():
    """``x = f()`` waits to join a parallel assignment while the ``x`` loaded before
    it waits too: it is read before the assignment."""
    _judged("""
        def sample(log, obj, c0, c1, x, y):
            __A0__
            if c0 and c1:
                raise ValueError('r1')
            else:
                x = log('t2', 2)
                log('s3')
            __B0__
            r = log(x, 7, __H0__)
            if c1 is None:
                r = 0
            return r
    """, ["push"])


def test_a_statement_that_changes_a_waiting_value_gets_a_second_attempt_with_temporaries():
    """torch 2.15's resume function after a graph break in a closure: ``count = 2`` while
    ``graph_out[0]`` waits, then ``del graph_out``.  The first attempt, gathering a parallel
    assignment, cannot evaluate the waiting value in order; the code copies nothing, so
    there was no second attempt with temporaries, and the state machine took it."""
    _judged("""
        def sample(log, obj, c0, c1, x, y):
            __A0__
            obj.z = 5
            del x
            x = 7
            __B0__
            r = log(obj.p, -x, __H0__)
            if c1 is None:
                r = 0
            return r
    """, ["push"])


def test_a_name_waiting_under_a_store_to_it_and_read_again_after_it():
    """``x`` waits while ``x = f()`` waits to join a parallel assignment; then ``(x, x)``
    reads the old ``x`` and the new one.  Written ``x = f(); r = (x, x)`` (or, before the
    flush rule, ``x, r = f(), (x, x)``), one of the two reads is wrong."""
    _judged("""
        def sample(log, obj, c0, c1, x, y):
            __A0__
            x = log('t2', 2)
            __B0__
            r = (x, __H0__)
            if c1 is None:
                r = 0
            return r
    """, ["push"])


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_sample_is_the_same_on_every_run(seed):
    assert sbp.generate(seed).source == sbp.generate(seed).source


def test_a_name_loaded_after_its_pending_store_is_dropped_after_the_assignment():
    """``x = log(...); x`` in the arm that goes on, ``obj.p`` waiting beneath the branch
    (so the store to ``x`` waits to join a parallel assignment) and the arm's value ``x``
    then dropped: a dropped name that a pending target rebinds was refused, though it was
    loaded after that store and reads the value stored, and the function was lowered to
    the state machine (stack_branch_fuzz.py seed 61003 and five more, 3.10-3.13)."""
    text = _judged("""
        def sample(log, obj, c0, c1, x, y):
            __A0__
            if not c0:
                raise ValueError('r1')
            else:
                if not c0:
                    if c1:
                        log('s2')
                x = log('t3', 3)
                x  # kept
            __B0__
            r = (obj.p, __H0__)
            if c1 is None:
                r = 0
            return r
    """, ["drop"])
    assert "x = log('t3', 3)\n" in text
