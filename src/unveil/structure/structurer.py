"""From a control-flow graph to structured statements.

The structurer walks the graph from the entry, running straight-line code
through a :class:`~unveil.structure.frame.Frame` and turning each branch into an
``if``, each natural loop into a ``for``/``while``, and each exception-table
region into a ``try``/``with``.  Merge points are immediate post-dominators
within the current region (loop body, try body, handler, or the function).

A jump whose target cannot be given a structured form raises
:class:`~unveil.errors.DecompilationError`: wrong code is never emitted.
"""
import ast

from ..bytecode import facts
from ..bytecode.opcodes import CONDITIONAL, EXITS, NO_NEXT
from ..errors import DecompilationError
from ..graph.blocks import same_code, same_target
from ..graph.cfg import Loop
from ..graph.dominators import postdominators
from . import handler_regions
from . import match_statements
from . import trys
from . import stackitems as si
from .conditions import Branch, jump_condition
from .exits import JUMP_KINDS, Exits
from .frame import Frame
from .loops import structure_loop
from .layout import Layout
from .short_circuit import ShortCircuits, and_, or_
from .stack_branches import before_branch, emit_if, values_as_statements
from .stackitems import negate, same_stack

_EXIT = "exit"
#: what a block that only drops stack values or jumps on holds (see Structurer.through_cleanup)

class Region:
    """Where a sequence of statements lives: what ends it and what it may jump to."""

    def __init__(self, stop=None, loop=None, handler=None, blocks=None, elide=None,
                 exits=None, parent=None):
        self.stop = stop          # instruction index that ends the sequence naturally
        self.loop = loop          # innermost enclosing cfg.Loop (its break/continue targets)
        self.handler = handler    # effective exception handler of the region
        self.blocks = blocks      # set of blocks of a try body/handler, or None
        self.elide = elide        # exits: code copies to skip (finally bodies, with exits)
        self.exits = exits        # list collecting positions where the region is left
        self.parent = parent
        self.depth = None         # stack depth at a try body's entry (values above it flow out)
        self.within = blocks      # the blocks of the nearest try or with body, if any
        self.meets = False        # stop is where the arms of an enclosing if meet
        self.frame = None         # the frame of the try or with body whose exits it collects

    def child(self, **kw):
        r = Region(self.stop, self.loop, self.handler, self.blocks, self.elide, self.exits, self)
        r.depth, r.frame = self.depth, self.frame
        r.meets = self.meets and "stop" not in kw
        for k, v in kw.items():
            setattr(r, k, v)
        # (kept, not looked up through the parents: each arm of an elif chain is a region
        # inside the one before)
        r.within = r.blocks if r.blocks is not None else self.within
        return r


