"""What a conditional jump means: the condition under which it is taken, and a
two-way branch with the stack on each side."""
import ast

from . import stackitems as si
from .stackitems import negate


class Branch:
    """A two-way branch: go to ``t`` if ``c`` else to ``e``, with the stack at each."""

    def __init__(self, c, t, e, t_stack, e_stack):
        self.c, self.t, self.e, self.t_stack, self.e_stack = c, t, e, t_stack, e_stack


def jump_condition(op, cond):
    """The condition under which the conditional jump ``op`` over the test ``cond`` is taken."""
    if op == "POP_JUMP_IF_TRUE":
        return cond
    if op == "POP_JUMP_IF_FALSE":
        return negate(cond)
    is_none = ast.Compare(left=cond, ops=[ast.Is()], comparators=[si.const(None)])
    return is_none if op == "POP_JUMP_IF_NONE" else negate(is_none)
