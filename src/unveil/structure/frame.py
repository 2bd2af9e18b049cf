"""Symbolic execution of straight-line canonical instructions into ``ast`` nodes.

:class:`Frame` holds the simulated stack and the statements emitted so far.
Each opcode has one small handler in :data:`HANDLERS`; control flow is not
handled here but by :mod:`unveil.structure.structurer`, which drives a frame block by block.
"""
import ast

from ..bytecode import facts
from ..bytecode.opcodes import CONDITIONAL, NO_NEXT
from ..dispatch import dispatch_table
from ..errors import DecompilationError
from ..syntax.astwalk import reads_name
from ..syntax.notes import ElementLines
from ..syntax.unparse import set_elements
from . import stackitems as si
from . import unpacks
from .parallel import Pending, begun_at as _begun_at, computed_at as _computed_at
from .waiting import (WaitingValues, before_statement, began, evaluation_began, read_before_parallel, readers_of,
                      with_readers_of_stores)
from .stackitems import NULL, as_expr, const, name

BINOPS = {
    "+": ast.Add, "-": ast.Sub, "*": ast.Mult, "/": ast.Div, "//": ast.FloorDiv,
    "%": ast.Mod, "**": ast.Pow, "<<": ast.LShift, ">>": ast.RShift, "&": ast.BitAnd,
    "|": ast.BitOr, "^": ast.BitXor, "@": ast.MatMult,
}
CMPOPS = {"<": ast.Lt, "<=": ast.LtE, "==": ast.Eq, "!=": ast.NotEq, ">": ast.Gt, ">=": ast.GtE}




