"""Handlers of the canonical instructions of generators and coroutines, exception
handlers and ``with`` (see :mod:`unveil.structure.ops`)."""
import ast

from .. import stackitems as si
from ..stackitems import as_expr, const, name
from .table import handles
from .values import none_or, set_display


@handles("YIELD_VALUE")
def _yield(f, ins):
    f.push(ast.Yield(value=none_or(f.pop())))


@handles("GET_YIELD_FROM_ITER")
def _get_yield_from_iter(f, ins):
    pass


@handles("GET_AWAITABLE")
def _get_awaitable(f, ins):
    f.push(si.Awaitable(f.pop()))


@handles("YIELD_FROM")
def _yield_from(f, ins):
    value = f.pop_raw()
    if isinstance(value, si.Awaitable):
        if isinstance(value.expr, si.Marker) or f.notes.awaited_call.get(value.expr, False):
            f.push(value.expr)
        else:
            f.push(ast.Await(value=value.expr))
    else:
        f.push(ast.YieldFrom(value=as_expr(value)))


@handles("GET_ITER")
def _get_iter(f, ins):
    f.push(si.Iter(set_display(f, f.pop())))


@handles("GET_AITER")
def _get_aiter(f, ins):
    f.push(si.Iter(f.pop(), is_async=True))


@handles("GET_ANEXT")
def _get_anext(f, ins):
    f.push(si.AsyncItem())


@handles("LOAD_ASSERTION_ERROR")
def _load_assertion_error(f, ins):
    node = name("AssertionError")
    f.notes.assertion.set(node)
    f.push(node)


@handles("SETUP_ANNOTATIONS")
def _setup_annotations(f, ins):
    f.ctx.has_annotations = True


@handles("PRINT_EXPR")
def _print_expr(f, ins):
    f.emit(ast.Expr(value=f.pop()))


@handles("GET_LEN")
def _get_len(f, ins):
    f.push(ast.Call(func=name("len"), args=[f.top()], keywords=[]))


@handles("PUSH_EXC_INFO")
def _push_exc_info(f, ins):
    exc = f.pop_raw()
    f.push(si.PrevExc())
    f.push(exc)


@handles("POP_EXCEPT")
def _pop_except(f, ins):
    f.pop_raw()
    f.emit(si.ExcEnd())


@handles("CHECK_EXC_MATCH", "CHECK_EG_MATCH")
def _check_exc_match(f, ins):
    typ = f.pop()
    node = si.ExcMatch(type=typ, star=ins.op == "CHECK_EG_MATCH")
    if ins.op == "CHECK_EG_MATCH":
        f.pop_raw()
        f.push(si.Exc())
    f.push(node)


@handles("BEFORE_WITH", "BEFORE_ASYNC_WITH")
def _before_with(f, ins):
    exit_ = si.WithExit(f.pop(), is_async=ins.op == "BEFORE_ASYNC_WITH")
    f.push(exit_)
    f.push(si.WithValue(exit_))


@handles("WITH_EXCEPT_START")
def _with_except_start(f, ins):
    f.push(const(None))


@handles("END_SEND", "CLEANUP_THROW", "EXIT_INIT_CHECK")
def _ignored(f, ins):
    pass


@handles("STOPITERATION_ERROR")
def _stopiteration_error(f, ins):
    pass


@handles("END_ASYNC_FOR")
def _end_async_for(f, ins):
    pass
