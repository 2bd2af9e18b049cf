"""Function definitions: parameters of every kind, decorators, lambdas, closures, scopes."""
import functools

from tests.cases.registry import case, call

STATE = 0
REGISTRY = []


@case((1,), (1, 5), (1, 5, "z"))
def default_arguments(a, b=2, c="c"):
    return a, b, c


@case()
def inner_function_defaults_evaluated_once():
    calls = []

    def default():
        calls.append("evaluated")
        return []

    def f(x, acc=default()):
        acc.append(x)
        return list(acc)

    return f(1), f(2), f(3, []), calls


@case(call(1, b=2), call(1, 2, 3, b=4, c=5), call(1))
def keyword_only_arguments(a, *args, b=10, c=None):
    return a, args, b, c


@case(call(1, 2), call(1, b=2), call(a=1, b=2))
def positional_only_arguments(a, /, b):
    return a * 10 + b


@case((1, 2, 3), (1,), call(1, x=2, y=3))
def star_args_and_star_kwargs(first, *rest, **named):
    return first, rest, sorted(named.items())


@case()
def all_parameter_kinds_inner():
    def f(a, b=2, /, c=3, *args, d, e=5, **kw):
        return a, b, c, args, d, e, kw

    return [
        f(1, d=4),
        f(1, 20, 30, 40, 50, d=4, z=9),
        f(1, c=7, d=8, e=9, b=2),
    ]


@case(call(1, 2), call(1, 2, 3), call(1, b=2))
def positional_only_error_path(*args, **kwargs):
    def f(a, b, /, c=0):
        return a + b + c

    return f(*args, **kwargs)


@case()
def keyword_only_missing_error():
    def f(*, needed):
        return needed

    try:
        return f()
    except TypeError as e:
        return "TypeError", "needed" in str(e), f(needed=1)


@case((3,),)
def simple_decorator_inside(n):
    def double(fn):
        def wrapper(*args, **kwargs):
            return fn(*args, **kwargs) * 2

        return wrapper

    @double
    def value(x):
        return x + 1

    return value(n), value.__name__


@case((3,),)
def stacked_decorators_with_arguments(n):
    log = []

    def tag(name):
        def deco(fn):
            @functools.wraps(fn)
            def wrapper(*a):
                log.append(name)
                return "%s(%s)" % (name, fn(*a))

            return wrapper

        return deco

    @tag("outer")
    @tag("inner")
    def base(x):
        """Docstring kept by wraps."""
        return x * n

    return base(2), log, base.__name__, base.__doc__


@case()
def decorator_registering_functions():
    registered = {}

    def register(key):
        def deco(fn):
            registered[key] = fn
            return fn

        return deco

    @register("a")
    def first():
        return 1

    @register("b")
    def second():
        return 2

    return sorted((k, f()) for k, f in registered.items())


@case((2, 3), (0, 0))
def lambda_forms(a, b):
    add = lambda x, y: x + y  # noqa: E731
    defaulted = lambda x, y=10: x * y  # noqa: E731
    variadic = lambda *args, **kw: (args, sorted(kw))  # noqa: E731
    kwonly = lambda *, k=1: k  # noqa: E731
    nullary = lambda: "nothing"  # noqa: E731
    cond = lambda x: "pos" if x > 0 else "nonpos"  # noqa: E731
    nested = lambda x: lambda y: x - y  # noqa: E731
    return [add(a, b), defaulted(a), defaulted(a, b), variadic(a, b, z=1), kwonly(k=b), nullary(), cond(a), nested(a)(b)]


@case((5,),)
def closure_counter(n):
    def make_counter(start):
        count = start

        def inc(by=1):
            nonlocal count
            count += by
            return count

        def get():
            return count

        return inc, get

    inc, get = make_counter(n)
    inc()
    inc(10)
    return get(), inc(0)


