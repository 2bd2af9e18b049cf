"""Translators of opcodes that only some versions have (3.8-3.10 calls, rotations,
arithmetic and starred displays; 3.11+ generator starts; 3.13 ``TO_BOOL``) into
canonical instructions.  Each takes a raw instruction and the normalising state
(see :mod:`unveil.bytecode.canonical`)."""
import dis

from . import facts
from .opcodes import Instr

# Operator text of the pre-3.11 arithmetic opcodes.
_LEGACY_BINARY = {
    "ADD": "+", "SUBTRACT": "-", "MULTIPLY": "*", "TRUE_DIVIDE": "/",
    "FLOOR_DIVIDE": "//", "MODULO": "%", "POWER": "**", "LSHIFT": "<<",
    "RSHIFT": ">>", "AND": "&", "OR": "|", "XOR": "^", "MATRIX_MULTIPLY": "@",
}


def _legacy_binary(ins, state):
    kind, _, name = ins.opname.partition("_")
    symbol = _LEGACY_BINARY[name]
    return [Instr("BINARY_OP", None, symbol + "=" if kind == "INPLACE" else symbol)]


def _legacy_call(kwnames, has_null):
    def translate(ins, state):
        return [Instr("CALL", ins.arg, (ins.arg, kwnames, has_null))]
    return translate


def _legacy_call_ex(ins, state):
    return [Instr("CALL_FUNCTION_EX", ins.arg, (bool(ins.arg & 1), False))]


def _rot(n):
    def translate(ins, state):
        k = n if n else ins.arg
        return [Instr("ROT", k, k)]
    return translate


def _dup_top_two(ins, state):
    return [Instr("COPY", 2, 2), Instr("COPY", 2, 2)]


def _yield_from(ins, state):
    return [Instr("YIELD_FROM")]


def _load_const(ins, state):
    """``LOAD_CONST None`` that starts a send loop is part of YIELD_FROM."""
    nxt = state.next_raw()
    if ins.argval is None and nxt is not None:
        if nxt.opname == "YIELD_FROM":
            return []
        if nxt.opname == "SEND":
            state.skip_to = nxt.argval
            return [Instr("YIELD_FROM")]
    return [Instr("LOAD_CONST", ins.arg, ins.argval)]


def _return_generator(ins, state):
    nxt = state.next_raw()
    if nxt is not None and nxt.opname == "POP_TOP":
        state.dropped_pops.add(nxt.offset)
    return []


def _to_bool(ins, state):
    """3.13 ``TO_BOOL`` before a jump or ``not`` is implied; elsewhere it is
    ``not not x`` folded by the compiler."""
    k = 1
    nxt = state.next_raw()
    while nxt is not None and nxt.opname == "EXTENDED_ARG":  # a jump past 255 code units
        k += 1
        nxt = state.next_raw(k)
    if nxt is None or nxt.opname.startswith("POP_JUMP") or nxt.opname == "UNARY_NOT":
        return []
    return [Instr("UNARY_NOT"), Instr("UNARY_NOT")]


def _make_function(ins, state):
    return [Instr("MAKE_FUNCTION", ins.arg, (ins.arg or 0, facts.MAKE_FUNCTION_POPS_QUALNAME))]


# 3.8 builds starred displays and call arguments from N operands at once.
_LEGACY_UNPACK = {
    "BUILD_TUPLE_UNPACK": "tuple", "BUILD_TUPLE_UNPACK_WITH_CALL": "tuple",
    "BUILD_LIST_UNPACK": "list", "BUILD_SET_UNPACK": "set",
    "BUILD_MAP_UNPACK": "dict", "BUILD_MAP_UNPACK_WITH_CALL": "dict",
}


def _legacy_unpack(ins, state):
    kind = _LEGACY_UNPACK[ins.opname]
    op = "BUILD_MAP_UNPACK" if kind == "dict" else "BUILD_UNPACK"
    return [Instr(op, ins.arg, kind)]


TRANSLATORS = {
    "MAKE_FUNCTION": _make_function,
    "CALL_FUNCTION": _legacy_call(None, False),
    "CALL_FUNCTION_KW": _legacy_call("stack", False),
    "CALL_METHOD": _legacy_call(None, True),
    "ROT_THREE": _rot(3),
    "ROT_FOUR": _rot(4),
    "ROT_N": _rot(0),
    "DUP_TOP_TWO": _dup_top_two,
    "YIELD_FROM": _yield_from,
    "LOAD_CONST": _load_const,
    "RETURN_GENERATOR": _return_generator,
    "TO_BOOL": _to_bool,
}
if not facts.CALL_HAS_NULL:
    TRANSLATORS["CALL_FUNCTION_EX"] = _legacy_call_ex
for _op in _LEGACY_UNPACK:   # 3.8 only
    TRANSLATORS[_op] = _legacy_unpack
for _op in list(dis.opmap):
    if _op.startswith(("BINARY_", "INPLACE_")) and _op.partition("_")[2] in _LEGACY_BINARY:
        TRANSLATORS[_op] = _legacy_binary
