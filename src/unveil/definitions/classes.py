"""Classes: ``__build_class__`` waiting to be stored, and a class or module body's
statements as written (preamble dropped, docstring and annotated assignments
restored)."""
import __future__
import ast

from ..bytecode.code_objects import enclosing_scopes, identifier
from ..errors import DecompilationError
from ..structure import stackitems as si
from ..structure.waiting import TRYS

FUTURE_ANNOTATIONS = __future__.annotations.compiler_flag

_CLASS_PREAMBLE = {"__module__", "__qualname__", "__firstlineno__", "__static_attributes__",
                   "__classdictcell__"}
#: what 3.13 stores at a class body's end, so in each arm the end was copied into
_CLASS_EPILOGUE = {"__static_attributes__", "__classdictcell__"}
SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)


class ClassBuild(si.Definition):
    """``__build_class__(body, name, *bases, **keywords)`` waiting to be stored."""

    def __init__(self, ctx, args, keywords):
        self.ctx = ctx
        self.body_fn = args[0]
        self.name = args[1].value if isinstance(args[1], ast.Constant) else None
        self.bases = [si.as_expr(a) for a in args[2:]]
        self.keywords = [ast.keyword(arg=k.arg, value=si.as_expr(k.value)) for k in keywords]
        self.decorators = []
        self.decorator_lines = []   # as a Function's
        self.head_line = None       # the original line of ``class``, below its decorators

    def node(self, def_name=None):
        sub = self.ctx.subcontext(self.body_fn.code)
        stmts = with_declarations(_class_body(sub.bindings.notes, sub.statements(), sub.code), sub)
        node = ast.ClassDef(name=def_name or self.name, bases=self.bases, keywords=self.keywords,
                            body=stmts or [ast.Pass()], decorator_list=list(self.decorators))
        node.type_params = getattr(self, "type_params", [])
        sub.bindings.notes.body_code.set(node, self.body_fn.code)
        self.note_decorator_lines(sub.bindings.notes, node)
        return node


def _is_classcell(value):
    """The class body's closing ``return __classcell__`` (possibly as a walrus)."""
    if isinstance(value, ast.NamedExpr):
        value = value.target
    return isinstance(value, ast.Name) and value.id == "__classcell__"


def class_body_statements(notes, code, stmts):
    """A class body's statements as written inside ``class <name>:`` (nested in the classes
    and functions of its qualified name); a qualified name no such nesting gives is kept
    as an assignment, since the compiler would not set it."""
    qualname = [] if enclosing_scopes(code) is not None else [
        st for st in stmts if isinstance(st, ast.Assign) and len(st.targets) == 1
        and isinstance(st.targets[0], ast.Name) and st.targets[0].id == "__qualname__"]
    return qualname + _class_body(notes, stmts, code)


def _class_body(notes, stmts, code):
    """The body without what the compiler wrote: its preamble (``__module__ = __name__``,
    then ``__qualname__``, 3.13's ``__firstlineno__``: each dropped once, and only before
    the first statement of the source), the epilogue, ``__classcell__``.  The body's own
    ``__module__ = 're'`` or ``__qualname__ = ...`` is kept (re._constants.error)."""
    out = []
    preamble = set()
    for st in stmts:
        if isinstance(st, ast.Assign) and len(st.targets) == 1 and isinstance(st.targets[0], ast.Name) \
                and st.targets[0].id in _CLASS_PREAMBLE:
            target = st.targets[0].id
            if target in _CLASS_EPILOGUE or not out and target not in preamble and (
                    target != "__module__" or isinstance(st.value, ast.Name) and st.value.id == "__name__"):
                preamble.add(target)
                continue
        if _assigns_type_params(st):
            continue
        if isinstance(st, ast.Return) and _is_classcell(st.value):
            continue
        if isinstance(st, ast.Assign) and isinstance(st.targets[0], ast.Name) and st.targets[0].id == "__classcell__":
            continue
        out.append(st)
    return docstring_first(notes, annotated_assignments(out, code))


