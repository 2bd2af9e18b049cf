"""Target strings, as ``unveil decompile TARGET`` and ``unveil.decompile(TARGET)`` both take them.

* ``module`` and ``module:qualname`` (dotted; ``outer.<locals>.inner`` steps into
  nested code): the module is imported;
* ``path/to/file.py`` and ``file.py:qualname``: compiled, not run;
* ``file.pyc`` and ``file.pyc:qualname``: written by the running interpreter.

Each error is one line, a :class:`TargetError` (a ``DecompilationError``).
"""
import importlib
import importlib.util
import inspect
import os
import sys
import types

from .errors import DecompilationError


class TargetError(DecompilationError):
    """A target string that names nothing to decompile (a missing module, file or name)."""


def split(target):
    """``(where, qualname, is_file)`` of a target string."""
    where, sep, qualname = target.rpartition(":")
    if not sep or (os.path.exists(target) and not os.path.exists(where)):
        where, qualname = target, ""
    if looks_like_file(where):
        return where, qualname, True
    if not where:
        raise TargetError("empty module name in %r" % target)
    if sep and not qualname:
        raise TargetError("empty name after ':' in %r (the module alone is %r)" % (target, where))
    return where, qualname, False


def looks_like_file(name):
    """Whether a target names a file: a ``.py``/``.pyc`` name, a path, or a file here with no
    ending, but for the name of a module Python finds (a file ``json`` beside the user
    does not hide the module ``json``)."""
    return (name.endswith((".py", ".pyc", ".pyw")) or os.sep in name
            or (os.altsep or os.sep) in name or os.path.isfile(name) and not _a_module_named(name))


def _a_module_named(name):
    """Whether ``name``, one identifier, names a module Python finds (without importing it)."""
    if not name.isidentifier():
        return False
    _path_as_python_m_has_it()
    return importlib.util.find_spec(name) is not None


def import_module(name):
    """The module ``name``, imported as ``python -m`` would find it (the current directory first)."""
    if "" in name.split("."):
        raise TargetError("%r is not a module name: a dot begins or ends it, or two dots meet" % name)
    _path_as_python_m_has_it()
    try:
        return importlib.import_module(name)
    except ImportError as exc:
        missing = getattr(exc, "name", None)
        if missing and (name == missing or name.startswith(missing + ".")):
            raise TargetError("no module named %r%s" % (missing, _colon_hint(name, missing))) from None
        raise TargetError("cannot import module %r: %s" % (name, exc)) from None
    except (Exception, SystemExit) as exc:  # the module itself raised while importing
        raise TargetError("cannot import module %r: %s: %s" % (name, type(exc).__name__, exc)) from None


def _path_as_python_m_has_it():
    """The current directory first on ``sys.path``, as ``python -m`` has it (also for the
    console script)."""
    if os.getcwd() not in sys.path and "" not in sys.path:
        sys.path.insert(0, os.getcwd())


def _colon_hint(name, missing):
    """When the missing module is a name defined in its parent (``json.dumps``), how to
    write the target: `` (did you mean json:dumps?)``; else ''."""
    parent, _, attribute = missing.rpartition(".")
    module = sys.modules.get(parent) if parent else None
    if module is None or not hasattr(module, attribute):
        return ""
    return " (did you mean %s:%s?)" % (parent, name[len(parent) + 1:])


def lookup(obj, qualname, target):
    """``(value, parent)``: follow a dotted qualname from ``obj``; ``<locals>`` steps into
    nested code, whose value is a code object and ``parent`` the code that makes it
    (else None)."""
    parts = qualname.split(".")
    for i, part in enumerate(parts):
        if part == "<locals>":
            code = _code_of(obj)
            if code is None or i + 1 >= len(parts):
                raise TargetError("%s: '<locals>' must follow a function and precede a name" % target)
            prefix = ".".join(parts[:i]) + ".<locals>."
            for name, nested, parent in walk_code(code, prefix, parents=True):
                if name == qualname:
                    return nested, parent
            raise TargetError("%s: no nested function %r" % (target, qualname))
        try:
            obj = getattr(obj, part)
        except AttributeError:
            owner = ".".join(parts[:i]) or getattr(obj, "__name__", "?")
            raise TargetError("%s: %r has no attribute %r" % (target, owner, part)) from None
    return obj, None


def _code_of(obj):
    if isinstance(obj, types.CodeType):
        return obj
    obj = getattr(obj, "__func__", obj)
    code = getattr(obj, "__code__", None)
    return code if isinstance(code, types.CodeType) else None


def not_a_function(label, obj):
    """The error for a target that names something with no bytecode."""
    if isinstance(obj, (types.BuiltinFunctionType, types.WrapperDescriptorType, types.MethodDescriptorType)):
        return TargetError("%s is a built-in function: it has no bytecode" % label)
    kind = type(obj).__name__
    return TargetError("%s is %s %s, not a Python function" % (label, "an" if kind[:1] in "aeiouAEIOU" else "a", kind))


def load_file(path):
    """The module code of ``file.py`` (compiled, not run) or ``file.pyc``."""
    if not os.path.exists(path):
        raise TargetError("no such file: %s" % path)
    if os.path.isdir(path):
        raise TargetError("%s is a directory, not a .py or .pyc file" % path)
    if path.endswith(".pyc"):
        from .pyc import load_pyc
        return load_pyc(path)
    return compile_file(path)


def compile_file(path):
    """The module code of a source file, compiled (not run)."""
    if os.path.isdir(path):
        raise TargetError("%s is a directory, not a .py or .pyc file" % path)
    try:
        with open(path, "rb") as f:
            source = f.read()
    except FileNotFoundError:
        raise TargetError("no such file: %s" % path) from None
    except OSError as exc:
        raise TargetError("cannot read %s: %s" % (path, exc.strerror or exc)) from None
    try:
        return compile(source, path, "exec", dont_inherit=True)
    except SyntaxError as exc:
        where = " (line %s)" % exc.lineno if exc.lineno else ""      # (3.12+: null bytes are a SyntaxError)
        raise TargetError("cannot compile %s: %s%s" % (path, exc.msg, where)) from None
    except ValueError as exc:  # null bytes in the source
        raise TargetError("cannot compile %s: %s" % (path, exc)) from None


def walk_code(code, prefix, parents=False):
    """(qualified name, code) for every code object nested in ``code``'s constants, in
    order, nested ones after their parent (``outer.<locals>.inner``, ``C.method``);
    with ``parents``, (qualified name, code, the code whose constant it is)."""
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            name = getattr(const, "co_qualname", None) or prefix + const.co_name
            yield (name, const, code) if parents else (name, const)
            inner = prefix + const.co_name
            inner += ".<locals>." if const.co_flags & inspect.CO_OPTIMIZED else "."
            yield from walk_code(const, inner, parents)
