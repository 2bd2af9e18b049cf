"""Where a file is, in the reader's terms: the user's own code or a library's, and a
short name for it.

The user's files are shown relative to the program's directory (``program_dir`` in
the index); a library's (site-packages, the standard library, torch or unveil from a
source tree) under its package (``transformers/models/gpt2/modeling_gpt2.py``).  The
full path goes in a tooltip.  Only the path is read: a report can be built on
another machine than the dump.
"""
import ntpath
import os
import posixpath
import re

#: a package installed by pip: the part after it names the package
_SITE = re.compile(r"[\\/](?:site|dist)-packages[\\/]")
#: the standard library's directory (``lib/python3.11/``; ``Lib\`` on Windows)
_STDLIB = re.compile(r"[\\/](?:lib[\\/]python\d+(?:\.\d+)?t?|Lib)[\\/]")
#: packages that are never the user's code, wherever they are installed from
_LIBRARY_TREES = ("torch", "unveil", "functorch", "triton")
#: how many directories up from the program's a user's path may go before it is shown whole
_CLIMB = 2

STDLIB = "Python"


class Places:
    """Classifies and names files for one dump."""

    def __init__(self, program_dir, user_files=()):
        self.program_dir = None
        self._cache = {}
        if not program_dir:     # a dump from before program_dir: the deepest directory of the user's files
            dirs = [os.path.dirname(f) for f in user_files if self._library_of(f) is None]
            program_dir = os.path.commonpath(dirs) if dirs and _same_root(dirs) else None
        self.program_dir = program_dir

    def package(self, filename):
        """The library ``filename`` belongs to, or None for the user's own file."""
        return self._place(filename)[0]

    def is_user(self, filename):
        return self.package(filename) is None

    def short(self, filename):
        """The path as the report shows it."""
        return self._place(filename)[1]

    def _place(self, filename):
        place = self._cache.get(filename)
        if place is None:
            place = self._cache[filename] = self._classify(filename or "?")
        return place

    def _classify(self, filename):
        """Site-packages and the standard library are libraries; then a file under the
        program's directory is the user's; then torch or unveil from a source tree."""
        for pattern in (_SITE, _STDLIB):
            parts = pattern.split(filename)
            if len(parts) > 1:
                rest = parts[-1].replace("\\", "/")
                return (_top_name(rest) if pattern is _SITE else STDLIB), rest
        if filename.startswith("<"):                # <frozen importlib._bootstrap>, <string>
            return STDLIB, filename
        module = _path_module(filename)
        rel = None
        if self.program_dir and module.isabs(filename):
            try:
                rel = module.relpath(filename, self.program_dir)
            except ValueError:          # another drive
                rel = None
        if rel is not None and not rel.startswith(os.pardir):
            return None, rel
        pieces = re.split(r"[\\/]", filename)
        for i in range(len(pieces) - 2, -1, -1):      # the innermost: a checkout's folder may share the name
            if pieces[i] in _LIBRARY_TREES:
                return pieces[i], "/".join(pieces[i:])
        if rel is not None and rel.split(module.sep)[:_CLIMB + 1].count(os.pardir) <= _CLIMB:
            return None, rel
        return None, filename

    def _library_of(self, filename):
        place = self._classify(filename)
        return place if place[0] is not None else None


def _top_name(rest):
    top = rest.split("/", 1)[0]
    return top[:-3] if top.endswith(".py") else top


def _path_module(filename):
    return ntpath if re.match(r"^[A-Za-z]:[\\/]", filename) else posixpath


def _same_root(dirs):
    return len({_path_module(d).splitdrive(d)[0] for d in dirs}) == 1 and all(
        _path_module(d).isabs(d) for d in dirs)
