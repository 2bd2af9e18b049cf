"""Compile decompiled text back into a code object with a reference frame layout."""
import __future__
import ast
import types

from .errors import DecompilationError
from .functions import argument_count, identifier
from .unparse import unparse

#: compiler flags of the original that change what the same text compiles to
_FUTURE_FLAGS = __future__.annotations.compiler_flag


def _find(code, name):
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            if c.co_name == name:
                return c
            found = _find(c, name)
            if found is not None:
                return found
    return None


def _wrap_in_closure(source, freevars):
    lines = ["def __unveil_closure__():"]
    lines += ["    %s = None" % v for v in freevars]
    lines += ["    " + line if line.strip() else line for line in source.splitlines()]
    return "\n".join(lines) + "\n"


def _keeping(source, like, cells, free):
    """``source`` with dead code in ``like``'s def that makes ``cells`` cell variables
    and ``free`` free variables again.

    The compiler keeps a cell or free variable for a name only used in code it
    then removed (``if not (1 or b): ...``), and Dynamo's transformed code keeps
    the cells of inner functions it compiled away; the text no longer names
    them, but the frame layout must keep them.
    """
    tree = ast.parse(source)
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name in (like.co_name,
                                                                                     identifier(like.co_name)):
            dead = []
            if free:
                dead.append(_reads(free))
            if cells:
                inner = ast.FunctionDef(name="__unveil_cells__", args=ast.arguments(
                    posonlyargs=[], args=[], vararg=None, kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[]),
                    body=[_reads(cells)], decorator_list=[], returns=None, type_comment=None)
                inner.type_params = []
                dead += [ast.Assign(targets=[ast.Name(id=n, ctx=ast.Store())], value=ast.Constant(value=None))
                         for n in cells if n not in like.co_varnames[:argument_count(like)]]
                dead.append(inner)
            node.body.append(ast.If(test=ast.Constant(value=False), body=dead, orelse=[]))
            return unparse(tree.body)
    return source


def _reads(names):
    return ast.Expr(value=ast.Tuple(elts=[ast.Name(id=n, ctx=ast.Load()) for n in names], ctx=ast.Load()))


def recompile(source, like, filename=None):
    """Compile ``source`` and return the code object standing for ``like``.

    The result has ``like``'s name, arguments, free and cell variables in the
    same order, so it can replace ``like`` in a function or frame.
    """
    code = _recompile(source, like, filename)
    cells = [n for n in like.co_cellvars if n not in code.co_cellvars]
    free = [n for n in like.co_freevars if n not in code.co_freevars]
    if (cells or free) and (like.co_flags & 0x2):
        code = _recompile(_keeping(source, like, cells, free), like, filename)
    return _checked(code, like)


def _recompile(source, like, filename):
    text = _wrap_in_closure(source, like.co_freevars) if like.co_freevars else source
    try:
        module = compile(text, filename or like.co_filename, "exec",
                         flags=like.co_flags & _FUTURE_FLAGS, dont_inherit=True)
    except SyntaxError as exc:
        raise DecompilationError("decompiled source of %s does not compile: %s" % (like.co_name, exc)) from exc
    if not (like.co_flags & 0x2):  # not CO_NEWLOCALS: module or class body
        return module
    code = _find(module, like.co_name) if like.co_name.isidentifier() else None
    if code is None:
        code = next((c for c in module.co_consts if isinstance(c, types.CodeType) and c.co_name != "__unveil_closure__"), None)
        if code is None and like.co_freevars:
            outer = _find(module, "__unveil_closure__")
            code = next((c for c in outer.co_consts if isinstance(c, types.CodeType)), None)
        if code is None:
            raise DecompilationError("no code object for %s in the recompiled source" % like.co_name)
    return code


def _checked(code, like):
    if not (like.co_flags & 0x2):
        return code
    nargs = argument_count(like)
    problems = []
    if code.co_varnames[:nargs] != like.co_varnames[:nargs]:
        problems.append("arguments %s != %s" % (code.co_varnames[:nargs], like.co_varnames[:nargs]))
    if code.co_freevars != like.co_freevars:
        problems.append("free variables %s != %s" % (code.co_freevars, like.co_freevars))
    if code.co_cellvars != like.co_cellvars:
        problems.append("cell variables %s != %s" % (code.co_cellvars, like.co_cellvars))
    if problems:
        raise DecompilationError("recompiled %s has another frame layout: %s" % (like.co_name, "; ".join(problems)))
    return code.replace(co_name=like.co_name, co_qualname=like.co_qualname) if hasattr(like, "co_qualname") \
        else code.replace(co_name=like.co_name)
