"""Questions about the layout of the graph that the structurer asks before it
turns a branch into statements: where the arms of an ``if`` go on, which code a
jump leaps over, whether a path only returns or raises, where two arms meet.

A mixin of :class:`~unveil.structure.structurer.Structurer`: each query reads
its graph (``self.g``), its instructions (``self.instrs``) and the region it
structures, and changes nothing."""
from ..bytecode.opcodes import EXITS


class Layout:
    """The structurer's queries of the graph's layout (see the module's docstring)."""

    def _only_exits(self, pos, other, region):
        """Whether every way on from ``pos`` returns or raises, never reaching ``other``,
        the loop's start or what follows it, or ``region``'s stop, and entering no loop
        and no try (whose handler could go on)."""
        loop = region.loop
        avoid = {self.g.of_instr[other], loop.header, loop.follow}
        if region.stop is not None and region.stop < len(self.instrs):
            avoid.add(self.g.of_instr[region.stop])
        first = self.g.of_instr[pos]
        todo, seen = [first], set()
        while todo:
            b = todo.pop()
            if b in seen:
                continue
            seen.add(b)
            if b in avoid or b in self.g.loops or b.handler != first.handler or len(seen) > 64:
                return False
            if not b.succs and self.instrs[b.end - 1].op not in EXITS:
                return False
            todo.extend(b.succs)
        return True

    def jumped_over(self, st, region):
        """Where an ``if``/``else`` goes on whose else arm never does (it returns or
        raises): the target of the jump that ends the first arm, over the second, when
        no code of the two arms goes anywhere else but by a ``continue`` or ``break``
        (and the target is not past the stop of a region that ends between them).  (Its arms do not meet: without
        it, the first arm would take the code after the if as its own, and an
        ``elif`` arm going on too a copy of it.)"""
        first, second = sorted((st.t, st.e))
        jump = self.instrs[second - 1] if first < second else None
        if jump is not None and jump.op in EXITS:
            end = self._clause_jumps_over(first, second, region)
            return end if end is not None and self._kept_between(first, end, region) is not None else None
        if jump is None or jump.op != "JUMP":
            return None
        if self._dead_jump_before(second):
            return self._else_end(first, second - 1, region)
        if jump.target <= second or jump.target >= len(self.instrs):
            return None
        end = jump.target
        if self.g.of_instr[end].start != end or self.jump_kind(end, region) not in (None, "stop") \
                or (region.stop is not None and first < region.stop < end):
            return None
        return end if self._kept_between(first, end, region, loop_jumps=True) is not None else None

    def _jumps_back_over(self, st, region):
        """The loop's start, when the first side of a branch ends the loop body with the
        jump back over the second side (an ``else`` arm that never comes back), a jump
        with no line of its own: the end of the body, not a ``continue`` statement."""
        if self._jump_back_before(st.t, region) and self.instrs[st.t - 1].line == self.instrs[st.t - 2].line:
            return region.stop
        return None

    def _continue_before(self, pos, region):
        """Whether a ``continue`` statement, a jump back to the loop's start on a line of
        its own, stands right before ``pos``."""
        return self._jump_back_before(pos, region) and self.instrs[pos - 1].line != self.instrs[pos - 2].line

    def _jump_back_before(self, pos, region):
        loop, jump = region.loop, self.instrs[pos - 1]
        return loop is not None and region.stop == loop.header.start and jump.op == "JUMP" \
            and jump.target == region.stop

    def _clause_jumps_over(self, first, second, region):
        """Where a first arm laid out from ``first`` up to ``second``, which never runs
        into ``second`` (its try body returns), goes on, when it goes on only through
        its except clauses, all to one place past ``second``: they jump over the second
        arm (``if a: try: return f() except E: pass`` / ``elif b: x()``; 3.12+ lay the
        clauses out last)."""
        blocks = list(self._laid_out(first, second))
        if region.blocks is not None and any(b not in region.blocks for b in blocks):
            return None
        found = self._own_clauses(blocks, region)
        if found is None:
            return None
        span = set(blocks) | set(found[0])
        outs = {x for b in blocks for x in b.succs if x not in span} | found[1]
        if len(outs) != 1:
            return None
        end = outs.pop().start
        if end <= second or self.jump_kind(end, region) not in (None, "stop") \
                or (region.stop is not None and first < region.stop < end):
            return None
        return end

    def _kept_between(self, start, end, region, loop_jumps=False):
        """The blocks laid out from ``start`` up to ``end``, if all are in the region and
        go nowhere but from ``start`` to ``end`` (both included), or with
        ``loop_jumps`` by a ``continue`` or ``break`` of the region's loop; else None."""
        blocks = []
        for b in self._laid_out(start, end):
            if (region.blocks is not None and b not in region.blocks) \
                    or any(not start <= x.start <= end and not (loop_jumps and self._loop_jump(x, region))
                           for x in b.succs):
                return None
            blocks.append(b)
        return blocks

    def _laid_out(self, start, end):
        """The blocks laid out from ``start`` up to ``end``, in order."""
        pos = start
        while pos < end:
            b = self.g.of_instr[pos]
            yield b
            pos = b.end

    def _if_else_between(self, start, end, region):
        """Whether the blocks laid out from ``start`` up to ``end`` can be an if/else
        over whose else clause a dead jump to ``end`` stayed: each goes nowhere but
        to a block between the two (both included) or out of the loop the region
        is in (a ``continue`` or a ``break``), and one outside the region (the dead
        jump, a handler's ``POP_EXCEPT`` before it returns or continues) goes only
        out of it."""
        for b in self._laid_out(start, end):
            leaves = [x for x in b.succs if not start <= x.start <= end]
            if not all(self._loop_jump(x, region) for x in leaves) \
                    or (region.blocks is not None and b not in region.blocks and b.preds
                        and len(leaves) != len(b.succs)):
                return False
        return True

    def _loop_jump(self, block, region):
        """Whether going to ``block`` is a ``continue`` or a ``break`` of the region's loop."""
        loop = region.loop
        return loop is not None and (block is loop.header or self.jump_kind(block.start, region) in ("continue", "break"))

    def body_runs_into_target(self, st, region):
        """Where an ``if`` with no else goes on when no post-dominator says so (its body
        returns on some paths, and so does the code after it): the test's jump target,
        when the body, laid out between the test and the target, goes nowhere else and
        runs into it on some path.  (Without it, the body would take the code after the
        ``if`` as its own, and the code would be written twice: ``if a: if b: return 1``
        then ``return 3``.)"""
        body, target = sorted((st.t, st.e))
        if region.blocks is not None and (self._constant_return(target) is not None
                                          or self.g.of_instr[target] not in region.blocks):
            return None   # the end of a try body or except clause: how it is left is the try's
        if body == target or target >= len(self.instrs) or self.g.of_instr[target].start != target \
                or self.jump_kind(target, region) not in (None, "stop"):
            return None
        # the body may ``continue`` or ``break`` on the way (``if a: if b: return`` /
        # ``if c: continue`` / ``x()`` in a loop), and go on through except clauses
        # laid out last
        blocks = self._kept_between(body, target, region, loop_jumps=True)
        if blocks is not None:
            clauses = self._own_clauses(blocks, region)
            if clauses is not None and all(x.start == target or self._loop_jump(x, region) for x in clauses[1]):
                blocks = blocks + clauses[0]
        reaches = blocks is not None and any(x.start == target for b in blocks for x in b.succs)
        if reaches and not (region.stop is not None and body < region.stop < target):
            return target   # (a loop body's stop is its header, laid out before it)
        return target if self._dead_jump_to(body, target, region) else None

    def _owners(self):
        """Each handler block and the blocks it covers."""
        if self._covered_by is None:
            self._covered_by = {}
            for b in self.g.blocks:
                h = self.g.handler_block(b)
                if h is not None:
                    self._covered_by.setdefault(h, []).append(b)
        return self._covered_by

    def _own_clauses(self, blocks, region):
        """The blocks of the except clauses of the tries whose bodies lie among
        ``blocks``, laid out past them (3.12+ lay handlers out last), and the blocks
        they go to that other code goes to too; None when a clause's try covers code
        outside ``blocks`` (a try around the ``if``) or a clause leaves the region.
        (``if c: try: return f() except E: pass`` then the code after the if, which
        the clause's end jumps back to.)"""
        inside = set(blocks)
        last = max(b.start for b in blocks)
        owners = self._owners()
        clauses = {h for h in (self.g.handler_block(b) for b in blocks)
                   if h is not None and h not in inside and h.start > last
                   and all(b in inside or b not in self.g.idom for b in owners[h])}
        if not clauses:
            return [], set()
        grown = True
        while grown:
            grown = False
            for c in list(clauses):
                hb = self.g.handler_block(c)
                if hb is not None and hb not in clauses and hb.start > last \
                        and all(b in inside or b in clauses or b not in self.g.idom for b in owners[hb]):
                    clauses.add(hb)    # the clause's own cleanup, not a try's around the if
                    grown = True
                for x in c.succs:
                    if x not in inside and x not in clauses and x.start > last \
                            and all(p in inside or p in clauses for p in x.preds):
                        clauses.add(x)
                        grown = True
            if len(clauses) > 64:
                return None
        covered = inside | clauses
        if (region.blocks is not None and not clauses <= set(region.blocks)) \
                or any(b not in covered and b in self.g.idom for h in clauses for b in owners.get(h, ())):
            return None
        outs = {x for c in clauses for x in c.succs if x not in covered}
        return sorted(clauses, key=lambda b: b.start), outs

    def _arms_meet_at_the_bottom(self, st, region):
        """Where the arms of an if/else ending a loop body meet when another arm of it
        leaves the loop (``if a: x() / elif b: y() / else: break``): the bottom of the
        body, the jump back to the loop's start (3.11+: the copy of a while's test) that
        the first arm jumps forward to, over the others.  (A ``continue`` jumps back
        itself; without it, the first arm would end in one.)"""
        loop = region.loop
        first, second = sorted((st.t, st.e))
        if loop is None or region.stop != loop.header.start or not first < second:
            return None
        jump = self.instrs[second - 1]
        bottom = jump.target if jump.op == "JUMP" else None
        if bottom is None or bottom <= second or bottom >= len(self.instrs) \
                or self.g.of_instr[bottom].start != bottom or self.instrs[bottom].op != "JUMP" \
                or self.through_jumps(bottom) != loop.header.start:
            return None
        return bottom if self._kept_between(first, bottom, region, loop_jumps=True) is not None else None

    def _arms_leave_together(self, st, region):
        """Where both arms of an if in a loop meet when some of their paths ``continue``
        or ``break`` (or return or raise), and all others go to one place: the
        region's stop, or, for an if ending a try body, the loop body's bottom (a jump
        back to its start) that the body leaves to.  An if/else, not ``if c: x();
        continue`` (3.11+: a ``continue`` jumps back itself, an arm's end jumps forward
        to where the arms meet, over the other arm)."""
        loop = region.loop
        if loop is None:
            return None
        if region.stop is not None and region.stop != loop.header.start and region.stop < len(self.instrs):
            goal = self.g.of_instr[region.stop]
            if goal.start != region.stop:
                return None
        elif region.blocks is not None and region.stop is None and loop.header not in region.blocks:
            goal = None   # (a try body that starts the loop body leaves to its start: that exit is its own)
        else:
            return None
        outs = set()
        for pos in (st.t, st.e):
            if pos >= len(self.instrs):
                return None
            todo, seen, leaves = [self.g.of_instr[pos]], set(), False
            while todo:
                b = todo.pop()
                if b in seen:
                    continue
                seen.add(b)
                if b is not goal and (b is loop.header or self.jump_kind(b.start, region) == "break"
                                      or (not b.succs and self.instrs[b.end - 1].op in EXITS)):
                    continue   # a ``continue``, ``break``, return or raise on the way
                if b is goal or (region.blocks is not None and b not in region.blocks) or b not in loop.body:
                    outs.add(b)
                    leaves = True
                elif len(seen) > 64:
                    return None
                else:
                    todo.extend(b.succs)
            if not leaves:
                return None   # this arm never goes on: it returns or raises
        if len(outs) != 1:
            return None
        out = outs.pop()
        if goal is not None:
            return goal.start if out is goal else None
        if out.start <= max(st.t, st.e) or self.instrs[out.start].op != "JUMP" \
                or self.through_jumps(out.start) != loop.header.start:
            return None
        return out.start

    def _jumps_over_to_the_bottom(self, st, region, brk):
        """The bottom of the loop body (the region's stop, or a jump back to the loop's
        start), when the side the test falls into, laid out before the other, ``brk``
        (a ``break`` or ``continue`` just before the bottom), ends in a forward jump
        there over it, and goes nowhere else but out of the loop."""
        loop, jump = region.loop, self.instrs[brk - 1]
        if loop is None or jump.op != "JUMP" or jump.target <= brk or jump.target >= len(self.instrs) \
                or self.g.of_instr[brk].start != brk:
            return None
        bottom = jump.target
        if bottom != region.stop and not (region.stop == loop.header.start and self.instrs[bottom].op == "JUMP"
                                          and self.g.of_instr[bottom].start == bottom
                                          and self.through_jumps(bottom) == loop.header.start):
            return None
        if self.g.of_instr[brk].end != bottom:
            return None   # the other side is one block, laid out right before the bottom
        return bottom if self._kept_between(st.e, bottom, region, loop_jumps=True) is not None else None

    def _dead_jump_to(self, start, end, region):
        """Whether a dead jump (3.8, 3.9: over an else clause) laid out from ``start``
        goes to ``end``, the code between being an if/else that goes nowhere else
        (but out of the loop the region is in): an if/else ending where the if
        around it does, ``if a: if b: continue; else: c()`` then the code after."""
        for b in self._laid_out(start, end):
            if b.start != start and self._dead_jump_before(b.end) and self.instrs[b.start].target == end:
                return self._else_end(start, b.start, region) == end
        return False

    def laid_out_before_bottom(self, pos, bottom, region):
        """Whether the code from ``pos`` up to ``bottom``, the last block of the loop's
        body (its jump back), is an arm of an ``if`` that ends the body: it only goes on
        inside itself, to the bottom, or out of the loop (``if x: ...; break`` at the end
        of a for body, 3.10-3.11, where the test jumps to the bottom, not the header).
        Else the test would read ``if not x: continue``."""
        loop = region.loop
        last = max(loop.body, key=lambda b: b.start)
        if pos >= bottom or last.start != bottom or region.blocks is not None:
            return False
        return not any(not pos <= x.start <= bottom and x in loop.body and x is not loop.header
                       for b in self._laid_out(pos, bottom) for x in b.succs)

    def flows_into(self, pos, target, region):
        """Whether every way on from ``pos`` reaches ``target``, staying in ``region``
        (the rest of a try body running into its end, in a loop body)."""
        goal = self.g.of_instr[target]
        todo, seen = [self.g.of_instr[pos]], set()
        while todo:
            b = todo.pop()
            if b is goal or b in seen:
                continue
            seen.add(b)
            if not b.succs or len(seen) > 64 or (region.loop is not None and b is region.loop.header) \
                    or (region.blocks is not None and b not in region.blocks):
                return False
            todo.extend(b.succs)
        return True

    def arms_meet(self, t, e, region):
        """Where two one-block arms both go next, when nothing else goes there
        (``raise E(a if c else b)`` in a loop: the raise post-dominates nothing)."""
        blocks = [self.g.of_instr[pos] if pos < len(self.instrs) else None for pos in (t, e)]
        if None in blocks or any(b.start != pos for b, pos in zip(blocks, (t, e))):
            return None
        nexts = {b.succs[0] if len(b.succs) == 1 else None for b in blocks}
        if len(nexts) != 1:
            return None
        meet = nexts.pop()
        if (meet is None or set(meet.preds) != set(blocks) or meet in self.g.loops
                or (region.blocks is not None and meet not in region.blocks)
                or (region.loop is not None and meet not in region.loop.body and meet.succs)):
            return None
        return meet.start
