"""Finally bodies: the statements read from the handler's copy, and the elider that
skips each copy of them on a normal path.

The handler's copy loses its final re-raise; a ``break`` that the compiler threaded
to that re-raise is a ``break`` again, a tail copied into each path is one tail, and
the arms of an ``if``/``elif`` ending the body, each with its own re-raise, are one
``if``.  A normal path's copy is walked path by path against the handler's copy.
"""
import ast
import copy

from ..bytecode.opcodes import EXITS
from ..errors import DecompilationError
from ..graph.blocks import same_code, same_target
from ..syntax.astwalk import loop_body_nodes
from . import clause_ends
from . import handler_regions
from . import stackitems as si


def finally_body(s, hblock, stmts):
    """The finally statements, and the skipper of their normal-path copies."""
    notes = s.ctx.bindings.notes
    stmts = _fold_reraising_ifs(notes, _merge_copied_tail(notes, list(stmts)))
    stmts = _threaded_breaks(notes, clause_ends.without_exc_ends(_strip_final_reraise(notes, stmts), None))
    _refuse_threaded_reraise(notes, stmts)
    own = s.instrs[hblock.start].handler  # a nested finally's RERAISE has another handler
    return stmts, _finally_elider(s, hblock.start + 1, own)


def _merge_copied_tail(notes, stmts):
    """The handler copy with the tail after its last ``if`` or ``try`` taken out of
    the arms that end in a copy of it: 3.13 copies a short tail ending in the final
    ``RERAISE`` (``x.y = 1; RERAISE``) into each path that reaches it, and an arm's
    end falls through to the tail anyway."""
    k = max((i for i, st in enumerate(stmts) if isinstance(st, (ast.If, ast.Try))), default=None)
    tail = stmts[k + 1:] if k is not None else []
    last = tail[-1] if tail else None
    if not (isinstance(last, ast.Raise) and notes.reraise.get(last, False)):
        return stmts
    dumped = [ast.dump(st) for st in tail]
    return stmts[:k] + [_without_tail(notes, stmts[k], dumped)] + tail


def _fold_reraising_ifs(notes, stmts):
    """The handler copy with the code after an ``if`` whose arm ends in the final
    ``RERAISE`` made its ``else``: 3.12+ gives each arm of an ``if``/``elif`` ending
    the finally body its own ``RERAISE``, and the structurer, seeing the first arm
    leave, lays the ``elif`` after it.  Arms are folded too (an ``if`` nested in the
    last ``if``: requests' ``set_environ``)."""
    for i, st in enumerate(stmts):
        if not isinstance(st, ast.If):
            continue
        st = _replaced(notes, st, body=_fold_reraising_ifs(notes, st.body),
                       orelse=_fold_reraising_ifs(notes, st.orelse))
        if i + 1 < len(stmts) and not st.orelse and notes.reraise.get(st.body[-1], False):
            return stmts[:i] + [_replaced(notes, st, orelse=_fold_reraising_ifs(notes, stmts[i + 1:]))]
        stmts = stmts[:i] + [st] + stmts[i + 1:]
    return stmts


def _without_tail(notes, st, dumped):
    """A copy of ``st`` whose arms that fall through to its end lose a final copy of
    the tail (``dumped``), nested arms too."""
    if isinstance(st, ast.If):
        return _replaced(notes, st, body=_arm_without_tail(notes, st.body, dumped),
                         orelse=_arm_without_tail(notes, st.orelse, dumped, empty=[]))
    if isinstance(st, ast.Try) and not st.finalbody:
        return _replaced(notes, st, body=st.body if st.orelse else _arm_without_tail(notes, st.body, dumped),
                         handlers=[_replaced(notes, h, body=_arm_without_tail(notes, h.body, dumped)) for h in st.handlers],
                         orelse=_arm_without_tail(notes, st.orelse, dumped, empty=[]))
    return st


def _replaced(notes, node, **fields):
    """A shallow copy of ``node`` with ``fields`` replaced; the line it was marked
    with (``notes.line``) stays."""
    node = notes.copy(node, copy.copy(node))
    for field, value in fields.items():
        setattr(node, field, value)
    return node


def _arm_without_tail(notes, stmts, dumped, empty=None):
    n = len(dumped)
    if len(stmts) >= n and notes.reraise.get(stmts[-1], False) and [ast.dump(st) for st in stmts[-n:]] == dumped:
        stmts = stmts[:-n]
    if stmts and isinstance(stmts[-1], (ast.If, ast.Try)):
        stmts = stmts[:-1] + [_without_tail(notes, stmts[-1], dumped)]
    return stmts or ([ast.Pass()] if empty is None else empty)


