"""The API takes what the CLI takes: paths (``file.py``, ``file.pyc``, with
``:qualname``), classes and modules, and its errors about them are
``DecompilationError`` s."""
import ast
import collections
import dataclasses
import functools
import json.decoder
import math
import os
import py_compile
import sys
import textwrap

import pytest

import unveil
from unveil import cli
from unveil.pyc import PycError

SOURCE = textwrap.dedent('''
    """A module on disk."""
    def top(x, y=2):
        return x + y

    class Box:
        """A box."""
        def size(self, scale=3):
            def inner():
                return scale
            return inner()
''')


@pytest.fixture
def files(tmp_path):
    py = tmp_path / "api_sample.py"
    py.write_text(SOURCE)
    pyc = tmp_path / "api_sample.pyc"
    py_compile.compile(str(py), cfile=str(pyc), doraise=True)
    return str(py), str(pyc)


def test_a_py_path_is_its_module_code(files):
    py, _ = files
    source = unveil.decompile_code(py).source
    assert source.startswith('"""A module on disk."""\ndef top(x, y=2):')
    assert "class Box:" in source
    code = compile(open(py).read(), py, "exec")
    assert unveil.decompile(code) == source
    # what decompile shows for the path is what the CLI prints: the module code, then each function
    assert unveil.decompile(py).startswith("# %s:<module>\n%s\n# %s:top\ndef top(x, y=2):" % (py, source, py))


@pytest.mark.parametrize("which", [0, 1])
def test_path_and_qualname_finds_a_function_or_class(files, which):
    path = files[which]
    assert unveil.decompile(path + ":top").startswith("def top(x, y=2):")   # from the module's code
    assert "def inner():" in unveil.decompile(path + ":Box.size")
    assert "return scale" in unveil.decompile(path + ":Box.size.<locals>.inner")
    assert unveil.decompile(path + ":Box").startswith('class Box:\n    """A box."""\n')


def test_cli_finds_a_function_in_a_pyc(files, capsys):
    _, pyc = files
    assert [label for label, _ in cli.resolve_target(pyc + ":top")] == [pyc + ":top"]
    assert cli.main(["decompile", pyc + ":Box.size"]) == 0
    assert "def size(self, scale=3):" in capsys.readouterr().out


def test_a_class_is_its_class_statement():
    source = unveil.decompile(json.decoder.JSONDecoder)
    assert source.startswith("class JSONDecoder(object):\n")
    assert "    def decode(self, s, _w=WHITESPACE.match):" in source
    assert "    def raw_decode(self, s, idx=0):" in source


@dataclasses.dataclass(frozen=True)
class Point:
    x: int = 1

    class Inner(dict, metaclass=type):
        def get_one(self):
            return 1


def _local_class(n):
    class Local(Point):
        y = n
    return Local


@pytest.mark.parametrize("cls, first", [
    (Point, "@dataclasses.dataclass(frozen=True)\nclass Point:\n"),
    (Point.Inner, "class Inner(dict, metaclass=type):\n"),
    (_local_class(3), "class Local(Point):\n    y = n\n"),
])
def test_decorators_bases_and_keywords_come_with_the_class(cls, first):
    decompiled = unveil.decompile_code(cls)
    assert decompiled.source.startswith(first)
    assert "_local_class" not in decompiled.source and "def test_" not in decompiled.source  # that class only
    namespace = {"dataclasses": dataclasses, "Point": Point, "n": 3}
    exec(compile(decompiled.source, "<decompiled>", "exec"), namespace)
    rebuilt = namespace[cls.__name__]
    assert [b.__name__ for b in rebuilt.__mro__] == [b.__name__ for b in cls.__mro__]
    assert sorted(vars(rebuilt)) == sorted(vars(cls))


def test_a_class_body_code_object_is_the_statements_inside_it():
    body = next(c for c in compile(SOURCE, "<s>", "exec").co_consts if getattr(c, "co_name", "") == "Box")
    assert unveil.decompile(body).startswith('"""A box."""\ndef size(self, scale=3):')


