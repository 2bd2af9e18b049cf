"""What a full-code file needs to run on its own, as a script in a new process.

In the process that compiled, the file reads the user's module and the globals
Dynamo made (the compiled graphs, the modules it imported) from that module.
In a new process neither exists: the user's module is loaded from its file
(its ``if __name__ == "__main__"`` block does not run), each compiled graph is
the ``forward`` of its dumped graph file, and each module Dynamo imported is
imported again.  The object ids guards recorded mean nothing there: a type is
checked by its name and an object's identity is assumed (and the count said).
"""
import builtins
import contextlib
import importlib
import importlib.util
import inspect
import json
import linecache
import os
import runpy
import sys
import types

import torch

from .directory import THIS_PROCESS
from .. import made_globals
from ..guards import runtime as guard_runtime


def here(namespace):
    """The directory of the file whose globals ``namespace`` are (``None`` when exec'd)."""
    path = namespace.get("__file__")
    return os.path.dirname(os.path.abspath(path)) if path else None


def program_argv(namespace):
    """The ``sys.argv`` the dumped program ran with (its dump's ``index.json``, beside the
    file whose globals ``namespace`` are), or ``None``."""
    return _dump_index(namespace).get("argv")


def program_process(namespace):
    """The process that wrote the dump beside the file whose globals ``namespace`` are
    (``index.json``'s ``process``), or ``None``."""
    return _dump_index(namespace).get("process")


def _dump_index(namespace):
    try:
        with open(os.path.join(here(namespace) or os.curdir, "index.json"), encoding="utf-8") as fh:
            index = json.load(fh)
    except (OSError, ValueError):
        return {}
    return index if isinstance(index, dict) else {}


def module_globals(name, path, argv=None, process=None, import_name=None):
    """The globals of the user's module ``name`` (defined in ``path``): the live module in the
    process that compiled; else the module imported by its name, where that name imports
    this very file (a module of a package, whose relative imports need its package), or by
    ``import_name`` for ``__main__`` run with ``python -m pkg.mod`` (its classes still
    checked as ``__main__``'s); else the file loaded as a module of another name (a script,
    ``__main__`` when it compiled).
    Its top-level code runs with ``sys.argv`` the program's ``argv`` (it may parse them).
    ``process``, the one that wrote the dump: in any other, guards check types by name and
    assume identities, and the globals Dynamo made are made anew, though the module be
    imported here too (torch's own are); ``None`` (unknown) takes a live module as this
    process's."""
    if name in _LOADED:          # (loaded here before: imported by its name, it is in sys.modules now)
        return _LOADED[name]
    module = sys.modules.get(name)
    if module is not None and _same_file(getattr(module, "__file__", None), path):
        if process in (None, THIS_PROCESS):     # (None: a text exec'd here, or a dump that names none)
            return module.__dict__
        guard_runtime.ids_from_another_process()
        made = _LOADED[name] = _WithDynamoGlobals(module.__dict__)
        return made
    guard_runtime.ids_from_another_process()      # the module is not the one that compiled
    by_name = name if name != "__main__" else import_name
    if by_name and _importable_by_name(by_name, path):
        if by_name != name:
            guard_runtime.stands_for(by_name, name)
        with _program_argv(argv):
            made = _LOADED[name] = _WithDynamoGlobals(importlib.import_module(by_name).__dict__)
        return made
    stand_in = "__unveil_user_module_%s" % name.replace(".", "_")
    spec = importlib.util.spec_from_file_location(stand_in, path)
    if spec is None or spec.loader is None:
        raise ImportError("cannot load %s from %s" % (name, path))
    module = importlib.util.module_from_spec(spec)
    sys.modules[stand_in] = module
    guard_runtime.stands_for(stand_in, name)      # its classes are checked by the names they had
    with _program_argv(argv):
        spec.loader.exec_module(module)
    made = _LOADED[name] = _WithDynamoGlobals(module.__dict__)
    return made


@contextlib.contextmanager
def _program_argv(argv):
    """``sys.argv`` the program's, while its module's top-level code runs (``None``: as it is),
    which :func:`loading_module` then names."""
    saved = sys.argv
    if argv is not None:
        sys.argv = list(argv)
    _LOADING.append(True)
    try:
        yield
    finally:
        _LOADING.pop()
        sys.argv = saved


#: one item per user's module whose top-level code is running to give its globals
_LOADING = []


def loading_module():
    """Whether a user's module's top-level code is running now to give why-recompile (or a
    full-code file) its globals: a ``prepare_debug`` or ``debug()`` block it opens must not
    write over the dump being read."""
    return bool(_LOADING)


def _same_file(a, b):
    return bool(a) and os.path.abspath(a) == os.path.abspath(b)


