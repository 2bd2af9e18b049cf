"""How fast unveil decompiles stdlib functions, next to depyf 0.20.0 and the floor.

    python benchmarks/decompile_speed.py [--modules json.decoder textwrap ...]
                                         [--repeat N] [--no-depyf] [--budget] [--show-failures N]

Every function, method, nested function and lambda of a fixed list of stdlib
modules (compiled from source, not imported) is decompiled from a fresh
``code.replace()`` copy each round (depyf caches per code object).  depyf runs
in its own venv, benchmarks/.venv-depyf-X.Y, made on first use with this same
interpreter; it is installed with --no-deps plus its two small dependencies
(astor, dill) so that nothing can pull in torch.  Its worker process stays up
and runs one round whenever this script runs one of unveil's, so the rounds
interleave and a load on the machine falls on both alike.

The floor is the least any decompiler of these functions does: read every
instruction of the code (``dis.get_instructions``, nested code objects too) and
parse and print the function's source (``ast.unparse(ast.parse(source))``; 3.8
has no ``ast.unparse`` and uses unveil's own printer).  It is timed in the same
rounds.  With ``--budget`` two parts of unveil are timed alone in the same rounds: its
decoding (every code object read into canonical instructions) and its printing (of
the tree of its own output), beside the time per function that 6x depyf leaves
(the speed goal of issue 37).  Each function's time is its best over the rounds, in CPU time (the
worker's too: a function the scheduler stops counts no pause); the ratios
compare sums of those times on the functions both sides decompile.  All timing
code is shared with the worker: benchmarks/bench_functions.py.
"""
import argparse
import ast
import json
import os
import platform
import subprocess
import sys
import types

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(ROOT, "src"))  # time the working tree's unveil

import bench_functions  # noqa: E402

DEPYF = "depyf==0.20.0"
DEPYF_DEPS = ("astor", "dill")  # depyf 0.20.0's requirements; torch is optional
DEPYF_VENV = os.path.join(HERE, ".venv-depyf-%d.%d" % sys.version_info[:2])


def ensure_depyf_venv():
    """The python of a venv with depyf 0.20.0 on this very interpreter, made if missing."""
    python = bench_functions.venv_python(DEPYF_VENV)
    check = "import sys, depyf; print(depyf.__version__, sys.version)"
    expected = "%s %s" % (DEPYF.split("==")[1], sys.version)
    if os.path.exists(python):
        done = subprocess.run([python, "-c", check], stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL, universal_newlines=True)
        if done.returncode == 0 and done.stdout.strip() == expected.strip():
            return python
    print("setting up %s in %s ..." % (DEPYF, os.path.relpath(DEPYF_VENV)), file=sys.stderr)
    subprocess.run([sys.executable, "-m", "venv", "--clear", DEPYF_VENV], check=True)
    env = dict(os.environ, PIP_DISABLE_PIP_VERSION_CHECK="1", PIP_ROOT_USER_ACTION="ignore")
    subprocess.run([python, "-m", "pip", "install", "-qq", "--no-deps", DEPYF] + list(DEPYF_DEPS),
                   check=True, env=env)
    subprocess.run([python, "-c", check], check=True, stdout=subprocess.DEVNULL)
    return python


