"""Natural loops as ``for``/``while`` statements, and comprehensions built from them."""
import ast

from ..bytecode import facts
from ..bytecode.opcodes import CONDITIONAL, JUMPS, NO_NEXT
from ..errors import DecompilationError
from ..graph.blocks import same_code
from ..syntax.astwalk import loop_body_nodes, never_runs_on, statement_lists
from . import handler_regions
from . import stackitems as si
from .frame import Frame
from .stackitems import negate


def structure_loop(s, loop, frame, region):
    """Emit ``loop`` into ``frame``; return where structuring continues after it."""
    header = loop.header
    last = s.instrs[header.end - 1]
    if last.op == "FOR_ITER":
        return _for(s, loop, frame, region)
    else_start = _while_else(s, loop)
    if else_start is not None:
        try:
            return _while(s, loop, frame, region, else_start)
        except ElseClauseLeaves:
            # where the test fails is where the loop goes on, and the way out that was
            # taken for a ``break`` is an arm of the body that leaves by itself
            loop.follow, loop.else_start = s.g.block_at.get(else_start), None
    return _while(s, loop, frame, region, None)


class ElseClauseLeaves(DecompilationError):
    """The code a while loop's test fails into leaves the statement the loop is in: it is
    no else clause."""


def _while(s, loop, frame, region, else_start):
    """Emit the while ``loop`` (with an else clause from ``else_start``, if not None);
    return where structuring continues after it."""
    header = loop.header
    exit_ = loop.follow
    body_frame = Frame(s.ctx, frame.stack, floor=len(frame.stack))   # (a loop's body owns none of it)
    inner = region.child(stop=header.start, loop=loop, blocks=None, exits=None, elide=None)
    end = s.seq(header.start, body_frame, inner, entering=header)
    body_frame.flush_parallel()
    if end is not None and end != header.start:
        raise DecompilationError("loop body at %d leaves the loop unexpectedly" % header.start)
    if end is not None and not si.same_stack(frame.stack, body_frame.stack):
        # each turn would consume a value computed before the loop and make another: the
        # value left for the code after the loop is not the one the text would compute
        raise DecompilationError("the loop at %d ends each turn with other values on the stack than it began "
                                 "with" % header.start)
    body = _drop_final_continue(frame.notes, body_frame.out) or [ast.Pass()]
    node = _while_from(frame.notes, ast.While(test=si.const(True), body=body, orelse=[]))
    if else_start is not None:
        node.orelse = _else_clause(s, else_start, exit_.start, frame, region)
    frame.emit(node)
    return s.goto(exit_.start, frame, region) if exit_ is not None else None


def _drop_final_continue(notes, body):
    """A ``continue`` that ends a loop body (or the arms of its last if/try) says nothing;
    nor does one that ends the statement it leaves last (a try body's ``continue``
    through the exit of the ``with`` that a ``continue`` follows, 3.12+).  But for one
    the dead jump over an else clause follows (``notes.before_dead_jump``)."""
    if body and isinstance(body[-1], ast.Continue) and not notes.before_dead_jump.get(body[-1], False):
        return _drop_final_continue(notes, body[:-1])
    last = body[-1] if body else None
    if isinstance(last, ast.If):
        last.body = _drop_final_continue(notes, last.body) or [ast.Pass()]
        last.orelse = _drop_final_continue(notes, last.orelse)
    elif isinstance(last, (ast.With, ast.AsyncWith)):
        last.body = _drop_final_continue(notes, last.body) or [ast.Pass()]
    elif isinstance(last, ast.Try):
        if not last.orelse:  # a continue in the body also skips the else clause
            last.body = _drop_final_continue(notes, last.body) or [ast.Pass()]
        for h in last.handlers:
            h.body = _drop_final_continue(notes, h.body) or [ast.Pass()]
    return body


