"""Decompile one thing: a function, class, module, code object, or the one a target
string stands for (:func:`decompile_code`); and what a target string names
(:func:`resolve_target`), which ``unveil.shown`` shows a reader."""
import ast
import collections
import contextlib
import copy
import dis
import functools
import inspect
import os
import sys
import types
import unicodedata

from .bytecode import facts
from .bytecode.code_objects import class_qualname, compile_mode, first_text_line, is_class_body
from .definitions.classes import annotated_assignments, class_body_statements, docstring_first, with_declarations
from .definitions.functions import Bindings, FunctionContext, enclosing_scope, function_def, lambda_expr, \
    returned_expression, signature_values
from . import targets
from .errors import DecompilationError, InternalError
from .structure import stackitems as si
from .syntax.astwalk import nodes
from .syntax.depth import deeply
from .syntax.unparse import unparse_with_origins
from .targets import walk_code


class Decompiled:
    """Decompiled source, the objects its placeholder names must be bound to, and
    per line of the source the original line it stands for (None where unknown):
    ``recompile(source, code, lines=lines)`` gives code with the original's lines.

    ``lowered`` lists the code objects (the decompiled one or any nested in it)
    that structuring refused and that are written as a state machine instead, as
    ``Lowering(name, line, reason)``: qualified name, first line, the refusal.

    ``comments``: lines for a reader (without ``#``), each naming a placeholder a
    function object's signature binds and what it stands for (``__unveil_object_0:
    bound to the default of obj, an object instance (no literal makes it)``);
    :func:`decompile` puts them before the source, which stays as it recompiles."""

    def __init__(self, source, bindings, lines, lowered=(), comments=()):
        self.source = source
        self.bindings = bindings
        self.lines = lines
        self.lowered = list(lowered)
        self.comments = list(comments)

    def __str__(self):
        return self.source


def python_function(obj):
    """The innermost Python function behind ``obj``, or None: through bound methods,
    ``staticmethod``, ``classmethod``, ``functools.cached_property``, ``partial`` and ``__wrapped__``
    (``functools.wraps``, ``lru_cache``, networkx's dispatcher), but only as far as
    Python code goes (jinja2's ``Context.keys`` wraps the built-in ``dict.keys``: its
    own ``f_all`` is the answer, not ``dict.keys``)."""
    found, seen = None, set()
    while obj is not None and id(obj) not in seen and len(seen) < sys.getrecursionlimit():
        seen.add(id(obj))
        if isinstance(obj, types.FunctionType):
            found = obj
        if isinstance(obj, (functools.cached_property, functools.partial, functools.partialmethod)):
            obj = obj.func
        elif isinstance(obj, (types.MethodType, staticmethod, classmethod)):
            obj = obj.__func__
        else:
            obj = getattr(obj, "__wrapped__", None)
    return found


class Found:
    """A function or code object as a target names it.

    ``name``: the name it is bound to (a lambda bound to a name is printed
    ``name = lambda ...``); ``parent``: for a code object found in other code, that
    code, or code around it (the ``def`` there, at any depth, gives its defaults and
    annotations; a class body's ``class`` statement is found in it); ``note``: what
    the CLI says about it in a comment before it."""

    def __init__(self, obj, name=None, parent=None, note=None):
        self.obj = obj
        self.name = name
        self.parent = parent
        self.note = note

    @property
    def __code__(self):
        return self.obj if isinstance(self.obj, types.CodeType) else python_function(self.obj).__code__


def code_of(obj):
    """The code object behind a function, method, class, module, code object, or a
    target string as the CLI takes it: ``module``, ``module:qualname``, ``file.py``
    or ``file.pyc`` (its module code), ``file.py:qualname`` or ``file.pyc:qualname``
    (a function or class body in it)."""
    return _located(obj).code


