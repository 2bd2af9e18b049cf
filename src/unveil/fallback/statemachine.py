"""The last resort: any control flow as an explicit state machine over stack variables.

When structuring fails (Dynamo's resume functions jump into loops; its
transformed code keeps values on the stack across branches), the code object
is lowered instruction by instruction: stack slot ``i`` becomes the variable
``__s<i>``, each basic block becomes one ``if __state == k:`` arm of a
``while True`` loop, and each jump assigns ``__state``.  Each instruction
becomes a statement evaluated exactly where the bytecode evaluates it, so the
output is ugly but behaves the same.  Blocks under an exception-table entry
run inside ``try``/``except`` that jump to the handler block; a nested function
is a ``def`` under a fresh name.  Generators and module or class bodies are not
lowered (a clear error instead).
"""
import ast
import inspect
import re

from ..bytecode import facts
from ..bytecode.canonical import normalise
from ..bytecode.code_objects import argument_count, is_scope
from ..bytecode.opcodes import EXITS, JUMPS
from ..dispatch import dispatch_table
from ..errors import DecompilationError
from ..structure import stackitems as si
from ..structure.frame import cell_of
from ..syntax.unparse import unparse

_NULL = object()  # a slot holding the NULL of a 3.11+ call: no variable, no value

_ENDS_BLOCK = JUMPS | frozenset(EXITS)

_UNARY = {"UNARY_NOT": "not %s", "UNARY_NEGATIVE": "-%s", "UNARY_INVERT": "~%s", "UNARY_POSITIVE": "+%s"}
_CONDITIONS = {"POP_JUMP_IF_FALSE": "not %s", "POP_JUMP_IF_TRUE": "%s",
               "POP_JUMP_IF_NONE": "%s is None", "POP_JUMP_IF_NOT_NONE": "%s is not None"}
_NAMES = re.compile(r"[A-Za-z_]\w*")
_CONVERSIONS = {"s": "str(%s)", "r": "repr(%s)", "a": "ascii(%s)"}

HANDLERS, handles = dispatch_table()


class Pending:
    """A value computed by the bytecode but not yet written: its expression text.

    ``reads`` is the set of locals a pure load reads (``LOAD_FAST``), or ``None``
    for any other expression, whose evaluation may have effects.
    """

    __slots__ = ("text", "reads", "value", "slice")

    def __init__(self, text, reads=None, value=None):
        self.text = text
        self.reads = reads
        self.value = value            # the constant, for LOAD_CONST
        self.slice = None             # "a:b" when the value is a slice built here

    @property
    def effectful(self):
        return self.reads is None and not self.is_const

    is_const = False


class Const(Pending):
    is_const = True


