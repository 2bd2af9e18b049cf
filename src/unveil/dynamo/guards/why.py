"""Why a call would recompile: each cache entry's guards, as Python, on the call's inputs.

For every cache entry of a compiled function, in the order Dynamo tries them,
the entry's guard function (the dumped ``guards.py``, or the same text made from
the live cache entry) is run condition by condition on the frame's locals the
call would have.  The first condition that fails is named with the values it
reads and the user's line Dynamo made it from; the first entry whose conditions
all hold is the one that runs, and if none does, Dynamo compiles anew.
"""
import ast
import collections
import inspect
import json
import os
import re

import torch

from ...dump_index import at_the_end, compile_label, label_of, ran_in, source_path
from ..adapter.cache import cache_entries
from ..adapter.compile_outcomes import given_up_on, recompile_limit, skipped_by_trace_rules
from ..adapter.frames import callable_name, compile_wrapped, inline_wrapped, original_callable
from ..adapter.guard_checks import sympy_interp
from . import runtime as guard_runtime
from .conditions import UNTRANSLATED, GuardWriter
from .reached import breaks as reached_frames_break, lines as reached_lines, reached_in_dump, reached_live
from .functions import GUARD_PARAMS, guard_function_name
from ..compiles import compile_tag
from ..dump.script_runtime import imported, module_globals


class EntryVerdict:
    """One cache entry on the inputs: passes, or the first condition that fails."""

    def __init__(self, compile_id, passes, condition=None, comment=None, values=None, error=None, detail=None):
        self.compile_id = compile_id
        self.assumed = []               # the conditions that held by an assumption (another process's ids)
        self.detail = detail            # for a tensor check: which property differs
        self.passes = passes
        self.condition = condition      # the failing condition's Python text
        self.comment = comment          # what it checks, and the user's line it came from
        self.values = values or {}      # source text of each value it reads -> a description
        self.error = error              # a value it reads is missing (Dynamo's accessor fails too)
        self.untranslated = []          # Dynamo's guards unveil could not translate: assumed to pass

    def lines(self):
        assumed = ["    (assumed to hold, as they compare the compiling process's objects: %s)" % _listed(self.assumed)
                   ] if self.assumed else []
        if self.untranslated:
            assumed.append("    (%d of Dynamo's guards unveil could not translate, not checked and assumed to pass: %s)"
                           % (len(self.untranslated), "; ".join(self.untranslated)))
        if self.passes:
            return ["compile %s: every guard passes" % self.compile_id] + assumed
        out = ["compile %s: fails %s" % (self.compile_id, self.condition)] + assumed
        if self.detail:
            out.append("    " + self.detail)
        if self.comment:
            out.append("    " + self.comment)
        out += ["    %s is %s" % (name, value) for name, value in self.values.items()]
        if self.error:
            out.append("    reading it failed: " + self.error)
        return out


