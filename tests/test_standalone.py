"""Code objects decompiled on their own (as the CLI and a .pyc walker may do) give valid Python."""
import ast
import os
import sys
import types

import pytest

import unveil
from tests.roundtrip import same_bytecode


def _nested(code):
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield const
            yield from _nested(const)


def comprehensions(xs, ys):
    a = [x * 2 for x in xs if x]
    b = {x: y for x, y in zip(xs, ys)}
    c = {y for y in ys}
    d = list(x + 1 for x in xs)
    return a, b, c, d, (lambda v: v + 1)(3)


def test_nested_code_objects_decompile_to_valid_python():
    for code in _nested(comprehensions.__code__):
        source = unveil.decompile(code)
        ast.parse(source)          # compiler-made parameter names such as ".0" are renamed


def dead_code_closures(b):
    def g(a):
        if not (299 or b):      # folded away: b stays a free variable of g, unread
            a = a
        return a

    def h():
        k = 1
        if 0:
            return lambda: k    # folded away: k stays a cell variable of h
        return 2

    lam = lambda a: 0 if True else b    # folded away: b stays a free variable  # noqa: E731

    return g, h, lam


def dead_code_locals(a, b):
    x = i = None

    def g(c):
        def g2(d):
            # 3.12+: the inlined comprehension's i is also g2's local, but the iterable
            # reads the enclosing i: the dead code kept i free, not a lost local
            return not [None for y in () if []]
            p, q = ([lambda b: 122 for i in i('s', x) if i()], 2)  # noqa: F841  (dead code, the shape under test)
        return g2

    def h(c):
        # a is a cell of h only through dead code; the attribute name ``.a`` is no
        # reason to think it global
        while b(i.a[[]], a.a[x]):  # noqa: F823  (the shape under test)
            break
            a = lambda i: a

    return g, h


def test_recompile_keeps_the_frame_layout_of_locals_only_dead_code_named():
    """Random programs (3.12/3.13): "another frame layout" for both shapes."""
    for code in _nested(dead_code_locals.__code__):
        if code.co_name in ("g", "g2", "h"):
            new = unveil.recompile(unveil.decompile(code), code)
            assert (new.co_varnames[:1], new.co_freevars, new.co_cellvars) == \
                (code.co_varnames[:1], code.co_freevars, code.co_cellvars), code.co_name
    code = dead_code_locals.__code__
    new = unveil.recompile(unveil.decompile(code), code)
    assert (new.co_freevars, new.co_cellvars) == (code.co_freevars, code.co_cellvars)


def test_recompile_keeps_free_and_cell_variables_that_only_dead_code_named():
    for code in _nested(dead_code_closures.__code__):
        if code.co_name in ("g", "h", "<lambda>"):
            new = unveil.recompile(unveil.decompile(code), code)
            assert (new.co_freevars, new.co_cellvars) == (code.co_freevars, code.co_cellvars)


MODULE = '''
log = []
try:
    log.append("body")
finally:
    log.append("finally")
for i in range(3):
    if i == 1:
        log.append("one")
    else:
        log.append(i)
'''


def test_module_code_with_try_finally_at_the_end_is_valid_and_runs_the_same():
    code = compile(MODULE, "<module>", "exec")
    source = unveil.decompile(code)
    assert "return" not in source      # 3.11+ copies the implicit return into the try body
    original, decompiled = {}, {}
    exec(code, original)
    exec(compile(source, "<decompiled>", "exec"), decompiled)
    assert original["log"] == decompiled["log"]


def test_star_import_in_a_module_round_trips():
    """3.12+ compiles ``import *`` as an intrinsic call whose result is dropped."""
    from tests.roundtrip import same_bytecode
    code = compile("from os.path import *\nx = join('a', 'b')\n", "<m>", "exec")
    source = unveil.decompile(code)
    again = compile(source, "<m>", "exec")
    namespace = {}
    exec(again, namespace)
    assert namespace["x"] == os.path.join("a", "b")
    assert same_bytecode(code, again), source