class Frame:
    """Simulated stack plus the statement list being built."""

    def __init__(self, ctx, stack=None, since=None, floor=None):
        self.ctx = ctx  # the FunctionContext: code object, names, nested decompiling
        self.notes = ctx.bindings.notes   # what is known of the nodes beyond their fields
        self._computed, self._held, self._clock = self.notes.seq.values, self.notes.seq.held, ctx.bindings.clock
        self.stack = list(stack or [])
        self.out = []
        self.parallel = None
        self.unpacks = []      # unpackings to write before the next statement (``unpacks.slot_value``)
        # the values a branch's arm (``since``) or a loop's body starts with (the ``floor``
        # lowest) are not its own, nor are copies of them, wherever the code moves them:
        # they belong to the branch or loop, which evaluates them before itself where it
        # must (waiting.settle)
        floor = floor if floor is not None else len(self.stack) if since is not None else 0
        self.inherited = {id(v) for v in self.stack[:floor]}
        self.spilled = {}      # id(value) -> (value, the temporary spill evaluated it into)
        # when the last statement on this path was written (``since``: the frame this
        # one goes on from, as a branch's arm does; else now)
        self.last_emit = next(self.ctx.bindings.clock) if since is None else since
        self.line = None       # the line of the first value pushed since then
        self.at_line = None    # the line of the instruction running

    # -- stack --------------------------------------------------------------
    def push(self, value):
        if isinstance(value, (ast.AST, si.Function)):
            key = id(value)
            if key not in self._computed:    # when it was computed: parallel assignments keep this order
                self._computed[key] = next(self._clock)   # (notes.seq.set, inlined: the hottest path)
                self._held[key] = value
        self.stack.append(value)

    def owned(self):
        """The positions of the values this frame owns (not ``inherited``)."""
        if not self.inherited:
            return range(len(self.stack))
        return [i for i, v in enumerate(self.stack) if id(v) not in self.inherited]

    def pop_raw(self):
        if not self.stack:
            raise DecompilationError("stack underflow in %s" % self.ctx.code.co_name)
        return self.stack.pop()

    def need(self, depth):
        """Refuse, as :meth:`pop_raw` does, an instruction that reaches ``depth`` values
        down a stack that holds fewer (a path structured without the values it got)."""
        if len(self.stack) < depth:
            raise DecompilationError("stack underflow in %s" % self.ctx.code.co_name)

    def consume(self, n):
        """Before an expression takes the top ``n`` values: where one of them waits under a
        pending parallel assignment, which never stores it (Dynamo's call left on the
        stack under ``v = s.bump()``), the assignment is written first, the waiting values
        it could change evaluated before it (:func:`.waiting.read_before_parallel`)."""
        if self.parallel is not None and len(self.stack) - n < self.parallel.top:
            self.flush_parallel()

    def pop(self):
        """Pop a value used as an expression."""
        self.consume(1)
        value = self.pop_raw()
        if isinstance(value, si.Slot):
            return unpacks.slot_value(self, value)
        return as_expr(value)

    def popn(self, n, raw=False):
        """Pop ``n`` values, deepest first (as expressions unless ``raw``)."""
        if n == 0:
            return []
        self.consume(n)
        vals = [self.pop_raw() if raw else self.pop() for _ in range(n)]
        vals.reverse()
        return vals

    def top(self):
        return self.stack[-1] if self.stack else None

    def below_saved(self):
        """The top value under the names an inlined comprehension saved (3.12+), which
        are restored between the stores of a parallel assignment."""
        for item in reversed(self.stack):
            if not isinstance(item, si.Saved):
                return item
        return None

    def emit(self, stmt):
        local = self._local_only(stmt)
        if not local and any(isinstance(item, si.Slot) for item in self.stack):
            unpacks.write_waiting(self)   # their values were computed first
        before_statement(self, stmt, local)
        self.flush_parallel()
        self.put(stmt)
        if not local:
            self.last_emit = next(self.ctx.bindings.clock)

    def spilled_since(self, old):
        """``{id(value): temporary}`` for the values of stack ``old`` that :meth:`spill`
        has since evaluated into temporaries."""
        return {id(a): b for a, b in zip(old, self.stack) if a is not b}

    def _waits(self, item):
        """Whether a stack item is a value whose evaluation the text would defer (or a
        stored value still on the stack: the text would defer the store).  Not the
        module ``from m import a, b`` keeps there: its import statement evaluates it."""
        return isinstance(item, si.Chain) or isinstance(item, ast.expr) and not isinstance(item, si.Marker) \
            and not self.notes.accumulator.get(item, False) and item not in self.notes.imported \
            and not self.ctx.stable(item)

    def _local_only(self, stmt):
        """Whether a statement only deletes fast locals or copies a constant or fast local
        into one: it cannot change a waiting value, which :meth:`check_unread` made sure
        reads none of them."""
        if isinstance(stmt, ast.Delete):
            return all(isinstance(t, ast.Name) and self.ctx.stable(t) for t in stmt.targets)
        return isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name) \
            and self.ctx.stable(stmt.targets[0]) and self.ctx.stable(stmt.value)

    def put(self, stmt):
        """Append a statement, marked with the original line it begins on (after the
        unpackings an item used as a value left to write)."""
        if self.unpacks:
            unpacks.write_pending(self)
        if stmt not in self.notes.line:
            self.notes.line.set(stmt, self.at_line if self.line is None else self.line)
        self.line = None
        self.out.append(stmt)

    def named(self, node, ins):
        """``node``, a name ``ins`` loads or stores, noted with the instruction's line
        where the line decides the bytecode (``facts.SUPERINSTRUCTIONS_WITHIN_A_LINE``)."""
        if facts.SUPERINSTRUCTIONS_WITHIN_A_LINE and ins.line is not None:
            self.notes.name_line.set(node, ins.line)
        return node

    def run(self, instrs):
        for ins in instrs:
            handler = HANDLERS.get(ins.op)
            if handler is None:
                raise DecompilationError("no handler for %s in %s" % (ins.op, self.ctx.code.co_name))
            if ins.after_nop and ins.nop_lines and self.line is None:
                for line in _lone_nop_lines(self.ctx.instrs, ins):
                    self.at_line = line
                    self.put(ast.Pass())
            depth, self.at_line = len(self.stack), ins.line
            handler(self, ins)
            if self.line is None and len(self.stack) > depth:
                self.line = ins.line

    # -- assignment ---------------------------------------------------------
    def store(self, target):
        value = self.pop_raw()
        if isinstance(value, si.Slot):
            return self._store_slot(value, target)
        if isinstance(value, si.Saved):
            return None
        if self.stack and isinstance(value, ast.expr) and self.top() is not value:
            _stored_first(self, target, value)   # (not a walrus: ``(b := a - n)`` stays in its expression)
        if isinstance(value, si.Chain):
            if self.top() is value:
                value.targets.append(target)
                return None
            return self.emit(ast.Assign(targets=value.targets + [target], value=value.value))
        if isinstance(value, si.Function) and value.code.co_name == "<lambda>" \
                and (self.parallel is not None or _plain(self.notes, self.below_saved())):
            # ``a, b = lambda: 0, f(a)``: the lambda is one value of a parallel assignment
            seq, value = self.notes.seq.get(value, -1), self.ctx.lambda_value(value)
            self.notes.seq.set(value, seq)
        elif isinstance(value, si.Definition) or value in self.notes.imported or value in self.notes.imported_from:
            return self.ctx.define(self, target, value)
        if isinstance(value, si.Marker):   # (a code object stored is the bound object)
            return self.emit(ast.Assign(targets=[target], value=si.as_expr(value)))
        if self.top() is value:
            if self.ctx.spill_copies and not isinstance(target, ast.Name) and self.ctx.stable(value):
                # Dynamo stores a copy into an attribute or an item and goes on with the value:
                # ``(a.b := v)`` is no Python, so the store is a statement of its own
                return self.emit(ast.Assign(targets=[target], value=value))
            if not self._spilled_into(target, value):
                self.stack[-1] = si.Chain([target], value)
            return None
        aug = _augmented(self.notes, target, value)
        if aug is not None:
            return self.emit(aug)
        if not self.ctx.spill_copies:
            if self.parallel is not None and not self.parallel.may_join(self.notes, target, value):
                self.flush_parallel()
            if self.parallel is not None or _plain(self.notes, self.below_saved()):
                return self._store_parallel(target, value)
        self.check_unread(target)
        self.emit(ast.Assign(targets=[target], value=value))

    def _spilled_into(self, target, value):
        """Dynamo's ``COPY 1; STORE_FAST x`` right after :meth:`spill` evaluated the value
        into a temporary: the value goes into ``x`` instead (``x = v``, not
        ``__t0 = v`` and then ``(x := __t0)``), and the stack reads ``x``.  Only where
        no statement came between and no waiting value reads the ``x`` it replaces."""
        last = self.out[-1] if self.out else None
        if not (isinstance(value, ast.Name) and self.ctx.is_temporary(value.id)
                and isinstance(target, ast.Name) and self.ctx.stable(target)
                and isinstance(last, ast.Assign) and len(last.targets) == 1
                and isinstance(last.targets[0], ast.Name) and last.targets[0].id == value.id):
            return False
        ident = target.id
        for item in self.stack:
            if type(item) is ast.Name:   # most of what waits: a temporary, a local
                if item.id == ident:
                    return False
            elif isinstance(item, si.Chain):
                if reads_name(item.value, ident) or any(reads_name(t, ident) for t in item.targets):
                    return False
            elif isinstance(item, ast.AST) and reads_name(item, ident):
                return False
        self.ctx.forget_temporary(value.id)
        last.targets[0].id = value.id = target.id
        return True

    def check_unread(self, target):
        """Refuse to assign or delete a name that a value still on the stack reads.

        The stack holds expressions unevaluated; compiled source never keeps one
        across a statement that changes what it reads, but Dynamo's bytecode does,
        and writing the statement first would change the value.
        """
        if not isinstance(target, ast.Name):
            return
        readers = readers_of(self, target.id)
        if readers and not self.spill(readers):
            raise WaitingValues("a value on the stack reads %s, which changes before the value "
                                     "is used (in %s)" % (target.id, self.ctx.code.co_name))

    def spill(self, also=(), before=None, only=False):
        """Evaluate the frame's own waiting stack values (those a statement could change,
        and ``also``; with ``only``, just ``also``) into temporaries, in the order they
        were computed: Dynamo keeps values on the stack across statements and copies.
        False, changing nothing, when a statement has run since the first of them began,
        one was finished only after ``before`` (a push count), or the scope has no locals."""
        also = {id(a) for a in also}
        chosen = with_readers_of_stores(self, [i for i in self.owned() if id(self.stack[i]) in also
                                               or not only and self._waits(self.stack[i])])
        waiting = [(i, self.stack[i].value if isinstance(self.stack[i], si.Chain) else self.stack[i]) for i in chosen]
        if not waiting:
            return True
        stable = self.ctx.stable_names()   # fast locals never change
        begun = [began(self, item, stable) for _, item in waiting]
        if not self.ctx.has_locals() or any(b is not None and b < self.last_emit for b in begun) \
                or before is not None and any(_computed_at(self.notes, item) > before for _, item in waiting):
            return False
        if self.parallel is not None:
            pending = self.parallel.values
            if max(_computed_at(self.notes, v) for v in pending) < min(_begun_at(self.notes, item) or -1 for _, item in waiting):
                self.flush_parallel()    # the pending assignment's values came first
            elif max(_computed_at(self.notes, item) for _, item in waiting) >= min(_begun_at(self.notes, v) or -1 for v in pending):
                return False             # its values and the waiting ones interleave
        # (in the order they began, names included: ``x and y`` after ``(y := v)`` reads the new y)
        for i, item in sorted(waiting, key=lambda w: evaluation_began(self, w[1])):
            temp = self.ctx.temporary()
            stored = self.stack[i].targets if isinstance(self.stack[i], si.Chain) else []
            self.put(ast.Assign(targets=[name(temp, store=True)] + stored, value=item))
            self.last_emit = next(self.ctx.bindings.clock)
            self.spilled[id(self.stack[i])] = (self.stack[i], name(temp))
            self.stack[i] = self.spilled[id(self.stack[i])][1]
            self.notes.seq.set(self.stack[i], self.last_emit)
        return True

    def drop_slot(self, slot):
        """``POP_TOP`` of an unpacked item: the compiler dropped a dead store there."""
        dropped = ast.Name(id="_", ctx=ast.Store())
        self.notes.dropped.set(dropped, True)
        self._store_slot(slot, dropped)

    def _store_slot(self, slot, target):
        unpack = slot.unpack
        unpack.targets[slot.index] = target
        root = unpack.root()
        if not root.complete():
            return
        unnamed = unpacks.fill_dropped(self.notes, root)
        targets = root.chained + [root.node()]
        top = self.top()
        if top is root.value:
            # the unpacked value was copied first: more targets follow (``a, b = c = v``)
            self.stack[-1] = si.Chain(targets, root.value)
            return
        if isinstance(top, si.Chain) and top.value is root.value:
            top.targets = targets  # a copy of a chain was unpacked: the chain grows
            return
        node = targets[-1]
        if self.parallel is not None and not self.parallel.may_join(self.notes, node, root.value):
            self.flush_parallel()
        if not root.chained and not self.ctx.spill_copies \
                and (self.parallel is not None or _plain(self.notes, self.below_saved())):
            # ``a, (b, c) = c, (a, b)``: the nested target joins the pending tuple, and
            # ``(x, a), b = (a, 1), x`` starts one (``x`` waits under it)
            return self._store_parallel(node, root.value)
        if unnamed:
            raise DecompilationError("an unpacked item is dropped with no later store to name it")
        self.emit(ast.Assign(targets=targets, value=root.value))

    def _store_parallel(self, target, value, at=None):
        if self.parallel is None:
            base = len(self.stack)
            while base > 0 and id(self.stack[base - 1]) not in self.inherited \
                    and (_plain(self.notes, self.stack[base - 1]) or isinstance(self.stack[base - 1], si.Saved)):
                base -= 1
            self.parallel = Pending(base)
        self.parallel.add(self.notes, target, value, next(self.ctx.bindings.clock) if at is None else at)
        self.parallel.top = len(self.stack)
        if len(self.stack) <= self.parallel.base:
            self.flush_parallel()

    def drop_into_parallel(self, value):
        """``y, y = e1, e2``: 3.12+ drops the dead first store, and ``e1``, computed
        before the pending assignment, cannot be written after it.  It goes back in,
        stored to a pending name that a value computed later overwrites (a dead store,
        noted as made with the store that overwrites it)."""
        pending = self.parallel
        at = _computed_at(self.notes, value)
        later = [t for t, v in zip(pending.targets, pending.values)
                 if isinstance(t, ast.Name) and _computed_at(self.notes, v) > at]
        if not later:
            raise DecompilationError("a value is dropped while a parallel assignment is pending in %s"
                                     % self.ctx.code.co_name)
        self._store_parallel(ast.Name(id=later[0].id, ctx=ast.Store()), value, self.notes.stored_at.get(later[0]))

    def flush_parallel(self):
        """Write the pending parallel assignment (:mod:`.parallel` says in which order),
        and the unpackings still to write: what a frame ends with."""
        if self.unpacks:
            unpacks.write_pending(self)
        if self.parallel is None:
            return
        pending = self.parallel
        read_before_parallel(self, pending.targets, pending.values, _computed_at)
        if self.parallel is None:
            return   # (evaluating them wrote it)
        self.parallel = None
        self.last_emit = next(self.ctx.bindings.clock)
        self.put(pending.assignment(self.notes))


