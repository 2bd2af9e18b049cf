"""Tests of the command line: ``python -m unveil decompile TARGET`` and ``demo``.

Error cases and target resolution run with a stand-in decompiler; the success
cases at the end use the real one.
"""
import glob
import importlib.util
import marshal
import os
import re
import py_compile
import shutil
import subprocess
import sys
import textwrap

import pytest

import unveil
from unveil import cli, examples

THIS = "%d.%d" % sys.version_info[:2]

MODULE_SOURCE = textwrap.dedent('''
    """A module for the CLI tests."""
    import functools

    LIMIT = 10

    def top(x, y=2):
        return [i * y for i in range(x) if i < LIMIT]

    def outer(n):
        def inner(k):
            return k + n
        return inner

    class Shape:
        sides = 0

        def __init__(self, size):
            self.size = size

        @property
        def area(self):
            return self.size ** 2

        @staticmethod
        def unit():
            return Shape(1)

        @classmethod
        def make(cls, size):
            return cls(size)

        class Inner:
            def method(self):
                return 42

    alias = top
    reduce = functools.reduce
''')


def run(capsys, *argv):
    """Run the CLI in-process; return (exit status, stdout, stderr)."""
    status = cli.main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def assert_one_error(status, out, err, *fragments):
    assert status == 2
    assert out == ""
    assert err.startswith("unveil: error: ") and err.endswith("\n")
    assert err.count("\n") == 1, err
    for fragment in fragments:
        assert fragment in err


def fake_decompile(obj):
    """Stands in for unveil.decompile: names what it was given."""
    code = getattr(getattr(obj, "__func__", obj), "__code__", obj)
    return "# decompiled %s\n" % code.co_name


@pytest.fixture
def fake(monkeypatch):
    monkeypatch.setattr(unveil, "decompile", fake_decompile)


@pytest.fixture
def sample(tmp_path, monkeypatch):
    """A module ``cli_sample`` importable from tmp_path; returns its .py path."""
    path = tmp_path / "cli_sample.py"
    path.write_text(MODULE_SOURCE)
    monkeypatch.syspath_prepend(str(tmp_path))
    yield path
    sys.modules.pop("cli_sample", None)


def labels(target):
    return [label for label, _ in cli.resolve_target(target)]


