"""Constants of every kind, including folded expressions and tricky float/str values."""
import math

from tests.cases.registry import case


@case()
def integer_constants():
    return [0, 1, -1, 42, -42, 0x1F, 0o17, 0b1010, 1_000_000, -0, 255, 2 ** 31 - 1, -(2 ** 31), 2 ** 63]


@case()
def big_integer_constants():
    big = 12345678901234567890123456789012345678901234567890
    neg = -98765432109876543210987654321
    huge = 2 ** 200
    return big, neg, huge, big % 1000, str(huge)[:10], len(str(huge))


@case()
def float_constants():
    values = [0.0, -0.0, 1.5, -2.25, 0.1, 1e100, 1.5e-10, 1.7976931348623157e308, 5e-324, 3.0, 1e16, 123456789.125]
    return [repr(v) for v in values], 0.1 + 0.2, 1 / 3


@case()
def infinities_and_nan():
    inf = float("inf")
    ninf = float("-inf")
    nan = float("nan")
    big = 1e309
    return [
        repr(inf),
        repr(ninf),
        repr(nan),
        math.isinf(big),
        inf == big,
        nan == nan,
        math.isnan(nan * 0),
        inf > 1e308,
        -inf < ninf + 1,
        repr(inf - inf),
        repr(-big),
    ]


@case()
def negative_zero_distinct_in_tuples():
    a = (0.0, -0.0)
    b = (-0.0, 0.0)
    return [repr(x) for x in a], [repr(x) for x in b], math.copysign(1, -0.0), math.copysign(1, 0.0), repr(-0.0 + 0.0)


@case()
def complex_constants():
    values = [1j, -2j, 3 + 4j, 1.5 - 0.5j, 0j, -0j, 1j * 1j, (1 + 2j) * (3 - 1j), complex(1, -0.0), 1e300j * 1e10]
    return [repr(v) for v in values], abs(3 + 4j), (2j).imag, (5 + 0j).real


@case()
def string_escapes():
    return [
        "tab\there",
        "new\nline",
        "back\\slash",
        'single \' quote',
        "double \" quote",
        "mixed ' and \"",
        "\x00\x01\x7f",
        "\a\b\f\v\r",
        "\101\102",
        "bell\7",
        "",
        " ",
        "'",
        '"',
        "'\"",
    ]


@case()
def string_unicode():
    s = ["héllo", "\u2603", "\U0001F600", "日本語", "\N{GREEK SMALL LETTER ALPHA}", "e\u0301", "\ud7ff", "\uffff"]
    return s, [len(x) for x in s], [ord(x[0]) for x in s]


@case()
def raw_and_triple_quoted_strings():
    a = r"C:\new\table"
    b = r'\d+\.\d*'
    c = """triple "double" with 'single'
second line"""
    d = '''triple 'single'
\ttab escaped'''
    e = "implicit " "concatenation " 'mixed quotes'
    f = "line \
continuation"
    return a, b, c, d, e, f, len(a)


@case()
def bytes_constants():
    values = [b"", b"abc", b"\x00\xff", b"\n\t", b'quote\'s', rb"\raw", b"A" * 3, bytes(3), b"\x80abc"]
    return values, [len(v) for v in values], b"abc"[1], b"a" + b"b"


@case()
def tuple_constants():
    t = (1, "a", None, 2.5, b"b", (), (1,), ((1, 2), (3, (4, 5))), True, ...)
    return t, t[7][1][1][0], len(t), t[-1] is Ellipsis


@case((1,), (4,), ("a",), ("z",), (None,), (2.0,))
def frozenset_membership_constants(x):
    return x in {1, 2, 3}, x in {"a", "b"}, x not in {None, 2}, x in {1, (2, 3)}, x in frozenset({4})


@case()
def singleton_constants():
    return None, True, False, ..., Ellipsis is ..., type(...).__name__, None is None, True is not False


@case()
def constant_folding():
    return [
        2 ** 10,
        "ab" * 3,
        (1, 2) * 2,
        -(-5),
        not 0,
        ~0,
        3 * 4 + 5,
        "x" + "y",
        1 << 40,
        7 // 2,
        7 % -3,
        -7 // 2,
        2 ** -2,
        (1, 2) + (3,),
        b"a" * 4,
        1 / 4,
        "a" * 0,
        -(2 ** 63),
    ]


@case()
def large_sequence_constants_not_folded():
    s = "a" * 5000
    t = (None,) * 300
    b = b"z" * 5000
    n = 2 ** 1000
    return len(s), len(t), len(b), n % 97, len(str(n))


@case()
def bool_and_none_arithmetic():
    return True + 1, False * 10, True / 2, -True, ~False, None is None, True == 1, False == 0.0, str(True)


@case()
def collection_constants_are_fresh_each_call():
    def make():
        return [1, 2], {"a": 1}, {3}

    x = make()
    x[0].append(99)
    x[1]["b"] = 2
    x[2].add(4)
    y = make()
    return x, y


@case()
def numeric_literal_forms():
    return [1_000.5, 0xDEAD_BEEF, 0B11, 0O77, 1E3, 1e-3, 10j, 1.j, .5, 5., 00, 0e0]


@case((1,), ("1",), (1.0,), (True,))
def constants_in_comparisons(x):
    return [x == 1, x == "1", x == 1.0, x is True, x in (1, "1"), x == (1,), x != None]  # noqa: E711


@case()
def ellipsis_as_statement_and_value():
    ...
    x = ...
    return x is Ellipsis, repr(x), str(...)


@case()
def docstring_like_string_not_first():
    x = 1
    "this string is an expression statement"
    return x


@case(("delete",), ("equal",), (3,), same_bytecode=True)
def set_displays_of_constants_folded_to_frozensets(tag):
    # `in` and `for` over a display of constants compile to one frozenset constant,
    # which must come back as the display, not as a call of frozenset
    found = [tag in {"delete", "replace"}, tag not in {0, 1, 3}]
    for x in {1, 2}:
        found.append(x)
    return found, [y for y in {3, 4}], tag in {tag, 1}
