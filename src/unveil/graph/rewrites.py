"""Rewrites that share again what the compiler duplicated, each replacing
instructions by a jump to identical ones (the program stays the same): a loop's
bottom test that repeats its top test, expression and return tails copied into
both arms of a conditional, a chained comparison's cleanup copies."""
from ..bytecode import facts
from ..bytecode.opcodes import CONDITIONAL, EXITS, JUMPS, NEGATED_JUMP, NO_NEXT, Instr
from .blocks import same_outcome, same_target, split_blocks

# ops that continue an expression with the value below them (a duplicated tail)
_TESTS = ("POP_JUMP_IF_FALSE", "POP_JUMP_IF_TRUE")


_COMPARISONS = ("COMPARE_OP", "IS_OP", "CONTAINS_OP")


_EXPRESSION_TAIL = {"BUILD_SLICE", "BUILD_TUPLE", "BUILD_LIST", "BUILD_SET", "BUILD_MAP", "BUILD_STRING",
                    "BINARY_OP", "BINARY_SUBSCR", "BINARY_SLICE", "CALL", "CALL_FUNCTION_EX",
                    "COMPARE_OP", "CONTAINS_OP", "IS_OP", "FORMAT_VALUE", "LOAD_ATTR", "LOAD_METHOD",
                    "UNARY_NEGATIVE", "UNARY_NOT", "UNARY_INVERT", "LIST_TO_TUPLE",
                    "LIST_APPEND", "SET_ADD", "MAP_ADD", "LIST_EXTEND", "SET_UPDATE", "DICT_UPDATE",
                    "DICT_MERGE"}
#: ops that add the value on top to the display of over 30 items (16 for a dict) being built
#: right below it (``return (a, ..., b if c else d)``, 3.10+): only the item differs between arms
_ADDS_ITEM = {"LIST_APPEND", "SET_ADD", "MAP_ADD", "LIST_EXTEND", "SET_UPDATE", "DICT_UPDATE", "DICT_MERGE"}
#: ops that only push a value (or a call's keyword names): a shared tail may begin with
#: them before the op that consumes the arms' value (``f(name=s, kind=a if c else b, n=n)``)
_PUSHES = {"LOAD_FAST", "LOAD_FAST_LOAD_FAST", "LOAD_CONST", "LOAD_DEREF", "LOAD_GLOBAL", "LOAD_NAME",
           "KW_NAMES", "PUSH_NULL"}
#: ops whose value an expression's tail may consume (the last op of an arm of ``a if c else b``)
_LEAVES_VALUE = (_EXPRESSION_TAIL - _ADDS_ITEM | _PUSHES | {
    "LOAD_FAST_CHECK", "LOAD_CLASSDEREF", "LOAD_SUPER_ATTR", "BUILD_CONST_KEY_MAP", "YIELD_FROM",
    "GET_AWAITABLE"}) - {"KW_NAMES", "PUSH_NULL"}
#: ops that push a value and pop none: where an expression, and so a loop's test, can
#: begin (not ``LOAD_ATTR``, ``LOAD_METHOD``, ``LOAD_SUPER_ATTR``: they take the value below)
_BEGINS = {"LOAD_FAST", "LOAD_FAST_CHECK", "LOAD_FAST_LOAD_FAST", "LOAD_CONST", "LOAD_DEREF", "LOAD_CLASSDEREF",
           "LOAD_GLOBAL", "LOAD_NAME", "LOAD_CLOSURE", "LOAD_ASSERTION_ERROR", "LOAD_BUILD_CLASS", "LOAD_LOCALS",
           "PUSH_NULL"}


