"""CPython's own regression tests as a judge of unveil: run them on decompiled stdlib code.

    python benchmarks/stdlib_roundtrip.py [--modules json textwrap ...] [--module-mode]
                                          [--versions] [--jobs N] [--timeout S] [--json OUT]

For every module of ``MODULES`` (pure-Python stdlib modules with behavioural test
suites), on the running interpreter, ``test.test_X`` is run in subprocesses:

``baseline``
    the tests as they are;
``function`` (always)
    every Python function and method defined in the module (module functions,
    methods, static and class methods, properties, cached properties, nested
    classes, ``__wrapped__`` chains, functions held in closure cells of
    decorators, singledispatch registries) has its ``__code__`` replaced in place
    by the decompiled-and-recompiled version (``unveil.decompile_code`` then
    ``unveil.recompile(source, original_code, lines=...)``, which keeps the free
    and cell variable layout, so closures and zero-argument ``super()`` keep
    working, and puts each statement on its original line, so tracebacks quote
    the original source); the decompiler's bindings go into the function's
    globals.  Modules already
    imported when the worker starts (``unittest`` imports ``argparse``,
    ``difflib``, ``contextlib``, ...) are swapped in place; modules imported
    later, including fresh copies made by ``import_fresh_module`` (the pure
    Python ``heapq``, ``bisect``, ``_pydecimal``, ``json`` ...), are swapped by a
    meta path finder that patches the loader's ``exec_module`` so the swap
    happens right after the module body ran;
``module`` (with ``--module-mode``)
    every source file of the module (the whole package for ``json`` and ``email``)
    is compiled, its *module* code object decompiled (class bodies, imports and
    module statements included) and written to a temporary directory that is put
    first on ``sys.path`` (``PYTHONPATH``) of the test process.

A module *passes* a mode when no test that passed (or failed as expected) in the
baseline has another outcome: failing, erroring, being skipped or not running at
all (e.g. because the test module no longer imports) all count as regressions.
Functions the decompiler fails on keep their original code (they are counted as
not decompiled) so that the test run still judges the others.  Each test run
has a time limit (``--timeout``); a run that times out or crashes fails.
``test.support.use_resources`` is set to ``[]`` (as regrtest does without
``-u``), so resource-hungry tests are skipped in every run alike.

The table counts distinct code objects (a function's nested functions and
comprehensions are recompiled as part of it); "identical" compares instruction
lists the way tests/roundtrip.py's ``same_bytecode`` does (jump targets and
CACHE/EXTENDED_ARG ignored), compiled on the decompiled text's own lines
(original lines add line-marking NOPs).  For a failing module the script lists the
regressed tests, the functions of the module that appear in their tracebacks
("suspects"), and the functions the decompiler failed on.

``--versions`` runs the script on the six pyenv interpreters 3.8-3.13 (one
subprocess each, one after the other) and prints one table per version.
"""
import argparse
import functools
import importlib
import importlib.util
import json
import os
import pickle
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import traceback
import types

SELF = os.path.abspath(__file__)
HERE = os.path.dirname(SELF)
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import bench_functions  # noqa: E402  (time limit, loading by path; shared with the other benchmarks)
# The unveil that is judged: the working tree's, or (in the runs started by the driver)
# a snapshot of it taken when the driver started, so that all runs judge the same code.
SRC = os.environ.get("UNVEIL_JUDGE_SRC") or os.path.join(ROOT, "src")

# name -> (test module, modules whose functions are swapped, first version).
# A name ending in ".*" swaps the package and all its submodules.
MODULES = {
    "json": ("test.test_json", ["json.*"], (3, 8)),
    "textwrap": ("test.test_textwrap", ["textwrap"], (3, 8)),
    "shlex": ("test.test_shlex", ["shlex"], (3, 8)),
    "fractions": ("test.test_fractions", ["fractions"], (3, 8)),
    "statistics": ("test.test_statistics", ["statistics"], (3, 8)),
    "difflib": ("test.test_difflib", ["difflib"], (3, 8)),
    "configparser": ("test.test_configparser", ["configparser"], (3, 8)),
    "argparse": ("test.test_argparse", ["argparse"], (3, 8)),
    "csv": ("test.test_csv", ["csv"], (3, 8)),
    "heapq": ("test.test_heapq", ["heapq"], (3, 8)),
    "bisect": ("test.test_bisect", ["bisect"], (3, 8)),
    "calendar": ("test.test_calendar", ["calendar"], (3, 8)),
    "dataclasses": ("test.test_dataclasses", ["dataclasses"], (3, 8)),
    "enum": ("test.test_enum", ["enum"], (3, 8)),
    "ipaddress": ("test.test_ipaddress", ["ipaddress"], (3, 8)),
    "pprint": ("test.test_pprint", ["pprint"], (3, 8)),
    "tomllib": ("test.test_tomllib", ["tomllib.*"], (3, 11)),
    "html.parser": ("test.test_htmlparser", ["html.parser", "_markupbase"], (3, 8)),
    "html": ("test.test_html", ["html"], (3, 8)),
    "urllib.parse": ("test.test_urlparse", ["urllib.parse"], (3, 8)),
    "glob": ("test.test_glob", ["glob"], (3, 8)),
    "fnmatch": ("test.test_fnmatch", ["fnmatch"], (3, 8)),
    "contextlib": ("test.test_contextlib", ["contextlib"], (3, 8)),
    "graphlib": ("test.test_graphlib", ["graphlib"], (3, 9)),
    "gettext": ("test.test_gettext", ["gettext"], (3, 8)),
    "optparse": ("test.test_optparse", ["optparse"], (3, 8)),
    "getopt": ("test.test_getopt", ["getopt"], (3, 8)),
    "_pydecimal": ("test.test_decimal", ["_pydecimal"], (3, 8)),
    "plistlib": ("test.test_plistlib", ["plistlib"], (3, 8)),
    "email": ("test.test_email", ["email.*"], (3, 8)),
    "typing": ("test.test_typing", ["typing"], (3, 8)),
    "string": ("test.test_string", ["string"], (3, 8)),
    "base64": ("test.test_base64", ["base64"], (3, 8)),
    "colorsys": ("test.test_colorsys", ["colorsys"], (3, 8)),
    "copy": ("test.test_copy", ["copy"], (3, 8)),
    "operator": ("test.test_operator", ["operator"], (3, 8)),
    "functools": ("test.test_functools", ["functools"], (3, 8)),
    "queue": ("test.test_queue", ["queue"], (3, 8)),
    "reprlib": ("test.test_reprlib", ["reprlib"], (3, 8)),
    "sched": ("test.test_sched", ["sched"], (3, 8)),
    "netrc": ("test.test_netrc", ["netrc"], (3, 8)),
    "quopri": ("test.test_quopri", ["quopri"], (3, 8)),
    "abc": ("test.test_abc", ["_py_abc"], (3, 8)),
    "random": ("test.test_random", ["random"], (3, 8)),
    "uuid": ("test.test_uuid", ["uuid"], (3, 8)),
}