class Machine:
    """The slots of one basic block being lowered, and the lines it emits.

    A slot holds ``_NULL``, the name of the variable holding its value, or a
    :class:`Pending` expression.  Pending expressions are folded into the
    expression or statement that consumes them, which keeps the bytecode's
    evaluation order as long as effectful ones are consumed in the order they
    were made: so before any statement, before a new expression made from an
    effectful one, and before a ``SWAP`` moves an effectful one, every other
    effectful pending value is written to a variable, oldest first (stack
    order is creation order).  ``SWAP`` and ``COPY`` only move names; at a jump
    every slot *i* is written to its canonical variable ``__s<i>``.
    """

    def __init__(self, lowering, slots):
        self.low = lowering
        self.slots = list(slots)
        self.lines = []
        self.exits = []            # (target block start, stack shape at the jump)
        self.terminator = None     # how the block ends, unless it returns or raises (see Lowering)
        self.handler_depth = 0     # slots below it are what the block's exception handler sees
        self._consumed_effect = False

    def canonical(self, depth):
        return "%s%d" % (self.low.stack_prefix, depth)

    def claim(self, depth, reserved=()):
        """A variable for a new value at ``depth``: no live slot or pending value reads it."""
        used = {k for k in self.slots if isinstance(k, str)} | set(reserved)
        for kind in self.slots:
            if isinstance(kind, Pending):
                used.update(_NAMES.findall(kind.text))
        name, n = self.canonical(depth), 0
        while name in used:
            n += 1
            name = "%s_%d" % (self.canonical(depth), n)
        self.invalidate(name)
        return name

    def _write(self, depth):
        kind = self.slots[depth]
        if isinstance(kind, Pending):
            name = self.claim(depth)
            self.lines.append("%s = %s" % (name, kind.text))
            self.slots[depth] = name

    def materialize(self, effectful_only=False):
        """Write pending values to variables, oldest first."""
        for depth, kind in enumerate(self.slots):
            if isinstance(kind, Pending) and (kind.effectful or not effectful_only):
                self._write(depth)

    def invalidate(self, name):
        """Write the pending loads of ``name`` before a statement rebinds it."""
        for depth, kind in enumerate(self.slots):
            if isinstance(kind, Pending) and kind.reads and name in kind.reads:
                self._write(depth)

    def canonicalize(self):
        """Every value in its slot's canonical variable (what the next block expects)."""
        self.materialize()
        moves = [(self.canonical(d), k) for d, k in enumerate(self.slots)
                 if isinstance(k, str) and k != self.canonical(d)]
        if moves:
            self.lines.append("%s = %s" % (", ".join(t for t, _ in moves), ", ".join(v for _, v in moves)))
        self.slots = [k if k is _NULL else self.canonical(d) for d, k in enumerate(self.slots)]

    def shape(self, slots=None):
        return [k is _NULL for k in (self.slots if slots is None else slots)]

    def emit(self, line):
        self.materialize(effectful_only=True)
        self._consumed_effect = False
        self.lines.append(line)

    def push(self, expr, reads=None):
        if self._consumed_effect:
            self.materialize(effectful_only=True)
            self._consumed_effect = False
        self.slots.append(Pending(expr, reads))

    def push_const(self, value, text):
        self.slots.append(Const(text, value=value))

    def leave(self, target):
        if self.low.keep_names:      # the target is written inline right after: no renaming
            self.materialize()
            self.exits.append((target, list(self.slots)))
            return
        self.canonicalize()
        self.exits.append((target, self.shape()))

    def push_null(self):
        self.slots.append(_NULL)

    def pop(self):
        if not self.slots:
            raise DecompilationError("stack underflow while lowering %s" % self.low.code.co_name)
        kind = self.slots.pop()
        if isinstance(kind, Pending):
            if kind.effectful:
                self._consumed_effect = True
            return kind.text if kind.text.isidentifier() else "(%s)" % kind.text
        return kind                # _NULL or a variable name

    def popn(self, n):
        values = [self.pop() for _ in range(n)]
        return values[::-1]

    def peek(self, n):
        """The variable of the n-th slot from the top (1 = top), written if pending."""
        depth = len(self.slots) - n
        kind = self.slots[depth]
        if isinstance(kind, Pending) and not kind.is_const:
            self.materialize(effectful_only=True)
            self._write(depth)
        kind = self.slots[depth]
        return kind.text if isinstance(kind, Const) else kind

    def constant_of(self, depth):
        kind = self.slots[depth]
        return kind.value if isinstance(kind, Const) else None


def _value(m, text):
    if text is _NULL:
        raise DecompilationError("a NULL stack slot used as a value in %s" % m.low.code.co_name)
    return text


@handles("LOAD_CONST")
def _load_const(m, ins):
    m.push_const(ins.argval, m.low.constant(ins.argval))


@handles("LOAD_FAST")
def _load_fast(m, ins):
    name = m.low.local(ins.argval)
    m.push(name, reads=frozenset([name]))


@handles("LOAD_DEREF", "LOAD_NAME")
def _load_local(m, ins):
    m.push(m.low.local(ins.argval))


@handles("LOAD_CLOSURE")
def _load_closure(m, ins):
    """The cell of a local itself (a closure tuple's item, or a cell Dynamo passes on)."""
    name = m.low.local(ins.argval)
    m.push(unparse(cell_of(name)), reads=frozenset([name]))


_FUNCTION_ATTRIBUTES = {
    1: "%s.__defaults__ = %s",
    2: "%s.__kwdefaults__ = %s",
    4: ("%s.__annotations__ = dict(zip(%s[::2], %s[1::2]))" if facts.ANNOTATIONS_ARE_PAIRS
        else "%s.__annotations__ = %s"),
}