@case((3,),)
def closures_in_loop_late_binding(n):
    late = []
    early = []
    for i in range(n):
        late.append(lambda: i)

        def capture(v=i):
            return v

        early.append(capture)
    return [f() for f in late], [f() for f in early]


@case((1,),)
def three_level_closure(x):
    def level1(a):
        def level2(b):
            def level3(c):
                return x + a * 10 + b * 100 + c * 1000

            return level3

        return level2

    return level1(2)(3)(4)


@case((2,), (-1,))
def nonlocal_rebinding_in_nested_functions(n):
    total = 0
    history = []

    def outer_step(k):
        def inner_step():
            nonlocal total
            total += k
            history.append(total)

        for _ in range(k if k > 0 else 1):
            inner_step()

    outer_step(n)
    outer_step(3)
    return total, history


@case((5,), (0,))
def global_statement_read_write(n):
    global STATE
    STATE = n
    STATE += 1
    before = STATE

    def bump():
        global STATE
        STATE *= 2

    bump()
    return before, STATE


@case()
def global_created_inside_function():
    global CREATED_BY_CASE
    CREATED_BY_CASE = "made"
    value = globals()["CREATED_BY_CASE"]
    del CREATED_BY_CASE
    return value, "CREATED_BY_CASE" in globals()


@case((4,), (0,))
def recursive_inner_function(n):
    def fact(k):
        return 1 if k <= 1 else k * fact(k - 1)

    def fib(k, memo={}):
        if k in memo:
            return memo[k]
        r = k if k < 2 else fib(k - 1) + fib(k - 2)
        memo[k] = r
        return r

    return fact(n), fib(n * 3)


@case()
def mutually_recursive_inner_functions():
    def is_even(k):
        return True if k == 0 else is_odd(k - 1)

    def is_odd(k):
        return False if k == 0 else is_even(k - 1)

    return [is_even(i) for i in range(5)], is_odd(7)


@case()
def function_metadata():
    def documented(a, b=1, *args, c, d=4, **kw) -> "ret":
        """I have a doc."""
        return a

    def undocumented(x: int, y: "str" = "s"):
        pass

    return (
        documented(1, c=2),
        documented.__name__,
        documented.__doc__,
        documented.__defaults__,
        documented.__kwdefaults__,
        documented.__code__.co_argcount,
        documented.__code__.co_kwonlyargcount,
        undocumented.__doc__,
        undocumented(1),
        sorted(k for k in undocumented.__annotations__),
        documented.__annotations__["return"],
    )


@case((1, 2), (3, 4))
def function_annotations_evaluated(a, b):
    def f(x: a + b, *, y: [a] = None) -> b * 2:
        return x

    ann = f.__annotations__
    return f(a), ann["x"], ann["y"], ann["return"]


@case((10,),)
def closure_over_loop_variable_with_nonlocal_writer(n):
    def make():
        items = []

        def add(v):
            items.append(v)
            return len(items)

        def reset():
            nonlocal items
            old = items
            items = []
            return old

        return add, reset

    add, reset = make()
    for i in range(3):
        add(i * n)
    first = reset()
    add(-1)
    return first, reset()


@case(("x",),)
def function_returning_multiple_and_no_value(s):
    def nothing():
        pass

    def bare_return():
        return

    def multiple():
        return s, s * 2

    return nothing(), bare_return(), multiple()


@case((3,),)
def partial_and_higher_order(n):
    def power(base, exp):
        return base ** exp

    square = functools.partial(power, exp=2)
    apply_twice = lambda f, x: f(f(x))  # noqa: E731
    return square(n), apply_twice(square, n), list(map(lambda v: v + n, [1, 2])), list(filter(None, [0, n, ""]))


@case()
def decorator_with_state_and_class_based_decorator():
    class CountCalls:
        def __init__(self, fn):
            self.fn = fn
            self.calls = 0

        def __call__(self, *a, **k):
            self.calls += 1
            return self.fn(*a, **k)

    @CountCalls
    def hello(name="world"):
        return "hello " + name

    return hello(), hello("you"), hello.calls


