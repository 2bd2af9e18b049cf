"""Symbolic execution of straight-line canonical instructions into ``ast`` nodes.

:class:`Frame` holds the simulated stack and the statements emitted so far.
Each opcode has one small handler in :data:`HANDLERS`; control flow is not
handled here but by :mod:`unveil.structure.structurer`, which drives a frame block by block.
"""
import ast

from ..bytecode import facts
from ..bytecode.opcodes import CONDITIONAL, NO_NEXT
from ..errors import DecompilationError
from ..syntax.astwalk import reads_name
from . import stackitems as si
from . import unpacks
from .ops import HANDLERS
from .parallel import Pending, begun_at as _begun_at, computed_at as _computed_at
from .waiting import (WaitingValues, before_statement, began, evaluation_began, read_before_parallel, readers_of,
                      with_readers_of_stores)
from .stackitems import as_expr, name


class Frame:
    """Simulated stack plus the statement list being built."""

    def __init__(self, ctx, stack=None, since=None, floor=None):
        self.ctx = ctx  # the FunctionContext: code object, names, nested decompiling
        self.notes = ctx.bindings.notes   # what is known of the nodes beyond their fields
        self._computed, self._held, self._clock = self.notes.seq.values, self.notes.seq.held, ctx.bindings.clock
        self.stack = list(stack or [])
        self.builder = object()   # this frame, in notes.built_in (ops.values.building)
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
    for j in range(i, min(len(instrs), i + facts.COPIED_RETURN_LENGTH)):
        if instrs[j].line != ins.line:
            break
        if instrs[j].op == "RETURN_VALUE":
            return ()   # the copy of a return a jump went to (:func:`unveil.structure.ops.names._jumped_copy`)
    low = before.line if before is not None else -1
    return sorted({line for line in ins.nop_lines if low < line < ins.line})