class Structurer(Exits, ShortCircuits, Layout):
    def __init__(self, ctx, graph):
        self.ctx = ctx
        self.g = graph
        self.instrs = graph.instrs
        self._pdom = {}
        self._covered_by = None
        self.steps = 0
        self.max_steps = 10000 + 50 * len(self.instrs)  # re-structuring is bounded, not exponential

    def body(self):
        frame = Frame(self.ctx)
        if self.g.entry is None:
            return []
        region = Region(handler=None)
        self.seq(0, frame, region)
        frame.flush_parallel()
        return frame.out

    # -- exception handlers ---------------------------------------------------
    def effective(self, handler):
        """The handler that matters: transparent cleanup handlers are looked through."""
        seen = 0
        while handler is not None and seen < 50:
            block = self.g.block_at.get(handler[0])
            if block is None or not handler_regions.is_transparent(self.instrs, block):
                return handler
            handler = block.handler
            seen += 1
        return handler

    # -- sequences --------------------------------------------------------------
    def seq(self, pos, frame, region, entering=None):
        """Structure from ``pos``; return where the sequence stops, or None if it cannot go on.

        An ``if``'s else arm is structured here, not inside the ``if`` (see
        :class:`_Descend`): an ``elif`` chain of a thousand arms nests no deeper in
        Python than one ``if``."""
        outer = []   # the sequences the else arms being structured came from
        while True:
            end = self._seq(pos, frame, region, entering)
            if isinstance(end, _Descend):
                outer.append((frame, region, end))
                pos, frame, region, entering = end.pos, end.frame, end.region, None
                continue
            if not outer:
                return end
            frame, region, arm = outer.pop()
            pos, entering = arm.finish(end), arm.entering

    def _seq(self, pos, frame, region, entering):
        """:meth:`seq` until it ends or descends into an else arm (a :class:`_Descend`)."""
        while pos is not None:
            self.steps += 1
            if self.steps > self.max_steps:
                raise DecompilationError("structuring does not terminate")
            if pos == region.stop and not (entering is not None and pos == entering.start):
                return pos
            if pos >= len(self.instrs):
                return None
            block = self.g.of_instr[pos]
            if region.blocks is not None and block not in region.blocks and block.start == pos:
                pos = self.leave(pos, frame, region)
                continue
            if region.blocks is None and block.start == pos and not _within(region, block):
                if self.goto(pos, frame, region) is None:
                    return None   # a break by a copy of the code after the loop
                # a loop inside a try or with body left by a ``return``: through the
                # enclosing exit copies, or not at all
                if self.return_through_enclosing(pos, frame, region):
                    return None
                # (past the iterators of the loops it leaves: a ``for`` in a try in a ``for``)
                tail = self._constant_return(self._drop_iterators(pos, frame), frame)
                if tail is None or region.elide is not None or any(r.elide is not None for r in _parents(region)):
                    raise DecompilationError("a loop leaves its enclosing try or with at %d" % pos)
                frame.run(tail)  # a constant returned past the end of a try with no exit copies
                return None
            if block.start == pos:
                if block in self.g.loops and block is not entering \
                        and not handler_regions.encloses_loop(self, block, self.g.loops[block], region):
                    if _inside(region, self.g.loops[block]):
                        raise DecompilationError("jump back into the loop at %d from inside it" % pos)
                    pos = self.loop(self.g.loops[block], frame, region)
                    continue
                entering = None
                eff = handler_regions.outermost(self, block.handler, region.handler)
                if eff is not None and eff != region.handler:
                    pos = self.try_(block, eff, frame, region)
                    if pos is not None:
                        pos = self.goto(pos, frame, region)
                    continue
            pos = self.block(pos, block, frame, region)
            if isinstance(pos, _Descend):
                pos.entering = entering
                return pos
        return None

    def block(self, pos, block, frame, region):
        heads = match_statements.find_heads(self.instrs, pos, block.end)
        if heads:
            done, after = self.match(heads, pos, block, frame, region)
            if done:
                return after
        last = self.instrs[block.end - 1]
        if last.op in CONDITIONAL:
            frame.run(self.instrs[pos:block.end - 1])
            return self.conditional(block, last, frame, region)
        if last.op == "JUMP":
            frame.run(self.instrs[pos:block.end - 1])
            return self.goto(last.target, frame, region)
        if last.op == "FOR_ITER" and pos == block.start:
            # a for loop whose body never loops back (it always returns or raises)
            loop = self.g.loops[block] = Loop(block, {block})
            loop.follow = self.g.block_at.get(last.target)
            return self.loop(loop, frame, region)
        if last.op == "FOR_ITER":
            raise DecompilationError("FOR_ITER outside a recognised loop at %d" % last.index)
        drop = self._break_copy(pos, block, region)
        if drop is not None:
            frame.run(self.instrs[pos:drop])
            if isinstance(frame.top(), si.Iter):
                # 3.10 and 3.12+ copy the short ``return`` after a for loop into the path
                # of a ``break``, after the iterator's ``POP_TOP``: it was a ``break``
                frame.pop_raw()
                self.jump_out("break", frame)
                return None
            pos = drop
        copy = self._nop_break_copy(pos, block, region)
        if copy is not None:
            # 3.12+ replace a ``break`` whose loop is followed by a short return by a
            # NOP on the break's line and a copy of that return
            frame.run(self.instrs[pos:copy])
            self.jump_out("break", frame)
            return None
        frame.run(self.instrs[pos:block.end])
        if last.op in EXITS:
            return None
        return self.goto(block.end, frame, region)

    def _break_copy(self, pos, block, region):
        """The ``POP_TOP`` in ``block`` (from ``pos``) that a copy of the code after the
        innermost loop follows (:meth:`after_statement`), or None."""
        loop = region.loop
        if loop is None or loop.follow is None:
            return None
        for drop in range(pos, block.end - 1):
            if self.instrs[drop].op == "POP_TOP" and self._returns_a_local(drop + 1) \
                    and same_code(self.instrs, drop + 1, loop.follow.start):
                return drop
        return None

    def _nop_break_copy(self, pos, block, region):
        """Where in ``block`` (from ``pos``) a copy of the short return after the
        innermost loop starts, right after a NOP of another line (the ``break``
        the copy replaced), or None."""
        loop = region.loop
        last = self.instrs[block.end - 1]
        if loop is None or loop.follow is None or last.op != "RETURN_VALUE":
            return None
        for start in range(max(pos, block.end - self._COPIED_RETURN), block.end):
            ins = self.instrs[start]
            if ins.after_nop \
                    and start != loop.follow.start and same_code(self.instrs, start, loop.follow.start):
                return start
        return None

    def _return_of_its_own(self, pos):
        """Whether the straight code from ``pos`` returns, with no NOP of another line
        before it: a ``return`` in the loop, not the copy of the return after the loop
        that 3.12+ put in place of a ``break`` (after a NOP on the break's line, or
        after the ``POP_EXCEPT`` ending the clause the break is in): a test falls into
        it, or jumps reach it."""
        ins = self.instrs[pos]
        block = self.g.of_instr[pos]
        if ins.after_nop or block.start == pos and self.g.copied_after(block):
            return False   # (a return in a clause or try loads its value inside it: a copy)
        before = self.instrs[pos - 1] if pos else None
        if before is None or before.op not in CONDITIONAL and before.op not in NO_NEXT \
                or before.line == ins.line:
            return False   # (on the test's line: the copy of the implicit return a jump got)
        for end in range(pos, min(len(self.instrs), pos + self._COPIED_RETURN)):
            op = self.instrs[end].op
            if op == "RETURN_VALUE":
                return True
            if op in NO_NEXT or op in CONDITIONAL:
                return False
        return False

    _COPIED_RETURN = 6   # the most canonical instructions of a return the compiler copies (4 raw ones)

    def jump_kind(self, target, region):
        loop = region.loop
        if target == region.stop:
            return "stop"
        if loop is not None:
            if target == loop.header.start:
                return "continue"
            if loop.follow is not None and target == loop.follow.start:
                return "break"
            if getattr(loop, "else_start", None) == target:
                return "else"
            final = self.through_jumps(target)
            if final == loop.header.start:
                return "continue"
            if loop.follow is not None and final == self.through_jumps(loop.follow.start):
                return "break"
            if loop.follow is not None and same_code(self.instrs, target, loop.follow.start) \
                    and not self._return_of_its_own(target):
                return "break"   # a copy of the code after the loop (3.13: a clause's end)
        return None

    def _same_line(self, a, b):
        a, b = self.through_jumps(a), self.through_jumps(b)
        return a < len(self.instrs) and b < len(self.instrs) and self.instrs[a].line == self.instrs[b].line

    def through_jumps(self, pos):
        """Where a chain of blocks holding only ``JUMP`` finally leads."""
        for _ in range(16):
            if pos is None or pos >= len(self.instrs):
                return pos
            ins = self.instrs[pos]
            if ins.op != "JUMP" or self.g.of_instr[pos].start != pos:
                return pos
            pos = ins.target
        return pos

    def jump_out(self, kind, frame):
        if any(si.is_expr(frame.stack[i]) for i in frame.owned()):
            # a value computed on the way, that the jump drops: the value of a ``return``
            # whose way out runs a finally body that never completes, which reads as a
            # ``break`` to the code after the loop (``return r``: its NameError was lost)
            raise DecompilationError("a %s leaves a value computed before it on the stack (in %s)"
                                     % ("continue" if kind == "continue" else "break", frame.ctx.code.co_name))
        frame.emit(_jump_stmt(frame.notes, kind))

    def goto(self, target, frame, region):
        kind = self.jump_kind(target, region)
        if kind == "stop":
            return target
        if kind is not None:
            self.jump_out(kind, frame)
            return None
        return target

    # -- post-dominators per region -------------------------------------------
    def merge_point(self, block, region, past_returns=False):
        """Where the arms of the branch ending ``block`` meet.  With ``past_returns``,
        in a loop body, failing that, where the arms that go on meet, the others
        returning or raising (``if a: if b: return`` before an inner loop)."""
        m = self._postdom(block, region, True)
        if m is None and past_returns and region.loop is not None and region.blocks is None:
            m = self._postdom(block, region, False)
        return m

    def _postdom(self, block, region, terminal_sink):
        key = (id(region.loop), frozenset(region.blocks) if region.blocks is not None else None, terminal_sink)
        pdom = self._pdom.get(key)
        if pdom is None:
            pdom = self._pdom[key] = self._postdoms(region, terminal_sink)
        m = pdom.get(block)
        return None if m is None or m == _EXIT else m

    def _postdoms(self, region, terminal_sink):
        loop = region.loop
        if region.blocks is not None:
            nodes = set(region.blocks)
        elif loop is not None:
            # with the code that leaves the loop only by returning or raising: two arms
            # that meet there (``data.add(a or b); break`` before a return) merge there
            outer = {other.header.start for other in self.g.loops.values()
                     if other is not loop and loop.header in other.body}
            nodes = set(loop.body) | _returning_exits(loop, outer)
        else:
            nodes = set(self.g.idom)

        def succs(b):
            out = []
            for s in b.succs:
                if s in nodes and not (loop is not None and s is loop.header):
                    out.append(s)
                else:
                    out.append(_EXIT)
            if not b.succs and terminal_sink:
                out.append(_EXIT)
            return out

        return postdominators(nodes, succs, _EXIT)

    # -- conditionals ---------------------------------------------------------
    def conditional(self, block, last, frame, region):
        cond = before_branch(frame, frame.pop())
        jc = jump_condition(last.op, cond)
        state = Branch(jc, last.target, block.end, list(frame.stack), list(frame.stack))
        chain_end = self.absorb(state, block)
        state.simple = (cond, last.op) if chain_end == block.start else None
        merge = self.merge_point(self.g.of_instr[chain_end], region, past_returns=True)
        mpos = merge.start if merge is not None else None
        if mpos is not None and mpos not in (state.t, state.e) and region.stop is not None \
                and self.through_jumps(mpos) == region.stop and region.stop in (state.t, state.e) \
                and len(state.t_stack) != len(state.e_stack):
            # (3.11: ``a and x or y if c else 1``: the or's value jumps on, through the jump
            # over the else arm, to where the conditional's arms meet; the other side's
            # value runs into that jump.  The arms meet there, where the value is used)
            mpos = region.stop
        for side in ("t", "e"):
            if mpos is not None and getattr(state, side) != mpos and self.instrs[mpos].op == "JUMP" \
                    and self.through_jumps(mpos) == getattr(state, side):
                setattr(state, side, mpos)   # (a condition joined through the lone jump where its arms meet)
        t_kind = self.jump_kind(state.t, region)
        e_kind = self.jump_kind(state.e, region)
        if mpos == state.e < state.t:
            # the side that never comes back is laid out after the other, which jumps
            # over it: an if/else (``elif c: a`` / ``else: raise``), not ``if not c: raise``
            mpos = self.jumped_over(state, region) or self._jumps_back_over(state, region) or mpos
            if mpos == state.e and self._continue_before(state.t, region):
                # ``if c: <body>; continue`` then the side that never comes back
                return self.branch_no_merge(state, frame, region, chain_end)
        if self._dead_jump_before(max(state.t, state.e)):
            over = self.jumped_over(state, region)   # the else clause ends where the dead jump goes
            mpos = mpos if over is None else over
        final = self.instrs[self.g.of_instr[chain_end].end - 1]   # the chain's last test
        if final.continues and region.loop is not None and block is not region.loop.header \
                and final.target == region.loop.header.start:
            # ``if c: continue`` (3.12+: the jump had a line of its own), not the end of an
            # ``if`` at the bottom of the body.  The chain's last test tells: in ``if a and
            # b: continue`` the first one jumps past the ``continue``
            if t_kind == "stop" and state.t == final.target:
                t_kind = "continue"
            elif e_kind == "stop" and state.e == final.target:
                e_kind = "continue"
        elif t_kind == "continue" and state.t != region.loop.header.start \
                and (state.t == mpos or mpos is None and (self.flows_into(state.e, state.t, region)
                                                          or self.laid_out_before_bottom(state.e, state.t, region))):
            t_kind = None         # the jump goes where the other arm ends anyway: the loop's bottom
            mpos = state.t
        elif e_kind == "continue" and t_kind is None and state.e != region.loop.header.start \
                and state.t < state.e == mpos:
            # the same with the sides the other way round: ``if a or b: <body>`` ending a
            # loop body (3.10, 3.11), whose last test goes to the jump back when false
            e_kind = None
            mpos = state.e
        if region.loop is not None and region.stop == region.loop.header.start and mpos not in (None, region.stop):
            # a side going straight to the loop's top while the arms meet before the body's
            # end is a ``continue`` (3.10+: ``if c: continue`` on one line, its jump folded
            # into the test, with no line of its own to tell)
            if t_kind == "stop" and state.t == region.stop:
                t_kind = "continue"
            elif e_kind == "stop" and state.e == region.stop:
                e_kind = "continue"
        if (mpos is None and region.blocks is not None and region.depth is not None
                and len(frame.stack) > region.depth and si.is_expr(frame.stack[-1])):
            # a value computed in a try or with body flows out of it (``try: return a and b``)
            for pos, stack in ((state.t, state.t_stack), (state.e, state.e_stack)):
                pos = self.through_cleanup(pos, stack)[0]  # a chained comparison's cleanup first
                if pos < len(self.instrs) and self.g.of_instr[pos] not in region.blocks:
                    mpos = pos
                    break
        if mpos is None:
            mpos = self.arms_meet(state.t, state.e, region)
        if mpos is None and region.stop is not None and state.t == region.stop:
            mpos = region.stop
        if mpos is None and region.stop is not None and state.e == region.stop:
            mpos = region.stop
        if t_kind == "continue" and e_kind == "break" and state.t != region.loop.header.start \
                and state.t == max(b.start for b in region.loop.body):
            # ``if not c: break`` ending the body: the other side runs into the loop's
            # bottom, the copy of its test (3.11), as the end of the body does
            emit_if(frame, ast.If(test=negate(state.c), body=[_jump_stmt(frame.notes, "break")], orelse=[]),
                         state.t_stack)
            return state.t
        if t_kind == "break" and e_kind is None and state.e < state.t and self._only_exits(state.e, state.t, region):
            return self.exit_then_break(state, frame, region, chain_end)
        if mpos is None and t_kind in JUMP_KINDS and e_kind is None and state.e < state.t:
            brk = state.t
            if final.op in CONDITIONAL and state.e < final.target < state.t \
                    and self.through_jumps(final.target) == self.through_jumps(state.t):
                brk = final.target   # the chain (``elif a and b:``) went on through the break
            over = self._jumps_over_to_the_bottom(state, region, brk)
            if over is not None:
                # ``elif c: x()`` / ``else: break``: the break laid out after the arm that
                # jumps over it to the bottom of the loop body is the else clause
                mpos, t_kind, state.t = over, None, brk
        if t_kind in JUMP_KINDS or e_kind in JUMP_KINDS:
            return self.branch_out(state, t_kind, e_kind, frame, region)
        if mpos is None:
            mpos = self.jumped_over(state, region)
        if mpos is None:
            mpos = self.body_runs_into_target(state, region)
        if mpos is None:
            mpos = self._arms_meet_at_the_bottom(state, region)
        if mpos is None:
            mpos = self._arms_leave_together(state, region)
        if mpos is None:
            return self.branch_no_merge(state, frame, region, chain_end)
        stack = list(frame.stack)

        # the arm laid out later (an ``elif`` chain's rest), or the one that is not
        # empty (the rest of ``a and b and c``), is structured first, by seq
        first = "t" if state.t > state.e else "e"
        if getattr(state, first) == mpos:
            first = "e" if first == "t" else "t"
        arm = Frame(self.ctx, getattr(state, first + "_stack"), since=frame.last_emit)

        left = len(region.exits) if region.exits is not None else None

        def merge(end):
            try:
                goes_on = self.branch_merge(state, mpos, frame, region, first, arm, end)
            except _ArmsDiffer:
                frame.stack = stack   # each arm runs through the tail on its own
                return self.branch_no_merge(state, frame, region, chain_end)
            test = state.c.operand if isinstance(state.c, ast.UnaryOp) and isinstance(state.c.op, ast.Not) else state.c
            if left is not None and goes_on is not None and not isinstance(test, si.ExcMatch):
                # (not an except clause's test: what follows it is the next clause, or the
                # re-raise when none matches, never the clause's own way on)
                self._arms_leave_where_the_if_goes(region.exits[left:], goes_on, region)
            return goes_on

        if getattr(state, first) == mpos:
            return merge(mpos)
        return _Descend(getattr(state, first), arm, region.child(stop=mpos, meets=True), merge)

    def _arms_leave_where_the_if_goes(self, exits, goes_on, region):
        """Refuse an ``if`` one of whose arms left the try or with body (``exits``, the
        places recorded on the way) while the ``if`` goes on at ``goes_on``, inside it:
        written, the arm would run on into the code after the ``if``.  (3.12: an except
        clause, read from a ``finally: break`` that discards the exception, went on past
        the enclosing finally body's copy into a copy of the code after the loop, taken
        for the end of the try body, and fell into the ``continue`` after the ``if``.)
        An arm leaving for where the code at ``goes_on`` leads to anyway is no matter."""
        instrs = self.instrs
        on = self.through_jumps(goes_on)
        for exit_ in exits:
            if on == exit_ or on < len(instrs) and region.blocks is not None \
                    and self.g.of_instr[on] not in region.blocks \
                    and (same_target(instrs, on, exit_) or same_code(instrs, on, exit_)):
                continue
            raise DecompilationError("an arm of the if at %d leaves for %d, where the code after the if "
                                     "does not go" % (goes_on, exit_))

    def branch_out(self, st, t_kind, e_kind, frame, region):
        """At least one side of the branch is ``break``/``continue``."""
        if t_kind in JUMP_KINDS and e_kind is None:
            end = self._dead_jump_clause_end(st, t_kind, region)
            if end is not None:
                # ``if c: <side> else: break``: the test goes straight where the else
                # clause's jump goes, which stayed, dead, after the side (3.8, 3.9)
                arm = Frame(self.ctx, st.e_stack, since=frame.last_emit)
                if self.seq(st.e, arm, region.child(stop=end)) == end:
                    arm.flush_parallel()
                    emit_if(frame, ast.If(test=negate(st.c), body=arm.out or [ast.Pass()],
                                               orelse=[_jump_stmt(frame.notes, t_kind)]), arm)
                    return end
        if t_kind in JUMP_KINDS:
            emit_if(frame, ast.If(test=st.c, body=[_jump_stmt(frame.notes, t_kind)], orelse=[]), st.e_stack)
            return self.goto(st.e, frame, region)
        end = self._else_after_jump(st, region) if t_kind is None else None
        if end is not None:
            # ``if c: continue`` then an else clause, up to where the dead jump over it lands
            arm = Frame(self.ctx, st.e_stack, since=frame.last_emit)
            arm.emit(_jump_stmt(frame.notes, e_kind))
            frame.notes.before_dead_jump.set(arm.out[-1])
            self._else_side(st.t, st.t_stack, negate(st.c), arm, frame, region, end, st.e)
            return end
        emit_if(frame, ast.If(test=negate(st.c), body=[_jump_stmt(frame.notes, e_kind)], orelse=[]), st.t_stack)
        return self.goto(st.t, frame, region)

    def _dead_jump_clause_end(self, st, kind, region):
        """Where ``if c: <side> else: break`` (or ``continue``) ends, when the side the
        test falls into is followed by the else clause's jump, dead (the test was
        threaded through it to where it goes, ``st.t``), on a line of its own, and the
        side ends in a jump forward past it or back to the loop's start that ends the
        region: there (3.8, 3.9); else None."""
        if not facts.KEEPS_JUMPS_OVER_ELSE_CLAUSES or st.t < st.e:
            return None
        loop = region.loop
        for b in self._laid_out(st.e, st.t):
            pos = b.start
            if pos <= st.e or b.preds or not self._dead_jump_before(pos + 1):
                if any(self.through_jumps(x.start) == self.through_jumps(st.t) for x in b.succs):
                    return None   # a test of the side goes there too: the dead jump is its own
                continue
            dead, before = self.instrs[pos], self.instrs[pos - 1]
            if self.jump_kind(dead.target, region) != kind or self.through_jumps(dead.target) != self.through_jumps(st.t) \
                    or dead.line == before.line or before.op != "JUMP":
                return None
            if before.target == pos + 1 and self.g.of_instr[pos + 1].start == pos + 1:
                end = pos + 1
            elif loop is not None and before.target == loop.header.start == region.stop:
                end = region.stop
            else:
                return None
            return end if self._if_else_between(st.e, pos + 1, region) else None
        return None

    def exit_then_break(self, st, frame, region, chain_end):
        """``if c: <a side that returns or raises>`` then ``break``: the side the test
        falls into is laid out first, so it is the if's body, the ``break`` after it."""
        arm = Frame(self.ctx, st.e_stack, since=frame.last_emit)
        if self.seq(st.e, arm, region.child(stop=None)) is not None:
            raise DecompilationError("branch at %d neither merges nor ends" % chain_end)
        arm.flush_parallel()
        emit_if(frame, ast.If(test=negate(st.c), body=arm.out or [ast.Pass()], orelse=[]), st.t_stack)
        return self.goto(st.t, frame, region)

    def _else_after_jump(self, st, region):
        """Where the else clause of ``if c: continue`` (or ``break``) ends when 3.8 and
        3.9 left the dead jump over it right after the jump that is the body: the side
        laid out next is that one jump, the other side starts after the dead jump, and
        the dead jump goes forward to a block of the region; else None."""
        body = self.g.of_instr[st.e]
        dead = body.end
        if body.start != st.e or body.end - body.start != 1 or st.t != dead + 1 \
                or not self._dead_jump_before(st.t):
            return None
        return self._else_end(st.e, dead, region)

    def _else_end(self, start, dead, region):
        """Where the if/else whose arms start at ``start`` ends, by where the dead jump
        at ``dead`` over its else clause goes: there, when that is forward and the
        blocks up to there go nowhere else but out of the loop the region is in; the
        end of the loop's body, when it goes back to the loop's start (3.8's peephole
        turned a jump to the loop's jump back into one to its start) or to that jump
        back (too far for the peephole) and the region ends there; else None."""
        end = self.instrs[dead].target
        loop = region.loop
        if loop is not None and region.stop == loop.header.start \
                and (end == region.stop or end == max(b.start for b in loop.body)
                     and self.instrs[end].op == "JUMP" and self.instrs[end].target == region.stop):
            return region.stop
        if end <= dead or end >= len(self.instrs) or self.g.of_instr[end].start != end \
                or self.jump_kind(end, region) not in (None, "stop") \
                or (region.stop is not None and start < region.stop < end):
            return None
        return end if self._if_else_between(start, end, region) else None

    def branch_no_merge(self, st, frame, region, chain_end):
        """Neither side comes back: ``if c: <one side>`` then the other side."""
        first_is_e = st.e <= st.t
        body_pos, body_stack, test = (st.e, st.e_stack, negate(st.c)) if first_is_e else (st.t, st.t_stack, st.c)
        rest_pos, rest_stack = (st.t, st.t_stack) if first_is_e else (st.e, st.e_stack)
        exits = region.exits
        known_exits = len(exits) if exits is not None else 0
        arm = Frame(self.ctx, body_stack, since=frame.last_emit)
        meets = region.meets or self._arms_end_the_loop(body_pos, rest_pos, region)
        end = self.seq(body_pos, arm, region.child(stop=region.stop if meets else None))
        arm.flush_parallel()
        if meets and end == region.stop:
            # the side runs to where the enclosing if's arms meet (an ``elif`` whose own
            # else arm raises): the other side is the else arm, up to there as well
            self._else_side(rest_pos, rest_stack, test, arm, frame, region, region.stop, chain_end)
            return region.stop
        if end is not None:
            raise DecompilationError("branch at %d neither merges nor ends" % chain_end)
        if exits is not None and len(exits) > known_exits:
            # the side went on past the region (a try body's end): so must the
            # other side, as the else branch, not as code after the if
            if any(si.is_expr(v) for v in arm.stack[len(body_stack):]):
                # a value computed on the side is left behind on the way out (a ``return``
                # whose value a finally body that never completes drops): written as the
                # side's end, its evaluation, and what that raises, would be lost
                raise DecompilationError("a side of the branch at %d leaves with a value it "
                                         "computed" % chain_end)
            self._else_side(rest_pos, rest_stack, test, arm, frame, region, None, chain_end)
            return None
        emit_if(frame, ast.If(test=test, body=arm.out or [ast.Pass()], orelse=[]), rest_stack)
        return rest_pos

    def _arms_end_the_loop(self, body_pos, rest_pos, region):
        """Whether both sides of a branch run to the bottom of the loop body, as an
        if/else, not as ``if c: <side>; continue`` and the other side: the first side
        holds a test that goes back to the loop's start by a jump with no line of its
        own when its test is false: an ``if`` at the side's end, with nothing, no
        ``continue``, after it.  3.11 and 3.12 thread such a test through the back jump
        the side ends with (a ``continue`` has a line: ``Instr.continues``; ``if c:
        continue`` on one line goes back when its test is true)."""
        loop = region.loop
        if loop is None or region.stop != loop.header.start or not body_pos < rest_pos:
            return False
        return any(ins.op == "POP_JUMP_IF_FALSE" and ins.target == loop.header.start and not ins.continues
                   for ins in self.instrs[body_pos:rest_pos])

    def _else_side(self, pos, stack, test, arm, frame, region, stop, chain_end):
        """Structure the other side of a branch, from ``pos`` to ``stop`` or to its own
        end, as the else arm of ``if test: <arm>``; emit the ``if``, the frame going on
        with the stack of the side that does (an else side that never comes back, a
        ``return`` in a for loop that popped the iterator, leaves the stack the dead jump
        over it would have gone on with); return the side's frame and where it ended
        (``stop``, or None)."""
        other = Frame(self.ctx, stack, since=frame.last_emit)
        # (an else side up to where the enclosing if's arms meet is an elif chain whose
        # own arms stop there too: one of them running on through the code after the if
        # would have it written in the arm, and run twice, queue.Queue.put on 3.8)
        end = self.seq(pos, other, region.child(stop=stop, meets=region.meets and stop is not None
                                                 and stop == region.stop))
        if end not in (None, stop):
            raise DecompilationError("branch at %d neither merges nor ends" % chain_end)
        other.flush_parallel()
        emit_if(frame, _if(test, arm.out, other.out), arm if end is None else other)
        return other, end

    def branch_merge(self, st, mpos, frame, region, done, done_arm, done_end):
        """Both sides meet at ``mpos``; side ``done`` (``"t"`` or ``"e"``) is structured
        already, on ``done_arm``, and ended at ``done_end``."""
        done_arm.flush_parallel()
        other = "e" if done == "t" else "t"
        arm = Frame(self.ctx, getattr(st, other + "_stack"), since=frame.last_emit)
        pos = getattr(st, other)
        end = self.seq(pos, arm, region.child(stop=mpos, meets=True)) if pos != mpos else mpos
        arm.flush_parallel()
        (fa, fend), (ta, tend) = ((done_arm, done_end), (arm, end)) if done == "e" else ((arm, end), (done_arm, done_end))
        split = frame.stack
        if (fend == mpos and tend == mpos and same_stack(fa.stack, ta.stack)
                and same_stack(fa.stack, split[:len(fa.stack)])):
            split = frame.stack = list(fa.stack)  # both sides dropped the same copies
        goes_on, pushed = mpos, []
        if fend == mpos and tend == mpos and not (same_stack(fa.stack, split) and same_stack(ta.stack, split)):
            if not (fa.out or ta.out):
                return self.value_merge(st, fa, ta, frame, mpos)
            goes_on, pushed = values_as_statements(self, st, fa, ta, split, mpos, region)
        test = negate(st.c)
        body, orelse = fa.out, ta.out
        if body and orelse and st.t < st.e:
            # the arm laid out first is the body (``if a or b:``, whose first test jumps
            # to it, the last one past it)
            test, body, orelse = st.c, orelse, body
        if body and orelse and st.e < st.t and self._dead_jump_before(st.t):
            last_return_in_else(body)   # the jump over the else clause stayed: the body ends in no return
            if region.loop is not None and fend == mpos == region.stop == region.loop.header.start \
                    and self.instrs[st.t - 2].target == region.loop.header.start:
                # and it ended in a jump back to the loop's start, the stop of the region, so
                # no statement yet: the source's ``continue`` (anywhere else that jump was a
                # ``continue`` written already, an inner ``if c: continue``'s)
                body.append(_jump_stmt(frame.notes, "continue"))
                frame.notes.before_dead_jump.set(body[-1])
        if not body and orelse and not self._lone_jump(st.e, mpos):
            test, body, orelse = st.c, orelse, []
        elif body and not orelse and st.e < st.t == mpos and fend == mpos and self._lone_jump(mpos - 1, mpos) \
                and not isinstance(body[-1], _COMPOUND):
            orelse = [ast.Pass()]   # the body's jump over an empty else clause (not an inner statement's)
        emit_if(frame, _if(test, body, orelse), ta if tend == mpos != fend else fa)
        if fend != mpos and tend != mpos:
            return None
        frame.stack += pushed
        return goes_on

    def _lone_jump(self, pos, target):
        """Whether the instruction at ``pos``, the last of its block, is a forward jump
        to ``target``: the end of an arm whose other arm is empty.  Every version keeps
        the jump of an ``if c: pass`` over its else clause (``if not c:`` jumps when
        true instead), and 3.8 and 3.9 the one over an ``else: pass`` even to the next
        instruction."""
        return pos < target and self.instrs[pos].op == "JUMP" \
            and self.instrs[pos].target == target and self.g.of_instr[pos].end == pos + 1

    def _dead_jump_before(self, pos):
        """Whether a jump no path reaches stands right before ``pos``, after a ``return``,
        ``raise`` or jump (3.8 and 3.9 leave the one over an else clause so)."""
        if not facts.KEEPS_JUMPS_OVER_ELSE_CLAUSES or pos < 2 or pos > len(self.instrs) \
                or self.instrs[pos - 1].op != "JUMP" or self.instrs[pos - 2].op not in NO_NEXT:
            return False
        return not self.g.of_instr[pos - 1].preds

    def value_merge(self, st, fa, ta, frame, mpos):
        """Both sides leave a value: a conditional expression or and/or."""
        if fa.out or ta.out or len(fa.stack) != len(ta.stack) or not fa.stack:
            raise DecompilationError("branch values with statements at %d" % mpos)
        if not same_stack(fa.stack[:-1], ta.stack[:-1]):
            # only the top value may differ between the arms: each computed more of
            # what the merged tail consumes (``a - 1 if c else 1 - a``, tail shared)
            raise _ArmsDiffer("branches leave different values below the top at %d" % mpos)
        fv, tv = fa.stack[-1], ta.stack[-1]
        base = list(fa.stack[:-1])
        orig, op = st.simple or (None, None)
        fx, tx = si.as_expr(fv), si.as_expr(tv)  # a lambda is a value too: ``b or (lambda: 0)``
        if orig is not None and tx is orig and op in ("POP_JUMP_IF_FALSE", "POP_JUMP_IF_TRUE"):
            value = and_(tx, fx) if op == "POP_JUMP_IF_FALSE" else or_(tx, fx)
        elif _same_node(_last_operand(st.c, ast.And), tv):
            value = or_(st.c, fx)   # (a and b) or c: true means b, which is the value
        elif _same_node(_last_operand(st.c, ast.Or), fv):
            value = and_(st.c, tx)  # (a or b) and c: false means b, which is the value
        elif _same_node(_last_operand(negate(st.c), ast.And), fv):
            value = or_(negate(st.c), tx)
        elif _same_node(_last_operand(negate(st.c), ast.Or), tv):
            value = and_(negate(st.c), fx)
        elif st.t < st.e:
            # the arm the test jumps to is laid out first: the body (``x if a or b else y``)
            value = ast.IfExp(test=st.c, body=tx, orelse=fx)
        else:
            value = ast.IfExp(test=negate(st.c), body=fx, orelse=tx)
        frame.stack = base + [value]
        return mpos

    # -- match statements: see match_statements.py ----------------------------------------
    def match(self, heads, pos, block, frame, region):
        """Try a match statement at each candidate head: (True, continuation) or (False, None)."""
        saved = (list(frame.stack), len(frame.out), frame.parallel and frame.parallel.copy())
        error = None
        for head in heads:
            try:
                frame.run(self.instrs[pos:head])
                return True, match_statements.structure_match(self, head, frame, region)
            except DecompilationError as exc:
                error = exc
                frame.stack, frame.parallel = list(saved[0]), saved[2] and saved[2].copy()
                del frame.out[saved[1]:]
        if match_statements.block_needs_match(self.instrs, pos, block.end):
            raise error
        return False, None

    # -- loops and try: see loops.py and trys.py ------------------------------
    def entered(self, block, region):
        """``block`` if it heads a loop whose body ``region`` lies in (a try or with that
        starts a loop's body starts at its header), else None."""
        loop = self.g.loops.get(block)
        return block if loop is not None and _inside(region, loop) else None

    def loop(self, loop, frame, region):
        return structure_loop(self, loop, frame, region)

    def try_(self, block, handler, frame, region):
        return trys.structure_try(self, block, handler, frame, region)




