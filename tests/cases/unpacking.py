"""Iterable unpacking in assignments, loops, comprehensions, calls and displays."""
import types

from tests.cases.registry import case


@case(((1, 2, 3),), ([4, 5, 6],), ("abc",))
def tuple_unpacking(seq):
    a, b, c = seq
    (d, e, f) = seq
    [g, h, i] = seq
    return a, b, c, d + e + f, [g, h, i]


@case(((1, (2, 3)),), ([4, [5, 6]],))
def nested_unpacking(pair):
    a, (b, c) = pair
    [x, [y, z]] = pair
    ((p, q), r) = (pair[1], pair[0])
    return a, b, c, x, y, z, p, q, r


@case(([1, 2, 3, 4, 5],), ([1, 2],))
def starred_assignment_forms(seq):
    a, *rest = seq
    *init, last = seq
    first, *middle, end = seq
    [*everything] = seq
    *_, penultimate, _ = seq
    return a, rest, init, last, first, middle, end, everything, penultimate


@case(([1, [2, 3, 4]],),)
def nested_starred(data):
    a, (b, *c) = data
    (x, [*y, z]) = data
    return a, b, c, x, y, z


@case(([1, 2, 3],), ([1],), ([1, 2, 3, 4],))
def unpacking_wrong_count_errors(seq):
    a, b, c = seq
    return a + b + c


@case(([1],), ([],), ([1, 2],), ([1, 2, 3, 4],))
def starred_unpacking_too_few(seq):
    a, *b, c = seq
    return a, b, c


@case(([7],), ((8,),), ([],))
def single_element_unpacking(seq):
    (a,) = seq
    b, = seq
    [c] = seq
    return a, b, c


@case(({"x": 1, "y": 2},),)
def unpacking_dicts_and_generators(d):
    k1, k2 = d
    (k3, v3), (k4, v4) = d.items()
    g1, g2, g3 = (i * i for i in range(3))
    first, *others = range(5, 9)
    return k1, k2, k3, v3, k4, v4, g1, g2, g3, first, others


@case((1, 2, 3),)
def swap_and_rotate_patterns(a, b, c):
    a, b = b, a
    r1 = (a, b)
    a, b, c = c, a, b
    r2 = (a, b, c)
    a, (b, c) = c, (a, b)
    return r1, r2, (a, b, c)


@case((10, 20),)
def unpack_into_attributes_and_subscripts(x, y):
    ns = types.SimpleNamespace()
    d = {}
    lst = [0, 0, 0]
    ns.a, d["k"], lst[1] = x, y, x + y
    lst[0], lst[2] = lst[2], lst[0]
    d["p"], (ns.b, *lst[1:2]) = "p", (1, 2)
    return vars(ns), d, lst


@case(([(1, "a"), (2, "b")],),)
def unpacking_in_for_targets(pairs):
    out = []
    for n, s in pairs:
        out.append(s * n)
    for i, (n, s) in enumerate(pairs):
        out.append((i, n, s))
    for (n, s), other in zip(pairs, "xy"):
        out.append(s + other)
    for [a, b], in [[(1, 2)], [(3, 4)]]:
        out.append(a * b)
    return out


@case(([[1, 2, 3], [4, 5, 6]],),)
def unpacking_in_comprehension_targets(rows):
    return (
        [a + c for a, _, c in rows],
        {b: (a, c) for a, b, c in rows},
        [rest for _, *rest in rows],
        [x for (x, y, z), w in zip(rows, "ab") if w == "a"],
    )


@case(([1, 2], (3, 4), {"a": 5}, {"b": 6}),)
def starred_in_displays_and_calls(lst, tup, d1, d2):
    def f(*args, **kw):
        return args, sorted(kw.items())

    return (
        [*lst, *tup],
        (*lst, 0, *tup),
        sorted({*lst, *tup}),
        {**d1, **d2, "c": 7},
        f(*lst, *tup),
        f(**d1, **d2),
        f(*lst, **d1),
        [*range(3), *"ab"],
        (*lst,),
    )


@case(([1, 2, 3],),)
def starred_return_and_yield_values(lst):
    def ret():
        return 0, *lst, 4

    def gen():
        yield -1, *lst
        yield [*lst]

    return ret(), list(gen())


@case(("xyz",),)
def unpacking_strings_and_ranges(s):
    a, b, c = s
    x, *y = range(4)
    *p, q = s
    return a + c + b, x, y, p, q


@case((3,),)
def unpacking_chained_with_assignment(n):
    a, b = c, d = e = n, n * 2
    return a, b, c, d, e


@case((5,),)
def unpacking_function_return_tuple(n):
    def divmod_like(a, b):
        return a // b, a % b

    q, r = divmod_like(n * 7, 3)
    (q2, r2), extra = divmod_like(n, 2), "x"
    return q, r, q2, r2, extra


@case(([[1, 2], [3, 4], [5, 6]],),)
def unpack_in_while_loop(stack):
    total = 0
    while stack:
        a, b = stack.pop()
        total += a * b
    return total


@case(({"a": 1, "b": 2},),)
def dict_unpacking_in_call_and_display_order(d):
    merged = {"a": 0, **d, "b": 99}
    other = dict(**d, c=3)
    return merged, other, list(merged)


@case(((1, 2, 3, 4, 5, 6),),)
def starred_at_various_positions(t):
    a, b, *c = t
    *d, e, f = t
    g, *h, i, j = t
    return c, d, h, (a, b, e, f, g, i, j)


@case((3, 1, [7, 8], {"k": 1}), (1, 3, (), {}))
def starred_displays_mixed_with_plain_items(x, y, lst, d):
    # a set starred inside a list or tuple keeps its own iteration order
    return (
        [*{x, y}],
        (*lst, *{x, y}),
        [x, *lst, y, *[y, x]],
        sorted({x, *lst, y, *(x + 1,)}),
        {**d, **{}},
        {"a": x, **d, "b": y, **{"c": 0}},
        [*lst, *(), *[]],
    )
