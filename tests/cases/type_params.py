"""PEP 695 type parameters: generic functions, classes and type aliases."""
MIN_VERSION = (3, 12)

from tests.cases.registry import case


def describe(params):
    """Type parameters as comparable text (each definition makes new objects)."""
    out = []
    for p in params:
        bound = getattr(p, "__bound__", None)
        constraints = getattr(p, "__constraints__", ())
        out.append((type(p).__name__, p.__name__, getattr(bound, "__name__", bound),
                    [getattr(c, "__name__", c) for c in constraints]))
    return out


@case((1,), (5,))
def generic_function_kinds(x):
    def ident[T: int, S: (str, bytes), *Ts, **P](a: T, b: S = "b", *rest: *Ts, c=x, **kw: P.kwargs) -> T:
        return a
    tp = ident.__type_params__
    return ident(x), describe(tp), ident.__defaults__, ident.__kwdefaults__, sorted(ident.__annotations__)


@case((1,), (0,))
def generic_function_closure_and_decorator(n):
    seen = []

    def record(fn):
        seen.append(fn.__name__)
        return fn

    @record
    def scaled[T](v: T) -> list[T]:
        return [v] * n
    return scaled("a"), seen, scaled.__name__, scaled.__qualname__.split(".")[-1], describe(scaled.__type_params__)


@case((2,), (3,))
def generic_class_with_base_and_keyword(k):
    class Meta(type):
        def __new__(mcls, name, bases, ns, tag=None):
            cls = super().__new__(mcls, name, bases, ns)
            cls.tag = tag
            return cls

    class Base:
        def twice(self, v):
            return v * 2

    class Box[T: (int, str)](Base, metaclass=Meta, tag="box"):
        size = k

        def __init__(self, item: T):
            self.item = item

        def twice(self, v: T) -> T:
            return super().twice(v) + self.size

    b = Box(k)
    return (b.twice(k), Box.tag, describe(Box.__type_params__), [c.__name__ for c in Box.__mro__],
            len(Box.__orig_bases__), Box[int].__args__[0].__name__)


@case((1,), (4,))
def generic_methods_and_aliases_in_class(v):
    class Holder:
        unit = v
        type Pair[K] = tuple[K, K]
        type Unit = unit

        def pick[T](self, a: T, b: T) -> T:
            return a if a >= b else b

        @classmethod
        def make[U: int](cls, value: U) -> "Holder":
            h = cls()
            h.value = value
            return h

    h = Holder.make(v)
    return (h.pick(v, 2), h.value, Holder.Unit.__value__, Holder.Pair.__name__,
            describe(Holder.Pair.__type_params__), describe(Holder.pick.__type_params__),
            describe(Holder.make.__func__.__type_params__))


@case((3,), (0,))
def type_alias_lazy_and_generic(n):
    type Later = Missing
    type Grid[T, *Shape] = dict[T, tuple[*Shape]]
    type Plain = int | str
    try:
        later = Later.__value__
    except NameError as exc:
        later = "NameError"
    return (later, Grid.__name__, describe(Grid.__type_params__), repr(Plain.__value__),
            Grid[int, str].__args__ == (int, str), n)


@case((1,), (2,))
def generic_nested_in_generic(x):
    class Outer[T]:
        def method[S](self, a: T, b: S) -> tuple[T, S]:
            def inner[R: Outer](c: R) -> R:
                return c
            return inner((a, b)), describe(inner.__type_params__)

    o = Outer()
    return o.method(x, "s"), describe(Outer.method.__type_params__), describe(Outer.__type_params__)


@case((1,), (2,))
def generic_async_and_generator(n):
    async def fetch[T](v: T) -> T:
        return v

    def count[T](limit: T):
        yield from range(limit)

    coro = fetch(n)
    try:
        coro.send(None)
    except StopIteration as stop:
        got = stop.value
    return got, list(count(n)), describe(fetch.__type_params__), describe(count.__type_params__)


@case((1,), (2,))
def generic_bound_reads_closure(n):
    kinds = [int, str]

    def pick[T: kinds[0], U: (kinds[1], bytes)](a: T, b: U) -> T:
        return a
    kinds[0] = float
    return pick(n, "x"), describe(pick.__type_params__), pick.__type_params__[0].__bound__.__name__


@case((1,), ("a",))
def generic_reading_its_own_global_name[T, *Ts](x: T, *rest: *Ts) -> T:
    # on its own a generic function is written inside ``def __enclosing_scope__():``, which
    # binds its type parameters and so also its name: the read of the module's binding of
    # that name read the def's local there (a free variable more, refused); it is declared global
    return x, T.__name__, [p.__name__ for p in generic_reading_its_own_global_name.__type_params__], rest
