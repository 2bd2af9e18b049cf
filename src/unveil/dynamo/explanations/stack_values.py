"""The values on a code object's stack when one of its instructions starts, each known by
the instruction that pushed it: followed from the code's start along jumps and
fall-through, in the decompiler's canonical instructions (one model for every Python
version), so that a value an earlier line pushed (a ``with``'s exit, a ``for`` loop's
iterator, the left operand of an expression that goes on over several lines) is known as
well as one of the instruction's own line."""
import collections

from ...bytecode.opcodes import CONDITIONAL, EXITS

#: a value on the stack: the canonical instruction that pushed it (``index``), which of its
#: pushes it is (``nth``), and the values that instruction popped (``operands``, top last)
Pushed = collections.namedtuple("Pushed", "index nth operands")

#: the NULL a call needs below its callable: no value
NULL = "NULL"


def stacks(instrs):
    """``{index: the values on the stack when canonical instruction index starts}``, bottom
    first, each value a :class:`Pushed`, :data:`NULL`, or None where paths meeting on the
    way put different values there; for the instructions reached from the code's start
    along jumps and fall-through (handlers are not entered).  None when an instruction on
    the way is one this does not model (or pops more than the stack holds)."""
    states = {0: ()}
    work = [0]
    while work:
        k = work.pop()
        successors = _successors(instrs, k, states[k])
        if successors is None:
            return None
        for successor, stack in successors:
            known = states.get(successor)
            merged = stack if known is None else _merged(known, stack)
            if merged is None:
                return None
            if merged != known:
                states[successor] = merged
                work.append(successor)
    return states


def iterated(instrs, states):
    """The values (:class:`Pushed`) a ``FOR_ITER`` iterates, with ``states`` from
    :func:`stacks`: ``{value: index of the FOR_ITER}``."""
    found = {}
    for ins in instrs:
        stack = states.get(ins.index) if ins.op == "FOR_ITER" else None
        if stack and isinstance(stack[-1], Pushed):
            found[stack[-1]] = ins.index
    return found


def _merged(known, stack):
    """The stack where two paths meet: a value the paths disagree on is None; None when
    their depths differ (which valid bytecode never has)."""
    if len(known) != len(stack):
        return None
    return tuple(a if a == b else None for a, b in zip(known, stack))


def _successors(instrs, k, stack):
    """``[(instruction index, the stack it starts with)]`` that instruction ``k`` started
    with ``stack`` leads to; None for an instruction not modelled, or one popping more
    than the stack holds."""
    ins = instrs[k]
    if ins.op in EXITS:
        return []
    if ins.op == "JUMP":
        return [(ins.target, stack)]
    if ins.op in CONDITIONAL:
        return [(k + 1, stack[:-1]), (ins.target, stack[:-1])] if stack else None
    if ins.op == "FOR_ITER":            # (its target is past the loop, the iterator popped)
        return [(k + 1, stack + (Pushed(k, 0, ()),)), (ins.target, stack[:-1])] if stack else None
    after = _after(ins, stack)
    return None if after is None else [(k + 1, after)]


def _after(ins, stack):
    """The stack after ``ins`` (not a jump), or None."""
    if ins.op in _REARRANGES:
        depth = ins.arg
        return _REARRANGES[ins.op](stack, depth) if 0 < depth <= len(stack) else None
    shape = _SHAPES.get(ins.op)
    if shape is None:
        return None
    pops, pushes = shape(ins)
    if pops > len(stack):
        return None
    operands = stack[len(stack) - pops:]
    return stack[:len(stack) - pops] + tuple(NULL if pushed is NULL else Pushed(ins.index, nth, operands)
                                             for nth, pushed in enumerate(pushes))


#: ops that move values already on the stack: op -> (stack, its argument) -> stack
_REARRANGES = {
    "COPY": lambda stack, n: stack + (stack[-n],),
    "SWAP": lambda stack, n: stack[:-n] + (stack[-1],) + stack[len(stack) - n + 1:-1] + (stack[-n],),
    "ROT": lambda stack, n: stack[:-n] + (stack[-1],) + stack[len(stack) - n:-1],   # the top goes n-1 down
}


def _pops(count):
    """The shape of an op that pops ``count(ins)`` values and pushes one."""
    return lambda ins: (count(ins), (True,))


