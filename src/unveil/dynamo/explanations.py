"""Graph breaks, skipped frames and restarts in the user's terms, from what Dynamo records.

Dynamo's structured trace logs a graph-break reason (``dynamo_graph_break_reason``)
as text: where in user code, the reason's title, an explanation, hints, and the
user code's traceback.  Its compilation metrics say, per compile, whether the
frame got compiled code, why it failed, and why the compile restarted.  This
module turns both into plain dicts (what ``index.json`` holds); it reads text
only and imports nothing of torch.  Where a resume function continues (which
line, which side of an ``if``) is read from the bytecode, in the decompiler's canonical form.
"""
import dis
import functools
import json
import linecache
import re

from ..bytecode.canonical import normalise

_LOCATION = re.compile(r"^Graph break in user code at (.+):(\d+)$", re.M)
_FRAME = re.compile(r'^\s*File "(.+)", line (\d+), in (.+)$')
_FIELD = re.compile(r"^  (Explanation|Hint|Developer debug context): ?(.*)$")
_URL = re.compile(r"please visit: (\S+)")
_REASON_PREFIX = "Graph Break Reason: "
#: the text Dynamo puts before the reason when it gave up on the whole frame
_FRAME_SKIPPED = "Skipping the function and falling back to eager"


def graph_break(payload):
    """A ``dynamo_graph_break_reason`` text as ``{reason, explanation, hints, url, location,
    user_stack, frame_skipped, also}``: ``reason`` and the rest are the first block's (the
    break itself), ``also`` the blocks (``reason, explanation, hints, url``) of the breaks
    met while handling it (why Dynamo gave up on the frame, when it did)."""
    head, _, rest = payload.partition("User code traceback:")
    blocks = _blocks(head)
    first = blocks[0] if blocks else {"reason": _first_reason_line(head), "explanation": None, "hints": [],
                                      "url": None}
    stack = _user_stack(rest)
    where = _LOCATION.search(head)
    location = stack[-1] if stack else None
    if where is not None and (location is None or (location["filename"], location["line"])
                              != (where.group(1), int(where.group(2)))):
        location = {"filename": where.group(1), "line": int(where.group(2)), "function": None}
    return dict(first, location=location, user_stack=stack, frame_skipped=_FRAME_SKIPPED in head,
                also=blocks[1:])


def one_line(explained):
    """``reason (file:line)``, for a header or a summary."""
    if not explained:
        return None
    where = explained.get("location")
    at = " (%s:%d)" % (where["filename"], where["line"]) if where else ""
    return "%s%s" % (explained["reason"], at)


def _first_reason_line(head):
    for line in head.splitlines():
        if line.startswith(_REASON_PREFIX):
            return line[len(_REASON_PREFIX):].rstrip(":")
    return head.strip().splitlines()[0] if head.strip() else None


def _blocks(head):
    """Each reason block: a title line, then two-space-indented fields (continued by deeper
    indented lines), then a link."""
    lines = head.splitlines()
    blocks = []
    for k, line in enumerate(lines):
        if not line.startswith("  Explanation:"):
            continue
        title = next((t for t in reversed(lines[:k]) if t.strip()), "")
        if title.startswith(_REASON_PREFIX):
            title = title[len(_REASON_PREFIX):]
        blocks.append(_fields(lines, k, title.strip()))
    return blocks


def _fields(lines, start, title):
    block = {"reason": title, "explanation": None, "hints": [], "url": None}
    current = None
    for line in lines[start:]:
        field = _FIELD.match(line)
        if field is not None:
            current = [field.group(2).strip()]
            if field.group(1) == "Explanation":
                block["explanation"] = current
            elif field.group(1) == "Hint":
                block["hints"].append(current)
            else:
                current = None                  # Dynamo's own debug context: not for the user
            continue
        url = _URL.search(line)
        if url is not None:
            block["url"] = url.group(1)
            break
        if line.startswith("   ") and current is not None:
            current.append(line.strip())
        elif line.strip() and not line.startswith(" "):
            break                               # the next block's title
    join = lambda parts: "\n".join(p for p in parts if p) if parts else None  # noqa: E731
    block["explanation"] = join(block["explanation"])
    block["hints"] = [join(h) for h in block["hints"]]
    return block


def _user_stack(text):
    stack = []
    for line in text.splitlines():
        if line.startswith("Traceback (most recent call last)"):
            break
        frame = _FRAME.match(line)
        if frame is not None:
            stack.append({"filename": frame.group(1), "line": int(frame.group(2)), "function": frame.group(3)})
    return stack


