"""Every place unveil touches PyTorch, most of them private or semi-public API.

When a torch release moves one of these, one function here breaks and
``tests_torch/test_adapter.py`` names it.  Nothing else in unveil imports
torch's internals (``tests/test_private_torch.py`` checks it).

What belongs here:

* every use of a private torch module, function or attribute (``torch._C``,
  ``torch._dynamo``, ``torch.utils._device``, ``torch.overrides._*``, the
  ``_torchdynamo_orig_callable`` torch.compile puts on its wrapper, ...) and of
  the keys Dynamo sets in its graphs' ``meta``: the hooks, the names of torch's
  internal loggers, and what dumped guards check (``guard_runtime`` calls the
  functions under "what dumped guards check");
* what unveil knows of Dynamo's guard text that names Dynamo's privates: its
  helpers' names (``___check_type_id``, ``___dict_version``, ...) and the
  descriptions that are not Python (the global state, saved-tensors-hooks and
  function-mode-stack guards), in "Dynamo's guard text".  ``guard_source``
  keeps the rest of its translation (the shapes of Python guard expressions).

What does not: the names Dynamo gives to the globals and locals of the code it
makes (``__compiled_fn_N``, ``__resume_at_N``, ``__import_m``, ``___stackN``,
``torch_dynamo_resume_in_``).  They are names in public code objects and in the
dumped files, read as text also by modules that never import torch (the
report, ``dumpdiff``), so each reader keeps the pattern it needs.  Text that
unveil writes for another process (a guards file's imports) names only public
torch modules; what it calls comes from ``guard_runtime``, and so from here.
"""
import collections
import functools
import inspect
import logging
import re
import sys
import types

import torch
import torch._dynamo  # noqa: F401  (registers the submodules used below)

#: the hook points checked by ``tests/dynamo/test_adapter.py``
HOOK_POINTS = (
    "torch._dynamo.convert_frame._bytecode_hooks (the bytecode hooks, an ordered dict)",
    "torch._guards.CompileContext.current_compile_id",
    "logging: torch.__trace (structured trace)",
    "torch._logging._internal.trace_structured: 'if trace_log.handlers' before any payload",
    "logging: torch._dynamo.output_graph.__graph_code (graph_code artifact)",
    "torch._C._dynamo.eval_frame._debug_get_cache_entry_list",
    "torch._dynamo.guards.GuardManagerWrapper tree",
    "torch._dynamo.resume_execution.ContinueExecutionCache.generated_code_metadata",
    "torch.overrides._get_current_function_mode_stack",
    "torch._dynamo.convert_frame._compile (its code and globals locals, for compiling_frame)",
    "torch._dynamo.convert_frame.input_codes.seen (weak references to the codes Dynamo saw)",
    "torch._dynamo.output_graph.OutputGraph.install_resume_function_global",
    "torch._dynamo.code_context",
    "torch.fx.GraphModule.recompile and __deepcopy__",
    "torch.fx._lazy_graph_module._LazyGraphModule.force_recompile",
    "torch.fx.graph_module._print_readable",
    "logging: torch._functorch._aot_autograd.graph_capture.__aot_graphs and graph_compile.__aot_graphs",
    "torch._inductor.codecache.PyCodeCache.load_by_key_path and .modules",
    "torch._dynamo.reset, and its first step torch._dynamo.reset_code_caches",
    "torch._dynamo.trace_rules.add, SKIP_DIRS and _recompile_re",
    "torch.compile's wrapper: _torchdynamo_orig_callable",
    "GraphModule.meta['dynamo_compile_id'] and Node.meta['example_value'] (Dynamo's graphs)",
    "torch._C._dispatch_keys and the thread-local include/exclude sets",
    "torch._dynamo.eval_frame.set_code_exec_strategy (what skip_code sets on Dynamo's code)",
    "torch._dynamo.trace_rules.lookup_inner and check_file (which files Dynamo skips), check_verbose",
    "torch._C._dynamo.guards.GlobalStateGuard and dict_version",
    "torch._functorch._aot_autograd.utils.top_saved_tensors_hooks and saved_tensors_hooks_are_inlineable",
    "torch.utils._device (utils_device.CURRENT_DEVICE)",
    "Dynamo's guard text: ___check_type_id, ___check_obj_id, ___dict_contains, ___dict_version, __math_isnan, "
    "___tuple_iterator_len, ___tuple_iterator_getitem, ___odict_getitem, ___namedtuple_fields, ___dataclass_fields, "
    "___check_global_state, ___check_torch_function_mode_stack, top_saved_tensors_hooks ids",
)


