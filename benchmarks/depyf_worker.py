"""Time depyf.decompile on the benchmark functions; run by decompile_speed.py
with the python of depyf's venv.  Writes the result as JSON to --out."""
import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_functions  # noqa: E402


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--modules", nargs="+", required=True)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--timeout", type=float, default=10.0)
    parser.add_argument("--out", required=True)
    args = parser.parse_args()

    import depyf

    functions = bench_functions.enumerate_functions(args.modules)
    result = bench_functions.time_decompiler(depyf.decompile, functions, args.repeat, args.timeout)
    result["tool"] = "depyf " + depyf.__version__
    result["labels"] = [label for label, _ in functions]
    with open(args.out, "w") as f:
        json.dump(result, f)


if __name__ == "__main__":
    main()
