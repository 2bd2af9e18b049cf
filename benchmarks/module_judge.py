"""Module code judged by running it: every stdlib file's module code, original and
decompiled, executed, and the namespaces they leave compared.

    python3 benchmarks/module_judge.py                          # this interpreter's stdlib
    python3 benchmarks/module_judge.py --versions [X.Y ...]      # pyenv's 3.8-3.13, one after the other
    python3 benchmarks/module_judge.py --modules selectors getpass os.path   # a few modules
    python3 benchmarks/module_judge.py --package requests        # an installed package's files
    options: --jobs N (files in parallel, default 1), --timeout S (per file, default 120),
             --json OUT, --show N (failures listed per version), --quiet

stdlib_sweep.py judges module code and class bodies by their recompiled bytecode
only; this judges them by behaviour.  For each source file (the stdlib outside
``test/``, ``tests/``, ``idlelib`` and ``site-packages``, packages at any depth),
a worker subprocess compiles the file to a module code object, decompiles it
(``unveil.decompile_code``) and recompiles the text (``unveil.recompile`` on the
original lines), then executes, each in a fresh module (``__name__``, ``__file__``,
``__package__``, ``__spec__``, ``__path__`` of the real module, put in
``sys.modules`` while it runs, the previous entry restored after), the ORIGINAL
module code twice (runs A and B) and the DECOMPILED one once (run D).  The
namespace D leaves is compared with B's structurally (``Comparer``):

* the same names, inserted in the same order;
* an object both runs share (a module, anything imported) must be the same
  object (``D['os'] is B['os']``): a module object is never compared otherwise;
* plain data (numbers by ``repr`` for floats, strings, bytes, ...) equal;
  tuples, lists, dicts (in insertion order), sets recursively;
* functions: name, qualname, module, docstring, defaults, keyword-only
  defaults, annotations, attributes (``__dict__``), closure cell contents, and
  the argument spec of their code (counts, names, varargs/generator flags);
  whether their code is identical bytecode (tests/roundtrip.py's
  ``same_bytecode``) is counted, not judged;
* classes: name, qualname, module, metaclass, bases and MRO by name, the keys
  of the class dict in order, and every value of it recursively;
* other objects: their type (by name, structurally when each run made its own
  class), ``__dict__`` and slots; a type of its own equality (a compiled
  pattern, a Decimal) compares with ``==`` when both runs share the type; an
  object with no visible state (a lock, an ``object()`` sentinel) is the same
  when its type is.

Nondeterminism rule: a difference between B and D at a path (``name.attr[3]``)
where A and B, two runs of the same original code, also differ is counted as
nondeterministic and listed (``nondeterministic`` in the JSON, and in the
table), never a failure and never dropped silently; every other difference is.
Workers run with ``PYTHONHASHSEED=0`` so that runs of the judge repeat.

Verdicts per file: **same**; **differs** (the first differing path and why);
**refused** (a ``DecompilationError``); **crash** (an ``InternalError``: a bug);
**recompile error**; **exec error in both** (the original itself fails to run
here, e.g. a Windows-only module; the decompiled one fails with the same
exception type; not a pass, counted apart; when their partial namespaces differ
it is **differs**); **exec error in decompiled** (only the decompiled code
raised, or it raised another exception type: a failure); **skipped** (the
``SKIP`` list below, each with its reason, or a file this Python cannot
compile); **timeout** and **worker error** (the worker died: a failure).
"""
import argparse
import builtins
import collections
import concurrent.futures
import functools
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import types
import warnings
import weakref

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
SRC = os.path.join(ROOT, "src")

#: path fragments (relative to the library, with slashes around) never judged
EXCLUDED_DIRS = ("/test/", "/tests/", "/idlelib/", "/site-packages/", "/__pycache__/")

#: modules not executed, with the reason; matched by dotted name or by a prefix ending in "."
SKIP = {
    "antigravity": "opens a web browser when run",
    "this": "prints the Zen of Python when run",
    "idlelib.": "IDLE's GUI (needs a display; excluded like stdlib_sweep.py does)",
    "turtledemo.": "turtle demos: GUI scripts",
    "site": "run at startup: running it again rewrites sys.path, builtins and the import system",
    "__main__": "a package's __main__ runs the program when executed (matched by its last part)",
}