def torch_version():
    return torch.__version__


#: the torch releases unveil supports, as (major, minor): measured on 2.13.0, 2.14.1 and 2.15.0
#: (README's table).  Older ones lack hook points unveil needs (2.10.0: OutputGraph has no
#: install_resume_function_global) and are refused up front; a newer one is tried, with a note.
SUPPORTED_TORCH = ((2, 13), (2, 15))


def _release(version):
    return tuple(int(part) for part in re.findall(r"\d+", version.split("+")[0])[:2])


def resumes_with_a_live_generator(version=None):
    """Whether Dynamo resumes after a graph break while a generator the frame made is alive:
    torch 2.14 and 2.15 do (a resume function takes the generator); torch 2.13 skips the
    frame, which then runs as it is."""
    return _release(version or torch_version()) >= (2, 14)


def unsupported_torch(version=None):
    """None for a torch release unveil supports; else the one line that says it is not."""
    version = version or torch_version()
    low, high = SUPPORTED_TORCH
    if _release(version) < low:
        return ("torch %s is older than unveil supports (torch %d.%d to %d.%d); the program runs on "
                "without unveil" % ((version,) + low + high))
    return None


def untested_torch(version=None):
    """A note for a release newer than unveil was tested with, else None."""
    version = version or torch_version()
    high = SUPPORTED_TORCH[1]
    if _release(version) > high:
        return "torch %s is newer than unveil was tested with (up to %d.%d): what fails is reported" % (
            (version,) + high)
    return None


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


def current_compile_id():
    """``"frame/compile"`` of the compile running in this thread, or ``None``."""
    cid = torch._guards.CompileContext.current_compile_id()
    if cid is None or cid.frame_id is None:
        return None
    return "%s/%s" % (cid.frame_id, cid.frame_compile_id)


def graph_compile_id(gm):
    """The compile id of a Dynamo graph module (Dynamo keeps its CompileId in the
    module's ``meta``), or ``None``."""
    cid = gm.meta.get("dynamo_compile_id")
    return "%s/%s" % (cid.frame_id, cid.frame_compile_id) if cid is not None else None


def example_value(node):
    """The (fake) value Dynamo recorded for an FX node of its graph, or ``None``."""
    return node.meta.get("example_value")


def record_compile_id(metadata):
    """The compile id a structured-trace record belongs to, or ``None``."""
    if metadata.get("frame_id") is None:
        return None
    return "%s/%s" % (metadata["frame_id"], metadata.get("frame_compile_id", 0))


def without_dynamo(callback):
    """``callback`` run with Dynamo's frame evaluation off, and all it calls.  A hook may run
    while the user's program runs (torch.fx's ``GraphModule.recompile`` under
    ``symbolic_trace`` between graphs, a structured-trace record of a backward), where Dynamo
    would compile unveil's frames, break on them and count them: 8 frames more than plainly
    in PyTorch's ``test_multi_dot_import``, unveil's ``_trace`` in a GAN's backward.  (The
    hooks' own file is skipped while they are attached: hub, ``SkipTracing``.)"""
    return torch._dynamo.disable(callback, recursive=True)


class _LogTap(logging.Handler):
    """A handler on one torch logger, enabled at DEBUG while attached."""

    logger_name = None

    def __init__(self, callback):
        super().__init__(logging.DEBUG)
        self.callback = without_dynamo(callback)      # (a record may come while the user's code runs)
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


def _logged_graph(record):
    """``(title, graph module)`` of a record logged with ``lazy_format_graph_code(title, gm)``.

    torch's LazyString wraps a lambda closing over the graph module and over a
    function that closes over the title; nothing is formatted here."""
    for arg in record.args or ():
        cells = getattr(getattr(arg, "func", None), "__closure__", None) or ()
        values = [cell.cell_contents for cell in cells]
        for value in values:
            if isinstance(value, torch.fx.GraphModule):
                titles = [inner.cell_contents for fn in values if inspect.isfunction(fn)
                          for inner in fn.__closure__ or () if isinstance(inner.cell_contents, str)]
                return (titles[0] if titles else None), value
    return None, None


class GraphCodeLog(_LogTap):
    """The ``graph_code`` logging artifact: ``callback(name, graph_module)`` per Dynamo graph."""

    logger_name = "torch._dynamo.output_graph.__graph_code"

    def emit(self, record):
        _, gm = _logged_graph(record)
        if gm is not None:
            # Dynamo stores the graph's global name in its meta["backend_id"]
            self.callback(gm.meta.get("backend_id", "graph"), gm)


