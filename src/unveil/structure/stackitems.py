"""Values on the simulated stack that are not plain expressions, and ast helpers."""
import ast
from keyword import iskeyword

from ..errors import DecompilationError


class Marker:
    """Base of stack values that stand for interpreter state, not source."""

    def __repr__(self):
        return "<%s>" % type(self).__name__


class Null(Marker):
    """The NULL that 3.11+ pushes before a callable (or after, in 3.13)."""


NULL = Null()


class Iter(Marker):
    """An iterator from GET_ITER / GET_AITER; ``expr`` is what was iterated."""

    def __init__(self, expr, is_async=False):
        self.expr = expr
        self.is_async = is_async


class LoopItem(Marker):
    """The value FOR_ITER pushes; storing it gives the loop target."""


class AsyncItem(Marker):
    """The awaited value of GET_ANEXT in ``async for``."""


class Exc(Marker):
    """The exception being handled (at an except handler's entry)."""


class PrevExc(Marker):
    """The previous exception saved by PUSH_EXC_INFO."""


class WithExit(Marker):
    """The bound ``__exit__`` BEFORE_WITH pushes."""

    def __init__(self, ctx, is_async=False):
        self.ctx = ctx
        self.is_async = is_async


class WithValue(Marker):
    """The ``__enter__`` result; storing it gives the ``as`` target."""

    def __init__(self, exit_marker):
        self.exit = exit_marker


class Saved(Marker):
    """A local saved by LOAD_FAST_AND_CLEAR around an inlined comprehension."""

    def __init__(self, name):
        self.name = name


class Awaitable(Marker):
    """GET_AWAITABLE's result: YIELD_FROM of it is ``await``."""

    def __init__(self, expr):
        self.expr = expr


class CodeConstant(Marker):
    """A code object from ``LOAD_CONST``: what ``MAKE_FUNCTION`` makes a function of.
    Used as a value (Dynamo passes one to the helper that makes a closure), it is an
    object with no source form: a name bound to it."""

    def __init__(self, code, bindings):
        self.code = code
        self.bindings = bindings

    def expr(self):
        return name(self.bindings.name_for(self.code))


class BuildClass(Marker):
    """LOAD_BUILD_CLASS: calling it defines a class."""


class Definition(Marker):
    """A function or class not yet stored: a ``def``/``class`` statement or a lambda."""

    def expr(self):
        raise DecompilationError("%s used as a value, not stored" % type(self).__name__)

    def note_decorator_lines(self, notes, node):
        """Note the original lines of the decorators of ``node`` (the def or class statement
        this makes: its ``decorator_lines``) and of its ``def`` or ``class`` below them
        (its ``head_line``), where known."""
        if node.decorator_list and self.head_line is not None:
            notes.decorator_lines.set(node, (tuple(self.decorator_lines), self.head_line))


class Function(Definition):
    """A function object under construction by MAKE_FUNCTION."""

    def __init__(self, code, defaults=None, kwdefaults=None, annotations=None, closure=None):
        self.code = code
        self.defaults = defaults
        self.kwdefaults = kwdefaults
        self.annotations = annotations
        self.closure = closure
        self.ctx = None  # the context of the code making it, which decompiles nested code
        self.decorators = []
        self.decorator_lines = []   # per decorator, its original line (None: not known)
        self.head_line = None       # the original line of ``def``, below its decorators

    def expr(self):
        if self.code.co_name == "<lambda>":
            return self.ctx.lambda_value(self)
        return super().expr()


class TypeParam(Definition):
    """A PEP 695 type parameter made in a generic scope (3.12+); ``kind`` is the
    ``ast`` class name, ``bound`` and ``default`` the functions evaluating them lazily."""

    def __init__(self, ctx, kind, name, bound=None):
        self.ctx = ctx
        self.kind = kind
        self.name = name
        self.bound = bound
        self.default = None

    def expr(self):
        return self.ctx.type_param_node(self)


class TypeAlias(Definition):
    """``type name[params] = value`` (3.12+) not yet stored; ``value`` is the
    function evaluating it lazily."""

    def __init__(self, name, params, value):
        self.name = name
        self.params = params
        self.value = value
        self.decorators = []


class Unpack:
    """One UNPACK_SEQUENCE/UNPACK_EX: collects targets slot by slot."""

    def __init__(self, value, count, star, parent=None, chained=()):
        self.value = value
        self.targets = [None] * count
        self.star = star
        self.parent = parent
        self.chained = list(chained)  # earlier targets of ``a = b, c = v``

    def complete(self):
        return all(t is not None and (not isinstance(t, Unpack) or t.complete())
                   for t in self.targets)

    def node(self):
        elts = []
        for i, t in enumerate(self.targets):
            t = t.node() if isinstance(t, Unpack) else t
            if i == self.star:
                t = ast.Starred(value=t, ctx=ast.Store())
            elts.append(t)
        return ast.Tuple(elts=elts, ctx=ast.Store())

    def root(self):
        u = self
        while u.parent is not None:
            u = u.parent[0]
        return u


