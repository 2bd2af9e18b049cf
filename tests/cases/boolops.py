"""Boolean operators: values, short-circuiting, mixing with not and comparisons."""
from tests.cases.registry import case


@case((0, 1), (2, 3), ("", "b"), ([1], None))
def and_or_return_operands(a, b):
    return [a and b, a or b, b and a, b or a, not a and b, not (a and b), not a or not b]


@case((0, 0, 0), (1, 0, 2), (0, 5, 6), (7, 8, 9), (None, "", 0))
def three_way_combinations(a, b, c):
    return [
        a and b or c,
        a or b and c,
        (a or b) and c,
        a and (b or c),
        a and b and c,
        a or b or c,
        (a and b) or (b and c) or (a and c),
        not a or b and not c,
    ]


@case((0,), (1,), (2,))
def short_circuit_side_effects(x):
    log = []

    def t(tag, value):
        log.append(tag)
        return value

    r1 = t("a", x) and t("b", x - 1) and t("c", "end")
    r2 = t("d", x - 1) or t("e", x - 2) or t("f", "last")
    return r1, r2, log


@case((-1,), (5,), (50,), (100,), (101,))
def boolops_with_comparisons(x):
    in_range = 0 <= x and x < 10 or x == 100
    outside = x < 0 or x > 100
    odd_small = x % 2 == 1 and x < 10 and x > 0
    return in_range, outside, odd_small


@case((0, 0), (0, 1), (1, 0), (1, 1))
def boolops_in_if_conditions(a, b):
    r = []
    if a and b:
        r.append("both")
    if a or b:
        r.append("any")
    if not a and not b:
        r.append("none")
    if a and not b or b and not a:
        r.append("xor")
    if not (a or b) or a and b:
        r.append("same")
    return r


@case(([3, 0, 2, 5],), ([1],), ([],))
def boolops_in_while_condition(lst):
    i = 0
    out = []
    while i < len(lst) and (lst[i] or i == 0):
        out.append(lst[i])
        i += 1
    while lst and not lst[-1] == 0 and len(lst) > 1:
        lst.pop()
    return out, lst


@case((None,), ("given",), ("",))
def default_with_or(value):
    name = value or "default"
    other = value and value.upper()
    third = value is not None and value or "falsy-or-none"
    return name, other, third


@case(([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12],))
def boolops_in_comprehension_filters(lst):
    return (
        [x for x in lst if x % 2 and x > 3 or x == 0],
        [x for x in lst if not (x % 3 or x % 2)],
        [x and -x or "z" for x in lst[:3]],
    )


@case((1, 2, 3, 4), (0, 2, 3, 4), (1, 0, 0, 4), (1, 2, 0, 0))
def nested_mixed_boolops(a, b, c, d):
    return [
        a and (b or c) and d,
        (a or b) and (c or d),
        a or (b and c) or d,
        not (a and (b or not c)) or d,
        (a and b) == (c and d),
        (a or b) + (c or d),
    ]


@case((0,), (3,))
def boolop_as_call_argument_and_ternary(x):
    def f(*args):
        return list(args)

    return f(x or 1, x and 2, not x), ("yes" if x and x > 2 else "no"), (x or 5) if x else (x and 5)


@case((True,), (False,))
def boolop_returning_bools(flag):
    a = flag and True
    b = flag or False
    c = not flag
    d = flag is True and c is False
    return a, b, c, d


@case(([],), ([0, 0],), ([0, 3],))
def any_all_with_boolops(lst):
    return (
        bool(lst) and all(x == 0 for x in lst),
        any(x and x > 1 for x in lst) or not lst,
    )


@case((1, 1), (1, 0), (0, 1))
def boolop_assignment_chain_with_calls(a, b):
    seen = []

    def probe(v):
        seen.append(v)
        return v

    r = probe(a) and (probe(b) or probe("fallback")) and probe("tail")
    return r, seen


@case((0,), (1,), (2,), (3,))
def long_or_chain_in_return(x):
    return x == 0 and "zero" or x == 1 and "one" or x == 2 and "two" or "many"


