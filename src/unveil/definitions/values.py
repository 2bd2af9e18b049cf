"""Live objects written as source, for a function object's signature: its defaults
and annotations, which a code object alone does not have.

A value is written, in this order of preference, as a literal; as a lambda of the
function's module that closes over nothing; as a name of the function's globals
or the builtins that is that very object, or a dotted path to it through a
module its globals name (``collections.OrderedDict``) or, for a class nested in
one of its own module, through that class (``Box.Inner``); as a ``typing`` or
built-in generic rebuilt from its origin and arguments (``Optional[int]``,
``list[str]``, ``int | None``, ``Callable[[int], str]``), its parts written the
same way; as the display of a list, tuple, dict or set (exactly those types) whose
items are all written so, a set's sorted (:func:`_set_order`), an empty set as
``set()`` where that name is the built-in.  Anything else is a bound placeholder,
and ``Bindings.described`` says what it is and why it is bound: no literal makes
it (an object, a subclass of list), a display would not make that very object
(a list that contains itself, one list held twice), or it is too long to write
out (more than :data:`DISPLAY_ITEMS_MAX` items).  Never a name of the function's
free variables: a closure decompiled on its own is written where those are
locals.
"""
import ast
import builtins
import keyword
import sys
import types
import typing

from ..errors import DecompilationError
from ..structure import stackitems as si
from ..syntax.unparse import unparse

_MISSING = object()

#: a list, tuple, dict or set holding more items than this (nested ones counted) is bound, not written out
DISPLAY_ITEMS_MAX = 100

#: the containers written as displays: exactly these types (a subclass would come back as the base)
_DISPLAYS = (list, tuple, dict, set)
_MUTABLE_DISPLAYS = (list, dict, set)


class _Refusal:
    """Why a value is bound rather than written: ``why``, said of the value the
    placeholder stands for (``no literal makes it``, ``it contains itself``)."""

    def __init__(self, why):
        self.why = why


class _Walk:
    """One value being written as a display: ``top``, the containers ``open`` on the
    way down (one met again is a cycle), the mutable ones ``met`` (one met twice
    would be two after a display), and the ``items`` so far."""

    def __init__(self, top):
        self.top = top
        self.open = set()
        self.met = set()
        self.items = 0


