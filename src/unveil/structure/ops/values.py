"""Handlers of the canonical instructions that compute values: operators, subscripts
and slices, comparisons, displays, strings and unpacking (see :mod:`unveil.structure.ops`)."""
import ast

from ...errors import DecompilationError
from ...syntax.literals import set_elements
from .. import stackitems as si
from ..stackitems import as_expr, const, name
from .table import handles

BINOPS = {
    "+": ast.Add, "-": ast.Sub, "*": ast.Mult, "/": ast.Div, "//": ast.FloorDiv,
    "%": ast.Mod, "**": ast.Pow, "<<": ast.LShift, ">>": ast.RShift, "&": ast.BitAnd,
    "|": ast.BitOr, "^": ast.BitXor, "@": ast.MatMult,
}
CMPOPS = {"<": ast.Lt, "<=": ast.LtE, "==": ast.Eq, "!=": ast.NotEq, ">": ast.Gt, ">=": ast.GtE}


@handles("BINARY_OP")
def _binary(f, ins):
    right, left = f.pop(), f.pop()
    symbol = ins.argval
    inplace = symbol.endswith("=")
    node = ast.BinOp(left=left, op=BINOPS[symbol.rstrip("=")](), right=right)
    f.notes.inplace.set(node, inplace)
    f.push(node)


@handles("BINARY_SUBSCR")
def _subscr(f, ins):
    index, obj = f.pop(), f.pop()
    f.push(ast.Subscript(value=obj, slice=_index(f.notes, index), ctx=ast.Load()))


@handles("BINARY_SLICE")
def _binary_slice(f, ins):
    stop, start, obj = f.pop(), f.pop(), f.pop()
    f.push(ast.Subscript(value=obj, slice=_slice(start, stop, None), ctx=ast.Load()))


@handles("STORE_SLICE")
def _store_slice(f, ins):
    stop, start, obj = f.pop(), f.pop(), f.pop()
    f.store(ast.Subscript(value=obj, slice=_slice(start, stop, None), ctx=ast.Store()))


def none_or(node):
    return None if isinstance(node, ast.Constant) and node.value is None else node


def _slice(start, stop, step):
    return ast.Slice(lower=none_or(start), upper=none_or(stop), step=none_or(step) if step else None)


@handles("BUILD_SLICE")
def _build_slice(f, ins):
    """``slice(a, b, c)``, an expression wherever the value goes (Dynamo keeps one on the
    stack across statements: a temporary, a store, an argument), written ``a:b:c``
    where it is a subscript's index (:func:`_index`)."""
    parts = f.popn(3 if ins.arg == 3 else 2)
    node = ast.Call(func=name("slice"), args=parts, keywords=[])
    f.notes.slice_call.set(node)
    f.push(node)


def _index(notes, index, in_tuple=False):
    """A subscript's index: a slice BUILD_SLICE made as ``a:b:c``, also as an item of a
    tuple (``x[1:2, 3]``; not of a tuple in that tuple, where ``a:b`` does not parse)."""
    if notes.slice_call.get(index, False):
        return _slice(*index.args) if len(index.args) == 3 else _slice(index.args[0], index.args[1], None)
    if not in_tuple and isinstance(index, ast.Tuple) and any(notes.slice_call.get(e, False) for e in index.elts):
        return notes.copy(index, ast.Tuple(elts=[_index(notes, e, True) for e in index.elts], ctx=ast.Load()))
    return index


@handles("STORE_SUBSCR")
def _store_subscr(f, ins):
    index, obj = f.pop(), f.pop()
    f.store(ast.Subscript(value=obj, slice=_index(f.notes, index), ctx=ast.Store()))


@handles("DELETE_SUBSCR")
def _delete_subscr(f, ins):
    index, obj = f.pop(), f.pop()
    f.emit(ast.Delete(targets=[ast.Subscript(value=obj, slice=_index(f.notes, index), ctx=ast.Del())]))


def _unary(op):
    def handler(f, ins):
        f.push(ast.UnaryOp(op=op(), operand=f.pop()))
    return handler