def _threaded_breaks(notes, stmts):
    """The handler copy with the ``break`` statements of a loop that ends the finally
    body put back: leaving that loop is reaching the body's end, so the compiler
    threads the jump to the final ``RERAISE`` (3.12+; with an ``else`` clause, which the
    ``break`` jumps past, every version), which reads as ``raise``."""
    stmts = _else_of_threaded_loop(notes, stmts)
    last = stmts[-1] if stmts else None
    if isinstance(last, (ast.While, ast.For, ast.AsyncFor)):
        last = notes.copy(last, copy.copy(last))
        last.body = _reraise_to_break(notes, last.body)
        first = last.body[0]
        if isinstance(last, ast.While) and not last.orelse and isinstance(last.test, ast.Constant) and last.test.value is True \
                and isinstance(first, ast.If) and not first.orelse and len(first.body) == 1 \
                and isinstance(first.body[0], ast.Break):
            # the loop's own test, which leaves to the end as well
            last = ast.While(test=si.negate(first.test), body=last.body[1:] or [ast.Pass()], orelse=[])
    elif isinstance(last, ast.If):
        last = ast.If(test=last.test, body=_threaded_breaks(notes, last.body), orelse=_threaded_breaks(notes, last.orelse))
    else:
        return stmts
    return stmts[:-1] + [last]


def _else_of_threaded_loop(notes, stmts):
    """``stmts`` with the code after their last loop made its ``else`` clause, where that
    loop has none and a ``break`` of it reads as the final re-raise: the ``break`` jumps past
    the ``else`` clause to the finally body's end, so the clause's code reads as if it
    followed the loop.  Not where the loop has a ``break`` of its own: that code is where
    it goes (``try: ... else: return x`` in a ``while True``, the return laid out after the
    loop, came out as the loop's ``else``, which never runs)."""
    k = max((i for i, st in enumerate(stmts) if isinstance(st, (ast.While, ast.For, ast.AsyncFor))), default=None)
    if k is None or k == len(stmts) - 1 or stmts[k].orelse or not _reraises(notes, stmts[k].body):
        return stmts
    if any(isinstance(n, ast.Break) for n in loop_body_nodes(stmts[k].body)):
        return _tail_at_own_break(notes, stmts, k)
    loop = notes.copy(stmts[k], copy.copy(stmts[k]))
    loop.orelse = stmts[k + 1:]
    return stmts[:k] + [loop]


def _tail_at_own_break(notes, stmts, k):
    """``stmts`` with the code after their last loop ``stmts[k]`` (a ``while True``
    whose re-raises are its threaded ``break``) moved to where the loop's one ``break`` of
    its own is: only that ``break`` reaches the code laid out after the loop (``try: ...
    except E: pass`` then ``else: return x``, the return laid out past the loop).  That
    code must not go on (it returns or raises, no ``break`` or ``continue`` of its own)
    and the ``break`` must end the loop body's statements or, through ``if``s, a try
    body (whose ``else`` clause the code becomes: there, the try's clauses catch nothing
    of it).  Unchanged where it cannot be moved so."""
    loop, tail = stmts[k], stmts[k + 1:]
    breaks = [n for n in loop_body_nodes(loop.body) if isinstance(n, ast.Break)]
    if not (isinstance(loop, ast.While) and isinstance(loop.test, ast.Constant) and loop.test.value is True) \
            or len(breaks) != 1 or completes(tail) \
            or any(isinstance(n, (ast.Break, ast.Continue)) for n in loop_body_nodes(tail)):
        return stmts
    body = _with_tail_at_break(notes, loop.body, tail)
    if body is None:
        return stmts
    loop = notes.copy(loop, copy.copy(loop))
    loop.body = body
    return stmts[:k] + [loop]


def _with_tail_at_break(notes, stmts, tail):
    """``stmts`` (a loop body or an arm of an ``if`` in it) with their ``break`` replaced
    by ``tail``, or None where it is not at a place ``tail`` can run from: a
    statement list's end, or a try body's end (``tail`` becomes the try's ``else``)."""
    if stmts and isinstance(stmts[-1], ast.Break):
        return stmts[:-1] + list(tail)
    for i, st in enumerate(stmts):
        if isinstance(st, ast.Try) and not st.orelse and not st.finalbody and isinstance(st.body[-1], ast.Break):
            return stmts[:i] + [_replaced(notes, st, body=st.body[:-1] or [ast.Pass()], orelse=list(tail))] + stmts[i + 1:]
        if isinstance(st, ast.If) and any(isinstance(n, ast.Break) for n in loop_body_nodes([st])):
            body = _with_tail_at_break(notes, st.body, tail) if any(
                isinstance(n, ast.Break) for n in loop_body_nodes(st.body)) else st.body
            orelse = st.orelse if body is not st.body else _with_tail_at_break(notes, st.orelse, tail)
            if body is None or orelse is None:
                return None
            return stmts[:i] + [_replaced(notes, st, body=body, orelse=orelse)] + stmts[i + 1:]
    return None


