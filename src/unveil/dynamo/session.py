"""``prepare_debug``: capture what torch.compile does inside a ``with`` block, as Python files.

Data flow: torch calls the hooks of :mod:`.hub` while the block runs (see
:mod:`.adapter`): the bytecode hook gives each original and transformed code
object, Dynamo's installing of a resume function gives that function, the
``graph_code`` and ``aot_graphs`` logs give each graph module, and the
structured trace gives graph-break and recompile reasons and Inductor's code.
Each is written as a file when torch hands it over; guards (final only then),
the full-code files and ``index.json`` are written when the block ends.

With ``run_dumped`` the code torch runs is compiled from those files
(:mod:`.from_dump`): transformed code and resume functions, each graph's
``forward``, AOT Autograd's forward and backward, Inductor's ``call``.

Every hook catches its own errors: a failure is written as a file, warned
about once, and the user's program goes on unchanged.
"""
import json
import os
import re
import sys
import threading
import time
import traceback
import types
import warnings
import weakref

from . import made_globals
from .adapter import versions
from .adapter.backends import inductor_module
from .adapter.cache import CacheEntry, cache_entries, guard_globals
from .adapter.compile_ids import current_compile_id, graph_compile_id, record_compile_id
from .adapter.compile_outcomes import error_went_on
from .compiles import RESUME_PREFIX, Compile, Function
from .adapter.frames import callable_name, compiling_frame, shortened_as_torch_writes
from .adapter.graphs import force_recompile, subgraph_modules
from .adapter.guard_checks import function_mode_stack_types
from .adapter.resume_functions import resume_point, resumed_code
from .explanations import records, resume_points, summary
from .debugging import from_dump, kernel_calls
from .guards.conditions import identity_checked, names_in, source_note
from .dump import ranks, readable
from .dump.directory import DumpDir, failure_text, foreign_file, safe_name
from .dump.fullcode import full_code_text
from .dump.graphs import aot_file_text, backend_file_text, class_name, graph_file_text, without_frames_of
from .dump.script_runtime import importable_as, loading_module
from .guards.functions import guards_text, user_form
from .guards.runtime import identity_name, readable_identity
from .hub import HooksUnavailable, AOT_GRAPH_KINDS, BACKEND_TEXT_KINDS, HUB, TRACE_ARTIFACTS, TRACE_KINDS, TRACE_METRICS
from .debugging.linemap import LineMap, node_stacks
from ..api import bindings_prefix_for, decompile_code
from ..errors import DecompilationError, InternalError
from ..runner import exit_status
from ..definitions.functions import ENCLOSING_SCOPE

class UnveilWarning(UserWarning):
    """Something unveil could not dump; the program itself runs on unchanged."""