class WhyRecompile:
    """What Dynamo would do on a call: each entry's verdict, and the entry that runs;
    ``notes``: what the answer rests on; ``given_up``: ``(compile id, reason)`` when Dynamo
    gave up on the frame (then it runs it as it is, whatever the guards say); ``skipped``:
    why Dynamo's trace rules never let it compile the frame;
    ``limit``: the number of entries past which Dynamo compiles no more."""

    def __init__(self, function, verdicts, notes=(), given_up=None, limit=None, reached=(), live=True, wrapped=(),
                 skipped=None):
        self.function = function
        self.verdicts = verdicts
        self.notes = list(notes)
        self.given_up = given_up
        self.skipped = skipped
        self.limit = limit
        self.reached = list(reached)    # reached.Reached: frames compiled on their own past its breaks
        self._live = live
        self.wrapped = list(wrapped)    # WhyRecompile of a function it wraps, called past a break with its arguments

    @property
    def runs(self):
        """The compile id of the entry that runs, or ``None`` (a new compile, or the frame as
        it is: see :attr:`recompiles`)."""
        if self.given_up is not None or self.skipped is not None:
            return None
        return next((v.compile_id for v in self.verdicts if v.passes), None)

    @property
    def recompiles(self):
        """Whether Dynamo compiles the frame anew on this call."""
        return self.given_up is None and self.skipped is None and self.runs is None and not self._at_limit()

    def _at_limit(self):
        return self.limit is not None and len(self.verdicts) >= self.limit

    def __str__(self):
        out = ["%s: %d cache entr%s, in the order Dynamo tries them" % (
            self.function, len(self.verdicts), "y" if len(self.verdicts) == 1 else "ies")]
        if self.wrapped:       # (each frame's verdict comes below its own entries: the whole first)
            out.insert(0, "In all, for this call: " + "; ".join(
                "%s: %s" % (answer.function, answer._verdict()) for answer in [self] + self.wrapped) + ".")
        if self.given_up is not None:
            out.append("=> Dynamo gave up on this frame at compile %s (%s): every call runs it as it is, with no "
                       "guard checked and no compile tried" % self.given_up)
            return "\n".join(out + self._beyond())
        if self.skipped is not None:
            out.append("=> Dynamo never compiles this frame (%s): every call runs it as it is" % self.skipped)
            return "\n".join(out)
        for verdict in self.verdicts:
            out += ["  " + line for line in verdict.lines()]
            if verdict.passes:
                break
        out += self.notes
        out.append("=> " + self._outcome(self.verdicts))
        return "\n".join(out + self._beyond())

    def _verdict(self):
        """What Dynamo does with this frame on the call, in a few words."""
        if self.given_up is not None:
            return "runs as it is (Dynamo gave up on it at compile %s)" % self.given_up[0]
        if self.skipped is not None:
            return "runs as it is (Dynamo never compiles it)"
        return self._outcome(self.verdicts)

    def _outcome(self, verdicts):
        """What Dynamo does when ``verdicts`` are the entries it tries; an entry that passes
        only if checks unveil assumed or could not translate hold is said so, and what
        happens if they do not."""
        runs = next((v for v in verdicts if v.passes), None)
        if runs is None:
            if self._at_limit():
                return "no entry's guards pass, and the frame has Dynamo's limit of %d entries: it runs as it " \
                       "is, not compiled anew" % self.limit
            return "no entry's guards pass: Dynamo compiles anew"
        unsure = []
        if runs.untranslated:
            unsure.append(_counted(len(runs.untranslated), "its guard unveil could not check passes",
                                   "its %d guards unveil could not check pass"))
        if runs.assumed:
            unsure.append(_counted(len(runs.assumed), "its check assumed over a dump (%s) holds",
                                   "its %d checks assumed over a dump (%s) hold") % _listed(runs.assumed))
        if not unsure:
            return "compile %s runs" % runs.compile_id
        return "compile %s runs, if %s; if not, %s" % (runs.compile_id, " and ".join(unsure),
                                                      self._outcome(verdicts[verdicts.index(runs) + 1:]))


    def _beyond(self):
        """What the call reaches past this frame's graph breaks."""
        out = []
        for inner in self.wrapped:
            out += ["Past a graph break it calls %s, the function it wraps (its __wrapped__), which Dynamo compiled "
                    "as a frame of its own; asked with the same arguments, as a decorator passes them on, and its "
                    "global-state check (grad mode, autocast, ...) assumed to hold, as the wrapper may set that "
                    "state (an optimizer's sets grad mode):" % inner.function, str(inner)]
        return out + reached_lines(self.reached, self._live)


def why_recompile(fn, *args, **kwargs):
    """What Dynamo does when compiled ``fn`` is called with ``args`` and ``kwargs``."""
    original, receiver = original_callable(fn)
    answer = _live_answer(original, receiver, args, kwargs)
    if not answer.verdicts and getattr(fn, "__func__", fn) is original:
        # (a function torch.compile compiled elsewhere has entries; one with none may never have been given to it)
        answer.notes.append("  (%s is not what torch.compile returned, and Dynamo holds no compile of its code: "
                            "called as it is, it runs as plain Python and compiles nothing; the answer below is "
                            "for a call of what torch.compile returns for it)" % callable_name(fn))
    return answer