class DepyfWorker:
    """depyf in its venv, enumerating the same functions itself; :meth:`round` times one round."""

    def __init__(self, modules, timeout, labels):
        python = ensure_depyf_venv()
        self.process = subprocess.Popen(
            [python, os.path.join(HERE, "depyf_worker.py"), "--modules"] + list(modules)
            + ["--timeout", str(timeout)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            universal_newlines=True)
        hello = json.loads(self.process.stdout.readline())
        self.tool = hello["tool"]
        if hello["labels"] != labels:
            self.close()
            raise RuntimeError("depyf's worker enumerated different functions")

    def round(self):
        self.process.stdin.write("round\n")
        self.process.stdin.flush()
        return json.loads(self.process.stdout.readline())

    def close(self):
        self.process.stdin.close()
        self.process.wait()


def measure(functions, sources, repeat, timeout, depyf, budget=False):
    """{tool: [[best seconds, first round's failure]]}, the tools' rounds interleaved;
    with ``budget`` also unveil's decoding and printing alone ("decode", "print")."""
    import unveil

    floor_items = [(code, source) for (_, code), source in zip(functions, sources) if source is not None]
    rounds = {"unveil": [], "floor": [], "depyf": [], "decode": [], "print": []}
    printed = _printed_trees(functions) if budget else None
    for _ in range(repeat):
        if budget:
            rounds["decode"].append(bench_functions.time_round(_decode, bench_functions.fresh_copies(functions),
                                                               timeout))
            rounds["print"].append(bench_functions.time_round(_print, printed, timeout))
        rounds["unveil"].append(bench_functions.time_round(
            unveil.decompile, bench_functions.fresh_copies(functions), timeout))
        floor_times = iter(bench_functions.time_round(bench_functions.floor, floor_items, timeout))
        rounds["floor"].append([next(floor_times) if source is not None else [0.0, "no source found"]
                                for source in sources])
        if depyf is not None:
            rounds["depyf"].append(depyf.round())
    return {tool: bench_functions.best_of(r) for tool, r in rounds.items() if r}


def _decode(code):
    """What unveil does with the instructions before it decompiles: every code object of
    the function read into canonical instructions."""
    from unveil.bytecode import canonical

    codes = [code]
    while codes:
        code = codes.pop()
        canonical.normalise(code)
        codes.extend(c for c in code.co_consts if isinstance(c, types.CodeType))


def _print(tree):
    from unveil.syntax.unparse import unparse

    return unparse(tree)


def _printed_trees(functions):
    """The tree of each function's text as unveil decompiles it (``None`` where it fails),
    for timing unveil's printer alone."""
    import unveil

    trees = []
    for _, code in functions:
        try:
            trees.append(ast.parse(unveil.decompile(code.replace())))
        except Exception:  # timed as a failure of its own in the "print" round
            trees.append(None)
    return trees


def print_budget(times, count):
    """What 6x depyf leaves each function on the functions both decompile, beside what
    unveil's decoding and printing alone take there."""
    both = [i for i, (u, d) in enumerate(zip(times["unveil"], times["depyf"])) if u[1] is None and d[1] is None]
    per = {name: sum(times[name][i][0] for i in both) / len(both) * 1e6
           for name in ("unveil", "depyf", "decode", "print", "floor")}
    print("\nper function, on the %d functions both decompile (microseconds):" % len(both))
    print("  depyf %.1f; 6x depyf leaves %.1f" % (per["depyf"], per["depyf"] / 6))
    print("  unveil %.1f, of which decoding alone %.1f and printing alone %.1f (%.0f%% of the 6x budget)"
          % (per["unveil"], per["decode"], per["print"], 100 * (per["decode"] + per["print"]) / (per["depyf"] / 6)))
    print("  the floor %.1f" % per["floor"])


def compare(times, tool, other):
    """(functions both decompile, other's seconds / tool's seconds on them)."""
    both = [i for i, (t, o) in enumerate(zip(times[tool], times[other])) if t[1] is None and o[1] is None]
    tool_s, other_s = (sum(times[name][i][0] for i in both) for name in (tool, other))
    return len(both), (other_s / tool_s if tool_s else float("nan"))


def print_table(times, names):
    print("%-14s %9s %9s %9s %12s" % ("tool", "functions", "failures", "seconds", "functions/s"))
    for key, times_ in times.items():
        seconds = sum(t for t, _ in times_)
        failures = sum(1 for _, reason in times_ if reason is not None)
        print("%-14s %9d %9d %9.3f %12.1f" % (names[key], len(times_), failures, seconds,
                                              len(times_) / seconds if seconds else float("nan")))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--modules", nargs="+", default=list(bench_functions.DEFAULT_MODULES),
                        help="stdlib modules whose functions are decompiled")
    parser.add_argument("--repeat", type=int, default=1,
                        help="rounds; each function's best time is counted (default 1)")
    parser.add_argument("--no-depyf", action="store_true", help="time unveil and the floor only")
    parser.add_argument("--timeout", type=float, default=10.0,
                        help="seconds before one function counts as failed (default 10)")
    parser.add_argument("--budget", action="store_true",
                        help="also time unveil's decoding and printing alone, beside what 6x depyf leaves")
    parser.add_argument("--show-failures", type=int, default=0, metavar="N",
                        help="list the first N failures of each tool")
    args = parser.parse_args(argv)

    functions = bench_functions.enumerate_functions(args.modules)
    labels = [label for label, _ in functions]
    sources = bench_functions.function_sources([code for _, code in functions])
    print("Python %s, %d modules, %d functions, each its best of %d interleaved round(s)"
          % (platform.python_version(), len(args.modules), len(functions), args.repeat))
    depyf = None
    if not args.no_depyf:
        try:
            depyf = DepyfWorker(args.modules, args.timeout, labels)
        except (OSError, subprocess.CalledProcessError, RuntimeError, ValueError) as exc:
            print("depyf: not measured: %s" % exc, file=sys.stderr)
    try:
        times = measure(functions, sources, args.repeat, args.timeout, depyf, args.budget)
    finally:
        if depyf is not None:
            depyf.close()
    import unveil
    names = {"unveil": "unveil " + getattr(unveil, "__version__", "(src)"), "floor": "floor",
             "depyf": depyf.tool if depyf else "depyf", "decode": "unveil: decode", "print": "unveil: print"}
    print()
    print_table(times, names)
    if "depyf" in times:
        count, ratio = compare(times, "unveil", "depyf")
        print("\nunveil/depyf speed ratio on the %d functions both decompile: %.2fx" % (count, ratio))
        count, ratio = compare(times, "floor", "depyf")
        print("depyf's time / the floor's on the %d functions depyf decompiles: %.2fx" % (count, ratio))
        if args.budget:
            print_budget(times, count)
    count, ratio = compare(times, "floor", "unveil")
    print("unveil's time / the floor's on the %d functions unveil decompiles: %.2fx" % (count, ratio))
    print("seconds and functions/s include the time spent on failures.")
    for key in times if args.show_failures else ():
        failed = [(label, reason) for label, (_, reason) in zip(labels, times[key]) if reason is not None]
        print("\n%s failures (first %d of %d):" % (names[key], args.show_failures, len(failed)))
        for label, reason in failed[:args.show_failures]:
            print("  %s: %s" % (label, reason))
    return 0


if __name__ == "__main__":
    sys.exit(main())
