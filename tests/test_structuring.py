"""Shapes the structurer must handle itself: the state machine would get them right too,
so the case library's behaviour check alone would not notice them falling back.
Whether a code object was lowered is read from ``Decompiled.lowered``, never from the
text (the loop-free tree form of the state machine has no ``__state``)."""
import ast
import contextlib
import importlib.util
import os
import sys

import pytest

import unveil
from unveil.errors import DecompilationError
from unveil.structure.structurer import Structurer
from tests.cases.registry import all_cases

STRUCTURED = [
    "boolops.and_or_condition_falling_back_to_the_loop",
    "boolops.conditional_expression_as_comprehension_filter",
    "boolops.conditional_expressions_as_statement_conditions",
    "boolops.boolops_in_comprehension_filters",
    "regressions.parallel_assignment_with_a_comprehension_second",
    "regressions.while_loop_ending_a_with_at_the_end_of_a_function",
    "regressions.dict_display_of_more_than_sixteen_items",
    "regressions.return_from_a_try_inside_a_loop",
    "regressions.return_from_a_loop_inside_an_except_clause",
    "regressions.raise_with_a_conditional_expression_in_a_loop",
    "regressions.generator_with_a_loop_whose_body_starts_with_try",
    "exceptions.while_true_retry_loop",
    "boolops.or_of_a_parenthesised_and_in_comprehension_filter",
    "regressions.chained_comparison_returned",
    "regressions.chained_comparison_returned_from_a_with",
    "regressions.try_in_an_except_clause_falling_through",
    "regressions.finally_returns_a_call",
    "regressions.return_from_a_try_in_a_loop_in_a_with",
    "regressions.return_from_an_if_in_a_try_in_a_loop",
    "regressions.return_from_a_loop_in_a_with",
    "regressions.chained_comparison_in_a_loop_with_a_subscript_middle",
    "regressions.chained_assignment_then_an_or",
    "regressions.return_from_an_if_in_a_try_in_loops_in_a_with_in_a_try",
    "regressions.while_else_break_threaded_to_the_outer_loop_returns",
    "regressions.while_true_break_then_elif_raise",
    "regressions.while_test_jumping_past_a_long_body",
    "regressions.for_that_never_loops_inside_while_true",
    "regressions.return_from_a_for_else_inside_while_true",
    "regressions.continue_from_a_with_in_a_while",
    "regressions.try_with_two_named_clauses_inside_a_named_except",
    "regressions.conditional_expression_in_a_finally_body",
    "regressions.finally_reads_a_name_the_try_assigned",
    "regressions.while_else_after_a_break_from_try_in_while_true",
    "regressions.while_one_with_an_inner_while_one_and_raising_arms",
    "regressions.return_from_a_try_in_an_except_clause",
    "regressions.return_a_tuple_with_a_conditional_from_nested_trys",
    "regressions.while_in_a_for_ending_with_an_if",
    "regressions.while_with_a_compound_test_and_continue",
    "regressions.or_before_a_break_that_goes_on_with_the_outer_loop",
    "regressions.while_with_an_or_of_ands_over_two_lines",
    "regressions.for_else_break_in_an_except_clause_in_a_try",
    "regressions.for_break_in_an_except_clause_then_return",
    "regressions.for_break_in_an_except_clause_inside_a_for",
    "regressions.while_with_a_chained_comparison_in_an_else",
    "regressions.for_else_raising_with_a_comprehension_in_a_for",
]
if sys.version_info >= (3, 12):  # only 3.12+ copy the return into the break path: the state
    STRUCTURED.append("regressions.or_in_a_call_before_break_and_return")  # machine before
CASES = {c.name: c for c in all_cases()}


def test_the_names_are_cases():
    assert set(STRUCTURED) <= set(CASES)


@pytest.mark.parametrize("name", STRUCTURED)
def test_structured_without_the_state_machine(name):
    result = unveil.decompile_code(CASES[name].fn)
    assert not result.lowered, result.source