def share_loop_tests(instrs):
    """Turn a loop's repeated test at the bottom into a jump back to the test at the top.

    3.10+ compile ``while c: B`` as ``if c: do B while c`` with ``continue``
    jumping to the top test.  When the bottom test repeats the top test (same
    instructions, same outcomes), jumping to the top one instead is the same
    program, and the loop has a single header again.
    """
    if not any(ins.op in CONDITIONAL for ins in instrs):
        return
    _share_tests_going_on_either_way(instrs)
    blocks = split_blocks(instrs)
    by_end = {b.end: b for b in blocks}
    for k, b in enumerate(blocks):
        last = instrs[b.end - 1]
        if last.op not in CONDITIONAL:
            continue
        body_start, exit_ = _loop_test_outcomes(instrs, blocks, k)
        if body_start is None:
            continue
        # where the top test falls through to the body: right before it, or (a chained
        # comparison, whose failed test's cleanup lies between) a jump to the body
        top_end = _top_test_end(instrs, body_start)
        top = by_end.get(top_end)
        if top is None or top is b or top.handler != b.handler:
            continue
        top_last = instrs[top.end - 1]
        if (top_last.op not in CONDITIONAL or top_last.op != _exit_op(last, body_start)
                or not same_target(instrs, top_last.target, exit_)):
            continue
        n = 0
        if top_end == body_start and not any(
                j < body_start and j not in range(top.start, top.end) for j in _jumps_to(instrs, body_start)):
            n = _common_test(instrs, top, b)   # else the body is entered from elsewhere too
        if n == 0 or n == top.end - 1 - top.start:
            # a test spanning blocks (``while a or b``): both copies whole
            n = max(n, _common_compound_test(instrs, top_end, body_start, exit_, b.end - 1))
        if n == 0:
            continue
        first = instrs[b.end - 1 - n]
        jump = Instr("JUMP", target=top_end - 1 - n, line=first.line, offset=first.offset)
        jump.handler, jump.index = first.handler, first.index
        instrs[b.end - 1 - n] = jump


def _share_tests_going_on_either_way(instrs):
    """``while a and (b or True):`` ends its test with a jump to the body that it falls
    into anyway (``b or True`` goes on either way); the bottom copy, which must jump back,
    ends ``jump-if BODY; JUMP BODY``, a shape the other rewrites do not take for a loop's
    test (its last test has no exit).  When the bottom copy repeats the top one (the same
    instructions on the same lines, jumping to the same places), it becomes a jump to the
    top one, as there."""
    for k in range(len(instrs) - 1):
        last, back = instrs[k], instrs[k + 1]
        body = last.target
        if last.op not in CONDITIONAL or back.op != "JUMP" or back.target != body or body is None \
                or not 0 < body <= k or instrs[body - 1].op != last.op or instrs[body - 1].target != body:
            continue
        n = best = 0
        while body - 1 - n >= 0 and k - n >= body:
            a, b = instrs[body - 1 - n], instrs[k - n]
            if not a.same(b) or a.line != b.line or a.handler != b.handler:
                break
            n += 1
            if a.op in _BEGINS:
                best = n
        if best == 0:
            continue
        top, bottom = range(body - best, body), range(k - best + 1, k + 1)
        # the whole test: it begins its line (as a ``while`` does), and no jump enters it midway
        if any(start > 0 and instrs[start - 1].line == instrs[start].line and start != body
               for start in (top.start, bottom.start)):
            continue
        if any(ins.op in JUMPS and (ins.target in bottom[1:] and j not in bottom or ins.target in top[1:]
                                    and j not in top) for j, ins in enumerate(instrs)):
            continue
        first = instrs[bottom.start]
        jump = Instr("JUMP", target=top.start, line=first.line, offset=first.offset)
        jump.handler, jump.index = first.handler, first.index
        instrs[bottom.start] = jump


def _jumps_to(instrs, pos):
    """Indexes of the jumps that target ``pos``."""
    return [i for i, ins in enumerate(instrs) if ins.op in JUMPS and ins.target == pos]


def _common_test(instrs, top, bottom):
    """Length of the test both blocks end with: equal instructions on the same lines (a
    test may be written over several, ``while f(`` with its argument on the next line).
    Code before the loop and at the end of its body never share a line: a ``while``
    begins its line.

    The run must start where an expression can begin (an op in ``_BEGINS``), not
    mid-expression: a copy shared from its ``LOAD_METHOD`` on would leave the load
    before it on the stack at each turn.
    """
    line = instrs[top.end - 1].line
    n = best = 0
    while n < top.end - 1 - top.start and n < bottom.end - 1 - bottom.start:
        a, b = instrs[top.end - 2 - n], instrs[bottom.end - 2 - n]
        if not a.same(b) or a.line != b.line or a.line is None and line is not None:
            break
        n += 1
        if a.op in _BEGINS:
            best = n
    return best


def _top_test_end(instrs, body_start):
    """Where the loop's top test ends (its final conditional jump at the index before):
    ``body_start``, or a jump there right after a conditional jump, from before it
    (``while a < b < c``: ``... POP_JUMP_IF_FALSE exit; JUMP body; POP_TOP; ...``)."""
    if body_start > 0 and instrs[body_start - 1].op in CONDITIONAL:
        return body_start
    for j in _jumps_to(instrs, body_start):
        if 0 < j < body_start and instrs[j].op == "JUMP" and instrs[j - 1].op in CONDITIONAL:
            return j
    return body_start