_CO_NEWLOCALS = 0x2
DECOMPILE_LIMIT = 5.0    # seconds for one function before it counts as a failure


# --------------------------------------------------------------------------- helpers

def wanted(name, targets):
    for t in targets:
        if t.endswith(".*"):
            if name == t[:-2] or name.startswith(t[:-1]):
                return True
        elif name == t:
            return True
    return False


def load_roundtrip():
    """tests/roundtrip.py (for ``same_bytecode``), loaded by path."""
    return bench_functions.load_by_path("_unveil_roundtrip", os.path.join(ROOT, "tests", "roundtrip.py"))


def short_error(exc):
    text = "%s: %s" % (type(exc).__name__, exc)
    text = text.splitlines()[0] if text.strip() else type(exc).__name__
    return text[:200]


# --------------------------------------------------------------------------- function mode

class Swapper:
    """Decompiles, recompiles and swaps the code of every function of a module."""

    def __init__(self):
        import unveil
        self.unveil = unveil
        self.same_bytecode = load_roundtrip().same_bytecode
        self.cache = {}          # code key -> (new code or None, bindings)
        self.stats = {}          # code key -> record
        self.seconds_decompile = 0.0
        self.seconds_recompile = 0.0
        self.swapped_modules = []
        self.functions_swapped = 0
        self._counter = 0
        self.progress_file = None

    @staticmethod
    def key(code):
        return (code.co_filename, code.co_firstlineno, getattr(code, "co_qualname", code.co_name), code.co_code)

    def functions_of(self, module):
        """Every function object defined in ``module``'s file, reachable from its namespace."""
        filename = getattr(module, "__file__", None)
        if not filename:
            return []
        filename = os.path.normcase(os.path.abspath(filename))
        found, seen = [], set()
        modname = module.__name__

        def is_ours(code):
            return os.path.normcase(os.path.abspath(code.co_filename)) == filename

        def visit(obj, depth=0):
            if depth > 50 or id(obj) in seen:
                return
            seen.add(id(obj))
            if isinstance(obj, types.FunctionType):
                if is_ours(obj.__code__):
                    found.append(obj)
                for cell in obj.__closure__ or ():
                    try:
                        content = cell.cell_contents
                    except ValueError:
                        continue
                    if isinstance(content, (types.FunctionType, type)):
                        visit(content, depth + 1)
                registry = getattr(obj, "registry", None)
                if isinstance(registry, types.MappingProxyType) or isinstance(registry, dict):
                    for v in list(registry.values()):
                        visit(v, depth + 1)
            elif isinstance(obj, (staticmethod, classmethod, types.MethodType)):
                visit(obj.__func__, depth + 1)
            elif isinstance(obj, property):
                for f in (obj.fget, obj.fset, obj.fdel):
                    if f is not None:
                        visit(f, depth + 1)
            elif isinstance(obj, type):
                if getattr(obj, "__module__", None) != modname:
                    return
                for v in list(vars(obj).values()):
                    visit(v, depth + 1)
                return
            elif isinstance(obj, (functools.partialmethod, functools.cached_property)):
                visit(obj.func, depth + 1)
            elif isinstance(obj, functools.singledispatchmethod):
                visit(obj.dispatcher, depth + 1)
                visit(obj.func, depth + 1)
            try:
                wrapped = obj.__dict__.get("__wrapped__") if isinstance(getattr(obj, "__dict__", None), dict) \
                    else getattr(obj, "__wrapped__", None)
            except Exception:
                wrapped = None
            if wrapped is not None:
                visit(wrapped, depth + 1)

        for value in list(vars(module).values()):
            visit(value)
        return found

    def new_code(self, fn):
        code = fn.__code__
        key = self.key(code)
        if key in self.cache:
            return self.cache[key]
        rec = {"name": "%s:%s" % (fn.__module__, getattr(code, "co_qualname", fn.__qualname__)),
               "line": code.co_firstlineno, "decompiled": False, "recompiled": False, "identical": False}
        self.stats[key] = rec
        result = (None, {})
        t0 = time.perf_counter()
        try:
            dec = bench_functions.with_time_limit(DECOMPILE_LIMIT, self.unveil.decompile_code, code)
            rec["decompiled"] = True
            rec["lowered"] = [low.name for low in dec.lowered]   # written as a state machine
        except bench_functions.TimeLimit:
            rec["error"] = "decompile: timed out after %gs" % DECOMPILE_LIMIT
        except Exception as exc:  # DecompilationError or a crash: both are failures
            rec["error"] = "decompile: " + short_error(exc)
        finally:
            self.seconds_decompile += time.perf_counter() - t0
        if rec["decompiled"]:
            source, bindings = dec.source, dict(dec.bindings)
            if bindings:   # placeholder names restart at 0 for each function: make them unique
                self._counter += 1
                renamed = {}
                for name, value in bindings.items():
                    new = "%s_f%d" % (name, self._counter)
                    source = re.sub(r"\b%s\b" % re.escape(name), new, source)
                    renamed[new] = value
                bindings = renamed
            t0 = time.perf_counter()
            try:
                new = bench_functions.with_time_limit(DECOMPILE_LIMIT, self.unveil.recompile, source, code)
                if len(new.co_freevars) != len(code.co_freevars):
                    raise ValueError("free variables %s != %s" % (new.co_freevars, code.co_freevars))
                rec["recompiled"] = True
                rec["identical"] = bool(self.same_bytecode(code, new))
                # the swapped-in code runs on the original's lines, as tracebacks show them
                new = self.unveil.recompile(source, code, lines=dec.lines)
                result = (new, bindings)
            except bench_functions.TimeLimit:
                rec["error"] = "recompile: timed out"
            except Exception as exc:
                rec["error"] = "recompile: " + short_error(exc)
            finally:
                self.seconds_recompile += time.perf_counter() - t0
        self.cache[key] = result
        return result

    def swap_module(self, module):
        self._swap_module(module)
        if self.progress_file:     # so that a run that times out or crashes later still reports them
            with open(self.progress_file, "w") as f:
                json.dump(self.summary(), f)

    def _swap_module(self, module):
        fns = self.functions_of(module)
        plan = [(fn, self.new_code(fn)) for fn in fns]   # decompile everything before swapping anything
        if os.environ.get("UNVEIL_JUDGE_SABOTAGE"):
            plan = _sabotage(plan)
        for fn, (new, bindings) in plan:
            if new is None:
                continue
            try:
                fn.__globals__.update(bindings)
                fn.__code__ = new
                self.functions_swapped += 1
            except Exception as exc:
                rec = self.stats[self.key(fn.__code__)]
                rec["recompiled"] = False
                rec["identical"] = False
                rec["error"] = "swap: " + short_error(exc)
        self.swapped_modules.append(module.__name__)

    def summary(self):
        recs = list(self.stats.values())
        return {
            "functions": len(recs),
            "decompiled": sum(r["decompiled"] for r in recs),
            "recompiled": sum(r["recompiled"] for r in recs),
            "identical": sum(r["identical"] for r in recs),
            "function_objects_swapped": self.functions_swapped,
            "seconds_decompile": round(self.seconds_decompile, 3),
            "seconds_recompile": round(self.seconds_recompile, 3),
            "swapped_modules": sorted(set(self.swapped_modules)),
            "failed_functions": sorted(("%s (line %d): %s" % (r["name"], r["line"], r["error"]))
                                       for r in recs if "error" in r),
            "lowered_functions": sorted("%s (line %d): %s" % (r["name"], r["line"], ", ".join(r["lowered"]))
                                        for r in recs if r.get("lowered")),
            "functions_by_name": {"%s@%d" % (r["name"], r["line"]): [r["decompiled"], r["recompiled"], r["identical"]]
                                  for r in recs},
        }