def _plain(notes, value):
    """Whether a stack value can be one value of a parallel assignment.  An empty display
    can: a comprehension's accumulator never waits right under a stored value (its
    iterator does) and is never stored."""
    return si.is_expr(value)


def _augmented(notes, target, value):
    if not (isinstance(value, ast.BinOp) and notes.inplace.get(value, False)):
        return None
    if ast.dump(value.left) != ast.dump(_as_load(target)):
        return None
    return ast.AugAssign(target=target, op=value.op, value=value.right)


def _as_load(node):
    """A copy of a store-context target in load context, for comparisons."""
    if isinstance(node, ast.Name):
        return name(node.id)
    if isinstance(node, ast.Attribute):
        return ast.Attribute(value=node.value, attr=node.attr, ctx=ast.Load())
    if isinstance(node, ast.Subscript):
        return ast.Subscript(value=node.value, slice=node.slice, ctx=ast.Load())
    return node


# --- handlers --------------------------------------------------------------
HANDLERS, handles = dispatch_table()


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


def _stored_first(f, target, value):
    """A store that reads a name while a value stored into that name waits on the stack
    (Dynamo's ``COPY 1; STORE_FAST tmp_2`` of a value it uses later, then ``LOAD_FAST
    tmp_2`` for another store): the bytecode stored the name already, so that value is
    evaluated, and stored, before this store is written.  (Within one expression,
    ``(sq := v * v) + sq``, the text keeps the order: no statement comes between.)"""
    pending = [item for item in f.stack if isinstance(item, si.Chain) and any(
        isinstance(t, ast.Name) and (reads_name(value, t.id) or reads_name(target, t.id)) for t in item.targets)]
    if pending and not f.spill(pending, only=True):
        raise WaitingValues("a store reads a name while a value stored into it waits on the stack in %s"
                            % f.ctx.code.co_name)


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


