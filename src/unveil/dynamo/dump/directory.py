"""The dump directory: safe, unique file names, failure files and ``index.json``.

The index schema is documented in ``docs/dump-format.md``.
"""
import datetime
import dis
import hashlib
import json
import linecache
import os
import platform
import re
import sys
import threading
import uuid

from ...volatile import dict_versions_replaced, ids_replaced

SCHEMA = "unveil.dump/1"

#: this process, as a dump names the process that wrote it (``index.json``'s ``process``):
#: the object ids its guards recorded mean something only there
THIS_PROCESS = "%d-%s" % (os.getpid(), uuid.uuid4().hex)

_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]+")


def safe_name(text, limit=80):
    """A file-name fragment for any function name (``<lambda>``, ``a/b``, non-ASCII ...);
    a long one loses its middle, so that both the class and the function's own name
    (and a resume function's line) stay: whole parts of a qualified name first, the
    innermost enclosing one first (cut through, ``GradientCheckpointingLayer.__init_subclass__.
    forward_with_checkpointing`` read ``Layer.______.forward...``), then the class's
    middle, so that the function's own name stays whole (``BertForSequenceClassification.
    torch_dynamo_resume_in_forward_at_1098`` read ``..._amo_resume_in_forward_at_1098``);
    a name of one part loses its middle characters."""
    name = _UNSAFE.sub("_", str(text)).strip(".") or "unnamed"     # (``__call__`` keeps its underscores)
    if len(name) <= limit:
        return name
    parts = name.split(".")
    while len(parts) > 2 and len(".".join(parts)) > limit:
        del parts[-2]                    # the innermost enclosing name goes first, the class stays
    if len(".".join(parts)) <= limit:
        return ".".join(parts)
    room = limit - len(parts[-1]) - 1            # for the class, its middle cut
    if len(parts) == 2 and room >= 8:
        keep = (room - 2) // 2
        return parts[0][:keep] + "__" + parts[0][-(room - 2 - keep):] + "." + parts[-1]
    keep = (limit - 2) // 2
    return name[:keep] + "__" + name[-(limit - 2 - keep):]


#: text that differs between runs of the same program: uuids and process-wide counters
#: in Dynamo's global names and object addresses in reprs (ids and dict versions: ``volatile``)
_VOLATILE = re.compile(r"[0-9a-f]{8}[_-][0-9a-f]{4}[_-][0-9a-f]{4}[_-][0-9a-f]{4}[_-][0-9a-f]{12}|0x[0-9a-fA-F]+"
                       r"|(?<=__compiled_fn_)\d+|(?<=__resume_at_)\d+_\d+")


#: the process-wide counter that ends a name Dynamo made (``bytecode_transformation.unique_id``:
#: ``__builtins_dict___7``, ``___context_manager_0_4``, ``__resume_at_72_9``), and the compile
#: counter after an id in a name (``..._<id>_c6``): the same program run again in one process
#: (a notebook cell run again, pdb's restart) numbers them on
_COUNTER_IN_NAME = re.compile(r"\b(__\w*?_)\d+\b|(?<=#_c)\d+\b")
INDEX, SUMMARY = "index.json", "summary.txt"


def content_digest(text):
    """A short hash of ``text``'s code, line for line: what differs between runs of the same
    program left out, and comment lines blank (a header naming another file, a graph's
    ``# File: ...:42`` comment): a file keeps its name while its code stays on its lines,
    which is what a breakpoint in it needs."""
    code = "\n".join("" if line.lstrip().startswith("#") else line for line in text.split("\n"))
    # (uuids first: a uuid's group of digits alone, 12345678, would read as an id in a name)
    code = dict_versions_replaced(ids_replaced(_VOLATILE.sub("#", code), "#"), "#")
    return hashlib.sha1(_COUNTER_IN_NAME.sub(lambda m: (m.group(1) or "") + "#", code).encode("utf-8")).hexdigest()[:8]


