"""The defect families of issue 35, at length: generated programs with constants that
have no source form, private names in classes, bindings prefixes and slices
(tests/family_programs.py), decompiled, recompiled and run against the original.

    python3 benchmarks/family_fuzz.py --seeds 5000                    # every family, this interpreter
    python3 benchmarks/family_fuzz.py --family slices --seeds 20000 --first 5000
    python3 benchmarks/family_fuzz.py --seeds 2000 --versions         # pyenv's 3.8-3.13, one after the other

Prints, per interpreter and family, how many samples were structured and behave alike
(``same``), were written as the state machine and behave alike (``lowered``), were
refused, behave otherwise (``wrong``) or crashed (``crash``), with the first few samples
of each verdict but ``same``.  Exits 1 when any sample is wrong or crashed.
``tests/test_family_programs.py`` runs the first seeds of each family.
"""
import argparse
import json
import os
import sys
import time
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.join(ROOT, "src"))

import bench_functions  # noqa: E402
from tests import family_programs as fp  # noqa: E402

SHOWN = ("wrong", "crash", "refused", "lowered")


def run(families, first, seeds, show):
    out = []
    for family in families:
        started, examples = time.perf_counter(), {}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            found = fp.survey(family, range(first, first + seeds))
        for verdict, items in found.items():
            if verdict != "same":
                examples[verdict] = [{"sample": repr(s), "source": s.source, "detail": d} for s, d in items[:show]]
        out.append({"version": "%d.%d" % sys.version_info[:2], "family": family, "first": first, "seeds": seeds,
                    "seconds": round(time.perf_counter() - started, 1),
                    "verdicts": {v: len(items) for v, items in found.items()}, "examples": examples})
    return out


def report(result):
    print("Python %s, %s: seeds %d-%d, %.1f s: %s" % (
        result["version"], result["family"], result["first"], result["first"] + result["seeds"] - 1,
        result["seconds"], ", ".join("%s %d" % (v, n) for v, n in sorted(result["verdicts"].items()))))
    for verdict in SHOWN:
        for ex in result["examples"].get(verdict, []):
            print("\n--- %s: %s\n%s\n%s" % (verdict, ex["sample"], ex["source"], ex["detail"][-3000:]))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--family", choices=sorted(fp.FAMILIES), action="append",
                        help="a family (repeatable; default all)")
    parser.add_argument("--seeds", type=int, default=2000, help="samples per family (default 2000)")
    parser.add_argument("--first", type=int, default=0, help="the first seed")
    parser.add_argument("--show", type=int, default=3, help="samples shown per verdict")
    parser.add_argument("--versions", nargs="*", metavar="X.Y",
                        help="run on these pyenv interpreters (default with no value: 3.8-3.13)")
    parser.add_argument("--json", metavar="OUT")
    args = parser.parse_args(argv)
    families = args.family or sorted(fp.FAMILIES)
    if args.versions is not None:
        extra = [a for f in families for a in ("--family", f)]
        results = [r for each in bench_functions.run_each_version(
            __file__, args.versions, extra + ["--seeds", str(args.seeds), "--first", str(args.first),
                                              "--show", str(args.show)], quiet=True) for r in each]
    else:
        results = run(families, args.first, args.seeds, args.show)
    for result in results:
        report(result)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)
    return 1 if any(r["verdicts"].get("wrong") or r["verdicts"].get("crash") for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())
