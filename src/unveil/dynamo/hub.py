"""The one set of torch hooks, shared by every active session (nesting, threads).

The hooks go in with the first session and come out with the last.  The ones
only code run from the dump needs (AOT Autograd's graph modules, a
GraphModule's ``forward`` made anew or copied, Inductor loading its module) are
in only while such a session is active.
Each hook call goes to every session, each guarded: a failure of one is that
session's, reported and never raised into the user's program.
"""
import threading
import weakref

from . import adapter
from .adapter.bytecode_hook import register_bytecode_hook
from .adapter.cache import reset
from .adapter.dynamo_off import SkipTracing
from .adapter.logs import AotGraphsLog, GraphCodeLog, StructuredTrace
from .adapter.patches import (CacheEntryDrops, CodeExecStrategies, DynamoResets, GraphCopies, GraphRecompiles, IdentityChecks,
                              InductorModuleLoads, ResumeFunctionInstall, set_code_exec_strategy, trace_rules_by_origin)

#: structured-trace events kept, and the artifact kind each is indexed as
TRACE_KINDS = {
    "aot_forward_graph": "aot_forward",
    "aot_backward_graph": "aot_backward",
    "aot_inference_graph": "aot_inference",
    "aot_joint_graph": "aot_joint",
    "inductor_output_code": "inductor_output",
    "inductor_post_grad_graph": "post_grad_graph",       # on a cache hit (else an artifact, below)
}
#: AOT Autograd's graphs: dumped from the trace's text, unless the graph runs from the dump
#: (then from its graph module, which the aot_graphs log gives; the trace has only text, and
#: no module at all for a graph from AOT Autograd's cache)
AOT_GRAPH_KINDS = frozenset(["aot_forward", "aot_backward", "aot_inference"])
#: the kinds dumped as the text the trace gives
BACKEND_TEXT_KINDS = AOT_GRAPH_KINDS | {"aot_joint", "inductor_output", "post_grad_graph"}
TRACE_ARTIFACTS = {"dynamo_graph_break_reason": "break_reason", "recompile_reasons": "recompile_reason",
                   "inductor_post_grad_graph": "post_grad_graph",
                   # the user's lines each kernel call of Inductor's code computes (with provenance tracking on)
                   "inductor_provenance_tracking_kernel_stack_traces": "kernel_stack_traces",
                   # the nodes of Dynamo's graph each of those kernel calls computes
                   "inductor_provenance_tracking_node_mappings": "kernel_nodes"}
#: what each compile came to: compiled code or not, why it failed, why it restarted
TRACE_METRICS = "compilation_metrics"
TRACE_KEPT = frozenset(TRACE_KINDS) | frozenset(TRACE_ARTIFACTS) | {TRACE_METRICS}


class HooksUnavailable(RuntimeError):
    """The hooks could not be attached to this torch (one of its hook points moved)."""


