"""Public entry points: decompile a function, code object or .pyc; recompile the text."""
import ast
import functools
import inspect
import os
import sys
import types

from .bytecode import facts
from .bytecode.code_objects import class_qualname, first_text_line, is_class_body
from .definitions.classes import annotated_assignments, class_body_statements, docstring_first
from .definitions.functions import Bindings, FunctionContext, enclosing_scope, function_def, signature_values
from .errors import DecompilationError, InternalError
from .structure import stackitems as si
from .syntax.astwalk import nodes
from .syntax.unparse import unparse_with_origins


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
    """The code object behind a function, method, class, module, code object, or a
    path: ``file.py`` or ``file.pyc`` (its module code), ``file.py:qualname`` or
    ``file.pyc:qualname`` (a function or class body in it), as the CLI takes them."""
    return _located(obj)[0]


def _located(obj):
    """``(code, root)``: the code behind ``obj`` (see :func:`code_of`) and, where it is a
    class body found inside other code, the code it was found in (else None)."""
    if isinstance(obj, types.CodeType):
        return obj, None
    if isinstance(obj, (str, os.PathLike)):
        return _path_code(os.fspath(obj))
    if isinstance(obj, types.ModuleType):
        return _module_code(obj), None
    if isinstance(obj, type):
        return _class_code(obj)
    func = python_function(obj)
    code = getattr(func, "__code__", None)
    if not isinstance(code, types.CodeType):
        raise DecompilationError("cannot decompile %r: not a function, code object or .pyc path"
                                 % (obj,))
    return code, None


def _path_code(path):
    """``(code, root)`` of ``file.py``, ``file.pyc``, or of ``qualname`` in
    ``file:qualname`` (root: the file's code, where qualname names a class)."""
    qualname = ""
    if not os.path.exists(path):
        head, sep, tail = path.rpartition(":")
        if sep and os.path.isfile(head):
            path, qualname = head, tail
    if path.endswith(".pyc"):
        from .pyc import load_pyc
        code = load_pyc(path)
    else:
        code = _compile_file(path)
    if not qualname:
        return code, None
    for name, nested in walk_code(code, ""):
        if name == qualname:
            return nested, (code if is_class_body(nested) else None)
    raise DecompilationError("%s has no function or class %r" % (path, qualname))


def _compile_file(path):
    """The module code of a source file, compiled (not run)."""
    if os.path.isdir(path):
        raise DecompilationError("%s is a directory, not a .py or .pyc file" % path)
    try:
        with open(path, "rb") as f:
            source = f.read()
    except FileNotFoundError:
        raise DecompilationError("no such file: %s" % path) from None
    except OSError as exc:
        raise DecompilationError("cannot read %s: %s" % (path, exc.strerror or exc)) from None
    try:
        return compile(source, path, "exec", dont_inherit=True)
    except SyntaxError as exc:
        raise DecompilationError("cannot compile %s: %s (line %s)" % (path, exc.msg, exc.lineno)) from None
    except ValueError as exc:  # null bytes in the source
        raise DecompilationError("cannot compile %s: %s" % (path, exc)) from None


def walk_code(code, prefix):
    """(qualified name, code) for every code object nested in ``code``'s constants, in
    order, nested ones after their parent (``outer.<locals>.inner``, ``C.method``)."""
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            name = getattr(const, "co_qualname", None) or prefix + const.co_name
            yield name, const
            inner = prefix + const.co_name
            inner += ".<locals>." if const.co_flags & inspect.CO_OPTIMIZED else "."
            yield from walk_code(const, inner)


def _module_code(module):
    """A module's code, as its loader gives it, or else its source file compiled (a
    loader such as pytest's assertion rewriter has no ``get_code``); the module is
    not run again."""
    get_code = getattr(getattr(module, "__loader__", None), "get_code", None)
    try:
        code = get_code(module.__name__) if get_code is not None else None
    except (ImportError, OSError, SyntaxError, ValueError) as exc:
        raise DecompilationError("cannot get the code of module %s: %s" % (module.__name__, exc)) from None
    path = getattr(module, "__file__", None)
    if code is None and isinstance(path, str) and path.endswith(".py"):
        code = _compile_file(path)
    if not isinstance(code, types.CodeType):
        raise DecompilationError("module %s has no Python code (built-in, extension or namespace)"
                                 % module.__name__)
    return code