#: (logger, title) of the ``aot_graphs`` records that carry the graphs AOT Autograd compiles
_AOT_GRAPHS = {
    ("torch._functorch._aot_autograd.graph_capture.__aot_graphs", "Forward graph"): "aot_inference",
    ("torch._functorch._aot_autograd.graph_compile.__aot_graphs", "Forward graph"): "aot_forward",
    ("torch._functorch._aot_autograd.graph_compile.__aot_graphs", "Backward graph"): "aot_backward",
}


class _RecordTap(_LogTap):
    """A tap on a logger named at construction: ``callback(logger name, record)``."""

    def __init__(self, logger_name, callback):
        self.logger_name = logger_name
        super().__init__(callback)

    def emit(self, record):
        self.callback(self.logger_name, record)


class AotGraphsLog:
    """The ``aot_graphs`` logging artifact: ``callback(kind, graph_module)`` for each graph
    AOT Autograd hands its compilers (``aot_forward``, ``aot_backward``, ``aot_inference``)."""

    def __init__(self, callback):
        self.callback = callback
        self.taps = [_RecordTap(name, self._record) for name in sorted({name for name, _ in _AOT_GRAPHS})]

    def _record(self, logger_name, record):
        title, gm = _logged_graph(record)
        kind = _AOT_GRAPHS.get((logger_name, title))
        if kind is not None and gm is not None:
            self.callback(kind, gm)

    def attach(self):
        for tap in self.taps:
            tap.attach()

    def detach(self):
        for tap in self.taps:
            tap.detach()


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


def backend_names():
    """The names torch.compile accepts as ``backend=``."""
    import torch._dynamo
    return sorted(torch._dynamo.list_backends(exclude_tags=()))


def cache_entries(code):
    """Dynamo's cache entries for ``code``, in the order Dynamo tries them."""
    from torch._C._dynamo.eval_frame import _debug_get_cache_entry_list
    return [CacheEntry(raw) for raw in _debug_get_cache_entry_list(code)]


def compiled_codes():
    """The code objects Dynamo holds compiled code for since the last reset, in the order
    it first saw them."""
    from torch._dynamo import convert_frame
    codes = (ref() for ref in convert_frame.input_codes.seen)
    return [code for code in codes if code is not None and cache_entries(code)]


def room_for_one_more_compile(code):
    """Dynamo's recompile limits (``recompile_limit`` and ``accumulated_recompile_limit``;
    before torch 2.6 ``cache_size_limit`` and ``accumulated_cache_size_limit``) raised,
    within the ``with``, to let ``code`` have one cache entry more than it has."""
    config = torch._dynamo.config
    needed = len(cache_entries(code)) + 1
    limits = {}
    for names in (("recompile_limit", "cache_size_limit"),
                  ("accumulated_recompile_limit", "accumulated_cache_size_limit")):
        name = next(n for n in names if hasattr(config, n))
        limits[name] = max(getattr(config, name), needed)
    return config.patch(**limits)


def given_up_on(code):
    """``(compile id, reason)`` when Dynamo gave up on ``code``'s frame: its last compile since
    the last reset made no code (a skipped frame).  In torch 2.13 (and since torch 2.0)
    ``convert_frame`` then marks the code SKIP: every later call runs it as it is, its
    cache entries unused and no compile tried.  ``None`` otherwise (or when Dynamo's
    compilation metrics no longer hold its last compile)."""
    from torch._dynamo import convert_frame
    from torch._dynamo.utils import get_compilation_metrics
    if code not in convert_frame.input_codes:      # not seen since the last torch._dynamo.reset()
        return None
    for metrics in reversed(get_compilation_metrics()):
        if (metrics.co_name, metrics.co_filename, metrics.co_firstlineno) != \
                (code.co_name, code.co_filename, code.co_firstlineno):
            continue
        if metrics.has_guarded_code or not metrics.fail_type:    # compiled, or interrupted (Ctrl-C)
            return None
        if error_went_on(metrics.fail_type, metrics.config_suppress_errors):
            return None              # (the frame is tried again on its next call)
        if stopped_at_limit(metrics.fail_reason):
            return None              # (its entries still run)
        reason = (metrics.fail_reason or metrics.fail_type).strip().splitlines()
        return str(metrics.compile_id), reason[0] if reason else metrics.fail_type
    return None


