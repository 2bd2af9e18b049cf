"""``try`` statements from exception-table handler regions (:mod:`.handler_regions`).

A handler is an except clause, a finally body, ``except*`` clauses or a with's exit
(a ``with`` statement: :mod:`.withs`).  Here: the try body, its except clauses
(``except*`` ones read with :mod:`.try_star`), its else clause, the try/finally
around them (the finally body from :mod:`.finally_bodies`), and the short return
tail a ``return`` in a try, clause or with leaves by.
"""
import ast

from ..bytecode import facts
from ..bytecode.opcodes import EXITS
from ..errors import DecompilationError
from ..graph.blocks import past_clause_ends, past_pop_except, same_code, same_target
from . import clause_ends
from . import finally_bodies
from . import handler_regions
from . import stackitems as si
from . import try_star
from . import withs
from .frame import Frame


def _kind(s, hblock):
    instrs = s.instrs
    i = hblock.start
    if instrs[i].op != "PUSH_EXC_INFO":
        raise DecompilationError("exception handler at %d has an unknown shape" % i)
    nxt = instrs[i + 1].op if i + 1 < len(instrs) else None
    if try_star.star_prologue(instrs, i + 1):
        return "star"
    if nxt == "WITH_EXCEPT_START":
        return "with"
    if nxt == "POP_TOP":
        return "except"
    # an except clause first computes its type (``except E``, ``except (A, b.B)``,
    # ``except errors()``) and tests the exception; a finally body does something else
    j = i + 1
    while j < hblock.end + 4 and j < len(instrs):
        op = instrs[j].op
        if op in ("CHECK_EXC_MATCH", "CHECK_EG_MATCH"):
            return "except"
        if not (op.startswith(_TYPE_EXPRESSION) or op in _TYPE_EXPRESSION_OPS):
            break
        j += 1
    return "finally"


_TYPE_EXPRESSION = ("LOAD_", "BUILD_", "BINARY_", "CALL")


_TYPE_EXPRESSION_OPS = {"PUSH_NULL", "PRECALL", "KW_NAMES", "NOP", "LIST_EXTEND", "DICT_MERGE", "LIST_TO_TUPLE"}


def structure_try(s, block, handler, frame, region):
    hblock = s.g.block_at.get(handler[0])
    if hblock is None:
        raise DecompilationError("handler target %d missing" % handler[0])
    kind = _kind(s, hblock)
    body_blocks = handler_regions.region(s, block, handler)
    if kind == "with":
        return withs.structure_with(s, block, handler, hblock, body_blocks, frame, region)
    if kind == "star":
        return _try_star(s, block, handler, hblock, body_blocks, frame, region)
    if s.ctx.spill_copies:
        frame.spill()   # Dynamo's values waiting across the try were computed before it
    hframe = Frame(s.ctx, frame.stack[:handler[1]] + ([si.Marker()] if handler[2] else []) + [si.Exc()])
    h_blocks = handler_regions.region(s, hblock, hblock.handler) if hblock.handler else {hblock}
    h_exits = []
    h_region = region.child(stop=None, handler=s.effective(hblock.handler), blocks=h_blocks,
                            exits=h_exits, elide=_elide_except, frame=hframe)
    base = len(hframe.stack) - 1
    s.seq(hblock.start, hframe, h_region)
    hframe.flush_parallel()
    if h_exits and any(si.is_expr(v) for v in hframe.stack[base:]):
        # a value an except clause computed and leaves on the stack past the statement: the
        # value of a ``return`` whose finally body returns instead, written after the try
        # statement, its evaluation out of the clause (``except: return a``: a NameError
        # lost from the context of what the finally body raises)
        raise DecompilationError("an except clause leaves a value it computed on the stack (in %s)"
                                 % s.ctx.code.co_name)
    elide = None
    if kind == "finally":
        if h_exits:
            # the handler's copy of a finally body ends in its re-raise, or leaves by
            # return, break or continue: a way out to code after it was not understood
            raise DecompilationError("the handler's copy of a finally body goes on at %d" % h_exits[0])
        final, elide = finally_bodies.finally_body(s, hblock, hframe.out)
        # every normal way out of the body runs a copy: where none matches, the structure
        # was not understood, and the copy would read as code after the try (harmless
        # only if the finally body never completes: then nothing after it runs)
        elide.required = finally_bodies.completes(final)
    body, exit_ = _try_body(s, block, handler, body_blocks, frame, region, elide)
    on_body_line = facts.TRY_LINE_KEPT_BY_A_NOP and not s.instrs[block.start].after_nop
    if kind == "finally":
        inner = body[0] if len(body) == 1 else None
        if isinstance(inner, ast.Try) and inner.handlers and not inner.finalbody \
                and not _two_try_lines(s.instrs[block.start]):
            # ``try: ... except ... finally:`` compiles as a try/except inside a
            # try/finally, under one ``try`` line (3.11+: one NOP before the body)
            inner.finalbody = final or [ast.Pass()]
            frame.emit(inner)
            return exit_
        node = ast.Try(body=body, handlers=[], orelse=[], finalbody=final or [ast.Pass()])
    else:
        handlers = _clauses(hframe.out)
        orelse, exit_ = _else_clause(s, exit_, handler_regions.one(s, h_exits, "except clauses"), frame, region, hblock.start)
        node = ast.Try(body=body, handlers=handlers, orelse=orelse, finalbody=[])
    if on_body_line:
        frame.notes.try_on_body_line.set(node)
    frame.emit(node)
    return exit_


