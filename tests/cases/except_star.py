"""except* with exception groups."""
MIN_VERSION = (3, 11)

from tests.cases.registry import case


def names(group):
    return sorted(type(e).__name__ for e in group.exceptions)


@case(("value",), ("type",), ("both",), ("none",))
def except_star_basic(kind):
    log = []
    errors = {
        "value": [ValueError("v")],
        "type": [TypeError("t")],
        "both": [ValueError("v1"), TypeError("t1"), ValueError("v2")],
        "none": [],
    }[kind]
    try:
        if errors:
            raise ExceptionGroup("group", errors)
        log.append("no error")
    except* ValueError as eg:
        log.append(("value", names(eg), [str(e) for e in eg.exceptions]))
    except* TypeError as eg:
        log.append(("type", names(eg)))
    return log


@case((True,), (False,))
def except_star_unhandled_rest_propagates(include_key):
    log = []
    try:
        try:
            excs = [ValueError("handled")]
            if include_key:
                excs.append(KeyError("unhandled"))
            raise ExceptionGroup("mixed", excs)
        except* ValueError as eg:
            log.append(("inner handled", names(eg)))
    except* KeyError as eg:
        log.append(("outer got", names(eg), eg.message))
    return log


@case((True,), (False,))
def except_star_wraps_naked_exception(naked):
    try:
        if naked:
            raise OSError("plain")
        raise ExceptionGroup("eg", [OSError("in group")])
    except* OSError as eg:
        result = type(eg).__name__, eg.message, [str(e) for e in eg.exceptions]
    return result


@case((0,), (1,))
def except_star_with_else_and_finally(n):
    log = []
    try:
        if n:
            raise ExceptionGroup("g", [ValueError(n)])
    except* ValueError as eg:
        log.append("except* %s" % names(eg))
    else:
        log.append("else")
    finally:
        log.append("finally")
    return log


@case(("value",), ("lookup",))
def except_star_tuple_of_types(kind):
    excs = [ValueError("a"), IndexError("b"), KeyError("c")] if kind == "lookup" else [ValueError("a")]
    try:
        raise ExceptionGroup("g", excs)
    except* (IndexError, KeyError) as eg:
        result = "lookup", names(eg)
    except* ValueError as eg:
        result = "value", names(eg)
    return result


@case((True,), (False,))
def except_star_nested_groups(deep):
    inner = ExceptionGroup("inner", [ValueError("deep"), TypeError("deep t")])
    outer_list = [inner, ValueError("top")] if deep else [ValueError("top")]
    caught = []
    try:
        raise ExceptionGroup("outer", outer_list)
    except* ValueError as eg:
        caught.append(("values", [str(e) for e in eg.exceptions if not isinstance(e, ExceptionGroup)]))
        caught.append(("subgroups", [e.message for e in eg.exceptions if isinstance(e, ExceptionGroup)]))
    except* TypeError as eg:
        caught.append(("types", len(eg.exceptions)))
    return caught


@case((3,),)
def except_star_inside_loop(n):
    log = []
    for i in range(n):
        try:
            excs = [ValueError(i)] if i % 2 == 0 else [TypeError(i)]
            raise ExceptionGroup("loop", excs)
        except* ValueError:
            log.append(("v", i))
        except* TypeError:
            log.append(("t", i))
    return log


@case((True,), (False,))
def raise_in_except_star_handler(fail):
    try:
        try:
            raise ExceptionGroup("g", [ValueError("x")])
        except* ValueError:
            if fail:
                raise RuntimeError("from handler")
    except* RuntimeError as eg:
        return_value = "runtime", names(eg)
    else:
        return_value = "handled quietly"
    return return_value


@case((True,), (False,))
def except_star_in_function_with_return_after(flag):
    def inner():
        result = []
        try:
            raise ExceptionGroup("g", [KeyError("k"), ValueError("v")] if flag else [KeyError("k")])
        except* KeyError:
            result.append("key")
        except* ValueError:
            result.append("value")
        return result

    return inner()