FAILURES = ("differs", "crash", "recompile error", "exec error in decompiled", "timeout", "worker error")


def skip_reason(name):
    """The documented reason ``name`` is not executed, or ``None``."""
    if not all(part.isidentifier() for part in name.split(".")) and not name.startswith("_sysconfigdata_"):
        return "not importable: %r is no dotted name (a script, e.g. python-config.py)" % name
    if name.rpartition(".")[2] == "__main__":
        return SKIP["__main__"]
    for key, reason in SKIP.items():
        if name == key or (key.endswith(".") and name.startswith(key)):
            return reason
    return None


# --------------------------------------------------------------------------- files

def _module_name(rel):
    parts = rel[:-3].split(os.sep)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def tree_files(root, prefix=""):
    """(module name, path) of every ``.py`` file under ``root`` outside EXCLUDED_DIRS, sorted."""
    out = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        for fn in sorted(filenames):
            if not fn.endswith(".py"):
                continue
            path = os.path.join(dirpath, fn)
            rel = os.path.relpath(path, root)
            if any(s in "/" + rel.replace(os.sep, "/") for s in EXCLUDED_DIRS):
                continue
            out.append((prefix + _module_name(rel), path))
    return out


def stdlib_files():
    lib = os.path.dirname(os.__file__)
    return lib, tree_files(lib)


def package_files(package):
    """(root, files) of an installed package, found without importing it."""
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.origin:
        raise SystemExit("no installed package %r" % package)
    if spec.submodule_search_locations:
        pkg_dir = list(spec.submodule_search_locations)[0]
        return pkg_dir, tree_files(pkg_dir, package + ".")
    return os.path.dirname(spec.origin), [(package, spec.origin)]


def module_files(names):
    """(module name, path) of named modules (a package: its ``__init__.py`` only)."""
    out = []
    stdlib = dict(stdlib_files()[1])   # frozen modules (os, 3.11+) have a file but no spec origin
    for name in names:
        if name in stdlib:
            out.append((name, stdlib[name]))
            continue
        spec = importlib.util.find_spec(name)
        if spec is None or not (spec.origin or "").endswith(".py"):
            raise SystemExit("no Python source for module %r" % name)
        out.append((name, spec.origin))
    return out


# --------------------------------------------------------------------------- comparing

_PLAIN = (int, str, bytes, bool, complex, type(None), type(Ellipsis), type(NotImplemented),
          range, slice, bytearray)
_SIMPLE = (int, str, bytes, complex, float)           # bases whose value a subclass instance keeps
_ARG_FLAGS = 0x04 | 0x08 | 0x20 | 0x80 | 0x100 | 0x200   # VARARGS VARKEYWORDS GENERATOR COROUTINE ITERABLE_COROUTINE ASYNC_GENERATOR
_DESCRIPTORS = tuple({types.MethodWrapperType, types.WrapperDescriptorType, types.MethodDescriptorType,
                      types.GetSetDescriptorType, types.MemberDescriptorType, types.ClassMethodDescriptorType})
_ALIASES = tuple(t for t in (getattr(types, "GenericAlias", None), getattr(types, "UnionType", None)) if t)
#: compared whole by Comparer.compare (their __dict__ included)
_OWN_STATE = (type, types.FunctionType, types.MethodType, types.BuiltinFunctionType, types.CodeType,
              types.CellType) + _DESCRIPTORS
#: values Comparer.compare compared; their __dict__ and slots (a subclass's) are compared too
_KNOWN_VALUE = _ALIASES + (tuple, list, dict, types.MappingProxyType, set, frozenset, property, staticmethod, classmethod,
                functools.partial, functools.partialmethod, weakref.ref) + _SIMPLE
_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")
MAX_DIFFS = 50


def _short(value, n=60):
    try:
        text = repr(value)
    except Exception as exc:   # a repr that fails is still shown, as what it raised
        text = "<repr failed: %s>" % type(exc).__name__
    return text if len(text) <= n else text[:n - 3] + "..."


def _tname(t):
    return "%s.%s" % (getattr(t, "__module__", "?"), getattr(t, "__qualname__", getattr(t, "__name__", "?")))


