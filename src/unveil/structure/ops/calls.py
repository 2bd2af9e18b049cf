"""Handlers of the canonical instructions that call, make functions and classes,
import, and (3.12+) make type parameters (see :mod:`unveil.structure.ops`)."""
import ast

from ...errors import DecompilationError
from .. import stackitems as si
from .. import unpacks
from ..stackitems import NULL, name
from .table import handles
from .values import tuple_value


def _keywords(names, values):
    return [si.keyword_argument(n, v) for n, v in zip(names, values)]


def _pop_callable(f, has_null):
    """Pop the callable of a call; return it and any argument hidden in its slot.

    With a NULL slot (3.11+), the pair is (NULL, callable) or, in 3.13 and for
    methods, (callable, NULL).  A pair without NULL is ``callable(self, ...)``:
    the compiler emits it when it calls a comprehension function.
    """
    f.consume(2 if has_null else 1)
    first = f.pop_raw()
    if not has_null:
        return first, []
    second = f.pop_raw()
    if first is NULL:
        return second, []
    if second is NULL:
        return first, []
    return second, [first]


@handles("CALL")
def _call(f, ins):
    argc, kwnames, has_null = ins.argval
    if kwnames == "stack":
        kwnames = tuple_value(f.pop())
    kwnames = kwnames or ()
    args = f.popn(argc, raw=True)
    func, hidden = _pop_callable(f, has_null)
    args = hidden + args
    nkw = len(kwnames)
    pos, kwvals = (args[:len(args) - nkw], args[len(args) - nkw:]) if nkw else (args, [])
    f.ctx.call(f, func, pos, _keywords(kwnames, kwvals))


@handles("CALL_FUNCTION_EX")
def _call_ex(f, ins):
    has_kwargs, has_null = ins.argval
    kwargs = f.pop() if has_kwargs else None
    args = f.pop()
    func, hidden = _pop_callable(f, has_null)
    if hidden:
        raise DecompilationError("CALL_FUNCTION_EX with a self slot is not supported")
    if isinstance(args, ast.Tuple):
        pos = args.elts
    elif isinstance(args, ast.Constant) and isinstance(args.value, tuple):
        pos = [f.ctx.constant(v) for v in args.value]
    else:
        pos = [ast.Starred(value=args, ctx=ast.Load())]
    keywords = []
    if kwargs is not None:
        if isinstance(kwargs, ast.Dict):
            for k, v in zip(kwargs.keys, kwargs.values):
                if k is None:
                    keywords.append(ast.keyword(arg=None, value=v))
                elif isinstance(k, ast.Constant) and isinstance(k.value, str):
                    keywords.append(si.keyword_argument(k.value, v))
                else:
                    keywords.append(ast.keyword(arg=None, value=ast.Dict(keys=[k], values=[v])))
        else:
            keywords.append(ast.keyword(arg=None, value=kwargs))
    f.ctx.call(f, func, pos, keywords)


@handles("MAKE_FUNCTION")
def _make_function(f, ins):
    f.ctx.make_function(f, ins)


@handles("SET_FUNCTION_ATTRIBUTE")
def _set_function_attribute(f, ins):
    func = f.pop_raw()
    value = f.pop()
    flag = ins.arg
    if flag & 1:
        func.defaults = f.ctx.bound_tuple_as_display(value)
    elif flag & 2:
        func.kwdefaults = value
    elif flag & 4:
        func.annotations = unpacks.starred_annotations(f, value)
    elif flag & 8:
        func.closure = value
    f.push(func)


@handles("LOAD_BUILD_CLASS")
def _load_build_class(f, ins):
    f.push(si.BuildClass())


# --- imports ---------------------------------------------------------------

@handles("IMPORT_NAME")
def _import_name(f, ins):
    fromlist, level = f.pop(), f.pop()
    node = ast.Call(func=name("__import__"), args=[], keywords=[])
    f.notes.imported.set(node, (ins.argval, fromlist.value if isinstance(fromlist, ast.Constant) else None,
                                level.value if isinstance(level, ast.Constant) else 0))
    f.push(node)


@handles("IMPORT_FROM")
def _import_from(f, ins):
    module = f.top()
    node = ast.Attribute(value=module, attr=ins.argval, ctx=ast.Load())
    f.notes.imported_from.set(node, (module, ins.argval))
    f.push(node)


@handles("IMPORT_STAR")
def _import_star(f, ins):
    module = f.pop()
    modname, _, level = f.notes.imported.get(module)
    f.emit(ast.ImportFrom(module=modname or None, names=[ast.alias(name="*", asname=None)], level=level))


# --- PEP 695 type parameters (3.12+) ------------------------------------------

@handles("TYPEVAR", "PARAMSPEC", "TYPEVARTUPLE")
def _type_param(f, ins):
    kind = {"TYPEVAR": "TypeVar", "PARAMSPEC": "ParamSpec", "TYPEVARTUPLE": "TypeVarTuple"}[ins.op]
    f.push(si.TypeParam(f.ctx, kind, _const_str(f.pop())))


@handles("TYPEVAR_WITH_BOUND", "TYPEVAR_WITH_CONSTRAINTS")
def _bounded_type_param(f, ins):
    """Constraints are a bound that evaluates to a tuple display: ``T: (int, str)``."""
    bound = f.pop_raw()
    f.push(si.TypeParam(f.ctx, "TypeVar", _const_str(f.pop()), bound))


@handles("SET_TYPEPARAM_DEFAULT")
def _type_param_default(f, ins):
    default = f.pop_raw()
    f.top().default = default


@handles("SET_FUNCTION_TYPE_PARAMS")
def _set_function_type_params(f, ins):
    params = f.pop()
    f.top().type_params = params


@handles("SUBSCRIPT_GENERIC")
def _subscript_generic(f, ins):
    f.push(ast.Subscript(value=name("Generic"), slice=f.pop(), ctx=ast.Load()))


@handles("TYPEALIAS")
def _type_alias(f, ins):
    value, params, alias = f.pop_raw(), f.pop(), _const_str(f.pop())
    f.push(si.TypeAlias(alias, params, value))


def _const_str(node):
    if not (isinstance(node, ast.Constant) and isinstance(node.value, str)):
        raise DecompilationError("a type parameter or alias named by a non-string")
    return node.value
