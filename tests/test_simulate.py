"""The stack simulator on canonical instructions that no compiler emits but Dynamo does."""
import ast

import pytest

from unveil.errors import DecompilationError
from unveil.bytecode.opcodes import Instr
from unveil.definitions.functions import FunctionContext, check_single_use
from unveil.structure.frame import Frame
from unveil.syntax.unparse import unparse


def _frame():
    return Frame(FunctionContext((lambda g, a, log: None).__code__))


def _text(statements):
    return unparse(ast.Module(body=statements, type_ignores=[])).strip()


def _load(name):
    return Instr("LOAD_FAST", argval=name)


def _call_append(value):
    return [_load("log"), Instr("LOAD_ATTR", argval="append"), Instr("LOAD_CONST", argval=value),
            Instr("CALL", argval=(1, (), False))]


def test_a_call_dropped_while_an_earlier_value_waits_goes_after_it():
    """Dynamo's prologue: ``g``'s argument ``a.x`` is computed, then ``log.append(1)`` runs
    and is dropped, then ``g`` is called.  Writing the dropped call as a statement would
    run it before ``a.x``: the waiting values are evaluated into temporaries first."""
    frame = _frame()
    frame.run([_load("g"), _load("a"), Instr("LOAD_ATTR", argval="x")] + _call_append(1)
              + [Instr("POP_TOP"), Instr("CALL", argval=(1, (), False))])
    assert _text(frame.out) == "__t0 = a.x\nlog.append(1)"
    assert _text([ast.Expr(value=frame.pop())]) == "g(__t0)"


def test_a_call_dropped_while_an_earlier_value_waits_is_refused_without_locals():
    """In module code a temporary would be a global: refused (the state machine keeps the order)."""
    frame = Frame(FunctionContext(compile("pass", "<module>", "exec")))
    frame.run([_load("g"), _load("a"), Instr("LOAD_ATTR", argval="x")] + _call_append(1))
    with pytest.raises(DecompilationError, match="dropped while values computed before it"):
        frame.run([Instr("POP_TOP")])


def test_a_value_read_by_a_waiting_value_is_deleted_after_it_is_evaluated():
    """Dynamo deletes ``graph_out`` while a value read from it waits on the stack."""
    frame = _frame()
    frame.run([_load("a"), Instr("LOAD_CONST", argval=0), Instr("BINARY_SUBSCR"), Instr("DELETE_FAST", argval="a")])
    assert _text(frame.out) == "__t0 = a[0]\ndel a"
    assert _text([ast.Expr(value=frame.pop())]) == "__t0"


def test_a_waiting_value_is_not_moved_past_a_statement_with_effects():
    """``a[0]`` waits while ``log.x = 1`` runs; then ``a`` is deleted.  The temporary
    would read ``a[0]`` after the store, which may change it: refused."""
    frame = _frame()
    frame.run([_load("a"), Instr("LOAD_CONST", argval=0), Instr("BINARY_SUBSCR"), Instr("LOAD_CONST", argval=1),
               _load("log"), Instr("STORE_ATTR", argval="x")])
    with pytest.raises(DecompilationError, match="reads a, which changes"):
        frame.run([Instr("DELETE_FAST", argval="a")])


def test_a_list_slice_of_a_display_extended_is_a_new_display():
    """Dynamo's ``[v][0:1]`` extended by ``LIST_EXTEND`` (a slice of a display is a new list)."""
    frame = _frame()
    frame.run([_load("a"), Instr("BUILD_LIST", arg=1), Instr("LOAD_CONST", argval=0), Instr("LOAD_CONST", argval=1),
               Instr("BUILD_SLICE", arg=2), Instr("BINARY_SUBSCR"), _load("g"), Instr("BUILD_LIST", arg=1),
               Instr("LIST_EXTEND", arg=1)])
    assert _text([ast.Expr(value=frame.pop())]) == "[*[a][0:1], g]"


def test_any_other_list_extended_is_extended_in_place():
    """``a[0:1]`` may return a list that ``a`` keeps: extended in place, as ``LIST_EXTEND`` does."""
    frame = _frame()
    frame.run([_load("a"), Instr("LOAD_CONST", argval=0), Instr("LOAD_CONST", argval=1),
               Instr("BUILD_SLICE", arg=2, argval=2), Instr("BINARY_SUBSCR"), _load("a"), _load("g"),
               Instr("BUILD_LIST", arg=1, argval=1), Instr("LIST_EXTEND", arg=2, argval=2), Instr("POP_TOP")])
    assert _text([ast.Expr(value=frame.pop())]) == "a[0:1].__iadd__([g])"


def test_a_call_dropped_after_the_waiting_value_is_written_in_place():
    """Only names and constants wait: the statement may come first."""
    frame = _frame()
    frame.run([_load("g"), _load("a")] + _call_append(1) + [Instr("POP_TOP"), Instr("CALL", argval=(1, (), False))])
    assert _text(frame.out) == "log.append(1)"
    assert _text([ast.Expr(value=frame.pop())]) == "g(a)"