def _importable_by_name(name, path):
    """Whether ``import name`` loads the file ``path``: as ``sys.path`` stands, else with the
    directory the name's packages start in put first on it (where the program ran from,
    which the ``unveil`` command, unlike ``python -m``, does not put there), which stays."""
    if _imports_file(name, path):
        return True
    root = _package_root(name, path)
    if root is None or root in sys.path:
        return False
    sys.path.insert(0, root)
    if _imports_file(name, path):
        return True
    sys.path.remove(root)
    return False


def _package_root(name, path):
    """The directory ``path`` is module ``name`` of (``root/pkg/mod.py`` for ``pkg.mod``,
    ``root/pkg/__init__.py`` for ``pkg``), or None."""
    parts = name.split(".")
    path = os.path.abspath(path)
    stem = path[:-len(os.sep + "__init__.py")] if path.endswith(os.sep + "__init__.py") else os.path.splitext(path)[0]
    for part in reversed(parts):
        stem, last = os.path.split(stem)
        if last != part:
            return None
    return stem


def _imports_file(name, path):
    """Whether ``import name`` would load the file ``path`` (its packages are imported to
    know; a name that finds nothing, or another file, is not it)."""
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):        # a parent package that is not there
        return False
    return spec is not None and _same_file(spec.origin, path)


#: the user's modules loaded in this process, by the names they had -> their globals (as module_globals gave them)
_LOADED = {}


class _WithDynamoGlobals(dict):
    """A fresh module's globals, and on demand the ones Dynamo adds to the compiling
    process's module that guards read: ``__import_torch_dot_nn`` (a module it imported) and
    ``__builtins_dict___N`` (the builtins' namespace).  A global set here is set in the
    module too (its functions read the module's own dict)."""

    def __init__(self, module_dict):
        super().__init__(module_dict)
        self._module_dict = module_dict

    def __setitem__(self, name, value):
        super().__setitem__(name, value)
        self._module_dict[name] = value

    def __missing__(self, name):
        module = made_globals.imported_module(name)
        if module is not None:
            return importlib.import_module(module)
        if made_globals.is_builtins_dict(name):
            return vars(builtins)
        raise KeyError(name)


def dynamo_global(globals_, name, directory=None, graph=None, module=None, module_dict=None):
    """A global Dynamo made for the transformed code: the live one, else a stand-in made from
    the dump (``graph``: the graph file whose ``forward`` the backend compiled; ``module``:
    the module Dynamo imported; ``module_dict``: the module whose namespace it is)."""
    if name in globals_:
        return globals_[name]
    if module is not None:                   # a module's name, or module:qualname (importable_as)
        return imported(module)
    if module_dict is not None:
        return vars(importlib.import_module(module_dict))
    if graph is not None and directory is not None:
        return _graph_forward(os.path.join(directory, graph))
    raise LookupError("%s exists only in the process that compiled (no file of it was dumped)" % name)


def importable_as(value):
    """How another process gets ``value`` again: a module's name, ``module:qualname`` for a
    class or function defined at a module's top level, else ``None``."""
    if isinstance(value, types.ModuleType):
        return value.__name__
    module, qualname = getattr(value, "__module__", None), getattr(value, "__qualname__", None)
    if isinstance(module, str) and isinstance(qualname, str) and "<" not in qualname:
        try:
            if imported("%s:%s" % (module, qualname)) is value:
                return "%s:%s" % (module, qualname)
        except (ImportError, AttributeError):     # defined in a module that cannot be imported by name
            return None
    return None


def imported(where):
    """The object ``importable_as`` described."""
    module, _, qualname = where.partition(":")
    value = importlib.import_module(module)
    for part in qualname.split(".") if qualname else ():
        value = getattr(value, part)
    return value


def _graph_forward(path):
    namespace = runpy.run_path(path)
    classes = [v for v in namespace.values() if isinstance(v, type) and issubclass(v, torch.nn.Module)
               and v.__module__ == namespace.get("__name__")]
    if not classes:
        raise LookupError("no graph module class in %s" % path)
    return classes[-1]().forward


def with_cells(function, cells, names=None):
    """``function`` (a full-code closure, made over placeholder cells) over other cells:
    those of a function or lambda, matched by name (``with_cells(f, lambda: (a, b))``
    takes the calling frame's cells of ``a`` and ``b``; ``with_cells(dispatch, fn)``
    those the user's closure ``fn`` has), or a sequence of cells in the order of ``names``
    (how Dynamo hands a resume function its cells)."""
    if names is None:
        names, cells = cells.__code__.co_freevars, cells.__closure__ or ()
    by_name = dict(zip(names, cells))
    missing = [n for n in function.__code__.co_freevars if n not in by_name]
    if missing:
        raise ValueError("no cell for %s of %s" % (", ".join(missing), function.__name__))
    made = types.FunctionType(function.__code__, function.__globals__, function.__name__, function.__defaults__,
                              tuple(by_name[n] for n in function.__code__.co_freevars))
    made.__kwdefaults__ = function.__kwdefaults__
    return made