def _try_star(s, block, handler, hblock, body_blocks, frame, region):
    """``try`` with ``except*`` clauses.

    Each clause is ``<type>; CHECK_EG_MATCH; COPY 1; POP_JUMP_IF_NONE next;
    STORE name | POP_TOP; <body>``, the body covered by a handler that adds
    what it raises to the list; after the last clause ``PREP_RERAISE_STAR``
    re-raises whatever is left.
    """
    instrs = s.instrs
    p = hblock.start + 1
    p += try_star.star_prologue(instrs, p)
    base = frame.stack[:handler[1]] + ([si.Marker()] if handler[2] else [])
    inner = base + [si.PrevExc(), si.Marker(), si.Marker(), si.Marker()]
    handlers = []
    while True:
        if p >= len(instrs):
            raise DecompilationError("except* handler at %d runs off the code" % hblock.start)
        if instrs[p].op == "LIST_APPEND" and instrs[p].argval == 1:
            p += 1
        if instrs[p].op == "PREP_RERAISE_STAR":
            break
        q = p
        while q < len(instrs) and instrs[q].op != "CHECK_EG_MATCH":
            if instrs[q].target is not None or instrs[q].op in EXITS:
                raise DecompilationError("except* clause at %d has an unknown shape" % p)
            q += 1
        tframe = Frame(s.ctx, [])
        tframe.run(instrs[p:q])
        if len(tframe.stack) != 1 or tframe.out:
            raise DecompilationError("except* clause at %d has an unknown shape" % p)
        type_ = tframe.pop()
        if [x.op for x in instrs[q + 1:q + 3]] != ["COPY", "POP_JUMP_IF_NONE"]:
            raise DecompilationError("except* clause at %d has an unknown shape" % p)
        no_match = instrs[q + 2].target
        bind = instrs[q + 3]
        name = None
        if bind.op in try_star.STORES:
            name = s.ctx.identifier(bind.argval)
        elif bind.op != "POP_TOP":
            raise DecompilationError("except* clause at %d has an unknown shape" % p)
        body = try_star.star_body(s, q + 4, bind.handler, inner, region)
        handlers.append(ast.ExceptHandler(type=type_, name=name, body=body or [ast.Pass()]))
        if no_match >= len(instrs) or instrs[no_match].op != "POP_TOP":
            raise DecompilationError("except* clause at %d has an unknown shape" % p)
        p = no_match + 1
    # PREP_RERAISE_STAR; COPY 1; POP_JUMP_IF_NOT_NONE reraise; POP_TOP; POP_EXCEPT
    tail = [x.op for x in instrs[p + 1:p + 5]]
    if tail != ["COPY", "POP_JUMP_IF_NOT_NONE", "POP_TOP", "POP_EXCEPT"]:
        raise DecompilationError("except* handler at %d has an unknown ending" % hblock.start)
    after = p + 5
    if after < len(instrs) and instrs[after].op == "JUMP":
        after = instrs[after].target
    body, exit_ = _try_body(s, block, handler, body_blocks, frame, region, None)
    orelse, exit_ = _else_clause(s, exit_, after, frame, region)
    frame.emit(ast.TryStar(body=body, handlers=handlers, orelse=orelse, finalbody=[]))
    return exit_