def test_a_call_dropped_after_a_pending_store_it_reads_follows_that_store():
    """``tmp = enter()`` while ``g`` waits (a pending parallel assignment), then
    ``leave(tmp)`` dropped: computed after the store, so written after it."""
    frame = _frame()
    frame.run([_load("g"), _load("enter"), Instr("CALL", argval=(0, (), False)), Instr("STORE_FAST", argval="tmp"),
               _load("leave"), _load("tmp"), Instr("CALL", argval=(1, (), False)), Instr("POP_TOP")])
    assert _text(frame.out) == "tmp = enter()\nleave(tmp)"


def test_a_value_computed_before_a_pending_store_goes_back_into_it():
    """3.13's ``c, c = c(x), 227``: ``STORE c`` of 227, then the dead store of ``c(x)``
    became ``POP_TOP``; ``c(x)`` must not be written after ``c = 227``, so it is stored
    to ``c`` again, before 227."""
    frame = _frame()
    frame.run([_load("c"), _load("x"), Instr("CALL", argval=(1, (), False)), Instr("LOAD_CONST", argval=227),
               Instr("STORE_FAST", argval="c"), Instr("POP_TOP")])
    assert _text(frame.out) == "c, c = c(x), 227"




def test_a_name_stored_from_the_stack_is_stored_before_a_statement_reads_it():
    """Dynamo stores a callee into ``x`` (``COPY``, ``STORE_FAST``) and keeps it on the
    stack; a call reading ``x`` runs and is dropped before the callee is called.  The
    store was written inside the later call (``(x := g.h)(2)``), after its reader."""
    def f(g, a, log):
        x = 0    # noqa: F841  (x only has to be a local of f)
    frame = Frame(FunctionContext(f.__code__))
    frame.run([Instr("LOAD_FAST", argval="g"), Instr("LOAD_ATTR", argval="h"), Instr("COPY", argval=1),
               Instr("STORE_FAST", argval="x"), Instr("LOAD_FAST", argval="x"), Instr("LOAD_CONST", argval=1),
               Instr("CALL", argval=(1, (), False)), Instr("POP_TOP"), Instr("LOAD_CONST", argval=2),
               Instr("CALL", argval=(1, (), False))])
    assert _text(frame.out) == "__t0 = x = g.h\nx(1)"
    assert _text([ast.Expr(value=frame.pop())]) == "__t0(2)"


def test_a_statement_using_a_waiting_value_uses_its_temporary():
    """Dynamo's ``lst[0][0:0] = []`` on a list ``[g.h]`` it keeps on the stack: the list
    is evaluated into a temporary first (its parts began before the statement's own
    parts, which was taken for a reordering), and the statement and the stack use it."""
    frame = Frame(FunctionContext((lambda g, a, log: None).__code__))
    frame.ctx.spill_copies = True
    frame.run([_load("g"), Instr("LOAD_ATTR", argval="h"), Instr("BUILD_LIST", arg=1)])
    waiting = frame.top()
    target = ast.Subscript(value=waiting, slice=ast.Constant(value=0), ctx=ast.Store())
    frame.emit(ast.Assign(targets=[target], value=ast.List(elts=[], ctx=ast.Load())))
    assert _text(frame.out) == "__t0 = [g.h]\n__t0[0] = []"
    assert _text([ast.Expr(value=frame.pop())]) == "__t0"


def _spilling_frame():
    def f(g, a, log):
        x = 0    # noqa: F841  (x only has to be a local of f)
    frame = Frame(FunctionContext(f.__code__))
    frame.ctx.spill_copies = True
    return frame


_STORE_A_COPY_OF_G_H_IN_X = [_load("g"), Instr("LOAD_ATTR", argval="h"), Instr("COPY", argval=1),
                             Instr("STORE_FAST", argval="x")]


def test_a_copied_value_stored_in_a_local_is_evaluated_into_that_local():
    """Dynamo's ``COPY 1; STORE_FAST tmp_5``, the value kept on the stack: ``x = g.h``
    and the stack reads ``x``, not ``__t0 = g.h`` and ``(x := __t0)`` later."""
    frame = _spilling_frame()
    frame.run(_STORE_A_COPY_OF_G_H_IN_X + [Instr("LOAD_CONST", argval=1), Instr("CALL", argval=(1, (), False))])
    assert _text(frame.out) == "x = g.h"
    assert _text([ast.Expr(value=frame.pop())]) == "x(1)"
    assert not frame.ctx.is_temporary("__t0")


def test_a_value_reading_the_old_local_is_evaluated_before_it_changes():
    """``x.y`` waits on the stack when ``x`` gets the copy: it is evaluated first."""
    frame = _spilling_frame()
    frame.run([_load("x"), Instr("LOAD_ATTR", argval="y")] + _STORE_A_COPY_OF_G_H_IN_X)
    assert _text(frame.out) == "__t0 = x.y\nx = g.h"
    assert _text([ast.Expr(value=frame.pop())]) == "x"
    assert _text([ast.Expr(value=frame.pop())]) == "__t0"


