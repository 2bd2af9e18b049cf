"""async def, await, async for, async with, async generators and async comprehensions.

No event loop: coroutines are driven with send(None), so everything awaited here
is a coroutine of ours or the ``suspend`` generator-based coroutine below.
"""
import types

from tests.cases.registry import case


@types.coroutine
def suspend(value=None):
    """Hand control back to the driver once."""
    received = yield value
    return received


class Ticker:
    """Async iterator over range(n), suspending before each item; may fail at one index."""

    def __init__(self, n, fail_at=None):
        self.n = n
        self.i = 0
        self.fail_at = fail_at

    def __aiter__(self):
        return self

    async def __anext__(self):
        await suspend()
        if self.i == self.fail_at:
            raise ValueError("tick %d" % self.i)
        if self.i >= self.n:
            raise StopAsyncIteration
        self.i += 1
        return self.i - 1


class AsyncLog:
    """Async context manager logging into a list."""

    def __init__(self, log, name, suppress=False):
        self.log = log
        self.name = name
        self.suppress = suppress

    async def __aenter__(self):
        await suspend()
        self.log.append("enter " + self.name)
        return self.name.upper()

    async def __aexit__(self, exc_type, exc, tb):
        await suspend()
        self.log.append("exit %s %s" % (self.name, exc_type.__name__ if exc_type else None))
        return self.suppress


def run(coro):
    """Drive a coroutine to completion (used inside cases for nested results)."""
    try:
        while True:
            coro.send(None)
    except StopIteration as stop:
        return stop.value


@case((3,), (0,))
async def async_def_returns_value(n):
    await suspend()
    return n * 2


@case((4,),)
async def await_chain_of_inner_coroutines(n):
    async def leaf(x):
        await suspend()
        return x + 1

    async def middle(x):
        a = await leaf(x)
        b = await leaf(a)
        return a, b

    first = await middle(n)
    second = await leaf(await leaf(n))
    return first, second, [await leaf(i) for i in range(2)]


@case((5, 3), (5, None), (0, None))
async def async_for_with_break_and_else(n, stop):
    seen = []
    async for i in Ticker(n):
        if i == stop:
            seen.append("break")
            break
        seen.append(i)
    else:
        seen.append("exhausted")
    return seen


@case((True,), (False,))
async def async_with_as_and_suppression(fail):
    log = []
    async with AsyncLog(log, "outer") as name:
        log.append(name)
        async with AsyncLog(log, "quiet", suppress=True):
            if fail:
                raise KeyError("suppressed")
            log.append("quiet body")
    return log


@case((True,), (False,))
async def async_with_exception_propagates(fail):
    log = []
    try:
        async with AsyncLog(log, "a") as a, AsyncLog(log, "b") as b:
            log.append(a + b)
            if fail:
                raise ValueError("out")
    except ValueError as e:
        log.append("caught " + str(e))
    return log


@case((4,),)
async def async_comprehensions(n):
    async def double(x):
        await suspend()
        return x * 2

    lst = [i async for i in Ticker(n)]
    st = sorted({i % 2 async for i in Ticker(n)})
    dct = {i: await double(i) async for i in Ticker(n) if i}
    awaited = [await double(i) for i in range(n)]
    gen = (i * 10 async for i in Ticker(n))
    from_gen = [x async for x in gen]
    return lst, st, dct, awaited, from_gen


@case((3,),)
async def async_generator_case(n):
    for i in range(n):
        await suspend()
        yield i
    async for j in Ticker(2):
        yield "tick", j


@case((3,),)
def async_generator_asend_and_athrow(n):
    async def agen():
        total = 0
        try:
            while True:
                v = yield total
                total += v
        except ValueError:
            yield "thrown at %d" % total

    async def drive():
        g = agen()
        out = [await g.asend(None)]
        for i in range(n):
            out.append(await g.asend(i + 1))
        out.append(await g.athrow(ValueError("x")))
        try:
            await g.asend(0)
        except StopAsyncIteration:
            out.append("finished")
        return out

    return run(drive())


@case((None,), (1,))
async def try_except_finally_around_await(fail_at):
    log = []
    try:
        async for i in Ticker(3, fail_at=fail_at):
            log.append(i)
    except ValueError as e:
        log.append("error " + str(e))
    else:
        log.append("else")
    finally:
        await suspend()
        log.append("finally")
    return log


@case((2,),)
async def custom_awaitable_object(n):
    class Later:
        def __init__(self, value):
            self.value = value

        def __await__(self):
            yield "pause"
            return self.value * 3

    a = await Later(n)
    b = await Later(a)
    return a, b


@case((4,),)
async def async_for_over_inner_async_generator(n):
    async def evens():
        for i in range(n * 2):
            await suspend()
            if i % 2 == 0:
                yield i

    out = []
    async for e in evens():
        if e == 2:
            continue
        out.append(e)
    return out


@case((3,),)
async def async_generator_aclose_runs_finally(n):
    log = []

    async def gen():
        try:
            for i in range(n):
                yield i
        finally:
            log.append("agen finally")

    g = gen()
    async for v in g:
        log.append(v)
        if v == 1:
            break
    await g.aclose()
    return log


@case((2,),)
async def async_methods_in_class(n):
    class Account:
        def __init__(self):
            self.balance = 0

        async def deposit(self, amount):
            await suspend()
            self.balance += amount
            return self.balance

        async def __aenter__(self):
            return self

        async def __aexit__(self, *exc):
            self.balance = -self.balance

    acct = Account()
    async with acct as a:
        for i in range(n):
            await a.deposit(10 * (i + 1))
        inside = a.balance
    return inside, acct.balance


