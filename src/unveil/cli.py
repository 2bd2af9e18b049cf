"""Command-line interface: ``python -m unveil decompile TARGET``, ``python -m unveil demo``,
``python -m unveil why-recompile DUMP_DIR FUNCTION CALL`` and ``python -m unveil run SCRIPT ARGS``
(or ``run -m MODULE ARGS``).

TARGET is one of:

* ``module:qualname`` -- one function, method or class (dotted qualname,
  ``outer.<locals>.inner`` reaches nested functions);
* ``module`` -- every function and method defined in the module, each under
  its name there (decorated ones unwrapped to the function they wrap), and
  every def of its code whose name is bound to something else at import
  (a decorator without functools.wraps, a C version), from its code, with a
  comment saying why; a name not printed gets a comment saying why;
* ``path/to/file.py`` -- compiled (not executed); its module code and every
  function in it, nested ones included (``file.py:qualname`` for one);
* ``path/to/file.pyc`` -- its module code, written by this interpreter.

Errors print one line ``unveil: error: ...`` to stderr and exit with status 2.
"""
import argparse
import functools
import os
import sys
import types

PROG = "unveil"
EXIT_ERROR = 2

# Code objects compiled inline into their enclosing function's source.
_INLINE_CODE = {"<lambda>", "<listcomp>", "<setcomp>", "<dictcomp>", "<genexpr>"}
_CO_OPTIMIZED = 0x1


class CliError(Exception):
    """A user-facing error, reported as one line with exit status 2."""


