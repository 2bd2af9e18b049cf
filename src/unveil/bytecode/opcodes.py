"""The canonical instruction and the facts about its opcodes: the one vocabulary
every layer above :mod:`unveil.bytecode.canonical` speaks.  Imports nothing."""


class Instr:
    """One canonical instruction."""

    __slots__ = ("op", "arg", "argval", "target", "line", "offset", "handler", "index", "after_nop",
                 "nop_lines", "continues", "of_merged_values", "may_be_unbound")

    def __init__(self, op, arg=None, argval=None, target=None, line=None, offset=-1):
        self.op = op
        self.arg = arg
        self.argval = argval
        self.target = target  # raw offset while normalising, then canonical index
        self.line = line
        self.offset = offset
        self.handler = None
        self.index = -1
        self.after_nop = False  # the raw instruction before is a NOP (a ``case _:`` marks its start so)
        self.nop_lines = ()     # the lines of the NOPs right before (a folded tuple's elements' lines)
        self.continues = False  # a folded backward jump whose ``JUMP`` had a line of its own: ``continue``
        # a RETURN_VALUE right after a LOAD_CONST where the compiler fuses ``return c`` into
        # RETURN_CONST (3.12+): the constant was one arm of a conditional expression returned
        self.of_merged_values = False
        # a LOAD_FAST of a local the compiler could not prove bound (3.12+: LOAD_FAST_CHECK):
        # it may raise UnboundLocalError, so moving it into a try changes what catches that
        self.may_be_unbound = False

    def __repr__(self):
        t = "" if self.target is None else " ->%s" % self.target
        return "%d %s %r%s" % (self.index, self.op, self.argval, t)

    def same(self, other):
        """Equal operation and operand (for comparing duplicated code)."""
        return self.same_op(other) and self.target == other.target

    def same_op(self, other):
        """Equal operation and operand, wherever a jump goes."""
        return self.op == other.op and _same_value(self.argval, other.argval)


def _same_value(a, b):
    return type(a) is type(b) and (a is b or a == b)


#: Jumps, with a ``target`` (an instruction index).
JUMPS = frozenset({"JUMP", "POP_JUMP_IF_FALSE", "POP_JUMP_IF_TRUE", "POP_JUMP_IF_NONE",
                   "POP_JUMP_IF_NOT_NONE", "FOR_ITER"})

#: Conditional jumps: each pops its test.
CONDITIONAL = frozenset({"POP_JUMP_IF_FALSE", "POP_JUMP_IF_TRUE", "POP_JUMP_IF_NONE",
                         "POP_JUMP_IF_NOT_NONE"})

#: The conditional jump taken exactly when the other is not.
NEGATED_JUMP = {"POP_JUMP_IF_FALSE": "POP_JUMP_IF_TRUE", "POP_JUMP_IF_TRUE": "POP_JUMP_IF_FALSE",
                "POP_JUMP_IF_NONE": "POP_JUMP_IF_NOT_NONE", "POP_JUMP_IF_NOT_NONE": "POP_JUMP_IF_NONE"}

#: Leave the code object: a return or a raise.
EXITS = ("RETURN_VALUE", "RAISE_VARARGS", "RERAISE")

#: Never go on to the next instruction: an exit or an unconditional jump.
NO_NEXT = EXITS + ("JUMP",)
