"""Random programs as a judge of unveil: hypothesmith generates, unveil decompiles.

    python benchmarks/random_programs.py [--examples N] [--seed S] [--shrink K] [--json OUT]
                                         [--versions [X.Y ...]]

``hypothesmith.from_grammar()`` (PyPI; generated from the Python grammar)
produces syntactically valid programs.  Every program that the running
interpreter compiles is judged twice:

* **module**: the module code object is decompiled (``unveil.decompile_code``),
  the text compiled again, and the two code trees (module, class bodies,
  functions, lambdas, comprehensions, recursively) are compared;
* **function**: every function code object nested anywhere in the program is
  decompiled on its own and recompiled with ``unveil.recompile(source, code)``
  (the path torch.compile's users take), and compared with the original.

The comparison is on *normalised bytecode*: the instruction lists of
tests/roundtrip.py's ``same_bytecode`` (opcode names and argument values; jump
targets, CACHE and EXTENDED_ARG ignored; nested code objects compared
recursively), with NOPs also dropped.  Where the bytecode differs, the next
test is AST equivalence: the decompiled source and the original source parse
to the same AST after normalisation (``ast.dump`` without positions, of
``ast.parse(ast.unparse(...))`` on 3.9+, so that spelling differences vanish).
Where both differ, the last test is behaviour: both programs run (undefined
names the generator uses get harmless values) and their ``f`` (or ``C().f``)
is called on a few fixed argument tuples with a time limit per step; outcomes
(value repr or exception type and message, addresses erased) must be equal.
This check is weak where the generated code fails early (many calls end in the
same ``TypeError``), so "same behaviour" is counted apart from the exact
verdicts.  A program is a *failure* when unveil raises (``DecompilationError``
or a crash), the decompiled text does not compile, the decompiler runs over
the time limit, or the behaviour differs ("mismatch").  Comprehension code
objects are judged through their parent: alone, their ``.0`` parameter has no
source spelling.

Failures are grouped by a signature (the kind, plus the error message with
names and numbers blanked, or the first differing instruction).  For each of
the ``--shrink`` most frequent signatures, ``hypothesis.find`` searches
hypothesmith's space again for a program with that signature and *shrinks* it
(Hypothesis's own shrinker) to a minimal program; if the search does not meet
the signature within its budget, the first program seen is reduced by removing
statements while the signature holds.  Minimal programs are printed: each is a
regression case for tests/cases.

hypothesmith, hypothesis and libcst live in benchmarks/.venv-hypo-X.Y (made on
first use with the running interpreter; the script re-runs itself there).
``--versions`` runs on the pyenv interpreters 3.8-3.13, one after the other.
"""
import argparse
import ast
import collections
import gc
import itertools
import json
import os
import re
import select
import signal
import subprocess
import sys
import time
import types

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import bench_functions  # noqa: E402  (time limit, loading by path; shared with the other benchmarks)
SRC = os.path.join(ROOT, "src")
VENV = os.path.join(HERE, ".venv-hypo-%d.%d" % sys.version_info[:2])
REQUIREMENTS = ("hypothesmith>=0.3",)
LIMIT = 5.0   # seconds for decompiling one program
SHRINK_SECONDS = 20.0   # per failure signature, for each of the two ways of minimising


class _OutOfTime(Exception):
    pass


# --------------------------------------------------------------------------- venv

def ensure_venv():
    """The python of benchmarks/.venv-hypo-X.Y with hypothesmith, made if missing."""
    python = bench_functions.venv_python(VENV)
    check = [python, "-c", "import sys, hypothesmith; print(sys.version)"]
    if os.path.exists(python):
        done = subprocess.run(check, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, universal_newlines=True)
        if done.returncode == 0 and done.stdout.strip() == sys.version.strip():
            return python
    print("setting up hypothesmith in %s ..." % os.path.relpath(VENV), file=sys.stderr, flush=True)
    subprocess.run([sys.executable, "-m", "venv", "--clear", VENV], check=True)
    env = dict(os.environ, PIP_DISABLE_PIP_VERSION_CHECK="1", PIP_ROOT_USER_ACTION="ignore")
    subprocess.run([python, "-m", "pip", "install", "-q", "-c", bench_functions.CONSTRAINTS] + list(REQUIREMENTS),
                   check=True, env=env)
    return python