def skipped_by_trace_rules(code):
    """Why Dynamo never compiles a frame of ``code``, by its trace rules (a file of torch's
    own, as ``torch.nn``'s modules in torch 2.13: their frames run as they are), or None."""
    from torch._dynamo import trace_rules
    verdict = trace_rules.check_verbose(code)
    return verdict.reason if verdict.skipped else None


#: the reason Dynamo's metrics give a compile its recompile limit stopped (the graph break's
#: type, torch 2.7+; before, its message)
_LIMIT_REASONS = ("Dynamo recompile limit exceeded", "cache_size_limit reached")


def stopped_at_limit(reason):
    """Whether a compile that made no code (its metrics' ``reason``) was stopped by Dynamo's
    recompile limit in a torch that then keeps the frame's cache entries running
    (``FrameAction.RUN_ONLY``): a call an entry accepts runs that entry, any other runs the
    frame as it is, and no compile is tried again.  Not a skipped frame, whose entries no
    call runs any more."""
    from torch._C._dynamo import eval_frame
    action = getattr(eval_frame, "_FrameAction", None)
    return bool(reason) and reason.strip().startswith(_LIMIT_REASONS) and hasattr(action, "RUN_ONLY")


def error_went_on(fail_type, suppress_errors):
    """Whether the exception a compile failed with (its class's name, as Dynamo's metrics
    record it) went on to the program, and the frame is compiled again on its next call,
    rather than Dynamo suppressing it and running the frame as it is: what
    ``ConvertFrame.__call__`` does with any error but a graph break (``Unsupported``) or a
    ``UserError``, unless ``suppress_errors`` is set; an uncaptured higher-order op's error
    always goes on.  (With fullgraph=True a graph break goes on too, which the metrics do
    not say.)"""
    from torch._dynamo import exc
    kind = getattr(exc, fail_type or "", None)
    if not isinstance(kind, type):
        return not suppress_errors
    always = tuple(getattr(exc, name) for name in ("UncapturedHigherOrderOpError", "ResumePrologueTracingError")
                   if hasattr(exc, name))
    if issubclass(kind, always):
        return True
    return not issubclass(kind, (exc.Unsupported, exc.UserError)) and not suppress_errors


def recompile_limit():
    """How many cache entries Dynamo makes for one code object before it runs the frame as
    it is (``torch._dynamo.config.recompile_limit``; ``cache_size_limit`` before torch 2.6)."""
    config = torch._dynamo.config
    return getattr(config, "recompile_limit", None) or getattr(config, "cache_size_limit", None)


def resumed_code(resume_code):
    """The code object a resume function Dynamo generated continues, or ``None``."""
    from torch._dynamo.resume_execution import ContinueExecutionCache
    meta = ContinueExecutionCache.generated_code_metadata.get(resume_code)
    return meta.code if meta is not None else None


def resume_point(resume_code):
    """``(code, offset)``: the code object (the frame Dynamo compiled) and the offset in it
    at which a resume function Dynamo generated goes on, or ``None``.  Dynamo caches each
    resume function under its frame's code and a key whose first item is that offset."""
    from torch._dynamo.resume_execution import ContinueExecutionCache
    cache = ContinueExecutionCache.cache
    for ident, made in list(cache.values.items()):
        for key, code in made.items():
            if code is resume_code:
                ref = cache.refs.get(ident)
                frame_code = ref() if ref is not None else None
                return (frame_code, key[0]) if frame_code is not None else None
    return None


def function_mode_stack_types():
    """Qualified names of the torch function modes active now, bottom first."""
    stack = torch.overrides._get_current_function_mode_stack()
    return ["%s.%s" % (type(m).__module__, type(m).__qualname__) for m in stack]


@functools.lru_cache(maxsize=None)
def sympy_interp_names():
    """Names that Dynamo's shape guards may call (its SYMPY_INTERP table)."""
    from torch.fx.experimental.symbolic_shapes import SYMPY_INTERP
    return set(SYMPY_INTERP)


@functools.lru_cache(maxsize=None)
def sympy_interp():
    """What Dynamo's shape guards call by name (its SYMPY_INTERP table)."""
    from torch.fx.experimental.symbolic_shapes import SYMPY_INTERP
    return dict(SYMPY_INTERP)


def compile_wrapped(wrapper):
    """The function a ``torch.compile`` wrapper calls (``None`` for anything else)."""
    return getattr(wrapper, "_torchdynamo_orig_callable", None)