def frame_outcome(metrics):
    """What one compile of a frame came to, from Dynamo's compilation metrics (logged by
    its last attempt): ``{compiled, failure, restarts}``; ``failure``
    (``{type, reason, location}``) is None when it compiled."""
    compiled = bool(metrics.get("has_guarded_code"))
    failure = None
    if metrics.get("fail_type") or not compiled:
        where = None
        if metrics.get("fail_user_frame_filename"):
            where = {"filename": metrics["fail_user_frame_filename"], "line": metrics.get("fail_user_frame_lineno"),
                     "function": None}
        reason = (metrics.get("fail_reason") or "").strip()
        failure = {"type": metrics.get("fail_type"), "reason": reason.splitlines()[0] if reason else None,
                   "location": where}
    restarts = sorted(metrics.get("restart_reasons") or [])
    times = {stage: metrics.get(field) for stage, field in _STAGE_TIMES if metrics.get(field) is not None}
    caches = {name: metrics.get(field) or 0 for name, field in _CACHE_COUNTS}
    return {"compiled": compiled, "failure": failure,
            "restarts": [r.strip().splitlines()[0] for r in restarts if r.strip()],
            "times": times, "caches": {k: v for k, v in caches.items() if v}}


#: seconds a compile spent, per stage, as Dynamo's compilation metrics name them
_STAGE_TIMES = [("frame", "entire_frame_compile_time_s"), ("backend", "backend_compile_time_s"),
                ("inductor", "inductor_compile_time_s"), ("code_gen", "code_gen_time_s")]
#: cache hits and misses a compile had, as Dynamo's compilation metrics count them
_CACHE_COUNTS = [("fx_graph_local_hits", "inductor_fx_local_cache_hit_count"),
                 ("fx_graph_local_misses", "inductor_fx_local_cache_miss_count"),
                 ("fx_graph_remote_hits", "inductor_fx_remote_cache_hit_count"),
                 ("fx_graph_remote_misses", "inductor_fx_remote_cache_miss_count"),
                 ("aot_autograd_local_hits", "aotautograd_local_cache_hit_count"),
                 ("aot_autograd_local_misses", "aotautograd_local_cache_miss_count"),
                 ("aot_autograd_remote_hits", "aotautograd_remote_cache_hit_count"),
                 ("aot_autograd_remote_misses", "aotautograd_remote_cache_miss_count")]


def continuation(code, offset):
    """Where a resume function made for ``offset`` of ``code`` goes on: ``{filename, line,
    branch}``; ``branch`` (``{filename, line, condition_holds, test}``) is set when the
    offset is one side of a conditional jump (a break on a data-dependent ``if``), saying
    whether the path is the one where the test (``true``, ``None``) holds."""
    try:
        hash(code)
    except TypeError:                    # a dict among its constants: no cache
        lines, jumps = _lines_and_jumps.__wrapped__(code)
    else:
        lines, jumps = _lines_and_jumps(code)
    result = {"filename": code.co_filename, "line": next((line for at, line in lines if at >= offset), None),
              "branch": None}
    for op, line, follows, taken in jumps:
        if offset in (taken, follows):
            holds = _FALLS_THROUGH_WHEN[op][0] != (offset == taken and taken != follows)
            result["branch"] = {"filename": code.co_filename, "line": line, "condition_holds": holds,
                                "test": _FALLS_THROUGH_WHEN[op][1]}
            break
    return result


@functools.lru_cache(maxsize=32)
def _lines_and_jumps(code):
    """``([(offset, line)], [(jump, line, offset it falls through to, offset it jumps to)])``
    of ``code``'s canonical instructions (the two resume functions of an ``if`` share them)."""
    instrs = normalise(code).instrs
    jumps = [(ins.op, ins.line, instrs[ins.index + 1].offset, instrs[ins.target].offset)
             for ins in instrs[:-1] if ins.op in _FALLS_THROUGH_WHEN]
    return [(ins.offset, ins.line) for ins in instrs], jumps


#: a canonical conditional jump -> (whether the value tested holds when it does not jump,
#: what is tested)
_FALLS_THROUGH_WHEN = {"POP_JUMP_IF_FALSE": (True, "true"), "POP_JUMP_IF_TRUE": (False, "true"),
                       "POP_JUMP_IF_NOT_NONE": (True, "None"), "POP_JUMP_IF_NONE": (False, "None")}


def source_line(filename, line):
    """The stripped text of a line of a file, or None."""
    text = linecache.getline(filename, line).strip() if line else ""
    return text or None