# --------------------------------------------------------------------------- judging one program

_DROP = ("CACHE", "EXTENDED_ARG", "NOP")
_ROUNDTRIP = []


def instructions(code, nested=True):
    """tests/roundtrip.py's comparable instruction list, NOPs dropped."""
    if not _ROUNDTRIP:  # loaded on first use: it imports unveil, put on sys.path by main()
        _ROUNDTRIP.append(bench_functions.load_by_path("_unveil_roundtrip", os.path.join(ROOT, "tests", "roundtrip.py")))
    return _ROUNDTRIP[0].instructions(code, _DROP, nested)


def code_difference(c1, c2, path="module"):
    """Where two code trees first differ: "module.f.<listcomp>: STORE_FAST argument differs"."""
    flat = lambda c: [(op, arg if not arg.startswith("('code'") else "code") for op, arg in instructions(c, nested=False)]
    a, b = flat(c1), flat(c2)
    if a != b:
        return "%s: %s" % (path, first_difference(a, b))
    n1 = [k for k in c1.co_consts if isinstance(k, types.CodeType)]
    n2 = [k for k in c2.co_consts if isinstance(k, types.CodeType)]
    for k1, k2 in zip(n1, n2):
        if instructions(k1) != instructions(k2):
            return code_difference(k1, k2, path + "." + k1.co_name)
    return "%s: nested code differs" % path


def first_difference(a, b):
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return "%s != %s" % (x[0], y[0]) if x[0] != y[0] else "%s argument differs" % x[0]
    return "length %d != %d" % (len(a), len(b))


def normal_ast(source):
    tree = ast.parse(source)
    if hasattr(ast, "unparse"):
        tree = ast.parse(ast.unparse(tree))
    return ast.dump(tree, annotate_fields=True, include_attributes=False)


def nested_functions(code):
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            if c.co_flags & 0x2:   # CO_NEWLOCALS: a function, lambda or comprehension
                yield c
            yield from nested_functions(c)


_BLANK = re.compile(r"'[^']*'|\"[^\"]*\"|\b\d+\b|\b(in|of|decompiling|at) [\w<>.]+")


def blank(message):
    return _BLANK.sub(lambda m: (m.group(1) + " _") if m.group(1) else "_", message)[:160]


_COMPREHENSIONS = ("<listcomp>", "<setcomp>", "<dictcomp>", "<genexpr>")