def other_interpreter():
    """(version, executable) of a CPython 3 other than this one, or None."""
    root = os.environ.get("PYENV_ROOT", os.path.expanduser("~/.pyenv"))
    for minor in range(6, 15):
        version = "3.%d" % minor
        if version == THIS:
            continue
        found = [shutil.which("python" + version)]
        found += sorted(glob.glob(os.path.join(root, "versions", version + ".*", "bin", "python" + version)))
        for exe in filter(None, found):
            probe = subprocess.run([exe, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
                                   stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                   universal_newlines=True)
            if probe.returncode == 0 and probe.stdout.strip() == version:
                return version, exe
    return None


# --- usage ------------------------------------------------------------------

def test_help(capsys):
    status, out, _ = run(capsys, "--help")
    assert status == 0 and "decompile" in out and "demo" in out


def test_decompile_help_describes_targets(capsys):
    status, out, _ = run(capsys, "decompile", "--help")
    assert status == 0 and "module:qualname" in out and ".pyc" in out


def test_no_command_is_a_usage_error(capsys):
    status, _, err = run(capsys)
    assert status == 2 and "unveil: error:" in err


# --- errors: one line on stderr, exit status 2 --------------------------------

def test_missing_module(capsys, fake):
    assert_one_error(*run(capsys, "decompile", "no_such_module_for_unveil"),
                     "no module named 'no_such_module_for_unveil'")


def test_missing_submodule(capsys, fake):
    assert_one_error(*run(capsys, "decompile", "json.no_such_part:f"), "json.no_such_part")


def test_missing_function(capsys, fake):
    assert_one_error(*run(capsys, "decompile", "json:no_such_function"),
                     "json:no_such_function", "'no_such_function'")


def test_missing_method(capsys, fake):
    assert_one_error(*run(capsys, "decompile", "json.decoder:JSONDecoder.nope"), "'nope'")


def test_missing_nested_function(capsys, fake, sample):
    assert_one_error(*run(capsys, "decompile", "cli_sample:outer.<locals>.nope"), "nope")


def test_module_that_fails_to_import(capsys, fake, tmp_path, monkeypatch):
    (tmp_path / "cli_broken.py").write_text("import no_such_dependency_for_unveil\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert_one_error(*run(capsys, "decompile", "cli_broken"),
                     "cannot import module 'cli_broken'", "no_such_dependency_for_unveil")


def test_module_that_raises_on_import(capsys, fake, tmp_path, monkeypatch):
    (tmp_path / "cli_raises.py").write_text("raise RuntimeError('boom\\nsecond line')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert_one_error(*run(capsys, "decompile", "cli_raises:f"), "RuntimeError", "boom")


def test_builtin_function(capsys, fake):
    assert_one_error(*run(capsys, "decompile", "os:getcwd"), "built-in")


def test_not_a_function(capsys, fake):
    assert_one_error(*run(capsys, "decompile", "json.decoder:NaN"), "float")


@pytest.mark.parametrize("name", ["absent.py", "absent.pyc", "sub/absent.py"])
def test_nonexistent_file(capsys, fake, tmp_path, name):
    assert_one_error(*run(capsys, "decompile", str(tmp_path / name)), "no such file")


def test_directory(capsys, fake, tmp_path):
    assert_one_error(*run(capsys, "decompile", str(tmp_path) + os.sep), "directory")


def test_syntax_error(capsys, fake, tmp_path):
    path = tmp_path / "bad.py"
    path.write_text("def f(:\n    pass\n")
    assert_one_error(*run(capsys, "decompile", str(path)), "cannot compile", "line 1")


def test_a_file_of_null_bytes_is_one_clear_line(capsys, fake, tmp_path):
    """Not Python at all: 3.12+ raise a SyntaxError with no line, which read "(line None)"."""
    path = tmp_path / "notpy.bin"
    path.write_bytes(b"\x00\x01binary\x00")
    status, out, err = run(capsys, "decompile", str(path))
    assert_one_error(status, out, err, "cannot compile")
    assert "None" not in err, err


def test_a_directory_without_init_is_named_as_a_namespace_package(capsys, fake, tmp_path, monkeypatch):
    """``unveil decompile adir`` imports a directory without ``__init__.py`` as a namespace
    package, which has no code: the error said only that it defines no functions."""
    (tmp_path / "justadir").mkdir()
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    assert_one_error(*run(capsys, "decompile", "justadir"), "module 'justadir' defines no Python functions: it is "
                     "a namespace package (the directory %s, with no __init__.py)" % (tmp_path / "justadir"))


def test_missing_function_in_file(capsys, fake, sample):
    assert_one_error(*run(capsys, "decompile", "%s:nope" % sample), "'nope'")


@pytest.mark.parametrize("data", [b"", b"garbage that is not a pyc file", bytes(range(256)) * 4])
def test_garbage_pyc(capsys, fake, tmp_path, data):
    path = tmp_path / "garbage.pyc"
    path.write_bytes(data)
    assert_one_error(*run(capsys, "decompile", str(path)), "not a .pyc file")


def test_corrupt_pyc(capsys, fake, tmp_path):
    path = tmp_path / "corrupt.pyc"
    path.write_bytes(importlib.util.MAGIC_NUMBER + bytes(12) + b"\xe3\x00\x01 garbage")
    assert_one_error(*run(capsys, "decompile", str(path)), "corrupt")


def test_truncated_pyc(capsys, fake, sample, tmp_path):
    pyc = tmp_path / "whole.pyc"
    py_compile.compile(str(sample), cfile=str(pyc), doraise=True)
    cut = tmp_path / "cut.pyc"
    cut.write_bytes(pyc.read_bytes()[:40])
    assert_one_error(*run(capsys, "decompile", str(cut)), "truncated or corrupt")


def test_pyc_with_another_versions_header(capsys, fake, tmp_path):
    other = "3.9" if THIS != "3.9" else "3.10"
    magic = {"3.9": 3425, "3.10": 3439}[other]
    path = tmp_path / "other.pyc"
    path.write_bytes(magic.to_bytes(2, "little") + b"\r\n" + bytes(12) + marshal.dumps(None))
    assert_one_error(*run(capsys, "decompile", str(path)), "Python %s " % other, "this is Python %s " % THIS)


def test_pyc_compiled_by_another_interpreter(capsys, fake, sample, tmp_path):
    found = other_interpreter()
    if found is None:
        pytest.skip("no CPython other than %s found (pyenv or pythonX.Y on PATH)" % THIS)
    version, exe = found
    pyc = tmp_path / "other.pyc"
    subprocess.run([exe, "-c", "import py_compile, sys; py_compile.compile(sys.argv[1], sys.argv[2], doraise=True)",
                    str(sample), str(pyc)], check=True)
    assert_one_error(*run(capsys, "decompile", str(pyc)), "compiled by Python %s " % version)


def test_decompilation_error_single_target(capsys, monkeypatch):
    def failing(obj):
        raise unveil.DecompilationError("unsupported\nconstruct")

    monkeypatch.setattr(unveil, "decompile", failing)
    assert_one_error(*run(capsys, "decompile", "unveil.examples:even_squares"),
                     "even_squares", "unsupported construct")


def test_decompilation_error_among_many(capsys, monkeypatch):
    def failing_for_one(obj):
        if obj.__name__ == "even_squares":
            raise unveil.DecompilationError("unsupported")
        return fake_decompile(obj)

    monkeypatch.setattr(unveil, "decompile", failing_for_one)
    status, out, err = run(capsys, "decompile", "unveil.examples")
    assert status == 2
    assert "# decompiled parse_numbers" in out and "# decompiled make_counter" in out
    assert "# cannot decompile unveil.examples:even_squares: unsupported" in out
    assert err.count("\n") == 1 and err.startswith("unveil: error: 1 of 3 ")


def test_unexpected_exception_is_one_line_too(capsys, monkeypatch):
    def buggy(obj):
        raise IndexError("pop from empty list")

    monkeypatch.setattr(unveil, "decompile", buggy)
    assert_one_error(*run(capsys, "decompile", "unveil.examples:parse_numbers"),
                     "IndexError: pop from empty list")


# --- which objects a target names ---------------------------------------------

def test_module_target_lists_functions_and_methods(fake, sample):
    assert labels("cli_sample") == [
        "cli_sample:top", "cli_sample:outer", "cli_sample:Shape.__init__",
        "cli_sample:Shape.area.fget", "cli_sample:Shape.unit", "cli_sample:Shape.make",
        "cli_sample:Shape.Inner.method", "cli_sample:alias"]
    assert cli.resolve_target("cli_sample")[-1][1].reason == "another name for cli_sample:top"


WRAPPED_SOURCE = textwrap.dedent('''
    """Functions behind decorators: one wrapper code for many functions, a cache, a built-in."""
    import functools

    def logged(fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            return fn(*args, **kwargs)
        return wrapper

    def on_dict(method):
        @functools.wraps(method)
        def f_all(self):
            return method(self.data)
        return f_all

    @logged
    def first(x):
        return x + 1

    @logged
    def second(x):
        return x * 2

    @functools.lru_cache(maxsize=None)
    def cached(n):
        return n - 1

    class Box:
        keys = on_dict(dict.keys)
        values = on_dict(dict.values)

        @logged
        def method(self):
            return 3

        @functools.cached_property
        def size(self):
            return 4

    length = functools.update_wrapper(functools.partial(len), len)
    length.__module__ = __name__
    again = first
''')


@pytest.fixture
def wrapped(tmp_path, monkeypatch):
    """A module ``cli_wrapped`` of decorated functions, importable from tmp_path."""
    (tmp_path / "cli_wrapped.py").write_text(WRAPPED_SOURCE)
    monkeypatch.syspath_prepend(str(tmp_path))
    yield
    sys.modules.pop("cli_wrapped", None)


def test_module_target_lists_each_decorated_function_and_what_it_does_not_print(fake, wrapped):
    items = cli.resolve_target("cli_wrapped")
    printed = [(label, obj.__code__.co_name) for label, obj in items if not isinstance(obj, cli.NotPrinted)]
    # each function the wrapper wraps, under its own name, though all share the wrapper's code
    assert printed == [("cli_wrapped:logged", "logged"), ("cli_wrapped:on_dict", "on_dict"),
                       ("cli_wrapped:first", "first"), ("cli_wrapped:second", "second"),
                       ("cli_wrapped:cached", "cached"), ("cli_wrapped:Box.keys", "f_all"),
                       ("cli_wrapped:Box.values", "f_all"), ("cli_wrapped:Box.method", "method"),
                       ("cli_wrapped:Box.size", "size")]
    assert items[4][1].__code__.co_name == "cached"
    reasons = {label: obj.reason for label, obj in items if isinstance(obj, cli.NotPrinted)}
    assert reasons == {"cli_wrapped:length": "partial has no Python code (it wraps <built-in function len>)",
                       "cli_wrapped:again": "another name for cli_wrapped:first"}


def test_module_target_says_what_it_does_not_print(capsys, fake, wrapped):
    status, out, err = run(capsys, "decompile", "cli_wrapped")
    assert status == 0
    assert "# cli_wrapped:again: not printed: another name for cli_wrapped:first\n" in out
    assert out.count("# decompiled ") == 9
    assert err == ("unveil: 2 of 11 not printed; the output says why, "
                   "e.g. # cli_wrapped:length: not printed: ...\n")


def test_wrapper_of_a_builtin_is_unwrapped_only_to_python_code(capsys, wrapped):
    # jinja2's Context.keys: functools.wraps(dict.keys) on a Python function
    status, out, err = run(capsys, "decompile", "cli_wrapped:Box.keys")
    assert (status, err) == (0, "")
    assert "def f_all(self):" in out and compiles(out)
    import cli_wrapped
    assert "return method(self.data)" in unveil.decompile(cli_wrapped.Box.keys)
    assert "def cached(n):" in unveil.decompile(cli_wrapped.cached)


def test_function_targets(fake, sample):
    assert labels("cli_sample:top") == ["cli_sample:top"]
    assert labels("cli_sample:Shape.make") == ["cli_sample:Shape.make"]
    assert labels("cli_sample:Shape.unit") == ["cli_sample:Shape.unit"]
    assert labels("cli_sample:Shape.area") == ["cli_sample:Shape.area.fget"]
    assert len(labels("cli_sample:Shape")) == 5
    [(_, found)] = cli.resolve_target("cli_sample:outer.<locals>.inner")
    assert found.__code__.co_name == "inner" and found.parent.co_name == "outer"


def test_file_target_lists_module_and_every_function(fake, sample):
    names = [label.rpartition(":")[2] for label in labels(str(sample))]
    assert names == ["<module>", "top", "outer", "outer.<locals>.inner", "Shape.__init__",
                     "Shape.area", "Shape.unit", "Shape.make", "Shape.Inner.method"]
    assert labels("%s:Shape.Inner.method" % sample) == ["%s:Shape.Inner.method" % sample]


def test_file_target_output(capsys, fake, sample):
    status, out, _ = run(capsys, "decompile", str(sample))
    assert status == 0
    assert "# %s:outer.<locals>.inner\n# decompiled inner\n" % sample in out


def test_pyc_target_is_the_module_code(capsys, fake, sample, tmp_path):
    pyc = tmp_path / "sample.pyc"
    py_compile.compile(str(sample), cfile=str(pyc), doraise=True)
    status, out, err = run(capsys, "decompile", str(pyc))
    assert (status, out, err) == (0, "# decompiled <module>\n", "")


def test_demo_with_stand_in(capsys, fake):
    status, out, _ = run(capsys, "demo")
    assert status == 0
    for fn in examples.EXAMPLES:
        assert "# decompiled %s" % fn.__name__ in out


# --- success with the real decompiler ------------------------------------------

def compiles(source):
    compile(source, "<decompiled>", "exec")
    return True


def test_demo(capsys, tmp_path):
    status, out, err = run(capsys, "demo", "--dump-dir", str(tmp_path / "dump"))
    assert (status, err) == (0, "")
    for fn in examples.EXAMPLES:
        assert "def %s(" % fn.__name__ in out
    assert compiles(out)


def test_decompile_function_behaves_like_the_original(capsys):
    status, out, err = run(capsys, "decompile", "unveil.examples:parse_numbers")
    assert (status, err) == (0, "")
    namespace = {}
    exec(out, namespace)
    items = ["1", "x", 2, None, "40"]
    assert namespace["parse_numbers"](items) == examples.parse_numbers(items)


def test_decompile_closure(capsys):
    status, out, _ = run(capsys, "decompile", "unveil.examples:make_counter")
    assert status == 0
    namespace = {}
    exec(out, namespace)
    step = namespace["make_counter"](5)
    assert (step(), step(10)) == (6, 16)


def test_decompile_nested_function(capsys):
    status, out, _ = run(capsys, "decompile", "unveil.examples:make_counter.<locals>.step")
    assert status == 0 and "count" in out


def test_decompile_stdlib_method(capsys):
    status, out, _ = run(capsys, "decompile", "json.decoder:JSONDecoder.decode")
    assert status == 0 and "def decode(" in out and compiles(out)


def test_decompile_module(capsys, sample):
    status, out, err = run(capsys, "decompile", "cli_sample")
    assert status == 0 and "1 of 8 not printed" in err
    assert "# cli_sample:alias: not printed: another name for cli_sample:top\n" in out
    assert "# cli_sample:Shape.Inner.method\n" in out and compiles(out)


def test_decompile_py_file(capsys, sample):
    status, out, err = run(capsys, "decompile", str(sample))
    assert (status, err) == (0, "")
    assert "# %s:<module>\n" % sample in out and compiles(out)


def test_decompile_pyc_file(capsys, sample, tmp_path):
    pyc = tmp_path / "sample.pyc"
    py_compile.compile(str(sample), cfile=str(pyc), doraise=True)
    status, out, err = run(capsys, "decompile", str(pyc))
    assert (status, err) == (0, "")
    namespace = {}
    exec(out, namespace)
    assert namespace["top"](4) == [0, 2, 4, 6]
    assert namespace["Shape"].make(3).area == 9


@pytest.mark.parametrize("argv", [[sys.executable, "-m", "unveil"], ["unveil"]])
def test_entry_points(argv):
    if argv == ["unveil"]:
        script = os.path.join(os.path.dirname(sys.executable), "unveil")
        if not os.path.exists(script):
            pytest.skip("the unveil console script is not installed beside %s" % sys.executable)
        argv = [script]
    done = subprocess.run(argv + ["demo"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          universal_newlines=True)
    assert (done.returncode, done.stderr) == (0, "")
    assert "def make_counter(" in done.stdout


def test_entry_point_error_exit_status():
    done = subprocess.run([sys.executable, "-m", "unveil", "decompile", "no_such_module_for_unveil"],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
    assert done.returncode == 2
    assert done.stderr == "unveil: error: no module named 'no_such_module_for_unveil'\n"


# --- every def of a module, under its own name ------------------------------------

DECOS_SOURCE = textwrap.dedent('''
    def nowraps(f):
        def w(*a):
            return f(*a)
        return w


    class Registry:
        def __init__(self, f):
            self.f = f

        def __call__(self, *a):
            return self.f(*a)
''')

USER_SOURCE = textwrap.dedent('''
    from .decos import nowraps, Registry


    @nowraps
    def foo(x, y=1):
        return x + y


    @Registry
    def bar(z):
        return z * 2


    def baz():
        return 3


    def plain(a, b=2, *, c=3, d: int = 4) -> int:
        return a + b + c + d


    class Holder:
        @Registry
        def method(self, k=5):
            return k
''')


@pytest.fixture
def decorated(tmp_path, monkeypatch):
    """A package ``clipkg`` whose ``user`` module's functions a decorator of its ``decos``
    module replaces without functools.wraps (a wrapper, an instance holding the function)."""
    package = tmp_path / "clipkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "decos.py").write_text(DECOS_SOURCE)
    (package / "user.py").write_text(USER_SOURCE)
    monkeypatch.syspath_prepend(str(tmp_path))
    yield package / "user.py"
    for name in ("clipkg.user", "clipkg.decos", "clipkg"):
        sys.modules.pop(name, None)


def test_a_module_prints_the_functions_another_modules_decorators_replaced(capsys, decorated):
    status, out, err = run(capsys, "decompile", "clipkg.user")
    assert (status, err) == (0, "")
    assert [line for line in out.splitlines() if line.startswith("# clipkg")] == [
        "# clipkg.user:foo", "# clipkg.user:bar", "# clipkg.user:baz", "# clipkg.user:plain",
        "# clipkg.user:Holder.method"]
    assert ("# clipkg.user:foo\n# bound at import to function nowraps.<locals>.w (decos.py line 3), not to the "
            "function its def at line 5 makes (its decorator @nowraps replaced it with a wrapper that has no "
            "__wrapped__): that function is shown\ndef foo(x, y=1):\n    return x + y\n") in out
    assert ("# clipkg.user:bar\n# bound at import to a clipkg.decos.Registry object, not to the function its "
            "def at line 10 makes (its decorator @Registry replaced the function with it): that function is "
            "shown\ndef bar(z):\n") in out
    assert "def method(self, k=5):" in out and compiles(out)
    # the file form prints the same functions, with their defaults
    status, file_out, _ = run(capsys, "decompile", str(decorated))
    assert status == 0 and "def foo(x, y=1):" in file_out and "def method(self, k=5):" in file_out


def test_a_function_target_a_decorator_replaced_is_its_def_in_the_api_too(capsys, decorated):
    status, out, err = run(capsys, "decompile", "clipkg.user:foo")
    assert (status, err) == (0, "")
    assert out.startswith("# bound at import to function nowraps.<locals>.w (decos.py line 3)") \
        and out.endswith("def foo(x, y=1):\n    return x + y\n")
    assert unveil.decompile("clipkg.user:foo") == out
    assert unveil.decompile("clipkg.user:Holder.method").startswith(
        "# bound at import to a clipkg.decos.Registry object, not to the function its def at line 24 makes "
        "(its decorator @Registry replaced the function with it): that function is shown\ndef method(self, k=5):")
    assert unveil.decompile_code("clipkg.user:foo").source == "def foo(x, y=1):\n    return x + y\n"


def _defs_of(module):
    from unveil import api
    return [name for name, _, _ in api.source_defs(api.code_of(module))]


@pytest.mark.parametrize("module", ["typing", "functools"])
def test_a_stdlib_module_prints_or_explains_every_def(capsys, module):
    status, out, err = run(capsys, "decompile", module)
    assert status == 0
    labels_out = {re.sub(r"\.fget$", "", line[2:].split(": not printed")[0]) for line in out.splitlines()
                  if line.startswith("# %s:" % module)}     # (a property's getter: NAME.fget)
    missing = [name for name in _defs_of(module) if "%s:%s" % (module, name) not in labels_out]
    assert missing == []
    if module == "typing" and "\ndef Optional(" in unveil.decompile(module):   # 3.9+: a decorated def
        assert "# typing:Optional\n# bound at import to a typing._SpecialForm object" in out
        assert "\ndef Optional(self, parameters):\n" in out
    if module == "functools" and "\ndef reduce(" in unveil.decompile(module):
        assert "# functools:reduce\n# bound at import to _functools.reduce (C code)" in out
        assert "# functools:partial.__new__\n# bound at import to " in out
        assert "# functools:cmp_to_key\n" in out and "\ndef cmp_to_key(mycmp):\n" in out



def test_a_class_a_c_implementation_replaces_prints_its_class_statements_methods(capsys):
    """``unveil decompile collections:OrderedDict`` said the class has no functions, where
    the module's listing prints its methods from the module's code (a new-user trial); the
    class target prints the same, each with its note, through the API too."""
    status, out, err = run(capsys, "decompile", "collections:OrderedDict")
    assert status == 0, err
    whole = run(capsys, "decompile", "collections")[1]
    for name in ("__init__", "popitem", "move_to_end"):
        label = "# collections:OrderedDict.%s\n" % name
        assert label in out and label in whole, name
    part = out[out.index("# collections:OrderedDict.popitem\n"):]
    note = part.splitlines()[1]
    assert note.startswith("# bound at import to ") and "(a C implementation replaces " in note, part[:400]
    assert "\ndef popitem(self, last=True):\n" in out
    assert unveil.decompile("collections:OrderedDict").strip() == out.strip()

LAMBDA_SOURCE = "square = lambda x: x * x  # noqa: E731\n"


@pytest.fixture
def lambdas(tmp_path, monkeypatch):
    (tmp_path / "cli_lam.py").write_text(LAMBDA_SOURCE)
    monkeypatch.syspath_prepend(str(tmp_path))
    yield tmp_path / "cli_lam.py"
    sys.modules.pop("cli_lam", None)


def test_a_name_bound_to_a_lambda_is_printed_as_the_lambda(capsys, lambdas):
    for target in ("cli_lam:square", "cli_lam", "%s:square" % lambdas):
        status, out, err = run(capsys, "decompile", target)
        assert (status, out, err) == (0, "square = lambda x: x * x\n", "")
    assert unveil.decompile("cli_lam:square") == unveil.decompile("%s:square" % lambdas) \
        == "square = lambda x: x * x\n"


def test_a_file_function_keeps_its_defaults_and_annotations(capsys, decorated, tmp_path):
    pyc = tmp_path / "user.pyc"
    py_compile.compile(str(decorated), cfile=str(pyc), doraise=True)
    for path in (decorated, pyc):
        status, out, err = run(capsys, "decompile", "%s:plain" % path)
        assert (status, err) == (0, "")
        assert out == "def plain(a, b=2, *, c=3, d: int = 4) -> int:\n    return a + b + c + d\n"
        assert unveil.decompile("%s:plain" % path) == out


SAME_MODULE_SOURCE = textwrap.dedent('''
    def deco(f):
        def inner(*a):
            return f(*a)
        return inner


    @deco
    def g(x=1):
        return x


    def h():
        return 1


    def h(y=2):
        return y
''')


def test_a_def_its_own_modules_decorator_or_a_later_def_replaced_is_printed_under_its_name(capsys, tmp_path,
                                                                                         monkeypatch):
    (tmp_path / "cli_same.py").write_text(SAME_MODULE_SOURCE)
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        status, out, err = run(capsys, "decompile", "cli_same")
    finally:
        sys.modules.pop("cli_same", None)
    assert (status, err) == (0, "")
    assert [line for line in out.splitlines() if line.startswith("# cli_same")] == [
        "# cli_same:deco", "# cli_same:g", "# cli_same:h", "# cli_same:h"]
    assert ("# cli_same:g\n# bound at import to function deco.<locals>.inner (cli_same.py line 3), not to the "
            "function its def at line 8 makes (its decorator @deco replaced it with a wrapper that has no "
            "__wrapped__): that function is shown\ndef g(x=1):\n") in out
    assert ("# cli_same:h\n# bound at import to function h (cli_same.py line 17), not to the function its def at "
            "line 13 makes (a later def of the name binds it again): that function is shown\ndef h():\n") in out
    assert "# cli_same:h\ndef h(y=2):\n" in out


# --- the CLI prints what unveil.decompile returns for the same target --------------

PROPERTY_SOURCE = textwrap.dedent('''
    class Temp:
        def __init__(self):
            self._c = 0.0

        @property
        def celsius(self):
            return self._c

        @celsius.setter
        def celsius(self, value):
            self._c = value

        @celsius.deleter
        def celsius(self):
            del self._c


    def tagged(x, tags={"a": [1, 2]}, marker=object()):
        return x, tags, marker
''')


@pytest.fixture
def properties(tmp_path, monkeypatch):
    """A module ``cli_prop``: a property with all three accessors, a function with a
    default no literal writes."""
    (tmp_path / "cli_prop.py").write_text(PROPERTY_SOURCE)
    monkeypatch.syspath_prepend(str(tmp_path))
    yield
    sys.modules.pop("cli_prop", None)


@pytest.mark.parametrize("target", [
    "cli_sample", "cli_sample:Shape", "cli_prop:Temp.celsius", "cli_prop", "cli_prop:tagged", "clipkg.user",
    "clipkg.user:foo", "clipkg.user:Holder.method", "cli_lam:square", "{sample}", "{sample}:Shape.make",
    "{sample}:outer.<locals>.inner", "{pyc}", "{pyc}:top", "{lambdas}:square"])
def test_the_cli_prints_what_the_api_returns_for_the_same_target(capsys, sample, properties, decorated, lambdas,
                                                                  tmp_path, target):
    pyc = tmp_path / "sample.pyc"
    py_compile.compile(str(sample), cfile=str(pyc), doraise=True)
    target = target.format(sample=sample, pyc=pyc, lambdas=lambdas)
    status, out, _ = run(capsys, "decompile", target)
    assert status == 0
    assert out == unveil.decompile(target)


def test_a_property_target_shows_its_three_accessors_and_a_module_its_placeholders_explained(properties):
    text = unveil.decompile("cli_prop:Temp.celsius")
    assert [line for line in text.splitlines() if line.startswith("#")] == [
        "# cli_prop:Temp.celsius.fget", "# cli_prop:Temp.celsius.fset", "# cli_prop:Temp.celsius.fdel"]
    assert "def celsius(self, value):\n    self._c = value\n" in text
    assert unveil.decompile_code("cli_prop:Temp.celsius").source == "def celsius(self):\n    return self._c\n"
    assert ("# cli_prop:tagged\n# __unveil_object_0: bound to the default of marker, an object instance "
            "(no literal makes it)\ndef tagged(x, tags={'a': [1, 2]}, marker=__unveil_object_0):\n") \
        in unveil.decompile("cli_prop")


def test_a_property_reads_alike_as_an_object_a_class_member_and_a_file_def(properties, tmp_path):
    """A property object given to the API was refused ('not a function, code object or
    .pyc path'); a class listed its getter as ``C.v`` where the property's own target says
    ``C.v.fget``; a file target labelled getter and setter alike ``file.py:C.v`` (a
    new-user trial)."""
    import cli_prop
    text = unveil.decompile(cli_prop.Temp.celsius)
    assert [line for line in text.splitlines() if line.startswith("#")] == [
        "# Temp.celsius.fget", "# Temp.celsius.fset", "# Temp.celsius.fdel"]
    assert "def celsius(self, value):\n    self._c = value\n" in text
    assert unveil.decompile_code(cli_prop.Temp.celsius).source == "def celsius(self):\n    return self._c\n"
    assert [label for label in labels("cli_prop:Temp") if "celsius" in label] == [
        "cli_prop:Temp.celsius.fget", "cli_prop:Temp.celsius.fset", "cli_prop:Temp.celsius.fdel"]
    path = str(tmp_path / "cli_prop.py")
    shown = [label for label in labels(path + ":Temp.celsius")]
    assert len(set(shown)) == 3 and all(re.fullmatch(re.escape(path) + r":Temp\.celsius \(line \d+\)", label)
                                        for label in shown), shown
    assert len([label for label in labels(path) if "celsius" in label]) == 3


def test_a_target_among_whose_functions_one_fails_shows_the_others_in_the_api_too(capsys, monkeypatch):
    from unveil import api
    real = api.decompile_code

    def refusing(obj, *args):
        if getattr(obj, "__name__", None) == "even_squares":
            raise unveil.DecompilationError("unsupported\nconstruct")
        return real(obj, *args)

    monkeypatch.setattr(api, "decompile_code", refusing)
    text = unveil.decompile("unveil.examples")
    assert "# unveil.examples:even_squares\n# cannot decompile unveil.examples:even_squares: unsupported " \
           "construct\n" in text and "def make_counter(start=0):" in text
    status, out, err = run(capsys, "decompile", "unveil.examples")
    assert (status, out) == (2, text)
    assert err.startswith("unveil: error: 1 of 3 could not be decompiled; first: cannot decompile ")
    with pytest.raises(unveil.DecompilationError, match="^unsupported\nconstruct$"):
        unveil.decompile("unveil.examples:even_squares")      # alone, its error raises


def test_a_file_with_no_ending_named_as_a_module_does_not_hide_the_module(capsys, fake, tmp_path, monkeypatch):
    """``json``, a file in the current directory, and ``json`` the module: the target is the
    module, as the README's targets say (a new-user trial got the file's code); a file with
    no ending and no module of its name is still the file."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "json").write_text("def evil():\n    return 1\n")
    (tmp_path / "no_module_is_named_this").write_text("def mine():\n    return 1\n")
    status, out, err = run(capsys, "decompile", "json:dumps")       # (the file has no dumps)
    assert status == 0 and "# decompiled dumps" in out, err
    status, out, err = run(capsys, "decompile", "no_module_is_named_this:mine")
    assert status == 0 and "# decompiled mine" in out, err