def test_a_module_is_its_code():
    source = unveil.decompile(json.decoder)
    assert source.startswith('"""Implementation of JSONDecoder')
    assert "class JSONDecoder(object):" in source and "def py_scanstring(" in source
    compile(source, "<decompiled>", "exec")


def test_errors_about_paths_are_decompilation_errors(tmp_path, files):
    assert issubclass(PycError, unveil.DecompilationError) and issubclass(PycError, ValueError)
    cases = [(str(tmp_path / "missing.py"), "no such file"), (str(tmp_path / "missing.pyc"), "no such file"),
             (str(tmp_path), "is a directory"), (files[0] + ":nothing", "has no function or class 'nothing'"),
             (files[1] + ":nothing", "has no function or class 'nothing'")]
    broken = tmp_path / "broken.py"
    broken.write_text("def f(:\n")
    cases.append((str(broken), "cannot compile"))
    for path, message in cases:
        with pytest.raises(unveil.DecompilationError, match=message):
            unveil.decompile(path)
    with pytest.raises(unveil.DecompilationError, match="has no Python code"):
        unveil.decompile(__import__("sys"))


def test_a_statement_after_a_joined_from_import_keeps_its_own_line():
    source = "from os.path import join, split\n\n\nclass C:\n    pass\n"
    decompiled = unveil.decompile_code(compile(source, "<s>", "exec"))
    out = decompiled.source.splitlines()
    assert out[0] == "from os.path import join, split"
    assert decompiled.lines[out.index("class C:")] == 4


def test_a_modules_classes_are_on_their_original_lines_where_a_class_body_stores_its_line():
    # 3.13's class body stores the line its statement begins on (``__firstlineno__``)
    from tests.roundtrip import same_bytecode
    from unveil.bytecode import facts
    source = "x = 1\n# a comment\n\n\n@staticmethod\nclass C:\n    # more\n\n    class D:\n        pass\n"
    code = compile(source, "<s>", "exec")
    decompiled = unveil.decompile_code(code)
    if facts.CLASS_BODY_STORES_ITS_LINE:
        assert decompiled.source.splitlines().index("@staticmethod") == 4
    assert same_bytecode(code, unveil.recompile(decompiled.source, code))


def test_a_function_named_as_a_method_with_unmangled_private_names_recompiles_outside_the_class():
    """Dynamo's resume functions: qualified as methods (``Net.torch_dynamo_resume_in_
    forward_at_18``) but made outside any class, with ``__nested_resume_fns`` among their
    arguments.  Compiled inside ``class Net:``, the arguments were mangled
    (``_Net__nested_resume_fns``) and the frame layout differed."""
    module = compile("class Net:\n    pass\n\ndef resume(__nested, self, h):\n    return __nested(h)\n",
                     "<resume>", "exec")
    code = next(c for c in module.co_consts if getattr(c, "co_name", None) == "resume")
    code = code.replace(co_name="resume", **({"co_qualname": "Net.resume"} if hasattr(code, "co_qualname") else {}))
    new = unveil.recompile(unveil.decompile(code), code)
    assert new.co_varnames == code.co_varnames


def test_a_class_defined_in_a_method_recompiles_alone_and_within_the_method():
    """csv's ``Sniffer.sniff.<locals>.dialect``: its qualified name is the one the compiler
    gives a class nested so, not an assignment of the source (which recompiled alone it
    was, as ``__unveil_closure__.<locals>...``); and 3.8-3.10's method, which loads no
    qualified name of its own, is compiled in its class all the same (the class body
    it makes says ``Sniffer.sniff``).  On 3.13, whose class body stores its statement's
    line, the method's text puts the class statement on its original line, and the
    text recompiles from the method's first line."""
    from tests.roundtrip import same_bytecode
    source = ("class Sniffer:\n    def sniff(self, quote):\n        # a comment\n\n        class dialect:\n"
              "            quotechar = quote\n            delimiter = ','\n        return dialect\n")
    module = compile(source, "<csv>", "exec")
    sniffer = next(c for c in module.co_consts if getattr(c, "co_name", None) == "Sniffer")
    sniff = next(c for c in sniffer.co_consts if getattr(c, "co_name", None) == "sniff")
    dialect = next(c for c in sniff.co_consts if getattr(c, "co_name", None) == "dialect")
    text = unveil.decompile(dialect)
    assert "__qualname__" not in text
    assert same_bytecode(dialect, unveil.recompile(text, dialect))
    assert same_bytecode(sniff, unveil.recompile(unveil.decompile(sniff), sniff))


