"""The region an exception-table handler covers, and how a body leaves it.

The region of a handler ``h`` is every block whose handler chain (its handler,
that handler's own handler, ...) reaches ``h``.  Cleanup handlers that only
restore state (``COPY 3; POP_EXCEPT; RERAISE 1``, ``e = None; del e; RERAISE 1``,
the generator StopIteration wrapper, inlined-comprehension restores) are
*transparent*: looked through, never turned into statements.  The body of a try,
a with or an except clause leaves its region for one place (:func:`one`), with the
stack it found (:func:`stack_after`).
"""
import ast

from ..errors import DecompilationError
from ..graph.blocks import same_code, same_target
from . import stackitems as si


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


def region(s, start_block, handler):
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


def _values(items):
    """The values among stack ``items``: expressions, and values with a store pending
    (``(z := v)``, a :class:`~.stackitems.Chain`, though a marker, is a value)."""
    return [v for v in items if isinstance(v, si.Chain) or isinstance(v, ast.expr) and not isinstance(v, si.Marker)]


def stack_after(stack, body_frame, exit_, what):
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


#: what a finally elider returns for a copy of the body none of whose paths completes (each
#: returns or raises): the way out of the try ends in it, and nothing comes after
ENDS = -1


def one(s, exits, what):
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
