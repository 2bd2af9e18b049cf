"""Keeping Dynamo off code that is not the program's: unveil's callbacks
(``torch._dynamo.disable``), the files of unveil's hooks and of debuggers (Dynamo's skip
list: ``torch._dynamo.trace_rules.add``, ``SKIP_DIRS`` and ``_recompile_re``), and a
thread a debugger holds stopped."""
import sys
import types

import torch
import torch._dynamo  # noqa: F401  (registers the submodules used below)


def without_dynamo(callback):
    """``callback`` run with Dynamo's frame evaluation off, and all it calls.  A hook may run
    while the user's program runs (torch.fx's ``GraphModule.recompile`` under
    ``symbolic_trace`` between graphs, a structured-trace record of a backward), where Dynamo
    would compile unveil's frames, break on them and count them: 8 frames more than plainly
    in PyTorch's ``test_multi_dot_import``, unveil's ``_trace`` in a GAN's backward.  (The
    hooks' own files are skipped while they are attached: hub, ``SkipTracing``.)"""
    return torch._dynamo.disable(callback, recursive=True)


class SkipTracing:
    """Dynamo skips the code of ``modules`` while attached (as it skips the standard
    library's): a debugger stopped in compiled code runs its own functions (evaluating an
    expression, checking breakpoints) in a frame where Dynamo's callback is on, and Dynamo
    would trace and compile them (debugpy's, then, missed later breakpoints)."""

    def __init__(self, modules):
        self.modules = modules
        self._added = []

    def attach(self):
        from torch._dynamo import trace_rules
        before = len(trace_rules.SKIP_DIRS)
        for name in self.modules:
            try:
                trace_rules.add(name)
            except (ImportError, ValueError):      # not installed: nothing to skip
                continue
        self._added = trace_rules.SKIP_DIRS[before:]

    def detach(self):
        from torch._dynamo import trace_rules
        for directory in self._added:
            trace_rules.SKIP_DIRS.remove(directory)
        self._added = []
        trace_rules._recompile_re()


class DebuggerPausesWithoutDynamo:
    """While a debugger is stopped (pdb's ``Pdb.interaction``; pydevd's ``PyDB.do_wait_suspend``,
    which debugpy and PyCharm stop in), Dynamo's frame callback is off in that thread, as
    in a ``torch._dynamo.disable``-d function: showing variables and evaluating expressions
    run the standard library's functions there (pydevd calls ``inspect.isroutine`` and the
    like), which Dynamo compiled, moving every later compile id and the dump's file names
    with them.  Only debuggers imported by the time it is attached are patched."""

    PAUSES = (("pdb", "Pdb", "interaction"), ("pydevd", "PyDB", "do_wait_suspend"))

    def __init__(self):
        self._saved = []

    def attach(self):
        for module, owner, name in self.PAUSES:
            cls = getattr(sys.modules.get(module), owner, None)
            original = vars(cls).get(name) if isinstance(cls, type) else None
            if isinstance(original, types.FunctionType):
                setattr(cls, name, torch._dynamo.disable(original))
                self._saved.append((cls, name, original))

    def detach(self):
        for cls, name, original in reversed(self._saved):
            setattr(cls, name, original)
        self._saved = []
