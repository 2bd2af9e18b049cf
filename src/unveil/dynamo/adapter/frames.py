"""Which Python frames torch.compile compiles: the function its wrapper calls
(``_torchdynamo_orig_callable``; for a ``torch.nn`` module, compiled in place or not, its
``forward`` or the frame of ``torch._dynamo.external_utils.wrap_inline`` around it, where
Dynamo cannot start tracing), a callable's name, and the frame Dynamo is compiling in this thread
(``torch._dynamo.convert_frame._compile``'s locals) with the stack that reached it."""
import collections
import functools
import inspect
import os
import sys

import torch


def compile_wrapped(wrapper):
    """The function a ``torch.compile`` wrapper calls (``None`` for anything else)."""
    return getattr(wrapper, "_torchdynamo_orig_callable", None)


def original_callable(compiled):
    """``(function, receiver)``: the Python function a ``torch.compile`` result runs (for a
    compiled module, its ``forward`` and the module as ``self``; ``receiver`` None otherwise).
    A module of torch's own (``nn.Sequential``, ``nn.Linear``), which Dynamo cannot start
    tracing at, runs in torch's ``wrap_inline`` wrapper: that wrapper's frame, whose closure
    holds the module, is the one compiled.  A module compiled in place (``module.compile()``)
    runs its compiled ``_call_impl``."""
    in_place = getattr(compiled, "_compiled_call_impl", None) if isinstance(compiled, torch.nn.Module) else None
    if in_place is not None:     # (Dynamo skips ``_call_impl``, torch's, and starts at what it calls)
        inner = _wrap_inline_compiled(in_place)
        return (inner, None) if inner is not None else (type(compiled).forward, compiled)
    module = getattr(compiled, "_orig_mod", None)
    if isinstance(module, torch.nn.Module):
        for name in ("forward", "_forward"):     # (``_forward``: a lazy module's, checked first)
            inner = _wrap_inline_compiled(vars(compiled).get(name))
            if inner is not None:
                return inner, None
        return type(module).forward, module
    original = getattr(compiled, "_torchdynamo_orig_callable", compiled)
    if isinstance(original, torch.nn.Module):
        return type(original).forward, original
    bound_self = getattr(original, "__self__", None)
    function = getattr(original, "__func__", original)
    if not hasattr(function, "__code__"):
        raise TypeError("%r is not a compiled Python function or module" % (compiled,))
    return function, bound_self


def _wrap_inline_compiled(wrapper):
    """The ``wrap_inline`` frame's function a ``torch.compile`` wrapper runs, or None."""
    inner = getattr(wrapper, "_torchdynamo_orig_callable", None)
    return inner if inner is not None and getattr(inner, "__code__", None) is _wrap_inline_code() else None


@functools.lru_cache(maxsize=None)
def _compile_function_code():
    from torch._dynamo import convert_frame
    return inspect.unwrap(convert_frame._compile).__code__


CompilingFrame = collections.namedtuple("CompilingFrame", "code globals fullgraph wraps stack")


def compiling_frame():
    """The :class:`CompilingFrame` (code, globals, whether it must make one graph, what it
    calls where it is torch's ``wrap_inline`` wrapper, the stack that reached it) Dynamo is
    compiling in this thread, or ``None`` (read from ``convert_frame._compile``'s locals)."""
    target = _compile_function_code()
    frame = sys._getframe(1)
    while frame is not None:
        if frame.f_code is target:
            f_locals = frame.f_locals
            code = f_locals["code"]
            return CompilingFrame(code, f_locals["globals"], bool(f_locals.get("one_graph")),
                                  _inline_wrapped(code, f_locals.get("closure")), _stack_reaching(frame, code))
        frame = frame.f_back
    return None


def _stack_reaching(compile_frame, code):
    """The Python stack that reached the compile of ``code``, outermost first, as
    ``[{filename, line, function}]``, ending with the compiled frame at its first line.
    Unlike the stack Dynamo's compilation metrics keep, it has the frames that run code
    Dynamo made (a compiled frame that called on past a graph break, as an optimizer's
    ``step`` wrapper calls ``Adam.step``); Dynamo's own frames (``convert_frame``,
    ``torch.compile``'s wrapper) are left out."""
    from torch._dynamo import convert_frame, eval_frame
    machinery = {convert_frame.__file__, eval_frame.__file__}
    out = [{"filename": code.co_filename, "line": code.co_firstlineno, "function": code.co_name}]
    frame = compile_frame.f_back
    while frame is not None:
        if frame.f_code.co_filename not in machinery:
            out.append({"filename": frame.f_code.co_filename, "line": frame.f_lineno, "function": frame.f_code.co_name})
        frame = frame.f_back
    return out[::-1]


@functools.lru_cache(maxsize=None)
def _wrap_inline_code():
    """The code of ``external_utils.wrap_inline``'s ``inner``, one code object for every
    function it wraps: torch.compile puts it around what Dynamo cannot start tracing at
    (a ``torch.nn`` module, a torch function), so that it compiles a frame of its own."""
    from torch._dynamo import external_utils
    return external_utils.wrap_inline(len).__code__ if hasattr(external_utils, "wrap_inline") else None


def inline_wrapped(function):
    """What ``function``, ``wrap_inline``'s ``inner``, calls; None for any other function."""
    return _inline_wrapped(function.__code__, function.__closure__)


def callable_name(obj):
    """A callable's name: a function's module and qualified name (the name its module
    gives it, where that is the function: ``torch.sin``, not its C class's method); an
    object's (a ``torch.nn`` module's) class."""
    qualname = getattr(obj, "__qualname__", None)
    if isinstance(qualname, str):
        module, name = getattr(obj, "__module__", None) or "?", getattr(obj, "__name__", None)
        if isinstance(name, str) and getattr(sys.modules.get(module), name, None) is obj:
            qualname = name
        return "%s.%s" % (module, qualname)
    return "a %s.%s" % (type(obj).__module__, type(obj).__qualname__)


def _inline_wrapped(code, closure):
    """What a frame of ``wrap_inline``'s ``inner`` calls (its closure's ``fn``), or None."""
    if closure is None or code is not _wrap_inline_code():
        return None
    return closure[code.co_freevars.index("fn")].cell_contents


def shortened_as_torch_writes(path):
    """``path`` as torch writes a place in its guards' comments: past its common path with
    torch's own package directory (``torch.utils._traceback.shorten_filename``)."""
    base = os.path.dirname(os.path.abspath(torch.__file__))
    try:
        prefix = os.path.commonpath([path, base])
    except ValueError:       # (another drive, or one path relative)
        return path
    return path[len(prefix) + 1:]