def _live_answer(original, receiver, args, kwargs, outermost=True):
    code = original.__code__
    f_locals = frame_locals(original, receiver, args, kwargs)
    verdicts = []
    for entry in cache_entries(code):
        name = "__guard"
        verdicts.append(check_guard_source(entry.compile_id, entry_guard_source(entry, name), name, f_locals,
                                           original.__globals__))
    # (named as the dump and its summary name it: ``f.inner``, not ``f.<locals>.inner``)
    name = getattr(code, "co_qualname", code.co_name).replace("<locals>.", "")
    wrapped_inline = inline_wrapped(original)
    if wrapped_inline is not None:     # (one code for all it wraps: its entries are of them all)
        name += " (torch's wrap_inline, the frame torch.compile compiles around %s)" % callable_name(wrapped_inline)
    skipped = skipped_by_trace_rules(code) if not verdicts else None
    if skipped:
        return WhyRecompile(name, verdicts, skipped=skipped)
    if not outermost:
        return WhyRecompile(name, verdicts, given_up=given_up_on(code), limit=recompile_limit())
    wrapped, answered = [], [code]
    breaks = reached_frames_break(code)
    # a wrapper whose code breaks calls the function it wraps past the break: compiled on its own
    chain = _wrapped_chain(original) if breaks else []
    if receiver is None and any(_takes_self(inner) for inner in chain):
        chain = []     # (a method reached through a plain function: its receiver is not the call's)
    for inner in chain:
        if cache_entries(inner.__code__):
            with guard_runtime.global_state_set_by_caller():
                wrapped.append(_live_answer(inner, receiver, args, kwargs, outermost=False))
            answered.append(inner.__code__)
    reached = reached_live(answered) if breaks or any(reached_frames_break(c) for c in answered[1:]) else []
    return WhyRecompile(name, verdicts, given_up=given_up_on(code), limit=recompile_limit(),
                        reached=reached, wrapped=wrapped)


def _takes_self(function):
    """Whether ``function``'s first parameter is ``self``: a method, called with its receiver."""
    code = function.__code__
    return code.co_argcount > 0 and code.co_varnames[0] == "self"


def _wrapped_chain(function):
    """The functions ``function`` wraps (``functools.wraps``' ``__wrapped__``), outermost first."""
    out = []
    inner = getattr(function, "__wrapped__", None)
    while hasattr(inner, "__code__") and inner not in out:
        out.append(inner)
        inner = getattr(inner, "__wrapped__", None)
    return out


def entry_guard_source(entry, name):
    """The source of guard function ``name`` of a live cache entry."""
    # (the torch function modes active at compile time are not kept: none, as is usual)
    return GuardWriter({"function_modes": []}).write(name, entry.guard_tree(), GUARD_PARAMS, "")


class MissingValue(LookupError):
    """A value the guards read that the call cannot give (a variable of an enclosing
    function); :func:`why_recompile_in_dump` takes it in ``settings``."""


def why_recompile_in_dump(dump_dir, function, args, kwargs, globals_=None, settings=None, call_names=(),
                          new_globals=()):
    """The same for the function ``function`` (its key, or its name) of a dump, with the
    dumped guard files; its globals are its module's, loaded from its file (or ``globals_``).
    ``settings`` (``{name: value}``) gives a global its value at the time of the call (a
    flag the program changed after import), or a variable of an enclosing function the
    compiled frame reads (which the call's arguments cannot give); ``call_names``, the names
    the text of the call's arguments reads (those settings change the call's values);
    ``new_globals``, the settings the module had no global of before (a misspelt name?).
    Raises LookupError for an unknown function or a value the guards read that is missing
    (:class:`MissingValue`), TypeError for arguments that do not fit."""
    index, entry = dumped_function(dump_dir, function)
    compiles = _compiles_at_the_end(index, entry)
    guards = _dumped_guards(dump_dir, index, entry, compiles)
    sources = [source for _, source, _ in guards]
    if globals_ is None:
        globals_ = function_globals(index, entry)
    original = _compiled_frame_function(_function_in(globals_, entry), entry) or _dumped_signature(dump_dir, index, entry)
    f_locals = _call_locals(original, entry, args, kwargs) if original is not None else dict(kwargs)
    freevars = entry.get("freevars") or []
    for name, value in (settings or {}).items():
        if name in f_locals and name not in freevars:
            raise ValueError("%s is a parameter of %s: give it in the call, not as a setting" % (name, entry["key"]))
        if name in freevars:
            f_locals[name] = value
        else:
            globals_[name] = value
    made = {name: imported(where) for name, where in entry.get("globals_by_id", {}).items() if name not in globals_}
    if made:                   # (a new process: not in the module loaded from its file)
        globals_ = collections.ChainMap(made, globals_)
    read = [n for n in freevars if n not in f_locals and any("L[%r]" % n in text for text in sources)]
    if read:
        what = "a variable of the function it was made in, which the call cannot give: set it" if len(read) == 1 \
            else "variables of the function it was made in, which the call cannot give: set them"
        raise MissingValue("the guards of %s read %s, %s (--set %s=EXPR)"
                           % (entry["key"], ", ".join(read), what, read[0]))
    verdicts = [check_guard_source(label, source, name, f_locals, globals_)
                for label, source, name in reversed(guards)]          # Dynamo tries the newest entry first
    notes = _global_notes(verdicts, settings or {}) + _grad_mode_notes(verdicts) \
        + _unread_settings(entry["key"], settings or {}, sources, frozenset(call_names), new_globals)
    last = _last_compile(compiles)
    return WhyRecompile(entry["key"], verdicts, notes, given_up=_given_up_in_dump(last),
                        limit=len(verdicts) if last and last.get("at_limit") else None,
                        reached=reached_in_dump(index, entry), live=False)