class _Located:
    """What :func:`decompile_code` decompiles: ``code``; ``root``, where it is a class
    body found inside other code, the code it was found in; ``func``, the function
    object (defaults, annotations); ``name``, ``parent``: as :class:`Found` says."""

    def __init__(self, code, root=None, func=None, name=None, parent=None):
        self.code, self.root, self.func, self.name, self.parent = code, root, func, name, parent


def _located(obj):
    if isinstance(obj, types.CodeType):
        return _Located(obj)
    if isinstance(obj, (str, os.PathLike)):
        return _located(resolve_target(os.fspath(obj)).whole)
    if isinstance(obj, types.ModuleType):
        return _Located(module_code(obj))
    if isinstance(obj, type):
        return _Located(*_class_code(obj))
    running = _running_code(obj)
    if running is not None:
        return _Located(running)
    if isinstance(obj, Found):
        if isinstance(obj.obj, types.CodeType):
            root = obj.parent if is_class_body(obj.obj) and obj.parent is not None else None
            return _Located(obj.obj, root, name=obj.name, parent=obj.parent)
        located = _located(obj.obj)
        located.name = obj.name
        return located
    if isinstance(obj, property) and python_function(obj.fget) is not None:
        obj = obj.fget      # (as a target string naming a property gives it)
    func = python_function(obj)
    code = getattr(func, "__code__", None)
    if not isinstance(code, types.CodeType):
        if isinstance(obj, (types.BuiltinFunctionType, types.WrapperDescriptorType, types.MethodDescriptorType)):
            raise targets.not_a_function(getattr(obj, "__qualname__", repr(obj)), obj)     # as the CLI says it
        raise DecompilationError("cannot decompile %s (%s): not a function, method, property, class, module, "
                                 "code object, .pyc path or 'module:name' target%s"
                                 % (_one_line_repr(obj), type(obj).__name__, _instance_hint(obj)))
    return _Located(code, func=func)


def _running_code(obj):
    """The code a generator, coroutine or async generator object runs, or None."""
    for kind, attribute in ((types.GeneratorType, "gi_code"), (types.CoroutineType, "cr_code"),
                            (types.AsyncGeneratorType, "ag_code")):
        if isinstance(obj, kind):
            return getattr(obj, attribute)
    return None


def _one_line_repr(obj, most=80):
    """``repr(obj)`` on one line (an ``nn.Module``'s spans several), cut at ``most`` characters."""
    text = " ".join(repr(obj).split())
    return text if len(text) <= most else text[:most - 3] + "..."


def _instance_hint(obj):
    """For an instance of a class written in Python: what of it can be decompiled.  For
    ``torch.compile``'s wrapper of a module (``OptimizedModule``, whose ``_orig_mod`` is the
    module), the module's: the wrapper's own ``forward`` is torch's."""
    whose = "an instance: its"
    wrapped = getattr(obj, "_orig_mod", None)
    if wrapped is not None and type(obj).__name__ == "OptimizedModule":
        obj, whose = wrapped, "torch.compile's wrapper of %s: the module's" % type(wrapped).__qualname__
    cls = type(obj)
    if cls.__module__ == "builtins" or not any(inspect.isfunction(v) for v in vars(cls).values()):
        return ""
    return "; %s class (%s) or a method of it (%s.%s) can be" % (
        whose, cls.__qualname__, cls.__qualname__,
        "forward" if inspect.isfunction(getattr(cls, "forward", None)) else "<name>")


class Target:
    """What a target string names (see :mod:`.targets`), resolved once for
    :func:`decompile_code` and for what ``unveil.decompile`` and the CLI show.

    ``label``: the target as labels name it (``module:qualname``, ``file.py``);
    ``whole``: the one object :func:`decompile_code` decompiles for it (a module, a
    class, a function, a :class:`Found`, a file's code); ``items``: the (label,
    object) pairs a reader is shown, or None where ``whole`` is a module or a class
    whose every function is shown (``unveil.shown`` lists them)."""

    def __init__(self, label, whole, items=None):
        self.label, self.whole, self.items = label, whole, items


