"""Every code object of installed PyPI packages, decompiled on its own and recompiled.

    python benchmarks/package_sweep.py PACKAGE [PACKAGE ...]        # this interpreter
    python benchmarks/package_sweep.py --pythons VENV/bin/python ... -- PACKAGE ...
    options: --json OUT (per code object results), --show N (reasons listed per package),
             --timeout S (seconds per code object, default 60),
             --from-json JSON ... (print the tables of earlier --json runs again)

The same judgement as stdlib_sweep.py (whose functions this reuses), on the
installed source of each named package instead of the standard library: the
package's directory is found with ``importlib.util.find_spec`` (the top-level
name is not imported), every ``.py`` file under it outside ``test/`` and
``tests/`` is compiled (never run; files that do not compile on this Python are
counted and skipped), and every code object in it (module, class body,
function, lambda; comprehensions go with their parent) is decompiled with
``unveil.decompile_code`` and recompiled with ``unveil.recompile``.

Each code object is one of: refused (``decompile_code`` raised a
DecompilationError), crashed (an InternalError, another exception, or over the
time limit), or printed (decompiled without error).  A printed one is then
identical (the recompiled bytecode compares equal the way tests/roundtrip.py's
``same_bytecode`` does), recompiled (other bytecode), a state machine, or a
recompile error (the printed text did not recompile to a matching code object).

Packages are sought in the running interpreter's path: run it with the python
of a venv the packages are installed in (unveil itself needs no installing:
this script puts the repository's src/ on the path).  ``--pythons`` runs it
under each given interpreter in turn (one at a time) and prints one table.
"""
import argparse
import collections
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import time
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [os.path.join(os.path.dirname(HERE), "src"), os.path.dirname(HERE), HERE]

import bench_functions  # noqa: E402
import stdlib_sweep  # noqa: E402

_SKIP = ("/test/", "/tests/")


def package_files(name):
    """(root, files, version) for the top-level module or package ``name``: the
    directory keys are relative to, its source files, and its distribution's version."""
    spec = importlib.util.find_spec(name)   # a top-level name: found, not imported
    if spec is None:
        raise LookupError("no module or package %r on this Python's path" % name)
    if spec.submodule_search_locations:
        files = []
        for top in spec.submodule_search_locations:
            for dirpath, dirnames, filenames in os.walk(top):
                dirnames.sort()
                files += [os.path.join(dirpath, f) for f in sorted(filenames) if f.endswith(".py")]
        root = os.path.dirname(list(spec.submodule_search_locations)[0])
    elif (spec.origin or "").endswith(".py"):
        files, root = [spec.origin], os.path.dirname(spec.origin)
    else:
        raise LookupError("no Python source for %r (%s)" % (name, spec.origin))
    files = [f for f in files if not any(s in "/" + os.path.relpath(f, root).replace(os.sep, "/")
                                         for s in _SKIP)]
    return root, files, _version(name)


def _version(name):
    from importlib import metadata
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        pass
    dists = getattr(metadata, "packages_distributions", lambda: {})().get(name, ())  # 3.10+
    for dist in dists:
        return metadata.version(dist)
    return "?"


