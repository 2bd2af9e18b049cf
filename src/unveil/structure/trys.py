"""Exception-table regions as ``try``/``except``/``finally`` and ``with`` statements.

The region of a handler ``h`` is every block whose handler chain (its handler,
that handler's own handler, ...) reaches ``h``.  Cleanup handlers that only
restore state (``COPY 3; POP_EXCEPT; RERAISE 1``, ``e = None; del e; RERAISE 1``,
the generator StopIteration wrapper, inlined-comprehension restores) are
*transparent*: looked through, never turned into statements.
"""
import ast
import copy

from ..bytecode import facts
from ..bytecode.opcodes import EXITS
from ..errors import DecompilationError
from ..graph.blocks import past_clause_ends, past_pop_except, same_code, same_outcome, same_target
from ..syntax.astwalk import loop_body_nodes
from . import stackitems as si
from . import waiting
from .frame import Frame


def _ops(instrs, block):
    return [i.op for i in instrs[block.start:block.end]]


def is_transparent(instrs, block):
    ops = _ops(instrs, block)
    if ops == ["COPY", "POP_EXCEPT", "RERAISE"]:
        return True
    if len(ops) == 4 and ops[0] == "LOAD_CONST" and ops[3] == "RERAISE" and ops[1].startswith("STORE") \
            and ops[2].startswith("DELETE"):
        return True
    if ops == ["STOPITERATION_ERROR", "RERAISE"]:
        return True
    if _is_inline_comprehension_cleanup(ops):
        return True
    return False


_RESTORES = ("STORE_FAST", "STORE_FAST_MAYBE_NULL")


def _is_inline_comprehension_cleanup(ops):
    """3.12+ (PEP 709): drop the accumulator, restore the saved locals, re-raise.

    ``SWAP 2; POP_TOP; [SWAP n;] STORE_FAST x ...; RERAISE 0``
    """
    if len(ops) < 4 or ops[:2] != ["SWAP", "POP_TOP"] or ops[-1] != "RERAISE":
        return False
    rest = ops[2:-1]
    if rest and rest[0] == "SWAP":
        rest = rest[1:]
    return bool(rest) and all(op in _RESTORES for op in rest)


def outermost(s, handler, current):
    """The outermost try a block opens inside the region of handler ``current``.

    A block's own handler is the innermost one; following each handler's
    handler (through transparent cleanups) reaches the enclosing ones.
    """
    chain = []
    h = s.effective(handler)
    while h is not None and h != current and h not in chain and len(chain) < 64:
        chain.append(h)
        hb = s.g.block_at.get(h[0])
        if hb is None:
            break
        h = s.effective(hb.handler)
    if not chain or h != current:
        return s.effective(handler)
    return chain[-1]


def encloses_loop(s, block, loop, region):
    """Whether a try starting at loop header ``block`` holds the whole loop
    (``try: while True: ...``): then the try is structured first."""
    eff = outermost(s, block.handler, region.handler)
    if eff is None or eff == region.handler:
        return False
    return all(_covered(s, b, eff) for b in loop.body)


def _covered(s, block, handler):
    x = block.handler
    for _ in range(64):
        if x is None:
            return False
        if x == handler:
            return True
        hb = s.g.block_at.get(x[0])
        if hb is None:
            return False
        x = hb.handler
    return False


def _region(s, start_block, handler):
    """Blocks reachable from ``start_block`` by normal edges and covered by ``handler``."""
    out, todo = set(), [start_block]
    while todo:
        b = todo.pop()
        if b in out or not _covered(s, b, handler):
            continue
        out.add(b)
        todo.extend(b.succs)
        hb = s.g.handler_block(b)
        if hb is not None:
            todo.append(hb)
    return out


