"""Basic blocks of canonical instructions, and where code goes: whether two jump
targets run the same code, past a clause's cleanup."""
from ..bytecode.opcodes import EXITS, JUMPS

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


def split_blocks(instrs, by_handler=True):
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


def same_target(instrs, a, b):
    """Same position, or two copies of one terminal block (duplicated returns), each
    maybe reached through jumps."""
    a, b = _past_jumps(instrs, a), _past_jumps(instrs, b)
    if a == b:
        return True
    if a is None or b is None or a >= len(instrs) or b >= len(instrs):
        return False
    return _alike(_straight_run(instrs, a), _straight_run(instrs, b))


def same_outcome(instrs, a, b, limit=4):
    """Whether targets ``a`` and ``b`` run the same code: up to ``limit`` equal
    instructions that do not jump (a chained comparison's ``POP_TOP``), then one place
    or copies of one return."""
    for _ in range(limit + 1):
        if same_target(instrs, a, b):
            return True
        a, b = _past_jumps(instrs, a), _past_jumps(instrs, b)
        if a is None or b is None or a >= len(instrs) or b >= len(instrs):
            return False
        x, y = instrs[a], instrs[b]
        if x.op in JUMPS or x.op in EXITS or not x.same(y) or x.handler != y.handler:
            return False
        a, b = a + 1, b + 1
    return False


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


def past_pop_except(instrs, pos):
    """Past the ``POP_EXCEPT`` at ``pos`` and the ``name = None; del name`` that ends an
    ``except E as name`` after it, under the same handler (an unnamed clause in an
    ``except* E as name`` clause goes on to that clause's own cleanup of ``name``, under
    the handler of the except* dispatch: 3.13 copies it into each path)."""
    handler = instrs[pos].handler
    pos += 1
    cleanup = (pos + 2 < len(instrs) and instrs[pos].op == "LOAD_CONST" and instrs[pos].argval is None
               and instrs[pos + 1].op.startswith("STORE") and instrs[pos + 2].op.startswith("DELETE")
               and instrs[pos + 1].argval == instrs[pos + 2].argval
               and instrs[pos].handler == instrs[pos + 1].handler == instrs[pos + 2].handler == handler)
    return pos + 3 if cleanup else pos


def past_clause_ends(instrs, pos, within=None):
    """Where ``pos`` leads past ``POP_EXCEPT`` (with its ``name = None; del name``) and jumps;
    with ``within``, only past those the handler ``within`` covers (the ends of clauses
    inside the code it covers, not of the clause that code is)."""
    for _ in range(8):
        if pos is None or pos >= len(instrs):
            return pos
        if instrs[pos].op == "POP_EXCEPT" and (within is None or instrs[pos].handler == within):
            pos = past_pop_except(instrs, pos)
        elif instrs[pos].op == "JUMP":
            pos = instrs[pos].target
        else:
            return pos
    return pos
