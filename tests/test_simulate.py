"""The stack simulator on canonical instructions that no compiler emits but Dynamo does."""
import ast
import sys

import pytest

from unveil.errors import DecompilationError
from unveil.bytecode.opcodes import Instr
from unveil.definitions.bodies import check_single_use
from unveil.definitions.functions import FunctionContext
from unveil.structure.frame import Frame
from unveil.structure.stack_branches import before_branch
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




def test_a_slice_waiting_on_the_stack_is_evaluated_as_a_slice_call():
    """Dynamo keeps a slice it built (``BUILD_SLICE``) on the stack while a call runs,
    then stores through it (``lst[0:0] = []``): the waiting slice is evaluated into a
    temporary first, and ``a:b`` is no expression outside a subscript (``__t1 = 0:0``
    does not parse)."""
    frame = _frame()
    frame.run([Instr("BUILD_LIST", arg=0), _load("a"), Instr("LOAD_CONST", argval=0), Instr("LOAD_CONST", argval=0),
               Instr("BUILD_SLICE", arg=2)] + _call_append(1) + [Instr("POP_TOP"), Instr("STORE_SUBSCR")])
    text = _text(frame.out)
    assert text == "__t0 = slice(0, 0)\nlog.append(1)\na[__t0] = []"
    compile(text, "<spilled>", "exec")


def test_a_slice_as_a_subscript_or_an_item_of_its_tuple_is_written_a_b():
    frame = _frame()
    frame.run([_load("a"), _load("g"), Instr("LOAD_CONST", argval=None), Instr("LOAD_CONST", argval=2),
               Instr("BUILD_SLICE", arg=3), Instr("LOAD_CONST", argval=1), Instr("BUILD_TUPLE", arg=2),
               Instr("BINARY_SUBSCR"), _load("g"), Instr("LOAD_CONST", argval=1), Instr("BUILD_SLICE", arg=2),
               Instr("BUILD_TUPLE", arg=1), Instr("BUILD_TUPLE", arg=1), Instr("BINARY_SUBSCR")])
    assert _text([ast.Expr(value=frame.pop())]) == "a[g::2, 1][(slice(g, 1),),]"


def test_an_unpacked_item_returned_is_unpacked_into_a_temporary():
    """Dynamo's code for ``torch.cond(...)`` unpacks the graph's one result and returns
    the item (``UNPACK_SEQUENCE 1``, then list juggling, ``RETURN_VALUE``): the item is
    no target (the unpack slot reached the printer: "unsupported node type Slot")."""
    frame = _frame()
    frame.run([_load("g"), Instr("CALL", argval=(0, (), False)), Instr("UNPACK_SEQUENCE", arg=1),
               Instr("RETURN_VALUE")])
    assert _text(frame.out) == "__t0, = g()\nreturn __t0"


def test_a_statement_run_while_unpacked_items_wait_comes_after_the_unpacking():
    """One item stored, a call run and dropped, the other item passed on: the unpacked
    value was computed before the call, and the unpacking is written before it."""
    frame = _frame()
    frame.run([_load("g"), Instr("CALL", argval=(0, (), False)), Instr("UNPACK_SEQUENCE", arg=2),
               Instr("STORE_FAST", argval="a")] + _call_append(1)
              + [Instr("POP_TOP"), _load("log"), Instr("SWAP", argval=2), Instr("CALL", argval=(1, (), False)),
                 Instr("RETURN_VALUE")])
    assert _text(frame.out) == "a, __t0 = g()\nlog.append(1)\nreturn log(__t0)"


def _locals_frame():
    def f(g, h, x, y, d):
        a = i = t = u = v = 0    # noqa: F841  (locals of f)
    return Frame(FunctionContext(f.__code__))