class _Descend:
    """What structuring an ``if`` whose arms meet returns to :meth:`Structurer.seq`: its
    else arm, to be structured from ``pos`` on ``frame`` in ``region`` (that ends where
    the arms meet), then ``finish(end)`` writes the ``if`` and gives where the sequence
    goes on.  (Recursing into the else arm nested a Python frame or four per ``elif``:
    from about 250 arms, Python's recursion limit refused the function.)"""

    def __init__(self, pos, frame, region, finish):
        self.pos, self.frame, self.region, self.finish = pos, frame, region, finish
        self.entering = None   # the sequence's own, restored with it


class _ArmsDiffer(DecompilationError):
    """Two arms that meet with different values under the top of the stack."""


def _same_node(a, b):
    """Whether ``a`` is ``b``, or ``b`` rebuilt by negations around the very same operands
    (``not c`` negated twice is a new ``not c``): one value, evaluated once."""
    if a is b:
        return True
    if type(a) is not type(b) or not isinstance(a, (ast.UnaryOp, ast.Compare, ast.BoolOp)):
        return False
    if isinstance(a, ast.UnaryOp):
        return isinstance(a.op, ast.Not) and isinstance(b.op, ast.Not) and _same_node(a.operand, b.operand)
    if isinstance(a, ast.BoolOp):
        return type(a.op) is type(b.op) and len(a.values) == len(b.values) and all(
            _same_node(x, y) for x, y in zip(a.values, b.values))
    return ([type(o) for o in a.ops] == [type(o) for o in b.ops] and a.left is b.left
            and len(a.comparators) == len(b.comparators)
            and all(x is y for x, y in zip(a.comparators, b.comparators)))