def _lone_nop_lines(instrs, ins):
    """The lines of the NOPs right before ``ins``, which starts a statement, that are
    statements of their own (3.11+ keep one for a line with no other instruction: a
    ``pass``, ``if False:`` or ``if __debug__:`` folded away): between the line of the
    instruction before and that of ``ins``, in straight code (not a try's first line,
    under no handler before it, nor a loop's header)."""
    i = ins.index
    before = instrs[i - 1] if i else None
    if before is None and ins.handler is not None or before is not None and (
            before.op in NO_NEXT or before.handler != ins.handler or before.line is None):
        return ()
    if ins.op in NO_NEXT or ins.line is None or any(other.target == i and other.index >= i for other in instrs) \
            or before is not None and before.op in CONDITIONAL and before.target == i:
        return ()   # a loop's header (``while 1:``), the end of ``if c: pass``
    for j in range(i, min(len(instrs), i + _COPIED_RETURN)):
        if instrs[j].line != ins.line:
            break
        if instrs[j].op == "RETURN_VALUE":
            return ()   # the copy of a return a jump went to (:func:`_jumped_copy`)
    low = before.line if before is not None else -1
    return sorted({line for line in ins.nop_lines if low < line < ins.line})


def _jumped_copy(ctx, ret):
    """Whether the ``return`` ending at ``ret`` is the compiler's copy of a short return
    in place of a jump to it (the jump's line kept by a NOP before the copy, on the
    copy's own line: another copy of the same code is elsewhere): the copy's first
    instruction, or None."""
    instrs = ctx.instrs
    for j in range(ret.index - 1, max(-1, ret.index - _COPIED_RETURN), -1):
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


