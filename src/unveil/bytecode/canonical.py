"""The normalising layer: any CPython 3.8-3.13 code object as one instruction model.

Everything above this module is version-neutral.  The canonical model is close
to CPython 3.11+ bytecode, with these changes:

* cache entries, ``EXTENDED_ARG``, ``RESUME``, ``PRECALL``, ``NOP``, ``TO_BOOL``,
  ``MAKE_CELL``, ``COPY_FREE_VARS`` and ``RETURN_GENERATOR`` are dropped;
* every jump has ``target`` (an index into the canonical list) and one of the
  names ``JUMP``, ``POP_JUMP_IF_{FALSE,TRUE,NONE,NOT_NONE}``, ``FOR_ITER``;
  ``JUMP_IF_{FALSE,TRUE}_OR_POP`` become ``COPY 1; POP_JUMP_IF_X; POP_TOP``;
* ``FOR_ITER``'s target is the first instruction after the loop, the iterator
  already popped (``END_FOR`` is folded away);
* ``BINARY_OP``/``INPLACE_*``/``BINARY_*`` become ``BINARY_OP`` with the operator
  text as ``argval`` (``"+"`` or ``"+="``), ``COMPARE_OP`` has the operator text;
* ``LOAD_GLOBAL``/``LOAD_ATTR`` flag bits become explicit ``PUSH_NULL`` and
  ``LOAD_METHOD``; calls are ``CALL`` with ``argval = (argc, kwnames, has_null)``
  where ``kwnames`` is a tuple, ``"stack"`` (names tuple on the stack) or ``None``;
* superinstructions are split, ``RETURN_CONST`` is ``LOAD_CONST; RETURN_VALUE``,
  ``FORMAT_SIMPLE``/``FORMAT_WITH_SPEC``/``CONVERT_VALUE`` become ``FORMAT_VALUE``
  with ``argval = (conversion, has_spec)``;
* ``yield from``/``await`` send loops become one ``YIELD_FROM`` instruction;
* 3.8's ``BUILD_{TUPLE,LIST,SET}_UNPACK[_WITH_CALL]`` become ``BUILD_UNPACK n``
  (``argval`` ``"tuple"``/``"list"``/``"set"``) and ``BUILD_MAP_UNPACK[_WITH_CALL]``
  becomes ``BUILD_MAP_UNPACK n``: each pops ``n`` iterables or mappings;
* ``handler`` on each instruction gives the exception-table entry covering it
  as ``(target_index, depth, lasti)`` or ``None``.

Python 3.8-3.10 block-stack bytecode is translated to the same exception-table
form in :mod:`unveil.bytecode.legacy`.
"""

from ..errors import DecompilationError
from . import decoder, facts, legacy, versioned_opcodes
from .opcodes import JUMPS, NEGATED_JUMP, NO_NEXT, Instr


class Code:
    """A code object's canonical instructions and what the layers above need: ``raw``,
    the instructions as the decoder read them (decoded once per code object)."""

    def __init__(self, code, instrs, raw):
        self.code = code
        self.instrs = instrs
        self.raw = raw

    def __len__(self):
        return len(self.instrs)


def normalise(code):
    """Return the :class:`Code` of ``code`` for the running interpreter."""
    decoded = decoder.read(code)
    raw, table = _raw_and_exception_table(code, decoded)
    raw = _lines_past_extended_args(raw)
    out = []
    state = _State(code, raw)
    after_nop = nop_before = False
    nop_lines = []
    translators = _ALL_TRANSLATORS
    for pos, ins in enumerate(raw):
        state.pos = pos
        if ins.opname not in ("CACHE", "EXTENDED_ARG"):
            nop_before, after_nop = after_nop, ins.opname == "NOP"
            if after_nop and not nop_before:
                nop_lines = []
            if after_nop and ins.line is not None:
                nop_lines.append(ins.line)
        if (state.skip_to is not None or state.dropped_pops) and state.skipping(ins):
            state.pending_offsets.append(ins.offset)
            continue
        handler = translators.get(ins.opname)
        if handler is None:
            if ins.opname in facts.DROPPED:
                state.pending_offsets.append(ins.offset)
                state.line(ins)   # (3.11's PRECALL starts the line of the CALL after it)
                continue
            raise DecompilationError(
                "unsupported opcode %s on Python %d.%d (in %s)"
                % (ins.opname, facts.PY[0], facts.PY[1], code.co_name))
        produced = handler(ins, state)
        if produced:
            line = None
            for p in produced:
                if p.line is None:
                    if line is None:
                        line = state.line(ins)
                    p.line = line
            produced[0].offset = ins.offset
            produced[0].after_nop = nop_before
            if nop_before:
                produced[0].nop_lines = tuple(nop_lines)
            for off in state.pending_offsets:
                state.offset_alias[off] = ins.offset
            state.pending_offsets = []
        else:
            state.pending_offsets.append(ins.offset)
        out.extend(produced)
    for off in state.pending_offsets:
        state.offset_alias[off] = None
    return Code(code, _link(out, table, state), decoded)