def without_copied_returns(stmts):
    """A module or class body without the returns the compiler wrote: its implicit
    ``return`` (a class's ``return __classcell__``) at the end, and the copies 3.11+
    put at the end of branches that lead there.  The source of such a body has no
    ``return``, so each one ends the body: an ``if`` whose one arm ends so has the
    statements after it as its other arm, and a ``try`` whose except clauses all end
    so has them as its ``else``.  A copy the text cannot say so (inside a loop, or a
    ``with`` that more statements follow) is refused."""
    out = []
    for i, st in enumerate(stmts):
        rest = stmts[i + 1:]
        if isinstance(st, ast.Return):
            return out                           # what follows is never reached
        if all(isinstance(r, ast.Return) or _epilogue(r) for r in rest):
            rest = []                            # only the end follows
            if _epilogue(st):
                return out
        if not rest:
            st = _loop_ending_the_body(st)
        if not _returns_inside(st):
            out.append(st)
            continue
        if isinstance(st, ast.If):
            body_ends, else_ends = _ends(st.body), _ends(st.orelse)
            if body_ends and not else_ends:
                st.orelse, rest = st.orelse + rest, []
            elif else_ends and not body_ends:
                st.body, rest = st.body + rest, []
            elif body_ends and else_ends:
                rest = []
        elif isinstance(st, TRYS) and rest and st.handlers and all(_ends(h.body) for h in st.handlers) \
                and not _ends(st.body) and not st.finalbody:
            st.orelse, rest = st.orelse + rest, []   # what follows runs when nothing was raised
        if isinstance(st, (ast.For, ast.AsyncFor, ast.While)) or rest and not isinstance(st, ast.If):
            raise DecompilationError("a module or class body ends inside a %s that code follows or repeats"
                                     % type(st).__name__.lower())
        if rest:
            raise DecompilationError("a module or class body ends in one path of an if that code follows")
        for field in ("body", "orelse", "finalbody"):
            block = getattr(st, field, None)
            if block:
                setattr(st, field, without_copied_returns(block) or ([ast.Pass()] if field != "orelse" else []))
        for part in getattr(st, "handlers", None) or getattr(st, "cases", None) or ():
            part.body = without_copied_returns(part.body) or [ast.Pass()]
        out.append(st)
        if not rest:
            return out
    return out


def _loop_ending_the_body(st):
    """A loop that ends a module or class body may leave it by copies of the body's return
    (3.8 and 3.9 from a last while's test, 3.11+ for a ``break``): in the loop's own body
    each is a ``break``, and ``while True: if not c: break; B`` is then ``while c: B``."""
    if not isinstance(st, (ast.While, ast.For, ast.AsyncFor)):
        return st
    st.body = _returns_as_breaks(st.body)
    first = st.body[0]
    if isinstance(st, ast.While) and isinstance(st.test, ast.Constant) and st.test.value is True \
            and isinstance(first, ast.If) and not first.orelse and len(first.body) == 1 \
            and isinstance(first.body[0], ast.Break):
        return ast.While(test=si.negate(first.test), body=st.body[1:] or [ast.Pass()], orelse=st.orelse)
    return st


def _returns_as_breaks(stmts):
    """``stmts`` of a loop's body with each copied return of the body's end (one with no
    value of its own) a ``break``; nested loops and scopes are left as they are."""
    out = []
    for st in stmts:
        if isinstance(st, ast.Return) and _copied_value(st.value):
            out.append(ast.Break())
            continue
        if not isinstance(st, (ast.For, ast.AsyncFor, ast.While) + SCOPES):
            for field in ("body", "orelse", "finalbody"):
                if getattr(st, field, None):
                    setattr(st, field, _returns_as_breaks(getattr(st, field)))
            for part in getattr(st, "handlers", None) or getattr(st, "cases", None) or ():
                part.body = _returns_as_breaks(part.body)
        out.append(st)
    return out


def _copied_value(value):
    return value is None or _is_classcell(value) or isinstance(value, ast.Constant) and value.value is None


def _ends(stmts):
    """Whether every path through ``stmts`` ends in a return."""
    last = stmts[-1] if stmts else None
    return isinstance(last, ast.Return) or isinstance(last, ast.If) and _ends(last.body) and _ends(last.orelse) \
        or isinstance(last, TRYS) and _try_ends(last)


def _try_ends(st):
    """Whether no path through the try ``st`` goes on past it: its finally body ends, or
    its body or else clause ends and every except clause ends or raises (3.10+ copy the
    return of a body's end into a try in one arm of an ``if`` that the other arm follows)."""
    return _ends(st.finalbody) or (_ends(st.body) or _ends(st.orelse)) and all(
        _ends(h.body) or isinstance(h.body[-1], ast.Raise) for h in st.handlers)


