"""Function and method calls: positional, keyword, star and double-star arguments."""
from tests.cases.registry import case, call


def collect(*args, **kwargs):
    return args, kwargs


def three(a, b=2, *, c=3):
    return a, b, c


@case((1, 2), ("x", None))
def call_positional_and_keyword(a, b):
    return [
        collect(),
        collect(a),
        collect(a, b),
        collect(a, key=b),
        collect(x=a, y=b),
        collect(b, a, z=None),
        three(a),
        three(a, b),
        three(a, c=b),
        three(b=a, a=b),
    ]


@case(([1, 2], {"k": 3}), ([], {}))
def call_star_args_and_kwargs(lst, d):
    return [
        collect(*lst),
        collect(**d),
        collect(*lst, **d),
        collect(0, *lst),
        collect(0, *lst, 9),
        collect(*lst, *lst),
        collect(*lst, k2=1, **d),
        collect(**d, k2=2),
        collect(**d, **{"other": 1}),
        collect(*lst, 5, *(6, 7), a=1, **d),
        collect(*"ab", *range(2)),
        collect(k0=0, **d, k9=9),
    ]


@case(({"k": 1},), ({"j": 1},))
def call_duplicate_keyword_error(d):
    return collect(k=0, **d)


@case(({"a": 1}, {"a": 2}), ({"a": 1}, {"b": 2}))
def call_duplicate_in_two_mappings(d1, d2):
    return collect(**d1, **d2)


@case((3,))
def call_result_of_call(n):
    def make_adder(k):
        def add(x):
            return x + k

        return add

    table = {"neg": lambda v: -v, "sq": lambda v: v * v}
    return [
        make_adder(n)(10),
        (lambda x: x * 2)(n),
        [len, abs][1](-n),
        table["sq"](n),
        table.get("neg")(n),
        getattr("abc", "upper")(),
        make_adder(1)(make_adder(2)(n)),
    ]


@case(("  Hello World  ",), ("x",))
def chained_method_calls(s):
    return s.strip().lower().replace("o", "0").split(" ")


@case(([3, -1, 2],), ([],))
def generator_expression_as_argument(lst):
    return [
        sum(x * x for x in lst),
        tuple(x for x in lst if x > 0),
        max((x for x in lst), default=None),
        sorted((abs(x) for x in lst), reverse=True),
        "-".join(str(x) for x in lst),
        any(x < 0 for x in lst),
        all(x for x in lst),
    ]


@case(([3, -1, 2], True), ([5, 4], False))
def keyword_argument_expressions(lst, flag):
    return sorted(lst, key=lambda t: (t % 2, -t), reverse=flag), min(lst, key=abs), dict(a=1, b=flag)


@case((1,), (-2,))
def nested_calls(x):
    def f(a, b=0):
        return a * 10 + b

    def g(a):
        return a + 1

    return f(g(f(x)), b=g(g(x))), f(f(f(x, 1), 2), f(x))


@case((0,))
def argument_evaluation_order(start):
    log = []

    def v(tag):
        log.append(tag)
        return tag

    result = collect(v("p1"), *[v("s1")], v("p2"), k=v("k"), **{v("dk"): v("dv")})
    return result, log


@case()
def many_arguments():
    r = collect(
        1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20,
        a=1, b=2, c=3, d=4, e=5, f=6, g=7, h=8, i=9, j=10, k=11, l=12,
    )
    return len(r[0]), sorted(r[1].items())


@case(("abc",))
def call_unbound_methods_and_builtins(s):
    return [str.upper(s), list.__len__([1, 2]), dict.fromkeys(s, 0), int("ff", 16), int(base=2, x="101"), divmod(17, 5), isinstance(s, (int, str))]


@case((1,), (1, 2), call(a=1), call(1, a=2))
def call_arity_errors(*args, **kwargs):
    def one(a):
        return a

    return one(*args, **kwargs)


@case((5,), ("x",))
def call_non_callable(v):
    return v()


@case((2,))
def call_methods_through_objects(n):
    class Counter:
        def __init__(self, start):
            self.n = start

        def bump(self, by=1, *, times=1):
            self.n += by * times
            return self

        def get(self):
            return self.n

    c = Counter(n)
    first = c.bump().bump(3).bump(by=2, times=4).get()
    m = c.bump
    m(times=2)
    return first, c.get(), Counter(0).bump(*[5]).get(), Counter(**{"start": 9}).get()


@case(call(1, 2, 3, x=4), call())
def forward_all_arguments(*args, **kwargs):
    def inner(*a, **k):
        return collect(*a[::-1], **{key.upper(): val for key, val in k.items()})

    return inner(*args, **kwargs), inner(0, *args, y=5, **kwargs)


@case(([1, 2], {"k": 3}, {"j": 4}), ([], {}, {}))
def method_call_with_several_stars(lst, d1, d2):
    class C:
        def m(self, *args, **kw):
            return args, sorted(kw.items())

    c = C()
    return c.m(*lst, 0, *lst, a=1, **d1, **d2), c.m(**d1, x=1, **d2), c.m(*lst, *d1)


@case((1, 2, 3), (0, -1, 5))
def arguments_spread_over_lines(a, b, c):
    # 3.13 fuses two LOAD_FASTs only on one line: the text breaks its lines where these did
    x = (a +
         b)
    if (a and
            b):
        x += c
    return collect(a,
                   b, c), [x,
                           c], {a: b,
                                c: x}