def _kind(s, hblock):
    instrs = s.instrs
    i = hblock.start
    if instrs[i].op != "PUSH_EXC_INFO":
        raise DecompilationError("exception handler at %d has an unknown shape" % i)
    nxt = instrs[i + 1].op if i + 1 < len(instrs) else None
    if _star_prologue(instrs, i + 1):
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
    body_blocks = _region(s, block, handler)
    if kind == "with":
        return _with(s, block, handler, hblock, body_blocks, frame, region)
    if kind == "star":
        return _try_star(s, block, handler, hblock, body_blocks, frame, region)
    if s.ctx.spill_copies:
        frame.spill()   # Dynamo's values waiting across the try were computed before it
    hframe = Frame(s.ctx, frame.stack[:handler[1]] + ([si.Marker()] if handler[2] else []) + [si.Exc()])
    h_blocks = _region(s, hblock, hblock.handler) if hblock.handler else {hblock}
    h_exits = []
    h_region = region.child(stop=None, handler=s.effective(hblock.handler), blocks=h_blocks,
                            exits=h_exits, elide=_elide_except)
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
        final, elide = _finally_body(s, hblock, hframe.out)
        # every normal way out of the body runs a copy: where none matches, the structure
        # was not understood, and the copy would read as code after the try (harmless
        # only if the finally body never completes: then nothing after it runs)
        elide.required = _completes(final)
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
        orelse, exit_ = _else_clause(s, exit_, _one(s, h_exits, "except clauses"), frame, region, hblock.start)
        node = ast.Try(body=body, handlers=handlers, orelse=orelse, finalbody=[])
    if on_body_line:
        frame.notes.try_on_body_line.set(node)
    frame.emit(node)
    return exit_


# --- except* -----------------------------------------------------------------

def _star_prologue(instrs, i):
    """Length of the code that sets up an ``except*`` handler at ``i``, or 0.

    The handler keeps the original exception and a list of the exceptions
    raised by its clauses: ``COPY 1; BUILD_LIST 0; SWAP 2`` (3.11) or
    ``BUILD_LIST 0; COPY 2`` (3.12+).
    """
    ops = [x.op for x in instrs[i:i + 3]]
    if ops == ["COPY", "BUILD_LIST", "SWAP"] and instrs[i].argval == 1 and instrs[i + 1].argval == 0 \
            and instrs[i + 2].argval == 2:
        return 3
    if ops[:2] == ["BUILD_LIST", "COPY"] and instrs[i].argval == 0 and instrs[i + 1].argval == 2:
        return 2
    return 0


_STORES = ("STORE_FAST", "STORE_NAME", "STORE_DEREF", "STORE_GLOBAL")


def _try_star(s, block, handler, hblock, body_blocks, frame, region):
    """``try`` with ``except*`` clauses.

    Each clause is ``<type>; CHECK_EG_MATCH; COPY 1; POP_JUMP_IF_NONE next;
    STORE name | POP_TOP; <body>``, the body covered by a handler that adds
    what it raises to the list; after the last clause ``PREP_RERAISE_STAR``
    re-raises whatever is left.
    """
    instrs = s.instrs
    p = hblock.start + 1
    p += _star_prologue(instrs, p)
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
        if bind.op in _STORES:
            name = s.ctx.identifier(bind.argval)
        elif bind.op != "POP_TOP":
            raise DecompilationError("except* clause at %d has an unknown shape" % p)
        body = _star_body(s, q + 4, bind.handler, inner, region)
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


def _star_body(s, start, outer_handler, stack, region):
    """Statements of one ``except*`` clause body starting at ``start``."""
    instrs = s.instrs
    if start >= len(instrs):
        return []
    h = instrs[start].handler
    if h is None or h == outer_handler:
        return []  # an empty body: straight to the name cleanup
    h = _star_cleanup_around(s, h, outer_handler)
    bframe = Frame(s.ctx, stack)
    blocks = _region(s, s.g.of_instr[start], h)
    s.seq(start, bframe, region.child(stop=None, handler=h, blocks=blocks, exits=[], elide=_elide_star))
    bframe.flush_parallel()
    return bframe.out


def _star_cleanup_around(s, handler, outer_handler):
    """The cleanup handler of the ``except*`` clause whose body's first instruction is
    under ``handler``: that cleanup itself, or, where the body begins with a try or a
    with, the one its handler's handlers lead to.  Refused where the chain reaches the
    clause's own handler first (the body would read as empty, and its code be lost)."""
    h = handler
    for _ in range(64):
        if h is None or h == outer_handler:
            break
        if _is_star_cleanup(s, h):
            return h
        hb = s.g.block_at.get(h[0])
        if hb is None:
            break
        h = hb.handler
    raise DecompilationError("except* clause body under handler %d: no cleanup found" % handler[0])


