"""Output that reads like the original: signatures with their defaults and
annotations when a function object is given, docstrings as written."""
import ast
import collections
import dis
import json
import os
import sys
import typing

import pytest

import unveil

SENTINEL = object()


def plain(a, b=2):
    return a + b


def everything(x: int, y: "list[str]" = None, *args: str, key=SENTINEL, flag: bool = True, mutable=[],
               opt: typing.Optional[int] = None, **kw) -> collections.OrderedDict:
    return x


def positional(a, /, b=len, *, c=(1, "two"), d):
    return a


def rebuilt(fn):
    """The function the decompiled source of ``fn`` defines, run in ``fn``'s globals
    with the placeholder names bound."""
    result = unveil.decompile_code(fn)
    scope = dict(fn.__globals__)
    scope.update(result.bindings)
    exec(compile(result.source, "<decompiled>", "exec"), scope)
    return scope[fn.__name__], result


def test_a_function_objects_defaults_are_in_its_signature():
    assert unveil.decompile(plain).startswith("def plain(a, b=2):\n")
    # a code object has no defaults
    assert unveil.decompile(plain.__code__).startswith("def plain(a, b):\n")


def test_defaults_keyword_only_defaults_and_annotations_are_the_originals():
    for fn in (everything, positional):
        new, result = rebuilt(fn)
        assert len(new.__defaults__) == len(fn.__defaults__)
        assert all(a is b or (a == b and type(a) is type(b)) for a, b in zip(new.__defaults__, fn.__defaults__))
        assert new.__kwdefaults__ == fn.__kwdefaults__
        # a value written as its literal comes back equal, not the same: a tuple, a list's display
        assert all(new.__kwdefaults__[k] is v or type(v) in (tuple, list) for k, v in fn.__kwdefaults__.items())
        assert new.__annotations__ == fn.__annotations__
    head = unveil.decompile(everything).splitlines()[0]
    # names the function's globals or the builtins give a value are written as those names
    assert "x: int" in head and "key=SENTINEL" in head and "flag: bool = True" in head
    assert "y: 'list[str]' = None" in head and "*args: str" in head
    assert unveil.decompile(positional).startswith("def positional(a, /, b=len, *, c=(1, 'two'), d):")


def test_a_value_with_no_name_is_a_bound_placeholder():
    result = unveil.decompile_code(everything)
    assert "mutable=[]" in result.source and not result.bindings     # a list has a literal form

    def opaque(a, obj=object()):
        return a

    result = unveil.decompile_code(opaque)
    [(ident, value)] = list(result.bindings.items())
    assert value is opaque.__defaults__[0] and ("obj=%s" % ident) in result.source


def sig(a, b=2, *rest, key=[1, 2], cfg={"a": 1}, t=(1, [2]), s={3, 1, "b", "a"}, e=set(), obj=object(), **kw):
    return a


def test_lists_dicts_sets_and_tuples_are_written_as_displays_and_a_placeholder_is_explained():
    source = unveil.decompile(sig)
    assert source.splitlines()[:2] == [
        "# __unveil_object_0: bound to the default of obj, an object instance (no literal makes it)",
        "def sig(a, b=2, *rest, key=[1, 2], cfg={'a': 1}, t=(1, [2]), s={1, 3, 'a', 'b'}, e=set(), "
        "obj=__unveil_object_0, **kw):"]
    new, result = rebuilt(sig)
    assert list(result.bindings) == ["__unveil_object_0"] and not result.source.startswith("#")
    assert result.comments == [source.splitlines()[0][2:]]
    assert new.__defaults__ == sig.__defaults__ and new.__kwdefaults__ == sig.__kwdefaults__
    assert new.__kwdefaults__["key"] is not sig.__kwdefaults__["key"]       # a fresh list, as a def makes
    assert new.__kwdefaults__["obj"] is sig.__kwdefaults__["obj"]


class Tally(list):
    """A list subclass: a display would make a plain list."""


def _hard_defaults():
    looped = [1]
    looped.append(looped)
    held = [2]
    deep = {"k": []}
    deep["k"].append(deep)

    def hard(a=looped, b=[held, held], c=list(range(101)), d=Tally([1]), e=[[object()]], f=[deep],
             g=list(range(100)), h=(held, [held])):
        return a
    return hard