def _common_compound_test(instrs, top_end, body_start, exit_, last):
    """Length of a test spanning blocks (``while a and (b or c)``) that the bottom test,
    ending at ``last``, repeats before its final jump (the top copy's final jump is at
    ``top_end - 1``): the same instructions on the same lines, their jumps going to the
    same place (the body, the exit), to the same point within each copy, or to code
    alike (a chained comparison's cleanup); the whole test (no jump from before it into
    it; beginning where an expression can, ``_BEGINS``; from the body's start when the
    body is empty), and nothing jumping into the bottom copy but to its start."""
    n = best = 0
    while True:
        i, j = top_end - 2 - n, last - 1 - n
        if i < 0 or j < body_start:
            break
        a, b = instrs[i], instrs[j]
        if not a.same_op(b) or a.line != b.line or a.handler != b.handler:
            break
        if a.target is not None and not (a.target == b.target or a.target == exit_ and same_target(
                instrs, b.target, exit_) or i < a.target < top_end and a.target - i == b.target - j
                or same_outcome(instrs, a.target, b.target)):
            break
        n += 1
        if a.op in _BEGINS:
            best = n
    if best == 0:
        return 0
    bottom, top = range(last - best + 1, last + 1), range(top_end - 1 - best, top_end)
    for k, ins in enumerate(instrs):
        if ins.op in JUMPS and (ins.target in bottom and k not in bottom
                                or ins.target in top[1:] and k not in top
                                or k < top.start and ins.target == body_start):  # only the end of the test
            return 0
    return best


def share_return_tails(instrs):
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
    # (a copy nothing reaches, as the dead rest of a loop test shared above, is no tail)
    live = _reachable(instrs)
    blocks = [b for b in split_blocks(instrs, by_handler=False) if instrs[b.end - 1].op in EXITS and b.start in live]
    if _share_tails_of_valued_jumps(instrs, blocks):
        blocks = [b for b in split_blocks(instrs, by_handler=False)
                  if instrs[b.end - 1].op in EXITS and b.start in live]
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
            if n and _copy_begins_without_a_line(instrs, early, late, n):
                n += 1
            # the whole common tail must consume what the arms computed
            # ... and start inside a block: two whole blocks alike may be the ends of two
            # arms that each computed all the tail's operands (``a - 1 if c else 1 - a``)
            # ... or be a whole block that the other copies after a chained comparison's
            # cleanup (3.12+: ``POP_TOP`` then the return that follows the loop or if), or the
            # other way round (3.13: ``if not a is b is None: return 1``)
            # ... or add an item to a display being built: the arms' and/or jumped there
            # with the item (``(a, ..., b and c if d else e)``), the display beneath them
            cleanup = _after_cleanup(instrs, early, n) and late.end - n == late.start \
                or _after_cleanup(instrs, late, n) and early.end - n == early.start
            if n < 2 or not cleanup and (not _consumes_arm_value(instrs, early, late, n) or (
                    early.end - n == early.start and late.end - n == late.start
                    and instrs[early.end - n].op not in _ADDS_ITEM)):
                continue
            if any(b.end - n > b.start and instrs[b.end - n].handler != instrs[b.end - n - 1].handler
                   for b in (early, late)):
                continue   # (it begins where a try's range ends: the copy of a finally body that
                #            each ``return`` in the try runs on its way out, not an arms' tail)
            first = instrs[early.end - n]
            jump = Instr("JUMP", target=late.end - n, line=first.line, offset=first.offset)
            jump.handler, jump.index = first.handler, first.index
            instrs[early.end - n] = jump
            break