def _two_try_lines(first):
    """Whether the NOPs before a try body's first instruction ``first`` are on two lines:
    a ``try`` statement first in the body of another (3.11+ keep each ``try`` line's NOP),
    not one ``try`` with both except clauses and a finally body."""
    return len(set(first.nop_lines)) >= 2


def _try_body(s, block, handler, body_blocks, frame, region, elide):
    """The statements of a try body and the one place it leaves to (or None)."""
    body_frame = Frame(s.ctx, frame.stack)
    begun = body_frame.last_emit
    body_exits = []
    body_region = region.child(stop=None, handler=handler, blocks=body_blocks, exits=body_exits, elide=elide,
                               depth=len(frame.stack), frame=body_frame)
    s.seq(block.start, body_frame, body_region, entering=s.entered(block, region))
    body_frame.flush_parallel()
    exit_ = handler_regions.one(s, body_exits, "try body")
    frame.stack = handler_regions.stack_after(frame.stack, body_frame, exit_, "try body")
    body = body_frame.out or [ast.Pass()]
    frame.notes.body_begun.set(body[0], begun)
    return body, exit_


def run_return_tail(frame, tail, pos):
    """``try: return v + 1`` in a loop, an except clause or a with: the value leaves the
    try or with body, and the tail that drops the loop's iterator, ends the clause, exits
    the with and returns it lies outside, since it cannot raise (the with's exit is the
    with statement's own doing).  Run it inside."""
    for step in tail:
        if step == "POP_EXCEPT":
            clause_ends.remove_marker(frame, si.PrevExc)
        elif step == "WITH_EXIT":
            if not clause_ends.remove_marker(frame, si.WithExit):
                raise DecompilationError("a with exit without its with at %d" % pos)
        else:
            frame.run([step])


def return_tail(s, pos):
    """The steps from ``pos`` if they only shuffle the stack, end an except clause
    (``"POP_EXCEPT"``, with its ``name = None; del name`` left out), exit a with
    (``"WITH_EXIT"``) and return; None otherwise."""
    instrs, tail = s.instrs, []
    while pos < len(instrs) and len(tail) < 12:
        ins = instrs[pos]
        if ins.op == "RETURN_VALUE":
            return tail + [ins]
        after_exit = withs.elide_with(s, pos, Frame(s.ctx, [si.WithExit(s.ctx)]))
        if after_exit is not None:
            tail.append("WITH_EXIT")
            pos = after_exit
            continue
        if ins.op == "POP_EXCEPT":
            tail.append("POP_EXCEPT")
            pos = past_pop_except(instrs, pos)
            continue
        if ins.op not in ("SWAP", "POP_TOP", "NOP"):
            return None
        tail.append(ins)
        pos += 1
    return None


