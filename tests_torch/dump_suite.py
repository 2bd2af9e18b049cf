"""Every program of the torch suite dumped by ``prepare_debug``, one folder each, and
two such runs compared (to show a change of unveil changes no dump):

    python tests_torch/dump_suite.py dump OUT_DIR [PROGRAM ...]
    python tests_torch/dump_suite.py compare DIR_A DIR_B

``compare`` pairs the programs' folders and prints, per program, ``same`` or the
differences ``unveil diff`` finds (it ignores what differs from run to run: ids,
uuids, counters, addresses, compile ids); it exits 1 if any program differs.
"""
import argparse
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
os.environ.setdefault("HF_HUB_OFFLINE", "1")


def dump(out, names):
    import torch
    import unveil
    from programs import PROGRAMS
    from test_prepare_debug import execute

    chosen = [p for p in PROGRAMS if not names or p.name in names]
    unknown = set(names) - {p.name for p in chosen}
    if unknown:
        raise SystemExit("dump_suite: no such program: %s" % ", ".join(sorted(unknown)))
    for program in chosen:
        torch.manual_seed(0)
        with unveil.prepare_debug(os.path.join(out, program.name)):
            execute(program)
        print(program.name, flush=True)


def compare(dir_a, dir_b):
    from unveil.dumpdiff import diff_dumps

    names = sorted(set(os.listdir(dir_a)) | set(os.listdir(dir_b)))
    differ = 0
    for name in names:
        a, b = os.path.join(dir_a, name), os.path.join(dir_b, name)
        if not (os.path.isdir(a) and os.path.isdir(b)):
            print("%s: only in %s" % (name, dir_a if os.path.isdir(a) else dir_b))
            differ += 1
            continue
        lines = diff_dumps(a, b)
        print("%s: %s" % (name, "same" if not lines else "%d lines differ" % len(lines)))
        for line in lines[:40]:
            print("    " + line)
        differ += bool(lines)
    print("%d of %d programs differ" % (differ, len(names)))
    return 1 if differ else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="command", required=True)
    d = sub.add_parser("dump")
    d.add_argument("out")
    d.add_argument("programs", nargs="*")
    c = sub.add_parser("compare")
    c.add_argument("dir_a")
    c.add_argument("dir_b")
    args = ap.parse_args()
    if args.command == "dump":
        dump(args.out, args.programs)
        return 0
    return compare(args.dir_a, args.dir_b)


if __name__ == "__main__":
    sys.exit(main())
