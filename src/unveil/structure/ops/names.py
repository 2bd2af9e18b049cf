"""Handlers of the canonical instructions that load, store and delete names and
attributes, work the stack, return and raise (see :mod:`unveil.structure.ops`)."""
import ast

from ...bytecode import facts
from ...bytecode.opcodes import NO_NEXT
from ...syntax.notes import ElementLines
from .. import stackitems as si
from ..parallel import begun_at as _begun_at, computed_at as _computed_at
from ..waiting import WaitingValues
from ..stackitems import NULL, name
from .table import handles


@handles("LOAD_CONST")
def _load_const(f, ins):
    node = f.ctx.constant(ins.argval)
    if ins.nop_lines and isinstance(ins.argval, tuple) and ins.line is not None:
        before = f.ctx.instrs[ins.index - 1].line if ins.index else None
        f.notes.element_lines.set(node, ElementLines(ins.line, tuple(line for line in ins.nop_lines if line >= ins.line),
                                                     before))
    f.push(node)


@handles("LOAD_FAST", "LOAD_NAME", "LOAD_GLOBAL", "LOAD_DEREF",
         "LOAD_CLASSDEREF", "LOAD_FROM_DICT_OR_DEREF", "LOAD_FROM_DICT_OR_GLOBALS")
def _load_name(f, ins):
    if ins.op == "LOAD_FROM_DICT_OR_DEREF" or ins.op == "LOAD_FROM_DICT_OR_GLOBALS":
        f.pop_raw()
    node = f.named(name(f.ctx.identifier(ins.argval)), ins)
    if facts.ASSERT_LOADS_A_GLOBAL and ins.op == "LOAD_GLOBAL" and ins.argval == "AssertionError" \
            and _skipped_when_true(f.ctx.instrs, ins):
        f.notes.assertion.set(node)
    f.push(node)


def _skipped_when_true(instrs, ins):
    """Whether the code from ``ins`` up to a ``raise`` is what a jump if true right before
    it skips: an ``assert``'s (``if x: raise AssertionError`` jumps if false)."""
    before = instrs[ins.index - 1] if ins.index else None
    return before is not None and before.op == "POP_JUMP_IF_TRUE" and before.target > ins.index \
        and instrs[before.target - 1].op == "RAISE_VARARGS"


@handles("LOAD_CLOSURE")
def _load_closure(f, ins):
    f.push(cell_of(f.ctx.identifier(ins.argval)))


def cell_of(ident):
    """The cell of variable ``ident`` itself, as source: ``(lambda: x).__closure__[0]``.

    A closure tuple only feeds ``MAKE_FUNCTION``, which reads it back from the
    nested code's free variables; Dynamo also passes cells to the functions it
    makes at a graph break, and there the cell, not its value, must reach them."""
    closure = ast.Attribute(value=ast.Lambda(args=si.no_arguments(), body=name(ident)), attr="__closure__",
                            ctx=ast.Load())
    return ast.Subscript(value=closure, slice=ast.Constant(value=0), ctx=ast.Load())


@handles("LOAD_LOCALS")
def _load_locals(f, ins):
    f.push(ast.Call(func=name("locals"), args=[], keywords=[]))


@handles("LOAD_FAST_AND_CLEAR")
def _load_fast_and_clear(f, ins):
    f.push(si.Saved(ins.argval))


@handles("STORE_FAST", "STORE_NAME", "STORE_GLOBAL", "STORE_DEREF", "STORE_FAST_MAYBE_NULL")
def _store_name(f, ins):
    if ins.op == "STORE_GLOBAL":
        f.ctx.declare_global(ins.argval)
    elif ins.op == "STORE_DEREF":
        f.ctx.declare_nonlocal(ins.argval)
    f.store(f.named(name(f.ctx.identifier(ins.argval), store=True), ins))


