"""``with`` and ``async with`` statements: the body and its target, the exit call on
the normal paths elided, a with whose body is only another one on the same line
joined with it (``with a as x, b as y:``), and where the body goes on when
``__exit__`` suppresses an exception.
"""
import ast

from ..errors import DecompilationError
from ..graph.blocks import same_code, same_outcome
from . import clause_ends
from . import handler_regions
from . import stackitems as si
from . import waiting
from .frame import Frame


_EXIT_CALL = ["LOAD_CONST", "LOAD_CONST", "LOAD_CONST", "CALL"]


def elide_with(s, pos, frame):
    instrs = s.instrs
    p = pos
    if p < len(instrs) and instrs[p].op == "JUMP" and instrs[p].target is not None \
            and _is_exit_call(instrs, instrs[p].target):
        p = instrs[p].target   # (3.12+: an async for's end, END_ASYNC_FOR, jumps back to the exit copy)
    if p < len(instrs) and instrs[p].op == "SWAP" and instrs[p].argval == 2:
        p += 1
    if not _is_exit_call(instrs, p):
        return None
    p += 4
    if p < len(instrs) and instrs[p].op == "GET_AWAITABLE":
        p += 2
    if p < len(instrs) and instrs[p].op == "POP_TOP":
        p += 1
    clause_ends.remove_marker(frame, si.WithExit)
    return p


def _is_exit_call(instrs, p):
    """Whether a with's exit call (``__exit__(None, None, None)``) starts at ``p``."""
    return [i.op for i in instrs[p:p + 4]] == _EXIT_CALL and all(i.argval is None for i in instrs[p:p + 3])


# ``__exit__`` cannot rebind this frame's fast locals: a ``return local`` copied
# after the exit call may move inside the with body
elide_with.keeps_order = True


def _join_items(notes, node):
    """``with a as x, b as y:``: a with statement whose body is only another one that
    begins on the same line was one statement (two would be on two lines).  The implicit
    ``return None`` after the other's exit (``after_exit``: the function's end) may
    follow it, and goes on after its body."""
    inner = node.body[0] if node.body else None
    rest = node.body[1:]
    if rest and not (len(rest) == 1 and _implicit_return_after_exit(notes, rest[0])):
        return
    if type(inner) is type(node) and notes.line.get(inner) is not None \
            and notes.line.get(inner) == notes.line.get(node):
        node.items += inner.items
        node.body = inner.body if _implicit_return_after_exit(notes, inner.body[-1]) else inner.body + rest


def _implicit_return_after_exit(notes, st):
    return isinstance(st, ast.Return) and st in notes.after_exit and (
        st.value is None or isinstance(st.value, ast.Constant) and st.value.value is None)


