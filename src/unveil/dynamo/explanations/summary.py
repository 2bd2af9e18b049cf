"""``summary.txt``: per function, each compile and what it came to, in words."""
import re

from ...dump_index import reason_notes, told_restarts
from ...volatile import is_library_path, without_ids
from .records import one_line

def summary_text(functions, compiles, failures=(), ran_from_dump=False, short_of_end=None, kept=()):
    """``summary.txt``: per function (the user's own first), each compile and what it came
    to, in words; first, what unveil itself failed to do (``failures``, the session's), and whether the run
    may have stopped short of its end (``short_of_end``: ``{"ended_early": the exception in
    words}`` or ``{"exit_status": N}``), keeping the files ``kept``."""
    out = ["What torch.compile did, function by function (index.json has the same, and the files).", ""]
    if short_of_end is not None:
        out += ["This run %s: it says what ran up to there." % _how_it_ended(short_of_end)]
        if kept:
            shown = ", ".join(kept[:8]) + (", and %d more" % (len(kept) - 8) if len(kept) > 8 else "")
            out.append("%d file%s of an earlier run into this directory, which this one did not write again, %s kept "
                       "beside its own; not described here (index.json lists them as kept_from_an_earlier_run): %s"
                       % (len(kept), "" if len(kept) == 1 else "s", "is" if len(kept) == 1 else "are", shown))
        out.append("")
    if failures:
        out += failure_lines(failures, ran_from_dump) + [""]
    out += _overview(compiles, counts(compiles)) + [""]
    by_function = {}
    for comp in compiles:
        by_function.setdefault(comp["function"], []).append(comp)
    # the user's own functions first, as the report lists them; then the libraries' (each in
    # the order Dynamo first compiled it)
    for fn in sorted(functions, key=lambda fn: is_library_path(fn["filename"] or "<unknown>")):
        where = "%s:%d" % (fn["filename"], fn["line"])
        if fn["kind"] == "resume":
            out.append("%s: resume function of %s, made at a graph break: %s" % (
                fn["key"], fn["resumes"] or "a function Dynamo no longer names",
                one_line(fn["graph_break"]) or "not logged here (Dynamo made it before the dump began)"))
            continues = fn.get("continues") or {}
            if continues.get("branch"):
                branch = continues["branch"]
                out.append("  goes on from line %s, the path on which `%s` (line %s) %s" % (
                    continues["line"], branch.get("source") or "?", branch["line"],
                    outcome_words(branch)))
        else:
            out.append("%s (%s)" % (fn["key"], where))
        for comp in by_function.get(fn["key"], []):
            out += ["  " + line for line in _compile_lines(comp, fn)]
        if fn["kind"] == "function" and not by_function.get(fn["key"]):
            out.append("  no compile of it in this dump: Dynamo compiled it before the dump began")
        if fn["kind"] == "resume" and not by_function.get(fn["key"]):
            out.append("  not compiled: Dynamo made no compile of it (if it ran, it ran as it is)")
        out.append("")
    return "\n".join(out)


def _count(n, noun):
    return "%d %s%s" % (n, noun, "" if n == 1 else "s")


def counts(compiles):
    """What the dump counts, from one place (``index.json``'s ``counts``; the summary and the
    report say these): compiles, graph breaks (a compile's graph ended at one, or one made
    Dynamo skip the frame or fail), those in skipped frames, recompiles (tried anew after a
    guard failed), skipped frames, failed and interrupted compiles."""
    return {"compiles": len(compiles),
            "graph_breaks": sum(1 for c in compiles if c["graph_break"]),
            "graph_breaks_in_skipped_frames": sum(1 for c in compiles if c["graph_break"] and c["skipped"]),
            "recompiles": sum(1 for c in compiles if c.get("recompile_reasons")),
            "skipped_frames": sum(1 for c in compiles if c["skipped"]),
            "failed": sum(1 for c in compiles if c.get("failed")),
            "at_limit": sum(1 for c in compiles if c.get("at_limit")),
            "interrupted": sum(1 for c in compiles if c.get("interrupted"))}


