"""How fast unveil decompiles stdlib functions, next to depyf 0.20.0.

    python benchmarks/decompile_speed.py [--modules json.decoder textwrap ...]
                                         [--repeat N] [--no-depyf] [--show-failures N]

Every function, method, nested function and lambda of a fixed list of stdlib
modules (compiled from source, not imported) is decompiled from a fresh
``code.replace()`` copy each round (depyf caches per code object).  depyf runs
in its own venv, benchmarks/.venv-depyf-X.Y, made on first use with this same
interpreter; it is installed with --no-deps plus its two small dependencies
(astor, dill) so that nothing can pull in torch.  Both tools are timed on the
same list by the same code, benchmarks/bench_functions.py.
"""
import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile

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


def run_depyf(modules, repeat, timeout, labels):
    """Time depyf in its venv; the worker enumerates the same functions itself."""
    python = ensure_depyf_venv()
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "depyf.json")
        subprocess.run([python, os.path.join(HERE, "depyf_worker.py"), "--modules"] + list(modules)
                       + ["--repeat", str(repeat), "--timeout", str(timeout), "--out", out],
                       check=True, stdout=subprocess.DEVNULL)
        with open(out) as f:
            result = json.load(f)
    if result.pop("labels") != labels:
        raise RuntimeError("depyf's worker enumerated different functions")
    return result


def run_unveil(functions, repeat, timeout):
    import unveil

    result = bench_functions.time_decompiler(unveil.decompile, functions, repeat, timeout)
    result["tool"] = "unveil " + getattr(unveil, "__version__", "(src)")
    return result


def _rate(count, seconds):
    return count / seconds if seconds else float("nan")


def print_table(results):
    print("%-14s %9s %9s %7s %9s %12s %12s" % ("tool", "functions", "failures", "valid", "seconds",
                                              "functions/s", "ok only/s"))
    for r in results:
        r["rate"] = _rate(r["functions"], r["seconds"])
        ok_rate = _rate(r["functions"] - r["failures"], r["ok_seconds"])
        print("%-14s %9d %9d %7d %9.3f %12.1f %12.1f" % (r["tool"], r["functions"], r["failures"],
                                                        r["valid"], r["seconds"], r["rate"], ok_rate))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--modules", nargs="+", default=list(bench_functions.DEFAULT_MODULES),
                        help="stdlib modules whose functions are decompiled")
    parser.add_argument("--repeat", type=int, default=1,
                        help="rounds; the best round's time is reported (default 1)")
    parser.add_argument("--no-depyf", action="store_true", help="time unveil only")
    parser.add_argument("--timeout", type=float, default=10.0,
                        help="seconds before one function counts as failed (default 10)")
    parser.add_argument("--show-failures", type=int, default=0, metavar="N",
                        help="list the first N failures of each tool")
    args = parser.parse_args(argv)

    functions = bench_functions.enumerate_functions(args.modules)
    labels = [label for label, _ in functions]
    print("Python %s, %d modules, %d functions, best of %d round(s)"
          % (platform.python_version(), len(args.modules), len(functions), args.repeat))
    results = [run_unveil(functions, args.repeat, args.timeout)]
    if not args.no_depyf:
        try:
            results.append(run_depyf(args.modules, args.repeat, args.timeout, labels))
        except (OSError, subprocess.CalledProcessError, RuntimeError, ValueError) as exc:
            print("depyf: not measured: %s" % exc, file=sys.stderr)
    print()
    print_table(results)
    if len(results) == 2 and results[1]["rate"]:
        print("\nunveil/depyf speed ratio (functions/s): %.2f"
              % (results[0]["rate"] / results[1]["rate"]))
    print("valid: outputs that compile.  seconds and functions/s include the time"
          " spent on failures; ok only/s counts the successful functions alone.")
    for r in results if args.show_failures else ():
        print("\n%s failures (first %d of %d):" % (r["tool"], args.show_failures, r["failures"]))
        for label, reason in r["failed"][:args.show_failures]:
            print("  %s: %s" % (label, reason))
    return 0


if __name__ == "__main__":
    sys.exit(main())