def structure_with(s, block, handler, hblock, body_blocks, frame, region):
    if len(frame.stack) < 2 or not isinstance(frame.stack[-1], si.WithValue):
        raise DecompilationError("with statement without its context at %d" % block.start)
    exit_marker = frame.stack[-2]
    outer = frame.stack[:-2]
    body_frame = Frame(s.ctx, frame.stack)
    exits = []
    body_region = region.child(stop=None, handler=handler, blocks=body_blocks, exits=exits, elide=elide_with,
                               depth=len(frame.stack) - 1, frame=body_frame)   # (the body's first store or
    #                                                                            POP_TOP takes its value)
    s.seq(block.start, body_frame, body_region, entering=s.entered(block, region))
    body_frame.flush_parallel()
    stmts = body_frame.out
    target = None
    if stmts and isinstance(stmts[0], ast.Assign) and isinstance(stmts[0].value, si.WithValue):
        target = stmts[0].targets[0]
        stmts = stmts[1:]
    elif stmts and isinstance(stmts[0], si.Discard) and isinstance(stmts[0].value, si.WithValue):
        stmts = stmts[1:]
    else:
        raise DecompilationError("with statement at %d: cannot find its target" % block.start)
    item = ast.withitem(context_expr=exit_marker.ctx, optional_vars=target)
    node_cls = ast.AsyncWith if exit_marker.is_async else ast.With
    node = node_cls(items=[item], body=stmts or [ast.Pass()], type_comment=None)
    frame.emit(node)
    _join_items(s.ctx.bindings.notes, node)
    exit_ = handler_regions.one(s, exits, "with body")
    body_frame.stack = waiting.restack(frame, body_frame.stack)   # (values evaluated before the with)
    frame.stack = handler_regions.stack_after(waiting.restack(frame, outer), body_frame, exit_, "with body")
    suppressed = _suppressed(s, hblock)
    if exit_ is not None and suppressed is not None and not same_outcome(s.instrs, exit_, suppressed):
        # the body leaves by a way the code after the with, where a suppressing exit goes
        # on, does not: a ``continue`` ending the body, or a ``break`` whose exit copy
        # is followed by a copy of the return after the loop (3.10, 3.12+; from a for
        # loop, after dropping its iterator).  Two copies of a finally body around the
        # with, each ending in a ``return``, are one way on
        differ = s.jump_kind(suppressed, region) != s.jump_kind(exit_, region)
        way_out = _with_body_way_out(s, exit_, frame, region) if differ or _drops_the_iterator(s, exit_, frame) \
            else None
        if way_out is None and not differ:
            # a ``break`` or ``continue`` ending the body runs the exit copies of the tries and
            # withs around the with first (3.12+: the finally copy falls into the code after
            # the loop): the suppressing exit goes on to the code after the with
            kind = _loop_jump_past_copies(s, exit_, frame, region)
            if kind is not None and kind != _loop_jump_past_copies(s, suppressed, frame, region):
                out = Frame(s.ctx, list(frame.stack))
                s.jump_out(kind, out)
                way_out = out.out
        if way_out is not None:
            node.body = [st for st in node.body if not isinstance(st, ast.Pass)] + way_out
            return suppressed
        if differ or _may_raise(s, body_blocks) and not _raises_none(s, suppressed):
            # (the code after the with, written once, would be the code one of them runs:
            # a ``return 't3'`` that a with in a finally body's handler copy returns past
            # the exception it drops, its suppressing exit re-raising it, was written
            # after the with, and ran where the exception went on)
            raise DecompilationError("a with body and its suppressing exit go on in different places [%d, %d]"
                                     % (exit_, suppressed))
    return suppressed if exit_ is None else exit_


#: instructions that never raise: a with body of only these never runs its suppressing exit
_NEVER_RAISE = frozenset(("NOP", "POP_TOP", "JUMP", "LOAD_CONST", "STORE_FAST"))


def _raises_none(s, pos):
    """Whether the code at ``pos`` only drops values, exits the withs around (the
    prologue's nested ones: ``__exit__(None, None, None)``) and ``raise None``: what
    Dynamo writes after a resume function's prologue, which enters the user's withs and
    jumps into the innermost body.  Only an exception a manager suppresses gets there (a
    TypeError then: Dynamo resumes only in managers that suppress nothing); the with is
    written as the user's source has it, its body going on as written."""
    instrs, nones = s.instrs, 0           # (the Nones pushed and not yet dropped)
    while pos + 1 < len(instrs):
        first, second = instrs[pos], instrs[pos + 1]
        if first.op == "LOAD_CONST" and first.argval is None and second.op == "RAISE_VARARGS":
            return second.argval == 1
        if first.op == "JUMP" and first.target is not None and first.target > pos:
            pos = first.target
        elif _is_exit_call(instrs, pos) and pos + 4 < len(instrs) and instrs[pos + 4].op == "POP_TOP":
            pos += 5
        elif first.op == "LOAD_CONST" and first.argval is None:
            nones, pos = nones + 1, pos + 1
        elif first.op == "POP_TOP" and nones:
            nones, pos = nones - 1, pos + 1
        else:
            return False
    return False


