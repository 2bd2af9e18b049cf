"""try / except / else / finally, raise, raise from, re-raise, exception chaining."""
import contextlib

from tests.cases.registry import case


def fail_with(kind):
    if kind == "value":
        raise ValueError("bad value")
    if kind == "key":
        raise KeyError("k")
    if kind == "type":
        raise TypeError("bad type")
    if kind == "zero":
        return 1 // 0
    return "ok:%s" % kind


@case(("value",), ("none",))
def try_except_basic(kind):
    try:
        r = fail_with(kind)
    except ValueError:
        r = "caught"
    return r


@case(("value",), ("key",), ("type",), ("none",))
def try_except_as_multiple_handlers(kind):
    try:
        return fail_with(kind)
    except ValueError as e:
        return "value: " + str(e)
    except KeyError as e:
        return "key: " + repr(e.args)
    except TypeError:
        return "type"


@case(("value",), ("type",), ("zero",), ("none",))
def except_tuple_of_types(kind):
    try:
        fail_with(kind)
    except (ValueError, TypeError) as err:
        return type(err).__name__
    except ZeroDivisionError:
        return "zero"
    return "nothing"


@case(("key",), ("none",))
def bare_except(kind):
    try:
        fail_with(kind)
        out = "fine"
    except:  # noqa: E722
        out = "something"
    return out


@case(("value",), ("none",))
def try_except_else(kind):
    log = []
    try:
        log.append(fail_with(kind))
    except ValueError:
        log.append("except")
    else:
        log.append("else")
    return log


@case(("value",), ("none",), ("key",))
def try_except_else_finally(kind):
    log = []
    try:
        try:
            log.append(fail_with(kind))
        except ValueError as e:
            log.append("except " + str(e))
        else:
            log.append("else")
        finally:
            log.append("finally")
    except KeyError:
        log.append("outer key")
    return log


@case(("value",), ("none",))
def try_finally_without_except(kind):
    log = []
    try:
        try:
            log.append(fail_with(kind))
        finally:
            log.append("cleanup")
    except ValueError:
        log.append("outer")
    return log


@case((1,), (-1,), (0,))
def raise_with_message(x):
    if x < 0:
        raise ValueError("negative: %d" % x)
    if x == 0:
        raise ZeroDivisionError
    return x


@case(("12",), ("zz",))
def raise_from_cause(s):
    try:
        try:
            return int(s)
        except ValueError as e:
            raise LookupError("wrapped") from e
    except LookupError as outer:
        return str(outer), type(outer.__cause__).__name__, outer.__suppress_context__


@case(("zz",), ("3",))
def raise_from_none(s):
    try:
        try:
            return int(s)
        except ValueError:
            raise KeyError(s) from None
    except KeyError as outer:
        return outer.__cause__, outer.__suppress_context__, type(outer.__context__).__name__


@case(("value",), ("none",))
def bare_reraise(kind):
    log = []
    try:
        try:
            fail_with(kind)
        except ValueError:
            log.append("inner")
            raise
        log.append("no error")
    except ValueError as e:
        log.append("outer " + str(e))
    return log


@case(("value",), ("none",))
def exception_context_from_handler(kind):
    try:
        try:
            fail_with(kind)
        except ValueError:
            {}["missing"]
        return "clean"
    except KeyError as e:
        return type(e.__context__).__name__, str(e.__context__), e.__cause__ is None


@case(("value",), ("none",))
def exception_variable_unbound_after_handler(kind):
    e = "before"
    try:
        fail_with(kind)
    except ValueError as e:
        pass
    try:
        return e
    except NameError as err:
        return type(err).__name__


@case((0,), (1,), (2,))
def custom_exception_class(n):
    class AppError(Exception):
        def __init__(self, code, detail="none"):
            super().__init__(code, detail)
            self.code = code

        def __str__(self):
            return "AppError[%d]" % self.code

    class SubError(AppError):
        pass

    try:
        if n == 1:
            raise AppError(1)
        if n == 2:
            raise SubError(2, detail="sub")
        return "no error"
    except SubError as e:
        return "sub", e.code, e.args, str(e)
    except AppError as e:
        return "app", e.code, e.args, str(e)


@case((0,), (1,), (2,))
def return_in_try_with_finally(n):
    log = []

    def inner():
        try:
            if n == 0:
                return "from try"
            if n == 1:
                raise ValueError("x")
            log.append("body end")
        except ValueError:
            log.append("handler")
            return "from except"
        finally:
            log.append("finally")
        return "after"

    return inner(), log


@case((True,), (False,))
def finally_return_overrides(fail):
    def inner():
        try:
            if fail:
                raise RuntimeError("lost")
            return "try value"
        finally:
            return "finally value"

    return inner()


@case((True,), (False,))
def raise_in_finally_replaces(fail):
    try:
        try:
            if fail:
                raise ValueError("original")
        finally:
            raise KeyError("from finally")
    except KeyError as e:
        ctx = e.__context__
        return str(e), None if ctx is None else str(ctx)


