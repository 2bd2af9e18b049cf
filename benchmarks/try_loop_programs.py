"""Loops inside a try, a with or an except clause, left by break, return and raise from
inner tries and clauses, decompiled and run.

    python benchmarks/try_loop_programs.py [--every K] [--show N] [--json OUT] [--versions [X.Y ...]]

Each program is one function ``f(ps, c0, c1, c2, cm, check)``.  A loop (``while 1:``
popping ``ps`` until it raises ``IndexError``, ``while ps:`` popping it, or ``for p in
ps:``) sits in one of ``CONTEXTS``: the body of a try with a finally body (one that
appends to ``out``, one that rebinds it), of a try with an except clause, of a ``with``,
or inside an except clause itself; with or without a statement before the try.  Its
body is two of ``ARMS`` (``break``, ``return`` and ``continue`` under a test, a ``try``
whose except clause breaks, returns or passes, a ``return`` in a try body, a ``break``
in a try with a finally body that appends or rebinds, a ``raise``, a ``return`` from a
nested ``for``, a ``break`` in a ``with``, a plain statement), then ``out.append(p)``.
Every combination is made, in a fixed order.  (A finally body that rebinds ``out``
catches a ``return out`` written before it where the code loads ``out`` after it.)

Made after the package judge found lark's ``LALR_Parser.parse`` and mpmath's ``sqrtm``
and ``adaptive_extrapolation`` lowered to the state machine on every version: a loop's
way on was taken from a return's second half (the return's value loaded inside a try,
the exception popped or the finally body copied outside it).

Each program is compiled, decompiled (``unveil.decompile_code``), recompiled and run
against the original on the same random lists and predicates (the judge of
``loop_exit_programs.py``); a program fails when unveil refuses or crashes, or any
run's result (or exception type) differs.  A function lowered to the state machine is
counted, not failed (it runs correctly).  ``tests/test_try_loop_programs.py`` runs every
25th program in the normal suite.
"""
import itertools
import os
import random
import sys
import textwrap

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import loop_exit_programs  # noqa: E402

CONTEXTS = (
    "try:\n{loop}\nfinally:\n    out.append('f')",
    "try:\n{loop}\nfinally:\n    out = out + ['f']",
    "try:\n{loop}\nexcept KeyError:\n    out.append('k')",
    "with cm(out):\n{loop}",
    "try:\n    check(ps)\nexcept ValueError as e:\n    out.append(str(e))\n{loop}",
)
PRE = ("", "n = len(ps)\n")
LOOPS = ("while 1:\n    p = ps.pop()", "while ps:\n    p = ps.pop()", "for p in ps:")
ARMS = (
    "if c{k}(p): break",
    "if c{k}(p): return out",
    "if c{k}(p): continue",
    "try:\n    q = 10 // (p % 3)\nexcept ZeroDivisionError:\n    break",
    "try:\n    q = 10 // (p % 3)\nexcept ZeroDivisionError:\n    return out",
    "try:\n    q = 10 // (p % 3)\nexcept ZeroDivisionError:\n    pass",
    "try:\n    if c{k}(p): return out\nexcept KeyError:\n    pass",
    "try:\n    if c{k}(p): break\nfinally:\n    out.append(-1)",
    "try:\n    if c{k}(p): break\nfinally:\n    out = out + [-1]",
    "if c{k}(p):\n    raise KeyError(p)",
    "for q in range(2):\n    if c{k}(q + p): return out",
    "with cm(out):\n    if c{k}(p): break",
    "out.append(-2)",
)
RUNS = 20
_MODULI = (2, 3, 5)


def programs():
    """The source of every program, in a fixed order."""
    out = []
    for context, pre, loop, a, b in itertools.product(CONTEXTS, PRE, LOOPS, ARMS, ARMS):
        body = a.format(k=0) + "\n" + b.format(k=1) + "\nout.append(p)"
        looped = loop + "\n" + textwrap.indent(body, "    ")
        text = pre + context.format(loop=textwrap.indent(looped, "    "))
        out.append("def f(ps, c0, c1, c2, cm, check):\n    out = []\n%s\n    return out\n"
                   % textwrap.indent(text, "    "))
    return out


class Recording:
    """A context manager that writes its enter and exit (with the exception's type) to a list."""

    def __init__(self, out):
        self.out = out

    def __enter__(self):
        self.out.append("enter")

    def __exit__(self, kind, value, tb):
        self.out.append("exit %s" % (kind.__name__ if kind else None))


def _check(ps):
    if ps and ps[0] % 2:
        raise ValueError("odd %d" % ps[0])


def _call(fn, run):
    rnd = random.Random(run)
    ps = [rnd.randrange(1, 30) for _ in range(rnd.randrange(0, 7))]
    preds = [lambda p, m=m: p % m == 0 for m in _MODULI]
    preds = preds[run % 3:] + preds[:run % 3]
    try:
        return fn(ps, *preds, Recording, _check)
    except Exception as exc:   # the program's own exception is part of what it does
        return type(exc).__name__


def judge(source):
    """``("same" | "lowered", None)``, or ``(failure kind, detail)``."""
    import unveil
    from tests.roundtrip import rebuild_decompiled

    namespace = {}
    exec(compile(source, "<try loop program>", "exec"), namespace)
    original = namespace["f"]
    try:
        new, result = rebuild_decompiled(original)
    except unveil.DecompilationError as exc:
        return "refused", str(exc)
    for run in range(RUNS):
        if _call(original, run) != _call(new, run):
            return "wrong", "run %d\n--- decompiled:\n%s" % (run, result.source)
    return ("lowered" if result.lowered else "same"), None


def run(every=1):
    """{kind: [(index, source, detail)]} over every ``every``-th program."""
    return loop_exit_programs.run(every, programs, judge)


if __name__ == "__main__":
    sys.exit(loop_exit_programs.main(None, programs, judge, __file__, __doc__))