def summary_text(functions, compiles):
    """``summary.txt``: per function, each compile and what it came to, in words."""
    out = ["What torch.compile did, function by function (index.json has the same, and the files).", ""]
    out += _overview(compiles) + [""]
    by_function = {}
    for comp in compiles:
        by_function.setdefault(comp["function"], []).append(comp)
    for fn in functions:
        where = "%s:%d" % (fn["filename"], fn["line"])
        if fn["kind"] == "resume":
            out.append("%s: resume function of %s, made at a graph break: %s" % (
                fn["key"], fn["resumes"], one_line(fn["graph_break"]) or "reason not logged"))
            continues = fn.get("continues") or {}
            if continues.get("branch"):
                branch = continues["branch"]
                out.append("  goes on from line %s, the path on which `%s` (line %s) %s" % (
                    continues["line"], branch.get("source") or "?", branch["line"],
                    outcome_words(branch)))
        else:
            out.append("%s (%s)" % (fn["key"], where))
        for comp in by_function.get(fn["key"], []):
            out += ["  " + line for line in _compile_lines(comp)]
        out.append("")
    return "\n".join(out)


def _count(n, noun):
    return "%d %s%s" % (n, noun, "" if n == 1 else "s")


def _overview(compiles):
    """The counts, and the frames that run as they are (what a user most often wants first)."""
    breaks = sum(1 for c in compiles if c["compiled"] and c["graph_break"])
    recompiles = sum(1 for c in compiles if c.get("recompile_reasons"))
    skipped = [c for c in compiles if c["skipped"]]
    out = ["In all: %s, %d of them ending at a graph break, %d made anew after a guard failed, %s skipped."
           % (_count(len(compiles), "compile"), breaks, recompiles, _count(len(skipped), "frame"))]
    for comp in skipped:
        because = comp["skipped"].get("because") or {}
        out.append("  skipped: %s (%s): %s" % (comp["function"], comp["compile_id"],
                                               because.get("reason") or comp["skipped"].get("reason")))
    return out


def _compile_lines(comp):
    out = []
    skipped = comp["skipped"]
    if skipped is not None:
        because = skipped.get("because") or {}
        first = comp["graph_break"] or {}
        out.append("compile %s: skipped, the frame runs as it is: %s" % (
            comp["compile_id"], because.get("reason") or skipped.get("reason") or skipped.get("type")))
        if because.get("explanation"):
            out.append("  " + because["explanation"].splitlines()[0])
        if first and first.get("reason") != because.get("reason"):
            out.append("  set off by: " + one_line(first))          # the break the user can act on
            out += _hint_lines(first)
        elif skipped.get("location"):
            out.append("  at %s:%s" % (skipped["location"]["filename"], skipped["location"]["line"]))
            out += _hint_lines(because)
    elif comp.get("failed"):
        failed = comp["failed"]
        where = failed.get("location")
        out.append("compile %s: failed (fullgraph=True), the error reached the program: %s%s" % (
            comp["compile_id"], failed.get("reason") or failed.get("type"),
            " (%s:%s)" % (where["filename"], where["line"]) if where else ""))
    elif comp["compiled"]:
        brk = comp["graph_break"]
        out.append("compile %s: compiled%s" % (comp["compile_id"], ", graph break: " + one_line(brk) if brk else ""))
        if brk:
            out += _hint_lines(brk) + _called_from(brk, comp["function"])
        if comp["resume_functions"]:
            out.append("  the rest runs in " + ", ".join(comp["resume_functions"]))
    else:
        out.append("compile %s: no compiled code (Dynamo found nothing to compile; the frame runs as it is)"
                   % comp["compile_id"])
    for reason in comp.get("recompile_reasons") or []:
        where = reason.get("location") or {}
        out.append("  compiled anew: the guard of compile %s failed%s: %s%s" % (
            reason["failed_entry"], " (line %d of its guards file)" % reason["guard_line"]
            if reason.get("guard_line") else "", reason["guard"], "  (line %s: %s)" % (where["line"], reason["source"])
            if where and reason.get("source") else ""))
        out += ["    where %s is %s" % item for item in sorted((reason.get("names") or {}).items())]
    brk = comp["graph_break"]
    for reason in comp["restarts"]:
        # a break makes Dynamo trace again up to it; an unnamed restart is Dynamo's own affair
        if (not brk or reason != brk["reason"]) and not reason.startswith("Unknown"):
            out.append("  traced again after: " + reason)
    return out


def _hint_lines(explained):
    """Dynamo's first hint on a break, if it gave one."""
    hints = explained.get("hints") or []
    return ["  hint: " + hints[0].splitlines()[0]] if hints else []