def test_a_container_a_display_would_not_make_is_bound_and_says_why():
    hard = _hard_defaults()
    source = unveil.decompile(hard)
    comments = [line for line in source.splitlines() if line.startswith("#")]
    assert comments == [
        "# __unveil_list_0: bound to the default of a, a list of 2 items (it contains itself)",
        "# __unveil_list_1: bound to the default of b, a list of 2 items (it holds one list twice: "
        "a literal would make two)",
        "# __unveil_list_2: bound to the default of c, a list of 101 items (more than 100 items in all: "
        "too many to write out)",
        "# __unveil_Tally_3: bound to the default of d, a %s.Tally instance "
        "(a literal would make a plain list)" % Tally.__module__,
        "# __unveil_list_4: bound to the default of e, a list of 1 item (it holds an object instance: "
        "no literal makes it)",
        "# __unveil_list_5: bound to the default of f, a list of 1 item (a dict in it contains itself)",
        "# __unveil_tuple_6: bound to the default of h, a tuple of 2 items (it holds one list twice: "
        "a literal would make two)"]
    assert "g=[0, 1, 2," in source                                   # 100 items: written out
    new, result = rebuilt(hard)
    assert all(a is b or type(b) is list for a, b in zip(new.__defaults__, hard.__defaults__))
    assert new.__defaults__ == hard.__defaults__[:6] + (list(range(100)), hard.__defaults__[7])


def test_a_sets_display_is_in_the_same_order_in_every_process():
    """A set of strings iterates in an order that follows the process's string hashing."""
    import subprocess
    script = ("import unveil\ndef f(s={'pear', 'apple', 'fig', 'kiwi', 'plum', ('b', 1), frozenset({'x', 'y'}), "
              "None, 2, 1.5}):\n    pass\nprint(unveil.decompile(f))")
    texts = set()
    for seed in ("1", "2", "3"):
        env = dict(os.environ, PYTHONHASHSEED=seed, PYTHONPATH=os.pathsep.join(sys.path))
        texts.add(subprocess.run([sys.executable, "-c", script], env=env, check=True, stdout=subprocess.PIPE,
                                 universal_newlines=True).stdout)
    # by type (NoneType, float, frozenset, int, str, tuple), then value, else text
    assert texts == {"def f(s={None, 1.5, frozenset({'x', 'y'}), 2, 'apple', 'fig', 'kiwi', 'pear', 'plum', "
                     "('b', 1)}):\n    pass\n\n"}


def test_an_empty_set_is_set_only_where_that_name_is_the_builtin():
    scope = {"set": frozenset}
    exec("def shadowed(s=None):\n    return s\n", scope)
    shadowed = scope["shadowed"]
    shadowed.__defaults__ = (set(),)
    source = unveil.decompile(shadowed)
    assert source.startswith("# __unveil_set_0: bound to the default of s, an empty set (no display makes an "
                             "empty set, and set is not the built-in here)\ndef shadowed(s=__unveil_set_0):")


SCALE = 3


def with_lambdas(a, key=lambda x: x * SCALE, *, cmp=lambda p, q=2: p < q, pick=(lambda: max)):
    return a


def test_a_lambda_default_is_written_as_the_lambda():
    head = unveil.decompile(with_lambdas).splitlines()[0]
    assert head == "def with_lambdas(a, key=lambda x: x * SCALE, *, cmp=lambda p, q=2: p < q, pick=lambda: max):"
    new, result = rebuilt(with_lambdas)
    assert not result.bindings
    assert new.__defaults__[0](5) == 15 and new.__kwdefaults__["cmp"](1) is True
    assert new.__kwdefaults__["pick"]() is max


def test_a_lambda_over_a_free_variable_stays_a_placeholder():
    limit = 4

    def inner(check=lambda v: v < limit):
        return check

    result = unveil.decompile_code(inner)
    [(ident, value)] = list(result.bindings.items())
    assert value is inner.__defaults__[0] and ("check=%s" % ident) in result.source


class Box:
    class Inner:
        pass


