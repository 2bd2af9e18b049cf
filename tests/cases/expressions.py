"""Expressions: operators, precedence, comparisons, ternaries, displays."""
from tests.cases.registry import case


class Vec:
    """Small value type with reflected and in-place operators."""

    def __init__(self, x, y):
        self.x = x
        self.y = y

    def __add__(self, other):
        if isinstance(other, Vec):
            return Vec(self.x + other.x, self.y + other.y)
        return Vec(self.x + other, self.y + other)

    __radd__ = __add__

    def __mul__(self, k):
        return Vec(self.x * k, self.y * k)

    def __rmul__(self, k):
        return Vec(k * self.x + 1, k * self.y + 1)

    def __matmul__(self, other):
        return self.x * other.x + self.y * other.y

    def __neg__(self):
        return Vec(-self.x, -self.y)

    def __lt__(self, other):
        return (self.x, self.y) < (other.x, other.y)

    def pair(self):
        return (self.x, self.y)


@case((7, 3), (-7, 3), (7, -3), (0, 5))
def arithmetic_binops(a, b):
    return [a + b, a - b, a * b, a / b, a // b, a % b, a ** 2, divmod(a, b), -a, +a, ~a]


@case((7, 0), (1.5, 0))
def division_by_zero(a, b):
    return a / b


@case((7, 0), (7, 2))
def modulo_by_zero(a, b):
    return a % b, a // b


@case((2, 3, 2), (-2, 3, 2), (3, 0, 4))
def power_precedence(a, b, c):
    return [a ** b ** c, (a ** b) ** c, -a ** b, (-a) ** b, a ** -b, -(a ** -c), 2 ** -1, a ** b * c, a * b ** c]


@case((1, 2, 3), (5, 5, 5), (10, 4, 1), (0, 0, 7))
def precedence_mix(a, b, c):
    return [
        a + b * c,
        (a + b) * c,
        a - b - c,
        a - (b - c),
        a * b % c,
        a * (b % c),
        a << b + c,
        (a << b) + c,
        a & b | c,
        a & (b | c),
        a ^ b & c,
        (a ^ b) & c,
        a | b ^ c,
        -a * b,
        -(a * b),
        not a == b,
        not (a < b),
        a < b == c,
        (a < b) == c,
        (a if b else c) + 1,
        a + (b if c > 1 else -b),
        a // b * c if b else None,
        a / (b / c) if b else None,
        ~a & 0xFF,
        ~(a & b),
    ]


@case((1, 2, 3), (3, 2, 1), (2, 2, 2), (1, 3, 2))
def chained_comparisons(a, b, c):
    return [a < b < c, a <= b <= c, a < b > c, a == b == c, a != b != c, a < b < c < 10, 1 <= a <= b < c != 0]


@case((0, 3, 7), (1, 3, 7), (1, 0, 7), (1, 13, 30), (0, 0, 0), same_bytecode=True)
def chained_comparisons_after_and_in_conditions(a, m, n):
    # a chain after ``and`` in a jumping condition: ``not a or not 1 <= m`` then
    # ``not m <= 12`` is ``not (a and 1 <= m <= 12)``, with m written once
    r = []
    if a and 1 <= m <= 12:
        r.append(1)
    if a and 0 <= n <= 5 and 1 <= m < n < 20:
        r.append(2)
    if not a and 1 <= m <= 12 or n:
        r.append(3)
    while a and 0 < m < 5:
        m -= 1
    return r, m


@case((5,), (0,), (20,))
def chained_comparison_middle_evaluated_once(x):
    seen = []

    def mid():
        seen.append(x)
        return x

    r = 0 < mid() < 10
    return r, seen


@case((None,), (0,), ([],), ("a",), (3,))
def identity_and_membership(x):
    box = [1, "a", None, 3]
    empty = []
    return [
        x is None,
        x is not None,
        x in box,
        x not in box,
        not x in box,
        x in "abc" if isinstance(x, str) else None,
        x is empty,
        x == empty,
        x in (0, 3),
        x not in [None, 0],
    ]


@case((5,), (0,), (-3,), (True,))
def unary_operators(x):
    return [-x, +x, ~x, not x, - -x, -(-x), ~~x, not not x, -x ** 2, (-x) ** 2, -~x, ~-x]


@case((-5,), (0,), (5,), (50,))
def nested_ternary(x):
    return "neg" if x < 0 else "zero" if x == 0 else "small" if x < 10 else "big"


@case((True, True), (True, False), (False, True), (False, False))
def ternary_inside_ternary_parts(a, b):
    left = ("x" if a else "y") if (1 if b else 0) else ("p" if not a else "q")
    right = (a if b else not a) if a else (b if not b else 0)
    return left, right


@case((True,), (False,))
def ternary_short_circuit(flag):
    log = []

    def side(v):
        log.append(v)
        return v

    r = side("yes") if side(flag) else side("no")
    return r, log


@case(([1, 2], (3,), {"k": 1}), ([], (), {}))
def displays_with_starred(a, b, d):
    lst = [*a, 0, *b]
    tup = (*a, *b)
    tup1 = (*a,)
    st = sorted({*a, *b, 99})
    dct = {**d, "z": 2, **{"k": 5}}
    dct2 = {"k": 0, **d}
    return lst, tup, tup1, st, dct, dct2


@case()
def empty_and_single_displays():
    return [], (), {}, set(), [1], (1,), {1: 2}, {1}, [[]], ((),), [()], ({},)


@case((1,), (2,))
def dict_display_evaluation_order(x):
    log = []

    def k(v):
        log.append(v)
        return v

    d = {k("a"): k(1), k("b"): k(x), k("a"): k(3)}
    return d, log


@case((2, 3), (0, -1))
def operator_overloading(a, b):
    v = Vec(a, b)
    w = Vec(b, a)
    return [(v + w).pair(), (v + 1).pair(), (1 + v).pair(), (v * 2).pair(), (3 * v).pair(), v @ w, (-v).pair(), v < w, w < v]


@case(("a,b,,c",), ("",))
def method_calls_on_literals(s):
    return [
        s.split(","),
        ",".join(["x", "y"]),
        "  pad ".strip(),
        (255).bit_length(),
        1.5.is_integer(),
        [3, 1, 2].index(2),
        (1).real,
        "abc"[::-1].upper(),
        b"xy".hex(),
        {"a": 1}.get(s, "missing"),
    ]


@case(("ab", 3), ("", 0))
def string_operators(s, n):
    return [
        s + "!" * n,
        "abc" "def" + s,
        "%s-%d" % (s, n),
        "%(k)s/%(v)r" % {"k": s, "v": n},
        "{0}{1}{0}".format(s, n),
        s * n,
        n * s,
        s in "xaby",
        s < "b",
        "%5.2f|%-4s|%+d" % (n / 3, s, n),
    ]


@case((1, "a"), (1, 2))
def comparison_type_error(a, b):
    return a < b


@case((3, 4.5), (True, 2))
def mixed_numeric_types(a, b):
    return [a + b, a * b, a == 3, a < b, True + True, a / 2, int(b) // 2, float(a), round(b), abs(-b)]


@case((1, 2, 3, 4), (0, 0, 0, 0))
def long_parenthesised_expression(a, b, c, d):
    total = (
        a * 1000
        + b * 100
        - c * 10
        + d
        - (a - b)
        * (c + d)
    )
    return total


@case((12345678901234567890, 987654321), (-(2 ** 70), 3))
def big_integer_arithmetic(a, b):
    return [a * b, a // b, a % b, a ** 2, -a, a >> 5, a << 70, a & 0xFFFF, a | 1, a ^ b]


@case(([3, 1, 2],), ([],))
def expression_statements_with_side_effects(lst):
    lst.append(0)
    lst.sort()
    lst.reverse()
    len(lst)
    lst.extend(x * 2 for x in lst[:2])
    return lst


class _Decoder:
    newlines = ("\n",)


@case((1, 2), (2, 1), (3, 3), (None, 0), same_bytecode=True)
def returned_conditional_expressions_with_constant_arms(x, y):
    # _pydatetime._cmp, bz2's BZ2File.mode, _pyio's TextIOWrapper.newlines: 3.12+ compile
    # ``return c`` as RETURN_CONST, but a returned conditional expression's constant arm as
    # LOAD_CONST and the copy of the return it jumps to; written as ifs, each arm fused
    def cmp(a, b):
        return 0 if a == b else 1 if a > b else -1

    def mode(m):
        return "wb" if m == 2 else "rb"

    def newlines(d):
        return d.newlines if d else None

    def shifted(n, e):
        if n == 0:
            return 0
        elif e >= 0:
            return n * 10 ** e
        else:
            return None if n < -e else n // 10 ** -e

    def state(obj):
        return (2 if obj is None else 0)

    if x is None:
        return state(x), state(y), newlines(_Decoder()), newlines(None)
    return cmp(x, y), mode(x), shifted(x, y), shifted(y - 3, x), shifted(0, 1), state(x)


# Displays of over 30 items (a dict's of over 16) are built item by item on 3.10+: an
# empty list, then LIST_APPEND of each item right on top of it (LIST_TO_TUPLE for a
# tuple, CALL_FUNCTION_EX for a call's arguments).  A conditional expression or and/or
# among the items branches while the display waits beneath; each path adds its own item
# (3.12+ copy the rest of the display and its return into each arm of the conditional).
# Each path added to the one display node the paths shared: both arms' items landed in
# both arms, an arm tried and dropped left its item behind, and a display evaluated into
# a temporary before the branch was given to LIST_TO_TUPLE as a name (a crash).


@case((1, 2, 3), (1, 2, 0), same_bytecode=True)
def big_tuple_ending_in_a_conditional(a, b, c):
    return (a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a,
            b if c else a)


@case((2, 3, 1), (0, 0, 1), (0, 5, 0), (4, 0, 0), same_bytecode=True)
def big_tuple_with_a_conditional_of_short_circuits_then_more(a, b, c):
    return (a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a,
            (a and b) if (b or c) else (c and a), a, (not a) and b)


@case((2, 3, 1), (0, 0, 1), (0, 5, 0), (4, 0, 0), same_bytecode=True)
def big_tuple_ending_in_a_conditional_of_short_circuits(a, b, c):
    return (a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a,
            (a and b) if (b or c) else (c and a))


@case((2, 3, 1), (0, 0, 1), (0, 5, 0), (4, 0, 0), same_bytecode=True)
def big_list_set_and_dict_with_conditionals_and_short_circuits(a, b, c):
    items = [a, b, c, a, b, c, a, b, c, a, b, c, a, b, c, a, b, c, a, b, c, a, b, c, a, b, c, a, b, c,
             (a and b) if (b or c) else (c and a), a, b or c]
    unique = {a, a + 1, a + 2, a + 3, a + 4, a + 5, a + 6, a + 7, a + 8, a + 9, a + 10, a + 11, a + 12,
              a + 13, a + 14, a + 15, a + 16, a + 17, a + 18, a + 19, a + 20, a + 21, a + 22, a + 23,
              a + 24, a + 25, a + 26, a + 27, a + 28, a + 29, (a and b) if (b or c) else (c and a), 99, b or 4}
    table = {0: a, 1: b, 2: c, 3: a, 4: b, 5: c, 6: a, 7: b, 8: c, 9: a, 10: b, 11: c, 12: a, 13: b,
             14: c, 15: a, 16: b, 17: c, 18: a, 19: b, (b if c else a) + 20: (a and b) if (b or c) else (c and a),
             100: a, 101: b or c}
    return items, sorted(unique), sorted(table.items())


def _arguments(*args, **kwargs):
    return args, sorted(kwargs.items())


@case((2, 3, 1), (0, 0, 1), (0, 5, 0), (4, 0, 0), same_bytecode=True)
def calls_of_over_thirty_arguments_with_conditionals(a, b, c):
    many = _arguments(a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a,
                      b if c else a)
    more = _arguments(a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a,
                      (a and b) if (b or c) else (c and a), a, b and c)
    return many, more


@case((2, 3, 1), (0, 0, 1), (0, 5, 0), (4, 0, 0), structured=True)
def call_starring_a_big_tuple_with_a_conditional(a, b, c):
    # (3.8 and 3.9 build the tuple as the call's arguments: written as plain arguments)
    return _arguments(*(a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a,
                        a, a, (a and b) if (b or c) else (c and a)))


@case((2, 3, 1), (0, 0, 1), (0, 5, 0), (4, 0, 0), same_bytecode=True)
def call_of_many_keywords_with_conditionals(a, b, c):
    return _arguments(a, k0=a, k1=a, k2=a, k3=a, k4=a, k5=a, k6=a, k7=a, k8=a, k9=a, k10=a, k11=a, k12=a,
                      k13=a, k14=a, k15=a, k16=a, k17=a, k18=a, k19=a, k20=a, k21=a, k22=a, k23=a, k24=a,
                      k25=a, k26=a, k27=a, k28=a, k29=a, k30=a, k31=a, k32=a, k33=a, k34=a,
                      last=(a and b) if (b or c) else (c and a), z=b or c)


@case(([7, 8], 2, 3, 1), ((), 0, 0, 1), ([5], 0, 5, 0), same_bytecode=True)
def big_tuples_built_past_a_computed_item(head, a, b, c):
    # the display waits with an item that is no plain name under the branch
    spliced = (*head, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a,
               b if c else a)
    nested = (a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a,
              (a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a,
               (a and b) if (b or c) else (c and a)),
              (a and b) if (b or c) else (c and a))
    return spliced, nested, [a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a,
                             a, a, (a and b) if (b or c) else (c and a), *[i * b for i in range(3)],
                             (a and b) if (b or c) else (c and a)]