@handles("MAKE_FUNCTION")
def _make_function(m, ins):
    """``def`` under a fresh name, then its name, qualified name and attributes set:
    binding the original name here could change what the code around sees."""
    flags, has_qualname = ins.argval
    qualname = None
    if has_qualname:
        qualname = m.constant_of(len(m.slots) - 1)
        m.pop()
    code = m.constant_of(len(m.slots) - 1)
    m.pop()
    if not inspect.iscode(code):
        raise DecompilationError("MAKE_FUNCTION without a constant code object in %s" % m.low.code.co_name)
    if is_scope(code):  # its body is only expressible as a generic definition's own syntax
        raise DecompilationError("the state machine does not lower the PEP 695 scope %s" % code.co_name)
    attributes = {bit: m.pop() for bit in (8, 4, 2, 1) if flags & bit}
    if 8 in attributes:
        _check_closure(m, code, attributes.pop(8))
    name = m.low.function_name(code)
    qualname = qualname or getattr(code, "co_qualname", code.co_name)
    names = {"co_name": code.co_name, "co_qualname": qualname}
    lines = [m.low.def_text(name),
             "%s.__code__ = %s.__code__.replace(%s)" % (
                 name, name, ", ".join("%s=%r" % (f, names[f]) for f in facts.CODE_NAME_FIELDS)),
             "%s.__name__ = %r" % (name, code.co_name),
             "%s.__qualname__ = %r" % (name, qualname)]
    m.emit("\n".join(lines))
    for bit, value in sorted(attributes.items()):
        _set_attribute(m, name, bit, value)
    m.push(name, reads=frozenset([name]))


def _check_closure(m, code, closure):
    """The closure must be the enclosing function's own cells of the same names, which
    the nested ``def`` then closes over by name."""
    try:
        cells = ast.parse(closure, mode="eval").body
    except SyntaxError:
        cells = None
    wanted = [unparse(cell_of(m.low.local(n))) for n in code.co_freevars]
    if not (isinstance(cells, ast.Tuple) and [unparse(e) for e in cells.elts] == wanted):
        raise DecompilationError("closure of %s (%s) is not its enclosing cells in %s" % (code.co_name, closure, m.low.code.co_name))
    if set(code.co_freevars) & m.low.saved_by_comprehensions:
        # an inlined comprehension's variable is a fresh cell per run: one local is not
        raise DecompilationError("%s closes over an inlined comprehension's variable in %s"
                                 % (code.co_name, m.low.code.co_name))


def _set_attribute(m, name, bit, value):
    if bit not in _FUNCTION_ATTRIBUTES:
        raise DecompilationError("function attribute %d in %s" % (bit, m.low.code.co_name))
    text = _FUNCTION_ATTRIBUTES[bit]
    if text.count("%s") > 2 and not value.isidentifier():   # read twice: evaluated once first
        temp = m.claim(len(m.slots))
        m.emit("%s = %s" % (temp, value))
        value = temp
    m.emit(text % ((name,) + (value,) * (text.count("%s") - 1)))


@handles("SET_FUNCTION_ATTRIBUTE")
def _set_function_attribute(m, ins):
    """3.13: an attribute of the function on top, whose value lies below it."""
    func = m.pop()
    value = m.pop()
    if ins.arg == 8 and func in m.low.function_codes:
        _check_closure(m, m.low.function_codes[func], value)
    else:
        _set_attribute(m, func, ins.arg, value)
    m.push(func, reads=frozenset([func]))


@handles("LOAD_GLOBAL")
def _load_global(m, ins):
    m.push(m.low.global_name(ins.argval))


@handles("LOAD_FAST_AND_CLEAR")
def _load_fast_and_clear(m, ins):
    name = m.low.local(ins.argval)
    m.push("locals().get(%r)" % name)
    m.emit("%s = None" % name)


@handles("STORE_FAST", "STORE_DEREF", "STORE_NAME")
def _store_local(m, ins):
    name = m.low.local(ins.argval, store=True)
    value = _value(m, m.pop())
    m.invalidate(name)
    m.emit("%s = %s" % (name, value))


@handles("STORE_GLOBAL")
def _store_global(m, ins):
    m.low.assigned_globals.add(ins.argval)
    m.emit("%s = %s" % (ins.argval, _value(m, m.pop())))


@handles("DELETE_FAST", "DELETE_DEREF", "DELETE_NAME")
def _delete_local(m, ins):
    name = m.low.local(ins.argval, store=True)
    m.invalidate(name)
    m.emit("del %s" % name)


@handles("DELETE_GLOBAL")
def _delete_global(m, ins):
    m.low.assigned_globals.add(ins.argval)
    m.emit("del %s" % ins.argval)


@handles("LOAD_ATTR")
def _load_attr(m, ins):
    obj = _value(m, m.pop())
    m.push("%s.%s" % (obj, ins.argval))


@handles("LOAD_METHOD")
def _load_method(m, ins):
    _load_attr(m, ins)
    m.push_null()


@handles("STORE_ATTR")
def _store_attr(m, ins):
    obj, value = m.pop(), m.pop()
    m.emit("%s.%s = %s" % (obj, ins.argval, _value(m, value)))


@handles("DELETE_ATTR")
def _delete_attr(m, ins):
    m.emit("del %s.%s" % (m.pop(), ins.argval))


@handles("PUSH_NULL")
def _push_null(m, ins):
    m.push_null()


