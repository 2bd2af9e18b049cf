"""What unveil shows a reader: :func:`decompile`, and the text ``unveil decompile
TARGET`` prints, which for a target string is the same.

A target string (:func:`.api.resolve_target`) shows each function it names, under a
``# label`` comment where it names several: a module every function and method
defined in it, under its name there (decorated ones unwrapped to the function they
wrap), then every def of its code whose name is bound to something else at import,
from its code, with a comment saying why; a name not printed gets a comment saying
why (:class:`NotPrinted`).  A class shows its methods, a property its accessors, a
``file.py`` its module code and every function in it.
"""
import functools
import os
import sys
import types

from . import api
from .errors import DecompilationError
from .targets import TargetError


def decompile(obj):
    """Python source equivalent to ``obj``: a function, method, class (its ``class``
    statement), module (its code), code object; a lambda function comes out as its
    ``lambda`` expression; a placeholder its signature binds is explained in a
    comment before it (``Decompiled.comments``), and so is each function written as a
    state machine, with the reason it could not be structured (``Decompiled.lowered``).

    A target string as ``unveil decompile`` takes it (``module``, ``module:qualname``,
    ``file.py``, ``file.pyc``, their ``:qualname``) gives the text it prints: where the
    target names several functions (a module, a class, a property, a file), each
    under a ``# label`` comment, one that cannot be decompiled as a ``# cannot
    decompile label: why`` comment; where it names one, that one's error raises."""
    if isinstance(obj, (str, os.PathLike)):
        return "".join(Printout(items(os.fspath(obj)), decompile))
    if isinstance(obj, property):
        functions = [api.python_function(fn) for fn in (obj.fget, obj.fset, obj.fdel)]
        name = next((fn.__qualname__ for fn in functions if fn is not None), "property")
        accessors = [(name + suffix, fn) for suffix, fn in _accessors(obj) if api.python_function(fn) is not None]
        if not accessors:
            raise DecompilationError("cannot decompile %r: a property of no Python function" % (obj,))
        return "".join(Printout(accessors, decompile))
    decompiled = api.decompile_code(_lambda_of(obj))
    notes = decompiled.comments + ["%s (line %d) is written as a state machine: %s" % low
                                   for low in decompiled.lowered]
    return "".join("# %s\n" % line for line in notes) + decompiled.source


def _lambda_of(obj):
    """A lambda's code object alone, with no free variables, as a lambda function of it,
    which comes out as a ``lambda`` expression (the code alone as a ``def``); anything else
    as it is.  (Its defaults are the function's, so a code object shows none.  A closure's
    stays a ``def`` in its enclosing scope, which also keeps a free variable only dead code
    names, as recompiling it needs.)"""
    if not isinstance(obj, types.CodeType) or obj.co_name != "<lambda>" or obj.co_freevars:
        return obj
    return types.FunctionType(obj, {})


class NotPrinted:
    """What a target names but cannot print, and why: listed in the output where
    it would have been printed."""

    def __init__(self, reason):
        self.reason = reason


class Printout:
    """The text ``items`` (label, object) show, piece by piece as it is made: each
    object as ``decompile_one`` writes it, after a ``# label`` comment where there
    are several (or ``always_label``) and its note (why a def replaced at import is
    shown) in a comment; a :class:`NotPrinted` as ``# label: not printed: why``
    (its label in ``not_printed``).  An object that raises a ``DecompilationError``
    is, among several, a ``# cannot decompile label: why`` comment (the reason in
    ``failures``); alone, the error raises."""

    def __init__(self, items, decompile_one, always_label=False):
        self.items = items
        self.decompile_one = decompile_one
        self.labelled = always_label or len(items) > 1
        self.failures = []
        self.not_printed = []

    def __iter__(self):
        for index, (label, obj) in enumerate(self.items):
            gap = "\n" if index else ""
            if isinstance(obj, NotPrinted):
                self.not_printed.append(label)
                yield "%s# %s: not printed: %s\n" % (gap, label, obj.reason)
                continue
            try:
                source = str(self.decompile_one(obj))
            except DecompilationError as exc:
                if not self.labelled:
                    raise
                self.failures.append(failure(label, exc))
                source = "# %s\n" % " ".join(self.failures[-1].splitlines())
            head = "%s# %s\n" % (gap, label) if self.labelled else ""
            note = getattr(obj, "note", None)
            if note:
                head += "# %s\n" % " ".join(note.splitlines())
            yield head + (source if source.endswith("\n") else source + "\n")


