"""Generators: yield, yield from, return values, send/throw/close, generator expressions."""
from tests.cases.registry import case


@case((3,), (0,))
def simple_yield_in_loop(n):
    for i in range(n):
        yield i * 2


@case()
def several_yield_statements():
    yield 1
    yield "two"
    yield
    yield None, 3


@case((True,), (False,))
def generator_early_return(stop):
    yield "a"
    if stop:
        return
    yield "b"


@case((4,),)
def yield_from_iterables(n):
    yield from range(n)
    yield from "ab"
    yield from [x * 10 for x in range(2)]
    yield from (x for x in (7, 8))


@case((3,),)
def yield_from_returns_value(n):
    def inner(k):
        for i in range(k):
            yield i
        return "inner done %d" % k

    def outer():
        result = yield from inner(n)
        yield result
        result2 = yield from inner(0)
        yield result2

    return list(outer())


@case((2,),)
def generator_return_value_in_stop_iteration(n):
    def gen():
        yield n
        return n * 100

    g = gen()
    first = next(g)
    try:
        next(g)
    except StopIteration as e:
        return first, e.value


@case()
def send_protocol_running_average():
    def averager():
        total = 0.0
        count = 0
        average = None
        while True:
            value = yield average
            if value is None:
                break
            total += value
            count += 1
            average = total / count
        return count

    g = averager()
    started = next(g)
    results = [started, g.send(10), g.send(20), g.send(60)]
    try:
        g.send(None)
    except StopIteration as e:
        results.append(("stopped", e.value))
    return results


@case()
def bare_yield_expression_receives_values():
    def echo():
        received = []
        while len(received) < 3:
            received.append((yield))
        yield received

    g = echo()
    next(g)
    g.send("a")
    g.send("b")
    return g.send("c")


@case((True,), (False,))
def throw_into_generator(handle):
    def gen():
        try:
            yield "first"
        except ValueError as e:
            if not handle:
                raise
            yield "handled " + str(e)
        yield "last"

    g = gen()
    out = [next(g)]
    try:
        out.append(g.throw(ValueError("boom")))
        out.append(next(g))
    except ValueError as e:
        out.append("escaped " + str(e))
    return out


@case()
def close_runs_finally_and_generator_exit():
    log = []

    def gen():
        try:
            yield 1
            yield 2
        except GeneratorExit:
            log.append("exit")
            raise
        finally:
            log.append("finally")

    g = gen()
    log.append(next(g))
    g.close()
    g2 = gen()
    log.append(list(g2))
    return log


@case((3,),)
def yield_inside_try_finally(n):
    try:
        for i in range(n):
            yield i
    finally:
        yield "cleanup"


@case((True,), (False,))
def yield_inside_try_except(fail):
    try:
        yield "start"
        if fail:
            raise KeyError("k")
        yield "middle"
    except KeyError:
        yield "caught"
    else:
        yield "no error"
    yield "end"


@case((2,),)
def yield_in_expression_positions(n):
    def gen():
        x = yield n
        y = (yield x) + 1
        z = [(yield y), (yield "q")]
        yield str((yield "r"))
        return z

    g = gen()
    out = [next(g)]
    for v in [10, 20, "s1", "s2", "s3"]:
        out.append(g.send(v))
    try:
        g.send("final")
    except StopIteration as e:
        out.append(e.value)
    return out


@case((5,),)
def generator_expression_features(n):
    g1 = (x * x for x in range(n) if x % 2)
    g2 = ((a, b) for a in range(2) for b in "xy")
    g3 = (y for y in (x + 1 for x in range(n)))
    return list(g1), list(g2), sum(g3), next((x for x in range(n) if x > 2), None)


@case()
def generator_delegation_with_send_and_throw():
    def sub():
        got = []
        try:
            while True:
                v = yield len(got)
                got.append(v)
        except IndexError:
            return got

    def main():
        result = yield from sub()
        yield ("sub returned", result)

    g = main()
    out = [next(g), g.send("a"), g.send("b")]
    out.append(g.throw(IndexError))
    return out


@case((4,),)
def infinite_generator_with_islice(n):
    import itertools

    def naturals():
        k = 0
        while True:
            yield k
            k += 1

    return list(itertools.islice(naturals(), n)), list(itertools.takewhile(lambda v: v < n, naturals()))


@case((3,),)
def generator_state_and_closure(n):
    def counter(start):
        def gen():
            nonlocal start
            while start < n:
                yield start
                start += 1

        return gen

    make = counter(0)
    first = list(make())
    second = list(make())
    return first, second


@case()
def generator_raising_stop_iteration_becomes_runtime_error():
    def bad():
        yield 1
        raise StopIteration("oops")

    try:
        return list(bad())
    except RuntimeError as e:
        return "RuntimeError", str(e)


@case((3,),)
def yield_inside_with_statement(n):
    log = []

    class CM:
        def __enter__(self):
            log.append("enter")
            return self

        def __exit__(self, *exc):
            log.append("exit")
            return False

    def gen():
        with CM():
            for i in range(n):
                yield i
        yield "after with"

    return list(gen()), log


@case((2,),)
def lambda_generator(n):
    g = (lambda: (yield n))()
    gen_lambda = lambda k: (yield from range(k))  # noqa: E731
    return list(g), list(gen_lambda(n + 1))


@case()
def generator_methods_on_class():
    class Tree:
        def __init__(self, value, children=()):
            self.value = value
            self.children = list(children)

        def walk(self):
            yield self.value
            for child in self.children:
                yield from child.walk()

        def __iter__(self):
            return self.walk()

    t = Tree(1, [Tree(2, [Tree(3)]), Tree(4)])
    return list(t), [v * 2 for v in t]


@case((4,),)
def yield_with_conditional_and_else(n):
    for i in range(n):
        if i % 2:
            yield "odd", i
        elif i == 0:
            yield "zero"
        else:
            yield "even", i
    else:
        yield "done"
    while n > 2:
        n -= 1
        yield n
    else:
        yield "while done"


@case()
def generator_expression_is_lazy():
    log = []

    def src():
        for i in range(3):
            log.append("produce %d" % i)
            yield i

    g = (x * 2 for x in src())
    log.append("created")
    first = next(g)
    log.append("got %d" % first)
    rest = list(g)
    return log, rest


def _sub_items(stack):
    yield stack.pop()


@case(([1, 2, 3],), ([],), structured=True)
def yield_from_loop_that_is_a_try_body_whose_finally_loops(stack):
    """A ``while`` loop of ``yield from`` that is all of a try's body, with a finally body
    that loops too (os.fwalk): 3.13 lays out the ``yield from``'s ``CLEANUP_THROW`` past
    the function's returns, dead code under the try's handler; that try is the one the loop
    is, not one in it whose finally body a way out of the loop copies."""
    closed = []
    try:
        while stack:
            yield from _sub_items(stack)
    finally:
        while stack:
            closed.append(stack.pop())
    yield closed