def main(argv=None):
    """Run the command line ``argv`` (default ``sys.argv[1:]``); return the exit status."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help, or a usage error argparse has reported
        return exc.code if isinstance(exc.code, int) else EXIT_ERROR
    try:
        return args.handler(args)
    except CliError as exc:
        _error(str(exc))
        return EXIT_ERROR
    except KeyboardInterrupt:
        _error("interrupted")
        return 130
    except BrokenPipeError:          # the reader went away (| head): stop quietly, as cat does
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1


def build_parser():
    """The argparse parser, one subparser per command."""
    parser = argparse.ArgumentParser(
        prog=PROG, description="Decompile Python bytecode back to Python source.")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    commands.required = True

    decompile = commands.add_parser(
        "decompile", help="print the decompiled source of a function, module or file",
        description=__doc__.split("\n\n", 1)[1].rsplit("\n\n", 1)[0],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    decompile.add_argument("target", metavar="TARGET",
                           help="module:qualname, module, file.py[:qualname] or file.pyc")
    decompile.add_argument("--debug", action="store_true",
                           help="let unexpected decompiler exceptions raise with a traceback")
    decompile.set_defaults(handler=_cmd_decompile)

    demo = commands.add_parser(
        "demo", help="decompile built-in example functions; with torch installed, also dump a "
                     "built-in torch.compile example with prepare_debug and list the files")
    demo.add_argument("--dump-dir", default="unveil-demo-dump",
                      help="where the torch.compile example is dumped (default: %(default)s)")
    demo.add_argument("--backend", default="eager", help="torch.compile backend (default: %(default)s)")
    demo.add_argument("--debug", action="store_true", help=argparse.SUPPRESS)
    demo.set_defaults(handler=_cmd_demo)

    why = commands.add_parser(
        "why-recompile", help="run a dumped function's guards on given inputs: which entry runs, or why it recompiles",
        description="Run each cache entry's dumped guards (DUMP_DIR/*.guards.py) of FUNCTION on the inputs "
                    "CALL gives, in the order Dynamo tries them: the first guard that fails in each entry, "
                    "then the entry that would run, or that Dynamo would compile anew.  The function's "
                    "module is loaded from its file for its globals.")
    why.add_argument("dump_dir", metavar="DUMP_DIR", help="a directory prepare_debug wrote")
    why.add_argument("function", metavar="FUNCTION", help="the function's key in index.json, or its name")
    why.add_argument("call", metavar="CALL",
                     help="the call's arguments as Python, torch imported: \"torch.ones(3, 2), n=1\"")
    why.set_defaults(handler=_cmd_why_recompile)

    diff = commands.add_parser(
        "diff", help="what changed between two dumps: graphs, guards, transformed code, kernels, breaks, recompiles",
        description="Line up two prepare_debug dumps by function and compile and print what differs, as unified "
                    "diffs, leaving out what differs from run to run (graph ids, uuids, object ids, addresses, "
                    "compile ids).  Exit status 0: the same, 1: they differ.")
    diff.add_argument("dump_a", metavar="DIR_A")
    diff.add_argument("dump_b", metavar="DIR_B")
    diff.add_argument("--html", metavar="DIR", help="also write the difference as DIR/diff.html (e.g. DIR_B/report, "
                                                   "beside DIR_B's report)")
    diff.set_defaults(handler=_cmd_diff)

    report = commands.add_parser(
        "report", help="build the HTML report of a dump directory (needs the [report] extra)",
        description="Write DIR/report/: an index of every compiled function and a page per function and per "
                    "dumped file, highlighted and linked, opened from disk with nothing loaded from elsewhere.  "
                    "Prints the index page's path.")
    report.add_argument("dump_dir", metavar="DIR")
    report.set_defaults(handler=_cmd_report)

    run = commands.add_parser(
        "run", help="run a program unchanged with prepare_debug (or debug) active for the whole run",
        usage="%s run [-h] [--dump-dir DIR] [--debug] [--no-report | --open] (SCRIPT | -m MODULE) [ARGS ...]" % PROG,
        description="Run SCRIPT (or -m MODULE) with ARGS exactly as python would (sys.argv, __main__, "
                    "sys.path[0], streams, exit status, tracebacks), with unveil.prepare_debug active for the "
                    "whole run; at the end one line on stderr says where the dump is.")
    run.add_argument("--dump-dir", default="unveil-dump", metavar="DIR",
                     help="where the dump goes (default: %(default)s)")
    run.add_argument("--debug", action="store_true",
                     help="use unveil.debug(): compiled code runs from the dumped files (breakpoints stop there)")
    run.add_argument("--no-report", action="store_true", help="do not build the HTML report at the end")
    run.add_argument("--open", action="store_true", help="open the report in the web browser at the end")
    run.add_argument("-m", dest="module", nargs=argparse.REMAINDER, metavar="MODULE ARGS",
                     help="run a module as python -m does; everything after it goes to the module")
    run.add_argument("program", nargs=argparse.REMAINDER, metavar="SCRIPT ARGS", help="the script and its arguments")
    run.set_defaults(handler=_cmd_run)
    return parser


def _error(message):
    message = " ".join(str(message).splitlines()) or "unknown error"
    sys.stderr.write("%s: error: %s\n" % (PROG, message))


# --- commands -------------------------------------------------------------

def _cmd_decompile(args):
    return _print_decompiled(resolve_target(args.target), args.debug)


def _cmd_demo(args):
    from unveil import examples

    items = [("unveil.examples:" + fn.__qualname__, fn) for fn in examples.EXAMPLES]
    status = _print_decompiled(items, args.debug, always_label=True)
    try:
        import torch  # noqa: F401
    except ImportError:
        print("# torch is not installed: pip install 'unveil[torch]' for the torch.compile demo")
        return status
    from unveil.dynamo import adapter, demo
    _check_dump_dir(args.dump_dir)
    if args.backend not in adapter.backend_names():
        raise CliError("unknown backend %r; torch.compile has %s" % (args.backend, ", ".join(adapter.backend_names())))
    session = demo.run(args.dump_dir, backend=args.backend)
    print("# torch.compile example (unveil.dynamo.demo.TinyNet) dumped to %s:" % session.dump.path)
    for art in session.dump.artifacts:
        print("#   %-18s %-8s %s" % (art["kind"], art.get("compile_id", ""), art["file"]))
    print("#   %-18s %-8s %s" % ("index", "", session.index_file))
    from unveil.report import ReportError, build_report
    try:
        print("# report (open it in a browser): %s" % build_report(os.path.abspath(args.dump_dir)))
    except ReportError as exc:
        print("# no report: %s" % exc)
    if session.failures:
        _error("%d part(s) could not be dumped; see %s" % (len(session.failures), session.index_file))
        return EXIT_ERROR
    return status


def _cmd_why_recompile(args):
    import ast
    if not os.path.isfile(os.path.join(args.dump_dir, "index.json")):
        raise CliError("%s has no index.json: not a directory prepare_debug wrote" % args.dump_dir)
    try:
        import torch
    except ImportError:
        raise CliError("why-recompile needs torch: pip install 'unveil[torch]'") from None
    from unveil.dynamo.why import dumped_function, function_globals, why_recompile_in_dump
    try:
        _, entry = dumped_function(args.dump_dir, args.function)
    except (LookupError, ValueError) as exc:
        raise CliError(str(exc)) from None
    try:
        globals_ = function_globals(entry)
    except (Exception, SystemExit) as exc:  # the user's module's top-level code, whatever it does
        raise CliError("loading %s's module (%s) ran its top-level code, which raised %s: %s"
                       % (args.function, entry["filename"], type(exc).__name__, exc)) from None
    try:
        call = ast.parse("f(%s)" % args.call, mode="eval").body
        scope = dict(globals_)                 # the module's names (a class to make self of) and torch
        scope["torch"] = torch
        values = [eval(compile(ast.Expression(a), "<call>", "eval"), scope) for a in call.args]
        keywords = {k.arg: eval(compile(ast.Expression(k.value), "<call>", "eval"), scope) for k in call.keywords}
    except Exception as exc:  # the user's expression, whatever it raises
        raise CliError("cannot evaluate the call's arguments %r: %s: %s" % (args.call, type(exc).__name__, exc)) \
            from None
    try:
        print(why_recompile_in_dump(args.dump_dir, args.function, values, keywords, globals_=globals_))
    except LookupError as exc:
        raise CliError(str(exc)) from None
    except TypeError as exc:          # binding the arguments to the function's parameters
        raise CliError("the arguments %r do not fit %s: %s" % (args.call, args.function, exc)) from None
    return 0


def _cmd_diff(args):
    from unveil.dumpdiff import DumpError, diff_dumps
    try:
        lines = diff_dumps(args.dump_a, args.dump_b)
    except DumpError as exc:
        raise CliError(str(exc)) from None
    if args.html:
        from unveil.report import ReportError, build_diff_page
        try:
            page = build_diff_page(os.path.abspath(args.dump_a), os.path.abspath(args.dump_b), lines, args.html)
        except ReportError as exc:
            raise CliError(str(exc)) from None
        sys.stderr.write("%s: diff page %s\n" % (PROG, os.path.abspath(page)))
    for line in lines:
        print(line)
    if not lines:
        print("no difference (beyond graph ids, uuids, object ids, addresses and compile ids)")
    return 1 if lines else 0


def _cmd_run(args):
    if args.module is not None and args.program:
        raise CliError("give a script or -m MODULE, not both")
    if args.module is not None and not args.module:
        raise CliError("-m needs a module name")
    if args.module is None and not args.program:
        raise CliError("give a script to run, or -m MODULE")
    module = args.module is not None
    target, rest = (args.module if module else args.program)[0], (args.module if module else args.program)[1:]
    if not module and not os.path.isfile(target):
        raise CliError("no such script: %s" % target)
    if module:
        import importlib.util
        sys.path.insert(0, os.getcwd())          # where python -m looks first
        try:
            found = importlib.util.find_spec(target) is not None
        except (ImportError, ValueError):        # a parent package that is missing
            found = False
        finally:
            sys.path.pop(0)
        if not found:
            raise CliError("no module named %s" % target)
    _check_dump_dir(args.dump_dir)
    try:
        import unveil.dynamo  # noqa: F401  (imports torch)
    except ImportError:
        raise CliError("run needs torch: pip install 'unveil[torch]'") from None
    import unveil
    from unveil.runner import run
    within = (unveil.debug if args.debug else unveil.prepare_debug)(args.dump_dir)
    status = run(target, rest, module=module, within=within)
    where = within.dump.path if within.dump is not None else os.path.abspath(args.dump_dir)   # a rank's own
    if within.index_file is None:
        sys.stderr.write("%s: nothing was compiled; %s is left as it was\n" % (PROG, where))
        return status
    if args.no_report:
        sys.stderr.write("%s: dump in %s (index.json, summary.txt)\n" % (PROG, where))
        return status
    from unveil.report import ReportError, build_report
    try:
        page = build_report(where, progress=_progress("report"))
    except ReportError as exc:
        sys.stderr.write("%s: dump in %s (index.json, summary.txt); no report: %s\n" % (PROG, where, exc))
        return status
    sys.stderr.write("%s: dump in %s, report %s\n" % (PROG, where, page))
    if args.open:
        import pathlib
        import webbrowser
        webbrowser.open(pathlib.Path(page).as_uri())
    return status


def _cmd_report(args):
    from unveil.report import ReportError, build_report
    try:
        print(build_report(os.path.abspath(args.dump_dir), progress=_progress("report")))
    except ReportError as exc:
        raise CliError(str(exc)) from None
    return 0


def _progress(what):
    """``progress(done, total)`` writing ``what: done/total`` over itself on a terminal's
    stderr; None (silent) when stderr is not a terminal."""
    if not sys.stderr.isatty():
        return None

    def progress(done, total):
        sys.stderr.write("\r%s: %d/%d%s" % (what, done, total, "\r\x1b[K" if done == total else ""))
        sys.stderr.flush()
    return progress


def _check_dump_dir(path):
    """A dump directory that exists or can be made, as a one-line error otherwise."""
    if os.path.exists(path) and not os.path.isdir(path):
        raise CliError("dump directory %s exists and is not a directory" % path)
    try:
        os.makedirs(path, exist_ok=True)
    except OSError as exc:
        raise CliError("cannot make dump directory %s: %s" % (path, exc.strerror or exc)) from None


def _print_decompiled(items, debug=False, always_label=False):
    """Decompile each (label, object) and print it; return the exit status.

    One object that fails is an error.  When there are several, the others are
    still printed and a comment marks each failure; one error line sums up.
    """
    from unveil import DecompilationError, decompile

    labelled = always_label or len(items) > 1
    failures, not_printed = [], []
    for index, (label, obj) in enumerate(items):
        if isinstance(obj, NotPrinted):
            not_printed.append(label)
            sys.stdout.write("%s# %s: not printed: %s\n" % ("\n" if index else "", label, obj.reason))
            continue
        try:
            source = str(decompile(obj))
        except Exception as exc:
            if debug and not isinstance(exc, DecompilationError):
                raise
            kind = "" if isinstance(exc, DecompilationError) else type(exc).__name__ + ": "
            reason = "cannot decompile %s: %s%s" % (label, kind, exc)
            if not labelled:
                raise CliError(reason) from None
            failures.append(reason)
            source = "# " + " ".join(reason.splitlines()) + "\n"
        if labelled:
            sys.stdout.write("%s# %s\n" % ("\n" if index else "", label))
        note = getattr(obj, "note", None)
        if note:
            sys.stdout.write("# %s\n" % " ".join(note.splitlines()))
        sys.stdout.write(source if source.endswith("\n") else source + "\n")
    sys.stdout.flush()
    if not_printed:
        sys.stderr.write("%s: %d of %d not printed; the output says why, e.g. # %s: not printed: ...\n"
                         % (PROG, len(not_printed), len(items), not_printed[0]))
    if failures:
        raise CliError("%d of %d could not be decompiled; first: %s"
                       % (len(failures), len(items), failures[0]))
    return 0


# --- resolving targets ------------------------------------------------------

def resolve_target(target):
    """The (label, object) pairs to decompile for a TARGET string."""
    from unveil.errors import DecompilationError
    try:
        return _resolve(target)
    except DecompilationError as exc:       # targets.TargetError, a broken .pyc
        raise CliError(str(exc)) from None


def _resolve(target):
    from unveil import api, targets

    where, qualname, is_file = targets.split(target)
    if is_file:
        return _file_items(where, qualname)
    module = targets.import_module(where)
    if not qualname:
        return _module_items(module)
    obj, parent = targets.lookup(module, qualname, target)
    label = "%s:%s" % (where, qualname)
    if isinstance(obj, types.CodeType):
        return [(label, api.Found(obj, parent=parent))]
    shown = api.shown_defs(module, qualname, obj)
    if shown:
        return [(label, found) for found in shown]
    items = _object_items(label, obj)
    if not items:
        raise CliError("%s has no functions to decompile" % target)
    return items


class NotPrinted:
    """What a target names but cannot print, and why: listed in the output where
    it would have been printed."""

    def __init__(self, reason):
        self.reason = reason


def _object_items(label, obj):
    """The decompilable pieces of a looked-up object."""
    from unveil.api import python_function
    from unveil.targets import not_a_function

    if isinstance(obj, types.CodeType):
        return [(label, obj)]
    if isinstance(obj, property):
        return [("%s.%s" % (label, accessor), fn)
                for accessor, fn in (("fget", obj.fget), ("fset", obj.fset), ("fdel", obj.fdel))
                if python_function(fn) is not None]
    if isinstance(obj, type):
        module = label.rpartition(":")[0]
        return _class_items(module, obj, {})
    if isinstance(obj, types.ModuleType):
        return _module_items(obj)
    function = python_function(obj)
    if function is not None:
        return [(label, _named(function, label.rpartition(":")[2].rpartition(".")[2]))]
    raise CliError(str(not_a_function(label, obj)))


def _named(function, name):
    """``function``, or for a lambda function the :class:`api.Found` that prints it as
    ``name = lambda ...``."""
    from unveil.api import Found
    return Found(function, name=name) if function.__code__.co_name == "<lambda>" else function


def _accessors(value):
    """(suffix, object) for each function a class or module attribute value holds:
    a property's accessors (``.fset``, ``.fdel`` after the name), else the value."""
    if isinstance(value, property):
        return [(suffix, fn) for suffix, fn in (("", value.fget), (".fset", value.fset), (".fdel", value.fdel))
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
    from unveil.api import python_function

    items = []
    for suffix, obj in _accessors(value):
        if not _wraps_something(obj):
            continue
        full = "%s:%s%s" % (module_name, label, suffix)
        function = python_function(obj)
        if function is None:
            if getattr(obj, "__module__", None) == owner:
                items.append((full, NotPrinted("%s has no Python code (it wraps %r)"
                                               % (type(obj).__name__, _innermost(obj)))))
            continue
        if function.__module__ != owner and getattr(obj, "__module__", None) != owner:
            continue                       # imported from elsewhere
        if id(function) in seen:
            items.append((full, NotPrinted("another name for %s" % seen[id(function)])))
            continue
        seen[id(function)] = full
        items.append((full, _named(function, (label + suffix).rpartition(".")[2])))
    return items


def _innermost(obj):
    """The end of ``obj``'s ``__wrapped__`` chain (what a ``NotPrinted`` reason names)."""
    for _ in range(sys.getrecursionlimit()):
        inner = getattr(obj, "__wrapped__", None)
        if inner is None:
            break
        obj = inner
    return obj


def _class_items(module_name, cls, seen):
    items = []
    for name, value in vars(cls).items():
        if isinstance(value, type) and value.__qualname__ == "%s.%s" % (cls.__qualname__, name):
            items += _class_items(module_name, value, seen)
            continue
        items += _definition_items(module_name, cls.__module__, "%s.%s" % (cls.__qualname__, name), value, seen)
    return items


def _module_items(module):
    """Every function and method defined in ``module``, in definition order, each
    under the name it has there; what is not printed is a ``NotPrinted`` item.  A
    def statement of the module's code (at module level or in a class) whose name
    the module binds to something else (a decorator without ``functools.wraps``,
    a C implementation) is printed from that code, a note saying why."""
    items, seen = [], {}
    for name, value in list(vars(module).items()):
        if isinstance(value, type):
            if value.__module__ != module.__name__:
                continue
            if id(value) in seen:
                items.append(("%s:%s" % (module.__name__, name),
                              NotPrinted("another name for class %s" % seen[id(value)])))
                continue
            seen[id(value)] = "%s:%s" % (module.__name__, value.__qualname__)
            items += _class_items(module.__name__, value, seen)
            continue
        items += _definition_items(module.__name__, module.__name__, name, value, seen)
    items = _with_source_defs(module, items)
    if not any(not isinstance(obj, NotPrinted) for _, obj in items):
        raise CliError("module %r defines no Python functions" % module.__name__)
    return items


def _with_source_defs(module, items):
    """``items`` and, each where its line puts it, the function of every def statement
    in ``module``'s code that no item prints (see :func:`api.shown_from_source`).  An
    item of the same name gives way to it where it is a ``NotPrinted`` or prints the
    function of no def of that name (a decorator's wrapper without ``__wrapped__``)."""
    from unveil import api
    from unveil.errors import DecompilationError

    try:
        root = api._module_code(module)
    except DecompilationError:
        return items
    defs = list(api.source_defs(root))
    keys_of = {}
    for qualname, code, _ in defs:
        keys_of.setdefault(qualname, set()).add(api.def_key(code))
    stale = set()      # labels whose item prints no def of its name, though the module has one
    covered = set()
    prefix = module.__name__ + ":"
    for label, obj in items:
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
        same = [i for i, (other, obj) in enumerate(items)
                if other == label and (isinstance(obj, NotPrinted) or other in stale)]
        if same:
            items[same[0]] = item
            stale.discard(label)
            continue
        later = [i for i, (_, obj) in enumerate(items) if _line_in(obj, code.co_filename) > code.co_firstlineno]
        items.insert(later[0] if later else len(items), item)
    return items


def _line_in(obj, filename):
    """The first line of the function an item prints, if it is in file ``filename``, else -1."""
    code = getattr(obj, "__code__", None) if not isinstance(obj, NotPrinted) else None
    return code.co_firstlineno if code is not None and code.co_filename == filename else -1


def _file_items(path, qualname):
    """The module code of a .py or .pyc file, then (for .py) each function in it;
    with ``qualname``, the functions or classes of that name in it (or the lambda
    bound to it)."""
    from unveil import api, targets

    code = targets.load_file(path)
    if qualname:
        chosen = [("%s:%s" % (path, name), api.Found(nested, parent=code))
                  for name, nested in _walk_code(code, "") if name == qualname]
        if not chosen:
            owner, _, name = qualname.rpartition(".")
            chosen = [("%s:%s" % (path, qualname), api.Found(lam, name=name, parent=parent))
                      for lam, parent in api._lambdas_named(code, owner, name)][:1]
        if not chosen:
            raise targets.TargetError("%s has no function or class %r" % (path, qualname))
        return chosen
    if path.endswith(".pyc"):
        return [(path, code)]
    items = [("%s:<module>" % path, code)]
    items += [("%s:%s" % (path, name), api.Found(nested, parent=code))   # the file's code gives the defaults
              for name, nested in _walk_code(code, "")
              if nested.co_flags & _CO_OPTIMIZED and nested.co_name not in _INLINE_CODE]
    return items


def _walk_code(code, prefix, parents=False):
    """Yield (qualname, code) for every code object nested in ``code``'s constants
    (with ``parents``, and the code whose constant it is)."""
    from unveil.targets import walk_code
    return walk_code(code, prefix, parents)
