"""How decompile time grows with the size of one function: shapes that grow.

    python benchmarks/growth.py [--shapes elif and ...] [--budget SECONDS] [--check]

Each shape is generated as source for a few sizes, compiled, and its function's
code object decompiled (``unveil.decompile_code``); the time is the best of
three runs (one for a run over a second).  A family stops growing once one size
takes longer than ``--budget`` seconds.  With ``--check`` the output is also
recompiled and run on a few inputs against the original, and whether the
recompiled bytecode is identical is printed.

This prints times, it asserts nothing: a timed test would fail on a slow machine.
The round trip of the long ``elif`` chain is a case of its own
(``tests/cases/regressions.py``).
"""
import argparse
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "src"))  # time the working tree's unveil
sys.path.insert(0, ROOT)

import unveil  # noqa: E402
from unveil.errors import DecompilationError  # noqa: E402


def _elif_returns(n):
    """``if x == 0: return 0`` then ``elif x == i: return i`` for each ``i``."""
    lines = ["def f(x):", "    if x == 0:", "        return 0"]
    for i in range(1, n):
        lines += ["    elif x == %d:" % i, "        return %d" % i]
    lines += ["    return -1"]
    return "\n".join(lines), [(0,), (n // 2,), (n - 1,), (n,)]


def _elif_updates_and_returns(n):
    """An ``elif`` chain whose arms update a local and return it: 3.10 and 3.12+ end each
    arm in a copy of its return, each on a line of its own."""
    lines = ["def f(x, y):", "    if x == 0:", "        y += 1", "        return y"]
    for i in range(1, n):
        lines += ["    elif x == %d:" % i, "        y += %d" % i, "        return y"]
    lines += ["    return y"]
    return "\n".join(lines), [(0, 1), (n // 2, 1), (n - 1, 1), (n, 1)]


def _elif_assigns(n):
    """An ``elif`` chain whose arms assign and fall through to one merge point, with
    an ``else``."""
    lines = ["def f(x):", "    if x == 0:", "        r = 'a0'"]
    for i in range(1, n):
        lines += ["    elif x == %d:" % i, "        r = 'a%d'" % i]
    lines += ["    else:", "        r = None", "    return r"]
    return "\n".join(lines), [(0,), (n // 2,), (n - 1,), (n,)]


def _boolop(op):
    def make(n):
        test = (" %s " % op).join("x[%d]" % i for i in range(n))
        src = "def f(x):\n    if %s:\n        return 1\n    return %s" % (test, test)
        ones = [1] * n
        return src, [(ones,), ([0] + ones[1:],), (ones[:-1] + [0],), ([0] * n,)]
    make.__doc__ = "``if x[0] %s x[1] %s ...: return 1`` then ``return`` the same chain." % (op, op)
    return make


def _nested_ifs(n):
    """``if x > 0:`` nested ``n`` deep, each level assigning first."""
    lines = ["def f(x):", "    r = 0"]
    for i in range(n):
        pad = "    " * (i + 1)
        lines += [pad + "if x > %d:" % i, pad + "    r += 1"]
    lines += ["    return r"]
    return "\n".join(lines), [(0,), (n // 2,), (n + 1,)]


def _nested_loops(n):
    """``for`` loops nested ``n`` deep (CPython allows 20 statically nested blocks)."""
    lines = ["def f(x):", "    r = 0"]
    for i in range(n):
        pad = "    " * (i + 1)
        lines += [pad + "for i%d in range(x):" % i]
    lines += ["    " * (n + 1) + "r += 1", "    return r"]
    return "\n".join(lines), [(0,), (1,), (2,)]


def _list_literal(n):
    """A list display of ``n`` constants (``BUILD_LIST`` then ``LIST_EXTEND``)."""
    return "def f(x):\n    return [%s]" % ", ".join(str(i) for i in range(n)), [(0,)]


def _list_of_names(n):
    """A list display of ``n`` non-constant values."""
    return "def f(x):\n    return [%s]" % ", ".join("x + %d" % i for i in range(n)), [(1,)]


def _dict_literal(n):
    """A dict display of ``n`` constant items."""
    return "def f(x):\n    return {%s}" % ", ".join("%d: 'v%d'" % (i, i) for i in range(n)), [(0,)]


def _statements(n):
    """``n`` straight-line statements, each reading the one before."""
    lines = ["def f(x):", "    a0 = x"]
    lines += ["    a%d = a%d + %d" % (i, i - 1, i) for i in range(1, n)]
    lines += ["    return a%d" % (n - 1)]
    return "\n".join(lines), [(0,), (5,)]


def _statements_with_ifs(n):
    """``n`` statements, each an ``if`` with one assignment."""
    lines = ["def f(x):", "    r = 0"]
    for i in range(n):
        lines += ["    if x == %d:" % (i % 7), "        r += %d" % i]
    lines += ["    return r"]
    return "\n".join(lines), [(0,), (3,), (9,)]


SHAPES = {
    "elif": (_elif_returns, (100, 200, 400, 800, 1000, 2000, 5000)),
    "elif-update-return": (_elif_updates_and_returns, (100, 200, 400, 800, 1000, 2000)),
    "elif-assign": (_elif_assigns, (100, 200, 400, 800, 1000, 2000, 5000)),
    "and": (_boolop("and"), (100, 200, 400, 800, 1000, 2000, 5000)),
    "or": (_boolop("or"), (100, 200, 400, 800, 1000, 2000, 5000)),
    "nested-if": (_nested_ifs, (10, 25, 50, 90)),
    "nested-for": (_nested_loops, (5, 10, 19)),
    "list": (_list_literal, (1000, 10000, 100000)),
    "list-exprs": (_list_of_names, (1000, 10000, 30000)),
    "dict": (_dict_literal, (1000, 10000, 50000)),
    "statements": (_statements, (1000, 10000, 30000)),
    "if-statements": (_statements_with_ifs, (1000, 5000, 10000)),
}


def measure(src):
    namespace = {}
    exec(compile(src, "<growth>", "exec"), namespace)
    fn = namespace["f"]
    best, result = None, None
    for _ in range(3):
        start = time.perf_counter()
        try:
            result = unveil.decompile_code(fn)
        except (DecompilationError, RecursionError) as exc:
            return time.perf_counter() - start, fn, "refused: %s" % str(exc)[:70]
        took = time.perf_counter() - start
        best = took if best is None else min(best, took)
        if took > 1.0:
            break
    return best, fn, result


def check(fn, result, calls):
    from tests.roundtrip import same_bytecode
    import types

    code = unveil.recompile(result.source, fn.__code__)
    new = types.FunctionType(code, fn.__globals__, fn.__name__)
    for args in calls:
        if new(*args) != fn(*args):
            return "WRONG on %r" % (args,)
    return "identical" if same_bytecode(fn.__code__, new.__code__) else "same behaviour"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--shapes", nargs="*", default=list(SHAPES), choices=list(SHAPES))
    parser.add_argument("--budget", type=float, default=10.0,
                        help="stop a family's sizes after one takes longer (seconds)")
    parser.add_argument("--check", action="store_true", help="recompile, run and compare too")
    args = parser.parse_args(argv)
    print("Python %d.%d.%d" % sys.version_info[:3])
    print("%-14s %7s %10s  %s" % ("shape", "size", "seconds", "result"))
    for shape in args.shapes:
        make, sizes = SHAPES[shape]
        for n in sizes:
            src, calls = make(n)
            try:
                took, fn, result = measure(src)
            except (SyntaxError, RecursionError, MemoryError) as exc:  # CPython's own limits
                print("%-14s %7d %10s  CPython refuses: %s" % (shape, n, "-", str(exc)[:60]))
                break
            if isinstance(result, str):
                outcome = result
            else:
                outcome = "ok, %d lines" % result.source.count("\n")
                if args.check:
                    outcome += ", " + check(fn, result, calls)
            print("%-14s %7d %10.3f  %s" % (shape, n, took, outcome), flush=True)
            if took > args.budget:
                break


if __name__ == "__main__":
    main()
