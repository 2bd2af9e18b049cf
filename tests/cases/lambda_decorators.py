"""A lambda as a decorator (PEP 614's any expression after ``@``, 3.9+): the lambda
made by MAKE_FUNCTION was put in the def's decorators as it lay on the stack, a
function under construction and no expression, and printing the def crashed."""
MIN_VERSION = (3, 9)

from tests.cases.registry import case


def _tagged(fn):
    return lambda *a: ("tagged", fn(*a))


@case((1,), (5,), same_bytecode=True)
def lambda_decorating_a_function(n):
    @(lambda g: g)
    def f(v):
        return v + n

    return f(n), f.__name__


@case((2,), same_bytecode=True)
def lambda_decorating_a_class(n):
    @(lambda c: c.__name__ + "!")
    class Named:
        size = n

    @(lambda c: (c, c.size * 2))
    class Sized:
        size = n

    return Named, Sized[1], Sized[0].__name__


@case((3,), (0,))
def lambda_decorating_a_nested_function(n):
    def outer(k):
        @(lambda g: lambda v: g(v) * k)
        def inner(v):
            return v + n
        return inner(k)

    return outer(n), outer(1)


@case((4,), (1,))
def lambda_with_defaults_and_closure_as_decorator(n):
    @(lambda g, m=n * 2, *, tag="t": lambda v: (tag, m, g(v), n))
    def f(v):
        return v * n

    return f(3)


@case((1,), (6,))
def lambdas_and_names_mixed_as_decorators(n):
    @_tagged
    @(lambda g: lambda v: (g(v), n))
    @(_tagged)
    @(lambda g: lambda v: [g(v), "inner"])
    def f(v):
        return v - n

    @(lambda c: c)
    @(lambda c: type(c.__name__ + "X", (c,), {"extra": n}))
    class K:
        base = n

    return f(10), K.__name__, K.extra, K.base
