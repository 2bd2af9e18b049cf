"""The state machine's opcode handlers: one small function per opcode, on a
:class:`~unveil.fallback.machine.Machine`.

A handler pops expression nodes, pushes the node of the value it computes
(folded into whatever uses it) and emits statements where the bytecode runs
one.  The structured frame's handlers that only build one expression from the
values they pop (comparisons, unary operators, ``a[b:c]``) are used as they are.
"""
import ast
import inspect

from ..bytecode import facts
from ..bytecode.code_objects import is_scope
from ..dispatch import dispatch_table
from ..errors import DecompilationError
from ..structure import ops
from ..structure.ops.names import cell_of
from ..structure.ops.values import BINOPS
from ..structure import stackitems as si
from ..structure.stackitems import const, name
from ..syntax.astwalk import reads_name
from ..syntax.unparse import unparse
from .chaining import reraise_keeping_context
from .machine import NULL, Pending, assign, call, method

HANDLERS, handles = dispatch_table()

#: opcodes the structured frame's own handlers lower: each only pops expressions (or
#: NULL) and pushes what it builds of them, which a machine does as a frame does
FRAME_HANDLED = ("COMPARE_OP", "IS_OP", "CONTAINS_OP", "UNARY_NOT", "UNARY_NEGATIVE", "UNARY_INVERT",
                 "UNARY_POSITIVE", "BINARY_SLICE", "LOAD_ASSERTION_ERROR", "LOAD_ATTR", "LOAD_METHOD",
                 "PUSH_NULL")
HANDLERS.update((op, ops.HANDLERS[op]) for op in FRAME_HANDLED)

#: the test a conditional jump takes its target under, given its operand
#: (``POP_JUMP_IF_FALSE``'s is the operand too, its arms swapped)
_CONDITIONS = {
    "POP_JUMP_IF_TRUE": lambda x: x,
    "POP_JUMP_IF_NONE": lambda x: ast.Compare(left=x, ops=[ast.Is()], comparators=[const(None)]),
    "POP_JUMP_IF_NOT_NONE": lambda x: ast.Compare(left=x, ops=[ast.IsNot()], comparators=[const(None)]),
}
_CONVERSIONS = {"s": "str", "r": "repr", "a": "ascii"}
_ADD_METHODS = {"LIST_APPEND": "append", "SET_ADD": "add", "LIST_EXTEND": "extend", "SET_UPDATE": "update",
                "DICT_UPDATE": "update"}


def _attribute(obj, attr, ctx=ast.Load):
    return ast.Attribute(value=obj, attr=attr, ctx=ctx())


def _set_attr(obj, attr, value):
    """``obj.attr = value``."""
    return ast.Assign(targets=[_attribute(obj, attr, ast.Store)], value=value)


def _targets(names, star=None):
    """The tuple target ``a, *b, c`` of variables ``names``."""
    elts = [name(n, store=True) for n in names]
    if star is not None:
        elts[star] = ast.Starred(value=elts[star], ctx=ast.Store())
    return ast.Tuple(elts=elts, ctx=ast.Store())


# --- loads, stores and deletes ---------------------------------------------

@handles("LOAD_CONST")
def _load_const(m, ins):
    m.push_const(ins.argval, si.as_expr(m.ctx.constant(ins.argval)))


@handles("LOAD_FAST")
def _load_fast(m, ins):
    local = m.low.local(ins.argval)
    m.push(name(local), reads=frozenset([local]))


@handles("LOAD_DEREF", "LOAD_NAME")
def _load_local(m, ins):
    m.push(name(m.low.local(ins.argval)))


@handles("LOAD_CLOSURE")
def _load_closure(m, ins):
    """The cell of a local itself (a closure tuple's item, or a cell Dynamo passes on)."""
    local = m.low.local(ins.argval)
    m.push(cell_of(local), reads=frozenset([local]))


@handles("LOAD_GLOBAL")
def _load_global(m, ins):
    m.push(name(m.low.global_name(ins.argval)))