class DebugSession:
    """Context manager returned by :func:`unveil.prepare_debug`."""

    def __init__(self, dump_dir, run_dumped=False):
        if not os.fspath(dump_dir).strip():    # (it was the current directory, unsaid)
            raise ValueError("the dump directory %r names no directory: give a path ('.' for the current one)"
                             % (dump_dir,))
        self.dump_dir = os.path.abspath(os.fspath(dump_dir))
        self.run_dumped = run_dumped
        self.dump = None
        self.functions = {}          # id of a code object (kept alive by its Function) -> Function: a
        #                              code object with a dict in its constants cannot be a key
        self.compiles = {}           # (generation, compile id) -> Compile
        self.events = {}             # (generation, compile id) -> [(kind, payload, metadata)]
        self.aliases = {}            # id of a code object run instead of Dynamo's -> (it, Dynamo's)
        self.failures = []
        self.index_file = None
        self.rank = None             # the process's rank in a distributed run (its files go to rank_<r>/)
        self.lines = LineMap(self.runs_no_user_line)
        self.generation = 0
        self.dropped = []            # (CacheEntry, generation, why) of each entry Dynamo dropped
        self.identities = {}         # id of an object a guard checks by identity -> (its name, weakref or None)
        self.replaced = from_dump.Replacements(HUB.stand_in)         # graph forwards, resume codes, globals
        self.replaced_shared = from_dump.Replacements(HUB.stand_in)  # Inductor modules, which torch caches by path
        self._tracked = weakref.WeakKeyDictionary()   # graph module -> (file, how to print it)
        self._inductor_files = {}    # path of a module Inductor wrote -> our file of it
        self._resume_runs = {}       # id of Dynamo's resume code (kept by its Function) -> ours
        self._lock = threading.RLock()
        self._depth = 0              # hooks running now, one inside another (under the lock)
        self._warned = False
        self._active = False
        self.inert = False           # torch is not one unveil supports, or its hooks would not attach
        self.unwritable = None       # why the dump directory cannot be written (then nothing is dumped)

    # -- context manager ----------------------------------------------------
    def __enter__(self):
        if self._active:
            raise RuntimeError("this prepare_debug session is already active")
        self._active = True
        refused = versions.unsupported_torch()
        if refused is None and loading_module():
            refused = ("the block does nothing while unveil runs its module's top-level code for the globals "
                       "why-recompile or a full-code file reads; put the program under "
                       "`if __name__ == \"__main__\":` so that loading it runs none of it")
        if refused is not None:          # the program runs on as if unveil were not there
            self.inert = True
            warnings.warn("unveil: " + refused, UnveilWarning, stacklevel=_outside_unveil())
            return self
        if HUB.writes_into(self.dump_dir):  # (a block inside another on the same directory)
            self.inert = True
            warnings.warn("unveil: another prepare_debug or debug block already writes into %s: this one dumps "
                          "nothing; the program runs on unchanged" % self.dump_dir, UnveilWarning,
                          stacklevel=_outside_unveil())
            return self
        _note_untested_torch()
        self.rank = ranks.rank_of_process()
        path = self.dump_dir if self.rank is None else ranks.rank_dir(self.dump_dir, self.rank)
        foreign = foreign_file(path) if os.path.isdir(path) else None
        if foreign is not None:          # (a directory of the user's: its files are never replaced)
            self.unwritable = "its %s is not unveil's" % foreign
            warnings.warn("unveil: will not write into the dump directory %s (%s): nothing is dumped; the program "
                          "runs on unchanged" % (path, self.unwritable), UnveilWarning, stacklevel=_outside_unveil())
            return self
        try:
            self.dump = DumpDir(path, versions.torch_version())
            self.dump.check_writable()
        except OSError as exc:
            self.unwritable = exc.strerror or str(exc)
            warnings.warn("unveil: cannot write to the dump directory %s (%s): nothing is dumped; the program "
                          "runs on unchanged" % (path, self.unwritable), UnveilWarning, stacklevel=_outside_unveil())
            return self
        try:
            HUB.add(self)
        except HooksUnavailable as exc:  # torch moved a hook point: said, and the program runs on
            self.inert = True
            self.fail("attaching unveil's hooks to torch %s" % versions.torch_version(), exc.__cause__ or exc)
        return self

    def __exit__(self, *exc):
        self._active = False
        if self.inert or self.unwritable is not None:
            return False
        HUB.discard(self)
        self.guarded("finish", _short_of_its_end(exc[1]))
        self.replaced_shared.undo_codes()
        return False

    # -- failures never reach the user's program -------------------------------
    def guarded(self, method, *args):
        started = time.perf_counter()
        try:
            with self._lock:
                self._depth += 1
                try:
                    return getattr(self, method)(*args)
                finally:
                    self._depth -= 1
                    if not self._depth:          # (a hook called inside another is counted in it)
                        self._spent(time.perf_counter() - started)
        except Exception as exc:  # the user's program must run on, whatever went wrong here
            self.fail("%s failed" % method, exc, detail=traceback.format_exc())
            return None

    def _spent(self, seconds):
        """Count ``seconds`` of unveil's work toward the compile running now: Dynamo's
        metrics time the compile with unveil's hooks inside it (the report says how much)."""
        cid = current_compile_id()
        comp = self.compiles.get((self.generation, cid)) if cid is not None else None
        if comp is not None:
            comp.unveil_seconds += seconds

    def fail(self, what, exc, code=None, detail=None):
        entry = {"what": what, "error": "%s: %s" % (type(exc).__name__, exc)}
        if code is not None:
            entry["function"] = code.co_name
        if detail:
            entry["traceback"] = detail
        self.failures.append(entry)
        if not self._warned:
            self._warned = True
            warnings.warn("unveil: %s (%s); the program runs on unchanged; "
                          "see the failures in %s" % (what, entry["error"], self.dump_dir), UnveilWarning,
                          stacklevel=3)

    # -- records ------------------------------------------------------------
    def function(self, code):
        code = self.dynamo_code(code)
        fn = self.functions.get(id(code))
        if fn is None:
            base = safe_name(self._user_name(code))
            taken = {f.key for f in self.functions.values()}
            key, n = base, 2
            while key in taken:
                key, n = "%s_%d" % (base, n), n + 1
            fn = self.functions[id(code)] = Function(code, key, self.generation)
            self.dump.origins[key] = (code.co_filename, getattr(code, "co_qualname", code.co_name))
            resumed = resumed_code(code) if fn.is_resume else None
            if resumed is not None:
                fn.parent = self._resumed_function(resumed)
        return fn

    def _resumed_function(self, code):
        """The function a resume function of ``code`` resumes: ``code``'s; for one made of a
        resume function run from the dump, the function that one resumes (Dynamo names that
        one when it made both, as it does without the dump).  Known even where Dynamo made
        them before the session began."""
        parent = self.function(code)
        while parent.is_resume and parent.parent is not None:
            parent = parent.parent
        return parent

    def _user_name(self, code):
        """The qualified name (without ``<locals>``), and for a resume function Dynamo made
        of one run from the dump, the name it has when Dynamo made both: one prefix, the
        user's line."""
        name = _resume_name_once(getattr(code, "co_qualname", code.co_name).replace("<locals>.", ""))
        stem, at, line = name.rpartition("_at_")
        if at and line.isdigit() and RESUME_PREFIX in stem:
            path, user_line = self.lines.origin(code.co_filename, int(line))
            if path != code.co_filename:
                name = "%s_at_%d" % (stem, user_line)
        return name

    def compile_record(self, cid, code=None):
        """The :class:`Compile` of compile ``cid``, made on first sight (for the frame
        Dynamo compiles now, unless ``code`` names it)."""
        comp = self.compiles.get((self.generation, cid))
        if comp is None:
            frame = compiling_frame()
            if code is None:
                code = frame.code if frame is not None else _UNKNOWN_CODE
            fn = self.function(code)
            if fn.module is None and frame is not None and frame.code is code:
                fn.module, fn.import_name = _module_names(frame.globals)
            comp = self.compiles[self.generation, cid] = Compile(cid, fn, self.generation)
            comp.fullgraph = frame is not None and frame.fullgraph
            comp.stack = frame.stack if frame is not None and frame.code is code else None
            if frame is not None and frame.code is code and frame.wraps is not None:
                comp.wraps = callable_name(frame.wraps)
            fn.compiles.append(comp)
        return comp

    def _current_compile(self, cid=None):
        cid = cid or current_compile_id() or "unknown_%d" % len(self.compiles)
        return self.compile_record(cid)

    def reasons(self, comp, kind):
        return [p for k, p, _ in self.events.get((comp.generation, comp.cid), []) if k == kind and p]

    def path(self, fname):
        return os.path.join(self.dump.path, fname)

    def dynamo_code(self, code):
        """Dynamo's own code object for ``code`` (one that runs in its place, or itself)."""
        alias = self.aliases.get(id(code))
        return alias[1] if alias is not None and alias[0] is code else code

    def runs_instead(self, original, replacement):
        """Dynamo runs ``replacement`` (a code object of this or another session) for ``original``."""
        self.aliases[id(replacement)] = (replacement, self.dynamo_code(original))
        fn = self.functions.get(id(original))
        if fn is not None:
            fn.frame_code = replacement

    def capture_cache_entries(self):
        """Keep the cache entries (and so the guards) of every function before torch forgets
        them; compile ids then start again from 0/0: a new generation, if this one has any."""
        for fn in self.functions.values():
            fn.captured += [(e, self.generation) for e in cache_entries(fn.frame_code)]
        if any(generation == self.generation for generation, _ in self.compiles):
            self.generation += 1

    def runs_no_user_line(self, path):
        """Whether a file a stack trace names is this dump's transformed code (``debug()`` runs
        it, and torch records its frame for nodes that come from no line: as it runs in place
        of Dynamo's code, which torch records no frame of, it runs none of the user's lines)."""
        return self.dump is not None and path.endswith(".transformed.py") \
            and os.path.dirname(os.path.abspath(path)) == os.path.abspath(self.dump.path)

    def _graph_text(self, text):
        return without_frames_of(text, self.runs_no_user_line, self.lines.origin)

    def keep_dropped_entry(self, raw_entry, obj_str):
        """Dynamo drops a cache entry, as an object its guards check by id (``obj_str``) was
        freed: keep it, its guards file is written and its compile says so."""
        self.dropped.append((CacheEntry(raw_entry), self.generation,
                             "%s, which its guards check by id, was freed" % obj_str))

    def on_identity(self, obj):
        """A guard is to check ``obj`` by identity: keep its name (:func:`identity_name`),
        which checks it in another process, while ``obj`` lives (an id is reused after)."""
        name = identity_name(obj)
        if name is not None:
            try:
                ref = weakref.ref(obj)
            except TypeError:        # (None, a bool: alive for good)
                ref = None
            self.identities[id(obj)] = (name, ref)

    def _identity_names(self):
        return {key: name for key, (name, ref) in self.identities.items() if ref is None or ref() is not None}

    # -- hooks ----------------------------------------------------------------
    def on_bytecode(self, code, transformed):
        fn = self.function(code)
        comp = self._current_compile()
        if comp.fn is not fn:          # a compile id torch gave to no frame we knew
            comp.fn.compiles.remove(comp)
            comp.fn, comp.generation = fn, self.generation
            fn.compiles.append(comp)
        comp.code, comp.transformed = code, transformed
        comp.function_modes = function_mode_stack_types()
        self._mark_discarded_graphs(comp)
        name = "%s.%s.transformed.py" % (fn.key, comp.tag)
        try:
            decompiled = readable.tidy(decompile_code(transformed, bindings_prefix="__unveil_%s_" % comp.tag),
                                       transformed)
        except DecompilationError as exc:
            comp.transformed_file = self.dump.write(
                name, failure_text("decompile the transformed code of %s" % code.co_name, transformed, exc),
                **comp.indexed, kind="transformed_code", ok=False, error=str(exc))
            self.fail("decompiling %s's transformed code" % code.co_name, exc, code, detail=traceback.format_exc())
            return None
        comp.source, comp.bindings = decompiled.source, decompiled.bindings
        head = self._transformed_head(fn, comp, decompiled)
        comp.transformed_file = self.dump.write(name, "\n".join(head) + "\n" + decompiled.source,
                                                **comp.indexed, kind="transformed_code",
                                                ok=True, **_lowered_entry(decompiled))
        self.lines.add_decompiled(self.path(comp.transformed_file), len(head), decompiled.lines,
                                  transformed.co_filename, "transformed code")
        if not self.run_dumped:
            return None
        frame = compiling_frame()
        return self._recompiled(comp.transformed_file, transformed, decompiled.bindings,
                                frame.globals if frame is not None else None, "%s's transformed code" % code.co_name)

    def _mark_discarded_graphs(self, comp):
        """The graphs of ``comp`` its transformed code calls none of: Dynamo compiled them,
        then traced the frame again (a restart) and made code that calls another.  Their
        files stay, said to be discarded, and are indexed as ``discarded_graph``."""
        called = {name for code in (comp.transformed, *from_dump.nested_codes(comp.transformed))
                  for name in code.co_names}
        for name, fname in comp.graph_files.items():
            if name in called:
                continue
            head, _, rest = from_dump.read(self.path(fname)).partition("\n")
            self.dump.rewrite(fname, "%s\n# Discarded: Dynamo traced the frame again after compiling it (a restart: "
                                     "summary.txt says why), and the code it made calls another graph; this one "
                                     "never runs.\n%s" % (head, rest))
            self.dump.retag(fname, kind="discarded_graph")
            self.lines.forget(self.path(fname))
        for fname, name in comp.made_from.items():     # what a backend made of a discarded graph
            if name is not None and name not in called:
                head, _, rest = from_dump.read(self.path(fname)).partition("\n")
                self.dump.rewrite(fname, "%s\n# Discarded: made from a graph Dynamo discarded (%s) when it traced the "
                                         "frame again; this code never runs.\n%s" % (head, comp.graph_files[name], rest))
                self.dump.retag(fname, discarded=True)
                self.lines.forget(self.path(fname))

    def _transformed_head(self, fn, comp, decompiled):
        head = ['# Transformed code of %s (compile %s): the bytecode Dynamo runs in place of the original'
                % (fn.code.co_name, comp.label),
                "# Original: %s:%d" % (fn.code.co_filename, fn.code.co_firstlineno)]
        names = comp.transformed.co_names
        created = [n for n in names if made_globals.made_by_dynamo(n)]
        if created:
            head.append("# Globals Dynamo created: " + ", ".join(created))
        if comp.graph_break is not None:
            head += ["# " + text for text in _break_text(comp.graph_break)]
        for f in comp.resume_functions:
            branch = (f.continues or {}).get("branch")
            head.append("# The rest runs in %s%s%s" % (
                f.resume_file, ", made as %s" % comp.resume_globals[f] if f in comp.resume_globals else "",
                " (the path on which the test at line %s %s)" % (
                branch["line"], summary.outcome_words(branch)) if branch else ""))
        if comp.resume_functions:
            head += readable.RESUME_CALL_NOTE
        head += readable.binding_notes(decompiled)
        return head + _free_variables_note(comp.transformed) + _lowered_note(decompiled)

    def _recompiled(self, fname, like, bindings, namespace, what):
        """``like`` compiled from dumped file ``fname``, its objects bound in ``namespace``."""
        try:
            if bindings and namespace is None:
                raise DecompilationError("no globals to bind %s in" % ", ".join(sorted(bindings)))
            code = from_dump.recompiled(self.path(fname), like)
            self.replaced.bind(namespace, bindings)
        except DecompilationError as exc:
            self.fail("running %s from %s" % (what, fname), exc, like)
            return None
        return code

    def on_resume_install(self, name, code, f_globals):
        fn = self.function(code)
        comp = self._current_compile()
        if fn not in comp.resume_functions:          # a recompile installs the same function again
            comp.resume_functions.append(fn)
        comp.resume_globals.setdefault(fn, name)
        if name not in fn.installed_as:
            fn.installed_as.append(name)
        if fn.resume_file is None:
            self.write_resume_function(fn, comp)
        if not self.run_dumped or fn.resume_source is None:
            return None
        ours = self._resume_runs.get(id(code))
        if ours is None:
            ours = self._resume_runs[id(code)] = self._recompiled(fn.resume_file, code, fn.bindings, f_globals,
                                                              "resume function %s" % code.co_name)
        return ours

    def write_resume_function(self, fn, comp):
        """The resume function's file; the graph broke for the last reason its compile logged."""
        line = fn.code.co_name.rpartition("_at_")[2]
        fn.graph_break = comp.graph_break
        fn.continues = self._continuation(fn)
        parent = fn.parent.code.co_name if fn.parent is not None else "?"
        head = ["# Resume function %s: Dynamo made it after a graph break; it runs the rest of %s"
                % (fn.code.co_name, parent), "# from line %s of %s." % (line, fn.code.co_filename)]
        if fn.key.rpartition(".")[2] != fn.code.co_name:     # (Dynamo names two at one line alike)
            head.append("# Another resume function has its name; this one's files and index.json entry are %s."
                        % fn.key)
        head += ["# " + text for text in _continues_text(fn.continues)]
        head += ["# Parameter `%s`: %s." % item for item in self._stack_values(fn).items()]
        head += ["# " + text for text in _break_text(fn.graph_break)]
        name = "%s.resume_function.py" % fn.key
        try:
            decompiled = readable.tidy(decompile_code(fn.code, bindings_prefix=bindings_prefix_for(fn.key)), fn.code)
        except DecompilationError as exc:
            fn.resume_file = self.dump.write(name, failure_text("decompile resume function %s" % fn.code.co_name,
                                                                fn.code, exc),
                                             function=fn.key, kind="resume_function", ok=False, error=str(exc))
            self.fail("decompiling resume function %s" % fn.code.co_name, exc, fn.code, detail=traceback.format_exc())
            return
        head += readable.binding_notes(decompiled)
        head += _free_variables_note(fn.code) + _lowered_note(decompiled)
        fn.resume_source, fn.bindings = decompiled.source, decompiled.bindings
        fn.resume_file = self.dump.write(name, "\n".join(head) + "\n" + decompiled.source, function=fn.key,
                                         kind="resume_function", ok=True, resumes=parent, line=line,
                                         **_lowered_entry(decompiled))
        self.lines.add_decompiled(self.path(fn.resume_file), len(head), decompiled.lines, fn.code.co_filename,
                                  "resume function")

    def _continuation(self, fn):
        """Where ``fn`` goes on, in the user's lines (Dynamo may have compiled code run from
        the dump, whose lines are the dump's)."""
        point = resume_point(fn.code)
        if point is None:
            return None
        try:
            where = resume_points.continuation(*point)
        except InternalError:               # a bug: reported as a failure, not taken for a refusal
            raise
        except DecompilationError:          # the canonical model refuses the code
            return None
        for part in (where, where["branch"]):
            if part is not None:
                part["filename"], part["line"] = self.lines.origin(part["filename"], part["line"])
                part["source"] = resume_points.source_line(part["filename"], part["line"])
        return where

    def _in_user_lines(self, explained):
        """A break Dynamo found while tracing code run from the dump names the dump's lines:
        the user's lines instead; and ``unveil run``'s own frames are not the user's."""
        explained["user_stack"] = self._user_frames(explained["user_stack"])
        where = explained["location"]
        if where is not None:
            where["filename"], where["line"] = self.lines.origin(where["filename"], where["line"])
            if explained["user_stack"]:
                explained["location"] = dict(explained["user_stack"][-1])
        return explained

    def _user_frames(self, frames):
        """``frames`` (outermost first) without ``unveil run``'s own, each at the user's line
        where it ran a dumped file (under debug(), Dynamo and Python name the dump's lines)."""
        return [dict(frame, **dict(zip(("filename", "line"), self.lines.origin(frame["filename"], frame["line"]))))
                for frame in records.without_launcher(frames, _LAUNCHER_FILES)]

    def on_trace(self, event, metadata, payload):
        comp = self._current_compile(record_compile_id(metadata))
        if event == TRACE_METRICS:
            comp.outcome = records.frame_outcome(metadata[event])
            failure = comp.outcome["failure"]
            comp.went_on = failure is not None and not comp.outcome["compiled"] and error_went_on(
                failure["type"], metadata[event].get("config_suppress_errors"))
            if comp.stack is not None:          # (complete, where Dynamo's misses the frames running its code)
                comp.outcome["stack"] = comp.stack
            # (the stack a compile was reached by starts at the program, not at unveil run; under
            # debug() its frames running the dumped files are the user's lines they run)
            comp.outcome["stack"] = self._user_frames(comp.outcome["stack"])
            return
        if event == "artifact":
            kind = TRACE_ARTIFACTS[metadata["artifact"]["name"]]
        else:
            kind = TRACE_KINDS[event]
        self.events.setdefault((comp.generation, comp.cid), []).append((kind, payload, metadata))
        if kind == "break_reason" and payload:
            comp.breaks.append(self._in_user_lines(records.graph_break(payload)))
        if kind == "kernel_stack_traces" and payload:
            self._kernel_lines(comp, payload)
        if kind == "kernel_nodes" and payload and comp.backend_files.get("inductor_output"):
            mappings = json.loads(payload)
            self.dump.retag(comp.backend_files["inductor_output"][-1],
                            kernel_nodes=kernel_calls.kernel_nodes(mappings),
                            kernel_post_grad_nodes=kernel_calls.kernel_post_grad_nodes(mappings))
        if kind in AOT_GRAPH_KINDS and comp.graph_modules_logged[kind]:
            comp.graph_modules_logged[kind] -= 1          # dumped already, from its graph module
        elif payload and kind in BACKEND_TEXT_KINDS:
            fname = self._write_backend(comp, kind, self._graph_text(backend_file_text(kind, comp, payload)))
            module_path = (metadata.get(event) or {}).get("filename") if kind == "inductor_output" else None
            if module_path and self.run_dumped:
                self._inductor_files[module_path] = fname
                module = inductor_module(module_path)      # loaded already on a cache hit
                if module is not None:
                    self.on_inductor_module(module_path, module)

    def _kernel_lines(self, comp, payload):
        """Inductor's provenance record follows the code it is of: the lines of the user's
        that the kernel calls of this compile's last Inductor file compute."""
        files = comp.backend_files.get("inductor_output")
        if files:
            path = self.path(files[-1])
            graph = comp.graph_files.get(comp.made_from.get(files[-1]))
            self.lines.add_kernels(path, from_dump.read(path), json.loads(payload),
                                   self.path(graph) if graph is not None else None)

    def _write_backend(self, comp, kind, text):
        files = comp.backend_files.setdefault(kind, [])
        suffix = "_%d" % len(files) if files else ""
        fname = self.dump.write("%s.%s.%s%s.py" % (comp.fn.key, comp.tag, kind, suffix), text,
                                **comp.indexed, kind=kind, ok=True, **_made_from_fields(comp, kind))
        files.append(fname)
        comp.made_from[fname] = comp.graphs[-1][0] if comp.graphs else None
        if kind == "post_grad_graph":
            comp.post_grad_file = fname
        elif kind == "inductor_output":
            comp.post_grad_file = None
        return fname

    def on_graph(self, name, gm):
        comp = self._current_compile(graph_compile_id(gm))
        text = self._graph_text(graph_file_text(name, gm))
        comp.graphs.append((name, text))
        nth = "" if len(comp.graphs) == 1 else "_%d" % (len(comp.graphs) - 1)   # the global's number is process-wide
        fname = comp.graph_files[name] = self.dump.write(
            "%s.%s.graph%s.py" % (comp.fn.key, comp.tag, nth), text,
            **comp.indexed, kind="graph", graph=name, ok=True)
        self.lines.add_graph(self.path(fname), text, "graph", node_stacks(gm))
        if self.run_dumped:
            self._track(gm, fname, lambda g: self._graph_text(graph_file_text(name, g)))

    def on_aot_graph(self, kind, gm):
        if not self.run_dumped:
            return        # (another session's) the structured trace has the same text
        comp = self._current_compile()
        comp.graph_modules_logged[kind] += 1
        text = self._graph_text(aot_file_text(kind, comp, gm))
        fname = self._write_backend(comp, kind, text)
        self.lines.add_graph(self.path(fname), text, kind.replace("_", " ") + " graph", node_stacks(gm))
        if self.run_dumped:
            self._track(gm, fname, lambda g: self._graph_text(aot_file_text(kind, comp, g)))

    # -- graph code run from the dump ----------------------------------------------
    def _track(self, gm, fname, render):
        """Run ``gm``'s ``forward`` (and that of its copies, such as the one AOT Autograd
        compiles of the backward graph) from dumped file ``fname``."""
        self._tracked[gm] = (fname, render)
        force_recompile(gm)      # a lazily compiled module makes its forward now
        self.on_recompile(gm)

    def on_graph_copy(self, gm, copy):
        tracked = self._tracked.get(gm)
        if tracked is not None:
            self._track(copy, *tracked)

    def on_recompile(self, gm):
        """A graph module's ``forward`` was made anew: from our file, if it is a graph we dumped."""
        if not self.run_dumped:
            return
        tracked = self._tracked.get(gm)
        if tracked is None:
            return
        fname, render = tracked
        forward = type(gm).__dict__.get("forward")
        if not isinstance(forward, types.FunctionType) or forward.__code__.co_filename == self.path(fname):
            return
        text, current = render(gm), from_dump.read(self.path(fname))
        if text != current:               # a backend changed the module in place, after it was handed over
            head, _, rest = text.partition("\n")
            text = "%s\n%s\n%s" % (head, _REWRITTEN_NOTE, rest)
            if text != current:
                self.dump.rewrite(fname, text)
                self.lines.add_graph(self.path(fname), text, None, node_stacks(gm))
        try:
            code = from_dump.same_function_from(self.path(fname), forward.__code__, "%s.forward" % class_name(gm),
                                                imports=False)
        except DecompilationError as exc:
            self.fail("running the graph's forward from %s" % fname, exc)
            return
        self.replaced.replace_code(forward, code)
        self._subgraphs_from_dump(fname, gm)

    def _subgraphs_from_dump(self, fname, gm):
        """The graph modules ``gm`` holds (torch.cond's branches, a checkpointed region's
        body), which its file writes as classes nested in its own: their ``forward`` runs
        from there too."""
        for path, sub in subgraph_modules(gm):
            forward = type(sub).__dict__.get("forward")
            if not isinstance(forward, types.FunctionType) or forward.__code__.co_filename == self.path(fname):
                continue
            try:
                code = from_dump.same_function_from(self.path(fname), forward.__code__,
                                                    ".".join([class_name(gm)] + path + ["forward"]), imports=False)
            except DecompilationError as exc:
                self.fail("running the subgraph %s's forward from %s" % (".".join(path), fname), exc)
                continue
            self.replaced.replace_code(forward, code)

    def on_inductor_module(self, path, module):
        fname = self._inductor_files.get(path)
        call = getattr(module, "call", None)
        function = getattr(call, "__func__", call)
        if fname is None or not isinstance(function, types.FunctionType):
            return
        if function.__code__.co_filename == self.path(fname):
            return
        try:
            code = from_dump.same_function_from(self.path(fname), function.__code__,
                                                getattr(function.__code__, "co_qualname", "call"))
        except DecompilationError as exc:
            self.fail("running Inductor's call from %s" % fname, exc)
            return
        self.replaced_shared.replace_code(function, code)

    # -- the end of the block ---------------------------------------------------
    def finish(self, short_of_end=None):
        """Write the guards, full code, summary and index.  A block in which nothing was
        compiled leaves the directory as it was (a mistyped command must not wipe the last
        dump); one that may have stopped short of its end (``short_of_end``, as
        :func:`_short_of_its_end` says: a debugger quit early, a ``sys.exit(1)``) keeps the
        last run's files it did not write again, and says so."""
        if not self.functions and not self.failures:
            return
        for fn in list(self.functions.values()):
            self.guarded("write_guards", fn)
        for fn in list(self.functions.values()):
            if not fn.is_resume and fn.entries:
                self.guarded("write_full_code", fn)
        self.dump.functions = [fn.describe() for fn in self.functions.values()]
        self.dump.compiles = [c.describe() for fn in self.functions.values() for c in fn.compiles]
        self.dump.generation = self.generation
        self.dump.counts = summary.counts(self.dump.compiles)
        self.dump.line_map = self.lines.table(self.dump.path)
        kept = self.dump.stale_files() if short_of_end is not None else []
        self.dump.write_summary(summary.summary_text(self.dump.functions, self.dump.compiles,
                                                         self.failures, self.run_dumped, short_of_end, kept))
        self.index_file = self.dump.write_index(self.failures, short_of_end, kept)
        if self.rank is not None:
            ranks.write_ranks_index(self.dump_dir)

    def write_guards(self, fn):
        """The guards file of each cache entry of ``fn``'s: those Dynamo holds, those it held
        before a reset, and those it dropped; and every compile's recompile reasons, its
        entry's or not.  ``fn.entries`` are those Dynamo holds at the end, the ones a call
        runs (a reset emptied Dynamo's cache of the others, and a dropped one no call runs)."""
        fn.entries = []
        by_code = {(id(comp.transformed), comp.generation): comp for comp in fn.compiles
                   if comp.transformed is not None}
        found = {}         # Compile -> (its CacheEntry, why Dynamo dropped it or None)
        held = fn.captured + [(e, self.generation) for e in cache_entries(fn.frame_code)]
        for entry, generation, dropped in [(e, g, None) for e, g in held] + self.dropped:
            comp = by_code.get((id(self.dynamo_code(entry.transformed)), generation))
            if comp is None or comp in found:
                continue
            found[comp] = (entry, dropped)
            if dropped is None and generation == self.generation:
                fn.entries.append((entry, comp))
            fn.globals = guard_globals(entry)
            if fn.globals is not None:
                fn.module, fn.import_name = _module_names(fn.globals, fn.module)
        identities = self._identity_names()
        # oldest first: a recompile reason names the line of an earlier entry's guards
        for comp in fn.compiles:
            comp.recompile_reasons = self._recompile_reasons(fn, comp)
            for reason in comp.recompile_reasons:
                checked = identity_checked((reason.get("unreadable") or {}).get("checks") or reason["guard"],
                                           identities)
                if checked is not None:
                    reason["identity"] = readable_identity(checked)
            if comp not in found:       # no entry: the recompile limit, or dropped unseen
                continue
            entry, comp.dropped = found[comp]
            guards = comp.guards = guards_text(fn, comp, entry, comp.recompile_reasons, identities,
                                               self._note_in_user_lines(fn))
            text = guards.file_text()
            fn.globals_by_id.update(_globals_by_id(text, fn.globals))
            written = {"error": "%d guard(s) with no Python form, assumed to pass: %s"
                       % (len(guards.untranslated), guards.untranslated[0])} if guards.untranslated else {}
            if comp.dropped is not None:
                written["dropped"] = comp.dropped
            self.dump.write("%s.%s.guards.py" % (fn.key, comp.tag), text, **comp.indexed, kind="guards", ok=not guards.untranslated,
                            untranslated=guards.untranslated, **written)

    def _recompile_reasons(self, fn, comp):
        """Why ``comp`` was compiled anew, parsed; a resume function's stack slots
        (``___stack0``) named by what the user's code had put there."""
        reasons = [r for payload in self.reasons(comp, "recompile_reason")
                   for r in records.recompile_reasons(payload, _shortened_path_resolver(fn.code.co_filename))]
        if not reasons:
            return reasons
        names = self._stack_values(fn)
        for reason in reasons:
            failed = next((c for c in fn.compiles if (c.cid, c.generation) == (reason["failed_entry"], comp.generation)
                           and c.guards is not None), None)
            guard = failed.guards.guard_of(reason["guard"]) if failed is not None else None
            if guard is not None and not reason["location"]:
                # (``tensor 'x' size mismatch`` names no line: the guard's own note on its value does)
                noted = records.note_source(source_note(guard.part), _shortened_path_resolver(fn.code.co_filename))
                if noted["location"]:
                    reason.update(noted, user_stack=[dict(noted["location"])])
            self._reason_in_user_lines(reason)
            # (in tensor 'X' size mismatch, X is Python, though quoted)
            used = names_in(reason["guard"], names) | names_in(records.checked_tensor(reason["guard"]) or "", names)
            if used:
                reason["names"] = {slot: names[slot] for slot in used}
            reason["guard_line"] = failed.guards.line_of(guard) if guard is not None else None
            unreadable = records.unreadable_value(reason["guard"])
            if unreadable is not None:
                # (the reason gives no id: the guard that could not read its value checks one)
                reason["unreadable"] = {"value": user_form(unreadable[1]), "why": unreadable[0],
                                        "checks": guard.part.partition("#")[0].strip() if guard is not None else None}
        return reasons

    def _stack_values(self, fn):
        """``{slot: what it is}`` for a resume function's stack slots (``___stack0``): what the
        user's code had put on the stack at the break; empty where that cannot be told."""
        slots = [n for n in fn.code.co_varnames if n.startswith("___stack")]
        point = resume_point(fn.code) if fn.is_resume and slots else None
        return resume_points.stack_names(point[0], point[1], slots, self._user_line(point[0])) \
            if point is not None else {}

    def _user_line(self, code):
        """``line -> the user's line`` for lines of ``code`` (a dumped file's when Dynamo
        traced code run from the dump)."""
        return lambda line: self.lines.origin(code.co_filename, line)[1]

    def _reason_in_user_lines(self, reason):
        """A recompile reason Dynamo gave while tracing code run from the dump names the
        dumped file's line and text: the user's instead."""
        reason["user_stack"] = self._user_frames(reason.get("user_stack") or [])
        where = reason.get("location")
        if not where:
            return
        path, line = self.lines.origin(where["filename"], where["line"])
        if (path, line) != (where["filename"], where["line"]):
            where["filename"], where["line"] = path, line
            reason["source"] = records.code_of_line(resume_points.source_line(path, line) or "") or reason["source"]

    def _note_in_user_lines(self, fn):
        """``note -> note``: a guard's comment that names a line of a dumped file (Dynamo
        traced code run from the dump, ``debug()``) names the user's line and its text instead,
        its path shortened as torch shortened the dumped one.  (Only dumped files are looked
        for: no loaded module's file is one, and a function has hundreds of guard notes.)"""
        dumped = self.lines.dumped_files()

        def in_user_lines(note):
            place = records.guard_place(note) if dumped else None
            if place is None:
                return note
            short, line = place
            found = [path for path in dumped if path.endswith(short)]
            if len(found) != 1:
                return note
            user, user_line = self.lines.origin(found[0], line)
            if (user, user_line) == (found[0], line):
                return note
            text = resume_points.source_line(user, user_line)
            return records.with_guard_place(note, shortened_as_torch_writes(user), user_line, text)
        return in_user_lines

    def write_full_code(self, fn):
        text = full_code_text(fn, self)
        self.dump.write("%s.full_code.py" % fn.key, text, function=fn.key, kind="full_code", ok=True)


