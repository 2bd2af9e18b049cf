"""Statements written while values computed before them wait on the stack.

The stack holds expressions unevaluated, written where they are used.
Compiled source keeps nothing on the stack across a statement but markers (a
loop's iterator, a with's exit) and the values of a parallel assignment;
Dynamo's bytecode keeps anything there: the graph function and its arguments
across the statements of its prologue, or across a branch (torch 2.15's
profiler marks, ``stack_branches``).  A value that waits across a statement is
written after it, so it must read the same there, or be evaluated into a
temporary (``__t<i>``, ``Frame.spill``) before the statement, in the order the
values were computed; where neither can be done the statement is refused.

Names (and constants) are taken to read the same until the code itself binds
them: a global or a closure's cell rebound by a function a statement calls, or
a local read while it is unbound (its ``UnboundLocalError`` then comes after
the statement's effects), would be read after the statement.
"""
import ast

from ..errors import DecompilationError
from ..syntax.astwalk import children, nodes, reads_name, substitute
from . import stackitems as si

COMPOUND = tuple(getattr(ast, n) for n in ("If", "For", "AsyncFor", "While", "Try", "TryStar", "With", "AsyncWith",
                                           "FunctionDef", "AsyncFunctionDef", "ClassDef", "Match") if hasattr(ast, n))
#: try statements (``except*`` from 3.11)
TRYS = tuple(getattr(ast, n) for n in ("Try", "TryStar") if hasattr(ast, n))
#: statements that store or delete, which :func:`settle` orders after the values waiting under them
STORES = (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Delete)


class WaitingValues(DecompilationError):
    """A statement whose waiting values cannot be evaluated before it in order: on a
    first attempt, a reason to try again with temporaries for every value that waits
    across a statement (``FunctionContext.spill_copies``)."""


#: markers that stand for no evaluation the text could move (``si.Marker`` itself: a
#: handler's ``lasti``)
_INERT = (si.Null, si.Iter, si.LoopItem, si.AsyncItem, si.Exc, si.PrevExc, si.WithExit, si.WithValue, si.Saved,
          si.BuildClass, si.CodeConstant)


def before_statement(frame, stmt, local):
    """What ``frame`` does before it writes ``stmt`` (``local``: a statement that only
    touches fast locals, ``Frame._local_only``) over the values waiting on its stack."""
    if isinstance(stmt, COMPOUND):
        settle(frame, stmt)
        return
    if len(frame.stack) > len(frame.inherited) and any(_may_read(frame.stack[i]) for i in frame.owned()):
        for ident in bound_names(stmt):   # (a walrus in a dropped value, an augmented store)
            frame.check_unread(si.name(ident, store=True))
    if frame.ctx.spill_copies and not local:
        _spill_before(frame, stmt)
    elif isinstance(stmt, STORES) and not local:
        settle(frame, stmt)   # (Dynamo's ``del x[a:]`` under a call it made before; a dropped call: ``_pop_top``)


def settle(frame, stmt):
    """Before ``frame`` writes the statement ``stmt`` (a branch's ``if``, a loop, a try;
    a store or a ``del``) while values computed before it wait on its stack: evaluate into
    temporaries those the text could not write after ``stmt`` (values with effects or
    that ``stmt`` could change, a value ``stmt`` uses itself), and have ``stmt`` use
    the temporaries.  Refused where that cannot be done in order."""
    owned = [frame.stack[i] for i in frame.owned()]
    if all(isinstance(item, _INERT) or type(item) is si.Marker for item in owned):
        return
    inside = nodes(stmt)
    bound = _bound_names(inside)
    inside = {id(n) for n in inside}
    todo = [item for item in owned if _needs_temporary(frame, item, bound, inside)]
    if isinstance(stmt, TRYS):
        # a value computed inside the try body and left on the stack past the statement (a
        # ``return`` in the body that a finally body runs after, its value dropped by an
        # outer ``finally: return``): evaluated before the statement, it would run before
        # the body's first statements; written after it, a load of a local that may be
        # unbound would raise outside the try, past its finally body
        seq = frame.notes.seq.values
        # (when the body began: noted on its first statement, an empty body's ``pass`` too,
        # as ``return b`` alone in it leaves no node of the body a time)
        begun = frame.notes.body_begun.get(stmt.body[0])
        if begun is None:
            begun = min((seq[id(n)] for n in nodes(*stmt.body) if id(n) in seq), default=None)
        later = [item for item in owned if begun is not None and seq.get(id(item), -1) > begun]
        if any(item in todo for item in later) or any(
                isinstance(item, ast.Name) and item.id in frame.ctx.may_be_unbound for item in later):
            raise WaitingValues("a value computed in a try body waits past the try statement, which "
                                "changes what it reads (in %s)" % frame.ctx.code.co_name)
    if not todo:
        return
    old = list(frame.stack)
    if not frame.spill(todo, only=True):
        raise WaitingValues("a statement (%s) runs while values computed before it wait on the stack "
                                 "in %s" % (type(stmt).__name__, frame.ctx.code.co_name))
    substitute(stmt, frame.spilled_since(old))


