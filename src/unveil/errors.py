"""Errors the decompiler raises."""


class DecompilationError(Exception):
    """The input could not be decompiled; the message says what and where."""


class InternalError(DecompilationError):
    """A bug in unveil: the decompiler itself crashed (an ``IndexError``, ``KeyError``,
    ... escaped it).  Raised by the public API, so that a caller sees one clear error;
    never a reason to fall back to the state machine, and never a "refusal" in a
    test or benchmark (the crash is its ``__cause__``)."""