def _short_of_its_end(exc):
    """How a block that ``exc`` left may have stopped short of its end, as the index says
    it: ``{"ended_early": its last line}`` for an exception, ``{"exit_status": N}`` for a
    ``sys.exit`` of a nonzero status (the program chose to end, maybe before its work was
    done); ``None`` for a normal end, ``sys.exit(0)`` (``sys.exit(main())``) too."""
    if exc is None:
        return None
    if isinstance(exc, SystemExit):
        status = exit_status(exc.code)
        return {"exit_status": status} if status else None
    return {"ended_early": "".join(traceback.format_exception_only(type(exc), exc)).strip().splitlines()[-1]}


def _module_names(namespace, default=None):
    """A module's name (its globals' ``__name__``, ``default`` if none) and, for ``__main__``
    run with ``python -m pkg.mod`` (or ``unveil run -m``), the name it imports by, which its
    relative imports need in a new process (else None)."""
    name = namespace.get("__name__", default)
    spec = namespace.get("__spec__")
    return name, getattr(spec, "name", None) if name == "__main__" else None


def _shortened_path_resolver(filename):
    """``path -> file``: the one file, of the compiled frame's and the loaded modules', that a
    path torch shortened (``symg/s.py``, or ``mp/ex/m.py`` cut inside a directory's name) is
    the end of; None when none is, or several are."""
    def resolve(path):
        files = {filename} | {getattr(m, "__file__", None) or "" for m in list(sys.modules.values())}
        found = [f for f in files if f == path or f.endswith(path) and os.path.isabs(f)]
        return found[0] if len(found) == 1 else None
    return resolve