@handles("LOAD_FAST_AND_CLEAR")
def _load_fast_and_clear(m, ins):
    local = m.low.local(ins.argval)
    m.push(method(call("locals"), "get", const(local)))
    m.emit(assign(local, const(None)))


@handles("STORE_FAST", "STORE_DEREF", "STORE_NAME")
def _store_local(m, ins):
    local = m.low.local(ins.argval, store=True)
    value = m.pop()
    m.invalidate(local)
    m.emit(assign(local, value))


@handles("STORE_GLOBAL")
def _store_global(m, ins):
    m.low.assigned_globals.add(ins.argval)
    m.emit(assign(ins.argval, m.pop()))


@handles("DELETE_FAST", "DELETE_DEREF", "DELETE_NAME")
def _delete_local(m, ins):
    local = m.low.local(ins.argval, store=True)
    m.invalidate(local)
    m.emit(ast.Delete(targets=[name(local, store=True)]))


@handles("DELETE_GLOBAL")
def _delete_global(m, ins):
    m.low.assigned_globals.add(ins.argval)
    m.emit(ast.Delete(targets=[name(ins.argval, store=True)]))


@handles("STORE_ATTR")
def _store_attr(m, ins):
    obj, value = m.pop(), m.pop()
    m.emit(ast.Assign(targets=[_attribute(obj, ins.argval, ast.Store)], value=value))


@handles("DELETE_ATTR")
def _delete_attr(m, ins):
    m.emit(ast.Delete(targets=[_attribute(m.pop(), ins.argval, ast.Del)]))


# --- the stack itself ------------------------------------------------------

@handles("POP_TOP")
def _pop_top(m, ins):
    kind = m.slots[-1] if m.slots else None
    value = m.pop_raw()
    if isinstance(kind, Pending) and kind.effectful:
        m.emit(ast.Expr(value=value))  # computed but unused: evaluated for its effects, as the bytecode does


@handles("COPY")
def _copy(m, ins):
    depth = len(m.slots) - ins.argval
    kind = m.slots[depth]
    if isinstance(kind, Pending) and kind.effectful:
        m.materialize(effectful_only=True)
    m.slots.append(m.slots[depth])  # NULL, a constant, a local's load or a variable: shared


@handles("SWAP")
def _swap(m, ins):
    top, other = len(m.slots) - 1, len(m.slots) - ins.argval
    if any(isinstance(k, Pending) and k.effectful for k in (m.slots[top], m.slots[other])):
        m.materialize(effectful_only=True)
    m.slots[top], m.slots[other] = m.slots[other], m.slots[top]
    if other < m.handler_depth:
        m.canonicalize()   # the handler reads slots below its depth from their own variables


@handles("ROT")
def _rot(m, ins):
    """3.8-3.10's ROT_THREE/ROT_FOUR: the top slot moves down to depth ``argval``."""
    moved = m.slots[len(m.slots) - ins.argval:]
    if any(isinstance(k, Pending) and k.effectful for k in moved):
        m.materialize(effectful_only=True)
    top = m.slots.pop()
    at = len(m.slots) - ins.argval + 1
    m.slots.insert(at, top)
    if at < m.handler_depth:
        m.canonicalize()


# --- functions -------------------------------------------------------------