def judge(unveil, source, code=None):
    """Verdict on one program: (kind, signature, detail).  kind is one of ok,
    ast-equivalent, failure kinds (decompile-error, recompile-error, timeout,
    mismatch)."""
    if code is None:
        code = compile(source, "<hypothesmith>", "exec", dont_inherit=True)
    verdicts = []
    # the module as a whole
    try:
        dec = bench_functions.with_time_limit(LIMIT, unveil.decompile_code, code)
    except bench_functions.TimeLimit:
        return ("timeout", "module: decompile timed out", "")
    except Exception as exc:
        return ("decompile-error", "module: %s: %s" % (type(exc).__name__, blank(str(exc))), str(exc)[:300])
    try:
        new = compile(dec.source, "<hypothesmith>", "exec", dont_inherit=True)
    except Exception as exc:
        return ("recompile-error", "module: %s: %s" % (type(exc).__name__, blank(str(exc))), dec.source)
    a, b = instructions(code), instructions(new)
    if a != b:
        try:
            same_ast = normal_ast(source) == normal_ast(dec.source)
        except Exception:
            same_ast = False
        if not same_ast:
            where = re.sub(r"\.(?!<)\w+", ".f", code_difference(code, new))  # names blanked
            original, decompiled = isolated_behaviour(code), isolated_behaviour(new)
            if original != decompiled:
                return ("mismatch", where, "%s\n# original: %s\n# decompiled: %s"
                        % (dec.source, original, decompiled))
            verdicts.append("same-behaviour")
        else:
            verdicts.append("ast-equivalent")
    # every function on its own; comprehensions are judged through their parent above
    # (their ".0" parameter has no source spelling, so alone they cannot keep the frame layout)
    for fn in nested_functions(code):
        if fn.co_name in _COMPREHENSIONS:
            continue
        label = "function" if fn.co_name != "<lambda>" else fn.co_name
        try:
            d = bench_functions.with_time_limit(LIMIT, unveil.decompile_code, fn)
            r = unveil.recompile(d.source, fn)
        except bench_functions.TimeLimit:
            return ("timeout", "%s: decompile timed out" % label, "")
        except Exception as exc:
            kind = "recompile-error" if "does not compile" in str(exc) or "frame layout" in str(exc) else "decompile-error"
            return (kind, "%s: %s: %s" % (label, type(exc).__name__, blank(str(exc))), str(exc)[:300])
        fa, fb = instructions(fn), instructions(r)
        if fa != fb:
            verdicts.append("function bytecode differs")   # the module's comparison already judged it
    for verdict in ("same-behaviour", "ast-equivalent"):
        if verdict in verdicts:
            return (verdict, "", "")
    return ("ok", "", "")


#: the calls a program's ``f`` (or ``C().f``) gets when its bytecode and AST both differ
CALLS = ((0, 1), (3, [1, 2]), ("ab", None), ([1, 2, 3], 2, 5), (-1, 0, None, 7), (2.5, "x"))
_ADDRESS = re.compile(r" at 0x[0-9a-f]+")


def behaviour(code):
    """What running ``code`` and calling its ``f`` on :data:`CALLS` does, as comparable text.

    Names the generated programs use but never define get harmless values; each
    step has a time limit (an endless loop in both is "the same")."""
    namespace = {"__name__": "hypothesmith", "E": ValueError, "F": KeyError, "B": object}

    def outcome(fn):
        try:
            value = bench_functions.with_time_limit(1.0, fn)
            if isinstance(value, types.GeneratorType):
                value = bench_functions.with_time_limit(1.0, lambda: list(itertools.islice(value, 50)))
            return "value " + _ADDRESS.sub("", repr(value))[:200]
        except bench_functions.TimeLimit:
            return "timeout"
        except BaseException as exc:  # the program's own exceptions are outcomes too
            return "raise %s: %s" % (type(exc).__name__, _ADDRESS.sub("", str(exc))[:200])

    results = [outcome(lambda: exec(code, namespace))]
    target = namespace.get("f")
    if target is None and isinstance(namespace.get("C"), type):
        instance = outcome(lambda: namespace["C"]())
        results.append(instance)
        if instance.startswith("value"):
            target = getattr(bench_functions.with_time_limit(1.0, namespace["C"]), "f", None)
    if callable(target):
        results += [outcome(lambda args=args: target(*args)) for args in CALLS]
    return results


#: seconds a program's whole behaviour may take, in a child process that is then killed
HARD_LIMIT = 30.0


def isolated_behaviour(code):
    """:func:`behaviour` in a forked child, killed after :data:`HARD_LIMIT` seconds.

    A generated program can spend minutes in one C call (``10 ** 10 ** 8``) that no
    signal interrupts; a killed run is the outcome "killed", so two programs that
    both hang are the same.  Without ``fork`` it runs here."""
    if not hasattr(os, "fork"):
        return behaviour(code)
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: report and leave without running any cleanup of the parent's
        try:
            os.close(read)
            with os.fdopen(write, "wb") as out:
                out.write(json.dumps(behaviour(code)).encode())
        finally:
            os._exit(0)
    os.close(write)
    data, deadline = b"", time.time() + HARD_LIMIT
    try:
        while True:
            left = deadline - time.time()
            if left <= 0 or not select.select([read], [], [], left)[0]:
                os.kill(pid, signal.SIGKILL)
                return ["killed after %.0f s" % HARD_LIMIT]
            chunk = os.read(read, 1 << 16)
            if not chunk:
                break
            data += chunk
    finally:
        os.close(read)
        os.waitpid(pid, 0)
    try:
        return json.loads(data.decode())
    except ValueError:
        return ["the child died without a result"]


