"""Every place unveil touches PyTorch, most of them private or semi-public API.

When a torch release moves one of these, one function here breaks and
``tests/dynamo/test_adapter.py`` names it.  Nothing else in unveil imports
torch's internals.
"""
import functools
import logging
import sys

import torch
import torch._dynamo  # noqa: F401  (registers the submodules used below)

#: the hook points checked by ``tests/dynamo/test_adapter.py``
HOOK_POINTS = (
    "torch._dynamo.convert_frame.register_bytecode_hook",
    "torch._guards.CompileContext.current_compile_id",
    "logging: torch.__trace (structured trace)",
    "torch._logging._internal.trace_structured: 'if trace_log.handlers' before any payload",
    "logging: torch._dynamo.output_graph.__graph_code (graph_code artifact)",
    "torch._C._dynamo.eval_frame._debug_get_cache_entry_list",
    "torch._dynamo.guards.GuardManagerWrapper tree",
    "torch._dynamo.resume_execution.ContinueExecutionCache.cache",
    "torch.overrides._get_current_function_mode_stack",
)


def torch_version():
    return torch.__version__


def register_bytecode_hook(hook):
    """Call ``hook(original_code, transformed_code)`` after every Dynamo compile.

    The hook may return a code object to run instead of Dynamo's.  Returns a
    handle with ``remove()``.
    """
    return torch._dynamo.convert_frame.register_bytecode_hook(hook)


def current_compile_id():
    """``"frame/compile"`` of the compile running in this thread, or ``None``."""
    cid = torch._guards.CompileContext.current_compile_id()
    if cid is None or cid.frame_id is None:
        return None
    return "%s/%s" % (cid.frame_id, cid.frame_compile_id)


def record_compile_id(metadata):
    """The compile id a structured-trace record belongs to, or ``None``."""
    if metadata.get("frame_id") is None:
        return None
    return "%s/%s" % (metadata["frame_id"], metadata.get("frame_compile_id", 0))


class _LogTap(logging.Handler):
    """A handler on one torch logger, enabled at DEBUG while attached."""

    logger_name = None

    def __init__(self, callback):
        super().__init__(logging.DEBUG)
        self.callback = callback
        self.logger = logging.getLogger(self.logger_name)
        self._saved = None

    def attach(self):
        self._saved = (self.logger.level, self.logger.propagate)
        self.logger.addHandler(self)
        if not self.logger.isEnabledFor(logging.DEBUG):
            # enabled only for us: keep the records from reaching the user's handlers
            self.logger.setLevel(logging.DEBUG)
            self.logger.propagate = False

    def detach(self):
        self.logger.removeHandler(self)
        level, self.logger.propagate = self._saved
        self.logger.setLevel(level)  # not ``.level =``: that would keep isEnabledFor's cached answer

    def handleError(self, record):  # noqa: N802  (logging's name) - never print our errors into torch's logs
        pass


class StructuredTrace(_LogTap):
    """torch's structured trace (what TORCH_TRACE writes): ``callback(event, metadata, payload)``.

    torch builds a record, payload included, for every event while the
    ``torch.__trace`` logger has a handler; most are costly (the guard tree and
    each graph as text) and of no use here.  With ``events`` (event names, and
    artifact names for ``"artifact"`` events), the logger's handler list answers
    "empty" to ``trace_structured``'s check for every other event, unless a
    handler of someone else's (TORCH_TRACE) is attached too.
    """

    logger_name = "torch.__trace"

    def __init__(self, callback, events=None):
        super().__init__(callback)
        self.events = frozenset(events) if events is not None else None

    def attach(self):
        super().attach()
        if self.events is not None:
            self.logger.handlers = _OnlyFor(self, self.logger.handlers)

    def detach(self):
        super().detach()
        if isinstance(self.logger.handlers, _OnlyFor):
            self.logger.handlers = list(self.logger.handlers)

    def wanted(self, frame_locals):
        """Whether the event ``trace_structured`` (whose locals these are) is about to build is kept."""
        name = frame_locals.get("name")
        if name == "artifact":
            try:
                name = frame_locals["metadata_fn"]().get("name")
            except Exception:  # a metadata function we cannot call twice: build the record
                return True
        return name in self.events

    def emit(self, record):
        metadata = getattr(record, "metadata", None)
        if isinstance(metadata, dict) and metadata:
            event = next(iter(metadata))
            self.callback(event, metadata, getattr(record, "payload", None))


def _trace_structured_code():
    from torch._logging import _internal
    return _internal.trace_structured.__code__