def _made_from_fields(comp, kind):
    """What a backend file's index entry says it was made from: Dynamo's graph (its global,
    ``made_from``) and, for Inductor's code, the post-grad graph file written for it
    (``post_grad_graph``: Inductor logs that graph just before the code, on a cache hit too)."""
    fields = {"made_from": comp.graphs[-1][0]} if comp.graphs else {}
    if kind == "inductor_output" and comp.post_grad_file is not None:
        fields["post_grad_graph"] = comp.post_grad_file
    return fields


def _globals_by_id(guards_text_, globals_):
    """The globals Dynamo installed by an object's id that the guards read, each as another
    process imports it (``why-recompile`` on the dump loads the module afresh, without them)."""
    found = {}
    for name in made_globals.GUARD_READS_BY_ID.findall(guards_text_):
        where = importable_as(globals_[name]) if globals_ is not None and name in globals_ else None
        if where is not None:
            found[name] = where
    return found


#: the files of unveil's that start a program (``unveil run``, ``python -m unveil run``)
_LAUNCHER_FILES = frozenset(os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), name)
                            for name in ("__main__.py", "cli.py", "runner.py"))


#: stands for the frame of a compile no hook named (its files are named after it)
_UNKNOWN_CODE = compile("pass", "<unknown>", "exec").replace(co_name="unknown_frame")


