"""Dynamo's records as plain dicts: a graph-break reason's text (where in user code, the
reason's title, explanation, hints, the user code's traceback), a compile's metrics (compiled
or not, why it failed, why it restarted, its stage times and cache counts) and a recompile
reason's text.  Text only; nothing of torch."""
import json
import os
import re

_LOCATION = re.compile(r"^Graph break in user code at (.+):(\d+)$", re.M)


_FRAME = re.compile(r'^\s*File "(.+)", line (\d+), in (.+)$')


_FIELD = re.compile(r"^  (Explanation|Hint|Developer debug context): ?(.*)$")


_URL = re.compile(r"please visit: (\S+)")


_REASON_PREFIX = "Graph Break Reason: "


#: the text Dynamo puts before the reason when it gave up on the whole frame
_FRAME_SKIPPED = "Skipping the function and falling back to eager"


#: the text Dynamo puts before the reason when it cannot resume after the break: it compiles
#: up to the last point it could resume from, and the rest of the function runs as it is
_NOT_RESUMABLE = "Encountered graph break that we cannot resume from"


def graph_break(payload):
    """A ``dynamo_graph_break_reason`` text as ``{reason, explanation, hints, url, location,
    user_stack, frame_skipped, resumable, also}``: ``reason`` and the rest are the first
    block's (the break itself), ``also`` the blocks (``reason, explanation, hints, url``) of
    the breaks met while handling it (why Dynamo gave up on the frame, when it did);
    ``resumable`` is False when Dynamo could not resume after the break (its graph ends at
    the last point it could resume from and the rest of the function runs uncompiled)."""
    head, _, rest = payload.partition("User code traceback:")
    blocks = _blocks(head)
    first = blocks[0] if blocks else {"reason": _first_reason_line(head), "inside": None, "explanation": None,
                                      "hints": [], "url": None}
    stack = user_stack(rest)
    where = _LOCATION.search(head)
    location = stack[-1] if stack else None
    if where is not None and (location is None or (location["filename"], location["line"])
                              != (where.group(1), int(where.group(2)))):
        location = {"filename": where.group(1), "line": int(where.group(2)), "function": None}
    return dict(first, location=location, user_stack=stack, frame_skipped=_FRAME_SKIPPED in head,
                resumable=_NOT_RESUMABLE not in head, also=blocks[1:])


def without_launcher(stack, launcher_files):
    """``stack`` (outermost first) without the frames that started the program: those
    up to the last one in ``launcher_files`` (``unveil run``'s own), then ``runpy``'s
    (which ``python -m`` and ``unveil run -m`` go through).  Dynamo's user stack goes
    out to the process's first frame."""
    last = max((k for k, frame in enumerate(stack) if frame["filename"] in launcher_files
                or os.path.abspath(frame["filename"]) in launcher_files), default=-1)
    stack = stack[last + 1:]
    while stack and _is_runpy(stack[0]["filename"]):
        stack = stack[1:]
    return stack


def _is_runpy(filename):
    return filename == "<frozen runpy>" or filename.endswith(("/runpy.py", "\\runpy.py"))


def one_line(explained):
    """``reason (file:line)``, for a header or a summary."""
    if not explained:
        return None
    where = explained.get("location")
    at = " (%s:%d)" % (where["filename"], where["line"]) if where else ""
    inside = ", inside %s" % explained["inside"] if explained.get("inside") else ""
    return "%s%s%s" % (explained["reason"], inside, at)


def _first_reason_line(head):
    for line in head.splitlines():
        if line.startswith(_REASON_PREFIX):
            return line[len(_REASON_PREFIX):].rstrip(":")
    return head.strip().splitlines()[0] if head.strip() else None


#: the line Dynamo puts between a reason's title and its explanation when the break was met
#: while tracing the body of a higher-order operator (``torch.cond``, ``autograd.Function``, ...)
_INSIDE = "  Higher Order Operator: "


def _blocks(head):
    """Each reason block: a title line (then, for a break inside a higher-order operator, the
    operator's line), then two-space-indented fields (continued by deeper indented lines), then
    a link."""
    lines = head.splitlines()
    blocks = []
    for k, line in enumerate(lines):
        if not line.startswith("  Explanation:"):
            continue
        above = [t for t in lines[:k] if t.strip()]
        inside = above.pop()[len(_INSIDE):].strip() if above and above[-1].startswith(_INSIDE) else None
        title = above[-1] if above else ""
        if title.startswith(_REASON_PREFIX):
            title = title[len(_REASON_PREFIX):]
        blocks.append(_fields(lines, k, title.strip(), inside))
    return blocks