def resolve_target(target):
    """The :class:`Target` a target string names; a :class:`targets.TargetError` if none."""
    where, qualname, is_file = targets.split(target)
    if is_file:
        return _file_target(where, qualname)
    module = targets.import_module(where)
    if not qualname:
        return Target(where, module)
    label = "%s:%s" % (where, qualname)
    obj, parent = targets.lookup(module, qualname, target)
    if isinstance(obj, types.CodeType):
        return _one(label, Found(obj, parent=parent))
    shown = shown_defs(module, qualname, obj)
    if shown:
        return Target(label, shown[0], [(label, found) for found in shown])
    if isinstance(obj, property):
        accessors = [("%s.%s" % (label, accessor), named_function(fn, qualname.rpartition(".")[2]))
                     for accessor, fn in (("fget", obj.fget), ("fset", obj.fset), ("fdel", obj.fdel))
                     if python_function(fn) is not None]
        if not accessors:
            raise targets.TargetError("%s has no functions to decompile" % target)
        return Target(label, accessors[0][1], accessors)
    if isinstance(obj, (type, types.ModuleType)):
        return Target(label, obj)
    function = python_function(obj)
    if function is None:
        raise targets.not_a_function(label, obj)
    return _one(label, named_function(function, qualname.rpartition(".")[2]))


def _one(label, obj):
    return Target(label, obj, [(label, obj)])


def named_function(function, name):
    """``function`` (a Python function), or for a lambda function the :class:`Found`
    that prints it as ``name = lambda ...``."""
    function = python_function(function)
    return Found(function, name=name) if function.__code__.co_name == "<lambda>" else function


def _file_target(path, qualname):
    """A ``file.py`` or ``file.pyc`` target: its module code and (for .py) each function
    in it, nested ones included; with ``qualname``, the functions or classes of that
    name in it (the file's code is the ``parent`` each takes its defaults from, and
    around a class body its ``class`` statement), or the lambda bound to it."""
    code = targets.load_file(path)
    if qualname:
        label = "%s:%s" % (path, qualname)
        chosen = _labelled(path, [(name, nested) for name, nested in walk_code(code, "") if name == qualname], code)
        if not chosen:
            owner, _, name = qualname.rpartition(".")
            chosen = [(label, Found(lam, name=name, parent=parent))
                      for lam, parent in _lambdas_named(code, owner, name)][:1]
        if not chosen:
            raise targets.TargetError("%s has no function or class %r" % (path, qualname))
        return Target(label, chosen[0][1], chosen)
    if path.endswith(".pyc"):
        return _one(path, code)
    items = [("%s:<module>" % path, code)]
    items += _labelled(path, [(name, nested) for name, nested in walk_code(code, "")
                              if nested.co_flags & inspect.CO_OPTIMIZED and nested.co_name not in _INLINE_CODE], code)
    return Target(path, code, items)


def _labelled(path, named, code):
    """``(label, Found)`` for each ``(qualname, code object)`` of the file ``path`` whose
    code is ``code``: ``path:qualname``, and the def's first line after it where several
    defs share the name (a property's getter and setter, a redefinition)."""
    shared = {name for name, count in collections.Counter(name for name, _ in named).items() if count > 1}
    return [("%s:%s%s" % (path, name, " (line %d)" % nested.co_firstlineno if name in shared else ""),
             Found(nested, parent=code)) for name, nested in named]


def _lambdas_named(code, owner, name):
    """(lambda code, the code making it) for each ``name = lambda ...`` in the class or
    function ``owner`` (dotted; '' for the module) of the module code ``code``."""
    scopes = [code] if not owner else [c for n, c in walk_code(code, "") if n == owner]
    for scope in scopes:
        if not any(isinstance(c, types.CodeType) and c.co_name == "<lambda>" for c in scope.co_consts):
            continue
        made = _made_in(scope)
        if made is None:
            continue
        tree, _ = made
        for node in tree.body if isinstance(tree, ast.Module) else []:
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.Lambda) \
                    and any(isinstance(t, ast.Name) and t.id == name for t in node.targets):
                lam = tree.def_codes.get(id(node.value))
                if lam is not None:
                    yield lam, scope


