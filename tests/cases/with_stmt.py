"""with statements: targets, multiple items, nesting, suppression, control flow inside."""
import contextlib

from tests.cases.registry import case


class Recorder:
    """Context manager that logs enter/exit into a shared list."""

    def __init__(self, log, name, suppress=False, value=None):
        self.log = log
        self.name = name
        self.suppress = suppress
        self.value = value

    def __enter__(self):
        self.log.append("enter " + self.name)
        return self.value if self.value is not None else self.name

    def __exit__(self, exc_type, exc, tb):
        self.log.append("exit %s %s" % (self.name, exc_type.__name__ if exc_type else None))
        return self.suppress


@case()
def with_as_target():
    log = []
    with Recorder(log, "a") as name:
        log.append("body " + name)
    return log


@case()
def with_without_target():
    log = []
    with Recorder(log, "a"):
        log.append("body")
    log.append("after")
    return log


@case()
def with_multiple_items():
    log = []
    with Recorder(log, "a") as a, Recorder(log, "b"), Recorder(log, "c") as c:
        log.append(a + c)
    return log


@case()
def with_items_reading_the_one_before():
    # one statement: 3.13 fuses the store of ``inner`` with its load on the same line
    log = []
    with Recorder(log, "a", value=Recorder(log, "b")) as inner, inner as b:
        log.append(b)
    return log


@case()
def nested_with_statements():
    log = []
    with Recorder(log, "outer") as o:
        log.append("between")
        with Recorder(log, "inner") as i:
            log.append(o + i)
        log.append("after inner")
    return log


@case((True,), (False,))
def with_suppressing_exception(fail):
    log = []
    with Recorder(log, "s", suppress=True):
        log.append("start")
        if fail:
            raise ValueError("swallowed")
        log.append("end")
    log.append("after")
    return log


@case((True,), (False,))
def with_exception_propagates(fail):
    log = []
    try:
        with Recorder(log, "p"):
            if fail:
                raise KeyError("k")
            log.append("body done")
    except KeyError as e:
        log.append("caught " + str(e))
    return log


@case((1,), (0,))
def return_inside_with(flag):
    log = []

    def inner():
        with Recorder(log, "r") as r:
            if flag:
                return "returned " + r
            log.append("no return")
        return "fell through"

    return inner(), log


@case(([1, 2, 3, 4, 5],))
def break_and_continue_inside_with_in_loop(items):
    log = []
    for x in items:
        with Recorder(log, str(x)):
            if x == 2:
                continue
            if x == 4:
                break
            log.append("body %d" % x)
    return log


@case()
def with_tuple_target():
    log = []
    with Recorder(log, "t", value=(1, (2, 3))) as (a, (b, c)):
        log.append(a + b + c)
    with Recorder(log, "u", value=[4, 5, 6]) as (first, *rest):
        log.append((first, rest))
    return log


@case()
def with_attribute_and_subscript_targets():
    log = []

    class Holder:
        pass

    h = Holder()
    d = {}
    with Recorder(log, "attr") as h.value:
        pass
    with Recorder(log, "item") as d["key"]:
        pass
    return log, h.value, d


@case((True,), (False,))
def contextmanager_decorator_inside(fail):
    log = []

    @contextlib.contextmanager
    def managed(tag):
        log.append("setup " + tag)
        try:
            yield tag.upper()
        except ValueError as e:
            log.append("handled " + str(e))
        finally:
            log.append("teardown " + tag)

    with managed("x") as v:
        log.append(v)
        if fail:
            raise ValueError("boom")
    return log


@case((True,), (False,))
def with_inside_try_except_finally(fail):
    log = []
    try:
        with Recorder(log, "w") as w:
            if fail:
                raise RuntimeError(w)
    except RuntimeError as e:
        log.append("except " + str(e))
    else:
        log.append("else")
    finally:
        log.append("finally")
    return log


@case((0,), (1,), (2,))
def try_inside_with(n):
    log = []
    with Recorder(log, "w"):
        try:
            if n == 1:
                raise ValueError("one")
            if n == 2:
                raise KeyError("two")
        except ValueError:
            log.append("value")
        finally:
            log.append("inner finally")
    return log


@case()
def with_exit_receives_exception_details():
    seen = []

    class Inspect:
        def __enter__(self):
            return self

        def __exit__(self, t, v, tb):
            seen.append((t.__name__ if t else None, str(v) if v else None, tb is not None))
            return t is not None and issubclass(t, ArithmeticError)

    with Inspect():
        1 / 0
    with Inspect():
        pass
    try:
        with Inspect():
            raise KeyError("kept")
    except KeyError:
        seen.append("propagated")
    return seen


@case()
def with_enter_value_used_after_block():
    log = []
    with Recorder(log, "v", value=[1, 2]) as lst:
        lst.append(3)
    lst.append(4)
    return lst, log


