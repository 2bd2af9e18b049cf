"""The stack of one basic block being lowered to the state machine, as ``ast`` nodes.

A stack slot holds :data:`NULL` (the NULL of a 3.11+ call, the frame's own), the
name of the variable holding its value (``__s<i>`` and its variants), or a
:class:`Pending` expression not yet written anywhere.  The statements a block
runs are ``ast`` statements.
"""
import ast

from ..errors import DecompilationError
from ..structure.stackitems import NULL, name
from ..syntax.astwalk import reads_name


class Pending:
    """A value computed by the bytecode but not yet written: its expression node.

    ``reads`` is the set of locals a pure load reads (``LOAD_FAST``), or ``None``
    for any other expression, whose evaluation may have effects.  ``slice`` is the
    ``a:b`` form (an ``ast.Slice``) of a ``slice(a, b)`` built here, for a subscript.
    """

    __slots__ = ("node", "reads", "value", "slice")

    is_const = False

    def __init__(self, node, reads=None, value=None):
        self.node = node
        self.reads = reads
        self.value = value            # the constant, for LOAD_CONST
        self.slice = None

    @property
    def effectful(self):
        return self.reads is None and not self.is_const


class Const(Pending):
    is_const = True


def assign(target, value):
    """``target = value`` for a variable named ``target``."""
    return ast.Assign(targets=[name(target, store=True)], value=value)


def call(func, *args, keywords=()):
    """``func(*args)``; ``func`` a node or the name of a builtin."""
    func = name(func) if isinstance(func, str) else func
    return ast.Call(func=func, args=list(args), keywords=list(keywords))


def method(obj, attr, *args):
    """``obj.attr(*args)``."""
    return call(ast.Attribute(value=obj, attr=attr, ctx=ast.Load()), *args)