def _while_else(s, loop):
    """For ``while c: ... else: E``: set ``loop.else_start`` to E, the follow past it.

    The test at the header leaves to the ``else`` clause; ``break`` jumps
    beyond it.  Returns the else clause's start, or None without one.
    """
    header = loop.header
    loop.else_start = None
    last = s.instrs[header.end - 1]
    if last.op not in CONDITIONAL:
        return None
    outside = [b for b in header.succs if b not in loop.body]
    if len(outside) != 1:
        return None
    test_exit = outside[0].start
    cleaned = s.g.past_cleanup(outside[0])   # ``while a < b < c``: the test's cleanup
    if cleaned is not None and s.instrs[test_exit].op == "POP_TOP" and len(outside[0].preds) == 1:
        test_exit = cleaned.start
    if _runs_statements(s.instrs[header.start:header.end]):
        return None   # ``while 1: line = read(); if not line: raise``: an if, not the loop's test
    follow = _for_follow(s, loop, test_exit)
    if follow is None or s.through_jumps(follow) == s.through_jumps(test_exit):
        # (3.8, 3.9: ``while True: if not c(): break ... break``, each way out a jump to
        # the code after the loop: no else clause, which would copy that code)
        return None
    loop.follow = s.g.block_at.get(follow)
    loop.else_start = test_exit
    return test_exit


def _else_clause(s, start, stop, frame, region):
    else_frame = Frame(s.ctx, frame.stack, floor=len(frame.stack))
    kind = s.jump_kind(start, region) if s.through_jumps(start) != s.through_jumps(stop) else None
    if kind == "stop" and region.loop is not None and start == region.loop.header.start:
        kind = "continue"   # (the end of the enclosing loop's body is its top)
    if kind in ("continue", "break"):
        # (3.8, 3.9: a while loop's test jumps straight on to where the ``continue`` or
        # ``break`` of its else clause goes, an enclosing loop's top or end, and not
        # where the loop goes on)
        s.jump_out(kind, else_frame)
        return else_frame.out
    end = s.seq(start, else_frame, region.child(stop=stop))
    else_frame.flush_parallel()
    if end is None and not never_runs_on(else_frame.out) and not same_code(s.instrs, start, stop):
        # the code where the test leaves leaves the statement the loop is in, and is no
        # copy of the code after the loop (3.13: ``while True: if not c(): break`` then a
        # try whose else clause returns, all in an except clause: the test's way out ends
        # the clause; the text ran on to the try's else clause)
        raise ElseClauseLeaves("the else clause of the loop at %d leaves the statement the loop is in" % start)
    return else_frame.out



def _for(s, loop, frame, region):
    header = loop.header
    frame.run(s.instrs[header.start:header.end - 1])
    iterator = frame.pop_raw()
    if not isinstance(iterator, si.Iter):
        # an iterator made elsewhere (a comprehension's ``.0``, a resume
        # function's stack): ``iter()`` of an iterator is the iterator itself
        iterator = si.Iter(si.as_expr(iterator))
    if s.instrs[header.end - 1].argval == "async" and not iterator.is_async:
        # an async generator expression gets its ``.0`` ready from GET_AITER
        iterator = si.Iter(iterator.expr, is_async=True)
    exit_pos = s.instrs[header.end - 1].target
    follow = _for_follow(s, loop, exit_pos, iterator_depth=len(frame.stack) + 1)
    loop.follow = s.g.block_at.get(follow) if follow is not None else None
    body_frame = Frame(s.ctx, frame.stack + [iterator, si.LoopItem()], floor=len(frame.stack))
    inner = region.child(stop=header.start, loop=loop, blocks=None, exits=None, elide=None)
    end = s.seq(header.end, body_frame, inner)
    body_frame.flush_parallel()
    if end is not None and end != header.start:
        raise DecompilationError("for body at %d leaves the loop unexpectedly" % header.start)
    target, body = _loop_target(body_frame.out, si.LoopItem)
    body = _drop_final_continue(frame.notes, body)
    orelse = []
    if follow != exit_pos:
        orelse = _else_clause(s, exit_pos, follow, frame, region)
    node_cls = ast.AsyncFor if iterator.is_async else ast.For
    node = node_cls(target=target, iter=iterator.expr, body=body or [ast.Pass()], orelse=orelse,
                    type_comment=None)
    comp = comprehension_of(node, frame)
    if comp is None:
        frame.emit(node)
    if follow is None:
        return None
    return s.goto(follow, frame, region)


