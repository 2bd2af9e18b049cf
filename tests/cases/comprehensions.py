"""List, set and dict comprehensions and generator expressions."""
from tests.cases.registry import case


@case((5,), (0,))
def list_comprehension_basic(n):
    return [i * i for i in range(n)]


@case(([3, 1, 3, 2, 1],), ([],))
def set_comprehension(lst):
    return sorted({x % 3 for x in lst})


@case((["a", "bb", "ccc"],), ([],))
def dict_comprehension(words):
    return {w: len(w) for w in words}


@case(([1, 2, 3],), ([],))
def generator_expression_consumed(lst):
    g = (x + 1 for x in lst)
    first = next(g, None)
    return first, list(g)


@case((3, 4),)
def nested_for_clauses(a, b):
    return [(i, j) for i in range(a) for j in range(b) if (i + j) % 2 if i != j]


@case((4,),)
def nested_comprehension_matrix(n):
    m = [[r * n + c for c in range(n)] for r in range(n)]
    transposed = [[row[i] for row in m] for i in range(n)]
    flat = [v for row in transposed for v in row if v % 3]
    return m, transposed, flat


@case(([1, -2, 3, -4],),)
def conditional_expression_in_element(lst):
    return [x if x > 0 else -x * 10 for x in lst], {x: ("pos" if x > 0 else "neg") for x in lst}


@case(({"a": 1, "b": 2},), ({},))
def dict_comprehension_unpacking(d):
    inverted = {v: k for k, v in d.items()}
    pairs = [(k, v) for k, v in sorted(d.items())]
    nested = {k: {i: k * i for i in range(v)} for k, v in d.items()}
    return inverted, pairs, nested


@case((10,), (2,))
def comprehension_uses_closure_variables(n):
    factor = 3
    offset = n // 2
    return [x * factor + offset for x in range(n) if x < offset]


@case((5,),)
def comprehension_variable_does_not_leak(n):
    x = "outer"
    squares = [x * x for x in range(n)]
    gen_total = sum(x for x in range(n))
    keys = {x: None for x in "ab"}
    return x, squares, gen_total, sorted(keys)


@case(([[1, 2, 3], [4, 5]],),)
def comprehension_with_starred_target(rows):
    return [(first, rest) for first, *rest in rows], [last for *_, last in rows]


@case((4,),)
def comprehension_over_comprehension(n):
    return [y * 2 for y in [x + 1 for x in range(n)] if y % 2 == 0]


@case((3,),)
def comprehension_inside_lambda(n):
    f = lambda k: [i * k for i in range(n)]  # noqa: E731
    g = lambda: {i: [j for j in range(i)] for i in range(n)}  # noqa: E731
    return f(2), g()


@case((3,),)
def lambdas_created_in_comprehension(n):
    funcs = [lambda: i for i in range(n)]
    bound = [lambda i=i: i for i in range(n)]
    return [f() for f in funcs], [f() for f in bound]


@case((3,),)
def generator_expression_late_binding_of_iterable(n):
    src = list(range(n))
    gen = (x * 10 for x in src)
    src = [100]
    return list(gen), src


@case((["b", "a", "c"],),)
def comprehension_in_default_argument(items):
    def f(table={k: i for i, k in enumerate(sorted(items))}):
        return table

    return f(), f({"z": 0})


@case((6,),)
def comprehension_calling_functions(n):
    def sq(v):
        return v * v

    return [sq(x) for x in range(n) if sq(x) % 2 == 0], {sq(x) % 5 for x in range(n)} == {0, 1, 4}


@case(([0, 1, 2, 3],),)
def comprehension_with_boolean_and_nested_ternary(lst):
    return ["z" if x == 0 else "o" if x == 1 else "m" for x in lst if x or not lst[-1] == 3 or x == 0]


@case((3,),)
def generator_expression_nested_in_generator_expression(n):
    return list(sum(j for j in range(i)) for i in range(n + 2))


@case(([1, 2, 3],),)
def comprehension_raising_exception(lst):
    try:
        return [10 // (x - 2) for x in lst]
    except ZeroDivisionError as e:
        return "failed: " + type(e).__name__


@case(([1, 2, 3, 4],),)
def comprehension_inside_class_body(lst):
    class Table:
        base = 10
        rows = [x for x in lst]
        scaled = [x * 2 for x in rows]
        first = [x + len(lst) for x in [base]]

    return Table.rows, Table.scaled, Table.first


@case()
def class_body_comprehension_cannot_see_class_names():
    class T:
        base = 10
        try:
            bad = [base for _ in range(1)]
        except NameError as e:
            bad = type(e).__name__
        good = [b * 2 for b in [base]]

    return T.bad, T.good


@case((3,),)
def comprehension_with_multiple_iterables_and_conditions(n):
    return {(a, b): a * b for a in range(n) if a for b in range(a, n + 1) if b != a if a + b < 2 * n}


@case((4,),)
def comprehension_result_modified_by_method_calls(n):
    words = ["w%d" % i for i in range(n)]
    return ",".join(w.upper() for w in words if not w.endswith("2")), [len(w) for w in words].count(2)


@case((["x", "y"],), ([],))
def comprehension_with_enumerate_and_zip(names):
    return [(i, n, m) for i, (n, m) in enumerate(zip(names, reversed(names)))], dict(
        (n, i) for i, n in enumerate(names)
    )


@case((2,),)
def comprehension_referencing_outer_loop_variable(n):
    out = []
    for k in range(n):
        out.append([k * 10 + j for j in range(3)])
        out.append({k: [k for _ in range(2)]})
    return out


class _Truth:
    """Counts how often its truth value is asked."""

    def __init__(self, value):
        self.value = value
        self.asked = 0

    def __bool__(self):
        self.asked += 1
        return self.value


@case((True,), (False,))
def comprehension_filter_always_true_still_tests(flag):
    """``if (24 if c else 67)`` is always true, so the compiler keeps only the test of
    ``c``; the comprehension could not be rebuilt (random programs, all versions)."""
    c = _Truth(flag)
    out = [(b, 1) for b in range(3) if (24 if c else 67)]
    return out, c.asked


@case((True,), (False,))
def generator_with_an_always_true_comprehension_filter(flag):
    c = _Truth(flag)
    got = yield [b for b in range(2) if (24 if c else 67)]
    yield got, c.asked


@case(([1, 0, 2, None, 3],), ([],))
def comprehension_filters_on_lines_of_their_own(items):
    """3.11 and 3.12 thread a filter's jump through the loop's back jump only within one
    line (3.12: the element's line): a filter on a line of its own jumps to the back jump,
    and was printed on the element's line (argparse's ``_get_optional_actions``: 67 stdlib
    code objects on 3.12; a dict comprehension's ``if a and b`` on 3.11, 7)."""
    kept = [item for item in items
            if item]
    both = {item: 1 for item in items
            if item and item != 2}
    gen = list(item * 2 for item in items
               if item is not None)
    one = [item for item in items if item]
    return kept, both, gen, one