def _reraises(notes, stmts):
    """Whether ``stmts`` hold a re-raise outside any nested loop, with, except clause or
    finally body (in an ``if``'s arms, or a try's body or ``else`` clause)."""
    return any(notes.reraise.get(st, False) or isinstance(st, ast.If) and (
        _reraises(notes, st.body) or _reraises(notes, st.orelse)) or _plain_try(st) and (
        _reraises(notes, st.body) or _reraises(notes, st.orelse)) for st in stmts)


def _reraise_to_break(notes, stmts):
    """``stmts`` with each re-raise that is not inside a nested loop, with, except clause or
    finally body replaced by ``break``: in an ``if``'s arms, and in a try's body or ``else``
    clause (``try: q.put(x) except Full: ... else: break`` in a ``while True``, the try
    covering neither the jump nor the re-raise it was threaded to)."""
    out = []
    for st in stmts:
        if isinstance(st, ast.Raise) and notes.reraise.get(st, False):
            st = ast.Break()
        elif isinstance(st, ast.If):
            st = ast.If(test=st.test, body=_reraise_to_break(notes, st.body), orelse=_reraise_to_break(notes, st.orelse))
        elif _plain_try(st) and (_reraises(notes, st.body) or _reraises(notes, st.orelse)):
            st = _replaced(notes, st, body=_reraise_to_break(notes, st.body), orelse=_reraise_to_break(notes, st.orelse))
        out.append(st)
    return out


def _plain_try(st):
    """Whether ``st`` is a try with except clauses and no finally body."""
    return isinstance(st, ast.Try) and not st.finalbody