_COPIED_RETURN = 6   # the most canonical instructions of a return the compiler copies (4 raw ones)


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


@handles("BINARY_OP")
def _binary(f, ins):
    right, left = f.pop(), f.pop()
    symbol = ins.argval
    inplace = symbol.endswith("=")
    node = ast.BinOp(left=left, op=BINOPS[symbol.rstrip("=")](), right=right)
    f.notes.inplace.set(node, inplace)
    f.push(node)


@handles("BINARY_SUBSCR")
def _subscr(f, ins):
    index, obj = f.pop(), f.pop()
    f.push(ast.Subscript(value=obj, slice=_index(f.notes, index), ctx=ast.Load()))


@handles("BINARY_SLICE")
def _binary_slice(f, ins):
    stop, start, obj = f.pop(), f.pop(), f.pop()
    f.push(ast.Subscript(value=obj, slice=_slice(start, stop, None), ctx=ast.Load()))


@handles("STORE_SLICE")
def _store_slice(f, ins):
    stop, start, obj = f.pop(), f.pop(), f.pop()
    f.store(ast.Subscript(value=obj, slice=_slice(start, stop, None), ctx=ast.Store()))


def _none_or(node):
    return None if isinstance(node, ast.Constant) and node.value is None else node


def _slice(start, stop, step):
    return ast.Slice(lower=_none_or(start), upper=_none_or(stop), step=_none_or(step) if step else None)


@handles("BUILD_SLICE")
def _build_slice(f, ins):
    """``slice(a, b, c)``, an expression wherever the value goes (Dynamo keeps one on the
    stack across statements: a temporary, a store, an argument), written ``a:b:c``
    where it is a subscript's index (:func:`_index`)."""
    parts = f.popn(3 if ins.arg == 3 else 2)
    node = ast.Call(func=name("slice"), args=parts, keywords=[])
    f.notes.slice_call.set(node)
    f.push(node)


def _index(notes, index, in_tuple=False):
    """A subscript's index: a slice BUILD_SLICE made as ``a:b:c``, also as an item of a
    tuple (``x[1:2, 3]``; not of a tuple in that tuple, where ``a:b`` does not parse)."""
    if notes.slice_call.get(index, False):
        return _slice(*index.args) if len(index.args) == 3 else _slice(index.args[0], index.args[1], None)
    if not in_tuple and isinstance(index, ast.Tuple) and any(notes.slice_call.get(e, False) for e in index.elts):
        return notes.copy(index, ast.Tuple(elts=[_index(notes, e, True) for e in index.elts], ctx=ast.Load()))
    return index


@handles("STORE_SUBSCR")
def _store_subscr(f, ins):
    index, obj = f.pop(), f.pop()
    f.store(ast.Subscript(value=obj, slice=_index(f.notes, index), ctx=ast.Store()))


@handles("DELETE_SUBSCR")
def _delete_subscr(f, ins):
    index, obj = f.pop(), f.pop()
    f.emit(ast.Delete(targets=[ast.Subscript(value=obj, slice=_index(f.notes, index), ctx=ast.Del())]))


def _unary(op):
    def handler(f, ins):
        f.push(ast.UnaryOp(op=op(), operand=f.pop()))
    return handler


HANDLERS["UNARY_NOT"] = _unary(ast.Not)
HANDLERS["UNARY_NEGATIVE"] = _unary(ast.USub)
HANDLERS["UNARY_INVERT"] = _unary(ast.Invert)
HANDLERS["UNARY_POSITIVE"] = _unary(ast.UAdd)


@handles("COMPARE_OP")
def _compare(f, ins):
    right, left = f.pop(), f.pop()
    f.push(ast.Compare(left=left, ops=[CMPOPS[ins.argval]()], comparators=[right]))


@handles("IS_OP")
def _is(f, ins):
    right, left = f.pop(), f.pop()
    f.push(ast.Compare(left=left, ops=[ast.IsNot() if ins.argval else ast.Is()], comparators=[right]))


@handles("CONTAINS_OP")
def _contains(f, ins):
    right, left = f.pop(), f.pop()
    f.push(ast.Compare(left=left, ops=[ast.NotIn() if ins.argval else ast.In()],
                       comparators=[_set_display(f, right)]))


def _set_display(f, value):
    """A set display for a frozenset constant, which the compiler folds from a display of
    constants iterated or tested with ``in``; other values as they are."""
    if isinstance(value, ast.Constant) and value.value.__class__ is frozenset and value.value:
        return ast.Set(elts=[f.ctx.constant(v) for v in set_elements(value.value)])
    return value


@handles("BUILD_TUPLE")
def _build_tuple(f, ins):
    f.push(ast.Tuple(elts=f.popn(ins.arg), ctx=ast.Load()))