def _needs_temporary(frame, item, bound, inside):
    """Whether a value waiting under a statement must be evaluated before it (see
    :func:`settle`); refused for a marker whose evaluation the text cannot move."""
    if isinstance(item, si.Chain):
        return True   # a value with a store still pending
    if isinstance(item, si.Function) and item.code.co_name == "<lambda>":
        # making a lambda has no effect but evaluating its defaults and annotations
        return not all(part is None or _unchanged(frame, part, bound, inside)
                       for part in (item.defaults, item.kwdefaults, item.annotations))
    if isinstance(item, _INERT) or type(item) is si.Marker:
        return False
    if item in frame.notes.imported or item in frame.notes.imported_from:
        return False   # (a module an ``import a.b as c`` stores from: the statement is its own)
    if isinstance(item, si.Marker) or not isinstance(item, ast.expr):
        raise DecompilationError("a %s waits on the stack while a statement runs in %s"
                                 % (type(item).__name__, frame.ctx.code.co_name))
    return not _unchanged(frame, item, bound, inside)


def _unchanged(frame, value, bound, inside):
    """Whether ``value`` reads the same written after the statement: a constant, a name
    the statement does not bind, or a display of such that the statement does not use.  A
    temporary is assigned once: one the statement assigns is its own result (a try
    body's value, evaluated at the body's end), not a value from before it."""
    if isinstance(value, ast.Constant):
        return True
    if isinstance(value, ast.Name):
        return value.id not in bound or frame.ctx.is_temporary(value.id)
    if id(value) in inside:
        return False
    if isinstance(value, (ast.Tuple, ast.List, ast.Set)) and (not value.elts or not frame.notes.accumulator.get(value, False)):
        return all(_unchanged(frame, v, bound, inside) for v in value.elts)   # (Dynamo's ``[]``, left for later)
    return False


def bound_names(stmt):
    """The names that statement ``stmt`` binds or deletes."""
    return _bound_names(nodes(stmt))


def _bound_names(parts):
    """The names that the nodes ``parts`` (a statement's) bind or delete."""
    bound = set()
    for n in parts:
        if isinstance(n, ast.Name):
            if not isinstance(n.ctx, ast.Load):
                bound.add(n.id)
        elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.add(n.name)
        elif isinstance(n, ast.alias):
            bound.add(n.asname or n.name.partition(".")[0])
        elif isinstance(n, ast.ExceptHandler) and n.name:
            bound.add(n.name)
        elif type(n).__name__ in ("MatchAs", "MatchStar", "MatchMapping"):
            bound.add(getattr(n, "rest", None) if type(n).__name__ == "MatchMapping" else n.name)
    return bound


def _spill_before(frame, stmt):
    """Dynamo's bytecode runs statements while values computed before them wait on
    the stack: evaluate those first, or refuse.  A waiting value the statement itself
    uses (Dynamo's ``lst[0][0:0] = []`` on a list it keeps) is evaluated first like
    the others, and the statement uses the temporary."""
    waiting = {id(item): item for item in frame.stack if isinstance(item, ast.AST)}
    seq = frame.notes.seq.values
    before = min((seq[id(n)] for n in _walk_outside(stmt, waiting) if id(n) in seq
                  and not frame.ctx.stable(n) and not isinstance(n, ast.Constant)), default=None)
    old = list(frame.stack)
    if not frame.spill(before=before):
        raise WaitingValues("a statement runs while values computed before it wait on the stack in %s"
                                 % frame.ctx.code.co_name)
    substitute(stmt, frame.spilled_since(old))


def _walk_outside(node, skip):
    """``ast.walk`` of ``node`` leaving out the nodes in ``skip`` (by id) and their parts."""
    todo = [node]
    while todo:
        n = todo.pop()
        if id(n) in skip:
            continue
        yield n
        todo += children(n)


def began(frame, value, stable):
    """When the evaluation of a value waiting on ``frame``'s stack began: the earliest push
    among its parts (constants, empty displays and the names in ``stable`` left out: they
    read and do nothing, so evaluated later they are the same), or None.  Parts that are
    values the frame inherited are left out too: the branch around an arm evaluates those
    before itself (an arm's ``X[0]`` of a copied ``X`` begins in the arm)."""
    seq = frame.notes.seq.values
    return min([seq[id(n)] for n in _walk_outside(value, frame.inherited) if id(n) in seq and type(n) is not ast.Constant
                and not (type(n) is ast.Name and n.id in stable) and not _empty_display(n)], default=None)