def original_callable(compiled):
    """``(function, receiver)``: the Python function a ``torch.compile`` result runs (for a
    compiled module, its ``forward`` and the module as ``self``; ``receiver`` None otherwise).
    A module of torch's own (``nn.Sequential``, ``nn.Linear``), which Dynamo cannot start
    tracing at, runs in torch's ``wrap_inline`` wrapper: that wrapper's frame, whose closure
    holds the module, is the one compiled.  A module compiled in place (``module.compile()``)
    runs its compiled ``_call_impl``."""
    in_place = getattr(compiled, "_compiled_call_impl", None) if isinstance(compiled, torch.nn.Module) else None
    if in_place is not None:     # (Dynamo skips ``_call_impl``, torch's, and starts at what it calls)
        inner = _wrap_inline_compiled(in_place)
        return (inner, None) if inner is not None else (type(compiled).forward, compiled)
    module = getattr(compiled, "_orig_mod", None)
    if isinstance(module, torch.nn.Module):
        for name in ("forward", "_forward"):     # (``_forward``: a lazy module's, checked first)
            inner = _wrap_inline_compiled(vars(compiled).get(name))
            if inner is not None:
                return inner, None
        return type(module).forward, module
    original = getattr(compiled, "_torchdynamo_orig_callable", compiled)
    if isinstance(original, torch.nn.Module):
        return type(original).forward, original
    bound_self = getattr(original, "__self__", None)
    function = getattr(original, "__func__", original)
    if not hasattr(function, "__code__"):
        raise TypeError("%r is not a compiled Python function or module" % (compiled,))
    return function, bound_self


def _wrap_inline_compiled(wrapper):
    """The ``wrap_inline`` frame's function a ``torch.compile`` wrapper runs, or None."""
    inner = getattr(wrapper, "_torchdynamo_orig_callable", None)
    return inner if inner is not None and getattr(inner, "__code__", None) is _wrap_inline_code() else None


def guard_globals(entry):
    """The globals dict the entry's guard reads as ``G`` (the frame's globals)."""
    scope = getattr(entry.guard_manager, "global_scope", None) or {}
    return scope.get("G")


# --- what running compiled code from the dumped files needs ------------------

@functools.lru_cache(maxsize=None)
def _compile_function_code():
    from torch._dynamo import convert_frame
    return inspect.unwrap(convert_frame._compile).__code__


CompilingFrame = collections.namedtuple("CompilingFrame", "code globals fullgraph wraps stack")


def compiling_frame():
    """The :class:`CompilingFrame` (code, globals, whether it must make one graph, what it
    calls where it is torch's ``wrap_inline`` wrapper, the stack that reached it) Dynamo is
    compiling in this thread, or ``None`` (read from ``convert_frame._compile``'s locals)."""
    target = _compile_function_code()
    frame = sys._getframe(1)
    while frame is not None:
        if frame.f_code is target:
            f_locals = frame.f_locals
            code = f_locals["code"]
            return CompilingFrame(code, f_locals["globals"], bool(f_locals.get("one_graph")),
                                  _inline_wrapped(code, f_locals.get("closure")), _stack_reaching(frame, code))
        frame = frame.f_back
    return None


def _stack_reaching(compile_frame, code):
    """The Python stack that reached the compile of ``code``, outermost first, as
    ``[{filename, line, function}]``, ending with the compiled frame at its first line.
    Unlike the stack Dynamo's compilation metrics keep, it has the frames that run code
    Dynamo made (a compiled frame that called on past a graph break, as an optimizer's
    ``step`` wrapper calls ``Adam.step``); Dynamo's own frames (``convert_frame``,
    ``torch.compile``'s wrapper) are left out."""
    from torch._dynamo import convert_frame, eval_frame
    machinery = {convert_frame.__file__, eval_frame.__file__}
    out = [{"filename": code.co_filename, "line": code.co_firstlineno, "function": code.co_name}]
    frame = compile_frame.f_back
    while frame is not None:
        if frame.f_code.co_filename not in machinery:
            out.append({"filename": frame.f_code.co_filename, "line": frame.f_lineno, "function": frame.f_code.co_name})
        frame = frame.f_back
    return out[::-1]


@functools.lru_cache(maxsize=None)
def _wrap_inline_code():
    """The code of ``external_utils.wrap_inline``'s ``inner``, one code object for every
    function it wraps: torch.compile puts it around what Dynamo cannot start tracing at
    (a ``torch.nn`` module, a torch function), so that it compiles a frame of its own."""
    from torch._dynamo import external_utils
    return external_utils.wrap_inline(len).__code__ if hasattr(external_utils, "wrap_inline") else None


