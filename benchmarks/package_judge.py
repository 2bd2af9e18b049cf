"""PyPI packages' own test suites as the judge of their modules decompiled whole.

    python benchmarks/package_judge.py                                  # every package, Python 3.8, 3.11, 3.12, 3.13
    python benchmarks/package_judge.py --versions 3.11 --packages six cachetools
    python benchmarks/package_judge.py --python PY --no-install --packages six   # an interpreter that has them
    options: --sabotage (the negative control), --json OUT, --timeout S (per pytest run),
             --keep DIR (keep the decompiled trees and pytest logs there), --quiet

For each package of PACKAGES (pinned, pure Python) and each Python:

1. a venv ``benchmarks/.venv-pkgjudge-X.Y`` gets pytest, pytest-timeout, the pinned
   packages and their test dependencies (``.ci/constraints.txt`` and the pins below);
   the package's sdist (``pip download --no-binary :all: --no-deps``) is unpacked in
   ``benchmarks/.venv-pkgjudge-cache/`` for its tests;
2. a worker under that Python copies the installed package (``importlib.util.find_spec``,
   not imported) to a fresh tree and replaces every ``.py`` file by the text unveil
   decompiles from the file's **module code object** (``compile``, then
   ``unveil.decompile_code``: the source is never looked at), from a snapshot of
   ``src/unveil`` taken when the driver starts.  A file unveil refuses
   (``DecompilationError``), crashes on (``InternalError``, the time limit), whose text
   does not compile, or whose text needs bindings (objects with no source form) keeps its
   original text and is reported;
3. the package's tests (copied from the sdist, with its pytest configuration, to a
   directory holding nothing else, so that only the installed package can be imported)
   run under pytest twice, in fresh processes with ``PYTHONDONTWRITEBYTECODE=1``, each with
   a tree first on ``PYTHONPATH``: a copy of the installed package (the original) and the
   decompiled tree, at paths that differ in one digit only (``install-1``, ``install-2``:
   a test may read the package's path).  A plugin (``package_judge_plugin.py``) records every test's outcome
   and the file every module of the package was imported from: a run that imported one
   from anywhere else is an error of the judge, never a pass.

A package whose code reads its own line numbers (``Package.original_lines`` says why;
``--original-lines`` for all) runs the decompiled text compiled by ``unveil.recompile`` with
its statements on their original lines: a timestamp ``.pyc`` beside each text, which the
import system takes instead of compiling the text.

A test **regresses** when it passed (or failed as expected) on the original and did not do
the same on the decompiled tree: it failed, errored, was skipped, or did not run.  The exit
status is 1 when a test regressed, a module was refused, crashed or did not recompile, or a
run imported the package from the wrong place.

``--sabotage`` is the negative control: after decompiling, one comparison of each module is
negated (``==`` becomes ``!=``, ``<`` becomes ``>=``, ...: the first in a function, else the
first at module level; still valid Python); the judge must then report regressions, and a
run in which no module could be sabotaged fails.
"""
import argparse
import ast
import collections
import io
import itertools
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
import tokenize
import warnings
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
CONSTRAINTS = os.path.join(ROOT, ".ci", "constraints.txt")
CACHE = os.path.join(HERE, ".venv-pkgjudge-cache")
PLUGIN = os.path.join(HERE, "package_judge_plugin.py")
RECORDS = os.path.join(HERE, "pytest_records.py")   # what the plugin imports
VERSIONS = ("3.8", "3.11", "3.12", "3.13")
#: seconds unveil may take on one module
DECOMPILE_LIMIT = 300


class Package(collections.namedtuple("Package", "dist version modules tests copy deps pytest_args original_lines")):
    """A PyPI distribution: ``modules`` its top-level import names (decompiled), ``tests``
    the paths of its sdist that pytest runs, ``copy`` other paths of the sdist the tests
    need (configuration, conftest.py, example data; never the package's own source),
    ``deps`` what its tests import beyond pytest (pinned here, or in .ci/constraints.txt),
    ``pytest_args`` options for its run; ``original_lines``: why its code must run on its
    original line numbers (see ``--original-lines``), or None."""

    def __new__(cls, dist, version, modules, tests, copy, deps, pytest_args, original_lines=None):
        return super().__new__(cls, dist, version, modules, tests, copy, deps, pytest_args, original_lines)


