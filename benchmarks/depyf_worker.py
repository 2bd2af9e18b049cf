"""Time depyf.decompile on the benchmark functions; run by decompile_speed.py
with the python of depyf's venv, so that its rounds interleave with unveil's.

Protocol on stdin/stdout, one JSON line each: first the labels of the functions
enumerated; then, for each line read from stdin, one round's [[seconds, reason]]
(reason ``null`` where depyf succeeded).  What depyf prints goes to stderr.
"""
import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_functions  # noqa: E402


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--modules", nargs="+", required=True)
    parser.add_argument("--timeout", type=float, default=10.0)
    args = parser.parse_args()

    import depyf

    protocol, sys.stdout = sys.stdout, sys.stderr
    functions = bench_functions.enumerate_functions(args.modules)
    print(json.dumps({"tool": "depyf " + depyf.__version__, "labels": [label for label, _ in functions]}),
          file=protocol, flush=True)
    for _ in sys.stdin:
        times = bench_functions.time_round(depyf.decompile, bench_functions.fresh_copies(functions),
                                           args.timeout)
        print(json.dumps(times), file=protocol, flush=True)


if __name__ == "__main__":
    main()