def _class_code(cls):
    """``(body, root)``: the body of class ``cls`` as its module's code holds it, and
    that module code."""
    module = sys.modules.get(cls.__module__)
    if module is None:
        raise DecompilationError("cannot decompile class %s: its module %s is not loaded"
                                 % (cls.__qualname__, cls.__module__))
    root = _module_code(module)
    for _, code in walk_code(root, ""):
        if is_class_body(code) and class_qualname(code) == cls.__qualname__:
            return code, root
    raise DecompilationError("no class body of %s in the code of module %s"
                             % (cls.__qualname__, cls.__module__))


def decompile_code(obj, bindings_prefix="__unveil_"):
    """Decompile ``obj``; return a :class:`Decompiled` (source and bindings).

    A class, or ``path:qualname`` naming one, comes out as its whole ``class``
    statement (decorators, bases, keywords), decompiled from the code that runs it;
    a class body's code object alone gives the statements inside the ``class``.
    Objects with no literal form in the code's constants are named
    ``<bindings_prefix><type>_<n>`` in the source (``Decompiled.bindings``)."""
    code, root = _located(obj)
    func = None if isinstance(obj, (types.CodeType, str, os.PathLike)) else python_function(obj)
    bindings = Bindings(bindings_prefix)
    try:
        tree = _class_statement(root, code, bindings) if root is not None else _tree(code, func, bindings)
        pinned = first_text_line(code) if facts.CLASS_BODY_STORES_ITS_LINE and root is None else None
        source, lines = unparse_with_origins(tree, bindings.notes.line, bindings.notes.name_line, pinned,
                                             bindings.notes.filter_line, bindings.notes.try_on_body_line,
                                             bindings.notes.signature_lines)
    except DecompilationError:
        raise
    except RecursionError:
        raise DecompilationError("%s is nested too deeply to decompile" % code.co_name)
    except (IndexError, KeyError, AttributeError, TypeError, ValueError, AssertionError) as exc:
        # a bug, never a refusal: one clear error for the caller, the crash as its cause
        raise InternalError("internal error decompiling %s (line %s): %s: %s"
                            % (code.co_name, code.co_firstlineno, type(exc).__name__, exc)) from exc
    used = {n.id for n in nodes(tree) if isinstance(n, ast.Name)}
    names = {k: v for k, v in bindings.names.items() if k in used}  # the state machine names every constant
    inside = _nested_codes(code)
    lowered = [low for lowered_code, low in bindings.lowered.items() if lowered_code in inside]
    return Decompiled(source + "\n", names, lines, lowered)


def _tree(code, func, bindings):
    """The ``ast.Module`` of ``code``: a function's ``def``, or the statements of a
    module or class body."""
    if code.co_flags & inspect.CO_NEWLOCALS:
        fn = si.Function(code)
        fn.ctx = FunctionContext(code, bindings)
        fn.decorators = []
        if func is not None and func.__code__ is code:
            signature_values(fn, func, bindings)
        node = function_def(fn, bindings=bindings)
        bindings.notes.line.set(node, code.co_firstlineno)
        if node.name != code.co_name or not code.co_name.isidentifier():
            node.name = FunctionContext(code).identifier(code.co_name)
        if code.co_freevars:
            node = enclosing_scope(node, code.co_freevars)
        return ast.Module(body=[node], type_ignores=[])
    ctx = FunctionContext(code, bindings)
    if is_class_body(code):
        ctx.private_class = code.co_name   # recompiled inside ``class <name>:``, which mangles
    stmts = ctx.statements()
    body = class_body_statements(bindings.notes, code, stmts) if is_class_body(code) \
        else docstring_first(bindings.notes, annotated_assignments(stmts, code))
    return ast.Module(body=body or [ast.Pass()], type_ignores=[])


def _class_statement(root, body, bindings):
    """The ``class`` statement whose body is the code ``body``, found in ``root``: the
    code that runs it is decompiled and its ``ClassDef`` taken out."""
    parent = next(outer for outer in _nested_codes(root) if body in outer.co_consts)
    tree = _tree(parent, None, bindings)
    for node in nodes(tree):
        if isinstance(node, ast.ClassDef) and bindings.notes.body_code.get(node) is body:
            return ast.Module(body=[node], type_ignores=[])
    raise DecompilationError("the class statement of %s is not in the decompiled code of %s "
                             "(it was lowered to a state machine)" % (body.co_name, parent.co_name))


def _nested_codes(code):
    """``code`` and every code object nested in its constants."""
    found = [code]
    for outer in found:  # grows while it is read
        found += [c for c in outer.co_consts if isinstance(c, types.CodeType)]
    return found


def decompile(obj):
    """Python source equivalent to ``obj``: a function, method, class (its ``class``
    statement), module, code object, or a ``.py`` / ``.pyc`` path (its module
    code; ``path:qualname`` for a function or class in it)."""
    return decompile_code(obj).source