def _lines_past_extended_args(raw):
    """``raw`` with the line an EXTENDED_ARG starts given to the instruction it extends
    (which starts no line of its own there: an argument past 255, the 256th constant of a
    module whose signature's NOPs come before it)."""
    carried = None
    out = None
    for k, ins in enumerate(raw):
        if ins.opname == "EXTENDED_ARG":
            carried = ins.line if ins.line is not None else carried
            continue
        if carried is not None and ins.line is None:
            out = list(raw) if out is None else out
            out[k] = ins._replace(line=carried)
        carried = None
    return raw if out is None else out


def _raw_and_exception_table(code, raw):
    """The raw instructions of ``code`` (``raw``, as decoded) and its exception table;
    before 3.11 the block-stack instructions are first rewritten into the
    exception-table form by :mod:`unveil.bytecode.legacy`."""
    if facts.BLOCK_STACK:
        return legacy.translate(code, raw)
    return raw, decoder.exception_table(code)


class _State:
    """Context a translator may consult: neighbours, pending KW_NAMES, lines."""

    def __init__(self, code, raw):
        self.code = code
        self.raw = raw
        self.pos = 0
        self.kwnames = None
        self.pending_offsets = []
        self.offset_alias = {}
        self.skip_to = None
        self.dropped_pops = set()
        self._line = code.co_firstlineno
        self.cells = set(code.co_freevars)    # slots holding a cell now (see _local_or_cell)

    def line(self, ins):
        line = ins.line
        if line is not None:
            self._line = line
        return self._line

    def skipping(self, ins):
        """Whether ``ins`` belongs to a construct already translated as a whole."""
        if ins.offset in self.dropped_pops:
            return True
        if self.skip_to is None:
            return False
        if ins.offset < self.skip_to:
            return True
        self.skip_to = None
        return ins.opname == "END_SEND"

    def next_raw(self, k=1):
        j = self.pos + k
        return self.raw[j] if j < len(self.raw) else None


def _link(out, table, state):
    """Turn raw jump offsets into canonical indices and attach handlers."""
    by_offset = {}
    for i, ins in enumerate(out):
        ins.index = i
        if ins.offset >= 0 and ins.offset not in by_offset:
            by_offset[ins.offset] = i
    end = len(out)

    def resolve(offset):
        seen = offset
        while seen in state.offset_alias:
            alias = state.offset_alias[seen]
            if alias is None:
                return end
            if alias == seen:
                break
            seen = alias
        if seen in by_offset:
            return by_offset[seen]
        later = [o for o in by_offset if o > seen]
        return by_offset[min(later)] if later else end

    for ins in out:
        if ins.target is not None:
            ins.target = resolve(ins.target)
    entries = [(resolve(s), resolve(e), resolve(t), d, l) for (s, e, t, d, l) in table]
    for start, stop, target, depth, lasti in entries:
        for i in range(start, min(stop, end)):
            if out[i].handler is None:
                out[i].handler = (target, depth, lasti)
    _fill_split_handlers(out)
    _fill_jump_handlers(out)
    out = _fold_async_for(out)
    return _fold_backward_conditions(out)