def annotated(a: typing.Optional[int] = None, b: typing.List[str] = (), c: typing.Dict[str, "Box"] = None,
              d: collections.OrderedDict = None, e: typing.Union[int, str] = 0,
              f: typing.Callable[[int], str] = None, g: typing.Tuple[int, ...] = (), h: typing.Tuple[()] = (),
              i: Box.Inner = None, j: typing.Callable[..., int] = None) -> typing.Tuple[int, ...]:
    return a


def test_typing_annotations_are_written_as_typing_expressions():
    head = unveil.decompile(annotated).splitlines()[0]
    assert head == ("def annotated(a: typing.Optional[int] = None, b: typing.List[str] = (), "
                    "c: typing.Dict[str, 'Box'] = None, d: collections.OrderedDict = None, "
                    "e: typing.Union[int, str] = 0, f: typing.Callable[[int], str] = None, "
                    "g: typing.Tuple[int, ...] = (), h: typing.Tuple[()] = (), i: Box.Inner = None, "
                    "j: typing.Callable[..., int] = None) -> typing.Tuple[int, ...]:")
    new, result = rebuilt(annotated)
    assert not result.bindings and new.__annotations__ == annotated.__annotations__


@pytest.mark.skipif(sys.version_info < (3, 10), reason="list[int] and int | None evaluate from 3.10")
def test_builtin_generics_and_unions_are_written_as_such():
    scope = {"typing": typing}
    exec("def new_style(a: list[int] = None, b: dict[str, list[int]] = None, c: int | None = None) -> int | str:\n"
         "    return a\n", scope)
    fn = scope["new_style"]
    assert unveil.decompile(fn).splitlines()[0] == (
        "def new_style(a: list[int] = None, b: dict[str, list[int]] = None, c: int | None = None) -> int | str:")


CHECKS = """
def checks(x, y):
    assert x
    assert x == 1, "x is %s" % y
    if y:
        assert y > 2, y
    return y
"""


def test_an_assert_is_written_as_assert():
    """3.9+ load an assert's exception with LOAD_ASSERTION_ERROR, not the name: that is
    an ``assert`` (before, ``if not x: raise AssertionError``, which 3.8 compiles alike).
    (Compiled from text: pytest rewrites the asserts of a test module's own functions.)"""
    from tests.roundtrip import same_bytecode
    checks = next(c for c in compile(CHECKS, "<checks>", "exec").co_consts if hasattr(c, "co_code"))
    source = unveil.decompile(checks)
    if sys.version_info >= (3, 9):
        assert "    assert x\n    assert x == 1, 'x is %s' % y\n" in source and "raise" not in source
    assert same_bytecode(checks, unveil.recompile(source, checks))


def test_json_loads_keeps_its_keyword_only_defaults():
    head = unveil.decompile(json.loads).splitlines()[0]
    assert head == ("def loads(s, *, cls=None, object_hook=None, parse_float=None, parse_int=None, "
                    "parse_constant=None, object_pairs_hook=None, **kw):")


def test_the_signature_does_not_change_the_recompiled_bytecode():
    for fn in (plain, everything, positional):
        result = unveil.decompile_code(fn)
        code = unveil.recompile(result.source, fn.__code__)
        assert code.co_code == fn.__code__.co_code and code.co_varnames == fn.__code__.co_varnames


def test_a_closures_default_is_not_named_by_a_free_variable():
    SENTINEL = "local"   # noqa: F841 (a free variable of inner, named like the global)

    def inner(a=globals()["SENTINEL"]):
        return SENTINEL, a

    new, result = rebuilt_closure(inner)
    assert new.__defaults__[0] is SENTINEL_GLOBAL
    assert "(a=SENTINEL)" not in result.source


SENTINEL_GLOBAL = SENTINEL


def rebuilt_closure(fn):
    """``fn`` decompiled on its own (inside ``__enclosing_scope__``), run, and called out."""
    result = unveil.decompile_code(fn)
    scope = dict(fn.__globals__)
    scope.update(result.bindings)
    exec(compile(result.source, "<decompiled>", "exec"), scope)
    return scope["__enclosing_scope__"](), result


