"""A custom dispatcher (depyf's ``TorchCompileWrapperWithCustomDispatcher``, as vLLM used
it): a module compiles its ``forward`` once per input signature it chooses, then calls
the code object Dynamo made for that signature directly, with no guard evaluated
(but the global state's, below).

The caller vouches for what the guards would have checked: same signature, same
code.  A change the signature does not cover (a global the code read, a module's
attribute) is not noticed; that is the point, and the risk.  Only Dynamo's global
state (grad mode, autocast, the default dtype: its GLOBAL_STATE guard, a microsecond
to check) is checked on every call, as Dynamo would: a signature called under another
state gets code of its own.  ``check_guards=True``
runs the guards of the entry the code came from on each call anyway (as Python,
:mod:`.guards.why`) and raises :class:`GuardFailed`, naming the first guard that
fails, instead of running code made for other values.
"""
import inspect
import threading

import torch

from .adapter.bytecode_hook import register_bytecode_hook
from .adapter.cache import cache_entries
from .adapter.compile_outcomes import room_for_one_more_compile
from .adapter.guard_checks import global_state_guard
from .dump import readable
from .guards.why import check_guard_source, entry_guard_source
from ..api import decompile_code


class GuardFailed(RuntimeError):
    """With ``check_guards=True``: the code kept for a call's signature was made for other
    values (a guard of its cache entry fails on the call)."""


class UnknownSignature(KeyError):
    """:meth:`CustomDispatcher.source` of a signature never compiled (its message printed
    as it is, where a KeyError's is quoted)."""

    def __str__(self):
        return str(self.args[0]) if self.args else ""


class CustomDispatcher(torch.nn.Module):
    """Subclass it and define ``forward``; calling the module compiles ``forward`` the
    first time each :meth:`signature` is seen (with ``torch.compile(**options)``,
    ``fullgraph=True`` and ``dynamic=False`` unless given) and afterwards runs the code
    Dynamo made for that signature directly.  ``codes`` maps each signature to the code
    object compiled first for it (a call under another global state, grad mode off say,
    compiles code of its own); :meth:`source` is the decompiled text of one.  With ``check_guards=True``
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
        self._variants = {}      # signature -> [(the global state it was compiled under, code)]
        self._recorded = []
        self._lock = threading.RLock()

    def signature(self, *args, **kwargs):
        """The key a compiled code is kept under: by default each tensor's shape, dtype,
        device and requires_grad, a float NaN as ``("float", "nan")`` (a NaN equals no
        other), and any other argument as it is (it must be hashable).  Override it to
        choose, e.g. a batch size bucket."""
        def key(value):
            if isinstance(value, torch.Tensor):
                return ("tensor", tuple(value.shape), value.dtype, value.device, value.requires_grad)
            if isinstance(value, float) and value != value:
                return ("float", "nan")
            return value
        return tuple(key(a) for a in args) + tuple((k, key(v)) for k, v in sorted(kwargs.items()))

    def __call__(self, *args, **kwargs):
        key = self.signature(*args, **kwargs)
        code = self._code_for(key)
        if code is None:
            _refuse_unfindable(self, key, self.signature(*args, **kwargs))
            return self._compile(key, args, kwargs)
        if self._check_guards:
            self._check(key, code, args, kwargs)
        return self._run(code, args, kwargs)

    def source(self, key):
        """The decompiled source of the code Dynamo made for signature ``key`` (one of
        :attr:`codes`' keys, as :meth:`signature` makes them): the code a call would run
        now.  Where the signature was compiled only under another global state (grad
        mode, autocast, ...), the first such code, after a comment saying what differs."""
        if key not in self.codes:
            raise UnknownSignature("no code for signature %r; the signatures compiled so far: %s"
                                   % (key, ", ".join(map(repr, self.codes)) or "none"))
        code = self._code_for(key)
        note = ""
        if code is None:
            state, code = self._variants[key][0]
            note = "# compiled under another global state than now's: %s differs\n" % state.reason().strip()
        return note + readable.noted(readable.tidy(decompile_code(code), code))

    # -- inside ---------------------------------------------------------------------
    def _forward_code(self):
        return type(self).forward.__code__

    def _code_for(self, key):
        """The code compiled for signature ``key`` under the global state now, or ``None``."""
        try:
            variants = self._variants.get(key, ())
        except TypeError as exc:
            raise TypeError("%s.signature returned %r, which is not hashable (%s): return a tuple instead"
                            % (type(self).__name__, key, exc)) from None
        for state, code in variants:
            if state.check():
                return code
        return None

    def _compile(self, key, args, kwargs):
        """One call through torch.compile: the code Dynamo made for it (or, if an entry it
        had already accepts these inputs, that entry's code) is kept under ``key``.  Each
        signature's compile is one the dispatcher means to make: Dynamo's recompile limit
        is raised for it, which a server's ninth batch size would otherwise hit."""
        original = self._forward_code()

        def record(code, transformed):
            if code is original:
                self._recorded.append(transformed)
            return None
        with self._lock:
            if self._compiled is None:
                self._compiled = torch.compile(self.forward, **self._options)
            del self._recorded[:]
            state = global_state_guard()
            handle = register_bytecode_hook(record)
            try:
                with room_for_one_more_compile(original):
                    out = self._compiled(*args, **kwargs)
            finally:
                handle.remove()
            code = self._recorded[-1] if self._recorded else self._accepting_entry(original, args, kwargs)
            self._variants.setdefault(key, []).append((state, code))
            self.codes.setdefault(key, code)
        return out

    def _frame_locals(self, args, kwargs):
        bound = inspect.signature(type(self).forward).bind(self, *args, **kwargs)
        bound.apply_defaults()
        return dict(bound.arguments)

    def _check(self, key, code, args, kwargs):
        """Raise :class:`GuardFailed` unless every guard of the entry ``code`` came from
        holds on this call."""
        entry = next((e for e in cache_entries(self._forward_code()) if e.transformed is code), None)
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
        for entry in cache_entries(original):
            if entry.check(f_locals):
                return entry.transformed
        raise RuntimeError("torch.compile ran %s without compiling it and no cache entry accepts the call"
                           % type(self).__name__)

    def _run(self, code, args, kwargs):
        """``forward`` run with Dynamo's code for its signature: the method's code is swapped
        for the call (one call at a time).  Where ``fullgraph=False`` let the code break,
        it is called through torch.compile's wrapper: Dynamo runs its own code as it is,
        and the resume functions it calls get their compiled code (and their guards)."""
        function = type(self).forward
        call = self.forward if self._options["fullgraph"] else self._compiled
        with self._lock:
            original, function.__code__ = function.__code__, code
            try:
                return call(*args, **kwargs)
            finally:
                function.__code__ = original


def _refuse_unfindable(dispatcher, key, again):
    """Refuse, before compiling for it, a signature no later call could find again: ``again``
    is the signature of the same call asked for a second time."""
    if _holds_tensor(key):
        raise TypeError("%s.signature returned a tensor, which equals only itself: every call would compile "
                        "anew; return its shape or its values (tuple(t.shape), t.item())" % type(dispatcher).__name__)
    if again != key:
        raise TypeError("%s.signature returned %r, then %r for the same call: the two differ (a fresh NaN equals "
                        "nothing), so every call would compile anew" % (type(dispatcher).__name__, key, again))


def _holds_tensor(key):
    """Whether a signature holds a tensor (in tuples and frozensets too)."""
    todo = [key]
    while todo:
        value = todo.pop()
        if isinstance(value, torch.Tensor):
            return True
        if isinstance(value, (tuple, frozenset)):
            todo.extend(value)
    return False
