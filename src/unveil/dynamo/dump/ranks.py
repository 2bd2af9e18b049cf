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
    """One line per difference: the file that differs (this rank's) and where it first does
    (``first at line 30: size=[3, 4] here, size=[4, 4] in this rank``), a file only one
    rank has, a reason that changed."""
    out, file, line, removed = [], None, 0, None
    for text in lines:
        if text.startswith("+++ "):
            file, removed = len(out), None
            out.append("differs: " + os.path.relpath(text[4:], directory))
        elif text.startswith("only in ") or ": " in text and " compile #" in text.split(":", 1)[0]:
            file = None
            out.append(text.replace(directory + os.sep, ""))
        elif file is not None and text.startswith("@@"):
            line = int(_HUNK.match(text).group(1)) if _HUNK.match(text) else 0
        elif file is not None and text.startswith("-"):
            removed = text[1:] if removed is None else removed
        elif file is not None and text.startswith("+"):
            out[file] += ", first at line %d: %s" % (line, _change(removed, text[1:]) if removed is not None
                                                      else _only(text[1:], "this rank"))
            file = None
        elif file is not None and removed is not None:
            out[file] += ", first at line %d: %s" % (line, _only(removed, "the lowest rank"))
            file = None
        elif file is not None:
            line += 1
    return out


def _only(text, who):
    """A line one rank's file has and the other's lacks, as the headline quotes it."""
    return "`%s`, a line only %s has" % (text.strip(), who) if text.strip() else "an empty line only %s has" % who


#: a unified diff's hunk header: where the hunk starts in the second file
_HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+(\d+)")


def _change(before, after, context=12):
    """What differs between two versions of a line, with a little text around it:
    ``...e, size=[3, 4], stride... in the lowest rank, ...e, size=[4, 4], stride... here``."""
    start = 0
    while start < min(len(before), len(after)) and before[start] == after[start]:
        start += 1
    end = 0
    while end < min(len(before), len(after)) - start and before[-1 - end] == after[-1 - end]:
        end += 1
    lead, tail = max(0, start - context), max(0, end - context)

    def cut(text):
        return "%s%s%s" % ("..." if lead else "", text[lead:len(text) - tail].strip(), "..." if tail else "")
    return "`%s` in the lowest rank, `%s` here" % (cut(before), cut(after))


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
