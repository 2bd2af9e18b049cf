"""Where a resume function goes on (which line, which side of a data-dependent ``if``) and
what the values Dynamo's stack held at a break were in the user's code, read from the
bytecode (in the decompiler's canonical form, or ``dis``)."""
import dis
import functools
import linecache
import re

from ...bytecode.canonical import normalise
from ...errors import DecompilationError
from . import stack_values

def continuation(code, offset):
    """Where a resume function made for ``offset`` of ``code`` goes on: ``{filename, line,
    after_call, branch}``; ``after_call`` when it goes on right after a call in that line
    (the call that broke the graph, which the transformed code makes before calling the
    resume function); ``branch`` (``{filename, line, condition_holds, test}``) is set when
    the offset is one side of a conditional jump (a break on a data-dependent ``if``),
    saying whether the path is the one where the test (``true``, ``None``) holds."""
    try:
        hash(code)
    except TypeError:                    # a dict among its constants: no cache
        lines, jumps, after_calls = _lines_and_jumps.__wrapped__(code)
    else:
        lines, jumps, after_calls = _lines_and_jumps(code)
    result = {"filename": code.co_filename, "line": next((line for at, line in lines if at >= offset), None),
              "after_call": offset in after_calls, "branch": None}
    for op, line, follows, taken in jumps:
        if offset in (taken, follows):
            holds = _FALLS_THROUGH_WHEN[op][0] != (offset == taken and taken != follows)
            result["branch"] = {"filename": code.co_filename, "line": line, "condition_holds": holds,
                                "test": _FALLS_THROUGH_WHEN[op][1]}
            break
    return result


def in_try_block(code, line):
    """Whether an instruction of ``line`` in ``code`` runs inside a ``try`` block: covered,
    directly or through enclosing handlers, by a handler that is a try's (``PUSH_EXC_INFO``
    not followed by a ``with``'s ``WITH_EXCEPT_START``).  Dynamo makes no resume function
    at a graph break there."""
    instrs = normalise(code).instrs
    for ins in instrs:
        handler, depth = ins.handler if ins.line == line else None, 0
        while handler is not None and depth < len(instrs):
            target = instrs[handler[0]]
            after = instrs[handler[0] + 1] if handler[0] + 1 < len(instrs) else None
            if target.op == "PUSH_EXC_INFO" and (after is None or after.op != "WITH_EXCEPT_START"):
                return True
            handler, depth = target.handler, depth + 1
    return False


@functools.lru_cache(maxsize=32)
def _lines_and_jumps(code):
    """``([(offset, line)], [(jump, line, offset it falls through to, offset it jumps to)],
    {offset right after a call, in the call's line})`` of ``code``'s canonical instructions
    (the two resume functions of an ``if`` share them)."""
    instrs = normalise(code).instrs
    jumps = [(ins.op, ins.line, instrs[ins.index + 1].offset, instrs[ins.target].offset)
             for ins in instrs[:-1] if ins.op in _FALLS_THROUGH_WHEN]
    after_calls = {nxt.offset for ins, nxt in zip(instrs, instrs[1:])
                   if ins.op in ("CALL", "CALL_FUNCTION_EX") and nxt.line == ins.line}
    return [(ins.offset, ins.line) for ins in instrs], jumps, after_calls


#: a canonical conditional jump -> (whether the value tested holds when it does not jump,
#: what is tested)
_FALLS_THROUGH_WHEN = {"POP_JUMP_IF_FALSE": (True, "true"), "POP_JUMP_IF_TRUE": (False, "true"),
                       "POP_JUMP_IF_NOT_NONE": (True, "None"), "POP_JUMP_IF_NONE": (False, "None")}


def source_line(filename, line):
    """The stripped text of a line of a file, or None."""
    text = linecache.getline(filename, line).strip() if line else ""
    return text or None


#: what a resume function calls the values Dynamo's stack held at the break
_STACK_SLOT = re.compile(r"^___stack(\d+)$")


