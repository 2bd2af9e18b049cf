"""unveil on several torch releases: the whole of tests_torch, PyTorch's own Dynamo tests
under debug() (dynamo_suite.py) and prepare_debug's overhead against depyf's, per release.

    python3.11 benchmarks/torch_versions.py 2.13.0 2.15.0          # a row of README's table each
    python3.11 benchmarks/torch_versions.py 2.15.0 --only tests    # tests_torch alone
    options: --only tests|suite|overhead (repeatable), --json OUT, -- ARGS (given to pytest; files of
    tests_torch among them are run instead of all of it)

Each release gets its own venv, benchmarks/.venv-torch-<version>, made on first use:
torch first (2.13.0 and 2.14.1 lie on this machine's disk, under pip's cap; a newer release
comes from PyPI with the cap lifted for that install alone, ``PIP_CONSTRAINT=/dev/null``),
then unveil (editable) and what its tests use, pinned by .ci/constraints.txt.  A release
unveil refuses (older than it supports) shows that one-line refusal and runs nothing else.
"""
import argparse
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import bench_functions  # noqa: E402

ROOT = os.path.dirname(HERE)
PACKAGES = ["transformers", "numpy", "debugpy", "pydevd", "playwright", "expecttest", "hypothesis"]


def ensure_venv(version):
    venv = os.path.join(HERE, ".venv-torch-%s" % version)
    python = bench_functions.venv_python(venv)
    check = "import torch, transformers, hypothesis, unveil, sys; sys.exit(torch.__version__.split('+')[0] != %r)" % version
    if os.path.exists(python) and subprocess.run([python, "-c", check], stdout=subprocess.DEVNULL,
                                                 stderr=subprocess.DEVNULL).returncode == 0:
        return python
    print("setting up %s ..." % os.path.relpath(venv), file=sys.stderr, flush=True)
    subprocess.run([sys.executable, "-m", "venv", "--clear", venv], check=True)
    env = dict(os.environ, PIP_DISABLE_PIP_VERSION_CHECK="1", PIP_ROOT_USER_ACTION="ignore")
    pins = ["-c", bench_functions.CONSTRAINTS]
    bench_functions.install_torch(python, version)
    subprocess.run([python, "-m", "pip", "install", "-q", "-e", ROOT + "[test,report]"] + PACKAGES + pins,
                   check=True, env=env)
    return python


def refusal(python):
    """unveil's one-line refusal of this torch, or None."""
    done = subprocess.run([python, "-c", "from unveil.dynamo.adapter.versions import unsupported_torch; "
                                         "print(unsupported_torch() or '')"],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
    if done.returncode != 0:
        return "unveil does not import: %s" % (done.stderr.strip().splitlines() or ["?"])[-1]
    return done.stdout.strip() or None


def run_tests(python, pytest_args):
    """tests_torch, or the files and tests of it named among ``pytest_args``."""
    named = any(arg.startswith("tests_torch") for arg in pytest_args)
    done = subprocess.run([python, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--timeout", "900"]
                          + ([] if named else ["tests_torch"]) + pytest_args, cwd=ROOT,
                          env=dict(os.environ, HF_HUB_OFFLINE="1"),
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True)
    counts = dict.fromkeys(("passed", "failed", "skipped", "error"), 0)
    for n, word in re.findall(r"(\d+) (passed|failed|skipped|errors?)\b", done.stdout.splitlines()[-1]):
        counts["error" if word.startswith("error") else word] += int(n)
    failed = re.findall(r"^(?:FAILED|ERROR) (\S+)", done.stdout, re.M)
    return {"counts": counts, "failed": failed}


def run_suite(python):
    out = os.path.join(HERE, ".torch-versions-suite.json")
    subprocess.run([python, os.path.join(HERE, "dynamo_suite.py"), "--json", out], stdout=subprocess.DEVNULL)
    with open(out) as f:
        verdicts = json.load(f)
    os.unlink(out)
    return {key: sum(v[key] if key.endswith("passed") else len(v[key]) for v in verdicts.values())
            for key in ("plain_passed", "debug_passed", "only_debug_fails", "unveil_failures", "counters_differ")}


def run_overhead(version):
    done = subprocess.run([sys.executable, os.path.join(HERE, "prepare_debug_overhead.py"), "--torch", version,
                           "--json", os.path.join(HERE, ".torch-versions-overhead.json")],
                          stdout=subprocess.PIPE, universal_newlines=True)
    path = os.path.join(HERE, ".torch-versions-overhead.json")
    if done.returncode != 0 or not os.path.exists(path):
        return None
    with open(path) as f:
        result = json.load(f)
    os.unlink(path)
    return result.get("ratio")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("versions", nargs="+")
    parser.add_argument("--only", action="append", choices=["tests", "suite", "overhead"])
    parser.add_argument("--json")
    argv = sys.argv[1:] if argv is None else argv
    pytest_args = argv[argv.index("--") + 1:] if "--" in argv else []
    args = parser.parse_args(argv[:argv.index("--")] if "--" in argv else argv)
    args.pytest_args = pytest_args
    parts = args.only or ["tests", "suite", "overhead"]
    rows = {}
    print("| torch | tests_torch passed / failed | Dynamo suite: passing plainly / under debug() / failing only "
          "under debug() / unveil failed / counters differ | prepare_debug overhead vs depyf |")
    print("|---|---|---|---|")
    for version in args.versions:
        python = ensure_venv(version)
        row = {"refused": refusal(python)}
        if row["refused"] is None:
            if "tests" in parts:
                row["tests"] = run_tests(python, args.pytest_args)
            if "suite" in parts:
                row["suite"] = run_suite(python)
            if "overhead" in parts:
                row["overhead"] = run_overhead(version)
        rows[version] = row
        print(_row(version, row), flush=True)
        for test in (row.get("tests") or {}).get("failed", []):
            print("  failed on %s: %s" % (version, test))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)
    return 0


def _row(version, row):
    if row["refused"]:
        return "| %s | refused up front: %s | - | - |" % (version, row["refused"])
    tests = row.get("tests")
    suite = row.get("suite")
    return "| %s | %s | %s | %s |" % (
        version, "%(passed)d / %(failed)d" % tests["counts"] if tests else "not run",
        "%(plain_passed)d / %(debug_passed)d / %(only_debug_fails)d / %(unveil_failures)d / %(counters_differ)d"
        % suite if suite else "not run",
        "%.2f" % row["overhead"] if row.get("overhead") is not None else "not run")


if __name__ == "__main__":
    sys.exit(main())