@handles("BUILD_LIST")
def _build_list(f, ins):
    node = ast.List(elts=f.popn(ins.arg), ctx=ast.Load())
    f.notes.accumulator.set(node, ins.arg == 0)
    f.push(node)


@handles("BUILD_SET")
def _build_set(f, ins):
    elts = f.popn(ins.arg)
    if elts:
        node = ast.Set(elts=elts)
    else:
        node = ast.Call(func=name("set"), args=[], keywords=[])
        f.notes.accumulator.set(node, True)
        f.notes.set_call.set(node, True)
    f.push(node)


@handles("BUILD_MAP")
def _build_map(f, ins):
    items = f.popn(2 * ins.arg)
    node = ast.Dict(keys=items[0::2], values=items[1::2])
    f.notes.accumulator.set(node, ins.arg == 0)
    f.push(node)


@handles("BUILD_CONST_KEY_MAP")
def _build_const_key_map(f, ins):
    keys = f.pop()
    values = f.popn(ins.arg)
    f.push(ast.Dict(keys=[const(k) for k in _tuple_value(keys)], values=values))


def _tuple_value(node):
    if isinstance(node, ast.Constant):
        return node.value
    return tuple(e.value for e in node.elts)


@handles("BUILD_STRING")
def _build_string(f, ins):
    parts = f.popn(ins.arg)
    values = []
    for p in parts:
        values.extend(p.values if isinstance(p, ast.JoinedStr) else [_string_part(p)])
    f.push(ast.JoinedStr(values=values))


def _string_part(value):
    """A part of an f-string: a literal or a formatted value.  A string computed elsewhere
    (Dynamo's resume function gets an f-string's first parts as arguments) is a field."""
    if isinstance(value, ast.FormattedValue) or isinstance(value, ast.Constant) and isinstance(value.value, str):
        return value
    return ast.FormattedValue(value=value, conversion=-1, format_spec=None)


@handles("CONVERT_VALUE")
def _convert_value(f, ins):
    f.push(ast.FormattedValue(value=f.pop(), conversion=ord(ins.argval), format_spec=None))


@handles("FORMAT_VALUE")
def _format_value(f, ins):
    conv, has_spec = ins.argval
    spec = f.pop() if has_spec else None
    value = f.pop()
    conversion = -1 if conv is None else ord(conv)
    if isinstance(value, ast.FormattedValue) and value.format_spec is None and conv is None:
        conversion, value = value.conversion, value.value
    if spec is not None and not isinstance(spec, ast.JoinedStr):
        spec = ast.JoinedStr(values=[_string_part(spec)])
    f.push(ast.JoinedStr(values=[ast.FormattedValue(value=value, conversion=conversion, format_spec=spec)]))


@handles("LIST_APPEND", "SET_ADD")
def _append(f, ins):
    """Add to a display being built, or (in a comprehension loop) to the accumulator.

    A display of over 30 items is built item by item, each added right on top of it;
    a comprehension keeps its iterator between."""
    value = f.pop()
    target = f.stack[-ins.arg]
    if ins.arg == 1 and isinstance(target, ast.Call) and f.notes.set_call.get(target, False):
        target = f.stack[-1] = ast.Set(elts=[])  # set() begun empty
    if isinstance(target, (ast.List, ast.Set)) and (ins.arg == 1 or not f.notes.accumulator.get(target, False)):
        target.elts.append(value)
        f.notes.accumulator.set(target, False)
    else:
        f.emit(si.Appended(target=target, value=value, key=None))


@handles("MAP_ADD")
def _map_add(f, ins):
    """Add to a dict display being built item by item (over 16 items: the dict lies right
    below, where a comprehension keeps its iterator between), or to an accumulator."""
    value, key = f.pop(), f.pop()
    target = f.stack[-ins.arg]
    if isinstance(target, ast.Dict) and (ins.arg == 1 or not f.notes.accumulator.get(target, False)):
        target.keys.append(key)
        target.values.append(value)
        f.notes.accumulator.set(target, False)
    else:
        f.emit(si.Appended(target=target, value=value, key=key))


def _spread(f, value, ordered):
    """The display items of an iterable spliced into a display: ``*value``,
    or its own items when the compiler built or folded it from plain ones.

    A set keeps its star inside an ``ordered`` (list or tuple) display: its
    iteration order need not be the order of its items.
    """
    kinds = (tuple,) if ordered else (tuple, frozenset)
    if isinstance(value, ast.Constant) and isinstance(value.value, kinds):
        items = value.value if isinstance(value.value, tuple) else set_elements(value.value)
        return [f.ctx.constant(v) for v in items]
    kinds = (ast.List, ast.Tuple) if ordered else (ast.List, ast.Tuple, ast.Set)
    if isinstance(value, kinds) and not f.notes.accumulator.get(value, False):
        return list(value.elts)
    return [ast.Starred(value=value, ctx=ast.Load())]


def _spread_map(notes, value):
    """(keys, values) of a mapping merged into a dict display; key None is ``**value``."""
    if isinstance(value, ast.Dict) and not notes.accumulator.get(value, False):
        return list(value.keys), list(value.values)
    return [None], [value]


