"""unveil: see what torch.compile did, as readable Python.

The core is a bytecode decompiler for CPython 3.8-3.13 that depends on the
standard library alone: :func:`decompile` turns a function, code object or
``.pyc`` back into source, and :func:`recompile` compiles that source into a
code object with the original frame layout.  :func:`prepare_debug` (which
needs torch, imported only when called) dumps what ``torch.compile`` did.
"""
from .api import Decompiled, decompile, decompile_code
from .errors import DecompilationError
from .recompile import recompile



def prepare_debug(dump_dir, run_dumped=False):
    """Inside ``with prepare_debug(dump_dir):`` everything torch.compile does is written
    to ``dump_dir`` as Python files, indexed in ``index.json``.

    ``run_dumped=True`` also runs the transformed code recompiled from the dumped
    files in place of Dynamo's bytecode (a check that the dump is faithful).
    """
    from .dynamo import DebugSession
    return DebugSession(dump_dir, run_dumped=run_dumped)


__all__ = ["decompile", "decompile_code", "Decompiled", "recompile", "DecompilationError", "prepare_debug"]
__version__ = "0.1.0"