def _fold_async_for(out):
    """``GET_ANEXT; YIELD_FROM`` covered by an ``END_ASYNC_FOR`` handler is a
    ``FOR_ITER`` (argval ``"async"``) that leaves to after ``END_ASYNC_FOR``.

    The handler only ends the loop on ``StopAsyncIteration``; with it folded
    in, ``async for`` has the shape of ``for``.
    """
    drop = set()
    for i in range(len(out) - 1):
        a, b = out[i], out[i + 1]
        if a.op != "GET_ANEXT" or b.op != "YIELD_FROM" or a.handler is None or b.handler != a.handler:
            continue
        end = a.handler[0]
        if end >= len(out) or out[end].op != "END_ASYNC_FOR":
            continue
        outer = out[end].handler
        a.op, a.arg, a.argval, a.target, a.handler = "FOR_ITER", None, "async", end + 1, outer
        drop.update((i + 1, end))
        for ins in out:
            if ins.handler is not None and ins.handler[0] == end:
                ins.handler = outer
    return _reindex(out, drop)


def _reindex(out, drop):
    """``out`` without the instructions at ``drop``; jumps and handlers renumbered
    (one to a dropped instruction goes to the next one kept)."""
    if not drop:
        return out
    new_index, kept = {}, []
    for i, ins in enumerate(out):
        new_index[i] = len(kept)
        if i not in drop:
            kept.append(ins)
    new_index[len(out)] = len(kept)
    for i, ins in enumerate(kept):
        ins.index = i
        if ins.target is not None:
            ins.target = new_index[min(ins.target, len(out))]
        if ins.handler is not None:
            ins.handler = (new_index[ins.handler[0]],) + tuple(ins.handler[1:])
    return kept


def _fold_backward_conditions(out):
    """``POP_JUMP_IF_X +1; JUMP back`` is one backward conditional jump.

    3.12+ has only forward conditional jumps and writes a backward one (the
    ``if not c: continue`` of a loop, a ``while`` bottom test) as an inverted
    test over a ``JUMP_BACKWARD``; 3.11 has ``POP_JUMP_BACKWARD_IF_X``.  Where
    the ``JUMP`` has a line of its own, it was a ``continue`` statement.
    """
    targeted = set()
    for ins in out:
        if ins.target is not None:
            targeted.add(ins.target)
        if ins.handler is not None:
            targeted.add(ins.handler[0])
    drop = set()
    for i in range(len(out) - 1):
        c, j = out[i], out[i + 1]
        if (c.op in NEGATED_JUMP and c.target == i + 2 and j.op == "JUMP" and j.target is not None
                and j.target <= i and i + 1 not in targeted and i not in drop
                and j.handler in (None, c.handler)):
            c.op = NEGATED_JUMP[c.op]
            c.target = j.target
            c.continues = j.line != c.line
            drop.add(i + 1)
    return _reindex(out, drop)


def _fill_jump_handlers(out):
    """A jump cannot raise, and 3.12+ leaves some out of the exception table
    (the tests and back edges of comprehension filters, for one; in 3.13 an ``if``
    test in a loop in a ``with`` whose true arm starts a ``try``).  One that
    continues a covered instruction towards a target under the same handler, or
    under a handler nested in it, shares it."""
    for i in range(1, len(out)):
        ins = out[i]
        if ins.op not in JUMPS or ins.handler is not None or ins.target is None:
            continue
        prev = out[i - 1]
        if prev.handler is None or prev.op in NO_NEXT:
            continue
        if ins.target < len(out) and _within_handler(out, out[ins.target].handler, prev.handler):
            ins.handler = prev.handler


def _within_handler(out, handler, outer):
    """Whether code under ``handler`` is also under ``outer``: it is ``outer``, or the
    handler's own code is (a ``try`` nested in a ``with``)."""
    for _ in range(len(out)):
        if handler == outer:
            return True
        if handler is None or handler[0] >= len(out):
            return False
        handler = out[handler[0]].handler
    return False


def _fill_split_handlers(out):
    """Instructions produced by one raw instruction share its handler."""
    for i in range(1, len(out)):
        if out[i].offset < 0 and out[i].handler is None:
            out[i].handler = out[i - 1].handler


# --- translators -----------------------------------------------------------
# Each takes a raw instruction (``decoder.Raw``) and the state, and returns canonical
# instructions.  Version-specific ones live in :mod:`unveil.bytecode.versioned_opcodes`.

def _same(ins, state):
    return [Instr(ins.opname, ins.arg, ins.argval)]


def _jump(name):
    def translate(ins, state):
        return [Instr(name, ins.arg, None, target=ins.argval)]
    return translate