@case(("ab",), ("",))
def with_contextlib_suppress_and_nullcontext(s):
    out = []
    with contextlib.suppress(IndexError):
        out.append(s[0])
        out.append(s[1])
    with contextlib.nullcontext(s * 2) as doubled:
        out.append(doubled)
    return out


@case((3,),)
def nested_with_in_while_with_break(n):
    log = []
    i = 0
    while True:
        with Recorder(log, "outer%d" % i):
            with Recorder(log, "inner%d" % i):
                i += 1
                if i >= n:
                    break
    return log


@case((True,), (False,))
def with_exit_suppression_in_loop_continue(fail):
    log = []
    for i in range(3):
        with Recorder(log, "s%d" % i, suppress=True):
            if fail and i == 1:
                raise ValueError
            if i == 2:
                continue
            log.append(i)
        log.append("after %d" % i)
    return log


# Shapes that Python 3.8-3.10 compile with SETUP_WITH/WITH_CLEANUP_* blocks.

@case((True,), (False,))
def return_value_from_nested_with(flag):
    log = []
    with Recorder(log, "a") as a:
        with Recorder(log, "b") as b:
            if flag:
                return a + b
    return log


@case((True,), (False,))
def with_inside_finally(fail):
    log = []
    try:
        if fail:
            raise KeyError("k")
    except KeyError:
        log.append("caught")
    finally:
        with Recorder(log, "f") as f:
            log.append(f)
    return log


@case((True, False), (False, False), (True, True), same_bytecode=True)
def with_ending_the_function(flag, suppress):
    # the with (and the try/finally) end the nested functions: the implicit return
    # after them, not a ``return None`` in their bodies
    log = []

    def plain():
        with Recorder(log, "a", suppress):
            log.append("body")
            if suppress:
                raise KeyError("k")

    def in_if():
        if flag:
            with Recorder(log, "b", suppress):
                log.append("body")

    def nested():
        with Recorder(log, "c"):
            with Recorder(log, "d", suppress):
                log.append("body")

    def in_finally():
        if not flag:
            try:
                log.append("try")
            finally:
                log.append("finally")

    plain()
    in_if()
    nested()
    in_finally()
    return log


@case((True,), (False,), same_bytecode=True)
def two_items_returning_at_the_end(suppress):
    """click/core.py Context.invoke: ``with a, b: return f()`` ending the function, whose
    outer with's body is the inner one and the implicit return after the inner exit: one
    statement with two items, not two nested ones (a NOP for the inner's line)."""
    log = []
    with Recorder(log, "a"), Recorder(log, "b", suppress):
        log.append("body")
        return log, len(log) / (not suppress)


@case(([1, 2],), ([1, "x", 2],), ([],), structured=True)
def for_with_try_whose_except_clause_returns_nothing(items):
    """boltons' jsonutils._main (3.12+): ``return`` in an except clause of a try in a with
    in a for loop runs the with's exit copy, drops the iterator, then loads None: laid out
    after the loop, it was taken for where a ``break`` goes ("stack underflow")."""
    log = []
    for item in items:
        with Recorder(log, str(item)):
            try:
                log.append(int(item))
            except ValueError:
                return
    return log


@case(([1, 2], [3]), ([1, "x"], [3]), ([], []), structured=True)
def for_with_while_try_whose_except_clauses_return_and_break(items, more):
    """The same shape with a ``while 1`` and a second except clause that breaks (boltons'
    whole function): each item's iterator is read until StopIteration."""
    log = []
    for item in items:
        with Recorder(log, str(item)):
            source = iter(more)
            while 1:
                try:
                    log.append(int(item) + next(source))
                except ValueError:
                    log.append("bad")
                    return
                except StopIteration:
                    break
            log.append("done")
    return log


