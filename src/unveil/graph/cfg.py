"""Control-flow graph over canonical instructions: blocks, dominators, loops."""
from ..bytecode.opcodes import CONDITIONAL, EXITS, JUMPS, NEGATED_JUMP, NO_NEXT, Instr

# ops that continue an expression with the value below them (a duplicated tail)
_TESTS = ("POP_JUMP_IF_FALSE", "POP_JUMP_IF_TRUE")
_COMPARISONS = ("COMPARE_OP", "IS_OP", "CONTAINS_OP")
_EXPRESSION_TAIL = {"BUILD_SLICE", "BUILD_TUPLE", "BUILD_LIST", "BUILD_SET", "BUILD_MAP", "BUILD_STRING",
                    "BINARY_OP", "BINARY_SUBSCR", "BINARY_SLICE", "CALL", "CALL_FUNCTION_EX",
                    "COMPARE_OP", "CONTAINS_OP", "IS_OP", "FORMAT_VALUE", "LOAD_ATTR", "LOAD_METHOD",
                    "UNARY_NEGATIVE", "UNARY_NOT", "UNARY_INVERT", "LIST_TO_TUPLE"}


class Block:
    """A maximal run of instructions entered only at its first one."""

    __slots__ = ("start", "end", "succs", "preds", "handler", "index")

    def __init__(self, start, end, handler):
        self.start = start
        self.end = end
        self.handler = handler
        self.succs = []
        self.preds = []

    def __repr__(self):
        return "B%d[%d:%d]" % (self.index, self.start, self.end)


class Loop:
    """A natural loop: header block, body blocks, and where it exits to."""

    def __init__(self, header, body):
        self.header = header
        self.body = body
        self.follow = None
        self.parent = None