def _sabotage(plan):
    """Self-test of the judge (tests/test_stdlib_slice.py): give each function the
    recompiled code of another function with the same signature, so tests must fail."""
    groups = {}
    for i, (fn, (new, _)) in enumerate(plan):
        if new is not None and not new.co_freevars:
            sig = (new.co_argcount, new.co_kwonlyargcount, new.co_flags & 0xC)
            groups.setdefault(sig, []).append(i)
    plan = list(plan)
    for members in groups.values():
        if len(members) > 1:
            codes = [plan[i][1] for i in members]
            for i, c in zip(members, codes[1:] + codes[:1]):
                plan[i] = (plan[i][0], c)
    return plan


class HookFinder:
    """A meta path finder that lets the other finders find a module, then wraps
    the spec's loader so that ``after(module)`` runs right after the module body
    executed (and ``before(module)`` right before)."""

    def __init__(self, want, after=None, before=None):
        self.want = want
        self.after = after
        self.before = before
        self._busy = set()

    def find_spec(self, name, path=None, target=None):
        if not self.want(name) or name in self._busy:
            return None
        self._busy.add(name)
        try:
            spec = None
            for finder in sys.meta_path:
                if finder is self or not hasattr(finder, "find_spec"):
                    continue
                spec = finder.find_spec(name, path, target)
                if spec is not None:
                    break
        finally:
            self._busy.discard(name)
        loader = spec.loader if spec is not None else None
        # Patch the loader instance (never a loader class such as FrozenImporter),
        # so that the module keeps its usual loader type.
        if loader is None or isinstance(loader, type) or not hasattr(loader, "exec_module"):
            return spec
        original = loader.exec_module
        hook = self

        def exec_module(module):
            if hook.before is not None:
                hook.before(module)
            original(module)
            if hook.after is not None:
                hook.after(module)
        try:
            loader.exec_module = exec_module
        except Exception:
            pass
        return spec


