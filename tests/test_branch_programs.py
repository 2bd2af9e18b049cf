"""A slice of benchmarks/branch_programs.py: ifs whose arms hold ifs that raise, return or
leave a loop, with code after them, in a try, a with or a loop (the code after the ifs
was written into the inner arms too on 3.8 and 3.9, and ran twice), each decompiled,
recompiled and run against the original.  Every 7th program, the same on every Python;
the whole run: ``python benchmarks/branch_programs.py --versions``."""
import importlib.util
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "benchmarks"))
_spec = importlib.util.spec_from_file_location("branch_programs", os.path.join(ROOT, "benchmarks", "branch_programs.py"))
branch_programs = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(branch_programs)

EVERY = 7
#: docutils' ``DocInfo.extract_authors``, cut down: wrong on 3.8 and 3.9
RAISE_IN_AN_INNER_CHAIN = ("def f(n, a, b, cm, out):\n    try:\n        if n % 2:\n            if a:\n"
                           "                x = n + 1\n            elif b:\n                x = n + 2\n"
                           "            else:\n                raise KeyError(b)\n        else:\n"
                           "            x = n + 3\n        out.append(x)\n    except KeyError:\n"
                           "        out.append('k')\n    return out\n")


def test_the_slice_runs_as_the_originals_do():
    found = branch_programs.run(EVERY)
    failures = found.get("wrong", []) + found.get("refused", [])
    assert not failures, "\n".join("program %d:\n%s%s" % f for f in failures[:2])
    assert sum(len(v) for v in found.values()) == len(branch_programs.programs()[::EVERY])


def test_the_code_after_the_ifs_runs_once():
    assert branch_programs.judge(RAISE_IN_AN_INNER_CHAIN)[0] in ("same", "lowered")


def test_the_judge_fails_on_a_wrong_decompilation(monkeypatch):
    """The control: the code after the ifs run twice is caught."""
    import unveil
    real = unveil.decompile_code

    def twice(fn, *args, **kwargs):
        result = real(fn, *args, **kwargs)
        assert "out.append(x)" in result.source
        result.source = result.source.replace("out.append(x)", "out.append(x)\n        out.append(x)", 1)
        return result
    monkeypatch.setattr(unveil, "decompile_code", twice)
    assert branch_programs.judge(RAISE_IN_AN_INNER_CHAIN)[0] == "wrong"


def test_the_programs_are_fixed_and_hold_each_arm():
    first = branch_programs.programs()
    assert first == branch_programs.programs() and len(first) == 472
    text = "\n".join(first[::EVERY])
    for part in ("try:", "finally:", "with cm(out)", "for i in range(2)", "while i < 2", "raise KeyError(b)",
                 "return out", "break", "continue", "nodes = [y for y in range(x)]"):
        assert part in text, part