@case(([1, "a", 0, 4, None],), ([],))
def try_in_loop_with_continue_and_break(items):
    out = []
    for item in items:
        try:
            if item is None:
                break
            out.append(10 // item)
        except ZeroDivisionError:
            out.append("div0")
            continue
        except TypeError:
            out.append("type")
        else:
            out.append("ok")
        out.append("end of iteration")
    return out


@case(("value",), ("key",), ("none",))
def nested_try_in_handler(kind):
    try:
        fail_with(kind)
    except Exception as e:
        try:
            fail_with("key" if isinstance(e, ValueError) else "none")
        except KeyError:
            return "inner caught after " + type(e).__name__
        return "handler completed " + type(e).__name__
    return "none"


@case(([1, 2],), ({},), (None,))
def except_order_subclass_first(container):
    try:
        return container[5]
    except IndexError:
        return "index"
    except LookupError:
        return "lookup"
    except Exception as e:
        return type(e).__name__


@case(("value",), ("none",))
def exception_args_and_attributes(kind):
    try:
        fail_with(kind)
    except ValueError as e:
        return e.args, isinstance(e, Exception), e.__class__.__name__, e.with_traceback(None) is e
    return None


@case((3,), (-3,))
def raise_class_vs_instance(x):
    try:
        if x > 0:
            raise IndexError
        raise IndexError("msg %d" % x)
    except IndexError as e:
        return e.args


@case((0,), (1,), (2,))
def uncaught_exception_propagates(n):
    try:
        if n == 1:
            raise ValueError("escapes")
        if n == 2:
            raise TypeError("handled")
    except TypeError:
        return "handled"
    finally:
        n += 100
    return n


@case((2,), (5,))
def while_true_retry_loop(fail_times):
    attempts = []
    while True:
        try:
            if len(attempts) < fail_times:
                raise ConnectionError("attempt %d" % len(attempts))
            attempts.append("success")
            break
        except ConnectionError as e:
            attempts.append(str(e))
            if len(attempts) > 3:
                raise RuntimeError("gave up") from e
    return attempts


@case(("value",), ("none",))
def try_except_pass(kind):
    try:
        fail_with(kind)
    except ValueError:
        pass
    return "done"


@case(("key",), ("value",))
def except_with_exception_type_from_variable(kind):
    handled = (KeyError, IndexError)
    try:
        fail_with(kind)
    except handled as e:
        return "handled " + type(e).__name__
    except BaseException as e:
        return "base " + type(e).__name__


# Shapes that Python 3.8-3.10 compile with the block stack (SETUP_FINALLY,
# BEGIN_FINALLY/CALL_FINALLY/POP_FINALLY on 3.8, copied finally exits on 3.10).

@case(("value",), ("none",))
def finally_body_returns(kind):
    log = []
    try:
        log.append(fail_with(kind))
    finally:
        return log


@case(([1, 0, 2],), ([3, 4],))
def return_inside_finally_inside_loop(items):
    for x in items:
        try:
            fail_with("none")
        finally:
            if not x:
                break
            if x > 3:
                return x
    return -1


@case(("value",), ("key",), ("none",))
def return_from_except_as(kind):
    try:
        fail_with(kind)
    except ValueError as e:
        return "value " + str(e)
    except KeyError:
        return "key"
    return "none"


@case((["value", "none", "key", "zero"],))
def break_continue_in_except_as_with_finally(kinds):
    log = []
    for kind in kinds:
        try:
            fail_with(kind)
        except (ValueError, KeyError) as e:
            if isinstance(e, KeyError):
                break
            continue
        except ZeroDivisionError:
            log.append("zero")
        finally:
            log.append(kind)
    return log


@case(("value",), ("key",), ("none",))
def try_finally_nested_in_finally(kind):
    log = []
    try:
        log.append(fail_with(kind))
    finally:
        try:
            log.append("outer finally")
        finally:
            log.append("inner finally")
    return log


@case(("value",), ("none",))
def try_except_in_except_handler_with_finally(kind):
    log = []
    try:
        fail_with(kind)
    except ValueError:
        try:
            fail_with("key")
        except KeyError as inner:
            log.append("inner " + str(inner))
        finally:
            log.append("inner finally")
    log.append("end")
    return log


@case((3,), (0,))
def try_around_while_true_loop(n):
    log = []
    i = 0
    try:
        while True:
            log.append(10 // (n - i))
            i += 1
    except ZeroDivisionError:
        log.append("stopped at %d" % i)
    return log


@case((4, 2), (3, None))
def break_inside_try_body_in_for_loop(n, stop):
    seen = []
    for i in range(n):
        try:
            if i == stop:
                break
            seen.append(10 // (i - 1))
        except ZeroDivisionError:
            seen.append("div0")
            continue
    return seen


@case(("7",), ("2",), ("x",), same_bytecode=True)
def else_clause_never_ending(text):
    # the except clause returns, the else clause returns or raises: the code after
    # the body is the else clause (laid out before the clauses), not code after the try
    try:
        number = int(text)
    except ValueError:
        return -1
    else:
        if number > 3:
            return number
        raise KeyError(number)


@case((0,), (1,), (None,), same_bytecode=True)
def else_clause_at_the_end(position):
    log = []

    def reset():
        try:
            value = position + 1
        except TypeError:
            pass
        else:
            if value != 1:
                log.append("setstate")
            else:
                log.append("reset")

    reset()
    return log


@case(({"a": 1}, "a"), ({"a": None}, "a"), ({}, "b"), (None, "a"))
def try_in_else_clause_or_after(table, key):
    # an else clause going on to the code after the try (identical on 3.8, 3.9, 3.11;
    # 3.12+ lay handlers out last and its end is not told from the code after the try)
    try:
        found = table.copy()
    except AttributeError:
        return "no table"
    else:
        try:
            value = found[key]
        except KeyError:
            return "missing"
        else:
            if value is None:
                return "none"
    try:
        size = len(table)
    except TypeError:
        return "no size"
    try:
        value = table[key] + size
    except KeyError:
        return "missing"
    return value


@case(*[(c, f, []) for c in (0, 1) for f in (0, 1)], same_bytecode=True)
def ifs_ending_a_try_body_and_its_except_clause_at_the_end_of_the_function(closed, fail, log):
    """asyncio's BaseEventLoop._do_shutdown (3.10): each if's arm runs into the end of
    its try body or except clause; that end (the clause's cleanup, the implicit
    return) is how the try is left, not code after the if: written after it, a
    ``return None`` stood in the clause."""
    try:
        if fail:
            raise ValueError(fail)
        if not closed:
            log.append("result")
    except ValueError as ex:
        if not closed:
            log.append(ex)


@case(("a", None), ("b", 1), ("c", 0), (None, "x"), ("d", "y"), same_bytecode=True)
def if_whose_try_body_returns_and_clause_runs_into_the_code_after(key, value):
    """ast's NodeVisitor.visit_Constant, json's _decode_uXXXX: the if's arm goes on only
    through its except clause, whose end 3.12+ lay out last and jump back from to the
    code after the if; written inside the arm, that code came twice."""
    table = {"a": 1, "b": 2}
    if key is not None:
        try:
            return table[key] + value
        except (KeyError, TypeError):
            pass
    return "default %r" % (key,)


@case(("..", None), ("..", "500 no"), ("..", "550 no"), ("", None), ("x", None), same_bytecode=True)
def if_whose_try_body_returns_then_elif(name, error):
    """ftplib's FTP.cwd: the first arm goes on only through its except clause, which
    jumps over the elif arm (3.12+: back, from where the clauses are laid out)."""
    log = []
    if name == "..":
        try:
            if error:
                raise ValueError(error)
            return "up"
        except ValueError as msg:
            if msg.args[0][:3] != "500":
                raise
            log.append(msg.args[0])
    elif name == "":
        name = "."
    log.append("cwd " + name)
    return log


@case((5, 1, []), (5, 0, []), (4, "x", []), same_bytecode=True)
def if_whose_try_body_continues_in_a_loop(n, d, out):
    """In a loop, an if's arm that goes on only through its except clause (the try body
    continues): the code after the if is where the clause goes, not the arm's own."""
    for i in range(n):
        if i % 2 == 0:
            try:
                out.append(10 // d)
                continue
            except TypeError:
                pass
        out.append(i)
    return out


@case(([5, 3, 1, -2], []), ([1, 2], []), ([3, 4], []), same_bytecode=True)
def if_that_returns_continues_or_runs_into_the_code_after_in_a_loop(xs, out):
    """In a loop, an if's arm that returns on one path, continues on another and runs
    into the code after the if on a third: that code is no code of the arm."""
    for x in xs:
        if x > 0:
            if x == 5:
                return out
            if x == 3:
                continue
            out.append(x)
        out.append(-x)
    return out


@case(("12",), ("x",), (None,), same_bytecode=True)
def local_returned_after_a_try_whose_clauses_raise(text):
    """argparse's ArgumentParser._get_value, dis._try_compile (3.10): the ``return n``
    after a try whose clauses never go on is copied to the end of the try body, after
    the ``POP_BLOCK`` that ends it (a ``return`` in the body loads its value before)."""
    try:
        n = int(text)
    except ValueError:
        raise LookupError(text)
    except TypeError as exc:
        raise LookupError(str(exc)) from None
    return n


@case(("12",), ("x",), same_bytecode=True)
def local_returned_after_nested_trys_whose_clauses_raise(text):
    try:
        try:
            n = int(text)
        except ValueError:
            raise KeyError(text)
        return n + 1
    except KeyError:
        n = -1
    return n


@case((1, []), ("x", []), same_bytecode=True)
def except_clause_that_passes_in_a_try_finally_ending_the_function(a, log):
    """bdb's Bdb.run, smtplib's SMTP.__exit__ (3.10): the clause jumps to the copy of the
    finally body that ends the function with its implicit return (3.10 gives each way
    out its own); a ``return`` in the clause runs one where it is, without the jump.
    (Written as two statements: 3.11+ keep a NOP for each ``try`` line.)"""
    try:
        try:
            log.append(a + 1)
        except TypeError:
            pass
    finally:
        log.append("done")


def _link(log, how):
    log.append(how)
    if how in ("permission", "clash", "other"):
        raise {"permission": PermissionError, "clash": OSError(1, "clash"),
               "other": OSError(2, "other")}[how]


@case(("ok",), ("permission",), ("clash",), ("other",), same_bytecode=True)
def local_returned_after_a_try_around_a_try_with_an_else_clause(how):
    """mailbox's Maildir.add (3.10): the inner try's except clause and else clause each go
    on to their copy of the ``return`` after the outer try: the else clause rejoins."""
    log = []
    try:
        try:
            _link(log, how)
        except (AttributeError, PermissionError):
            log.append("renamed")
        else:
            log.append("removed")
    except OSError as e:
        log.append("cleanup")
        if e.errno == 1:
            raise KeyError(how)
        else:
            raise
    return log


@case((2,), (0,), (None,), same_bytecode=True)
def except_clauses_and_finally_body_under_one_try(x):
    """runpy's _get_main_module_details: ``try: ... except ... finally:`` is a
    try/except inside a try/finally under one ``try`` line (3.11+ keep one NOP
    for it; written as two nested trys, the inner ``try`` line kept a second)."""
    log = []
    try:
        r = 10 // x
    except ZeroDivisionError:
        r = -1
    except TypeError:
        return log
    finally:
        log.append("done")
    return r, log


@case((2,), (0,), same_bytecode=True)
def try_except_nested_in_try_finally(x):
    log = []
    try:
        try:
            r = 10 // x
        except ZeroDivisionError:
            r = -1
    finally:
        log.append("done")
    return r, log


@case(("1", "0", int), ("x", "1", int), same_bytecode=True)
def try_with_its_body_on_its_line(f, E, getboolean):
    """tkinter's Misc._substitute, cgitb: ``try: stmt`` on one line has no NOP for
    the try line (3.11+); written on two lines it got one."""
    e = {}
    try: e['focus'] = getboolean(f)
    except (ValueError, TypeError): pass
    try: e['send'] = getboolean(E)
    except (ValueError, TypeError):
        e['send'] = None
    e['x'] = f
    return e


@case(({}, "k"), ({"k": 1}, "k"), ({}, ""), ({}, None), same_bytecode=True)
def try_else_with_an_if_that_returns_in_an_except_clause(d, key):
    """jinja2's SandboxedEnvironment.getitem (3.10, 3.13): the else clause's if runs on
    into the end of the enclosing except clause, laid out apart from the handler's (3.13:
    its own ``POP_EXCEPT; JUMP``, 3.10: its own copy of the return after the try)."""
    try:
        return d[key]
    except (KeyError, TypeError):
        try:
            name = key.upper()
        except AttributeError:
            pass
        else:
            if name:
                return name
    return repr(key)


@case(({}, "k"), ({"k": 1}, "k"), ({}, ""), ({}, None), ({}, "upper"), same_bytecode=True)
def try_else_holding_a_try_else_in_an_except_clause(d, key):
    """The same with a second try/except/else in the else clause (jinja2's shape)."""
    try:
        return d[key]
    except (KeyError, TypeError):
        try:
            name = key.upper()
        except AttributeError:
            pass
        else:
            try:
                value = getattr(str, name.lower())
            except AttributeError:
                pass
            else:
                return value
    return repr(key)


@case(("value", "none", True), ("value", "none", False), ("value", "value", True), ("none", "none", False),
      structured=True)
def nested_try_whose_if_arms_leave_an_except_clause_each_their_own_way(first, second, flag):
    """markdown's codehilite (3.13): each arm of the if that ends the inner try body leaves
    the outer except clause through its own POP_EXCEPT and jump to the shared tail
    ("try body leaves to several places")."""
    seen = []
    try:
        fail_with(first)
    except ValueError:
        try:
            if flag:
                seen.append(fail_with(second))
            else:
                seen.append(2)
        except ValueError:
            seen.append("inner")
    seen.append("tail")
    return seen


# A finally body that leaves by ``continue`` or ``break`` on one path: the handler's copy
# drops its exception first, so its test jumps the other way round from the normal copy's
# (and a ``break`` then drops the loop's iterator on both paths).  Leaving swallows the
# exception.

@case((["value", "none", "key"], [1, 0, 1]), (["none", "zero"], [0, 0]), structured=True)
def continue_in_finally_swallows(kinds, flags):
    log = []
    for kind, flag in zip(kinds, flags):
        try:
            log.append(fail_with(kind))
        finally:
            if flag:
                continue
        log.append("after " + kind)
    return log


@case((["none", "value", "none"], [0, 1, 0]), (["key"], [0]), (["none", "none"], [1, 1]), structured=True)
def break_in_finally_swallows(kinds, flags):
    log = []
    for kind, flag in zip(kinds, flags):
        try:
            log.append(fail_with(kind))
        finally:
            if flag:
                log.append("break")
                break
            log.append("on")
    else:
        log.append("no break")
    return log


@case((3, 1), (3, 0), (0, 1), structured=True)
def continue_or_break_in_finally_of_while(n, stop_at):
    log = []
    while n:
        n -= 1
        try:
            log.append(fail_with("value" if n % 2 else "none"))
        finally:
            if n == stop_at:
                break
            if n % 2:
                continue
        log.append(n)
    return log


# A ``break`` or ``return`` from an except clause of a try/except/finally in a loop runs a
# copy of a finally body that branches (``if flag:``) on its way out.  That copy is no place
# the loop goes on at: taken for one, the finally body was written after the loop too and
# ran twice.

_BRANCHING_FINALLY_RUNS = ((["none", "value", "none"], 1), (["value", "none"], 0), (["none", "key"], 1),
                           ([], 1), (["value", "value", "none"], 1), (["none"], 0))


@case(*_BRANCHING_FINALLY_RUNS, structured=True)
def break_from_except_clause_through_branching_finally(kinds, flag):
    log = []
    i = 0
    while i < len(kinds):
        kind = kinds[i]
        i += 1
        try:
            log.append(fail_with(kind))
        except ValueError:
            log.append("v")
            break
        finally:
            if flag:
                log.append("f")
    log.append("after")
    return log


@case(*_BRANCHING_FINALLY_RUNS, structured=True)
def break_from_except_clause_through_finally_if_else(kinds, flag):
    log = []
    i = 0
    while True:
        if i >= len(kinds):
            break
        kind = kinds[i]
        i += 1
        try:
            log.append(fail_with(kind))
        except ValueError:
            log.append("v")
            break
        finally:
            if flag:
                log.append("f")
            else:
                log.append("g")
    log.append("after")
    return log


@case(*_BRANCHING_FINALLY_RUNS, structured=True)
def return_from_try_body_through_branching_finally(kinds, flag):
    log = []
    i = 0
    while i < len(kinds):
        kind = kinds[i]
        i += 1
        try:
            log.append(fail_with(kind))
            return log
        except ValueError:
            log.append("v")
        finally:
            if flag:
                log.append("f")
    log.append("after")
    return log


@case(*_BRANCHING_FINALLY_RUNS, structured=True)
def continue_in_try_body_return_in_except_clause_through_finally_if_else(kinds, flag):
    log = []
    i = 0
    while True:
        if i >= len(kinds):
            break
        kind = kinds[i]
        i += 1
        try:
            log.append(fail_with(kind))
            continue
        except ValueError:
            log.append("v")
            return log
        finally:
            if flag:
                log.append("f")
            else:
                log.append("g")
    log.append("after")
    return log


# The same ways out from both the try body and the except clause of a ``while True`` that
# never loops back (bottle's ``Bottle._handle``): each runs its own copy of the finally
# body, then the code after the loop, copied too on 3.11+; past the copies they rejoin.

@case(("none", 1), ("value", 1), ("key", 1), ("none", 0), ("value", 0), ("key", 0), structured=True)
def break_from_try_body_and_except_clause_through_branching_finally(kind, flag):
    log = []
    while True:
        try:
            out = fail_with(kind)
            break
        except ValueError:
            out = "v"
            break
        finally:
            if flag:
                log.append(out)
    return out, log


@case(("none", 1), ("value", 1), ("key", 1), ("none", 0), ("value", 0), ("key", 0), structured=True)
def break_from_try_body_and_except_clause_through_finally_if_else(kind, flag):
    log = []
    while True:
        try:
            out = fail_with(kind)
            break
        except ValueError:
            out = "v"
            break
        finally:
            if flag:
                log.append(1)
            else:
                log.append(2)
    log.append("after")
    return out, log


# The same ``while True`` in the body of a try with except clauses of its own (bottle's
# ``Bottle._handle``): its ``break``s leave that try too, each after its copy of the finally
# body (a branching one, maybe with a try in it) and a jump, or (3.12+) a copy of the code
# after the try.  The loop goes on there, not at the except clause's copy of the finally body.

_THROUGH_FINALLY_CALLS = ((["none"], "none"), (["value"], "none"), (["key", "none"], "none"),
                          (["key", "value"], "value"), (["type"], "none"), (["none"], "type"),
                          (["key", "key", "none"], "key"), (["value"], "value"), (["none"], "key"))


@case(*_THROUGH_FINALLY_CALLS, structured=True)
def break_from_while_true_in_try_through_finally_with_a_try(kinds, fin):
    """As found (bottle 0.12/0.13, refused on 3.11+): the try's ``if`` and ``try`` in the
    finally body, the clause's ``break`` leaving ``out`` as it was."""
    log = []
    out = "unset"
    it = iter(kinds)
    try:
        while True:
            try:
                out = fail_with(next(it))
                break
            except ValueError:
                break
            except KeyError:
                log.append("k")
            finally:
                if fin != "none":
                    log.append("f")
                try:
                    log.append(fail_with(fin))
                except ValueError as e:
                    log.append(str(e))
    except TypeError:
        out = "t"
    except Exception as e:
        out = repr(e)
    return out, log


@case(*_THROUGH_FINALLY_CALLS, structured=True)
def break_from_while_true_through_finally_with_a_try_of_two_clauses(kinds, fin):
    """No try around the loop; the finally body's try has two except clauses."""
    log = []
    it = iter(kinds)
    while True:
        try:
            out = fail_with(next(it))
            break
        except ValueError:
            out = "v"
            break
        except KeyError:
            log.append("k")
        finally:
            if fin == "none":
                log.append("f")
            try:
                log.append(fail_with(fin))
            except ValueError:
                log.append("fv")
            except KeyError as e:
                log.append(repr(e))
    return out, log


@case(*_THROUGH_FINALLY_CALLS, structured=True)
def break_from_while_true_in_try_finally_through_finally_with_a_try(kinds, fin):
    """A try/finally around the loop (3.12+: the try body's ``break`` runs the finally
    body's copy straight into the code after the loop, read as the try's else clause, which
    did not end where it jumps: lowered)."""
    log = []
    it = iter(kinds)
    try:
        while True:
            try:
                out = fail_with(next(it))
                break
            except ValueError:
                out = "v"
                break
            except KeyError:
                log.append("k")
            finally:
                if fin == "none":
                    log.append("f")
                try:
                    log.append(fail_with(fin))
                except ValueError as e:
                    log.append(str(e))
    finally:
        log.append("outer")
    return out, log


@case(*_THROUGH_FINALLY_CALLS, structured=True)
def break_from_while_true_in_try_through_branching_finally(kinds, fin):
    """A branching finally body, no try in it."""
    log = []
    it = iter(kinds)
    try:
        while True:
            try:
                out = fail_with(next(it))
                break
            except ValueError:
                out = "v"
                break
            except KeyError:
                log.append("k")
            finally:
                if fin == "none":
                    log.append("f")
    except TypeError:
        out = "t"
    except Exception as e:
        out = repr(e)
    return out, log


@case(*_THROUGH_FINALLY_CALLS)
def break_from_while_true_in_try_through_straight_finally(kinds, fin):
    """A straight finally body."""
    log = []
    it = iter(kinds)
    try:
        while True:
            try:
                out = fail_with(next(it))
                break
            except ValueError:
                out = "v"
                break
            except KeyError:
                log.append("k")
            finally:
                log.append(fin)
    except TypeError:
        out = "t"
    except Exception as e:
        out = repr(e)
    return out, log



@case((["none"],), (["value"],), (["key", "none"],), (["key", "value"],), (["type"],), (["key", "type"],))
def return_after_a_try_of_a_local_a_break_may_leave_unbound(kinds):
    """``return out`` after the try, past a loop whose ``except ValueError: break`` leaves
    ``out`` unbound: 3.12+ copy the return onto each way out of the loop, and the copy on
    that clause's way loads ``out`` checked (LOAD_FAST_CHECK).  It was written inside the
    try, after the loop, as a load that cannot raise, so ``except Exception`` caught the
    UnboundLocalError the original raises."""
    it = iter(kinds)
    try:
        while True:
            try:
                out = fail_with(next(it))
                break
            except ValueError:
                break
            except KeyError:
                pass
            finally:
                fail_with("none")
    except Exception:
        return "caught"
    return out


@case(("none",), ("value",), ("key",), structured=True)
def return_after_a_finally_whose_try_always_raises_into_a_clause(kind):
    """A finally body whose try body always raises, caught by its except clause: the
    finally body goes on only through that clause.  Its copies were walked along their
    instructions but not into the clause, so the body seemed never to complete, and the
    ``return`` after the try was dropped (every version; found by
    benchmarks/exception_programs.py)."""
    log = []
    try:
        log.append(fail_with(kind))
    finally:
        try:
            raise KeyError("t5")
        except KeyError:
            got = fail_with("none")
    return got, log


@case((["none"],), (["value"],))
def return_in_a_try_body_whose_value_an_outer_finally_return_drops(kinds):
    """``return b`` in a try body (``b`` unbound there: it raises) whose finally body
    binds ``b``, under an outer ``finally: return``, which drops the value or the error.
    Every version wrote ``__t0 = b`` before the inner try, so the error came before the
    body's ``log.append`` and the finally body's call never ran (found by a helper's
    generator); lowered now."""
    log = []
    it = iter(kinds)
    try:
        try:
            log.append("t1")
            return b  # noqa: F821,F823  (bound below: the UnboundLocalError is the behaviour)
        finally:
            b = fail_with(next(it))
            log.append(b)
    finally:
        return "t5", log  # noqa: B012


@case((0,), (1,))
def return_alone_in_a_try_body_whose_value_a_finally_return_drops(k):
    """``return b`` alone in a try body (``b`` unbound: it raises), whose finally body
    returns from a try of its own, under a try/except.  Every version wrote ``__t0 = b``
    before the inner try (the body being empty, nothing told the value was computed inside
    it): the error left through the except clause without running the finally body, whose
    ``return 't3'`` drops it (found by exception_programs.py on 3.10, seed 1418); lowered now."""
    try:
        try:
            return b  # noqa: F821,F823  (deleted below: the UnboundLocalError is the behaviour)
        finally:
            if k:
                a = 1
            else:
                del b
            try:
                return "t3"  # noqa: B012
            finally:
                del a
    except Exception:
        pass
    return "end"

# A finally body that never completes: the normal path's copy ends the try; written after
# the body as well, it would raise (or return) a second time, with the first as context.

@case((True,), (False,), structured=True)
def finally_that_always_raises(fail):
    try:
        try:
            if fail:
                raise ValueError("original")
        finally:
            raise KeyError("from finally")
    except KeyError as e:
        return repr(e.__context__)


@case(("value",), ("none",), structured=True)
def finally_return_overrides_a_returned_call(kind):
    log = []
    try:
        return fail_with(kind)
    finally:
        log.append(kind)
        return log


# A loop with an ``else`` clause ending a finally body: its ``break`` jumps past the clause
# to the body's end, which the handler's copy threads to its re-raise.

@case(([1, 2, 5], ["none", "value", "none"]), ([4], ["key"]), structured=True)
def while_else_ending_finally(items, kinds):
    log = []
    for x, kind in zip(items, kinds):
        try:
            try:
                log.append(fail_with(kind))
            finally:
                n = 0
                while n < x:
                    n += 1
                    if n == 3:
                        log.append(("break", x))
                        break
                else:
                    log.append(("else", x, n))
        except ValueError:
            log.append("caught")
    return log


@case(([0, 2, 4],), structured=True)
def for_else_then_code_in_finally(items):
    log = []
    for x in items:
        try:
            log.append(x)
        finally:
            for y in range(x):
                if y == 3:
                    break
            else:
                log.append(("else", x))
            log.append(("after", x))
    return log


@case((0,), (1,), (3,), structured=True)
def while_true_whose_try_else_returns_in_finally(limit):
    """A ``while True`` in a finally body whose ``try``'s ``else`` returns: the return is laid
    out after the loop, which the handler's copy (its ``break`` threaded to the re-raise)
    read as the loop's ``else`` clause, and a ``while True``'s ``else`` never runs:
    ``f()`` returned "end" for "ret" on every version (an outsider's random programs)."""
    log = []
    try:
        log.append(0)
    finally:
        w = 0
        while True:
            w += 1
            if w > limit:
                break
            try:
                log.append(1 / (w - 1))
            except ZeroDivisionError:
                pass
            else:
                return "ret", log
    return "end", log


@case(([],), ([None],), structured=True)
def while_true_whose_try_else_returns_in_finally_once(log):
    """The same, the loop leaving on its second turn (as found)."""
    try:
        log.append(0)
    finally:
        w = 0
        while True:
            w += 1
            if w > 1:
                break
            try:
                log.append(1)
            except TypeError:
                pass
            else:
                return "ret"
    return "end"


@case((0,), (1,), (2,), (3,), structured=True)
def while_true_whose_try_else_returns_in_finally_then_more(limit):
    """The same, the try followed by more of the loop body (the ``break`` threaded to
    the try's ``else`` clause, laid out after the loop, is not the body's last
    statement)."""
    log = []
    try:
        log.append(0)
    finally:
        w = 0
        while True:
            w += 1
            if w > limit:
                break
            try:
                log.append(1 / (w - 1))
            except ZeroDivisionError:
                pass
            else:
                raise KeyError(w)
            if w > limit + 1:
                return "late", log
    return "end", log


@case((0,), (1,), (2,), structured=True)
def while_true_in_finally_whose_try_else_returns_and_only_the_clause_goes_on(limit):
    """A ``while True`` in a finally body left by a ``break`` at its end, reached only
    through the try's except clause (its ``else`` returns).  The normal path's copy of
    the finally body was walked beside the handler's without the except clause (the
    paths an exception takes): none of the walked paths went on, so the copy was taken
    for one that only returns or raises, and the code after the try/finally was dropped
    (wrong on 3.11+: ``None`` for ``("end", [0])``; lowered before)."""
    log = []
    try:
        log.append(0)
    finally:
        w = 0
        while True:
            w += 1
            try:
                log.append(1 / (w - 1))
            except ZeroDivisionError:
                pass
            else:
                return "ret", log
            if w > limit:
                break
    return "end", log


@case((0,), (1,), (2,), structured=True)
def while_true_in_finally_whose_try_else_raises_and_only_the_clause_goes_on(limit):
    """The same, the ``else`` clause raising (wrong on 3.8, 3.9 and 3.11+; lowered on 3.10)."""
    log = []
    try:
        log.append(0)
    finally:
        w = 0
        while True:
            w += 1
            try:
                log.append(1 / (w - 1))
            except ZeroDivisionError:
                pass
            else:
                raise KeyError(w)
            if w > limit:
                break
    return "end", log


@case((0,), (1,), structured=True)
def dead_with_after_a_return_in_finally(flag):
    """Dead code after a ``return`` in a finally body: 3.8 keeps a ``with``'s cleanup
    (``WITH_CLEANUP_START`` ... ``END_FINALLY``) and drops its ``SETUP_WITH``; that
    ``END_FINALLY`` was taken for the finally body's end, and the try's ``return False``
    was lost (``None``; an outsider's random programs, 3.8)."""
    try:
        try:
            return False
        finally:
            if flag:
                return 0
                with flag:
                    pass
    except ValueError:
        pass


# A ``break`` or ``continue`` that leaves a loop inside the except clause (or try body) of
# a try in an outer loop: 3.13 copies the end of that clause (``POP_EXCEPT``, the jump back
# to the outer loop's header) into the inner loop's ``break``, and the way out read through
# the clause's end as a ``continue`` of the outer loop, written inside the inner loop,
# where it continues the inner one (at the end of its body, dropped): the ``break`` was
# lost (an outsider's random programs).


@case(([1, 2, 3],), ([None, 2],), ([],), structured=True)
def try_else_break_in_for_in_except_clause_of_for(xs):
    out = []
    for _ in "ab":
        try:
            1 / 0
        except ZeroDivisionError:
            for x in xs:
                try:
                    out.append(x + 1)
                except TypeError:
                    out.append("t")
                else:
                    break
    return out


@case(([1, 2, 3],), ([None, 2],), ([],), structured=True)
def try_else_break_in_for_in_except_as_clause_of_while(xs):
    out, n = [], 0
    while n < 2:
        n += 1
        try:
            1 / 0
        except ZeroDivisionError as e:
            for x in xs:
                try:
                    out.append(x + 1)
                except TypeError:
                    out.append(type(e).__name__)
                else:
                    break
    return out


@case(([1, 2, 3],), ([None, 2],), ([],), structured=True)
def try_else_break_and_else_clause_in_for_in_except_clause(xs):
    out = []
    for _ in "ab":
        try:
            1 / 0
        except ZeroDivisionError:
            for x in xs:
                try:
                    out.append(x + 1)
                except TypeError:
                    pass
                else:
                    break
            else:
                out.append("else")
    return out, len(out)


@case(([1, 2, 3],), ([None, 5],), ([],), structured=True)
def try_body_break_in_for_in_except_clause_of_for(xs):
    out = []
    for _ in "ab":
        try:
            1 / 0
        except ZeroDivisionError:
            for x in xs:
                try:
                    out.append(x + 1)
                    if x > 1:
                        break
                except TypeError:
                    pass
    return out


@case(([1, 2, 3],), ([1, None, 3],), ([],), structured=True)
def handler_break_in_while_true_in_except_clause_of_for(xs):
    out = []
    for _ in "ab":
        try:
            1 / 0
        except ZeroDivisionError:
            it = iter(xs)
            while True:
                try:
                    out.append(next(it) + 1)
                except (StopIteration, TypeError):
                    break
                else:
                    if len(out) > 1:
                        break
    return out


@case(([1, 2, 3],), ([None, 2],), ([],), structured=True)
def try_else_break_in_for_in_except_clause_of_two_for_loops(xs):
    out = []
    for a in "ab":
        for b in "cd":
            try:
                1 / 0
            except ZeroDivisionError:
                for x in xs:
                    try:
                        out.append((a, b, x + 1))
                    except TypeError:
                        pass
                    else:
                        break
    return out


@case(([1, 2, 3],), ([None, 2],), ([],), structured=True)
def try_else_break_in_for_in_with_in_except_clause(xs):
    out = []
    for _ in "ab":
        try:
            1 / 0
        except ZeroDivisionError:
            for x in xs:
                with Recorder(out):
                    try:
                        out.append(x + 1)
                    except TypeError:
                        pass
                    else:
                        break
    return out


@case(([1, 2, 3],), ([None, 2],), ([],), structured=True)
def try_else_break_in_try_finally_in_for_in_except_clause(xs):
    out = []
    for _ in "ab":
        try:
            1 / 0
        except ZeroDivisionError:
            for x in xs:
                try:
                    try:
                        out.append(x + 1)
                    except TypeError:
                        pass
                    else:
                        break
                finally:
                    out.append("f")
    return out


@case(([1, 2, 3],), ([None, 2],), ([],), structured=True)
def try_else_break_in_for_in_try_finally_body_in_for(xs):
    """The same through the finally copy of a try around the inner loop (3.11+)."""
    out = []
    for _ in "ab":
        try:
            for x in xs:
                try:
                    out.append(x + 1)
                except TypeError:
                    pass
                else:
                    break
        finally:
            out.append("f")
    return out


class Recorder:
    """A context manager that records its exits in ``out``."""

    def __init__(self, out):
        self.out = out

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.out.append("exit")


@case(("value",), ("none",), ("key",))
def bare_raise_ending_a_finally_in_an_except_clause(kind):
    """A bare ``raise`` ending a finally body inside an except clause re-raises the
    handled exception on the normal path: the compiler drops the handler copy's own
    (unreachable) re-raise, and the ``raise`` of the source was taken for it and written
    as ``pass`` (every version: the function returned instead of raising)."""
    log = []
    try:
        raise ValueError("outer")
    except ValueError:
        try:
            log.append(fail_with(kind))
        finally:
            log.append("fin")
            raise
    return log


@case((0,), (1,))
def break_out_of_a_loop_that_never_loops_back_into_a_raising_finally(flag):
    """``if not flag: break`` out of a ``while True`` whose body then raises, in a try
    whose finally body always raises: the loop never loops back, and the break leaves
    into the finally body, which ends the path.  That side was written ``pass`` and the
    rest after the ``if``, not as its else clause (3.8, 3.9: the raise ran anyway)."""
    log = []
    try:
        while True:
            if not flag:
                break
            log.append("body")
            raise ValueError("t2")
    finally:
        raise KeyError(tuple(log))


@case((0,), (1,))
def return_of_a_local_unbound_in_a_try_body_a_finally_return_drops(k):
    """``return r`` in a try body, ``r`` unbound there (bound only in dead code after it),
    under a finally body whose ``return b`` raises too (``b`` unbound): the error the load
    of ``r`` raised is that error's ``__context__``.  Every version wrote the load after the try
    statement (a name taken to read the same there), dead past the finally body's return:
    the context was lost (found by exception_programs.py on 3.8, seed 2129); lowered now."""
    try:
        try:
            return r
            r = k  # noqa: F841  (never runs: r stays unbound)
        finally:
            return b  # noqa: B012
        b = k
    except UnboundLocalError as e:
        return type(e.__context__).__name__


@case(("none",), ("type",), ("key",), ("value",), structured=True)
def break_from_an_except_clause_in_a_try_with_except_and_finally_in_a_while_loop(kind):
    """A ``break`` from an except clause of a try in the body of a try with an except
    clause and a finally body, in a ``while`` loop: the clause's end lies under the outer
    try's handler, then the finally body's copy jumps to the code after the loop.  That
    path was taken for a way past an else clause of the loop (3.12+: the test's way out
    was written as ``else:`` and returned there, and the finally body ran again after the
    loop)."""
    log = []
    n = 0
    while n < 3:
        n += 1
        try:
            try:
                log.append(fail_with(kind))
            except TypeError:
                break
        except KeyError:
            log.append("k")
        except ValueError:
            return log
        finally:
            log.append("f")
    log.append("end")
    return log


@case(("none",), ("key",), ("type",))
def return_of_an_unbound_local_first_in_a_try_whose_finally_returns_past_a_with(kind):
    """``return b`` first in a try body, ``b`` unbound, whose finally body runs a with and
    returns: the load raises inside the try, and an exception the finally body raises has
    the UnboundLocalError as its context.  The body was written ``pass`` and the load after
    the try statement, where it never ran (every version: the TypeError had no context);
    now lowered."""
    try:
        try:
            return b
        finally:
            with contextlib.suppress(KeyError):
                fail_with(kind)
            return kind
    except TypeError as e:
        return type(e.__context__).__name__
    b = 1


@case((0,), (1,), (2,), (3,), structured=True)
def return_from_an_inner_except_clause_in_a_while_loop_in_a_try_with_an_else_clause(n):
    """``except: return 't3'`` in a try inside another in a ``while`` loop, in a try with an
    else clause: 3.12+ give the clause's ``POP_EXCEPT`` a block of its own (under the
    middle try's handler), and the return after it was taken for where the loop goes on
    (the loop got the try's else clause as its own, and ``return 't3'`` ran after it)."""
    log = []
    try:
        while len(log) < n:
            try:
                try:
                    log.append(1 // (len(log) - 1))
                except ZeroDivisionError:
                    return "t3"
            except Exception:
                log.append("t5")
    except Exception:
        b = "t7"
    else:
        b = "t8"
    return b, log


_NEXT_TESTS = []


def _loops_again():
    return bool(_NEXT_TESTS) and _NEXT_TESTS.pop(0)


@case((0,), (1,), (2,))
def return_in_a_loop_under_a_finally_that_raises(turns):
    """``return r`` in a try in a loop under a finally body that raises: the returned
    value is computed, then the finally body's copy runs and never completes, the code a
    ``break`` out of the loop runs too.  It was written ``break``, the load of ``r``
    dropped: the NameError it raises was lost from the KeyError's ``__context__``
    (exception_programs.py seed 2238, its cut-down form wrong on every version); refused
    now (lowered, or refused where the state machine cannot take it)."""
    _NEXT_TESTS[:] = [True] * turns
    try:
        try:
            while _loops_again():
                try:
                    return r  # noqa: F821  (a NameError, inside the try)
                except KeyError:
                    pass
        finally:
            raise KeyError("t2")
    except KeyError as e:
        return type(e.__context__).__name__


@case((0,), (1,))
def return_of_a_missing_global_in_an_except_clause_under_a_finally_that_returns_it(k):
    """``except: return a`` under ``finally: return a``, ``a`` no global: the clause's
    NameError is the context of the finally body's.  The clause's value, left on the stack
    past the statement (its return never runs), was written after the try, the clause
    ``pass``: the first NameError was lost (exception_programs.py seed 5537, 3.11-3.13;
    3.8-3.10 compile it otherwise); refused now, so lowered."""
    def inner():
        try:
            if k:
                raise KeyError(k)
            return k
        except:  # noqa: E722
            return a  # noqa: F821
        finally:
            return a  # noqa: F821, B012
    try:
        return inner()
    except NameError as e:
        return type(e.__context__).__name__


@case((True, False), (True, True), (False, False), same_bytecode=True)
def try_else_in_an_if_before_a_constant_return(c, fail):
    """``if c: try/except E: pass/else: g()`` then ``return 1``: 3.10+ copy the return into
    the clause's place (and 3.12+ into the else clause's end), where the jumps to it were.
    It was written ``except E: return 1`` then ``g()`` after the try, the return twice."""
    seen = []

    def g():
        seen.append(len(seen))
        if fail:
            raise ValueError(len(seen))
    if c:
        try:
            g()
        except ValueError:
            pass
        else:
            g()
    return 1, seen


@case((False,), (True,), same_bytecode=True)
def try_else_before_a_constant_return(fail):
    """The same at the function's top level: the except clause runs on to ``return 2``."""
    seen = []

    def g():
        seen.append(len(seen))
        if fail:
            raise KeyError(len(seen))
    try:
        g()
    except KeyError:
        seen.append("k")
    else:
        g()
        seen.append("e")
    return 2


@case((True, 1), (True, 2), (True, 3), (False, 1), same_bytecode=True)
def try_else_in_an_if_before_returning_a_constant(c, failing_call):
    """The first of these with ``return 1``, a constant: 3.10 and 3.11 copy it into the except
    clause only, 3.12+ into the else clause's end too."""
    calls = []

    def g():
        calls.append(None)
        if len(calls) == failing_call:
            raise ValueError(failing_call)
    if c:
        try:
            g()
        except ValueError:
            pass
        else:
            g()
    return 1


@case(([False], False), ([True, True, False], False), ([False], True), ([True, False], True))
def return_after_a_with_around_a_try_ending_in_a_loop_whose_finally_rebinds_it(tests, fail):
    """``return b`` after a with around try/except/finally whose body ends in a loop, the
    finally body rebinding ``b``: the body's way out runs the finally body's copy and the
    with's exit, then the return.  3.10 wrote the return at the end of the try body, 3.12+
    at the end of the except clause (which jumps back to the body's copy): its value read
    before the finally body ran (exception_programs.py seeds 47415 and 57036, async withs)."""
    b = "before"

    def g():
        if fail:
            raise ValueError

    with contextlib.nullcontext():
        try:
            g()
            while True:
                if not tests.pop(0):
                    break
        except ValueError:
            pass
        finally:
            b = "finally"
    return b


@case(([True, True],), ([False],), ([True, False],), ([],))
def finally_break_in_an_else_arm_of_a_try_with_except_and_finally_in_a_loop(tests):
    """``finally: break`` discards the exception (a handler ``POP_TOP; POP_EXCEPT``, then
    the break: read as ``except: pass``), in the else arm of an if in a try with an except
    clause and a finally body, in a for loop.  3.12 runs the break through the outer
    finally body's copy, drops the iterator and copies the ``return`` after the loop:
    past the except clause's end, that way was taken for the try body's end, and the arm
    fell into the ``continue`` after the if, running the finally body twice
    (exception_programs.py seed 74047)."""
    log = []
    for i in range(2):
        try:
            if tests.pop(0):
                log.append("x%d" % i)
            else:
                try:
                    raise TypeError("t1")
                finally:
                    break  # noqa: B012
        except Exception as e:
            log.append(type(e).__name__)
        finally:
            log.append("t5")
    return log


@case((["none"], []), (["value"], []), (["type", "none"], []), (["key", "value"], []), ([], []), structured=True)
def return_from_a_nested_try_with_unreached_clauses_in_a_try_finally_in_a_while_loop(kinds, log):
    """``return "t2"`` as the whole body of a try nested in a try/except/finally in a while
    loop: the nested try's except clauses are never reached, and their ends (dead code)
    run under the finally body's try, which so seemed to cover code outside the loop.
    That try was not one of the loop's, so the ``return``'s way out (the finally body's
    copy, then the constant, 3.10) was taken for the loop's ``break`` past an else clause:
    the finally body ran twice (exception_programs.py seed 102479, 3.10).  Each turn has
    one ticket: a finally body run twice raises ``StopIteration``."""
    tickets = iter(range(len(kinds)))
    while True:
        if not kinds:
            break
        try:
            try:
                log.append(fail_with(kinds.pop(0)))
                try:
                    return "t2"
                except (KeyError, TypeError):
                    log.append("t3")
            except ValueError:
                break
            except Exception:
                log.append("t5")
        finally:
            log.append(next(tickets))
    return len(log)


@case((True, [0], []), (False, [1, 0], []), (False, [3, 2], []), (False, [], []), structured=True)
def returns_of_a_call_in_a_try_finally_the_second_in_a_loop(first, items, log):
    """``return g(...)`` in a try/finally, then in a loop after it ``return g(...)`` again:
    each return's call is followed by the copy of the finally body.  The two calls, alike
    but on lines of their own, were taken for an arms' tail the compiler copied (an
    instruction whose line is its arm's), and the second became a jump into the first:
    two statements merged as if they were two values of one expression, lowered to the
    state machine (mpmath's ``bessel_zero`` and ``qr``, 3.10-3.13)."""
    try:
        if first:
            return len(log)
        while 1:
            if items.pop() == 0:
                return len(items)
    finally:
        log.append("finally")



@case(([], False, False), ([1], False, False), ([1, 1], True, False), ([1], True, True), ([], False, True),
      ([1, 0], False, True))
def finally_retry_loop_whose_try_else_breaks(fails, quitting, boom):
    """A ``while True`` retry loop ending a finally body that ends the function, left by
    ``break`` in its try's ``else`` clause, an except clause returning or going on
    (prompt_toolkit's ``generator_to_async_generator.runner``, found by running its tests on
    its decompiled modules).  In the copy run when the body raised, the ``break`` is a jump
    straight to the final re-raise; inside the try's ``else`` it was not read back as the
    ``break`` it is, and ``run`` was written as a state machine on 3.10, 3.12 and 3.13."""
    log = []

    def put():
        log.append("put")
        if fails and fails.pop():
            raise KeyError("full")

    def run():
        try:
            log.append("body")
            if boom:
                raise ValueError("boom")
        finally:
            while True:
                try:
                    put()
                except KeyError:
                    if quitting:
                        return
                    continue
                else:
                    break

    try:
        run()
    except ValueError as exc:
        log.append(str(exc))
    return log


@case(([True, False],), ([False],), ([True, True, False],), ([True, True, True, False],))
def while_whose_except_clause_arm_begins_a_try_and_reraises(tests):
    """An ``if`` arm in an except clause of a while loop's body that begins a try of its
    own and never goes on (its paths re-raise).  3.12+ lay the clause out past the loop's
    exit: the arm, under the inner try's handler rather than the clause's, was taken for
    code after the loop past an else clause (``if not c(): break``, the arm after the loop,
    ``else: return log``), so its bare ``raise`` ran outside the except clause
    (exception_programs.py seed 122865: the handled ValueError lost from the context)."""
    log = []

    def c():
        return tests.pop(0) if tests else False

    while c():
        try:
            raise ValueError("t1")
        except ValueError:
            if c():
                log.append(1)
            else:
                try:
                    log.append(2)
                except KeyError:
                    pass
                raise
    return log



@case(([True, True, True],), ([True, False],), ([False],), ([True, True, False],))
def break_from_an_except_clause_through_a_finally_in_a_with(tests):
    """``break`` from an except clause of a try in a try/except/finally, in a while loop
    in a ``with``, the test failing into an else clause that raises.  3.12+ lay the break's way out (the finally body's copy, then a jump to the
    with's exit) after the loop: the copy was taken for the code after the loop, and the
    finally body ran twice (exception_programs.py seed 125278, wrong output on 3.12 and
    3.13)."""
    log = []

    def c():
        return tests.pop(0) if tests else False

    def run():
        with contextlib.nullcontext():
            while c():
                try:
                    try:
                        log.append("body")
                        if len(log) > 3:
                            raise ValueError("v")
                    except ValueError:
                        break
                except KeyError:
                    pass
                finally:
                    log.append("finally")
            else:
                raise TypeError("t6")
        log.append("after")

    try:
        run()
    except TypeError as exc:
        log.append(str(exc))
    return log