def _may_raise(s, blocks):
    """Whether any instruction of ``blocks`` may raise."""
    return any(i.op not in _NEVER_RAISE for b in blocks for i in s.instrs[b.start:b.end])


def _drops_the_iterator(s, pos, frame):
    """Whether ``pos`` drops the iterator of the for loop the with is in (with ``frame``'s
    stack, after the with): the way out of that loop a ``break`` takes."""
    return pos < len(s.instrs) and s.instrs[pos].op == "POP_TOP" and bool(frame.stack) \
        and isinstance(frame.stack[-1], si.Iter)


def _with_body_way_out(s, exit_, frame, region):
    """The statements that end a with body whose way on past the with's exit, ``exit_``,
    is not where its suppressing exit goes on: a jump to the loop's next turn or out of
    it (``continue``, ``break``; at the region's end, the loop's header), or the return
    of a local copied past the exit (3.10, 3.12+: the code after the loop a ``break``
    leaves, which loads its value after ``__exit__`` runs; a local it cannot rebind),
    either after dropping the iterator of the for loop the with is in (a ``break``).
    None if it is neither."""
    loop = region.loop
    stack = list(frame.stack)
    if _drops_the_iterator(s, exit_, frame):
        exit_, stack = exit_ + 1, stack[:-1]
        if s.instrs[exit_].op == "JUMP":
            exit_ = s.instrs[exit_].target
    kind = s.jump_kind(exit_, region)
    if kind == "stop" and loop is not None:
        kind = s.jump_kind(exit_, region.child(stop=None))
    if kind is None and loop is not None and loop.follow is not None \
            and same_code(s.instrs, exit_, s.through_jumps(loop.follow.start)):
        kind = "break"   # (a copy of the code after the loop, whose first copy now jumps to another)
    if len(stack) < len(frame.stack) and kind == "continue":
        return None   # (the iterator dropped: not the loop's next turn)
    out = Frame(s.ctx, stack)
    if kind in ("continue", "break"):
        s.jump_out(kind, out)
    elif kind is None and s.returns_a_bound_local(exit_):
        out.run(s.instrs[exit_:s.g.of_instr[exit_].end])
    else:
        return None
    out.flush_parallel()
    return out.out


def _loop_jump_past_copies(s, pos, frame, region):
    """The ``break`` or ``continue`` of ``region``'s loop that the way on at ``pos`` makes
    past the exit copies of the tries, withs and except clauses around it inside the
    loop (at least one), dropping a for loop's iterator on the way (a ``break``); None
    where a copy is not there or the path goes on elsewhere."""
    loop = region.loop
    if loop is None:
        return None
    scratch = Frame(s.ctx, list(frame.stack))
    r, blocks = region, ()
    while r is not None and r.loop is loop:
        if r.elide is not None and r.blocks is not blocks:
            blocks = r.blocks
            after = r.elide(s, pos, scratch)
            if after is None or after == pos or after == handler_regions.ENDS:
                return None
            pos = after
            dropped = _drops_the_iterator(s, pos, scratch)
            if dropped:
                pos += 1
            if pos < len(s.instrs) and s.instrs[pos].op == "JUMP":
                pos = s.instrs[pos].target
            kind = s.jump_kind(pos, region.child(stop=None))
            if kind == "break" or kind == "continue" and not dropped:
                return kind
            if dropped:
                return None
        r = r.parent
    return None


def _suppressed(s, hblock):
    """Where execution goes when ``__exit__`` suppresses the exception, if anywhere."""
    instrs = s.instrs
    for i in range(hblock.start, min(len(instrs) - 3, hblock.start + 40)):
        if [x.op for x in instrs[i:i + 4]] == ["POP_TOP", "POP_EXCEPT", "POP_TOP", "POP_TOP"]:
            j = i + 4
            if j < len(instrs) and instrs[j].op == "JUMP":
                return instrs[j].target
            return j
    return None