def test_no_match_statement_before_3_10():
    """Random programs (3.9): a generator's constant-folded or-chain looked like a match
    head, and building it failed inside the decompiler (ast has no match_case there)."""
    source = ("def f(a, b, c=None, *args, **kw):\n    x = y = i = None\n"
              "    c = (yield ((69 or 243) or 261))\n    return c\n")
    code = compile(source, "<m>", "exec")
    text = unveil.decompile(code)
    namespace = {}
    exec(compile(text, "<m>", "exec"), namespace)
    gen = namespace["f"](0, 1)
    assert next(gen) == 69
    try:
        gen.send(5)
    except StopIteration as stop:
        assert stop.value == 5
    else:
        raise AssertionError("the generator did not return")


GENERIC_MODULE = '''
class Base:
    pass
def first[T: (int, str), *Ts, **P](x: T, *rest: *Ts, y=1, **kw: P.kwargs) -> T:
    return x
class Box[T](Base):
    def get[S](self, other: S) -> tuple[T, S]:
        return super().__class__, other
type Pair[K] = tuple[K, K]
type Plain = int
'''


def _type_params(namespace):
    return {k: [(type(p).__name__, p.__name__) for p in getattr(v, "__type_params__", ())]
            for k, v in namespace.items() if not k.startswith("__")}


def pep695_generics_in_a_module_round_trip():
    """typing.py (3.12+) defines generic classes at module level; the hidden scopes
    ``<generic parameters of X>`` come back as ``def f[T]``, ``class C[T]``, ``type A[T]``."""
    from tests.roundtrip import same_bytecode
    code = compile(GENERIC_MODULE.lstrip(), "<m>", "exec")
    source = unveil.decompile(code)
    again = compile(source, "<m>", "exec")
    original, decompiled = {}, {}
    exec(code, original)
    exec(again, decompiled)
    assert _type_params(original) == _type_params(decompiled)
    assert _type_params(decompiled)["first"] == [("TypeVar", "T"), ("TypeVarTuple", "Ts"), ("ParamSpec", "P")]
    assert repr(decompiled["Pair"].__value__) == repr(original["Pair"].__value__) == "tuple[K, K]"
    assert same_bytecode(code, again), source


if sys.version_info >= (3, 12):  # the syntax does not exist before: nothing to decompile
    test_pep695_generics_in_a_module_round_trip = pep695_generics_in_a_module_round_trip


CLASSES = '''
class A:
    """A's doc."""
    x = 1
    y: int = 2
    if x:
        z = [i * 2 for i in range(x + 2)]

    class B:
        w = 3

    def f(self):
        return super().__repr__()
'''


def _class_bodies():
    module = compile(CLASSES, "<classes>", "exec")
    outer = next(c for c in module.co_consts if isinstance(c, types.CodeType))
    return [outer, next(c for c in outer.co_consts if isinstance(c, types.CodeType) and c.co_name == "B")]


def test_a_class_body_decompiles_to_its_statements_and_recompiles_as_one():
    """A class body (as a .pyc walker finds it) comes out as the statements written inside
    ``class A:``; recompiled, it runs to the same namespace (a nested class keeps its
    qualified name) and keeps its ``__class__`` cell."""
    for body in _class_bodies():
        decompiled = unveil.decompile_code(body)
        assert not [line for line in decompiled.source.splitlines() if line.startswith(("__module__", "return"))]
        new = unveil.recompile(decompiled.source, body, lines=decompiled.lines)
        assert same_bytecode(body, new)    # B nested in A again (3.13: __firstlineno__ is a line)
        assert (new.co_name, new.co_cellvars, new.co_firstlineno) == \
            (body.co_name, body.co_cellvars, body.co_firstlineno)
        spaces = []
        for code in (body, new):
            namespace = {}
            exec(code, {"__name__": "classes"}, namespace)
            spaces.append({k: v for k, v in namespace.items() if not callable(v) and not isinstance(v, type)})
        assert spaces[0] == spaces[1]