@handles("DELETE_FAST", "DELETE_NAME", "DELETE_GLOBAL", "DELETE_DEREF")
def _delete_name(f, ins):
    if ins.op == "DELETE_GLOBAL":
        f.ctx.declare_global(ins.argval)
    elif ins.op == "DELETE_DEREF":
        f.ctx.declare_nonlocal(ins.argval)
    target = ast.Name(id=f.ctx.identifier(ins.argval), ctx=ast.Del())
    f.check_unread(target)
    f.emit(ast.Delete(targets=[target]))


@handles("LOAD_ATTR")
def _load_attr(f, ins):
    f.push(ast.Attribute(value=f.pop(), attr=f.ctx.attribute(ins.argval), ctx=ast.Load()))


@handles("LOAD_METHOD")
def _load_method(f, ins):
    f.push(ast.Attribute(value=f.pop(), attr=f.ctx.attribute(ins.argval), ctx=ast.Load()))
    f.push(NULL)


@handles("LOAD_SUPER_ATTR")
def _load_super_attr(f, ins):
    attr, method, two_arg = ins.argval
    self_, cls, sup = f.pop(), f.pop(), f.pop()
    args = [cls, self_] if two_arg else []
    f.push(ast.Attribute(value=ast.Call(func=sup, args=args, keywords=[]), attr=attr, ctx=ast.Load()))
    if method:
        f.push(NULL)


@handles("STORE_ATTR")
def _store_attr(f, ins):
    obj = f.pop()
    f.store(ast.Attribute(value=obj, attr=f.ctx.attribute(ins.argval), ctx=ast.Store()))


@handles("DELETE_ATTR")
def _delete_attr(f, ins):
    f.emit(ast.Delete(targets=[ast.Attribute(value=f.pop(), attr=f.ctx.attribute(ins.argval), ctx=ast.Del())]))


@handles("PUSH_NULL")
def _push_null(f, ins):
    f.push(NULL)


def _computed_before(notes, stack, value):
    """Whether a value still waiting on the stack (not a name, a constant or an
    accumulator; or a value stored from the stack) was computed before ``value``, a
    call or other effect, began."""
    if isinstance(value, (ast.Name, ast.Constant)):
        return False
    begun = _begun_at(notes, value)
    if begun is None:
        return False
    return any(isinstance(item, si.Chain) and _computed_at(notes, item.value) < begun
               or isinstance(item, ast.expr) and not isinstance(item, (ast.Constant, ast.Name))
               and not notes.accumulator.get(item, False) and _computed_at(notes, item) < begun
               for item in stack)


@handles("POP_TOP")
def _pop_top(f, ins):
    value = f.pop_raw()
    if isinstance(value, si.Chain):
        # (a chained comparison's middle ``(g := v)`` dropped after its first test read
        # a copy of it: that test stored g)
        if not value.was_read():
            f.emit(ast.Assign(targets=value.targets, value=value.value))
    elif value in f.notes.imported or value in f.notes.imported_from or f.notes.copied.get(value, False) \
            or isinstance(value, ast.Name) and f.ctx.is_temporary(value.id) or isinstance(value, ast.Constant) \
            or _empty_display(value):
        pass    # no effect, and the compiler drops constant statements too (Dynamo drops empty lists)
    elif isinstance(value, si.Slot):
        f.drop_slot(value)
    elif isinstance(value, si.Marker):
        f.ctx.discard(f, value)
    elif f.parallel is not None and not f.parallel.in_order_after(f.notes, value):
        f.drop_into_parallel(value)
    elif _computed_before(f.notes, [f.stack[i] for i in f.owned()], value) \
            and not f.spill(before=_begun_at(f.notes, value)):
        # Dynamo calls a function while arguments it already computed wait on the
        # stack: the call written as a statement would run before them
        raise WaitingValues("a call is dropped while values computed before it wait on the stack in %s"
                                 % f.ctx.code.co_name)
    else:
        f.emit(ast.Expr(value=value))


def _empty_display(value):
    return isinstance(value, (ast.List, ast.Tuple, ast.Set)) and not value.elts \
        or isinstance(value, ast.Dict) and not value.keys