def _is_star_cleanup(s, handler):
    """``[name = None; del name;] LIST_APPEND 3; POP_TOP``: keep what a clause raised."""
    instrs = s.instrs
    i = handler[0]
    if i + 2 < len(instrs) and instrs[i].op == "LOAD_CONST" and instrs[i].argval is None \
            and instrs[i + 1].op in _STORES and instrs[i + 2].op.startswith("DELETE"):
        i += 3
    return i + 1 < len(instrs) and instrs[i].op == "LIST_APPEND" and instrs[i].argval == 3 \
        and instrs[i + 1].op == "POP_TOP"


def _elide_star(s, pos, frame):
    """``name = None; del name`` after an ``except*`` clause body."""
    instrs = s.instrs
    if pos + 2 < len(instrs) and instrs[pos].op == "LOAD_CONST" and instrs[pos].argval is None \
            and instrs[pos + 1].op in _STORES and instrs[pos + 2].op.startswith("DELETE") \
            and instrs[pos + 1].argval == instrs[pos + 2].argval:
        return pos + 3
    return pos


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
                               depth=len(frame.stack))
    s.seq(block.start, body_frame, body_region, entering=s.entered(block, region))
    body_frame.flush_parallel()
    exit_ = _one(s, body_exits, "try body")
    frame.stack = _stack_after(frame.stack, body_frame, exit_, "try body")
    body = body_frame.out or [ast.Pass()]
    frame.notes.body_begun.set(body[0], begun)
    return body, exit_


def _values(items):
    """The values among stack ``items``: expressions, and values with a store pending
    (``(z := v)``, a :class:`~.stackitems.Chain`, though a marker, is a value)."""
    return [v for v in items if isinstance(v, si.Chain) or isinstance(v, ast.expr) and not isinstance(v, si.Marker)]


def _stack_after(stack, body_frame, exit_, what):
    """The stack after a body entered with ``stack``: the same, or (Dynamo calls inside
    a try what it pushed before) the body's own, its new values evaluated into
    temporaries at its end.  Refused where the text would lose values.  Markers
    (a with's exit, an iterator) are the structurer's to match, not values."""
    after, before = _values(body_frame.stack), _values(stack)
    if exit_ is None or after == before:   # (ast nodes compare by identity)
        return stack
    plain = all(v is si.NULL or v in after for v in body_frame.stack) \
        and all(v is si.NULL or v in before for v in stack)
    if not (body_frame.ctx.spill_copies and plain and body_frame.spill()):
        raise DecompilationError("the %s leaves with other values on the stack than it found (in %s)"
                                 % (what, body_frame.ctx.code.co_name))
    return list(body_frame.stack)


def run_return_tail(frame, tail, pos):
    """``try: return v + 1`` in a loop, an except clause or a with: the value leaves the
    try or with body, and the tail that drops the loop's iterator, ends the clause, exits
    the with and returns it lies outside, since it cannot raise (the with's exit is the
    with statement's own doing).  Run it inside."""
    for step in tail:
        if step == "POP_EXCEPT":
            _remove_marker(frame, si.PrevExc)
        elif step == "WITH_EXIT":
            if not _remove_marker(frame, si.WithExit):
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
        after_exit = _elide_with(s, pos, Frame(s.ctx, [si.WithExit(s.ctx)]))
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
            or region.elide is _elide_star and same_code(instrs, exit_, _elide_star(s, after, None)))


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
    return a == b == ENDS or ENDS not in (a, b) and (same_target(s.instrs, a, b) or same_code(s.instrs, a, b))