PRIVATE_ATTRIBUTES = """
class _Printer:
    def __init__(self, data):
        self.__lines = data.split()
        self.__count = len([n for n in self.__lines if n in self.__lines])

    def lines(self):
        return self.__lines, self.__count
"""


def test_a_class_body_on_its_own_writes_private_attributes_as_its_methods_did():
    """_sitebuiltins' _Printer, _pyio's IOBase: a class body decompiled on its own is
    recompiled inside its class, so ``self._Printer__lines`` is written ``self.__lines``
    again (3.13's ``__static_attributes__`` records the name as written, unmangled)."""
    module = compile(PRIVATE_ATTRIBUTES, "<private>", "exec")
    body = next(c for c in module.co_consts if isinstance(c, types.CodeType))
    decompiled = unveil.decompile_code(body)
    assert "_Printer__" not in decompiled.source
    new = unveil.recompile(decompiled.source, body, lines=decompiled.lines)
    assert same_bytecode(body, new)
    namespace = {}
    exec(new, {"__name__": "private"}, namespace)
    printer = type("_Printer", (), namespace)("a b")
    assert printer.lines() == (["a", "b"], 2) and "_Printer__lines" in vars(printer)


MODULE_ENDING_IN_IF = """
import sys
if sys.maxsize > 0:
    def f():
        return 1
    x = 'first'
else:
    def f():
        return 2
    x = 'second'
"""


def test_a_module_ending_in_an_if_else_keeps_its_else():
    """3.11+ copy a module's implicit ``return None`` into the first arm of an if/else
    that ends it: dropped as a copy of the end, the else arm then always ran."""
    code = compile(MODULE_ENDING_IN_IF, "<m>", "exec")
    original, decompiled = {}, {}
    exec(code, original)
    exec(compile(unveil.decompile(code), "<m>", "exec"), decompiled)
    assert (decompiled["x"], decompiled["f"]()) == (original["x"], original["f"]()) == ("first", 1)


MODULE_ENDING_IN_TRY_ELSE = """
try:
    import _unveil_no_such_module
except ImportError:
    found = False
else:
    found = True
"""


def test_a_module_ending_in_try_except_else_keeps_its_else():
    """asyncio.futures: the module's end copied into the except clause (3.10+) left the
    else clause's statements after the try, where they always ran."""
    code = compile(MODULE_ENDING_IN_TRY_ELSE, "<m>", "exec")
    original, decompiled = {}, {}
    exec(code, original)
    exec(compile(unveil.decompile(code), "<m>", "exec"), decompiled)
    assert decompiled["found"] is original["found"] is False


def test_a_call_of_an_imported_modules_function_recompiles_alike():
    """3.11+ compile ``os.getcwd()`` without a method call when an import at module level
    binds ``os``: recompiled alone, the function needs that import told again
    (recompile's module-level ``import os``) to give the same bytecode."""
    module = compile("import os\nfrom os import path as p\n\ndef f(x):\n"
                     "    return (os.getcwd(), os.path.join(x, x), p.join(x), x.upper(),\n"
                     "            dict.fromkeys(*x), dict.fromkeys(x))\n",
                     "<m>", "exec")
    code = next(c for c in module.co_consts if hasattr(c, "co_code"))
    assert same_bytecode(code, unveil.recompile(unveil.decompile(code), code))


def test_a_module_docstring_stays_a_docstring_before_a_future_import():
    """``__doc__ = "..."`` compiles like a docstring, but a ``from __future__`` import may
    only follow the docstring (3.13's _pyrepl modules did not recompile)."""
    code = compile('"""The doc."""\nfrom __future__ import annotations\nx = 1\n', "<m>", "exec")
    source = unveil.decompile(code)
    assert source.startswith('"""The doc."""\nfrom __future__ import annotations')
    assert same_bytecode(code, unveil.recompile(source, code))