#: a resume function of a resume function Dynamo did not make (one run from the dump):
#: Dynamo names it after that function's name, so the prefix and the lines repeat
_NESTED_RESUME = re.compile(r"(?:%s)+(.*?)(?:_at_\d+)*(_at_\d+)$" % RESUME_PREFIX)


_UNTESTED_NOTED = []


#: the directory of unveil's package: a warning about a block names the user's line, outside it
_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def _outside_unveil():
    """The ``stacklevel`` for :func:`warnings.warn`, called by the caller of this, of the
    first frame outside unveil (``with unveil.debug(...)`` enters ``prepare_debug``'s
    ``__enter__`` through its own)."""
    level, frame = 1, sys._getframe(1)
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE_DIR):
        level, frame = level + 1, frame.f_back
    return level


def _note_untested_torch():
    """Once per process: a note that this torch is newer than unveil was tested with."""
    note = versions.untested_torch()
    if note is not None and not _UNTESTED_NOTED:
        _UNTESTED_NOTED.append(note)
        warnings.warn("unveil: " + note, UnveilWarning, stacklevel=_outside_unveil())


def _resume_name_once(qualname):
    """``torch_dynamo_resume_in_f_at_12`` for ``torch_dynamo_resume_in_torch_dynamo_resume_in_f_at_10_at_12``:
    the name Dynamo gives the resume function when it made the function resumed itself."""
    head, dot, name = qualname.rpartition(".")
    match = _NESTED_RESUME.fullmatch(name)
    if match is None:
        return qualname
    return head + dot + RESUME_PREFIX + match.group(1) + match.group(2)