def _else_end(s, start, stop, region):
    """Whether the code from ``start`` to ``stop`` (a try's clauses) is the try's else
    clause: more than a return, jumping only inside itself, and ending there (a return
    or raise) or at one place past ``stop``, where it goes on (False if not; else that
    place, or None).  Where handlers are laid out last, only the body of a try in it
    whose clauses come before ``stop`` (compiled before the clauses of the try it is
    the else clause of) tells, and it must end there."""
    instrs = s.instrs
    run = instrs[start:stop]
    if len(run) <= 2 or any(i.handler is not None and i.handler[0] == stop for i in run):
        return False   # (the try body itself: it went back to a loop's header before it)
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


def _one(s, exits, what):
    """The one place ``exits`` lead to; identical copies of a terminal tail (3.11+
    copies a clause's ``return`` into each path) count as one place, and so do copies of
    straight code that jump to one place (3.13: each arm of an if ending a try body
    inside an except clause leaves through its own ``POP_EXCEPT`` and jump).  A way on
    into a finally body that never completes (:data:`ENDS`) leads nowhere after it."""
    distinct = sorted(set(exits) - {ENDS})
    if any(not same_target(s.instrs, distinct[0], other) and not same_code(s.instrs, distinct[0], other)
           for other in distinct[1:]):
        raise DecompilationError("%s leaves to several places %s" % (what, distinct))
    return distinct[0] if distinct else None


def _elide_except(s, pos, frame):
    """``POP_EXCEPT`` then ``name = None; del name`` at the end of an except clause (a
    ``return`` first moves its value under the exception: ``SWAP 2``)."""
    instrs = s.instrs
    if pos + 1 < len(instrs) and instrs[pos].op == "SWAP" and instrs[pos].argval == 2 \
            and instrs[pos + 1].op == "POP_EXCEPT" and len(frame.stack) >= 2 and isinstance(frame.stack[-2], si.PrevExc):
        pos += 1
    if pos >= len(instrs) or instrs[pos].op != "POP_EXCEPT":
        return _follow_jump(s, pos)
    _remove_marker(frame, si.PrevExc)
    return _follow_jump(s, past_pop_except(instrs, pos))


# ending the clause runs no code of the program: a ``return`` after it (the end of an
# enclosing clause, 3.11+) may move inside, with the value computed there
_elide_except.keeps_order = True


def _follow_jump(s, pos):
    return pos


def _remove_marker(frame, kind):
    for i in range(len(frame.stack) - 1, -1, -1):
        if isinstance(frame.stack[i], kind):
            del frame.stack[i]
            return True
    return False


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
    cleaned = [st for st in _without_exc_ends(body, name) if not (name and _is_name_cleanup(st, name))]
    return ast.ExceptHandler(type=type_, name=name, body=cleaned or [ast.Pass()])


_LEAVING = (ast.Return, ast.Raise, ast.Break, ast.Continue)


def _without_exc_ends(stmts, name):
    """The statements without the clause's ends, nested ones too (``POP_EXCEPT`` and
    ``name = None; del name`` before a ``return`` from a loop in the clause, the
    exception dropped by a ``return`` in a finally body): leaving an except clause
    ends it in source."""
    out = []
    for k, st in enumerate(stmts):
        if isinstance(st, si.ExcEnd) or (isinstance(st, si.Discard) and isinstance(st.value, si.Exc)):
            continue
        if name and _is_name_cleanup(st, name):
            rest = [t for t in stmts[k + 1:k + 4] if not isinstance(t, si.ExcEnd)]
            if not rest or isinstance(rest[0], _LEAVING) or (
                    _is_name_cleanup(rest[0], name) and (len(rest) == 1 or isinstance(rest[1], _LEAVING))):
                continue
        for field in ("body", "orelse", "finalbody"):
            inner = getattr(st, field, None)
            if isinstance(inner, list) and inner and isinstance(inner[0], ast.stmt):
                setattr(st, field, _without_exc_ends(inner, name) or [ast.Pass()])
        out.append(st)
    return out


def _is_name_cleanup(st, name):
    if isinstance(st, ast.Assign) and len(st.targets) == 1 and isinstance(st.targets[0], ast.Name) \
            and st.targets[0].id == name and isinstance(st.value, ast.Constant) and st.value.value is None:
        return True
    return isinstance(st, ast.Delete) and len(st.targets) == 1 and getattr(st.targets[0], "id", None) == name