@case((2,),)
def module_registry_global_append(n):
    global REGISTRY
    REGISTRY = []
    for i in range(n):
        REGISTRY.append(i)
    REGISTRY += ["end"]
    return list(REGISTRY)


@case((1,), (2,))
def lambdas_with_defaults_and_kwargs_in_comprehension(n):
    fs = [lambda x, k=k, **kw: (x + k, sorted(kw)) for k in range(n)]
    return [f(10, extra=True) for f in fs]


@case((4,), (3,))
def function_defined_conditionally(n):
    if n % 2:
        def f():
            return "odd"
    else:
        def f():
            return "even"
    return f()


@case((2,), (0,), (-1,))
def lambdas_returning_conditional_and_boolean_values(n):
    # 3.12+ copies the return into each arm of these expressions
    pick = lambda x: "pos" if x > 0 else ("zero" if x == 0 else "neg")
    both = lambda x: x and x * 10
    either = lambda x: x or "empty"
    maybe_none = lambda x: None if x else x
    return pick(n), both(n), either(n), maybe_none(n)


@case(([1, 0],), ([],), ([1, 2],), ([0],))
def lambdas_whose_arms_return_on_their_own(b):
    """pyparsing's ``indentedBlock`` (3.8/3.9): the peephole optimiser leaves each arm of
    ``(b and c) if b else None`` through a return of its own, and the ``and`` jumps
    straight to the last return with its value: a lambda's body came back as statements."""
    popped = lambda: (b.pop(-1) and None) if b else None  # noqa: E731
    kept = lambda c: (b and c) if b else None  # noqa: E731
    either = lambda c: (b or c) if c else (c and b)  # noqa: E731
    return kept(3), either(0), either(4), popped(), list(b)


@case((3,),)
def lambda_passed_to_a_call_is_not_a_decorator(n):
    def apply(f):
        return f(n)

    doubled = apply(lambda x: x * 2)
    keyed = sorted(range(n), key=lambda x: -x)
    return doubled, keyed


@case((5,),)
def nonlocal_declared_and_never_used(n):
    # types._cell_factory: ``nonlocal a`` alone makes f close over a; found by the module judge
    a = n

    def f():
        nonlocal a

    return f.__closure__[0].cell_contents, f.__code__.co_freevars



@case((1,), (5,))
def signature_on_the_line_below_its_def(n):
    # the names of the signature break their line from the def's own line
    def inner(
        a: n, b: int = ...,
    ) -> n:
        return a, b
    return inner(n), inner.__annotations__


def _scaler_factory(k):
    # a closure recompiled on its own (operator.attrgetter.__init__.<locals>.func): 3.8-3.10
    # load the qualified name of each function it makes as a constant, which says the
    # function it was defined in (``_scaler_factory.<locals>.scaled.<locals>.<genexpr>``)
    @case(([1, 2, 3],), ([],), same_bytecode=True)
    def scaled(items):
        def shift(x):
            return x + k
        return list(x * k for x in items), [shift(x) for x in items], scaled.__qualname__

    return scaled


_scaler_factory(3)


def _plain_factory():
    # the same for a function nested in another without closing over it (ast's
    # visit_Subscript.<locals>.is_simple_tuple making a genexpr)
    @case(([1, -2, 3],), ([],), same_bytecode=True)
    def positives(items):
        return any(x > 0 for x in items), sorted(items, key=lambda x: -x)

    return positives


_plain_factory()


@case((1,), same_bytecode=True)
def tuple_default_on_a_line_of_its_own(n):
    """rich/padding.py Padding.__init__: the defaults fold into ``((0, 0, 0, 0),)`` and a NOP
    keeps the line of the tuple's parameter; the parameter goes on that line, not a line
    break inside the tuple."""
    def padding(
        renderable: "str",
        pad: "tuple" = (0, 0, 0, 0),
        *,
        style: "str" = "none",
        expand: bool = True,
    ):
        return renderable, pad, style, expand

    return padding(n), padding.__annotations__