@handles("LIST_EXTEND", "SET_UPDATE")
def _extend(f, ins):
    value = f.pop()
    target = f.stack[-ins.arg]
    items = _spread(f, value, ins.op == "LIST_EXTEND")
    if isinstance(target, ast.Call):  # set() accumulator
        target = ast.Set(elts=[])
        f.stack[-ins.arg] = target
    if not isinstance(target, (ast.List, ast.Set)):
        f.stack[-ins.arg] = _extended(target, value, items, ins.op)
        return
    target.elts.extend(items)
    f.notes.accumulator.set(target, False)


def _extended(target, value, items, op):
    """Dynamo extends lists that are not displays, such as ``[a, b][0:1]``: a slice of
    a display is a new list, so a new display holds both; any other list may be
    shared and is extended in place by ``__iadd__`` (``list.extend`` that returns it)."""
    if op != "LIST_EXTEND":   # set |= takes only sets, SET_UPDATE any iterable
        raise DecompilationError("SET_UPDATE into a value that is not a display")
    if isinstance(target, ast.Subscript) and isinstance(target.slice, ast.Slice) and isinstance(target.value, ast.List):
        return ast.List(elts=[ast.Starred(value=target, ctx=ast.Load())] + items, ctx=ast.Load())
    return ast.Call(func=ast.Attribute(value=target, attr="__iadd__", ctx=ast.Load()), args=[value], keywords=[])


@handles("BUILD_UNPACK")
def _build_unpack(f, ins):
    """3.8: a tuple, list or set display of ``ins.arg`` spliced iterables."""
    items = []
    for value in f.popn(ins.arg):
        items.extend(_spread(f, value, ins.argval != "set"))
    if ins.argval == "set":
        f.push(ast.Set(elts=items))
    else:
        cls = ast.Tuple if ins.argval == "tuple" else ast.List
        f.push(cls(elts=items, ctx=ast.Load()))


@handles("LIST_TO_TUPLE")
def _list_to_tuple(f, ins):
    f.push(ast.Tuple(elts=f.pop().elts, ctx=ast.Load()))


@handles("DICT_UPDATE", "DICT_MERGE")
def _dict_update(f, ins):
    value = f.pop()
    target = f.stack[-ins.arg]
    if not isinstance(target, ast.Dict):
        # Dynamo hands a resume function the dict ``{**create()}`` was building when
        # ``create`` broke: updated in place by ``__ior__`` (``dict.update`` that returns it)
        f.stack[-ins.arg] = ast.Call(func=ast.Attribute(value=target, attr="__ior__", ctx=ast.Load()),
                                     args=[value], keywords=[])
        return
    keys, values = _spread_map(f.notes, value)
    target.keys.extend(keys)
    target.values.extend(values)
    f.notes.accumulator.set(target, False)


@handles("BUILD_MAP_UNPACK")
def _build_map_unpack(f, ins):
    """3.8: a dict display (or call keywords) of ``ins.arg`` merged mappings."""
    node = ast.Dict(keys=[], values=[])
    for value in f.popn(ins.arg):
        keys, values = _spread_map(f.notes, value)
        node.keys.extend(keys)
        node.values.extend(values)
    f.push(node)


@handles("UNPACK_SEQUENCE")
def _unpack(f, ins):
    _push_slots(f, ins.arg, None)


@handles("UNPACK_EX")
def _unpack_ex(f, ins):
    before, after = ins.arg & 0xFF, ins.arg >> 8
    _push_slots(f, before + 1 + after, before)


def _push_slots(f, count, star):
    value = f.pop_raw()
    if isinstance(value, si.Slot):
        unpack = si.Unpack(None, count, star, parent=(value.unpack, value.index))
        value.unpack.targets[value.index] = unpack
    elif isinstance(value, si.Chain):  # ``a = b, c = v``: unpacking after plain targets
        unpack = si.Unpack(value.value, count, star, chained=value.targets)
    else:
        unpack = si.Unpack(as_expr(value), count, star)
    for i in reversed(range(count)):
        f.push(si.Slot(unpack, i))


# --- calls -----------------------------------------------------------------

def _keywords(names, values):
    return [si.keyword_argument(n, v) for n, v in zip(names, values)]


def _pop_callable(f, has_null):
    """Pop the callable of a call; return it and any argument hidden in its slot.

    With a NULL slot (3.11+), the pair is (NULL, callable) or, in 3.13 and for
    methods, (callable, NULL).  A pair without NULL is ``callable(self, ...)``:
    the compiler emits it when it calls a comprehension function.
    """
    f.consume(2 if has_null else 1)
    first = f.pop_raw()
    if not has_null:
        return first, []
    second = f.pop_raw()
    if first is NULL:
        return second, []
    if second is NULL:
        return first, []
    return second, [first]


@handles("CALL")
def _call(f, ins):
    argc, kwnames, has_null = ins.argval
    if kwnames == "stack":
        kwnames = _tuple_value(f.pop())
    kwnames = kwnames or ()
    args = f.popn(argc, raw=True)
    func, hidden = _pop_callable(f, has_null)
    args = hidden + args
    nkw = len(kwnames)
    pos, kwvals = (args[:len(args) - nkw], args[len(args) - nkw:]) if nkw else (args, [])
    f.ctx.call(f, func, pos, _keywords(kwnames, kwvals))


