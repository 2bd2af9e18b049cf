"""A code object's raw instructions, read straight from ``co_code``.

The same records as ``dis.get_instructions`` for every field the normalising
layer reads (``opname``, ``opcode``, ``arg``, ``argval``, ``offset``, the line an
instruction starts, and ``argrepr`` where it names an operator), at a
fraction of the cost: ``dis`` also builds source positions, jump labels and
the ``repr`` of every constant, which for Dynamo's code means the ``repr`` of
tensors and modules.  ``tests/test_decoder.py`` holds it to ``dis`` over the
standard library on every version.  How arguments are encoded per version
comes from :mod:`unveil.bytecode.facts`.
"""
import collections
import dis
import opcode

from . import facts

#: One raw instruction; ``line`` is the source line it starts, or None.
Raw = collections.namedtuple("Raw", "opname opcode arg argval argrepr offset line")

# How an instruction's argument becomes its ``argval`` (and, for operators, ``argrepr``).
(_PLAIN, _LOCAL, _CONST, _NAME, _JUMP_FORWARD, _JUMP_BACK, _JUMP_ABSOLUTE, _FREE, _COMPARE,
 _FORMAT, _PAIR, _CONVERT, _BINARY, _INTRINSIC_1, _INTRINSIC_2) = range(15)

_CONVERSIONS = (None, str, repr, ascii)


def _kinds():
    """The argument kind of every opcode, and how far a name index is shifted."""
    kind = [_PLAIN] * 512  # 3.12+ lists pseudo instructions past 255 too
    shift = [0] * 512
    for op in opcode.hasconst:
        kind[op] = _CONST
    for op in opcode.hasname:
        kind[op] = _NAME
        shift[op] = facts.NAME_ARG_SHIFT.get(opcode.opname[op], 0)
    for op in opcode.hasjrel:
        kind[op] = _JUMP_BACK if "JUMP_BACKWARD" in opcode.opname[op] else _JUMP_FORWARD
    for op in opcode.hasjabs:
        kind[op] = _JUMP_ABSOLUTE
    for op in opcode.hasfree:
        kind[op] = _FREE
    for op in opcode.haslocal:
        kind[op] = _LOCAL
    for op in opcode.hascompare:
        kind[op] = _COMPARE
    special = {"FORMAT_VALUE": _FORMAT, "CONVERT_VALUE": _CONVERT, "BINARY_OP": _BINARY,
               "CALL_INTRINSIC_1": _INTRINSIC_1, "CALL_INTRINSIC_2": _INTRINSIC_2,
               "LOAD_FAST_LOAD_FAST": _PAIR, "STORE_FAST_LOAD_FAST": _PAIR, "STORE_FAST_STORE_FAST": _PAIR}
    for name, k in special.items():
        if name in opcode.opmap:
            kind[opcode.opmap[name]] = k
    return kind, shift


class _Tables:
    """Per-opcode facts for :func:`read`."""

    def __init__(self):
        kind, shift = _kinds()
        self.kind, self.shift = kind[:256], shift[:256]
        self.caches = [facts.inline_caches(name) if name[0] != "<" else 0 for name in opcode.opname]
        self.has_arg = [facts.has_arg(op) for op in range(256)]


_TABLES = _Tables()
_OPNAME = list(opcode.opname)
_EXTENDED_ARG = opcode.EXTENDED_ARG
_BINARY_TEXT = [text for _, text in getattr(dis, "_nb_ops", ())]
_INTRINSIC_1_TEXT = getattr(dis, "_intrinsic_1_descs", ())
_INTRINSIC_2_TEXT = getattr(dis, "_intrinsic_2_descs", ())


def read(code):
    """The raw instructions of ``code``, as :class:`Raw` records, caches skipped."""
    t = _TABLES
    kinds, shifts, caches, opnames, has_arg = t.kind, t.shift, t.caches, _OPNAME, t.has_arg
    co = code.co_code
    consts, names = code.co_consts, code.co_names
    local, free = facts.local_and_free_names(code)
    unit, compare_shift = facts.JUMP_UNIT, facts.COMPARE_SHIFT
    lines = dict(dis.findlinestarts(code))
    out = []
    append, new = out.append, tuple.__new__   # a Raw without the call of its Python-level __new__
    ext = 0
    i, n = 0, len(co)
    while i < n:
        op = co[i]
        argrepr = ""
        if has_arg[op]:
            arg = argval = co[i + 1] | ext
            ext = arg << 8 if op == _EXTENDED_ARG else 0
            kind = kinds[op]
            if kind == _PLAIN:
                pass
            elif kind == _LOCAL:
                argval = local(arg)
            elif kind == _CONST:
                argval = consts[arg]
            elif kind == _NAME:
                argval = names[arg >> shifts[op]]
            elif kind == _JUMP_FORWARD:
                argval = i + 2 + unit * arg + 2 * caches[op]
            elif kind == _JUMP_BACK:
                argval = i + 2 - unit * arg + 2 * caches[op]
            elif kind == _JUMP_ABSOLUTE:
                argval = unit * arg
            elif kind == _FREE:
                argval = free(arg)
            elif kind == _COMPARE:
                argval = dis.cmp_op[arg >> compare_shift]
            elif kind == _FORMAT:
                argval = (_CONVERSIONS[arg & 3], bool(arg & 4))
            elif kind == _PAIR:
                argval = (local(arg >> 4), local(arg & 15))
            elif kind == _CONVERT:
                argval = _CONVERSIONS[arg]
            elif kind == _BINARY:
                argrepr = _BINARY_TEXT[arg]
            elif kind == _INTRINSIC_1:
                argrepr = _INTRINSIC_1_TEXT[arg]
            else:
                argrepr = _INTRINSIC_2_TEXT[arg]
        else:
            arg = argval = None
            ext = 0
        append(new(Raw, (opnames[op], op, arg, argval, argrepr, i, lines.get(i))))
        i += 2 + 2 * caches[op]
    return out


def exception_table(code):
    """``(start, end, target, depth, lasti)`` byte offsets of each entry of a 3.11+
    exception table (``end`` exclusive).

    Each entry is four variable-length numbers of six-bit groups, most
    significant first; bit 6 of a byte says another group follows.
    """
    data = getattr(code, "co_exceptiontable", b"")
    numbers, value = [], 0
    for byte in data:
        value = (value << 6) | (byte & 63)
        if not byte & 64:
            numbers.append(value)
            value = 0
    entries = []
    for k in range(0, len(numbers) - 3, 4):
        start, length, target, depth_lasti = numbers[k:k + 4]
        entries.append((2 * start, 2 * (start + length), 2 * target, depth_lasti >> 1, bool(depth_lasti & 1)))
    return entries