# --------------------------------------------------------------------------- running tests

class TestTimeout(BaseException):
    """Raised (by SIGALRM) in a test that runs past its time limit."""


_HARNESS = None


def _is_harness(filename):
    global _HARNESS
    if _HARNESS is None:
        import unittest
        _HARNESS = (os.path.dirname(unittest.__file__), SELF,
                    traceback.__file__, os.path.join(os.path.dirname(traceback.__file__), "linecache.py"))
    return filename.startswith(_HARNESS[0]) or filename in _HARNESS[1:]


_RECORDING = {"startTest", "stopTest", "_set", "_text", "addSuccess", "addFailure", "addError", "addSkip",
              "addExpectedFailure", "addUnexpectedSuccess"}


def _in_recorder(frame):
    """Whether ``frame`` runs for the recorder (formatting a traceback reads source files
    through linecache and tokenize): a time limit must not fire there, or the run dies."""
    for _ in range(60):
        if frame is None:
            return False
        if frame.f_code.co_name in _RECORDING and os.path.abspath(frame.f_code.co_filename) == SELF:
            return True
        frame = frame.f_back
    return False


class Recorder:
    """Collects the outcome of every test by id: pass, fail, skip, xfail."""

    def __init__(self, limits=None, default_limit=60.0):
        self.outcomes = {}
        self.errors = {}
        self.durations = {}
        self.limits = limits or {}
        self.default_limit = default_limit
        self.timeouts = []

    def result_class(self):
        import unittest
        recorder = self

        class Result(unittest.TextTestResult):
            def startTest(self, test):
                super().startTest(test)
                self._t0 = time.perf_counter()
                limit = recorder.limits.get(test.id(), recorder.default_limit)
                if len(recorder.timeouts) >= 5:   # code that hangs everywhere: do not wait as long
                    limit = min(limit, 1.0 + 0.3 * limit)
                if hasattr(signal, "setitimer"):
                    def expire(signum, frame, test_id=test.id(), limit=limit):
                        # Fires every 0.2 s once past the limit (code under test, e.g. doctest,
                        # may catch the exception and carry on), but raises only from code
                        # under test, not from unittest's own bookkeeping.
                        if frame is not None and (_is_harness(frame.f_code.co_filename) or _in_recorder(frame)):
                            return
                        if test_id not in recorder.timeouts:
                            recorder.timeouts.append(test_id)
                        raise TestTimeout("test ran longer than %.1fs (the per-test limit)" % limit)
                    signal.signal(signal.SIGALRM, expire)
                    signal.setitimer(signal.ITIMER_REAL, limit, 0.2)

            def stopTest(self, test):
                if hasattr(signal, "setitimer"):
                    signal.setitimer(signal.ITIMER_REAL, 0)
                recorder.durations[test.id()] = round(time.perf_counter() - getattr(self, "_t0", 0), 4)
                super().stopTest(test)

            def _set(self, test, outcome, err=None):
                tid = test.id()
                if recorder.outcomes.get(tid) == "fail" and outcome == "pass":
                    return
                recorder.outcomes[tid] = outcome
                if err is not None and outcome == "fail" and tid not in recorder.errors:
                    recorder.errors[tid] = self._text(err)

            def _text(self, err):
                try:
                    return "".join(traceback.format_exception(*err))[-3000:]
                except Exception:
                    return repr(err[1])[:3000]

            def addSuccess(self, test):
                super().addSuccess(test)
                self._set(test, "pass")

            def addFailure(self, test, err):
                super().addFailure(test, err)
                self._set(test, "fail", err)

            def addError(self, test, err):
                super().addError(test, err)
                self._set(test, "fail", err)

            def addSkip(self, test, reason):
                super().addSkip(test, reason)
                self._set(test, "skip")

            def addExpectedFailure(self, test, err):
                super().addExpectedFailure(test, err)
                self._set(test, "xfail")

            def addUnexpectedSuccess(self, test):
                super().addUnexpectedSuccess(test)
                self._set(test, "fail")

            def addSubTest(self, test, subtest, err):
                super().addSubTest(test, subtest, err)
                if err is not None:
                    kind = "skip" if isinstance(err[1], unittest.SkipTest) else "fail"
                    if kind == "fail":
                        recorder.outcomes[test.id()] = "fail"
                        recorder.errors.setdefault(test.id(), self._text(err))
        return Result


