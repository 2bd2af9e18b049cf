"""match statements: every pattern kind, guards, nesting, and match inside other constructs."""
MIN_VERSION = (3, 10)

import contextlib
import enum

from tests.cases.registry import case


class Color(enum.Enum):
    RED = 1
    GREEN = 2
    BLUE = 3


class Limits:
    LOW = 0
    HIGH = 100


class Pt:
    """Module-level class with __match_args__ for positional class patterns."""

    __match_args__ = ("x", "y")

    def __init__(self, x, y):
        self.x = x
        self.y = y


@case((0,), (1,), (-1,), ("hello",), (None,), (True,), (False,), (2.5,), (1 + 2j,), (b"raw",), (99,))
def literal_patterns(v):
    match v:
        case 0:
            return "zero"
        case 1:
            return "one"
        case -1:
            return "minus one"
        case "hello":
            return "greeting"
        case None:
            return "none"
        case True:
            return "true"
        case False:
            return "false"
        case 2.5:
            return "two and a half"
        case 1 + 2j:
            return "complex"
        case b"raw":
            return "bytes"
    return "no match"


@case((5,), ("s",))
def capture_pattern(v):
    match v:
        case x:
            return "captured", x


@case((1,), (2,))
def wildcard_pattern(v):
    match v:
        case 1:
            r = "one"
        case _:
            r = "anything else"
    return r


@case((1,), (2,), (3,), (Limits.HIGH,), (0,), (7,))
def value_patterns_dotted(v):
    match Color(v) if v in (1, 2, 3) else v:
        case Color.RED:
            return "red"
        case Color.GREEN | Color.BLUE:
            return "green or blue"
        case Limits.HIGH:
            return "high"
        case Limits.LOW:
            return "low"
        case other:
            return "other %r" % (other,)


@case((1,), (2,), ([1],))
def group_pattern(v):
    match v:
        case (1):
            return "grouped one"
        case ([x]):
            return "grouped list", x
        case (_):
            return "grouped wildcard"


@case(([],), ([1],), ([1, 2],), ((1, 2, 3),), ([1, 2, 3, 4, 5],), ("abc",), ({"a": 1},))
def sequence_patterns_with_star(v):
    match v:
        case []:
            return "empty"
        case [x]:
            return "single", x
        case [x, y]:
            return "pair", x, y
        case (first, *middle, last) if len(middle) == 1:
            return "triple", first, middle, last
        case [first, *rest]:
            return "first and rest", first, rest
        case _:
            return "not a sequence"


@case(([1, 2, 3],), ([9],), ([0, 0],))
def sequence_star_wildcard_positions(v):
    match v:
        case [*_, 3]:
            return "ends with 3"
        case [9, *_]:
            return "starts with 9"
        case [*whole]:
            return "whole", whole


@case(({"type": "point", "x": 1, "y": 2},), ({"type": "circle", "r": 5, "extra": True},), ({"type": "unknown"},), ({},), ([1],))
def mapping_patterns_with_rest(v):
    match v:
        case {"type": "point", "x": x, "y": y}:
            return "point", x, y
        case {"type": "circle", "r": r, **rest}:
            return "circle", r, rest
        case {"type": t}:
            return "typed", t
        case {}:
            return "empty mapping"
        case _:
            return "not a mapping"


@case(({"k": 1, Color.RED: "red", -2: "neg"},), ({"k": 2},))
def mapping_pattern_with_value_and_literal_keys(v):
    match v:
        case {Color.RED: c, -2: n, **others}:
            return c, n, others
        case {"k": 2}:
            return "k is two"


@case((1, 2), (0, 5), (3, 0), (0, 0))
def class_patterns_positional_and_keyword(x, y):
    match Pt(x, y):
        case Pt(0, 0):
            return "origin"
        case Pt(0, y=yy):
            return "on y axis", yy
        case Pt(x=xx, y=0):
            return "on x axis", xx
        case Pt(a, b):
            return "elsewhere", a, b


@case((5,), ("s",), (2.5,), ([1],), ((1, 2),), ({"a": 1},), (None,))
def builtin_class_patterns(v):
    match v:
        case bool():
            return "bool"
        case int(n):
            return "int", n
        case str() as s:
            return "str", s
        case float(f) if f > 2:
            return "big float", f
        case list([x]):
            return "list of one", x
        case tuple((a, b)):
            return "tuple pair", a, b
        case dict():
            return "dict"
        case _:
            return "other"


