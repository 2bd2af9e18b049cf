"""What becomes of a frame Dynamo compiles, past its cache entries: the recompile limit
(``torch._dynamo.config``'s, raised for one more compile; a compile it stopped, where
``torch._C._dynamo.eval_frame._FrameAction`` has ``RUN_ONLY``), a frame Dynamo gave up on
(``torch._dynamo.utils.get_compilation_metrics``), one its trace rules skip
(``torch._dynamo.trace_rules.check_verbose``), a frame whose graph broke
(``torch._dynamo.utils.graph_break_reasons``), and an error that goes on to the program
rather than being suppressed (the classes of ``torch._dynamo.exc``)."""
import dis

import torch
import torch._dynamo  # noqa: F401  (registers the submodules used below)

from .cache import cache_entries


def room_for_one_more_compile(code):
    """Dynamo's recompile limits (``recompile_limit`` and ``accumulated_recompile_limit``;
    before torch 2.6 ``cache_size_limit`` and ``accumulated_cache_size_limit``) raised,
    within the ``with``, to let ``code`` have one cache entry more than it has."""
    config = torch._dynamo.config
    needed = len(cache_entries(code)) + 1
    limits = {}
    for names in (("recompile_limit", "cache_size_limit"),
                  ("accumulated_recompile_limit", "accumulated_cache_size_limit")):
        name = next(n for n in names if hasattr(config, n))
        limits[name] = max(getattr(config, name), needed)
    return config.patch(**limits)


def given_up_on(code):
    """``(compile id, reason)`` when Dynamo gave up on ``code``'s frame: its last compile since
    the last reset made no code (a skipped frame).  In torch 2.13 (and since torch 2.0)
    ``convert_frame`` then marks the code SKIP: every later call runs it as it is, its
    cache entries unused and no compile tried.  ``None`` otherwise (or when Dynamo's
    compilation metrics no longer hold its last compile)."""
    from torch._dynamo import convert_frame
    from torch._dynamo.utils import get_compilation_metrics
    if code not in convert_frame.input_codes:      # not seen since the last torch._dynamo.reset()
        return None
    for metrics in reversed(get_compilation_metrics()):
        if (metrics.co_name, metrics.co_filename, metrics.co_firstlineno) != \
                (code.co_name, code.co_filename, code.co_firstlineno):
            continue
        if metrics.has_guarded_code or not metrics.fail_type:    # compiled, or interrupted (Ctrl-C)
            return None
        if error_went_on(metrics.fail_type, metrics.config_suppress_errors):
            return None              # (the frame is tried again on its next call)
        if stopped_at_limit(metrics.fail_reason):
            return None              # (its entries still run)
        reason = (metrics.fail_reason or metrics.fail_type).strip().splitlines()
        return str(metrics.compile_id), reason[0] if reason else metrics.fail_type
    return None


def broke_in(code):
    """Whether a graph break Dynamo recorded since the last reset was in a frame of
    ``code``: the break's user stack begins in it (at one of its lines), the break being
    in the frame itself or in a function it inlined.  Past the break, what the frame
    calls runs as frames of their own, a resume function or none (``return inner(x)``
    breaking inside ``inner``: the frame's code calls ``inner`` as it is)."""
    from torch._dynamo.utils import graph_break_reasons
    lines = None
    for reason in graph_break_reasons:
        stack = reason.user_stack
        if not stack or (stack[0].filename, stack[0].name) != (code.co_filename, code.co_name):
            continue
        if lines is None:
            lines = {line for _, line in dis.findlinestarts(code)}
        if stack[0].lineno in lines:
            return True
    return False


def skipped_by_trace_rules(code):
    """Why Dynamo never compiles a frame of ``code``, by its trace rules (a file of torch's
    own, as ``torch.nn``'s modules in torch 2.13: their frames run as they are), or None."""
    from torch._dynamo import trace_rules
    verdict = trace_rules.check_verbose(code)
    return verdict.reason if verdict.skipped else None


#: the reason Dynamo's metrics give a compile its recompile limit stopped (the graph break's
#: type, torch 2.7+; before, its message)
_LIMIT_REASONS = ("Dynamo recompile limit exceeded", "cache_size_limit reached")


def stopped_at_limit(reason):
    """Whether a compile that made no code (its metrics' ``reason``) was stopped by Dynamo's
    recompile limit in a torch that then keeps the frame's cache entries running
    (``FrameAction.RUN_ONLY``): a call an entry accepts runs that entry, any other runs the
    frame as it is, and no compile is tried again.  Not a skipped frame, whose entries no
    call runs any more."""
    from torch._C._dynamo import eval_frame
    action = getattr(eval_frame, "_FrameAction", None)
    return bool(reason) and reason.strip().startswith(_LIMIT_REASONS) and hasattr(action, "RUN_ONLY")


def error_went_on(fail_type, suppress_errors):
    """Whether the exception a compile failed with (its class's name, as Dynamo's metrics
    record it) went on to the program, and the frame is compiled again on its next call,
    rather than Dynamo suppressing it and running the frame as it is: what
    ``ConvertFrame.__call__`` does with any error but a graph break (``Unsupported``) or a
    ``UserError``, unless ``suppress_errors`` is set; an uncaptured higher-order op's error
    always goes on.  (With fullgraph=True a graph break goes on too, which the metrics do
    not say.)"""
    from torch._dynamo import exc
    kind = getattr(exc, fail_type or "", None)
    if not isinstance(kind, type):
        return not suppress_errors
    always = tuple(getattr(exc, name) for name in ("UncapturedHigherOrderOpError", "ResumePrologueTracingError")
                   if hasattr(exc, name))
    if issubclass(kind, always):
        return True
    return not issubclass(kind, (exc.Unsupported, exc.UserError)) and not suppress_errors


def recompile_limit():
    """How many cache entries Dynamo makes for one code object before it runs the frame as
    it is (``torch._dynamo.config.recompile_limit``; ``cache_size_limit`` before torch 2.6)."""
    config = torch._dynamo.config
    return getattr(config, "recompile_limit", None) or getattr(config, "cache_size_limit", None)
