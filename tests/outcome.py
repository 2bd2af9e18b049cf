"""Run a case function on one call and reduce the result to comparable data."""
import copy
import inspect
import types


def _drive_coroutine(coro):
    """Run a coroutine that awaits nothing but our own awaitables to completion."""
    try:
        while True:
            coro.send(None)
    except StopIteration as stop:
        return stop.value


def _collect_async_gen(agen):
    async def collect():
        return [x async for x in agen]

    return _drive_coroutine(collect())


def _reduce(value):
    if isinstance(value, types.GeneratorType):
        return ("generator", _outcome_of(lambda: list(value)))
    if inspect.iscoroutine(value):
        return ("coroutine", _outcome_of(lambda: _drive_coroutine(value)))
    if inspect.isasyncgen(value):
        return ("asyncgen", _outcome_of(lambda: _collect_async_gen(value)))
    if isinstance(value, (types.FunctionType, types.LambdaType)):
        return ("function", value.__name__)
    return ("value", value)


def _outcome_of(thunk):
    try:
        return _reduce(thunk())
    except Exception as exc:  # the case's own exceptions are part of its behaviour
        return ("raise", type(exc).__name__, str(exc)) + _context_of(exc)


def _context_of(exc):
    """The exceptions ``exc`` was raised while handling (its ``__context__`` chain), as
    (type name, message) pairs: a decompiled case must lose none of them."""
    chain, seen = [], {id(exc)}
    exc = exc.__context__
    while exc is not None and id(exc) not in seen and len(chain) < 10:
        seen.add(id(exc))
        chain.append((type(exc).__name__, str(exc)))
        exc = exc.__context__
    return (tuple(chain),) if chain else ()


def outcome(fn, call):
    """What calling ``fn`` with ``call`` returns or raises, as comparable data."""
    args, kwargs = copy.deepcopy((call.args, call.kwargs))
    return _outcome_of(lambda: fn(*args, **kwargs))


def _consume(value):
    """Run a returned generator, coroutine or async generator to its end, raising
    what it raises."""
    if isinstance(value, types.GeneratorType):
        list(value)
    elif inspect.iscoroutine(value):
        _drive_coroutine(value)
    elif inspect.isasyncgen(value):
        _collect_async_gen(value)


def raised_at(fn, call):
    """Where calling ``fn`` with ``call`` raises: the (function, line) of each
    traceback frame in ``fn``'s source file, or None if it does not raise."""
    args, kwargs = copy.deepcopy((call.args, call.kwargs))
    try:
        _consume(fn(*args, **kwargs))
    except Exception as exc:  # the case's own exceptions are part of its behaviour
        frames, tb = [], exc.__traceback__
        while tb is not None:
            if tb.tb_frame.f_code.co_filename == fn.__code__.co_filename:
                frames.append((tb.tb_frame.f_code.co_name, tb.tb_lineno))
            tb = tb.tb_next
        return frames
    return None
