"""The frames Dynamo compiled on their own that calls of a compiled frame reached.

A graph break ends the frame's graph; what runs past it (the rest of the function, in a
resume function, and a call Dynamo ran as it is) is compiled as frames of their own,
each with its own cache.  ``torch.compile(opt.step)`` is the common case: the optimizer's
``step`` wrapper runs, and ``Adam.step``, called past a break, is what recompiles.  A
``why_recompile`` answer for the frame asked about names these frames, which it does
not check.
"""
import collections
import os

from ...dump_index import at_the_end, label_of

#: one such frame: its name, ``file:line``, how the asked frame reached it, its compiles
#: (a count live, the ids over a dump), what its last compile came to, and live its code
Reached = collections.namedtuple("Reached", "name where through compiles outcome code")


#: the frames an answer's text names (a large model has hundreds of frames compiled on their own)
SHOWN = 20


def lines(reached, live):
    """The answer's lines on ``reached`` (none when it is empty)."""
    if not reached:
        return []
    if live:
        head = ("Frames Dynamo compiled on their own hold code in this process; a call of this one reaches those it "
                "calls past a graph break, whose caches this answer does not check:")
        ask = "  (ask about one with unveil.why_recompile(ITS FUNCTION, ITS ARGUMENTS))"
    else:
        head = ("Its calls reached frames Dynamo compiled on their own, past a graph break; their caches are not "
                "checked here:")
        ask = "  (ask about one the same way: unveil why-recompile DUMP_DIR FUNCTION ARGS)"
    out = [head]
    for frame in reached[:SHOWN]:
        text = "  %s (%s)" % (frame.name, frame.where)
        if frame.through:
            text += ", " + frame.through
        text += ": " + frame.compiles
        if frame.outcome:
            text += "; " + frame.outcome
        out.append(text)
    if len(reached) > SHOWN:
        out.append("  and %d more (the answer's .reached lists them all)" % (len(reached) - SHOWN))
    return out + [ask]


def reached_in_dump(index, entry):
    """The dump's functions whose compiles a call of ``entry``'s frame reached: their
    recorded stack (the compiling process's Python stack) passes through that frame; those
    of the dump's last generation (``dump_index.at_the_end``), whose entries a call meets."""
    first, last = entry.get("source_lines") or (entry["line"], entry["line"])
    by_function = collections.OrderedDict()
    for comp in index.get("compiles", []):
        if comp["function"] == entry["key"] or not at_the_end(index, comp):
            continue
        stack = comp.get("stack") or []
        for k, frame in enumerate(stack[:-1]):
            if (frame["filename"], frame["function"]) == (entry["filename"], entry["name"]) \
                    and first <= frame["line"] <= last:
                by_function.setdefault(comp["function"], (stack[k:-1], []))[1].append(comp)
                break
    functions = {fn["key"]: fn for fn in index.get("functions", [])}
    out = []
    for key, (path, compiles) in by_function.items():
        fn = functions.get(key, {})
        out.append(Reached(key, "%s:%s" % (os.path.basename(fn.get("filename", "?")), fn.get("line", "?")),
                           _through(path, fn, entry["key"], functions), _ids(compiles), _outcome(compiles[-1]), None))
    return out


def _through(path, fn, asked, functions):
    """How the asked frame (``path[0]``, the function of key ``asked``) reached ``fn``: the
    rest of it, the line it called at, and the frames between."""
    if fn.get("kind") == "resume" and _resumed_by(fn, asked, functions):
        # (its own line: the stack passes through the asked frame at its first break, whose
        # resume function called this one)
        return "the rest of it from line %d" % fn.get("line", path[0]["line"])
    between = ["%s (line %d)" % (frame["function"], frame["line"]) for frame in path[1:]]
    return "called at line %d" % path[0]["line"] + (", through " + " -> ".join(between) if between else "")


