"""Which locals a load may find unbound: a forward "definitely bound" analysis over the
normalised instructions, along jumps, fall-through and exception handlers.  3.12+ tell
it themselves (``LOAD_FAST_CHECK``); before, a load of a local that some path reaches
unbound (``del x``, bound on some paths only, in a loop that may not run, in a try body
that raised) raises UnboundLocalError where it is, and code moved across a try or with
boundary must not carry it in."""
from ..bytecode.opcodes import NO_NEXT


def maybe_unbound(instrs, parameters):
    """The names some reachable ``LOAD_FAST`` of ``instrs`` may find unbound, the
    ``parameters`` bound on entry."""
    n = len(instrs)
    bound = [None] * n   # the locals bound on every path to each instruction, once reached
    todo = []

    def reach(i, names):
        if i >= n:
            return
        if bound[i] is None:
            bound[i] = names
        elif bound[i] <= names:
            return
        else:
            bound[i] = bound[i] & names
        todo.append(i)

    if n:
        reach(0, frozenset(parameters))
    while todo:
        i = todo.pop()
        ins, before = instrs[i], bound[i]
        after = before
        if ins.op == "STORE_FAST":
            after = before | {ins.argval}
        elif ins.op in ("DELETE_FAST", "LOAD_FAST_AND_CLEAR"):
            after = before - {ins.argval}
        if ins.handler is not None:
            reach(ins.handler[0], before)   # raised before its store took effect
        if ins.target is not None:
            reach(ins.target, after)
        if ins.op not in NO_NEXT:
            reach(i + 1, after)
    return {ins.argval for ins, names in zip(instrs, bound)
            if ins.op == "LOAD_FAST" and names is not None and ins.argval not in names}
