"""A custom dispatcher (depyf's ``TorchCompileWrapperWithCustomDispatcher``, as vLLM used
it): a module compiles its ``forward`` once per input signature it chooses, then calls
the code object Dynamo made for that signature directly, with no guard evaluated.

The caller vouches for what the guards would have checked: same signature, same
code.  A change the signature does not cover (a global the code read, a module's
attribute) is not noticed; that is the point, and the risk.  ``check_guards=True``
runs the guards of the entry the code came from on each call anyway (as Python,
:mod:`.guards.why`) and raises :class:`GuardFailed`, naming the first guard that
fails, instead of running code made for other values.
"""
import inspect
import threading

import torch

from . import adapter
from .dump import readable
from .guards.why import check_guard_source, entry_guard_source
from ..api import decompile_code


class GuardFailed(RuntimeError):
    """With ``check_guards=True``: the code kept for a call's signature was made for other
    values (a guard of its cache entry fails on the call)."""


class CustomDispatcher(torch.nn.Module):
    """Subclass it and define ``forward``; calling the module compiles ``forward`` the
    first time each :meth:`signature` is seen (with ``torch.compile(**options)``,
    ``fullgraph=True`` and ``dynamic=False`` unless given) and afterwards runs the code
    Dynamo made for that signature directly.  ``codes`` maps each signature to its code
    object; :meth:`source` is the decompiled text of one.  With ``check_guards=True``
    each call also runs that code's guards and raises :class:`GuardFailed` when one
    fails (what the signature did not cover changed: a global, an attribute)."""

    def __init__(self, check_guards=False, **options):
        super().__init__()
        options.setdefault("fullgraph", True)
        options.setdefault("dynamic", False)
        self._options = options
        self._check_guards = check_guards
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
        if self._check_guards:
            self._check(key, code, args, kwargs)
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

    def _frame_locals(self, args, kwargs):
        bound = inspect.signature(type(self).forward).bind(self, *args, **kwargs)
        bound.apply_defaults()
        return dict(bound.arguments)

    def _check(self, key, code, args, kwargs):
        """Raise :class:`GuardFailed` unless every guard of the entry ``code`` came from
        holds on this call."""
        entry = next((e for e in adapter.cache_entries(self._forward_code()) if e.transformed is code), None)
        if entry is None:
            raise GuardFailed("%s: no cache entry holds the code of signature %r any more (was Dynamo reset?): "
                              "its guards cannot be checked" % (type(self).__name__, key))
        name = "__guard"
        verdict = check_guard_source(entry.compile_id, entry_guard_source(entry, name), name,
                                     self._frame_locals(args, kwargs), type(self).forward.__globals__)
        if not verdict.passes:
            raise GuardFailed("%s: the code of signature %r was compiled for other values; its guard fails:\n%s"
                              % (type(self).__name__, key, "\n".join(verdict.lines())))

    def _accepting_entry(self, original, args, kwargs):
        f_locals = self._frame_locals(args, kwargs)
        for entry in adapter.cache_entries(original):
            if entry.check(f_locals):
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
