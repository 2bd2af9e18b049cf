"""unveil: see what torch.compile did, as readable Python.

The core is a bytecode decompiler for CPython 3.8-3.13 that depends on the
standard library alone: :func:`decompile` turns a function, class, module,
code object, ``.py`` or ``.pyc`` back into source, and :func:`recompile`
compiles that source into a code object with the original frame layout.  :func:`prepare_debug` (which
needs torch, imported only when called) dumps what ``torch.compile`` did;
:func:`debug` also runs it from the dumped files, to step through it.
"""
from . import pyc  # noqa: F401  (``unveil.pyc.load_pyc``, as the README shows it)
from .api import Decompiled, decompile_code
from .errors import DecompilationError, InternalError
from .recompile import recompile
from .shown import decompile



def prepare_debug(dump_dir, run_dumped=False):
    """Inside ``with prepare_debug(dump_dir):`` everything torch.compile does is written
    to ``dump_dir`` as Python files, indexed in ``index.json``.

    ``run_dumped=True`` also runs what it dumped from the files, in place of torch's
    code: transformed code and resume functions recompiled from their files, each
    graph's ``forward``, AOT Autograd's graphs and Inductor's ``call`` compiled from
    theirs (a check that the dump is exact; :func:`debug` builds on it).
    """
    from .dynamo import DebugSession
    return DebugSession(dump_dir, run_dumped=run_dumped)


def debug(dump_dir, pause=False):
    """Inside ``with debug(dump_dir) as session:`` the code torch.compile makes is written
    to ``dump_dir`` and run from there, so that a debugger stops at breakpoints in it.

    Transformed code, resume functions, each graph's ``forward``, AOT Autograd's
    forward and backward graphs and Inductor's ``call`` run from their files.  File
    names and lines stay the same from run to run of the same program.  The block
    starts and ends with ``torch._dynamo.reset()``: everything in it is compiled in
    it, and nothing compiled from the dump outlives it.  On entering, it prints
    where the files are; ``pause=True`` then waits for Enter.
    ``session.break_at(filename, line)`` stops pdb wherever dumped code runs that
    line of your own code; ``session.locate(filename, line)`` lists those places.
    """
    from .dynamo.debugging.stepping import DebugRun
    return DebugRun(dump_dir, pause=pause)


def why_recompile(fn, *args, **kwargs):
    """What Dynamo does when ``fn`` (a ``torch.compile`` result) is called with these
    arguments: each cache entry's guards, as Python, run on them in Dynamo's order; the
    first guard that fails in each, with the values it reads and the user's line it came
    from; then which entry runs, or that Dynamo compiles anew (``.runs`` is None).
    ``print()`` the result to read it."""
    from .dynamo.guards.why import why_recompile as why
    return why(fn, *args, **kwargs)


def install():
    """From now on, with torch's bytecode logging on (``TORCH_LOGS="+bytecode"``), each
    code object Dynamo makes is also logged as decompiled Python (depyf's ``install``)."""
    from .dynamo.loghook import install as hook
    hook()


def uninstall():
    """Undo :func:`install`."""
    from .dynamo.loghook import uninstall as unhook
    unhook()


def __getattr__(name):
    if name == "CustomDispatcher":       # a torch.nn.Module subclass: torch is imported for it
        from .dynamo.dispatcher import CustomDispatcher
        return CustomDispatcher
    raise AttributeError("module 'unveil' has no attribute %r" % name)


__all__ = ["decompile", "decompile_code", "Decompiled", "recompile", "DecompilationError", "InternalError",
           "prepare_debug", "debug", "why_recompile", "install", "uninstall", "CustomDispatcher"]
__version__ = "0.1.0"