def run_tests(test_module, recorder):
    import io
    import unittest
    from test import support
    support.use_resources = []
    result_class = recorder.result_class()
    stream = io.StringIO()
    runner = unittest.TextTestRunner(stream=stream, verbosity=0, resultclass=result_class)
    try:
        mod = importlib.import_module(test_module)
    except BaseException:
        recorder.outcomes["<import %s>" % test_module] = "fail"
        recorder.errors["<import %s>" % test_module] = traceback.format_exc()[-3000:]
        return
    if hasattr(mod, "test_main") and not hasattr(mod, "load_tests") and hasattr(support, "_run_suite"):
        # Old style (3.8-3.10 test_decimal, 3.8 test_optparse): test_main builds the
        # suite and hands it to support.run_unittest; record it with our result.
        def _run_suite(suite):
            suite.run(result_class(stream, True, 0))
        support._run_suite = _run_suite
        try:
            mod.test_main()
        except BaseException:
            recorder.outcomes["<test_main %s>" % test_module] = "fail"
            recorder.errors["<test_main %s>" % test_module] = traceback.format_exc()[-3000:]
        return
    suite = unittest.defaultTestLoader.loadTestsFromModule(mod)
    runner.run(suite)


def worker(args):
    """Run one test module in this process in one mode; write JSON to args.out."""
    out = {"module": args.module, "mode": args.mode, "python": sys.version.split()[0]}
    targets = MODULES[args.module][1]
    test_module = MODULES[args.module][0]
    t0 = time.time()
    if args.mode == "module":
        # Bindings of the decompiled module code (if any) go into the module namespace
        # right before its body runs.
        with open(args.bindings, "rb") as f:
            all_bindings = pickle.load(f)
        sys.path.insert(0, args.tree)
        early = [n for n in all_bindings if n in sys.modules]
        sys.meta_path.insert(0, HookFinder(lambda n: n in all_bindings,
                                           before=lambda m: vars(m).update(all_bindings.get(m.__name__, {}))))
        out["imported_before_hook"] = early
        out["module_files"] = {n: getattr(sys.modules.get(n), "__file__", None) for n in sorted(all_bindings)}
    limits = {}
    if args.limits:
        with open(args.limits) as f:
            limits = json.load(f)
    recorder = Recorder(limits, args.test_limit)
    swapper = None
    if args.mode == "function":
        sys.path.insert(0, SRC)
        import unittest  # noqa: F401  (loads argparse, difflib, ... before they are swapped)
        swapper = Swapper()
        swapper.progress_file = args.out + ".swap"
        want = lambda n: wanted(n, targets)
        sys.meta_path.insert(0, HookFinder(want, after=swapper.swap_module))
        for name, mod in list(sys.modules.items()):
            if want(name) and mod is not None:
                swapper.swap_module(mod)
    run_tests(test_module, recorder)
    if args.mode == "module":
        out["module_files"] = {n: getattr(sys.modules.get(n), "__file__", None) for n in sorted(all_bindings)}
    out["seconds"] = round(time.time() - t0, 2)
    out["tests"] = recorder.outcomes
    out["errors"] = recorder.errors
    out["durations"] = recorder.durations
    out["timeouts"] = recorder.timeouts
    if swapper is not None:
        out.update(swapper.summary())
    with open(args.out, "w") as f:
        json.dump(out, f)


# --------------------------------------------------------------------------- module mode

def module_files(targets):
    """[(module name, source path, package dir or None)] for the targets."""
    files = []
    for t in targets:
        name = t[:-2] if t.endswith(".*") else t
        spec = importlib.util.find_spec(name)
        if spec is None or not (spec.origin or "").endswith(".py"):
            raise LookupError("no Python source for %s" % name)
        if t.endswith(".*") and spec.submodule_search_locations:
            pkgdir = os.path.dirname(spec.origin)
            for dirpath, dirnames, filenames in os.walk(pkgdir):
                dirnames[:] = [d for d in dirnames if d != "__pycache__"]
                for fn in sorted(filenames):
                    if fn.endswith(".py"):
                        rel = os.path.relpath(os.path.join(dirpath, fn), os.path.dirname(pkgdir))
                        mod = rel[:-3].replace(os.sep, ".")
                        if mod.endswith(".__init__"):
                            mod = mod[:-9]
                        files.append((mod, os.path.join(dirpath, fn), rel))
        else:
            rel = name.replace(".", os.sep) + (os.sep + "__init__.py" if spec.submodule_search_locations else ".py")
            files.append((name, spec.origin, rel))
    return files


def build_module_tree(name, tree):
    """Write decompiled copies of the module's files under ``tree``; return stats."""
    sys.path.insert(0, SRC)
    import unveil
    targets = MODULES[name][1]
    stats = {"files": 0, "decompiled": 0, "recompiled": 0, "identical": 0, "seconds_decompile": 0.0,
             "failed_files": [], "bindings": {}}
    same_bytecode = load_roundtrip().same_bytecode
    copied = set()
    for mod, path, rel in module_files(targets):
        parts = rel.split(os.sep)
        if len(parts) > 1 and parts[0] not in copied:   # a package: copy it whole first (data files too)
            src_pkg = os.path.join(os.path.dirname(path), *([".."] * (len(parts) - 2)))
            shutil.copytree(os.path.normpath(src_pkg), os.path.join(tree, parts[0]),
                            ignore=shutil.ignore_patterns("__pycache__"), dirs_exist_ok=True)
            copied.add(parts[0])
        dest = os.path.join(tree, rel)
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        stats["files"] += 1
        with open(path, "rb") as f:
            code = compile(f.read(), path, "exec", dont_inherit=True)
        t0 = time.perf_counter()
        try:
            dec = bench_functions.with_time_limit(DECOMPILE_LIMIT * 5, unveil.decompile_code, code)
        except BaseException as exc:
            stats["seconds_decompile"] += time.perf_counter() - t0
            stats["failed_files"].append("%s: decompile: %s" % (mod, short_error(exc) if not isinstance(exc, bench_functions.TimeLimit) else "timed out"))
            shutil.copyfile(path, dest)     # keep the original so the package is complete
            continue
        stats["seconds_decompile"] += time.perf_counter() - t0
        stats["decompiled"] += 1
        try:
            new = compile(dec.source, dest, "exec", dont_inherit=True)
            stats["recompiled"] += 1
            if same_bytecode(code, new):
                stats["identical"] += 1
        except BaseException as exc:
            stats["failed_files"].append("%s: recompile: %s" % (mod, short_error(exc)))
        try:
            pickle.dumps(dec.bindings)
            stats["bindings"][mod] = dict(dec.bindings)
        except Exception as exc:
            stats["failed_files"].append("%s: bindings cannot be pickled: %s" % (mod, short_error(exc)))
        with open(dest, "w", encoding="utf-8") as f:
            f.write(dec.source)
    stats["seconds_decompile"] = round(stats["seconds_decompile"], 3)
    return stats


