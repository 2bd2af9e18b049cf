"""Highlighting a report's texts with pygments as they are asked for: in two worker
interpreters when there is much of it (pygments takes most of a report's time)."""
import concurrent.futures
import json
import os
import subprocess
import sys

from .highlighting import highlight


class HighlightFailed(Exception):
    """A worker interpreter could not highlight its share."""


def _highlight_parts(parts, marked=()):
    """Several ``(text, first line)`` highlighted, one after the other."""
    return "\n".join(highlight(text, start, marked) for text, start in parts)


#: above this many characters of dumped code, pygments runs in two processes
PARALLEL_TEXT = 150000


class Highlighter:
    """Highlights texts as they are submitted.  With ``parallel`` (pygments takes most of a
    report's time), the texts submitted before ``start`` go to two worker interpreters
    (``highlighting.py`` run as a script, not multiprocessing: the report is often built
    in the process that ran the program, whose ``__main__`` a spawned worker would run
    again and whose threads a forked one would copy); the rest are highlighted here when
    first asked for."""

    def __init__(self, parallel):
        self.parallel = parallel
        self.jobs = {}            # key -> (function, arguments...) until done, then its HTML
        self.shares = []          # [(keys, future of their HTML)]
        self.threads = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        if self.threads is not None:
            self.threads.shutdown()

    def submit(self, key, text=None, parts=None, marked=()):
        """Highlight ``text`` (or ``parts``: ``[(text, first line)]``) under ``key``,
        the lines ``marked`` highlighted."""
        if key not in self.jobs:
            self.jobs[key] = (_highlight_parts, parts, sorted(marked)) if parts is not None \
                else (highlight, text, 1, sorted(marked))

    def start(self, workers=2):
        """Send what was submitted so far to the workers."""
        keys = [k for k, job in self.jobs.items() if isinstance(job, tuple) and job[0] is highlight]
        if not self.parallel or not keys:
            return
        shares = [[] for _ in range(workers)]
        for key in sorted(keys, key=lambda k: -len(self.jobs[k][1])):   # the longest first: shares even out
            min(shares, key=lambda share: sum(len(self.jobs[k][1]) for k in share)).append(key)
        self.threads = concurrent.futures.ThreadPoolExecutor(max_workers=workers)
        for share in filter(None, shares):
            texts = [[self.jobs[k][1], self.jobs[k][3]] for k in share]
            self.shares.append((share, self.threads.submit(_highlight_elsewhere, texts)))
            for k in share:
                self.jobs[k] = None

    def get(self, key):
        job = self.jobs[key]
        if job is None:                     # in a worker's share: take the whole share
            share, future = next((s, f) for s, f in self.shares if key in s)
            for k, code in zip(share, future.result()):
                self.jobs[k] = code
            job = self.jobs[key]
        if isinstance(job, tuple):
            job = self.jobs[key] = job[0](*job[1:])
        return job


def _highlight_elsewhere(texts):
    """``[text, marked lines]`` highlighted by a new interpreter running ``highlighting.py``
    as a script (so that it imports pygments only, not unveil)."""
    script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "highlighting.py")
    done = subprocess.run([sys.executable, "-c", "import runpy; runpy.run_path(%r, run_name='__main__')" % script],
                          input=json.dumps(texts).encode(), capture_output=True)
    if done.returncode != 0:
        lines = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise HighlightFailed("highlighting failed in a worker: %s" % (lines[-1] if lines else done.returncode))
    return json.loads(done.stdout.decode("utf-8"))