def _lowered_entry(decompiled):
    """``{"lowered": [...]}`` for index.json: each code object of the file the decompiler
    wrote as a state machine, and why it could not structure it; empty when none."""
    return {"lowered": ["%s (line %s): %s" % low for low in decompiled.lowered]} if decompiled.lowered else {}


def _lowered_note(decompiled):
    return ["# %s is written as a state machine: the decompiler could not structure it (%s, line %s)"
            % (low.name, low.reason, low.line) for low in decompiled.lowered]


def _free_variables_note(code):
    if not code.co_freevars:
        return []
    return ["# %s reads %s from the function it was made in: the def is written inside %s, whose"
            % (code.co_name, ", ".join(code.co_freevars), ENCLOSING_SCOPE),
            "# locals these are (at run time, the cells of that function's frame)."]


def _break_text(explained):
    """Comment lines: why the graph broke, where, and what Dynamo suggests."""
    if not explained:
        return []
    out = ["Why the graph broke: " + explained["reason"]]
    if explained.get("inside"):
        out.append("  while tracing the body of %s, a higher-order operator" % explained["inside"])
    if explained["location"]:
        where = explained["location"]
        out.append("  at %s:%d%s" % (where["filename"], where["line"],
                                     " in %s" % where["function"] if where.get("function") else ""))
    if explained["explanation"]:
        out += ["  " + line for line in explained["explanation"].splitlines()]
    out += ["  Hint: " + hint.replace("\n", "\n    ") for hint in explained["hints"]]
    if explained["url"]:
        out.append("  More: " + explained["url"])
    return [line.replace("\n", "\n# ") for line in out]


def _continues_text(where):
    if not where or not where["line"]:
        return []
    source = " (`%s`)" % where["source"] if where["source"] else ""
    if where.get("after_call"):
        out = ["It goes on in line %d%s, right after the call there that broke the graph: the transformed code "
               "makes that call, then calls this function." % (where["line"], source)]
    else:
        out = ["It goes on from line %d%s." % (where["line"], ": `%s`" % where["source"] if where["source"] else "")]
    branch = where["branch"]
    if branch:
        out.append("That is the path on which the test at line %d (`%s`) %s." % (
            branch["line"], branch["source"] or "?", summary.outcome_words(branch)))
    return out


#: the second line of a graph file written again when the backend changed its module in
#: place (Inductor's post-grad passes: ``view`` to ``reshape``): run from the dump, the file
#: is what the module then is; without run_dumped it keeps the graph as handed over
_REWRITTEN_NOTE = ("# Written again: the backend changed this graph module in place after it was handed over "
                   "(prepare_debug without run_dumped keeps the graph as it was handed over)")