def failure(label, exc):
    """The reason an item could not be decompiled, as the text and the CLI say it."""
    return "cannot decompile %s: %s" % (label, exc)


# --- the items of a target string ------------------------------------------------

def items(target):
    """The (label, object) pairs a target string shows (a :class:`NotPrinted` for
    what it names but does not print); a ``DecompilationError`` if it names nothing
    to show."""
    named = api.resolve_target(target)
    if named.items is not None:
        return named.items
    if isinstance(named.whole, types.ModuleType):
        return _module_items(named.whole)
    where, _, qualname = named.label.rpartition(":")
    listed = _class_items(where, named.whole, {}) or _class_statement_items(where, qualname)
    if not listed:
        raise TargetError("%s has no functions to decompile" % target)
    return listed


def _class_statement_items(module_name, qualname):
    """For a class the module binds to one of no Python code (a C implementation replaces
    it): the methods its class statement in the module's code makes, each with the note
    of :func:`api.shown_from_source`, as the module's own listing shows them."""
    module = sys.modules.get(module_name)
    try:
        root = api.module_code(module) if module is not None else None
    except DecompilationError:
        return []
    if root is None:
        return []
    return [("%s:%s" % (module_name, name), api.shown_from_source(module, name, code, parent))
            for name, code, parent in api.source_defs(root) if name.startswith(qualname + ".")]


def _accessors(value):
    """(suffix, object) for each function a class or module attribute value holds:
    a property's accessors (``.fget``, ``.fset``, ``.fdel`` after the name, as a target
    naming the property labels them), else the value."""
    if isinstance(value, property):
        return [(suffix, fn) for suffix, fn in (
            (".fget", value.fget), (".fset", value.fset), (".fdel", value.fdel))
                if fn is not None]
    return [("", value)]


def _wraps_something(value):
    """Whether a namespace value is a function or wraps one (decorated, cached, bound)."""
    return isinstance(value, (types.FunctionType, staticmethod, classmethod, functools.cached_property)) \
        or getattr(value, "__wrapped__", None) is not None


def _definition_items(module_name, owner, label, value, seen):
    """The (label, function) items of one namespace value defined in ``owner`` (a
    module or class name), or a ``NotPrinted`` item saying why it is not printed.

    Functions are told apart by identity, not by code: every function networkx's
    dispatcher decorates runs the same wrapper code, and the function printed is
    the one the wrapper wraps (``functools.wraps``, ``lru_cache``)."""
    found = []
    for suffix, obj in _accessors(value):
        if not _wraps_something(obj):
            continue
        full = "%s:%s%s" % (module_name, label, suffix)
        function = api.python_function(obj)
        if function is None:
            if getattr(obj, "__module__", None) == owner:
                found.append((full, NotPrinted("%s has no Python code (it wraps %r)"
                                               % (type(obj).__name__, _innermost(obj)))))
            continue
        if function.__module__ != owner and getattr(obj, "__module__", None) != owner:
            continue                       # imported from elsewhere
        if id(function) in seen:
            found.append((full, NotPrinted("another name for %s" % seen[id(function)])))
            continue
        seen[id(function)] = full
        found.append((full, api.named_function(function, (label + suffix).rpartition(".")[2])))
    return found