@handles("POP_TOP")
def _pop_top(m, ins):
    kind = m.slots[-1] if m.slots else None
    value = m.pop()
    if isinstance(kind, Pending) and kind.effectful:
        m.emit(value)      # computed but unused: evaluated for its effects, as the bytecode does


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
    a, b = m.slots[top], m.slots[other]
    m.slots[top], m.slots[other] = b, a
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


@handles("IMPORT_NAME")
def _import_name(m, ins):
    """What IMPORT_NAME calls: ``__import__(name, globals(), locals(), fromlist, level)``.
    (``IMPORT_FROM`` is refused: its ImportError and submodule fallback have no
    expression form.)"""
    fromlist, level = m.pop(), m.pop()
    m.push("__import__(%r, globals(), locals(), %s, %s)" % (ins.argval, fromlist, level))


@handles("BINARY_OP")
def _binary(m, ins):
    right, left = m.pop(), m.pop()
    if ins.argval.endswith("=") and ins.argval not in ("==", "!=", "<=", ">="):
        target = m.claim(len(m.slots))  # never a name another slot still holds (COPY)
        if left != target:
            m.emit("%s = %s" % (target, left))
        m.emit("%s %s %s" % (target, ins.argval, right))
        m.slots.append(target)
    else:
        m.push("%s %s %s" % (left, ins.argval, right))


@handles("COMPARE_OP")
def _compare(m, ins):
    right, left = m.pop(), m.pop()
    m.push("%s %s %s" % (left, ins.argval, right))


@handles("IS_OP")
def _is(m, ins):
    right, left = m.pop(), m.pop()
    m.push("%s %s %s" % (left, "is not" if ins.argval else "is", right))


@handles("CONTAINS_OP")
def _contains(m, ins):
    right, left = m.pop(), m.pop()
    m.push("%s %s %s" % (left, "not in" if ins.argval else "in", right))


@handles(*_UNARY)
def _unary(m, ins):
    m.push(_UNARY[ins.op] % m.pop())


@handles("BINARY_SUBSCR")
def _subscr(m, ins):
    key, obj = _key(m), m.pop()
    m.push("%s[%s]" % (obj, key))


@handles("STORE_SUBSCR")
def _store_subscr(m, ins):
    key, obj, value = _key(m), m.pop(), m.pop()
    m.emit("%s[%s] = %s" % (obj, key, value))


@handles("DELETE_SUBSCR")
def _delete_subscr(m, ins):
    key, obj = _key(m), m.pop()
    m.emit("del %s[%s]" % (obj, key))


def _key(m):
    """A subscript key: ``a:b`` for a slice built just before (same evaluation order)."""
    kind = m.slots[-1] if m.slots else None
    text = m.pop()
    return kind.slice if isinstance(kind, Pending) and kind.slice else text


@handles("BINARY_SLICE")
def _binary_slice(m, ins):
    stop, start, obj = m.pop(), m.pop(), m.pop()
    m.push("%s[%s:%s]" % (obj, start, stop))


@handles("STORE_SLICE")
def _store_slice(m, ins):
    stop, start, obj, value = m.pop(), m.pop(), m.pop(), m.pop()
    m.emit("%s[%s:%s] = %s" % (obj, start, stop, value))


@handles("BUILD_SLICE")
def _build_slice(m, ins):
    parts = m.popn(ins.argval)
    m.push("slice(%s)" % ", ".join(parts))
    m.slots[-1].slice = ":".join("" if p == "None" else p for p in parts)


def _items(values):
    return ", ".join(values) + ("," if len(values) == 1 else "")


@handles("BUILD_TUPLE")
def _build_tuple(m, ins):
    """A tuple of plain loads (a closure's cells) stays a plain load of those names."""
    kinds = m.slots[len(m.slots) - ins.argval:] if ins.argval else []
    reads = None
    if kinds and all(isinstance(k, Pending) and k.reads for k in kinds):
        reads = frozenset().union(*(k.reads for k in kinds))
    m.push("(%s)" % _items(m.popn(ins.argval)), reads=reads)


@handles("BUILD_LIST")
def _build_list(m, ins):
    m.push("[%s]" % ", ".join(m.popn(ins.argval)))


@handles("BUILD_SET")
def _build_set(m, ins):
    values = m.popn(ins.argval)
    m.push("{%s}" % ", ".join(values) if values else "set()")


@handles("BUILD_MAP")
def _build_map(m, ins):
    flat = m.popn(2 * ins.argval)
    m.push("{%s}" % ", ".join("%s: %s" % (flat[i], flat[i + 1]) for i in range(0, len(flat), 2)))


