"""Dynamo's bytecode hook, called with the original and the transformed code after every
compile (``torch._dynamo.convert_frame._bytecode_hooks``), and the ``bytecode`` log
artifact where Dynamo logs both."""
import torch
import torch._dynamo  # noqa: F401  (registers the submodules used below)


def register_bytecode_hook(hook):
    """Call ``hook(original_code, transformed_code)`` after every Dynamo compile.

    The hook may return a code object to run instead of Dynamo's.  Returns a
    handle with ``remove()``.  It is put among Dynamo's bytecode hooks (in torch 2.13 to
    2.15 an ordered dict) under a key of its own: torch's ``register_bytecode_hook``
    would take an id from ``RemovableHandle``'s class-wide counter, which the program
    sees move on (in a graph break's text: ``setattr(RemovableHandle, 'next_id', 6)``,
    5 without unveil).
    """
    return _BytecodeHookHandle(torch._dynamo.convert_frame._bytecode_hooks, hook)


class _BytecodeHookHandle:
    def __init__(self, hooks, hook):
        self._hooks, self._key = hooks, object()
        hooks[self._key] = hook

    def remove(self):
        self._hooks.pop(self._key, None)


def bytecode_logger():
    """torch's ``bytecode`` artifact logger (``TORCH_LOGS="+bytecode"``), where Dynamo
    logs the original and the modified bytecode."""
    return torch._logging.getArtifactLogger("torch._dynamo.convert_frame", "bytecode")
