"""``prepare_debug``: capture what torch.compile does inside a ``with`` block, as Python files.

Data flow: torch calls three hooks while the block runs (see :mod:`.adapter`):
the bytecode hook gives each original and transformed code object, the
structured trace gives graph-break and recompile reasons, AOT graphs and
Inductor code, and the ``graph_code`` log gives each Dynamo graph.  Records are
kept per compile id; the transformed code is written at once, everything else
when the block ends (guards are only final then), followed by the full-code
files and ``index.json``.  Every hook catches its own errors: a failure is
written as a file, warned about once, and the user's program goes on unchanged.
"""
import os
import threading
import traceback
import warnings

from . import adapter
from .dump import DumpDir, failure_text, safe_name, short_graph_name
from .graphs import graph_file_text, link_comment
from .fullcode import full_code_text
from .guards_file import guards_text
from ..api import decompile_code
from ..errors import DecompilationError
from ..recompile import recompile


class UnveilWarning(UserWarning):
    """Something unveil could not dump; the program itself runs on unchanged."""


#: structured-trace events kept, and the artifact kind each is indexed as
_TRACE_KINDS = {
    "aot_forward_graph": "aot_forward",
    "aot_backward_graph": "aot_backward",
    "aot_joint_graph": "aot_joint",
    "inductor_output_code": "inductor_output",
}
_TRACE_ARTIFACTS = {"dynamo_graph_break_reason": "break_reason", "recompile_reasons": "recompile_reason"}
_TRACE_KEPT = frozenset(_TRACE_KINDS) | frozenset(_TRACE_ARTIFACTS)
RESUME_PREFIX = "torch_dynamo_resume_in_"


class Compile:
    """One Dynamo compile of one code object: one cache entry."""

    def __init__(self, cid, code, transformed, function_modes):
        self.cid = cid
        self.code = code
        self.transformed = transformed
        self.run_code = transformed          # what Dynamo caches (ours when run_dumped)
        self.function_modes = function_modes
        self.transformed_file = None
        self.graph_files = {}                # Dynamo's global name of a graph -> its file
        self.source = None                   # decompiled transformed code, when it worked
        self.guards = None                   # guards_file.GuardsText

    @property
    def tag(self):
        return "compile_" + self.cid.replace("/", "_")


class Function:
    """A code object Dynamo compiled (a user function or a resume function)."""

    def __init__(self, code, key):
        self.code = code
        self.key = key
        self.compiles = []
        self.entries = []                    # (adapter.CacheEntry, Compile), in Dynamo's order
        self.globals = None                  # the frame's globals, from a guard
        self.resume_source = None
        self.is_resume = code.co_name.startswith(RESUME_PREFIX)
        self.parent = None
        self.resume_file = None
        self.resume_reason = None

    def describe(self):
        return {"name": self.code.co_name, "qualname": getattr(self.code, "co_qualname", self.code.co_name),
                "filename": self.code.co_filename, "line": self.code.co_firstlineno,
                "kind": "resume" if self.is_resume else "function", "key": self.key,
                "resumes": self.parent.key if self.parent is not None else None,
                "resume_reason": self.resume_reason,
                "compiles": [c.cid for c in self.compiles]}


class _Hub:
    """The one set of torch hooks, shared by every active session (nesting, threads)."""

    def __init__(self):
        self.lock = threading.RLock()
        self.sessions = []
        self.handles = []

    def add(self, session):
        with self.lock:
            if session in self.sessions:
                raise RuntimeError("this prepare_debug session is already active")
            if not self.sessions:
                self._install()
            self.sessions.append(session)

    def discard(self, session):
        with self.lock:
            if session in self.sessions:
                self.sessions.remove(session)
            if not self.sessions:
                self._uninstall()

    def _install(self):
        trace = adapter.StructuredTrace(self._trace, events=_TRACE_KEPT)
        graphs = adapter.GraphCodeLog(self._graph)
        trace.attach()
        graphs.attach()
        self.handles = [trace.detach, graphs.detach, adapter.register_bytecode_hook(self._bytecode).remove]

    def _uninstall(self):
        for remove in reversed(self.handles):
            remove()
        self.handles = []

    def _each(self, method, *args):
        result = None
        for session in list(self.sessions):
            out = session.guarded(method, *args)
            if out is not None:
                result = out
        return result

    def _bytecode(self, code, transformed):
        return self._each("on_bytecode", code, transformed)

    def _trace(self, event, metadata, payload):
        if event in _TRACE_KINDS or (event == "artifact" and metadata["artifact"].get("name") in _TRACE_ARTIFACTS):
            self._each("on_trace", event, metadata, payload)

    def _graph(self, name, gm):
        self._each("on_graph", name, gm)


_HUB = _Hub()