def _last_operand(cond, op_type):
    """The last operand of a ``BoolOp`` of ``op_type`` (whose value it yields), or None."""
    if isinstance(cond, ast.BoolOp) and isinstance(cond.op, op_type):
        return cond.values[-1]
    return None


def _parents(region):
    """The regions enclosing ``region``, innermost first."""
    while region.parent is not None:
        region = region.parent
        yield region


def _within(region, block):
    """Whether ``block`` lies in the nearest enclosing try or with body's blocks, if any."""
    return region.within is None or block in region.within


def _returning_exits(loop, outer_headers=()):
    """Blocks outside ``loop`` that its body reaches and from which every path returns,
    raises, or jumps to the loop's follow or to the next turn of an enclosing loop
    (``outer_headers``: a ``break`` threaded there), without coming back to the loop:
    the code of a ``break`` or ``return``."""
    seen, todo = set(), [s for b in loop.body for s in b.succs]
    while todo:
        b = todo.pop()
        if b in seen or b in loop.body or b is loop.follow:
            continue
        seen.add(b)
        todo.extend(b.succs)
    changed = True
    while changed:
        leaky = {b for b in seen if any(s not in seen and s is not loop.follow and s.start not in outer_headers
                                        for s in b.succs)}
        seen -= leaky
        changed = bool(leaky)
    return seen


