"""Decompile speed of two commits side by side: the stdlib functions decompile_speed.py
times, each commit's unveil in a worker process of its own, their rounds interleaved,
each function's best CPU time over the rounds, summed over the functions both decompile.

    python3.12 benchmarks/speed_ab.py OLD [NEW] [--rounds 5]

OLD and NEW are commits (NEW: the working tree when left out), checked out with ``git
worktree`` into a temporary directory.  Both workers run under the interpreter running
this script, at the same time of day and under the same load, so their ratio means more
than two runs of decompile_speed.py one after the other.  Standard library only.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)

#: what a worker runs: unveil from the ``src`` directory it is given, a round per line read
_WORKER = """
import json, sys
sys.path[:0] = [sys.argv[1], sys.argv[2]]
import bench_functions
import unveil
functions = bench_functions.enumerate_functions()
print(json.dumps([label for label, _ in functions]), flush=True)
for _ in sys.stdin:
    print(json.dumps(bench_functions.time_round(unveil.decompile, bench_functions.fresh_copies(functions))),
          flush=True)
"""


class Worker:
    def __init__(self, src):
        self.process = subprocess.Popen([sys.executable, "-c", _WORKER, src, HERE], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, universal_newlines=True)
        self.labels = json.loads(self.process.stdout.readline())
        self.rounds = []

    def round(self):
        self.process.stdin.write("round\n")
        self.process.stdin.flush()
        self.rounds.append(json.loads(self.process.stdout.readline()))

    def close(self):
        self.process.stdin.close()
        self.process.wait()


def checkout(rev, where):
    subprocess.run(["git", "-C", REPO, "worktree", "add", "--detach", "-f", where, rev], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return os.path.join(where, "src")


def compare(old, new):
    """(functions both decompile, old seconds, new seconds, the functions slower by most)."""
    best = [[min(r[i][0] for r in w.rounds) for i in range(len(w.labels))] for w in (old, new)]
    both = [i for i in range(len(old.labels))
            if old.rounds[0][i][1] is None and new.rounds[0][i][1] is None]
    worst = sorted(both, key=lambda i: best[1][i] - best[0][i], reverse=True)[:10]
    return (both, sum(best[0][i] for i in both), sum(best[1][i] for i in both),
            [(old.labels[i], best[0][i], best[1][i]) for i in worst])


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("old", help="the commit to compare with")
    parser.add_argument("new", nargs="?", help="the commit compared (default: the working tree)")
    parser.add_argument("--rounds", type=int, default=5, help="interleaved rounds (default 5)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as scratch:
        trees = []
        try:
            old_src = checkout(args.old, os.path.join(scratch, "old"))
            trees.append(os.path.join(scratch, "old"))
            if args.new:
                new_src = checkout(args.new, os.path.join(scratch, "new"))
                trees.append(os.path.join(scratch, "new"))
            else:
                new_src = os.path.join(REPO, "src")
            old, new = Worker(old_src), Worker(new_src)
            if old.labels != new.labels:
                raise SystemExit("the two workers enumerated different functions")
            for _ in range(args.rounds):
                old.round()
                new.round()
            old.close()
            new.close()
        finally:
            for tree in trees:
                subprocess.run(["git", "-C", REPO, "worktree", "remove", "--force", tree],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    both, old_s, new_s, worst = compare(old, new)
    print("Python %s, %d functions, %d both decompile, best of %d interleaved rounds (CPU time)"
          % (sys.version.split()[0], len(old.labels), len(both), args.rounds))
    print("old %s: %.3f s   new %s: %.3f s   new / old: %.3f"
          % (args.old, old_s, args.new or "(working tree)", new_s, new_s / old_s))
    print("\nslower by most (seconds, old -> new):")
    for label, before, after in worst:
        print("  %-60s %.5f -> %.5f" % (label, before, after))
    return 0


if __name__ == "__main__":
    sys.exit(main())