# --------------------------------------------------------------------------- driver

def run_worker(name, mode, timeout, extra_env=None, extra_args=()):
    """Run ``name``'s tests in a fresh subprocess; the worker's JSON, or a failure record."""
    tmp = tempfile.mkdtemp(prefix="unveil-stdlib-")
    out = os.path.join(tmp, "result.json")
    log = os.path.join(tmp, "log.txt")
    cwd = os.path.join(tmp, "cwd")
    os.mkdir(cwd)
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    env.pop("PYTHONPATH", None)
    env.update(extra_env or {})
    cmd = [sys.executable, SELF, "--worker", "--module", name, "--mode", mode,
           "--out", out] + list(extra_args)
    t0 = time.time()
    try:
        with open(log, "wb") as logf:
            proc = subprocess.run(cmd, cwd=cwd, env=env, stdout=logf, stderr=subprocess.STDOUT,
                                  stdin=subprocess.DEVNULL, timeout=timeout)
        status = "exit %d" % proc.returncode
    except subprocess.TimeoutExpired:
        status = "timeout after %ds" % timeout
    try:
        with open(out) as f:
            result = json.load(f)
        result["status"] = "ok"
    except (OSError, ValueError):
        with open(log, "rb") as f:
            tail = f.read()[-2000:].decode("utf-8", "replace")
        result = {"module": name, "mode": mode, "status": status, "tests": {}, "errors": {}, "log_tail": tail}
        try:
            with open(out + ".swap") as f:
                result.update(json.load(f))
        except (OSError, ValueError):
            pass
    result["wall_seconds"] = round(time.time() - t0, 2)
    shutil.rmtree(tmp, ignore_errors=True)
    return result


def compare(base, after):
    """Regressed tests: passed (or xfailed) in ``base`` and not so in ``after``."""
    ok = ("pass", "xfail")
    return sorted(t for t, o in base["tests"].items() if o in ok and after["tests"].get(t) != o)


def suspects(after, names):
    """Names of swapped functions seen in the tracebacks of the regressed tests."""
    found = {}
    for test in names:
        text = after["errors"].get(test, "")
        for m in re.finditer(r'File "([^"]+)", line \d+, in (\S+)', text):
            path, fn = m.groups()
            if "/test/" in path or "unittest" in path:
                continue
            found[os.path.basename(path) + ":" + fn] = found.get(os.path.basename(path) + ":" + fn, 0) + 1
    return sorted(found, key=lambda k: -found[k])[:8]


def run_module(name, timeout=300, module_mode=False):
    """Every mode of one module; a result record."""
    rec = {"module": name, "test_module": MODULES[name][0]}
    base = run_worker(name, "baseline", timeout)
    # A test of a swapped run may take 10 times as long as in the baseline, plus 2 s
    # (after five such timeouts, a third of that), and the whole run 4 times as long,
    # plus a minute: decompiled code that loops forever costs seconds, not the run's limit.
    fd, limits = tempfile.mkstemp(suffix=".json")
    with os.fdopen(fd, "w") as f:
        json.dump({t: 2.0 + 10 * d for t, d in base.get("durations", {}).items()}, f)
    if base["status"] == "ok":
        timeout = min(timeout, int(60 + 4 * base["wall_seconds"]))
    try:
        _run_modes(rec, base, name, timeout, module_mode, ["--limits", limits, "--test-limit", "30"])
    finally:
        os.unlink(limits)
    return rec