#: id of a parent code -> (that code, its decompiled tree, with ``def_codes`` (id of a def or
#: lambda node -> its code) and ``defs`` (id of a code -> its def or lambda node), and the
#: placeholders): the few last used, as a file's functions are decompiled one after another
_MADE = {}
_MADE_KEPT = 8


def _made_in(parent):
    """``(tree, names)``: ``parent`` decompiled, its tree given ``defs`` and ``def_codes``
    maps, and the bindings its placeholders stand for; None where it cannot be."""
    key = id(parent)
    entry = _MADE.pop(key, None)
    if entry is not None and entry[0] is parent:
        _MADE[key] = entry          # the most recently used last: a module's code stays while its functions go by
        return entry[1]
    bindings = Bindings("__unveil_def_")
    try:
        tree = _deeply(parent, lambda: _tree(parent, None, bindings))
    except InternalError:
        raise
    except DecompilationError:   # a refusal: no def to take the signature from
        made = None
    else:
        tree.defs, tree.def_codes = {}, {}
        for node in nodes(tree):
            code = bindings.notes.def_code.get(node)
            if code is not None:
                tree.defs.setdefault(id(code), node)
                tree.def_codes[id(node)] = code
        made = (tree, bindings.names)
    while len(_MADE) >= _MADE_KEPT:
        del _MADE[next(iter(_MADE))]
    _MADE[key] = (parent, made)
    return made


def _def_made(parent, code):
    """``(node, names)``: the ``def`` or ``lambda`` node that decompiling ``parent``
    gives for ``code`` (at any depth: a module's code, decompiled once, serves all its
    functions) and the placeholders it may use, or None.  Where ``parent``'s text has
    no such def (a part of it written as a state machine), the code whose constant
    ``code`` is gives it."""
    made = _made_in(parent)
    if made is not None:
        tree, names = made
        node = tree.defs.get(id(code))
        if node is not None and tree.def_codes.get(id(node)) is code:
            return node, names
    direct = next((outer for outer in _nested_codes(parent) if any(c is code for c in outer.co_consts)), None)
    return _def_made(direct, code) if direct is not None and direct is not parent else None


#: the code objects a function's source text compiles inline (not a ``def`` of their own)
_INLINE_CODE = {"<lambda>", "<listcomp>", "<setcomp>", "<dictcomp>", "<genexpr>"}


def source_defs(code, prefix="", root=None):
    """``(qualname, def code, the module code)`` for each ``def`` statement of the
    module code ``code``, at module level and in classes (not inside functions)."""
    root = root if root is not None else code
    aliases = _type_alias_values(code)
    for const in code.co_consts:
        if not isinstance(const, types.CodeType) or const in aliases:
            continue
        if is_class_body(const):
            yield from source_defs(const, prefix + const.co_name + ".", root)
        elif const.co_name.startswith(_GENERIC_PARAMETERS):   # the def or class is made in it
            yield from source_defs(const, prefix, root)
        elif const.co_flags & inspect.CO_OPTIMIZED and const.co_name not in _INLINE_CODE:
            yield prefix + const.co_name, const, root


#: the name of the function 3.12+ make a generic def's or class's type parameters in (PEP 695)
_GENERIC_PARAMETERS = "<generic parameters of "


def _type_alias_values(code):
    """The code objects ``code`` makes the lazy value of a ``type X = ...`` statement
    with (3.12+): functions named after the alias, but no def statement's."""
    found, loaded = [], []
    for ins in dis.get_instructions(code):
        if ins.opname == "LOAD_CONST" and isinstance(ins.argval, types.CodeType):
            loaded.append(ins.argval)
        elif ins.opname == "CALL_INTRINSIC_1" and "TYPEALIAS" in ins.argrepr and loaded:
            found.append(loaded[-1])
    return found