def _for_follow(s, loop, exit_pos, iterator_depth=None):
    """Where ``break`` goes: past an ``else`` clause if there is one.

    A jump out of the body to a point after the normal exit is a ``break``
    over an ``else`` clause (jump threading may send it straight on to where
    the clause itself ends, e.g. an enclosing loop's header).  A ``for`` loop
    gives ``iterator_depth``, the stack's depth holding its iterator.
    """
    jumped, fallen, kept = set(), set(), set()
    for b in loop.body:
        last = s.instrs[b.end - 1]
        for succ in b.succs:
            if succ in loop.body or succ.start == exit_pos:
                continue
            if last.op in ("JUMP", "POP_JUMP_IF_FALSE", "POP_JUMP_IF_TRUE") or succ.start != b.end:
                jumped.add(succ.start)
            elif succ.handler != b.handler:   # falling out of the try the loop is in
                (kept if _keeps_iterator(b, iterator_depth) else fallen).add(succ.start)
    # break paths leave the natural loop before they jump: scan the loop's span (but for
    # the jump that ends a copy of the code the loop leaves to: 3.13 copies the end of
    # the clause the loop is in into a ``break``, which skips no else clause)
    copied = _copy_of_exit(s, exit_pos)
    for pos in range(loop.header.end, exit_pos):
        ins = s.instrs[pos]
        if ins.op == "JUMP" and ins.target is not None and (ins.target > exit_pos or ins.target < loop.header.start) \
                and not (copied and pos - copied >= loop.header.end and same_code(s.instrs, pos - copied, exit_pos)):
            jumped.add(ins.target)
    targets = jumped | fallen | kept
    kept -= jumped | fallen
    # a block laid out inside the loop (``elif c: raise``) is not past an else clause
    span_end = max(b.end for b in _reached_normally(loop))
    # (3.13 may lay out first a break path that leaves the loop's try, then an else
    # clause that raises, or that leaves the try too, by other code)
    else_leaves = _ends(s, exit_pos) or _leaves_try(s, loop, exit_pos)
    if else_leaves:
        targets |= {p for p in (_out_of_try(s, loop, t) for t in targets) if p is not None
                    and not same_code(s.instrs, p, exit_pos)}
    # (a break that is only a jump to where the test leaves goes there: no else clause;
    # code still in a try or except clause inside the loop, as the value of a ``return``
    # from a clause laid out after the loop (3.12+), is no place a ``break`` goes to, nor
    # is the bare ``RETURN_VALUE`` of such a return (maybe after finally copies), nor
    # is code that a try in a for loop falls out to with the iterator still on the stack)
    inner = {b.handler for b in loop.body if b.handler != loop.header.handler}
    candidates = sorted(t for t in targets if (t > exit_pos or else_leaves and _leaves_try(s, loop, t))
                        and t >= span_end and not _reraises(s, t, loop) and not _jumped_over(s, loop, exit_pos, t)
                        and not _ends_inner_clause(s, loop, t) and not _returns_through_with(s, t)
                        and not (t in s.g.block_at and s.g.returns_from_a_clause(s.g.block_at[t], loop))
                        and not _drops_the_iterator(s, loop, t)
                        and not s.g.returns_a_value_from_before(t)
                        and s.through_jumps(t) != exit_pos and t not in kept
                        and not _finally_copy_then_exit(s, loop, t, exit_pos)
                        and not _finally_copy_then_earlier_return(s, loop, t, exit_pos)
                        and not _finally_copy_then_jump(s, loop, t)
                        and not _test_jumps_past(s, loop, exit_pos, t)
                        and not _handled_over_the_iterator(s, t, iterator_depth)
                        and not _in_a_try_of_the_loop(s, t, inner))
    if candidates:
        return candidates[0]
    # (3.13 copies the end of the except clause the loop is in into a ``break`` path
    # laid out in the loop's span: ``POP_TOP`` of the iterator, then ``POP_EXCEPT``
    # out of the clause's try; the loop goes on at that copy, linecache.updatecache)
    for t in sorted(targets):
        block = s.g.block_at.get(t)
        if block is not None and span_end <= t < exit_pos and block.end < len(s.instrs) \
                and [i.op for i in s.instrs[block.start:block.end]] == ["POP_TOP"] \
                and s.instrs[block.end].op == "POP_EXCEPT" and _leaves_try(s, loop, block.end):
            return block.end
    # (a break that jumps to where the test leaves, which jumps on to the enclosing
    # loop's header, skips no else clause)
    outer = _enclosing_loop(s, loop)
    if outer is not None and exit_pos != outer.header.start \
            and outer.header.start in {s.through_jumps(t) for t in targets if not _jumps_via(s, t, exit_pos)}:
        return outer.header.start  # a break over an else clause, threaded to the next iteration
    return exit_pos if exit_pos < len(s.instrs) else None


