"""The state-machine fallback judged on its own: every case it can lower (not a
generator, a module or class body, or one of the shapes it refuses) is lowered
directly, without trying to structure it first, recompiled and called; results must
match the original's."""
import ast
import sys
import types

import pytest

import unveil
from unveil.errors import DecompilationError
from unveil.bytecode import facts
from unveil.bytecode.canonical import normalise
from unveil.definitions.functions import FunctionContext, _lost_locals, function_def
from unveil.fallback import statemachine
from unveil.structure import stackitems as si
from unveil.syntax.unparse import unparse

from tests.cases.registry import all_cases
from tests.outcome import outcome

CASES = all_cases()


def lowered_source(fn):
    """``def`` source of ``fn`` whose body is the state machine, or ``None`` if not lowerable."""
    code = fn.__code__
    ctx = FunctionContext(code)
    try:
        body = statemachine.lower(ctx)
    except DecompilationError:
        return None
    holder = si.Function(code)
    holder.ctx = ctx
    holder.decorators = []
    node = function_def(holder)
    first = node.body[0]
    doc = [first] if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) \
        and isinstance(first.value.value, str) else []
    node.body = doc + ([ast.Global(names=sorted(ctx.globals))] if ctx.globals else []) \
        + ([ast.Nonlocal(names=sorted(ctx.nonlocals))] if ctx.nonlocals else []) + body
    if ctx.instrs is None:
        ctx.instrs = normalise(code).instrs
    lost = _lost_locals(code, node.body, ctx)
    if lost:   # as function_def keeps them: bound only in code that is not written
        node.body += facts.dead_code([ast.Assign(targets=[si.name(n, store=True) for n in lost],
                                                 value=si.const(None))], node.body)
    return unparse(node), ctx.bindings.names


def rebuild(fn, source, bindings):
    code = unveil.recompile(source, fn.__code__)
    glob = dict(fn.__globals__, **bindings) if bindings else fn.__globals__
    new = types.FunctionType(code, glob, fn.__name__, fn.__defaults__, fn.__closure__)
    new.__kwdefaults__ = fn.__kwdefaults__
    return new


LOWERED = {}
for case in CASES:
    result = lowered_source(case.fn)
    if result is not None:
        LOWERED[case.name] = (case, result)


def test_the_state_machine_is_judged_on_many_cases():
    assert len(LOWERED) >= 150, "only %d cases could be lowered" % len(LOWERED)


@pytest.mark.parametrize("name", sorted(LOWERED))
def test_lowered_case_behaves_the_same(name):
    case, (source, bindings) = LOWERED[name]
    new = rebuild(case.fn, source, bindings)
    for call in case.calls:
        assert outcome(new, call) == outcome(case.fn, call), (call, source)


def _makes_a_function(k):
    def add(a: int, b: "str" = 2, *, c: float = 1.0) -> list:
        return [a, b, c, k]
    return (add.__annotations__, add(1), add.__defaults__, add.__kwdefaults__, add.__name__,
            add.__qualname__, add.__code__.co_name)


def test_a_lowered_nested_function_keeps_its_attributes():
    """MAKE_FUNCTION in the state machine: a ``def`` under a fresh name, given back the
    original's code name, names, defaults, keyword defaults and annotations."""
    source, bindings = lowered_source(_makes_a_function)
    assert "def __sf1(" in source
    new = rebuild(_makes_a_function, source, bindings)
    assert new(5) == _makes_a_function(5)


def _loops_handles_and_defines(items):
    out = []
    for x in items:
        try:
            out.append(10 // x)
        except ZeroDivisionError as e:
            out.append(type(e).__name__)

    def last(n=2):
        return out[-n:]
    return last()


def test_the_state_machine_builds_nodes_not_text(monkeypatch):
    """The lowering builds ``ast`` nodes and parses no text of its own (a loop, an exception
    handler, a nested function and a slice included); the nodes print as code that behaves
    the same."""
    parsed, real = [], ast.parse

    def parse(source, *args, **kwargs):
        parsed.append(source)
        return real(source, *args, **kwargs)
    with monkeypatch.context() as patched:
        patched.setattr(ast, "parse", parse)
        source, bindings = lowered_source(_loops_handles_and_defines)
    assert parsed == []
    assert "__state" in source and "def __sf1(" in source
    new = rebuild(_loops_handles_and_defines, source, bindings)
    assert new([1, 0, 5]) == _loops_handles_and_defines([1, 0, 5]) == ["ZeroDivisionError", 2]


def test_the_structuring_report_finds_lowered_functions(monkeypatch):
    """benchmarks/structuring_report.py counts a lowered method nested in a class, also in
    the loop-free form that has no ``__state``, and not a structured one."""
    import importlib.util
    import os
    import sys
    from unveil.errors import DecompilationError
    from unveil.structure.structurer import Structurer
    path = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "benchmarks",
                        "structuring_report.py")
    spec = importlib.util.spec_from_file_location("structuring_report", path)
    report = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(report)
    code = compile("class Holder:\n    def f(a):\n        if a:\n            return 1\n        return 2\n"
                   "    def g(a):\n        return a\n", "<holder>", "exec")
    assert report.lowered(code) == []
    real = Structurer.body

    def body(self):
        if self.ctx.code.co_name == "f":
            raise DecompilationError("refused by the test")
        return real(self)
    monkeypatch.setattr(Structurer, "body", body)
    assert report.lowered(code) == ["Holder.f" if sys.version_info >= (3, 11) else "f"]


