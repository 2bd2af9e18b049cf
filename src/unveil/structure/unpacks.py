"""Unpacked items (``UNPACK_SEQUENCE``'s slots) that are not all stored: the
unpacking written into temporaries.

An unpacking becomes one assignment when its last item is stored (``a, b = v``).
Dynamo's code also uses an item as a value (it unpacks a graph's result and
returns an item, or passes it on), and runs statements while items wait on the
stack.  Then the unpacking is written with a temporary for each item not stored
yet (``a, __t0 = v``), and the stack and the expression read the temporaries:

* an item used as a value: the unpacking is written before the next statement
  (the frame's ``unpacks``), unless it is the one item of a starred annotation
  (``*args: *Ts``, 3.11+: ``UNPACK_SEQUENCE 1`` of ``Ts``), which the annotation
  takes back as ``*Ts`` when no statement came between;
* a statement run while items wait on the stack: the unpackings are written
  before it, their values having been computed first.
"""
import ast

from ..errors import DecompilationError
from . import stackitems as si
from .stackitems import name


def slot_value(frame, slot):
    """The expression of item ``slot`` popped as a value: the temporary its unpacking,
    written before the frame's next statement, stores it in."""
    frame.flush_parallel()    # its stores came before this use
    root = slot.unpack.root()
    frame.unpacks.append(_into_temporaries(frame, root))
    return name(slot.unpack.targets[slot.index].id)


def write_waiting(frame):
    """Write, oldest first, the unpackings whose items wait on ``frame``'s stack, before
    a statement runs."""
    roots = []
    for item in frame.stack:
        if isinstance(item, si.Slot):
            root = item.unpack.root()
            if not any(root is r for r in roots):
                roots.append(root)
    frame.unpacks += [_into_temporaries(frame, root) for root in roots]
    write_pending(frame)


def write_pending(frame):
    pending, frame.unpacks = frame.unpacks, []
    for stmt in pending:
        frame.put(stmt)


def starred_annotations(frame, node):
    """``node``, the annotations of a function being made, with ``*Ts`` for each one
    that is the one item of a pending unpacking (``*args: *Ts``): the unpacking is not
    written."""
    if not isinstance(node, ast.Tuple) or not frame.unpacks:
        return node
    for i, elt in enumerate(node.elts):
        for stmt in frame.unpacks:
            target = stmt.targets[-1]
            if isinstance(elt, ast.Name) and len(stmt.targets) == 1 and isinstance(target, ast.Tuple) \
                    and len(target.elts) == 1 and isinstance(target.elts[0], ast.Name) \
                    and target.elts[0].id == elt.id and frame.ctx.is_temporary(elt.id):
                node.elts[i] = ast.Starred(value=stmt.value, ctx=ast.Load())
                frame.unpacks.remove(stmt)
                frame.ctx.forget_temporary(elt.id)
                break
    return node


def _into_temporaries(frame, root):
    """The assignment of unpacking ``root``, each item not stored yet into a temporary,
    which the items of it on the stack now read."""
    if not frame.ctx.has_locals():
        raise DecompilationError("an unpacked item is used as a value in %s" % frame.ctx.code.co_name)
    todo = [root]
    while todo:
        unpack = todo.pop()
        for i, target in enumerate(unpack.targets):
            if target is None:
                unpack.targets[i] = name(frame.ctx.temporary(), store=True)
            elif isinstance(target, si.Unpack):
                todo.append(target)
    if fill_dropped(frame.notes, root):
        raise DecompilationError("an unpacked item is dropped with no later store to name it")
    frame.stack[:] = [name(item.unpack.targets[item.index].id)
                      if isinstance(item, si.Slot) and item.unpack.root() is root else item for item in frame.stack]
    return ast.Assign(targets=root.chained + [root.node()], value=root.value)


def fill_dropped(notes, root):
    """Name the targets of dropped items after the later store to the same name.

    3.13 compiles ``_, _, x = v`` with a POP_TOP for the first ``_`` (a dead
    store): the name it stood for is one stored later in the same unpacking.
    Whether one is left unnamed: in ``(x, a), a = ...`` the later store is outside
    the unpacking, a later target of the parallel assignment it joins.
    """
    flat = []

    def walk(u):
        for i, t in enumerate(u.targets):
            if isinstance(t, si.Unpack):
                walk(t)
            else:
                flat.append((u, i, t))

    walk(root)
    unnamed = False
    for k, (u, i, t) in enumerate(flat):
        if t not in notes.dropped:
            continue
        later = [x for _, _, x in flat[k + 1:] if isinstance(x, ast.Name) and x not in notes.dropped]
        if later:
            u.targets[i] = ast.Name(id=later[0].id, ctx=ast.Store())
        else:
            unnamed = True
    return unnamed
