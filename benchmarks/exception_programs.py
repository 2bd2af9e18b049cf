"""Random functions of nested try/except/else/finally, with, loops and match, whose
locals may be unbound, decompiled and run: the judge of code moved across a try or
with boundary.

    python benchmarks/exception_programs.py [--start S] [--count N] [--show K] [--json OUT]
                                            [--versions [X.Y ...]]

Each seed makes one function ``fn()`` (plain, generator or ``async``; ``except*`` on
3.11+ and ``match`` on 3.10+ in some): statements that call a helper which raises or
returns as an input sequence says, log side effects, bind, rebind and ``del`` the
locals ``a``, ``b`` and ``r``, load them (a load may find one unbound), ``return``,
``break``, ``continue``, ``raise``, ``yield`` and ``await``, nested in tries, withs (a
context manager that may suppress), loops and ``if``s.  Each is decompiled
(``unveil.decompile_code``), recompiled and run against the original on 25 input
sequences, compared on the value (a generator's items, a coroutine's result), the
exception and its whole ``__context__`` chain, and the log; then again with each call
made inside an ``except`` clause of the caller's.  A program is **wrong** when
any run differs, **crash** when unveil fails with anything but a refusal; refused and
lowered ones are counted.  The exit status is 1 if any program is wrong or crashed.

Made after a bug the package judge's bottle found: ``return out`` after a try, past a
loop whose ``except ValueError: break`` leaves ``out`` unbound, was written inside the
try, whose ``except Exception`` then caught the UnboundLocalError.  Its first run found
six more such families (benchmarks/README).  Programs the running Python cannot compile
(a ``return`` in an async generator, ...) are counted as ``syntax``.
"""
import argparse
import asyncio
import collections
import inspect
import json
import os
import random
import sys
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

#: the helpers every program calls: ``fw(tag)`` raises or returns as the next item of
#: ``SEQ`` says, ``c()`` tests it, ``CM``/``ACM`` log and may suppress; ``STEPS`` bounds loops
PRELUDE = '''
LOG = []
SEQ = []
STEPS = [0]
def _step():
    STEPS[0] += 1
    if STEPS[0] > 300:
        raise OverflowError("steps")
def nxt():
    _step()
    return SEQ.pop(0) if SEQ else "none"
def c():
    _step()
    return bool(SEQ) and SEQ.pop(0) == "none"
def fw(tag):
    k = nxt()
    LOG.append((tag, k))
    if k == "value":
        raise ValueError(tag)
    if k == "key":
        raise KeyError(tag)
    if k == "type":
        raise TypeError(tag)
    return tag
class CM:
    def __init__(self, tag, sup):
        self.tag = tag; self.sup = sup
    def __enter__(self):
        LOG.append(("enter", self.tag)); return self.tag
    def __exit__(self, t, e, tb):
        LOG.append(("exit", self.tag, t.__name__ if t else None))
        return self.sup and t is not None and t is not TypeError
class ACM(CM):
    async def __aenter__(self):
        return self.__enter__()
    async def __aexit__(self, t, e, tb):
        return self.__exit__(t, e, tb)
class AIt:
    def __init__(self, n): self.n = n
    def __aiter__(self): return self
    async def __anext__(self):
        _step()
        if self.n <= 0: raise StopAsyncIteration
        self.n -= 1
        return self.n
async def aw(x):
    LOG.append(("aw", x))
    return x
'''

VARS = ("a", "b", "r")
#: what ``fw`` and ``c`` read from an input sequence
ALPHABET = ["none"] * 5 + ["value"] * 2 + ["key"] * 2 + ["type"]
RUNS = 25


