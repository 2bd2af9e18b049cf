"""Reading .pyc files written by the running interpreter.

A .pyc file is a 16-byte header (magic number, flags, then either the source's
mtime and size or a source hash) followed by a marshalled code object.  Only
.pyc files of the running interpreter's own bytecode version can be loaded;
for any other, :class:`PycError` names the Python version that wrote it.
"""
import importlib.util
import marshal
import os
import types

from .bytecode.facts import PY
from .errors import DecompilationError

__all__ = ["PycError", "load_pyc", "magic_to_version", "MAGIC_RANGES"]

#: The running interpreter's 4-byte magic: 2-byte little-endian number + b"\r\n".
MAGIC_NUMBER = importlib.util.MAGIC_NUMBER

#: (first, last, version): the magic numbers each CPython release series used,
#: pre-releases included, from the history kept in CPython's
#: Lib/importlib/_bootstrap_external.py (Include/internal/pycore_magic_number.h
#: since 3.14).
MAGIC_RANGES = (
    (20121, 20121, "1.5"),
    (50428, 50428, "1.6"),
    (50823, 50823, "2.0"),
    (60202, 60202, "2.1"),
    (60717, 60717, "2.2"),
    (62011, 62021, "2.3"),
    (62041, 62061, "2.4"),
    (62071, 62131, "2.5"),
    (62151, 62161, "2.6"),
    (62171, 62211, "2.7"),
    (3000, 3131, "3.0"),
    (3141, 3151, "3.1"),
    (3160, 3180, "3.2"),
    (3190, 3230, "3.3"),
    (3250, 3310, "3.4"),
    (3320, 3351, "3.5"),
    (3360, 3379, "3.6"),
    (3390, 3394, "3.7"),
    (3400, 3413, "3.8"),
    (3420, 3425, "3.9"),
    (3430, 3439, "3.10"),
    (3450, 3495, "3.11"),
    (3500, 3531, "3.12"),
    (3550, 3571, "3.13"),
    (3600, 3627, "3.14"),
)


class PycError(DecompilationError, ValueError):
    """A .pyc file that cannot be loaded; the message is a single line.  A
    :class:`DecompilationError` (what the API raises), and a ``ValueError`` as it was."""


def magic_to_version(magic):
    """Return the Python version ("3.8") that writes .pyc files with ``magic``.

    ``magic`` is the 16-bit magic number (an int) or the 4 header bytes.
    Returns None for a number no CPython release used.
    """
    if isinstance(magic, (bytes, bytearray)):
        if len(magic) < 2:
            return None
        magic = int.from_bytes(magic[:2], "little")
    for first, last, version in MAGIC_RANGES:
        if first <= magic <= last:
            return version
    if 3650 <= magic < 5000:  # from 3.11 on, 3.N starts at 2900 + 50 * N
        return "3.%d" % ((magic - 2900) // 50)
    return None


def _this_python():
    number = int.from_bytes(MAGIC_NUMBER[:2], "little")
    return "Python %d.%d (magic number %d)" % (PY + (number,))


def load_pyc(path):
    """Read the .pyc file at ``path`` and return its module code object.

    Raises :class:`PycError` if the file is missing or unreadable, is not a
    .pyc file, is truncated or corrupt, or was written by another Python
    version (the message names that version).
    """
    path = os.fspath(path)
    try:
        with open(path, "rb") as f:
            data = f.read()
    except FileNotFoundError:
        raise PycError("no such file: %s" % path) from None
    except IsADirectoryError:
        raise PycError("%s is a directory, not a .pyc file" % path) from None
    except OSError as exc:
        raise PycError("cannot read %s: %s" % (path, exc.strerror or exc)) from None

    if len(data) < 4 or data[2:4] != b"\r\n":
        raise PycError("%s is not a .pyc file (bad magic number %r)" % (path, data[:4]))
    if data[:4] != MAGIC_NUMBER:
        magic = int.from_bytes(data[:2], "little")
        version = magic_to_version(magic)
        if version is None:
            raise PycError("%s has an unknown magic number %d; this is %s"
                           % (path, magic, _this_python()))
        advice = ""
        if tuple(map(int, version.split("."))) >= (3, 8):  # the oldest unveil runs on
            advice = ": decompile it with Python %s" % version
        raise PycError("%s was compiled by Python %s (magic number %d), but this is %s%s"
                       % (path, version, magic, _this_python(), advice))
    if len(data) < 16:
        raise PycError("%s is truncated: %d bytes, shorter than the 16-byte .pyc header"
                       % (path, len(data)))
    flags = int.from_bytes(data[4:8], "little")
    if flags & ~0b11:
        raise PycError("%s is corrupt: invalid .pyc flags %#x" % (path, flags))
    try:
        code = marshal.loads(data[16:])
    except (EOFError, ValueError, TypeError) as exc:
        raise PycError("%s is truncated or corrupt: %s" % (path, exc)) from None
    if not isinstance(code, types.CodeType):
        raise PycError("%s is corrupt: it holds a %s, not a code object"
                       % (path, type(code).__name__))
    return code