def nested_code(function, name, index=0):
    """The ``index``-th code object named ``name`` nested in ``function``'s code (depth first):
    a nested function's code, which Dynamo's transformed code makes a function of."""
    found, todo = [], list(function.__code__.co_consts)
    while todo:
        const = todo.pop(0)
        if isinstance(const, types.CodeType):
            if const.co_name == name:
                found.append(const)
            todo[:0] = list(const.co_consts)
    if index >= len(found):
        raise LookupError("%s has no code %s (#%d)" % (function.__name__, name, index))
    return found[index]


def example_tensor(dtype, size, requires_grad=False):
    """A tensor of the recorded dtype and size (a dynamic size, ``None``, as 3)."""
    size = [3 if s is None else s for s in size]
    if dtype.is_floating_point or dtype.is_complex:
        return torch.randn(size, dtype=dtype).requires_grad_(requires_grad)
    return torch.ones(size, dtype=dtype)


class CannotMake:
    """An input the script could not make (a class whose constructor needs arguments)."""

    def __init__(self, reason):
        self.reason = reason


def instance_of(globals_, qualified):
    """An instance of the class named ``qualified`` (as the compiling process named it: a
    class of the user's module, looked up in its globals, else imported), made by calling
    it with no argument; a :class:`CannotMake` when that fails."""
    cls = _class_in(globals_, qualified)
    try:
        if cls is None:
            cls = guard_runtime.class_named(qualified)
        return cls()
    except Exception as exc:  # the user's constructor, whatever it raises
        return CannotMake("%s() raised %s: %s" % (qualified, type(exc).__name__, exc))


def _class_in(globals_, qualified):
    """The class ``qualified`` names in the user's module whose globals are ``globals_``."""
    value = _defined_in(globals_, qualified)
    return value if isinstance(value, type) else None


def _defined_in(globals_, qualified):
    """What ``qualified`` (``module.qualname``) names in the user's module whose globals are
    ``globals_``, or None."""
    module = globals_.get("__name__", "")
    module = guard_runtime.compiled_name(module)
    if not qualified.startswith(module + "."):
        return None
    value = globals_
    for part in qualified[len(module) + 1:].split("."):
        value = value.get(part) if isinstance(value, dict) else getattr(value, part, None)
        if value is None:
            return None
    return value


class NoValue:
    """A parameter no guard records a value of, and which has no default."""


def parameter_default(globals_, qualified, name):
    """The default of parameter ``name`` of the function ``qualified`` names in the user's
    module (``module.qualname``), or a :class:`NoValue` when it has none (or the function is
    not found there: a nested function's)."""
    function = _defined_in(globals_, qualified)
    if function is None:                 # a nested function (``<locals>`` in its name)
        return NoValue()
    parameter = inspect.signature(function).parameters[name]     # the compiled code's own parameter
    return NoValue() if parameter.default is parameter.empty else parameter.default


def run_as_script(dispatch, entries, globals_):
    """For each entry (``(compile id, guard, transformed code, inputs, missing, globals it
    checks)``, Dynamo's order), on inputs made from its own guards, with the globals its
    guards check for one value set so (the program may have set them after its module's
    top-level code ran): what every entry's guard decides, the dispatch's result, and the
    entry's transformed code's, compared."""
    for cid, _, transformed, inputs, missing, checked in entries:
        missing = [name for name, value in inputs.items() if isinstance(value, NoValue)] + list(missing)
        if missing:
            print("compile %s: not run: no recorded value for %s (only tensors and constants a guard"
                  " checks, instances of a class it checks and parameters' defaults are rebuilt)"
                  % (cid, ", ".join(missing)))
            continue
        unmade = ["%s (%s)" % (name, value.reason) for name, value in inputs.items() if isinstance(value, CannotMake)]
        if unmade:
            print("compile %s: not run: cannot make %s" % (cid, "; ".join(unmade)))
            continue
        differ = {name: value for name, value in checked.items() if globals_.get(name, NoValue) != value}
        print("inputs made from the guards of compile %s%s:" % (cid, "" if not differ else " (with %s, as its guards "
              "check)" % ", ".join("%s = %r" % pair for pair in differ.items())))
        with _globals_set(differ, (globals_, dispatch.__globals__)):
            _run_entry(cid, dispatch, entries, transformed, inputs, globals_)