class _OnlyFor(list):
    """``torch.__trace``'s handler list while a filtering :class:`StructuredTrace` is on it."""

    def __init__(self, tap, handlers):
        super().__init__(handlers)
        self.tap = tap
        self.check = _trace_structured_code()

    def __bool__(self):
        if any(h is not self.tap for h in self):
            return True
        if not len(self):
            return False
        frame = sys._getframe(1)
        return frame.f_code is self.check and self.tap.wanted(frame.f_locals)


class GraphCodeLog(_LogTap):
    """The ``graph_code`` logging artifact: ``callback(name, graph_module)`` per Dynamo graph."""

    logger_name = "torch._dynamo.output_graph.__graph_code"

    def emit(self, record):
        for arg in record.args or ():
            # torch's LazyString wraps a closure over the graph module; Dynamo
            # stores the graph's global name in its meta["backend_id"]
            for cell in getattr(getattr(arg, "func", None), "__closure__", None) or ():
                value = cell.cell_contents
                if isinstance(value, torch.fx.GraphModule):
                    self.callback(value.meta.get("backend_id", "graph"), value)
                    return


class CacheEntry:
    """One entry of Dynamo's cache for a code object, newest first."""

    def __init__(self, raw):
        self.transformed = raw.code
        cid = raw.compile_id
        self.compile_id = "%s/%s" % (cid.frame_id, cid.frame_compile_id) if cid is not None else None
        self.guard_manager = raw.guard_manager

    def check(self, f_locals):
        """Dynamo's own guard on ``f_locals`` (a dict of the frame's locals)."""
        return bool(self.guard_manager.check(f_locals))


    def guard_tree(self):
        """The guard tree as :class:`GuardNode` s, relational guards listed once."""
        # relational guards by id, kept alive: pybind11 gives the same wrapper for one
        # guard while a wrapper lives, and a freed wrapper's id may go to another guard
        seen = {}
        guards = torch._C._dynamo.guards
        relational, dict_manager = guards.RelationalGuard, guards.DictGuardManager

        def leaves(mgr):
            out = []
            for guard in mgr.get_leaf_guards():
                if isinstance(guard, relational):
                    if id(guard) in seen:
                        continue
                    seen[id(guard)] = guard
                out.append((type(guard).__name__, list(guard.verbose_code_parts())))
            return out

        def visit(mgr):
            node = GuardNode(mgr.get_source(), mgr.get_type_of_guarded_value(), leaves(mgr))
            if isinstance(mgr, dict_manager):
                for _, (key_mgr, val_mgr) in sorted(mgr.get_key_value_managers().items()):
                    node.children += [visit(sub) for sub in (key_mgr, val_mgr) if sub is not None]
            node.children += [visit(child) for child in mgr.get_child_managers()]
            return node

        root = visit(self.guard_manager.root)
        for guard in self.guard_manager.root.get_epilogue_lambda_guards():
            root.epilogue.append((type(guard).__name__, list(guard.verbose_code_parts())))
        return root


class GuardNode:
    """A value Dynamo guards: its source expression, type, and leaf guards."""

    def __init__(self, source, value_type, leaves):
        self.source = source
        self.value_type = value_type
        self.leaves = leaves          # [(guard kind, [verbose code parts])]
        self.children = []
        self.epilogue = []            # root only: shape guards checked last


def cache_entries(code):
    """Dynamo's cache entries for ``code``, in the order Dynamo tries them."""
    from torch._C._dynamo.eval_frame import _debug_get_cache_entry_list
    return [CacheEntry(raw) for raw in _debug_get_cache_entry_list(code)]


def resume_codes(code):
    """The resume functions Dynamo generated for ``code`` so far."""
    from torch._dynamo.resume_execution import ContinueExecutionCache
    table = ContinueExecutionCache.cache.get(code) or {}
    return list(table.values())


def function_mode_stack_types():
    """Qualified names of the torch function modes active now, bottom first."""
    stack = torch.overrides._get_current_function_mode_stack()
    return ["%s.%s" % (type(m).__module__, type(m).__qualname__) for m in stack]


@functools.lru_cache(maxsize=None)
def sympy_interp_names():
    """Names that Dynamo's shape guards may call (its SYMPY_INTERP table)."""
    from torch.fx.experimental.symbolic_shapes import SYMPY_INTERP
    return set(SYMPY_INTERP)


def guard_globals(entry):
    """The globals dict the entry's guard reads as ``G`` (the frame's globals)."""
    scope = getattr(entry.guard_manager, "global_scope", None) or {}
    return scope.get("G")