#: every version supports Python 3.8 to 3.13; each suite runs offline in seconds to a minute
PACKAGES = collections.OrderedDict((p.dist, p) for p in [
    Package("six", "1.17.0", ["six"], ["test_six.py"], ["setup.cfg"], [], []),
    Package("more-itertools", "10.5.0", ["more_itertools"], ["tests"], [], [], []),
    Package("cachetools", "5.5.0", ["cachetools"], ["tests"], [], [], []),
    Package("packaging", "24.2", ["packaging"], ["tests"], ["pyproject.toml"], ["pretend==1.0.9"], []),
    Package("idna", "3.10", ["idna"], ["tests"], [], [], []),
    Package("tabulate", "0.9.0", ["tabulate"], ["test"], [], [], []),
    Package("wcwidth", "0.2.13", ["wcwidth"], ["tests"], [], [], []),
    # its tests/conftest.py only leaves out Python 2's files, in a hook pytest 9 no longer takes
    Package("boltons", "24.1.0", ["boltons"], ["tests"], ["pytest.ini"], [], ["--noconftest"]),
    # jinja2 (for pyparsing.diagram) is pinned in .ci/constraints.txt with markupsafe 3.0.4, which needs 3.9
    Package("pyparsing", "3.1.4", ["pyparsing"], ["tests"], ["examples"],
            ["railroad-diagrams==3.0.1", "jinja2; python_version >= '3.9'"], [],
            original_lines="core._trim_arity tells a parse action's TypeError from its own by the line numbers of "
                           "two of its statements (LINE_DIFF = 9, 'if any code changes, even just comments or "
                           "blank lines, ... LINE_DIFF must be modified')"),
    # pytest-cov registers the mark no_cover, which setup.cfg's warnings-are-errors would refuse
    Package("python-dateutil", "2.9.0.post0", ["dateutil"], ["tests"], ["setup.cfg"],
            ["freezegun==1.5.1", "hypothesis"], ["-W", "ignore::pytest.PytestUnknownMarkWarning"]),
    Package("attrs", "24.2.0", ["attr", "attrs"], ["tests"], ["conftest.py", "pyproject.toml"], ["hypothesis"], []),
    Package("tomlkit", "0.13.2", ["tomlkit"], ["tests"], [], [], []),
    # its Pygments tests run only beside the Pygments its tox pins (PYGMENTS_VERSION): skipped on both trees
    Package("markdown", "3.7", ["markdown"], ["tests"], [],
            ["pyyaml==6.0.2", "importlib-metadata==8.5.0; python_version < '3.10'",
             "zipp==3.20.2; python_version < '3.10'"], []),
    # setup.cfg makes warnings errors, and pytest 9 warns of the iterator one test parametrizes with
    Package("click", "8.1.7", ["click"], ["tests"], ["setup.cfg"], [],
            ["-W", "ignore:Passing a non-Collection iterable to parametrize"]),
    # its tests live inside the package: the installed copies are decompiled with the rest
    Package("toolz", "1.0.0", ["toolz", "tlz"], ["toolz/tests"], [], [], []),
    Package("pyflakes", "3.2.0", ["pyflakes"], ["pyflakes/test"], [], [], []),
    Package("sqlparse", "0.5.1", ["sqlparse"], ["tests"], [], [], []),
    Package("parso", "0.8.4", ["parso"], ["test"], ["conftest.py", "pytest.ini"], [], []),
    Package("pycparser", "2.22", ["pycparser"], ["tests"], ["examples", "utils"], [], []),
    # its standalone tool copies the code between ``###{standalone`` and ``###}`` comments out
    # of its own source files, which no decompiled text has (KeyError: 'standalone')
    Package("lark", "1.2.2", ["lark"], ["tests"], [], [], ["--deselect", "tests/test_tools.py::TestStandalone"]),
    Package("mpmath", "1.3.0", ["mpmath"], ["mpmath/tests"], [], [], []),
    # test.py detects the encoding of every file under tests/; one of its hypothesis tests
    # fails on some random inputs on both trees (detect and detect_all disagree on
    # '\x80\U00010000'), so hypothesis draws the same inputs in both runs
    Package("chardet", "5.2.0", ["chardet"], ["test.py"], ["tests"], [], ["--hypothesis-seed=0"]),
    Package("soupsieve", "2.6", ["soupsieve"], ["tests"], [],
            ["beautifulsoup4==4.12.3", "lxml==5.3.0", "html5lib==1.1"], []),
    Package("natsort", "8.4.0", ["natsort"], ["tests"], [], ["pytest-mock==3.14.0", "hypothesis"], []),
    Package("xmltodict", "0.14.2", ["xmltodict"], ["tests"], [], [], []),
    # its tests are src/tests/test.py, a name pytest does not collect unless told
    Package("decorator", "5.1.1", ["decorator"], ["src/tests"], [], [], ["-o", "python_files=test.py"]),
    # two of its tests expect the Pygments of its own day (failing on both trees alike)
    Package("docutils", "0.20.1", ["docutils"], ["test"], ["HISTORY.txt"], [], []),
    Package("pyasn1", "0.6.1", ["pyasn1"], ["tests"], [], [], []),
    Package("configobj", "5.0.9", ["configobj", "validate"], ["src/tests"], [], [], []),
    Package("jmespath", "1.0.1", ["jmespath"], ["tests"], [], [], []),
    Package("cssselect", "1.2.0", ["cssselect"], ["tests"], [], ["lxml==5.3.0"], []),
    Package("rfc3986", "2.0.0", ["rfc3986"], ["tests"], [], [], []),
    Package("bottle", "0.13.2", ["bottle"], ["test"], [], [], []),
    Package("itsdangerous", "2.2.0", ["itsdangerous"], ["tests"], ["pyproject.toml"], ["freezegun==1.5.1"], []),
    Package("PyYAML", "6.0.2", ["yaml"], ["tests/legacy_tests"], [], [], []),
    # markupsafe 2.1.5 supports 3.8 (the constraints' 3.0.4 needs 3.9); jinja2 3.1.6 takes either
    Package("Jinja2", "3.1.6", ["jinja2"], ["tests"], ["pyproject.toml"], ["markupsafe==2.1.5", "trio==0.26.2"], []),
    Package("funcy", "2.0", ["funcy"], ["tests"], [], ["whatever==0.7"], []),
    # not its pyproject.toml: its warning filters name coverage's warnings, and pytest refuses them without coverage
    Package("humanize", "4.10.0", ["humanize"], ["tests"], [], ["freezegun==1.5.1"], []),
    # its tests live inside the package: the installed copies are decompiled with the rest
    Package("simplejson", "3.19.3", ["simplejson"], ["simplejson/tests"], [], [], []),
    Package("pytz", "2024.2", ["pytz"], ["pytz/tests"], [], [], []),
    # one test's parameters hold the time of day (datetime.now() in its ids), so no id is in both runs
    Package("marshmallow", "3.22.0", ["marshmallow"], ["tests"], ["pyproject.toml"],
            ["pytz==2024.2", "simplejson==3.19.3"],
            ["--deselect", "tests/test_deserialization.py::TestFieldDeserialization::test_invalid_datetime_deserialization"]),
    # the tests sit in src/ beside the module, which is not copied
    Package("typing_extensions", "4.12.2", ["typing_extensions"],
            ["src/test_typing_extensions.py", "src/_typed_dict_test_helper.py"], [], [], []),
    # its vectors are C (pvectorc) when the extension is there, as it is in the wheel; tests are *_test.py
    Package("pyrsistent", "0.20.0", ["pyrsistent", "_pyrsistent_version"], ["tests"], [], ["hypothesis"],
            ["-o", "python_files=*_test.py"]),
    Package("platformdirs", "4.3.6", ["platformdirs"], ["tests"], [], ["appdirs==1.4.4", "pytest-mock==3.14.0"], []),
    # its JSON-Schema-Test-Suite lies beside the sdist's package, never the installed one
    # (test_jsonschema_test_suite.py raises ValueError at collection on both trees)
    Package("jsonschema", "4.23.0", ["jsonschema"], ["jsonschema/tests"], [],
            ["attrs==24.2.0", "jsonschema-specifications==2023.12.1", "referencing==0.35.1", "rpds-py==0.20.0"],
            ["--ignore", "jsonschema/tests/test_jsonschema_test_suite.py"]),
    # the constraints pin the report's Pygments 2.21.0, which needs 3.9; its tests read their golden
    # outputs (examplefiles, snippets) from the tests' own directory; tests/contrast needs
    # wcag-contrast-ratio, left out (a collection error on both trees)
    Package("Pygments", "2.18.0", ["pygments"], ["tests"], ["pyproject.toml"], [], []),
    Package("inflection", "0.5.1", ["inflection"], ["test_inflection.py"], [], [], []),
    # test_date.py parametrizes over a set of tuples holding None, whose hash is its address
    # before 3.12: the test ids (expected4, expected21) differ from run to run there
    Package("isodate", "0.7.2", ["isodate"], ["tests"], [], [], ["--ignore", "tests/test_date.py"]),
    # its test of hypothesmith's random programs draws the same programs in both runs
    Package("mccabe", "0.7.0", ["mccabe"], ["test_mccabe.py"], [], ["hypothesis", "hypothesmith"],
            ["--hypothesis-seed=0"]),
    Package("mistune", "3.0.2", ["mistune"], ["tests"], [], [], []),
    # not its pytest.ini: it doctests the README and every .py file beside the tests, setup.py too
    Package("ordered-set", "4.1.0", ["ordered_set"], ["test"], [], [], []),
    Package("parse", "1.20.2", ["parse"], ["tests"], [], [], []),
    # not its setup.cfg: its pytest options ask for coverage
    Package("semver", "3.0.2", ["semver"], ["tests"], [], ["packaging==24.2"], []),
    Package("texttable", "1.7.0", ["texttable"], ["tests.py"], [], [], []),
    # its pyproject.toml: the "acceptance" mark left out, warnings made errors
    Package("astroid", "3.2.4", ["astroid"], ["tests"], ["pyproject.toml"], ["typing_extensions==4.12.2"], []),
    Package("arrow", "1.3.0", ["arrow"], ["tests"], [],
            ["python-dateutil==2.9.0.post0", "types-python-dateutil==2.9.0.20241003", "pytz==2024.2",
             "simplejson==3.19.3", "pytest-mock==3.14.0"], []),
    Package("prompt_toolkit", "3.0.48", ["prompt_toolkit"], ["tests"], [], ["wcwidth==0.2.13"], []),
    # two of its test files need duckdb and pandas, left out
    Package("sqlglot", "25.24.0", ["sqlglot"], ["tests"], [], [],
            ["--ignore", "tests/test_executor.py", "--ignore", "tests/test_optimizer.py"]),
])
#: what every run needs: pinned in .ci/constraints.txt
RUNNER = ["pytest", "pytest-timeout"]


