"""Distributed runs (``torchrun``): each rank dumps into ``DIR/rank_<r>`` (the rank from
the environment torchrun sets), and ``DIR/ranks.json`` covers all ranks, flagging those
whose dump differs from the lowest rank's (graphs, guards, transformed code, breaks,
recompiles: :mod:`unveil.dumpdiff`).  Every rank rewrites it when it finishes, under a
file lock, from all the ranks' indexes then on disk: the last to finish sees them all.
"""
import contextlib
import json
import os
import re

from ...dumpdiff import DumpError, diff_dumps

RANKS_INDEX = "ranks.json"
_RANK_DIR = re.compile(r"rank_(\d+)$")


def rank_of_process():
    """This process's rank in a distributed run of more than one process, else None."""
    try:
        world = int(os.environ.get("WORLD_SIZE", "1"))
        rank = int(os.environ["RANK"])
    except (KeyError, ValueError):
        return None
    return rank if world > 1 else None


def rank_dir(dump_dir, rank):
    return os.path.join(dump_dir, "rank_%d" % rank)


def write_ranks_index(dump_dir):
    """``DIR/ranks.json``: each rank's directory, and for each rank whose dump differs from
    the lowest rank's, what differs (the files and the reasons)."""
    with _locked(os.path.join(dump_dir, ".ranks.lock")):
        ranks = sorted(int(m.group(1)) for name in os.listdir(dump_dir) for m in [_RANK_DIR.match(name)]
                       if m and os.path.exists(os.path.join(dump_dir, name, "index.json")))
        entries = []
        for rank in ranks:
            try:
                lines = [] if rank == ranks[0] else diff_dumps(rank_dir(dump_dir, ranks[0]),
                                                               rank_dir(dump_dir, rank))
            except DumpError:         # that rank is still writing: it rewrites this index when done
                continue
            entries.append({"rank": rank, "dir": "rank_%d" % rank,
                            "differs_from": ranks[0] if lines else None,
                            "differences": _headlines(lines, rank_dir(dump_dir, rank))})
        index = {"schema": "unveil.ranks/1", "world_size": int(os.environ.get("WORLD_SIZE", len(ranks))),
                 "ranks": entries}
        with open(os.path.join(dump_dir, RANKS_INDEX), "w", encoding="utf-8") as fh:
            json.dump(index, fh, indent=1)
            fh.write("\n")
    return RANKS_INDEX


def _headlines(lines, directory):
    """One line per difference: the file that differs (this rank's), a file only one rank
    has, a reason that changed."""
    out = []
    for line in lines:
        if line.startswith("+++ "):
            out.append("differs: " + os.path.relpath(line[4:], directory))
        elif line.startswith("only in ") or ": " in line and " compile #" in line.split(":", 1)[0]:
            out.append(line.replace(directory + os.sep, ""))
    return out


@contextlib.contextmanager
def _locked(path):
    try:
        import fcntl
    except ImportError:           # not POSIX: ranks finishing at once may each write a partial index
        yield
        return
    with open(path, "w") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)
