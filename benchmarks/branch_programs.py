"""Ifs whose arms hold ifs that raise, return or leave a loop, with code after them, inside
a try, a with or a loop, decompiled and run.

    python benchmarks/branch_programs.py [--every K] [--show N] [--json OUT] [--versions [X.Y ...]]

Each program is one function ``f(n, a, b, cm, out)``: an ``if n % 2:`` / ``else:`` in one
of ``CONTEXTS`` (none, a try with an except clause, a try with a finally body, a
``with``, a ``for`` loop's body, a ``while`` loop's body), each of its two arms one of
``ARMS`` (a plain assignment, an inner ``if``/``elif``/``else`` chain one arm of which
raises, returns, breaks or continues), then one of ``TAILS`` (code that uses what the arms
bound).  Every combination that compiles is made, in a fixed order (``break`` and
``continue`` only in the loops).

Made after the package judge found docutils' ``DocInfo.extract_authors`` silently wrong on
3.8 and 3.9: in a try body, an inner ``if a: ... elif b: ... else: raise`` in an outer
if's arm had the code after the outer if written into its arms as well, so that it ran
twice.

Each program is compiled, decompiled (``unveil.decompile_code``), recompiled and run
against the original on every combination of ``n``, ``a`` and ``b`` in 0 to 2; a program
fails when unveil refuses or crashes, or a run's result (or exception type) differs.  A
function lowered to the state machine is counted, not failed.
``tests/test_branch_programs.py`` runs every 7th program in the normal suite.
"""
import itertools
import os
import sys
import textwrap

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import loop_exit_programs  # noqa: E402
import try_loop_programs  # noqa: E402

CONTEXTS = (
    "{body}",
    "try:\n{body}\nexcept KeyError:\n    out.append('k')",
    "try:\n{body}\nfinally:\n    out.append('f')",
    "with cm(out):\n{body}",
    "for i in range(2):\n{body}",
    "i = 0\nwhile i < 2:\n    i += 1\n{body}",
)
ARMS = (
    "x = {v}",
    "if a:\n    x = {v}\nelse:\n    raise KeyError(a)",
    "if a:\n    x = {v}\nelif b:\n    x = {v} + 1\nelse:\n    raise KeyError(b)",
    "if a:\n    x = {v}\nelif b:\n    return out\nelse:\n    x = {v} + 2",
    "if a == 1:\n    raise KeyError(a)\nx = {v}",
    "if a:\n    x = {v}\nelse:\n    return out",
    "if a:\n    x = {v}\nelif b:\n    break\nelse:\n    x = {v} + 3",
    "if a:\n    x = {v}\nelse:\n    continue",
)
TAILS = (
    "out.append(x)",
    "nodes = [y for y in range(x)]\nif len(nodes) > 1:\n    out.append(nodes)\nelse:\n    raise KeyError(x)",
)


def programs():
    """The source of every program that compiles, in a fixed order."""
    out = []
    for context, first, second, tail in itertools.product(CONTEXTS, ARMS, ARMS, TAILS):
        ifs = "\n".join(["if n % 2:", textwrap.indent(first.format(v="n + 1"), "    "),
                         "else:", textwrap.indent(second.format(v="n + 2"), "    "), tail])
        text = context.format(body=textwrap.indent(ifs, "    "))
        source = "def f(n, a, b, cm, out):\n%s\n    return out\n" % textwrap.indent(text, "    ")
        try:
            compile(source, "<branch program>", "exec")
        except SyntaxError:   # ``break``/``continue`` outside a loop
            continue
        out.append(source)
    return out


def _call(fn, n, a, b):
    out = []
    try:
        return fn(n, a, b, try_loop_programs.Recording, out)
    except Exception as exc:   # the program's own exception is part of what it does
        return type(exc).__name__, out


def judge(source):
    """``("same" | "lowered", None)``, or ``(failure kind, detail)``."""
    import unveil
    from tests.roundtrip import rebuild_decompiled

    namespace = {}
    exec(compile(source, "<branch program>", "exec"), namespace)
    original = namespace["f"]
    try:
        new, result = rebuild_decompiled(original)
    except unveil.DecompilationError as exc:
        return "refused", str(exc)
    for n, a, b in itertools.product(range(3), repeat=3):
        if _call(original, n, a, b) != _call(new, n, a, b):
            return "wrong", "n=%d a=%d b=%d\n--- decompiled:\n%s" % (n, a, b, result.source)
    return ("lowered" if result.lowered else "same"), None


def run(every=1):
    """{kind: [(index, source, detail)]} over every ``every``-th program."""
    return loop_exit_programs.run(every, programs, judge)


if __name__ == "__main__":
    sys.exit(loop_exit_programs.main(None, programs, judge, __file__, __doc__))