@case((1,), same_bytecode=True)
def signature_after_many_constants(n):
    """jinja2/filters.py sync_do_first (3.11): a def's folded annotations past the 256th
    constant, loaded after an EXTENDED_ARG that starts the line the LOAD_CONST is on (the
    line of ``def``, after the NOPs of the signature's lines)."""
    values = (
        n + 0, n + 1, n + 2, n + 3, n + 4, n + 5, n + 6, n + 7, n + 8, n + 9, n + 10, n + 11, n + 12, n + 13, n + 14, n + 15,
        n + 16, n + 17, n + 18, n + 19, n + 20, n + 21, n + 22, n + 23, n + 24, n + 25, n + 26, n + 27, n + 28, n + 29, n + 30, n + 31,
        n + 32, n + 33, n + 34, n + 35, n + 36, n + 37, n + 38, n + 39, n + 40, n + 41, n + 42, n + 43, n + 44, n + 45, n + 46, n + 47,
        n + 48, n + 49, n + 50, n + 51, n + 52, n + 53, n + 54, n + 55, n + 56, n + 57, n + 58, n + 59, n + 60, n + 61, n + 62, n + 63,
        n + 64, n + 65, n + 66, n + 67, n + 68, n + 69, n + 70, n + 71, n + 72, n + 73, n + 74, n + 75, n + 76, n + 77, n + 78, n + 79,
        n + 80, n + 81, n + 82, n + 83, n + 84, n + 85, n + 86, n + 87, n + 88, n + 89, n + 90, n + 91, n + 92, n + 93, n + 94, n + 95,
        n + 96, n + 97, n + 98, n + 99, n + 100, n + 101, n + 102, n + 103, n + 104, n + 105, n + 106, n + 107, n + 108, n + 109, n + 110, n + 111,
        n + 112, n + 113, n + 114, n + 115, n + 116, n + 117, n + 118, n + 119, n + 120, n + 121, n + 122, n + 123, n + 124, n + 125, n + 126, n + 127,
        n + 128, n + 129, n + 130, n + 131, n + 132, n + 133, n + 134, n + 135, n + 136, n + 137, n + 138, n + 139, n + 140, n + 141, n + 142, n + 143,
        n + 144, n + 145, n + 146, n + 147, n + 148, n + 149, n + 150, n + 151, n + 152, n + 153, n + 154, n + 155, n + 156, n + 157, n + 158, n + 159,
        n + 160, n + 161, n + 162, n + 163, n + 164, n + 165, n + 166, n + 167, n + 168, n + 169, n + 170, n + 171, n + 172, n + 173, n + 174, n + 175,
        n + 176, n + 177, n + 178, n + 179, n + 180, n + 181, n + 182, n + 183, n + 184, n + 185, n + 186, n + 187, n + 188, n + 189, n + 190, n + 191,
        n + 192, n + 193, n + 194, n + 195, n + 196, n + 197, n + 198, n + 199, n + 200, n + 201, n + 202, n + 203, n + 204, n + 205, n + 206, n + 207,
        n + 208, n + 209, n + 210, n + 211, n + 212, n + 213, n + 214, n + 215, n + 216, n + 217, n + 218, n + 219, n + 220, n + 221, n + 222, n + 223,
        n + 224, n + 225, n + 226, n + 227, n + 228, n + 229, n + 230, n + 231, n + 232, n + 233, n + 234, n + 235, n + 236, n + 237, n + 238, n + 239,
        n + 240, n + 241, n + 242, n + 243, n + 244, n + 245, n + 246, n + 247, n + 248, n + 249, n + 250, n + 251, n + 252, n + 253, n + 254, n + 255,
    )

    def first(
        environment: "dict", seq: "list"
    ) -> "int":
        return seq[0]

    return first({}, values), first.__annotations__