def _innermost(obj):
    """The end of ``obj``'s ``__wrapped__`` chain (what a ``NotPrinted`` reason names)."""
    for _ in range(sys.getrecursionlimit()):
        inner = getattr(obj, "__wrapped__", None)
        if inner is None:
            break
        obj = inner
    return obj


def _class_items(module_name, cls, seen):
    found = []
    for name, value in vars(cls).items():
        if isinstance(value, type) and value.__qualname__ == "%s.%s" % (cls.__qualname__, name):
            found += _class_items(module_name, value, seen)
            continue
        found += _definition_items(module_name, cls.__module__, "%s.%s" % (cls.__qualname__, name), value, seen)
    return found


def _module_items(module):
    """Every function and method defined in ``module``, in definition order, each
    under the name it has there; what is not printed is a ``NotPrinted`` item.  A
    def statement of the module's code (at module level or in a class) whose name
    the module binds to something else (a decorator without ``functools.wraps``,
    a C implementation) is printed from that code, a note saying why."""
    found, seen = [], {}
    for name, value in list(vars(module).items()):
        if isinstance(value, type):
            if value.__module__ != module.__name__:
                continue
            if id(value) in seen:
                found.append(("%s:%s" % (module.__name__, name),
                              NotPrinted("another name for class %s" % seen[id(value)])))
                continue
            seen[id(value)] = "%s:%s" % (module.__name__, value.__qualname__)
            found += _class_items(module.__name__, value, seen)
            continue
        found += _definition_items(module.__name__, module.__name__, name, value, seen)
    found = _with_source_defs(module, found)
    if not any(not isinstance(obj, NotPrinted) for _, obj in found):
        kind = api.module_kind(module)
        if kind is not None:
            why = ": it is " + kind
        elif getattr(module, "__path__", None) is not None:
            why = " (a package: each of its submodules is a target of its own, %s.NAME)" % module.__name__
        else:
            why = ""
        raise TargetError("module %r defines no Python functions%s" % (module.__name__, why))
    return found


def _with_source_defs(module, found):
    """``found`` and, each where its line puts it, the function of every def statement
    in ``module``'s code that no item prints (see :func:`api.shown_from_source`).  An
    item of the same name gives way to it where it is a ``NotPrinted`` or prints the
    function of no def of that name (a decorator's wrapper without ``__wrapped__``)."""
    try:
        root = api.module_code(module)
    except DecompilationError:
        return found
    defs = list(api.source_defs(root))
    keys_of = {}
    for qualname, code, _ in defs:
        keys_of.setdefault(qualname, set()).add(api.def_key(code))
    stale = set()      # labels whose item prints no def of its name, though the module has one
    covered = set()
    prefix = module.__name__ + ":"
    for label, obj in found:
        code = None if isinstance(obj, NotPrinted) else getattr(obj, "__code__", None)
        if code is None:
            continue
        own = keys_of.get(label[len(prefix):]) if label.startswith(prefix) else None
        if own is not None and api.def_key(code) not in own:
            stale.add(label)
        else:
            covered.add(api.def_key(code))
    for qualname, code, parent in defs:
        if api.def_key(code) in covered:
            continue
        label = prefix + qualname
        item = (label, api.shown_from_source(module, qualname, code, parent))
        same = [i for i, (other, obj) in enumerate(found)
                if other == label and (isinstance(obj, NotPrinted) or other in stale)]
        if same:
            found[same[0]] = item
            stale.discard(label)
            continue
        later = [i for i, (_, obj) in enumerate(found) if _line_in(obj, code.co_filename) > code.co_firstlineno]
        found.insert(later[0] if later else len(found), item)
    return found


def _line_in(obj, filename):
    """The first line of the function an item prints, if it is in file ``filename``, else -1."""
    code = getattr(obj, "__code__", None) if not isinstance(obj, NotPrinted) else None
    return code.co_firstlineno if code is not None and code.co_filename == filename else -1