def _run_modes(rec, base, name, timeout, module_mode, limit_args):
    rec["baseline"] = {"status": base["status"], "seconds": base["wall_seconds"],
                       "counts": _counts(base)}
    if base["status"] != "ok":
        rec["baseline"]["log_tail"] = base.get("log_tail")
    modes = ["function"] + (["module"] if module_mode else [])
    for mode in modes:
        if mode == "module":
            tree = tempfile.mkdtemp(prefix="unveil-modtree-")
            try:
                try:
                    stats = build_module_tree(name, tree)
                except Exception as exc:
                    rec["module_mode"] = {"status": "build failed: %s" % short_error(exc), "passes": False}
                    continue
                bpath = os.path.join(tree, "_unveil_bindings.pickle")
                with open(bpath, "wb") as f:
                    pickle.dump({m: b for m, b in stats.pop("bindings").items()}, f)
                # Modules that are not decompiled still need an (empty) entry for the hook.
                after = run_worker(name, "module", timeout, extra_env={"PYTHONPATH": tree},
                                   extra_args=["--tree", tree, "--bindings", bpath] + limit_args)
            finally:
                shutil.rmtree(tree, ignore_errors=True)
        else:
            after = run_worker(name, mode, timeout, extra_args=limit_args)
            stats = {k: after.get(k) for k in ("functions", "decompiled", "recompiled", "identical",
                                               "seconds_decompile", "seconds_recompile", "failed_functions",
                                               "lowered_functions", "swapped_modules", "function_objects_swapped")}
        regressed = compare(base, after)
        r = dict(stats, status=after["status"], seconds=after["wall_seconds"], counts=_counts(after),
                 regressed=regressed, suspects=suspects(after, regressed),
                 first_errors={t: _last_line(after["errors"].get(t, "")) for t in regressed[:10]})
        # The test module did not import, or test_main crashed: say why.
        r["harness_errors"] = {t: _last_line(after["errors"].get(t, "")) for t in after["tests"] if t.startswith("<")}
        if after["status"] != "ok":
            r["log_tail"] = after.get("log_tail")
        r["baseline_ok"] = base["status"] == "ok" and r["counts"] is not None and rec["baseline"]["counts"]["pass"] > 0
        r["passes"] = bool(r["baseline_ok"] and after["status"] == "ok" and not regressed)
        if mode == "module":
            r["passes"] = r["passes"] and not stats.get("failed_files")
        r["timeouts"] = after.get("timeouts", [])
        rec[mode if mode == "function" else "module_mode"] = r


def _counts(res):
    c = {"pass": 0, "fail": 0, "skip": 0, "xfail": 0}
    for o in res.get("tests", {}).values():
        c[o] = c.get(o, 0) + 1
    return c


def _last_line(text):
    lines = [l for l in text.strip().splitlines() if l.strip()]
    return lines[-1][:200] if lines else "(no traceback: not run, or skipped)"


def selected_modules(names):
    names = names or list(MODULES)
    unknown = [n for n in names if n not in MODULES]
    if unknown:
        raise SystemExit("unknown modules: %s (known: %s)" % (", ".join(unknown), ", ".join(MODULES)))
    return [n for n in names if sys.version_info[:2] >= MODULES[n][2]]


def run_all(names, timeout, module_mode, jobs, progress=True):
    t0 = time.time()
    results = []
    if jobs > 1:
        from concurrent.futures import ThreadPoolExecutor
        with ThreadPoolExecutor(jobs) as pool:
            futures = [(n, pool.submit(run_module, n, timeout, module_mode)) for n in names]
            for n, fut in futures:
                results.append(fut.result())
                if progress:
                    _progress(results[-1])
    else:
        for n in names:
            results.append(run_module(n, timeout, module_mode))
            if progress:
                _progress(results[-1])
    return {"python": sys.version.split()[0], "modules": results, "module_mode": module_mode,
            "wall_seconds": round(time.time() - t0, 1), "unveil": _revision()}


def _revision():
    """The git commit of the working tree and whether src/unveil differs from it (read-only git),
    as it was when the driver took its snapshot of src/unveil."""
    if os.environ.get("UNVEIL_JUDGE_REV"):
        return os.environ["UNVEIL_JUDGE_REV"]
    try:
        head = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL, universal_newlines=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", ROOT, "status", "--porcelain", "--", "src/unveil"],
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, universal_newlines=True).stdout.strip()
        return head + ("+local changes" if dirty else "")
    except OSError:
        return "unknown"


def _progress(rec):
    f = rec["function"]
    line = "  %-14s baseline %s/%s  function: %s (%d/%d/%d/%d)" % (
        rec["module"], rec["baseline"]["counts"]["pass"], sum(rec["baseline"]["counts"].values()),
        "pass" if f["passes"] else "FAIL", f.get("functions") or 0, f.get("decompiled") or 0,
        f.get("recompiled") or 0, f.get("identical") or 0)
    if "module_mode" in rec:
        line += "  module: %s" % ("pass" if rec["module_mode"].get("passes") else "FAIL")
    print(line, file=sys.stderr, flush=True)


def table(report):
    mods = report["modules"]
    fm = [m["function"] for m in mods]
    tot = lambda k: sum(r.get(k) or 0 for r in fm)
    lines = ["Python %s, unveil %s: %d modules, %d test runs in %.0fs" % (
             report["python"], report.get("unveil", "?"), len(mods),
             len(mods) * (3 if report["module_mode"] else 2), report["wall_seconds"]),
             "",
             "| mode | functions | decompiled | recompiled | identical bytecode | modules passing | decompile s |",
             "|---|---:|---:|---:|---:|---:|---:|",
             "| function | %d | %d | %d | %d | %d/%d | %.2f |" % (
                 tot("functions"), tot("decompiled"), tot("recompiled"), tot("identical"),
                 sum(r["passes"] for r in fm), len(mods), sum(r.get("seconds_decompile") or 0 for r in fm))]
    if report["module_mode"]:
        mm = [m.get("module_mode", {}) for m in mods]
        t = lambda k: sum(r.get(k) or 0 for r in mm)
        lines.append("| module (files) | %d | %d | %d | %d | %d/%d | %.2f |" % (
            t("files"), t("decompiled"), t("recompiled"), t("identical"),
            sum(bool(r.get("passes")) for r in mm), len(mods), sum(r.get("seconds_decompile") or 0 for r in mm)))
    lines += ["", "| module | tests (pass/total) | functions | decomp. | recomp. | identical | function mode | module mode |",
              "|---|---:|---:|---:|---:|---:|---|---|"]
    for m in mods:
        f = m["function"]
        c = m["baseline"]["counts"]
        mm = m.get("module_mode")
        lines.append("| %s | %d/%d | %d | %d | %d | %d | %s | %s |" % (
            m["module"], c["pass"] + c["xfail"], sum(c.values()), f.get("functions") or 0, f.get("decompiled") or 0,
            f.get("recompiled") or 0, f.get("identical") or 0, _verdict(m, f),
            _verdict(m, mm) if mm else "-"))
    return "\n".join(lines)