@case(([1, 2], False), ([1, 2], True), ([], True), structured=True)
def return_from_an_except_clause_through_two_withs_in_a_loop(items, fail):
    """Found by benchmarks/nested_try_loop_programs.py (3.12, 3.13): ``return`` from an
    except clause inside two withs, the inner one in a ``while`` loop, runs each with's
    exit copy outside the range of the one before: a straight run of blocks.  It was
    taken for where a ``break`` goes, past an else clause (stack underflow: lowered)."""
    log = []
    with Recorder(log, "a"):
        while items:
            with Recorder(log, "b"):
                try:
                    log.append(10 // (not fail))
                except ZeroDivisionError:
                    return log, items.pop()
            items.pop()
    return log


@case(([1, 3],), ([2, 5],), ([],), structured=True)
def return_from_a_while_loop_in_a_try_in_a_for_loop_in_a_with(items):
    """Found by benchmarks/nested_try_loop_programs.py (every version): ``return log``
    from a while loop that a statement in a try body comes before loads ``log`` in the
    try's range, then drops the for loop's iterator and runs the with's exit copy outside
    it.  The load was taken for the loop's way on ("a loop leaves its enclosing try or
    with": lowered)."""
    log = []
    with Recorder(log, "a"):
        for p in items:
            try:
                q = 0
                while q < p:
                    q += 1
                    if q == 2:
                        return log
                    log.append(q)
            except KeyError:
                log.append("k")
            log.append(-p)
    return log


@case(([1, 3],), ([2, 5],), ([],), ([4],), structured=True)
def return_from_a_while_loop_in_a_with_in_a_for_loop_in_an_except_clause(items):
    """Found by benchmarks/nested_try_loop_programs.py (every version): the same
    ``return`` in a with in a for loop in ``except E as e``: past the exit copy and the
    iterator's drop, the value is moved under the exception and the clause ended (``SWAP
    2``, ``POP_EXCEPT``, ``e = None; del e``), which the clause's elision did not skip
    ("a loop leaves its enclosing try or with": lowered)."""
    log = []
    try:
        if items and items[0] % 2 == 0:
            raise ValueError(items[0])
    except ValueError as e:
        log.append(str(e))
        for p in items:
            with Recorder(log, str(p)):
                q = 0
                while q < p:
                    q += 1
                    if q == 3:
                        return log
            log.append(-p)
    return log


@case(([1, 2],), ([1, 0],), ([],), structured=True)
def return_from_an_except_clause_in_a_for_loop_in_a_with_in_a_while_loop_in_a_try_with_finally(items):
    """Found by benchmarks/nested_try_loop_programs.py (3.12, 3.13): the same ``return``
    as above in a with in a ``while`` loop in a try with a finally body runs the with's
    exit copy, then the finally body's copy, then its bare ``RETURN_VALUE``: taken for
    where a ``break`` goes, past an else clause (stack underflow: lowered)."""
    log = []
    try:
        while items:
            with Recorder(log, "w"):
                for q in items:
                    try:
                        log.append(10 // q)
                    except ZeroDivisionError:
                        return log
            items = items[1:]
    finally:
        log.append("f")
    return log


@case(([1, 3],), ([2, 5],), ([],), ([3, 4],), structured=True)
def break_in_a_with_from_a_while_loop_ending_an_except_clause_in_a_for_loop(items):
    """Found by benchmarks/nested_try_loop_programs.py (3.13): a ``break`` from a with, in
    a while loop that ends an ``except E as e`` clause in a for loop, runs the with's exit
    copy, then 3.13's copy of the clause's end: a copy of where the loop's test leaves
    to, which was not taken for the loop's way on ("a loop leaves its enclosing try or
    with": lowered)."""
    log = []
    for p in items:
        try:
            if p % 2:
                raise ValueError(p)
        except ValueError as e:
            q = 0
            while q < p:
                q += 1
                with Recorder(log, str(q)):
                    if q == 2:
                        break
        log.append(p)
    return log


@case((0,), (1,), (3,), structured=True)
def return_from_a_with_in_a_finally_body(a):
    """Random programs (3.8): ``return`` from a with inside a finally body.  3.8 runs the
    with's exit inline on the way out (``WITH_CLEANUP_START`` .. ``POP_FINALLY``, with no
    ``SETUP_WITH`` of its own), which was taken for a with's dead cleanup that opens a
    block, so the finally body had no end ("no END_FINALLY": refused).  3.9+ lowered it:
    the return's way on through the finally handler's copy, see below."""
    log = []
    try:
        log.append(1 // a)
    finally:
        with Recorder(log, "in"):
            return a, log


@case((0,), (1,), (2,), (3,), structured=True)
def return_of_a_walrus_from_a_with_in_a_finally_body_in_a_with(a):
    """Random programs (3.9+; 3.8, see above): ``return (z := a)`` from a with inside a
    finally body, itself in a with.  The pending store ``(z := a)`` on the stack was not
    counted as a value the with body leaves, so the with statement dropped it and the
    return returned the finally handler's exception (an internal error).  Once counted,
    the return had to go on through the handler's copy of the finally body (``SWAP 2;
    POP_TOP; SWAP 2; POP_EXCEPT``) and the outer with's exit: the inner with's depth
    counted the value ``__enter__`` pushed, which its body pops, so the return value
    was not seen (the state machine)."""
    log = []
    with Recorder(log, "out"):
        try:
            log.append(1 // a)
        finally:
            with Recorder(log, "in", suppress=a == 2):
                if a != 3:
                    return (z := a), log
            log.append(z)
    return log


@case((0,), (1,), (2,), (3,), (-5,), structured=True)
def break_from_a_with_whose_exit_suppresses_in_a_while_true_loop(a):
    """Random programs: ``while True:`` whose with body's try is followed by ``break``;
    only a suppressing exit goes on in the loop.  3.8 and 3.11 took the with's exit copy
    for where the loop goes on, the place its except clause leaves to (lowered: "stack
    underflow").  3.10 and 3.12+ copy the ``return`` after the loop past the exit copy of the
    ``break``, which was taken for the code after the with, where the suppressing exit
    does not go: the return ran after an exception the with suppressed (wrong; then
    lowered).  The loop has no code after it of its own: the return of a local, which
    ``__exit__`` cannot rebind, ends the with body."""
    log = []
    while True:
        a += 1
        with Recorder(log, str(a), suppress=a == 2):
            try:
                if a == 2:
                    raise ValueError(a)
                log.append(1 // (a - 3))
            except ZeroDivisionError:
                log.append("z")
            break
    return log


@case((0,), (1,), (2,), structured=True)
def continue_from_a_with_whose_exit_suppresses_in_a_for_loop(a):
    """Random programs (every version): ``continue`` ending a with body in a for loop,
    then code after the with.  Only a suppressing exit goes on after the with; the
    with's way on was taken from its body alone, so that code was dropped (wrong: it
    ran no more after a suppressed exception; then lowered).  The body ends in the
    ``continue``, the with goes on where the suppressing exit does."""
    log = []
    for i in [a, 2]:
        with Recorder(log, str(i), suppress=True):
            if i == 2:
                raise ValueError(i)
            continue
        log.append("after")
    return log


@case((0,), (1,), (2,), (3,), structured=True)
def break_from_a_with_whose_exit_suppresses_in_a_for_loop_then_a_test(a):
    """Random programs (3.12): ``break`` ending a with body in a for loop, then an
    ``if`` after the with.  The break drops the iterator past the with's exit copy, then
    runs a copy of the return after the loop (whose first copy the graph's rewrite now
    jumps to another): taken for the code after the with, the ``if`` a suppressing exit
    goes on to was dropped (wrong)."""
    log = []
    for i in [a, 2, 3, 4]:
        with Recorder(log, str(i), suppress=i == 2):
            if i == 2:
                raise ValueError(i)
            break
        if i >= 4:
            break
    return len(log)


@case((0,), (1,), (2,), (3,), structured=True)
def break_from_a_with_whose_exit_suppresses_in_a_while_loop_then_code(a):
    """The same from a ``while`` loop whose code after it returns a local, the with's
    try ending in the ``break`` (structured on every version before too: the body's
    way out is a ``break``, not a return moved into the body)."""
    log = []
    i = a
    while i < 5:
        i += 1
        with Recorder(log, str(i), suppress=i == 2):
            try:
                if i == 2:
                    raise ValueError(i)
                log.append(1 // (i - 3))
            except ZeroDivisionError:
                log.append("z")
            break
        log.append("after")
    return log


@case((0,), (1,), (2,), (3,), structured=True)
def break_from_a_with_whose_exit_suppresses_in_a_try_with_finally_in_a_loop(a):
    """A ``break`` ending the body of a with whose exit suppresses, in the body of a try
    with a finally body, runs the exit, then the finally body's copy, then the code after
    the loop; the suppressing exit goes on to the code after the with (every version:
    the ``break`` was written after the with, and the code after the with dropped)."""
    log = []
    for i in [a, 1, 2, 3]:
        try:
            with Recorder(log, str(i), suppress=True):
                log.append(1 // (i - 1))
                break
            log.append("after")
        finally:
            log.append("f")
    log.append("end")
    return log


@case((0,), (1,), (2,), structured=True)
def break_from_a_with_whose_exit_suppresses_in_a_try_with_finally_in_a_while_loop(a):
    """The same from a ``while`` loop (3.12+: the finally body's copy falls into the code
    after the loop)."""
    log = []
    i = a
    while i < 4:
        i += 1
        try:
            with Recorder(log, str(i), suppress=True):
                log.append(1 // (i - 2))
                break
            log.append("after")
        finally:
            log.append("f")
    log.append("end")
    return log


@case(("none",), ("value",))
def return_from_a_try_finally_in_a_suppressing_with_in_a_finally_body(kind):
    """A ``return`` in a try/finally in a with whose exit suppresses, in a finally body:
    in the handler's copy the return drops the exception being handled past the with's
    exit, and the suppressing exit goes on to the end of the finally body instead.  The
    return was written after the with, as its way on (every version: a raise in the inner
    finally body, suppressed, returned ``'t3'`` instead of going on after the try); now
    lowered."""
    log = []
    try:
        log.append(kind)
    finally:
        with Recorder(log, "w", suppress=True):
            try:
                return "t3"
            finally:
                if kind == "value":
                    raise ValueError(kind)
    return log