def inline_wrapped(function):
    """What ``function``, ``wrap_inline``'s ``inner``, calls; None for any other function."""
    return _inline_wrapped(function.__code__, function.__closure__)


def callable_name(obj):
    """A callable's name: a function's module and qualified name (the name its module
    gives it, where that is the function: ``torch.sin``, not its C class's method); an
    object's (a ``torch.nn`` module's) class."""
    qualname = getattr(obj, "__qualname__", None)
    if isinstance(qualname, str):
        module, name = getattr(obj, "__module__", None) or "?", getattr(obj, "__name__", None)
        if isinstance(name, str) and getattr(sys.modules.get(module), name, None) is obj:
            qualname = name
        return "%s.%s" % (module, qualname)
    return "a %s.%s" % (type(obj).__module__, type(obj).__qualname__)


def _inline_wrapped(code, closure):
    """What a frame of ``wrap_inline``'s ``inner`` calls (its closure's ``fn``), or None."""
    if closure is None or code is not _wrap_inline_code():
        return None
    return closure[code.co_freevars.index("fn")].cell_contents


class _Patch:
    """Replaces one attribute of a torch class while attached; the replacement calls
    ``callback`` (each subclass says with what)."""

    owner = name = None

    def __init__(self, callback):
        self.callback = without_dynamo(callback)

    def attach(self):
        owner = self.owner()
        self._saved = owner.__dict__[self.name]
        setattr(owner, self.name, self.replacement(self._saved))

    def detach(self):
        setattr(self.owner(), self.name, self._saved)


class ResumeFunctionInstall(_Patch):
    """Dynamo installing a resume function as a global of the frame's module:
    ``callback(global name, code, f_globals)`` may return a code object to install instead
    (with the frame layout and calling convention of Dynamo's)."""

    name = "install_resume_function_global"

    @staticmethod
    def owner():
        from torch._dynamo.output_graph import OutputGraph
        return OutputGraph

    def replacement(self, original):
        callback = self.callback

        def install(output_graph, name, code, f_globals):
            replacement = callback(name, code, f_globals)
            if replacement is not None and replacement is not code:
                copy_code_context(code, replacement)
                code = replacement
            return original(output_graph, name, code, f_globals)
        return install


class DynamoResets(_Patch):
    """``torch._dynamo.reset()``, however the program reaches it: ``callback()`` runs first,
    while Dynamo's caches still hold what it compiled.  ``reset`` clears them, its first
    step being ``reset_code_caches``, which this replaces in ``torch._dynamo``'s namespace
    (a name the program imported ``reset`` by still leads there)."""

    name = "reset_code_caches"

    @staticmethod
    def owner():
        import torch._dynamo
        return torch._dynamo

    def replacement(self, original):
        callback = self.callback

        def reset_code_caches():
            callback()
            return original()
        return reset_code_caches


class CodeExecStrategies(_Patch):
    """Dynamo telling its frame evaluation what to do with a code object without being
    called for it (``skip_code``: a nested graph break's leaf resume function, an FX graph's
    ``forward``): ``callback(code, strategy)`` after it is set."""

    name = "set_code_exec_strategy"

    @staticmethod
    def owner():
        import torch._dynamo.eval_frame as eval_frame     # skip_code calls the name it imported
        return eval_frame

    def replacement(self, original):
        callback = self.callback

        def set_strategy(code, strategy):
            original(code, strategy)
            callback(code, strategy)
        return set_strategy


class _TraceRule(_Patch):
    """A function of Dynamo's trace rules that decides by a file name: given the file of
    code run from the dump, it decides by the file of the code that code stands for
    (``callback(filename)`` says which), as it would have without unveil: a resume function
    made in torch's own files is skipped, not traced from the dumped file."""

    @staticmethod
    def owner():
        from torch._dynamo import trace_rules
        return trace_rules


class _LookupByOrigin(_TraceRule):
    name = "lookup_inner"       # the rule of a function or code (the torch rule map, then its file)

    def replacement(self, original):
        origin = self.callback

        def lookup_inner(obj, name=None, filename=None, *args, **kwargs):
            return original(obj, name, origin(filename) if filename is not None else None, *args, **kwargs)
        return lookup_inner


class _FileByOrigin(_TraceRule):
    name = "check_file"         # whether a file is skipped

    def replacement(self, original):
        origin = self.callback

        def check_file(filename, *args, **kwargs):
            return original(origin(filename) if filename is not None else None, *args, **kwargs)
        return check_file