# --------------------------------------------------------------------------- venvs and sdists

def pyenv_python(version):
    sys.path.insert(0, HERE)
    import bench_functions
    python = bench_functions.interpreter(version)
    if python is None:
        raise SystemExit("no interpreter for Python %s" % version)
    return python


def venv_dir(version):
    return os.path.join(HERE, ".venv-pkgjudge-%s" % version)


def requirements(packages):
    reqs = list(RUNNER)
    for p in packages:
        reqs.append("%s==%s" % (p.dist, p.version))
        reqs += [d for d in p.deps if d not in reqs]
    return reqs


def ensure_venv(version, packages, quiet=False):
    """The python of ``benchmarks/.venv-pkgjudge-X.Y``, made from pyenv's X.Y, with what the
    packages' runs need installed (pip does nothing for what is there already)."""
    venv = venv_dir(version)
    python = os.path.join(venv, "bin", "python")
    if not os.path.exists(python):
        subprocess.run([pyenv_python(version), "-m", "venv", venv], check=True)
    pip_install(python, requirements(packages), quiet)
    return python


def pip_install(python, reqs, quiet=False):
    """``reqs`` with CI's constraints, but for the packages ``reqs`` pins itself (CI pins
    pyparsing 3.3.3 for the report's pydot; the judge tests pyparsing 3.1.4)."""
    pinned = {re.split(r"[=<>;\s]", r, 1)[0].lower() for r in reqs if "==" in r}
    with open(CONSTRAINTS) as f:
        kept = [line for line in f if re.split(r"[=<>;\s]", line.strip(), 1)[0].lower() not in pinned]
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as constraints:
        constraints.writelines(kept)
    try:
        cmd = [python, "-m", "pip", "install", "-q", "--disable-pip-version-check", "-c", constraints.name] + reqs
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL if quiet else None)
    finally:
        os.unlink(constraints.name)