def _in_a_try_of_the_loop(s, pos, inner):
    """Whether the code at ``pos`` is under one of the ``inner`` handlers (those of tries
    and clauses in the loop's body), or in a try nested in one: code of the loop laid out
    past it, not code after the loop, which runs under the loop's own handler (3.12+: an
    ``if`` arm in an except clause of the body that begins a try and never goes on)."""
    block = s.g.block_at.get(pos)
    return block is not None and any(h is not None and h in inner for h in s.g.handlers_around(block.handler))


def _handled_over_the_iterator(s, pos, iterator_depth):
    """Whether the code at ``pos`` is in a try whose handler keeps the ``for`` loop's
    iterator on the stack (``iterator_depth``): code of a try in the loop, laid out past
    it, not code after the loop, where the iterator is gone (3.12+: a try in an except
    clause of the loop's body, whose body never goes on)."""
    block = s.g.block_at.get(pos)
    handler = block.handler if block is not None else None
    return iterator_depth is not None and handler is not None and handler[1] >= iterator_depth


def _finally_copy_then_exit(s, loop, pos, exit_pos):
    """Whether the code at ``pos`` is a copy of the finally body of a try in ``loop`` (a
    ``break`` from its body runs it first), then the code at ``exit_pos`` or a copy of it
    (3.12+ copy the short code after the loop into the ``break`` path): that ``break``
    goes where the test leaves, over no else clause."""
    block = s.g.block_at.get(pos)
    past = s.g.past_finally_copy(block, loop) if block is not None else None
    if past is None:
        return False
    # (the copy's own jump, in the block it ends: as the ``continue`` of an enclosing loop
    # that the loop's test jumps to as well, 3.8, 3.9 ``break`` from a try/except/finally;
    # to where the test leaves, 3.12+ ``break`` from an except clause under the try)
    on = s.instrs[past].target if past < len(s.instrs) and s.instrs[past].op == "JUMP" else past
    return s.through_jumps(on) == s.through_jumps(exit_pos) or same_code(s.instrs, past, exit_pos) \
        or same_code(s.instrs, on, exit_pos)


def _finally_copy_then_earlier_return(s, loop, pos, exit_pos):
    """Whether the code at ``pos`` is a copy of the finally body of a try in ``loop``, then
    a ``return`` on a line before that of the code the loop's test leaves to, or on one of
    the loop's own lines: the way out of a ``return`` in the try's body or an except clause
    of it, which runs the copy first, not a ``break`` past an else clause (3.10 loads the
    constant a ``return 'x'`` returns after the copy; the code after the loop that a
    ``break`` path may copy comes after the loop's lines).  (The loop's test may leave to
    the function's implicit return, on the ``while`` line: 3.12+ ``except E: return 2`` in
    the loop, the return's copy taken for code after the loop, which a ``break`` then ran.)"""
    block = s.g.block_at.get(pos)
    past = s.g.past_finally_copy(block, loop) if block is not None else None
    if past is None or exit_pos >= len(s.instrs):
        return False
    ops = [ins.op for ins in s.instrs[past:past + 2]]
    if ops[:1] != ["RETURN_VALUE"] and ops != ["LOAD_CONST", "RETURN_VALUE"]:
        return False
    line, exit_line = s.instrs[past].line, s.instrs[exit_pos].line
    if line is None:
        return False
    lines = [ins.line for b in loop.body for ins in s.instrs[b.start:b.end] if ins.line is not None]
    return exit_line is not None and line < exit_line or bool(lines) and min(lines) <= line <= max(lines)