FUTURE_ANNOTATIONS = '''
from __future__ import annotations
x: int = 1
y: "quoted" = 2

class C:
    z: dict[str, int]
'''


def test_variable_annotations_under_the_future_import_are_not_quoted_twice():
    """Under ``from __future__ import annotations`` a module's or class's variable
    annotation is stored as text; written back as a string, ``x: 'int'``, it was stored
    as the text of that string ("'int'"): a wrong ``__annotations__``."""
    code = compile(FUTURE_ANNOTATIONS, "<m>", "exec")
    result = unveil.decompile_code(code)
    source = result.source
    original, decompiled = {}, {}
    exec(code, original)
    exec(compile(source, "<m>", "exec"), decompiled)
    assert decompiled["__annotations__"] == original["__annotations__"] == {"x": "int", "y": "'quoted'"}
    assert decompiled["C"].__annotations__ == original["C"].__annotations__
    assert same_bytecode(code, unveil.recompile(source, code, lines=result.lines))   # 3.13: C.__firstlineno__


def test_only_a_class_bodys_first_doc_assignment_is_its_docstring():
    """``__doc__ = "late"`` after other statements of a class body was written as a bare
    string, which sets nothing: the class had no docstring."""
    code = compile('class A:\n    x = 1\n    __doc__ = "late"\n\nclass B:\n    "doc"\n    y = 2\n', "<m>", "exec")
    original, decompiled = {}, {}
    exec(code, original)
    exec(compile(unveil.decompile(code), "<m>", "exec"), decompiled)
    assert [decompiled[k].__doc__ for k in "AB"] == [original[k].__doc__ for k in "AB"] == ["late", "doc"]


def test_a_chained_comparison_with_top_level_await_ends_the_module():
    """Random programs (3.12): ``A < +A < A << A ** await A`` with top-level await.  The
    chain's two arms each dropped its value and returned, and the decompiler refused
    ("a copied value would be evaluated twice"), or on 3.11 wrote the middle operand
    twice."""
    flags = ast.PyCF_ALLOW_TOP_LEVEL_AWAIT
    for text in ("A < +A < A << A ** await A\n", "A < f() < await C\n", "x = A < f() < await C\n"):
        code = compile(text, "<m>", "exec", flags=flags)
        source = unveil.decompile(code)
        assert source.strip() == text.strip()
        assert same_bytecode(code, compile(source, "<m>", "exec", flags=flags))


_GENERICS = '''
def first[T](items: list[T], /) -> T:
    return items[0]
class Box[T: (int, str)](dict):
    def get(self) -> T: ...
type Pair[K, V] = tuple[K, V]
def with_default[T](x: T = 1) -> T:
    return x
'''