class Hub:
    def __init__(self):
        self.lock = threading.RLock()
        self.sessions = []
        self._base = []          # undo functions of the hooks every session needs
        self._dumped = []        # ... and of those running from the dump needs
        self._strategies = {}    # id of a code Dynamo set an exec strategy on -> (weakref to it, strategy)
        self._stand_ins = {}     # id of Dynamo's code -> (weakref to it, [weakrefs to the codes run instead])
        self._origins = {}       # a dumped file code runs from -> the file of the code it stands for

    def writes_into(self, dump_dir):
        """Whether an active session writes into ``dump_dir``."""
        with self.lock:
            return any(other.dump_dir == dump_dir for other in self.sessions)

    def add(self, session):
        with self.lock:
            if session in self.sessions:
                raise RuntimeError("this session is already active")
            for other in self.sessions:
                if other.dump_dir == session.dump_dir:
                    raise RuntimeError("another active session writes into %s" % session.dump_dir)
            self.sessions.append(session)
            try:
                self._rehook()
            except Exception as exc:
                self.sessions.remove(session)
                raise HooksUnavailable("a hook point unveil needs is not in this torch: %s: %s"
                                       % (type(exc).__name__, exc)) from exc

    def discard(self, session):
        with self.lock:
            if session in self.sessions:
                self.sessions.remove(session)
            self._rehook()

    def reset_torch(self):
        """``torch._dynamo.reset()`` (every active session takes what it needs of Dynamo's
        caches first, as on the program's own reset: :meth:`_reset`)."""
        reset()

    def _reset(self):
        """Dynamo is about to forget what it compiled (``torch._dynamo.reset()``, the
        program's or unveil's): each session keeps the cache entries and their guards, and
        counts a generation (compile ids start again from 0/0)."""
        with self.lock:
            self._each("capture_cache_entries")

    def _dropped(self, raw_entry, obj_str):
        """Dynamo drops a cache entry (an object its guards check by id was freed): each
        session keeps the entry, for its guards file and its compile's account."""
        with self.lock:
            self._each("keep_dropped_entry", raw_entry, obj_str)

    def _identity(self, obj):
        """Dynamo takes the id of ``obj``, which a guard is to check by identity."""
        self._each("on_identity", obj)

    # -- installing ---------------------------------------------------------------
    def _rehook(self):
        if self.sessions and not self._base:
            self._base = _attach([
                SkipTracing([adapter.__name__]),        # the hooks' own files (the adapter package's folder)
                StructuredTrace(self._trace, events=TRACE_KEPT),
                GraphCodeLog(self._graph),
                ResumeFunctionInstall(self._resume_install),
                DynamoResets(self._reset),
                CacheEntryDrops(self._dropped),
                IdentityChecks(self._identity),
            ]) + [register_bytecode_hook(self._bytecode).remove]
        dumped = any(s.run_dumped for s in self.sessions)
        if dumped and not self._dumped:
            self._dumped = _attach([AotGraphsLog(self._aot_graph), GraphRecompiles(self._recompiled),
                                    GraphCopies(self._copied), InductorModuleLoads(self._inductor_module),
                                    CodeExecStrategies(self._strategy_set)]
                                   + trace_rules_by_origin(self._origin_file))
        if not dumped:
            self._dumped = _detach(self._dumped)
            self._strategies, self._stand_ins, self._origins = {}, {}, {}
        if not self.sessions:
            self._base = _detach(self._base)

    # -- fan-out ------------------------------------------------------------------
    def _each(self, method, *args):
        """Call ``method`` on every session; the last result that is not None."""
        result = None
        for session in list(self.sessions):
            out = session.guarded(method, *args)
            if out is not None:
                result = out
        return result

    def _replaced(self, original, replacement):
        """The code object Dynamo runs instead of ``original``: every session learns of it."""
        if replacement is not None:
            self._each("runs_instead", original, replacement)
            self.stand_in(original, replacement)
        return replacement

    # -- code run from the dump is treated as Dynamo's own -------------------------
    def stand_in(self, original, replacement):
        """``replacement`` runs in place of Dynamo's ``original``: what Dynamo told its
        frame evaluation about ``original`` (skip it) holds for ``replacement`` too, now and
        when Dynamo says it later; else Dynamo would be called for frames it never is."""
        with self.lock:
            if replacement.co_filename != original.co_filename:
                self._origins[replacement.co_filename] = original.co_filename
            _, stand_ins = self._stand_ins.setdefault(id(original), (weakref.ref(original), []))
            stand_ins.append(weakref.ref(replacement))
            strategy = _alive(self._strategies.get(id(original)), original)
            if strategy is not None:
                set_code_exec_strategy(replacement, strategy)

    def _origin_file(self, filename):
        """The file Dynamo's trace rules see for ``filename``: for a dumped file, the file of
        the code that runs from it stands for."""
        return self._origins.get(filename, filename)

    def _strategy_set(self, code, strategy):
        with self.lock:
            self._strategies[id(code)] = (weakref.ref(code), strategy)
            entry = self._stand_ins.get(id(code))
            for ref in (entry[1] if entry is not None and entry[0]() is code else []):
                if ref() is not None:
                    set_code_exec_strategy(ref(), strategy)

    def _bytecode(self, code, transformed):
        return self._replaced(transformed, self._each("on_bytecode", code, transformed))

    def _resume_install(self, name, code, f_globals):
        return self._replaced(code, self._each("on_resume_install", name, code, f_globals))

    def _trace(self, event, metadata, payload):
        if event in TRACE_KINDS or event == TRACE_METRICS or (
                event == "artifact" and metadata["artifact"].get("name") in TRACE_ARTIFACTS):
            self._each("on_trace", event, metadata, payload)

    def _graph(self, name, gm):
        self._each("on_graph", name, gm)

    def _aot_graph(self, kind, gm):
        self._each("on_aot_graph", kind, gm)

    def _recompiled(self, gm):
        self._each("on_recompile", gm)

    def _copied(self, gm, copy):
        self._each("on_graph_copy", gm, copy)

    def _inductor_module(self, path, module):
        self._each("on_inductor_module", path, module)


def _alive(entry, code):
    """The value of an ``(weakref, value)`` entry kept by id, if it is ``code``'s."""
    if entry is None or entry[0]() is not code:
        return None
    return entry[1]


def _attach(hooks):
    undo = []
    try:
        for hook in hooks:
            hook.attach()
            undo.append(hook.detach)
    except BaseException:
        _detach(undo)
        raise
    return undo


def _detach(undo):
    for remove in reversed(undo):
        remove()
    return []


HUB = Hub()
