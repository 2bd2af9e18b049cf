"""What the benchmarks share: the functions a speed benchmark times and its timing
loop, time limits, loading by path, and finding interpreters and venv pythons.

decompile_speed.py and depyf_worker.py (run in depyf's own venv) both import
this file by path, so both tools are timed on exactly the same list, enumerated
the same deterministic way, with the same loop.  Standard library only.
"""
import importlib.util
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import types
import warnings

DEFAULT_MODULES = (
    "json.decoder", "json.encoder", "textwrap", "shlex", "fractions", "statistics",
    "difflib", "configparser", "argparse", "csv", "heapq", "bisect", "calendar",
    "ipaddress", "pprint", "urllib.parse",
)

PYENV = os.path.join(os.environ.get("PYENV_ROOT", os.path.expanduser("~/.pyenv")), "versions")
VERSIONS = ("3.8", "3.9", "3.10", "3.11", "3.12", "3.13")
#: the pins CI installs with (pip's ``-c``), for the benchmarks' venvs too
CONSTRAINTS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), ".ci", "constraints.txt")


def interpreter(version):
    """The python of pyenv's X.Y (or ``pythonX.Y`` on PATH), or ``None``."""
    for d in sorted(os.listdir(PYENV)) if os.path.isdir(PYENV) else ():
        if d == version or d.startswith(version + "."):
            return os.path.join(PYENV, d, "bin", "python")
    return shutil.which("python" + version)


def run_each_version(script, versions, args, quiet=False):
    """Run ``script`` with ``args`` and ``--json FILE`` under pyenv's Python of each of
    ``versions`` (all six when empty); the JSON each run wrote, in order.  A version
    without an interpreter or a result is reported on stderr and left out."""
    results = []
    for v in versions or VERSIONS:
        python = interpreter(v)
        if python is None:
            print("no interpreter for Python %s" % v, file=sys.stderr)
            continue
        fd, out = tempfile.mkstemp(suffix=".json")
        os.close(fd)
        print("== Python %s" % v, file=sys.stderr, flush=True)
        try:
            subprocess.run([python, os.path.abspath(script)] + list(args) + ["--json", out],
                           stdout=subprocess.DEVNULL if quiet else None)
            with open(out) as f:
                results.append(json.load(f))
        except (OSError, ValueError):
            print("Python %s: no result" % v, file=sys.stderr)
        finally:
            os.unlink(out)
    return results


def venv_python(venv):
    return os.path.join(venv, "Scripts" if os.name == "nt" else "bin", "python")


_CO_OPTIMIZED = 0x1
# Compiled into their enclosing function's source; not timed on their own.
_COMPREHENSIONS = {"<listcomp>", "<setcomp>", "<dictcomp>", "<genexpr>"}


def module_code(name):
    """Compile (without importing or running it) the source of stdlib module ``name``."""
    spec = importlib.util.find_spec(name)
    if spec is None or not (spec.origin or "").endswith(".py"):
        raise LookupError("no Python source for module %r" % name)
    with open(spec.origin, "rb") as f:
        return compile(f.read(), spec.origin, "exec", dont_inherit=True)


def enumerate_functions(modules=DEFAULT_MODULES):
    """[(label, code)] for every function, method, nested function and lambda
    in ``modules``, depth first in co_consts order."""
    found = []
    for name in modules:
        found += [("%s:%s" % (name, qualname), code)
                  for qualname, code in _walk(module_code(name), "")]
    return found


def _walk(code, prefix):
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            is_function = bool(const.co_flags & _CO_OPTIMIZED)
            if is_function and const.co_name not in _COMPREHENSIONS:
                yield prefix + const.co_name, const
            inner = prefix + const.co_name + (".<locals>." if is_function else ".")
            yield from _walk(const, inner)


class _Timeout(Exception):
    pass


def _on_alarm(signum, frame):
    raise _Timeout("took too long")


class TimeLimit(BaseException):
    """Raised by :func:`with_time_limit` (a BaseException: ``except Exception`` lets it through)."""


def with_time_limit(seconds, fn, *args):
    """``fn(*args)``, raising TimeLimit after ``seconds`` (Unix main thread only: elsewhere
    without a limit; ``--jobs`` runs module-mode decompiling in threads).

    Once the alarm has fired the result is TimeLimit, whatever ``fn`` did next: a program's
    own ``finally`` or ``except BaseException`` may swallow the TimeLimit raised inside it or
    replace it with another exception, which must not read as the program's behaviour. The
    alarm repeats until ``fn`` is left, so a handler that then loops is interrupted too
    (a program that swallows every exception in an endless loop cannot be stopped here)."""
    if not hasattr(signal, "setitimer") or threading.current_thread() is not threading.main_thread():
        return fn(*args)
    fired = []

    def alarm(signum, frame):
        fired.append(True)
        raise TimeLimit()

    old = signal.signal(signal.SIGALRM, alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds, 0.05)  # re-fires: a handler that loops is stopped too
    try:
        result = fn(*args)
    except BaseException:
        if fired:
            raise TimeLimit() from None
        raise
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
    if fired:
        raise TimeLimit()
    return result


def load_by_path(name, path):
    """Import the file ``path`` as module ``name`` (scripts that are not packages)."""
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def time_decompiler(decompile, functions, repeat=1, timeout=10.0):
    """Time ``decompile(code.replace())`` on each function; fresh copies every round.

    Returns a JSON-able dict: functions, failures, valid (outputs that compile),
    seconds (the best round's total), ok_seconds (that round's time on the
    functions that did decompile), and failed ([label, reason] pairs, first round).
    """
    use_alarm = bool(timeout) and hasattr(signal, "setitimer")
    if use_alarm:
        previous = signal.signal(signal.SIGALRM, _on_alarm)
    best, failed, valid = (0.0, 0.0), [], 0
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for round_ in range(repeat):
                copies = [code.replace() for _, code in functions]
                total = ok_total = 0.0
                for (label, _), code in zip(functions, copies):
                    if use_alarm:
                        signal.setitimer(signal.ITIMER_REAL, timeout)
                    start = time.perf_counter()
                    try:
                        source = decompile(code)
                    except Exception as exc:
                        total += time.perf_counter() - start
                        if round_ == 0:
                            failed.append((label, _reason(exc)))
                        continue
                    finally:
                        if use_alarm:
                            signal.setitimer(signal.ITIMER_REAL, 0)
                    elapsed = time.perf_counter() - start
                    total += elapsed
                    ok_total += elapsed
                    if round_ == 0 and _compiles(source):
                        valid += 1
                if round_ == 0 or total < best[0]:
                    best = (total, ok_total)
    finally:
        if use_alarm:
            signal.signal(signal.SIGALRM, previous)
    return {"functions": len(functions), "failures": len(failed), "valid": valid,
            "seconds": best[0], "ok_seconds": best[1], "failed": failed}


def _reason(exc):
    """One line: the exception, and the innermost exception that caused it."""
    def line(e):
        text, name = str(e), type(e).__name__
        return (text if text.startswith(name) else "%s: %s" % (name, text)).splitlines()[0]
    root = exc
    while root.__cause__ is not None and root.__cause__ is not root:
        root = root.__cause__
    outer, inner = line(exc), line(root)
    return outer if inner in outer else "%s (%s)" % (outer, inner)


def _compiles(source):
    try:
        compile(source, "<decompiled>", "exec", dont_inherit=True)
    except (SyntaxError, ValueError, TypeError):
        return False
    return True