def _branches(a):
    if a:
        return 1
    return 2


def _refuse(self):
    raise DecompilationError("not structurable (refused on purpose by the test)")


def test_a_lowering_is_recorded_even_without_a_state_variable(monkeypatch):
    """A refused loop-free function becomes nested ifs, with no ``__state`` to search
    for: ``Decompiled.lowered`` still names it, with its line and the refusal."""
    monkeypatch.setattr(Structurer, "body", _refuse)
    result = unveil.decompile_code(_branches)
    assert "__state" not in result.source, result.source
    assert result.lowered == [(_branches.__code__.co_name if sys.version_info < (3, 11)
                               else _branches.__qualname__, _branches.__code__.co_firstlineno,
                               "not structurable (refused on purpose by the test)")]


def _with_a_marker(a):
    if a:
        return 987654321
    return 2


def test_a_lowering_of_code_holding_a_dict_constant_is_recorded(monkeypatch):
    """Dynamo's code may hold a dict among its constants, which makes the code object
    unhashable: recording its lowering crashed (an InternalError, no file at all)."""
    import types
    from tests.roundtrip import rebuild_decompiled
    monkeypatch.setattr(Structurer, "body", _refuse)
    code = _with_a_marker.__code__
    code = code.replace(co_consts=tuple({"k": 1} if c == 987654321 else c for c in code.co_consts))
    with pytest.raises(TypeError):
        hash(code)
    fn = types.FunctionType(code, _with_a_marker.__globals__, "_with_a_marker")
    new, result = rebuild_decompiled(fn)
    assert [low.line for low in result.lowered] == [code.co_firstlineno]
    assert new(1) == {"k": 1} and new(0) == 2


def _outer(a):
    def inner(b):
        if b:
            return a
        return -a
    return inner


def test_a_nested_lowering_is_recorded_through_the_shared_bindings(monkeypatch):
    """Only the nested function is refused: it is the one listed, under its qualified name."""
    real = Structurer.body

    def body(self):
        if self.ctx.code.co_name == "inner":
            _refuse(self)
        return real(self)
    monkeypatch.setattr(Structurer, "body", body)
    result = unveil.decompile_code(_outer)
    assert [low.name for low in result.lowered] == [
        "inner" if sys.version_info < (3, 11) else "_outer.<locals>.inner"]
    assert not unveil.decompile_code(_branches).lowered


@pytest.mark.parametrize("crash", [IndexError, KeyError, AttributeError, TypeError, ValueError,
                                   AssertionError])
def test_a_crash_in_the_structurer_is_an_internal_error_not_a_lowering(monkeypatch, crash):
    """A bug in the structurer must not fall back to the state machine (which would get
    the behaviour right and hide it): the API raises InternalError, caused by the crash."""
    def body(self):
        raise crash("a bug")
    monkeypatch.setattr(Structurer, "body", body)
    with pytest.raises(unveil.InternalError) as info:
        unveil.decompile_code(_branches)
    assert isinstance(info.value.__cause__, crash)
    assert isinstance(info.value, unveil.DecompilationError)   # one clear error for the caller


def test_a_loop_test_spanning_blocks_makes_one_loop():
    """Its bottom copy (3.11+) is shared with the top one: no second, nested loop."""
    source = unveil.decompile(CASES["regressions.while_with_a_compound_test_and_continue"].fn)
    assert source.count("while ") == 1, source


def test_a_yield_after_a_nested_function_counts():
    """The generator's own yield comes after a lambda in the same statement: no dead
    ``if False: yield`` may be added to keep it a generator."""
    from tests.cases.regressions import generator_yielding_after_a_lambda
    source = unveil.decompile(generator_yielding_after_a_lambda)
    body = ast.parse(source).body[0].body
    assert not any(isinstance(statement, ast.If) for statement in body), source