@handles("BUILD_CONST_KEY_MAP")
def _build_const_key_map(m, ins):
    keys = m.pop()
    values = m.popn(ins.argval)
    m.push("dict(zip(%s, (%s)))" % (keys, _items(values)))


@handles("BUILD_STRING")
def _build_string(m, ins):
    m.push("''.join((%s))" % _items(m.popn(ins.argval)))


@handles("FORMAT_VALUE")
def _format_value(m, ins):
    conversion, has_spec = ins.argval
    spec = m.pop() if has_spec else None
    value = m.pop()
    value = _CONVERSIONS.get(conversion, "%s") % value
    m.push("format(%s, %s)" % (value, spec) if spec else "format(%s)" % value)


@handles("CONVERT_VALUE")
def _convert_value(m, ins):
    m.push(_CONVERSIONS[ins.argval] % m.pop())


@handles("LIST_APPEND", "SET_ADD", "LIST_EXTEND", "SET_UPDATE", "DICT_UPDATE")
def _add_to(m, ins):
    value = m.pop()
    method = {"LIST_APPEND": "append", "SET_ADD": "add", "LIST_EXTEND": "extend",
              "SET_UPDATE": "update", "DICT_UPDATE": "update"}[ins.op]
    m.emit("%s.%s(%s)" % (m.peek(ins.argval), method, value))


@handles("MAP_ADD")
def _map_add(m, ins):
    value, key = m.pop(), m.pop()
    m.emit("%s[%s] = %s" % (m.peek(ins.argval), key, value))


@handles("LIST_TO_TUPLE")
def _list_to_tuple(m, ins):
    m.push("tuple(%s)" % m.pop())


@handles("UNPACK_SEQUENCE")
def _unpack(m, ins):
    seq = m.pop()
    names = _claim_many(m, ins.argval)
    m.emit("%s = %s" % (_items(names[::-1]) if names else "()", seq))
    m.slots.extend(names)


@handles("UNPACK_EX")
def _unpack_ex(m, ins):
    before, after = ins.argval & 0xFF, ins.argval >> 8
    seq = m.pop()
    names = _claim_many(m, before + 1 + after)
    targets = names[::-1]
    targets[before] = "*" + targets[before]
    m.emit("%s = %s" % (_items(targets), seq))
    m.slots.extend(names)


def _claim_many(m, count):
    """Distinct variables for ``count`` new slots, deepest first."""
    base, names = len(m.slots), []
    for i in range(count):
        names.append(m.claim(base + i, reserved=names))
    return names


def _callable(m, has_null):
    first = m.pop()
    if not has_null:
        return first, []
    second = m.pop()
    if first is _NULL:
        return _value(m, second), []
    if second is _NULL:
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
    parts = args[:npos] + ["%s=%s" % (k, v) if k.isidentifier() else "**{%r: %s}" % (k, v)
                           for k, v in zip(kwnames, args[npos:])]
    m.push("%s(%s)" % (func, ", ".join(parts)))


@handles("CALL_FUNCTION_EX")
def _call_ex(m, ins):
    has_kwargs, has_null = ins.argval
    kwargs = m.pop() if has_kwargs else None
    args = m.pop()
    func, hidden = _callable(m, has_null)
    parts = hidden + ["*" + args] + (["**" + kwargs] if kwargs else [])
    m.push("%s(%s)" % (func, ", ".join(parts)))


@handles("GET_ITER")
def _get_iter(m, ins):
    m.push("iter(%s)" % m.pop())


@handles("LOAD_ASSERTION_ERROR")
def _assertion_error(m, ins):
    m.push("AssertionError")


@handles("RETURN_VALUE")
def _return(m, ins):
    m.emit("return %s" % _value(m, m.pop()))


@handles("RAISE_VARARGS")
def _raise(m, ins):
    if ins.argval == 0:
        # bare ``raise``: the exception this code is handling, else the caller's
        h = m.low.handled
        m.emit("if %s is not None:\n    raise %s\nraise" % (h, h))
    elif ins.argval == 1:
        m.emit("raise %s" % m.pop())
    else:
        cause, exc = m.pop(), m.pop()
        m.emit("raise %s from %s" % (exc, cause))


@handles("PUSH_EXC_INFO")
def _push_exc_info(m, ins):
    """Enter a handler: the previous handled exception goes on the stack under the new one.

    The handled exception lives in a variable (``__handled``) rather than in the
    interpreter's state, so ``sys.exc_info()`` inside lowered handlers is not
    reproduced (implicit chaining is: see :meth:`Lowering._protected`)."""
    exc = m.peek(1)
    m.pop()
    h = m.low.handled
    previous = m.claim(len(m.slots), reserved=[exc])
    m.invalidate(h)
    m.emit("%s = %s" % (previous, h))
    m.emit("%s = %s" % (h, exc))
    m.slots += [previous, exc]