def _returns_inside(st):
    if isinstance(st, SCOPES):
        return False
    todo = [st]
    while todo:
        node = todo.pop()
        if isinstance(node, ast.Return):
            return True
        todo += [c for c in ast.iter_child_nodes(node) if not isinstance(c, SCOPES)]
    return False


def _epilogue(st):
    return isinstance(st, ast.Assign) and len(st.targets) == 1 and isinstance(st.targets[0], ast.Name) \
        and st.targets[0].id in _CLASS_EPILOGUE


def with_declarations(body, ctx):
    """A class body with the ``global`` and ``nonlocal`` statements of the names it stores
    (STORE_GLOBAL; STORE_DEREF of a free variable) after its docstring: without them the
    names would be the class's own attributes."""
    decls = ([ast.Global(names=sorted(ctx.globals))] if ctx.globals else []) + \
        ([ast.Nonlocal(names=sorted(ctx.nonlocals))] if ctx.nonlocals else [])
    docstring = body[:1] if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
        and isinstance(body[0].value.value, str) else []
    return docstring + decls + body[len(docstring):]


def docstring_first(notes, body):
    """A module's or class's first ``__doc__ = "..."`` as its docstring (the same bytecode,
    and a ``from __future__`` import may follow it); a later one stays an assignment."""
    first = body[0] if body else None
    if isinstance(first, ast.Assign) and len(first.targets) == 1 and isinstance(first.targets[0], ast.Name) \
            and first.targets[0].id == "__doc__" and isinstance(first.value, ast.Constant) \
            and isinstance(first.value.value, str):
        doc = ast.Expr(value=first.value)
        notes.line.set(doc, notes.line.get(first))
        return [doc] + body[1:]
    return body


def _assigns_type_params(st):
    """What the compiler adds to a class body for PEP 695 scopes (3.12+):
    ``__type_params__ = .type_params`` and ``__classdict__ = locals()``."""
    if not (isinstance(st, ast.Assign) and len(st.targets) == 1 and isinstance(st.targets[0], ast.Name)):
        return False
    target, value = st.targets[0].id, st.value
    if target == "__type_params__":
        return isinstance(value, ast.Name) and value.id == identifier(".type_params")
    return target == "__classdict__" and isinstance(value, ast.Call) and isinstance(value.func, ast.Name) \
        and value.func.id == "locals" and not value.args


def annotated_assignments(stmts, code):
    """``x = v; __annotations__['x'] = T`` (class and module bodies) is ``x: T = v``;
    under ``from __future__ import annotations`` (``code``'s flags) ``T`` is source text."""
    future = bool(code.co_flags & FUTURE_ANNOTATIONS)
    out = []
    for st in stmts:
        key = _annotation_key(st)
        if key is None:
            out.append(st)
            continue
        target, value = ast.Name(id=key, ctx=ast.Store()), None
        prev = out[-1] if out else None
        if (isinstance(prev, ast.Assign) and len(prev.targets) == 1 and isinstance(prev.targets[0], ast.Name)
                and prev.targets[0].id == key):
            out.pop()
            value = prev.value
        out.append(ast.AnnAssign(target=target, annotation=annotation_value(st.value, future), value=value,
                                 simple=1))
    return out


def _annotation_key(st):
    """The name of ``__annotations__['name'] = T``, else None."""
    if not (isinstance(st, ast.Assign) and len(st.targets) == 1 and isinstance(st.targets[0], ast.Subscript)):
        return None
    sub = st.targets[0]
    key = sub.slice.value if isinstance(sub.slice, ast.Index) else sub.slice
    if (isinstance(sub.value, ast.Name) and sub.value.id == "__annotations__"
            and isinstance(key, ast.Constant) and isinstance(key.value, str) and key.value.isidentifier()):
        return key.value
    return None


def annotation_value(node, future):
    """An annotation; under ``from __future__ import annotations`` it is stored as
    source text, which is parsed back into the expression.  (``*args: *Ts``, 3.11+, is
    ``structure.unpacks.starred_annotations``'.)"""
    if future and isinstance(node, ast.Constant) and isinstance(node.value, str):
        try:
            return ast.parse(node.value, mode="eval").body
        except SyntaxError:
            pass
    return node
