"""Break the structurer on purpose and check that the unit suite goes red.

    python benchmarks/mutation_check.py [--python PY] [--fast] [--suite PATH ...] [--only NAME ...] [-- PYTEST_ARGS]

Each mutation is one textual change to a copy of ``src/`` (in a temporary
directory, with copies of ``tests/`` and ``benchmarks/``); the unit suite
(``pytest tests``, or the paths given with ``--suite``) then runs on the mutant.  The check passes (exit 0) only if
the suite passes on the unmutated copy (the control) and fails under every
mutation: a mutation the suite survives names a hole in the tests.  Pytest runs
with ``PYTHONPATH`` set to the copy's ``src``, and the script asserts that the
mutant, not the installed unveil, is what the suite imported.

``--python`` is the interpreter (default: the ``tests-3.11`` nox session's, else
this one; it needs pytest).  ``--fast`` stops each run at its first failure
(``-x``): it shows that the suite goes red, not how red.  Run without it, the
table gives the failed and passed counts per mutation.  CI's ``mutation`` nox
session runs ``--fast --suite tests/test_cases.py`` (the case library alone);
``tests/test_structuring.py`` checks that every mutation's text still occurs
exactly once in ``src/``, so the script cannot go stale unnoticed.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

#: name -> (file under src/unveil, text replaced, replacement, what it breaks); each text
#: must occur exactly once
MUTATIONS = {
    "body-raises": (
        "structure/structurer.py", "    def body(self):\n",
        "    def body(self):\n        raise IndexError('mutation: the structurer crashes')\n",
        "Structurer.body raises IndexError: every code object is an internal error"),
    "body-refuses": (
        "structure/structurer.py", "    def body(self):\n",
        "    def body(self):\n        raise DecompilationError('mutation: nothing is structurable')\n",
        "Structurer.body refuses everything: every function that can be is lowered to the "
        "state machine, which behaves the same"),
    "if-negated": (
        "structure/structurer.py", "    return ast.If(test=test, body=body or [ast.Pass()], orelse=orelse)\n",
        "    return ast.If(test=negate(test), body=body or [ast.Pass()], orelse=orelse)\n",
        "an if/else written by the structurer tests the negated condition"),
    "de-morgan": (
        "structure/stackitems.py", "        op = ast.Or() if isinstance(test.op, ast.And) else ast.And()\n",
        "        op = test.op\n",
        "negating `a and b` gives `not a and not b` (De Morgan forgotten)"),
}



def default_python():
    nox = os.path.join(ROOT, ".nox", "tests-3-11", "bin", "python")
    return nox if os.path.exists(nox) else sys.executable


def make_copy(where, mutation):
    """Copy src/, tests/ and benchmarks/ (no virtual environments) into ``where`` and
    apply ``mutation`` (a MUTATIONS name, or None for the control)."""
    ignore = shutil.ignore_patterns(".venv*", "__pycache__", "*.pyc", ".pytest_cache")
    for part in ("src", "tests", "benchmarks"):
        shutil.copytree(os.path.join(ROOT, part), os.path.join(where, part), ignore=ignore)
    for name in ("pyproject.toml",):
        shutil.copy(os.path.join(ROOT, name), where)
    if mutation is None:
        return
    filename, old, new, _ = MUTATIONS[mutation]
    path = os.path.join(where, "src", "unveil", filename)
    with open(path) as f:
        text = f.read()
    if text.count(old) != 1:
        raise SystemExit("mutation %s: its text occurs %d times in %s (update MUTATIONS)"
                         % (mutation, text.count(old), filename))
    with open(path, "w") as f:
        f.write(text.replace(old, new))


def mutation_text_counts():
    """{mutation name: how many times its text occurs in its file under src/unveil}."""
    counts = {}
    for name, (filename, old, _, _) in MUTATIONS.items():
        with open(os.path.join(ROOT, "src", "unveil", filename)) as f:
            counts[name] = f.read().count(old)
    return counts


def run_suite(python, mutation, pytest_args, suite=("tests",)):
    """(pytest's exit status, its summary line, seconds, its output) for the unit suite
    on the mutant."""
    with tempfile.TemporaryDirectory(prefix="unveil-mutant-") as where:
        make_copy(where, mutation)
        env = dict(os.environ, PYTHONPATH=os.path.join(where, "src"), PYTHONDONTWRITEBYTECODE="1")
        found = subprocess.run([python, "-c", "import unveil; print(unveil.__file__)"], cwd=where, env=env,
                               stdout=subprocess.PIPE, universal_newlines=True, check=True).stdout.strip()
        if not found.startswith(where):
            raise SystemExit("the suite would import %s, not the mutant in %s" % (found, where))
        t0 = time.time()
        proc = subprocess.run([python, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--continue-on-collection-errors"] + list(suite) + pytest_args,
                              cwd=where, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              universal_newlines=True)
        seconds = time.time() - t0
    lines = [line.strip("= ") for line in proc.stdout.splitlines()
             if re.search(r"\d+ (passed|failed|errors?)\b.* in [\d.]+s", line)]
    return proc.returncode, lines[-1] if lines else "(no summary)", seconds, proc.stdout


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--python", default=default_python(), help="interpreter with pytest (default %(default)s)")
    parser.add_argument("--fast", action="store_true", help="stop each run at its first failure (-x)")
    parser.add_argument("--suite", nargs="+", default=["tests"], metavar="PATH",
                        help="the test paths run on each mutant (default: tests)")
    parser.add_argument("--only", nargs="*", choices=sorted(MUTATIONS), help="run only these mutations")
    parser.add_argument("pytest_args", nargs="*", help="after --: more pytest arguments")
    args = parser.parse_args(argv)
    pytest_args = (["-x"] if args.fast else []) + args.pytest_args
    names = args.only or list(MUTATIONS)
    ok = True
    for name in [None] + names:
        status, summary, seconds, output = run_suite(args.python, name, pytest_args, args.suite)
        red = status != 0
        expected = red if name is not None else not red
        ok = ok and expected
        print("%-13s %-5s %s (%.0f s wall)%s\n              %s" % (
            name or "(control)", "red" if red else "green", summary, seconds,
            "" if expected else "   <-- NOT CAUGHT" if name else "   <-- the control fails",
            MUTATIONS[name][3] if name else "the unmutated copy: must pass"), flush=True)
        if not expected and name is None:
            print("\n".join(output.splitlines()[-30:]))
    print("mutation check: %s" % ("every mutation makes the suite fail" if ok else "FAILED"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