class DebugSession:
    """Context manager returned by :func:`unveil.prepare_debug`."""

    def __init__(self, dump_dir, run_dumped=False):
        self.dump_dir = os.fspath(dump_dir)
        self.run_dumped = run_dumped
        self.dump = None
        self.functions = {}          # code object -> Function
        self.compiles = {}           # compile id -> Compile
        self.events = {}             # compile id -> [(kind, payload, metadata)]
        self.graphs = {}             # compile id -> [(name, graph module)]
        self.failures = []
        self.index_file = None
        self._lock = threading.RLock()
        self._warned = False
        self._active = False

    # -- context manager ----------------------------------------------------
    def __enter__(self):
        if self._active:
            raise RuntimeError("this prepare_debug session is already active")
        self.dump = DumpDir(self.dump_dir, adapter.torch_version())
        _HUB.add(self)
        self._active = True
        return self

    def __exit__(self, *exc):
        _HUB.discard(self)
        self._active = False
        self.guarded("finish")
        return False

    # -- failures never reach the user's program -------------------------------
    def guarded(self, method, *args):
        try:
            with self._lock:
                return getattr(self, method)(*args)
        except Exception as exc:  # the user's program must run on, whatever went wrong here
            self.fail("%s failed" % method, exc, detail=traceback.format_exc())
            return None

    def fail(self, what, exc, code=None, detail=None):
        entry = {"what": what, "error": "%s: %s" % (type(exc).__name__, exc)}
        if code is not None:
            entry["function"] = code.co_name
        if detail:
            entry["traceback"] = detail
        self.failures.append(entry)
        if not self._warned:
            self._warned = True
            warnings.warn("unveil.prepare_debug: %s (%s); the program runs on unchanged; "
                          "see the failures in %s" % (what, entry["error"], self.dump_dir), UnveilWarning,
                          stacklevel=3)

    # -- records ------------------------------------------------------------
    def function(self, code):
        fn = self.functions.get(code)
        if fn is None:
            base = safe_name(getattr(code, "co_qualname", code.co_name))
            taken = {f.key for f in self.functions.values()}
            key, n = base, 2
            while key in taken:
                key, n = "%s_%d" % (base, n), n + 1
            fn = self.functions[code] = Function(code, key)
        return fn

    # -- hooks ----------------------------------------------------------------
    def on_bytecode(self, code, transformed):
        cid = adapter.current_compile_id() or "unknown_%d" % len(self.compiles)
        fn = self.function(code)
        comp = Compile(cid, code, transformed, adapter.function_mode_stack_types())
        fn.compiles.append(comp)
        self.compiles[cid] = comp
        name = "%s.%s.transformed.py" % (fn.key, comp.tag)
        try:
            decompiled = decompile_code(transformed)
        except DecompilationError as exc:
            comp.transformed_file = self.dump.write(
                name, failure_text("decompile the transformed code of %s" % code.co_name, transformed, exc),
                function=fn.key, compile_id=cid, kind="transformed_code", ok=False, error=str(exc))
            self.fail("decompiling %s's transformed code" % code.co_name, exc, code)
            return None
        comp.source = decompiled.source
        text = self._transformed_text(fn, comp, decompiled)
        comp.transformed_file = self.dump.write(name, text, function=fn.key, compile_id=cid,
                                                kind="transformed_code", ok=True)
        if self.run_dumped:
            return self._recompiled(comp, decompiled)
        return None

    def _transformed_text(self, fn, comp, decompiled):
        head = ['# Transformed code of %s (compile %s): the bytecode Dynamo runs in place of the original'
                % (fn.code.co_name, comp.cid),
                "# Original: %s:%d" % (fn.code.co_filename, fn.code.co_firstlineno)]
        names = comp.transformed.co_names
        created = [n for n in names if n.startswith(("__compiled_fn", "__resume_at", "__import_", "___"))]
        if created:
            head.append("# Globals Dynamo created: " + ", ".join(created))
        for ident, value in sorted(decompiled.bindings.items()):
            head.append("# %s: an object Dynamo placed in the code: %s" % (ident, _describe(value)))
        return "\n".join(head) + "\n" + decompiled.source

    def _recompiled(self, comp, decompiled):
        """The code recompiled from the dumped file, to run instead of Dynamo's (run_dumped)."""
        if decompiled.bindings:
            self.fail("running %s's dumped code" % comp.code.co_name,
                      DecompilationError("the code holds objects with no source form: %s"
                                         % ", ".join(sorted(decompiled.bindings))), comp.code)
            return None
        path = os.path.join(self.dump.path, comp.transformed_file)
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
        code = recompile(text, comp.transformed, filename=path)
        comp.run_code = code
        return code

    def on_trace(self, event, metadata, payload):
        cid = adapter.record_compile_id(metadata)
        if event == "artifact":
            kind = _TRACE_ARTIFACTS[metadata["artifact"]["name"]]
        else:
            kind = _TRACE_KINDS[event]
        self.events.setdefault(cid, []).append((kind, payload, metadata))

    def on_graph(self, name, gm):
        cid = gm.meta.get("dynamo_compile_id")
        cid = "%s/%s" % (cid.frame_id, cid.frame_compile_id) if cid is not None else adapter.current_compile_id()
        self.graphs.setdefault(cid, []).append((name, graph_file_text(name, gm)))

    # -- the end of the block ---------------------------------------------------
    def finish(self):
        for fn in list(self.functions.values()):
            if not fn.is_resume:
                self.guarded("find_resume_functions", fn)
        for fn in list(self.functions.values()):
            for comp in fn.compiles:
                self.guarded("write_compile", fn, comp)
            self.guarded("write_guards", fn)
            if fn.is_resume:
                self.guarded("write_resume_function", fn)
        for fn in list(self.functions.values()):
            if not fn.is_resume:
                self.guarded("write_full_code", fn)
        self.dump.functions = [fn.describe() for fn in self.functions.values()]
        self.index_file = self.dump.write_index(self.failures)

    def find_resume_functions(self, fn, depth=0):
        for code in adapter.resume_codes(fn.code):
            child = self.function(code)
            child.parent = fn
            if depth < 20:
                self.find_resume_functions(child, depth + 1)

    def write_compile(self, fn, comp):
        events = self.events.get(comp.cid, [])
        linked = {}
        for kind in _TRACE_KINDS.values():
            payloads = [p for k, p, _ in events if k == kind and p]
            for i, payload in enumerate(payloads):
                suffix = "" if len(payloads) == 1 else "_%d" % i
                header = "# %s for %s (compile %s)\n" % (kind.replace("_", " "), fn.code.co_name, comp.cid)
                linked.setdefault(kind, []).append(self.dump.write(
                    "%s.%s.%s%s.py" % (fn.key, comp.tag, kind, suffix), header + payload,
                    function=fn.key, compile_id=comp.cid, kind=kind, ok=True))
        for name, text in self.graphs.get(comp.cid, []):
            comp.graph_files[name] = self.dump.write(
                "%s.%s.graph.%s.py" % (fn.key, comp.tag, short_graph_name(name)), link_comment(linked) + text,
                function=fn.key, compile_id=comp.cid, kind="graph", graph=name, ok=True)

    def reasons(self, cid, kind):
        return [p for k, p, _ in self.events.get(cid, []) if k == kind and p]

    def write_guards(self, fn):
        fn.entries = []
        entries = adapter.cache_entries(fn.code)
        by_code = {}
        for comp in fn.compiles:
            by_code[id(comp.run_code)] = comp
            by_code[id(comp.transformed)] = comp
        for entry in entries:
            comp = by_code.get(id(entry.transformed))
            if comp is None:
                continue
            fn.entries.append((entry, comp))
            fn.globals = adapter.guard_globals(entry)
            guards = comp.guards = guards_text(fn, comp, entry, self.reasons(comp.cid, "recompile_reason"))
            self.dump.write("%s.%s.guards.py" % (fn.key, comp.tag), guards.file_text(), function=fn.key,
                            compile_id=comp.cid, kind="guards", ok=not guards.untranslated,
                            untranslated=guards.untranslated)

    def write_resume_function(self, fn):
        line = fn.code.co_name.rpartition("_at_")[2]
        reason = None
        if fn.parent is not None:
            for comp in fn.parent.compiles:
                for payload in self.reasons(comp.cid, "break_reason"):
                    first = payload.splitlines()[0] if payload else ""
                    if first.endswith(":" + line) or reason is None:
                        reason = payload
        fn.resume_reason = _reason_summary(reason)
        parent = fn.parent.code.co_name if fn.parent is not None else "?"
        head = ["# Resume function %s: Dynamo made it after a graph break; it runs the rest of %s"
                % (fn.code.co_name, parent), "# from line %s of %s." % (line, fn.code.co_filename)]
        if reason:
            head.append("# Why the graph broke:")
            head += ["#   " + text for text in reason.strip().splitlines()[:12]]
        name = "%s.resume_function.py" % fn.key
        try:
            source = decompile_code(fn.code).source
        except DecompilationError as exc:
            fn.resume_file = self.dump.write(name, failure_text("decompile resume function %s" % fn.code.co_name,
                                                                fn.code, exc),
                                             function=fn.key, kind="resume_function", ok=False, error=str(exc))
            self.fail("decompiling resume function %s" % fn.code.co_name, exc, fn.code)
            return
        fn.resume_source = source
        fn.resume_file = self.dump.write(name, "\n".join(head) + "\n" + source, function=fn.key,
                                         kind="resume_function", ok=True, resumes=parent, line=line)

    def write_full_code(self, fn):
        text = full_code_text(fn, self)
        self.dump.write("%s.full_code.py" % fn.key, text, function=fn.key, kind="full_code", ok=True)


def _reason_summary(reason):
    if not reason:
        return None
    lines = [line.strip() for line in reason.strip().splitlines() if line.strip()]
    return " / ".join(lines[:2])


def _describe(value):
    text = repr(value)
    if len(text) > 100:
        text = text[:97] + "..."
    return "%s (%s.%s)" % (text, type(value).__module__, type(value).__qualname__)