class Graph:
    def __init__(self, instrs):
        self.instrs = instrs
        _share_loop_tests(instrs)
        _share_return_tails(instrs)
        _share_compare_returns(instrs)
        _share_chain_cleanups(instrs)
        self.blocks = _split(instrs)
        self.block_at = {b.start: b for b in self.blocks}
        self.of_instr = [None] * len(instrs)
        for b in self.blocks:
            for i in range(b.start, b.end):
                self.of_instr[i] = b
        self._link()
        self.entry = self.blocks[0] if self.blocks else None
        self.idom = _dominators(self.entry, self._all_succs) if self.entry else {}
        self._dom_span = _dominator_spans(self.idom)
        self.loops = self._find_loops()

    # -- edges --------------------------------------------------------------
    def _link(self):
        n = len(self.instrs)
        for b in self.blocks:
            last = self.instrs[b.end - 1]
            targets = []
            if last.op in JUMPS and last.target is not None and last.target < n:
                targets.append(last.target)
            if last.op not in NO_NEXT and b.end < n:
                targets.append(b.end)
            for t in targets:
                s = self.block_at[t]
                if s not in b.succs:
                    b.succs.append(s)
                    s.preds.append(b)

    def handler_block(self, b):
        return self.block_at.get(b.handler[0]) if b.handler else None

    def _all_succs(self, b):
        h = self.handler_block(b)
        return b.succs + [h] if h is not None else b.succs

    def dominates(self, a, b):
        """Whether every path from the entry to ``b`` passes ``a`` (``a`` is ``b``'s
        ancestor in the dominator tree: its span holds ``b``'s)."""
        if a is b:
            return True
        span_a, span_b = self._dom_span.get(a), self._dom_span.get(b)
        return span_a is not None and span_b is not None and span_a[0] < span_b[0] and span_b[1] <= span_a[1]

    # -- loops --------------------------------------------------------------
    def reset_loops(self):
        """The loops as first found: structuring sets where a loop goes on."""
        self.loops = self._find_loops()

    def _find_loops(self):
        loops = {}
        for b in self.blocks:
            if b not in self.idom:
                continue
            for s in b.succs:
                if self.dominates(s, b):
                    body = loops[s].body if s in loops else {s}
                    _collect_body(body, s, b, self)
                    loops[s] = loops.get(s) or Loop(s, body)
        for loop in loops.values():
            loop.follow = self._loop_follow(loop, loops)
        return loops

    def _loop_follow(self, loop, loops):
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
                # and so is a return or raise in a nested loop (no break leaves two loops)
                if s not in loop.body and s not in exits and self.instrs[s.end - 1].op != "RERAISE" \
                        and not (inner_for and s.start == b.end) and not (b in nested and not s.succs):
                    exits.append(s)
        # code after the loop is in the same try as the code before it (the header's
        # own try may be one inside the loop), not in a handler's clause
        before = {p.handler for p in loop.header.preds if p not in loop.body}
        around = before.pop() if len(before) == 1 else loop.header.handler
        # (the header of an enclosing loop may be in a try of its own: a ``break`` that
        # ends that loop's body goes straight back to its top)
        enclosing = {other.header for other in loops.values() if other is not loop and loop.header in other.body}
        same_try = [s for s in exits if s.handler == around or s in enclosing]
        # (the next except clause of a try in the loop is inside the loop, though only
        # its way out comes back: it runs under the same cleanup handler as the clauses
        # before it)
        exits = same_try or [s for s in exits if s.handler is None or s.handler == around or not s.handler[2]
                             or not any(b.handler == s.handler for b in loop.body)]
        # leaving a ``with`` inside the loop runs its exit copy first: the loop
        # goes on where that copy jumps, or nowhere if it returns.  (An exit copy
        # outside the try the loop runs in ends a ``with`` around the loop.)
        going_on = []
        for s in exits:
            if self._starts_with_exit_copy(s) and s.handler == loop.header.handler:
                last = self.instrs[s.end - 1]
                if last.op != "JUMP":
                    continue  # the with exit then the function's return
                s = self.block_at.get(last.target)  # ``break`` out of a with: exit, then jump
            if s is not None and s not in going_on and s not in loop.body:
                going_on.append(s)
        # ``try: return x`` in the loop: the return after the try's range is not where the loop goes on
        # and ``except E: return`` in the loop: the clause's end and the return are in it
        exits = [s for s in going_on if not self._returns_from_a_try(s, loop)
                 and not self._returns_from_a_clause(s, loop)]
        if not exits:
            return self._follow_from_clauses(loop, around)
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
        # (3.10 and 3.12+ copy a short tail into each: copies are one place)
        landings = sorted({past_clause_ends(self.instrs, s.start) for s in exits}, key=lambda p: p or 0)
        if len(exits) > 1 and None not in landings \
                and all(same_target(self.instrs, landings[0], other) for other in landings[1:]):
            landing = next((self.block_at[p] for p in reversed(landings) if p in self.block_at), None)
            if landing is not None and landing not in loop.body:
                return landing
        # ways out that run code and jump, all to one place outside the loop: that place
        # (``if a: x(); break`` twice, the breaks threaded on to an enclosing loop's end)
        ends = {self.instrs[s.end - 1].target if self.instrs[s.end - 1].op == "JUMP" else None for s in exits}
        if len(exits) > 1 and len(ends) == 1 and None not in ends:
            landing = self.block_at.get(ends.pop())
            if landing is not None and landing not in loop.body:
                return landing
        best = max(exits, key=lambda s: (sum(1 for e in exits if self.reaches(e, s, loop)), bool(s.succs),
                                         self.instrs[s.end - 1].op == "RETURN_VALUE", s.start))
        return self._past_chain_cleanup(best)

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
        inside = {b.handler[0] for b in loop.body if b.handler and b.handler != around}
        todo = [self.block_at[t] for t in inside if t in self.block_at]
        seen, outs = set(), []
        while todo:
            b = todo.pop()
            if b in seen or b in loop.body:
                continue
            seen.add(b)
            if b.handler and b.handler != around and b.handler[0] not in inside:
                inside.add(b.handler[0])
                todo.append(self.block_at[b.handler[0]])
            if b.handler is None or b.handler == around:
                outs.append(b)
                continue
            todo.extend(b.succs)
        ways = []
        for b in outs:
            pos = past_clause_ends(self.instrs, b.start)
            b = self.of_instr[pos] if pos < len(self.instrs) else None
            if b is not None and b.succs and b not in loop.body and b not in ways:
                ways.append(b)
        return ways[0] if len(ways) == 1 else None

    def _returns_from_a_try(self, block, loop):
        """``block`` only drops what is under the value and returns it, and is entered
        from a try in ``loop`` whose range ends before the return."""
        ops = [i.op for i in self.instrs[block.start:block.end]]
        return ops[-1:] == ["RETURN_VALUE"] and set(ops[:-1]) <= {"SWAP", "POP_TOP", "NOP"} \
            and any(p in loop.body and p.handler is not None and p.handler != block.handler
                    and self.instrs[p.end - 1].op not in JUMPS for p in block.preds)

    def _returns_from_a_clause(self, block, loop):
        """``block`` ends an except clause of a try in ``loop`` (``POP_EXCEPT``, the
        ``name = None; del name`` of ``except E as name``) and returns: a ``return``
        in the clause, not where the loop goes on."""
        start = block.start
        if self.instrs[start].op == "SWAP" and self.instrs[start].argval == 2:
            start += 1   # the value to return is computed in the clause, under the exception
        if self.instrs[start].op != "POP_EXCEPT" or self.instrs[block.end - 1].op != "RETURN_VALUE":
            return False
        rest = self.instrs[past_pop_except(self.instrs, start):block.end - 1]
        return all(i.op in ("LOAD_CONST", "LOAD_FAST") for i in rest) \
            and any(p in loop.body for p in block.preds)

    def past_cleanup(self, block):
        """The block after ``block`` if it only pops (a chained comparison's cleanup)
        and jumps or falls through there, else ``block``; None at the end."""
        ops = [i.op for i in self.instrs[block.start:block.end]]
        if ops in (["POP_TOP"], ["POP_TOP", "JUMP"], ["JUMP"]) and len(block.succs) == 1:
            return block.succs[0]
        return block

    def _starts_with_exit_copy(self, block):
        """A terminal block that starts with a ``with`` exit call (``None, None, None``)."""
        ops = [(i.op, i.argval) for i in self.instrs[block.start:block.start + 4]]
        return ops[:3] == [("LOAD_CONST", None)] * 3 and len(ops) == 4 and ops[3][0] == "CALL"

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