def _copy_begins_without_a_line(instrs, early, late, n):
    """Whether the instructions of ``early`` and ``late`` just before their common tail of
    ``n`` (on the same lines) are the same, each on the line of the instruction before it
    in its block: the first instruction of a tail the compiler copied into each arm,
    which had no line of its own and took the arm's (3.10+: the ``MAP_ADD`` of
    ``g(..., y=(a if c\n else b))`` over 15 keyword arguments; unshared, each arm
    added its item to its own copy of the dict being built, whose items were written
    twice).  Not where the tail begins outside the try that the instruction before it is
    in: there the tail is the copy of a finally body that each ``return`` in the try runs
    on its way out, and the instructions before it end two statements of their own
    (``return g(b)`` and, in a loop after it, ``return g(d)``)."""
    if not facts.EXIT_COPY_TAKES_THE_LINE_BEFORE or early.end - n - 1 <= early.start \
            or late.end - n - 1 <= late.start:
        return False
    a, b = instrs[early.end - 1 - n], instrs[late.end - 1 - n]
    return (a.same(b) and a.handler == b.handler == instrs[early.end - n].handler and a.line != b.line
            and a.line == instrs[early.end - 2 - n].line and b.line == instrs[late.end - 2 - n].line)


def _share_tails_of_valued_jumps(instrs, blocks):
    """``return a or (b if c else d)``: the ``or`` jumps with ``a`` to the tail that ``d``
    runs into (``return``, ``f(...); return``, 3.13's ``x = ...`` and the ``return x``
    after it), and the compiler copied that tail after ``b``.  A block reached by a jump
    that keeps its value (``COPY 1`` then the jump: and/or) begins inside an
    expression, so an earlier copy of the whole block, on the same lines, after an op
    that left a value, is that expression's tail too: it becomes a jump to the block,
    the same program with a merge point for the value.  (3.8-3.10 and 3.12+; 3.11 jumps
    to one tail.)  Whether any copy was replaced."""
    valued = {}   # where such jumps go: the handlers they jump under
    for i in range(len(instrs) - 2):
        if instrs[i].op == "COPY" and instrs[i].argval == 1 and instrs[i + 1].op in _TESTS \
                and instrs[i + 2].op == "POP_TOP":
            valued.setdefault(instrs[i + 1].target, set()).add(instrs[i + 1].handler)
    lates = [b for b in blocks if b.start in valued]
    if not lates:
        return False
    # (copies of a tail end on its line: only blocks ending alike are compared)
    ending = {}
    for b in blocks:
        last = instrs[b.end - 1]
        ending.setdefault((last.op, last.line, last.handler), []).append(b)
    replaced = set()
    for late in lates:
        n = late.end - late.start
        last = instrs[late.end - 1]
        if late.start in replaced:
            continue
        for early in ending[(last.op, last.line, last.handler)]:
            start = early.end - n
            # (the value may be computed in a try and returned past its range: the
            # copy's value then is too, where the and/or jumps from)
            # ... or the copy is a whole block such a jump goes to as well, from the
            # arm: ``a or ((b or e) if c else d)``
            if start < early.start or early.end > late.start:
                continue
            handlers = valued.get(start, set()) if start == early.start else (
                {instrs[start - 1].handler} if instrs[start - 1].op in _LEAVES_VALUE else set())
            if len(handlers) != 1 or not handlers <= valued[late.start]:
                continue
            if not all(a.same(b) and a.handler == b.handler and a.line == b.line
                       for a, b in zip(instrs[start:early.end], instrs[late.start:late.end])):
                continue
            # (under the value's handler, as the and/or's jump: a jump raises nothing)
            jump = Instr("JUMP", target=late.start, line=instrs[start].line, offset=instrs[start].offset)
            jump.handler, jump.index = next(iter(handlers)), instrs[start].index
            instrs[start] = jump
            replaced.add(start)
    return bool(replaced)


def _consumes_arm_value(instrs, early, late, n):
    """Whether the tail of ``n`` instructions of both blocks starts where the arms'
    own code ends: with an expression op that consumes what the arms computed, or,
    when each arm's last op left a value, with pushes and then such an op
    (``f(s, a if c else b, n=n)``).  Not after a statement: a with's exit call
    (``None, None, None``, then the call that takes ``__exit__`` from below, ``with
    l: if c: return`` ... ``x = 1``), or a ``return f(r)`` after a loop whose
    ``break`` has its own copy (``http.cookies._unquote``)."""
    start = early.end - n
    if instrs[start].op in _EXPRESSION_TAIL:
        return True
    if _returns_past_iterators(instrs, start, early.end):
        # ``return a if c else b`` in a for loop (3.12+): each arm pushes its value,
        # drops the iterators from under it and returns
        return all(b.end - n > b.start and instrs[b.end - n - 1].op in _EXPRESSION_TAIL | _PUSHES
                   for b in (early, late))
    while start < early.end - 1 and instrs[start].op in _PUSHES:
        start += 1
    if instrs[start].op not in _EXPRESSION_TAIL:
        return False
    return all(b.end - n > b.start and instrs[b.end - n - 1].op in _EXPRESSION_TAIL | _PUSHES
               for b in (early, late))