@case()
def except_star_split_and_subgroup_methods():
    eg = ExceptionGroup("all", [ValueError(1), TypeError(2), ValueError(3)])
    match_, rest = eg.split(ValueError)
    sub = eg.subgroup(lambda e: isinstance(e, TypeError))
    return names(match_), names(rest), names(sub), str(eg), repr(ValueError(1))


@case(("value",), ("type",), ("none",))
def except_star_unnamed_clauses_and_empty_body(kind):
    log = []
    errors = {"value": [ValueError("v")], "type": [TypeError("t")], "none": []}[kind]
    try:
        if errors:
            raise ExceptionGroup("g", errors)
        log.append("no error")
    except* ValueError:
        pass
    except* TypeError:
        log.append("type")
        log.append(len(errors))
    return log


@case((0,), (1,), (2,))
def except_star_with_nested_try_and_loop_in_clause(n):
    log = []
    try:
        raise ExceptionGroup("g", [ValueError(n)])
    except* ValueError as eg:
        for e in eg.exceptions:
            try:
                log.append(10 // e.args[0])
            except ZeroDivisionError:
                log.append("div0")
            if e.args[0] > 1:
                log.append("big")
    return log


@case((0,), (1,), (2,), structured=True)
def star_clause_whose_else_returns_then_continue_in_a_for_loop(kind):
    """The brief's shape (3.12/3.13): ``except*`` with ``else: return`` in a for loop,
    then ``if flag: continue`` and ``return``.  3.12+ lay the code after the try out past
    the clauses; falling out of the test, the loop's last statement drops the iterator
    first, and was taken for a ``break`` over an else clause: written after the loop,
    it dropped the iterator from an empty stack (refused: "stack underflow")."""
    log = []
    flag = 0
    for i in range(3):
        try:
            if kind:
                raise ExceptionGroup("g", [ValueError(i)])
        except* ValueError:
            log.append(i)
            if i == 1:
                kind -= 1
            flag = i != 2
        else:
            return i, log
        if flag:
            continue
        return -1, log
    return "end", log


@case((0,), (1,), (2,), structured=True)
def star_clause_whose_body_begins_with_a_try_with_an_else_clause(n):
    """exception_programs seed 5010 (3.11-3.13): an ``except*`` clause whose body began
    with a try was written ``pass``.  The body's first instruction is under the inner
    try's handler, not the clause's cleanup, and was taken for an empty body's."""
    log = []
    try:
        if n:
            raise ExceptionGroup("g", [ValueError(n)])
    except* ValueError:
        try:
            log.append(1 // (n - 1))
        except:
            log.append("div")
        else:
            log.append("else")
    return log


@case((0,), (1,), (2,), structured=True)
def named_star_clause_whose_body_is_a_try_with_an_unnamed_clause(n):
    """3.13 copies the end of the ``except* ValueError as eg`` clause (``eg = None; del
    eg``, then the jump on) into each way out of the inner try: after the inner clause's
    ``POP_EXCEPT``, that cleanup was taken for the inner clause's own."""
    log = []
    try:
        if n:
            raise ExceptionGroup("g", [ValueError(n)])
    except* ValueError as eg:
        try:
            log.append(1 // (n - 1))
        except ZeroDivisionError:
            log.append(len(eg.exceptions))
    log.append("after")
    return log


class _Suppress:
    def __init__(self, log):
        self.log = log

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.log.append("exit")
        return True


@case((0,), (1,), (2,), structured=True)
def while_in_a_try_whose_star_try_ends_in_a_with_and_has_an_else_that_raises(n):
    """exception_programs seed 4683 (3.13): the with's suppressing exit jumps back to the
    else clause's ``raise``, from a block of its own under the outer try's handler, laid
    out past the loop's test exit.  That jump was taken for a ``break`` over an else clause
    and the ``raise`` for where the loop goes on: ``break``s, and the ``raise`` written
    after the loop, which a failing test then ran."""
    log = []
    try:
        while n > 0:
            n -= 1
            try:
                with _Suppress(log):
                    log.append(n)
            except* KeyError:
                log.append("k")
            else:
                raise ValueError(n)
    except ValueError as e:
        log.append(("v", e.args))
    return log