def _finally_copy_then_jump(s, loop, pos):
    """Whether the code at ``pos`` is a copy of the finally body of a try in ``loop``, then
    a jump on: the way out of a ``break`` from the try's body or an except clause of it,
    which runs the copy first and goes on where the jump leads (3.12+: past a with's exit
    copy), not code after the loop, where the copy would run a second time."""
    block = s.g.block_at.get(pos)
    past = s.g.past_finally_copy(block, loop) if block is not None else None
    return past is not None and past < len(s.instrs) and s.instrs[past].op == "JUMP"


def _test_jumps_past(s, loop, exit_pos, pos):
    """Whether the loop's test leaves by jumps alone to code laid out past ``pos`` that
    ``pos`` never reaches, inside any enclosing loop (no ``continue`` or ``break`` of it):
    no else clause can be written there, since one would go on at ``pos``.  The test's
    way out leaves the try the loop is in, and ``pos`` is an arm inside the loop that
    ends (``while True: if not c(): break`` then a try whose else clause returns, in a
    try, 3.8 and 3.9)."""
    block = s.g.block_at.get(exit_pos)
    if block is None or s.instrs[exit_pos].op != "JUMP" or block.end != exit_pos + 1:
        return False
    landing = s.g.block_at.get(s.through_jumps(exit_pos))
    if landing is None or landing.start <= pos or pos not in s.g.block_at:
        return False
    outer = _enclosing_loop(s, loop)
    if outer is not None and (landing is outer.header or landing not in outer.body):
        return False
    return not s.g.reaches(s.g.block_at[pos], landing)


def _keeps_iterator(block, iterator_depth):
    """Whether falling out of ``block``'s try leaves a ``for`` loop's iterator on the
    stack: the try is inside the loop, so what follows still pops it (a ``return`` from
    an except clause that 3.12 lays out after the loop), which no ``break`` goes to.
    Falling out of the try the loop is in is a way past the loop."""
    return iterator_depth is not None and block.handler is not None and block.handler[1] >= iterator_depth


def _jumps_via(s, pos, via):
    """Whether the chain of blocks holding only ``JUMP`` from ``pos`` passes ``via``."""
    for _ in range(16):
        if pos == via:
            return True
        if pos is None or pos >= len(s.instrs) or s.instrs[pos].op != "JUMP" \
                or s.g.of_instr[pos].start != pos:
            return False
        pos = s.instrs[pos].target
    return False


def _ends_inner_clause(s, loop, pos):
    """Whether ``pos`` ends an except clause inside the loop: the code of a ``break``
    from the clause, which 3.12+ threads on to a copy of the ``return`` after the
    loop, not the loop's follow."""
    block = s.g.block_at.get(pos)
    return block is not None and s.instrs[pos].op == "POP_EXCEPT" \
        and any(p in loop.body and p.handler != loop.header.handler for p in block.preds)


def _copy_of_exit(s, exit_pos):
    """How far the code at ``exit_pos`` runs, straight, to the jump that ends it (the end
    of an except clause, then the jump past the try), or 0 if it does not."""
    for end in range(exit_pos, min(len(s.instrs), exit_pos + 8)):
        op = s.instrs[end].op
        if op == "JUMP":
            return end - exit_pos
        if op in JUMPS or op in NO_NEXT:
            return 0
    return 0


def _drops_the_iterator(s, loop, pos):
    """Whether the block at ``pos``, entered only by falling out of tests in ``loop``'s
    body (with the iterator still on the stack), drops the iterator: first, or from
    under the value it returns (``SWAP 2; POP_TOP; RETURN_VALUE``, no other drop before).
    It is the loop's last statement (``if c: continue`` then ``return x``, laid out after
    the loop's except clauses, 3.12+), no place a ``break`` goes to: a ``break`` drops
    the iterator before it jumps."""
    block = s.g.block_at.get(pos)
    if block is None or not block.preds \
            or not all(p in loop.body and s.instrs[p.end - 1].op in CONDITIONAL for p in block.preds):
        return False
    ops = [i.op for i in s.instrs[pos:block.end]]
    return ops[0] == "POP_TOP" or ops[-3:] == ["SWAP", "POP_TOP", "RETURN_VALUE"] \
        and s.instrs[block.end - 3].argval == 2 and "POP_TOP" not in ops[:-3]