@handles("COPY")
def _copy(f, ins):
    """Duplicate a stack value; dropping one copy later (and/or values,
    chained comparisons) is not an expression statement."""
    f.need(ins.argval)
    value = f.stack[-ins.argval]
    if f.ctx.spill_copies and isinstance(value, ast.expr) and not f.ctx.stable(value) and f.spill():
        value = f.stack[-ins.argval]
    if isinstance(value, ast.AST):
        f.notes.copied.set(value, True)
    f.push(value)


@handles("SWAP")
def _swap(f, ins):
    f.need(ins.argval)
    s = f.stack
    s[-1], s[-ins.argval] = s[-ins.argval], s[-1]


@handles("ROT")
def _rot(f, ins):
    f.need(ins.argval)
    top = f.stack.pop()
    f.stack.insert(len(f.stack) - ins.argval + 1, top)


@handles("RETURN_VALUE")
def _return(f, ins):
    node = ast.Return(value=f.pop())
    if ins.of_merged_values and isinstance(node.value, ast.Constant):
        f.notes.constant_arm.set(node)
    if ins.index >= 2 and ins.line is not None:
        load, before = f.ctx.instrs[ins.index - 1], f.ctx.instrs[ins.index - 2]
        if load.op == "LOAD_CONST" and load.argval is None:
            # (the copy of the implicit return a jump gets, ``if a and b:`` ending the
            # function, has the jump's line: every way to it is a jump on its line)
            sources = [i for i in f.ctx.instrs if i.target == load.index]
            if before.line == ins.line and before.op not in NO_NEXT or before.op in NO_NEXT \
                    and sources and all(i.line == load.line for i in sources):
                f.notes.no_line_of_its_own.set(node)
            if len(sources) + (before.op not in NO_NEXT) > 1:
                f.notes.shared_return.set(node)
    copy = _jumped_copy(f.ctx, ins) if ins.line is not None and facts.RETURN_COPIED_INTO_BRANCHES else None
    if copy is not None:
        f.notes.jumped_return.set(node, bool(copy.nop_lines) if copy.after_nop else "without a NOP")
    f.emit(node)


def _jumped_copy(ctx, ret):
    """Whether the ``return`` ending at ``ret`` is the compiler's copy of a short return
    in place of a jump to it (the jump's line kept by a NOP before the copy, on the
    copy's own line: another copy of the same code is elsewhere): the copy's first
    instruction, or None."""
    instrs = ctx.instrs
    for j in range(ret.index - 1, max(-1, ret.index - facts.COPIED_RETURN_LENGTH), -1):
        ins = instrs[j]
        if ins.line != ret.line or ins.op in NO_NEXT:
            # 3.12+: no NOP where the jump shared the line of the statement run into the copy
            ran_into = facts.RETURN_COPIED_ON_ITS_LINE and ins.line != ret.line and ins.line is not None \
                and ins.op not in NO_NEXT and ins.target is None
            return instrs[j + 1] if ran_into and _copied_elsewhere(ctx, j + 1, ret.index) else None
        if ins.after_nop:
            return ins if _copied_elsewhere(ctx, j, ret.index) else None
    return None


def _copied_elsewhere(ctx, start, end):
    """Whether the instructions from ``start`` to ``end`` (included) occur elsewhere too,
    on the same line (only that line's instructions are looked at: a long elif chain's
    returns are each on a line of their own)."""
    instrs = ctx.instrs
    run = [i.same_op for i in instrs[start:end + 1]]
    n = len(run)
    return any(k != start and len(instrs[k:k + n]) == n
               and all(same(other) for same, other in zip(run, instrs[k:k + n]))
               for k in ctx.positions_on_line(instrs[start].line))



@handles("RAISE_VARARGS")
def _raise(f, ins):
    cause = f.pop() if ins.arg == 2 else None
    exc = f.pop() if ins.arg >= 1 else None
    f.emit(ast.Raise(exc=exc, cause=cause))


@handles("RERAISE")
def _reraise(f, ins):
    node = ast.Raise(exc=None, cause=None)
    f.notes.reraise.set(node, True)  # not a ``raise`` statement of the source
    f.emit(node)