class DumpMismatch(LookupError):
    """A dump's file does not hold what its ``index.json`` says it does (edited, removed, or
    written by another version of unveil)."""


def _compiles_at_the_end(index, entry):
    """The function's compiles whose entries Dynamo's cache holds when the block ends (its
    last generation's: ``dump_index.at_the_end``); the last of them says whether Dynamo
    gave up on the frame."""
    return [c for c in index.get("compiles", []) if c["function"] == entry["key"] and at_the_end(index, c)]


def _dumped_guards(dump_dir, index, entry, compiles):
    """``(label, guards file text, its guard function's name)`` of each cache entry of
    ``compiles`` a call may run, oldest first: those that made code, but for one Dynamo
    dropped (its guards file is written, but no call runs it)."""
    files = {(a["compile_id"], a.get("generation", 0)): a["file"] for a in index["artifacts"]
             if a["kind"] == "guards" and a["function"] == entry["key"]}
    out = []
    for comp in compiles:
        made = (comp["compile_id"], comp.get("generation", 0))
        if comp["compiled"] and not comp.get("dropped") and made in files:
            name = guard_function_name(entry["key"], compile_tag(*made))
            out.append((compile_label(*made), _guards_text(dump_dir, files[made], name), name))
    return out


def _guards_text(dump_dir, file, name):
    """The text of guards file ``file``, which defines guard function ``name``."""
    try:
        with open(os.path.join(dump_dir, file), encoding="utf-8") as fh:
            text = fh.read()
    except FileNotFoundError:
        raise DumpMismatch("%s lists %s, which is not in it" % (os.path.join(dump_dir, "index.json"), file)) \
            from None
    if not any(isinstance(node, ast.FunctionDef) and node.name == name for node in ast.parse(text).body):
        raise DumpMismatch("%s defines no %s, the guard function index.json says it holds"
                           % (os.path.join(dump_dir, file), name))
    return text


def _last_compile(compiles):
    """The last of a function's ``compiles`` (of one generation), or None."""
    return max(compiles, key=lambda c: [int(n) for n in c["compile_id"].split("/")]
               if re.fullmatch(r"\d+/\d+", c["compile_id"]) else [0], default=None)


def _given_up_in_dump(last):
    """``(compile label, reason)`` when the function's ``last`` compile in the dump made no code
    (Dynamo skipped the frame: from then on it runs as it is), else None.  (One its
    recompile limit stopped is not skipped: its entries still run.)"""
    if last is None:
        return None
    skipped = last.get("skipped")
    if not skipped:
        return None
    because = skipped.get("because") or {}
    return label_of(last), because.get("reason") or skipped.get("reason") or skipped.get("type")


#: a global a condition reads: ``G['FLAG']``
_GLOBAL = re.compile(r"^G\[('[^']*')\]")