class Program:
    """The text of one random function ``fn``: ``mode`` "f" (plain), "g" (generator)
    or "a" (async)."""

    def __init__(self, rng, mode, star, match):
        self.r, self.mode, self.star, self.match = rng, mode, star, match
        self.budget = rng.randint(5, 16)
        self.tags = 0

    def tag(self):
        self.tags += 1
        return "'t%d'" % self.tags

    def use(self):
        v, k = self.r.choice(VARS), self.r.random()
        if k < 0.6:
            return v
        if k < 0.7:
            return "%s.upper()" % v
        if k < 0.8:
            return "len(%s)" % v
        if k < 0.9:
            return "%s[0]" % v
        return "(%s, %s)" % (v, self.r.choice(VARS))

    def simple(self, sp, in_loop):
        r, k = self.r, self.r.random()
        if k < 0.25:
            return [sp + "%s = fw(%s)" % (r.choice(VARS), self.tag())]
        if k < 0.32:
            return [sp + "%s = %s" % (r.choice(VARS), self.tag())]
        if k < 0.40:
            return [sp + "del %s" % r.choice(VARS)]
        if k < 0.52:
            if self.mode == "g" and r.random() < 0.5:
                return [sp + "yield %s" % self.use()]
            if self.mode == "a" and r.random() < 0.5:
                return [sp + "LOG.append(await aw(%s))" % self.use()]
            return [sp + "LOG.append(%s)" % self.use()]
        if k < 0.60:
            return [sp + "fw(%s)" % self.tag()]
        if k < 0.68 and in_loop:
            return [sp + r.choice(["break", "continue"])]
        if k < 0.75:
            return [sp + "return %s" % (self.use() if r.random() < 0.7 else self.tag())]
        if k < 0.80:
            return [sp + "raise %s(%s)" % (r.choice(["ValueError", "KeyError", "TypeError"]), self.tag())]
        if k < 0.84:
            return [sp + "LOG.append(1 // len(%s))" % r.choice(["SEQ", "LOG"])]
        return [sp + "LOG.append(%s)" % self.tag()]

    def block(self, indent, depth, in_loop, in_handler=False):
        out = []
        for _ in range(self.r.randint(1, 3)):
            if self.budget <= 0 and out:
                break
            self.budget -= 1
            out += self.statement(indent, depth, in_loop, in_handler)
        return out

    def statement(self, indent, depth, in_loop, in_handler):
        r, sp = self.r, "    " * indent
        k = 0 if depth >= 4 or self.budget <= 0 else r.random()
        if k < 0.35:
            return [sp + "raise"] if in_handler and r.random() < 0.1 else self.simple(sp, in_loop)
        if k < 0.45:
            lines = [sp + "if c():"] + self.block(indent + 1, depth + 1, in_loop, in_handler)
            if r.random() < 0.4:
                lines += [sp + "else:"] + self.block(indent + 1, depth + 1, in_loop, in_handler)
            return lines
        if k < 0.57:
            return self.loop(sp, indent, depth, in_loop, in_handler)
        if k < 0.88:
            return self.try_(sp, indent, depth, in_loop, in_handler)
        if k < 0.96:
            kind = "async with" if self.mode == "a" and r.random() < 0.5 else "with"
            manager = "ACM" if kind == "async with" else "CM"
            target = " as %s" % r.choice(VARS) if r.random() < 0.3 else ""
            return [sp + "%s %s(%s, %s)%s:" % (kind, manager, self.tag(), r.choice(["True", "False"]), target)] \
                + self.block(indent + 1, depth + 1, in_loop, in_handler)
        if self.match and r.random() < 0.5:
            lines = [sp + "match nxt():"]
            for pattern in r.sample(["'none'", "'value'", "'key' | 'type'", "_"], r.randint(1, 3)):
                lines += [sp + "    case %s:" % pattern] + self.block(indent + 2, depth + 1, in_loop, in_handler)
            return lines
        return self.simple(sp, in_loop)

    def loop(self, sp, indent, depth, in_loop, in_handler):
        r, k = self.r, self.r.random()
        if self.mode == "a" and k < 0.25:
            head = [sp + "async for i in AIt(%d):" % r.randint(0, 3)]
        elif k < 0.5:
            head = [sp + "for i in range(%d):" % r.randint(0, 3)]
        elif k < 0.75:
            head = [sp + "while c():"]
        else:
            head = [sp + "while True:", sp + "    if not c():", sp + "        break"]
        lines = head + self.block(indent + 1, depth + 1, True, in_handler)
        if r.random() < 0.25:
            lines += [sp + "else:"] + self.block(indent + 1, depth + 1, in_loop, in_handler)
        return lines

    def try_(self, sp, indent, depth, in_loop, in_handler):
        r = self.r
        lines = [sp + "try:"] + self.block(indent + 1, depth + 1, in_loop, in_handler)
        clauses = r.choice([0, 1, 1, 2])
        star = self.star and clauses and r.random() < 0.3
        inside = in_loop and not star     # (no break or continue in an except* clause)
        for _ in range(clauses):
            kind = r.choice(["ValueError", "KeyError", "(KeyError, TypeError)", "Exception"]
                            + ([] if star else ["", ""])) or ("Exception" if star else "")
            word = "except*" if star else "except"
            if kind and r.random() < 0.4:
                lines += [sp + "%s %s as e:" % (word, kind), sp + "    LOG.append(repr(e))"]
            else:
                lines += [sp + ("%s %s:" % (word, kind)).replace(" :", ":")]
            lines += self.block(indent + 1, depth + 1, inside, True)
        if clauses and r.random() < 0.3:
            lines += [sp + "else:"] + self.block(indent + 1, depth + 1, inside, in_handler)
        if not clauses or r.random() < 0.35:
            lines += [sp + "finally:"] + self.block(indent + 1, depth + 1, inside, in_handler)
        return lines

    def text(self):
        lines = ["%s fn():" % ("async def" if self.mode == "a" else "def")]
        if self.r.random() < 0.5:
            lines.append("    a = 'a0'")
        lines += self.block(1, 0, False)
        if self.mode == "g":
            lines.append("    yield %s" % self.use())
        else:
            lines.append("    return %s" % (self.use() if self.r.random() < 0.85 else "LOG[-1:]"))
        return "\n".join(lines) + "\n"