def test_a_copy_is_not_stored_early_in_a_local_a_waiting_value_still_reads():
    """The old ``x`` itself waits on the stack: storing the copy into ``x`` at once
    would change it, so the copy keeps its temporary and the store stays in place."""
    frame = _spilling_frame()
    frame.run([_load("x")] + _STORE_A_COPY_OF_G_H_IN_X
              + [Instr("LOAD_CONST", argval=1), Instr("CALL", argval=(1, (), False)), Instr("BUILD_TUPLE", arg=2)])
    assert _text(frame.out) == "__t0 = g.h"
    assert _text([ast.Expr(value=frame.pop())]) == "x, (x := __t0)(1)"


def test_a_cell_pushed_as_a_value_is_the_cell_itself():
    """Dynamo hands a resume function the cells of the frame's captured variables
    (``LOAD_CLOSURE a; BUILD_TUPLE 1`` passed to a call).  Written as ``(a,)`` the
    callee got the value, not the cell ("expected cell, found Tensor").  The cell is
    written so that running the text passes the frame's own cell."""
    frame = _frame()
    frame.run([_load("g"), Instr("LOAD_CLOSURE", argval="a"), Instr("BUILD_TUPLE", arg=1),
               Instr("CALL", argval=(1, (), False))])
    call = _text([ast.Expr(value=frame.pop())])
    assert call == "g(((lambda: a).__closure__[0],))"
    namespace = {}
    exec("def run(g, a):\n    def reader():\n        return a\n    return reader, %s\n" % call, namespace)
    reader, passed = namespace["run"](lambda cells: cells, 7)
    assert passed[0] is reader.__closure__[0] and passed[0].cell_contents == 7


def test_a_format_spec_that_is_not_a_constant_is_written_as_a_nested_field():
    """A graph break inside ``f'{v:.2f}'`` hands the resume function the spec on the stack:
    ``FORMAT_VALUE`` with a spec that is a name.  Written as the bare name, the f-string
    could not be printed ("unexpected f-string part Name")."""
    frame = _frame()
    frame.run([_load("a"), _load("g"), Instr("FORMAT_VALUE", argval=(None, True))])
    text = _text([ast.Expr(value=frame.pop())])
    assert text == "f'{a:{g}}'"
    assert eval(text, {"a": 3.14159, "g": ".2f"}) == "3.14"


def test_a_string_part_that_is_not_a_constant_is_written_as_a_field():
    """A graph break inside ``f'mean {v:.2f}'`` hands the resume function the literal
    ``'mean '`` on the stack; ``BUILD_STRING`` then joins a name and a formatted value."""
    frame = _frame()
    frame.run([_load("g"), _load("a"), Instr("LOAD_CONST", argval=".2f"), Instr("FORMAT_VALUE", argval=(None, True)),
               Instr("BUILD_STRING", arg=2)])
    text = _text([ast.Expr(value=frame.pop())])
    assert text == "f'{g}{a:.2f}'"
    assert eval(text, {"a": 3.14159, "g": "mean "}) == "mean 3.14"


@pytest.mark.parametrize("op", ["SWAP", "COPY", "ROT"])
def test_reaching_below_the_stack_is_a_refusal_like_a_pop(op):
    """A path structured without the values it got (a ``return`` in a ``finally`` in a
    loop) reaches below the stack: refused as a pop would be, not an IndexError (a crash,
    which is a bug and never leads to the state machine)."""
    frame = _frame()
    frame.run([_load("a")])
    with pytest.raises(DecompilationError, match="stack underflow"):
        frame.run([Instr(op, argval=2, arg=2)])


def test_the_module_of_a_from_import_is_not_evaluated_into_a_temporary():
    """``from os import path`` keeps the module on the stack while it stores ``path``.
    With copies going through temporaries, it was written as ``__t0 = __import__()``
    before the import statement: wrong code."""
    frame = _frame()
    frame.ctx.spill_copies = True
    frame.run([Instr("LOAD_CONST", argval=0), Instr("LOAD_CONST", argval=("path",)),
               Instr("IMPORT_NAME", argval="os"), Instr("IMPORT_FROM", argval="path"),
               Instr("STORE_FAST", argval="g"), Instr("POP_TOP")])
    assert _text(frame.out) == "from os import path as g"


def test_a_value_written_twice_is_refused_naming_the_original_line():
    """The refusal names the original line of the statement holding the second copy."""
    frame = _frame()
    shared = ast.Attribute(value=ast.Name(id="a", ctx=ast.Load()), attr="x", ctx=ast.Load())
    for line in (3, 5):
        frame.run([Instr("LOAD_CONST", argval=None, line=line), Instr("POP_TOP", line=line)])
        frame.put(ast.Expr(value=shared))
    with pytest.raises(DecompilationError, match=r"evaluated twice \(line 5\)"):
        check_single_use(frame.out, frame.notes)