def _else_clause(s, exit_, after, frame, region, handlers=None):
    """The ``else`` clause between the try body's exit and the handlers' exit.

    An else clause may end in return/raise (3.12+ copies small exit blocks into
    each path): then only the handlers reach what follows.  Where the clauses
    never go on, the code the body goes on to is an else clause when it lies
    between the body and the clauses (``handlers``, their start), where the
    compiler writes an else clause: the code after a try comes after its clauses
    (see :func:`_else_end`).
    """
    if exit_ is None:
        return [], after
    end = _else_end(s, exit_, handlers, region) if after is None and handlers is not None else False
    if end is not False:
        else_frame = Frame(s.ctx, frame.stack)
        else_exits = []
        stop = handlers if end is None else end
        got = s.seq(exit_, else_frame, region.child(stop=stop, exits=else_exits))
        kinds = {s.jump_kind(e, region) for e in else_exits}
        if got is None is end and len(kinds) == 1 and kinds <= {"break", "continue"}:
            # (3.12+: a ``break`` ending the try body leaves through the copy of a finally
            # body around the try straight into the code after the loop, the loop's follow)
            s.jump_out(kinds.pop(), else_frame)
            else_exits = []
        if got != end or else_exits:
            raise DecompilationError("else clause at %d does not end where it jumps" % exit_)
        else_frame.flush_parallel()
        return else_frame.out, end
    if after is None or same_target(s.instrs, exit_, after):
        return [], exit_
    if same_code(s.instrs, exit_, after):
        return [], after  # two copies of the code after the try (3.13: an except* clause's end)
    if past_clause_ends(s.instrs, exit_) == past_clause_ends(s.instrs, after):
        return [], after  # both only end enclosing except clauses, then go on in one place
    if _past_finally_copies_alike(s, exit_, after, region):
        return [], exit_
    else_frame = Frame(s.ctx, frame.stack)
    else_exits = []
    end = s.seq(exit_, else_frame, region.child(stop=after, exits=else_exits))
    else_frame.flush_parallel()
    if end is None and else_exits and all(_rejoins(s, e, after, region) for e in else_exits):
        # the arms of an if ending the clause left the region past ``after``, a jump out
        # of an enclosing try's protected range, to where it leads: they rejoin (or
        # each went on to its copy of the return after an enclosing try, 3.10; or to
        # its copy of the end of the except* clause the try is in, 3.13)
        end, else_exits = after, []
    if end != after and (end is not None or else_exits):
        raise DecompilationError("else clause at %d does not rejoin" % exit_)
    if end is not None and any(si.is_expr(v) for v in else_frame.stack[len(frame.stack):]):
        # (3.9, 3.10: ``else: return b`` under ``finally: raise``, the finally body's copy
        # shared with the clauses' way on: the value the clause loads waits there, and is
        # never returned; written as nothing, its evaluation was lost)
        raise DecompilationError("else clause at %d leaves a value where the clauses go on" % exit_)
    if region.exits is not None:
        region.exits.extend(else_exits)
    return else_frame.out, after


def _rejoins(s, exit_, after, region):
    """Whether the else clause's way out ``exit_`` of the region goes on where the
    clauses do, ``after``: the same place, a copy of one return (maybe past the ends of
    enclosing except clauses), or a copy of the same straight code (3.13 copies the end
    of the except* clause the try is in into each path: past the clause's ``name = None;
    del name``, which the region elided before ``exit_``)."""
    instrs = s.instrs
    return (s.through_jumps(exit_) == s.through_jumps(after) or same_target(instrs, exit_, after)
            or same_target(instrs, past_clause_ends(instrs, exit_), past_clause_ends(instrs, after))
            or same_code(instrs, exit_, after)
            or region.elide is try_star.elide_star and same_code(instrs, exit_, try_star.elide_star(s, after, None)))


def _past_finally_copies_alike(s, exit_, after, region):
    """Whether the try body's exit ``exit_`` and its clauses' exit ``after`` both leave
    the body of a try/finally around the try, each through its own copy of the finally
    body, and go on alike past them (a ``break`` from both, out of a loop whose code
    after it, a ``return``, 3.11+ copy into each path): the try goes on at ``exit_``,
    where leaving the try/finally body skips the copy."""
    elide, blocks = region.elide, region.blocks
    if not hasattr(elide, "copied_again_after") or blocks is None or exit_ == after \
            or any(p >= len(s.instrs) or s.g.of_instr[p] in blocks for p in (exit_, after)):
        return False
    a, b = elide(s, exit_, None), elide(s, after, None)
    if a is None or b is None or a == exit_ or b == after:
        return False
    return a == b == handler_regions.ENDS or handler_regions.ENDS not in (a, b) and (same_target(s.instrs, a, b) or same_code(s.instrs, a, b))


