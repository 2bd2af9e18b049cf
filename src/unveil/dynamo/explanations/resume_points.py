"""Where a resume function goes on (which line, which side of a data-dependent ``if``) and
what the values Dynamo's stack held at a break were in the user's code, read from the
bytecode (in the decompiler's canonical form, or ``dis``)."""
import dis
import functools
import linecache
import re

from ...bytecode.canonical import normalise

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
    value a plain load put there (``scale``), else the expression that computed it where
    the instruction's position gives it (``the value of `inner(x)` (line 9)``: a call's
    result, the break's own call among them), else "a value of line N" (``user_line``: the
    user's line for a line of ``code``, when ``code`` is not the user's own).  Read by
    replaying the stack effects of the break's line; empty when the replay does not account
    for exactly those slots (NULLs, or values from an earlier line)."""
    instructions = list(dis.get_instructions(code))
    at = next((k for k, ins in enumerate(instructions) if ins.offset >= offset), None)
    if at is None:
        return {}
    line = _line_of(instructions, at)
    shown = user_line(line) if user_line is not None and line else line
    start = at
    while start > 0 and _line_of(instructions, start - 1) == line:
        start -= 1
    stack = []
    for ins in instructions[start:at]:
        try:
            effect = dis.stack_effect(ins.opcode, ins.arg, jump=False) if ins.opcode >= dis.HAVE_ARGUMENT \
                else dis.stack_effect(ins.opcode, jump=False)
        except ValueError:
            return {}
        pops = 0 if ins.opname.startswith(("LOAD_", "PUSH_NULL")) and ins.opname not in _LOADS_FROM_STACK \
            else max(0, 1 - effect) if ins.opname not in _LOADS_FROM_STACK else 1
        pushes = effect + pops
        if pops > len(stack) or pushes < 0:
            return {}
        del stack[len(stack) - pops:]
        stack += [_what_it_pushes(ins, shown, code.co_filename)] * pushes
    values = [v for v in stack if v is not None]           # NULLs a call needs are not passed
    wanted = sorted(slots, key=lambda s: int(_STACK_SLOT.match(s).group(1)))
    return dict(zip(wanted, values)) if len(values) == len(wanted) else {}


#: loads that take what they read from the stack (an attribute of the value on top)
_LOADS_FROM_STACK = frozenset(["LOAD_ATTR", "LOAD_METHOD", "LOAD_SUPER_ATTR"])


def _what_it_pushes(ins, line, filename):
    if ins.opname == "PUSH_NULL":
        return None
    if ins.opname in ("LOAD_FAST", "LOAD_DEREF", "LOAD_NAME", "LOAD_CLOSURE", "LOAD_FAST_CHECK"):
        return "`%s`" % ins.argval
    if ins.opname == "LOAD_CONST":
        return "`%r`" % (ins.argval,)
    expression = _source_of(ins, filename)
    if expression and ins.opname.startswith(("CALL", "BINARY_", "LOAD_ATTR", "LOAD_GLOBAL", "COMPARE_OP")):
        return "the value of `%s` (line %s)" % (expression, line)
    return "a value of line %s" % line


def _source_of(ins, filename):
    """The source text of the expression an instruction computes, when its position (3.11+)
    is on one line of a file that can be read, else None."""
    where = getattr(ins, "positions", None)
    if where is None or where.lineno is None or where.lineno != where.end_lineno or where.col_offset is None \
            or where.end_col_offset is None:
        return None
    text = linecache.getline(filename, where.lineno).encode("utf-8")      # (the offsets count bytes)
    return text[where.col_offset:where.end_col_offset].decode("utf-8", "replace").strip() or None


def _line_of(instructions, k):
    for ins in reversed(instructions[:k + 1]):
        number = ins.positions.lineno if getattr(ins, "positions", None) is not None else ins.starts_line
        if number:
            return number
    return None