@case(([0, 1, 2, 5, 7, 8],))
def and_or_condition_falling_back_to_the_loop(lst):
    """``(a and b) or c`` whose false exit is the loop head: the ``c`` block is reached from
    both ``a`` and ``b``, and must still join the condition (the body was duplicated)."""
    out = []
    for x in lst:
        if x % 2 and x > 3 or x == 0:
            out.append(x)
    return out


class _Field:
    def __init__(self, compare, hash_):
        self.compare, self.hash = compare, hash_


@case(([_Field(True, None), _Field(False, None), _Field(True, False), _Field(False, 1)],), same_bytecode=True)
def conditional_expression_as_comprehension_filter(fields):
    """The stdlib's dataclasses (``_hash_add``): both arms of the test jump to the same
    two places, and fold into one condition."""
    return [f.compare for f in fields if (f.compare if f.hash is None else f.hash)]


@case((0, 1, 2), (1, 0, 2), (1, 2, 0), (None, 0, 0))
def conditional_expressions_as_statement_conditions(a, b, c):
    out = []
    if (b if a else c):
        out.append("if")
    n = 0
    while (b > n if a is not None else c > n) and n < 5:
        n += 1
    if not (a if b else c) or n == 2:
        out.append("not")
    return out, n


@case((["a", "b", "c", "d"], {"a", "b"}, {"b"}))
def or_of_a_parenthesised_and_in_comprehension_filter(order, members, names):
    """The stdlib's enum (``_order_`` step 3): ``a or (b and c)``, where ``b and c``
    must be folded on its own before it joins ``a``."""
    kept = [o for o in order if (o not in members or (o in members and o in names))]
    out = []
    for o in order:
        if o in members and (o in names or o == "a") or o == "d":
            out.append(o)
    return kept, out


@case((None, 2), ([1], 3), (0, 0))
def lambda_as_an_operand_of_and_or(b, n):
    """Random programs: ``b or (lambda a: ...)`` left the lambda's function object in the
    output (every version)."""
    first = b or (lambda a: a * n)
    second = b and (lambda: n)
    third = [v for v in range(n) if v] or (lambda a, k=n: a + k)
    out = []
    for f in (first, second, third):
        out.append(f(1) if callable(f) and f.__code__.co_argcount >= 1 else
                   f() if callable(f) and f.__code__.co_argcount == 0 else f)
    return out


@case((1, 0, 5), (1, 1, 5), (0, 0, 5), (1, 0, 0), same_bytecode=True)
def and_not_or_value(a, c, d):
    """stdlib signal (3.8-3.11): ``a and not c or d``, where ``a``'s failed test goes
    straight to ``d``.  The joined condition held ``c`` and the value ``not c``, a node
    rebuilt by negating twice: not recognised as one value, it was written as
    ``not c if a and not c else d`` (``c`` evaluated twice) or refused."""
    calls = []

    def f(name, value):
        calls.append(name)
        return value
    x = f("a", a) and not f("c", c) or f("d", d)
    return x, calls


@case((1, 1, 0, 5), (1, 1, 1, 0), (0, 1, 1, 5), same_bytecode=True)
def and_chain_ending_in_not_or_value_in_a_lambda(a, b, c, d):
    """The same in a lambda (signal's ``_convert_`` filter), where it was refused as
    "lambda body is not an expression"."""
    calls = []

    def f(name, value):
        calls.append(name)
        return value
    pick = lambda: f("a", a) and (f("b", b) and not f("c", c)) or f("d", d)
    return pick(), calls


@case((1, 0, 5, 1), (0, 0, 5, 1), (0, 2, 0, 1), (0, 0, 0, 1), (1, 1, 1, 0))
def or_chain_of_three_in_a_conditional_expression(a, c, x, y):
    """3.11: the or chain's jumps go to the jump over the else arm; its first test, failing
    to join the second with ``or`` (their values differ), had moved its target past that
    jump, to the conditional's end, and the arm was read as statements (state machine)."""
    b = c or a or x if y else 3
    return b


