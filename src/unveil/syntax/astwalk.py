"""Walks over ``ast`` trees, about twice as fast as :func:`ast.walk`.

The decompiler walks every value it builds several times (when it was
computed, which names it reads, whether it is used twice); ``ast.walk``'s
generator per node and its visits of the ``Load``/``Store`` context objects
were a fifth of its time.  These visit the same nodes, contexts and operators left
out, in no particular order.
"""
import ast

_AST = ast.AST
#: fields that never hold a node to visit: names, numbers, flags, contexts and operators
_LEAF_FIELDS = frozenset(("arg", "asname", "attr", "conversion", "ctx", "id", "is_async", "kind", "kwd_attrs",
                          "level", "lineno", "module", "n", "op", "ops", "rest", "s", "simple", "tag",
                          "type_comment"))
#: node class -> the fields of it that may hold nodes
_NODE_FIELDS = {ast.Constant: ()}


def children(node):
    """The nodes directly under ``node`` (:func:`ast.iter_child_nodes` as a list, contexts
    and operators left out)."""
    fields = _NODE_FIELDS.get(type(node))
    if fields is None:
        fields = _NODE_FIELDS[type(node)] = tuple(f for f in node._fields if f not in _LEAF_FIELDS)
    out = []
    for field in fields:
        value = getattr(node, field, None)
        if type(value) is list:
            out += [v for v in value if isinstance(v, _AST)]
        elif isinstance(value, _AST):
            out.append(value)
    return out


def nodes(*roots):
    """The ``roots`` and every node under them, as a list."""
    out = list(roots)
    for n in out:  # grows while it is read
        out += children(n)
    return out


def reads_name(node, ident):
    """Whether ``node`` or a node under it is the name ``ident`` (in any context)."""
    todo = [node]
    while todo:
        n = todo.pop()
        if isinstance(n, ast.Name):
            if n.id == ident:
                return True
        else:
            todo += children(n)
    return False


def substitute(node, new):
    """Replace, inside ``node``, the parts in ``new`` (``{id(part): replacement}``) with
    their replacements."""
    if not new:
        return
    for n in ast.walk(node):
        for field, value in ast.iter_fields(n):
            if isinstance(value, list):
                value[:] = [new.get(id(v), v) for v in value]
            elif id(value) in new:
                setattr(n, field, new[id(value)])


_DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def statement_lists(stmts):
    """``(owner, field)`` for each list of statements nested in ``stmts`` (an ``if``'s
    body and else, a handler's or a case's body, ...), not inside a ``def`` or
    ``class``, each list before the ones nested in it.  A pass that rewrites these
    lists from the last to the first sees every nested list rewritten first, without
    recursing: an ``elif`` chain of a thousand arms is a thousand nested ``if``\\ s."""
    out = []
    todo = list(reversed(stmts))
    while todo:
        st = todo.pop()
        if isinstance(st, _DEFINITIONS):
            continue
        owners = [(st, field) for field in ("body", "orelse", "finalbody")
                  if type(getattr(st, field, None)) is list]
        for part in getattr(st, "handlers", None) or getattr(st, "cases", None) or ():
            owners.append((part, "body"))
        for owner, field in owners:
            out.append((owner, field))
            todo.extend(reversed(getattr(owner, field)))
    return out


def loop_body_nodes(stmts):
    """The nodes of a loop's body ``stmts`` that belong to that loop: not those of nested
    loops' bodies (their ``else`` clauses are the loop's) or of nested functions and classes."""
    todo = list(stmts)
    while todo:
        n = todo.pop()
        yield n
        for child in ast.iter_child_nodes(n):
            if isinstance(n, (ast.For, ast.AsyncFor, ast.While)) and child in n.body:
                continue
            if not isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
                todo.append(child)


def never_runs_on(stmts):
    """Whether the statements ``stmts`` end in a ``return``, ``raise``, ``break`` or
    ``continue`` on every way through them."""
    last = stmts[-1] if stmts else None
    if isinstance(last, ast.If):
        return never_runs_on(last.body) and never_runs_on(last.orelse)
    if isinstance(last, (ast.With, ast.AsyncWith)):
        # its manager's exit may swallow an exception of the body and run on past it: only
        # a body that cannot raise never does
        return len(last.body) == 1 and _cannot_raise(last.body[0]) and never_runs_on(last.body)
    if isinstance(last, (ast.Try, getattr(ast, "TryStar", ast.Try))):
        return never_runs_on(last.finalbody) or (never_runs_on(last.orelse or last.body)
                                                 and all(never_runs_on(h.body) for h in last.handlers))
    return isinstance(last, (ast.Return, ast.Raise, ast.Break, ast.Continue))


def _cannot_raise(stmt):
    """Whether a statement that leaves cannot raise on its way: ``break``, ``continue``,
    ``return`` of a constant."""
    if isinstance(stmt, ast.Return):
        return stmt.value is None or isinstance(stmt.value, ast.Constant)
    return isinstance(stmt, (ast.Break, ast.Continue))
