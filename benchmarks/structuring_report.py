"""Which functions unveil writes as a state machine instead of structured code.

    python3 benchmarks/structuring_report.py                 # this interpreter
    python3 benchmarks/structuring_report.py --versions      # pyenv's 3.8-3.13

Decompiles the module code object of every source file of the stdlib judge's
modules (``MODULES`` in stdlib_roundtrip.py) and counts the functions lowered
to the state machine (``Decompiled.lowered``: qualified names from 3.11, plain
names before) and the files unveil fails on.  The state machine is correct (the judge runs it) but
hard to read; this is the measure of how often structuring gives up.
"""
import argparse
import json
import os
import sys
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [os.path.join(os.path.dirname(HERE), "src"), HERE]

import bench_functions  # noqa: E402
import stdlib_roundtrip  # noqa: E402


def lowered(code):
    """Qualified names of the code objects in ``code`` that unveil lowers to the state machine."""
    import unveil
    return [low.name for low in unveil.decompile_code(code).lowered]


def report():
    """{files, lowered: [module:function], errors: [module: reason]} for this interpreter."""
    import unveil
    files, low, errors = 0, [], []
    for name in stdlib_roundtrip.selected_modules(None):
        for mod, path, _ in stdlib_roundtrip.module_files(stdlib_roundtrip.MODULES[name][1]):
            files += 1
            with open(path, encoding="utf-8") as f:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    code = compile(f.read(), path, "exec")
            try:
                names = lowered(code)
            except unveil.DecompilationError as exc:   # an InternalError (a crash) too: listed
                errors.append("%s: %s" % (mod, exc))
                continue
            low += ["%s:%s" % (mod, fn) for fn in names]
    return {"python": sys.version.split()[0], "files": files, "lowered": low, "errors": errors}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--versions", nargs="*", metavar="X.Y", help="run on these pyenv interpreters")
    ap.add_argument("--json", help="write the reports to this JSON file")
    args = ap.parse_args()
    if args.versions is None:
        reports = [report()]
    else:
        reports = [r for run in bench_functions.run_each_version(__file__, args.versions, [], quiet=True)
                   for r in run]
    print("| python | files | functions as a state machine | files not decompiled |")
    print("|---|---:|---|---|")
    for r in reports:
        print("| %s | %d | %d %s | %d %s |" % (r["python"], r["files"], len(r["lowered"]),
                                              ", ".join(r["lowered"]), len(r["errors"]), "; ".join(r["errors"])))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(reports, f, indent=1)


if __name__ == "__main__":
    main()