@case((1, 0, 5, 1), (0, 0, 5, 1), (1, 2, 0, 0), (1, 0, 0, 3), (2, 4, 4, 0))
def and_or_chain_in_a_conditional_expression_in_an_if(b, c, x, y):
    """3.10, 3.11, 3.13: the same, with the conditional's test repeating the if's."""
    if b:
        c = y or c and y if b else x
    return c


@case((1, 1, 5, 7), (1, 0, 5, 7), (0, 1, 5, 7), (1, 1, 0, 7), (0, 0, 0, 0))
def and_or_value_in_a_conditional_expression(a, c, x, y):
    """3.11: the or's value jumps through the jump over the else arm to where the
    conditional's arms meet, the other value runs into that jump: the arms of the or
    were taken to meet at the jump, the jumping one read past it as statements."""
    b = a and x or y if c else 1
    return b


# ``a or (b if c else d)``: the or jumps with ``a`` to the tail ``d`` runs into, and
# 3.8-3.10 and 3.12+ copy that tail (the ``return``, a call and its ``return``, 3.13's
# ``x = ...; return x``, a yield and the implicit ``return None``) after ``b``: the
# conditional's arms had no merge point, and ``b``'s arm was read as a statement
# ("branch values with statements": the state machine, or on 3.10 and 3.12 a yield
# refused outright).  Marshmallow's ``Field._bind_to_schema``.
_OR_OF_CONDITIONAL_CALLS = ((1, 2, 1, 3, 4), (1, 0, 0, 0, 0), (0, 2, 1, 3, 4), (0, 0, 1, 3, 4),
                            (0, 2, 0, 3, 4), (0, 2, 0, 0, 4), (0, 2, 0, 0, 0), (0, 0, 1, 0, 5),
                            ("", None, 1, [], 0), (2, "", 0, 1, ""))


@case(*_OR_OF_CONDITIONAL_CALLS, structured=True)
def or_of_a_conditional_expression_returned(a, b, c, d, e):
    def f(a, b, c, d):
        return a or (b if c else d)
    return f(a, b, c, d), f(e, d, a, b)


@case(*_OR_OF_CONDITIONAL_CALLS, structured=True)
def and_of_a_conditional_expression_returned(a, b, c, d, e):
    def f(a, b, c, d):
        return a and (b if c else d)
    return f(a, b, c, d), f(e, d, a, b)


@case(*_OR_OF_CONDITIONAL_CALLS, structured=True)
def or_of_a_conditional_expression_with_boolops_in_its_arms(a, b, c, d, e):
    def f(a, b, c, d, e):
        return a or (b if c else (d or e))

    def g(a, b, c, d, e):
        return a and (b if c else (d and e))

    def h(a, b, c, d, e):
        return a or ((b or e) if c else d)

    def k(a, b, c, d, e):
        return a and ((b and e) if c else d)

    def m(a, b, c, d, e):
        return a or (b if c else (d if e else a))
    return [fn(a, b, c, d, e) for fn in (f, g, h, k, m)]


@case(*_OR_OF_CONDITIONAL_CALLS, structured=True)
def and_or_mixes_around_a_conditional_expression(a, b, c, d, e):
    def f(a, b, c, d, e):
        return a and e or (b if c else d)

    def g(a, b, c, d, e):
        return a or e and (b if c else d)

    def h(a, b, c, d, e):
        return a or (b if c else d) or e

    def k(a, b, c, d, e):
        return not a or (b if not c else d)

    def m(a, b, c, d, e):
        return a == 1 or (b if c == 1 else d)

    def n(a, b, c, d, e):
        return a or (b if c else d) if e else d
    return [fn(a, b, c, d, e) for fn in (f, g, h, k, m, n)]


@case(*_OR_OF_CONDITIONAL_CALLS, structured=True)
def or_of_a_conditional_expression_assigned(a, b, c, d, e):
    def f(a, b, c, d):
        x = a or (b if c else d)
        return x

    def g(a, b, c, d):
        x = a and (b if c else d)
        return x

    def h(a, b, c, d, e):
        x = a or (b if c else (d or e))
        return x

    def k(a, b, c, d):
        x = [1]
        x += [a or (b if c else d)]
        return x
    return f(a, b, c, d), g(a, b, c, d), h(a, b, c, d, e), k(a, b, c, d)