class SignatureValues:
    """Writes the values of one function object's signature."""

    def __init__(self, func, bindings, context):
        self.func = func
        self.scope = func.__globals__
        self.bindings = bindings
        self.context = context   # (v, func, bindings) -> the lambda expression of ``v``

    def expr(self, v, role):
        """``v`` as an expression: its source form, else a bound placeholder, which
        ``bindings.described`` explains as ``role`` (``the default of key``), what
        ``v`` is and why it is bound."""
        node = self._write(v, _Walk(v))
        if not isinstance(node, _Refusal):
            return node
        ident = self.bindings.name_for(v)
        self.bindings.described.setdefault(ident, "%s, %s (%s)" % (role, what_it_is(v), node.why))
        return si.name(ident)

    def written(self, v):
        """``v``'s source form, or None if it has none."""
        node = self._write(v, _Walk(v))
        return None if isinstance(node, _Refusal) else node

    def _write(self, v, walk):
        """``v``'s source form, or a :class:`_Refusal` saying why it has none."""
        if is_literal(v):
            return si.const(v)
        if self._inline_lambda(v):
            try:
                return self.context(v, self.func, self.bindings)
            except DecompilationError:
                pass    # a lambda the decompiler refuses is bound like any other object
        named = self.named(v)
        if named is not None:
            return named
        if type(v) in _DISPLAYS:
            return self._display(v, walk)
        generic = self._generic(v)
        if generic is not None:
            return generic
        base = next((t for t in _DISPLAYS if isinstance(v, t)), None)
        return _Refusal("a literal would make a plain %s" % base.__name__ if base is not None
                        else "no literal makes it")

    # -- displays ------------------------------------------------------------------
    def _display(self, v, walk):
        """The list, tuple, dict or set ``v`` as its display, its items written as
        :meth:`_write` writes them; a :class:`_Refusal` where the display would not
        be ``v`` (a cycle, a mutable item held twice), is too long, or an item has
        no source form."""
        kind = type(v)
        if id(v) in walk.open:
            return _Refusal("it contains itself" if v is walk.top else "a %s in it contains itself" % kind.__name__)
        if kind in _MUTABLE_DISPLAYS:
            if id(v) in walk.met:
                return _Refusal("it holds one %s twice: a literal would make two" % kind.__name__)
            walk.met.add(id(v))
        walk.items += len(v)
        if walk.items > DISPLAY_ITEMS_MAX:
            return _Refusal("more than %d items in all: too many to write out" % DISPLAY_ITEMS_MAX)
        walk.open.add(id(v))
        try:
            parts = []
            for item in (x for pair in v.items() for x in pair) if kind is dict else v:
                node = self._write(item, walk)
                if isinstance(node, _Refusal):
                    return node if type(item) in _DISPLAYS \
                        else _Refusal("it holds %s: %s" % (what_it_is(item), node.why))
                parts.append((item, node))
        finally:
            walk.open.discard(id(v))
        nodes = [node for _, node in parts]
        if kind is dict:
            return ast.Dict(keys=nodes[0::2], values=nodes[1::2])
        if kind is list:
            return ast.List(elts=nodes, ctx=ast.Load())
        if kind is tuple:
            return ast.Tuple(elts=nodes, ctx=ast.Load())
        if parts:
            return ast.Set(elts=[node for _, node in sorted(parts, key=_set_order)])
        empty = self.named(set)
        if not (isinstance(empty, ast.Name) and empty.id == "set"):
            return _Refusal("no display makes an empty set, and set is not the built-in here")
        return ast.Call(func=empty, args=[], keywords=[])

    # -- names -------------------------------------------------------------------
    def _usable(self, ident):
        return isinstance(ident, str) and ident.isidentifier() and not keyword.iskeyword(ident) \
            and ident not in self.func.__code__.co_freevars

    def named(self, v):
        """A name of the globals or the builtins that is ``v``, or a dotted path to it."""
        ident = getattr(v, "__name__", None)
        if self._usable(ident):
            in_globals = self.scope.get(ident, _MISSING)
            if in_globals is v or (in_globals is _MISSING and getattr(builtins, ident, _MISSING) is v):
                return si.name(ident)
        for ident, g in self.scope.items():
            if g is v and self._usable(ident):
                return si.name(ident)
        return self._dotted(v)

    def _dotted(self, v):
        """``m.A.b``: ``m`` a name the globals give ``v``'s module, ``A.b`` its path there
        (its qualified name; a ``typing`` special form's name)."""
        module = sys.modules.get(getattr(v, "__module__", None) or "")
        path = getattr(v, "__qualname__", None)
        if not isinstance(path, str) and module is typing:
            path = getattr(v, "_name", None)
        if module is None or not isinstance(path, str) or not all(p.isidentifier() for p in path.split(".")):
            return None
        target = module
        for part in path.split("."):
            target = getattr(target, part, _MISSING)
        if target is not v:
            return None
        parts = path.split(".")
        if getattr(module, "__dict__", None) is self.scope and self._usable(parts[0]):
            return _attributes(si.name(parts[0]), parts[1:])      # a class nested in one of the module
        for ident, g in self.scope.items():
            if g is module and self._usable(ident):
                return _attributes(si.name(ident), parts)
        return None

    def _inline_lambda(self, v):
        return isinstance(v, types.FunctionType) and v.__code__.co_name == "<lambda>" and v.__closure__ is None \
            and v.__globals__ is self.scope

    # -- generics ------------------------------------------------------------------
    def _generic(self, v):
        """A ``typing`` or built-in generic as its head subscripted with its arguments."""
        kind = (type(v).__module__, type(v).__name__)
        origin, args = typing.get_origin(v), typing.get_args(v)
        if origin is None:
            return None
        if kind == ("types", "UnionType"):
            parts = [self._argument(a) for a in args]
            if None in parts:
                return None
            node = parts[0]
            for p in parts[1:]:
                node = ast.BinOp(left=node, op=ast.BitOr(), right=p)
            return node
        if kind == ("types", "GenericAlias"):
            head = self.written(origin)
        elif kind[0] != "typing":
            return None
        elif origin is typing.Union and len(args) == 2 and type(None) in args:
            head, args = self.named(typing.Optional), [a for a in args if a is not type(None)]
            if head is None:
                head, args = self.named(typing.Union), typing.get_args(v)
        elif origin is typing.Union:
            head = self.named(typing.Union)
        elif origin is getattr(typing, "Literal", _MISSING):
            head = self.named(origin)
        else:
            name = getattr(v, "_name", None)
            head = self.named(getattr(typing, name, _MISSING)) if isinstance(name, str) else None
        parts = [self._argument(a) for a in args]
        if head is None or None in parts:
            return None
        index = parts[0] if len(parts) == 1 else ast.Tuple(elts=parts, ctx=ast.Load())
        if not parts:             # Tuple[()]
            index = ast.Tuple(elts=[], ctx=ast.Load())
        return ast.Subscript(value=head, slice=index, ctx=ast.Load())

    def _argument(self, a):
        """One argument of a generic: a type, ``...``, ``None``, a forward reference's
        text, the ``()`` of ``Tuple[()]``, or a ``Callable``'s list of parameters."""
        if a is Ellipsis or a is None or a is type(None):
            return si.const(None if a is type(None) else a)
        if isinstance(a, typing.ForwardRef):
            return si.const(a.__forward_arg__)
        if a == ():
            return ast.Tuple(elts=[], ctx=ast.Load())
        if isinstance(a, list):
            parts = [self._argument(x) for x in a]
            return None if None in parts else ast.List(elts=parts, ctx=ast.Load())
        return self.written(a)


