"""When stack values were computed, and the parallel assignment a frame gathers from
stores of values that waited on the stack together (``a, b = b, a``).

A tuple assignment evaluates every value first, then stores the targets one by
one, each target's own parts (the ``d`` and ``i`` of ``d[i]``) just before its
store.  :class:`Pending` lets a store join only where the one statement keeps
the order the bytecode ran in, on the decompilation's clock (``notes.seq``,
``notes.stored_at``):

* a value joins only if it was finished before the first pending store: ``x =
  1; y = x`` loads ``x`` after storing it, and is never ``x, y = 1, x``;
* a target with parts joins only if its parts began after the latest pending store;
* the text lists the pairs in the order their values were computed, and two stores
  it so writes in the other order than the bytecode ran them (3.11+ store ``a, b
  = x, y`` as ``STORE b; STORE a``) must commute: two different names, neither
  read by the other target's parts.  Where they do not, the pairs are written in
  store order when no value has an effect, else the assignment is refused.
"""
import ast

from ..errors import DecompilationError
from ..syntax.astwalk import nodes, reads_name


def computed_at(notes, value):
    """When a stack value was finished: its own push, or for a node the structurer built
    (a conditional expression) the latest push among its parts."""
    seq = notes.seq.values
    at = seq.get(id(value))
    if at is not None:
        return at
    return max([seq.get(id(n), -1) for n in nodes(value)])


def begun_at(notes, value, stable=()):
    """When the evaluation of a stack value began: the earliest push among its parts
    (constants, which have no effect, and the names in ``stable``, which never change,
    left out), or None if no other part was pushed."""
    seq = notes.seq.values
    return min([seq[id(n)] for n in nodes(value) if id(n) in seq and type(n) is not ast.Constant
                and not (type(n) is ast.Name and n.id in stable)], default=None)


class Pending:
    """A tuple assignment being gathered: ``base``, the stack depth under its values
    (it is written when the stack drops to it), its targets and values in the order
    they were stored, and ``top``, the depth after its latest store: the values below
    wait for its next stores, and one an expression takes instead is not its own."""

    __slots__ = ("base", "targets", "values", "top")

    def __init__(self, base, targets=(), values=(), top=None):
        self.base, self.targets, self.values = base, list(targets), list(values)
        self.top = base if top is None else top   # the stack depth after its latest store

    def copy(self):
        return Pending(self.base, self.targets, self.values, self.top)

    def may_join(self, notes, target, value):
        """Whether storing ``value`` into ``target`` now can be one more pair of this
        assignment (see the module's docstring)."""
        first = notes.stored_at.get(self.targets[0], -1)
        if computed_at(notes, value) > first:
            return False
        if isinstance(target, ast.Name):
            return True
        begun = begun_at(notes, target)
        return begun is None or begun > notes.stored_at.get(self.targets[-1], -1)

    def add(self, notes, target, value, at):
        """One more pair, ``target`` stored at ``at`` on the clock."""
        notes.stored_at.set(target, at)
        self.targets.append(target)
        self.values.append(value)

    def assignment(self, notes):
        """The ``Assign`` statement: pairs in the order their values were computed, or
        in store order where that would swap two stores that do not commute."""
        order = sorted(range(len(self.targets)), key=lambda k: computed_at(notes, self.values[k]))
        _name_dropped(notes, [self.targets[k] for k in order])
        if not _stores_commute(notes, [self.targets[k] for k in order]):
            if not all(isinstance(v, (ast.Name, ast.Constant)) for v in self.values):
                raise DecompilationError("a parallel assignment's stores do not run in the order "
                                         "its values were computed")
            order = range(len(self.targets))
            _name_dropped(notes, self.targets)
        targets, values = [self.targets[k] for k in order], [self.values[k] for k in order]
        if len(targets) == 1:
            return ast.Assign(targets=targets, value=values[0])
        return ast.Assign(targets=[ast.Tuple(elts=targets, ctx=ast.Store())],
                          value=ast.Tuple(elts=values, ctx=ast.Load()))

    def in_order_after(self, notes, value):
        """Whether a dropped value may be written after this assignment: a constant, a
        name that none of its targets rebinds or that was loaded after each pending store
        rebinding it (``x = f(); x`` with a value waiting beneath both), or a value every
        part of which was computed after each pending value and each pending store."""
        if isinstance(value, ast.Constant):
            return True
        if isinstance(value, ast.Name):
            loaded = notes.seq.values.get(id(value), -1)
            return all(loaded > notes.stored_at.get(target, loaded) for target in self.targets
                       if reads_name(target, value.id))
        begun = begun_at(notes, value)
        latest = max([computed_at(notes, v) for v in self.values]
                     + [notes.stored_at.get(t, -1) for t in self.targets])
        return begun is not None and begun > latest


def _name_dropped(notes, targets):
    """Name each item an unpacking dropped (3.13: ``(x, a), a = v, w`` drops the
    dead store of the first ``a``) after the later target of the same statement
    that stores the name it stood for."""
    flat, todo = [], list(reversed(targets))
    while todo:
        t = todo.pop()
        if isinstance(t, (ast.Tuple, ast.List)):
            todo += reversed(t.elts)
        elif isinstance(t, ast.Starred):
            todo.append(t.value)
        else:
            flat.append(t)
    for k, t in enumerate(flat):
        if isinstance(t, ast.Name) and t in notes.dropped:
            later = [n for n in flat[k + 1:] if isinstance(n, ast.Name) and n not in notes.dropped]
            if not later:
                raise DecompilationError("an unpacked item is dropped with no later store to name it")
            t.id = later[0].id


def _stores_commute(notes, targets):
    """Whether storing ``targets`` in this order does what the stores did in the order
    they ran: every two the order swaps are two different names, neither read by the
    other's parts (a name and ``d[i]``, a nested unpacking's names)."""
    for k, later in enumerate(targets):
        at = notes.stored_at.get(later, -1)
        for earlier in targets[:k]:
            if notes.stored_at.get(earlier, -1) > at and not _commute(earlier, later):
                return False
    return True


def _commute(a, b):
    stored_a, stored_b = _names_stored(a), _names_stored(b)
    if stored_a is None and stored_b is None:
        return False     # two attribute or item stores: each may run code
    if stored_a is None or stored_b is None:
        names, other = (stored_a, b) if stored_b is None else (stored_b, a)
        return not any(reads_name(other, n) for n in names)
    return not stored_a & stored_b


def _names_stored(target):
    """The names a target stores (a name, or a nested unpacking of names); None where
    it stores into an attribute or an item."""
    if isinstance(target, ast.Name):
        return {target.id}
    if isinstance(target, ast.Starred):
        return _names_stored(target.value)
    if isinstance(target, (ast.Tuple, ast.List)):
        names = set()
        for elt in target.elts:
            inner = _names_stored(elt)
            if inner is None:
                return None
            names |= inner
        return names
    return None