def trace_rules_by_origin(origin):
    """The patches that make Dynamo's trace rules see the user's or torch's file where code
    runs from a dumped one: ``origin(filename)`` is the file a dumped file stands for, or the
    same name."""
    return [_LookupByOrigin(origin), _FileByOrigin(origin)]


def set_code_exec_strategy(code, strategy):
    """Tell Dynamo's frame evaluation to treat ``code`` as ``strategy`` says (what
    :class:`CodeExecStrategies` saw set on the code it stands in for)."""
    torch._C._dynamo.eval_frame.set_code_exec_strategy(code, strategy)


def copy_code_context(source, target):
    """What Dynamo keeps about code object ``source`` (its code_context), for ``target`` too."""
    from torch._dynamo import code_context
    if code_context.has_context(source):
        code_context.get_context(target).update(code_context.get_context(source))


class GraphRecompiles(_Patch):
    """``callback(gm)`` each time a GraphModule's ``forward`` has been generated anew."""

    name = "recompile"

    @staticmethod
    def owner():
        return torch.fx.GraphModule

    def replacement(self, original):
        callback = self.callback

        def recompile(gm):
            result = original(gm)
            callback(gm)
            return result
        return recompile


class GraphCopies(_Patch):
    """``callback(graph_module, copy)`` after each deep copy of a GraphModule (AOT Autograd
    compiles a copy of the backward graph, when ``backward`` first runs)."""

    name = "__deepcopy__"

    @staticmethod
    def owner():
        return torch.fx.GraphModule

    def replacement(self, original):
        callback = self.callback

        def deepcopy(gm, memo):
            copy = original(gm, memo)
            callback(gm, copy)
            return copy
        return deepcopy


def subgraph_modules(gm):
    """``(path, module)`` for each graph module ``gm`` holds, as ``print_readable`` nests
    their classes in its own (through graph modules only), outermost first; each made to
    have its ``forward`` (a lazily compiled one compiles it now)."""
    found, todo = [], [([], gm)]
    while todo:
        path, module = todo.pop(0)
        for name, child in module.named_children():
            if isinstance(child, torch.fx.GraphModule):
                force_recompile(child)
                found.append((path + [name], child))
                todo.append((path + [name], child))
    return found


def readable_graph(gm, class_name, expanded_def=False):
    """``gm.print_readable()``'s text (shapes, strides and devices as annotations, each node's
    source line as a comment), with ``class class_name`` (a GraphModule's class may be
    named ``<lambda>``)."""
    from torch.fx.graph_module import _print_readable
    return _print_readable(gm, class_name, False, True, True, False, expanded_def)


def force_recompile(gm):
    """Generate a lazily compiled GraphModule's ``forward`` now (a no-op for others)."""
    from torch.fx._lazy_graph_module import _LazyGraphModule
    _LazyGraphModule.force_recompile(gm)


class InductorModuleLoads(_Patch):
    """``callback(path, module)`` each time Inductor loads the Python module it generated."""

    name = "load_by_key_path"

    @staticmethod
    def owner():
        from torch._inductor.codecache import PyCodeCache
        return PyCodeCache

    def replacement(self, original):
        callback, load = self.callback, original.__func__

        def load_by_key_path(cls, key, path, *args, **kwargs):
            module = load(cls, key, path, *args, **kwargs)
            callback(path, module)
            return module
        return classmethod(load_by_key_path)


def inductor_module(path):
    """The module Inductor loaded last from ``path`` (it may load a file more than once), or ``None``."""
    codecache = sys.modules.get("torch._inductor.codecache")
    if codecache is None:
        return None
    for module in reversed(list(codecache.PyCodeCache.modules)):
        if getattr(module, "__file__", None) == path:
            return module
    return None


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