def _sort_key(x):
    return (_tname(type(x)), getattr(x, "__qualname__", None) or "", _ADDRESS.sub("", _short(x, 200)))


class Comparer:
    """Structural comparison of what two runs left; ``diffs`` lists (path, reason)."""

    def __init__(self, same_bytecode=None):
        self.diffs = []
        self.memo = set()
        self.same_bytecode = same_bytecode
        self.functions = 0
        self.identical_code = 0
        self.other_code = []
        self.opaque = 0

    def diff(self, path, reason):
        if len(self.diffs) < MAX_DIFFS:
            self.diffs.append((path, reason))

    def namespaces(self, a, b, ignore=()):
        names_a = [k for k in a if k not in ignore]
        names_b = [k for k in b if k not in ignore]
        missing = [k for k in names_a if k not in b]
        extra = [k for k in names_b if k not in a]
        if missing:
            self.diff(missing[0], "missing in the decompiled run (%d names: %s)" % (len(missing), ", ".join(missing[:5])))
        if extra:
            self.diff(extra[0], "only in the decompiled run (%d names: %s)" % (len(extra), ", ".join(extra[:5])))
        common_a = [k for k in names_a if k in b]
        common_b = [k for k in names_b if k in a]
        if common_a != common_b:
            first = next(i for i, (x, y) in enumerate(zip(common_a, common_b)) if x != y)
            self.diff("<order>", "names bound in another order: %s before %s" % (common_b[first], common_a[first]))
        for k in common_a:
            self.compare(a[k], b[k], k)

    def compare(self, a, b, path):
        if a is b:
            return
        key = (id(a), id(b))
        if key in self.memo:
            return
        self.memo.add(key)
        if isinstance(a, types.ModuleType) or isinstance(b, types.ModuleType):
            return self.diff(path, "module %s is not the same object as %s" % (_short(a), _short(b)))
        ta, tb = type(a), type(b)
        if ta is not tb:
            if _tname(ta) != _tname(tb):
                return self.diff(path, "type %s, decompiled: %s" % (_tname(ta), _tname(tb)))
            self.compare_class(ta, tb, path + ".__class__")   # each run made its own class
        if ta is float:
            if repr(a) != repr(b):
                self.diff(path, "%r, decompiled: %r" % (a, b))
        elif ta in _PLAIN:
            if a != b:
                self.diff(path, "%s, decompiled: %s" % (_short(a), _short(b)))
        elif isinstance(a, type):
            self.compare_class(a, b, path)
        elif isinstance(a, types.FunctionType):
            self.compare_function(a, b, path)
        elif isinstance(a, types.MethodType):
            self.compare(a.__func__, b.__func__, path + ".__func__")
            self.compare(a.__self__, b.__self__, path + ".__self__")
        elif isinstance(a, types.BuiltinFunctionType):
            self.attrs(a, b, path, ("__name__", "__qualname__"))
            if not isinstance(a.__self__, types.ModuleType):
                self.compare(a.__self__, b.__self__, path + ".__self__")
        elif isinstance(a, _DESCRIPTORS):
            self.attrs(a, b, path, ("__name__",))
            if _tname(getattr(a, "__objclass__", None)) != _tname(getattr(b, "__objclass__", None)):
                self.diff(path, "descriptor of another class")
        elif isinstance(a, property):
            self.attrs(a, b, path, ("fget", "fset", "fdel", "__doc__"))
        elif isinstance(a, (staticmethod, classmethod)):
            self.compare(a.__func__, b.__func__, path + ".__func__")
        elif isinstance(a, (functools.partial, functools.partialmethod)):
            self.attrs(a, b, path, ("func", "args", "keywords"))
        elif isinstance(a, _ALIASES):
            self.attrs(a, b, path, ("__origin__", "__args__"))   # list[int], int | None: == would
            # compare run-made members by identity
        elif isinstance(a, types.CodeType):
            self.compare_code(a, b, path)
        elif isinstance(a, types.CellType):
            self.compare_cell(a, b, path)
        elif isinstance(a, weakref.ref):
            self.compare(a(), b(), path + "()")
        elif isinstance(a, (tuple, list)):
            if len(a) != len(b):
                return self.diff(path, "length %d, decompiled: %d" % (len(a), len(b)))
            for i, (x, y) in enumerate(zip(a, b)):
                self.compare(x, y, "%s[%d]" % (path, i))
        elif isinstance(a, (dict, types.MappingProxyType)):
            self.compare_dict(a, b, path)
        elif isinstance(a, (set, frozenset)):
            if len(a) != len(b):
                return self.diff(path, "%d elements, decompiled: %d" % (len(a), len(b)))
            if all(type(x) in _PLAIN or type(x) is float for x in a):
                if a != b:
                    self.diff(path, "elements %s, decompiled: %s" % (_short(sorted(a - b, key=repr)),
                                                                 _short(sorted(b - a, key=repr))))
            else:
                for i, (x, y) in enumerate(zip(sorted(a, key=_sort_key), sorted(b, key=_sort_key))):
                    self.compare(x, y, "%s{%d}" % (path, i))
        elif isinstance(a, _SIMPLE):
            base = next(t for t in ta.__mro__ if t in _SIMPLE)    # an IntEnum member, a str subclass
            if repr(base(a)) != repr(base(b)):
                self.diff(path, "%s value %s, decompiled: %s" % (base.__name__, _short(base(a)), _short(base(b))))
        if ta not in _PLAIN and ta is not float and not isinstance(a, type):
            self.state(a, b, path, ta is tb)

    def state(self, a, b, path, shared_type):
        """An object's own state: its ``__dict__`` and slots; ``==`` for a shared type with
        an equality of its own and no other visible state; else the same if the types are."""
        if isinstance(a, _OWN_STATE):
            return                                   # compared whole above
        seen = False
        da, db = _vars(a), _vars(b)
        if da is not None or db is not None:
            seen = True
            if da is None or db is None:
                self.diff(path, "__dict__ on one side only")
            else:
                self.compare_dict(da, db, path, attributes=True)
        for slot in _slots(type(a)):
            seen = True
            ha, hb = hasattr(a, slot), hasattr(b, slot)
            if ha != hb:
                self.diff(path + "." + slot, "slot set on one side only")
            elif ha:
                self.compare(getattr(a, slot), getattr(b, slot), path + "." + slot)
        if isinstance(a, _KNOWN_VALUE):
            if isinstance(a, collections.defaultdict):
                self.compare(a.default_factory, b.default_factory, path + ".default_factory")
            return                                   # its value was compared above
        if not seen:
            if shared_type and type(a).__eq__ is not object.__eq__:
                try:
                    equal = bool(a == b)
                except Exception as exc:   # recorded as a difference, never as the same
                    return self.diff(path, "cannot compare %s: %s" % (_tname(type(a)), type(exc).__name__))
                if not equal:
                    self.diff(path, "%s, decompiled: %s" % (_short(a), _short(b)))
            else:
                self.opaque += 1

    def attrs(self, a, b, path, names):
        for n in names:
            self.compare(getattr(a, n, None), getattr(b, n, None), path + "." + n)

    def compare_dict(self, a, b, path, attributes=False):
        """Keys in order, then values; ``attributes``: a __dict__, whose string keys are
        written ``path.key``."""
        ka, kb = list(a), list(b)
        if len(ka) != len(kb):
            sa = {k for k in ka if type(k) in _PLAIN}
            sb = {k for k in kb if type(k) in _PLAIN}
            return self.diff(path, "%d keys, decompiled: %d (missing %s, extra %s)" % (
                len(ka), len(kb), _short(sorted(sa - sb, key=repr)), _short(sorted(sb - sa, key=repr))))
        for i, (x, y) in enumerate(zip(ka, kb)):
            if type(x) in _PLAIN and type(y) in _PLAIN:
                if x != y:
                    if set(ka) == set(kb):
                        return self.diff(path, "keys in another order: %s where %s" % (_short(y), _short(x)))
                    return self.diff(path, "key %s, decompiled: %s" % (_short(x), _short(y)))
                sub = "%s.%s" % (path, x) if attributes and isinstance(x, str) else "%s[%s]" % (path, _short(x, 40))
            else:
                self.compare(x, y, "%s<key %d>" % (path, i))
                sub = "%s[<key %d>]" % (path, i)
            self.compare(a[x], b[y], sub)

    def compare_class(self, a, b, path):
        key = ("class", id(a), id(b))
        if key in self.memo:
            return
        self.memo.add(key)
        for n in ("__name__", "__qualname__", "__module__"):
            if getattr(a, n, None) != getattr(b, n, None):
                return self.diff(path, "class %s %r, decompiled: %r" % (n, getattr(a, n, None), getattr(b, n, None)))
        if _tname(type(a)) != _tname(type(b)):
            return self.diff(path, "metaclass %s, decompiled: %s" % (_tname(type(a)), _tname(type(b))))
        if type(a) is not type(b):
            self.compare_class(type(a), type(b), path + ".__class__")
        for n in ("__bases__", "__mro__"):
            na, nb = [_tname(c) for c in getattr(a, n)], [_tname(c) for c in getattr(b, n)]
            if na != nb:
                return self.diff(path, "%s %s, decompiled: %s" % (n, na, nb))
        self.compare_dict(_class_dict(a), _class_dict(b), path, attributes=True)

    def compare_function(self, a, b, path):
        self.functions += 1
        self.attrs(a, b, path, ("__name__", "__qualname__", "__module__", "__doc__", "__defaults__",
                                "__kwdefaults__", "__annotations__", "__type_params__"))
        self.compare_dict(a.__dict__, b.__dict__, path, attributes=True)
        self.compare_code(a.__code__, b.__code__, path + ".__code__")
        if a.__code__.co_freevars != b.__code__.co_freevars:
            return self.diff(path, "closes over %s, decompiled: %s" % (a.__code__.co_freevars, b.__code__.co_freevars))
        for name, x, y in zip(a.__code__.co_freevars, a.__closure__ or (), b.__closure__ or ()):
            self.compare_cell(x, y, "%s.<cell %s>" % (path, name))

    def compare_code(self, a, b, path):
        sa, sb = _arg_spec(a), _arg_spec(b)
        if sa != sb:
            return self.diff(path, "arguments %s, decompiled: %s" % (sa, sb))
        if self.same_bytecode is not None:
            if self.same_bytecode(a, b):
                self.identical_code += 1
            else:
                self.other_code.append(path)

    def compare_cell(self, a, b, path):
        try:
            x = a.cell_contents
        except ValueError:   # an empty cell
            x = _EMPTY
        try:
            y = b.cell_contents
        except ValueError:
            y = _EMPTY
        self.compare(x, y, path)


