"""A slice of benchmarks/loop_exit_programs.py: loop bodies whose if/elif arms leave by
inner ``continue``, ``break`` and ``return`` (3.8 and 3.9 wrote a second, always taken
``continue`` after some), each decompiled, recompiled and run against the original.
Every 15th program, the same on every Python; the whole run:
``python benchmarks/loop_exit_programs.py --versions``."""
import importlib.util
import os

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_spec = importlib.util.spec_from_file_location("loop_exit_programs",
                                               os.path.join(ROOT, "benchmarks", "loop_exit_programs.py"))
loop_exit_programs = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(loop_exit_programs)

EVERY = 15


def test_the_slice_runs_as_the_originals_do():
    found = loop_exit_programs.run(EVERY)
    failures = found.get("wrong", []) + found.get("refused", [])
    assert not failures, "\n".join("program %d:\n%s%s" % f for f in failures[:2])
    assert sum(len(v) for v in found.values()) == len(loop_exit_programs.programs()[::EVERY])


def test_the_judge_fails_on_a_wrong_decompilation(monkeypatch):
    """The control: a decompiler that adds the second ``continue`` is caught."""
    import unveil
    real = unveil.decompile_code

    def doubled(fn, *args, **kwargs):
        result = real(fn, *args, **kwargs)
        result.source = result.source.replace("continue\n", "continue\n" + " " * 12 + "continue\n", 1)
        return result
    source = ("def f(ps, c0, c1, c2, c3, c4):\n    out = []\n    for p in ps:\n        if c0(p):\n"
              "            if c2(p):\n                continue\n            out.append(1)\n"
              "        out.append(p)\n    return out\n")
    assert loop_exit_programs.judge(source)[0] == "same"
    monkeypatch.setattr(unveil, "decompile_code", doubled)
    assert loop_exit_programs.judge(source)[0] == "wrong"


def test_the_programs_are_fixed_and_hold_each_arm():
    first = loop_exit_programs.programs()
    assert first == loop_exit_programs.programs() and len(first) == 4050
    text = "\n".join(first[::EVERY])
    for arm in ("if c2(p): continue", "if c2(p): break", "else:\n                continue", "except ValueError",
                "return out", "while c2(p)", "if not c2(p)", "while ps:"):
        assert arm in text, arm