def is_def_of(function, code):
    """Whether ``function`` is what the def statement that compiled to ``code`` made."""
    own = getattr(function, "__code__", None)
    return isinstance(own, types.CodeType) and def_key(own) == def_key(code)


def def_key(code):
    """What tells a def statement's code from the others (a function made from it has
    other code, equal to it): name, first line, file name (its last part: the loader's
    code and the module's functions may name the file differently)."""
    return code.co_name, code.co_firstlineno, os.path.basename(code.co_filename)


_UNBOUND = object()


def bound_at_import(module, qualname):
    """What ``module`` binds the dotted ``qualname`` to (looked up in the namespaces
    themselves, no descriptor run), or ``_UNBOUND``."""
    obj = module
    for part in qualname.split("."):
        namespace = getattr(obj, "__dict__", None)
        if namespace is None or part not in namespace:
            return _UNBOUND
        obj = namespace[part]
    return obj


def shown_from_source(module, qualname, code, parent):
    """A :class:`Found` for the function the def statement ``code`` (``qualname`` in
    ``module``'s code, made in ``parent``) compiles to, shown because ``module``
    binds ``qualname`` to something else at import; its note says to what and why."""
    bound = bound_at_import(module, qualname)
    line = code.co_firstlineno
    made = _def_made(parent, code)
    decorators = [_dotted(d) for d in made[0].decorator_list] if made is not None \
        and isinstance(made[0], (ast.FunctionDef, ast.AsyncFunctionDef)) else []
    decorated = "its decorator%s %s" % ("s" if len(decorators) > 1 else "", ", ".join("@" + d for d in decorators)) \
        if decorators else ""
    if bound is _UNBOUND:
        owner = bound_at_import(module, qualname.rpartition(".")[0]) if "." in qualname else module
        what, why = "nothing", "the name is deleted, or the def statement did not run"
        if isinstance(owner, type) and not _has_python_code(owner):
            why = "a C implementation replaces class %s.%s" % (owner.__module__, owner.__qualname__)
    elif isinstance(bound, types.FunctionType) or python_function(bound) is not None:
        function = python_function(bound)
        own = function.__code__
        what = "function %s (%s line %d)" % (getattr(own, "co_qualname", function.__qualname__),
                                              os.path.basename(own.co_filename), own.co_firstlineno)
        if def_key(own)[::2] == def_key(code)[::2] and function.__qualname__ == qualname:
            why = "a later def of the name binds it again" if own.co_firstlineno > line \
                else "another def of the name binds it"
        elif decorated:
            why = "%s replaced it with a wrapper that has no __wrapped__" % decorated
        else:
            why = "an assignment of the name binds it to that"
    elif isinstance(bound, (types.BuiltinFunctionType, types.WrapperDescriptorType, types.MethodDescriptorType,
                            types.ClassMethodDescriptorType, types.BuiltinMethodType)) \
            or (isinstance(bound, type) and not _has_python_code(bound)):
        named = getattr(bound, "__qualname__", None) or type(bound).__name__
        owner = getattr(bound, "__module__", None)
        what = "%s (C code)" % ("%s.%s" % (owner, named) if isinstance(owner, str) else named)
        why = "a C implementation replaces it"
    else:
        kind = type(bound)
        what = "%s %s.%s object" % ("an" if kind.__module__[:1] in "aeiou" else "a", kind.__module__, kind.__qualname__)
        why = "%s replaced the function with it" % decorated if decorated \
            else "an assignment or a C implementation replaces it"
    note = "bound at import to %s, not to the function its def at line %d makes (%s): that function is shown" \
        % (what, line, why)
    return Found(code, name=qualname.rpartition(".")[2], parent=parent, note=note)


