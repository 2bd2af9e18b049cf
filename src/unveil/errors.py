"""Errors the decompiler raises."""


class DecompilationError(Exception):
    """The input could not be decompiled; the message says what and where."""