DOCSTRINGS = [
    "One line.",
    "Summary.\n\n    Indented body, as written in a def.\n\n        More indented.\n    ",
    "Ends with a quote\"",
    "Has ''' and \"\"\" both",
    "Has \"\"\" only\n  and ends with '",
    "Backslash \\ and \\n spelled, tab\there, a \r carriage return",
    "\n    Starts on the second line.\n    ",
    "Unicode é and a \u2028 separator\n\tindented by a tab",
    "   leading spaces\n   kept?",
    "Blank lines with spaces\n    \n        \n    end",
]


def _function_with_docstring(doc, klass=False):
    source = "def f():\n    %r\n    return 1\n" % (doc,)
    if klass:
        source = "class C:\n    def f(self):\n        %r\n        return 1\n" % (doc,)
    scope = {}
    exec(compile(source, "<doc>", "exec"), scope)
    return scope["C"].f if klass else scope["f"]


def test_docstrings_are_triple_quoted_blocks_that_recompile_to_the_same_constant():
    for doc in DOCSTRINGS:
        for klass in (False, True):
            fn = _function_with_docstring(doc, klass)
            result = unveil.decompile_code(fn)
            stored = fn.__code__.co_consts[0]
            code = unveil.recompile(result.source, fn.__code__, lines=result.lines)
            assert code.co_consts[0] == stored, (doc, result.source)
            assert code.co_code == fn.__code__.co_code
            assert len(result.lines) == len(result.source.splitlines())
            if not ("'''" in doc and '"""' in doc):      # else no triple quote can hold it
                assert len(result.source.splitlines()) == stored.count("\n") + 3


def test_json_loads_docstring_has_its_line_breaks():
    source = unveil.decompile(json.loads)
    assert '\\n' not in source
    [doc] = [node for node in ast.walk(ast.parse(source)) if isinstance(node, ast.Expr)][:1]
    assert unveil.recompile(source, json.loads.__code__).co_consts[0] == json.loads.__doc__
    assert doc.end_lineno - doc.lineno == json.loads.__doc__.count("\n")


def test_a_module_docstring_is_a_block_too():
    code = compile('"""Module.\n\nSecond paragraph."""\nx = 1\n', "<m>", "exec")
    source = unveil.decompile(code)
    assert source.startswith('"""Module.\n\nSecond paragraph."""\n')


def test_defaults_set_by_hand_beyond_the_parameters_still_give_valid_source():
    def f(a, b):
        return a, b

    f.__defaults__ = (1, 2, 3)          # the last two fill a and b, as a call sees it
    assert f() == (2, 3)
    new, result = rebuilt(f)
    assert new() == (2, 3) and result.source.startswith("def f(a=2, b=3):")
    g = lambda: 0                       # noqa: E731
    g.__defaults__ = (1,)               # no parameter to fill: a call sees none
    assert unveil.decompile(g) == "lambda: 0\n"
    h = lambda a, b=1: a + b            # noqa: E731
    h.__defaults__ = (7, 8)             # replaced after creation: the lambda a call sees
    source = unveil.decompile(h)
    assert source == "lambda a=7, b=8: a + b\n"
    assert eval(source)() == h() == 15
    assert unveil.recompile(source, h.__code__).co_code == h.__code__.co_code


def _cuts(it):
    for x in it:
        if x < 0:
            return
        yield x


def test_a_generators_return_is_bare():
    source = unveil.decompile(_cuts)
    assert "return\n" in source and "return None" not in source
    assert unveil.recompile(source, _cuts.__code__).co_code == _cuts.__code__.co_code


def _stylize(spans, style, start, length):
    if style:
        if start >= length:
            return
        spans.append((style, start))


def _add_option(parser, flag, pair):
    if flag:
        if pair:
            parser.append(("pair", flag))
            parser.append(("other", flag))
        else:
            parser.append(("flag", flag))
    else:
        parser.append(("plain", flag))


def _guarded(log, a):
    if not a:
        log.append("usage")
        return
    log.append(a)
    log.append(a * 2)


def _values(a):
    if a:
        return None
    return a + 1


def _same(fn):
    source = unveil.decompile(fn)
    assert unveil.recompile(source, fn.__code__).co_code == fn.__code__.co_code
    return source


def test_a_procedures_returns_are_bare_and_the_implicit_ones_are_not_written():
    """rich's Text.stylize: the explicit ``return`` is bare; the copy of the implicit
    return at the end of the if (3.10+) is not written."""
    source = _same(_stylize)
    assert "return None" not in source
    assert source.count("return") == 1