_EMPTY = object()


def _arg_spec(code):
    n = code.co_argcount + code.co_kwonlyargcount + bool(code.co_flags & 0x04) + bool(code.co_flags & 0x08)
    return (code.co_name, code.co_argcount, getattr(code, "co_posonlyargcount", 0), code.co_kwonlyargcount,
            code.co_varnames[:n], code.co_flags & _ARG_FLAGS)


def _vars(obj):
    try:
        d = object.__getattribute__(obj, "__dict__")
    except (AttributeError, TypeError):
        return None
    return d if isinstance(d, (dict, types.MappingProxyType)) else None


@functools.lru_cache(maxsize=None)
def _slots(cls):
    out = []
    for c in cls.__mro__:
        s = c.__dict__.get("__slots__", ())
        for name in ([s] if isinstance(s, str) else s):
            if name not in ("__dict__", "__weakref__") and name not in out:
                if name.startswith("__") and not name.endswith("__"):
                    name = "_%s%s" % (c.__name__.lstrip("_"), name)
                out.append(name)
    return tuple(out)


def _class_dict(cls):
    return {k: v for k, v in cls.__dict__.items()}


def compare_runs(a, b, d, ignore=(), same_bytecode=None):
    """Compare run ``d`` (decompiled) with run ``b`` (original); differences where ``a``
    and ``b`` (both original) differ too are nondeterministic.  Returns (real diffs,
    nondeterministic diffs, the Comparer of b and d)."""
    bd = Comparer(same_bytecode)
    bd.namespaces(b, d, ignore)
    if not bd.diffs:
        return [], [], bd
    ab = Comparer()
    ab.namespaces(a, b, ignore)
    unstable = {p for p, _ in ab.diffs}
    real = [(p, r) for p, r in bd.diffs if p not in unstable]
    nondet = [(p, r) for p, r in bd.diffs if p in unstable]
    return real, nondet, bd