def _fields(lines, start, title, inside):
    block = {"reason": title, "inside": inside, "explanation": None, "hints": [], "url": None}
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


def user_stack(text):
    """The frames of a stack as Python's traceback prints it (``  File "m.py", line 9, in f``),
    outermost first, up to a ``Traceback`` that follows, as ``[{filename, line, function}]``."""
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
    its last attempt): ``{compiled, failure, interrupted, restarts}``; ``failure``
    (``{type, reason, location}``) is None when it compiled or was interrupted (by an
    exception that is not an ``Exception``: Ctrl-C, an exit)."""
    compiled = bool(metrics.get("has_guarded_code"))
    # Dynamo records the type and text of an Exception it met; what else ends a compile
    # (KeyboardInterrupt, SystemExit) goes on to the program unrecorded
    interrupted = not compiled and not metrics.get("fail_type") and not metrics.get("fail_reason")
    failure = None
    if metrics.get("fail_type") or (not compiled and not interrupted):
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
    return {"compiled": compiled, "failure": failure, "interrupted": interrupted,
            "restarts": [_restart_words(r.strip().splitlines()[0]) for r in restarts if r.strip()],
            "times": times, "caches": {k: v for k, v in caches.items() if v},
            "stack": compile_stack(metrics.get("stack_trace"))}


#: a frame of the stack Dynamo's compilation metrics record (``stack_trace``)
_STACK_FRAME = re.compile(r"^Line: (-?\d+), Name: (.*), Filename: (.*)$")


def compile_stack(frames):
    """The Python stack a compile started from, outermost first, the compiled frame last,
    as ``[{filename, line, function}]`` (Dynamo's own frames are not in it)."""
    out = []
    for frame in frames or ():
        match = _STACK_FRAME.match(frame) if isinstance(frame, str) else None
        if match:
            out.append({"filename": match.group(3), "line": int(match.group(1)), "function": match.group(2)})
    return out


#: a restart Dynamo gave no reason for: it logs the exception's class
_UNNAMED_RESTART = re.compile(r"^<class '(?:[\w.]+\.)?(\w+)'>$")
#: what those restarts mean
_RESTARTS = {"TensorifyScalarRestartAnalysis": "a Python float it had made a graph input was specialized to its "
                                                "value, so it traced the frame again with it as a constant"}


def _restart_words(reason):
    """A restart reason in words (Dynamo gives a class's repr when it has none)."""
    match = _UNNAMED_RESTART.match(reason)
    if match is None:
        return reason
    return "%s: %s" % (match.group(1), _RESTARTS.get(match.group(1), "Dynamo's own restart, with no reason given"))


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


_FAILED_ENTRY = re.compile(r"^(\d+/\d+): (.*)$", re.S)


def code_of_line(text):
    """A line of code as a recompile reason gives it: what comes before the first ``  #``
    (Dynamo puts the line's place after it, and the code's own comment goes with it)."""
    return text.split("  # ")[0].strip() or None


#: the place a guard's comment ends with, its path as torch shortened it: ``# symg/s.py:3 in f``
_GUARD_PLACE = re.compile(r"#\s*(\S+):(\d+) in (\S+)")


def guard_place(note):
    """``(path as torch shortened it, line)`` of the place a guard's comment ends with
    (``return y * n # symg/s.py:5 in f``), or None."""
    match = _GUARD_PLACE.search(note)
    return (match.group(1), int(match.group(2))) if match else None


def with_guard_place(note, path, line, code):
    """``note`` with its place written as ``path:line`` and the code before it as ``code``
    (left as it was where ``code`` is None)."""
    match = _GUARD_PLACE.search(note)
    head = note[:match.start()]
    if code is not None and code_of_line(head) is not None:
        head = head.replace(code_of_line(head), code, 1)
    return "%s# %s:%d in %s%s" % (head, path, line, match.group(3), note[match.end():])


#: a failed tensor check as Dynamo words it: ``tensor 'kwargs['a']' rank mismatch ...``
_TENSOR_REASON = re.compile(r"^tensor '(.+?)' (?:[\w ]+ )?mismatch")


def checked_tensor(guard):
    """The tensor a failed guard ``tensor 'X' ... mismatch`` checks, as Python (``X``), or None."""
    match = _TENSOR_REASON.match(guard)
    return match.group(1) if match else None


#: a guard that failed as its value could not be read: ``CodeGuardAccessor: Not a function on
#: G['act'].__code__`` (``act`` is no function any more)
_UNREADABLE_REASON = re.compile(r"^\w*GuardAccessor: (.+?) on (.+)$")


def unreadable_value(guard):
    """``(what Dynamo says, the value)`` for a failed guard whose value Dynamo could not read
    (``CodeGuardAccessor: Not a function on G['act'].__code__``), or None."""
    match = _UNREADABLE_REASON.match(guard)
    return (match.group(1), match.group(2)) if match else None


def recompile_reasons(payload, resolve=lambda path: None):
    """Dynamo's ``recompile_reasons`` text (one reason, or a JSON list of them) as
    ``[{failed_entry, guard, source, location, user_stack, aside}]``: the compile id of the
    entry whose guard failed, the failed guard as Dynamo words it, the user's line it came
    from and where, the stack that reached that line (outermost first), and Dynamo's aside on the guard (that it comes of 0/1 specialization, not of
    the user's code).  Where no user stack follows (a guard on a symbolic size), the place
    is the one the guard's comment names, whose path torch shortened: ``resolve(path)`` is
    the file it is, or None (no location then)."""
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
        frames = user_stack(stack)
        place = _GUARD_PLACE.search(note) if not frames else None
        located = _located(place, resolve) if place else None
        if located is not None:
            frames = [located]
        aside = _aside(note)
        out.append({"failed_entry": entry, "guard": " ".join(guard.split()),
                    "source": code_of_line(note),
                    "location": dict(frames[-1]) if frames else None, "user_stack": frames,
                    "aside": " ".join(aside.split()) if aside else None,
                    "also": [note_source(segment, resolve) for segment in _other_sources(note)]})
    return out


def _bracket_after(note, place):
    """``(start, end)`` of the bracket right after ``place`` (a match of a guard comment's
    place), brackets inside it kept, or None."""
    start = place.end()
    while start < len(note) and note[start] in " \t\n":
        start += 1
    if start >= len(note) or note[start] != "(":
        return None
    depth = 0
    for k in range(start, len(note)):
        depth += {"(": 1, ")": -1}.get(note[k], 0)
        if depth == 0:
            return start, k + 1
    return None


#: a place in torch's own code (``_dynamo/variables/tensor.py:2606 in evaluate_expr``), which
#: a guard's comment may put in the bracket after a user's line: no aside of Dynamo's
_TORCH_PLACE = re.compile(r"^\S+\.py:\d+ in \S+$")


def _aside(note):
    """Dynamo's aside on a guard: the bracket after the first place its comment names
    (``# path/file.py:3 in f (user code shown is first use of this value--...)``), brackets
    inside it kept; not a place in torch's own code that Dynamo names there instead."""
    place = _GUARD_PLACE.search(note)
    bracket = _bracket_after(note, place) if place else None
    if bracket is None:
        return None
    aside = note[bracket[0] + 1:bracket[1] - 1]
    return None if _TORCH_PLACE.match(aside.strip()) else aside


def _other_sources(note):
    """The comment of a guard of several sources (``y = x * n  # f.py:8 in f (...) and if
    x.shape[0] > 4: # f.py:9 in f (...)``): the text of each source after the first."""
    out, rest = [], note
    while True:
        place = _GUARD_PLACE.search(rest)
        if place is None:
            return out
        bracket = _bracket_after(rest, place)
        rest = rest[bracket[1] if bracket else place.end():].lstrip()
        if not rest.startswith("and "):
            return out
        rest = rest[len("and "):]
        out.append(rest)


def note_source(segment, resolve):
    """``{source, location}`` of a guard's note on where its value came from (one further
    source of a guard, :func:`_other_sources`, or the note after a guard's code part): its
    line of code (its own comment cut off) and where it is, when ``resolve`` finds the file."""
    place = _GUARD_PLACE.search(segment)
    if place is None:
        return {"source": code_of_line(segment), "location": None}
    return {"source": segment[:place.start()].split(" #")[0].strip() or None, "location": _located(place, resolve)}


def _located(place, resolve):
    """``{filename, line, function}`` of the place a guard's comment names (a match of
    ``_GUARD_PLACE``), where ``resolve`` finds its file; else None."""
    filename = resolve(place.group(1))
    if filename is None:
        return None
    return {"filename": filename, "line": int(place.group(2)), "function": place.group(3)}