def _load_global(ins, state):
    out = [Instr("LOAD_GLOBAL", ins.arg, ins.argval)]
    if facts.global_pushes_null(ins):
        out.insert(0 if facts.NULL_BELOW_GLOBAL else 1, Instr("PUSH_NULL"))
    return out


def _load_attr(ins, state):
    if facts.attr_is_method(ins):
        return [Instr("LOAD_METHOD", ins.arg, ins.argval)]
    return [Instr("LOAD_ATTR", ins.arg, ins.argval)]


def _binary_op(ins, state):
    return [Instr("BINARY_OP", ins.arg, facts.binary_op_symbol(ins))]


def _compare(ins, state):
    symbol = facts.compare_symbol(ins)
    if symbol in ("in", "not in"):
        return [Instr("CONTAINS_OP", int(symbol == "not in"), int(symbol == "not in"))]
    if symbol in ("is", "is not"):
        return [Instr("IS_OP", int(symbol == "is not"), int(symbol == "is not"))]
    if symbol == "exception match":
        return [Instr("CHECK_EXC_MATCH")]
    return [Instr("COMPARE_OP", ins.arg, symbol)]


def _return_value(ins, state):
    out = Instr("RETURN_VALUE")
    before = state.raw[state.pos - 1] if state.pos else None
    out.of_merged_values = facts.RETURN_CONST_FUSED and before is not None and before.opname == "LOAD_CONST"
    return [out]


def _return_const(ins, state):
    return [Instr("LOAD_CONST", ins.arg, ins.argval), Instr("RETURN_VALUE")]


def _kw_names(ins, state):
    state.kwnames = facts.kw_names_value(ins, state.code)
    return []


def _call(ins, state):
    kwnames, state.kwnames = state.kwnames, None
    return [Instr("CALL", ins.arg, (ins.arg, kwnames, facts.CALL_HAS_NULL))]


def _call_kw(ins, state):
    return [Instr("CALL", ins.arg, (ins.arg, "stack", facts.CALL_HAS_NULL))]


def _call_ex(ins, state):
    has_kwargs = bool(ins.arg & 1) if ins.arg is not None else False
    return [Instr("CALL_FUNCTION_EX", ins.arg, (has_kwargs, facts.CALL_HAS_NULL))]


def _pair(first, second):
    def translate(ins, state):
        a, b = ins.argval
        return [_local_or_cell(first, a, state), _local_or_cell(second, b, state)]
    return translate


def _format_simple(ins, state):
    return [Instr("FORMAT_VALUE", 0, (None, False))]


def _format_spec(ins, state):
    return [Instr("FORMAT_VALUE", 4, (None, True))]


def _convert(ins, state):
    return [Instr("CONVERT_VALUE", ins.arg, "sra"[ins.arg - 1] if ins.arg else None)]


def _format_value(ins, state):
    conv = {0: None, 1: "s", 2: "r", 3: "a"}[ins.arg & 3]
    return [Instr("FORMAT_VALUE", ins.arg, (conv, bool(ins.arg & 4)))]


def _for_iter(ins, state):
    return [Instr("FOR_ITER", ins.arg, None, target=facts.for_iter_exit(ins, state))]


def _end_for(ins, state):
    return []


def _intrinsic_1(ins, state):
    name = facts.intrinsic_name(ins)
    if name in ("INTRINSIC_UNARY_POSITIVE", "UNARY_POSITIVE"):
        return [Instr("UNARY_POSITIVE")]
    if name in ("INTRINSIC_ASYNC_GEN_WRAP", "ASYNC_GEN_WRAP"):
        return []  # the value an async generator yields: nothing in the source
    nxt = state.next_raw()
    if name == "INTRINSIC_IMPORT_STAR" and nxt is not None and nxt.opname == "POP_TOP":
        state.dropped_pops.add(nxt.offset)  # 3.12+ returns None from ``import *``: IMPORT_STAR pushes nothing
        return [Instr("IMPORT_STAR")]
    if name == "INTRINSIC_PRINT" and nxt is not None and nxt.opname == "POP_TOP":
        state.dropped_pops.add(nxt.offset)  # 3.12+ returns None from the print: PRINT_EXPR pushes nothing
        return [Instr("PRINT_EXPR")]
    if name == "INTRINSIC_TYPEALIAS":
        prev = state.next_raw(-1)
        if prev is None or prev.opname != "BUILD_TUPLE" or prev.arg != 3:
            raise DecompilationError("INTRINSIC_TYPEALIAS of a value that is not a three-item tuple display")
    return [Instr(name.replace("INTRINSIC_", ""), ins.arg, name)]