def program(seed):
    """(the text of seed's function, its input sequences)."""
    rng = random.Random(seed)
    mode = rng.choice("fga")
    text = Program(rng, mode, sys.version_info >= (3, 11) and rng.random() < 0.2,
                   sys.version_info >= (3, 10) and rng.random() < 0.3).text()
    runs = [[]] + [[rng.choice(ALPHABET) for _ in range(rng.randint(1, 10))] for _ in range(RUNS - 1)]
    return text, runs


def _chain(exc):
    """An exception and its ``__context__`` chain, as (type name, message) pairs."""
    out = []
    while exc is not None and len(out) < 10:
        out.append((type(exc).__name__, str(exc)))
        exc = exc.__context__
    return out


def _outcome(result):
    if inspect.isgenerator(result):
        items = []
        try:
            for item in result:
                items.append(item)
                if len(items) > 50:
                    break
        except Exception as exc:   # the program's own exception is part of what it does
            items.append(("raised", _chain(exc)))
        return "generator", items
    if inspect.iscoroutine(result):
        try:
            return "coroutine", asyncio.run(result)
        except Exception as exc:
            return "coroutine raised", _chain(exc)
    return "value", result


def _run(fn, sequence):
    namespace = fn.__globals__
    namespace["LOG"][:], namespace["SEQ"][:], namespace["STEPS"][0] = [], sequence, 0
    try:
        result = _outcome(fn())
    except Exception as exc:
        result = "raised", _chain(exc)
    return result, list(namespace["LOG"])


def _run_in_an_except(fn, sequence):
    """:func:`_run` inside an ``except`` clause of the caller: each exception ``fn``
    raises with nothing of its own handled has the caller's as its ``__context__``."""
    try:
        raise RuntimeError("the caller's")
    except RuntimeError:
        return _run(fn, sequence)


def judge(seed):
    """(kind, text, detail): kind one of syntax, refused, crash, wrong, lowered, same."""
    import unveil
    from tests.roundtrip import rebuild_decompiled

    text, runs = program(seed)
    namespace = {}
    exec(PRELUDE, namespace)
    try:
        exec(compile(text, "<exception program %d>" % seed, "exec"), namespace)
    except SyntaxError:
        return "syntax", text, None
    original = namespace["fn"]
    try:
        new, result = rebuild_decompiled(original)
    except unveil.DecompilationError:
        return "refused", text, None
    except Exception:   # a crash of unveil's, reported as such
        return "crash", text, traceback.format_exc(limit=-3)
    for run in (_run, _run_in_an_except):
        for sequence in runs:
            expected, got = run(original, sequence), run(new, sequence)
            if got != expected:
                return "wrong", text, "inputs %r%s\noriginal   %r\ndecompiled %r\n--- decompiled:\n%s" % (
                    sequence, " (called in an except)" if run is _run_in_an_except else "", expected, got,
                    result.source)
    return ("lowered" if result.lowered else "same"), text, None


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--start", type=int, default=0, help="first seed")
    parser.add_argument("--count", type=int, default=600, help="programs (seeds) to judge")
    parser.add_argument("--show", type=int, default=3, help="wrong or crashed programs to print")
    parser.add_argument("--json", help="write the counts and the wrong or crashed seeds to this file")
    parser.add_argument("--versions", nargs="*", help="pyenv's Pythons, one after the other (all without X.Y)")
    args = parser.parse_args(argv)
    if args.versions is not None:
        sys.path.insert(0, HERE)
        import bench_functions
        rest = ["--start", str(args.start), "--count", str(args.count), "--show", str(args.show)]
        results = bench_functions.run_each_version(__file__, args.versions, rest)
        for res in results:
            print("Python %s: %s; wrong or crashed: %s" % (res["python"], res["counts"], res["failing"]))
        return 1 if any(res["failing"] for res in results) or not results else 0
    sys.path[:0] = [os.path.join(ROOT, "src"), ROOT]   # the working tree's unveil, and tests.roundtrip
    counts, failing, shown = collections.Counter(), [], 0
    for seed in range(args.start, args.start + args.count):
        kind, text, detail = judge(seed)
        counts[kind] += 1
        if kind in ("wrong", "crash"):
            failing.append(seed)
            if shown < args.show:
                shown += 1
                print("--- seed %d, %s:\n%s%s" % (seed, kind, text, detail))
    print("Python %s: seeds %d-%d, %s" % (sys.version.split()[0], args.start, args.start + args.count - 1,
                                          dict(sorted(counts.items()))))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"python": sys.version.split()[0], "counts": dict(counts), "failing": failing}, f)
    return 1 if failing else 0


if __name__ == "__main__":
    sys.exit(main())