def _global_notes(verdicts, settings):
    """For a failing condition that reads a global the call did not set: its value is
    the one the module's top-level code gave it."""
    names = []
    for verdict in verdicts:
        for text in verdict.values if not verdict.passes else ():
            match = _GLOBAL.match(text)
            name = ast.literal_eval(match.group(1)) if match else None
            if name and name not in settings and not name.startswith("__") and name not in names:
                names.append(name)
    return ["  (%s: the value the module's top-level code gives it; if the program changed it before the call, "
            "give that value with --set %s=EXPR)" % (name, name) for name in names]


def _grad_mode_notes(verdicts):
    """For an entry compiled under ``torch.no_grad()`` whose global-state guard fails only
    because grad mode is on here: how to ask as the program called it."""
    if any("grad_mode is true here, false at compile time" in (verdict.detail or "") for verdict in verdicts):
        return ["  (compiled under torch.no_grad(), as inference is: --no-grad asks as there)"]
    return []


def _unread_settings(function, settings, sources, call_names, new_globals=()):
    """A note for each setting that no guard reads and the call does not name (a misspelt
    name, or a global the guards do not check): its value changes no verdict (evaluating
    it may, ``torch.set_grad_enabled(False)``), and where the module had no such global
    (``new_globals``) the note says so.  One the call names
    (``--set model.mode=...`` with ``model`` in the call) changes the call's values, which
    the guards read."""
    unread = [name for name in settings if name not in call_names
              and not any("G[%r]" % name in text or "L[%r]" % name in text for text in sources)]
    return ["  (--set %s: %sno guard of %s reads it and the call does not name it, so its value changes no verdict)"
            % (name, "the module has no global %s, " % name if name in new_globals else "", function)
            for name in unread]


def dumped_function(dump_dir, function):
    """``(index, the function's entry)`` of a dump, by key, or by a name or qualified name
    only one function has (LookupError for none, or for several: a model's ``forward``; and
    for one the dump holds no compile of, whose cache it cannot know)."""
    with open(os.path.join(dump_dir, "index.json"), encoding="utf-8") as fh:
        index = json.load(fh)
    exact = [f for f in index["functions"] if function == f["key"]]
    found = exact or [f for f in index["functions"] if function in (f["name"], f["qualname"])]
    if not found:
        raise LookupError("no function %s in %s (it has: %s)" % (
            function, dump_dir, ", ".join(f["key"] for f in index["functions"])))
    if len(found) > 1:
        raise LookupError("%d functions of %s are named %s: give one's key (%s)" % (
            len(found), dump_dir, function, ", ".join(f["key"] for f in found)))
    entry = found[0]
    if entry.get("kind") == "function" and not any(c["function"] == entry["key"] for c in index.get("compiles", [])):
        raise LookupError("%s has no compile in %s: Dynamo compiled it before the dump began, so its guards are "
                          "not in the dump" % (entry["key"], dump_dir))
    return index, entry


def function_globals(index, entry):
    """The globals of a dumped function's module (its file loaded, top-level code run,
    when it is not the live module), under the module name the compiling process had
    (``__main__`` for a script), which guards check types by."""
    path = source_path(entry["filename"], ran_in(index))
    return module_globals(entry.get("module") or _module_name(path), path, index.get("argv"), index.get("process"),
                          entry.get("import_name"))


def _compiled_frame_function(found, entry):
    """``found`` (the module's attribute), unwrapped down to the function whose code Dynamo
    compiled (a decorator's wrapper, torch.compile's included, is not that frame)."""
    while found is not None:
        code = getattr(found, "__code__", None)
        if code is not None and code.co_name == entry["name"] and code.co_firstlineno == entry["line"]:
            return found
        found = getattr(found, "__wrapped__", None) or compile_wrapped(found)
    return None


