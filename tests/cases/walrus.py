"""Assignment expressions (the walrus operator) in every position that allows them."""
from tests.cases.registry import case


@case(("hello",), ("",), ("a much longer string",))
def walrus_in_if(s):
    if (n := len(s)) > 10:
        return "long", n
    elif n:
        return "short", n
    return "empty", n


@case(([3, 1, 4, 1, 5],), ([],))
def walrus_in_while(items):
    it = iter(items)
    out = []
    while (x := next(it, None)) is not None:
        out.append(x * 2)
    return out, x


@case((6,),)
def walrus_in_comprehension_binds_outer(n):
    total = 0
    partial = [total := total + i for i in range(n)]
    last = None
    evens = [last := v for v in range(n) if v % 2 == 0]
    return partial, total, evens, last


@case(([1, 5, 12, 3, 20],), ([1, 2],))
def walrus_in_comprehension_filter(lst):
    def expensive(v):
        return v * 3

    return [(v, y) for v in lst if (y := expensive(v)) > 10]


@case(([1, 3, 8, 5],), ([1, 3],))
def walrus_capture_witness_in_any(lst):
    if any((witness := x) % 2 == 0 for x in lst):
        return "even found", witness
    return "all odd", witness


@case((4,),)
def walrus_in_call_arguments(n):
    def f(*args):
        return list(args)

    r = f(a := n + 1, a * 2, (b := a - n))
    return r, a, b


@case((0,), (1,), (7,), structured=True)
def walrus_in_ternary_and_boolops(x):
    r1 = (y := x * 2) if x else (y := -1)
    r2 = (z := x > 3) and (w := "big") or "small"
    return r1, y, r2, z


@case((3,),)
def walrus_nested(n):
    a = (b := (c := n + 1) * 2) + 1
    return a, b, c


@case((5,),)
def walrus_in_lambda_and_closure(n):
    f = lambda v: (sq := v * v) + sq  # noqa: E731
    results = []

    def inner():
        return [(k := i) for i in range(n)][-1] + (m := 100)

    results.append(inner())
    return f(n), results


@case((["a=1", "b=2", "bad", "c=3"],),)
def walrus_parsing_loop(lines):
    out = {}
    for line in lines:
        if (eq := line.find("=")) == -1:
            out.setdefault("errors", []).append(line)
            continue
        out[line[:eq]] = int(line[eq + 1 :])
    return out


@case((3,),)
def walrus_in_while_with_counter(n):
    out = []
    i = 0
    while (i := i + 1) <= n:
        out.append(i)
    return out, i


@case(([1, 2, 3],),)
def walrus_inside_nested_comprehension(lst):
    flat = [[(last := x * y) for y in lst] for x in lst]
    return flat, last


@case(("abc",), ("",))
def walrus_in_return_and_subscript(s):
    d = {"k": (v := s.upper())}
    return d, v, (t := s[::-1]), [t][(k := 0)], k


@case((10,),)
def walrus_in_assert_and_fstring(n):
    assert (half := n // 2) > 0, "need n>1"
    return half, f"{(dbl := n * 2)}", dbl


@case(([(7, 3), (2, 1), (9, 2), (3, 9)], 5), ([(2, 1)], 5), ([], 5), same_bytecode=True, structured=True)
def walrus_in_the_middle_of_a_chained_comparison(rels, n):
    """sympy.ntheory.qs._find_factor: 'if 1 < (g := gcd(u - v, N)) < N: yield g'.  The
    copy of the stored middle operand is one node for both comparisons, and the drop
    of it when the first one fails stores nothing again (its test stored g)."""
    for rel in rels:
        u, v = rel[0], rel[1]
        if 1 < (g := u - v) < n:
            yield g
    yield g
