"""Loop bodies whose if/elif arms leave by inner continue, break and return, decompiled and run.

    python benchmarks/loop_exit_programs.py [--every K] [--show N] [--json OUT] [--versions [X.Y ...]]

Each program is one function ``f(ps, c0, c1, c2, c3, c4)``: a ``for`` loop over
``ps``, or a ``while`` loop popping it, whose body is an if/elif chain (three
shapes: ``if``/``elif``/``else``, ``if c: pass`` then two ``elif`` arms, a plain
``if``/``else``) followed by a tail (``out.append(p)``, ``pass``, or ``if c:
continue`` then ``out.append(p)``).  Two of the chain's arms are taken from
``ARMS``: an inner ``if c: continue`` or ``break``, the same with statements
around it or an else clause, an inverted ``if not c: x() / else: continue``, a
bare ``continue``, a ``continue`` in a try, a for/else and a while/else that
continue, a ``return``.  Every combination is made, in a fixed order: the same
programs on every Python.

3.8 and 3.9 keep the jump over an else clause after an arm that never goes on,
dead, and where such arms end in a jump back to the loop a ``continue`` was
written twice (toolz's ``curry.__signature__``, found by the package judge).

Every program is compiled, decompiled (``unveil.decompile_code``), recompiled and
run against the original on the same random lists and predicates; a program
fails when unveil refuses or crashes, or any run's result (or exception type)
differs.  A function lowered to the state machine is counted, not failed (it
runs correctly).  ``tests/test_loop_exit_programs.py`` runs every 15th program in
the normal suite.
"""
import argparse
import itertools
import json
import os
import random
import sys
import textwrap

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
for _path in (ROOT, os.path.join(ROOT, "src")):
    if _path not in sys.path:
        sys.path.insert(0, _path)

ARMS = (
    "if c{k}(p): continue",
    "if c{k}(p): break",
    "if c{k}(p):\n    continue\nelse:\n    out.append(-1)",
    "if c{k}(p):\n    out.append(-2)\n    continue",
    "out.append(-3)\nif c{k}(p): continue",
    "if c{k}(p):\n    if c2(p): continue",
    "if c{k}(p): continue\nout.append(-4)",
    "pass",
    "if c{k}(p):\n    break\nelif c2(p):\n    continue",
    "continue",
    "try:\n    if c{k}(p): continue\nexcept ValueError:\n    pass",
    "for q in range(2):\n    if c{k}(q + p): break\nelse:\n    continue",
    "if c{k}(p):\n    return out\nelif c2(p):\n    continue",
    "while c{k}(p):\n    p += 1\n    if c2(p): break\nelse:\n    continue",
    "if not c{k}(p):\n    out.append(p)\nelse:\n    continue",
)
LOOPS = ("for p in ps:", "while ps:\n    p = ps.pop()")
TAILS = ("out.append(p)", "pass", "if c4(p): continue\nout.append(p)")
CHAINS = ("if c0(p):\n{a}\nelif c1(p):\n{b}\nelse:\n    out.append(0)",
          "if c0(p):\n    pass\nelif c1(p):\n{a}\nelif c4(p):\n{b}",
          "if c0(p):\n{a}\nelse:\n{b}")
#: the predicates the programs test: divisibility of the items
_MODULI = (2, 3, 5, 7, 4)
RUNS = 40


def programs():
    """The source of every program, in a fixed order."""
    out = []
    for loop, a, b, tail, chain in itertools.product(LOOPS, ARMS, ARMS, TAILS, CHAINS):
        arm_a = textwrap.indent(a.format(k=2), "    ")
        arm_b = textwrap.indent(b.format(k=3), "    ")
        body = chain.format(a=arm_a, b=arm_b) + "\n" + tail
        out.append("def f(ps, c0, c1, c2, c3, c4):\n    out = []\n    %s\n%s\n    return out\n"
                   % (loop.replace("\n", "\n    "), textwrap.indent(body, "        ")))
    return out


def _outcome(fn, ps, preds):
    try:
        return fn(list(ps), *preds)
    except Exception as exc:   # the program's own exception is part of what it does
        return type(exc).__name__


def judge(source):
    """``("same" | "lowered", None)``, or ``(failure kind, detail)``."""
    import unveil
    from tests.roundtrip import rebuild_decompiled

    namespace = {}
    exec(compile(source, "<loop exit program>", "exec"), namespace)
    original = namespace["f"]
    try:
        new, result = rebuild_decompiled(original)
    except unveil.DecompilationError as exc:
        return "refused", str(exc)
    preds = [lambda p, m=m: p % m == 0 for m in _MODULI]
    for run in range(RUNS):
        rnd = random.Random(run)
        ps = [rnd.randrange(1, 30) for _ in range(rnd.randrange(0, 8))]
        chosen = [preds[(run + i) % len(preds)] for i in range(len(preds))]
        if _outcome(original, ps, chosen) != _outcome(new, ps, chosen):
            return "wrong", "ps=%r, predicates rotated by %d\n--- decompiled:\n%s" % (ps, run % 5, result.source)
    return ("lowered" if result.lowered else "same"), None


def run(every=1, make=programs, judge_one=judge):
    """{kind: [(index, source, detail)]} over every ``every``-th program of ``make()``."""
    found = {}
    for index, source in enumerate(make()):
        if index % every:
            continue
        kind, detail = judge_one(source)
        found.setdefault(kind, []).append((index, source, detail))
    return found


def main(argv=None, make=programs, judge_one=judge, script=__file__, doc=__doc__):
    """The command line of this script, and of another made the same way (``script``,
    its ``doc``, programs from ``make()`` judged by ``judge_one``)."""
    parser = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    parser.add_argument("--every", type=int, default=1, help="judge every K-th program only")
    parser.add_argument("--show", type=int, default=2, help="failures to print")
    parser.add_argument("--json", help="write the counts and failures to this file")
    parser.add_argument("--versions", nargs="*", help="pyenv's Pythons, one after the other (all without X.Y)")
    args = parser.parse_args(argv)
    if args.versions is not None:
        sys.path.insert(0, HERE)
        import bench_functions
        rest = ["--every", str(args.every), "--show", str(args.show)]
        results = bench_functions.run_each_version(script, args.versions, rest)
        for res in results:
            print("Python %s: %d programs, %s" % (res["python"], sum(res["counts"].values()), res["counts"]))
        return 1 if any(res["failures"] for res in results) or not results else 0
    found = run(args.every, make, judge_one)
    counts = {kind: len(items) for kind, items in sorted(found.items())}
    failures = [f for kind in ("wrong", "refused") for f in found.get(kind, ())]
    print("Python %s: %d programs, %s" % (sys.version.split()[0], sum(counts.values()), counts))
    for index, source, detail in failures[:args.show]:
        print("--- program %d:\n%s%s" % (index, source, detail))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"python": sys.version.split()[0], "counts": counts, "failures": failures}, f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
