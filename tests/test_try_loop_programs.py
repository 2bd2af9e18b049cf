"""A slice of benchmarks/try_loop_programs.py: loops inside a try, a with or an except
clause (and of nested_try_loop_programs.py: two deep), left by break, return and raise
from inner tries and clauses (a ``break`` out of a try with a finally body in a ``while
1:`` ran the finally body twice), each decompiled, recompiled and run against the
original.  Every 25th program, the same on every Python; the whole runs: ``python
benchmarks/try_loop_programs.py --versions`` and ``nested_try_loop_programs.py``."""
import importlib.util
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "benchmarks"))
_spec = importlib.util.spec_from_file_location("try_loop_programs",
                                               os.path.join(ROOT, "benchmarks", "try_loop_programs.py"))
try_loop_programs = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(try_loop_programs)
_spec = importlib.util.spec_from_file_location("nested_try_loop_programs",
                                               os.path.join(ROOT, "benchmarks", "nested_try_loop_programs.py"))
nested_try_loop_programs = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(nested_try_loop_programs)

EVERY = 25
#: the shape the judge found written wrong on every version: the finally body's copy on
#: the ``break`` path was written after the loop as well
BREAK_IN_A_FINALLY = ("def f(ps, c0, c1, c2, cm, check):\n    out = []\n    while 1:\n        p = ps.pop()\n"
                      "        try:\n            if c0(p): break\n        finally:\n            out.append(-1)\n"
                      "        if c1(p): continue\n        out.append(p)\n    return out\n")


def test_the_slice_runs_as_the_originals_do():
    found = try_loop_programs.run(EVERY)
    failures = found.get("wrong", []) + found.get("refused", [])
    assert not failures, "\n".join("program %d:\n%s%s" % f for f in failures[:2])
    assert sum(len(v) for v in found.values()) == len(try_loop_programs.programs()[::EVERY])


def test_the_nested_slice_runs_as_the_originals_do():
    """Loops two deep in try machinery (``nested_try_loop_programs.py``): every 25th."""
    found = nested_try_loop_programs.run(EVERY)
    failures = found.get("wrong", []) + found.get("refused", [])
    assert not failures, "\n".join("program %d:\n%s%s" % f for f in failures[:2])
    assert sum(len(v) for v in found.values()) == len(nested_try_loop_programs.programs()[::EVERY]) == 156


def test_a_break_out_of_a_try_with_a_finally_body_runs_it_once():
    assert try_loop_programs.judge(BREAK_IN_A_FINALLY)[0] in ("same", "lowered")


def test_the_judge_fails_on_a_wrong_decompilation(monkeypatch):
    """The control: one more item in what the function returns is caught (structured or
    lowered, the text makes ``out`` by ``out = []``)."""
    import unveil
    real = unveil.decompile_code

    def one_more(fn, *args, **kwargs):
        result = real(fn, *args, **kwargs)
        assert "out = []" in result.source
        result.source = result.source.replace("out = []", "out = [-1]", 1)
        return result
    monkeypatch.setattr(unveil, "decompile_code", one_more)
    assert try_loop_programs.judge(BREAK_IN_A_FINALLY)[0] == "wrong"


def test_the_programs_are_fixed_and_hold_each_arm():
    first = try_loop_programs.programs()
    assert first == try_loop_programs.programs() and len(first) == 5070
    text = "\n".join(first[::EVERY])
    for part in ("finally:", "except KeyError", "with cm(out)", "except ValueError as e", "while 1:",
                 "while ps:", "for p in ps:", "raise KeyError", "except ZeroDivisionError:\n                break",
                 "if c1(p): return out", "out = out + ['f']", "out = out + [-1]"):
        assert part in text, part