def _returns_through_with(s, pos):
    """Whether ``pos`` runs a ``with``'s exit copy and returns: a ``return`` from the
    with's body (from an except clause in it, laid out after the loop on 3.12+), no
    place a ``break`` goes to.  A value to return is moved under the exit first; a
    constant is loaded after it (``for``/``with``/``try``/``except E: return``).  From
    nested withs the return runs each one's exit copy, innermost first, each outside the
    range of the one before: a straight run of blocks that each start with one."""
    block = s.g.block_at.get(pos)
    while block is not None and s.g.starts_with_exit_copy(block):
        if not block.succs:
            return s.instrs[block.end - 1].op == "RETURN_VALUE"
        if len(block.succs) != 1 or block.succs[0].start != block.end:
            return False
        block = block.succs[0]
    return False


def _reached_normally(loop):
    """The loop's blocks reached from its header without an exception: 3.11+ lays
    handler code (and what only it reaches) out after the function's other code."""
    seen = {loop.header}
    todo = [loop.header]
    while todo:
        for b in todo.pop().succs:
            if b in loop.body and b not in seen:
                seen.add(b)
                todo.append(b)
    return seen


def _runs_statements(instrs):
    """Whether straight-line code stores or drops a value (a walrus stores a copy): then
    its conditional jump is no ``while`` test, which is one expression."""
    return any(ins.op == "POP_TOP" or ins.op.startswith(("STORE_", "DELETE_"))
               and not (i and instrs[i - 1].op == "COPY") for i, ins in enumerate(instrs))


def _leaves_try(s, loop, pos):
    """Whether ``pos`` lies just outside the try (or except clause) the loop runs in."""
    block, inside = s.g.block_at.get(pos), loop.header.handler
    if block is None or inside is None:
        return False
    handler = s.g.block_at.get(inside[0])
    return handler is not None and block.handler == handler.handler


def _out_of_try(s, loop, pos):
    """Where the straight path from ``pos`` (a ``break``'s code) leaves the try the loop
    runs in, or None."""
    block = s.g.block_at.get(pos)
    for _ in range(8):
        if block is None or block in loop.body or len(block.succs) != 1:
            return None
        if block.handler != loop.header.handler:
            return block.start if _leaves_try(s, loop, block.start) else None
        block = block.succs[0]
    return None


def _ends(s, pos):
    """Whether the block at ``pos`` returns or raises."""
    block = s.g.block_at.get(pos)
    return block is not None and not block.succs


def _jumped_over(s, loop, exit_pos, target):
    """The loop's exit is only a jump past ``target``, code from which every path
    returns or raises, or a jump back to an enclosing loop's header (3.8/3.9 ``for:
    while c: ... if d: return``, or ``if d: if e: yield x; return`` in the loop's own
    try, if any): ``target`` is an ``if`` arm after the loop's last test, not code past
    an else clause (which would have to fall into it)."""
    exit_to = s.through_jumps(exit_pos)
    block = s.g.block_at.get(target)
    # (or an arm that begins a try of its own, laid out before where the loop's exit goes:
    # 3.8, 3.9 ``if c: try: del r; return x finally: ...``, no normal way back to the loop)
    inner_try = block is not None and block.handler is not None and block.handler != loop.header.handler \
        and loop.header.start < target < block.handler[0] < exit_to
    if block is not None and _jumps_on_inside(s, loop, block, exit_to):
        return True
    return (exit_to > target or exit_to < loop.header.start) and block is not None \
        and (_ends(s, target) or (block.handler == loop.header.handler or inner_try) and not _only_leaves(s, block)
             and s.g.only_ends(block, loop, ("RAISE_VARARGS", "RETURN_VALUE")))


