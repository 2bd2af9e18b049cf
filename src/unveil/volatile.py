"""What differs from one run of the same program to the next, written the same way.

Object and type ids (what Dynamo's identity and type guards compare, and the names
it makes of them), dict versions, addresses, uuids and process-wide counters change from run to
run; so do the places a program and its libraries are installed at (the user's
checkout, site-packages, the standard library), which Dynamo writes into graphs,
guards and breaks, sometimes shortened (``mp/ex/v1/model.py``: torch cuts a path
after its common prefix with torch's own directory, and a character more when that
prefix is ``/``).  :func:`ids_replaced`, :func:`dict_versions_replaced` and :class:`Places` write them alike;
constants (``0.7071067811``, ``12345678901`` in a graph) are left as they are.
``dumpdiff`` compares dumps through them, and the dump names files by a digest of
text written through them.  Text only; nothing of torch.
"""
import os
import re

#: where a call of Dynamo's identity or type check starts (its own name or the dumped guards')
_ID_CHECK = re.compile(r"\b(?:___)?check_(?:obj|type)_id\(")
#: the ids Dynamo wrote into a name it made: ``___module_collections_140574649687696_c23``,
#: ``_139718848043808_c33`` (no prefix), ``__optimizer_140558051810160_139718126034016_c37`` (two)
_ID_IN_NAME = re.compile(r"\b([A-Za-z_]\w*?)??((?:_\d{7,})+)(?=\b|_)")
_ID = re.compile(r"\d+")
#: the version a dict-version guard compares (CPython's process-wide count of dict changes):
#: ``dict_version(__import__('torch').utils._pytree.SUPPORTED_NODES) == 939462``
_DICT_VERSION = re.compile(r"(\b(?:___)?dict_version\((?:[^()\n]|\((?:[^()\n]|\([^()\n]*\))*\))*\)\s*==\s*)\d+")
_DIGITS = re.compile(r"\s*(\d+)")


def ids_replaced(text, replacement="<id>"):
    """``text`` with each object or type id written as ``replacement``: the second
    argument of an identity or type check (``check_obj_id(L['self'], 140415347928976)``)
    and an id inside a name Dynamo made; a number anywhere else is a value and stays."""
    out, done = [], 0
    for match in _ID_CHECK.finditer(text):
        if match.start() < done:
            continue
        comma = _top_level_comma(text, match.end())
        digits = _DIGITS.match(text, comma + 1) if comma is not None else None
        if digits is None:
            continue
        out.append(text[done:digits.start(1)])
        out.append(replacement)
        done = digits.end(1)
    out.append(text[done:])
    return _ID_IN_NAME.sub(lambda m: (m.group(1) or "") + _ID.sub(replacement, m.group(2)), "".join(out))


def dict_versions_replaced(text, replacement="<version>"):
    """``text`` with the version each dict-version guard compares written as ``replacement``."""
    return _DICT_VERSION.sub(lambda m: m.group(1) + replacement, text)


def without_ids(guard):
    """A failed guard as Dynamo words it, the ids and dict versions it compares with (which
    differ from run to run) written ``<id>`` and ``<version>``: what the id was of follows
    it, or its type note says."""
    return ids_replaced(dict_versions_replaced(guard))


def _top_level_comma(text, start):
    """The index of the first comma after ``start`` outside brackets and strings, before
    the call's closing parenthesis (``None`` when there is none)."""
    depth, k, n = 0, start, len(text)
    while k < n:
        char = text[k]
        if char in "'\"":
            end = text.find(char, k + 1)
            while end > 0 and text[end - 1] == "\\":
                end = text.find(char, end + 1)
            if end < 0:
                return None
            k = end
        elif char in "([{":
            depth += 1
        elif char in ")]}":
            if depth == 0:
                return None
            depth -= 1
        elif char == "," and depth == 0:
            return k
        elif char == "\n" and depth == 0:
            return None
        k += 1
    return None


#: a path up to the site-packages (or dist-packages) directory it is in, and up to the
#: standard library's directory: an environment's install places
_SITE_PACKAGES = re.compile(r"(?<![\w.~/-])[^\s'\"():,<>]*/(?:site|dist)-packages(?=/)")
_STDLIB = re.compile(r"(?<![\w.~/-])[^\s'\"():,<>]*lib/python3\.\d+(?=/)")
#: a file name (what a path to a program's directory must go on to)
_REST_OF_A_FILE = r"(?=/[^\s'\"():,]*\.py\b)"


def is_library_path(path):
    """Whether ``path`` is a file of an environment (site-packages, the standard
    library, a frozen module), not of the user's program."""
    return path.startswith("<") or _SITE_PACKAGES.search(path) is not None or _STDLIB.search(path) is not None


class Places:
    """The places a run's text names that another run of the same program names
    differently, each with the label it is written as: the program's own directory
    (``<program>``, the user's checkout), the dump directory (``<dump>``),
    site-packages (``<site-packages>``) and the standard library (``<python-lib>``)."""

    def __init__(self, dump_dir=None, program_dir=None):
        self.dump_dir = os.path.abspath(dump_dir) if dump_dir else None
        self.program_dir = program_dir if program_dir and len(program_dir.strip("/")) > 0 else None
        self._dirs = [(d, label, _forms_of(d)) for d, label in ((self.dump_dir, "<dump>"),
                                                                 (self.program_dir, "<program>")) if d]

    def replaced(self, text):
        for directory, label, forms in self._dirs:
            text = text.replace(directory, label)
            if forms is not None:
                text = forms.sub(label, text)
        text = _SITE_PACKAGES.sub("<site-packages>", text)
        return _STDLIB.sub("<python-lib>", text)


def _forms_of(directory):
    """A pattern for the shortened forms torch writes of a path in ``directory``: the
    directory's path from any of its components on (and from the second character of
    its first, torch's cut when the common prefix is ``/``), followed by a file's path."""
    starts = {k + 1 for k, char in enumerate(directory) if char == "/" and k + 1 < len(directory)} | {2}
    forms = [directory[k:] for k in starts if k < len(directory) and directory[k:].strip("/")]
    if not forms:
        return None
    alternatives = "|".join(re.escape(f) for f in sorted(set(forms), key=len, reverse=True))
    return re.compile(r"(?<![\w.~/-])(?:%s)%s" % (alternatives, _REST_OF_A_FILE))


#: unveil's own directory: its frames (``unveil run``'s) are not the program's
_UNVEIL = os.path.dirname(os.path.abspath(__file__))


def program_dir(paths, dump_dir=None):
    """The directory of the user's own files among ``paths`` (the files a dump names):
    their common directory, library files, unveil's and the dump's own left out; None
    when there are none, or they share no directory but the root."""
    dump_dir = os.path.abspath(dump_dir) if dump_dir else None
    dirs = {os.path.dirname(p) for p in paths if p and os.path.isabs(p) and not is_library_path(p)
            and not any(p.startswith(d + os.sep) for d in (dump_dir, _UNVEIL) if d)}
    if not dirs:
        return None
    try:
        common = os.path.commonpath(sorted(dirs))
    except ValueError:                       # paths on different drives
        return None
    return common if common.strip(os.sep) else None