def _collect_body(body, header, latch, graph):
    todo = [latch]
    while todo:
        x = todo.pop()
        if x in body:
            continue
        body.add(x)
        for p in x.preds:
            if p in graph.idom:   # not the dead rest of a loop test shared with the top one
                todo.append(p)
        for h_src in graph.blocks:
            if graph.handler_block(h_src) is x and h_src not in body and h_src in graph.idom:
                todo.append(h_src)


def _share_loop_tests(instrs):
    """Turn a loop's repeated test at the bottom into a jump back to the test at the top.

    3.11+ compile ``while c: B`` as ``if c: do B while c`` with ``continue``
    jumping to the top test.  When the bottom test repeats the top test (same
    instructions, same outcomes), jumping to the top one instead is the same
    program, and the loop has a single header again.
    """
    if not any(ins.op in CONDITIONAL for ins in instrs):
        return
    blocks = _split(instrs)
    by_end = {b.end: b for b in blocks}
    for k, b in enumerate(blocks):
        last = instrs[b.end - 1]
        if last.op not in CONDITIONAL:
            continue
        body_start, exit_ = _loop_test_outcomes(instrs, blocks, k)
        top = by_end.get(body_start)
        if top is None or top is b or top.handler != b.handler:
            continue
        top_last = instrs[top.end - 1]
        if (top_last.op not in CONDITIONAL or top_last.op != _exit_op(last, body_start)
                or not same_target(instrs, top_last.target, exit_)):
            continue
        n = 0
        if not any(j < body_start and j not in range(top.start, top.end) for j in _jumps_to(instrs, body_start)):
            n = _common_test(instrs, top, b)   # else the body is entered from elsewhere too
        if n == 0 or n == top.end - 1 - top.start:
            # a test spanning blocks (``while a or b``): both copies whole
            n = max(n, _common_compound_test(instrs, body_start, exit_, b.end - 1))
        if n == 0:
            continue
        first = instrs[b.end - 1 - n]
        jump = Instr("JUMP", target=body_start - 1 - n, line=first.line, offset=first.offset)
        jump.handler, jump.index = first.handler, first.index
        instrs[b.end - 1 - n] = jump