def _run_entry(cid, dispatch, entries, transformed, inputs, globals_):
    guard_runtime.identities_assumed(reset=True)
    passes = {other: guard(inputs, globals_) for other, guard, _, _, _, _ in entries}
    assumed = guard_runtime.identities_assumed(reset=True)
    print("  guards: " + ", ".join("%s %s" % (other, "passes" if ok else "fails") for other, ok in passes.items()))
    if not passes[cid]:
        own = next(guard for other, guard, _, _, _, _ in entries if other == cid)
        print("  (its own guards fail on these inputs%s, so Dynamo would not run its code on them: what they check "
              "was not all rebuilt, and the results below may differ for that reason)"
              % _first_failing_check(own, inputs, globals_))
        guard_runtime.identities_assumed(reset=True)
    if assumed:
        print("  (%s assumed to hold: %s the compiling process's objects, which no name here tells)"
              % ("1 identity or dict-version check" if assumed == 1 else "%d identity and dict-version checks" % assumed,
                 "it compares" if assumed == 1 else "they compare"))
    made_up = not passes[cid]
    with _same_random_numbers():       # (dropout in training: both runs draw the same numbers)
        out = _outcome(dispatch, inputs, made_up)
    print("  result of the dispatch:", _describe(out))
    if transformed is not None:
        mine = _outcome(transformed, inputs, made_up)
        same = "the same values" if _same(out, mine) else "values that differ"
        print("  transformed code of compile %s: %s, %s" % (cid, _describe(mine), same))


@contextlib.contextmanager
def _same_random_numbers():
    """Run the block, then put back the random number generators' state as it was before it
    (torch's on every device, and Python's ``random``): the code run next draws what it drew."""
    import random
    state = random.getstate()
    with torch.random.fork_rng():
        yield
    random.setstate(state)


class Raised:
    """What a call raised: the outcome of the user's code on made-up inputs, shown as such."""

    def __init__(self, error):
        self.error = error

    def __eq__(self, other):
        return isinstance(other, Raised) and type(other.error) is type(self.error) \
            and str(other.error) == str(self.error)

    def __repr__(self):
        return "raised %s: %s" % (type(self.error).__name__, self.error)


def _outcome(function, inputs, made_up):
    """What ``function(**inputs)`` returns; on ``made_up`` inputs (its own guards fail on
    them: made up where the guards do not describe them) the :class:`Raised` exception
    too, which the user's code may well raise there.  On inputs the guards pass, an
    exception (maybe a bug in a dumped file) ends the script, as it would the program."""
    try:
        return function(**inputs)
    except Exception as error:  # (on made-up inputs, the user's code's exception is its result)
        if not made_up:
            raise
        return Raised(error)


def _first_failing_check(guard, inputs, globals_):
    """Where ``guard`` (a guard function of the script, which fails on ``inputs``) fails: the
    comment of the last check it began, run again with its lines traced (``, first at line
    N: # TENSOR_MATCH on L['x']: ...``), or nothing when no check of a guard function ran."""
    begun = []

    def each_line(frame, event, arg):
        if event == "line":
            text = linecache.getline(frame.f_code.co_filename, frame.f_lineno).strip()
            if text.startswith("if not ("):
                begun.append((frame.f_code.co_filename, frame.f_lineno))
        return each_line

    def each_call(frame, event, arg):
        return each_line if frame.f_code.co_name.startswith("__guard_compile_") else None

    before = sys.gettrace()
    sys.settrace(each_call)
    try:
        guard(inputs, globals_)
    finally:
        sys.settrace(before)
    if not begun:
        return ""
    filename, line = begun[-1]
    comment = linecache.getline(filename, line - 1).strip()
    return ", first at line %d of %s: %s" % (line, os.path.basename(filename), comment if comment.startswith("#")
                                             else linecache.getline(filename, line).strip())


@contextlib.contextmanager
def _globals_set(values, namespaces):
    """``values`` set in each namespace that has the name (the user's module's, and the
    script's own copy of it), as they were again afterwards."""
    saved = [(namespace, name, namespace[name]) for namespace in namespaces for name in values if name in namespace]
    for namespace, name, _ in saved:
        namespace[name] = values[name]
    try:
        yield
    finally:
        for namespace, name, value in saved:
            namespace[name] = value


def _same(a, b):
    if isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor):
        return a.shape == b.shape and torch.allclose(a.detach(), b.detach(), equal_nan=True)
    if isinstance(a, (tuple, list)) and isinstance(b, (tuple, list)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return a == b


def _describe(value):
    if isinstance(value, torch.Tensor):
        return "tensor %s %s" % (str(value.dtype).replace("torch.", ""), tuple(value.shape))
    if isinstance(value, (tuple, list)):
        return "%s of [%s]" % (type(value).__name__, ", ".join(_describe(v) for v in value))
    return repr(value)