handles("UNARY_NOT")(_unary(ast.Not))
handles("UNARY_NEGATIVE")(_unary(ast.USub))
handles("UNARY_INVERT")(_unary(ast.Invert))
handles("UNARY_POSITIVE")(_unary(ast.UAdd))


@handles("COMPARE_OP")
def _compare(f, ins):
    right, left = f.pop(), f.pop()
    f.push(ast.Compare(left=left, ops=[CMPOPS[ins.argval]()], comparators=[right]))


@handles("IS_OP")
def _is(f, ins):
    right, left = f.pop(), f.pop()
    f.push(ast.Compare(left=left, ops=[ast.IsNot() if ins.argval else ast.Is()], comparators=[right]))


@handles("CONTAINS_OP")
def _contains(f, ins):
    right, left = f.pop(), f.pop()
    f.push(ast.Compare(left=left, ops=[ast.NotIn() if ins.argval else ast.In()],
                       comparators=[set_display(f, right)]))


def set_display(f, value):
    """A set display for a frozenset constant, which the compiler folds from a display of
    constants iterated or tested with ``in``; other values as they are."""
    if isinstance(value, ast.Constant) and value.value.__class__ is frozenset and value.value:
        return ast.Set(elts=[f.ctx.constant(v) for v in set_elements(value.value)])
    return value


@handles("BUILD_TUPLE")
def _build_tuple(f, ins):
    f.push(ast.Tuple(elts=f.popn(ins.arg), ctx=ast.Load()))


@handles("BUILD_LIST")
def _build_list(f, ins):
    node = ast.List(elts=f.popn(ins.arg), ctx=ast.Load())
    f.notes.accumulator.set(node, ins.arg == 0)
    f.push(node)


@handles("BUILD_SET")
def _build_set(f, ins):
    elts = f.popn(ins.arg)
    if elts:
        node = ast.Set(elts=elts)
    else:
        node = ast.Call(func=name("set"), args=[], keywords=[])
        f.notes.accumulator.set(node, True)
        f.notes.set_call.set(node, True)
    f.push(node)


@handles("BUILD_MAP")
def _build_map(f, ins):
    items = f.popn(2 * ins.arg)
    node = ast.Dict(keys=items[0::2], values=items[1::2])
    f.notes.accumulator.set(node, ins.arg == 0)
    f.push(node)


@handles("BUILD_CONST_KEY_MAP")
def _build_const_key_map(f, ins):
    keys = f.pop()
    values = f.popn(ins.arg)
    f.push(ast.Dict(keys=[const(k) for k in tuple_value(keys)], values=values))


def tuple_value(node):
    if isinstance(node, ast.Constant):
        return node.value
    return tuple(e.value for e in node.elts)


@handles("BUILD_STRING")
def _build_string(f, ins):
    parts = f.popn(ins.arg)
    values = []
    for p in parts:
        values.extend(p.values if isinstance(p, ast.JoinedStr) else [_string_part(p)])
    f.push(ast.JoinedStr(values=values))


def _string_part(value):
    """A part of an f-string: a literal or a formatted value.  A string computed elsewhere
    (Dynamo's resume function gets an f-string's first parts as arguments) is a field."""
    if isinstance(value, ast.FormattedValue) or isinstance(value, ast.Constant) and isinstance(value.value, str):
        return value
    return ast.FormattedValue(value=value, conversion=-1, format_spec=None)


@handles("CONVERT_VALUE")
def _convert_value(f, ins):
    f.push(ast.FormattedValue(value=f.pop(), conversion=ord(ins.argval), format_spec=None))


@handles("FORMAT_VALUE")
def _format_value(f, ins):
    conv, has_spec = ins.argval
    spec = f.pop() if has_spec else None
    value = f.pop()
    conversion = -1 if conv is None else ord(conv)
    if isinstance(value, ast.FormattedValue) and value.format_spec is None and conv is None:
        conversion, value = value.conversion, value.value
    if spec is not None and not isinstance(spec, ast.JoinedStr):
        spec = ast.JoinedStr(values=[_string_part(spec)])
    f.push(ast.JoinedStr(values=[ast.FormattedValue(value=value, conversion=conversion, format_spec=spec)]))