if sys.version_info >= (3, 12):  # PEP 695 scopes exist from 3.12: nothing to decompile before
    def test_a_generic_scope_on_its_own_returns_the_definition_it_makes():
        """``<generic parameters of X>`` is only ever called by the code defining X; on its own
        it reads as a function defining X and returning it (one whose definition reads the
        scope's hidden parameters, such as defaults, has no source form and is refused).
        The scope's hidden locals (``.defaults``, the type parameters) are the nested
        definition's in the text, so the frame layout is not the scope's."""
        scopes = {c.co_name: c for c in _nested(compile(_GENERICS, "<generics>", "exec"))
                  if c.co_name.startswith("<generic parameters of ")}
        made = {}
        for name in ("first", "Box", "Pair"):
            code = scopes["<generic parameters of %s>" % name]
            source = unveil.decompile(code)
            namespace = {}
            exec(compile(source, "<decompiled>", "exec"), namespace)
            made[name] = next(v for k, v in namespace.items() if k != "__builtins__")()
            assert unveil.recompile(source, code).co_name == code.co_name
        assert made["first"]([5]) == 5 and [p.__name__ for p in made["first"].__type_params__] == ["T"]
        assert made["Box"].__type_params__[0].__constraints__ == (int, str) and issubclass(made["Box"], dict)
        assert made["Pair"].__value__ == tuple[made["Pair"].__type_params__]  # noqa: F821  (a string key, not a name)
        with pytest.raises(unveil.DecompilationError, match="hidden local"):
            unveil.decompile(scopes["<generic parameters of with_default>"])

    def test_a_generic_def_named_by_its_path_keeps_its_type_parameters(tmp_path):
        """``path:first`` for ``def first[T](items: list[T], /) -> T``: the def's annotations
        come from the module's text, which read ``T``; the ``[T]`` that binds it was left
        out, so the text alone failed with NameError."""
        path = tmp_path / "generics.py"
        path.write_text(_GENERICS)
        source = unveil.decompile("%s:first" % path)
        assert source.startswith("def first[T](items: list[T], /) -> T:"), source
        namespace = {}
        exec(compile(source, "<decompiled>", "exec"), namespace)
        assert namespace["first"]([5]) == 5 and [p.__name__ for p in namespace["first"].__type_params__] == ["T"]


def lost_after_a_loop(y):
    while True:
        if y:
            return y
        y += 1
    x = 5
    return x


def lost_after_an_endless_loop(y):
    for i in y:
        pass
    while 1:
        pass
    z = 1    # noqa: F841  (unreachable: the shape under test)


def test_locals_only_removed_code_stored_stay_locals_on_every_version():
    """The compiler removes what follows an endless loop but keeps its names as locals;
    the text's dead store must do the same on 3.8 and 3.9 too, whose compiler names
    no local inside ``if False:``."""
    for fn in (lost_after_a_loop, lost_after_an_endless_loop):
        code = fn.__code__
        assert unveil.recompile(unveil.decompile(code), code).co_varnames == code.co_varnames, fn.__name__


def _closure_maker(k):
    total = 0

    def add(v):
        nonlocal total
        total += v * k
        return total
    return add


def test_a_closure_on_its_own_is_written_where_its_free_variables_are_bound():
    """``nonlocal total`` in a ``def`` at module level does not compile: a closure on its own
    is written inside the function whose locals its free variables are, and recompiles
    to the same frame layout (Dynamo's transformed code of a closure is one)."""
    add = _closure_maker(3)
    d = unveil.decompile_code(add)
    compile(d.source, "<closure>", "exec")
    assert d.source.startswith("def __enclosing_scope__():")
    code = unveil.recompile(d.source, add.__code__, lines=d.lines)
    assert (code.co_freevars, code.co_varnames) == (add.__code__.co_freevars, add.__code__.co_varnames)
    rebuilt = types.FunctionType(code, globals(), "add", None, add.__closure__)
    assert (rebuilt(1), add(1), rebuilt(2)) == (3, 6, 12)      # one cell, shared with the original


def test_a_comprehension_on_its_own_recompiles_with_its_argument_named_as_the_compilers():
    """Python names a comprehension's argument ``.0``; the text spells it ``_unveil__0``
    and recompile gives the name back (Dynamo compares the arguments by name)."""
    for code in _nested(comprehensions.__code__):
        if code.co_varnames[:1] == (".0",):
            recompiled = unveil.recompile(unveil.decompile(code), code)
            assert recompiled.co_varnames[:1] == (".0",), code.co_name