def shown_defs(module, qualname, obj):
    """:func:`shown_from_source` for each def statement of ``qualname`` in ``module``'s
    code, where ``obj`` (what ``module`` binds it to) is the function of none of them
    (a decorator without ``functools.wraps``, a C implementation); else []."""
    if "<locals>" in qualname:
        return []
    functions = [python_function(fn) for fn in (
        (obj.fget, obj.fset, obj.fdel) if isinstance(obj, property) else (obj,))]
    try:
        root = module_code(module)
    except DecompilationError:
        return []
    defs = [(code, parent) for name, code, parent in source_defs(root) if name == qualname]
    if not defs or any(is_def_of(fn, code) for fn in functions for code, _ in defs):
        return []
    return [shown_from_source(module, qualname, code, parent) for code, parent in defs]


def _has_python_code(cls):
    return any(isinstance(v, types.FunctionType) for v in vars(cls).values())


def _dotted(node):
    """A decorator as its source names it: ``name``, ``a.b``, ``a.b(...)``."""
    if isinstance(node, ast.Call):
        return _dotted(node.func) + "(...)"
    if isinstance(node, ast.Attribute):
        return _dotted(node.value) + "." + node.attr
    return node.id if isinstance(node, ast.Name) else "..."


def module_code(module):
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
        code = targets.compile_file(path)
    if not isinstance(code, types.CodeType):
        raise DecompilationError("module %s has no Python code: %s" % (
            module.__name__, "it is " + (module_kind(module) or "its loader gives none and it names no source file")))
    return code


def module_kind(module):
    """What a module with no Python code of its own is, in words (``None`` for any other):
    ``a built-in module (compiled into Python)``, ``an extension module
    (math.cpython-311-x86_64-linux-gnu.so, compiled code)``, ``a namespace package (the
    directory D, with no __init__.py)``."""
    path = getattr(module, "__file__", None)
    if isinstance(path, str) and not path.endswith((".py", ".pyc", ".pyw")):
        return "an extension module (%s, compiled code)" % os.path.basename(path)
    places = list(getattr(module, "__path__", None) or [])
    if path is None and places:
        return "a namespace package (the directory %s, with no __init__.py)" % places[0]
    if path is None and module.__name__ in sys.builtin_module_names:
        return "a built-in module (compiled into Python)"
    return None


def _class_code(cls):
    """``(body, root)``: the body of class ``cls`` as its module's code holds it, and
    that module code."""
    if not cls.__flags__ & _HEAP_TYPE:
        raise DecompilationError("cannot decompile class %s.%s: it is written in C and has no Python code"
                                 % (cls.__module__, cls.__qualname__))
    module = sys.modules.get(cls.__module__)
    if module is None:
        raise DecompilationError("cannot decompile class %s: its module %s is not loaded"
                                 % (cls.__qualname__, cls.__module__))
    root = module_code(module)
    for _, code in walk_code(root, ""):
        if is_class_body(code) and class_qualname(code) == cls.__qualname__:
            return code, root
    raise DecompilationError("cannot decompile class %s.%s: no class statement of its module's code makes it "
                             "(it is made at run time, or in compiled code)" % (cls.__module__, cls.__qualname__))


#: ``type.__flags__``'s bit of a class made at run time (a class statement's), not a static C type
_HEAP_TYPE = 1 << 9


def bindings_prefix_for(name):
    """A bindings prefix (:func:`decompile_code`) naming ``name``, any text (a qualified
    name, ``outer.<locals>.fn``): ``__unveil_outer__locals__fn_``, each character no
    identifier can hold an underscore."""
    text = unicodedata.normalize("NFKC", name)
    return "__unveil_%s_" % "".join(c if ("_" + c).isidentifier() else "_" for c in text)