def _jumps_to(instrs, pos):
    """Indexes of the jumps that target ``pos``."""
    return [i for i, ins in enumerate(instrs) if ins.op in JUMPS and ins.target == pos]


def _common_test(instrs, top, bottom):
    """Length of the test both blocks end with: equal instructions on the test's line.

    The run must start where a statement starts (a load), not mid-expression.
    """
    line = instrs[top.end - 1].line
    n = best = 0
    while n < top.end - 1 - top.start and n < bottom.end - 1 - bottom.start:
        a, b = instrs[top.end - 2 - n], instrs[bottom.end - 2 - n]
        if not a.same(b) or a.line != line or b.line != line:
            break
        n += 1
        if a.op.startswith("LOAD_") or a.op == "PUSH_NULL":
            best = n
    return best


def _common_compound_test(instrs, body_start, exit_, last):
    """Length of a test spanning blocks (``while a and (b or c)``) that the bottom test,
    ending at ``last``, repeats before its final jump: the same instructions on the
    same lines, their jumps going to the same place (the body, the exit) or to the same
    point within each copy; the whole test (no jump from before it into it), and
    nothing jumping into the bottom copy but to its start."""
    n = best = 0
    while True:
        i, j = body_start - 2 - n, last - 1 - n
        if i < 0 or j <= body_start:
            break
        a, b = instrs[i], instrs[j]
        if not a.same_op(b) or a.line != b.line or a.handler != b.handler:
            break
        if a.target is not None and not (a.target == b.target or a.target == exit_ and same_target(
                instrs, b.target, exit_) or i < a.target < body_start and a.target - i == b.target - j):
            break
        n += 1
        if a.op.startswith("LOAD_") or a.op == "PUSH_NULL":
            best = n
    if best == 0:
        return 0
    bottom, top = range(last - best + 1, last + 1), range(body_start - 1 - best, body_start)
    for k, ins in enumerate(instrs):
        if ins.op in JUMPS and (ins.target in bottom and k not in bottom
                                or ins.target in top[1:] and k not in top
                                or k < top.start and ins.target == body_start):  # only the end of the test
            return 0
    return best


