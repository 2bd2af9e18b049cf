"""The stack-branch fuzzer, at length: bytecode that branches while values wait on the
stack beneath the branch (tests/stack_branch_programs.py), decompiled, recompiled and
run against the original on four inputs, results and the order of effects compared.

    python3 benchmarks/stack_branch_fuzz.py                      # 5,000 samples, this interpreter
    python3 benchmarks/stack_branch_fuzz.py --samples 20000 --first 5000
    python3 benchmarks/stack_branch_fuzz.py --versions           # pyenv's 3.8-3.13, one after the other

Prints, per interpreter, how many samples were structured and behave alike (``same``),
were written as the state machine and behave alike (``lowered``), were refused, behave
otherwise (``wrong``) or crashed the decompiler (``crash``), with the first few samples
of each verdict but ``same`` (their source, and the decompiled text or the error).
Exits 1 when any sample is wrong or crashed.  ``tests/test_stack_branches.py`` runs
the first 400 seeds.
"""
import argparse
import json
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.join(ROOT, "src"))

import bench_functions  # noqa: E402
from tests import stack_branch_programs as sbp  # noqa: E402

SHOWN = ("wrong", "crash", "refused", "lowered")


def run(first, samples, show):
    verdicts, examples, started = {}, {}, time.perf_counter()
    for seed in range(first, first + samples):
        sample = sbp.generate(seed)
        verdict, detail = sbp.judge(sample)
        verdicts[verdict] = verdicts.get(verdict, 0) + 1
        if verdict != "same" and len(examples.setdefault(verdict, [])) < show:
            examples[verdict].append({"seed": seed, "sample": repr(sample), "source": sample.source,
                                      "detail": detail})
    return {"version": "%d.%d" % sys.version_info[:2], "first": first, "samples": samples,
            "seconds": round(time.perf_counter() - started, 1), "verdicts": verdicts, "examples": examples}


def report(result):
    print("Python %s: seeds %d-%d, %.1f s: %s" % (
        result["version"], result["first"], result["first"] + result["samples"] - 1, result["seconds"],
        ", ".join("%s %d" % (v, n) for v, n in sorted(result["verdicts"].items()))))
    for verdict in SHOWN:
        for ex in result["examples"].get(verdict, []):
            print("\n--- %s: %s\n%s\n%s" % (verdict, ex["sample"], ex["source"], ex["detail"][-3000:]))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--samples", type=int, default=5000)
    parser.add_argument("--first", type=int, default=0, help="the first seed")
    parser.add_argument("--show", type=int, default=3, help="samples shown per verdict")
    parser.add_argument("--versions", nargs="*", metavar="X.Y",
                        help="run on these pyenv interpreters (default with no value: 3.8-3.13)")
    parser.add_argument("--json", metavar="OUT")
    args = parser.parse_args(argv)
    if args.versions is not None:
        results = bench_functions.run_each_version(
            __file__, args.versions, ["--samples", str(args.samples), "--first", str(args.first),
                                      "--show", str(args.show)], quiet=True)
    else:
        results = [run(args.first, args.samples, args.show)]
    for result in results:
        report(result)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results if args.versions is not None else results[0], f, indent=1)
    return 1 if any(r["verdicts"].get("wrong") or r["verdicts"].get("crash") for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())
