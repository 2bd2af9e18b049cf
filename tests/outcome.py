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
        return ("raise", type(exc).__name__, str(exc))


def outcome(fn, call):
    """What calling ``fn`` with ``call`` returns or raises, as comparable data."""
    args, kwargs = copy.deepcopy((call.args, call.kwargs))
    return _outcome_of(lambda: fn(*args, **kwargs))