@handles("POP_EXCEPT")
def _pop_except(m, ins):
    previous = m.pop()
    m.invalidate(m.low.handled)
    m.emit("%s = %s" % (m.low.handled, previous))


@handles("CHECK_EXC_MATCH")
def _check_exc_match(m, ins):
    kind = m.pop()
    m.push("isinstance(%s, %s)" % (m.peek(1), kind))


@handles("RERAISE")
def _reraise(m, ins):
    m.emit("raise %s" % m.pop())


@handles("BEFORE_WITH")
def _before_with(m, ins):
    manager = m.peek(1)
    m.pop()
    # not a context manager: let a real ``with`` raise what this Python raises
    m.emit("if not (hasattr(type(%s), '__enter__') and hasattr(type(%s), '__exit__')):\n"
           "    with %s:\n        pass" % (manager, manager, manager))
    m.push("%s.__exit__" % manager)      # bound through the instance: what Dynamo can trace
    m.push("%s.__enter__()" % manager)


@handles("WITH_EXCEPT_START")
def _with_except_start(m, ins):
    exit_, exc = m.peek(4), m.peek(1)
    m.push("%s(type(%s), %s, %s.__traceback__)" % (exit_, exc, exc, exc))


@handles("JUMP")
def _jump(m, ins):
    m.leave(ins.target)
    m.terminator = ("goto", ins.target)


@handles(*_CONDITIONS)
def _branch(m, ins):
    operand = m.pop()
    m.materialize(effectful_only=True)
    slot_names = {m.canonical(d) for d in range(len(m.slots))}
    if not m.low.keep_names and set(_NAMES.findall(operand)) & slot_names:
        # the jump's renaming of slot variables must not change what the test reads
        name = m.claim(len(m.slots))
        m.lines.append("%s = %s" % (name, operand))
        operand = name
    m.leave(ins.target)
    m.leave(ins.index + 1)
    if ins.op == "POP_JUMP_IF_FALSE":
        m.terminator = ("branch", operand, ins.index + 1, ins.target)
    else:
        m.terminator = ("branch", _CONDITIONS[ins.op] % operand, ins.target, ins.index + 1)


@handles("FOR_ITER")
def _for_iter(m, ins):
    m.canonicalize()
    iterator = m.peek(1)
    m.exits.append((ins.target, m.shape()[:-1]))
    target = m.canonical(len(m.slots))
    m.slots.append(target)
    m.exits.append((ins.index + 1, m.shape()))
    m.terminator = ("next", target, iterator, ins.target, ins.index + 1)