class DumpDir:
    """Writes files into one directory and keeps the index.

    File names stay the same from run to run, so that breakpoints saved in an
    IDE still hit: a file takes the name asked for, or the one it had in the
    directory's previous run (its ``index.json``) while its content is the same.
    Content that changed gets a name with a hash of the content in it, until the
    content the plain name stood for comes back.  A file rewritten in the same run
    (a graph a backend renamed) is named by its text as first written.  Files of
    the previous run that this run did not write again are removed at the end;
    files unveil did not write are never touched.
    """

    def __init__(self, path, torch_version):
        self.path = os.path.abspath(os.fspath(path))
        os.makedirs(self.path, exist_ok=True)
        self._lock = threading.Lock()
        artifacts, previous_origins = _previous_run(self.path)
        self._previous = {a.get("base", a["file"]): (a["file"], a.get("digest"), a.get("base_digest"))
                          for a in artifacts}
        # the code each name stood for in the last run: ``(file, qualified name)`` of its function
        self._previous_origin = {a.get("base", a["file"]): previous_origins.get(a.get("function"))
                                 for a in artifacts}
        self.origins = {}            # a function's key in this run -> (file, qualified name) of its code
        # files another run of ours left unindexed (it was killed) are ours to reuse, not to avoid
        self._theirs = {f for f in os.listdir(self.path) if not _OURS.search(f)} \
            - {f for f, _, _ in self._previous.values()} - {INDEX, SUMMARY}
        self._taken = set()
        self.artifacts = []
        self.functions = []
        self.compiles = []
        self.generation = 0          # the compiles' generation whose cache entries Dynamo holds at the end
        self.counts = {}             # explanations.summary.counts: what summary.txt and the report count
        self.line_map = {}           # file -> [[user file, user line, dumped line]] (LineMap.table)
        self.torch_version = torch_version
        self.cwd = os.getcwd()       # what a relative file name of the user's code is relative to
        self.argv = list(sys.argv)   # the program's: its module's top-level code may parse them

    def check_writable(self):
        """Raise the OSError that writing a file into the directory meets (a read-only
        directory, another user's, a file system that takes none), if any."""
        probe = os.path.join(self.path, ".unveil-write-check.%d" % os.getpid())
        with open(probe, "w", encoding="utf-8"):
            pass
        os.remove(probe)

    def _claim(self, name, text, function=None):
        """``(file name, digest of text, digest of what the plain name stands for)``.  The
        digests are made only where the last run wrote this name (a first run makes none:
        normalising a text is a regular expression over all of it).  A name that stood for
        another function's code in the last run (two functions ``step`` of two modules,
        compiled in the other order) is taken as changed content: a breakpoint saved in the
        file would stop in the other function, whose code may read the same."""
        previous = self._previous.get(name)
        digest = base_digest = None
        candidate = name
        was, now = self._previous_origin.get(name), self.origins.get(function)
        if previous is not None and was is not None and now is not None and was != now:
            # (named by the code and whose it is: the other function's file, named by the
            # same code, may have been named so in an earlier run)
            digest = content_digest(text)
            stem, ext = os.path.splitext(name)
            candidate = "%s.%s%s" % (stem, hashlib.sha1(repr((now, digest)).encode("utf-8")).hexdigest()[:8], ext)
            base_digest = previous[2] or self._digest_of(previous[0])
        elif previous is not None:
            file, old_digest, base_digest = previous
            digest = content_digest(text)
            if file == name and base_digest is None:    # what the plain name stands for is on disk
                base_digest = self._digest_of(file) or digest
            if digest == old_digest and file != name:
                candidate = file
            elif base_digest not in (None, digest):
                stem, ext = os.path.splitext(name)
                candidate = "%s.%s%s" % (stem, digest, ext)
        stem, ext = os.path.splitext(name)
        n = 2
        while candidate in self._taken or candidate in self._theirs:
            candidate = "%s.%d%s" % (stem, n, ext)
            n += 1
        self._taken.add(candidate)
        return candidate, digest, base_digest

    def _digest_of(self, fname):
        try:
            with open(os.path.join(self.path, fname), encoding="utf-8") as fh:
                return content_digest(fh.read())
        except (OSError, ValueError):       # gone, or not text: the name is free
            return None

    def write(self, name, text, **entry):
        """Write ``text`` under a name derived from ``name`` (see the class); index it with ``entry``."""
        with self._lock:
            fname, digest, base_digest = self._claim(name, text, entry.get("function"))
            self._put(fname, text)
            if entry:
                entry.update(file=fname, base=name)
                if digest is not None:
                    entry.update(digest=digest, base_digest=base_digest)
                self.artifacts.append(entry)
            return fname

    def rewrite(self, fname, text):
        """Replace the content of ``fname``, written earlier in this run.  Its name stays:
        names follow the text as first written, so the index keeps that text's digest
        (the next run cannot read it from the file any more)."""
        with self._lock:
            entry = next((a for a in self.artifacts if a["file"] == fname), None)
            if entry is not None and "digest" not in entry:
                first = self._digest_of(fname)
                entry.update(digest=first, base_digest=first)   # no digest: the name is the plain one
            self._put(fname, text)

    def retag(self, fname, **fields):
        """Change the index entry of ``fname``, written earlier in this run."""
        with self._lock:
            next(a for a in self.artifacts if a["file"] == fname).update(fields)

    def _put(self, fname, text):
        path = os.path.join(self.path, fname)
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(text)
        # a debugger that read the file before (an earlier run's, the text first handed over)
        # lists what runs now
        linecache.cache.pop(path, None)

    def write_index(self, failures, short_of_end=None, kept=()):
        """``index.json``; the files of ours this run did not write go, but where the run
        may have stopped short of its end (``short_of_end``: ``{"ended_early": the exception
        in words}`` or ``{"exit_status": N}``, index items): then they are the last complete
        run's, ``kept`` (:meth:`stale_files`) and listed as such."""
        index = {
            "schema": SCHEMA,
            "created": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
            "python": platform.python_version(),
            "torch": self.torch_version,
            "program_dir": os.path.abspath(sys.path[0] or os.curdir) if sys.path else os.getcwd(),
            "cwd": self.cwd,
            "argv": self.argv,
            "process": THIS_PROCESS,
            "functions": self.functions,
            "generation": self.generation,
            "compiles": self.compiles,
            "skipped_frames": [c for c in self.compiles if c["skipped"]],
            "counts": self.counts,
            "artifacts": self.artifacts,
            "failures": failures,
            "line_map": self.line_map,
        }
        if short_of_end is not None:
            index.update(short_of_end, kept_from_an_earlier_run=list(kept))
        with self._lock:
            if short_of_end is None:
                for file in self._stale():
                    os.remove(os.path.join(self.path, file))
            _write_atomically(os.path.join(self.path, INDEX), _index_text(index))
        return INDEX

    def stale_files(self):
        """The files of ours in the directory that this run did not write (so far)."""
        with self._lock:
            return self._stale()

    def _stale(self):
        ours = {f for f, _, _ in self._previous.values()} | {f for f in os.listdir(self.path) if _OURS.search(f)}
        return sorted(f for f in ours - self._taken if os.path.exists(os.path.join(self.path, f)))

    def write_summary(self, text):
        """``summary.txt``, the dump in words (a fixed name, as the index's)."""
        with self._lock:
            with open(os.path.join(self.path, SUMMARY), "w", encoding="utf-8") as fh:
                fh.write(text)


