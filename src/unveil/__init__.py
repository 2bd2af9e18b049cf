"""unveil: see what torch.compile did, as readable Python.

The core is a bytecode decompiler for CPython 3.8-3.13 that depends on the
standard library alone: :func:`decompile` turns a function, code object or
``.pyc`` back into source, and :func:`recompile` compiles that source into a
code object with the original frame layout.
"""
from .api import Decompiled, decompile, decompile_code
from .errors import DecompilationError
from .recompile import recompile

__all__ = ["decompile", "decompile_code", "Decompiled", "recompile", "DecompilationError"]
__version__ = "0.1.0"