FAILURES = ("decompile-error", "recompile-error", "timeout", "mismatch")


# --------------------------------------------------------------------------- strategies

NAMES = ("a", "b", "c", "x", "y", "i")


def structured_strategy():
    """Functions with control flow, built by Hypothesis around hypothesmith's expressions.

    ``from_grammar()`` alone yields mostly blank lines, comments, names and
    ``from`` imports (in 500 examples: not one ``def``), which exercise little
    of a bytecode decompiler.  This strategy draws statement skeletons (if/elif/
    else, while and for with else/break/continue, try/except/else/finally, with,
    nested closures, comprehensions, lambdas, yield, return) and fills every
    expression slot with either a local name or
    ``hypothesmith.from_grammar(start="eval_input")``, all inside
    ``def f(a, b, c=None, *args, **kw)`` (sometimes a method of a class).  It is
    one Hypothesis strategy, so failures shrink like any other.
    """
    import hypothesmith
    from hypothesis import strategies as st

    def compiles_as_expression(text):
        try:
            compile(text, "<e>", "eval", dont_inherit=True)
            return len(text) <= 60 and "\n" not in text
        except Exception:
            return False
    grammar_expr = hypothesmith.from_grammar(start="eval_input").map(str.strip).filter(compiles_as_expression)
    name = st.sampled_from(NAMES)
    atom = st.one_of(name, st.integers(-3, 300).map(str), st.sampled_from(["None", "True", "'s'", "()", "[]"]))
    binop = st.sampled_from(["+", "-", "*", "//", "%", "<<", "&", "|", "^", "and", "or", "<", "==", "is not", "in"])

    @st.composite
    def expression(draw, depth=0):
        kind = draw(st.integers(0, 9 if depth < 2 else 2))
        if kind <= 1:
            return draw(atom)
        if kind == 2:
            return draw(grammar_expr)
        if kind == 3:
            return "(%s %s %s)" % (draw(expression(depth + 1)), draw(binop), draw(expression(depth + 1)))
        if kind == 4:
            return "(%s if %s else %s)" % tuple(draw(expression(depth + 1)) for _ in range(3))
        if kind == 5:
            return "%s(%s)" % (draw(name), ", ".join(draw(st.lists(expression(depth + 1), max_size=3))))
        if kind == 6:
            return "[%s for %s in %s if %s]" % (draw(expression(depth + 1)), draw(name), draw(expression(depth + 1)),
                                               draw(expression(depth + 1)))
        if kind == 7:
            return "(lambda %s: %s)" % (draw(name), draw(expression(depth + 1)))
        if kind == 8:
            return "%s.%s[%s]" % (draw(name), draw(name), draw(expression(depth + 1)))
        return "not %s" % draw(expression(depth + 1))

    @st.composite
    def block(draw, indent, depth, in_loop):
        stmts = draw(st.lists(statement(indent, depth, in_loop), min_size=1, max_size=4 if depth < 2 else 2))
        return "\n".join(stmts)

    @st.composite
    def statement(draw, indent, depth, in_loop):
        pad = " " * indent
        simple = draw(st.integers(0, 14 if depth < 3 else 5))
        e = lambda: draw(expression())
        body = lambda loop=in_loop: draw(block(indent + 4, depth + 1, loop))
        if simple == 0:
            return "%s%s = %s" % (pad, draw(name), e())
        if simple == 1:
            return "%s%s += %s" % (pad, draw(name), e())
        if simple == 2:
            return "%s%s" % (pad, e())
        if simple == 3:
            return "%sreturn %s" % (pad, e())
        if simple == 4:
            return pad + (draw(st.sampled_from(["break", "continue"])) if in_loop else "pass")
        if simple == 5:
            return "%s%s, %s = %s, %s" % (pad, draw(name), draw(name), e(), e())
        if simple == 6:
            text = "%sif %s:\n%s" % (pad, e(), body())
            for _ in range(draw(st.integers(0, 2))):
                text += "\n%selif %s:\n%s" % (pad, e(), body())
            if draw(st.booleans()):
                text += "\n%selse:\n%s" % (pad, body())
            return text
        if simple == 7:
            text = "%swhile %s:\n%s" % (pad, e(), body(True))
            return text + ("\n%selse:\n%s" % (pad, body()) if draw(st.booleans()) else "")
        if simple == 8:
            text = "%sfor %s in %s:\n%s" % (pad, draw(name), e(), body(True))
            return text + ("\n%selse:\n%s" % (pad, body()) if draw(st.booleans()) else "")
        if simple == 9:
            text = "%stry:\n%s" % (pad, body())
            handlers = draw(st.integers(0 if True else 1, 2))
            for _ in range(handlers):
                text += "\n%sexcept %s as %s:\n%s" % (pad, draw(st.sampled_from(["E", "(E, F)", "Exception"])),
                                                     draw(st.sampled_from(["err", "exc"])), body())
            if handlers and draw(st.booleans()):
                text += "\n%selse:\n%s" % (pad, body())
            if not handlers or draw(st.booleans()):
                text += "\n%sfinally:\n%s" % (pad, body())
            return text
        if simple == 10:
            return "%swith %s as %s:\n%s" % (pad, e(), draw(name), body())
        if simple == 11:
            inner = draw(block(indent + 4, depth + 1, False))
            return "%sdef g(%s):\n%snonlocal_dummy = %s\n%s\n%sa = g(%s)" % (
                pad, draw(name), " " * (indent + 4), draw(name), inner, pad, e())
        if simple == 12:
            return "%s%s = yield %s" % (pad, draw(name), e())
        if simple == 13:
            return "%sassert %s, %s" % (pad, e(), e())
        return "%sdel %s" % (pad, draw(name))

    @st.composite
    def program(draw):
        body = draw(block(4, 0, False))
        text = "def f(a, b, c=None, *args, **kw):\n    x = y = i = None\n%s\n" % body
        if draw(st.booleans()):
            text = "class C(B):\n" + "\n".join("    " + l if l else l for l in text.splitlines()) \
                   .replace("def f(a,", "def f(self, a,", 1) + "\n"
        return text
    return program()


