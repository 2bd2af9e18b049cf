"""A slice of benchmarks/store_programs.py: generated functions of stores and loads
(``x = 1; y = x``, swaps, chained, augmented and unpacking assignments, stores into
items and attributes) before, in and after loops, conditionals, short circuits,
``try`` and ``with``; each decompiled, recompiled and run against the original on
the same arguments (results, locals and the calls made, or the exception).

Seed 0's first COUNT programs, the same on every Python.  Every program must come
out the same, unless KNOWN lists it for this version with the reason (a listed one
that comes out the same fails too: the list only shrinks).  Nothing but a state
machine (correct, but compiled source never needs one) may be listed: a program
that behaves differently, is refused or crashes is never a known failure.  The
whole run: ``python benchmarks/store_programs.py --versions``.
"""
import importlib.util
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_spec = importlib.util.spec_from_file_location("store_programs", os.path.join(ROOT, "benchmarks", "store_programs.py"))
store_programs = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(store_programs)

COUNT = 60

#: program index -> reason, of the state machines among seed 0's first COUNT programs, per version
KNOWN = {(3, 8): {}, (3, 9): {}, (3, 10): {}, (3, 11): {}, (3, 12): {}, (3, 13): {}}


def test_generated_store_sequences_behave_the_same():
    res = store_programs.run(0, COUNT)
    print(store_programs.report(res, 0))
    known = KNOWN[sys.version_info[:2]]
    unexpected = [(i, kind, source, what) for i, kind, source, what in res["failures"]
                  if kind != "state machine" or i not in known]
    assert not unexpected, "\n".join("program %d: %s\n%s%s" % f for f in unexpected[:3])
    lowered = {i for i, kind, _, _ in res["failures"]}
    assert lowered == set(known), "no longer a state machine (remove from KNOWN): %s" % sorted(set(known) - lowered)


def test_the_generator_is_deterministic_and_varied():
    """The same programs from the same seed; the slice holds each construct."""
    first = store_programs.programs(0, COUNT)
    assert first == store_programs.programs(0, COUNT)
    text = "\n".join(first)
    for construct in ("while s.t() and s.u():\n", "if a or ", "for ", "try:", "except ZeroDivisionError:",
                      "finally:", "with s.cm()", " if ", "*", "s.d[", " += ", "break", "continue"):
        assert construct in text, construct
