"""Branches that run while values wait on the stack beneath them.

Compiled source keeps nothing on the stack across a statement but markers (a
loop's iterator, a with's exit); its branches with values beneath them are
conditional expressions, ``and``/``or`` and chained comparisons.  Dynamo's
bytecode does more: torch 2.15 wraps a graph call in profiler marks that only
run when the profiler is on, as jumps taken while the graph function and its
arguments sit on the stack::

    tmp_1 = None; (tmp_1 := enter()) if profiling else None   # dropped
    ... x, y pushed ...
    exit(tmp_1) if tmp_1 is not None else None                  # dropped
    graph_function(x, y)

Such a branch is written as statements before the expression that uses the
values beneath it.  The values beneath were computed before the branch; the
text writes them after it, where the expression uses them, so each is either
one that reads the same then (a constant, or a name the branch does not bind)
or is evaluated into a temporary before the ``if``, in the order the values
were computed (``waiting.settle``, as before any compound statement).  A
branch's arms own only the values they push (``Frame.inherited``): the values
beneath are the branch's to settle, once, before the ``if`` (an arm evaluating
one would do it on its path only).  The structurer writes each branch's ``if``
with the stack the code goes on with (:func:`check_beneath`): the values
beneath the branch that go on past it, not those its test used (a chained
comparison's middle operand) or a side that goes on pushed.  Where both arms leave a value besides running statements,
each arm drops its own, if the code where they meet drops it, or assigns it
to one temporary (:func:`values_as_statements`).  Where none of this keeps
the order (module code has no temporaries; a statement ran since a value
beneath began), the shape is refused and the state machine takes it.

"""
import ast

from ..errors import DecompilationError
from ..syntax.astwalk import nodes, substitute
from . import stackitems as si
from .frame import Frame
from .stackitems import name


def before_branch(frame, cond):
    """The test ``cond`` of a branch, just popped from ``frame``.  On a second attempt
    at Dynamo's code (``spill_copies``), the values waiting beneath the branch are
    evaluated into temporaries first, as before a try: its arms may copy and use them
    (a data-dependent ``if`` handing the same lists to two resume calls), and an arm
    never evaluates a value beneath its branch itself."""
    if not frame.ctx.spill_copies:
        return cond
    old = list(frame.stack)
    if not frame.spill():
        return cond   # (refused later, where the arms show they needed it)
    spilled = frame.spilled_since(old)
    substitute(cond, spilled)
    return spilled.get(id(cond), cond)


def emit_if(frame, stmt, going_on):
    """Write a branch's ``if``, after which the code goes on with the stack ``going_on``
    (or that of ``going_on``, the frame of the side that goes on; where no code does, a
    side's when it ended): the values beneath the branch that go on with it are
    evaluated before it where they must be (``waiting.settle``), not those the side
    that goes on computed, which come after its last statement."""
    side = going_on if isinstance(going_on, Frame) else None
    beneath, pushed = check_beneath(frame, stmt, going_on if side is None else side.stack)
    frame.stack = beneath
    frame.emit(stmt)
    if pushed and side is not None:
        frame.last_emit = side.last_emit
    frame.stack += restacked(frame, pushed)


def check_beneath(frame, stmt, going_on):
    """The stack after a branch's ``if`` (``stmt``, written by ``frame``), ``going_on``,
    split in two: the values beneath the branch that go on past it, and those the side
    that goes on pushed.  Refused where the arms use or drop a value computed before
    the branch: each goes on, or the test uses it (a chained comparison's middle
    operand, which a side's cleanup drops)."""
    before = {id(v) for v in frame.stack}
    k = 0
    while k < len(going_on) and id(going_on[k]) in before:
        k += 1
    beneath, pushed = list(going_on[:k]), list(going_on[k:])
    kept = {id(v) for v in going_on}
    gone = [item.value if isinstance(item, si.Chain) else item for item in (frame.stack[i] for i in frame.owned())
            if id(item) not in kept]
    gone = [v for v in gone if isinstance(v, ast.expr) and not isinstance(v, si.Marker)]
    if any(id(v) in before for v in pushed):
        gone = True   # (a value beneath the branch above one a side pushed)
    if not gone:
        return beneath, pushed
    tested = {id(n) for n in nodes(stmt.test)}
    used = {id(n) for n in nodes(*stmt.body, *stmt.orelse)}
    if gone is True or any(id(value) in used or id(value) not in tested and not isinstance(value, (ast.Constant, ast.Name))
                           for value in gone):
        raise DecompilationError("a value computed before a branch is used or dropped in its arms (line %s) in %s"
                                 % (frame.at_line, frame.ctx.code.co_name))
    return beneath, pushed


def restacked(frame, pushed):
    """The values ``pushed`` by the side of a branch that goes on, reading the
    temporaries that ``frame`` evaluated values beneath the branch into."""
    new = {key: temp for key, (_, temp) in frame.spilled.items()}
    for value in pushed:
        if isinstance(value, ast.AST):
            substitute(value, new)
    return pushed


def values_as_statements(s, st, fa, ta, beneath, mpos, region):
    """Both arms of a branch run statements and leave one value each, on the values
    ``beneath`` it (``fa`` and ``ta``: the frames of the arms that the test's false
    and true sides go to).  Where the code the arms meet at (``mpos``) drops the
    value, each arm drops its own; else each assigns its value to one temporary.
    Returns where the code goes on after the ``if`` and what it pushes."""
    if not (len(fa.stack) == len(ta.stack) == len(beneath) + 1 and _same(fa.stack[:-1], beneath)
            and _same(ta.stack[:-1], beneath)):
        raise DecompilationError("branch values with statements at %d" % mpos)
    drop = s.instrs[mpos] if mpos < len(s.instrs) else None
    if drop is not None and drop.op == "POP_TOP" and mpos != region.stop:
        for arm in (fa, ta):
            arm.run([drop])
            arm.flush_parallel()
        return mpos + 1, []
    if not s.ctx.has_locals():
        raise DecompilationError("branch values with statements at %d, and no locals to hold them" % mpos)
    tested = {id(n) for n in nodes(st.c)}
    if any(id(n) in tested for arm in (fa, ta) if si.is_expr(arm.top()) for n in nodes(si.as_expr(arm.top()))):
        # (``a and b`` whose arm for ``b`` runs statements: ``a`` is tested and kept)
        raise DecompilationError("a tested value is also the value of an arm that runs statements at %d" % mpos)
    temp = s.ctx.temporary()
    for arm in (fa, ta):
        arm.emit(ast.Assign(targets=[name(temp, store=True)], value=arm.pop()))
        arm.flush_parallel()
    return mpos, [name(temp)]


def _same(a, b):
    return len(a) == len(b) and all(x is y for x, y in zip(a, b))