@case((3,),)
async def async_closure_with_nonlocal(n):
    count = 0

    async def bump(k):
        nonlocal count
        await suspend()
        count += k
        return count

    results = [await bump(i) for i in range(n)]
    return results, count


@case(("x",),)
async def await_in_expressions(s):
    async def val(v):
        await suspend()
        return v

    f = "%s-%s" % (await val(s), await val(1))
    cond = await val("yes") if await val(True) else await val("no")
    total = await val(2) + await val(3) * await val(4)
    d = {await val("k"): await val("v")}
    return f, cond, total, d, f"{await val(s)}!"


@case((3,), (0,))
async def async_for_in_async_with_in_try(n):
    log = []
    try:
        async with AsyncLog(log, "ctx"):
            async for i in Ticker(n):
                if i == 2:
                    raise RuntimeError("at two")
                log.append(i)
    except RuntimeError as e:
        log.append(str(e))
    return log


@case((3,),)
async def async_comprehension_nested_sync_and_async_for(n):
    pairs = [(i, c) async for i in Ticker(n) for c in "ab" if i != 1]
    nested = []
    for i in range(n):
        nested.append([j async for j in Ticker(i)])
    return pairs, nested


@case((2,),)
async def async_generator_with_await_in_try_finally(n):
    try:
        for i in range(n):
            yield await suspend(i) or i
    finally:
        await suspend()
    yield "after"


@case((5,),)
async def while_loop_with_await_condition(n):
    async def more(k):
        await suspend()
        return k < n

    i = 0
    out = []
    while await more(i):
        out.append(i)
        i += 2
    return out


@case((3,), (0,))
def async_generator_with_early_return_in_handler(n):
    async def agen():
        try:
            while True:
                v = yield n
                if v is None:
                    return
        except ValueError:
            yield "thrown"
            return

    async def drive():
        g = agen()
        out = [await g.asend(None), await g.asend(1)]
        out.append(await g.athrow(ValueError("x")))
        try:
            await g.asend(None)
        except StopAsyncIteration:
            out.append("done")
        return out

    return run(drive())


@case((4, 2), (3, None))
async def async_for_break_inside_try_except(n, stop):
    seen = []
    async for i in Ticker(n):
        try:
            if i == stop:
                break
            seen.append(10 // (i - 1))
        except ZeroDivisionError:
            seen.append("div0")
            continue
    return seen


@case((3,),)
async def async_generator_expression_consumed_by_async_comprehension(n):
    squares = (i * i async for i in Ticker(n) if i != 1)
    return [s async for s in squares], [await run_later(k) for k in range(n)]


async def run_later(k):
    await suspend()
    return -k


class _Seen:
    """Orders its comparisons into a log, to show which operands were evaluated."""

    def __init__(self, log, name):
        self.log, self.name = log, name

    def __lt__(self, other):
        self.log.append("%s<%s" % (self.name, other.name))
        return self.name < other.name


@case(("abc",), ("bac",), ("cab",), same_bytecode=True)
def chained_comparison_with_await_as_the_last_statement(names):
    """Random programs (3.11+): ``a < f() < await c`` as an expression statement that ends
    the code.  Each arm drops the value and returns on its own; the failed test's arm
    was written as ``if a < f(): f_value < await c``, evaluating ``f()`` twice."""
    log = []
    a, b, c = (_Seen(log, n) for n in names)

    def middle():
        log.append("middle")
        return b

    async def last():
        await suspend()
        log.append("last")
        return c

    async def compare():
        a < middle() < await last()
    run(compare())
    return log


@case(("abc",), ("bac",), same_bytecode=True)
def chained_comparison_with_await_assigned_last(names):
    """3.12+: ``x = a < f() < await c`` last in the code stores in each arm."""
    log = []
    a, b, c = (_Seen(log, n) for n in names)

    def middle():
        log.append("middle")
        return b

    async def last():
        await suspend()
        return c

    async def compare():
        nonlocal x
        x = a < middle() < await last()
    x = None
    run(compare())
    return log, x


async def _half(x):
    await suspend()
    return 1 / x


@case((0, 1), (1, 2), (1, 0), (1, "x"), same_bytecode=True)
async def if_whose_try_body_returns_an_await(n, d):
    """asyncio's BaseEventLoop.sendfile: the if's arm goes on only through its except
    clause (3.12+: laid out last, past the await's own cleanup)."""
    out = []
    if n:
        try:
            return await _half(d)
        except ZeroDivisionError as exc:
            out.append(type(exc).__name__)
    out.append(n)
    return out


class _Log:
    """Context manager logging into a list; suppresses ValueError when asked."""

    def __init__(self, log, suppress=False):
        self.log, self.suppress = log, suppress

    def __enter__(self):
        self.log.append("enter")

    def __exit__(self, exc_type, exc, tb):
        self.log.append("exit %s" % (exc_type.__name__ if exc_type else None))
        return self.suppress and exc_type is ValueError


@case((3, None, False), (3, 1, False), (3, 1, True), (0, None, False), structured=True)
async def async_for_breaking_in_a_with(n, fail_at, suppress):
    """The brief's shape (3.12/3.13): ``async for ... break`` inside a ``with``.  The
    async for's end (``END_ASYNC_FOR``) jumps back to the with's exit copy, and the jump
    was taken for the with's way on, before its exit copy, whose exit call then ran
    outside the with (lowered: "stack underflow")."""
    log = []
    with _Log(log, suppress):
        async for i in Ticker(n, fail_at=fail_at):
            log.append(i)
            if i == 2:
                break
    return log