def test_an_arm_that_ran_off_the_end_of_the_function_has_the_rest_as_its_else():
    """click's Option.add_to_parser: on 3.10+ each arm ends in a copy of the implicit
    return; the code after such an arm was its ``else``."""
    source = _same(_add_option)
    assert "return" not in source
    assert source.count("else:") == 2


def test_an_explicit_return_ending_a_guard_stays():
    source = _same(_guarded)
    body = source.split("\n")
    assert "        return" in body and "else:" not in source


def _elif_assigning(x):
    if x == 0:
        y = "zero"
    elif x == 1:
        y = "one"
    elif x < 0:
        y = "negative"
    else:
        y = "many"
    return y


def _if_else_assigning(x):
    if x:
        y = x * 2
    else:
        y = -1
    return y


def _elif_without_else(x):
    y = None
    if x == 0:
        y = "zero"
    elif x == 1:
        y = "one"
    return y


def _try_ending_an_arm(x):
    if x:
        try:
            y = int(x)
        except ValueError:
            y = 0
        else:
            y += 1
    else:
        y = -1
    return y


def _try_else_in_an_if(c, g):
    if c:
        try:
            g()
        except ValueError:
            pass
        else:
            g()
    return 1


def _try_else_in_an_if_returning_a_tuple(c, g):
    seen = []
    if c:
        try:
            g()
        except ValueError:
            pass
        else:
            g()
    return 1, seen


def _try_else_before_the_return(g):
    try:
        g()
    except KeyError:
        g(0)
    else:
        g()
    return 2


@pytest.mark.parametrize("fn, elses", [(_elif_assigning, 3), (_if_else_assigning, 1), (_elif_without_else, 1),
                                       (_try_ending_an_arm, 2), (_try_else_in_an_if, 1),
                                       (_try_else_in_an_if_returning_a_tuple, 1), (_try_else_before_the_return, 1)])
def test_arms_running_on_to_one_return_keep_their_else_and_the_return_is_written_once(fn, elses):
    """3.10 and 3.12+ copy a short ``return y`` in place of each arm's jump to it, on the return's
    line and with no NOP: the arms ran on to one return in the source (else every arm
    read ``y = ...; return y`` and the chain fell apart into separate ifs).  A try ending
    the arm gets a copy at the end of its else clause too, which ran on to the return,
    and so does an except clause running on to it, the try's else clause then written
    after the try (``except E: return 1`` / ``g()``)."""
    source = _same(fn)
    heads = [line.split()[0] for line in source.splitlines()[1:] if line.strip()]
    assert heads.count("return") == 1 and heads.count("else:") + heads.count("elif") == elses, source


def test_a_function_returning_values_keeps_return_none():
    assert "return None" in _same(_values)


def test_a_class_body_ending_in_an_if_keeps_its_shape():
    """pathlib's PosixPath (3.13): the if/else made from a copied implicit return is
    for functions; a class body's copies (with 3.13's ``__static_attributes__``) are
    dropped by the class-body rules, and the if gets no else."""
    module = compile("class P:\n    __slots__ = ()\n    if X:\n        def __new__(cls):\n            pass\n",
                     "<p>", "exec")
    body = next(c for c in module.co_consts if hasattr(c, "co_code"))
    source = unveil.decompile(body)
    assert "else" not in source and "__static_attributes__" not in source
    assert source.count("def __new__") == 1


def _lambda_over(n):
    return lambda x, *a, y=1, **kw: x + n + y


_generator = lambda: (yield 1)                                  # noqa: E731
_filtered = lambda a, b=2: [i for i in range(b) if i > a]       # noqa: E731


def test_a_lambda_function_is_its_lambda_expression_and_recompiles_to_the_same_code():
    from tests.roundtrip import same_bytecode
    for fn, text in [(_lambda_over(2), "def __enclosing_scope__():\n    n = None\n"
                                       "    return lambda x, *a, y=1, **kw: x + n + y\n"),
                     (_generator, "lambda: (yield 1)\n"),
                     (_filtered, "lambda a, b=2: [i for i in range(b) if i > a]\n")]:
        result = unveil.decompile_code(fn)
        assert result.source == text
        code = unveil.recompile(result.source, fn.__code__, lines=result.lines)
        assert same_bytecode(code, fn.__code__) and code.co_firstlineno == fn.__code__.co_firstlineno


