"""Random functions of stores and loads around control flow, decompiled and run.

    python benchmarks/store_programs.py [--examples N] [--seed S] [--show K] [--json OUT]
                                        [--versions [X.Y ...]]

Each program is one function ``f(s, a, b, c)`` made of short sequences of stores
and loads of a few names (``x = 1; y = x``, ``a, b = b, a``, ``a = b = c``,
``a += b``, ``a, *b = s.triple()``, ``(a, b), c = ...``, stores into ``s.d[a]``
and ``s.k`` beside a name, a call between them) placed before, inside and
after loops, conditionals, short circuits (``while s.t() and s.u(): pass``, ``if
a or b:``), conditional expressions, ``try``/``except``/``finally`` and
``with``, nested up to two deep.  It ends in ``return _state(locals())``: every
local it bound, and the log of calls ``s`` records (each of ``s``'s methods
logs, and ``s.t()``/``s.u()`` return true a bounded number of times, so every
loop ends).

Every program is compiled, its function decompiled (``unveil.decompile_code``),
the text recompiled (``unveil.recompile``), and both functions called on the
same arguments (``tests/outcome.py``: results, or the exception's type and
message, an ``UnboundLocalError`` included); the outcomes must be equal.  A
program is a failure when unveil refuses or crashes, the text does not compile,
a function is written as a state machine (compiled source never needs one), or
the outcomes differ.  Generation uses ``random.Random(seed)`` only: a seed
gives the same programs on every Python and in every run.
``tests/test_store_programs.py`` runs a slice of seed 0 in the normal suite.
"""
import argparse
import collections
import json
import os
import random
import sys
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
for _path in (ROOT, os.path.join(ROOT, "src")):
    if _path not in sys.path:
        sys.path.insert(0, _path)

NAMES = ("a", "b", "c", "x", "y")


# --------------------------------------------------------------------------- the runtime

class S:
    """What a program calls: each method logs; ``t`` and ``u`` are true ``n`` and ``m``
    times, then false (every loop tests one of them, so every loop ends)."""

    def __init__(self, n, m):
        self.log, self.n, self.m, self.d, self.k = [], n, m, {}, 0

    def t(self):
        self.log.append("t")
        self.n -= 1
        return self.n >= 0

    def u(self):
        self.log.append("u")
        self.m -= 1
        return self.m >= 0

    def v(self, k):
        self.log.append(("v", k))
        return k * 10 + len(self.log)

    def pair(self):
        self.log.append("pair")
        return len(self.log), -len(self.log)

    def triple(self):
        self.log.append("triple")
        return [len(self.log), 0, 1]

    def note(self, *values):
        self.log.append(("note",) + values)

    def cm(self):
        return _Managed(self)


class _Managed:
    def __init__(self, s):
        self.s = s

    def __enter__(self):
        self.s.log.append("enter")
        return len(self.s.log)

    def __exit__(self, *exc):
        self.s.log.append(("exit", exc[0] is not None and exc[0].__name__))
        return False


def _state(local):
    """What a run of a program leaves: its locals (``s`` as what it recorded; not the
    temporaries a decompiled text may add, ``__t0``)."""
    s = local.get("s")
    names = sorted((k, v) for k, v in local.items() if k != "s" and not k.startswith("__"))
    return names, s and (s.log, sorted(s.d.items(), key=repr), s.k)


#: the arguments each program is called with: (s, a, b, c)
CALLS = ((S(2, 1), 0, 1, 2), (S(0, 3), 3, 0, 5), (S(3, 0), 1, 1, 0), (S(1, 2), -2, 4, 0))


# --------------------------------------------------------------------------- generation