class Lowering:
    """Lowers one code object; :func:`lower` is the entry point."""

    def __init__(self, ctx):
        self.ctx = ctx
        self.code = ctx.code
        self.instrs = normalise(self.code).instrs
        # (3.11+ build these tuples anew at each reading: read once)
        self.free_names = frozenset(self.code.co_freevars)
        self.frame_names = frozenset(self.code.co_varnames + self.code.co_cellvars) | self.free_names
        names = self.frame_names | set(self.code.co_names)
        self.stack_prefix, self.state, self.handled = "__s", "__state", "__handled"
        while any(n.startswith(self.stack_prefix) for n in names) or {self.state, self.handled} & names:
            self.stack_prefix, self.state, self.handled = ("_" + self.stack_prefix, "_" + self.state,
                                                           "_" + self.handled)
        self.assigned_globals = set()
        self.stored_free = set()
        self.functions = 0              # defs named so far in this lowering pass
        self.function_codes = {}        # def name -> its code (3.13's SET_FUNCTION_ATTRIBUTE too)
        self.def_texts = {}             # (def name, code) -> its text, shared by both passes
        self.saved_by_comprehensions = {ins.argval for ins in self.instrs if ins.op == "LOAD_FAST_AND_CLEAR"}
        self.keep_names = False
        self.starts = self._block_starts()
        self.numbers = {start: n for n, start in enumerate(self.starts)}

    def _block_starts(self):
        starts = {0}
        previous = None
        for ins in self.instrs:
            if ins.handler != previous:
                starts.add(ins.index)      # one handler per block
                previous = ins.handler
            if ins.handler is not None:
                starts.add(ins.handler[0])
            if ins.op not in HANDLERS:
                raise DecompilationError("%s cannot be lowered to a state machine (opcode %s)"
                                         % (self.code.co_name, ins.op))
            if ins.target is not None:
                starts.add(ins.target)
            if ins.op in _ENDS_BLOCK and ins.index + 1 < len(self.instrs):
                starts.add(ins.index + 1)
        return sorted(starts)

    def block_number(self, start):
        return self.numbers[start]

    def goto(self, start):
        return "%s = %d; continue" % (self.state, self.block_number(start))

    def constant(self, value):
        return unparse(si.as_expr(self.ctx.constant(value)))

    def function_name(self, code):
        """A fresh name for the ``def`` of nested ``code`` (the same on a second
        lowering pass, which meets the functions in the same order)."""
        self.functions += 1
        name = "%sf%d" % (self.stack_prefix, self.functions)
        self.function_codes[name] = code
        return name

    def def_text(self, name):
        """The ``def`` of the function named ``name``, decompiled once for both passes."""
        key = (name, self.function_codes[name])
        if key not in self.def_texts:
            self.def_texts[key] = unparse(self.ctx.nested_def(key[1], name)).rstrip("\n")
        return self.def_texts[key]

    def local(self, name, store=False):
        ident = self.ctx.identifier(name)
        if store and name in self.free_names:
            self.stored_free.add(ident)
        return ident

    def global_name(self, name):
        if name in self.frame_names:
            raise DecompilationError("global %s is also a local of %s" % (name, self.code.co_name))
        return self.ctx.identifier(name)

    def lower(self):
        """Source lines of the function body."""
        blocks = self._blocks()
        if self._is_tree(blocks):
            self.keep_names = True   # again, letting each block keep its predecessor's variables
            self.functions = 0
            blocks = self._blocks()
        for name in sorted(self.assigned_globals):
            self.ctx.declare_global(name)
        for name in sorted(self.stored_free):
            self.ctx.declare_nonlocal(name)
        return self._as_tree(blocks) if self.keep_names else self._as_machine(blocks)

    def _blocks(self):
        """Lower every reachable block: start -> :class:`Machine`."""
        entry = {0: []}            # block start -> slots on entry
        blocks = {}
        todo = [0]
        while todo:
            start = todo.pop()
            if start in blocks:
                continue
            end = next((s for s in self.starts if s > start), len(self.instrs))
            m = Machine(self, entry[start] if self.keep_names else
                        [_NULL if null else "%s%d" % (self.stack_prefix, d) for d, null in enumerate(entry[start])])
            if self.instrs[start].handler is not None:
                m.handler_depth = self.instrs[start].handler[1]
            for ins in self.instrs[start:end]:
                HANDLERS[ins.op](m, ins)
            if self.instrs[end - 1].op not in _ENDS_BLOCK:
                if end >= len(self.instrs):
                    raise DecompilationError("%s runs off its end" % self.code.co_name)
                m.leave(end)
                m.terminator = ("goto", end)
            blocks[start] = m
            handler = self.instrs[start].handler
            if handler is not None:
                target, depth, lasti = handler
                shape = [k is _NULL for k in entry[start][:depth]]
                m.exits.append((target, shape + [False] * (bool(lasti) + 1)))
            for target, slots in m.exits:
                if entry.setdefault(target, slots) != slots and not self.keep_names:
                    raise DecompilationError("stack shapes differ where jumps meet in %s" % self.code.co_name)
                todo.append(target)
        return blocks

    def _is_tree(self, blocks):
        """No loops, no handlers, one predecessor per block: nested ``if``/``else`` will do."""
        if any(ins.handler is not None for ins in self.instrs):
            return False
        preds = {}
        for m in blocks.values():
            for target, _ in m.exits:
                preds[target] = preds.get(target, 0) + 1
        if preds.get(0) or any(n > 1 for n in preds.values()):
            return False
        return not any(m.terminator and m.terminator[0] == "next" for m in blocks.values()) \
            and _shallow(blocks)

    def _as_tree(self, blocks):
        """Nested ``if``/``else`` (Dynamo's graph-break code): no state variable needed."""

        def render(start, indent):
            out = []
            while True:                 # a chain of gotos, one block after the other, without recursion
                m = blocks[start]
                out += [indent + line for text in m.lines for line in text.split("\n")]
                term = m.terminator
                if term is None:
                    return out
                if term[0] != "goto":
                    break
                start = term[1]
            _, cond, true, false = term
            return (out + [indent + "if %s:" % cond] + render(true, indent + "    ")
                    + [indent + "else:"] + render(false, indent + "    "))
        return render(0, "")

    def _protected(self, body, target, depth, lasti):
        """``body`` under an exception-table entry: an exception goes to the handler block
        with the stack cut to ``depth``, then (``lasti``) a stand-in offset, then the exception."""
        caught, h = "%se" % self.stack_prefix, self.handled
        out = ["try:"] + ["    " + line for line in body] + ["except BaseException as %s:" % caught]
        # raised while handling another: chain it, as the interpreter would have
        out.append("    if %s is not None and %s is not %s and %s.__context__ is None:" % (h, caught, h, caught))
        out.append("        %s.__context__ = %s" % (caught, h))
        if lasti:
            out.append("    %s%d = None" % (self.stack_prefix, depth))
        out.append("    %s%d = %s" % (self.stack_prefix, depth + bool(lasti), caught))
        out.append("    " + self.goto(target))
        return out

    def _as_machine(self, blocks):
        """``while True`` over ``if __state == k`` arms, one per block."""
        lines = ["%s = 0" % self.state, "while True:"]
        if any(ins.op in ("PUSH_EXC_INFO", "RAISE_VARARGS") or ins.handler for ins in self.instrs):
            lines.insert(0, "%s = None" % self.handled)
        first = True
        # each arm goes on by ``continue``, ``return`` or ``raise``: many arms are ``if``s one
        # after the other, as an ``elif`` chain of thousands is nested too deeply for the
        # compiler to take as a tree (Python 3.12: 1,500 levels)
        flat = len(blocks) > _CHAINED_ARMS
        for start in self.starts:
            if start not in blocks:
                continue  # unreachable
            lines.append("    %s %s == %d:" % ("if" if first or flat else "elif", self.state,
                                                self.block_number(start)))
            first = False
            m = blocks[start]
            body = [line for text in m.lines for line in text.split("\n")]
            term = m.terminator
            if term is not None and term[0] == "goto":
                body.append(self.goto(term[1]))
            elif term is not None and term[0] == "branch":
                _, cond, true, false = term
                body.append("%s = %d if %s else %d" % (self.state, self.block_number(true), cond,
                                                       self.block_number(false)))
                body.append("continue")
            elif term is not None:
                _, target, iterator, done, more = term
                body += ["try:", "    %s = next(%s)" % (target, iterator), "except StopIteration:",
                         "    %s = %d" % (self.state, self.block_number(done)), "    continue",
                         self.goto(more)]
            handler = self.instrs[start].handler
            if handler is not None:
                body = self._protected(body, *handler)
            lines += ["        " + line for line in body]
        return lines