def _overview(compiles, counted):
    """The counts, and the frames that run as they are (what a user most often wants first)."""
    breaks = _count(counted["graph_breaks"], "graph break")
    places = {((c["graph_break"].get("location") or {}).get("filename"),
               (c["graph_break"].get("location") or {}).get("line"), c["graph_break"].get("reason"))
              for c in compiles if c["graph_break"]}
    if len(places) < counted["graph_breaks"]:
        breaks += " at %s in the code (each counted once per compile that broke there: a recompile of the frame, " \
                  "each frame that calls one that breaks)" % _count(
            len(places), "place")
    if counted["graph_breaks_in_skipped_frames"]:
        breaks += " (%d of them made Dynamo skip the frame)" % counted["graph_breaks_in_skipped_frames"]
    others = "".join(", %d %s" % (counted[k], words) for k, words in (
        ("failed", "failed (the error reached the program)"),
        ("at_limit", "stopped at the recompile limit (the frame's entries still run)"),
        ("interrupted", "interrupted")) if counted.get(k))
    recompiles = _count(counted["recompiles"], "recompile") + " after a guard failed"
    tried = sum(1 for c in compiles if c.get("recompile_reasons") and not c["compiled"])
    if tried:       # the recompile limit, or a frame Dynamo gave up on: nothing was made
        recompiles += " (%d of them tried anew and not compiled)" % tried
    out = ["In all: %s, %s, %s, %s skipped%s."
           % (_count(counted["compiles"], "compile"), breaks, recompiles,
              _count(counted["skipped_frames"], "frame"), others)]
    for comp in compiles:
        if comp["skipped"]:
            because = comp["skipped"].get("because") or {}
            out.append("  skipped: %s (%s): %s" % (comp["function"], compile_name(comp),
                                                   because.get("reason") or comp["skipped"].get("reason")
                                                   or comp["skipped"].get("type")))
    return out


def compile_name(comp):
    """A compile's id, and after the program's ``torch._dynamo.reset()`` (its ids start again
    from 0/0) which reset it follows: ``0/0, after reset 1``."""
    generation = comp.get("generation") or 0
    return comp["compile_id"] if not generation else "%s, after reset %d" % (comp["compile_id"], generation)


def _compile_lines(comp, fn):
    out = []
    skipped = comp["skipped"]
    if skipped is not None:
        because = skipped.get("because") or {}
        first = comp["graph_break"] or {}
        out.append("compile %s: skipped, the frame runs as it is: %s" % (
            compile_name(comp), because.get("reason") or skipped.get("reason") or skipped.get("type")))
        if because.get("explanation"):
            out.append("  " + because["explanation"].splitlines()[0])
        if skipped.get("inside_try"):
            out.append("  line %d, where the frame met that break, is inside a try block: Dynamo makes no resume "
                       "function there, so it gave up on the whole frame" % skipped["inside_try"])
        if first and first.get("reason") != because.get("reason"):
            out.append("  set off by: " + one_line(first))          # the break the user can act on
            out += _hint_lines(first)
        elif skipped.get("location"):
            out.append("  at %s:%s" % (skipped["location"]["filename"], skipped["location"]["line"]))
            out += _hint_lines(because)
    elif comp.get("at_limit"):
        out += ["compile %s: not compiled: %s" % (compile_name(comp), comp["at_limit"]["reason"]),
                "  Dynamo compiles this frame no more: a call one of its compiled entries accepts runs that entry, "
                "any other runs the frame as it is"]
    elif comp.get("failed"):
        failed = comp["failed"]
        where = failed.get("location")
        out.append("compile %s: failed, the error reached the program: %s%s" % (
            compile_name(comp), failed.get("reason") or failed.get("type"),
            " (%s:%s)" % (where["filename"], where["line"]) if where else ""))
    elif comp.get("interrupted"):
        out.append("compile %s: interrupted while Dynamo compiled (by Ctrl-C or an exit, which went on to the "
                   "program): no code was made" % compile_name(comp))
    elif comp["compiled"]:
        brk = comp["graph_break"]
        out.append("compile %s: compiled%s" % (compile_name(comp), ", graph break: " + one_line(brk) if brk else ""))
        if brk:
            out += _hint_lines(brk) + _called_from(brk, comp, fn) + _the_rest(comp, brk, fn)
        elif comp["resume_functions"]:
            out.append("  the rest runs in " + ", ".join(comp["resume_functions"]))
    else:
        out.append("compile %s: no compiled code (Dynamo found nothing to compile; the frame runs as it is)"
                   % compile_name(comp))
    untranslated = comp.get("untranslated_guards")
    if untranslated:
        out.append("  %s of its guards file%s no Python form there: that file takes %s to pass, "
                   "so it can accept a call Dynamo's check refuses (%s)"
                   % (_count(len(untranslated), "guard"), " has" if len(untranslated) == 1 else "s have",
                      "it" if len(untranslated) == 1 else "them", "; ".join(untranslated[:3])
                      + ("; ..." if len(untranslated) > 3 else "")))
    if comp.get("wraps"):            # (the frame's own name, wrap_inline.inner, says nothing of it)
        out.insert(1, "  the call of %s, through torch's wrap_inline (which torch.compile puts around what "
                      "Dynamo cannot start tracing at)" % comp["wraps"])
    for reason in comp.get("recompile_reasons") or []:
        where = reason.get("location") or {}
        out.append("  %s anew: the guard of compile %s failed%s: %s%s" % (
            "compiled" if comp["compiled"] else "tried", reason["failed_entry"], " (line %d of its guards file)" % reason["guard_line"]
            if reason.get("guard_line") else "", without_ids(reason["guard"]), _guard_place(reason, fn) if reason.get("source")
            else ""))
        out += ["    " + note for note in reason_notes(reason)]
        if reason.get("aside"):     # Dynamo's own words: the guard is not the user's code's doing
            out.append("    " + reason["aside"])
        out += ["    and from %s" % _guard_place(other, fn).strip()[1:-1]
                for other in reason.get("also") or () if other.get("location") and other.get("source")]
    if comp.get("dropped"):
        out.append("  Dynamo dropped its cache entry later (%s): no call runs it since"
                   % comp["dropped"])
    out += ["  traced again after: " + reason for reason in told_restarts(comp)]
    return out