def judge(code, timeout):
    """stdlib_sweep.judge, within a time limit and with warnings silenced."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return bench_functions.with_time_limit(timeout, stdlib_sweep.judge, code)
    except bench_functions.TimeLimit:
        return "error: TimeLimit: over %g s" % timeout, None


def category(status, printed):
    """What the counts count: refused, crashed, identical, recompiled, state machine
    or recompile error."""
    if not status.startswith("error"):
        return status
    if printed:
        return "recompile error"
    refusal = status.startswith(("error: DecompilationError:", "error: PycError:"))
    return "refused" if refusal else "crashed"


def report(name, timeout):
    start = time.perf_counter()
    root, files, version = package_files(name)
    compiled = sum(stdlib_sweep.compile_file(f) is not None for f in files)
    results = {}
    for key, status, text in stdlib_sweep.judge_files(files, root, lambda code: judge(code, timeout)):
        results[key] = [category(status, text is not None), status]
    return {"python": sys.version.split()[0], "package": name, "version": version,
            "files": len(files), "compiled": compiled, "results": results,
            "seconds": round(time.perf_counter() - start, 1)}


def _pct(n, total):
    return "%d (%.1f%%)" % (n, 100.0 * n / total) if total else "0"


def print_tables(reports, show):
    print("| python | package | version | files | code objects | printed | refused | crashed "
          "| state machine | recompile errors | identical | seconds |")
    print("|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in reports:
        counts = collections.Counter(c for c, _ in r["results"].values())
        total = len(r["results"])
        printed = total - counts["refused"] - counts["crashed"]
        files = str(r["files"]) if r["compiled"] == r["files"] else \
            "%d (%d compile)" % (r["files"], r["compiled"])
        print("| %s | %s | %s | %s | %d | %s | %d | %d | %d | %d | %s | %.0f |" % (
            r["python"], r["package"], r["version"], files, total, _pct(printed, total),
            counts["refused"], counts["crashed"], counts["state machine"],
            counts["recompile error"], _pct(counts["identical"], total), r["seconds"]))
    for r in reports:
        reasons = collections.Counter((c, stdlib_sweep._reason(s)) for c, s in r["results"].values()
                                      if c in ("refused", "crashed", "recompile error"))
        for (cat, reason), n in reasons.most_common(show):
            first = max((k for k, (c, s) in r["results"].items()   # the innermost: the leaf function
                         if c == cat and stdlib_sweep._reason(s) == reason),
                        key=lambda k: k.rsplit(":", 1)[0].count("."))
            print("  %s %s: %d %s: %s (e.g. %s)" % (r["python"], r["package"], n, cat, reason, first))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("packages", nargs="*", metavar="PACKAGE", help="top-level import names")
    ap.add_argument("--pythons", nargs="+", metavar="PYTHON",
                    help="run under each of these interpreters (venv pythons with the packages)")
    ap.add_argument("--json", help="write the per code object results to this JSON file")
    ap.add_argument("--show", type=int, default=5, help="failure reasons listed per package")
    ap.add_argument("--timeout", type=float, default=60.0, help="seconds per code object")
    ap.add_argument("--from-json", nargs="+", metavar="JSON", help="print the tables of earlier --json runs")
    args = ap.parse_args()
    if args.from_json:
        reports = []
        for path in args.from_json:
            with open(path) as f:
                reports += json.load(f)
        print_tables(reports, args.show)
        return
    if not args.packages:
        ap.error("name at least one package")
    options = [p for p in args.packages if p.startswith("-")]
    if options:   # after "--" every word is a package name: options go before it
        ap.error("%s after the package names: put options before '--'" % " ".join(options))
    sys.setrecursionlimit(10000)
    if args.pythons:
        reports = []
        for python in args.pythons:
            fd, out = tempfile.mkstemp(suffix=".json")
            os.close(fd)
            print("== %s" % python, file=sys.stderr, flush=True)
            try:
                subprocess.run([python, os.path.abspath(__file__), "--show", "0", "--timeout",
                                str(args.timeout), "--json", out] + args.packages,
                               stdout=subprocess.DEVNULL, check=True)
                with open(out) as f:
                    reports += json.load(f)
            except (OSError, ValueError, subprocess.CalledProcessError) as exc:
                print("%s: no result (%s)" % (python, exc), file=sys.stderr)
            finally:
                os.unlink(out)
    else:
        reports = []
        for name in args.packages:
            print("== %s" % name, file=sys.stderr, flush=True)
            reports.append(report(name, args.timeout))
    print_tables(reports, args.show)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(reports, f, indent=1)


if __name__ == "__main__":
    main()
