"""Live objects written as source, for a function object's signature: its defaults
and annotations, which a code object alone does not have.

A value is written, in this order of preference, as a literal; as a lambda of the
function's module that closes over nothing; as a name of the function's globals
or the builtins that is that very object, or a dotted path to it through a
module its globals name (``collections.OrderedDict``) or, for a class nested in
one of its own module, through that class (``Box.Inner``); as a ``typing`` or
built-in generic rebuilt from its origin and arguments (``Optional[int]``,
``list[str]``, ``int | None``, ``Callable[[int], str]``), its parts written the
same way.  Anything else is a bound placeholder.  Never a name of the function's
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

_MISSING = object()


class SignatureValues:
    """Writes the values of one function object's signature."""

    def __init__(self, func, bindings, context):
        self.func = func
        self.scope = func.__globals__
        self.bindings = bindings
        self.context = context   # (v, func, bindings) -> the lambda expression of ``v``

    def expr(self, v):
        """``v`` as an expression: its source form, else a bound placeholder."""
        node = self.written(v)
        return node if node is not None else si.name(self.bindings.name_for(v))

    def written(self, v):
        """``v``'s source form, or None if it has none."""
        if is_literal(v):
            return si.const(v)
        if self._inline_lambda(v):
            try:
                return self.context(v, self.func, self.bindings)
            except DecompilationError:
                pass    # a lambda the decompiler refuses is bound like any other object
        named = self.named(v)
        return named if named is not None else self._generic(v)

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