@handles("MAKE_FUNCTION")
def _make_function(m, ins):
    """``def`` under a fresh name, then its name, qualified name and attributes set:
    binding the original name here could change what the code around sees."""
    flags, has_qualname = ins.argval
    qualname = None
    if has_qualname:
        qualname = m.constant_of(len(m.slots) - 1)
        m.pop_raw()
    code = m.constant_of(len(m.slots) - 1)
    m.pop_raw()
    if not inspect.iscode(code):
        raise DecompilationError("MAKE_FUNCTION without a constant code object in %s" % m.low.code.co_name)
    if is_scope(code):  # its body is only expressible as a generic definition's own syntax
        raise DecompilationError("the state machine does not lower the PEP 695 scope %s" % code.co_name)
    attributes = {bit: m.pop() for bit in (8, 4, 2, 1) if flags & bit}
    if 8 in attributes:
        _check_closure(m, code, attributes.pop(8))
    fname = m.low.function_name(code)
    qualname = qualname or getattr(code, "co_qualname", code.co_name)
    names = {"co_name": code.co_name, "co_qualname": qualname}
    replaced = call(_attribute(_attribute(name(fname), "__code__"), "replace"),
                    keywords=[ast.keyword(arg=f, value=const(names[f])) for f in facts.CODE_NAME_FIELDS])
    m.emit(m.low.def_node(fname), _set_attr(name(fname), "__code__", replaced),
           _set_attr(name(fname), "__name__", const(code.co_name)),
           _set_attr(name(fname), "__qualname__", const(qualname)))
    for bit, value in sorted(attributes.items()):
        _set_attribute(m, name(fname), bit, value)
    m.push(name(fname), reads=frozenset([fname]))


def _check_closure(m, code, closure):
    """The closure must be the enclosing function's own cells of the same names, which
    the nested ``def`` then closes over by name."""
    wanted = [unparse(cell_of(m.low.local(n))) for n in code.co_freevars]
    if not (isinstance(closure, ast.Tuple) and [unparse(e) for e in closure.elts] == wanted):
        raise DecompilationError("closure of %s (%s) is not its enclosing cells in %s"
                                 % (code.co_name, unparse(closure), m.low.code.co_name))
    if set(code.co_freevars) & m.low.saved_by_comprehensions:
        # an inlined comprehension's variable is a fresh cell per run: one local is not
        raise DecompilationError("%s closes over an inlined comprehension's variable in %s"
                                 % (code.co_name, m.low.code.co_name))


def _set_attribute(m, func, bit, value):
    if bit == 1:
        m.emit(_set_attr(func, "__defaults__", value))
    elif bit == 2:
        m.emit(_set_attr(func, "__kwdefaults__", value))
    elif bit == 4 and facts.ANNOTATIONS_ARE_PAIRS:
        if not isinstance(value, ast.Name):   # read twice: evaluated once first
            temp = m.claim(len(m.slots))
            m.emit(assign(temp, value))
            value = name(temp)
        pairs = [ast.Subscript(value=name(value.id), slice=ast.Slice(lower=start, upper=None, step=const(2)),
                               ctx=ast.Load()) for start in (None, const(1))]
        m.emit(_set_attr(func, "__annotations__", call("dict", call("zip", *pairs))))
    elif bit == 4:
        m.emit(_set_attr(func, "__annotations__", value))
    else:
        raise DecompilationError("function attribute %d in %s" % (bit, m.low.code.co_name))


@handles("SET_FUNCTION_ATTRIBUTE")
def _set_function_attribute(m, ins):
    """3.13: an attribute of the function on top, whose value lies below it."""
    func = m.pop()
    value = m.pop()
    fname = func.id if isinstance(func, ast.Name) else None
    if ins.arg == 8 and fname in m.low.function_codes:
        _check_closure(m, m.low.function_codes[fname], value)
    else:
        _set_attribute(m, func, ins.arg, value)
    m.push(func, reads=frozenset([fname]) if fname else None)


# --- operators and subscripts ----------------------------------------------

@handles("IMPORT_NAME")
def _import_name(m, ins):
    """What IMPORT_NAME calls: ``__import__(name, globals(), locals(), fromlist, level)``.
    (``IMPORT_FROM`` is refused: its ImportError and submodule fallback have no
    expression form.)"""
    fromlist, level = m.pop(), m.pop()
    m.push(call("__import__", const(ins.argval), call("globals"), call("locals"), fromlist, level))


