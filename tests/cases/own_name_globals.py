"""A function reading the module's binding of its own name, recompiled on its own.

A method that calls ``super()`` closes over ``__class__``, and a closure over the
locals of the function it was made in: on its own, such a function is written inside
``def __enclosing_scope__():``, which binds its free variables, and so also the name
its ``def`` binds.  Its body's read of the module's function (or class) of the same
name then read the function itself, a free variable more: recompile refused (3.8-3.10,
and closures on every version), and the text alone called the wrong function (3.11+).
The def now declares the name ``global``, as it read it."""
from tests.cases.registry import call, case


def helper():
    return "module helper"


def described():
    return "module described"


def tally():
    return "module tally"


class _Base:
    def helper(self, n):
        return "base", n

    def described(self, n):
        return "base described", n

    def tally(self):
        return "base tally"


class _Child(_Base):
    def helper(self, n):
        return super().helper(n), helper()

    def described(self, n):
        """A docstring, which stays first, before the declaration."""
        def inner(k):
            return described(), k

        class Local:
            made = described()

        return super().described(n), inner(n), Local.made, described.__name__

    # (not a case: a lambda on its own is decompiled bare, but named as its target string
    # names it, ``tally = lambda ...``, test_standalone's test of these reads it)
    tally = lambda self: (super().tally(), tally())  # noqa: E731


case(call(_Child(), 1), call(_Child(), 2))(_Child.helper)
case(call(_Child(), 3))(_Child.described)


def _maker(n):
    global made_by_maker

    def made_by_maker(k):
        return made_by_maker.__name__, k + n

    return made_by_maker


case((1,), (2,))(_maker(5))


shadowed = "module shadowed"


@case((1,), (2,))
def nested_reads_a_global_its_enclosing_function_binds(n):
    """``global shadowed`` in a nested function that only reads it, while the function
    around binds ``shadowed``: the declaration was left out, and the nested function read
    the enclosing local (an outsider's trial, every version)."""
    shadowed = n * 10

    def reads():
        global shadowed
        return shadowed

    def deeper():
        def inner():
            return shadowed        # global: ``deeper`` declares it

        global shadowed
        return inner()

    def passes_through():
        def inner():
            return shadowed        # the enclosing local, through passes_through

        return inner()

    return shadowed, reads(), deeper(), passes_through()
