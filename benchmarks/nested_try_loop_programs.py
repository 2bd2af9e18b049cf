"""Loops two deep in try machinery: a loop inside a try, a with or an except clause, inside
another loop inside another, decompiled and run.

    python benchmarks/nested_try_loop_programs.py [--every K] [--show N] [--json OUT] [--versions [X.Y ...]]

Each program is one function ``f(ps, c0, c1, c2, cm, check)``, like those of
``try_loop_programs.py``, which only nests one loop.  Here the outer loop (``while ps:``
popping ``ps``, or ``for p in ps:``) sits in one of that script's ``CONTEXTS``, and its
body holds a second loop (``for q in range(p % 4):``, or a ``while`` counting ``q`` up to
it) in one of ``INNER_CONTEXTS`` (the same kinds: a try with a finally body that appends
to ``out`` or rebinds it, a try with an except clause, a ``with``, an except clause).  The
inner loop's body is one of that script's ``ARMS``, tested on ``p + q``, then
``out.append(q)``; after the inner context the outer loop's body ends with one of
``OUTER_TAILS`` (a ``break``, a ``continue`` or a plain statement) and ``out.append(p)``.
Every combination is made, in a fixed order.

Each program is judged as ``try_loop_programs.py`` judges its own: compiled, decompiled,
recompiled and run against the original on the same random lists and predicates; a
program fails when unveil refuses or crashes, or any run's result (or exception type)
differs, and a function lowered to the state machine is counted, not failed.
``tests/test_try_loop_programs.py`` runs every 25th program in the normal suite.
"""
import itertools
import os
import sys
import textwrap

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import loop_exit_programs  # noqa: E402
import try_loop_programs  # noqa: E402

OUTER_LOOPS = ("while ps:\n    p = ps.pop()", "for p in ps:")
INNER_CONTEXTS = (
    "try:\n{loop}\nfinally:\n    out.append('g')",
    "try:\n{loop}\nfinally:\n    out = out + ['g']",
    "try:\n{loop}\nexcept KeyError:\n    out.append('j')",
    "with cm(out):\n{loop}",
    "try:\n    check([p])\nexcept ValueError as e:\n    out.append(len(out))\n{loop}",
)
INNER_LOOPS = ("for q in range(p % 4):", "q = 0\nwhile q < p % 4:\n    q += 1")
OUTER_TAILS = ("if c2(p): break", "if c2(p): continue", "out.append(-3)")


def programs():
    """The source of every program, in a fixed order."""
    out = []
    for context, outer, inner_context, inner, arm, tail in itertools.product(
            try_loop_programs.CONTEXTS, OUTER_LOOPS, INNER_CONTEXTS, INNER_LOOPS, try_loop_programs.ARMS,
            OUTER_TAILS):
        # the arms' own ``q`` is ``r`` here: rebinding the inner loop's counter could loop forever
        inner_body = arm.format(k=0).replace("q", "r").replace("(p)", "(p + q)") + "\nout.append(q)"
        inner_loop = inner + "\n" + textwrap.indent(inner_body, "    ")
        outer_body = inner_context.format(loop=textwrap.indent(inner_loop, "    ")) + "\n" + tail + "\nout.append(p)"
        outer_loop = outer + "\n" + textwrap.indent(outer_body, "    ")
        text = context.format(loop=textwrap.indent(outer_loop, "    "))
        out.append("def f(ps, c0, c1, c2, cm, check):\n    out = []\n%s\n    return out\n"
                   % textwrap.indent(text, "    "))
    return out


def run(every=1):
    """{kind: [(index, source, detail)]} over every ``every``-th program."""
    return loop_exit_programs.run(every, programs, try_loop_programs.judge)


if __name__ == "__main__":
    sys.exit(loop_exit_programs.main(None, programs, try_loop_programs.judge, __file__, __doc__))