def test_a_comprehension_target_binds_only_where_the_comprehension_runs():
    from unveil.bytecode import facts
    from unveil.definitions import functions
    inlined = facts.COMPREHENSIONS_INLINED
    assert functions._bound_names(ast.parse("[x for x in y]").body) == ({"x"} if inlined else set())
    assert functions._bound_names(ast.parse("{k: v for k, v in y}").body) == ({"k", "v"} if inlined else set())
    assert functions._bound_names(ast.parse("list(x for x in y)").body) == set()
    assert functions._bound_names(ast.parse("[(z := x) for x in y if (w := x)]").body) \
        == ({"x", "z", "w"} if inlined else {"z", "w"})


def test_a_local_stored_only_in_dead_code_is_kept_beside_a_comprehension_target():
    """Before 3.12 the comprehension's ``x`` is its own; the function's dead ``x = 1``
    must still leave ``x`` a local of the function (a dead store in the text)."""
    from tests.cases.regressions import comprehension_target_also_a_dead_local
    from unveil.bytecode import facts
    source = unveil.decompile(comprehension_target_also_a_dead_local)
    assert ("x = None" in source) == (not facts.COMPREHENSIONS_INLINED), source


_SETS = '''
def f(x):
    return x in {"pear", "fig", "apple", "kiwi"}, {"b", "a", "c", x}, {*"xy", "q", "p", "o"}
'''


def test_set_constants_read_the_same_whatever_the_string_hashing():
    """A frozenset constant iterates in an order that changes with each process's
    string hashing; the text is in a fixed order (each process of prepare_debug's
    helper would otherwise write a different one)."""
    import subprocess
    script = "import sys; sys.path.insert(0, %r); import unveil; ns = {}; exec(%r, ns); " \
             "print(unveil.decompile(ns['f']))" % (os.path.dirname(os.path.dirname(unveil.__file__)), _SETS)
    texts = {subprocess.run([sys.executable, "-c", script], env=dict(os.environ, PYTHONHASHSEED=seed),
                            capture_output=True, text=True, check=True).stdout for seed in ("1", "2", "3", "4")}
    assert len(texts) == 1
    assert "{'apple', 'fig', 'kiwi', 'pear'}" in texts.pop()


def test_an_int_subclass_constant_is_bound_not_written_as_an_int():
    """``1`` in the text would not be an IntEnum member Dynamo put in co_consts."""
    import enum

    class Colour(enum.IntEnum):
        RED = 1
    code = (lambda: 1).__code__
    code = code.replace(co_consts=tuple(Colour.RED if c == 1 else c for c in code.co_consts))
    result = unveil.decompile_code(code)
    assert list(result.bindings.values()) == [Colour.RED] and "return __unveil_Colour_0" in result.source


def test_a_second_structuring_attempt_sees_the_loops_as_first_found():
    """The attempts share one control-flow graph; structuring sets where a loop goes on
    (``follow``, ``else_start``), and the next attempt must not start from that."""
    from unveil.graph.cfg import Graph
    from unveil.bytecode.canonical import normalise

    def f(xs):
        for x in xs:
            if x:
                break
        else:
            return 0
        return 1

    graph = Graph(list(normalise(f.__code__).instrs))
    (header, loop), = graph.loops.items()
    follow = loop.follow
    loop.follow, loop.else_start = None, 0   # as an attempt may leave them
    graph.reset_loops()
    again = graph.loops[header]
    assert again is not loop and again.follow is follow and not hasattr(again, "else_start")


def test_a_loop_test_copied_to_the_bottom_is_shared_from_its_first_load():
    """``while s.a() and s.c(): pass`` (3.10+ copy the test to the loop's bottom, right
    where the empty body starts): the bottom copy becomes a jump to the top test's
    start.  Shared from its second instruction on (``LOAD_METHOD a``, taken for a start
    since its name begins with ``LOAD_``), it left the first load of each turn on the
    stack, and a later store took that value for part of a tuple (``x = 1; y = x``
    became ``x, y = 1, x``)."""
    from unveil.graph.cfg import Graph
    from unveil.bytecode.canonical import normalise

    def f(s):
        while s.a() and s.c():
            pass

    graph = Graph(list(normalise(f.__code__).instrs))
    (header, loop), = graph.loops.items()
    first = graph.instrs[header.start]
    assert (first.op, first.argval) == ("LOAD_FAST", "s")