class Generator:
    """Programs from one ``random.Random``."""

    def __init__(self, rng):
        self.rng = rng

    def name(self, *avoid):
        return self.rng.choice([n for n in NAMES if n not in avoid])

    def value(self):
        """An expression: a constant, a name, a call, arithmetic, a short circuit."""
        r = self.rng
        kind = r.randrange(9)
        if kind == 0:
            return str(r.randrange(-1, 4))
        if kind in (1, 2, 3):
            return self.name()
        if kind == 4:
            return "s.v(%d)" % r.randrange(5)
        if kind == 5:
            return "%s + %d" % (self.name(), r.randrange(1, 3))
        if kind == 6:
            return "%s if %s else %s" % (self.name(), self.name(), self.value())
        if kind == 7:
            return "%s %s %s" % (self.name(), r.choice(("or", "and")), self.value())
        return "1 // %s" % self.name()    # may raise ZeroDivisionError

    def store(self):
        """One statement of stores and loads (a line)."""
        r = self.rng
        kind = r.randrange(16)
        if kind == 0:
            return "%s = %s" % (self.name(), self.value())
        if kind == 1:   # x = 1; y = x (the load after the store)
            t = self.name()
            return "%s = %s; %s = %s" % (t, self.value(), self.name(t), t)
        if kind == 2:
            a = self.name()
            b = self.name(a)
            return "%s, %s = %s, %s" % (a, b, b, a)
        if kind == 3:
            a = self.name()
            b = self.name(a)
            c = self.name(a, b)
            return "%s, %s, %s = %s, %s, %s" % (a, b, c, b, c, a)
        if kind == 4:
            return "%s, %s = %s, %s" % (self.name(), self.name(), self.value(), self.value())
        if kind == 5:
            return "%s = %s = %s" % (self.name(), self.name(), self.value())
        if kind == 6:
            return "%s %s= %s" % (self.name(), r.choice("+-*"), self.value())
        if kind == 7:
            return "%s, %s = s.pair()" % (self.name(), self.name())
        if kind == 8:
            return "%s, *%s = s.triple()" % (self.name(), self.name())
        if kind == 9:
            a = self.name()
            b = self.name(a)
            return "(%s, %s), %s = (%s, %s), %s" % (a, b, self.name(), b, self.value(), a)
        if kind == 10:
            a = self.name()
            return "s.d[%s], %s = %s, %s" % (a, a, self.value(), self.value())
        if kind == 11:
            a = self.name()
            return "%s, s.d[%s] = %s, %s" % (a, a, self.value(), self.value())
        if kind == 12:
            a = self.name()
            return "s.k, %s = %s, %s" % (a, a, self.value())
        if kind == 13:
            a = self.name()
            b = self.name(a)
            return "%s, %s = %s, %s + %s" % (a, b, b, a, b)
        if kind == 14:
            return "s.note(%s)" % self.name()
        t = self.name()
        return "%s = %s; %s = %s" % (t, self.value(), t, t) if r.random() < 0.5 \
            else "%s = %s; %s %s= %s" % (t, self.value(), self.name(), r.choice("+-"), t)

    def stores(self, lo=1, hi=3):
        return [self.store() for _ in range(self.rng.randint(lo, hi))]

    def block(self, depth, in_loop=False):
        """Lines of a block: stores, and constructs holding blocks, with stores before
        and after each construct."""
        r = self.rng
        lines = self.stores(0, 2)
        for _ in range(r.randint(1, 2)):
            if depth > 0 and r.random() < 0.75:
                lines += self.construct(depth, in_loop)
            lines += self.stores(0, 2)
        if in_loop and r.random() < 0.3:
            lines += ["if %s:" % self.name(), "    %s" % r.choice(("break", "continue"))]
        return lines or ["pass"]

    def construct(self, depth, in_loop):
        r = self.rng
        kind = r.randrange(12)
        body = lambda loop=in_loop: _indent(self.block(depth - 1, loop))
        if kind == 0:
            return ["while s.t() and s.u():", "    pass"]
        if kind == 1:
            return ["while s.t() and %s:" % self.name()] + body(True)
        if kind == 2:
            return ["while s.t() or s.u():"] + body(True)
        if kind == 3:
            return ["while s.t():"] + body(True)
        if kind == 4:
            return ["if %s or %s:" % (self.name(), self.name())] + body() + ["else:"] + body()
        if kind == 5:
            return ["if s.t() and %s:" % self.name()] + body()
        if kind == 6:
            return ["if %s:" % self.name()] + body() + ["elif %s:" % self.name()] + body()
        if kind == 7:
            return ["for %s in range(2):" % self.name()] + body(True)
        if kind == 8:
            return ["try:"] + body() + ["except ZeroDivisionError:"] + body()
        if kind == 9:
            return ["try:"] + body() + ["finally:"] + _indent(self.stores())
        if kind == 10:
            return ["with s.cm() as %s:" % self.name()] + body()
        return ["while not (%s or not s.t()):" % self.name(), "    pass"]

    def program(self):
        # (x bound first: a load of an unbound local ends a run early; y may be one)
        lines = ["def f(s, a, b, c):", "    x = %d" % self.rng.randrange(3)] + _indent(self.block(2)) \
            + ["    return _state(locals())"]
        return "\n".join(lines) + "\n"