def test_a_value_loaded_after_a_pending_store_does_not_join_it():
    """Dynamo's ``collections.OrderedDict(sample=x + 1)``: with a list it keeps on the
    stack, it stores ``t = 0``, then loads ``x`` into ``u``, then computes a value
    reading ``u`` and ``t``.  One tuple assignment would evaluate ``type(u).__mro__[t]``
    before storing either (``UnboundLocalError``): each store is its own statement."""
    frame = _locals_frame()
    frame.run([Instr("BUILD_LIST", arg=0), _load("x"), Instr("LOAD_CONST", argval=0), Instr("STORE_FAST", argval="t"),
               _load("x"), Instr("STORE_FAST", argval="u"), Instr("LOAD_GLOBAL", argval="type"), _load("u"),
               Instr("CALL", argval=(1, (), False)), Instr("LOAD_ATTR", argval="__mro__"), _load("t"),
               Instr("BINARY_SUBSCR"), Instr("STORE_FAST", argval="v")])
    frame.flush_parallel()
    assert _text(frame.out) == "t = 0\nu = x\nv = type(u).__mro__[t]"


def test_stores_of_one_name_in_another_order_than_their_values_keep_the_store_order():
    """``a`` stored from ``y`` and then from ``x``, ``x`` computed first: ``a, a = x, y``
    (values in the order computed) would leave ``y`` in ``a``; names have no effect,
    so the pairs are written in store order."""
    frame = _locals_frame()
    frame.run([_load("x"), _load("y"), Instr("STORE_FAST", argval="a"), Instr("STORE_FAST", argval="a")])
    assert _text(frame.out) == "a, a = y, x"


def test_an_item_store_reading_a_name_stored_before_it_stays_after_that_store():
    """``i`` is stored from ``y``, then ``d[i]`` (reading the new ``i``) from ``x``, ``x``
    computed first: ``d[i], i = x, y`` would store into the old ``i``'s item."""
    frame = _locals_frame()
    frame.run([_load("x"), _load("y"), Instr("STORE_FAST", argval="i"), _load("d"), _load("i"),
               Instr("STORE_SUBSCR")])
    assert _text(frame.out) == "i, d[i] = y, x"


def test_stores_that_do_not_commute_after_values_with_effects_are_refused():
    """Two stores of ``a`` in the other order than their values, which are calls: neither
    order of one tuple assignment runs the calls and the stores as the bytecode did."""
    frame = _locals_frame()
    frame.run([_load("g"), Instr("CALL", argval=(0, (), False)), _load("h"), Instr("CALL", argval=(0, (), False)),
               Instr("STORE_FAST", argval="a")])
    with pytest.raises(DecompilationError, match="parallel assignment's stores"):
        frame.run([Instr("STORE_FAST", argval="a")])


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


def test_a_value_stored_into_an_attribute_and_used_again_is_two_statements():
    """Dynamo's ``COPY 1; LOAD_FAST a; STORE_ATTR b`` and then the value used again: no
    walrus can store into an attribute (``(a.b := g).c`` is no Python).  Refused at first,
    and on the attempt with temporaries the store is a statement of its own."""
    ctx = FunctionContext((lambda g, a, log: None).__code__)
    program = [_load("g"), Instr("COPY", arg=1, argval=1), _load("a"), Instr("STORE_ATTR", argval="b"),
               Instr("LOAD_ATTR", argval="c"), _load("log"), Instr("STORE_ATTR", argval="d")]
    with pytest.raises(DecompilationError, match="stored into attribute is used again"):
        Frame(ctx).run(program)
    ctx.spill_copies = True
    frame = Frame(ctx)
    frame.run(program)
    assert _text(frame.out) == "a.b = g\nlog.d = g.c"