def _share_return_tails(instrs):
    """Jump to one copy of an expression tail that the compiler duplicated into each arm.

    ``return f(a if c else b)`` (3.12+) or ``raise E(a if c else b)`` may be compiled
    with ``f(...); return`` copied after both arms.  When two blocks end in the same instructions, starting
    with one that consumes the arms' value, on the same source lines (a copy
    the compiler made, not two statements that look alike), the earlier copy
    becomes a jump to the later one: the same program, with a merge point.
    """
    if sum(ins.op in EXITS for ins in instrs) < 2:
        return
    # (the tail may leave a try: ``try: return (a, b if c else d)`` returns outside it)
    blocks = [b for b in _split(instrs, by_handler=False) if instrs[b.end - 1].op in EXITS]
    # (only blocks whose last two instructions are alike can share a tail: compared in
    # groups by those, not every pair, which was quadratic in an ``elif`` chain of returns)
    alike, place = {}, {}
    for b in blocks:
        group = alike.setdefault(_tail_key(instrs, b), [])
        place[b] = (group, len(group))
        group.append(b)
    for early in blocks:
        group, k = place[early]
        lates = group[k + 1:] if _may_share_any(instrs, early) else [
            late for late in group[k + 1:] if instrs[late.start].op == "POP_TOP"]
        for late in lates:
            n = 0
            while (n < early.end - early.start and n < late.end - late.start
                   and instrs[early.end - 1 - n].same(instrs[late.end - 1 - n])
                   and instrs[early.end - 1 - n].handler == instrs[late.end - 1 - n].handler
                   and instrs[early.end - 1 - n].line == instrs[late.end - 1 - n].line):
                n += 1
            # the whole common tail must consume what the arms computed
            # ... and start inside a block: two whole blocks alike may be the ends of two
            # arms that each computed all the tail's operands (``a - 1 if c else 1 - a``)
            # ... or be a whole block that the other copies after a chained comparison's
            # cleanup (3.12+: ``POP_TOP`` then the return that follows the loop or if), or the
            # other way round (3.13: ``if not a is b is None: return 1``)
            cleanup = _after_cleanup(instrs, early, n) and late.end - n == late.start \
                or _after_cleanup(instrs, late, n) and early.end - n == early.start
            if n < 2 or not cleanup and (instrs[early.end - n].op not in _EXPRESSION_TAIL or (
                    early.end - n == early.start and late.end - n == late.start)):
                continue
            first = instrs[early.end - n]
            jump = Instr("JUMP", target=late.end - n, line=first.line, offset=first.offset)
            jump.handler, jump.index = first.handler, first.index
            instrs[early.end - n] = jump
            break


def _may_share_any(instrs, early):
    """Whether ``early`` may share its tail with a block not starting with ``POP_TOP``:
    it starts with ``POP_TOP``, or a tail of two or more of its instructions may start
    with one that consumes a value.  (3.13 copies ``return r`` after each arm of an
    ``elif`` chain that assigns ``r``: each copy need not be compared with every other.)"""
    return instrs[early.start].op == "POP_TOP" or any(
        instrs[p].op in _EXPRESSION_TAIL for p in range(early.start, early.end - 1))


def _tail_key(instrs, block):
    """What the last two instructions of ``block`` must agree in to be a shared tail
    (the key of a block of one instruction is unique: it shares no tail of two)."""
    if block.end - block.start < 2:
        return block
    return tuple((i.op, i.line, i.handler, i.target, type(i.argval)) for i in instrs[block.end - 2:block.end])


def _after_cleanup(instrs, block, n):
    """Whether ``block`` is ``POP_TOP`` and then its last ``n`` instructions."""
    return block.end - n - 1 == block.start and instrs[block.start].op == "POP_TOP"


def _share_chain_cleanups(instrs):
    """A chained comparison whose value each arm consumes on its own: the comparison's
    arm ends in the same instructions as the failed test's cleanup (``SWAP 2; POP_TOP``)
    that a test jumps to, e.g. ``x = a < b < await c`` or ``a < b < c`` last in a loop
    body (3.11+).  The first copy becomes a jump to the one after the cleanup: the same
    program, with a merge point for the value."""
    tested = {i.target for i in instrs if i.op in _TESTS}
    if not tested:
        return
    blocks = _split(instrs, by_handler=False)
    for late in blocks:
        head = instrs[late.start:late.start + 2]
        if len(head) < 2 or [i.op for i in head] != ["SWAP", "POP_TOP"] or head[0].argval != 2 \
                or instrs[late.end - 1].op not in NO_NEXT or late.start not in tested:
            continue
        n = late.end - late.start - 2
        for early in blocks:
            # the early copy follows the chain's last comparison
            if early is late or early.end - early.start <= n or instrs[early.end - n - 1].op not in _COMPARISONS:
                continue
            if not all(a.same(b) and a.handler == b.handler and a.line == b.line
                       for a, b in zip(instrs[early.end - n:early.end], instrs[late.start + 2:late.end])):
                continue
            first = instrs[early.end - n]
            jump = Instr("JUMP", target=late.start + 2, line=first.line, offset=first.offset)
            jump.handler, jump.index = first.handler, first.index
            instrs[early.end - n] = jump
            break