def _dumped_signature(dump_dir, index, entry):
    """A stand-in with the parameters of the function's dumped code (a resume function,
    which no module attribute holds): its decompiled ``def``, with an empty body."""
    for art in index["artifacts"]:
        if art["function"] == entry["key"] and art["kind"] in ("resume_function", "transformed_code"):
            with open(os.path.join(dump_dir, art["file"]), encoding="utf-8") as fh:
                tree = ast.parse(fh.read())
            for node in ast.walk(tree):
                if isinstance(node, ast.FunctionDef) and node.name == entry["name"]:
                    stub = ast.FunctionDef(name=node.name, args=node.args, body=[ast.Pass()], decorator_list=[],
                                           returns=None, type_comment=None, type_params=[])
                    namespace = {}
                    exec(compile(ast.fix_missing_locations(ast.Module(body=[stub], type_ignores=[])),
                                 art["file"], "exec"), namespace)
                    return namespace[node.name]
    return None


def _call_locals(original, entry, args, kwargs):
    """:func:`frame_locals` of a dumped function's call; arguments that do not fit raise a
    TypeError naming a resume function's parameters (what the transformed code's call of
    it gives each, its file's header what the stack values hold)."""
    try:
        return frame_locals(original, None, args, kwargs)
    except TypeError as exc:
        if entry.get("kind") != "resume":
            raise
        raise TypeError("%s (a resume function, called with its parameters (%s): the transformed code's call of it "
                        "shows what it gives each)" % (exc, ", ".join(inspect.signature(original).parameters))) \
            from None


def frame_locals(original, receiver, args, kwargs):
    """The locals a frame of ``original`` starts with for this call (``receiver``: a bound
    method's ``self``)."""
    signature = inspect.signature(original, follow_wrapped=False)     # a decorator's wrapper is the frame
    bound = signature.bind(*((receiver,) if receiver is not None else ()), *args, **kwargs)
    bound.apply_defaults()
    f_locals = dict(bound.arguments)
    for name, cell in zip(original.__code__.co_freevars, original.__closure__ or ()):
        try:
            f_locals[name] = cell.cell_contents      # Dynamo's frame locals hold the free variables
        except ValueError:                           # an empty cell
            pass
    return f_locals


def check_guard_source(compile_id, source, name, f_locals, globals_):
    """Run guard function ``name`` of ``source`` one condition at a time on ``f_locals``."""
    namespace = {n: getattr(guard_runtime, n) for n in guard_runtime.__all__}
    namespace["torch"] = torch
    namespace.update(sympy_interp())
    tree = ast.parse(source)
    exec(compile(tree, "<guards %s>" % compile_id, "exec"), namespace)   # its imports, if a file
    function = next(node for node in tree.body if isinstance(node, ast.FunctionDef) and node.name == name)
    lines = source.splitlines()
    scope = dict(namespace, L=f_locals, G=globals_)
    verdict = _first_failure(compile_id, source, function, lines, scope)
    verdict.untranslated = [line.strip()[len(UNTRANSLATED):] for line in lines
                            if line.strip().startswith(UNTRANSLATED.strip())]
    return verdict


def _first_failure(compile_id, source, function, lines, scope):
    assumed = []
    verdict = _first_failing(compile_id, source, function, lines, scope, assumed)
    verdict.assumed = assumed
    return verdict


def _counted(count, one, many):
    """``one``, or ``many`` with the count put in first."""
    return one if count == 1 else many.replace("%d", str(count), 1)


def _listed(conditions, most=3):
    """Up to ``most`` conditions, then how many more."""
    more = len(conditions) - most
    return "; ".join(conditions[:most]) + (" and %d more" % more if more > 0 else "")


def _first_failing(compile_id, source, function, lines, scope, assumed):
    """The verdict of the first condition that fails; ``assumed`` gets each condition that
    held by an assumption (an identity or dict version of another process)."""
    for test in _conditions(function):
        text = ast.get_source_segment(source, test)
        comment = _comment_before(lines, test.lineno)
        guard_runtime.identities_assumed(reset=True)
        try:
            holds = eval(compile(ast.Expression(test), "<guard>", "eval"), scope)
            if holds and guard_runtime.identities_assumed(reset=True):
                assumed.append(text)
        except (KeyError, AttributeError, IndexError, TypeError) as exc:
            # the same errors the guard function itself turns into False (Dynamo's accessor
            # fails on a missing value); the verdict carries the error, and the tests assert
            # there is none wherever every value exists
            return EntryVerdict(compile_id, False, text, comment, _values(test, source, scope),
                                error="%s: %s" % (type(exc).__name__, exc))
        if not holds:
            return EntryVerdict(compile_id, False, text, comment, _values(test, source, scope),
                                detail=_mismatch_detail(test, scope))
    return EntryVerdict(compile_id, True)