def evaluation_began(frame, value):
    """Where the evaluation of a waiting value begins, to order values evaluated into
    temporaries: its earliest push, names included (``x and y`` after ``(y := v)`` reads
    the new y), but not the parts whose place in the order cannot matter: constants,
    empty displays and the temporaries values were evaluated into before (read at any
    time, a temporary is the same: ``[__t2(__t3)]`` begins with its call).  -1 for none."""
    seq = frame.notes.seq.values
    return min([seq[id(n)] for n in nodes(value) if id(n) in seq and type(n) is not ast.Constant
                and not (type(n) is ast.Name and frame.ctx.is_temporary(n.id)) and not _empty_display(n)], default=-1)


def _empty_display(node):
    """``[]``, ``()``, ``{}`` (Dynamo builds the lists it hands a resume function from them)."""
    cls = type(node)
    return cls in (ast.List, ast.Tuple, ast.Set) and not node.elts or cls is ast.Dict and not node.keys


def restack(frame, stack):
    """``stack`` (an arm's, say, holding values this frame has since evaluated into
    temporaries) with those temporaries in their place."""
    out = []
    for item in stack:
        hit = frame.spilled.get(id(item))
        out.append(hit[1] if hit is not None and hit[0] is item else item)
    return out


def _may_read(item):
    """Whether a stack item may be among :func:`readers_of` a name: not a marker (a
    loop's iterator, a with's exit), which reads nothing the text could move."""
    return isinstance(item, si.Chain) or isinstance(item, ast.expr) and not isinstance(item, si.Marker)


def readers_of(frame, ident):
    """The frame's own waiting values that read the name ``ident`` (a value with a store
    pending, ``(x := v)``, in its value or its targets).  An imported module, or a name
    imported from it, reads none: its ``__import__`` call is a placeholder for the
    import statement (``from ._bootstrap import __import__``, importlib's own)."""
    notes = frame.notes
    return [item for item in (frame.stack[i] for i in frame.owned()) if isinstance(item, si.Chain)
            and (reads_name(item.value, ident) or any(reads_name(t, ident) for t in item.targets))
            or isinstance(item, ast.expr) and not isinstance(item, si.Marker)
            and notes.imported.get(item) is None and notes.imported_from.get(item) is None
            and reads_name(item, ident)]


def with_readers_of_stores(frame, chosen):
    """The stack positions ``chosen`` to evaluate into temporaries, with those of the
    values below a value that stores a name (a pending store, written where the value is
    evaluated, or a walrus in it) that read the name: they are evaluated before it (a
    fast local too, which reads the same only until a store to it)."""
    storing = {i: names for i in chosen for names in [_names_stored_by(frame.stack[i])] if names}
    if not storing:
        return chosen
    stored, last = set().union(*storing.values()), max(storing)
    return sorted(set(chosen) | {i for i in frame.owned() if i < last and isinstance(frame.stack[i], ast.expr)
                                 and any(reads_name(frame.stack[i], n) for n in stored)})


def _names_stored_by(item):
    """The names a stack item stores when it is evaluated: a pending store's targets, and
    the targets of the walruses in its value."""
    names = set()
    if isinstance(item, si.Chain):
        names = {t.id for t in item.targets if isinstance(t, ast.Name)}
        item = item.value
    if isinstance(item, ast.expr) and not isinstance(item, si.Marker):
        names |= {n.target.id for n in nodes(item) if isinstance(n, ast.NamedExpr)}
    return names


def read_before_parallel(frame, targets, values, computed_at):
    """Before a parallel assignment of ``values`` to ``targets`` is written: the waiting
    values computed before its stores that it could change (those reading a name it
    stores, those with effects: Dynamo's call left on the stack under ``v = s.bump()``)
    are evaluated first, or it is refused."""
    first = min(frame.notes.stored_at.get(t, -1) for t in targets)
    bound = {t.id for t in targets if isinstance(t, ast.Name)}
    inside = {id(n) for part in list(targets) + list(values) for n in nodes(part)}
    found = [item for item in (frame.stack[i] for i in frame.owned()) if isinstance(item, ast.expr)
             and not isinstance(item, si.Marker) and computed_at(frame.notes, item) < first
             and not _unchanged(frame, item, bound, inside)]
    if found and not frame.spill(found, only=True):
        raise WaitingValues("a value on the stack reads a name a parallel assignment stores (in %s)"
                                 % frame.ctx.code.co_name)