@case(*_OR_OF_CONDITIONAL_CALLS, structured=True)
def or_of_a_conditional_expression_as_an_operand(a, b, c, d, e):
    def f(a, b, c, d):
        return list([a or (b if c else d), 1])

    def g(a, b, c, d):
        return dict(k=a or (b if c else d), n=1)

    def h(a, b, c, d):
        return [5, 6, 7][a or (1 if c else 2)]

    def k(a, b, c, d):
        return (a or (b if c else d)) == 2

    def m(a, b, c, d):
        return repr(a or (b if c else d))
    return [fn(a, b, c, d) for fn in (f, g, h, k, m)] + [f(e, a, b, c)]


@case(*_OR_OF_CONDITIONAL_CALLS, structured=True)
def or_of_a_conditional_expression_yielded(a, b, c, d, e):
    def f(a, b, c, d):
        yield a or (b if c else d)
        yield a and (b if c else d)
    return list(f(a, b, c, d)), list(f(e, d, a, b))


@case(*_OR_OF_CONDITIONAL_CALLS, structured=True)
def or_of_a_conditional_expression_in_loops(a, b, c, d, e):
    def f(xs, b, c, d):
        out = []
        for x in xs:
            out.append(x or (b if c else d))
            y = x and (b if c else d)
            out.append(y)
        return out

    def g(xs, b, c, d):
        for x in xs:
            if x != 1:
                return x or (b if c else d)
        return "none"

    def h(n, b, c, d):
        out = []
        while n:
            n -= 1
            out.append(n or (b if c else d))
        return out
    return f([a, e, 0], b, c, d), g([1, a, e], b, c, d), g([1], b, c, d), h(3, b, c, d)


@case(*_OR_OF_CONDITIONAL_CALLS, structured=True)
def or_of_a_conditional_expression_in_try_bodies(a, b, c, d, e):
    log = []

    def f(a, b, c, d):
        try:
            return a or (b if c else d)
        except ValueError:
            return None

    def g(a, b, c, d):
        try:
            return a or (b if c else d)
        finally:
            log.append(1)

    def h(a, b, c, d):
        try:
            return b if c else (a or d)
        finally:
            log.append(2)

    def k(a, b, c, d):
        try:
            raise ValueError(a or (b if c else d))
        except ValueError as exc:
            return exc.args
    return [fn(a, b, c, d) for fn in (f, g, h, k)], log


@case(*_OR_OF_CONDITIONAL_CALLS, structured=True)
def or_of_a_conditional_expression_as_a_condition(a, b, c, d, e):
    out = []
    if a or (b if c else d):
        out.append(1)
    if a and (b if c else d):
        out.append(2)
    else:
        out.append(3)
    n = 0
    while n < 2 and (a or (b if c else e)):
        n += 1
    out.append(n)
    return out


@case(*_OR_OF_CONDITIONAL_CALLS, structured=True, same_bytecode=True)
def or_of_a_conditional_expression_as_a_condition_that_returns(a, b, c, d, e):
    """3.10 and 3.12+ copy ``return 1`` into the path of the test of ``b``: the
    conditional's two tests went to two places, not one, and the if was written as
    ``if not a: if c: if b: return 1 ... elif d: return 1 ... return 2`` (structured, but
    not the source; the while loop, its test copied to the bottom, as an if around a
    ``while True``)."""
    def f(a, b, c, d):
        if a or (b if c else d):
            return 1
        return 2

    def g(a, b, c, d):
        if a and (b if c else d):
            return 1
        return 2

    def h(xs, b, c, d):
        for x in xs:
            if x or (b if c else d):
                return x
        return 2

    def k(a, b, c, d):
        n = 0
        while n < 3 and (a or (b if c else d)):
            n += 1
        return n
    return f(a, b, c, d), g(a, b, c, d), h([a, e], b, c, d), k(a, b, c, d)