def _conditions(function):
    """The tests of the guard function's ``if not (test): return False`` lines, in order."""
    body = next((node.body for node in function.body if isinstance(node, ast.Try)), function.body)
    for node in body:
        if isinstance(node, ast.If) and isinstance(node.test, ast.UnaryOp) and isinstance(node.test.op, ast.Not):
            yield node.test.operand


#: failing checks whose reason a function of guard_runtime words, called with the same arguments
_MISMATCHES = {"check_tensor": guard_runtime.tensor_mismatch,
               "check_global_state": guard_runtime.global_state_mismatch}


def _mismatch_detail(test, scope):
    """For a failing ``check_tensor(...)``: which of the tensor's properties differ; for
    ``check_global_state(...)``, which parts of the global state."""
    if not (isinstance(test, ast.Call) and isinstance(test.func, ast.Name) and test.func.id in _MISMATCHES):
        return None
    call = ast.Call(func=ast.Name(id="mismatch", ctx=ast.Load()), args=test.args, keywords=test.keywords)
    scope = dict(scope, mismatch=_MISMATCHES[test.func.id])
    return eval(compile(ast.fix_missing_locations(ast.Expression(call)), "<guard>", "eval"), scope) or None


def _comment_before(lines, lineno):
    """The comment line just above a condition (what it checks, from which user line)."""
    k = lineno - 2
    while k >= 0 and lines[k].strip().startswith("# NOT TRANSLATED"):
        k -= 1
    text = lines[k].strip() if k >= 0 else ""
    return text[1:].strip() if text.startswith("#") else None


def _values(test, source, scope):
    """Each outermost ``L[...]``/``G[...]`` access the condition reads, described (through
    calls with constant arguments, ``L['x'].size()[0]``; a method itself is not a value)."""
    found = {}
    methods = {id(node.func) for node in ast.walk(test) if isinstance(node, ast.Call)}
    for node in ast.walk(test):
        if _is_len_of_frame_value(node) or isinstance(node, (ast.Subscript, ast.Attribute, ast.Call)) \
                and id(node) not in methods and _rooted_at_frame(node):
            text = ast.get_source_segment(source, node)
            if any(text in other for other in found) or text in found:
                continue
            try:
                found[text] = _describe(eval(compile(ast.Expression(node), "<guard>", "eval"), scope))
            except Exception as exc:  # noqa: BLE001 -- any failure to read is what the user needs
                found[text] = "missing (%s: %s)" % (type(exc).__name__, exc)
    return dict(sorted(found.items(), key=lambda item: -len(item[0]))[:4])


def _is_len_of_frame_value(node):
    """``len(L[...])``: its length is what a ``len(...) == n`` guard compares (the value
    itself, a dict of eleven keys say, reads cut short)."""
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "len" \
        and len(node.args) == 1 and not node.keywords and _rooted_at_frame(node.args[0])


def _rooted_at_frame(node):
    while isinstance(node, (ast.Subscript, ast.Attribute, ast.Call)):
        if isinstance(node, ast.Call):
            if node.keywords or not all(isinstance(arg, ast.Constant) for arg in node.args):
                return False
            node = node.func
        else:
            node = node.value
    return isinstance(node, ast.Name) and node.id in ("L", "G")


def _describe(value):
    if isinstance(value, torch.Tensor):
        return "a tensor %s of size %s, stride %s%s" % (str(value.dtype).replace("torch.", ""), tuple(value.shape),
                                                        value.stride(), ", requiring grad" if value.requires_grad
                                                        else "")
    text = guard_runtime.in_compiled_names(" ".join(repr(value).split()))
    return text if len(text) <= 80 else text[:77] + "..."


def _module_name(filename):
    return os.path.splitext(os.path.basename(filename))[0]


def _function_in(globals_, entry):
    """The function of a dump's entry, found in its module's globals by qualified name."""
    value = globals_
    for part in entry["qualname"].split("."):
        value = value.get(part) if isinstance(value, dict) else getattr(value, part, None)
        if value is None:
            return None
    return value if callable(value) else None