def _share_compare_returns(instrs):
    """``return a < b < c`` (3.8-3.10): the last comparison returns at once, and right
    after it the failed first comparison drops ``b`` and returns.  The first return
    becomes a jump to the second one, which is the same program with a merge point
    for the value."""
    for i in range(len(instrs) - 3):
        ret, swap, pop, last = instrs[i:i + 4]
        if (ret.op == "RETURN_VALUE" and swap.op == "SWAP" and swap.argval == 2 and pop.op == "POP_TOP"
                and last.op == "RETURN_VALUE" and ret.handler == last.handler
                and i > 0 and instrs[i - 1].op == "COMPARE_OP"):
            jump = Instr("JUMP", target=i + 3, line=ret.line, offset=ret.offset)
            jump.handler, jump.index = ret.handler, ret.index
            instrs[i] = jump


def _loop_test_outcomes(instrs, blocks, k):
    """(where the loop goes on, where it exits) for a bottom test block, or (None, None).

    Shapes: ``test; jump-if-true BODY`` falling into the exit (3.11), or
    ``test; jump-if-false EXIT; JUMP BODY`` (3.12+); BODY lies before the test.
    """
    b = blocks[k]
    last = instrs[b.end - 1]
    if last.target is not None and last.target <= b.start:
        return last.target, b.end
    nxt = blocks[k + 1] if k + 1 < len(blocks) else None
    if nxt is not None and nxt.end - nxt.start == 1 and instrs[nxt.start].op == "JUMP":
        back = instrs[nxt.start].target
        if back is not None and back <= b.start:
            return back, last.target
    return None, None


def _exit_op(last, body_start):
    """The top test's jump op that leaves the loop where ``last`` does."""
    return NEGATED_JUMP[last.op] if last.target == body_start else last.op


def same_target(instrs, a, b):
    """Same position, or two copies of one terminal block (duplicated returns), each
    maybe reached through jumps."""
    a, b = _past_jumps(instrs, a), _past_jumps(instrs, b)
    if a == b:
        return True
    if a is None or b is None or a >= len(instrs) or b >= len(instrs):
        return False
    return _alike(_straight_run(instrs, a), _straight_run(instrs, b))


def same_code(instrs, a, b):
    """Same position, or two copies of straight code up to a return, raise or jump to
    one place (3.13 copies an except clause's end into a loop's ``break`` path)."""
    return a == b or _alike(_straight_run(instrs, a, to_jump=True), _straight_run(instrs, b, to_jump=True))


def _alike(run_a, run_b):
    return (run_a is not None and run_b is not None and len(run_a) == len(run_b)
            and all(x.same(y) and x.handler == y.handler for x, y in zip(run_a, run_b)))


def _past_jumps(instrs, pos):
    """Where a chain of unconditional jumps starting at ``pos`` leads."""
    for _ in range(8):
        if pos is None or pos >= len(instrs) or instrs[pos].op != "JUMP":
            return pos
        pos = instrs[pos].target
    return pos


def _straight_run(instrs, pos, to_jump=False):
    """The straight-line instructions from ``pos`` to a return/raise (with ``to_jump``,
    or an unconditional jump), if no other jump comes first."""
    for end in range(pos, min(len(instrs), pos + 8)):
        op = instrs[end].op
        if op in EXITS or to_jump and op == "JUMP":
            return instrs[pos:end + 1]
        if op in JUMPS:
            return None
    return None