def test_a_recompiled_function_begins_on_its_original_first_line_unless_run_as_written():
    """The text recompiled alone stands at the original's first line (3.13's nested class
    statements store theirs); a dumped file that a debugger shows runs on its own lines."""
    module = compile("\n\n\ndef f(x):\n    return x + 1\n", "<s>", "exec")
    code = next(c for c in module.co_consts if getattr(c, "co_name", None) == "f")
    text = unveil.decompile(code)
    assert unveil.recompile(text, code).co_firstlineno == 4
    assert unveil.recompile(text, code, as_written=True).co_firstlineno == 1


def test_a_module_target_string_is_what_the_cli_takes():
    assert unveil.decompile("json.decoder:JSONDecoder.decode") == unveil.decompile(json.decoder.JSONDecoder.decode)
    # decompile_code decompiles the one code a target stands for: a module's, a class statement
    assert unveil.decompile_code("json.decoder").source == unveil.decompile(json.decoder)
    assert unveil.decompile_code("json.decoder:JSONDecoder").source.startswith("class JSONDecoder(object):\n")
    # decompile shows what the CLI prints: each function and method, under its label
    assert unveil.decompile("json.decoder:JSONDecoder").startswith("# json.decoder:JSONDecoder.__init__\n")
    inner = unveil.decompile("unveil.examples:make_counter.<locals>.step")
    assert inner.startswith("def __enclosing_scope__():") and "def step(" in inner


@pytest.mark.parametrize("target, message", [
    ("no_such_module_for_unveil", "no module named 'no_such_module_for_unveil'"),
    ("json.dumps", "no module named 'json.dumps' (did you mean json:dumps?)"),
    ("json.decoder.JSONDecoder.decode",
     "no module named 'json.decoder.JSONDecoder' (did you mean json.decoder:JSONDecoder.decode?)"),
    ("json.no_such_part", "no module named 'json.no_such_part'"),
    ("json.decoder:Nope", "json.decoder:Nope: 'json.decoder' has no attribute 'Nope'"),
    ("json:__name__", "json:__name__ is a str, not a Python function"),
    ("builtins:len", "builtins:len is a built-in function: it has no bytecode"),
    ("json:dumps.<locals>.x", "json:dumps.<locals>.x: no nested function 'dumps.<locals>.x'"),
    (":f", "empty module name in ':f'"),
    # (printed the whole module; said 'a int'; said nothing of submodules: a new-user trial)
    ("json:", "empty name after ':' in 'json:' (the module alone is 'json')"),
    ("json.decoder:c_scanstring", "json.decoder:c_scanstring is a built-in function: it has no bytecode"),
    ("json.decoder:NaN", "json.decoder:NaN is a float, not a Python function"),
    ("textwrap:_whitespace_only_re", "textwrap:_whitespace_only_re is a Pattern, not a Python function"),
    ("sys:maxsize", "sys:maxsize is an int, not a Python function"),
    ("xml", "module 'xml' defines no Python functions (a package: each of its submodules is a target of its own, "
            "xml.NAME)"),
    # (said "no module named 'json.'", and nothing of what math or sys is: a new-user trial)
    ("json..decoder", "'json..decoder' is not a module name: a dot begins or ends it, or two dots meet"),
    ("sys", "module 'sys' defines no Python functions: it is a built-in module (compiled into Python)"),
    ("math", "module 'math' defines no Python functions: it is " + (
        "an extension module (%s, compiled code)" % os.path.basename(math.__file__) if hasattr(math, "__file__")
        else "a built-in module (compiled into Python)")),
])
def test_a_bad_target_string_is_the_same_one_line_error_as_the_clis(capsys, target, message):
    with pytest.raises(unveil.DecompilationError) as raised:
        unveil.decompile(target)
    assert str(raised.value) == message
    assert cli.main(["decompile", target]) == 2
    assert capsys.readouterr().err == "unveil: error: %s\n" % message