def _else_end(s, start, stop, region):
    """Whether the code from ``start`` to ``stop`` (a try's clauses) is the try's else
    clause: more than a return, inside the try body, except clause or with body the try
    is in, jumping only inside itself, and ending there (a return or raise) or at one
    place past ``stop``, where it goes on (False if not; else that
    place, or None).  Where handlers are laid out last, only the body of a try in it
    whose clauses come before ``stop`` (compiled before the clauses of the try it is
    the else clause of) tells, and it must end there."""
    instrs = s.instrs
    run = instrs[start:stop]
    if len(run) <= 2 or any(i.handler is not None and i.handler[0] == stop for i in run):
        return False   # (the try body itself: it went back to a loop's header before it)
    if region.within is not None and s.g.of_instr[start] not in region.within:
        # it leaves the try body, except clause or with body the try is in, where an else
        # clause lies: it is where that goes on (3.10 copies a short return or else clause
        # after an enclosing try into each path, past the end of the clause the try is in)
        return False
    outside = {i.target for i in run if i.target is not None and not start <= i.target < stop}
    if facts.HANDLERS_LAID_OUT_LAST and (outside or not any(
            i.handler is not None and not i.handler[2] and start <= i.handler[0] < stop for i in run)):
        return False
    if len(outside) > 1 or not (run[-1].op in EXITS or run[-1].op == "JUMP" and run[-1].target in outside):
        return False
    end = outside.pop() if outside else None
    if end is not None and (end < stop or s.jump_kind(end, region) not in (None, "stop")):
        return False
    return end


def _elide_except(s, pos, frame):
    """``POP_EXCEPT`` then ``name = None; del name`` at the end of an except clause (a
    ``return`` first moves its value under the exception: ``SWAP 2``)."""
    instrs = s.instrs
    if pos + 1 < len(instrs) and instrs[pos].op == "SWAP" and instrs[pos].argval == 2 \
            and instrs[pos + 1].op == "POP_EXCEPT" and len(frame.stack) >= 2 and isinstance(frame.stack[-2], si.PrevExc):
        pos += 1
    if pos >= len(instrs) or instrs[pos].op != "POP_EXCEPT":
        return _follow_jump(s, pos)
    clause_ends.remove_marker(frame, si.PrevExc)
    return _follow_jump(s, past_pop_except(instrs, pos))


# ending the clause runs no code of the program: a ``return`` after it (the end of an
# enclosing clause, 3.11+) may move inside, with the value computed there
_elide_except.keeps_order = True


def _follow_jump(s, pos):
    return pos


def _clauses(stmts):
    """Except clauses from the structured handler code."""
    handlers = []
    stmts = list(stmts)
    while stmts:
        st = stmts[0]
        if isinstance(st, ast.If) and isinstance(st.test, si.ExcMatch):
            handlers.append(_handler(st.test.type, st.body))
            stmts = st.orelse + stmts[1:]
            continue
        if len(stmts) == 1 and isinstance(st, ast.Raise) and st.exc is None:
            break
        handlers.append(_handler(None, stmts))
        break
    if not handlers:
        raise DecompilationError("no except clause found")
    return handlers


def _handler(type_, body):
    name = None
    body = list(body)
    if body and isinstance(body[0], ast.Assign) and isinstance(body[0].value, si.Exc):
        name = body[0].targets[0].id
        body = body[1:]
    elif body and isinstance(body[0], si.Discard) and isinstance(body[0].value, si.Exc):
        body = body[1:]
    cleaned = [st for st in clause_ends.without_exc_ends(body, name) if not (name and clause_ends.is_name_cleanup(st, name))]
    return ast.ExceptHandler(type=type_, name=name, body=cleaned or [ast.Pass()])