def decompile_code(obj, bindings_prefix="__unveil_"):
    """Decompile ``obj``; return a :class:`Decompiled` (source and bindings).

    A class, or ``path:qualname`` naming one, comes out as its whole ``class``
    statement (decorators, bases, keywords), decompiled from the code that runs it;
    a class body's code object alone gives the statements inside the ``class``.
    Objects with no literal form in the code's constants are named
    ``<bindings_prefix><type>_<n>`` in the source (``Decompiled.bindings``); the prefix
    must begin an identifier (:func:`bindings_prefix_for` makes one of any name).  The
    bindings are named as the text's names compile (NFKC: ``ﬁ`` is ``fi``)."""
    if not (bindings_prefix + "x").isidentifier():
        raise ValueError("bindings_prefix %r does not begin an identifier" % (bindings_prefix,))
    bindings_prefix = unicodedata.normalize("NFKC", bindings_prefix)
    loc = _located(obj)
    code, root = loc.code, loc.root

    def decompiled():
        bindings = Bindings(bindings_prefix)
        tree = _class_statement(root, code, bindings) if root is not None else _tree(code, loc.func, bindings, loc)
        pinned = first_text_line(code) if facts.CLASS_BODY_STORES_ITS_LINE and root is None else None
        return tree, bindings, unparse_with_origins(tree, bindings.notes.line, bindings.notes.name_line, pinned,
                                                    bindings.notes.filter_line, bindings.notes.try_on_body_line,
                                                    bindings.notes.signature_lines, bindings.notes.decorator_lines)

    tree, bindings, (source, lines) = _deeply(code, decompiled)
    used = {n.id for n in nodes(tree) if isinstance(n, ast.Name)} if bindings.names else ()
    names = {k: v for k, v in bindings.names.items() if k in used}  # the state machine names every constant
    body_class = code.co_name if root is None and is_class_body(code) else None
    names.update((mangled, names[ident]) for ident, mangled in _mangled_in_classes(tree, names, body_class))
    inside = _nested_codes(code)
    inside = {id(c) for c in inside}
    lowered = [low for key, (_, low) in bindings.lowered.items() if key in inside]
    comments = ["%s: bound to %s" % (n, bindings.described[n]) for n in names if n in bindings.described]
    return Decompiled(source + "\n", names, lines, lowered, comments)


def _mangled_in_classes(tree, bound, body_class=None):
    """``(name, as compiled)`` for each name of ``bound`` that ``tree`` reads inside a class
    (its body and the functions, lambdas and comprehensions in it, ``tree`` itself inside
    class ``body_class`` when it is a class body's text), where the class mangles it:
    ``_C__unveil_dict_0`` for ``__unveil_dict_0`` in class ``C``.  The bindings hold both."""
    found, todo = [], [(tree, body_class)]
    if not any(name.startswith("__") and not name.endswith("__") for name in bound):
        return found     # (no name a class would mangle: most decompilations)
    while todo:
        node, cls = todo.pop()
        if isinstance(node, ast.Name) and node.id in bound and cls:
            name = _mangled(node.id, cls)
            if name != node.id:
                found.append((node.id, name))
        if isinstance(node, ast.ClassDef):
            todo += [(n, cls) for n in node.decorator_list + node.bases + node.keywords]
            todo += [(n, node.name) for n in node.body]
        else:
            todo += [(n, cls) for n in ast.iter_child_nodes(node)]
    return found


def _mangled(name, cls):
    """``name`` as a body of class ``cls`` compiles it (CPython's ``_Py_Mangle``)."""
    owner = cls.lstrip("_")
    if not owner or not name.startswith("__") or name.endswith("__") or "." in name:
        return name
    return "_%s%s" % (owner, name)


def _deeply(code, make):
    """``make()``, a crash as an :class:`InternalError`, run deep enough for whatever
    the compiler compiles (``syntax.depth``); deeper still is a refusal."""
    with _crashes_as_internal_errors(code):
        return deeply(make)