def _finally_body(s, hblock, stmts):
    """The finally statements, and the skipper of their normal-path copies."""
    notes = s.ctx.bindings.notes
    stmts = _fold_reraising_ifs(notes, _merge_copied_tail(notes, list(stmts)))
    stmts = _threaded_breaks(notes, _without_exc_ends(_strip_final_reraise(notes, stmts), None))
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
            or len(breaks) != 1 or _completes(tail) \
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
    """Whether ``stmts`` hold a re-raise outside any nested loop, try or with."""
    return any(notes.reraise.get(st, False) or isinstance(st, ast.If) and (
        _reraises(notes, st.body) or _reraises(notes, st.orelse)) for st in stmts)


def _reraise_to_break(notes, stmts):
    """``stmts`` with each re-raise that is not inside a nested loop, try or with replaced by ``break``."""
    out = []
    for st in stmts:
        if isinstance(st, ast.Raise) and notes.reraise.get(st, False):
            st = ast.Break()
        elif isinstance(st, ast.If):
            st = ast.If(test=st.test, body=_reraise_to_break(notes, st.body), orelse=_reraise_to_break(notes, st.orelse))
        out.append(st)
    return out


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


def _completes(stmts):
    """Whether running ``stmts`` can reach their end (not every path returns or raises)."""
    last = stmts[-1] if stmts else None
    if isinstance(last, (ast.Return, ast.Raise)):
        return False
    if isinstance(last, ast.If):
        return _completes(last.body) or _completes(last.orelse)
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


#: what a finally elider returns for a copy of the body none of whose paths completes (each
#: returns or raises): the way out of the try ends in it, and nothing comes after
ENDS = -1


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
        return walk(pos, True) if after == ENDS else after

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
        return first if exits else ENDS  # every path returns or raises

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


# --- with ------------------------------------------------------------------

_EXIT_CALL = ["LOAD_CONST", "LOAD_CONST", "LOAD_CONST", "CALL"]


def _elide_with(s, pos, frame):
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
    _remove_marker(frame, si.WithExit)
    return p


def _is_exit_call(instrs, p):
    """Whether a with's exit call (``__exit__(None, None, None)``) starts at ``p``."""
    return [i.op for i in instrs[p:p + 4]] == _EXIT_CALL and all(i.argval is None for i in instrs[p:p + 3])


# ``__exit__`` cannot rebind this frame's fast locals: a ``return local`` copied
# after the exit call may move inside the with body
_elide_with.keeps_order = True


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


def _with(s, block, handler, hblock, body_blocks, frame, region):
    if len(frame.stack) < 2 or not isinstance(frame.stack[-1], si.WithValue):
        raise DecompilationError("with statement without its context at %d" % block.start)
    exit_marker = frame.stack[-2]
    outer = frame.stack[:-2]
    body_frame = Frame(s.ctx, frame.stack)
    exits = []
    body_region = region.child(stop=None, handler=handler, blocks=body_blocks, exits=exits, elide=_elide_with,
                               depth=len(frame.stack) - 1)   # (the body's first store or POP_TOP takes its value)
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
    exit_ = _one(s, exits, "with body")
    body_frame.stack = waiting.restack(frame, body_frame.stack)   # (values evaluated before the with)
    frame.stack = _stack_after(waiting.restack(frame, outer), body_frame, exit_, "with body")
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
    """Whether the code at ``pos`` only drops values and ``raise None``: what Dynamo
    writes after a resume function's prologue, which enters the user's with and jumps into
    its body.  Only an exception the manager suppresses gets there (a TypeError then:
    Dynamo resumes only in managers that suppress nothing); the with is written as the
    user's source has it, its body going on as written."""
    ops = [i.op for i in s.instrs[pos:pos + 6]]
    while ops[:2] == ["LOAD_CONST", "POP_TOP"] and s.instrs[pos].argval is None:
        ops, pos = ops[2:], pos + 2
    return ops[:2] == ["LOAD_CONST", "RAISE_VARARGS"] and s.instrs[pos].argval is None \
        and s.instrs[pos + 1].argval == 1


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
            if after is None or after == pos or after == ENDS:
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