class FreshBackendCompiles:
    """While attached, what a backend compiles is compiled in the block, and says what it
    computes: Inductor's provenance tracking on (``config.trace.provenance_tracking_level``
    1, as ``TORCH_COMPILE_DEBUG=1`` sets it: after each graph's code the structured trace
    gives the stack traces of the user's lines each kernel call computes; a level the user
    set is kept), and Inductor's and AOT Autograd's caches of whole graphs off (a graph
    taken from them keeps the stack traces of the compile that filled them: another
    program's file, or this one's lines before an edit).  Kernels' own caches stay on.
    A setting this torch lacks is left alone."""

    def __init__(self):
        self._saved = []

    def attach(self):
        from torch._functorch import config as functorch_config
        from torch._inductor import config as inductor_config
        trace = getattr(inductor_config, "trace", None)
        for owner, name, value in ((trace, "provenance_tracking_level", 1), (inductor_config, "fx_graph_cache", False),
                                   (functorch_config, "enable_autograd_cache", False)):
            if owner is None or not hasattr(owner, name):
                continue
            before = getattr(owner, name)
            if name == "provenance_tracking_level" and before != 0:
                continue
            setattr(owner, name, value)
            self._saved.append((owner, name, before))

    def detach(self):
        for owner, name, before in reversed(self._saved):
            setattr(owner, name, before)
        self._saved = []


def reset():
    """Forget everything Dynamo compiled (its caches, resume functions, counters)."""
    torch._dynamo.reset()


# --- what dumped guards check (guard_runtime) ----------------------------------

def dispatch_key_set(tensor):
    """The tensor's dispatch keys as Dynamo's TENSOR_MATCH sees them (thread-local
    include/exclude applied), as their repr: ``DispatchKeySet(CPU, ...)``."""
    keys = torch._C._dispatch_keys(tensor)
    keys = (keys | torch._C._dispatch_tls_local_include_set()) - torch._C._dispatch_tls_local_exclude_set()
    return repr(keys)


def global_state_guard():
    """Dynamo's GLOBAL_STATE guard on the state now: ``check()`` says whether the state is
    still the same (about a microsecond), ``reason()`` names the parts that differ."""
    return torch._C._dynamo.guards.GlobalStateGuard()


def global_state():
    """What Dynamo's GLOBAL_STATE guard compares now (grad mode, autocast, default dtype,
    deterministic algorithms, TF32 flags, thread count), as a JSON text."""
    return torch._C._dynamo.guards.GlobalStateGuard().__getstate__()


def inlineable_saved_tensors_hooks():
    """The innermost saved-tensors hooks, as AUTOGRAD_SAVED_TENSORS_HOOKS checks them, or
    ``None`` when Dynamo cannot inline them."""
    from torch._functorch._aot_autograd import utils
    hooks = utils.top_saved_tensors_hooks()
    return hooks if utils.saved_tensors_hooks_are_inlineable(hooks) else None


def dict_version(mapping):
    """The dict's version tag (DICT_VERSION), which any change to it moves on: CPython
    keeps it, and Dynamo reads it in C."""
    return torch._C._dynamo.guards.dict_version(mapping)


def default_device_module():
    """The module Dynamo's DEFAULT_DEVICE guard reads as ``utils_device``
    (``utils_device.CURRENT_DEVICE == None``)."""
    from torch.utils import _device
    return _device


# --- Dynamo's guard text (guard_source) -----------------------------------------

#: Dynamo's guard helpers, as its guard text calls them
CHECK_TYPE_ID = "___check_type_id"
CHECK_OBJ_ID = "___check_obj_id"
DICT_CONTAINS = "___dict_contains"

#: how Dynamo's own helpers' names begin (``not `` may stand before a call)
GUARD_HELPER_PREFIX = "___"

#: Dynamo's helpers in guard text -> the names dumped guards call (guard_runtime's)
GUARD_HELPER_RENAMES = {
    CHECK_TYPE_ID: "check_type_id",
    CHECK_OBJ_ID: "check_obj_id",
    DICT_CONTAINS: "dict_contains",
    "__math_isnan": "math_isnan",
    "___dict_version": "dict_version",
    "___tuple_iterator_len": "tuple_iterator_len",
    "___tuple_iterator_getitem": "tuple_iterator_getitem",
    "___odict_getitem": "odict_getitem",
    "___namedtuple_fields": "namedtuple_fields",
    "___dataclass_fields": "dataclass_fields",
}

#: GLOBAL_STATE's description (not Python): group 1 is the state at compile time, as JSON
GLOBAL_STATE_GUARD = re.compile(r"^___check_global_state\(\) against (\{.*\})$")
#: AUTOGRAD_SAVED_TENSORS_HOOKS's description: group 1 is the hooks' ids (a tuple or None)
SAVED_TENSORS_HOOKS_GUARD = re.compile(
    r"^torch\._functorch\.aot_autograd\.utils\.top_saved_tensors_hooks ids == (.*)$")
#: TORCH_FUNCTION_MODE_STACK's description (the modes are in the compile's record, not in it)
FUNCTION_MODE_STACK_GUARD = "___check_torch_function_mode_stack()"
