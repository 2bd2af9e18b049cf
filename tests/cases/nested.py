"""Constructs nested deeply inside each other, especially control flow across blocks."""
import contextlib

from tests.cases.registry import case


class Ctx:
    """Context manager logging enter/exit into a list; optionally suppresses."""

    def __init__(self, log, name, suppress=False):
        self.log = log
        self.name = name
        self.suppress = suppress

    def __enter__(self):
        self.log.append("+" + self.name)
        return self.name

    def __exit__(self, t, v, tb):
        self.log.append("-%s%s" % (self.name, "!" if t else ""))
        return self.suppress


@case((True, [1, 0, 2]), (True, []), (False, [1]))
def try_in_loop_in_with_in_if(flag, items):
    log = []
    if flag:
        with Ctx(log, "w"):
            for x in items:
                try:
                    log.append(10 // x)
                except ZeroDivisionError:
                    log.append("div0")
                else:
                    log.append("ok")
                finally:
                    log.append("fin")
    else:
        log.append("skipped")
    return log


@case((3,),)
def comprehension_in_lambda_in_comprehension(n):
    makers = [lambda k=i: [j * k for j in range(n) if j != k] for i in range(n)]
    return [m() for m in makers]


@case(([1, 2, 3, 4, 5, 6],),)
def break_continue_inside_try_finally_in_loop(items):
    log = []
    for x in items:
        try:
            if x == 2:
                continue
            if x == 5:
                break
            log.append(x)
        finally:
            log.append("f%d" % x)
    return log


@case((0,), (1,), (2,))
def return_inside_finally_overrides(n):
    def inner():
        for i in range(3):
            try:
                if n == 0:
                    return "try-return"
                if n == 1:
                    raise ValueError("v")
                break
            finally:
                if n == 1:
                    return "finally-return %d" % i
        return "after loop"

    return inner()


@case((4,),)
def while_with_else_inside_try_inside_for(n):
    log = []
    for limit in range(n):
        try:
            i = 0
            while i < limit:
                if i == 2:
                    raise StopIteration
                i += 1
            else:
                log.append(("while-else", limit))
        except StopIteration:
            log.append(("stopped", limit))
    return log


@case(([[1, 2], [3, "x"], [None]],),)
def nested_try_in_nested_loops_with_continue_break(grid):
    log = []
    for row in grid:
        for v in row:
            try:
                try:
                    if v is None:
                        break
                    log.append(v * 2 + 0)
                    log.append(v + 1)
                except TypeError:
                    log.append("type")
                    continue
                finally:
                    log.append("inner-fin")
            finally:
                log.append("outer-fin")
        else:
            log.append("row done")
    return log


@case((True,), (False,))
def with_inside_try_inside_with(fail):
    log = []
    with Ctx(log, "a"):
        try:
            with Ctx(log, "b", suppress=not fail):
                raise KeyError("k")
            log.append("after b")
        except KeyError:
            log.append("caught")
    return log


@case((3,),)
def generator_in_class_in_function(n):
    class Seq:
        def __init__(self, k):
            self.k = k

        def evens(self):
            for i in range(self.k * 2):
                if i % 2 == 0:
                    yield i

        def pairs(self):
            return [(a, b) for a in self.evens() for b in self.evens() if a < b]

    s = Seq(n)
    return list(s.evens()), s.pairs()


@case((4,),)
def closure_in_loop_in_try_in_function(n):
    funcs = []
    try:
        for i in range(n):
            if i == 3:
                raise IndexError(i)

            def f(x, i=i):
                return [x + i + j for j in range(i)]

            funcs.append(f)
    except IndexError as e:
        funcs.append(lambda x, e=e: ("err", e.args[0], x))
    return [f(10) for f in funcs]


@case((5,),)
def nested_functions_with_nonlocal_across_levels(n):
    def outer():
        count = 0

        def middle():
            def inner():
                nonlocal count
                count += 1
                return count

            return [inner() for _ in range(n)]

        r = middle()
        return r, count

    return outer()


@case(([1, 2, 3],), ([1, 2],), ([],))
def if_inside_else_of_for_inside_while(items):
    log = []
    rounds = 0
    while rounds < 2:
        rounds += 1
        for x in items:
            if x > 2:
                log.append(("big", x, rounds))
                break
        else:
            if items:
                log.append("no big")
            else:
                log.append("empty")
                continue
        log.append("end round %d" % rounds)
    return log


@case((2,), (3,))
def try_except_in_comprehension_helper_in_loop(n):
    def safe_div(a, b):
        try:
            return a // b
        except ZeroDivisionError:
            return None

    out = []
    for i in range(n):
        out.append([safe_div(j, i) for j in range(3)])
    return out


@case((True,), (False,))
def return_from_with_inside_loop_inside_try(flag):
    log = []

    def inner():
        try:
            for i in range(3):
                with Ctx(log, "c%d" % i):
                    if flag and i == 1:
                        return "returned at 1"
        finally:
            log.append("finally")
        return "loop done"

    return inner(), log


@case((3,),)
def dict_comprehension_in_generator_in_list_comprehension(n):
    return [list(sorted({k: v for k, v in zip(range(i), "abc")}.items()) for _ in range(2)) for i in range(n)]


@case((0,), (1,), (2,), (3,))
def deeply_nested_if_try_for_while(n):
    result = []
    if n > 0:
        try:
            for i in range(n):
                j = i
                while j > 0:
                    if j == 2:
                        raise ValueError(i)
                    result.append((i, j))
                    j -= 1
        except ValueError as e:
            result.append(("value error", e.args))
        else:
            result.append("no error")
    else:
        result.append("nothing")
    return result


@case((True,), (False,))
def exception_in_finally_inside_loop_inside_try(fail):
    log = []
    try:
        for i in range(3):
            try:
                log.append(i)
            finally:
                if fail and i == 1:
                    raise RuntimeError("in finally")
    except RuntimeError as e:
        log.append(str(e))
    return log


@case(([3, 0, 4, 12, "s", 1],),)
def continue_in_except_and_else_in_loop(items):
    log = []
    for x in items:
        try:
            r = 12 // x
        except ZeroDivisionError:
            log.append("zero")
            continue
        except TypeError:
            log.append("type")
            break
        else:
            if r > 3:
                log.append("big %d" % r)
                continue
        log.append("small %d" % r)
    return log


@case((2,),)
def lambda_returning_comprehension_of_lambdas(n):
    f = lambda k: [lambda x, j=j: x * j + k for j in range(n)]  # noqa: E731
    return [g(10) for g in f(1)] + [g(100) for g in f(2)]


@case((3,),)
def class_inside_loop_with_methods_closing_over_loop_var(n):
    classes = []
    for i in range(n):
        class K:
            idx = i

            def get(self, i=i):
                return self.idx * 10 + i

        classes.append(K)
    return [c().get() for c in classes]


@case((True,), (False,))
def generator_with_try_finally_inside_with_inside_loop(stop_early):
    log = []

    def gen():
        for i in range(3):
            with Ctx(log, "g%d" % i):
                try:
                    yield i
                finally:
                    log.append("fin%d" % i)

    for v in gen():
        log.append(v)
        if stop_early and v == 1:
            break
    return log


@case((3,),)
def nested_with_statements_and_contextlib_suppress_in_loop(n):
    log = []
    for i in range(n):
        with Ctx(log, "o%d" % i):
            with contextlib.suppress(ZeroDivisionError):
                with Ctx(log, "i%d" % i):
                    log.append(10 // (i - 1))
    return log


@case((1,), (2,), (3,))
def try_finally_with_return_inside_loop_inside_while(n):
    log = []

    def f():
        k = 0
        while True:
            k += 1
            for j in range(3):
                try:
                    if j == n:
                        return ("ret", k, j)
                    if k > 1:
                        return ("second round", j)
                finally:
                    log.append((k, j))

    return f(), log


@case((5,), (0,))
def comprehension_inside_try_inside_comprehension_function(n):
    def rows():
        return [[c for c in range(r) if c % 2 == 0] for r in range(n)]

    try:
        grid = rows()
        return [sum(row) for row in grid if row], grid[-1][-1]
    except IndexError:
        return "index"


@case((2,),)
def if_elif_else_inside_match_like_dispatch_dict(n):
    def handle(kind, v):
        if kind == "a":
            return [x for x in range(v)]
        elif kind == "b":
            try:
                return {v: 1 // (v - n)}
            except ZeroDivisionError:
                return "zero"
        else:
            with Ctx([], "x") as name:
                return name * v

    return [handle(k, v) for k in "abc" for v in (n, n + 1)]


@case((True,), (False,))
def nested_try_except_reraise_through_finally(fail):
    log = []
    try:
        try:
            try:
                if fail:
                    raise ValueError("deep")
                log.append("no fail")
            finally:
                log.append("f1")
        except ValueError:
            log.append("caught at 2")
            raise
        finally:
            log.append("f2")
    except ValueError as e:
        log.append("caught at 3: " + str(e))
    return log


@case((3,),)
def async_inside_sync_inside_async(n):
    async def outer():
        def sync_helper(k):
            async def inner():
                return [i * k for i in range(n)]

            return inner

        total = []
        for k in range(1, 3):
            total.append(await sync_helper(k)())
        return total

    coro = outer()
    try:
        coro.send(None)
    except StopIteration as stop:
        return stop.value


@case((4,),)
def walrus_in_comprehension_in_loop_in_function(n):
    out = []
    for i in range(n):
        acc = 0
        row = [acc := acc + j for j in range(i)]
        out.append((row, acc))
    return out


@case(([1, 2, 3, 4],),)
def loop_else_inside_finally_inside_loop(items):
    log = []
    for x in items:
        try:
            if x % 2:
                continue
        finally:
            for y in range(x):
                if y == 3:
                    log.append(("break inner", x))
                    break
            else:
                log.append(("inner done", x))
    return log


@case((2,), (0,))
def try_inside_except_inside_loop_inside_with(n):
    log = []
    with Ctx(log, "w"):
        for i in range(3):
            try:
                1 // (i - n)
                log.append(i)
            except ZeroDivisionError:
                try:
                    int("x%d" % i)
                except ValueError:
                    log.append("nested error at %d" % i)
    return log