def _consumes(count):
    """The shape of an op that pops ``count`` values and pushes none."""
    return lambda ins: (count, ())


#: canonical op -> ins -> (how many values it pops, what it pushes: NULL or True for a value)
_SHAPES = {
    "PUSH_NULL": lambda ins: (0, (NULL,)),
    "LOAD_METHOD": lambda ins: (1, (NULL, True)),       # (Dynamo's model on every version: a NULL and the bound method)
    "LOAD_SUPER_ATTR": lambda ins: (3, (NULL, True) if ins.argval[1] else (True,)),
    "BEFORE_WITH": lambda ins: (1, (True, True)),      # the manager's exit, what its __enter__ returned
    "UNPACK_SEQUENCE": lambda ins: (1, (True,) * ins.arg),
    "UNPACK_EX": lambda ins: (1, (True,) * ((ins.arg & 0xFF) + 1 + (ins.arg >> 8))),
    "IMPORT_FROM": lambda ins: (0, (True,)),           # (the module stays below)
    "CALL": _pops(lambda ins: ins.argval[0] + 1 + ins.argval[2] + (ins.argval[1] == "stack")),
    "CALL_FUNCTION_EX": _pops(lambda ins: 2 + ins.argval[0] + ins.argval[1]),
    "MAKE_FUNCTION": _pops(lambda ins: 1 + ins.argval[1] + bin(ins.argval[0] & 0xF).count("1")),
    "FORMAT_VALUE": _pops(lambda ins: 1 + ins.argval[1]),
    "BUILD_MAP": _pops(lambda ins: 2 * ins.arg),
    "BUILD_CONST_KEY_MAP": _pops(lambda ins: ins.arg + 1),
}
for _op in ("LOAD_CONST", "LOAD_FAST", "LOAD_GLOBAL", "LOAD_NAME", "LOAD_DEREF", "LOAD_CLOSURE",
            "LOAD_CLASSDEREF", "LOAD_ASSERTION_ERROR", "LOAD_BUILD_CLASS", "LOAD_LOCALS", "LOAD_FAST_AND_CLEAR"):
    _SHAPES[_op] = _pops(lambda ins: 0)
for _op in ("LOAD_ATTR", "LOAD_FROM_DICT_OR_DEREF", "LOAD_FROM_DICT_OR_GLOBALS", "UNARY_NOT", "UNARY_NEGATIVE",
            "UNARY_INVERT", "UNARY_POSITIVE", "GET_ITER", "LIST_TO_TUPLE", "CONVERT_VALUE"):
    _SHAPES[_op] = _pops(lambda ins: 1)
for _op in ("BINARY_OP", "COMPARE_OP", "IS_OP", "CONTAINS_OP", "BINARY_SUBSCR", "IMPORT_NAME",
            "SET_FUNCTION_ATTRIBUTE"):
    _SHAPES[_op] = _pops(lambda ins: 2)
_SHAPES["BINARY_SLICE"] = _pops(lambda ins: 3)
for _op in ("BUILD_TUPLE", "BUILD_LIST", "BUILD_SET", "BUILD_STRING", "BUILD_SLICE", "BUILD_UNPACK",
            "BUILD_MAP_UNPACK"):
    _SHAPES[_op] = _pops(lambda ins: ins.arg)
for _op, _count in (("POP_TOP", 1), ("STORE_FAST", 1), ("STORE_FAST_MAYBE_NULL", 1), ("STORE_NAME", 1),
                    ("STORE_GLOBAL", 1), ("STORE_DEREF", 1), ("STORE_ATTR", 2), ("STORE_SUBSCR", 3),
                    ("STORE_SLICE", 4), ("DELETE_FAST", 0), ("DELETE_NAME", 0), ("DELETE_GLOBAL", 0),
                    ("DELETE_DEREF", 0), ("DELETE_ATTR", 1), ("DELETE_SUBSCR", 2), ("IMPORT_STAR", 1),
                    ("PRINT_EXPR", 1), ("SETUP_ANNOTATIONS", 0),
                    # (these add to the list, set or dict below, which stays)
                    ("LIST_APPEND", 1), ("SET_ADD", 1), ("MAP_ADD", 2), ("LIST_EXTEND", 1), ("SET_UPDATE", 1),
                    ("DICT_UPDATE", 1), ("DICT_MERGE", 1)):
    _SHAPES[_op] = _consumes(_count)