@contextlib.contextmanager
def _crashes_as_internal_errors(code):
    """A crash while decompiling ``code`` is a bug, never a refusal: one clear
    :class:`InternalError` for the caller, the crash as its cause; too deep a nesting
    is a refusal."""
    try:
        yield
    except DecompilationError:
        raise
    except RecursionError:
        raise DecompilationError("%s is nested too deeply to decompile" % code.co_name)
    except (IndexError, KeyError, AttributeError, TypeError, ValueError, AssertionError) as exc:
        raise InternalError("internal error decompiling %s (line %s): %s: %s"
                            % (code.co_name, code.co_firstlineno, type(exc).__name__, exc)) from exc


def _tree(code, func, bindings, loc=None):
    """The ``ast.Module`` of ``code``: a function's ``def`` (a lambda function's
    ``lambda``, bound to its name where ``loc`` knows one), or the statements of a
    module or class body.  Without the function object, the defaults and annotations
    are those the def in ``loc.parent`` (the code around it) is decompiled with."""
    if code.co_flags & inspect.CO_NEWLOCALS:
        fn = si.Function(code)
        fn.ctx = FunctionContext(code, bindings)
        if func is not None and func.__code__ is code:
            signature_values(fn, func, bindings)
        made = _def_made(loc.parent, code) if loc is not None and loc.parent is not None and func is None \
            else None
        if made is not None:
            bindings.names.update(made[1])
        named = loc is not None and (func is not None or loc.name is not None or loc.parent is not None)
        node = _lambda_statement(fn, loc.name, made, bindings) \
            if named and code.co_name == "<lambda>" else None
        if node is None:
            made_def = made is not None and isinstance(made[0], (ast.FunctionDef, ast.AsyncFunctionDef))
            if made_def and getattr(made[0], "type_params", None):   # ``def first[T](xs: list[T])``, 3.12+
                fn.type_params = copy.deepcopy(made[0].type_params)
            node = function_def(fn, bindings=bindings)
            if made_def:
                node.args, node.returns = copy.deepcopy(made[0].args), copy.deepcopy(made[0].returns)
            bindings.notes.line.set(node, code.co_firstlineno)
            if node.name != code.co_name or not code.co_name.isidentifier():
                node.name = FunctionContext(code).identifier(code.co_name)
        if code.co_freevars:
            node = enclosing_scope(node, code)
        return ast.Module(body=[node], type_ignores=[])
    if compile_mode(code) == "eval":
        return ast.Module(body=[ast.Expr(value=_evaluated(code, bindings))], type_ignores=[])
    ctx = FunctionContext(code, bindings)
    if is_class_body(code):
        ctx.private_class = code.co_name   # recompiled inside ``class <name>:``, which mangles
    stmts = ctx.statements()
    body = with_declarations(class_body_statements(bindings.notes, code, stmts), ctx) if is_class_body(code) \
        else docstring_first(bindings.notes, annotated_assignments(stmts, code))
    return ast.Module(body=body or [ast.Pass()], type_ignores=[])


def _evaluated(code, bindings):
    """The expression an ``eval`` code object returns (``compile(text, name, "eval")``)."""
    def context():
        ctx = FunctionContext(code, bindings)
        ctx.evaluated = True
        return ctx
    return returned_expression(context, "the value of %s" % code.co_name)[0]


def _lambda_statement(fn, name, made, bindings):
    """``name = lambda ...`` (or the bare ``lambda ...`` expression) for the lambda
    function ``fn``, or None where its body is no expression (a ``def`` then)."""
    try:
        expr = lambda_expr(fn)
    except DecompilationError:
        return None
    if made is not None and isinstance(made[0], ast.Lambda):
        expr.args = copy.deepcopy(made[0].args)
    node = ast.Assign(targets=[ast.Name(id=name, ctx=ast.Store())], value=expr, type_comment=None) \
        if name is not None and name.isidentifier() else ast.Expr(value=expr)
    bindings.notes.line.set(node, fn.code.co_firstlineno)
    return node


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