def lower(ctx):
    """The body of ``ctx.code`` as a state machine (``ast`` statements), or ``DecompilationError``."""
    if ctx.code.co_flags & (inspect.CO_GENERATOR | inspect.CO_COROUTINE | inspect.CO_ASYNC_GENERATOR):
        raise DecompilationError("%s is a generator or coroutine: not lowered to a state machine"
                                 % ctx.code.co_name)
    if not ctx.code.co_flags & inspect.CO_NEWLOCALS:
        raise DecompilationError("%s is a module or class body: not lowered to a state machine"
                                 % ctx.code.co_name)
    lines = Lowering(ctx).lower()
    cells = [ctx.identifier(n) for n in ctx.code.co_cellvars
             if n not in ctx.code.co_varnames[:argument_count(ctx.code)]]
    if cells:
        # a cell only a nested function's walrus stores is still the enclosing one's local
        lines += ["if False:", "    %s = None" % " = ".join(cells)]
    text = "\n".join(lines)
    try:
        return ast.parse(text).body
    except SyntaxError as exc:
        raise DecompilationError("state machine for %s does not parse: %s" % (ctx.code.co_name, exc))


#: the most arms the loop form writes as one ``if``/``elif`` chain
_CHAINED_ARMS = 200

#: how deep the nested ``if``/``else`` form may go: CPython's tokenizer refuses 100
#: levels of indentation (and each level is a Python call of the renderer's)
_TREE_INDENTS = 90


def _shallow(blocks):
    """Whether the nested ``if``/``else`` form of a tree of ``blocks`` stays within
    :data:`_TREE_INDENTS` indentations on every path (a long ``elif`` chain does not: it
    gets the state machine's loop).  Gotos do not indent: the renderer follows them in a
    loop (counting them too sent long straight-line trees to the loop form)."""
    todo = [(0, 0)]
    while todo:
        start, indents = todo.pop()
        if indents > _TREE_INDENTS:
            return False
        term = blocks[start].terminator
        if term is None:
            continue
        if term[0] == "goto":
            todo.append((term[1], indents))
        else:
            todo += [(term[2], indents + 1), (term[3], indents + 1)]
    return True