@handles("BINARY_OP")
def _binary(m, ins):
    right, left = m.pop(), m.pop()
    op = BINOPS[ins.argval.rstrip("=")]()
    if not ins.argval.endswith("="):
        m.push(ast.BinOp(left=left, op=op, right=right))
        return
    target = m.claim(len(m.slots))  # never a name another slot still holds (COPY)
    if not (isinstance(left, ast.Name) and left.id == target):
        m.emit(assign(target, left))
    m.emit(ast.AugAssign(target=name(target, store=True), op=op, value=right))
    m.slots.append(target)


def _key(m):
    """A subscript key: ``a:b`` for a slice built just before (same evaluation order)."""
    kind = m.slots[-1] if m.slots else None
    key = m.pop()
    return kind.slice if isinstance(kind, Pending) and kind.slice else key


def _subscript(obj, key, ctx=ast.Load):
    return ast.Subscript(value=obj, slice=key, ctx=ctx())


def _slice(*parts):
    """``a:b`` or ``a:b:c`` of the parts of a slice, ``None`` ones left out."""
    bounds = [None if isinstance(p, ast.Constant) and p.value is None else p for p in parts]
    return ast.Slice(lower=bounds[0], upper=bounds[1], step=bounds[2] if len(bounds) > 2 else None)


@handles("BINARY_SUBSCR")
def _subscr(m, ins):
    key, obj = _key(m), m.pop()
    m.push(_subscript(obj, key))


@handles("STORE_SUBSCR")
def _store_subscr(m, ins):
    key, obj, value = _key(m), m.pop(), m.pop()
    m.emit(ast.Assign(targets=[_subscript(obj, key, ast.Store)], value=value))


@handles("DELETE_SUBSCR")
def _delete_subscr(m, ins):
    key, obj = _key(m), m.pop()
    m.emit(ast.Delete(targets=[_subscript(obj, key, ast.Del)]))


@handles("STORE_SLICE")
def _store_slice(m, ins):
    stop, start, obj, value = m.pop(), m.pop(), m.pop(), m.pop()
    m.emit(ast.Assign(targets=[_subscript(obj, _slice(start, stop), ast.Store)], value=value))


@handles("BUILD_SLICE")
def _build_slice(m, ins):
    parts = m.popn(ins.argval)
    m.push(call("slice", *parts))
    m.slots[-1].slice = _slice(*parts)


# --- displays and strings --------------------------------------------------

@handles("BUILD_TUPLE")
def _build_tuple(m, ins):
    """A tuple of plain loads (a closure's cells) stays a plain load of those names."""
    kinds = m.slots[len(m.slots) - ins.argval:] if ins.argval else []
    reads = None
    if kinds and all(isinstance(k, Pending) and k.reads for k in kinds):
        reads = frozenset().union(*(k.reads for k in kinds))
    m.push(ast.Tuple(elts=m.popn(ins.argval), ctx=ast.Load()), reads=reads)


@handles("BUILD_LIST")
def _build_list(m, ins):
    m.push(ast.List(elts=m.popn(ins.argval), ctx=ast.Load()))


@handles("BUILD_SET")
def _build_set(m, ins):
    values = m.popn(ins.argval)
    m.push(ast.Set(elts=values) if values else call("set"))


@handles("BUILD_MAP")
def _build_map(m, ins):
    flat = m.popn(2 * ins.argval)
    m.push(ast.Dict(keys=flat[0::2], values=flat[1::2]))


@handles("BUILD_CONST_KEY_MAP")
def _build_const_key_map(m, ins):
    keys = m.pop()
    values = m.popn(ins.argval)
    m.push(call("dict", call("zip", keys, ast.Tuple(elts=values, ctx=ast.Load()))))


@handles("BUILD_STRING")
def _build_string(m, ins):
    m.push(method(const(""), "join", ast.Tuple(elts=m.popn(ins.argval), ctx=ast.Load())))


def _converted(value, conversion):
    return call(_CONVERSIONS[conversion], value) if conversion in _CONVERSIONS else value


@handles("FORMAT_VALUE")
def _format_value(m, ins):
    conversion, has_spec = ins.argval
    spec = m.pop() if has_spec else None
    value = _converted(m.pop(), conversion)
    m.push(call("format", value, spec) if spec else call("format", value))