def _resumed_by(fn, key, functions):
    """Whether resume function ``fn`` (an index entry) goes on with function ``key``, or
    with one of its resume functions."""
    seen = set()
    while fn is not None and fn.get("resumes") is not None and fn["resumes"] not in seen:
        if fn["resumes"] == key:
            return True
        seen.add(fn["resumes"])
        fn = functions.get(fn["resumes"])
    return False


def _ids(compiles):
    ids = [label_of(c) for c in compiles]
    return ("compile " if len(ids) == 1 else "compiles ") + ", ".join(ids)


def _outcome(comp):
    """What the frame's last compile of the dump came to, where it is worth saying."""
    if comp.get("skipped") or not comp.get("compiled", True):
        return "%s made no code: the frame runs as it is" % label_of(comp)
    reasons = comp.get("recompile_reasons") or []
    if reasons and reasons[0].get("guard"):
        reason = reasons[0]
        names = "".join("; %s is %s at the graph break" % item for item in sorted((reason.get("names") or {}).items()))
        return "%s was compiled anew, as a guard of compile %s failed: %s%s" % (
            label_of(comp), reason["failed_entry"], reason["guard"], names)
    return None


def breaks(code):
    """Whether ``code``'s compiled code calls on past a graph break (an entry goes on in a
    resume function, or made no graph and calls what the frame calls as it is, or a graph
    break Dynamo recorded was in the frame: a break at its last call, ``return inner(x)``
    breaking inside ``inner``, has no resume function), or Dynamo gave up on the frame:
    what it calls then runs under Dynamo as frames of their own."""
    from ..adapter.cache import cache_entries
    from ..adapter.compile_outcomes import broke_in, given_up_on
    return bool(given_up_on(code)) or any(_resumes_past_a_break(e) or _made_no_graph(e)
                                          for e in cache_entries(code)) or broke_in(code)


def reached_live(answered):
    """The frames Dynamo holds compiled code for in this process besides the ``answered``
    codes (the frame asked about first, then the functions it wraps that were answered
    too): resume functions of those first, which a call surely reaches; of the others this
    process has no record of which a call reaches."""
    from ..adapter.cache import cache_entries, compiled_codes
    from ..adapter.compile_outcomes import given_up_on
    from ..adapter.resume_functions import resumed_code
    own, others = [], []
    for other in compiled_codes():
        if any(other is code for code in answered):
            continue
        resumed = next((code for code in answered if _resumes(other, code, resumed_code)), None)
        given_up = given_up_on(other)
        count = len(cache_entries(other))
        through = None
        if resumed is not None:
            through = "the rest of %s from line %d" % (
                "it" if resumed is answered[0] else getattr(resumed, "co_qualname", resumed.co_name),
                other.co_firstlineno)
        frame = Reached(getattr(other, "co_qualname", other.co_name),
                        "%s:%d" % (os.path.basename(other.co_filename), other.co_firstlineno), through,
                        "%d cache entr%s" % (count, "y" if count == 1 else "ies"),
                        "Dynamo gave up on it at compile %s: it runs as it is" % given_up[0] if given_up else None,
                        other)
        (own if resumed is not None else others).append(frame)
    return own + others


def _resumes_past_a_break(entry):
    """Whether a cache entry's code goes on in a resume function (it ends at a graph break)."""
    return any(name.startswith("__resume_at_") for name in entry.transformed.co_names)


def _made_no_graph(entry):
    """Whether a cache entry's code calls no graph: the frame's calls run as they are
    (``torch.compile(opt.step)`` with an LR scheduler: the step's wrapper calls it)."""
    return not any(name.startswith("__compiled_fn_") for name in entry.transformed.co_names)


def _resumes(code, frame_code, resumed_code):
    """Whether ``code`` is a resume function of ``frame_code`` (or of one of its resume functions)."""
    seen = set()
    while code is not None and id(code) not in seen:
        seen.add(id(code))
        code = resumed_code(code)
        if code is frame_code:
            return True
    return False