def test_every_mutation_of_the_mutation_check_still_applies():
    """benchmarks/mutation_check.py (CI's mutation session) replaces a text in src/unveil; a
    text that moved away would make it stop with an error instead of proving anything."""
    path = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "benchmarks",
                        "mutation_check.py")
    spec = importlib.util.spec_from_file_location("mutation_check", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.mutation_text_counts() == dict.fromkeys(module.MUTATIONS, 1)


def _continues_from_finally(flags, log):
    for flag in flags:
        try:
            log.append(flag)
        finally:
            if flag:
                continue
        log.append("after")
    return log


@pytest.mark.skipif(sys.version_info[:2] != (3, 8), reason="3.8's own slot under a finally body that leaves")
def test_a_finally_copy_that_goes_on_past_its_handler_is_refused_not_guessed(monkeypatch):
    """3.8 pushes ``None`` under a finally body that leaves by ``continue``; left as a value,
    the handler's ``POP_TOP`` of it hid the ``continue``, which read as ``pass`` (the loop then
    ran ``log.append("after")``).  Unrecognised, the slot must make a lowering, never that."""
    from unveil.bytecode import legacy
    monkeypatch.setattr(legacy, "_placeholders", lambda instrs: set())
    result = unveil.decompile_code(_continues_from_finally)
    (name, _, why), = result.lowered
    assert name == "_continues_from_finally" and why.startswith("the handler's copy of a finally body goes on at "), why


def _returns_a_value_a_raising_finally_drops(flags):
    """``return len(r)`` (r unbound: it raises) in an if arm, inside a try/except in a
    try whose finally always raises: the value is dropped, its evaluation is not."""
    flags = iter(flags)
    try:
        try:
            if next(flags, 0):
                for _ in range(1):
                    a = "a"
                    break
                if next(flags, 0):
                    return len(r)  # noqa: F821 (bound below, on another path)
                else:
                    r = "bound"
                while True:
                    if not next(flags, 0):
                        break
                    a += "a"
            else:
                b = "b"  # noqa: F841
        except:  # noqa: E722
            raise
    finally:
        raise ValueError("finally")
    yield r


def _context_chain(gen):
    try:
        list(gen)
    except Exception as exc:  # the generator's own exceptions are its behaviour
        chain = []
        while exc is not None:
            chain.append(type(exc).__name__)
            exc = exc.__context__
        return chain
    return None


def test_a_return_value_a_raising_finally_drops_is_still_evaluated_or_refused():
    """The arm's ``return len(r)`` was written ``pass`` (3.8, 3.9): the UnboundLocalError
    its evaluation raises, the finally's exception's context, was lost."""
    from tests.roundtrip import rebuild_decompiled
    fn = _returns_a_value_a_raising_finally_drops
    try:
        new, _ = rebuild_decompiled(fn)
    except DecompilationError:
        return
    for flags in ([1, 1], [1, 0], [0]):
        assert _context_chain(new(flags)) == _context_chain(fn(flags)), flags


def _returns_an_undefined_name_under_a_bare_raise_finally(kind):
    try:
        raise TypeError("outer")
    except TypeError:
        try:
            if kind:
                raise KeyError(kind)
        except Exception:
            return undefined_name  # noqa: F821 (the NameError is the behaviour)
        finally:
            raise


def test_a_clause_return_a_raising_finally_drops_is_still_evaluated():
    """``except Exception: return b`` under ``finally: raise``: the value is dropped by
    the finally, its evaluation's NameError is not (3.12+: it was written ``pass``)."""
    from tests.roundtrip import rebuild_decompiled
    fn = _returns_an_undefined_name_under_a_bare_raise_finally
    try:
        new, _ = rebuild_decompiled(fn)
    except DecompilationError:
        return
    for kind in ("key", ""):
        assert _context_chain(_calling(new, kind)) == _context_chain(_calling(fn, kind)), kind


def _calling(fn, arg):
    yield fn(arg)


_LOOP_OF_AN_EXCEPT_CLAUSE_LEFT_BY_A_TRY_STAR_ELSE = '''
def fn(tests, g):
    try:
        g(0)
    except ValueError:
        while True:
            if not tests.pop(0):
                break
            try:
                g(len(tests))
            except* KeyError:
                pass
            else:
                return "else"
    return "after", len(tests)
'''


@pytest.mark.skipif(sys.version_info < (3, 11), reason="except* is 3.11+ syntax")
def test_a_loop_whose_test_leaves_its_except_clause_is_not_run_on_to_a_try_star_else():
    """exception_programs.py seed 40890 (3.13): ``while True: if not c(): break`` then a
    ``try``/``except*`` whose else clause returns, in an except clause.  Where the test
    leaves, the clause ends (on to ``return "after", len(tests)``, no constant); it was written ``while c():`` ending
    the clause's loop and then ``return "else"``, run on to by both ways out."""
    from tests.roundtrip import rebuild_decompiled
    scope = {}
    exec(_LOOP_OF_AN_EXCEPT_CLAUSE_LEFT_BY_A_TRY_STAR_ELSE, scope)
    fn = scope["fn"]
    try:
        new, _ = rebuild_decompiled(fn)
    except DecompilationError:
        return

    def g(n):
        if n == 0 or n == 2:
            raise (ValueError if n == 0 else KeyError)(n)

    for tests in ([False], [True, False], [True, True, False], [True, False, False]):
        assert new(list(tests), g) == fn(list(tests), g), tests


def _returns_in_an_else_clause_under_a_finally_that_raises(c, g):
    try:
        if c:
            g()
    except KeyError:
        g()
    else:
        return undefined_name  # noqa: F821 (the NameError is the behaviour)
    finally:
        raise KeyError("finally")


def test_an_else_clause_return_a_raising_finally_drops_is_still_evaluated_or_refused():
    """exception_programs.py seed 57610 (3.9, 3.10): ``else: return b`` under ``finally:
    raise``, whose copy the clauses share: the value waited there and the else clause was
    written as nothing, so the NameError, the context of the finally body's KeyError,
    was lost."""
    from tests.roundtrip import rebuild_decompiled
    fn = _returns_in_an_else_clause_under_a_finally_that_raises

    def g():
        pass

    try:
        new, _ = rebuild_decompiled(fn)
    except DecompilationError:
        return
    for c in (0, 1):
        assert _context_chain(_calling_with(new, c, g)) == _context_chain(_calling_with(fn, c, g)), c


def _calling_with(fn, *args):
    yield fn(*args)


def _returns_in_a_loop_in_a_try_whose_finally_returns_through_a_with(tests):
    log = []
    with contextlib.nullcontext():
        try:
            while True:
                if not tests.pop(0):
                    break
                log.append(1)
                return missing_global  # noqa: F821 (the NameError is the behaviour)
        finally:
            return missing_global, log  # noqa: F821, B012


def test_a_return_in_a_loop_a_finally_return_drops_past_a_with_is_still_evaluated_or_refused():
    """exception_programs.py seed 57301: ``return missing`` in a ``while True`` loop (left
    by ``if not c(): break``) in a try whose finally body returns another value, inside a
    with.  The finally body's copy, which drops the first value, was taken for the code
    after the try: the loop read ``if not c(): pass`` (every version), the NameError the
    return's evaluation raises lost from the context of the finally body's."""
    from tests.roundtrip import rebuild_decompiled
    fn = _returns_in_a_loop_in_a_try_whose_finally_returns_through_a_with
    try:
        new, _ = rebuild_decompiled(fn)
    except DecompilationError:
        return
    for tests in ([False], [True], [True, False]):
        assert _context_chain(_calling_with(new, list(tests))) == _context_chain(_calling_with(fn, list(tests))), tests