@pytest.mark.parametrize("obj, message", [
    (dict, "cannot decompile class builtins.dict: it is written in C and has no Python code"),
    (collections.OrderedDict, "cannot decompile class collections.OrderedDict: it is written in C and has no Python code"),
    (sys, "module sys has no Python code: it is a built-in module (compiled into Python)"),
])
def test_an_object_with_no_python_code_is_named_with_what_it_is(obj, message):
    """It said ``module builtins has no Python code (built-in, extension or namespace)``
    for ``dict``, and ``no class body of ndarray in the code of module numpy`` for a C
    type of a package with Python code (a new-user trial)."""
    with pytest.raises(unveil.DecompilationError) as raised:
        unveil.decompile(obj)
    assert str(raised.value) == message


def test_a_lambda_is_a_lambda_expression():
    source = unveil.decompile(lambda x, y=3: x + y)
    assert source == "lambda x, y=3: x + y\n"
    assert eval(source)(2) == 5


def test_a_file_function_gets_the_defaults_and_annotations_its_def_computes(tmp_path):
    py = tmp_path / "api_defaults.py"
    py.write_text("def plain(a, b=2, *, c=3, d: int = 4) -> int:\n    return a + b + c + d\n\n"
                  "class K:\n    def m(self, q=(1, 2)) -> 'K':\n        def inner(z=q):\n            return z\n"
                  "        return inner\n")
    pyc = tmp_path / "api_defaults.pyc"
    py_compile.compile(str(py), cfile=str(pyc), doraise=True)
    for path in (str(py), str(pyc)):
        assert unveil.decompile(path + ":plain").startswith("def plain(a, b=2, *, c=3, d: int = 4) -> int:\n")
        assert unveil.decompile(path + ":K.m").startswith("def m(self, q=(1, 2)) -> 'K':\n")
        assert "def inner(z=q):" in unveil.decompile(path + ":K.m.<locals>.inner")


def test_a_crash_decompiling_the_code_a_def_is_in_is_an_internal_error(tmp_path, monkeypatch):
    """The signature of ``file.py:f`` comes from the decompiled module around it: a crash
    there is a bug, raised, never a quiet fall back to the signature without defaults."""
    from unveil import api

    py = tmp_path / "api_crash.py"
    py.write_text("def plain(a, b=2):\n    return a + b\n")
    real = api._tree

    def crashing(code, func, bindings, loc=None):
        if code.co_name == "<module>":
            raise IndexError("mutation: the module around the def crashes")
        return real(code, func, bindings, loc)

    monkeypatch.setattr(api, "_tree", crashing)
    api._MADE.clear()
    with pytest.raises(unveil.InternalError) as info:
        unveil.decompile(str(py) + ":plain")
    assert isinstance(info.value.__cause__, IndexError)


def _module_round_trip(source):
    """Decompile the module code of ``source``, check it recompiles to the same bytecode,
    and run both: their namespaces (original, decompiled)."""
    from tests.roundtrip import same_bytecode
    code = compile(source, "<s>", "exec")
    text = unveil.decompile(code)
    again = compile(text, "<s>", "exec")
    assert same_bytecode(code, again), text
    ran, ran_again = {}, {}
    exec(code, ran)
    exec(again, ran_again)
    return ran, ran_again


@pytest.mark.parametrize("source", ["n = 3\nwhile n:\n    n -= 1\n", "a = 0\nwhile a:\n    pass\n",
                                    "class C:\n    n = 2\n    while n:\n        n -= 1\n",
                                    "n = 9\nwhile n:\n    n -= 1\n    if n < 4:\n        break\n",
                                    "for n in range(5):\n    if n == 2:\n        break\n",
                                    "n = 5\nwhile n:\n    try:\n        n -= 1\n        if n == 2:\n            break\n"
                                    "    finally:\n        m = n\n"])