# --------------------------------------------------------------------------- the worker

class _PackageImports:
    """The builtins a package's ``__init__`` runs with: their ``__import__`` binds each
    submodule the package imports in its namespace when the run first imports it, as the
    import system does when it loads a submodule (``asyncio/__init__.py`` reads
    ``base_events`` after ``from .base_events import *``).  The worker imported the
    package first, so every run finds its submodules loaded and the import system
    itself binds nothing.  One dict shared by all runs of the worker."""

    def __init__(self):
        self.builtins = dict(builtins.__dict__, __import__=self.hooked)
        self.package = self.ns = None
        self.bound = set()

    def hooked(self, name, globals=None, locals=None, fromlist=(), level=0):
        result = builtins.__import__(name, globals, locals, fromlist, level)
        if self.ns is not None and globals is self.ns:
            full = importlib.util.resolve_name("." * level + name, self.package) if level else name
            for target in [full] + ["%s.%s" % (full, f) for f in fromlist or () if f != "*"]:
                if target.startswith(self.package + "."):
                    child = target[len(self.package) + 1:].split(".")[0]
                    if child not in self.bound and self.package + "." + child in sys.modules:
                        self.bound.add(child)
                        self.ns[child] = sys.modules[self.package + "." + child]
        return result


_IMPORTS = _PackageImports()