def strategy_for(name):
    import hypothesmith
    return hypothesmith.from_grammar() if name == "grammar" else structured_strategy()


# --------------------------------------------------------------------------- shrinking

def reduce_statements(source, keep):
    """Greedy reduction: drop statements (or replace a body by ``pass``) while ``keep(src)`` holds."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return source
    if not hasattr(ast, "unparse"):
        return source
    changed = True
    while changed:
        changed = False
        bodies = [node for node in ast.walk(tree) for field in ("body", "orelse", "finalbody", "handlers")
                  if isinstance(getattr(node, field, None), list)]
        for node in bodies:
            for field in ("body", "orelse", "finalbody"):
                stmts = getattr(node, field, None)
                if not isinstance(stmts, list):
                    continue
                for i in range(len(stmts)):
                    trial = stmts[:i] + stmts[i + 1:]
                    if not trial and (field == "body" and not isinstance(node, ast.Module)):
                        trial = [ast.Pass()]
                    old = stmts[:]
                    setattr(node, field, trial)
                    try:
                        text = ast.unparse(tree)
                        ok = keep(text)
                    except Exception:
                        ok = False
                    if ok:
                        changed = True
                        break
                    setattr(node, field, old)
                if changed:
                    break
            if changed:
                break
    return ast.unparse(tree)


def shrink(unveil, strategy, signature, seen_source, budget):
    """A minimal program whose verdict has ``signature``: Hypothesis's shrinker, else reduction."""
    from hypothesis import HealthCheck, Phase, find, settings
    from hypothesis.errors import NoSuchExample

    deadline = time.time() + SHRINK_SECONDS

    def has_signature(src):
        if time.time() > deadline:
            raise _OutOfTime()
        try:
            code = compile(src, "<hypothesmith>", "exec", dont_inherit=True)
        except Exception:
            return False
        try:
            return judge(unveil, src, code)[1] == signature
        except Exception:
            return False
    try:
        found = find(strategy, has_signature,
                     settings=settings(max_examples=budget, deadline=None, database=None,
                                       suppress_health_check=list(HealthCheck),
                                       phases=[Phase.generate, Phase.shrink]))
        return found, "hypothesis"
    except (NoSuchExample, _OutOfTime, Exception):
        pass
    deadline = time.time() + SHRINK_SECONDS
    try:
        return reduce_statements(seen_source, has_signature), "statement reduction"
    except _OutOfTime:
        return seen_source, "not reduced (out of time)"