def test_a_while_that_ends_a_module_or_class_body_is_that_while(source):
    """3.8 and 3.9 jump from a last while's test straight to the body's return, 3.11+ copy
    that return in place of a ``break``: refused as "a module or class body ends inside a
    while" (issue 37)."""
    ran, ran_again = _module_round_trip(source)
    assert {k: v for k, v in ran.items() if k != "__builtins__" and k != "C"} == \
        {k: v for k, v in ran_again.items() if k != "__builtins__" and k != "C"}
    if "C" in ran:
        assert ran["C"].n == ran_again["C"].n == 0


_IF_TRY_BODIES = [
    "if FLAG:\n    try:\n        a()\n    except E:\n        pass\nelse:\n    z = 2\n",
    "if FLAG:\n    try:\n        a()\n    except E:\n        x = 1\n    else:\n        y = 1\nelse:\n    z = 2\n",
    "if FLAG:\n    try:\n        a()\n    except KeyError:\n        x = 0\n    except E as e:\n        x = 1\n"
    "    except ValueError:\n        raise\nelif not FLAG:\n    try:\n        a()\n    except E:\n        x = 2\n"
    "else:\n    z = 2\n",
    # transformers/generation/__init__.py: optional imports, each behind a try, under TYPE_CHECKING
    "if FLAG:\n    try:\n        if FLAG:\n            raise E()\n    except E:\n        pass\n    else:\n"
    "        from os import sep\n    try:\n        a()\n    except E:\n        pass\n    else:\n"
    "        from os import path\nelse:\n    import sys\n    z = sys.maxsize\n",
]


@pytest.mark.parametrize("flag", [0, 1])
@pytest.mark.parametrize("in_class", [False, True])
@pytest.mark.parametrize("body", _IF_TRY_BODIES, ids=["except", "except_else", "elif_raise", "transformers"])
def test_an_if_arm_ending_in_a_try_ends_a_module_or_class_body(body, in_class, flag):
    """An ``if`` whose arm is a try, with an ``else``, ending a module or class body:
    3.10+ copy the body's return into the try's body or else clause and its except
    clauses, so that arm ends in a try no path goes on past, and was refused as "a
    module or class body ends in one path of an if that code follows" (module code
    on 3.10-3.13, class bodies on 3.10-3.12; transformers/generation/__init__.py)."""
    if in_class:
        body = "class C:\n" + "".join("    " + line + "\n" for line in body.splitlines())
    source = "FLAG = %d\n\n\nclass E(Exception):\n    pass\n\n\ndef a():\n    raise E()\n\n\n%s" % (flag, body)
    ran, ran_again = _module_round_trip(source)

    def names(ns):
        values = dict(ns, **{"C." + k: v for k, v in vars(ns.get("C", object)).items()})
        return {k: v for k, v in values.items() if type(v) in (int, str) and not k.startswith(("__", "C.__"))}
    assert names(ran) == names(ran_again)


def test_a_class_body_at_module_level_keeps_its_global_statement():
    """``class C: global G; G = 2`` (a new-user trial): the ``global`` was dropped, so the
    class got an attribute ``G`` and the module none; the class body's own code object,
    decompiled alone, keeps it too."""
    source = "class C:\n    global G\n    G = 2\n    k = G + 1\n"
    ran, ran_again = _module_round_trip(source)
    assert ran["G"] == ran_again["G"] == 2 and ran_again["C"].k == 3 and not hasattr(ran_again["C"], "G")
    body = next(c for c in compile(source, "<s>", "exec").co_consts if hasattr(c, "co_code"))
    assert "global G" in unveil.decompile(body)


def test_a_module_that_imports_a_name_called_import_is_decompiled():
    """importlib's ``__init__`` binds ``__import__`` by ``from ._bootstrap import __import__``;
    the imported module waiting on the stack was taken to read that name (its ``__import__``
    call is the import statement's placeholder), so the module was refused (the stdlib
    sweep, every version, since 295bb60)."""
    ran, ran_again = _module_round_trip(
        "from os import path as __import__\nimport json\nx = json.dumps([__import__.sep])\n")
    assert ran["x"] == ran_again["x"] and ran["__import__"] is ran_again["__import__"]