def _indent(lines):
    return ["    " + line for line in lines]


def programs(seed, count):
    """``count`` program texts of ``seed``."""
    gen = Generator(random.Random(seed))
    return [gen.program() for _ in range(count)]


# --------------------------------------------------------------------------- judging

def judge(source):
    """("same", None), or (a failure kind, what it says) for one program."""
    from tests.outcome import outcome
    from tests.cases.registry import Call
    from tests.roundtrip import rebuild_decompiled
    from unveil.errors import DecompilationError
    namespace = {"_state": _state}
    exec(compile(source, "<store program>", "exec"), namespace)
    fn = namespace["f"]
    try:
        new, result = rebuild_decompiled(fn)
    except DecompilationError as exc:
        if exc.__cause__ is not None:
            return "crash", "%s: %s" % (type(exc.__cause__).__name__, exc.__cause__)
        return "refused", str(exc)
    except SyntaxError as exc:
        return "does not compile", str(exc)
    if result.lowered:
        return "state machine", result.source
    for args in CALLS:
        call = Call(*args)
        expected, got = outcome(fn, call), outcome(new, call)
        if got != expected:
            return "different", "%s\n%r\n!= %r\ndecompiled:\n%s" % (args[1:], got, expected, result.source)
    return "same", None


def run(seed, count):
    """{"counts": {verdict: n}, "failures": [(index, kind, program, what)]} over ``count``
    programs of ``seed``."""
    counts, failures = collections.Counter(), []
    for index, source in enumerate(programs(seed, count)):
        try:
            kind, what = judge(source)
        except Exception:  # a crash outside unveil's own errors is a failure too, reported whole
            kind, what = "crash", traceback.format_exc()
        counts[kind] += 1
        if kind != "same":
            failures.append((index, kind, source, what))
    return {"python": sys.version.split()[0], "seed": seed, "count": count, "counts": dict(counts),
            "failures": failures}


def report(res, show):
    lines = ["Python %s, seed %d: %d programs, %s" % (res["python"], res["seed"], res["count"],
                                                        ", ".join("%s %d" % kv for kv in sorted(res["counts"].items())))]
    for index, kind, source, what in res["failures"][:show]:
        lines += ["--- program %d: %s" % (index, kind), source.rstrip(), what or ""]
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--examples", type=int, default=2000, help="programs (default 2000)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--show", type=int, default=3, help="failures printed (default 3)")
    ap.add_argument("--json", help="write the results to this JSON file")
    ap.add_argument("--versions", nargs="*", metavar="X.Y", help="run on these pyenv interpreters (default 3.8-3.13)")
    args = ap.parse_args()
    if args.versions is not None:
        sys.path.insert(0, HERE)
        import bench_functions
        results = bench_functions.run_each_version(
            __file__, args.versions, ["--examples", str(args.examples), "--seed", str(args.seed),
                                      "--show", str(args.show)])
        for res in results:
            print(report(res, 0))
        return
    res = run(args.seed, args.examples)
    print(report(res, args.show))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(res, f, indent=1)


if __name__ == "__main__":
    main()
