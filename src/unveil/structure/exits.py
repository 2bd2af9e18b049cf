"""Leaving a region: the exit copies a ``return``, ``break`` or ``continue`` runs on its
way out of a ``try``, ``with`` or except clause (a finally body's copy, a with's exit
call, a clause's end), skipped or refused, and the short return tails the compiler
copies past them.  A mixin of :class:`~unveil.structure.structurer.Structurer`."""
import ast

from ..bytecode import facts
from ..bytecode.opcodes import CONDITIONAL
from ..errors import DecompilationError
from . import handler_regions
from . import stackitems as si
from . import trys

#: the jumps out of a region a ``break``, ``continue`` or loop ``else`` makes
JUMP_KINDS = ("break", "continue", "else")


class Exits:
    """How the structurer leaves a region (see the module)."""

    def leave(self, pos, frame, region):
        """``pos`` is outside the region: skip exit copies, then end the sequence.

        A ``return``/``break``/``continue`` right after the copy belongs inside
        the region; any other position is recorded as a normal exit.
        """
        skipped, entered = False, len(frame.stack)
        if region.elide is None and self.return_through_enclosing(pos, frame, region):
            return None  # a return from an inner try goes through outer exit copies
        if region.elide is not None:
            after = region.elide(self, pos, frame)
            if after == handler_regions.ENDS:
                if len(frame.stack) > (region.depth or 0):
                    raise DecompilationError("a value waits at %d on a copy of a finally body that never "
                                             "completes" % pos)
                if region.exits is not None:
                    # the path goes on past the body (into the finally body, which the try
                    # statement holds, and which ends it): the other side of an if whose one
                    # side leaves so is its else clause, not code after it (3.8, 3.9:
                    # ``if not c(): break`` out of a loop that never loops back ended the
                    # body with ``pass``, and the raise after it ran anyway)
                    region.exits.append(handler_regions.ENDS)
                return None
            if after is None and getattr(region.elide, "required", False):
                raise DecompilationError("a way out of a try/finally body at %d without a copy of "
                                         "the finally body" % pos)
            if after is not None and after != pos:
                copied, (pos, skipped) = pos, (after, True)
                tail = self._constant_return(pos, frame)
                if tail and not self._written_after(tail, copied, pos):
                    # return (a constant is loaded only after the exit copy)
                    self._run_after_exit(tail, frame)
                    return None
                if self._breaks_after_inner_copy(copied, pos, region):
                    # (3.12+: a ``break`` runs the finally body's copy, then a copy of what
                    # the loop's test leaves to, which may end a clause and return)
                    self.jump_out("break", frame)
                    return None
                if self.return_through_enclosing(pos, frame, region, copied):
                    return None
        if skipped and getattr(region.elide, "keeps_order", False) and self.after_statement(pos, region):
            # 3.10 and 3.12+ copy the short ``return`` after a try or with (or after the loop
            # a ``break`` leaves) past the clause's ``POP_EXCEPT`` or the with's exit:
            # outside the clause or with, so the statement goes on there (in a loop
            # with no such code after it, ``while True``, it stays inside, below)
            if self.jump_kind(pos, region.parent or region) == "break":
                self.jump_out("break", frame)
                return None
            if region.loop is None and region.exits is not None:
                region.exits.append(pos)
                return None
        if not skipped and region.elide is None and self._return_after_try(pos, region):
            region.exits.append(pos)
            return None
        if (not skipped or getattr(region.elide, "keeps_order", False)) and self.return_tail(pos, region):
            # 3.12+ copies a short ``return`` tail (``break`` then ``return x``
            # after the loop) to the end of the path: it cannot raise, so it
            # may as well be inside (not after a finally or with exit copy,
            # which must run before the value is loaded)
            frame.run(self.instrs[pos:self.g.of_instr[pos].end])
            return None
        ins = self.instrs[pos] if pos < len(self.instrs) else None
        depth = region.depth
        if depth is not None and skipped:
            depth -= entered - len(frame.stack)   # (the markers the exit copy removed: a with's exit)
        valued = len(frame.stack) > depth if depth is not None else skipped and (
            si.is_expr(frame.top()) or isinstance(frame.top(), si.Definition))  # ``return lambda: 0``
        tail = trys.return_tail(self, pos) if valued else None
        if tail is not None:
            # ``try: return x``: the value is computed inside, the return (and what
            # drops iterators and ends clauses and withs on the way) is not covered;
            # likewise ``except: return x`` in an except clause (3.11+)
            trys.run_return_tail(frame, tail, pos)
            return None
        # (3.10, 3.12+: a ``break`` from inside a with or an except clause runs the
        # with's exit copy or the clause's end, then a copy of the short code after the
        # loop: even at the end of the with or clause, going on there is leaving the
        # loop; after a finally copy that is not the last one, see above)
        inner_copy = skipped and self._inner_copy(copied, region)
        if skipped and getattr(region.elide, "keeps_order", False) \
                and self.jump_kind(pos, region.parent or region) == "break":
            self.jump_out("break", frame)
            return None
        if inner_copy and self._loads_what_the_copy_keeps(copied, pos) and self.return_tail(pos, region):
            # (a way out of a loop that leaves the enclosing try too: the short return
            # after that try, copied in; inside, it loads its value before the finally
            # body runs, so only where that body binds none of it)
            frame.run(self.instrs[pos:self.g.of_instr[pos].end])
            return None
        if ins is not None and ins.op == "POP_TOP" and isinstance(frame.top(), si.Iter) \
                and pos + 1 < len(self.instrs) and (
                    self.instrs[pos + 1].op == "JUMP"
                    and self.jump_kind(self.instrs[pos + 1].target, region.parent or region) == "break"
                    or skipped and self.jump_kind(pos + 1, region.parent or region) == "break"):
            # ``break`` out of a for loop from inside a try/with: drop the iterator, jump
            # (3.10, 3.12+: or run a copy of the short code after the loop; the end of the
            # body, whose exit copy is followed by the code after the try or with, never
            # drops the iterator)
            frame.pop_raw()
            self.jump_out("break", frame)
            return None
        if ins is not None and ins.op == "JUMP":
            kind = self.jump_kind(ins.target, region.parent or region)
            if kind in JUMP_KINDS:
                self.jump_out(kind, frame)
                return None
            pos = ins.target
        if region.exits is not None:
            if region.frame is not None and frame is not region.frame and region.depth is not None \
                    and any(si.is_expr(v) for v in frame.stack[region.depth:]):
                # an arm leaves the body with a value it computed, which the exits, positions
                # alone, lose (3.11+: ``return b`` in a try body whose finally body returns
                # another value through a with's exit, that copy taken for the code after
                # the try: the value's evaluation was lost); the body's own frame is
                # matched with the stack the try found (``handler_regions.stack_after``)
                raise DecompilationError("a value computed inside waits at %d, where an arm of a try or with "
                                         "body leaves it" % pos)
            region.exits.append(pos)
        return None

    def _breaks_after_inner_copy(self, copied, pos, region):
        """Whether the code at ``pos``, past a copy of a finally body at ``copied`` that
        is not the body's last one, is a copy of the code after the loop."""
        return self._inner_copy(copied, region) and self.jump_kind(pos, region.parent or region) == "break"

    @staticmethod
    def _inner_copy(copied, region):
        """Whether the exit copy at ``copied`` is a finally body's copy that is not the
        last one (which ends the try's body)."""
        return hasattr(region.elide, "copied_again_after") and region.elide.copied_again_after(copied)

    def return_through_enclosing(self, pos, frame, region, copied=None):
        """``return``/``break``/``continue`` from nested with/finally bodies: each
        enclosing region's exit copy follows the inner one; if skipping them
        reaches the return or the loop jump, emit it.  A ``return`` runs the copies
        where it is; a jump to them (3.10+: to the copy that ends the function with
        its implicit return, which 3.10 gives each way out of the try) is the end of
        a body or clause that goes on after the statement.  ``copied``: where the
        region's own exit copy, already skipped, began; a copied return that loads its
        value after the copies is written where it is only if they bind none of it."""
        saved_stack, saved_out = list(frame.stack), len(frame.out)
        jumped = pos < len(self.instrs) and self.instrs[pos].op == "JUMP"
        skipped = [] if copied is None else [(copied, pos)]   # the copies run on the way, (start, end)
        outer, inner_blocks = region.parent, region.blocks
        while outer is not None:
            pos = self._drop_iterators(pos, frame)
            if outer.elide is not None and outer.blocks is not inner_blocks:
                inner_blocks = outer.blocks
                after = outer.elide(self, pos, frame)
                if after == handler_regions.ENDS and frame.stack and si.is_expr(frame.top()):
                    # a value computed inside (a ``return``'s) that a finally body that never
                    # completes drops: written as the clause's end, its evaluation would be
                    # lost (3.12+: ``except: return b``, b undefined, under ``finally: raise``)
                    raise DecompilationError("a value waits at %d on a copy of a finally body that never "
                                             "completes" % pos)
                if after is None or after == pos or after == handler_regions.ENDS:
                    break
                skipped.append((self._past_jumps(pos), after))
                pos = after
                tail = self._constant_return(pos, frame)
                if tail and jumped:
                    break
                if tail:
                    self._run_after_exit(tail, frame)  # ``return`` (of a value loaded before or after the copies)
                    return True
                if getattr(outer.elide, "keeps_order", False) and self.return_tail(pos, outer) \
                        and not any(self._copy_binds_what_it_loads(start, end, pos) for start, end in skipped):
                    # the copies ran no code (an except clause's end): 3.13 copied the
                    # ``return member`` after the try into a ``break`` path.  (Not past a
                    # finally body's copy that binds what it loads, then a with's exit:
                    # 3.10's way out of a try body ending in a loop, ``return b`` after the
                    # with, was written in the try body, its value read before the finally)
                    frame.run(self.instrs[pos:self.g.of_instr[pos].end])
                    return True
                ins = self.instrs[pos] if pos < len(self.instrs) else None
                if ins is not None and ins.op == "JUMP":
                    around = outer.parent or outer
                    kind = self.jump_kind(ins.target, around)
                    if kind == "stop" and around.loop is not None and ins.target == around.loop.header.start:
                        kind = "continue"  # the loop body's end is its header: from inside, a continue
                    # (out of nested with/finally in a loop; only the loop the statement is
                    # written in: a way out that left it first, dropping its iterator, is
                    # none of the jumps of the loop around it)
                    if kind in ("break", "continue") and around.loop is region.loop:
                        self.jump_out(kind, frame)
                        return True
                if ins is not None and ins.op == "POP_TOP" and isinstance(frame.top(), si.Iter) \
                        and pos + 1 < len(self.instrs):
                    around = outer.parent or outer
                    if around.loop is region.loop and self.jump_kind(pos + 1, around) == "break":
                        # (3.12+: past the finally copy, the loop's iterator dropped, then a
                        # copy of the short code after the loop: a ``break`` from a try or
                        # except clause inside the try/finally body, the end of a clause
                        # whose finally body is only ``break`` among them)
                        frame.pop_raw()
                        self.jump_out("break", frame)
                        return True
            outer = outer.parent
        frame.stack[:] = saved_stack
        del frame.out[saved_out:]
        return False

    def _drop_iterators(self, pos, frame):
        """Past the code at ``pos`` that drops the iterators of the for loops a ``return``
        leaves (``POP_TOP``, or ``SWAP 2; POP_TOP`` under a value loaded before), popped
        from ``frame``."""
        while pos < len(self.instrs):
            if self.instrs[pos].op == "POP_TOP" and isinstance(frame.top(), si.Iter):
                frame.pop_raw()
                pos += 1
            elif [i.op for i in self.instrs[pos:pos + 2]] == ["SWAP", "POP_TOP"] and self.instrs[pos].argval == 2 \
                    and len(frame.stack) >= 2 and isinstance(frame.stack[-2], si.Iter) and si.is_expr(frame.top()):
                frame.stack = frame.stack[:-2] + frame.stack[-1:]   # (a new list: the old may be saved)
                pos += 2
            else:
                return pos
        return pos

    def _constant_return(self, pos, frame=None):
        """``[LOAD_CONST] RETURN_VALUE`` at ``pos`` as a list, else None (a constant
        return value is loaded after the exit copies; others before).

        With ``frame``, a return inside for loops first drops their iterators
        from under the value (``SWAP 2; POP_TOP``); they are popped from ``frame``.
        """
        iterators = 0
        while (frame is not None and [i.op for i in self.instrs[pos:pos + 2]] == ["SWAP", "POP_TOP"]
               and self.instrs[pos].argval == 2 and len(frame.stack) >= 2 + iterators
               and isinstance(frame.stack[-2 - iterators], si.Iter)):
            iterators += 1
            pos += 2
        run = self.instrs[pos:pos + 2]
        if not (run and run[0].op == "RETURN_VALUE") and not (
                len(run) == 2 and run[0].op == "LOAD_CONST" and run[1].op == "RETURN_VALUE"):
            return None
        for _ in range(iterators):  # a new list: the old one may be a branch's saved stack
            frame.stack = frame.stack[:-2] + frame.stack[-1:]
        return run[:1] if run[0].op == "RETURN_VALUE" else run

    @staticmethod
    def _run_after_exit(tail, frame):
        """Run the return ``tail`` found after exit copies; a constant it loads there is
        noted (``after_exit``): the implicit return, if the statement ends the function."""
        frame.run(tail)
        if len(tail) == 2 and frame.out and isinstance(frame.out[-1], ast.Return):
            frame.notes.after_exit.set(frame.out[-1])

    def _written_after(self, tail, start, end):
        """Whether the return ``tail`` is on a line after every line of the exit copy
        from ``start`` to ``end``: the code after the try (3.12+ copy it into each exit),
        not a ``return`` in its body."""
        lines = [ins.line for ins in self.instrs[start:end] if ins.line is not None]
        return bool(lines) and tail[0].line is not None and tail[0].line > max(lines)

    def _before_handler(self, pos, region):
        """Whether the line of ``pos`` comes before that of the region's handler."""
        handler = region.handler
        at = self.instrs[handler[0] + 1] if handler and handler[0] + 1 < len(self.instrs) else None
        return at is not None and at.line is not None and self.instrs[pos].line is not None \
            and self.instrs[pos].line < at.line

    def _one_condition(self, blocks):
        """Whether ``blocks`` are among the consecutive tests of one short-circuit
        condition (``if a or (b and c): return``, the test of ``b`` jumping elsewhere):
        each block from the first to the last ends in a conditional jump and falls
        through to the next."""
        blocks = sorted(blocks, key=lambda b: b.start)
        run, pos = [], blocks[0].start
        while pos < blocks[-1].end:
            run.append(self.g.of_instr[pos])
            pos = run[-1].end
        return all(self.instrs[b.end - 1].op in CONDITIONAL for b in run)

    @staticmethod
    def _all_inside(blocks, region):
        """Whether ``blocks`` all lie in the region's blocks (a try body: ``if a: x()``
        then ``return`` in it, the return outside the try's range)."""
        return region.blocks is not None and all(b in region.blocks for b in blocks)

    _SAFE_TAIL = ("POP_TOP", "LOAD_FAST", "LOAD_CONST", "RETURN_VALUE")

    def return_tail(self, pos, region):
        """Whether ``pos`` starts a block reached from one place (or from the tests of one
        condition: ``if a or b: return``, written before the region's handler, not the
        code after the try that 3.10 copies to its end) that only returns."""
        block = self.g.of_instr[pos] if pos < len(self.instrs) else None
        if block is None or not block.preds or (len(block.preds) > 1 and not (
                (self._one_condition(block.preds) or self._all_inside(block.preds, region))
                and self._before_handler(pos, region))):
            return False
        tail = self.instrs[pos:block.end]
        return tail[-1].op == "RETURN_VALUE" and all(i.op in self._SAFE_TAIL for i in tail) \
            and not any(i.op == "LOAD_FAST" and i.argval in self.ctx.may_be_unbound for i in tail)

    def after_statement(self, pos, region):
        """Whether ``pos`` starts a :meth:`return_tail` that only loads a local and
        returns it: code after the statement (a ``return`` in the clause, with or loop
        loads its value first; only a constant it loads after ending them)."""
        return self.return_tail(pos, region) and self._returns_a_local(pos)

    def _return_after_try(self, pos, region):
        """Whether ``pos``, out of a try body's protected range, starts a :meth:`return_tail`
        that loads a local and returns it, which a ``return`` in the body loads before its
        range ends (see :data:`.facts.TRY_RANGE_ENDS_IN_AN_INSTRUCTION`): the ``return``
        after the try, which 3.10 copies to the body's end."""
        return facts.TRY_RANGE_ENDS_IN_AN_INSTRUCTION and region.handler is not None \
            and region.exits is not None and region.loop is None \
            and self.instrs[pos].op == "LOAD_FAST" and self.after_statement(pos, region)

    def _loads_what_the_copy_keeps(self, start, pos):
        """Whether the block from ``pos`` only loads locals that the exit copy from
        ``start`` to ``pos`` does not bind, and returns: loaded before the copy runs, the
        value is the same."""
        return self._returns_a_local(pos) and not self._copy_binds_what_it_loads(start, pos)

    def _copy_binds_what_it_loads(self, start, end, pos=None):
        """Whether the code from ``start`` to ``end`` binds a local that the block from
        ``pos`` (``end`` when not given) loads."""
        pos = end if pos is None else pos
        loaded = {ins.argval for ins in self.instrs[pos:self.g.of_instr[pos].end] if ins.op == "LOAD_FAST"}
        return any(ins.op in ("STORE_FAST", "DELETE_FAST") and ins.argval in loaded for ins in self.instrs[start:end])

    def _past_jumps(self, pos):
        """Where the ``JUMP`` instructions from ``pos`` on lead (``pos`` itself where
        none is)."""
        for _ in range(16):
            if pos >= len(self.instrs) or self.instrs[pos].op != "JUMP":
                break
            pos = self.instrs[pos].target
        return pos

    def returns_a_bound_local(self, pos):
        """Whether the block from ``pos`` only loads a local that is bound wherever it runs
        and returns it: loaded before a with's ``__exit__`` (which cannot rebind it), or
        after, the value is the same, and loading it cannot raise."""
        block = self.g.of_instr[pos] if pos < len(self.instrs) else None
        return block is not None and self.instrs[block.end - 1].op == "RETURN_VALUE" and self._returns_a_local(pos) \
            and not any(ins.op == "LOAD_FAST" and ins.argval in self.ctx.may_be_unbound
                        for ins in self.instrs[pos:block.end])

    def _returns_a_local(self, pos):
        """Whether the block from ``pos`` only loads locals and returns."""
        return all(ins.op in ("LOAD_FAST", "RETURN_VALUE") for ins in self.instrs[pos:self.g.of_instr[pos].end])