def _returns_past_iterators(instrs, start, end):
    """Whether the instructions from ``start`` to ``end`` are ``SWAP 2; POP_TOP`` (once or
    more: a return in nested for loops drops each one's iterator) and ``RETURN_VALUE``."""
    if (end - start) % 2 != 1 or end - start < 3 or instrs[end - 1].op != "RETURN_VALUE":
        return False
    return all(instrs[p].op == "SWAP" and instrs[p].argval == 2 and instrs[p + 1].op == "POP_TOP"
               for p in range(start, end - 1, 2))


def _reachable(instrs):
    """The indexes of the instructions reachable from the first one (handlers included)."""
    seen, todo = set(), [0] if instrs else []
    while todo:
        i = todo.pop()
        while i < len(instrs) and i not in seen:
            seen.add(i)
            ins = instrs[i]
            if ins.handler is not None:
                todo.append(ins.handler[0])
            if ins.op in JUMPS and ins.target is not None:
                todo.append(ins.target)
            if ins.op in NO_NEXT:
                break
            i += 1
    return seen


def _may_share_any(instrs, early):
    """Whether ``early`` may share its tail with a block not starting with ``POP_TOP``:
    it starts with ``POP_TOP``, or a tail of two or more of its instructions may start
    with one that consumes a value.  (3.13 copies ``return r`` after each arm of an
    ``elif`` chain that assigns ``r``: each copy need not be compared with every other.)"""
    return instrs[early.start].op == "POP_TOP" or any(
        instrs[p].op in _EXPRESSION_TAIL for p in range(early.start, early.end - 1)) \
        or early.end - early.start > 3 and _returns_past_iterators(instrs, early.end - 3, early.end)


def _tail_key(instrs, block):
    """What the last two instructions of ``block`` must agree in to be a shared tail
    (the key of a block of one instruction is unique: it shares no tail of two)."""
    if block.end - block.start < 2:
        return block
    return tuple((i.op, i.line, i.handler, i.target, type(i.argval)) for i in instrs[block.end - 2:block.end])


def _after_cleanup(instrs, block, n):
    """Whether ``block`` is ``POP_TOP`` and then its last ``n`` instructions."""
    return block.end - n - 1 == block.start and instrs[block.start].op == "POP_TOP"


def share_chain_cleanups(instrs):
    """A chained comparison whose value each arm consumes on its own: the comparison's
    arm ends in the same instructions as the failed test's cleanup (``SWAP 2; POP_TOP``)
    that a test jumps to, e.g. ``x = a < b < await c`` or ``a < b < c`` last in a loop
    body (3.11+).  The first copy becomes a jump to the one after the cleanup: the same
    program, with a merge point for the value."""
    tested = {i.target for i in instrs if i.op in _TESTS}
    if not any(t is not None and _is_chain_cleanup(instrs, t) for t in tested):
        return
    blocks = split_blocks(instrs, by_handler=False)
    for late in blocks:
        if not _is_chain_cleanup(instrs, late.start) or instrs[late.end - 1].op not in NO_NEXT \
                or late.start not in tested:
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


def _is_chain_cleanup(instrs, pos):
    """Whether a failed chained comparison's cleanup (``SWAP 2; POP_TOP``) begins at ``pos``."""
    head = instrs[pos:pos + 2]
    return len(head) == 2 and head[0].op == "SWAP" and head[1].op == "POP_TOP" and head[0].argval == 2


def share_compare_returns(instrs):
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


def share_returns(instrs):
    """Every ``RETURN_VALUE`` outside a try becomes a jump to the last one, when the code
    ends in it: a lambda's one expression, whose arms the compiler (3.8/3.9's peephole
    optimiser) left through returns of their own, ``lambda: (b and c) if b else None``.
    The same program, with a merge point for the value."""
    last = len(instrs) - 1
    if last < 0 or instrs[last].op != "RETURN_VALUE" or instrs[last].handler is not None:
        return
    for i, ret in enumerate(instrs[:last]):
        if ret.op == "RETURN_VALUE" and ret.handler is None:
            jump = Instr("JUMP", target=last, line=ret.line, offset=ret.offset)
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
