"""What a resume function's stack slots (``___stack0`` ...) were in the user's code, read
from the bytecode: ``resume_points.stack_names`` at the offset right after a call of
``brk``, where Dynamo would resume after a graph break there.  Nothing here runs torch,
and the expectations hold on every version (3.8 to 3.13, instructions with positions or
not), but ``unveil.dynamo`` imports torch."""
import inspect
import sys

import pytest

from unveil.bytecode.canonical import normalise
from unveil.dynamo.explanations.resume_points import stack_names


def brk():
    return None


def in_a_with(cm, x):
    with cm:
        y = x + 1
        brk()
    return y


def in_nested_withs(a, b, x):
    with a, b as entered:
        with entered:
            brk()
    return x


def in_a_loop(items, x):
    for k in items:
        x = x * k
        brk()
        return x
    return x


def in_a_with_in_a_loop(items, cm, x):
    for k in items:
        with cm:
            brk()
            return x + k
    return x


def inside_an_expression(scale, x):
    y = (scale *
         brk())
    return y + x


def after_a_value_either_operand_is(a, b):
    return (a or b) + brk()


def _break_offset(fn):
    """The offset right after ``fn``'s call of ``brk``."""
    instrs = normalise(fn.__code__).instrs
    load = next(ins for ins in instrs if ins.op == "LOAD_GLOBAL" and ins.argval == "brk")
    call = next(ins for ins in instrs[load.index:] if ins.op == "CALL")
    return instrs[call.index + 1].offset


def _line(fn, needle):
    source, first = inspect.getsourcelines(fn)
    return first + next(k for k, text in enumerate(source) if needle in text)


def _break_value(fn):
    """What the value of ``brk()`` is called: by its text where instructions have positions."""
    line = _line(fn, "brk()")
    return "the value of `brk()` (line %d)" % line if sys.version_info >= (3, 11) else "a value of line %d" % line


def _context(fn, manager, needle="with "):
    return "the `%s` context of line %d, exited at the end of the with" % (manager, _line(fn, needle))


def _iterator(fn):
    return "the iterator of the for loop of line %d (over `items`)" % _line(fn, "for k")


@pytest.mark.parametrize("fn, expected", [
    (in_a_with, lambda fn: [_context(fn, "cm")]),
    (in_nested_withs, lambda fn: [_context(fn, "a"), _context(fn, "b"), _context(fn, "entered", "with entered")]),
    (in_a_loop, lambda fn: [_iterator(fn)]),
    (in_a_with_in_a_loop, lambda fn: [_iterator(fn), _context(fn, "cm")]),
    (inside_an_expression, lambda fn: ["`scale`"]),
], ids=["with", "nested withs", "loop", "with in a loop", "expression"])
def test_the_values_an_earlier_line_left_on_the_stack_are_named(fn, expected):
    """A with's exit, a for loop's iterator, the left operand of an expression that goes on
    over lines: none was named, the stack being read from the break's line alone."""
    values = expected(fn) + [_break_value(fn)]
    slots = ["___stack%d" % k for k in range(len(values))]
    assert stack_names(fn.__code__, _break_offset(fn), slots) == dict(zip(slots, values))


def test_a_value_the_paths_to_the_break_leave_differently_is_not_named():
    """``(a or b)`` is ``a`` on one path and ``b`` on the other: no name, rather than one
    path's."""
    fn = after_a_value_either_operand_is
    assert stack_names(fn.__code__, _break_offset(fn), ["___stack0", "___stack1"]) == {"___stack1": _break_value(fn)}


def test_slots_the_stack_does_not_account_for_are_not_named():
    fn = in_a_with
    assert stack_names(fn.__code__, _break_offset(fn), ["___stack0", "___stack1", "___stack2"]) == {}