@handles("CONVERT_VALUE")
def _convert_value(m, ins):
    m.push(_converted(m.pop(), ins.argval))


@handles(*_ADD_METHODS)
def _add_to(m, ins):
    value = m.pop()
    m.emit(ast.Expr(value=method(m.peek(ins.argval), _ADD_METHODS[ins.op], value)))


@handles("MAP_ADD")
def _map_add(m, ins):
    value, key = m.pop(), m.pop()
    m.emit(ast.Assign(targets=[_subscript(m.peek(ins.argval), key, ast.Store)], value=value))


@handles("LIST_TO_TUPLE")
def _list_to_tuple(m, ins):
    m.push(call("tuple", m.pop()))


@handles("UNPACK_SEQUENCE")
def _unpack(m, ins):
    seq = m.pop()
    names = _claim_many(m, ins.argval)
    m.emit(ast.Assign(targets=[_targets(names[::-1])], value=seq))
    m.slots.extend(names)


@handles("UNPACK_EX")
def _unpack_ex(m, ins):
    before, after = ins.argval & 0xFF, ins.argval >> 8
    seq = m.pop()
    names = _claim_many(m, before + 1 + after)
    m.emit(ast.Assign(targets=[_targets(names[::-1], star=before)], value=seq))
    m.slots.extend(names)


def _claim_many(m, count):
    """Distinct variables for ``count`` new slots, deepest first."""
    base, names = len(m.slots), []
    for i in range(count):
        names.append(m.claim(base + i, reserved=names))
    return names


# --- calls -----------------------------------------------------------------

def _callable(m, has_null):
    first = m.pop_raw()
    if not has_null:
        return first, []
    second = m.pop_raw()
    if first is NULL:
        if second is NULL:
            raise DecompilationError("a NULL stack slot used as a value in %s" % m.low.code.co_name)
        return second, []
    if second is NULL:
        return first, []
    return second, [first]




@handles("CALL")
def _call(m, ins):
    argc, kwnames, has_null = ins.argval
    if kwnames == "stack":
        kwnames = m.constant_of(len(m.slots) - 1)
        m.pop()
        if kwnames is None:
            raise DecompilationError("keyword names of a call are not a constant")
    kwnames = kwnames or ()
    args = m.popn(argc)
    func, hidden = _callable(m, has_null)
    args = hidden + args
    npos = len(args) - len(kwnames)
    m.push(call(func, *args[:npos], keywords=[si.keyword_argument(k, v) for k, v in zip(kwnames, args[npos:])]))


@handles("CALL_FUNCTION_EX")
def _call_ex(m, ins):
    has_kwargs, has_null = ins.argval
    kwargs = m.pop() if has_kwargs else None
    args = m.pop()
    func, hidden = _callable(m, has_null)
    keywords = [ast.keyword(arg=None, value=kwargs)] if kwargs is not None else []
    m.push(call(func, *hidden, ast.Starred(value=args, ctx=ast.Load()), keywords=keywords))


@handles("GET_ITER")
def _get_iter(m, ins):
    m.push(call("iter", m.pop()))


# --- returns, raises and handlers ------------------------------------------

@handles("RETURN_VALUE")
def _return(m, ins):
    m.emit(ast.Return(value=m.pop()))


def _reraise_statements(m, exc, handler):
    """Raise the exception in the variable ``exc`` again, which does not chain it: under
    ``handler`` by going to its block, else out of the function, its context kept."""
    if handler is not None:
        return m.low.to_handler(name(exc), *handler)
    return reraise_keeping_context(exc, m.claim(len(m.slots)))