#: the names this module gives files (``KEY.compile_0_0.graph.py``, with a digest or a number)
_OURS = re.compile(r"\.(compile_\d+_\d+\.\w+|resume_function|full_code)(\.[0-9a-f]{8}|\.\d+)?\.py$")


def _write_atomically(path, text):
    """Write ``text`` to ``path`` so that a reader sees the old file or the new one whole
    (another rank reads the index while this one writes it)."""
    partial = "%s.%d.tmp" % (path, os.getpid())
    with open(partial, "w", encoding="utf-8") as fh:
        fh.write(text)
    os.replace(partial, path)


def foreign_file(path):
    """The name of a file in directory ``path`` that a dump writes and unveil did not write
    there (an ``index.json`` that is not a dump's index, a ``summary.txt`` beside no such
    index), or None: a dump would replace it."""
    index = os.path.join(path, INDEX)
    if not os.path.isfile(index):     # (none, or no file: writing the index fails, and says so)
        return SUMMARY if not os.path.exists(index) and os.path.isfile(os.path.join(path, SUMMARY)) else None
    try:
        with open(index, encoding="utf-8") as fh:
            data = json.load(fh)
    except (OSError, ValueError):
        return INDEX
    schema = data.get("schema") if isinstance(data, dict) else None
    return None if isinstance(schema, str) and schema.startswith("unveil.dump/") else INDEX


def _previous_run(path):
    """The artifacts of the directory's last run (its ``index.json``), files in it only, and
    ``{function key: (file, qualified name)}`` of its functions."""
    try:
        with open(os.path.join(path, INDEX), encoding="utf-8") as fh:
            index = json.load(fh)
    except (OSError, ValueError):
        return [], {}
    if not isinstance(index, dict) or index.get("schema") != SCHEMA:
        return [], {}
    artifacts = [art for art in index.get("artifacts", ()) if isinstance(art, dict)
                 and isinstance(art.get("file"), str) and os.path.basename(art["file"]) == art["file"]]
    origins = {fn.get("key"): (fn.get("filename"), fn.get("qualname")) for fn in index.get("functions", ())
               if isinstance(fn, dict)}
    return artifacts, origins


def _index_text(index):
    """The index as JSON, one line per key and per list item (``json.dumps`` with
    ``indent`` runs in pure Python, several times slower)."""
    lines = []
    for key, value in index.items():
        if isinstance(value, list) and value:
            lines.append(" %s: [\n%s\n ]" % (json.dumps(key), ",\n".join("  " + json.dumps(v) for v in value)))
        else:
            lines.append(" %s: %s" % (json.dumps(key), json.dumps(value)))
    return "{\n%s\n}\n" % ",\n".join(lines)


def failure_text(what, code, error):
    """A valid Python file that says what failed, with the bytecode as comments."""
    lines = ['"""unveil could not %s.' % what, "", "Error: %s" % " ".join(str(error).split()).replace('"""', "'''"),
             "", "The bytecode follows as comments.", '"""', ""]
    if code is not None:
        try:
            listing = dis.Bytecode(code).dis()
        except Exception as exc:  # dis itself fails on some hand-made code
            listing = "dis failed: %r" % (exc,)
        lines += ["# " + line for line in listing.splitlines()]
    return "\n".join(lines) + "\n"
