"""Public entry points: decompile a function, code object or .pyc; recompile the text."""
import ast
import functools
import inspect
import os
import sys
import types

from .astwalk import nodes
from .errors import DecompilationError, InternalError
from .functions import Bindings, FunctionContext, annotated_assignments, class_body_statements, \
    docstring_first, enclosing_scope, function_def, is_class_body, signature_values
from . import stackitems as si
from .unparse import unparse_with_origins


class Decompiled:
    """Decompiled source, the objects its placeholder names must be bound to, and
    per line of the source the original line it stands for (None where unknown):
    ``recompile(source, code, lines=lines)`` gives code with the original's lines.

    ``lowered`` lists the code objects (the decompiled one or any nested in it)
    that structuring refused and that are written as a state machine instead, as
    ``Lowering(name, line, reason)``: qualified name, first line, the refusal."""

    def __init__(self, source, bindings, lines, lowered=()):
        self.source = source
        self.bindings = bindings
        self.lines = lines
        self.lowered = list(lowered)

    def __str__(self):
        return self.source


def python_function(obj):
    """The innermost Python function behind ``obj``, or None: through bound methods,
    ``staticmethod``, ``classmethod``, ``functools.cached_property`` and ``__wrapped__``
    (``functools.wraps``, ``lru_cache``, networkx's dispatcher), but only as far as
    Python code goes (jinja2's ``Context.keys`` wraps the built-in ``dict.keys``: its
    own ``f_all`` is the answer, not ``dict.keys``)."""
    found, seen = None, set()
    while obj is not None and id(obj) not in seen and len(seen) < sys.getrecursionlimit():
        seen.add(id(obj))
        if isinstance(obj, types.FunctionType):
            found = obj
        if isinstance(obj, functools.cached_property):
            obj = obj.func
        elif isinstance(obj, (types.MethodType, staticmethod, classmethod)):
            obj = obj.__func__
        else:
            obj = getattr(obj, "__wrapped__", None)
    return found


def code_of(obj):
    """The code object behind a function, method, code object or .pyc path."""
    if isinstance(obj, types.CodeType):
        return obj
    if isinstance(obj, (str, os.PathLike)):
        from .pyc import load_pyc
        return load_pyc(obj)
    func = python_function(obj)
    code = getattr(func, "__code__", None)
    if not isinstance(code, types.CodeType):
        raise DecompilationError("cannot decompile %r: not a function, code object or .pyc path"
                                 % (obj,))
    return code


def decompile_code(obj, bindings_prefix="__unveil_"):
    """Decompile ``obj``; return a :class:`Decompiled` (source and bindings).

    Objects with no literal form in the code's constants are named
    ``<bindings_prefix><type>_<n>`` in the source (``Decompiled.bindings``)."""
    code = code_of(obj)
    func = None if isinstance(obj, (types.CodeType, str, os.PathLike)) else python_function(obj)
    bindings = Bindings(bindings_prefix)
    try:
        if code.co_flags & inspect.CO_NEWLOCALS:
            fn = si.Function(code)
            fn.ctx = FunctionContext(code, bindings)
            fn.decorators = []
            if func is not None and func.__code__ is code:
                signature_values(fn, func, bindings)
            node = function_def(fn, bindings=bindings)
            node._line = code.co_firstlineno
            if node.name != code.co_name or not code.co_name.isidentifier():
                node.name = FunctionContext(code).identifier(code.co_name)
            if code.co_freevars:
                node = enclosing_scope(node, code.co_freevars)
            tree = ast.Module(body=[node], type_ignores=[])
        else:
            stmts = FunctionContext(code, bindings).statements()
            body = class_body_statements(code, stmts) if is_class_body(code) \
                else docstring_first(annotated_assignments(stmts, code))
            tree = ast.Module(body=body or [ast.Pass()], type_ignores=[])
        source, lines = unparse_with_origins(tree)
        if bindings.names:        # the state machine names every code constant, used or not
            used = {n.id for n in nodes(tree) if isinstance(n, ast.Name)}
            bindings.names = {k: v for k, v in bindings.names.items() if k in used}
    except DecompilationError:
        raise
    except RecursionError:
        raise DecompilationError("%s is nested too deeply to decompile" % code.co_name)
    except (IndexError, KeyError, AttributeError, TypeError, ValueError, AssertionError) as exc:
        # a bug, never a refusal: one clear error for the caller, the crash as its cause
        raise InternalError("internal error decompiling %s (line %s): %s: %s"
                            % (code.co_name, code.co_firstlineno, type(exc).__name__, exc)) from exc
    return Decompiled(source + "\n", bindings.names, lines, bindings.lowered.values())


def decompile(obj):
    """Python source equivalent to ``obj`` (function, method, code object or .pyc path)."""
    return decompile_code(obj).source