def _local_or_cell(op, name, state, arg=None):
    """``LOAD_FAST`` of a slot holding a cell pushes the cell itself on 3.13: that is
    ``LOAD_CLOSURE``.  A slot holds a cell from its ``MAKE_CELL`` until a value is
    stored into it (an inlined comprehension's variable: 3.12+ make it a cell only
    inside the comprehension and store the saved value back after it)."""
    if facts.CELL_LOADED_BY_LOAD_FAST:
        if op == "LOAD_FAST" and name in state.cells:
            return Instr("LOAD_CLOSURE", arg, name)
        if op in _UNMAKING_CELLS:
            state.cells.discard(name)
    return Instr(op, arg, name)


_UNMAKING_CELLS = frozenset(["STORE_FAST", "STORE_FAST_MAYBE_NULL", "DELETE_FAST", "LOAD_FAST_AND_CLEAR"])


def _local(ins, state):
    return [_local_or_cell(ins.opname, ins.argval, state, ins.arg)]


def _make_cell(ins, state):
    state.cells.add(ins.argval)
    return []


def _load_fast_check(ins, state):
    """3.12+ checks a local that may be unbound (on an exception path): the same load,
    so that the copies of a finally body on both paths compare equal, noted as one that
    may raise."""
    load = Instr("LOAD_FAST", ins.arg, ins.argval)
    load.may_be_unbound = True
    return [load]


def _build_tuple(ins, state):
    nxt = state.next_raw()
    if ins.arg == 3 and nxt is not None and nxt.opname == "CALL_INTRINSIC_1" \
            and facts.intrinsic_name(nxt) == "INTRINSIC_TYPEALIAS":
        return []  # ``type X = v``: TYPE_ALIAS takes its three values from the stack itself
    return [Instr("BUILD_TUPLE", ins.arg, ins.argval)]


def _intrinsic_2(ins, state):
    name = facts.intrinsic_name(ins)
    return [Instr(name.replace("INTRINSIC_", ""), ins.arg, name)]


def _swap(ins, state):
    return [Instr("SWAP", ins.arg, ins.arg)]


def _copy(ins, state):
    return [Instr("COPY", ins.arg, ins.arg)]


def _pseudo(op, arg):
    def translate(ins, state):
        return [Instr(op, arg, arg)]
    return translate


def _or_pop(name):
    def translate(ins, state):
        return [Instr("COPY", 1, 1), Instr(name, None, None, target=ins.argval),
                Instr("POP_TOP")]
    return translate


def _super_attr(ins, state):
    name, method, two_arg = facts.super_attr(ins)
    return [Instr("LOAD_SUPER_ATTR", ins.arg, (name, method, two_arg))]


TRANSLATORS = {}
for _name in ("LOAD_CONST",
              "LOAD_NAME", "STORE_NAME", "DELETE_NAME", "STORE_GLOBAL", "DELETE_GLOBAL",
              "LOAD_DEREF", "STORE_DEREF", "DELETE_DEREF", "LOAD_CLOSURE",
              "LOAD_CLASSDEREF", "LOAD_FROM_DICT_OR_DEREF", "LOAD_FROM_DICT_OR_GLOBALS",
              "STORE_ATTR", "DELETE_ATTR", "LOAD_METHOD",
              "POP_TOP", "PUSH_NULL", "RAISE_VARARGS", "RERAISE",
              "BINARY_SUBSCR", "STORE_SUBSCR", "DELETE_SUBSCR", "BINARY_SLICE",
              "STORE_SLICE", "BUILD_SLICE", "UNARY_NOT", "UNARY_NEGATIVE",
              "UNARY_INVERT", "UNARY_POSITIVE", "IS_OP", "CONTAINS_OP", "GET_ITER",
              "GET_YIELD_FROM_ITER", "GET_AWAITABLE", "GET_AITER", "GET_ANEXT",
              "END_ASYNC_FOR", "BUILD_LIST", "BUILD_SET", "BUILD_MAP",
              "BUILD_CONST_KEY_MAP", "BUILD_STRING", "LIST_APPEND", "SET_ADD",
              "MAP_ADD", "LIST_EXTEND", "SET_UPDATE", "DICT_UPDATE", "DICT_MERGE",
              "LIST_TO_TUPLE", "UNPACK_SEQUENCE", "UNPACK_EX", "MAKE_FUNCTION",
              "SET_FUNCTION_ATTRIBUTE", "LOAD_BUILD_CLASS", "IMPORT_NAME",
              "IMPORT_FROM", "IMPORT_STAR", "LOAD_ASSERTION_ERROR",
              "PUSH_EXC_INFO", "POP_EXCEPT", "CHECK_EXC_MATCH", "CHECK_EG_MATCH",
              "WITH_EXCEPT_START", "BEFORE_WITH", "BEFORE_ASYNC_WITH",
              "SETUP_ANNOTATIONS", "LOAD_LOCALS", "GET_LEN", "MATCH_MAPPING",
              "MATCH_SEQUENCE", "MATCH_KEYS", "MATCH_CLASS", "COPY_DICT_WITHOUT_KEYS",
              "PRINT_EXPR", "PREP_RERAISE_STAR", "END_SEND", "CLEANUP_THROW", "EXIT_INIT_CHECK"):
    TRANSLATORS[_name] = _same
