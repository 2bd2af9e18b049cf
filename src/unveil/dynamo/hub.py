"""The one set of torch hooks, shared by every active session (nesting, threads).

The hooks go in with the first session and come out with the last.  The ones
only code run from the dump needs (AOT Autograd's graph modules, a
GraphModule's ``forward`` made anew or copied, Inductor loading its module) are
in only while such a session is active.
Each hook call goes to every session, each guarded: a failure of one is that
session's, reported and never raised into the user's program.
"""
import threading

from . import adapter

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
                   "inductor_post_grad_graph": "post_grad_graph"}
#: what each compile came to: compiled code or not, why it failed, why it restarted
TRACE_METRICS = "compilation_metrics"
TRACE_KEPT = frozenset(TRACE_KINDS) | frozenset(TRACE_ARTIFACTS) | {TRACE_METRICS}


class Hub:
    def __init__(self):
        self.lock = threading.RLock()
        self.sessions = []
        self._base = []          # undo functions of the hooks every session needs
        self._dumped = []        # ... and of those running from the dump needs

    def add(self, session):
        with self.lock:
            if session in self.sessions:
                raise RuntimeError("this session is already active")
            for other in self.sessions:
                if other.dump_dir == session.dump_dir:
                    raise RuntimeError("another active session writes into %s" % session.dump_dir)
            self.sessions.append(session)
            self._rehook()

    def discard(self, session):
        with self.lock:
            if session in self.sessions:
                self.sessions.remove(session)
            self._rehook()

    def reset_torch(self):
        """``torch._dynamo.reset()``, after every active session took what it needs of
        Dynamo's caches (the cache entries and their guards)."""
        with self.lock:
            for session in list(self.sessions):
                session.guarded("capture_cache_entries")
            adapter.reset()

    # -- installing ---------------------------------------------------------------
    def _rehook(self):
        if self.sessions and not self._base:
            self._base = _attach([
                adapter.StructuredTrace(self._trace, events=TRACE_KEPT),
                adapter.GraphCodeLog(self._graph),
                adapter.ResumeFunctionInstall(self._resume_install),
            ]) + [adapter.register_bytecode_hook(self._bytecode).remove]
        dumped = any(s.run_dumped for s in self.sessions)
        if dumped and not self._dumped:
            self._dumped = _attach([adapter.AotGraphsLog(self._aot_graph), adapter.GraphRecompiles(self._recompiled),
                                    adapter.GraphCopies(self._copied), adapter.InductorModuleLoads(self._inductor_module)])
        if not dumped:
            self._dumped = _detach(self._dumped)
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
        return replacement

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
