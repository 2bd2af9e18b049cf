"""The dump directory: safe, unique file names, failure files and ``index.json``.

The index schema is documented in ``docs/dump-format.md``.
"""
import datetime
import dis
import json
import os
import platform
import re
import threading

SCHEMA = "unveil.dump/1"

_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]+")


def safe_name(text, limit=60):
    """A file-name fragment for any function name (``<lambda>``, ``a/b``, non-ASCII ...)."""
    name = _UNSAFE.sub("_", str(text)).strip("._") or "unnamed"
    return name[:limit]


def short_graph_name(name):
    """``compiled_fn_1`` for Dynamo's ``__compiled_fn_1_<uuid>`` (file names stay short)."""
    match = re.match(r"_*(compiled_fn_\d+)", name)
    return match.group(1) if match else safe_name(name)


class DumpDir:
    """Writes files into one directory, never overwriting one, and keeps the index."""

    def __init__(self, path, torch_version):
        self.path = os.path.abspath(os.fspath(path))
        os.makedirs(self.path, exist_ok=True)
        self._lock = threading.Lock()
        self._taken = set(os.listdir(self.path))
        self.run = self._run_prefix()
        self.artifacts = []
        self.functions = []
        self.torch_version = torch_version

    def _run_prefix(self):
        """``""`` for the first run into a directory, ``run2.`` etc. after it."""
        if "index.json" not in self._taken:
            return ""
        n = 2
        while "run%d.index.json" % n in self._taken:
            n += 1
        return "run%d." % n

    def _claim(self, name):
        stem, ext = os.path.splitext(name)
        candidate, n = self.run + name, 2
        while candidate in self._taken:
            candidate = "%s%s.%d%s" % (self.run, stem, n, ext)
            n += 1
        self._taken.add(candidate)
        return candidate

    def write(self, name, text, **entry):
        """Write ``text`` under a fresh name derived from ``name``; index it with ``entry``."""
        with self._lock:
            fname = self._claim(name)
            with open(os.path.join(self.path, fname), "w", encoding="utf-8") as fh:
                fh.write(text)
            if entry:
                entry["file"] = fname
                self.artifacts.append(entry)
            return fname

    def write_index(self, failures):
        index = {
            "schema": SCHEMA,
            "created": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
            "python": platform.python_version(),
            "torch": self.torch_version,
            "functions": self.functions,
            "artifacts": self.artifacts,
            "failures": failures,
        }
        name = self.run + "index.json"
        with self._lock:
            self._taken.add(name)
            with open(os.path.join(self.path, name), "w", encoding="utf-8") as fh:
                fh.write(_index_text(index))
        return name


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