def _continue_in_a_try_whose_finally_returns(xs):
    out = []
    for x in xs:
        try:
            if x < 0:
                continue
            if x > 10:
                return out
            out.append(x)
        finally:
            if x == 5:
                return "five"
    return out


def test_a_function_written_as_a_state_machine_says_so_and_why():
    """A new-user trial met a 10-line loop printed as 105 lines of ``__state = ...``, with no
    word of why; the reason was only in ``decompile_code(f).lowered``.  What ``decompile``
    shows (the API and the CLI alike) now says it in a comment before the code."""
    fn = _continue_in_a_try_whose_finally_returns
    lowered = unveil.decompile_code(fn).lowered
    assert len(lowered) == 1          # (a structuring rule that writes it as a loop retires this case)
    text = unveil.decompile(fn)
    assert text.startswith("# %s (line %d) is written as a state machine: %s\n" % tuple(lowered[0])), text
    namespace = {}
    exec(compile(text, "<s>", "exec"), namespace)
    for xs in ([1, 2], [1, -1, 12, 3], [5, 1], []):
        assert namespace[fn.__name__](xs) == fn(xs)


def _logged(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        return fn(*args, **kwargs)
    return wrapper


@_logged
def _decorated(a, b=2):
    return a + b


def test_recompiling_a_decorated_functions_text_with_the_wrappers_code_says_what_to_give():
    """``decompile_code`` unwraps a decorated function to the one it wraps; recompiling that
    text with the wrapper's code said only "arguments ('a', 'b') != ('args', 'kwargs')", names
    the text did not seem to have (a new-user trial)."""
    text = unveil.decompile_code(_decorated).source
    with pytest.raises(unveil.DecompilationError, match=r"the text defines _decorated, not wrapper: a decorated"):
        unveil.recompile(text, _decorated.__code__)
    assert unveil.recompile(text, _decorated.__wrapped__.__code__).co_varnames[:2] == ("a", "b")


@pytest.mark.parametrize("builtin", [len, str.upper, "".join])
def test_a_builtin_is_the_same_error_as_the_clis(builtin):
    """``unveil.decompile(len)`` said "not a function, code object or .pyc path" where the
    CLI says it is a built-in with no bytecode (a new-user trial)."""
    with pytest.raises(unveil.DecompilationError, match="is a built-in function: it has no bytecode"):
        unveil.decompile(builtin)


def test_a_lambdas_code_object_alone_is_shown_as_a_lambda():
    """``unveil.decompile(f.__code__)`` of a lambda printed ``def _unveil__lambda_(x, y):``, a
    name the reader never wrote; the code alone has no defaults, so none are shown."""
    fn = lambda x, y=2: x * 10 + y  # noqa: E731
    text = unveil.decompile(fn.__code__)
    assert text == "lambda x, y: x * 10 + y\n", text
    assert eval(text)(3, 4) == fn(3, 4)


EVALUATED = ["x + 1", "f(x)", "[i * x for i in range(3)]", "a if b else (c or d)", "lambda q, *r: (q, r, x)", "1",
             "x if a else None", "{k: f(k) for k in 'ab'} if x > 1 and not a else ()"]


@pytest.mark.parametrize("text", EVALUATED)
def test_an_eval_code_object_is_its_expression_and_recompiles_to_the_same_value(text):
    """``compile(text, name, "eval")`` came out as ``pass`` (its value and its calls gone:
    a module body drops its returns) or as ``if b: pass``; a new-user trial."""
    code = compile(text, "<s>", "eval")
    shown = unveil.decompile_code(code)
    assert ast.dump(ast.parse(shown.source, mode="eval")) == ast.dump(ast.parse(text, mode="eval")) \
        or shown.source.strip() in ("a if b else c or d",), shown.source
    again = unveil.recompile(shown.source, code)
    for env in ({"x": 2, "a": 0, "b": 0, "c": 0, "d": 5}, {"x": 0, "a": 1, "b": 1, "c": 3, "d": 0}):
        calls, again_calls = [], []
        run = eval(code, dict(env, f=lambda v: calls.append(v) or v * 3))
        rerun = eval(again, dict(env, f=lambda v: again_calls.append(v) or v * 3))
        if callable(run):
            run, rerun = run(1, 2), rerun(1, 2)
        assert (rerun, again_calls) == (run, calls)


@pytest.mark.parametrize("text", ["1 + 2\n", "x\n", "for i in range(2): i\n", "if x:\n    x * 2\n", "y = x\n"])
def test_an_interactive_code_object_recompiles_to_code_that_prints_its_values(text, capsys):
    """``compile(text, name, "single")`` prints an expression statement's value: its text
    recompiled as a module printed nothing (3.8-3.11), and 3.12+ refused it ('no handler
    for PRINT'); a new-user trial."""
    code = compile(text, "<s>", "single")
    shown = unveil.decompile_code(code)
    exec(code, {"x": 4})
    printed = capsys.readouterr().out
    exec(unveil.recompile(shown.source, code), {"x": 4})
    assert capsys.readouterr().out == printed


def test_what_cannot_be_decompiled_is_told_with_all_that_can():
    """``unveil.decompile(42)`` said "not a function, code object or .pyc path", though
    classes, modules, properties and target strings are decompiled too (a new-user trial)."""
    with pytest.raises(unveil.DecompilationError) as caught:
        unveil.decompile(42)
    assert str(caught.value) == ("cannot decompile 42 (int): not a function, method, property, class, module, "
                                 "code object, .pyc path or 'module:name' target")


class _Layer:
    """Stands in for an ``nn.Module``: a repr of several lines, a ``forward``."""

    def __repr__(self):
        return "Layer(\n  (inner): Linear(in=2, out=2)\n)"

    def forward(self, x):
        return x


def test_an_instance_is_told_on_one_line_with_what_of_it_can_be_decompiled():
    """``unveil.decompile(model)``: the error quoted the model's repr, lines and all (a
    new-user trial, ``torch.compile(nn.Linear(2, 2))``), and said nothing of its class."""
    with pytest.raises(unveil.DecompilationError) as caught:
        unveil.decompile(_Layer())
    assert str(caught.value) == (
        "cannot decompile Layer( (inner): Linear(in=2, out=2) ) (_Layer): not a function, method, property, class, "
        "module, code object, .pyc path or 'module:name' target; an instance: its class (_Layer) or a method of it "
        "(_Layer.forward) can be")


class OptimizedModule:
    """A stand-in for torch.compile's wrapper of a module (no torch in these tests)."""

    def __init__(self, module):
        self._orig_mod = module

    def forward(self, *args):
        return self._orig_mod.forward(*args)


def test_torch_compiles_wrapper_of_a_module_is_told_with_the_modules_class():
    """``unveil.decompile(torch.compile(M()))`` suggested ``OptimizedModule.forward``, torch's
    own wrapper, not ``M.forward`` (a new-user trial)."""
    with pytest.raises(unveil.DecompilationError) as caught:
        unveil.decompile(OptimizedModule(_Layer()))
    assert str(caught.value).endswith(
        "; torch.compile's wrapper of _Layer: the module's class (_Layer) or a method of it (_Layer.forward) can be")


def _counts_up(n):
    yield n + 1


async def _doubles(x):
    return x * 2


def test_a_generator_a_coroutine_and_a_partial_are_decompiled_as_the_code_they_run():
    """A generator or coroutine object, and a ``functools.partial``, were refused as "not a
    function" (a new-user trial): each is the code it runs."""
    assert unveil.decompile(_counts_up(3)) == unveil.decompile(_counts_up)
    coroutine = _doubles(1)
    try:
        assert unveil.decompile(coroutine) == unveil.decompile(_doubles)
    finally:
        coroutine.close()
    assert unveil.decompile(functools.partial(_counts_up, 1)) == unveil.decompile(_counts_up)