@case((1,), (2,), (3,), (4,), ("x",), ("y",), ([1, 2],), ((9, 1),))
def or_patterns(v):
    match v:
        case 1 | 2:
            return "one or two"
        case 3 | 4 as n:
            return "three or four", n
        case "x" | "y" as s:
            return "letter", s
        case [a, 2] | (9, a):
            return "either shape", a


@case(([1, 2],), ([3, [4, 5]],), (7,))
def as_patterns(v):
    match v:
        case [int() as a, int() as b] as pair:
            return "pair", a, b, pair
        case [x, [y, z] as inner] as whole:
            return x, y, z, inner, whole
        case (int() | str()) as scalar:
            return "scalar", scalar


@case((5,), (-5,), (0,), (50,))
def guards(v):
    match v:
        case n if n < 0:
            return "negative"
        case n if n == 0:
            return "zero"
        case n if n > 10:
            return "big"
        case n:
            return "small positive", n


@case(([("add", 1, 2), ("neg", 5), ("add", 0, 0), ("stop",), ("mul", 2, 3), ("add", 9, 9)],),)
def match_in_loop_with_continue_and_break(ops):
    out = []
    for op in ops:
        match op:
            case ("add", 0, 0):
                continue
            case ("add", a, b):
                out.append(a + b)
            case ("neg", a):
                out.append(-a)
            case ("stop",):
                break
            case _:
                out.append("unknown")
    return out


@case(({"user": {"name": "ann", "roles": ["admin", "dev"]}},), ({"user": {"name": "bob", "roles": []}},), ({"user": None},))
def nested_patterns(v):
    match v:
        case {"user": {"name": str(name), "roles": ["admin", *others]}}:
            return "admin", name, others
        case {"user": {"name": name, "roles": []}}:
            return "no roles", name
        case {"user": None}:
            return "anonymous"


@case((1,), (2,))
def match_without_match_falls_through(v):
    r = "start"
    match v:
        case 1:
            r = "matched"
    return r


@case(("go north",), ("look",), ("take lamp key",), ("drop",), ("",))
def match_on_split_command(cmd):
    match cmd.split():
        case ["go", direction]:
            return "going", direction
        case ["look"]:
            return "looking"
        case ["take", *items] if items:
            return "taking", items
        case [verb]:
            return "unknown verb", verb
        case []:
            return "nothing"


@case(("abc",), (["a", "b", "c"],))
def string_is_not_sequence_pattern(v):
    match v:
        case [a, b, c]:
            return "sequence", a, b, c
        case str(s):
            return "string", s


@case((1,), (2,), (3,))
def match_inside_try_and_with_raise(v):
    import contextlib

    log = []
    try:
        with contextlib.suppress(KeyError):
            match v:
                case 1:
                    raise KeyError("suppressed")
                case 2:
                    raise ValueError("escapes")
                case _:
                    log.append("fine")
    except ValueError as e:
        log.append(str(e))
    return log


@case((3,),)
def match_inside_comprehension_helper_and_lambda(n):
    def classify(x):
        match x % 3, x > 1:
            case (0, _):
                return "fizz"
            case (1, True):
                return "one-ish big"
            case _:
                return "rest"

    f = lambda v: classify(v)  # noqa: E731
    return [f(i) for i in range(n * 2)]


@case((1, 2), (5, 5))
def match_class_pattern_defined_locally(a, b):
    class Pair:
        __match_args__ = ("left", "right")

        def __init__(self, left, right):
            self.left = left
            self.right = right

    class Other:
        pass

    for subject in (Pair(a, b), Other()):
        match subject:
            case Pair(l, r) if l == r:
                return "equal pair", l
            case Pair(left=l, right=r):
                return "pair", l, r
            case Other():
                return "other"


@case((0,), (1,), (2,))
def match_in_generator(n):
    def gen():
        for v in range(n + 1):
            match v:
                case 0:
                    yield "zero"
                case 1:
                    yield from ["one", "uno"]
                case _:
                    return

    return list(gen())


