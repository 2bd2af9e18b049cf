"""Decompiled source in torch's own logs: with ``TORCH_LOGS="+bytecode"`` (or
``torch._logging.set_logs(bytecode=True)``), each code object Dynamo makes is logged
as readable Python next to Dynamo's bytecode (``unveil.install()``; ``uninstall()``).

It hooks Dynamo's bytecode hook, and logs on torch's ``bytecode`` artifact logger,
only when that logger is on: with logging off it costs one check per compile.
"""
import logging
import threading

from .adapter.bytecode_hook import bytecode_logger, register_bytecode_hook
from .dump import readable
from ..api import decompile_code
from ..errors import DecompilationError

_lock = threading.Lock()
_handle = None


def install():
    """Log the decompiled source of every transformed code object from now on; calling
    it again changes nothing."""
    global _handle
    with _lock:
        if _handle is None:
            _handle = register_bytecode_hook(_log_source)


def uninstall():
    """Stop logging; nothing of unveil's stays hooked into torch."""
    global _handle
    with _lock:
        if _handle is not None:
            _handle.remove()
            _handle = None


def installed():
    return _handle is not None


def _log_source(code, transformed):
    log = bytecode_logger()
    if not log.isEnabledFor(logging.DEBUG):
        return None
    try:
        source = readable.noted(readable.tidy(decompile_code(transformed), transformed))
    except DecompilationError as exc:
        log.debug("unveil could not decompile the transformed code of %s (%s:%d): %s",
                  code.co_name, code.co_filename, code.co_firstlineno, exc)
        return None
    log.debug("transformed code of %s (%s:%d), decompiled by unveil:\n%s", code.co_name, code.co_filename,
              code.co_firstlineno, source)
    return None