@handles("LIST_APPEND", "SET_ADD")
def _append(f, ins):
    """Add to a display being built, or (in a comprehension loop) to the accumulator.

    A display of over 30 items is built item by item, each added right on top of it;
    a comprehension keeps its iterator between."""
    value = f.pop()
    target = f.stack[-ins.arg]
    if ins.arg == 1 and isinstance(target, ast.Call) and f.notes.set_call.get(target, False):
        target = f.stack[-1] = ast.Set(elts=[])  # set() begun empty
    if isinstance(target, (ast.List, ast.Set)) and (ins.arg == 1 or not f.notes.accumulator.get(target, False)):
        target = building(f, ins.arg)
        target.elts.append(value)
        f.notes.accumulator.set(target, False)
    else:
        f.emit(si.Appended(target=target, value=value, key=None))


def building(f, depth):
    """The display ``depth`` down the stack, for an instruction to add items to in place.

    A frame adds in place only to a display it has added to before (``notes.built_in``);
    one it was handed (a branch's arm, by the frame it forked from, which may go on to
    add to it itself) is replaced first, wherever this frame's stack holds it, by a
    copy of its own: the paths through a conditional expression or ``and``/``or`` inside
    a display of over 30 items (16 for a dict) each add their own item, and a path
    structured and dropped (arms that do not merge, tried again) leaves nothing
    behind.  The copy keeps the node's facts: when it was computed, and being
    inherited where the display was."""
    target = f.stack[-depth]
    if f.notes.built_in.get(target) is f.builder:
        return target
    if isinstance(target, ast.Dict):
        copy = ast.Dict(keys=list(target.keys), values=list(target.values))
    elif isinstance(target, ast.List):
        copy = ast.List(elts=list(target.elts), ctx=ast.Load())
    else:
        copy = ast.Set(elts=list(target.elts))
    f.notes.copy(target, copy)
    f.notes.built_in.set(copy, f.builder)
    f.stack = [copy if v is target else v for v in f.stack]
    if id(target) in f.inherited:
        f.inherited.add(id(copy))
    return copy


@handles("MAP_ADD")
def _map_add(f, ins):
    """Add to a dict display being built item by item (over 16 items: the dict lies right
    below, where a comprehension keeps its iterator between), or to an accumulator."""
    value, key = f.pop(), f.pop()
    target = f.stack[-ins.arg]
    if isinstance(target, ast.Dict) and (ins.arg == 1 or not f.notes.accumulator.get(target, False)):
        target = building(f, ins.arg)
        target.keys.append(key)
        target.values.append(value)
        f.notes.accumulator.set(target, False)
    else:
        f.emit(si.Appended(target=target, value=value, key=key))


def _spread(f, value, ordered):
    """The display items of an iterable spliced into a display: ``*value``,
    or its own items when the compiler built or folded it from plain ones.

    A set keeps its star inside an ``ordered`` (list or tuple) display: its
    iteration order need not be the order of its items.
    """
    kinds = (tuple,) if ordered else (tuple, frozenset)
    if isinstance(value, ast.Constant) and isinstance(value.value, kinds):
        items = value.value if isinstance(value.value, tuple) else set_elements(value.value)
        return [f.ctx.constant(v) for v in items]
    kinds = (ast.List, ast.Tuple) if ordered else (ast.List, ast.Tuple, ast.Set)
    if isinstance(value, kinds) and not f.notes.accumulator.get(value, False):
        return list(value.elts)
    return [ast.Starred(value=value, ctx=ast.Load())]


def _spread_map(notes, value):
    """(keys, values) of a mapping merged into a dict display; key None is ``**value``."""
    if isinstance(value, ast.Dict) and not notes.accumulator.get(value, False):
        return list(value.keys), list(value.values)
    return [None], [value]


@handles("LIST_EXTEND", "SET_UPDATE")
def _extend(f, ins):
    value = f.pop()
    target = f.stack[-ins.arg]
    items = _spread(f, value, ins.op == "LIST_EXTEND")
    if isinstance(target, ast.Call):  # set() accumulator
        target = ast.Set(elts=[])
        f.stack[-ins.arg] = target
    if not isinstance(target, (ast.List, ast.Set)):
        f.stack[-ins.arg] = _extended(target, value, items, ins.op)
        return
    target = building(f, ins.arg)
    target.elts.extend(items)
    f.notes.accumulator.set(target, False)