@case(([1, [2, [3, [4]]]],), ([1, [2, [3, []]]],))
def recursive_match_on_nested_lists(v):
    def depth(x):
        match x:
            case [_, rest]:
                return 1 + depth(rest)
            case [leaf]:
                return ("leaf", leaf)
            case []:
                return 0

    return depth(v)


@case(([1, 5],), ([5, 4],), ([2, 9],), ({"k": [7, 8]},), ({"k": (7,)},), ({"k": []},), (3,))
def or_patterns_binding_names_in_nested_positions(v):
    match v:
        case [(1 | 2) as a, b] | [b, (3 | 4) as a]:
            return a, b
        case {"k": [x, *_] | (x,)}:
            return "k", x
        case _:
            return None


@case(([1, 2, 3, 4],), ([1, 2, 3],), ([5, 5],), ([1, 2],), ([0],))
def star_capture_in_the_middle(v):
    match v:
        case [a, *mid, b, c]:
            return a, mid, b, c
        case [*_, x, y] if x == y:
            return "pair end", x
    return "none"


@case((Pt(Pt(0, 0), [1, 2, 3]),), (Pt(Pt(1, 2), 3),), (Pt(Pt(1, 2), 3.5),), (Pt(Pt(1, 2), "s"),), (Pt(1, 2),), (5,))
def class_patterns_nested_with_keywords(v):
    match v:
        case Pt(x=Pt(0, 0), y=[_, *rest]):
            return "nested", rest
        case Pt(Pt(a, _), y=int() | float() as yy):
            return a, yy
        case Pt(_, _):
            return "any pt"


@case((1,), ([3, 2],), ([2, 3],), ("abcd",), ("ab",), (None,))
def cases_fall_through_to_code_after(v):
    r = []
    match v:
        case 1 | 2:
            r.append("small")
        case [x, y] if x > y:
            r.append("desc")
        case str() as s if len(s) > 2:
            r.append(s)
    r.append("end")
    return r


@case((0, True), (0, False), (1, False))
def wildcard_with_guard_is_not_default(v, flag):
    match v:
        case _ if flag:
            return "flagged"
        case 0:
            return "zero"
    return "other"


@case(([None, -3, 4, "stop", 7],), ([1, 2],))
def match_in_while_with_continue_and_break(items):
    out = []
    i = 0
    while i < len(items):
        match items[i]:
            case None:
                i += 1
                continue
            case "stop":
                break
            case int(n) if n < 0:
                out.append(-n)
            case n:
                out.append(n)
        i += 1
    return out


@case(({"a": 1, "b": 2},), ({"a": 1},), ({"c": 3},), ({},), ([1],))
def mapping_patterns_rest_only(v):
    match v:
        case {"a": 1, **kw} if kw:
            return kw
        case {**kw} if kw:
            return "all", kw
        case {}:
            return "empty"


@case((0, 0), (0, 5), (5, 0), (2, 3))
def tuple_subject_with_or_captures(a, b):
    match a, b:
        case (0, 0):
            return "origin"
        case (0, y) | (y, 0):
            return "axis", y
        case (x, y):
            return x + y


@case(([1, 2, 3], True), ([2], True), ([1], False))
def match_inside_if_branch(v, c):
    if c:
        match v:
            case [1, *r]:
                x = r
            case _:
                x = None
        return x
    return "no"


@case((True,), (False,), (None,), ([None, True],), ([None, False],), (1,))
def singleton_patterns_in_sequences(v):
    match v:
        case True:
            return "T"
        case False:
            return "F"
        case None:
            return "N"
        case [None, True]:
            return "list"


@case(([1, [2, 3], {"d": 4, "e": [5, 6, 7]}, Pt(8, 9)],), ([1, [2, 3], {"d": 4, "e": []}, Pt(8, 9)],))
def many_captures_across_pattern_kinds(v):
    match v:
        case [a, [b, c], {"d": d, "e": [e, *f]}, Pt(g, y=h)]:
            return a, b, c, d, e, f, g, h


@case(([4, 0],), ([0, 6],), ({"x": 9},), (Pt(1, 2),), ([1, 1],))
def or_pattern_three_alternatives(v):
    match v:
        case [x, 0] | [0, x] | {"x": x}:
            return x
        case Pt(x=x) | Pt(y=x):
            return "pt", x