def _jumps_on_inside(s, loop, block, exit_to):
    """Whether ``block``, in the loop's own try, only jumps to code laid out before where
    the loop's exit goes (inside the loop's span) from which every path returns or raises:
    the way from the body of a try inside the loop to its else clause that raises (3.8,
    3.9 ``try: ... except E: pass else: raise F``; 3.13 ``try: with cm: ... except* E:
    ... else: raise F``, the with's suppressing exit jumping back from past the loop's
    exit, under the handler of the loop's try), no ``break``."""
    last = s.instrs[block.end - 1]
    if block.handler is None or block.handler != loop.header.handler or block.end - block.start != 1 \
            or last.op != "JUMP" or last.target is None or not loop.header.start < last.target < exit_to:
        return False
    on = s.g.block_at.get(last.target)
    return on is not None and on.handler == block.handler and bool(on.preds) \
        and s.g.only_ends(on, loop, ("RAISE_VARARGS", "RETURN_VALUE"))


def _only_leaves(s, block):
    """Whether ``block`` only drops a value and jumps: an enclosing for's ``break`` (the
    iterator popped), no ``if`` arm, even when the code it jumps to returns (imp's
    ``find_module``: ``for: for: if c: break / else: continue / break / else: raise``)."""
    return all(ins.op in ("POP_TOP", "JUMP") for ins in s.instrs[block.start:block.end])


def _enclosing_loop(s, loop):
    """The innermost other loop whose body holds ``loop``, or None."""
    around = [other for other in s.g.loops.values() if other is not loop and loop.header in other.body]
    return min(around, key=lambda other: len(other.body)) if around else None


def _reraises(s, pos, loop=None):
    """Whether ``pos`` is handler code: a re-raise (a way out, never a ``break``)
    or the next clause of an except handler started in the loop."""
    block = s.g.block_at.get(pos)
    if block is None:
        return False
    if not block.succs and s.instrs[block.end - 1].op == "RERAISE":
        return True
    if loop is None or block.handler is None or block.handler == loop.header.handler:
        return False
    hb = s.g.block_at.get(block.handler[0])
    return hb is not None and s.instrs[hb.start].op == "COPY" and handler_regions.is_transparent(s.instrs, hb)


def _loop_target(stmts, marker_type):
    """Split the statement that binds the loop variable off the body."""
    if stmts and isinstance(stmts[0], ast.Assign) and isinstance(stmts[0].value, marker_type):
        return stmts[0].targets[0], stmts[1:]
    if stmts and isinstance(stmts[0], ast.Assign) and isinstance(stmts[0].value, ast.Await) and isinstance(stmts[0].value.value, si.AsyncItem):
        return stmts[0].targets[0], stmts[1:]
    if stmts and isinstance(stmts[0], si.Discard) and isinstance(stmts[0].value, marker_type):
        return si.name("_", store=True), stmts[1:]
    raise DecompilationError("cannot find the loop variable")


def _while_from(notes, node):
    """``while True: if not c: break; B`` is ``while c: B``.

    A ``break`` to the ``else`` clause (see :func:`_while_else`) must be that
    guard; anywhere else it cannot be written and the loop is refused.
    """
    first = node.body[0] if node.body else None
    if (isinstance(first, ast.If) and not first.orelse and len(first.body) == 1
            and isinstance(first.body[0], ast.Break)):
        node = ast.While(test=negate(first.test), body=node.body[1:] or [ast.Pass()], orelse=node.orelse)
    for n in loop_body_nodes(node.body):
        if isinstance(n, ast.Break) and notes.to_else.get(n, False):
            raise DecompilationError("jump into a while loop's else clause from its body")
    return node


def rewrite_guarded_while(stmts):
    """``if c: while True: B; if not c: break`` -> ``while c: B`` (3.11+ loop layout),
    in ``stmts`` and the blocks nested in them (functions have their own pass)."""
    for owner, field in reversed(statement_lists(stmts)):
        setattr(owner, field, _guarded_while_rewritten(getattr(owner, field)))
    return _guarded_while_rewritten(stmts)