def _chain(fn):
    """What calling ``fn`` raises, with its whole ``__context__`` chain."""
    try:
        fn()
    except Exception as exc:
        out = []
        while exc is not None:
            out.append(repr(exc))
            exc = exc.__context__
        return out
    return None


def _raises_after_a_finally_reraise():
    try:
        try:
            try:
                raise KeyError("k")
            finally:
                pass
        except KeyError:
            pass
        return _not_defined_anywhere  # noqa: F821  (a NameError raised with nothing handled)
    finally:
        pass


def test_a_finally_reraise_restores_the_exception_handled_before():
    """The finally body's copy that re-raises: its ``PUSH_EXC_INFO`` keeps the exception
    handled before in the slot its exception handler reads, so that handler restores it
    (was: the KeyError stayed handled, and the NameError raised after the except clause
    got it as its ``__context__``, every version)."""
    source, bindings = lowered_source(_raises_after_a_finally_reraise)
    new = rebuild(_raises_after_a_finally_reraise, source, bindings)
    assert _chain(new) == _chain(_raises_after_a_finally_reraise) \
        == ["NameError(\"name '_not_defined_anywhere' is not defined\")"]


def _bounded_chain(fn):
    """:func:`_chain`, at most 8 long: a cycle in the chain (the lowered text made one)
    shows as repeated entries instead of a hang."""
    try:
        fn()
    except Exception as exc:
        out = []
        while exc is not None and len(out) < 8:
            out.append(repr(exc))
            exc = exc.__context__
        return out
    return None


def _in_an_except(fn):
    """``fn`` called inside an ``except`` clause of its caller."""
    def caller():
        try:
            raise RuntimeError("the caller's")
        except RuntimeError:
            fn()
    return caller


def _same_chain(fn, expected, in_an_except=False):
    source, bindings = lowered_source(fn)
    new = rebuild(fn, source, bindings)
    if in_an_except:
        fn, new = _in_an_except(fn), _in_an_except(new)
    assert _bounded_chain(new) == _bounded_chain(fn) == expected, source


def _handles_and_raises():
    try:
        raise KeyError("k")
    except KeyError:
        raise ValueError("v")


def _calls_a_function_that_handles_and_raises():
    try:
        raise TypeError("t")
    except TypeError:
        _handles_and_raises()


def test_an_exception_from_a_call_chains_its_own_context_to_the_handled_one():
    """A call raising an exception whose ``__context__`` it set itself (its own except
    clause): the chain's end is linked to the exception being handled (was: the handler
    chained only an exception without a context, and the TypeError was lost, every version)."""
    _same_chain(_calls_a_function_that_handles_and_raises,
                ["ValueError('v')", "KeyError('k')", "TypeError('t')"])


def _raises_the_outer_clause_exception_in_an_inner_one():
    try:
        raise KeyError("a")
    except KeyError as a:
        try:
            raise ValueError("b")
        except ValueError:
            raise a


def test_raising_an_exception_again_under_one_it_caused_breaks_the_cycle():
    """``raise a`` in a clause whose exception has ``a`` as its context: the interpreter
    cuts the chain where it would come back to ``a`` (was: a cycle, KeyError and
    ValueError repeated without end, every version)."""
    _same_chain(_raises_the_outer_clause_exception_in_an_inner_one, ["KeyError('a')", "ValueError('b')"])


def test_a_lowered_function_called_in_an_except_chains_its_own_exceptions():
    """Called inside an ``except`` of its caller, the lowered function's exceptions all
    get the caller's as their context from the interpreter: the clause's exception is
    chained to the one it handles all the same, and its re-raise out of the function keeps
    that context (was: ValueError, then the caller's RuntimeError, every version)."""
    _same_chain(_handles_and_raises, ["ValueError('v')", "KeyError('k')", "RuntimeError(\"the caller's\")"],
                in_an_except=True)


def _handled_now():
    return repr(sys.exc_info()[1])


def _raise_the_one_handled():
    raise   # noqa: PLE0704 (a bare raise in a function called from an except clause)


def _sees_what_is_handled(x):
    seen = [_handled_now()]
    try:
        1 / x
    except:  # noqa: E722 (a bare except: the call is in the handler's first block)
        seen.append(_handled_now())
        try:
            raise KeyError(x)
        except KeyError:
            seen.append(_handled_now())
        seen.append(_handled_now())
        try:
            _raise_the_one_handled()
        except ZeroDivisionError as exc:
            seen.append("again " + repr(exc))
    finally:
        seen.append(_handled_now())
    seen.append(_handled_now())
    return seen


def test_code_in_an_except_clause_sees_the_exception_the_machine_handles():
    """``sys.exc_info()`` (and so ``logging.exception``, ``traceback.print_exc`` and a bare
    ``raise`` in a function called there) sees the exception the lowered function handles:
    the machine's loop raises it into a ``finally`` clause that runs the arms.  Before, the
    arms ran outside any except clause and saw the caller's exception, or none; after the
    clause, the caller's again."""
    source, bindings = lowered_source(_sees_what_is_handled)
    new = rebuild(_sees_what_is_handled, source, bindings)
    assert new(0) == _sees_what_is_handled(0) and "ZeroDivisionError" in new(0)[1], source
    assert new(1) == _sees_what_is_handled(1)
    try:
        raise ValueError("the caller's")
    except ValueError:
        inside = new(0)
        assert inside == _sees_what_is_handled(0) and "the caller's" in inside[0] + inside[-1]
