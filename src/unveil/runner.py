"""Run a program as ``python script.py ARGS`` or ``python -m module ARGS`` would, inside a
context manager (``unveil run``: ``prepare_debug`` or ``debug`` for the whole run).

The program sees what the interpreter would have given it: ``sys.argv``, a
``__main__`` module of its own, ``sys.path[0]`` (the script's directory, or the
working directory for ``-m``), the same stdin, stdout and stderr.  It ends as
the interpreter would end it: the exit status of ``sys.exit``, or 1 with the
traceback of an uncaught exception (from the program's own frames on).
"""
import builtins
import contextlib
import importlib.machinery
import importlib.util
import io
import os
import pkgutil
import runpy
import sys
import traceback
import types
import zipfile


def run(target, args, module=False, within=contextlib.nullcontext()):
    """Run ``target`` (a script's path, or with ``module`` a module's name) with ``args``
    inside the context manager ``within`` (entered before, left after, also when the
    program raises or exits); return the exit status the interpreter would."""
    saved = sys.argv[:], sys.path[:]
    try:
        if module:
            sys.path[0:1] = [os.getcwd()]
            # (runpy puts the module's file in argv[0]; before ``within`` begins too, which
            # records the program's argv)
            sys.argv = [_module_file(target) or target] + list(args)
            return _ended(lambda: runpy.run_module(target, run_name="__main__", alter_sys=True), within, None)
        path = os.path.abspath(target)
        sys.argv = [target] + list(args)
        if os.path.isdir(path) or zipfile.is_zipfile(path):     # with a __main__ module
            sys.path[0:1] = [path]            # the directory or archive itself, as python puts it
            spec = pkgutil.get_importer(path).find_spec("__main__")
            return _ended(lambda: _run_main(spec.loader.get_code("__main__"), spec.origin, spec), within, spec.origin)
        sys.path[0:1] = [os.path.dirname(os.path.realpath(path))]
        if not path.endswith(".py"):         # a .pyc, or a script with another name
            return _ended(lambda: runpy.run_path(path, run_name="__main__"), within, None)
        return _ended(lambda: _run_script(path), within, path)
    finally:
        sys.argv, sys.path[:] = saved


def _module_file(name):
    """The file ``python -m name`` runs (a package's ``__main__``), or None where it finds
    none (runpy then says why, as the interpreter does)."""
    try:
        spec = importlib.util.find_spec(name)
        if spec is not None and spec.submodule_search_locations is not None:
            spec = importlib.util.find_spec(name + ".__main__")
    except (ImportError, ValueError):
        return None
    return spec.origin if spec is not None else None


def _run_script(path):
    """``path`` run as the interpreter runs a script: in a new ``__main__`` module whose
    ``__file__`` is the absolute path (``sys.argv[0]`` stays as given)."""
    with io.open_code(path) as fh:
        code = compile(fh.read(), path, "exec", dont_inherit=True)
    return _run_main(code, path, None)


def _run_main(code, path, spec):
    """``code`` run as the interpreter runs a program: in a new ``__main__`` module of file
    ``path``; ``spec`` is the ``__main__`` module's, found in a directory or zip archive
    (a script has none)."""
    main = types.ModuleType("__main__")
    main.__file__, main.__cached__, main.__spec__ = path, spec.cached if spec else None, spec
    main.__loader__ = spec.loader if spec else importlib.machinery.SourceFileLoader("__main__", path)
    main.__builtins__ = builtins
    saved = sys.modules["__main__"]
    sys.modules["__main__"] = main
    try:
        exec(code, main.__dict__)
    finally:
        sys.modules["__main__"] = saved
    return main


def _ended(start, within, path):
    try:
        with within:
            # the program's globals live until ``within`` ends: Dynamo drops a cache entry
            # (and so its guards) when an object its guards check dies
            namespace = start()    # noqa: F841
    except SystemExit as exc:
        _print_exit_message(exc.code)
        return exit_status(exc.code)
    except BaseException as exc:       # the program's own error: reported as the interpreter would
        _print_program_traceback(exc, path)
        return INTERRUPTED if isinstance(exc, KeyboardInterrupt) else 1
    return 0


class _Interrupted(int):
    """130, the status of a run whose program a KeyboardInterrupt ended (told apart from a
    program's own ``sys.exit(130)`` by identity)."""


#: the interpreter ends such a program by SIGINT itself, so that its parent sees the
#: signal: the ``unveil`` command does the same (:func:`unveil.__main__.main`)
INTERRUPTED = _Interrupted(130)


def exit_status(code):
    """What the interpreter exits with for ``sys.exit(code)``."""
    if code is None:
        return 0
    return code if isinstance(code, int) else 1


def _print_exit_message(code):
    """``sys.exit(code)``'s message, printed as the interpreter prints it: a code that is
    neither ``None`` nor an int."""
    if code is not None and not isinstance(code, int):
        print(code, file=sys.stderr)


def _print_program_traceback(exc, path):
    """The traceback from the first frame of the program's code (the interpreter's own
    start and this module's are not the program's)."""
    tb = exc.__traceback__
    first = tb
    while first is not None and not _programs(first.tb_frame, path):
        first = first.tb_next
    traceback.print_exception(type(exc), exc, first if first is not None else tb)
    sys.stderr.flush()


def _programs(frame, path):
    name = frame.f_code.co_filename
    if path is not None:
        return name == path
    return frame.f_globals.get("__name__") == "__main__" and not name.startswith(os.path.dirname(runpy.__file__))