class Slot(Marker):
    """One element of an :class:`Unpack`, waiting for its target."""

    def __init__(self, unpack, index):
        self.unpack = unpack
        self.index = index


class Chain(Marker):
    """A stored value still on the stack: ``a = b = v`` or ``(a := v)``."""

    def __init__(self, targets, value):
        self.targets = targets
        self.value = value
        self._built = None

    def expr(self):
        """The named expressions, one node however often the chain is read: a copy
        of ``(g := v)`` compared twice is a chained comparison's middle operand
        (``1 < (g := v) < n``), which must be the same node to join the chain."""
        key = (id(self.value), tuple(id(t) for t in self.targets))
        if self._built is not None and self._built[0] == key:
            return self._built[1]
        node = self.value
        for t in self.targets:
            if not isinstance(t, ast.Name):   # ``(a.b := v)`` is no Python: a copy of Dynamo's
                raise DecompilationError("a value stored into %s is used again as an expression"
                                         % type(t).__name__.lower())
            node = ast.NamedExpr(target=t, value=node)
        self._built = (key, node)
        return node

    def was_read(self):
        """Whether :meth:`expr` handed out the named expressions as they stand: the
        expression that read a copy of the chain stores its targets."""
        return self._built is not None \
            and self._built[0] == (id(self.value), tuple(id(t) for t in self.targets))


class ExcMatch(ast.expr):
    """Condition ``exception matches <type>`` (except clause head)."""

    _fields = ("type", "star")


class Appended(ast.stmt):
    """LIST_APPEND / SET_ADD / MAP_ADD into a comprehension accumulator."""

    _fields = ("target", "value", "key")


class Discard(ast.stmt):
    """POP_TOP of a marker: a loop item, with value or exception left unbound."""

    _fields = ("value",)


class ExcEnd(ast.stmt):
    """POP_EXCEPT: the end of an except clause body."""

    _fields = ()


class WithEnd(ast.stmt):
    """The normal-exit call of a with statement's ``__exit__``."""

    _fields = ("exit",)


#: the contexts, shared as CPython's parser shares them (they hold nothing)
_LOAD, _STORE = ast.Load(), ast.Store()


def name(id_, store=False):
    return ast.Name(id_, _STORE if store else _LOAD)


def const(value):
    return ast.Constant(value=value, kind=None)


def keyword_argument(key, value):
    """``key=value`` in a call; ``**{'key': value}`` where ``key`` cannot be written so
    (Dynamo passes ``from=`` to ``Tensor.random_``: a reserved word)."""
    if key.isidentifier() and not iskeyword(key):
        return ast.keyword(arg=key, value=value)
    return ast.keyword(arg=None, value=ast.Dict(keys=[const(key)], values=[value]))


def no_arguments():
    """The ``ast.arguments`` of a function or lambda without parameters."""
    return ast.arguments(posonlyargs=[], args=[], vararg=None, kwonlyargs=[], kw_defaults=[], kwarg=None,
                         defaults=[])


def is_expr(value):
    return isinstance(value, ast.expr) and not isinstance(value, ExcMatch)


def negate(test):
    """``not test``, simplified (double negation, De Morgan, inverted comparisons)."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return test.operand
    if isinstance(test, ast.BoolOp):
        op = ast.Or() if isinstance(test.op, ast.And) else ast.And()
        return ast.BoolOp(op=op, values=[negate(v) for v in test.values])
    if isinstance(test, ast.IfExp):
        return ast.IfExp(test=test.test, body=negate(test.body), orelse=negate(test.orelse))
    if isinstance(test, ast.Compare) and len(test.ops) == 1:
        inv = INVERSE.get(type(test.ops[0]))
        if inv is not None:
            return ast.Compare(left=test.left, ops=[inv()], comparators=test.comparators)
    return ast.UnaryOp(op=ast.Not(), operand=test)


INVERSE = {ast.Is: ast.IsNot, ast.IsNot: ast.Is, ast.In: ast.NotIn, ast.NotIn: ast.In}


def boolop(op, left, right):
    """``left and right`` (or ``or``), flattening nested chains of the same kind."""
    values = []
    for v in (left, right):
        if isinstance(v, ast.BoolOp) and isinstance(v.op, type(op)):
            values.extend(v.values)
        else:
            values.append(v)
    return ast.BoolOp(op=op, values=values)


def as_expr(value):
    """The expression a stack value stands for (chains and definitions unwrapped)."""
    if isinstance(value, (Chain, Definition, CodeConstant)):
        return value.expr()
    return value


def same_stack(a, b):
    """Whether two stacks hold the very same values, in the same order."""
    return len(a) == len(b) and all(x is y for x, y in zip(a, b))