def _refuse_threaded_reraise(notes, stmts):
    """A bare ``raise`` left in the handler copy (outside an except clause of its own)
    is a ``break``, else-clause end or copied tail (3.10 copies small exits into each
    arm of a conditional expression) that the compiler threaded to the final
    ``RERAISE``: the copy cannot be read back faithfully, so refuse rather than guess."""
    todo = list(stmts)
    while todo:
        node = todo.pop()
        if isinstance(node, ast.Raise) and notes.reraise.get(node, False):
            raise DecompilationError("a finally body leaves by a threaded jump to its re-raise")
        if isinstance(node, (ast.ExceptHandler, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        todo.extend(ast.iter_child_nodes(node))


def completes(stmts):
    """Whether running ``stmts`` can reach their end (not every path returns or raises)."""
    last = stmts[-1] if stmts else None
    if isinstance(last, (ast.Return, ast.Raise)):
        return False
    if isinstance(last, ast.If):
        return completes(last.body) or completes(last.orelse)
    return True


def _is_finally_end(ins):
    return ins.op == "RERAISE" and ins.argval == 0


def _strip_final_reraise(notes, stmts, top=True):
    """Drop the bare ``raise`` ending the handler copy of a finally body.

    It ends every path that finishes the body, so when the body ends in an
    ``if`` (3.12+ gives each arm its own ``RERAISE``) it is dropped in each arm.
    """
    if not stmts:
        return stmts
    last = stmts[-1]
    if isinstance(last, ast.Raise) and last.exc is None and notes.reraise.get(last, False):
        return _strip_final_reraise(notes, stmts[:-1], False)
    if isinstance(last, ast.If):
        body = _strip_final_reraise(notes, list(last.body), False)
        orelse = _strip_final_reraise(notes, list(last.orelse), False)
        if body != last.body or orelse != last.orelse:
            return stmts[:-1] + [ast.If(test=last.test, body=body or [ast.Pass()], orelse=orelse)]
    return stmts


def _finally_elider(s, start, own):
    """Skip the normal-path copy of a finally body; return where it continues.

    The handler copy (from ``start`` to a ``RERAISE 0`` of its own handler ``own``)
    and the code at the elided position are walked side by side along every path,
    instruction for instruction; where the handler copy reaches its end, the
    normal path goes on.  All paths must go on in one place (a jump to it counts).
    The layouts may differ where the compiler shared or threaded a tail.
    """
    instrs = s.instrs

    def is_end(a):
        return _is_finally_end(instrs[a]) and instrs[a].handler == own

    def elide(s, pos, frame):
        if is_end(start):
            return pos  # an empty finally body has no copy
        after = walk(pos, False)
        # (a finally body that seems never to complete may go on through the clause of a
        # try inside it, which the walk along its instructions does not reach: ``try:
        # raise E`` then ``except E: pass``)
        return walk(pos, True) if after == handler_regions.ENDS else after

    def walk(pos, into_handlers):
        pairs, exits, todo, handlers = {}, set(), [(start, pos)], set()
        while todo:
            a, b = todo.pop()
            for _ in range(8):  # a jump on one side only: threaded differently, same path
                if a >= len(instrs) or b >= len(instrs) or \
                        (instrs[a].op == "JUMP") == (instrs[b].op == "JUMP") or is_end(a):
                    break
                a, b = (instrs[a].target, b) if instrs[a].op == "JUMP" else (a, instrs[b].target)
            if a < len(instrs) and is_end(a):
                exits.add(b)  # the paths may end the copy in different places
                continue
            if a in pairs:
                if not same_code(instrs, pairs[a], b):
                    return None   # (3.12+ copy a short return into each path to it, on one side only)
                continue
            pairs[a] = b
            if len(pairs) > 4000 or a >= len(instrs) or b >= len(instrs):
                return None
            x, y = instrs[a], instrs[b]
            if into_handlers and own is not None and x.handler is not None and x.handler[1] > own[1] \
                    and (x.handler, y.handler) not in handlers:
                # a try (or with, or except clause) in the body, above the exception the
                # copy handles on the stack: its handlers are paths of the copy too; not
                # those of code the copy jumps back to (a ``continue``)
                if y.handler is None:
                    return None
                handlers.add((x.handler, y.handler))
                todo.append((x.handler[0], y.handler[0]))
            drop = _exception_drop(instrs, a)
            if drop and not _exception_drop(instrs, b):
                # leaving by return/break/continue, the handler's copy first drops its
                # exception; the normal path has none to drop (a ``break`` out of a
                # ``for`` then drops the iterator on both sides: POP_TOP either way)
                todo.append((a + drop, b))
                continue
            if _INVERTED.get(x.op) == y.op:
                # the same test, its jump threaded the other way on one side (a
                # ``continue`` in the body: one copy jumps back, the other drops its
                # exception first, so its test jumps past that)
                todo += [(x.target, b + 1), (a + 1, y.target)]
                continue
            if x.op != y.op or (x.target is None) != (y.target is None):
                return None
            if x.target is not None:
                todo.append((x.target, y.target))
                if x.op != "JUMP":
                    todo.append((a + 1, b + 1))
            elif not _same_arg(x.argval, y.argval):
                return None
            elif x.op not in EXITS:
                todo.append((a + 1, b + 1))
        if len(exits) > 1:
            # 3.8-3.10 end the normal copy with a jump where the other exits go
            exits = {e for e in exits if not (e < len(instrs) and instrs[e].op == "JUMP"
                                              and instrs[e].target in exits)}
        first = min(exits) if exits else None
        if any(not same_target(instrs, first, e) for e in exits):
            return None  # (3.11+ copy a short return after the body into each path: one place)
        return first if exits else handler_regions.ENDS  # every path returns or raises

    def copied_again_after(pos):
        """Whether the straight finally body is copied again past a copy of it at ``pos``
        (before its handler copy): the copy laid out last ends the try's body, one before
        it is a ``break``, ``continue`` or ``return`` from inside the body."""
        end = start
        while end < len(instrs) and not is_end(end) and instrs[end].target is None:
            end += 1
        n = end - start
        if not n or end >= len(instrs) or not is_end(end):
            return False
        body = instrs[start:end]
        return any(all(a.same(b) for a, b in zip(body, instrs[q:q + n]))
                   for q in range(pos + n, start - n) if instrs[q].same(body[0]))
    elide.copied_again_after = copied_again_after
    return elide


#: conditional jumps that test the same value the other way round
_INVERTED = {"POP_JUMP_IF_TRUE": "POP_JUMP_IF_FALSE", "POP_JUMP_IF_FALSE": "POP_JUMP_IF_TRUE",
             "POP_JUMP_IF_NONE": "POP_JUMP_IF_NOT_NONE", "POP_JUMP_IF_NOT_NONE": "POP_JUMP_IF_NONE"}


_DROPS = (("POP_TOP", "POP_EXCEPT"), ("SWAP", "POP_TOP", "SWAP", "POP_EXCEPT"))


def _exception_drop(instrs, pos):
    """How many instructions at ``pos`` drop the handled exception and end the handler
    (under a value being returned, for the longer form); 0 if they do not."""
    for ops in _DROPS:
        run = instrs[pos:pos + len(ops)]
        if tuple(i.op for i in run) == ops and all(i.argval == 2 for i in run if i.op == "SWAP"):
            return len(ops)
    return 0


def _same_arg(a, b):
    return type(a) is type(b) and (a is b or a == b)