def _inside(region, loop):
    """Whether ``region`` lies within the body of ``loop``."""
    while region is not None:
        if region.loop is loop:
            return True
        region = region.parent
    return False


def _jump_stmt(notes, kind):
    """``continue``/``break``; "else" is the loop test's exit into a while's else clause."""
    if kind == "continue":
        return ast.Continue()
    stmt = ast.Break()
    notes.to_else.set(stmt, kind == "else")
    return stmt


def _if(test, body, orelse):
    return ast.If(test=test, body=body or [ast.Pass()], orelse=orelse)


_COMPOUND = (ast.If, ast.Try, ast.With, ast.AsyncWith, ast.For, ast.AsyncFor, ast.While)


def last_return_in_else(stmts):
    """Statements that did not end in a ``return`` statement (a body before a dead
    ``return None``, :func:`~unveil.bytecode.code_objects.ends_in_dead_return`, or an
    ``if``'s body before a dead jump over its else clause) but do end in the else clause
    of the last ``if`` whose body returns, or of the last ``try`` whose except clauses
    never go on, with the statements before it that come after that ``if`` or ``try``
    (they only run when its body does not return, or raises nothing)."""
    if not stmts or not isinstance(stmts[-1], ast.Return):
        return
    for k in range(len(stmts) - 2, -1, -1):
        st = stmts[k]
        if isinstance(st, ast.If) and not st.orelse and isinstance(st.body[-1], ast.Return) \
                or isinstance(st, ast.Try) and st.handlers and not st.orelse and not st.finalbody \
                and all(_never_goes_on(h.body) for h in st.handlers):
            st.orelse = stmts[k + 1:]
            del stmts[k + 1:]
            return


def _never_goes_on(body):
    """Whether the statements ``body`` end in a ``return`` or ``raise``."""
    last = body[-1] if body else None
    if isinstance(last, ast.If):
        return bool(last.orelse) and _never_goes_on(last.body) and _never_goes_on(last.orelse)
    return isinstance(last, (ast.Return, ast.Raise))