if facts.CELL_LOADED_BY_LOAD_FAST:
    TRANSLATORS["MAKE_CELL"] = _make_cell
for _name in _UNMAKING_CELLS:
    TRANSLATORS[_name] = _local
TRANSLATORS.update({
    "YIELD_VALUE": _pseudo("YIELD_VALUE", None),  # 3.12+ oparg: stack depth, not source
    "LOAD_GLOBAL": _load_global,
    "LOAD_ATTR": _load_attr,
    "BINARY_OP": _binary_op,
    "COMPARE_OP": _compare,
    "RETURN_VALUE": _return_value,
    "RETURN_CONST": _return_const,
    "KW_NAMES": _kw_names,
    "CALL": _call,
    "CALL_KW": _call_kw,
    "CALL_FUNCTION_EX": _call_ex,
    "LOAD_FAST_LOAD_FAST": _pair("LOAD_FAST", "LOAD_FAST"),
    "STORE_FAST_LOAD_FAST": _pair("STORE_FAST", "LOAD_FAST"),
    "STORE_FAST_STORE_FAST": _pair("STORE_FAST", "STORE_FAST"),
    "FORMAT_SIMPLE": _format_simple,
    "FORMAT_WITH_SPEC": _format_spec,
    "CONVERT_VALUE": _convert,
    "FORMAT_VALUE": _format_value,
    "FOR_ITER": _for_iter,
    "END_FOR": _end_for,
    "BUILD_TUPLE": _build_tuple,
    "LOAD_FAST": _local,
    "LOAD_FAST_CHECK": _load_fast_check,
    "CALL_INTRINSIC_1": _intrinsic_1,
    "CALL_INTRINSIC_2": _intrinsic_2,
    "SWAP": _swap,
    "COPY": _copy,
    "ROT_TWO": _pseudo("SWAP", 2),
    "DUP_TOP": _pseudo("COPY", 1),
    "JUMP_IF_FALSE_OR_POP": _or_pop("POP_JUMP_IF_FALSE"),
    "JUMP_IF_TRUE_OR_POP": _or_pop("POP_JUMP_IF_TRUE"),
    "LOAD_SUPER_ATTR": _super_attr,
})
for _name in ("JUMP_FORWARD", "JUMP_BACKWARD", "JUMP_ABSOLUTE", "JUMP",
              "JUMP_BACKWARD_NO_INTERRUPT", "JUMP_NO_INTERRUPT"):
    TRANSLATORS[_name] = _jump("JUMP")
for _cond in ("FALSE", "TRUE", "NONE", "NOT_NONE"):
    for _name in ("POP_JUMP_IF_", "POP_JUMP_FORWARD_IF_", "POP_JUMP_BACKWARD_IF_"):
        TRANSLATORS[_name + _cond] = _jump("POP_JUMP_IF_" + _cond)


#: opname -> translator: this module's, overridden by those of opcodes only some versions have
_ALL_TRANSLATORS = dict(TRANSLATORS, **versioned_opcodes.TRANSLATORS)