def _guard_place(reason, fn):
    """Where the failed guard's value was first used: a line of the compiled function's own
    by its number; another function's line (a library's, one it calls) by its file or its
    function, said to be where Dynamo first read the value (not a line of the user's that
    made the guard: a dict comprehension of a library over the call's kwargs), then the
    compiled function's line that called into it."""
    where = reason.get("location")
    if not where:
        return ""
    stack = reason.get("user_stack")
    is_it = _frame_of(fn)
    own = [k for k, frame in enumerate(stack or ()) if is_it(frame)]
    if own and own[-1] == len(stack) - 1 or not stack and where["filename"] == fn["filename"]:
        return "  (line %s: %s)" % (where["line"], reason["source"])
    place = "%s:%s" % (where["filename"], where["line"]) if where["filename"] != fn["filename"] else \
        "line %s in %s" % (where["line"], where["function"]) if where.get("function") else "line %s" % where["line"]
    return "  (%s, where Dynamo first read it: %s%s)" % (
        place, reason["source"], ", called from line %d" % stack[own[-1]]["line"] if own else "")


def _the_rest(comp, brk, fn):
    """What runs after the break a compiled frame's graph ended at."""
    name = comp["function"].rpartition(".")[2]
    if brk.get("resumable") is False:
        return ["  Dynamo cannot resume after this break: the graph ends at the last point it could resume from, "
                "and the rest of %s runs uncompiled, as written" % name]
    if comp["resume_functions"]:
        return ["  the rest runs in " + ", ".join(comp["resume_functions"])]
    stack = brk.get("user_stack") or []
    frame = _compiled_frame(stack, comp, fn)
    line = stack[frame]["line"] if frame is not None else (brk.get("location") or {}).get("line")
    return ["  no resume function: after the call at line %s, made as it is (what it calls is a frame of its own "
            "for Dynamo), %s only returns its result" % (line, name)]


#: the name of the function a resume function resumes, in the resume function's name
_RESUMED = re.compile(r"torch_dynamo_resume_in_(\w+?)_at_\d+$")


