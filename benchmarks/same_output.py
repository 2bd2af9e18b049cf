"""Write every text unveil decompiles from the speed benchmark's stdlib functions
and the case library to one file, so that two trees' outputs can be diffed.

    python benchmarks/same_output.py --src /path/to/src OUT.txt
    diff before.txt after.txt

A speed change must leave this file byte-identical.  Failures are written as
their one-line reason, so a change in what is refused shows too.
"""
import argparse
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def case_functions():
    """[(label, code)] of every case function of tests/cases this Python can parse."""
    sys.path.insert(0, ROOT)
    from tests.cases import registry
    return [("case:" + case.name, case.fn.__code__) for case in registry.all_cases()]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--src", default=os.path.join(ROOT, "src"), help="the unveil tree to run")
    parser.add_argument("out", help="file the texts are written to")
    args = parser.parse_args(argv)
    sys.path.insert(0, os.path.abspath(args.src))
    sys.path.insert(0, HERE)
    import bench_functions
    import unveil

    functions = bench_functions.enumerate_functions() + case_functions()
    with open(args.out, "w") as out:
        for label, code in functions:
            try:
                text = unveil.decompile(code.replace())
            except Exception as exc:  # the reason is part of the output compared
                text = "FAILED: " + bench_functions._reason(exc)
            out.write("### %s\n%s\n" % (label, text))
    print("%d functions written to %s" % (len(functions), args.out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