@case(([1, 2],), ([3, 4],), (5,))
def guard_with_walrus(v):
    match v:
        case [x, y] if (s := x + y) > 3:
            return s
        case _:
            return 0


@case(([1], {"k": 2}), ([1], {}), (3, {}))
def nested_match_statements(v, w):
    match v:
        case [a]:
            match w:
                case {"k": b}:
                    return a, b
                case _:
                    return a
        case _:
            return None


@case((-1,), (-2.5,), (1 - 2j,), ({-1: "m"},), (0,))
def negative_and_complex_literals(v):
    match v:
        case -1 | -2.5:
            return "neg"
        case 1 - 2j:
            return "cpx"
        case {-1: x}:
            return x


@case(([1, 2, 3],), ([1],), ([],), ((),), (5,))
def sequence_patterns_of_wildcards(v):
    match v:
        case [_, _, _]:
            return 3
        case [_, *_]:
            return "1+"
        case [*_]:
            return "seq"


@case(({"a": "x", "b": Pt(1, 2)},), ({"a": "z", "b": Pt(1, 2)},), ({"a": "y", "b": 1},))
def mapping_values_with_or_and_as(v):
    match v:
        case {"a": "x" | "y" as q, "b": Pt() as p}:
            return q, p.x


@case(([1, 2],), (7,))
def captures_used_by_closures(v):
    match v:
        case [x, y]:
            f = lambda: x + y  # noqa: E731
        case x:
            f = lambda: x  # noqa: E731
    return f()


@case(([2, 1, 0, 5],), ([1, 1],), ([3],))
def match_in_for_with_break_and_continue_then_code(vs):
    seen = []
    for v in vs:
        match v:
            case 0:
                break
            case 1:
                continue
        seen.append(v)
    else:
        return "else", seen
    return "broke", seen


@case((2,), ([1],), (5,))
def walrus_in_subject(v):
    match (w := v * 2):
        case 4:
            return "four", w
        case [*_]:
            return "seq"
    return w


@case(({"t": "x", "u": 1},), ({"a": 2, "b": [5, 6], "z": 0},), ({"a": 3, "b": [5]},), ({"k": "s", "j": 1, "q": 2},),
      ({"k": "s", "j": 0},), ({"t": "y"},), ({},), (3,))
def mapping_rest_after_as_captures(v):
    # (an ``as`` capture before ``**rest`` was refused: 'value of the pattern not consumed'; a new-user trial)
    match v:
        case {"t": "x" as t, **rest}:
            return t, rest
        case {"a": 1 | 2 as a, "b": [c, *_] as b, **rest}:
            return a, b, c, rest
        case {"k": str() as k, "j": j, **rest} if j:
            return k, j, rest
        case {"t": "y" as t}:
            return t
    return None


@case((1,), (2,), (3,))
def return_in_a_case_in_a_with_under_a_finally_that_returns(x):
    """exception_programs.py seed 52511 (3.10-3.13): a case body's ``return`` in a with in
    a try whose finally body returns runs the with's exit and the finally body's copy,
    which read like the with body's end: it was written without the return, and ran on
    to the code after the match.  (Refused now; the match is then read as the tests it
    compiles to.)"""
    seen = []
    try:
        with contextlib.nullcontext():
            match x:
                case 1 | 2:
                    seen.append("case")
                    return "dropped"
            seen.append("after the match")
    finally:
        return seen  # noqa: B012



@case(("key",), ("type",), ("other",))
def case_returning_a_missing_name_under_a_finally_that_raises(word):
    """``return r.upper()`` in a case of or-patterns, ``r`` undefined, in a try whose
    finally body raises: the return never completes, but evaluating its value raises the
    NameError that becomes the finally body's error's ``__context__``.  3.10 lays the
    finally body's copy where the match ends, the value still on the stack: the case was
    written ``pass`` and the NameError lost (exception_programs.py seed 126977).  Refused
    now on 3.10 (known_failures: the state machine cannot take it there either), lowered
    on 3.11+ (known_lowerings), as the same return under an ``if`` is."""
    def inner():
        try:
            match word:
                case "key" | "type":
                    return r.upper()  # noqa: F821  (undefined: its NameError is the behaviour)
        finally:
            raise ValueError("t1")  # noqa: B012

    try:
        inner()
    except ValueError as exc:
        return repr(exc), repr(exc.__context__)