def _guarded_while_rewritten(stmts):
    """:func:`rewrite_guarded_while` in ``stmts`` alone, the lists nested in them done."""
    out = []
    for st in stmts:
        if (isinstance(st, ast.If) and not st.orelse and len(st.body) == 1
                and isinstance(st.body[0], ast.While) and _is_true(st.body[0].test)
                and not st.body[0].orelse):
            loop = st.body[0]
            tail = loop.body[-1] if loop.body else None
            if (isinstance(tail, ast.If) and not tail.orelse and len(tail.body) == 1
                    and isinstance(tail.body[0], ast.Break)
                    and ast.dump(negate(tail.test)) == ast.dump(st.test)):
                out.append(ast.While(test=st.test, body=loop.body[:-1] or [ast.Pass()], orelse=[]))
                continue
        out.append(st)
    return out


def _filter_lines(filters, fill, notes):
    """Note each filter whose original line is not the element's (the line of ``fill``),
    where the line decides how its test jumps (``facts.FILTER_LINE_DECIDES_JUMP``)."""
    element = notes.line.get(fill)
    if not facts.FILTER_LINE_DECIDES_JUMP or element is None:
        return
    for test, stmt in filters:
        line = notes.line.get(stmt)
        if line is not None and line != element:
            notes.filter_line.set(test, line)


def _is_true(node):
    return isinstance(node, ast.Constant) and node.value is True


# --- comprehensions --------------------------------------------------------

def comprehension_of(node, frame):
    """If ``node`` only fills the accumulator under the iterator, push the comprehension."""
    acc = frame.top()
    if not frame.notes.accumulator.get(acc, False):
        return None
    gens, elt = _generators(node, acc, frame.notes)
    if gens is None:
        return None
    frame.pop_raw()
    frame.push(build_comprehension(acc, gens, elt))
    return True


def build_comprehension(acc, gens, elt):
    if isinstance(acc, ast.List):
        return ast.ListComp(elt=elt[0], generators=gens)
    if isinstance(acc, ast.Dict):
        return ast.DictComp(key=elt[1], value=elt[0], generators=gens)
    return ast.SetComp(elt=elt[0], generators=gens)


def _generators(loop, acc, notes):
    """Comprehension clauses of a nest of for/if whose innermost act fills ``acc``."""
    gens, filters = [], []    # filters: (the test in a clause's ifs, the if statement it came from)
    node = loop
    while True:
        is_async = isinstance(node, ast.AsyncFor)
        comp = ast.comprehension(target=node.target, iter=node.iter, ifs=[], is_async=int(is_async))
        gens.append(comp)
        if node.orelse:
            return None, None
        body = list(node.body)
        while True:
            if len(body) >= 1 and isinstance(body[0], ast.If) and not body[0].orelse \
                    and len(body[0].body) == 1 and isinstance(body[0].body[0], ast.Continue):
                comp.ifs.append(negate(body[0].test))
                filters.append((comp.ifs[-1], body[0]))
                body = body[1:]
                continue
            if len(body) == 1 and isinstance(body[0], ast.If) and not body[0].orelse:
                comp.ifs.append(body[0].test)
                filters.append((comp.ifs[-1], body[0]))
                body = body[0].body
                continue
            if len(body) > 1 and isinstance(body[0], ast.If) and not body[0].orelse \
                    and all(isinstance(st, ast.Pass) for st in body[0].body):
                # a filter the compiler found always true (``if (1 if c else 2)``) still
                # tests ``c``: ``if c or True``
                comp.ifs.append(si.boolop(ast.Or(), body[0].test, ast.Constant(value=True)))
                filters.append((comp.ifs[-1], body[0]))
                body = body[1:]
                continue
            break
        if len(body) == 1 and isinstance(body[0], (ast.For, ast.AsyncFor)):
            node = body[0]
            continue
        if len(body) == 1 and isinstance(body[0], si.Appended) and body[0].target is acc:
            _filter_lines(filters, body[0], notes)
            return gens, (body[0].value, body[0].key)
        if all(isinstance(st, ast.Pass) for st in body):
            # the compiler dropped an element behind a constant-false condition
            # (``[f(x) for x in xs if None]``): iterate all the same, add nothing
            comp.ifs.append(ast.Constant(value=False))
            return gens, (ast.Constant(value=None), ast.Constant(value=None))
        return None, None