def _keep(x):
    return x


def _keep_too(n):
    return _keep


def _decorated_inside():
    @_keep
    @_keep_too(1)
    def g():
        return 1

    @_keep_too(2)
    @_keep
    class C:
        pass
    return g, C


def test_each_decorator_and_the_def_or_class_below_stands_for_its_own_line():
    """Every ``@`` line and the ``def`` or ``class`` below them stood for the first
    decorator's line: a traceback through the second decorator, or a breakpoint on the
    ``def``, named the wrong line.  3.11+ call each decorator on its own line, so the
    recompiled code starts the lines the original does; before, only the ``def`` and
    ``class`` lines are known (the calls are on theirs)."""
    result = unveil.decompile_code(_decorated_inside)
    code = unveil.recompile(result.source, _decorated_inside.__code__, lines=result.lines)
    first = _decorated_inside.__code__.co_firstlineno
    starts = [line for _, line in dis.findlinestarts(code)]
    assert {first + 3, first + 8} <= set(starts), (result.lines, starts)
    if sys.version_info >= (3, 11):
        assert starts == [line for _, line in dis.findlinestarts(_decorated_inside.__code__)]


def walrus_cells(xs):
    return [y for x in xs if (y := x * 2) > 2], any((w := x) > 4 for x in xs) and w


def test_a_walrus_in_a_comprehension_leaves_no_dead_assignment_after_the_return():
    """A walrus in a comprehension (a code object of its own before 3.12; a generator
    expression's in every version) binds a cell no instruction of the function stores:
    it was taken for a local the compiler dropped, and ``if False: w = y = None`` written
    after the return (a new-user trial)."""
    text = unveil.decompile_code(walrus_cells).source
    assert "if False" not in text and "= None" not in text, text
    new, _ = rebuilt(walrus_cells)
    assert new([1, 3, 8, 5]) == walrus_cells([1, 3, 8, 5])


def _gets(self, timeout):
    with self.lock:
        if timeout is None:
            while not self.ready():
                self.wait()
        else:
            while not self.ready():
                self.wait(timeout)
        item = self.take()
        self.notify()
        return item


def _end_of_chain(new_exc, old_exc, frame_exc):
    while 1:
        exc_context = new_exc.__context__
        if exc_context is None or exc_context is old_exc:
            return
        if exc_context is frame_exc:
            break
        new_exc = exc_context
    new_exc.__context__ = old_exc


def test_loops_go_on_where_the_source_does_though_every_way_out_returns():
    """Loops whose ways out all end in returns, written as the source has them and
    recompiled to the same bytecode.  In a ``with``, code after ``while not ready():``
    that returns through the with's exit was taken for a return of the loop's own, the
    loop written ``while True:`` around a copy of that code (queue.Queue.get, every
    version); of a ``while 1:``'s two ways out that return, the test's bare return was
    taken for where it goes on, not the one that runs code first (contextlib's
    ``_fix_exception_context``, 3.12).  Found by the stdlib round trip's identical count."""
    from tests.roundtrip import same_bytecode
    for fn, line in [(_gets, "            while not self.ready():\n"),
                     (_end_of_chain, "    new_exc.__context__ = old_exc\n")]:
        source = unveil.decompile(fn)
        assert line in source, source
        assert same_bytecode(fn.__code__, unveil.recompile(source, fn.__code__)), source


def _returns_from_a_clause_in_a_while(c, g, fw):
    while c():
        try:
            try:
                g()
            except Exception:
                return 2
        except KeyError:
            pass
        finally:
            fw("t5")


def test_a_return_through_a_finally_copy_is_not_written_after_the_loop_too():
    """``return 2`` from an except clause in a try/except/finally in a while loop that
    ends the function: 3.12+ lay its way out (the finally body's copy, then the return)
    after the loop, which was written there as the code after it, past an else clause:
    the finally body twice in the text (dead code; a break would have run it)."""
    source = unveil.decompile(_returns_from_a_clause_in_a_while)
    assert source.count("fw('t5')") == 1 and source.count("return 2") == 1, source