def execute(code, name, path, extra=None):
    """Run module ``code`` as module ``name`` from ``path`` in a fresh module; (namespace,
    None or "ExcType: message")."""
    is_pkg = os.path.basename(path) == "__init__.py"
    spec = importlib.util.spec_from_file_location(
        name, path, submodule_search_locations=[os.path.dirname(path)] if is_pkg else None)
    module = importlib.util.module_from_spec(spec)
    ns = module.__dict__
    if is_pkg:
        ns["__builtins__"] = _IMPORTS.builtins
        _IMPORTS.package, _IMPORTS.ns, _IMPORTS.bound = name, ns, set()
    ns.update(extra or {})
    previous = sys.modules.get(name, _EMPTY)
    sys.modules[name] = module
    error = None
    try:
        exec(code, ns)
    except (Exception, SystemExit) as exc:   # the module's own failure: recorded and compared, not hidden
        error = "%s: %s" % (type(exc).__name__, str(exc).splitlines()[0] if str(exc) else "")
    finally:
        _IMPORTS.ns = None
        if previous is _EMPTY:
            sys.modules.pop(name, None)
        else:
            sys.modules[name] = previous
    return ns, error


def judge_file(name, path, src=SRC):
    """The verdict on one file (a JSON-able dict); runs in the worker process, with
    unveil imported from ``src`` (which holds ``unveil`` and ``unveil_roundtrip.py``, a
    copy of tests/roundtrip.py, in a snapshot; else the tree's src/ and tests/)."""
    sys.path.insert(0, src)
    import unveil
    if os.path.exists(os.path.join(src, "unveil_roundtrip.py")):
        from unveil_roundtrip import same_bytecode
    else:
        sys.path.insert(1, ROOT)
        from tests.roundtrip import same_bytecode
    rec = {"module": name, "file": path}
    t0 = time.perf_counter()
    try:
        with open(path, "rb") as f:
            source = f.read()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            code = compile(source, path, "exec", dont_inherit=True)
    except (SyntaxError, ValueError, UnicodeDecodeError) as exc:
        rec.update(status="skipped", detail="does not compile on this Python: %s" % exc)
        return rec
    try:
        dec = unveil.decompile_code(code)
    except unveil.InternalError as exc:
        rec.update(status="crash", detail="%s (cause: %r)" % (exc, exc.__cause__))
        return rec
    except unveil.DecompilationError as exc:
        rec.update(status="refused", detail=str(exc))
        return rec
    rec["seconds_decompile"] = round(time.perf_counter() - t0, 3)
    rec["lowered"] = ["%s@%s: %s" % (low.name, low.line, low.reason) for low in dec.lowered]
    try:
        new = unveil.recompile(dec.source, code, lines=dec.lines)
    except (unveil.DecompilationError, SyntaxError, ValueError) as exc:
        rec.update(status="recompile error", detail=str(exc).splitlines()[0])
        return rec
    rec["identical_module_code"] = same_bytecode(code, new)
    bindings = dict(dec.bindings)
    rec["bindings"] = sorted(bindings)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        # imported for real first, as its importers would have: its package's __init__ and
        # the modules it imports (circular ones too) are then loaded and the same for all runs
        try:
            importlib.import_module(name)
        except (Exception, SystemExit) as exc:   # noted; the runs below then fail alike
            rec["import_error"] = "%s: %s" % (type(exc).__name__, exc)
        a, err_a = execute(code, name, path)
        b, err_b = execute(code, name, path) if err_a is None else (a, err_a)
        d, err_d = execute(new, name, path, bindings)
    ignore = {k for k in bindings if k not in b}
    real, nondet, cmp = compare_runs(a, b, d, ignore, same_bytecode)
    rec.update(names=len(b), functions=cmp.functions, identical_code=cmp.identical_code,
               other_code=cmp.other_code[:20], opaque=cmp.opaque,
               nondeterministic=["%s: %s" % pr for pr in nondet])
    if err_a is not None or err_b is not None:
        err = err_a or "(second run) " + err_b
        rec["exec_error"] = err
        if err_d is None:
            rec.update(status="differs", detail="the original raised %s; the decompiled code ran" % err)
        elif err_d.split(":")[0] != err.split(":")[0].replace("(second run) ", ""):
            rec.update(status="exec error in decompiled", detail="original: %s; decompiled: %s" % (err, err_d))
        elif real:
            rec.update(status="differs", detail="both raised %s, with other names bound first: %s: %s"
                       % (err_d, real[0][0], real[0][1]))
        else:
            rec.update(status="exec error in both", detail=err)
        return rec
    if err_d is not None:
        rec.update(status="exec error in decompiled", detail=err_d)
    elif real:
        rec.update(status="differs", detail="%s: %s" % real[0], diffs=["%s: %s" % pr for pr in real[:10]])
    else:
        rec.update(status="same")
    rec["seconds"] = round(time.perf_counter() - t0, 3)
    return rec


