"""A custom dispatcher (depyf's ``TorchCompileWrapperWithCustomDispatcher``, as vLLM used
it): a module compiles its ``forward`` once per input signature it chooses, then calls
the code object Dynamo made for that signature directly, with no guard evaluated.

The caller vouches for what the guards would have checked: same signature, same
code.  A change the signature does not cover (a global the code read, a module's
attribute) is not noticed; that is the point, and the risk.
"""
import inspect
import threading

import torch

from . import adapter, readable
from ..api import decompile_code


class CustomDispatcher(torch.nn.Module):
    """Subclass it and define ``forward``; calling the module compiles ``forward`` the
    first time each :meth:`signature` is seen (with ``torch.compile(**options)``,
    ``fullgraph=True`` and ``dynamic=False`` unless given) and afterwards runs the code
    Dynamo made for that signature directly.  ``codes`` maps each signature to its code
    object; :meth:`source` is the decompiled text of one."""

    def __init__(self, **options):
        super().__init__()
        options.setdefault("fullgraph", True)
        options.setdefault("dynamic", False)
        self._options = options
        self._compiled = None
        self.codes = {}
        self._recorded = []
        self._lock = threading.RLock()

    def signature(self, *args, **kwargs):
        """The key a compiled code is kept under: by default each tensor's shape, dtype,
        device and requires_grad, and any other argument as it is (it must be hashable).
        Override it to choose, e.g. a batch size bucket."""
        def key(value):
            if isinstance(value, torch.Tensor):
                return ("tensor", tuple(value.shape), value.dtype, value.device, value.requires_grad)
            return value
        return tuple(key(a) for a in args) + tuple((k, key(v)) for k, v in sorted(kwargs.items()))

    def __call__(self, *args, **kwargs):
        key = self.signature(*args, **kwargs)
        code = self.codes.get(key)
        if code is None:
            return self._compile(key, args, kwargs)
        return self._run(code, args, kwargs)

    def source(self, key):
        """The decompiled source of the code Dynamo made for signature ``key`` (one of
        :attr:`codes`' keys, as :meth:`signature` makes them)."""
        if key not in self.codes:
            raise KeyError("no code for signature %r; the signatures compiled so far: %s"
                           % (key, ", ".join(map(repr, self.codes)) or "none"))
        code = self.codes[key]
        return readable.tidy(decompile_code(code), code).source

    # -- inside ---------------------------------------------------------------------
    def _forward_code(self):
        return type(self).forward.__code__

    def _compile(self, key, args, kwargs):
        """One call through torch.compile: the code Dynamo made for it (or, if an entry it
        had already accepts these inputs, that entry's code) is kept under ``key``."""
        original = self._forward_code()

        def record(code, transformed):
            if code is original:
                self._recorded.append(transformed)
            return None
        with self._lock:
            if self._compiled is None:
                self._compiled = torch.compile(self.forward, **self._options)
            del self._recorded[:]
            handle = adapter.register_bytecode_hook(record)
            try:
                out = self._compiled(*args, **kwargs)
            finally:
                handle.remove()
            if self._recorded:
                self.codes[key] = self._recorded[-1]
            else:
                self.codes[key] = self._accepting_entry(original, args, kwargs)
        return out

    def _accepting_entry(self, original, args, kwargs):
        bound = inspect.signature(type(self).forward).bind(self, *args, **kwargs)
        bound.apply_defaults()
        for entry in adapter.cache_entries(original):
            if entry.check(dict(bound.arguments)):
                return entry.transformed
        raise RuntimeError("torch.compile ran %s without compiling it and no cache entry accepts the call"
                           % type(self).__name__)

    def _run(self, code, args, kwargs):
        """``forward`` run with Dynamo's code for its signature: the method's code is swapped
        for the call (one call at a time)."""
        function = type(self).forward
        with self._lock:
            original, function.__code__ = function.__code__, code
            try:
                return self.forward(*args, **kwargs)
            finally:
                function.__code__ = original