def sdist_dir(package, python):
    """The unpacked sdist of ``package`` (downloaded once, with ``python``'s pip)."""
    base = "%s-%s" % (package.dist, package.version)
    dest = os.path.join(CACHE, "src", base)
    if os.path.isdir(dest):
        return dest
    downloads = os.path.join(CACHE, "sdists")
    os.makedirs(downloads, exist_ok=True)
    archive = _find_archive(downloads, package)
    if archive is None:
        subprocess.run([python, "-m", "pip", "download", "-q", "--disable-pip-version-check", "--no-binary",
                        ":all:", "--no-deps", "-d", downloads, "%s==%s" % (package.dist, package.version)],
                       check=True, stdout=subprocess.DEVNULL)
        archive = _find_archive(downloads, package)
        if archive is None:
            raise SystemExit("pip downloaded no sdist of %s==%s" % (package.dist, package.version))
    os.makedirs(os.path.dirname(dest), exist_ok=True)
    tmp = tempfile.mkdtemp(prefix="unpack-", dir=os.path.dirname(dest))
    if archive.endswith(".zip"):
        with zipfile.ZipFile(archive) as z:
            z.extractall(tmp)
    else:
        with tarfile.open(archive) as t:
            if hasattr(tarfile, "data_filter"):
                t.extractall(tmp, filter="data")
            else:
                t.extractall(tmp)
    (top,) = os.listdir(tmp)
    os.rename(os.path.join(tmp, top), dest)
    os.rmdir(tmp)
    return dest


def _find_archive(directory, package):
    names = {package.dist.lower().replace("-", "_"), package.dist.lower().replace("_", "-"), package.dist.lower()}
    for fn in sorted(os.listdir(directory)):
        stem = fn.lower()
        for ext in (".tar.gz", ".zip"):
            if stem.endswith(ext):
                stem = stem[:-len(ext)]
                name, _, version = stem.rpartition("-")
                if version == package.version and name in names:
                    return os.path.join(directory, fn)
    return None


# --------------------------------------------------------------------------- decompiling (in the worker)

#: the negative control's flips: each comparison operator and its negation
FLIPS = {"==": "!=", "!=": "==", "<": ">=", ">=": "<", ">": "<=", "<=": ">"}