def stack_names(code, offset, slots, user_line=None):
    """For a resume function made at ``offset`` of ``code`` whose stack values are
    ``slots`` (``___stack0`` ...): ``{slot: what it is}``, the user's name or constant for a
    value a plain load put there (``scale``), a ``with``'s context manager (``the
    `torch.no_grad()` context of line 4, exited at the end of the with``) or a ``for``
    loop's iterator, else the expression that computed it where the instruction's position
    gives it (``the value of `inner(x)` (line 9)``: a call's result, the break's own call
    among them), else "a value of line N" (``user_line``: the user's line for a line of
    ``code``, when ``code`` is not the user's own).  Read by following the stack from the
    code's start to the offset (:mod:`.stack_values`); a slot the paths to the offset fill
    differently is left out, and all are when that does not account for exactly those
    slots (the NULLs a call needs are not passed) or the canonical model refuses the code."""
    try:
        instrs = normalise(code).instrs
    except DecompilationError:
        return {}
    states = stack_values.stacks(instrs)
    at = next((ins.index for ins in instrs if ins.offset >= offset), None)
    stack = states.get(at) if states is not None and at is not None else None
    values = [value for value in stack if value is not stack_values.NULL] if stack is not None else []
    wanted = sorted(slots, key=lambda s: int(_STACK_SLOT.match(s).group(1)))
    if not values or len(values) != len(wanted):
        return {}
    describe = _Describer(code, instrs, stack_values.iterated(instrs, states), user_line)
    named = {slot: describe(value) for slot, value in zip(wanted, values) if value is not None}
    return {slot: text for slot, text in named.items() if text is not None}


class _Describer:
    """What a value on ``code``'s stack was, in the user's words."""

    def __init__(self, code, instrs, iterated, user_line):
        self.code, self.instrs, self.iterated = code, instrs, iterated
        self.user_line = user_line
        self._positions = None

    def __call__(self, value):
        ins = self.instrs[value.index]
        line = self.line(ins)
        if ins.op == "BEFORE_WITH" and value.nth == 0:
            manager = self.expression(value.operands[0])
            return "the %s of line %s, exited at the end of the with" \
                % ("`%s` context" % manager if manager else "context manager of the with", line)
        if value in self.iterated:
            iterable = self.expression(value.operands[0]) if ins.op == "GET_ITER" else None
            return "the iterator of the for loop of line %s%s" \
                % (self.line(self.instrs[self.iterated[value]]), " (over `%s`)" % iterable if iterable else "")
        if ins.op in ("LOAD_FAST", "LOAD_DEREF", "LOAD_NAME", "LOAD_CLOSURE"):
            return "`%s`" % ins.argval
        if ins.op == "LOAD_CONST":
            return "`%r`" % (ins.argval,)
        expression = self.expression(value)
        if expression and ins.op.startswith(("CALL", "BINARY_", "LOAD_ATTR", "LOAD_METHOD", "LOAD_GLOBAL",
                                             "COMPARE_OP")):
            return "the value of `%s` (line %s)" % (expression, line)
        return "a value of line %s" % line

    def line(self, ins):
        return self.user_line(ins.line) if self.user_line is not None and ins.line else ins.line

    def expression(self, value):
        """The source text of the expression that computed ``value``, or None."""
        if not isinstance(value, stack_values.Pushed):
            return None
        ins = self.instrs[value.index]
        if ins.op in ("LOAD_FAST", "LOAD_DEREF", "LOAD_NAME", "LOAD_CLOSURE", "LOAD_GLOBAL"):
            return ins.argval
        return _source_of(self.positions(value.index), self.code.co_filename)

    def positions(self, index):
        """The source positions (3.11+) of the instruction canonical instruction ``index``
        comes from (the first of the instructions one is split into has its offset), or None."""
        if self._positions is None:
            self._positions = {ins.offset: getattr(ins, "positions", None) for ins in dis.get_instructions(self.code)}
        offset = next(ins.offset for ins in reversed(self.instrs[:index + 1]) if ins.offset >= 0)
        return self._positions.get(offset)


def _source_of(where, filename):
    """The source text that positions ``where`` span, when they are on one line of a file
    that can be read, else None."""
    if where is None or where.lineno is None or where.lineno != where.end_lineno or where.col_offset is None \
            or where.end_col_offset is None:
        return None
    text = linecache.getline(filename, where.lineno).encode("utf-8")      # (the offsets count bytes)
    return text[where.col_offset:where.end_col_offset].decode("utf-8", "replace").strip() or None