def _extended(target, value, items, op):
    """Dynamo extends lists that are not displays, such as ``[a, b][0:1]``: a slice of
    a display is a new list, so a new display holds both; any other list may be
    shared and is extended in place by ``__iadd__`` (``list.extend`` that returns it)."""
    if op != "LIST_EXTEND":   # set |= takes only sets, SET_UPDATE any iterable
        raise DecompilationError("SET_UPDATE into a value that is not a display")
    if isinstance(target, ast.Subscript) and isinstance(target.slice, ast.Slice) and isinstance(target.value, ast.List):
        return ast.List(elts=[ast.Starred(value=target, ctx=ast.Load())] + items, ctx=ast.Load())
    return ast.Call(func=ast.Attribute(value=target, attr="__iadd__", ctx=ast.Load()), args=[value], keywords=[])


@handles("BUILD_UNPACK")
def _build_unpack(f, ins):
    """3.8: a tuple, list or set display of ``ins.arg`` spliced iterables."""
    items = []
    for value in f.popn(ins.arg):
        items.extend(_spread(f, value, ins.argval != "set"))
    if ins.argval == "set":
        f.push(ast.Set(elts=items))
    else:
        cls = ast.Tuple if ins.argval == "tuple" else ast.List
        f.push(cls(elts=items, ctx=ast.Load()))


@handles("LIST_TO_TUPLE")
def _list_to_tuple(f, ins):
    """A tuple of the list display built so far, or ``(*value,)`` of a list that is no
    display: one a statement evaluated while the display was still being built (into a
    temporary, before a branch that adds to it), or one Dynamo hands a resume function."""
    value = f.pop()
    items = list(value.elts) if isinstance(value, ast.List) else [ast.Starred(value=value, ctx=ast.Load())]
    f.push(ast.Tuple(elts=items, ctx=ast.Load()))


@handles("DICT_UPDATE", "DICT_MERGE")
def _dict_update(f, ins):
    value = f.pop()
    target = f.stack[-ins.arg]
    if not isinstance(target, ast.Dict):
        # Dynamo hands a resume function the dict ``{**create()}`` was building when
        # ``create`` broke: updated in place by ``__ior__`` (``dict.update`` that returns it)
        f.stack[-ins.arg] = ast.Call(func=ast.Attribute(value=target, attr="__ior__", ctx=ast.Load()),
                                     args=[value], keywords=[])
        return
    keys, values = _spread_map(f.notes, value)
    target = building(f, ins.arg)
    target.keys.extend(keys)
    target.values.extend(values)
    f.notes.accumulator.set(target, False)


@handles("BUILD_MAP_UNPACK")
def _build_map_unpack(f, ins):
    """3.8: a dict display (or call keywords) of ``ins.arg`` merged mappings."""
    node = ast.Dict(keys=[], values=[])
    for value in f.popn(ins.arg):
        keys, values = _spread_map(f.notes, value)
        node.keys.extend(keys)
        node.values.extend(values)
    f.push(node)


@handles("UNPACK_SEQUENCE")
def _unpack(f, ins):
    _push_slots(f, ins.arg, None)


@handles("UNPACK_EX")
def _unpack_ex(f, ins):
    before, after = ins.arg & 0xFF, ins.arg >> 8
    _push_slots(f, before + 1 + after, before)


def _push_slots(f, count, star):
    value = f.pop_raw()
    if isinstance(value, si.Slot):
        unpack = si.Unpack(None, count, star, parent=(value.unpack, value.index))
        value.unpack.targets[value.index] = unpack
    elif isinstance(value, si.Chain):  # ``a = b, c = v``: unpacking after plain targets
        unpack = si.Unpack(value.value, count, star, chained=value.targets)
    else:
        unpack = si.Unpack(as_expr(value), count, star)
    for i in reversed(range(count)):
        f.push(si.Slot(unpack, i))