def _verdict(m, r):
    if not r.get("baseline_ok", False):
        return "no baseline (%s)" % m["baseline"]["status"]
    if r.get("passes"):
        return "pass"
    if r.get("status") != "ok" and r.get("status") is not None:
        return "FAIL (%s)" % r["status"]
    n = len(r.get("regressed") or [])
    extra = ", %d files not decompiled" % len(r["failed_files"]) if r.get("failed_files") else ""
    return "FAIL (%d tests%s)" % (n, extra)


def failures(report, max_items=6):
    out = []
    for m in report["modules"]:
        for mode in ("function", "module"):
            r = m.get(mode if mode == "function" else "module_mode")
            if not r or r.get("passes"):
                continue
            out.append("%s [%s mode]: %s" % (m["module"], mode, _verdict(m, r)))
            for t in (r.get("regressed") or [])[:max_items]:
                out.append("    test %s: %s" % (t, r["first_errors"].get(t, "")))
            if len(r.get("regressed") or []) > max_items:
                out.append("    ... %d more regressed tests" % (len(r["regressed"]) - max_items))
            for t, e in (r.get("harness_errors") or {}).items():
                out.append("    %s: %s" % (t, e))
            if r.get("suspects"):
                out.append("    suspects (in tracebacks): %s" % ", ".join(r["suspects"]))
            ff = r.get("failed_functions") or r.get("failed_files") or []
            what = "function not swapped" if mode == "function" else "file not decompiled"
            for f in ff[:max_items]:
                out.append("    %s: %s" % (what, f))
            if len(ff) > max_items:
                out.append("    ... %d more" % (len(ff) - max_items))
            if r.get("log_tail"):
                out.append("    log: " + r["log_tail"].strip().splitlines()[-1][:200] if r["log_tail"].strip() else "")
    return "\n".join(out)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--modules", nargs="+", help="modules to run (default: all of MODULES)")
    parser.add_argument("--module-mode", action="store_true", help="also run the decompiled module copies")
    parser.add_argument("--versions", nargs="*", metavar="X.Y",
                        help="run on these pyenv interpreters (default with no value: 3.8-3.13)")
    parser.add_argument("--jobs", type=int, default=1, help="modules run in parallel (default 1)")
    parser.add_argument("--timeout", type=int, default=300, help="seconds per test run (default 300)")
    parser.add_argument("--json", help="write all results to this JSON file")
    parser.add_argument("--quiet", action="store_true", help="no per-module progress lines")
    # internal: one test run
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--module", help=argparse.SUPPRESS)
    parser.add_argument("--mode", help=argparse.SUPPRESS)
    parser.add_argument("--out", help=argparse.SUPPRESS)
    parser.add_argument("--tree", help=argparse.SUPPRESS)
    parser.add_argument("--bindings", help=argparse.SUPPRESS)
    parser.add_argument("--limits", help=argparse.SUPPRESS)
    parser.add_argument("--test-limit", type=float, default=120.0, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        return worker(args)
    global SRC
    if not os.environ.get("UNVEIL_JUDGE_SRC"):
        snapshot = tempfile.mkdtemp(prefix="unveil-src-")
        shutil.copytree(os.path.join(SRC, "unveil"), os.path.join(snapshot, "unveil"),
                        ignore=shutil.ignore_patterns("__pycache__"))
        os.environ["UNVEIL_JUDGE_SRC"] = SRC = snapshot
        os.environ["UNVEIL_JUDGE_REV"] = _revision()
        try:
            return _main(args)
        finally:
            shutil.rmtree(snapshot, ignore_errors=True)
    return _main(args)


def _main(args):

    if args.versions is not None:
        cmd = ["--jobs", str(args.jobs), "--timeout", str(args.timeout)]
        cmd += ["--module-mode"] if args.module_mode else []
        cmd += ["--modules"] + args.modules if args.modules else []
        cmd += ["--quiet"] if args.quiet else []
        reports = bench_functions.run_each_version(__file__, args.versions, cmd, quiet=True)
        for rep in reports:
            print(table(rep))
            print()
            print(failures(rep))
            print()
        if args.json:
            with open(args.json, "w") as f:
                json.dump(reports, f, indent=1)
        return

    names = selected_modules(args.modules)
    report = run_all(names, args.timeout, args.module_mode, args.jobs, progress=not args.quiet)
    print(table(report))
    print()
    print(failures(report))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(report, f, indent=1)


if __name__ == "__main__":
    main()