def test_a_temporary_a_try_body_leaves_is_not_evaluated_before_the_try():
    """Dynamo calls ``print`` in the try it builds for a ``with`` and keeps the result,
    which the body evaluates into a temporary at its end.  Waiting on the stack when the
    try is written, it was taken for a value from before the try, which the try
    assigns: ``__t1 = __t0`` before it read the temporary unbound."""
    frame = _frame()
    frame.push(ast.Name(id=frame.ctx.temporary(), ctx=ast.Load()))
    body = ast.Assign(targets=[ast.Name(id="__t0", ctx=ast.Store())],
                      value=ast.Call(func=ast.Name(id="g", ctx=ast.Load()), args=[], keywords=[]))
    frame.emit(ast.Try(body=[body], handlers=[], orelse=[], finalbody=[ast.Pass()]))
    assert _text(frame.out) == "try:\n    __t0 = g()\nfinally:\n    pass"
    assert _text([ast.Expr(value=frame.pop())]) == "__t0"


def _attr(obj, attr):
    return ast.Attribute(value=ast.Name(id=obj, ctx=ast.Load()), attr=attr, ctx=ast.Load())


def test_an_arms_copy_of_a_value_beneath_its_branch_is_the_branchs():
    """Dynamo's data-dependent ``if``: each arm copies a list built before the branch
    (``COPY 2``) and runs statements while the copy waits.  The copy is no value of the
    arm's own: the branch evaluates it before its ``if`` (once, not in each arm), so the
    arm neither evaluates it into a temporary of its own nor refuses its statement."""
    parent = _frame()
    parent.ctx.spill_copies = True
    parent.run([_load("g")])
    beneath = _attr("a", "x")
    parent.push(beneath)
    arm = Frame(parent.ctx, parent.stack, since=parent.last_emit)
    arm.run([Instr("COPY", argval=1), Instr("LOAD_CONST", argval=1), _load("log"), Instr("STORE_ATTR", argval="x")])
    assert _text(arm.out) == "log.x = 1"
    assert arm.stack[-1] is beneath and arm.stack[-2] is beneath


def test_on_a_second_attempt_the_values_beneath_a_branch_are_evaluated_before_it():
    """With temporaries for Dynamo's code (``spill_copies``), a branch evaluates the values
    waiting beneath it before its arms, which may copy them, as a try does."""
    frame = _frame()
    frame.ctx.spill_copies = True
    frame.push(_attr("a", "x"))
    cond = _attr("a", "y")
    frame.push(cond)
    assert before_branch(frame, frame.pop()) is cond
    assert _text(frame.out) == "__t0 = a.x"
    assert _text([ast.Expr(value=frame.pop())]) == "__t0"


def test_a_name_beneath_a_branch_that_its_arms_read_too_waits_in_place():
    """A name the arms also read (a copy Dynamo made of it) reads the same after the
    ``if``: no temporary ``__t0 = a`` for it."""
    frame = _frame()
    beneath = ast.Name(id="a", ctx=ast.Load())
    frame.push(beneath)
    use = ast.Expr(value=ast.Call(func=ast.Name(id="g", ctx=ast.Load()), args=[beneath], keywords=[]))
    frame.emit(ast.If(test=ast.Name(id="log", ctx=ast.Load()), body=[use], orelse=[]))
    assert _text(frame.out) == "if log:\n    g(a)"
    assert frame.top() is beneath


def test_an_empty_list_waiting_under_a_loop_waits_in_place():
    """Dynamo's ``[]`` built before a for loop and used after it (an empty display, which
    could yet be a comprehension's accumulator) has no effect to move: the loop was
    refused ("a statement (For) runs while values computed before it wait"), a state
    machine on torch 2.15 (transformers' ``ModelOutput.__init__``)."""
    frame = _frame()
    frame.run([_load("g"), Instr("BUILD_LIST", arg=0)])
    waiting = frame.top()
    loop = ast.For(target=ast.Name(id="v", ctx=ast.Store()), iter=ast.Name(id="a", ctx=ast.Load()),
                   body=[ast.Expr(value=ast.Call(func=ast.Name(id="log", ctx=ast.Load()), args=[], keywords=[]))],
                   orelse=[])
    frame.emit(loop)
    assert _text(frame.out) == "for v in a:\n    log()"
    assert frame.top() is waiting


