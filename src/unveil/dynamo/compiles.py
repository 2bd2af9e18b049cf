"""What a debugging session records of each compile (:class:`Compile`) and of each code
object Dynamo compiled (:class:`Function`), and how each reads in ``index.json``
(``describe``)."""
import collections
import types

from ..dump_index import compile_label
from .adapter.compile_outcomes import stopped_at_limit
from .explanations import records, resume_points

RESUME_PREFIX = "torch_dynamo_resume_in_"


class Compile:
    """One Dynamo compile of one code object: one cache entry, its graphs and backend output."""

    def __init__(self, cid, fn, generation):
        self.cid = cid
        self.fn = fn
        self.generation = generation         # torch._dynamo.reset()s seen before it
        self.code = None                     # the code object Dynamo compiled (the frame's)
        self.transformed = None              # Dynamo's transformed code (the bytecode hook)
        self.function_modes = []
        self.transformed_file = None
        self.graphs = []                     # (Dynamo's global name of a graph, file text)
        self.graph_files = {}                # Dynamo's global name of a graph -> its file
        self.backend_files = {}              # kind (aot_forward, inductor_output, ...) -> [files]
        self.made_from = {}                  # a backend file -> the graph (Dynamo's global name) it was made from
        self.post_grad_file = None           # the post-grad graph file Inductor's next output file is made from
        self.graph_modules_logged = collections.Counter()   # AOT graphs dumped from the module, by kind
        self.source = None                   # decompiled transformed code, when it worked
        self.bindings = {}                   # objects its text names (Decompiled.bindings)
        self.guards = None                   # guards_file.GuardsText
        self.dropped = None                  # why Dynamo dropped its cache entry before the block ended
        self.breaks = []                     # records.graph_break of each break logged
        self.outcome = None                  # records.frame_outcome, when Dynamo logged its metrics
        self.resume_functions = []           # Functions installed while it ran
        self.resume_globals = {}             # Function -> the global Dynamo installed it as
        self.recompile_reasons = []          # records.recompile_reasons: why it was compiled anew
        self.fullgraph = False               # torch.compile(fullgraph=True): a break is an error
        self.went_on = False                 # the error that ended the compile went on to the program
        self.unveil_seconds = 0.0            # spent in unveil's hooks while Dynamo compiled it (in its times)
        self.wraps = None                    # for torch's wrap_inline frame: the name of what it calls
        self.stack = None                    # the Python stack that reached it (adapter.frames.CompilingFrame.stack)

    @property
    def graph_break(self):
        """The break this compile's graph ended at: the last one logged (Dynamo logs a
        break, then traces the frame again up to it).  For a frame Dynamo skipped, the
        first break, which set it off."""
        if not self.breaks:
            return None
        return self.breaks[0 if self.transformed is None and self.outcome is not None else -1]

    def describe(self):
        outcome = self.outcome or {}
        return {"function": self.fn.key, "compile_id": self.cid, "generation": self.generation,
                "compiled": self.transformed is not None, "graph_break": self.graph_break,
                "resume_functions": [f.key for f in self.resume_functions],
                "interrupted": bool(outcome.get("interrupted")) and self.transformed is None,
                **self._ending(),
                "restarts": outcome.get("restarts", []),
                "recompile_reasons": self.recompile_reasons, "times": outcome.get("times", {}),
                "caches": outcome.get("caches", {}), "stack": outcome.get("stack", []),
                "unveil_seconds": round(self.unveil_seconds, 4), "wraps": self.wraps,
                "untranslated_guards": list(self.guards.untranslated) if self.guards is not None else [],
                "dropped": self.dropped}

    def skipped(self):
        """Why Dynamo made no code for this frame, or None: the failure its metrics name, and
        the break that made it give up on the whole frame.  (With fullgraph=True, or for an
        error other than a graph break, the error reached the program instead of the frame
        running as it is: ``describe`` calls that failed.)"""
        outcome = self.outcome or {}
        if self.transformed is not None or outcome.get("compiled", True) or outcome.get("interrupted"):
            return None
        skipped = dict(outcome["failure"] or {"type": None, "reason": None, "location": None})
        skipped["because"] = None
        if self.breaks:                          # the last break logged made Dynamo give up
            explained = self.breaks[-1]
            skipped["because"] = explained["also"][-1] if explained["also"] else \
                {k: explained[k] for k in ("reason", "explanation", "hints", "url")}
            skipped["location"] = explained["location"] or skipped["location"]
            skipped["inside_try"] = self._break_inside_try(explained)
        return skipped

    def _break_inside_try(self, explained):
        """The line of this frame the break happened at (its own, or the call that led to it)
        when that line is inside a ``try`` block: Dynamo makes no resume function there and
        so gives up on the whole frame; else None."""
        code = self.fn.code
        own = [f for f in explained["user_stack"] if f["filename"] == code.co_filename
               and f.get("function") == code.co_name]
        if not own or not resume_points.in_try_block(code, own[-1]["line"]):
            return None
        return own[-1]["line"]

    def _ending(self):
        """How a compile that made no code ended, one of three (the others None): ``failed``
        (fullgraph=True, or an error that reached the program), ``at_limit`` (Dynamo's
        recompile limit stopped it and the frame's entries still run:
        ``adapter.compile_outcomes.stopped_at_limit``) or ``skipped`` (the frame runs as it is)."""
        ended = self.skipped()
        out = {"skipped": None, "failed": None, "at_limit": None}
        if ended is None:
            return out
        if self.fullgraph or self.went_on:
            out["failed"] = ended
        elif stopped_at_limit(ended.get("reason")):
            out["at_limit"] = {"type": ended.get("type"), "reason": ended["reason"]}
        else:
            out["skipped"] = ended
        return out

    @property
    def indexed(self):
        """What ``index.json`` says of each of its files: whose compile it is."""
        return {"function": self.fn.key, "compile_id": self.cid, "generation": self.generation}

    @property
    def label(self):
        return compile_label(self.cid, self.generation)

    @property
    def tag(self):
        return compile_tag(self.cid, self.generation)


