"""``except*`` clauses: the code that sets up their handler, each clause's body (what
its cleanup handler, ``LIST_APPEND 3``, covers) and the ``name = None; del name``
after it.  :mod:`.trys` writes the ``try`` statement they belong to.
"""
from ..errors import DecompilationError
from . import handler_regions
from .frame import Frame


def star_prologue(instrs, i):
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


STORES = ("STORE_FAST", "STORE_NAME", "STORE_DEREF", "STORE_GLOBAL")


def star_body(s, start, outer_handler, stack, region):
    """Statements of one ``except*`` clause body starting at ``start``."""
    instrs = s.instrs
    if start >= len(instrs):
        return []
    h = instrs[start].handler
    if h is None or h == outer_handler:
        return []  # an empty body: straight to the name cleanup
    h = _star_cleanup_around(s, h, outer_handler)
    bframe = Frame(s.ctx, stack)
    blocks = handler_regions.region(s, s.g.of_instr[start], h)
    s.seq(start, bframe, region.child(stop=None, handler=h, blocks=blocks, exits=[], elide=elide_star, frame=bframe))
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
            and instrs[i + 1].op in STORES and instrs[i + 2].op.startswith("DELETE"):
        i += 3
    return i + 1 < len(instrs) and instrs[i].op == "LIST_APPEND" and instrs[i].argval == 3 \
        and instrs[i + 1].op == "POP_TOP"


def elide_star(s, pos, frame):
    """``name = None; del name`` after an ``except*`` clause body."""
    instrs = s.instrs
    if pos + 2 < len(instrs) and instrs[pos].op == "LOAD_CONST" and instrs[pos].argval is None \
            and instrs[pos + 1].op in STORES and instrs[pos + 2].op.startswith("DELETE") \
            and instrs[pos + 1].argval == instrs[pos + 2].argval:
        return pos + 3
    return pos
