"""Every code object of the standard library, decompiled on its own and recompiled.

    python3 benchmarks/stdlib_sweep.py                       # this interpreter
    python3 benchmarks/stdlib_sweep.py --versions [X.Y ...]   # pyenv's 3.8-3.13
    options: --json OUT (per code object results), --show N (reasons listed),
             --texts DIR (each code object's decompiled text, to DIR/X.Y.txt)

Compiles (never runs) every source file of the running interpreter's standard
library outside ``test/`` (and ``idlelib``, ``lib2to3``, ``site-packages``),
and for every code object in it (module, class body, function, lambda;
comprehensions go with their parent) runs ``unveil.decompile_code`` then
``unveil.recompile``.  Each is counted as identical (the recompiled bytecode
compares equal the way tests/roundtrip.py's ``same_bytecode`` does), recompiled
(other bytecode), written as a state machine, or failed, with the most
frequent reasons.  Behaviour is not judged here (the case library and the
stdlib judge do that): this is the widest net for refusals and crashes.
"""
import argparse
import collections
import glob
import json
import os
import re
import sys
import types
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [os.path.join(os.path.dirname(HERE), "src"), os.path.dirname(HERE), HERE]

import bench_functions  # noqa: E402

_SKIP = ("/test/", "/tests/", "/idlelib/", "/lib2to3/", "/site-packages/")


def source_files():
    lib = os.path.dirname(os.__file__)
    files = sorted(glob.glob(os.path.join(lib, "*.py")) + glob.glob(os.path.join(lib, "*", "*.py")))
    return lib, [f for f in files if not any(s in f[len(lib):] + "/" for s in _SKIP)]


def _code_objects(code, prefix):
    yield prefix + code.co_name, code
    for const in code.co_consts:
        if isinstance(const, types.CodeType) and const.co_name not in bench_functions._COMPREHENSIONS:
            yield from _code_objects(const, prefix + code.co_name + ".")


def judge(code):
    """("identical", "recompiled", "state machine" or "error: <reason>", the decompiled text
    or None) for one code object."""
    import unveil
    from tests.roundtrip import same_bytecode
    decompiled = None
    try:
        decompiled = unveil.decompile_code(code)
        new = unveil.recompile(decompiled.source, code)
    except Exception as exc:  # a DecompilationError or a crash: both are what this sweep looks for
        return "error: %s: %s" % (type(exc).__name__, exc), decompiled and decompiled.source
    if decompiled.lowered:
        return "state machine", decompiled.source
    return "identical" if same_bytecode(code, new) else "recompiled", decompiled.source


def compile_file(path):
    """The module code of the source file ``path``, or ``None`` if it does not compile here."""
    try:
        with open(path, encoding="utf-8") as f, warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return compile(f.read(), path, "exec", dont_inherit=True)
    except (SyntaxError, UnicodeDecodeError, ValueError):
        return None   # not for this Python (e.g. a file for another platform's syntax)


def judge_files(files, root, judge=judge):
    """(key, status, text) from ``judge`` for every code object of every file of ``files``
    that compiles; keys are "path relative to root:qualified name:first line"."""
    for path in files:
        top = compile_file(path)
        if top is None:
            continue
        rel = os.path.relpath(path, root)
        for name, code in _code_objects(top, rel + ":"):
            key = "%s:%d" % (name, code.co_firstlineno)
            status, text = judge(code)
            yield key, status, text


def report(texts=None):
    """The results; with ``texts`` (a file object), every code object's text written to it."""
    lib, files = source_files()
    results = {}
    for key, status, text in judge_files(files, lib):
        results[key] = status
        if texts is not None:
            texts.write("=== %s: %s\n%s\n" % (key, results[key], text))
    return {"python": sys.version.split()[0], "files": len(files), "results": results}


def _reason(status):
    """An error message with names and numbers blanked, to group alike failures."""
    return re.sub(r"\d+", "N", re.sub(r"'[^']*'", "'X'", status))[:120]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--versions", nargs="*", metavar="X.Y", help="run on these pyenv interpreters")
    ap.add_argument("--json", help="write the per code object results to this JSON file")
    ap.add_argument("--show", type=int, default=8, help="failure reasons listed per version")
    ap.add_argument("--texts", metavar="DIR",
                    help="write every code object's decompiled text to DIR/X.Y.txt (to diff two commits)")
    args = ap.parse_args()
    sys.setrecursionlimit(10000)
    if args.versions is None:
        if args.texts:
            os.makedirs(args.texts, exist_ok=True)
            with open(os.path.join(args.texts, "%d.%d.txt" % sys.version_info[:2]), "w") as texts:
                reports = [report(texts)]
        else:
            reports = [report()]
    else:
        extra = ["--texts", os.path.abspath(args.texts)] if args.texts else []
        reports = [r for run in bench_functions.run_each_version(__file__, args.versions,
                                                                 ["--show", "0"] + extra, quiet=True)
                   for r in run]
    print("| python | files | code objects | identical | recompiled | state machine | errors |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for r in reports:
        counts = collections.Counter("error" if s.startswith("error") else s for s in r["results"].values())
        print("| %s | %d | %d | %d | %d | %d | %d |" % (r["python"], r["files"], len(r["results"]),
                                                      counts["identical"], counts["recompiled"],
                                                      counts["state machine"], counts["error"]))
    for r in reports:
        reasons = collections.Counter(_reason(s) for s in r["results"].values() if s.startswith("error"))
        for reason, n in reasons.most_common(args.show):
            first = next(k for k, s in r["results"].items() if _reason(s) == reason)
            print("  %s: %d x %s (e.g. %s)" % (r["python"], n, reason, first))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(reports, f, indent=1)


if __name__ == "__main__":
    main()
