"""PEP 695 generic definitions (3.12+) read back from their hidden scope.

``def f[T](...)``, ``class C[T]`` and ``type A[T] = ...`` compile to a function
``<generic parameters of X>`` that the enclosing code makes and calls at once:
it creates the type parameters, binds them as its locals, and returns the
function, class or type alias built with them.  Its body is straight-line code,
so it is run on one :class:`~unveil.structure.frame.Frame` and its result becomes the
definition, with ``type_params`` set, that the enclosing code then stores.
Bounds, constraints, defaults and alias values are lazily evaluated functions;
each is decompiled to the one expression it returns.
"""
import ast

from ..bytecode.canonical import normalise
from ..bytecode.code_objects import identifier
from ..errors import DecompilationError
from ..structure import stackitems as si
from ..structure.frame import Frame
from .classes import ClassBuild

# hidden locals of the scope: what the class body and the bases refer to
_HIDDEN = {".type_params", ".generic_base"}


def definition(ctx, scope, args):
    """The function, class or type alias that calling ``scope`` (a generic scope's
    :class:`~unveil.structure.stackitems.Function`) with ``args`` returns, its type parameters set."""
    code = scope.code
    if len(args) != code.co_argcount:
        raise DecompilationError("%s called with %d arguments" % (code.co_name, len(args)))
    passed = {identifier(n): a for n, a in zip(code.co_varnames, args)}  # .defaults, .kwdefaults
    sub = ctx.subcontext(code)
    instrs = normalise(code).instrs
    if not instrs or instrs[-1].op != "RETURN_VALUE" or any(i.target is not None for i in instrs):
        raise DecompilationError("%s is not straight-line code" % code.co_name)
    frame = Frame(sub)
    frame.run(instrs[:-1])
    result = frame.pop_raw()
    hidden = {identifier(n): st.value for st in frame.out for n in _HIDDEN
              if _assigns(st, identifier(n))}
    if len(hidden) != len(frame.out) or frame.stack:
        raise DecompilationError("%s does more than define its type parameters" % code.co_name)
    if isinstance(result, si.Function):
        result.ctx = ctx
        result.defaults = _passed(result.defaults, passed)
        result.kwdefaults = _passed(result.kwdefaults, passed)
        result.type_params = _params(getattr(result, "type_params", None))
    elif isinstance(result, ClassBuild):
        base = identifier(".generic_base")
        if not (result.bases and _is_name(result.bases[-1], base)):
            raise DecompilationError("generic class %s without its Generic base" % result.name)
        result.bases.pop()
        result.type_params = _params(hidden.get(identifier(".type_params")))
        result.ctx = ctx
    elif not isinstance(result, si.TypeAlias):
        raise DecompilationError("%s returns %s" % (code.co_name, type(result).__name__))
    _refuse_hidden(result, passed.keys() | {identifier(n) for n in _HIDDEN})
    return result


def scope_statements(ctx):
    """The body of a generic scope decompiled on its own, not from the code that calls
    it: the definition it makes, as its statement, then ``return`` of it (the scope's
    own parameters passed through, so a definition reading them is refused)."""
    code = ctx.code
    args = [si.name(identifier(n)) for n in code.co_varnames[:code.co_argcount]]
    result = definition(ctx, si.Function(code), args)
    ident = result.code.co_name if isinstance(result, si.Function) else result.name
    frame = Frame(ctx)
    ctx.define(frame, si.name(ident, store=True), result)
    return frame.out + [ast.Return(value=si.name(ident))]


def bind_type_param(target, param):
    """A type parameter stored as its own name: part of the definition, no statement."""
    if not (isinstance(target, ast.Name) and target.id == param.name):
        raise DecompilationError("type parameter %s stored as another name" % param.name)


def _assigns(st, ident):
    return isinstance(st, ast.Assign) and len(st.targets) == 1 and _is_name(st.targets[0], ident)


def _is_name(node, ident):
    return isinstance(node, ast.Name) and node.id == ident


def _passed(node, passed):
    """A default read from the scope's parameter: the value the enclosing code passed."""
    if isinstance(node, ast.Name) and node.id in passed:
        return passed[node.id]
    return node


def _params(node):
    if node is None or isinstance(node, ast.Constant) and node.value is None:
        return []
    if not isinstance(node, ast.Tuple):
        raise DecompilationError("type parameters are not a tuple display")
    return list(node.elts)


def _refuse_hidden(result, names):
    """Refuse a definition that still reads a hidden local of the scope (the source has
    no way to name it)."""
    parts = []
    if isinstance(result, si.Function):
        parts = [result.defaults, result.kwdefaults, result.annotations]
    elif isinstance(result, ClassBuild):
        parts = result.bases + [k.value for k in result.keywords]
    for part in parts:
        if part is not None and any(isinstance(n, ast.Name) and n.id in names for n in ast.walk(part)):
            raise DecompilationError("a generic definition reads a hidden local of its scope")


def type_param_node(param):
    """The ``ast.TypeVar``/``ParamSpec``/``TypeVarTuple`` node of a :class:`~unveil.structure.stackitems.TypeParam`."""
    node = getattr(ast, param.kind)(name=param.name)
    if param.kind == "TypeVar":
        node.bound = lazy_value(param.bound) if param.bound is not None else None
    if param.default is not None:
        node.default_value = lazy_value(param.default, starred=param.kind == "TypeVarTuple")
    return node


def lazy_value(fn, starred=False):
    """The expression a lazily evaluated function (bound, default, alias value) returns.

    ``*Ts = *X`` evaluates ``X`` and unpacks its one item; that returns ``*X``.
    """
    if not isinstance(fn, si.Function):
        raise DecompilationError("a lazily evaluated value that is not a function")
    if starred:
        instrs = normalise(fn.code).instrs
        if len(instrs) >= 2 and instrs[-2].op == "UNPACK_SEQUENCE" and instrs[-2].arg == 1 \
                and all(i.target is None for i in instrs):
            frame = Frame(fn.ctx.subcontext(fn.code))
            frame.run(instrs[:-2])
            if len(frame.stack) != 1 or frame.out:
                raise DecompilationError("a starred default that is not one expression")
            return ast.Starred(value=frame.pop(), ctx=ast.Load())
    return fn.ctx.lambda_value(fn).body


def alias_statement(target, alias):
    """``type name[params] = value`` for a stored :class:`~unveil.structure.stackitems.TypeAlias`."""
    if not (isinstance(target, ast.Name) and target.id == alias.name):
        raise DecompilationError("type alias %s stored as another name" % alias.name)
    return ast.TypeAlias(name=ast.Name(id=alias.name, ctx=ast.Store()), type_params=_params(alias.params),
                         value=lazy_value(alias.value))
