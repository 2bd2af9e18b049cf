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
``unveil.decompile(TARGET)`` returns the text printed (``unveil.shown``).
"""
import argparse
import contextlib
import os
import sys

from .shown import NotPrinted  # noqa: F401  (unveil.cli.NotPrinted, as before)

PROG = "unveil"
EXIT_ERROR = 2


class CliError(Exception):
    """A user-facing error, reported as one line with exit status ``status`` (2 unless said)."""

    def __init__(self, message, status=EXIT_ERROR):
        super().__init__(message)
        self.status = status


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
        return exc.status
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
                    "module is loaded from its file for its globals (its top-level code runs), under the name "
                    "it had when compiled; a global the program changed after import has its import-time value "
                    "unless --set gives it.  Object ids are the compiling process's: an identity check "
                    "compares the object's name where the guards file gives one (else it is assumed to hold, "
                    "and named where the answer rests on it), types are checked by name.")
    why.add_argument("dump_dir", metavar="DUMP_DIR", help="a directory prepare_debug wrote")
    why.add_argument("function", metavar="FUNCTION", help="the function's key in index.json, or its name")
    why.add_argument("call", metavar="CALL",
                     help="the call's arguments as Python, torch imported: \"torch.ones(3, 2), n=1\"")
    why.add_argument("--set", dest="settings", action="append", default=[], metavar="NAME=EXPR",
                     help="before the call, give NAME the value of EXPR (Python, in the module's globals): a global "
                          "the program set after import (a flag), or a variable of an enclosing function the "
                          "compiled function reads; NAME.ATTR=EXPR sets an attribute of a global (a config "
                          "module's flag); repeatable, in order")
    why.add_argument("--no-grad", action="store_true",
                     help="ask as under torch.no_grad(): a frame compiled for inference, whose global-state guard "
                          "fails with grad mode on")
    why.set_defaults(handler=_cmd_why_recompile)

    diff = commands.add_parser(
        "diff", help="what changed between two dumps: graphs, guards, transformed code, kernels, breaks, recompiles",
        description="Line up two prepare_debug dumps by function and compile and print what differs, as unified "
                    "diffs, leaving out what differs from run to run (graph ids, uuids, object ids, addresses, "
                    "compile ids) and where each run was installed (the dump directory, the program's directory, "
                    "site-packages, the standard library).  Constants are compared as written.  Exit status 0: "
                    "the same, 1: they differ.")
    diff.add_argument("dump_a", metavar="DIR_A")
    diff.add_argument("dump_b", metavar="DIR_B")
    diff.add_argument("--full-code", action="store_true",
                      help="also diff a function's full_code file where its graphs, guards or transformed code "
                           "differ (it repeats them; by default one line says it differs too)")
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
    from unveil.dynamo import demo
    from unveil.dynamo.adapter.backends import backend_names
    _check_dump_dir(args.dump_dir)
    if args.backend not in backend_names():
        raise CliError("unknown backend %r; torch.compile has %s" % (args.backend, ", ".join(backend_names())))
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
    from unveil.dynamo.guards.why import dumped_function, function_globals, why_recompile_in_dump
    try:
        index, entry = dumped_function(args.dump_dir, args.function)
    except (LookupError, ValueError) as exc:
        raise CliError(str(exc)) from None
    try:
        globals_ = function_globals(index, entry)
    except (Exception, SystemExit) as exc:  # the user's module's top-level code, whatever it does
        raise CliError("loading %s's module (%s) ran its top-level code, which raised %s: %s"
                       % (args.function, entry["filename"], type(exc).__name__, exc)) from None
    scope = dict(globals_)                 # the module's names (a class to make self of) and torch
    scope["torch"] = torch
    settings = _settings(args.settings, scope)
    new_globals = {name for name in settings if name not in globals_ and name not in (entry.get("freevars") or [])}
    for name, value in settings.items():
        if name not in (entry.get("freevars") or []):
            globals_[name] = value          # before the call's values are made (a constructor may read it)
    try:
        call = ast.parse("f(%s)" % args.call, mode="eval").body
        values = [eval(compile(ast.Expression(a), "<call>", "eval"), scope) for a in call.args]
        keywords = {k.arg: eval(compile(ast.Expression(k.value), "<call>", "eval"), scope) for k in call.keywords}
    except Exception as exc:  # the user's expression, whatever it raises
        raise CliError("cannot evaluate the call's arguments %r: %s: %s" % (args.call, type(exc).__name__, exc)) \
            from None
    try:
        with torch.no_grad() if args.no_grad else contextlib.nullcontext():
            print(why_recompile_in_dump(args.dump_dir, args.function, values, keywords, globals_=globals_,
                                        settings=settings, new_globals=new_globals,
                                        call_names={n.id for n in ast.walk(call) if isinstance(n, ast.Name)}))
    except LookupError as exc:
        raise CliError(str(exc)) from None
    except TypeError as exc:          # binding the arguments to the function's parameters
        owner = globals_.get((entry.get("qualname") or "").rpartition(".")[0])    # (a method's class)
        hint = " (a method's call starts with its self: \"%s(...), ...\")" % owner.__name__ \
            if isinstance(owner, type) and not (values and isinstance(values[0], owner)) \
            and entry.get("kind") != "resume" else ""
        raise CliError("the arguments %r do not fit %s: %s%s" % (args.call, args.function, exc, hint)) from None
    except ValueError as exc:         # a setting that is not a global or a variable of the frame
        raise CliError(str(exc)) from None
    return 0


def _settings(texts, scope):
    """``{name: value}`` of ``--set NAME=EXPR`` options, each evaluated in ``scope`` (which
    each then joins, for the next and the call).  ``--set NAME.ATTR=EXPR`` sets an attribute
    of a global (a flag of a config module the program imported) and gives ``NAME`` as it is."""
    import ast
    out = {}
    for text in texts:
        target, equals, expression = text.partition("=")
        name, _, path = target.strip().partition(".")
        attributes = path.split(".") if path else []
        if not equals or not name.isidentifier() or not all(a.isidentifier() for a in attributes):
            raise CliError("--set wants NAME=EXPR or NAME.ATTR=EXPR, not %r" % text)
        try:
            value = eval(compile(ast.parse(expression.strip(), mode="eval"), "<--set>", "eval"), scope)
        except Exception as exc:  # the user's expression, whatever it raises
            raise CliError("cannot evaluate --set %s: %s: %s" % (text, type(exc).__name__, exc)) from None
        if not attributes:
            out[name] = scope[name] = value
            continue
        if name not in scope:
            raise CliError("--set %s: the module has no global %s" % (text, name))
        owner = scope[name]
        try:
            for attribute in attributes[:-1]:
                owner = getattr(owner, attribute)
            setattr(owner, attributes[-1], value)
        except Exception as exc:  # the user's object, whatever its attributes do
            raise CliError("cannot set %s: %s: %s" % (target.strip(), type(exc).__name__, exc)) from None
        out[name] = scope[name]
    return out


def _cmd_diff(args):
    from unveil.dumpdiff import DumpError, diff_dumps
    try:
        lines = diff_dumps(args.dump_a, args.dump_b, full_code=args.full_code)
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
        print("no difference (beyond graph ids, uuids, object ids, addresses, compile ids and install paths)")
    return 1 if lines else 0


def _check_script(target):
    """A script python would run: a file, or a directory or zip archive with a ``__main__``
    module (python exits 2 for a missing script and 1 for a directory without one)."""
    if os.path.isdir(target):
        if not any(os.path.isfile(os.path.join(target, "__main__" + ext)) for ext in (".py", ".pyc")):
            raise CliError("can't find '__main__' module in %r" % target, status=1)
    elif not os.path.isfile(target):
        raise CliError("no such script: %s" % target)
    else:
        import zipfile
        if zipfile.is_zipfile(target) and not {"__main__.py", "__main__.pyc"} & set(zipfile.ZipFile(target).namelist()):
            raise CliError("can't find '__main__' module in %r" % target, status=1)


def _cmd_run(args):
    if args.module is not None and args.program:
        raise CliError("give a script or -m MODULE, not both")
    if args.module is not None and not args.module:
        raise CliError("-m needs a module name")
    if args.module is None and not args.program:
        raise CliError("give a script to run, or -m MODULE")
    module = args.module is not None
    target, rest = (args.module if module else args.program)[0], (args.module if module else args.program)[1:]
    if not module:
        _check_script(target)
    if module:
        import importlib.util
        sys.path.insert(0, os.getcwd())          # where python -m looks first
        try:
            found = importlib.util.find_spec(target) is not None
        except (ImportError, ValueError):        # a parent package that is missing
            found = False
        finally:
            sys.path.pop(0)
        if not found:            # python -m exits 1 here (and 2 for a missing script)
            raise CliError("no module named %s" % target, status=1)
    made = _check_dump_dir(args.dump_dir)
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
        if within.unwritable is not None:
            sys.stderr.write("%s: nothing was dumped: cannot write to %s (%s)\n" % (PROG, where, within.unwritable))
        elif within.failures:
            sys.stderr.write("%s: the dump in %s is not complete: writing it failed (%s)\n"
                             % (PROG, where, within.failures[-1]["error"]))
        elif made and _removed_if_empty(where, args.dump_dir):
            sys.stderr.write("%s: nothing was compiled; no dump directory was made\n" % PROG)
        else:
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


def _removed_if_empty(where, dump_dir):
    """Remove ``where`` and ``dump_dir`` (``where``'s parent, or ``where`` itself) if they
    hold nothing; whether ``dump_dir`` is gone."""
    for path in dict.fromkeys([where, os.path.abspath(dump_dir)]):
        try:
            os.rmdir(path)           # only an empty directory
        except OSError:
            return False
    return True


def _check_dump_dir(path):
    """A dump directory that exists or can be made, as a one-line error otherwise; whether
    it was made here (it did not exist)."""
    if os.path.exists(path) and not os.path.isdir(path):
        raise CliError("dump directory %s exists and is not a directory" % path)
    made = not os.path.exists(path)
    try:
        os.makedirs(path, exist_ok=True)
    except OSError as exc:
        raise CliError("cannot make dump directory %s: %s" % (path, exc.strerror or exc)) from None
    probe = os.path.join(path, ".unveil-write-check.%d" % os.getpid())
    try:
        with open(probe, "w", encoding="utf-8"):
            pass
        os.remove(probe)
    except OSError as exc:
        raise CliError("cannot write to dump directory %s: %s" % (path, exc.strerror or exc)) from None
    from unveil.dynamo.dump.directory import foreign_file
    foreign = foreign_file(path)
    if foreign is not None:
        raise CliError("will not write into dump directory %s: its %s is not unveil's (--dump-dir DIR: another)"
                       % (path, foreign))
    return made


def _print_decompiled(items, debug=False, always_label=False):
    """Print what ``items`` (label, object) show, as ``unveil.decompile`` gives it for
    their target (:class:`unveil.shown.Printout`); return the exit status.

    One object that fails is an error.  When there are several, the others are
    still printed and a comment marks each failure; one error line sums up.  An
    unexpected exception (a bug) is such a failure too, unless ``debug``.
    """
    from unveil import decompile
    from unveil.errors import DecompilationError, InternalError
    from unveil.shown import Printout, failure

    def decompile_one(obj):
        try:
            return decompile(obj)
        except DecompilationError:
            raise
        except Exception as exc:  # a bug of the decompiler: one line, or its traceback with --debug
            if debug:
                raise
            raise InternalError("%s: %s" % (type(exc).__name__, exc)) from exc

    printout = Printout(items, decompile_one, always_label)
    try:
        for piece in printout:
            sys.stdout.write(piece)
    except DecompilationError as exc:   # the one object there is
        raise CliError(failure(items[0][0], exc)) from None
    sys.stdout.flush()
    if printout.not_printed:
        sys.stderr.write("%s: %d of %d not printed; the output says why, e.g. # %s: not printed: ...\n"
                         % (PROG, len(printout.not_printed), len(items), printout.not_printed[0]))
    if printout.failures:
        raise CliError("%d of %d could not be decompiled; first: %s"
                       % (len(printout.failures), len(items), printout.failures[0]))
    return 0


def resolve_target(target):
    """The (label, object) pairs to decompile for a TARGET string (:func:`unveil.shown.items`)."""
    from unveil.errors import DecompilationError
    from unveil.shown import items
    try:
        return items(target)
    except DecompilationError as exc:       # targets.TargetError, a broken .pyc
        raise CliError(str(exc)) from None