def test_a_code_object_passed_as_a_value_is_a_bound_name():
    """Dynamo calls a helper with a code object constant to make a closure; the code
    object used as a value (not by MAKE_FUNCTION) is bound, not written as ``None``."""
    from unveil.definitions.functions import FunctionContext
    from unveil.bytecode.opcodes import Instr
    from unveil.structure.frame import Frame
    from unveil.syntax.unparse import unparse
    inner = next(c for c in _closure_maker.__code__.co_consts if isinstance(c, types.CodeType))
    frame = Frame(FunctionContext((lambda g: None).__code__))
    frame.run([Instr("LOAD_FAST", argval="g"), Instr("LOAD_CONST", argval=inner), Instr("CALL", argval=(1, (), False))])
    text = unparse(frame.pop()).strip()
    name = next(iter(frame.ctx.bindings.names))
    assert text == "g(%s)" % name and frame.ctx.bindings.names[name] is inner


class _Holder:
    def method(self):
        def add_marker(x):
            return x + 987654321
        return add_marker


def test_a_bound_object_in_a_function_made_in_a_method_is_not_mangled():
    """Dynamo puts objects with no source form among a code's constants; the text names
    them ``__unveil_...``.  A function defined in a method is recompiled inside its
    class when its names allow: a class body would mangle such a name (``_Holder__unveil...``,
    a NameError when it runs), so it is compiled outside it."""
    from tests.roundtrip import rebuild_decompiled

    class Marker:
        def __radd__(self, other):
            return ("added", other)

    fn = _Holder().method()
    consts = tuple(Marker() if c == 987654321 else c for c in fn.__code__.co_consts)
    fn = types.FunctionType(fn.__code__.replace(co_consts=consts), fn.__globals__, fn.__name__)
    new, result = rebuild_decompiled(fn)
    assert "__unveil_" in result.source
    assert new(5) == ("added", 5)


def _run_on_its_own(source, fn):
    """The function that ``source``, ``fn`` decompiled on its own, makes when it runs in a
    copy of ``fn``'s module's globals, given ``fn``'s cells."""
    namespace = dict(fn.__globals__)
    exec(compile(source, "<on its own>", "exec"), namespace)
    made = namespace["__enclosing_scope__"]()
    assert made.__code__.co_freevars == fn.__code__.co_freevars, source
    return types.FunctionType(made.__code__, fn.__globals__, fn.__name__, fn.__defaults__, fn.__closure__)


def test_a_function_reading_the_global_of_its_own_name_reads_it_on_its_own():
    """A method calling ``super()`` and the module's function of its own name, or a closure
    reading its own global name, on its own is written inside ``def __enclosing_scope__():``
    (which binds its free variables), where its ``def`` binds the name too: the text read
    the function itself (3.11+ recompiled it inside its class, right, but the text alone
    was wrong).  It declares the name ``global`` (after a docstring), and a lambda named
    so is returned bare."""
    from tests.cases import own_name_globals as m
    child = m._Child()
    for fn, args in ((m._Child.helper, (child, 2)), (m._Child.described, (child, 3)), (m.made_by_maker, (4,))):
        source = unveil.decompile(fn)
        rebuilt = _run_on_its_own(source, fn)
        assert (rebuilt(*args), rebuilt.__doc__) == (fn(*args), fn.__doc__), source
    source = unveil.decompile("tests.cases.own_name_globals:_Child.tally")
    assert _run_on_its_own(source, m._Child.tally)(child) == ("base tally", "module tally"), source


def test_recompile_keeps_the_globals_a_text_binds_global_around_it():
    """recompile compiles a method's or closure's text inside a function of its own (that
    binds its free variables, or that it was made in): the def there binds its name in that
    function, and a text without ``global`` for it (written by hand, or the state machine's)
    read the def, a free variable more.  That function declares it global."""
    from tests.cases import own_name_globals as m
    text = "def made_by_maker(k):\n    return made_by_maker.__name__, k + n\n"
    assert unveil.recompile(text, m.made_by_maker.__code__).co_freevars == ("n",)
    text = "def helper(self, n):\n    return super().helper(n), helper()\n"
    assert unveil.recompile(text, m._Child.helper.__code__).co_freevars == ("__class__",)