class Machine:
    """The slots of one basic block being lowered, and the statements it emits.

    Pending expressions are folded into the expression or statement that
    consumes them, which keeps the bytecode's evaluation order as long as
    effectful ones are consumed in the order they were made: so before any
    statement, before a new expression made from an effectful one, and before a
    ``SWAP`` moves an effectful one, every other effectful pending value is
    written to a variable, oldest first (stack order is creation order).
    ``SWAP`` and ``COPY`` only move names; at a jump every slot *i* is written to
    its canonical variable ``__s<i>``.

    :meth:`pop` and :meth:`push` are those of :class:`unveil.structure.frame.Frame`:
    the frame's handlers that only build an expression from popped ones run on a
    machine too (see :mod:`unveil.fallback.handlers`).
    """

    def __init__(self, lowering, slots):
        self.low = lowering
        self.ctx = lowering.ctx
        self.notes = lowering.ctx.bindings.notes   # as a frame's: what the shared handlers note
        self.slots = list(slots)
        self.stmts = []
        self.exits = []            # (target block start, stack shape at the jump)
        self.terminator = None     # how the block ends, unless it returns or raises (see Lowering)
        self.handler_depth = 0     # slots below it are what the block's exception handler sees
        self._consumed_effect = False
        self._popped = set()       # variables popped for the statement being built: not to be reused

    def canonical(self, depth):
        return "%s%d" % (self.low.stack_prefix, depth)

    def claim(self, depth, reserved=()):
        """A variable for a new value at ``depth``: no live slot, pending value or value popped
        for the statement being built reads it (after ``b, a = a, b``'s ``SWAP``, writing the
        load of ``b`` that ``b = ...`` rebinds must not reuse the variable just popped for it)."""
        used = {k for k in self.slots if isinstance(k, str)} | self._popped | set(reserved)
        pending = [k.node for k in self.slots if isinstance(k, Pending)]
        name_, n = self.canonical(depth), 0
        while name_ in used or any(reads_name(node, name_) for node in pending):
            n += 1
            name_ = "%s_%d" % (self.canonical(depth), n)
        self.invalidate(name_)
        return name_

    def _write(self, depth):
        kind = self.slots[depth]
        if isinstance(kind, Pending):
            variable = self.claim(depth)
            self.stmts.append(assign(variable, kind.node))
            self.slots[depth] = variable

    def materialize(self, effectful_only=False):
        """Write pending values to variables, oldest first."""
        for depth, kind in enumerate(self.slots):
            if isinstance(kind, Pending) and (kind.effectful or not effectful_only):
                self._write(depth)

    def invalidate(self, variable):
        """Write the pending loads of ``variable`` before a statement rebinds it."""
        for depth, kind in enumerate(self.slots):
            if isinstance(kind, Pending) and kind.reads and variable in kind.reads:
                self._write(depth)

    def canonicalize(self):
        """Every value in its slot's canonical variable (what the next block expects)."""
        self.materialize()
        moves = [(self.canonical(d), k) for d, k in enumerate(self.slots)
                 if isinstance(k, str) and k != self.canonical(d)]
        if len(moves) == 1:
            self.stmts.append(assign(moves[0][0], name(moves[0][1])))
        elif moves:
            self.stmts.append(ast.Assign(
                targets=[ast.Tuple(elts=[name(t, store=True) for t, _ in moves], ctx=ast.Store())],
                value=ast.Tuple(elts=[name(v) for _, v in moves], ctx=ast.Load())))
        self.slots = [k if k is NULL else self.canonical(d) for d, k in enumerate(self.slots)]

    def settle_handler_slots(self):
        """Before an instruction that may raise: the block's exception handler reads the slots
        below its depth from their canonical variables, so none of them may be elsewhere (a
        ``PUSH_EXC_INFO`` under its handler keeps the exception handled before in a variant:
        a re-raise from the finally body's copy then restored the wrong one)."""
        if any(k is not NULL and k != self.canonical(d) for d, k in enumerate(self.slots[:self.handler_depth])):
            self.canonicalize()

    def shape(self, slots=None):
        return [k is NULL for k in (self.slots if slots is None else slots)]

    def emit(self, *stmts):
        self.materialize(effectful_only=True)
        self._consumed_effect = False
        self.stmts.extend(stmts)
        self._popped.clear()

    def push(self, node, reads=None):
        """Push the value of expression ``node`` (or :data:`NULL`)."""
        if node is NULL:
            self.slots.append(NULL)
            return
        if self._consumed_effect:
            self.materialize(effectful_only=True)
            self._consumed_effect = False
        self.slots.append(Pending(node, reads))

    def push_const(self, value, node):
        self.slots.append(Const(node, value=value))

    def leave(self, target):
        if self.low.keep_names:      # the target is written inline right after: no renaming
            self.materialize()
            self.exits.append((target, list(self.slots)))
            return
        self.canonicalize()
        self.exits.append((target, self.shape()))

    def pop_raw(self):
        """The top value as an expression node, or :data:`NULL`."""
        if not self.slots:
            raise DecompilationError("stack underflow while lowering %s" % self.low.code.co_name)
        kind = self.slots.pop()
        if isinstance(kind, Pending):
            if kind.effectful:
                self._consumed_effect = True
            return kind.node
        if kind is NULL:
            return kind
        self._popped.add(kind)
        return name(kind)

    def pop(self):
        """The top value, used as an expression."""
        value = self.pop_raw()
        if value is NULL:
            raise DecompilationError("a NULL stack slot used as a value in %s" % self.low.code.co_name)
        return value

    def popn(self, n):
        values = [self.pop() for _ in range(n)]
        return values[::-1]

    def variable(self, n):
        """The variable of the n-th slot from the top (1 = top), written if pending."""
        depth = len(self.slots) - n
        if self.slots[depth] is NULL:
            raise DecompilationError("a NULL stack slot used as a value in %s" % self.low.code.co_name)
        if isinstance(self.slots[depth], Pending):
            self.materialize(effectful_only=True)
            self._write(depth)
        return self.slots[depth]

    def peek(self, n):
        """The n-th slot from the top (1 = top) as an expression: a constant, or its variable."""
        kind = self.slots[len(self.slots) - n]
        return kind.node if isinstance(kind, Const) else name(self.variable(n))

    def constant_of(self, depth):
        kind = self.slots[depth]
        return kind.value if isinstance(kind, Const) else None