def _called_from(explained, key):
    """For a break inside a function the compiled frame called: the calls from the frame."""
    stack = explained.get("user_stack") or []
    name = key.rpartition(".")[2]
    frame = max((k for k, f in enumerate(stack) if f["function"] == name), default=None)
    if frame is None or frame == len(stack) - 1:
        return []
    calls = ["%s (line %s)" % (f["function"], f["line"]) for f in reversed(stack[frame:-1])]
    return ["  inside %s, called from %s" % (stack[-1]["function"], " <- ".join(calls))]


#: (what a conditional jump tests, whether it holds) -> in words
_OUTCOME = {("true", True): "is true", ("true", False): "is false",
            ("None", True): "is None", ("None", False): "is not None"}


def outcome_words(branch):
    """``is true`` / ``is false`` / ``is None`` / ``is not None``: the path a ``branch`` of
    :func:`continuation` is."""
    return _OUTCOME[branch["test"], branch["condition_holds"]]


_FAILED_ENTRY = re.compile(r"^(\d+/\d+): (.*)$", re.S)


def recompile_reasons(payload):
    """Dynamo's ``recompile_reasons`` text (one reason, or a JSON list of them) as
    ``[{failed_entry, guard, source, location}]``: the compile id of the entry whose guard
    failed, the failed guard as Dynamo words it, the user's line it came from and where."""
    text = payload.strip()
    try:
        items = json.loads(text) if text.startswith("[") else [text]
    except ValueError:
        items = [text]
    out = []
    for item in items:
        first, _, stack = str(item).partition("User stack trace:")
        match = _FAILED_ENTRY.match(first.strip())
        entry, rest = (match.group(1), match.group(2)) if match else (None, first.strip())
        guard, _, note = rest.partition("#")
        frames = _user_stack(stack)
        out.append({"failed_entry": entry, "guard": " ".join(guard.split()),
                    "source": note.split("  # ")[0].strip() or None,
                    "location": frames[-1] if frames else None})
    return out


#: what a resume function calls the values Dynamo's stack held at the break
_STACK_SLOT = re.compile(r"^___stack(\d+)$")


def stack_names(code, offset, slots):
    """For a resume function made at ``offset`` of ``code`` whose stack values are
    ``slots`` (``___stack0`` ...): ``{slot: what it is}``, the user's name or constant for a
    value a plain load put there (``scale``), else "a value of line N".  Read by replaying
    the stack effects of the break's line; empty when the replay does not account for
    exactly those slots (NULLs, or values from an earlier line)."""
    instructions = list(dis.get_instructions(code))
    at = next((k for k, ins in enumerate(instructions) if ins.offset >= offset), None)
    if at is None:
        return {}
    line = _line_of(instructions, at)
    start = at
    while start > 0 and _line_of(instructions, start - 1) == line:
        start -= 1
    stack = []
    for ins in instructions[start:at]:
        try:
            effect = dis.stack_effect(ins.opcode, ins.arg, jump=False) if ins.opcode >= dis.HAVE_ARGUMENT \
                else dis.stack_effect(ins.opcode, jump=False)
        except ValueError:
            return {}
        pops = 0 if ins.opname.startswith(("LOAD_", "PUSH_NULL")) and ins.opname not in _LOADS_FROM_STACK \
            else max(0, 1 - effect) if ins.opname not in _LOADS_FROM_STACK else 1
        pushes = effect + pops
        if pops > len(stack) or pushes < 0:
            return {}
        del stack[len(stack) - pops:]
        stack += [_what_it_pushes(ins, line)] * pushes
    values = [v for v in stack if v is not None]           # NULLs a call needs are not passed
    wanted = sorted(slots, key=lambda s: int(_STACK_SLOT.match(s).group(1)))
    return dict(zip(wanted, values)) if len(values) == len(wanted) else {}


#: loads that take what they read from the stack (an attribute of the value on top)
_LOADS_FROM_STACK = frozenset(["LOAD_ATTR", "LOAD_METHOD", "LOAD_SUPER_ATTR"])


def _what_it_pushes(ins, line):
    if ins.opname == "PUSH_NULL":
        return None
    if ins.opname in ("LOAD_FAST", "LOAD_DEREF", "LOAD_NAME", "LOAD_CLOSURE", "LOAD_FAST_CHECK"):
        return "`%s`" % ins.argval
    if ins.opname == "LOAD_CONST":
        return "`%r`" % (ins.argval,)
    return "a value of line %s" % line


def _line_of(instructions, k):
    for ins in reversed(instructions[:k + 1]):
        number = ins.positions.lineno if getattr(ins, "positions", None) is not None else ins.starts_line
        if number:
            return number
    return None