def worker_main(name, path, out, src):
    sys.setrecursionlimit(10000)
    rec = judge_file(name, path, src)
    with open(out, "w") as f:
        json.dump(rec, f)


# --------------------------------------------------------------------------- the driver

def snapshot():
    """A copy of src/unveil (and tests/roundtrip.py) that every worker of a run imports,
    so that a run judges one version of the code while the tree changes."""
    tmp = tempfile.mkdtemp(prefix="unveil-modjudge-src-")
    shutil.copytree(os.path.join(SRC, "unveil"), os.path.join(tmp, "unveil"),
                    ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copyfile(os.path.join(ROOT, "tests", "roundtrip.py"), os.path.join(tmp, "unveil_roundtrip.py"))
    return tmp


def run_one(name, path, timeout, src):
    """Judge one file in a fresh worker subprocess; its record."""
    reason = skip_reason(name)
    if reason:
        return {"module": name, "file": path, "status": "skipped", "detail": reason}
    tmp = tempfile.mkdtemp(prefix="unveil-modjudge-")
    out = os.path.join(tmp, "result.json")
    # the stdlib's distutils, not the one setuptools' .pth file puts first (3.8-3.11)
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1", PYTHONHASHSEED="0", SETUPTOOLS_USE_DISTUTILS="stdlib")
    env.pop("PYTHONPATH", None)
    cmd = [sys.executable, os.path.abspath(__file__), "--worker", name, path, out, src]
    t0 = time.perf_counter()
    try:
        proc = subprocess.run(cmd, cwd=tmp, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"module": name, "file": path, "status": "timeout", "detail": "over %ss" % timeout}
    try:
        with open(out) as f:
            rec = json.load(f)
    except (OSError, ValueError):
        lines = proc.stderr.decode("utf-8", "replace").strip().splitlines()
        rec = {"module": name, "file": path, "status": "worker error",
               "detail": "exit %d: %s" % (proc.returncode, lines[-1] if lines else "no output")}
    finally:
        for fn in os.listdir(tmp):
            p = os.path.join(tmp, fn)
            if os.path.isfile(p):
                os.unlink(p)
        try:
            os.rmdir(tmp)
        except OSError:
            pass    # the module left a directory behind; harmless
    rec["wall"] = round(time.perf_counter() - t0, 2)
    return rec


def run_all(files, timeout=120, jobs=1, progress=False):
    t0 = time.time()
    results = []
    src = snapshot()
    try:
        with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
            futures = [pool.submit(run_one, name, path, timeout, src) for name, path in files]
            for fut in futures:
                rec = fut.result()
                results.append(rec)
                if progress:
                    print("%-40s %s%s" % (rec["module"], rec["status"],
                                          "" if rec["status"] == "same" else ": " + rec.get("detail", "")[:150]),
                          file=sys.stderr, flush=True)
    finally:
        shutil.rmtree(src)
    return {"python": sys.version.split()[0], "results": results, "wall_seconds": round(time.time() - t0, 1)}


STATUSES = ("same", "differs", "refused", "crash", "recompile error", "exec error in both",
            "exec error in decompiled", "skipped", "timeout", "worker error")


def table(reports):
    lines = ["| python | files | same | differs | refused | crash | recompile error | exec error in both "
             "| exec error in decompiled only | skipped | timeout / worker error | nondeterministic paths "
             "| functions compared (identical code) |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in reports:
        c = collections.Counter(x["status"] for x in r["results"])
        nondet = sum(len(x.get("nondeterministic", ())) for x in r["results"])
        fns = sum(x.get("functions", 0) for x in r["results"])
        ident = sum(x.get("identical_code", 0) for x in r["results"])
        lines.append("| %s | %d | %d | %d | %d | %d | %d | %d | %d | %d | %d | %d | %d (%d) |" % (
            r["python"], len(r["results"]), c["same"], c["differs"], c["refused"], c["crash"],
            c["recompile error"], c["exec error in both"], c["exec error in decompiled"], c["skipped"],
            c["timeout"] + c["worker error"], nondet, fns, ident))
    return "\n".join(lines)


def details(reports, show=1000):
    out = []
    for r in reports:
        for x in r["results"]:
            if x["status"] in FAILURES or x["status"] == "refused":
                out.append("  %s %s: %s: %s" % (r["python"], x["module"], x["status"], x.get("detail", "")[:300]))
            for n in x.get("nondeterministic", ()):
                out.append("  %s %s: nondeterministic: %s" % (r["python"], x["module"], n[:200]))
    return "\n".join(out[:show])


def main():
    if len(sys.argv) == 6 and sys.argv[1] == "--worker":
        return worker_main(*sys.argv[2:])
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--versions", nargs="*", metavar="X.Y", help="run on these pyenv interpreters")
    ap.add_argument("--modules", nargs="+", metavar="NAME", help="only these modules")
    ap.add_argument("--package", help="the files of this installed package instead of the stdlib")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--timeout", type=float, default=120)
    ap.add_argument("--json", help="write the per-file results to this JSON file")
    ap.add_argument("--show", type=int, default=1000, help="failures listed")
    ap.add_argument("--quiet", action="store_true")
    args = ap.parse_args()
    if args.versions is not None:
        sys.path.insert(0, HERE)
        import bench_functions
        extra = ["--jobs", str(args.jobs), "--timeout", str(args.timeout)] + (["--quiet"] if args.quiet else [])
        if args.modules:
            extra += ["--modules"] + args.modules
        if args.package:
            extra += ["--package", args.package]
        reports = bench_functions.run_each_version(__file__, args.versions, extra, quiet=True)
    else:
        if args.modules:
            files = module_files(args.modules)
        elif args.package:
            files = package_files(args.package)[1]
        else:
            files = stdlib_files()[1]
        reports = [run_all(files, args.timeout, args.jobs, progress=not args.quiet)]
    print(table(reports))
    print(details(reports, args.show))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(reports if args.versions is not None else reports[0], f, indent=1)


if __name__ == "__main__":
    main()