def compile_tag(cid, generation):
    """A compile's name in the dump's file names and the functions they define:
    ``compile_0_1``, ``compile_0_1_reset1``."""
    return "compile_" + compile_label(cid, generation).replace("/", "_")


class Function:
    """A code object Dynamo compiled (a user function or a resume function)."""

    def __init__(self, code, key, generation):
        self.code = code
        self.key = key
        self.generation = generation         # the Compile.generation it was first seen in (a resume
                                             # function's: torch._dynamo.reset() makes Dynamo make them anew)
        self.frame_code = code               # the code whose frames Dynamo sees (ours when run from the dump)
        self.compiles = []
        self.entries = []                    # (adapter.cache.CacheEntry, Compile), in Dynamo's order
        self.captured = []                   # cache entries taken before a torch._dynamo.reset()
        self.globals = None                  # the frame's globals, from a guard
        self.module = None                   # the frame's module's name (its globals' __name__)
        self.import_name = None              # for a __main__ run with -m: the name it imports by
        self.resume_source = None
        self.is_resume = code.co_name.startswith(RESUME_PREFIX)
        self.parent = None
        self.resume_file = None
        self.installed_as = []               # a resume function's globals (or factories) in its module
        self.graph_break = None              # records.graph_break that made this resume function
        self.continues = None                # where it goes on in the user's code
        self.bindings = {}                   # objects the decompiled resume function names
        self.globals_by_id = {}              # a global Dynamo installed by id that guards read -> importable_as

    def describe(self):
        return {"name": self.code.co_name, "qualname": getattr(self.code, "co_qualname", self.code.co_name),
                "filename": self.code.co_filename, "line": self.code.co_firstlineno,
                "kind": "resume" if self.is_resume else "function", "key": self.key,
                "resumes": self.parent.key if self.parent is not None else None,
                "module": self.module, "import_name": self.import_name, "freevars": list(self.code.co_freevars),
                "source_lines": _source_lines(self.code),
                "installed_as": self.installed_as,
                "resume_reason": records.one_line(self.graph_break),
                "graph_break": self.graph_break, "continues": self.continues,
                "compiles": [c.label for c in self.compiles if c.transformed is not None],
                "compiles_without_code": [c.label for c in self.compiles if c.transformed is None],
                "globals_by_id": self.globals_by_id}


def _source_lines(code):
    """``[first, last]``: the lines of the user's file a code object runs (a resume
    function's: from the break on), from its line table (lines of nested code included)."""
    lines = [code.co_firstlineno]
    todo = [code]
    while todo:
        current = todo.pop()
        lines += [line for _, _, line in current.co_lines() if line]
        todo += [c for c in current.co_consts if isinstance(c, types.CodeType)]
    return [min(lines), max(lines)]