@handles("RAISE_VARARGS")
def _raise(m, ins):
    if ins.argval == 0:
        # bare ``raise``: the exception this code is handling, else the caller's
        h = m.low.handled
        m.emit(ast.If(test=ast.Compare(left=name(h), ops=[ast.IsNot()], comparators=[const(None)]),
                      body=_reraise_statements(m, h, ins.handler), orelse=[]),
               ast.Raise(exc=None, cause=None))
    elif ins.argval == 1:
        m.emit(ast.Raise(exc=m.pop(), cause=None))
    else:
        cause, exc = m.pop(), m.pop()
        m.emit(ast.Raise(exc=exc, cause=cause))


@handles("PUSH_EXC_INFO")
def _push_exc_info(m, ins):
    """Enter a handler: the previous handled exception goes on the stack under the new one.

    The handled exception lives in a variable (``__handled``) rather than in the
    interpreter's state, so ``sys.exc_info()`` inside lowered handlers is not
    reproduced (implicit chaining is: see :mod:`~unveil.fallback.chaining`)."""
    exc = m.variable(1)
    m.pop_raw()
    h = m.low.handled
    previous = m.claim(len(m.slots), reserved=[exc])
    m.invalidate(h)
    m.emit(assign(previous, name(h)))
    m.emit(assign(h, name(exc)))
    m.slots += [previous, exc]


@handles("POP_EXCEPT")
def _pop_except(m, ins):
    previous = m.pop()
    m.invalidate(m.low.handled)
    m.emit(assign(m.low.handled, previous))


@handles("CHECK_EXC_MATCH")
def _check_exc_match(m, ins):
    kind = m.pop()
    m.push(call("isinstance", m.peek(1), kind))


@handles("RERAISE")
def _reraise(m, ins):
    exc = m.variable(1)
    m.pop_raw()
    m.emit(*_reraise_statements(m, exc, ins.handler))


@handles("BEFORE_WITH")
def _before_with(m, ins):
    manager = m.peek(1)
    m.pop()
    # not a context manager: let a real ``with`` raise what this Python raises
    is_manager = ast.BoolOp(op=ast.And(), values=[call("hasattr", call("type", manager), const(attr))
                                                  for attr in ("__enter__", "__exit__")])
    m.emit(ast.If(test=ast.UnaryOp(op=ast.Not(), operand=is_manager), orelse=[],
                  body=[ast.With(items=[ast.withitem(context_expr=manager, optional_vars=None)],
                                 body=[ast.Pass()])]))
    m.push(_attribute(manager, "__exit__"))      # bound through the instance: what Dynamo can trace
    m.push(method(manager, "__enter__"))


@handles("WITH_EXCEPT_START")
def _with_except_start(m, ins):
    exit_, exc = m.peek(4), m.peek(1)
    m.push(call(exit_, call("type", exc), exc, _attribute(exc, "__traceback__")))


# --- jumps -----------------------------------------------------------------

@handles("JUMP")
def _jump(m, ins):
    m.leave(ins.target)
    m.terminator = ("goto", ins.target)


@handles("POP_JUMP_IF_FALSE", *_CONDITIONS)
def _branch(m, ins):
    operand = m.pop()
    m.materialize(effectful_only=True)
    if not m.low.keep_names and any(reads_name(operand, m.canonical(d)) for d in range(len(m.slots))):
        # the jump's renaming of slot variables must not change what the test reads
        variable = m.claim(len(m.slots))
        m.stmts.append(assign(variable, operand))
        operand = name(variable)
    m.leave(ins.target)
    m.leave(ins.index + 1)
    if ins.op == "POP_JUMP_IF_FALSE":
        m.terminator = ("branch", operand, ins.index + 1, ins.target)
    else:
        m.terminator = ("branch", _CONDITIONS[ins.op](operand), ins.target, ins.index + 1)


@handles("FOR_ITER")
def _for_iter(m, ins):
    m.canonicalize()
    iterator = m.peek(1)
    m.exits.append((ins.target, m.shape()[:-1]))
    target = m.canonical(len(m.slots))
    m.slots.append(target)
    m.exits.append((ins.index + 1, m.shape()))
    m.terminator = ("next", target, iterator, ins.target, ins.index + 1)