def _compiled_frame(stack, comp, fn):
    """Where the compiled frame, of function ``fn`` (index.json's record), is in a break's
    user stack (which runs from the program's start to the break), by its name in its file
    and lines.  Not by name alone: an inlined call may bear it too (every module's
    ``forward``), and the chain of calls then began there.  A frame of it may also call
    it: a decorator's wrapper (``functools.wraps``) wraps functions the compiled one calls
    too.  The stack that reached the compile (``comp``'s) says how many frames of it call
    the compiled one; without it, the innermost is taken."""
    is_it = _frame_of(fn)
    found = [k for k, frame in enumerate(stack) if is_it(frame)]
    callers = sum(1 for frame in (comp.get("stack") or [])[:-1] if is_it(frame))
    if comp.get("stack") and callers < len(found):
        return found[callers]
    return found[-1] if found else None


def _frame_of(fn):
    """Whether a frame of a user stack is one of function ``fn`` (index.json's record): its
    name (its code's, which two resume functions made at one line share, or its key's), file
    and lines."""
    names = {fn["name"], fn["key"].rpartition(".")[2]}
    if fn["kind"] == "resume":            # its frames in a stack may bear the name of the function it resumes
        names.add(_RESUMED.match(fn["name"]).group(1) if _RESUMED.match(fn["name"]) else fn["name"])
    first, last = fn.get("source_lines") or (fn["line"], fn["line"])

    def is_it(frame):
        return frame.get("function") in names and frame["filename"] == fn["filename"] and first <= frame["line"] <= last
    return is_it


def _hint_lines(explained):
    """Dynamo's hints on a break, each on a line of its own (TORCH_LOGS=graph_breaks gives
    them all: the one to act on is not always the first)."""
    return ["  hint: " + hint.splitlines()[0] for hint in explained.get("hints") or [] if hint.strip()]


def _called_from(explained, comp, fn):
    """For a break inside a function the compiled frame called: the calls from the frame."""
    stack = explained.get("user_stack") or []
    frame = _compiled_frame(stack, comp, fn)
    if frame is None or frame == len(stack) - 1:
        return []
    calls = ["%s (line %s)" % (f["function"], f["line"]) for f in reversed(stack[frame + 1:-1])]
    calls.append("%s (line %s)" % (_compiled_frame_name(stack[frame], fn), stack[frame]["line"]))
    return ["  inside %s, called from %s" % (stack[-1]["function"], " <- ".join(calls))]


def _compiled_frame_name(frame, fn):
    """The compiled frame's name in a chain of calls: a resume function's frame by the
    function it resumes, whose line it runs (torch 2.13 names it so; 2.15 by the resume
    function's code, a name the two made at one data-dependent ``if`` share), else by its own."""
    if fn["kind"] == "resume" and fn.get("resumes"):
        return fn["resumes"].rpartition(".")[2]
    return frame["function"]


#: (what a conditional jump tests, whether it holds) -> in words
_OUTCOME = {("true", True): "is true", ("true", False): "is false",
            ("None", True): "is None", ("None", False): "is not None"}


def outcome_words(branch):
    """``is true`` / ``is false`` / ``is None`` / ``is not None``: the path a ``branch`` of
    :func:`continuation` is."""
    return _OUTCOME[branch["test"], branch["condition_holds"]]


def _how_it_ended(short_of_end):
    if "exit_status" in short_of_end:
        return "ended with exit status %d (a sys.exit)" % short_of_end["exit_status"]
    return "ended early, with %s" % short_of_end["ended_early"]


def failure_lines(failures, ran_from_dump):
    """unveil's own failures in words: how many, what each one cost the user.  Under
    ``debug()`` a failure means Dynamo's own code ran there instead of the dumped file (a
    breakpoint in that file does not stop); under ``prepare_debug`` a file is missing or
    says what could not be written."""
    if ran_from_dump:
        head = ("unveil failed %s here; in each place Dynamo's own code ran instead of the dumped file, "
                "so a breakpoint there does not stop:" % _count(len(failures), "time"))
    else:
        head = ("unveil failed %s here; what it could not write is missing from the dump "
                "or is a file saying what failed:" % _count(len(failures), "time"))
    return [head] + ["  - %s (%s)" % (f["what"], f["error"].splitlines()[0] if f["error"] else "?")
                     for f in failures]
