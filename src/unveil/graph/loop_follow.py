"""Where a natural loop goes on (its follow): the block its ``break``s reach, told
apart from the other ways out of the loop that the compiler lays out past it (returns,
raises, except clauses' ends, the copies of finally bodies and with exits that a way
out of a try or with runs first)."""
from ..bytecode.opcodes import CONDITIONAL, JUMPS, NO_NEXT
from .blocks import past_clause_ends, past_pop_except, same_outcome, same_target


class LoopFollows:
    """The follow rules of :class:`~unveil.graph.cfg.Graph`, mixed into it: ``self`` is
    the graph (its instructions, blocks and loops)."""

    def _loop_follow(self, loop, loops):
        """The block where ``loop`` goes on, or None.  Never a copy of the finally body of
        a try in the loop that a ``break`` or ``return`` runs on its way out (3.10, 3.12+
        copy the code after the loop in after it too): written after the loop, the copy
        would run twice; with no follow, the way out is written inside the try."""
        follow = self._loop_follow_found(loop, loops)
        if follow is not None and self.past_finally_copy(follow, loop) is not None:
            return None
        return follow

    def _loop_follow_found(self, loop, loops):
        header_last = self.instrs[loop.header.end - 1]
        if header_last.op == "FOR_ITER":
            return self.block_at.get(header_last.target)
        nested = set()
        for other in loops.values():
            if other is not loop and other.header in loop.body:
                nested |= other.body
        exits = []
        for b in sorted(loop.body, key=lambda x: x.start):
            inner_for = self.instrs[b.end - 1].op == "FOR_ITER"
            for s in b.succs:
                # a handler's re-raise is exception machinery, not where the loop goes on;
                # the body of a for loop that never loops back (it returns) is inside it,
                # and so is a return or raise in a nested loop (no break leaves two loops),
                # and a nested for's else clause that only returns or raises (``else: if n:
                # return``)
                if s not in loop.body and s not in exits and self.instrs[s.end - 1].op != "RERAISE" \
                        and not (inner_for and s.start == b.end) and not (b in nested and not s.succs) \
                        and not (inner_for and b in nested and s.start == self.instrs[b.end - 1].target
                                 and self.only_ends(s, loop)):
                    exits.append(s)
        # so is code only nested loops go to that only returns or raises (``return a if c
        # else b`` in a for loop), when the loop has other ways out (a ``while True`` that
        # only such returns leave goes on at one of them)
        inner = [s for s in exits if all(p in nested for p in s.preds if p in loop.body) and self.only_ends(s, loop)]
        if inner and len(inner) < len(exits):
            exits = [s for s in exits if s not in inner]
        # code after the loop is in the same try as the code before it (the header's
        # own try may be one inside the loop), not in a handler's clause
        around = self._try_around(loop)
        # (the header of an enclosing loop may be in a try of its own: a ``break`` that
        # ends that loop's body goes straight back to its top)
        enclosing = {other.header for other in loops.values() if other is not loop and loop.header in other.body}
        # a loop whose test fails into the exit copy of the ``with`` (or the copy of the
        # finally body of the try) it is in ends the with's body: it goes on there,
        # outside the with's try, though another way out stays inside (an ``if`` arm
        # that runs code and returns: pdb.Pdb.default)
        outs = [s for s in loop.header.succs if s not in loop.body]
        # (not where a ``while True`` body's first ``if`` returns through that copy, when
        # another way out runs the copy and jumps on: ``with m: while True: if a: return 1
        # ... else: break``)
        if around is not None and len(outs) == 1 and outs[0].handler != around and (
                self._is_with_cleanup(around) and self.starts_with_exit_copy(outs[0])
                or self._past_copy_of(outs[0].start, {around[0]}) is not None) \
                and not (self.only_ends(outs[0], loop)
                         and any(self._exits_and_jumps_on(s) for s in exits if s is not outs[0])):
            return outs[0]
        # (``try: return x`` and ``except E: return x`` in the loop: the value leaves the
        # try or clause, then the return; not where the loop goes on, in whichever try it lies)
        # (nor where ``return W(x)`` in a with's loop goes on through the tail the
        # compiler's copies share, though the code after a loop its test leaves to may
        # return through that tail too: queue.Queue.get's ``while not self._qsize():``)
        exits = [s for s in exits if not self._returns_from_a_try(s, loop) and not self.returns_from_a_clause(s, loop)
                 and not (s not in outs and self._returns_through_a_shared_exit(s, loop))]
        same_try = [s for s in exits if s.handler == around or s in enclosing]
        # (a loop that ends its try's body and whose ways out in that try all raise
        # goes on where it leaves the try: ``try: while a: if c: raise E`` then
        # ``except E:``; its test fails past the try's range)
        # (code still in a try of the loop's body leaves nothing: ``if c: for ...: ... else:
        # break`` in a try/finally, whose way out, the finally copy, is laid out after it,
        # 3.12+)
        leaving = [s for s in exits if s not in same_try and not self._only_raises(s, loop)
                   and not self._in_a_try_of_the_body(s, loop, around)]
        if same_try and leaving and all(self._only_raises(s, loop) for s in same_try):
            same_try = leaving
        # (a loop that ends its try's body and whose ways out in that try run code and
        # then jump to where its test fails past the try's range goes on there: ``try:
        # while a: if c: x(); break``)
        elif same_try and len(outs) == 1 and outs[0] in leaving \
                and all(self._jumps_to(s, outs[0]) for s in same_try):
            same_try = outs
        # (the next except clause of a try in the loop is inside the loop, though only
        # its way out comes back: it runs under the same cleanup handler as the clauses
        # before it)
        exits = same_try or [s for s in exits if not self._in_a_try_of_the_body(s, loop, around)
                             or not s.handler[2]]
        # leaving a ``with`` inside the loop runs its exit copy first: the loop
        # goes on where that copy jumps, or nowhere if it returns.  (An exit copy
        # outside the try the loop runs in ends a ``with`` around the loop.)
        going_on = []
        for s in exits:
            if self.starts_with_exit_copy(s) and s.handler == loop.header.handler:
                last = self.instrs[s.end - 1]
                past = self._past_with_exit_copy(s.start)
                if last.op == "JUMP":
                    s = self.block_at.get(last.target)  # ``break`` out of a with: exit, then jump
                elif past is not None and len(outs) == 1 and same_outcome(self.instrs, past, outs[0].start):
                    # (3.12+: exit, then a copy of what the loop's test leaves to: in 3.13, the
                    # end of the clause the loop is in)
                    s = outs[0]
                else:
                    continue  # the with exit then the function's return
            elif (past := self.past_finally_copy(s, loop)) is not None:
                if past == s.end - 1 and self.instrs[s.end - 1].op == "JUMP":
                    s = self.block_at.get(self.instrs[s.end - 1].target)  # ``break`` out of a try's finally
                else:
                    # (3.12+: the finally body, then a copy of what the loop's test
                    # leaves to; or a copy of the short code after the loop, which loads
                    # a local after the copy, as no ``return`` in the try does, maybe
                    # after ending the clause the loop is in)
                    # (or where the paths of a branching body's copy meet, followed through
                    # their jumps, unless that returns a value loaded before: ``return x``)
                    at = self.block_at.get(past)
                    s = next((o for o in outs if same_outcome(self.instrs, past, o.start)),
                             at if at is not None and not self.returns_a_value_from_before(past) else s)
            if s is not None and s not in going_on and s not in loop.body:
                going_on.append(s)
        # ``try: return x`` in the loop: the return after the try's range is not where the loop goes on
        # and ``except E: return`` in the loop: the clause's end and the return are in it
        exits = [s for s in going_on if not self._returns_from_a_try(s, loop)
                 and not self.returns_from_a_clause(s, loop)]
        if not exits or self._returns_in_span(loop, exits):
            return self._follow_from_clauses(loop, around)
        if all(self.only_ends(s, loop) for s in exits):
            # ways out that raise or return are arms inside the loop: it goes on where its
            # except clauses leave it, if they do (inspect.Signature._bind; mpmath's
            # ``sqrtm``: ``except E: break`` and ``if c: return x`` in a try's finally)
            follow = self._follow_from_clauses(loop, around)
            if follow is not None:
                return follow
        # ways out that only drop a chained comparison's middle value or jump, all to
        # one place: that place (``while a == b == c`` at the bottom, 3.11+)
        # (3.12+ copy a return there into each: copies are one place)
        passed = [self.past_cleanup(s) for s in exits]
        if len(exits) > 1 and None not in passed and not any(p in loop.body for p in passed) \
                and all(same_target(self.instrs, p.start, passed[0].start) for p in passed):
            return max(passed, key=lambda p: p.start)
        # the way out the others lead to; else one that goes on (one that returns or
        # raises can be an arm inside the loop), else a return (3.12+ copy the one after
        # the loop; a raise is an arm laid out after it), else the last
        # ways out that end except clauses or jump, all to one place: that place (a
        # ``break`` after a try in the loop, and the end of a clause that did not continue)
        # (3.10 and 3.12+ copy a short tail into each: copies are one place)  Never past
        # the end of the clause the loop is in: 3.13 copies it into each ``break``, and
        # the loop goes on at it
        landings = sorted({past_clause_ends(self.instrs, s.start, within=around) for s in exits},
                          key=lambda p: p or 0)
        if len(exits) > 1 and None not in landings \
                and all(same_outcome(self.instrs, landings[0], other) for other in landings[1:]):
            landing = next((self.block_at[p] for p in reversed(landings) if p in self.block_at), None)
            if landing is not None and landing not in loop.body:
                return landing
        # ways out that run code and jump, all to one place outside the loop: that place
        # (``if a: x(); break`` twice, the breaks threaded on to an enclosing loop's end;
        # one, if the except clauses go on there too, past its jump: a clause's ``if c:
        # break`` that 3.11+ thread to the enclosing loop's test)
        # (ways out from which every path raises are arms inside the loop: ``else: c =
        # get(); if c is None: raise E; raise F`` among ``break``s, sre_parse._parse)
        # (one such way out and the loop's except clauses all going on at one place: a
        # ``break`` after code of its own in a try's else clause, and ``break``s in the
        # except clauses, inspect.Signature._bind)
        going = [s for s in exits if not self._only_raises(s, loop)]
        jumping = going or exits
        ends = {self.instrs[s.end - 1].target if self.instrs[s.end - 1].op == "JUMP" else None for s in jumping}
        if len(ends) == 1 and None not in ends:
            landing = self.block_at.get(ends.pop())
            if landing is not None and landing not in loop.body and (
                    len(jumping) > 1 or self._follow_from_clauses(loop, around) in (
                        landing, self.block_at.get(past_clause_ends(self.instrs, landing.start)))):
                return landing
        # ways out that go on after code of their own, all reaching one place outside the
        # loop: the nearest such place (a ``break`` and an ``if`` arm ending in ``break``
        # among ways out that raise, sre_parse._parse)
        landing = self._common_landing(going, loop, enclosing) if len(going) > 1 else None
        if landing is not None:
            return landing
        # (a return's value loaded inside a try, then its finally body copied outside it,
        # then the return, is one straight run: a return, though split in two blocks)
        # (of two ways out that jump on, the loop's test failing is where it goes on, not
        # the jump of a try's body to its else clause that returns: ``while True: if not
        # c(): break`` in a try, 3.8 and 3.9; of two that return, the later, whose code
        # runs before its return: contextlib's ``_fix_exception_context``, ``while 1:``
        # whose first test returns, 3.12+)
        best = max(exits, key=lambda s: (sum(1 for e in exits if self.reaches(e, s, loop)),
                                         bool(s.succs) and s in going and not self._straight_return(s),
                                         s in outs and bool(s.succs), self.instrs[s.end - 1].op == "RETURN_VALUE",
                                         s.start))
        return self._past_chain_cleanup(best)

    def _in_a_try_of_the_body(self, block, loop, around):
        """Whether ``block`` is in a try of ``loop``'s body (its handler, not that of the
        try around the loop, is one the body's blocks run under)."""
        handler = block.handler
        return handler is not None and handler != around and any(b.handler == handler for b in loop.body)

    def _try_around(self, loop):
        """The handler of the try the loop is in: the code before it is in that try, unless
        the loop begins the code, or begins the body of a try outside any other; then the
        try covers its back edges, when they all jump back from one try that is not the one
        the loop's body begins with (a ``continue`` in that try's body jumps back from
        inside it).  Dead code before the loop (a jump after a clause's raise) is none of it.
        A try with a finally body, or a with, whose body the loop begins, is around it when
        the loop jumps back only from inside it: from one inside the loop, a ``continue``
        runs the exit copy first, outside its range.  (Not so a try with except clauses:
        its ways on, copies of the code after it, lie outside its range, and the loop's
        follow rules read them from there.)"""
        if loop not in self._arounds:
            self._arounds[loop] = self._find_try_around(loop)
        return self._arounds[loop]

    def _find_try_around(self, loop):
        before = {p.handler for p in loop.header.preds if p not in loop.body and p in self.idom}
        back = {p.handler for p in loop.header.preds if p in loop.body}
        if not before or (before == {None} and len(back) == 1 and loop.header.handler not in back):
            before = back
        elif self._try_begun_by(loop) is not None and self._only_cleans_up(loop.header.handler):
            before = back
        return before.pop() if len(before) == 1 else loop.header.handler

    def _try_begun_by(self, loop):
        """The handler of the try whose body ``loop`` begins, if the loop jumps back only
        from inside that try, the code before the loop runs outside any, and the try's
        handler never comes back to the loop; else None.  (Such a try is around the
        loop, or one in it whose clauses all leave it.)"""
        handler = loop.header.handler
        if handler is None \
                or {p.handler for p in loop.header.preds if p in loop.body} != {handler} \
                or {p.handler for p in loop.header.preds if p not in loop.body and p in self.idom} != {None}:
            return None
        code = self._handler_code(handler)
        return handler if code is not None and loop.header not in code else None

    def _only_cleans_up(self, handler):
        """Whether ``handler`` is a finally body's or a with's: no code it runs tests
        the exception for an except clause."""
        code = self._handler_code(handler)
        return code is not None and not any(i.op in ("CHECK_EXC_MATCH", "CHECK_EG_MATCH")
                                            for b in code for i in self.instrs[b.start:b.end])

    def _handler_code(self, handler, limit=64):
        """The blocks that ``handler``'s code runs through by normal edges, or None when
        there is none or they are more than ``limit``."""
        if handler is None or handler[0] not in self.block_at:
            return None
        seen, todo = set(), [self.block_at[handler[0]]]
        while todo:
            b = todo.pop()
            if b in seen:
                continue
            if len(seen) >= limit:
                return None
            seen.add(b)
            todo.extend(b.succs)
        return seen

    def _returns_in_span(self, loop, exits):
        """Whether a loop without a test leaves only by returns that only a test in the loop
        falls into: ``while True: ... if c: return x`` (a ``break`` to a return after the loop
        jumps there, or, when the return is copied in, runs the ``break``'s ``NOP``
        first, 3.10+)."""
        last = self.instrs[loop.header.end - 1]
        if last.op in CONDITIONAL and (last.target not in self.block_at or self.block_at[last.target] in exits):
            return False   # a while test (an ``if`` first in the body falls into its return)
        # (a return from a try in the loop runs the finally body's copy first: outside the
        # try's range, a block of its own before the return's)
        return all(self._straight_return(s) and not self.copied_after(s)
                   and all(p in loop.body for p in s.preds)
                   and any(p.end == s.start and self.instrs[p.end - 1].op in CONDITIONAL for p in s.preds)
                   and (not self.instrs[s.start].after_nop or self.past_finally_copy(s, loop) is not None)
                   for s in exits)

    def _returns_a_local_at(self, pos):
        """Whether the block at ``pos`` loads a local and returns it, maybe after ending
        except clauses."""
        if pos not in self.block_at:
            return False
        pos = past_clause_ends(self.instrs, pos)
        return [i.op for i in self.instrs[pos:pos + 2]] == ["LOAD_FAST", "RETURN_VALUE"]

    def copied_after(self, block):
        """Whether ``block`` ends an except clause and then loads a local, or loads one
        outside the range of the try that the code entering it runs in: a copy of the
        code after the try (a ``return x`` in a clause or a try body loads ``x`` first,
        inside)."""
        if self.instrs[block.start].op == "POP_EXCEPT":
            return any(i.op == "LOAD_FAST" for i in self.instrs[past_pop_except(self.instrs, block.start):block.end])
        return self.instrs[block.start].op == "LOAD_FAST" \
            and all(p.handler is not None and p.handler != block.handler for p in block.preds)

    def _common_landing(self, ways, loop, enclosing, limit=256):
        """The block outside ``loop`` that every one of ``ways`` reaches (staying out of
        the loop, not past the header of a loop around it, within ``limit`` blocks
        each), nearest to the farthest of them (then first in the code), or None."""
        dists = []
        for w in ways:
            dist, todo = {w: 0}, [w]
            for x in todo:
                if len(dist) > limit:
                    return None
                if x in enclosing:
                    continue   # a ``continue`` of the loop around: not a place past this one
                for s in x.succs:
                    if s not in dist and s not in loop.body:
                        dist[s] = dist[x] + 1
                        todo.append(s)
            dists.append(dist)
        common = set(dists[0]).intersection(*dists[1:])
        if not common:
            return None
        return min(common, key=lambda b: (max(d[b] for d in dists), b.start))

    def _only_raises(self, block, loop):
        """Whether every path from ``block``, staying out of ``loop``, ends in a raise
        (within 64 blocks; a longer way is taken to go on)."""
        return self.only_ends(block, loop, ("RAISE_VARARGS", "RERAISE"))

    def only_ends(self, block, loop, ends=("RAISE_VARARGS", "RERAISE", "RETURN_VALUE"), limit=64):
        """Whether every path from ``block``, staying out of ``loop``, ends in one of
        ``ends`` (within ``limit`` blocks; a longer way is taken to go on)."""
        seen, todo = set(), [block]
        while todo:
            x = todo.pop()
            if x in seen:
                continue
            if x in loop.body or len(seen) >= limit:
                return False
            seen.add(x)
            if not x.succs and self.instrs[x.end - 1].op not in ends:
                return False
            todo.extend(x.succs)
        return True

    def _jumps_to(self, block, target):
        """Whether ``block`` ends in an unconditional jump to the block ``target``."""
        last = self.instrs[block.end - 1]
        return last.op == "JUMP" and last.target == target.start

    def _past_chain_cleanup(self, block):
        """Past ``block`` if it only drops the middle value of a chained comparison that
        failed (``while a < b < c`` in 3.11+: the break from the body is a return copy)."""
        ops = [i.op for i in self.instrs[block.start:block.end]]
        if ops[:1] != ["POP_TOP"] or block.preds == [] or any(
                self.instrs[p.end - 1].op not in CONDITIONAL or p.end - p.start < 2
                or self.instrs[p.end - 2].op != "COMPARE_OP" for p in block.preds):
            return block
        return self.past_cleanup(block)

    def _follow_from_clauses(self, loop, around):
        """Where a loop that only except clauses leave goes on (``os.walk``: ``break`` in an
        ``except StopIteration`` inside the loop's try): the one way out of the clauses'
        tries, past their ends, that goes on."""
        # (not a try the loop begins whose handler never comes back: around it, or one in
        # it whose clauses all leave it, and so not one whose ways out are the loop's)
        outer = {None, around, self._try_begun_by(loop)}
        inside = {b.handler[0] for b in loop.body if b.handler not in outer}
        todo = [self.block_at[t] for t in inside if t in self.block_at]
        seen, outs = set(), []
        while todo:
            b = todo.pop()
            if b in seen:
                continue
            seen.add(b)
            if b in loop.body and not (b.handler not in outer and b.handler[0] in inside):
                continue   # (a clause whose other arm goes back to the loop is in its body: past it)
            if b.handler not in outer and b.handler[0] not in inside:
                inside.add(b.handler[0])
                todo.append(self.block_at[b.handler[0]])
            if b.handler in outer:
                outs.append(b)
                continue
            todo.extend(b.succs)
        # (a clause's ``break`` jumps to the code after the loop, which may return:
        # ``except StopIteration: break`` twice, then ``return out``, inspect's _bind;
        # not the clause of a try around the loop's back edge, around the whole loop)
        latched = any(b.handler not in outer and b.handler[0] in inside
                      for b in loop.body if loop.header in b.succs)
        ways = []
        for b in outs:
            if self._straight_return(b):
                continue   # a ``return`` in a clause: not where the loop goes on
            if self._in_a_for_body(b, loop):
                continue   # (the code after a try in a for loop that never loops back: inside that loop)
            pos = past_clause_ends(self.instrs, b.start, around)
            jumps = not latched and self.instrs[b.end - 1].op == "JUMP"
            # (a clause's ``break`` out of a try/finally runs the finally body's copy first)
            past = self._past_copy_of(pos, self._tries_in(loop)) if pos < len(self.instrs) else None
            if past is not None and past < len(self.instrs) and self.instrs[past].op == "JUMP":
                pos, jumps = self.instrs[past].target, not latched
            elif past is not None:
                pos = past
            b = self.of_instr[pos] if pos < len(self.instrs) else None
            if b is not None and b.handler == loop.header.handler and self.starts_with_exit_copy(b) \
                    and self.instrs[b.end - 1].op == "JUMP":
                # (the clause ends a with in the loop: its exit copy, then a ``break``; 3.8,
                # 3.11: the with's suppressing exit goes on in the loop)
                b = self.block_at.get(self.instrs[b.end - 1].target)
            if b is not None and (b.succs or jumps and not self._only_raises(b, loop)) and b not in loop.body \
                    and b not in ways:
                ways.append(b)
        return ways[0] if len(ways) == 1 else None

    def _in_a_for_body(self, block, loop):
        """Whether ``block`` lies in the body of a for loop in ``loop``: the block its
        ``FOR_ITER`` falls into dominates it (a for loop that never loops back, its body
        ending in ``break`` or ``return``, is no natural loop of its own)."""
        return any(self.instrs[f.end - 1].op == "FOR_ITER" and f.end in self.block_at
                   and self.dominates(self.block_at[f.end], block) for f in loop.body)

    def _returns_from_a_try(self, block, loop):
        """``block`` only drops what is under the value, runs the exit copies of the
        tries and withs the loop is in, and returns the value; it is entered from a try in
        ``loop`` whose range ends before the return.  The value may be computed inside
        that range (``block`` is then the return's first half, which the loop enters), and
        an iterator under it dropped between exit copies (``SWAP 2``, ``POP_TOP``)."""
        if self._value_then_leaves(block, loop):
            block = block.succs[0]
        elif not any(p in loop.body and p.handler is not None and p.handler != block.handler
                     and self.instrs[p.end - 1].op not in JUMPS for p in block.preds):
            return False
        end = self._straight_end(block)
        pos = self._past_exits(block.start, end, loop)
        ops = [i.op for i in self.instrs[pos:end]]
        return ops[-1:] == ["RETURN_VALUE"] and set(ops[:-1]) <= {"SWAP", "POP_TOP", "NOP"}

    def _past_exits(self, pos, end, loop):
        """Where the straight code from ``pos`` goes on (before ``end``) past what a
        ``return`` from ``loop`` runs on its way out: the exit copies of withs, the
        copies of the finally bodies of tries outside the loop, the iterators of for
        loops and the exceptions of clauses dropped from under the value."""
        return self._past_exit_code(pos, end, {b.handler[0] for b in self.blocks if b.handler and b not in loop.body})

    def _past_exit_code(self, pos, end, tries):
        """Where the straight code from ``pos`` goes on (before ``end``) past exit copies
        of withs, copies of the finally bodies of ``tries`` and drops from under a value."""
        while pos < end:
            after = self._past_with_exit_copy(pos) or self._past_copy_of(pos, tries) or self._past_drop(pos)
            if after is None:
                break
            pos = after
        return pos

    def _exits_and_jumps_on(self, block):
        """Whether ``block`` (past blocks that only jump) runs a with's exit copy and jumps
        on: a ``break`` out of a loop that ends the with's body."""
        for _ in range(4):
            ops = [i.op for i in self.instrs[block.start:block.end]]
            if ops != ["JUMP"] or len(block.succs) != 1:
                break
            block = block.succs[0]
        return self.starts_with_exit_copy(block) and self.instrs[block.end - 1].op == "JUMP"

    def _returns_through_a_shared_exit(self, block, loop, most=4):
        """Whether ``block`` computes a value under the handler of a with and goes on, through
        code that other such blocks share (the compiler's copies shared again), to move it
        under the exit, run the exit copy and return it: ``return None, W(x)`` twice in a
        ``with``'s ``while True`` (tomlkit's ``Parser._parse_item``)."""
        handler = block.handler
        for _ in range(most):
            if handler is None or len(block.succs) != 1 or block in loop.body:
                return False
            block = block.succs[0]
            if block.handler != handler:
                past = self._past_exit_call(block.start) if self.instrs[block.start].op == "SWAP" else None
                ops = [i.op for i in self.instrs[past:self._straight_end(block)]] if past is not None else []
                return ops == ["POP_TOP", "RETURN_VALUE"]
        return False

    def _value_then_leaves(self, block, loop):
        """Whether ``block``, entered only from ``loop`` under the handler of a try, only
        falls into code outside that try that nothing else enters: the first half of a
        ``return`` from the try's body, which computes the value inside its range."""
        succs = block.succs
        return block.handler is not None and len(succs) == 1 and succs[0].start == block.end and succs[0].preds == [block] \
            and succs[0].handler != block.handler and self.instrs[block.end - 1].op not in JUMPS \
            and bool(block.preds) and all(p in loop.body and p.handler == block.handler for p in block.preds)

    def _past_drop(self, pos):
        """Where the code at ``pos`` goes on past dropping what lies under a value to
        return, or None: a ``for`` loop's iterator (``SWAP 2``, ``POP_TOP``), or the
        exception of the clause the code is in (``SWAP 2``, ``POP_EXCEPT``, then the
        ``name = None; del name`` of ``except E as name``)."""
        ops = [(i.op, i.argval) for i in self.instrs[pos:pos + 2]]
        if ops == [("SWAP", 2), ("POP_TOP", None)]:
            return pos + 2
        if ops == [("SWAP", 2), ("POP_EXCEPT", None)]:
            return past_pop_except(self.instrs, pos + 1)
        return None

    def _past_with_exit_copy(self, pos):
        """Where the code at ``pos`` goes on past a ``with``'s exit call and the ``POP_TOP``
        of its result, or None."""
        after = self._past_exit_call(pos)
        if after is not None and after < len(self.instrs) and self.instrs[after].op == "POP_TOP":
            return after + 1
        return None

    def _past_exit_call(self, pos):
        """Where the code at ``pos`` goes on past a ``with``'s exit call (``None, None,
        None``, then the call; first, maybe, a value to return moved below the exit), or
        None."""
        start = pos + (self.instrs[pos].op == "SWAP" and self.instrs[pos].argval == 2)
        ops = [(i.op, i.argval) for i in self.instrs[start:start + 4]]
        if ops[:3] == [("LOAD_CONST", None)] * 3 and len(ops) == 4 and ops[3][0] == "CALL":
            return start + 4
        return None

    def returns_from_a_clause(self, block, loop):
        """``block`` ends an except clause (``POP_EXCEPT``, the ``name = None; del name``
        of ``except E as name``) and returns: a ``return`` in the clause, not where the
        loop goes on.  The value is computed in the clause and moved under the exception
        first (``SWAP 2``), or loaded after it is popped.  (Without a value computed
        first, the end of the clause the loop itself is in, reached from the loop's code
        under that clause's cleanup handler, is the loop's way on: 3.12+ copy the short
        code after the try there; so is what the loop's test leaves to.)"""
        start, end = block.start, self._straight_end(block)
        ends = [p for p in block.preds if p in loop.body]
        if self.instrs[start].op != "POP_EXCEPT" and ends and all(
                p.end == start and [i.op for i in self.instrs[p.start:p.end]] == ["POP_EXCEPT"] for p in ends):
            # (the clause's ``POP_EXCEPT`` a block of its own, under the handler of a try
            # around that clause's try in the loop, 3.12+: ``try: try: ... except: return
            # 't3'`` then ``except: ...``)
            own = self._clause_handlers(loop)
            return self.instrs[end - 1].op == "RETURN_VALUE" \
                and all(i.op in ("LOAD_CONST", "LOAD_FAST") for i in self.instrs[start:end - 1]) \
                and any(q.handler not in own for p in ends for q in p.preds if q in loop.body)
        moved = next((i for i in range(start, end - 1) if self.instrs[i].op == "SWAP"
                      and self.instrs[i].argval == 2 and self.instrs[i + 1].op == "POP_EXCEPT"), None)
        valued = moved is not None and (moved == start or loop.header not in block.preds)
        if valued:
            start = moved + 1
        if self.instrs[start].op != "POP_EXCEPT" or self.instrs[end - 1].op != "RETURN_VALUE":
            return False
        rest = self.instrs[self._past_exits(past_pop_except(self.instrs, start), end - 1, loop):end - 1]
        inside = [p for p in block.preds if p in loop.body]
        if not inside or not all(i.op in ("LOAD_CONST", "LOAD_FAST") for i in rest):
            return False
        if valued:
            return True
        own = self._clause_handlers(loop)
        return any(p.handler not in own for p in inside)

    def _clause_handlers(self, loop):
        """The handlers the code of the clause (or try body) the loop is in runs under:
        that of the try around the loop, and the one of ``except E as name`` that clears
        the name (``name = None; del name``, re-raise) and runs under it."""
        around = self._try_around(loop)
        own = {around}
        for b in loop.body:
            handler = b.handler
            if handler is None or handler in own or handler[0] not in self.block_at:
                continue
            ops = [(i.op, i.argval) for i in self.instrs[handler[0]:handler[0] + 4]]
            if len(ops) == 4 and ops[0] == ("LOAD_CONST", None) and ops[1][0] == "STORE_FAST" \
                    and ops[2] == ("DELETE_FAST", ops[1][1]) and ops[3][0] == "RERAISE" \
                    and self.block_at[handler[0]].handler == around:
                own.add(handler)
        return own

    def _straight_end(self, block):
        """Where the straight run of code from ``block`` ends: past the blocks it falls
        into that nothing else enters (split where only the try covering them changes:
        a ``return`` in a clause's nested try moves its value under the exception inside
        the clause's cleanup range, and pops the exception outside it)."""
        while len(block.succs) == 1 and block.succs[0].start == block.end and block.succs[0].preds == [block] \
                and self.instrs[block.end - 1].op not in JUMPS:
            block = block.succs[0]
        return block.end

    def past_finally_copy(self, block, loop):
        """Where ``block`` goes on past a copy of the finally body of a try in ``loop`` that
        it begins with (straight code, the same instructions as the handler's between its
        ``PUSH_EXC_INFO`` and its ``RERAISE 0``), or None: a ``break`` or ``return`` from
        the try's body runs the copy first."""
        # (the tries in the loop: none of them covers code outside it, and none is the
        # try whose body the loop is, all of it)
        return self._past_copy_of(block.start, self._tries_in(loop))

    def _tries_in(self, loop):
        """The handlers' starts of the tries in ``loop``: tries laid out in its span, and
        those around their handlers, that cover none of the code outside it but what only
        the loop reaches (an except clause that leaves by ``break`` or ``return`` is no
        block of the loop, and nor is the end of a try/finally body around it), and not
        the try the loop is in."""
        around = self._try_around(loop)
        first, last = min(b.start for b in loop.body), max(b.end for b in loop.body)
        tries = {b.handler[0] for b in self.blocks if b.handler and b.handler != around and first <= b.start < last}
        todo = list(tries)
        while todo:   # (a try around one of them covers its handler, or that one's cleanup)
            hb = self.block_at.get(todo.pop())
            if hb is not None and hb.handler and hb.handler != around and hb.handler[0] not in tries:
                tries.add(hb.handler[0])
                todo.append(hb.handler[0])
        # (dead code laid out in the loop counts for nothing: a nested try's clauses that a
        # ``return`` in its body leaves unreached, whose ends run under the try/finally
        # around them; dead code past it does, 3.13's ``CLEANUP_THROW`` of a ``yield from``
        # that is all of a try's body)
        return tries - {b.handler[0] for b in self.blocks if b.handler and b not in loop.body
                        and (b is loop.header or (not first <= b.start < last if b not in self.idom
                                                  else not self.dominates(loop.header, b)))}

    def _past_copy_of(self, pos, tries):
        """Where the code at ``pos`` goes on past a copy of the finally body of one of
        ``tries`` (their handlers' starts), or None."""
        for start in tries:
            if self.instrs[start].op != "PUSH_EXC_INFO":
                continue
            end = start + 1
            while end < len(self.instrs) and self.instrs[end].target is None and self.instrs[end].op not in NO_NEXT:
                end += 1
            ending = self.instrs[end] if end < len(self.instrs) else None
            size = end - start - 1
            if ending is not None and ending.op in CONDITIONAL and size:
                past = self._past_branching_copy(start, pos)
                if past is not None:
                    return past
                continue
            if ending is None or ending.op != "RERAISE" or ending.argval != 0 or not size \
                    or pos + size >= len(self.instrs):
                continue
            if all(a.same(b) for a, b in zip(self.instrs[start + 1:end], self.instrs[pos:pos + size])):
                return pos + size
        return None

    def _past_branching_copy(self, start, pos):
        """Where the code at ``pos`` goes on past a copy of the finally body whose handler
        begins at ``start``, a body that branches (``if c: x()``): both walked along every
        path, instruction for instruction, a jump on one side only followed (the compiler
        threads the copies' jumps differently), to where the handler's copy re-raises
        (``RERAISE 0`` under its own handler).  All paths must go on in one place (a jump
        to it counts); None otherwise, or if every path returns or raises."""
        instrs, own = self.instrs, self.instrs[start].handler
        pairs, exits, todo = {}, set(), [(start + 1, pos)]
        while todo:
            a, b = todo.pop()
            for _ in range(8):
                if a >= len(instrs) or b >= len(instrs) or (instrs[a].op == "JUMP") == (instrs[b].op == "JUMP"):
                    break
                a, b = (instrs[a].target, b) if instrs[a].op == "JUMP" else (a, instrs[b].target)
            if a >= len(instrs) or b >= len(instrs) or b == a or len(pairs) > 400:
                return None
            x, y = instrs[a], instrs[b]
            if x.op == "RERAISE" and x.argval == 0 and x.handler == own:
                exits.add(b)
                continue
            if a in pairs:
                if pairs[a] != b:
                    return None
                continue
            pairs[a] = b
            if not x.same_op(y) or (x.target is None) != (y.target is None) or y.handler == own \
                    or not self._nested_in(x.handler, own):
                return None
            if x.handler != own:
                # a try in the finally body: its clauses are copied too, and may go on
                if y.handler is None:
                    return None
                todo.append((x.handler[0], y.handler[0]))
            if x.target is not None:
                todo.append((x.target, y.target))
                if x.op != "JUMP":
                    todo.append((a + 1, b + 1))
            elif x.op not in NO_NEXT:
                todo.append((a + 1, b + 1))
        if len(exits) > 1:
            # (3.8-3.10 end the normal copy with a jump where the other paths go on)
            exits = {e for e in exits if not (instrs[e].op == "JUMP" and instrs[e].target in exits)}
        if not exits or any(not same_target(instrs, min(exits), e) for e in exits):
            return None
        return min(exits)

    def _nested_in(self, handler, own):
        """Whether ``handler`` is ``own`` or the handler of a try whose code runs under ``own``
        (its handler's chain of handlers reaches ``own``)."""
        return own in self.handlers_around(handler)

    def handlers_around(self, handler, limit=16):
        """``handler``, then the handler its own code runs under, and so on outwards (a
        try's handler, its clause's cleanup, the enclosing try's), as far as ``None``."""
        for _ in range(limit):
            yield handler
            block = self.block_at.get(handler[0]) if handler is not None else None
            if block is None:
                return
            handler = block.handler

    def returns_a_value_from_before(self, pos):
        """Whether the code at ``pos``, maybe past the exit copies of withs and the copies
        of finally bodies it leaves (and iterators dropped from under the value), is a
        bare ``RETURN_VALUE``: the second half of a ``return`` whose value was loaded
        before (in a clause or try it leaves), never code a ``break`` goes to."""
        pos = self._past_exit_code(pos, len(self.instrs), {b.handler[0] for b in self.blocks if b.handler})
        return pos < len(self.instrs) and self.instrs[pos].op == "RETURN_VALUE"

    def _straight_return(self, block):
        """Whether the straight run of code from ``block`` ends in a return."""
        return self.instrs[self._straight_end(block) - 1].op == "RETURN_VALUE"

    def past_cleanup(self, block):
        """The block after ``block`` if it only pops (a chained comparison's cleanup)
        and jumps or falls through there, else ``block``; None at the end."""
        ops = [i.op for i in self.instrs[block.start:block.end]]
        if ops in (["POP_TOP"], ["POP_TOP", "JUMP"], ["JUMP"]) and len(block.succs) == 1:
            return block.succs[0]
        return block

    def _is_with_cleanup(self, handler):
        """Whether ``handler`` is a ``with``'s cleanup (``PUSH_EXC_INFO``, ``WITH_EXCEPT_START``)."""
        ops = [i.op for i in self.instrs[handler[0]:handler[0] + 2]]
        return ops == ["PUSH_EXC_INFO", "WITH_EXCEPT_START"]

    def starts_with_exit_copy(self, block):
        """A terminal block that starts with a ``with`` exit call (``None, None, None``),
        after moving a value to return below the exit (``return x`` in the ``with``)."""
        return self._past_exit_call(block.start) is not None

    def reaches(self, a, b, loop=None):
        """Whether ``b`` is reachable from ``a`` by normal edges, staying out of ``loop``."""
        seen, todo = set(), [a]
        while todo:
            x = todo.pop()
            if x is b:
                return True
            if x in seen or (loop is not None and x in loop.body):
                continue
            seen.add(x)
            todo.extend(x.succs)
        return False