def sabotage(text):
    """The negative control: ``text`` with one comparison negated (``==`` becomes ``!=``,
    ``<`` becomes ``>=``, ...), the first in a function (by line), else the first at module
    or class level; ``None`` when nothing compares so.  Still valid Python."""
    tree = ast.parse(text)
    in_functions, outside = [], []
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            in_functions += [sub for sub in ast.walk(node) if isinstance(sub, ast.Compare)]
        elif isinstance(node, ast.Compare):
            outside.append(node)
    inside = {id(n) for n in in_functions}
    outside = [n for n in outside if id(n) not in inside]
    tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
    lines = text.splitlines(True)
    for group in (in_functions, outside):
        for node in sorted(group, key=lambda n: (n.lineno, n.col_offset)):
            start, end = (node.lineno, node.col_offset), (node.end_lineno, node.end_col_offset)
            for tok in tokens:
                if tok.type == tokenize.OP and tok.string in FLIPS and start <= tok.start and tok.end <= end:
                    row, col = tok.start
                    line = lines[row - 1]
                    lines[row - 1] = line[:col] + FLIPS[tok.string] + line[col + len(tok.string):]
                    return "".join(lines)
    return None


def decompile_tree(modules, tree, src, sabotaged=False, original_lines=False):
    """Copy the installed top-level ``modules`` under ``tree`` with every ``.py`` file replaced
    by its decompiled module code; a record per file.  ``original_lines``: beside each text,
    its ``__pycache__`` file holds the text compiled by ``unveil.recompile`` with its
    statements on their original lines."""
    sys.path.insert(0, src)
    sys.path.insert(1, HERE)
    import unveil
    import bench_functions
    import importlib.util
    records = []
    roots = {}
    for name in modules:
        spec = importlib.util.find_spec(name)
        if spec is None or not spec.origin:
            raise SystemExit("no installed module %r" % name)
        if spec.submodule_search_locations:
            pkg = list(spec.submodule_search_locations)[0]
            roots[name] = pkg
            shutil.copytree(pkg, os.path.join(tree, name), ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
            files = []
            for dirpath, dirnames, filenames in os.walk(pkg):
                dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
                files += [os.path.join(dirpath, f) for f in sorted(filenames) if f.endswith(".py")]
            pairs = [(f, os.path.join(tree, name, os.path.relpath(f, pkg))) for f in files]
        else:
            roots[name] = spec.origin
            pairs = [(spec.origin, os.path.join(tree, os.path.basename(spec.origin)))]
            shutil.copyfile(spec.origin, pairs[0][1])
        for path, dest in pairs:
            rel = os.path.relpath(dest, tree)
            rec = {"module": rel, "status": "decompiled"}
            records.append(rec)
            t0 = time.perf_counter()
            with open(path, "rb") as f:
                source = f.read()
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    code = compile(source, path, "exec", dont_inherit=True)
            except (SyntaxError, ValueError) as exc:
                rec.update(status="does not compile here", detail=str(exc))
                continue
            try:
                dec = bench_functions.with_time_limit(DECOMPILE_LIMIT, unveil.decompile_code, code)
            except unveil.InternalError as exc:
                rec.update(status="crashed", detail="%s (cause: %r)" % (exc, exc.__cause__))
                continue
            except unveil.DecompilationError as exc:
                rec.update(status="refused", detail=str(exc))
                continue
            except bench_functions.TimeLimit:
                rec.update(status="crashed", detail="over the %d s limit" % DECOMPILE_LIMIT)
                continue
            rec["seconds"] = round(time.perf_counter() - t0, 2)
            rec["lowered"] = ["%s@%s: %s" % (low.name, low.line, low.reason) for low in dec.lowered]
            if dec.bindings:
                rec.update(status="needs bindings", detail=", ".join(sorted(dec.bindings)))
                continue
            text = dec.source
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    compile(text, dest, "exec", dont_inherit=True)
            except (SyntaxError, ValueError) as exc:
                rec.update(status="recompile error", detail=str(exc))
                continue
            if sabotaged:
                broken = sabotage(text)
                if broken is not None:
                    text = broken
                    rec["sabotaged"] = True
            with open(dest, "w", encoding="utf-8") as f:
                f.write(text)
            if original_lines:
                try:
                    new = unveil.recompile(text, code, filename=dest, lines=dec.lines)
                except unveil.DecompilationError as exc:
                    rec.update(status="recompile error", detail=str(exc))
                    shutil.copyfile(path, dest)
                    continue
                write_pyc(new, dest)
    return {"records": records, "roots": roots}


def write_pyc(code, source_path):
    """``code`` as the cached bytecode of ``source_path`` (a timestamp pyc: the import system
    takes it while the source keeps its time and size)."""
    import importlib.util
    import marshal
    st = os.stat(source_path)
    cache = importlib.util.cache_from_source(source_path)
    os.makedirs(os.path.dirname(cache), exist_ok=True)
    header = importlib.util.MAGIC_NUMBER + (0).to_bytes(4, "little") + \
        (int(st.st_mtime) & 0xFFFFFFFF).to_bytes(4, "little") + (st.st_size & 0xFFFFFFFF).to_bytes(4, "little")
    with open(cache, "wb") as f:
        f.write(header + marshal.dumps(code))


FILE_FAILURES = ("refused", "crashed", "recompile error", "needs bindings")


# --------------------------------------------------------------------------- running the tests

def prepare_workdir(package, sdist, workdir):
    """The package's tests and what they need from the sdist, alone in ``workdir``."""
    for rel in package.tests + package.copy:
        src = os.path.join(sdist, rel)
        dst = os.path.join(workdir, rel)
        if os.path.isdir(src):
            shutil.copytree(src, dst, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        elif os.path.exists(src):
            os.makedirs(os.path.dirname(dst), exist_ok=True)     # a file in a folder: src/test_x.py
            shutil.copyfile(src, dst)
        else:
            raise SystemExit("%s's sdist has no %s" % (package.dist, rel))
    if not any(_has_section(os.path.join(workdir, fn), section) for fn, section in _PYTEST_CONFIGS):
        # the tests' directory is pytest's root and configuration, never a file above it
        with open(os.path.join(workdir, "pytest.ini"), "w") as f:
            f.write("[pytest]\n")


_PYTEST_CONFIGS = (("pytest.ini", ""), ("pyproject.toml", "[tool.pytest.ini_options]"), ("tox.ini", "[pytest]"),
                   ("setup.cfg", "[tool:pytest]"))


def _has_section(path, section):
    if not os.path.exists(path):
        return False
    with open(path, encoding="utf-8", errors="replace") as f:
        return section in f.read()


def run_pytest(python, package, workdir, tree, timeout, log):
    """Run the package's tests in ``workdir`` with ``tree`` first on the path; (records, the
    pytest summary line, seconds)."""
    plugin_dir = tempfile.mkdtemp(prefix="pkgjudge-plugin-")
    for path in (PLUGIN, RECORDS):
        shutil.copyfile(path, os.path.join(plugin_dir, os.path.basename(path)))
    fd, record = tempfile.mkstemp(prefix="pkgjudge-", suffix=".jsonl")
    os.close(fd)
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1", PYTHONHASHSEED="0", UNVEIL_PKGJUDGE_RECORD=record,
               UNVEIL_PKGJUDGE_MODULES=",".join(package.modules),
               PYTHONPATH=os.pathsep.join([tree, plugin_dir]))
    for var in ("PYTEST_ADDOPTS", "PYTHONSTARTUP", "PYTEST_PLUGINS", "VIRTUAL_ENV"):
        env.pop(var, None)
    cmd = [python, "-m", "pytest", "-q", "-rN", "-p", "no:cacheprovider", "-p", "package_judge_plugin",
           "--timeout", "300",
           "--continue-on-collection-errors", "--rootdir", workdir] + package.pytest_args + package.tests
    t0 = time.time()
    try:
        with open(log, "w") as logf:
            subprocess.run(cmd, cwd=workdir, env=env, stdout=logf, stderr=subprocess.STDOUT,
                           stdin=subprocess.DEVNULL, timeout=timeout)
        status = None
    except subprocess.TimeoutExpired:
        status = "timeout after %ds" % timeout
    seconds = round(time.time() - t0, 1)
    with open(record) as f:
        records = [json.loads(line) for line in f if line.strip()]
    os.unlink(record)
    shutil.rmtree(plugin_dir)
    with open(log, errors="replace") as f:
        tail = [line.strip() for line in f if line.strip()]
    summary = status or (tail[-1] if tail else "no output")
    return records, summary, seconds


def outcomes(records):
    """``{test: (outcome, error)}``, outcome one of passed, xfailed, failed, error, skipped,
    xpassed, "collection error"; and the modules' files the run imported."""
    result = {}
    files = None
    for r in records:
        if r["phase"] == "modules":
            files = r["files"]
            continue
        test = r["test"]
        outcome, error = result.get(test, ("passed", ""))
        if r["phase"] == "collect":
            outcome, error = "collection error", r["error"]
        elif r["phase"] == "call":
            if r["outcome"] == "skipped" and r["xfail"]:
                new = "xfailed"
            elif r["outcome"] == "passed" and r["xfail"]:
                new = "xpassed"
            else:
                new = r["outcome"]
            if outcome == "passed":
                outcome, error = new, r["error"]
        elif r["outcome"] == "failed":          # setup or teardown
            outcome, error = "error", r["error"]
        elif r["outcome"] == "skipped" and outcome == "passed":
            outcome = "xfailed" if r["xfail"] else "skipped"
        result[test] = (outcome, error)
    return result, files


PASSING = ("passed", "xfailed")


def wrong_imports(files, tree):
    """Modules a run imported from outside the tree it judged."""
    if files is None:
        return ["the run recorded no modules (did pytest start?)"]
    inside = os.path.abspath(tree) + os.sep
    return ["%s from %s" % (name, path) for name, path in sorted(files.items())
            if path is not None and not os.path.abspath(path).startswith(inside)]


_RUNS = itertools.count()


def judge_package(python, package, snapshot_src, timeout=1800, sabotaged=False, keep=None, progress=print,
                  original_lines=False):
    """One package on one interpreter: the result record."""
    rec = {"package": package.dist, "version": package.version, "sabotaged": sabotaged,
           "original_lines": bool(original_lines or package.original_lines)}
    t0 = time.time()
    sdist = sdist_dir(package, python)
    base = os.path.join(keep or tempfile.gettempdir(), "pkgjudge-%d-%d-%s" % (os.getpid(), next(_RUNS), package.dist))
    shutil.rmtree(base, ignore_errors=True)
    # both runs import the package from a copy, at paths that differ in one digit: a test that
    # reads the package's path sees the same letters (boltons' test_iter_find_files strips the
    # path off file names with str.lstrip, a set of characters)
    trees = {"original": os.path.join(base, "install-1"), "decompiled": os.path.join(base, "install-2")}
    tree = trees["decompiled"]
    workdir = os.path.join(base, "tests")
    os.makedirs(tree)
    os.makedirs(workdir)
    out = os.path.join(base, "decompile.json")
    cmd = [python, os.path.abspath(__file__), "--decompile-worker", ",".join(package.modules), tree,
           snapshot_src, out] + (["--sabotage"] if sabotaged else []) + \
        (["--original-lines"] if original_lines or package.original_lines else [])
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1", PYTHONHASHSEED="0")
    env.pop("PYTHONPATH", None)
    proc = subprocess.run(cmd, env=env, cwd=base, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          universal_newlines=True)
    if proc.returncode != 0:
        rec.update(error="the decompiling worker failed: %s" % proc.stdout.strip()[-2000:])
        return rec
    with open(out) as f:
        dec = json.load(f)
    rec["python"] = dec["python"]
    rec["files"] = dec["records"]
    rec["decompile_seconds"] = round(sum(r.get("seconds", 0) for r in dec["records"]), 1)
    progress("  %s %s: %d files decompiled in %.0f s%s" % (
        package.dist, rec["python"], len(dec["records"]), rec["decompile_seconds"],
        ", %d sabotaged" % sum(1 for f in dec["records"] if f.get("sabotaged")) if sabotaged else ""))
    for name, root in dec["roots"].items():     # the original, copied as the worker copied it
        if os.path.isdir(root):
            shutil.copytree(root, os.path.join(trees["original"], name),
                            ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        else:
            os.makedirs(trees["original"], exist_ok=True)
            shutil.copyfile(root, os.path.join(trees["original"], os.path.basename(root)))
    prepare_workdir(package, sdist, workdir)
    runs = {}
    for label, t in sorted(trees.items(), reverse=True):
        records, summary, seconds = run_pytest(python, package, workdir, t, timeout,
                                               os.path.join(base, "pytest-%s.log" % label))
        results, files = outcomes(records)
        runs[label] = results
        rec[label] = {"summary": summary, "seconds": seconds,
                      "counts": dict(collections.Counter(o for o, _ in results.values())),
                      "wrong_imports": wrong_imports(files, t)}
        progress("  %s %s %s: %s (%.0f s)" % (package.dist, rec["python"], label, summary, seconds))
    original, decompiled = runs["original"], runs["decompiled"]
    passing = sorted(t for t, (o, _) in original.items() if o in PASSING)
    regressed = []
    for t in passing:
        got, error = decompiled.get(t, ("not run", ""))
        if got != original[t][0]:
            regressed.append({"test": t, "outcome": got, "error": error})
    gained = sorted(t for t, (o, _) in decompiled.items() if o in PASSING and original.get(t, ("",))[0] not in PASSING)
    rec.update(passing=len(passing), regressed=regressed, gained=gained, seconds=round(time.time() - t0, 1))
    if keep is None:
        shutil.rmtree(base, ignore_errors=True)
    else:
        rec["kept"] = base
    return rec


def failed(rec):
    """Why a package's record fails the judge (empty: it passes)."""
    why = []
    if rec.get("error"):
        return [rec["error"]]
    bad_files = [f for f in rec["files"] if f["status"] in FILE_FAILURES]
    if bad_files:
        why.append("%d modules not decompiled" % len(bad_files))
    if rec["regressed"]:
        why.append("%d tests regressed" % len(rec["regressed"]))
    for label in ("original", "decompiled"):
        if rec[label]["wrong_imports"]:
            why.append("the %s run imported %s" % (label, "; ".join(rec[label]["wrong_imports"][:3])))
    if not rec["passing"]:
        why.append("no test passed on the original")
    if rec["sabotaged"] and not any(f.get("sabotaged") for f in rec["files"]):
        why.append("the negative control broke no module")
    return why


# --------------------------------------------------------------------------- the report

def table(results):
    lines = ["| python | package | version | modules | refused / crashed / not recompiled | tests passing on the original "
             "| failing only on the decompiled | passing only on the decompiled | seconds (original, decompiled) |",
             "|---|---|---|---:|---:|---:|---:|---:|---|"]
    for r in results:
        if r.get("error"):
            lines.append("| %s | %s | %s | worker failed | | | | | |" % (r.get("python", "?"), r["package"], r["version"]))
            continue
        bad = collections.Counter(f["status"] for f in r["files"] if f["status"] in FILE_FAILURES)
        lines.append("| %s | %s | %s | %d | %d / %d / %d | %d | %d | %d | %.0f, %.0f |" % (
            r["python"], r["package"] + (" (original lines)" if r.get("original_lines") else ""), r["version"],
            len(r["files"]), bad["refused"], bad["crashed"],
            bad["recompile error"] + bad["needs bindings"], r["passing"], len(r["regressed"]), len(r["gained"]),
            r["original"]["seconds"], r["decompiled"]["seconds"]))
    return "\n".join(lines)


def details(results, show=20):
    out = []
    for r in results:
        if r.get("error"):
            out.append("  %s %s: %s" % (r.get("python", "?"), r["package"], r["error"]))
            continue
        for f in r["files"]:
            if f["status"] in FILE_FAILURES:
                out.append("  %s %s: %s %s: %s" % (r["python"], r["package"], f["module"], f["status"],
                                                   f.get("detail", "")[:300]))
            for low in f.get("lowered", ()):
                out.append("  %s %s: %s lowered to the state machine: %s" % (r["python"], r["package"],
                                                                             f["module"], low[:200]))
        errors = collections.Counter(x["error"] or x["outcome"] for x in r["regressed"])
        for error, n in errors.most_common(show):
            first = next(x for x in r["regressed"] if (x["error"] or x["outcome"]) == error)
            out.append("  %s %s: %d regressed: %s (e.g. %s)" % (r["python"], r["package"], n, error[:200], first["test"]))
        for t in r["gained"][:show]:
            out.append("  %s %s: passes only on the decompiled: %s" % (r["python"], r["package"], t))
        for label in ("original", "decompiled"):
            for w in r[label]["wrong_imports"][:show]:
                out.append("  %s %s: %s run imported %s" % (r["python"], r["package"], label, w))
    return "\n".join(out)


def run(pythons, packages, sabotaged=False, timeout=1800, keep=None, progress=print, original_lines=False):
    """Judge ``packages`` on each ``(label, python)``; the records."""
    sys.path.insert(0, HERE)
    import module_judge
    src = module_judge.snapshot()    # one version of unveil for every worker, while the tree changes
    results = []
    try:
        for python in pythons:
            for package in packages:
                results.append(judge_package(python, package, src, timeout, sabotaged, keep, progress,
                                             original_lines))
    finally:
        shutil.rmtree(src)
    return results


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--decompile-worker":
        modules, tree, src, out = sys.argv[2:6]
        sys.setrecursionlimit(10000)
        result = decompile_tree(modules.split(","), tree, src, sabotaged="--sabotage" in sys.argv[6:],
                                original_lines="--original-lines" in sys.argv[6:])
        result["python"] = sys.version.split()[0]
        with open(out, "w") as f:
            json.dump(result, f)
        return 0
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--versions", nargs="+", metavar="X.Y", default=list(VERSIONS),
                    help="pyenv's interpreters, each in its venv benchmarks/.venv-pkgjudge-X.Y")
    ap.add_argument("--python", help="this interpreter instead (it must have the packages and pytest)")
    ap.add_argument("--no-install", action="store_true", help="install nothing (with --python)")
    ap.add_argument("--packages", nargs="+", metavar="DIST", choices=list(PACKAGES), default=list(PACKAGES))
    ap.add_argument("--sabotage", action="store_true", help="the negative control: break the decompiled text")
    ap.add_argument("--original-lines", action="store_true",
                    help="every package's code on its original line numbers (pyparsing's always is)")
    ap.add_argument("--timeout", type=float, default=1800, help="seconds per pytest run")
    ap.add_argument("--keep", help="keep the decompiled trees, tests and logs under this directory")
    ap.add_argument("--json", help="write the records to this JSON file")
    ap.add_argument("--quiet", action="store_true")
    args = ap.parse_args()
    packages = [PACKAGES[p] for p in args.packages]
    progress = (lambda *a: None) if args.quiet else (lambda *a: print(*a, file=sys.stderr, flush=True))
    if args.python:
        if not args.no_install:
            pip_install(args.python, requirements(packages), args.quiet)
        pythons = [os.path.abspath(shutil.which(args.python) or args.python)]
    else:
        pythons = [ensure_venv(v, packages, args.quiet) for v in args.versions]
    if args.keep:
        os.makedirs(args.keep, exist_ok=True)
    results = run(pythons, packages, args.sabotage, args.timeout, args.keep, progress, args.original_lines)
    print(table(results))
    print(details(results))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)
    verdicts = [(r, failed(r)) for r in results]
    for r, why in verdicts:
        if why:
            print("FAIL %s %s: %s" % (r.get("python", "?"), r["package"], "; ".join(why)))
    return 1 if any(why for _, why in verdicts) else 0


if __name__ == "__main__":
    sys.exit(main())