@handles("CALL_FUNCTION_EX")
def _call_ex(f, ins):
    has_kwargs, has_null = ins.argval
    kwargs = f.pop() if has_kwargs else None
    args = f.pop()
    func, hidden = _pop_callable(f, has_null)
    if hidden:
        raise DecompilationError("CALL_FUNCTION_EX with a self slot is not supported")
    if isinstance(args, ast.Tuple):
        pos = args.elts
    elif isinstance(args, ast.Constant) and isinstance(args.value, tuple):
        pos = [f.ctx.constant(v) for v in args.value]
    else:
        pos = [ast.Starred(value=args, ctx=ast.Load())]
    keywords = []
    if kwargs is not None:
        if isinstance(kwargs, ast.Dict):
            for k, v in zip(kwargs.keys, kwargs.values):
                if k is None:
                    keywords.append(ast.keyword(arg=None, value=v))
                elif isinstance(k, ast.Constant) and isinstance(k.value, str):
                    keywords.append(si.keyword_argument(k.value, v))
                else:
                    keywords.append(ast.keyword(arg=None, value=ast.Dict(keys=[k], values=[v])))
        else:
            keywords.append(ast.keyword(arg=None, value=kwargs))
    f.ctx.call(f, func, pos, keywords)


@handles("MAKE_FUNCTION")
def _make_function(f, ins):
    f.ctx.make_function(f, ins)


@handles("SET_FUNCTION_ATTRIBUTE")
def _set_function_attribute(f, ins):
    func = f.pop_raw()
    value = f.pop()
    flag = ins.arg
    if flag & 1:
        func.defaults = f.ctx.bound_tuple_as_display(value)
    elif flag & 2:
        func.kwdefaults = value
    elif flag & 4:
        func.annotations = unpacks.starred_annotations(f, value)
    elif flag & 8:
        func.closure = value
    f.push(func)


@handles("LOAD_BUILD_CLASS")
def _load_build_class(f, ins):
    f.push(si.BuildClass())


# --- imports ---------------------------------------------------------------

@handles("IMPORT_NAME")
def _import_name(f, ins):
    fromlist, level = f.pop(), f.pop()
    node = ast.Call(func=name("__import__"), args=[], keywords=[])
    f.notes.imported.set(node, (ins.argval, fromlist.value if isinstance(fromlist, ast.Constant) else None,
                                level.value if isinstance(level, ast.Constant) else 0))
    f.push(node)


@handles("IMPORT_FROM")
def _import_from(f, ins):
    module = f.top()
    node = ast.Attribute(value=module, attr=ins.argval, ctx=ast.Load())
    f.notes.imported_from.set(node, (module, ins.argval))
    f.push(node)


@handles("IMPORT_STAR")
def _import_star(f, ins):
    module = f.pop()
    modname, _, level = f.notes.imported.get(module)
    f.emit(ast.ImportFrom(module=modname or None, names=[ast.alias(name="*", asname=None)], level=level))


# --- PEP 695 type parameters (3.12+) ------------------------------------------

@handles("TYPEVAR", "PARAMSPEC", "TYPEVARTUPLE")
def _type_param(f, ins):
    kind = {"TYPEVAR": "TypeVar", "PARAMSPEC": "ParamSpec", "TYPEVARTUPLE": "TypeVarTuple"}[ins.op]
    f.push(si.TypeParam(f.ctx, kind, _const_str(f.pop())))


@handles("TYPEVAR_WITH_BOUND", "TYPEVAR_WITH_CONSTRAINTS")
def _bounded_type_param(f, ins):
    """Constraints are a bound that evaluates to a tuple display: ``T: (int, str)``."""
    bound = f.pop_raw()
    f.push(si.TypeParam(f.ctx, "TypeVar", _const_str(f.pop()), bound))


@handles("SET_TYPEPARAM_DEFAULT")
def _type_param_default(f, ins):
    default = f.pop_raw()
    f.top().default = default


@handles("SET_FUNCTION_TYPE_PARAMS")
def _set_function_type_params(f, ins):
    params = f.pop()
    f.top().type_params = params


@handles("SUBSCRIPT_GENERIC")
def _subscript_generic(f, ins):
    f.push(ast.Subscript(value=name("Generic"), slice=f.pop(), ctx=ast.Load()))


@handles("TYPEALIAS")
def _type_alias(f, ins):
    value, params, alias = f.pop_raw(), f.pop(), _const_str(f.pop())
    f.push(si.TypeAlias(alias, params, value))


def _const_str(node):
    if not (isinstance(node, ast.Constant) and isinstance(node.value, str)):
        raise DecompilationError("a type parameter or alias named by a non-string")
    return node.value


# --- generators and coroutines ---------------------------------------------

@handles("YIELD_VALUE")
def _yield(f, ins):
    f.push(ast.Yield(value=_none_or(f.pop())))


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
    f.push(si.Iter(_set_display(f, f.pop())))


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