def _split(instrs, by_handler=True):
    """Basic blocks; ``by_handler=False`` lets a run go on where only the try covering
    it changes."""
    n = len(instrs)
    leaders = {0} if n else set()
    for i, ins in enumerate(instrs):
        if ins.op in JUMPS and ins.target is not None:
            leaders.add(ins.target)
            leaders.add(i + 1)
        elif ins.op in EXITS:
            leaders.add(i + 1)
        if ins.op == "FOR_ITER":
            leaders.add(i)  # a for loop whose body never loops back is its own block too
        if ins.handler is not None:
            leaders.add(ins.handler[0])
        if by_handler and i and instrs[i - 1].handler != ins.handler:
            leaders.add(i)
    leaders = sorted(x for x in leaders if x < n)
    blocks = []
    for k, start in enumerate(leaders):
        end = leaders[k + 1] if k + 1 < len(leaders) else n
        b = Block(start, end, instrs[start].handler)
        b.index = k
        blocks.append(b)
    return blocks


def _dominators(entry, succs):
    """Immediate dominators (Cooper, Harvey and Kennedy's iterative algorithm)."""
    order, seen = [], set()
    stack = [(entry, iter(succs(entry)))]
    seen.add(entry)
    while stack:
        node, it = stack[-1]
        for s in it:
            if s not in seen:
                seen.add(s)
                stack.append((s, iter(succs(s))))
                break
        else:
            order.append(node)
            stack.pop()
    order.reverse()
    rank = {b: i for i, b in enumerate(order)}
    preds = {b: [] for b in order}
    for b in order:
        for s in succs(b):
            if s in preds:
                preds[s].append(b)
    idom = {entry: entry}
    changed = True
    while changed:
        changed = False
        for b in order[1:]:
            new = None
            for p in preds[b]:
                if p in idom:
                    new = p if new is None else _intersect(p, new, idom, rank)
            if new is not None and idom.get(b) is not new:
                idom[b] = new
                changed = True
    return idom


def _dominator_spans(idom):
    """``{block: (first, last)}``: the block's number and the largest number under it in
    a depth-first walk of the dominator tree, so that a dominance question is two
    comparisons (walking up the tree made them quadratic in an ``elif`` chain)."""
    children = {}
    root = None
    for b, parent in idom.items():
        if parent is b:
            root = b
        else:
            children.setdefault(parent, []).append(b)
    spans, count = {}, 0
    stack = [(root, False)] if root is not None else []
    while stack:
        node, done = stack.pop()
        if done:
            spans[node] = (spans[node], count - 1)
            continue
        spans[node] = count
        count += 1
        stack.append((node, True))
        stack.extend((c, False) for c in children.get(node, ()))
    return spans


def _intersect(a, b, idom, rank):
    while a is not b:
        while rank[a] > rank[b]:
            a = idom[a]
        while rank[b] > rank[a]:
            b = idom[b]
    return a


def postdominators(nodes, succs, exit_node):
    """Immediate post-dominators of ``nodes`` with ``exit_node`` as the sink."""
    preds = {n: [] for n in nodes}
    preds[exit_node] = []
    for n in nodes:
        for s in succs(n):
            preds.setdefault(s, []).append(n)
    return _dominators(exit_node, lambda n: preds.get(n, []))


__all__ = ["Graph", "Block", "Loop", "postdominators", "same_code", "same_target", "CONDITIONAL"]


def past_pop_except(instrs, pos):
    """Past the ``POP_EXCEPT`` at ``pos`` and the ``name = None; del name`` that ends an
    ``except E as name`` after it."""
    pos += 1
    cleanup = (pos + 2 < len(instrs) and instrs[pos].op == "LOAD_CONST" and instrs[pos].argval is None
               and instrs[pos + 1].op.startswith("STORE") and instrs[pos + 2].op.startswith("DELETE")
               and instrs[pos + 1].argval == instrs[pos + 2].argval)
    return pos + 3 if cleanup else pos


def past_clause_ends(instrs, pos):
    """Where ``pos`` leads past ``POP_EXCEPT`` (with its ``name = None; del name``) and jumps."""
    for _ in range(8):
        if pos is None or pos >= len(instrs):
            return pos
        if instrs[pos].op == "POP_EXCEPT":
            pos = past_pop_except(instrs, pos)
        elif instrs[pos].op == "JUMP":
            pos = instrs[pos].target
        else:
            return pos
    return pos
