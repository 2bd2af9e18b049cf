"""What the benchmarks share: the functions a speed benchmark times and its timing
loop, time limits, loading by path, and finding interpreters and venv pythons.

decompile_speed.py and depyf_worker.py (run in depyf's own venv) both import
this file by path, so both tools are timed on exactly the same list, enumerated
the same deterministic way, with the same loop.  Standard library only.
"""
import ast
import dis
import importlib.util
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import textwrap
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


#: the newest torch pip may take on this machine without lifting its cap (/etc/xdg/pip)
TORCH_CAPPED_AT = (2, 14, 1)


def install_torch(python, version):
    """``pip install torch==version`` into a venv: 2.13.0 and 2.14.1 lie on this machine's disk
    under pip's cap; a newer release comes from PyPI with the cap lifted for that install
    alone (``PIP_CONSTRAINT=/dev/null``), so that nothing else installed can pull another."""
    import re
    env = dict(os.environ, PIP_DISABLE_PIP_VERSION_CHECK="1", PIP_ROOT_USER_ACTION="ignore")
    if tuple(int(p) for p in re.findall(r"\d+", version)[:3]) > TORCH_CAPPED_AT:
        env["PIP_CONSTRAINT"] = "/dev/null"
    subprocess.run([python, "-m", "pip", "install", "-q", "torch==%s" % version], check=True, env=env)


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


def time_round(decompile, items, timeout=10.0):
    """One round: ``decompile(item)`` on each item, timed in this thread's CPU time (a load
    on the machine stops a longer function more often); [[seconds, reason]] in order,
    reason ``None`` where it succeeded (an exception's one-line reason where it failed,
    ``timeout`` seconds at most each where the alarm exists)."""
    use_alarm = bool(timeout) and hasattr(signal, "setitimer")
    if use_alarm:
        previous = signal.signal(signal.SIGALRM, _on_alarm)
    times = []
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for item in items:
                if use_alarm:
                    signal.setitimer(signal.ITIMER_REAL, timeout)
                reason = None
                start = time.thread_time()
                try:
                    decompile(item)
                except Exception as exc:
                    reason = _reason(exc)
                finally:
                    elapsed = time.thread_time() - start
                    if use_alarm:
                        signal.setitimer(signal.ITIMER_REAL, 0)
                times.append([elapsed, reason])
    finally:
        if use_alarm:
            signal.signal(signal.SIGALRM, previous)
    return times


def fresh_copies(functions):
    """A ``code.replace()`` copy of each function's code: depyf caches per code object."""
    return [code.replace() for _, code in functions]


def best_of(rounds):
    """Per function, its best time over ``rounds`` (lists from :func:`time_round`) and the
    first round's failure reason: [[seconds, reason]]."""
    return [[min(r[i][0] for r in rounds), rounds[0][i][1]] for i in range(len(rounds[0]))]


def function_sources(codes):
    """The source text of each code object's function (``None`` where it is not found):
    cut from its file by the function's first line and name, dedented, a lambda
    parenthesised.  What the floor of decompile_speed.py parses and prints."""
    by_file = {}
    sources = []
    for code in codes:
        if code.co_filename not in by_file:
            by_file[code.co_filename] = _function_nodes(code.co_filename)
        text, nodes = by_file[code.co_filename]
        found = nodes.get((code.co_firstlineno, code.co_name))
        sources.append(_node_source(text, found[0]) if found else None)
    return sources


def _function_nodes(filename):
    """The file's text, and its function and lambda nodes by (first line, name); none
    for code compiled from a string (``<string>``)."""
    try:
        with open(filename, encoding="utf-8") as f:
            text = f.read()
    except OSError:
        return None, {}
    nodes = {}
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Lambda):
            nodes.setdefault((node.lineno, "<lambda>"), []).append(node)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            first = min([node.lineno] + [d.lineno for d in node.decorator_list])
            nodes.setdefault((first, node.name), []).append(node)
    return text, nodes


def _node_source(text, node):
    if isinstance(node, ast.Lambda):
        return "(%s)" % ast.get_source_segment(text, node)
    first = min([node.lineno] + [d.lineno for d in node.decorator_list])
    source = textwrap.dedent("".join(text.splitlines(True)[first - 1:node.end_lineno]))
    try:
        ast.parse(source)
    except SyntaxError:  # a string in it reaches column 0: keep the indentation under an ``if``
        source = "if 1:\n" + source
    return source


def floor(item):
    """The least a decompiler of ``code`` to ``source`` must do: read every instruction of
    the code and of the code objects in it (``dis.get_instructions``), and parse and print
    the source (``ast.unparse``; on 3.8, which has none, unveil's own printer)."""
    code, source = item
    codes = [code]
    while codes:
        code = codes.pop()
        for _ in dis.get_instructions(code):
            pass
        codes.extend(c for c in code.co_consts if isinstance(c, types.CodeType))
    return _printer()(ast.parse(source))


def _printer():
    if hasattr(ast, "unparse"):
        return ast.unparse
    from unveil.syntax.unparse import unparse  # Python 3.8
    return unparse


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