def _set_order(item):
    """Where a set's item goes in its display: by type, then value (a number, a string
    or bytes), else text; never by the set's own order, which follows the process's
    string hashing (the same function must give the same text in every run)."""
    value, node = item
    t = type(value)
    return (t.__name__, value, "") if t in (int, float, str, bytes) else (t.__name__, 0, unparse(node))


def what_it_is(v):
    """``v`` in a few words: ``a list of 2 items``, ``an object instance``, ``function f``."""
    t = type(v)
    if t in _DISPLAYS:
        n = len(v)
        return "an empty %s" % t.__name__ if not n else "a %s of %d item%s" % (t.__name__, n, "s" * (n != 1))
    if isinstance(v, types.FunctionType):
        return "function %s" % v.__qualname__
    if isinstance(v, type):
        return "class %s" % _type_name(v)
    if isinstance(v, types.ModuleType):
        return "module %s" % v.__name__
    named = _type_name(t)
    return "%s %s instance" % ("an" if named[:1].lower() in "aeiou" else "a", named)


def _type_name(t):
    """A type's qualified name, its module before it unless it is a built-in."""
    module = getattr(t, "__module__", None)
    return t.__qualname__ if module in ("builtins", None) else "%s.%s" % (module, t.__qualname__)


def _attributes(node, names):
    for attr in names:
        node = ast.Attribute(value=node, attr=attr, ctx=ast.Load())
    return node


LITERALS = (int, float, complex, str, bytes, bool, type(None), type(Ellipsis))


def is_literal(value):
    """Whether a constant has a literal form: exactly one of the literal types (an
    ``IntEnum`` member is an int, but ``1`` would not be it), or a tuple or
    frozenset of literals."""
    t = type(value)
    if t in LITERALS:
        return True
    if t is tuple or t is frozenset:
        return all(is_literal(v) for v in value)
    return False