def test_an_empty_list_begun_before_a_statement_does_not_hold_back_the_values_it_goes_into():
    """torch 2.15's resume function of a comptime break: Dynamo builds ``[]`` (not evaluated
    into a temporary: it may be a comprehension's accumulator), then a copied value is
    evaluated into one (a statement), then ``[[], copy]`` waits across a statement.  The
    empty list reads and does nothing, so the display may be evaluated after the
    temporary: it was refused, and the function written as a state machine."""
    frame = _frame()
    frame.ctx.spill_copies = True
    frame.run([Instr("BUILD_LIST", arg=0, argval=0), _load("g"), Instr("LOAD_ATTR", argval="h"),
               Instr("COPY", arg=1, argval=1), Instr("POP_TOP"), Instr("BUILD_LIST", arg=2, argval=2),
               Instr("LOAD_CONST", argval=1), _load("log"), Instr("STORE_ATTR", argval="x")])
    assert _text(frame.out) == "__t0 = g.h\n__t1 = [[], __t0]\nlog.x = 1"


def test_values_evaluated_into_temporaries_keep_the_order_their_evaluation_began():
    """A temporary read in a waiting value does not place it in the order (it reads the
    same at any time): ``[g.h]``, begun first, is evaluated before ``[__t0.y]``,
    whose temporary was made earlier."""
    frame = _frame()
    frame.ctx.spill_copies = True
    frame.run([_load("a"), Instr("LOAD_ATTR", argval="z"), Instr("COPY", arg=1, argval=1),
               _load("g"), Instr("LOAD_ATTR", argval="h"), Instr("BUILD_LIST", arg=1, argval=1),
               Instr("SWAP", arg=2, argval=2), Instr("LOAD_ATTR", argval="y"), Instr("BUILD_LIST", arg=1, argval=1),
               Instr("LOAD_CONST", argval=1), _load("log"), Instr("STORE_ATTR", argval="x")])
    assert _text(frame.out) == "__t0 = a.z\n__t1 = [g.h]\n__t2 = [__t0.y]\nlog.x = 1"


@pytest.mark.skipif(sys.version_info < (3, 9), reason="DICT_UPDATE and dict.__ior__ are 3.9's")
def test_a_dict_update_into_a_dict_that_is_no_display_updates_it_in_place():
    """Dynamo's resume function of ``return {**create()}`` with the break inside
    ``create``: the dict being built comes in as an argument, and DICT_UPDATE merges into
    it (an internal error: a name has no keys).  ``a.__ior__(g)`` updates it in place and
    is the dict, as the bytecode leaves it."""
    frame = _frame()
    frame.run([_load("a"), _load("g"), Instr("DICT_UPDATE", arg=1, argval=1)])
    assert _text([ast.Expr(value=frame.pop())]) == "a.__ior__(g)"
    a = {1: 2}
    assert eval("a.__ior__(g)", {"a": a, "g": {3: 4}}) is a and a == {1: 2, 3: 4}


def test_a_name_read_while_a_store_to_it_waits_is_read_after_the_store():
    """torch 2.15's resume function of a break in torch's own code: ``COPY 1; STORE_FAST
    tmp_2`` stores a value it goes on using, then ``LOAD_FAST tmp_2`` reads it for another
    store.  The store waited with the value (``(tmp_2 := v)``), so the read came first:
    ``tmp_4[10].cell_contents = tmp_2`` before ``tmp_2 = ...`` (UnboundLocalError)."""
    frame = _frame()
    frame.run([_load("a"), Instr("LOAD_ATTR", argval="x"), Instr("COPY", arg=1, argval=1),
               Instr("STORE_FAST", argval="g"), _load("a"), _load("g"), _load("log"), Instr("STORE_ATTR", argval="y"),
               Instr("STORE_ATTR", argval="z")])
    assert _text(frame.out) == "__t0 = g = a.x\nlog.y = g\na.z = __t0"     # (it was log.y = g; g = a.z = a.x)