# --------------------------------------------------------------------------- running

#: address space for a run: generated programs may build huge values in one C call
#: (``'s' * 10**10``), which no time limit interrupts; past this they raise MemoryError
MEMORY_LIMIT = 6 << 30
BATCH = 500


def limit_memory():
    try:
        import resource
    except ImportError:
        return
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    if soft == resource.RLIM_INFINITY or soft > MEMORY_LIMIT:
        resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, hard))


def run(args):
    sys.path.insert(0, SRC)
    import unveil

    limit_memory()

    results = []
    names = ["grammar", "structured"] if args.strategy == "both" else [args.strategy]
    for i, sname in enumerate(names):
        n = args.examples // len(names) + (1 if i < args.examples % len(names) else 0)
        results.append(run_strategy(unveil, sname, n, args))
    return {"python": sys.version.split()[0], "examples": args.examples, "strategies": results}


def run_strategy(unveil, sname, examples, args):
    from hypothesis import HealthCheck, Phase, given, settings, seed as hyp_seed
    strategy = strategy_for(sname)
    counts = collections.Counter()
    groups = collections.OrderedDict()
    seconds = {"generate+judge": 0.0, "shrink": 0.0}

    def judge_one(source):
        counts["generated"] += 1
        if counts["generated"] % 500 == 0:
            print("  %s: %d programs, %d failures" % (sname, counts["generated"], sum(counts[k] for k in FAILURES)),
                  file=sys.stderr, flush=True)
        try:
            code = compile(source, "<hypothesmith>", "exec", dont_inherit=True)
        except (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError):
            counts["does not compile"] += 1
            return
        counts["compiled"] += 1
        try:
            kind, sig, detail = judge(unveil, source, code)
        except RecursionError:
            kind, sig, detail = "decompile-error", "RecursionError", ""
        except MemoryError:  # a program's huge value, past MEMORY_LIMIT: a resource limit, like a timeout
            gc.collect()
            kind, sig, detail = "timeout", "judge ran out of memory", ""
        counts[kind] += 1
        if kind in FAILURES:
            g = groups.setdefault(sig, {"kind": kind, "count": 0, "example": source, "detail": detail})
            g["count"] += 1

    t0 = time.time()
    import warnings
    # batches of BATCH examples: Hypothesis keeps what one run explored, which grew
    # past 13 GB over 5,000 structured programs; batch k > 0 gets seed*1000003+k
    for k, start in enumerate(range(0, examples, BATCH)):
        generate = settings(max_examples=min(BATCH, examples - start), deadline=None, database=None,
                            suppress_health_check=list(HealthCheck), phases=[Phase.generate])(
            given(strategy)(judge_one))
        if args.seed is not None:
            generate = hyp_seed(args.seed if k == 0 else args.seed * 1000003 + k)(generate)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            generate()
    seconds["generate+judge"] = round(time.time() - t0, 1)

    t0 = time.time()
    ranked = sorted(groups.items(), key=lambda kv: -kv[1]["count"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for sig, g in ranked[:args.shrink]:
            minimal, how = shrink(unveil, strategy, sig, g["example"], args.shrink_budget)
            g["minimal"], g["shrunk_by"] = minimal, how
    seconds["shrink"] = round(time.time() - t0, 1)
    failures = sum(counts[k] for k in FAILURES)
    return {"strategy": sname, "examples": examples, "counts": dict(counts),
            "failures": failures, "signatures": [dict(g, signature=s) for s, g in ranked],
            "seconds": seconds}


def report(res, show=10):
    lines = ["Python %s: %d programs" % (res["python"], res["examples"]), "",
             "| strategy | generated | compiled | same bytecode | AST-equivalent | same behaviour "
             "| decompile error | recompile error | timeout | different behaviour | failures | seconds |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in res["strategies"]:
        c = r["counts"]
        judged = c.get("compiled", 0)
        lines.append("| %s | %d | %d | %d | %d | %d | %d | %d | %d | %d | %d (%.1f%%) | %.0f+%.0f |" % (
            r["strategy"], c.get("generated", 0), judged, c.get("ok", 0), c.get("ast-equivalent", 0),
            c.get("same-behaviour", 0),
            c.get("decompile-error", 0), c.get("recompile-error", 0), c.get("timeout", 0), c.get("mismatch", 0),
            r["failures"], 100.0 * r["failures"] / judged if judged else 0.0,
            r["seconds"]["generate+judge"], r["seconds"]["shrink"]))
    for r in res["strategies"]:
        lines += ["", "%s: %d distinct failure signatures%s" % (
            r["strategy"], len(r["signatures"]), "; the most frequent:" if r["signatures"] else "")]
        for g in r["signatures"][:show]:
            lines.append("  %5d  [%s] %s" % (g["count"], g["kind"], g["signature"]))
            if "minimal" in g:
                lines.append("         minimal program (%s):" % g["shrunk_by"])
                lines += ["           | " + l for l in g["minimal"].splitlines()[:15]]
            elif g["kind"] == "mismatch" and g.get("example"):
                lines.append("         first program (not minimised):")
                lines += ["           | " + l for l in g["example"].splitlines()[:25]]
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--examples", type=int, default=10000, help="programs to generate (default 10000)")
    parser.add_argument("--seed", type=int, help="Hypothesis seed (default: random)")
    parser.add_argument("--strategy", choices=("grammar", "structured", "both"), default="both",
                        help="hypothesmith.from_grammar() programs, functions built around its expressions, "
                             "or half of each (default)")
    parser.add_argument("--shrink", type=int, default=5, help="failure signatures to minimise (default 5)")
    parser.add_argument("--shrink-budget", type=int, default=300,
                        help="examples hypothesis.find may try per signature (default 300)")
    parser.add_argument("--show", type=int, default=10, help="failure signatures to print (default 10)")
    parser.add_argument("--json", help="write the results to this JSON file")
    parser.add_argument("--versions", nargs="*", metavar="X.Y", help="run on these pyenv interpreters (default 3.8-3.13)")
    parser.add_argument("--in-venv", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()

    if args.versions is not None:
        cmd = ["--examples", str(args.examples), "--shrink", str(args.shrink),
               "--shrink-budget", str(args.shrink_budget), "--show", str(args.show), "--strategy", args.strategy]
        cmd += ["--seed", str(args.seed)] if args.seed is not None else []
        results = bench_functions.run_each_version(__file__, args.versions, cmd)
        if args.json:
            with open(args.json, "w") as f:
                json.dump(results, f, indent=1)
        return

    if not args.in_venv:
        try:
            import hypothesmith  # noqa: F401  (already available: run here)
        except ImportError:
            python = ensure_venv()
            return subprocess.call([python, os.path.abspath(__file__), "--in-venv"] + sys.argv[1:])
    res = run(args)
    print(report(res, args.show))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(res, f, indent=1)


if __name__ == "__main__":
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 5000))
    sys.exit(main())
