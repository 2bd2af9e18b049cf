"""Shapes found failing on the standard library (module named in each docstring)."""
import contextlib
import sys

from tests.cases.registry import case


@case(("ab  c", 0, " "), ("a b", 1, " "), (1, 0, ""))
def try_in_while_after_break(s, end, ws):
    """json.decoder.JSONArray: a handler's re-raise is not the loop's exit."""
    while True:
        end += 1
        if s == 1 or end > 3:
            break
        try:
            if s[end] in ws:
                end += 1
        except IndexError:
            pass
        except TypeError:
            break
    return end


@case((5, 0, 10), (50, 0, 10), (-1, 0, 10))
def negated_chained_comparison(year, lo, hi):
    """calendar.weekday: ``not a <= b <= c`` keeps the middle operand single."""
    if not lo <= year <= hi:
        year = 2000 + year % 400
    return year


class _Ip:
    def __init__(self, ip, version):
        self._ip, self._version = ip, version


@case((_Ip(1, 4), _Ip(1, 4)), (_Ip(1, 4), _Ip(1, 6)), (_Ip(1, 4), 3))
def return_boolean_value_from_try(a, b):
    """ipaddress._BaseAddress.__eq__: ``try: return x and y``."""
    try:
        return a._ip == b._ip and a._version == b._version
    except AttributeError:
        return NotImplemented


@case(([1, 2], [3]), ([], []), ([1], []))
def while_or_condition_with_two_ifs(fromlist, tolist):
    """difflib.HtmlDiff._line_wrapper: ``while a or b`` with if/else arms."""
    out = []
    while fromlist or tolist:
        if fromlist:
            fromdata = fromlist.pop(0)
        else:
            fromdata = "-"
        if tolist:
            todata = tolist.pop(0)
        else:
            todata = "-"
        out.append((fromdata, todata))
    return out


@case((0,), (3,), (7,))
def while_with_continue_and_else(n):
    """3.11 while layout: continue jumps to the top test, break skips the else."""
    i = 0
    seen = []
    while i < n:
        i += 1
        if i % 2:
            continue
        if i > 5:
            break
        seen.append(i)
    else:
        seen.append("else")
    return seen, i


@case(({"a": 1, "b": 2},), ({},))
def for_body_always_returns(d):
    """configparser.RawConfigParser.popitem: a for loop with no back edge."""
    for key in sorted(d):
        value = d[key]
        del d[key]
        return key, value
    raise KeyError("empty")


class _Box:
    pass


@case((True,), (False,))
def del_attribute_in_finally(fail):
    """email.generator.Generator._write (3.8-3.10): a ``del`` ending a finally
    body is not the cleanup of ``except E as name``."""
    box = _Box()
    try:
        box.munge = None
        if fail:
            raise ValueError("x")
    finally:
        seen = box.munge
        del box.munge
    return seen, hasattr(box, "munge")


@case(("user@[::1]:80",), ("host:8",), ("plain",))
def unpack_with_repeated_underscore(netloc):
    """urllib.parse._NetlocResultMixinStr._hostinfo (3.13): a dead store in an
    unpacking is compiled as POP_TOP."""
    _, _, hostinfo = netloc.rpartition("@")
    _, have_open_br, bracketed = hostinfo.partition("[")
    if have_open_br:
        hostname, _, port = bracketed.partition("]")
        _, _, port = port.partition(":")
    else:
        hostname, _, port = hostinfo.partition(":")
    return hostname, port or None


class _Lock:
    def __init__(self, log):
        self.log = log

    def __enter__(self):
        self.log.append("enter")

    def __exit__(self, *exc):
        self.log.append("exit")


@case(([3, 2, 1],), ([],))
def break_from_with_in_while_true(q):
    """sched.scheduler.run: ``break`` inside a ``with`` inside ``while True``."""
    log = []
    lock = _Lock(log)
    while True:
        with lock:
            if not q:
                break
            x = q.pop()
        log.append(x)
    return log


@case((0,), (1,), (5,))
def return_from_try_finally_inside_for(n):
    """A return inside a for loop inside try/finally drops the loop's iterator
    after the finally copy; the value is computed before it."""
    log = []

    def f():
        for j in range(3):
            try:
                if j == n:
                    return ("ret", j)
            finally:
                log.append(j)
        return "done"

    return f(), log


@case((True,), (False,))
def string_annotation_without_future_import(flag):
    """A string annotation is a constant unless ``from __future__ import annotations``."""
    def inner(x: "int" = 1) -> "ret":
        return x

    return inner(), inner.__annotations__, flag


@case((1, 2), ("a", None), same_bytecode=True)
def parallel_assignment_keeps_evaluation_order(a, b):
    """Random programs: 3.11+ stores ``x, y = e1, e2`` in reverse without a SWAP;
    the text must still evaluate e1 first (here both may raise different errors)."""
    log = []

    def note(v):
        log.append(v)
        return v + v

    x, y = note(a), note(b)
    return x, y, log


@case((1,), (None,), same_bytecode=True)
def parallel_assignment_of_failing_calls(a):
    """Random programs: ``c, b = (i(i(None)), 0 + a)`` with i None raises from the first."""
    i = None
    try:
        c, b = (i(i(None)), 0 + a)
    except TypeError as exc:
        return str(exc)
    return c, b


@case(([1, 2], 0), ([], 1))
def parallel_assignment_of_comprehension_and_conditional(xs, k):
    """Random programs (3.8): a conditional expression, a node the structurer builds,
    still counts as computed after the comprehension before it."""
    log = []

    def note(v):
        log.append(v)
        return v

    ys, z = [note(x) for x in xs], (note("t") if k else note("f"))
    return ys, z, log


@case((lambda: 5, lambda v: v * 2), (lambda: "a", len))
def parallel_assignment_with_a_lambda(a, i):
    """Random programs (3.9): ``a, i = lambda: 65, i(a())`` must call the old ``a``."""
    a, i = lambda: 65, i(a())
    return a(), i


@case(([1, 2],), ([],))
def comprehension_with_constant_false_condition(xs):
    """Random programs (3.12): the compiler drops the element of ``[f(x) for x in xs if None]``;
    the loop must stay a comprehension, so its variable does not leak."""
    x = "outer"
    ys = [undefined_name(x) for x in xs if None]  # noqa: F821  (never evaluated)
    zs = {x: x for x in xs if 0}
    return ys, zs, x


@case((0,), (9,))
def name_bound_only_in_unreachable_code(n):
    """Random programs (3.11): the compiler drops ``b = 1`` after an endless loop, but
    ``b`` stays local to ``g``; the text must keep it local."""
    b = "outer"

    def g():
        if n > 5:
            return b
        while True:
            return "loop"
        b = 1  # noqa: F841  (unreachable)

    try:
        return g()
    except UnboundLocalError:
        return "unbound"


@case((None,), (len,))
def parallel_assignment_to_the_same_name_twice(c):
    """Random programs (3.12/3.13): ``c, c = c(...), 227`` drops the first store; the call
    must still run before ``c`` is rebound."""
    try:
        c, c = (c("ab"), 227)
    except TypeError as exc:
        return "raised " + str(exc)
    return c


@case((1,), (None,))
def with_on_a_value_that_is_not_a_context_manager(value):
    """Random programs (state machine, 3.13): ``with`` on a non-context-manager must raise
    what the interpreter raises (TypeError on 3.11+, AttributeError before)."""
    try:
        with value:
            return "entered"
    except (TypeError, AttributeError) as exc:
        return type(exc).__name__, str(exc)


@case((["a", "b"],), ([],))
def parallel_assignment_with_a_comprehension_second(items):
    """Random programs (3.12/3.13): the inlined comprehension's saved loop name lies
    between the two values; ``b = [...]`` was written before ``a = log()``."""
    log = []

    def first():
        log.append("first")
        return len(log)

    def each():
        for item in items:
            log.append(item)
            yield item

    a, b = first(), [c for c in each()]
    return a, b, log


@case((1,), (0,))
def dead_first_store_before_a_comprehension(a):
    """Random programs (3.13): ``y, y = e, [...]`` drops the dead store of ``e``, which
    must still be evaluated before the comprehension."""
    try:
        y, y = ("s" if a else "t") ^ True, [c for c in (lambda: None)]
    except TypeError as exc:
        return str(exc)
    return y


@case((0,), (3,))
def while_loop_ending_a_with_at_the_end_of_a_function(n):
    """Random programs: the loop's exit is the with's exit copy followed by the return;
    it was taken for a with inside the loop, and the exit call leaked into the body."""
    log = []
    with _Lock(log):
        while len(log) <= n:
            log.append(len(log))
    return log


@case((1,), ("v",), same_bytecode=True)
def dict_display_of_more_than_sixteen_items(x):
    """The stdlib's html and email modules: a dict display of over 16 items is built
    with one MAP_ADD per item, which was taken for a dict comprehension's."""
    return {"k0": x, "k1": x, "k2": x, "k3": x, "k4": x, "k5": x, "k6": x, "k7": x, "k8": x,
            "k9": x, "k10": x, "k11": x, "k12": x, "k13": x, "k14": x, "k15": x, "k16": x,
            "k17": [x], 18: (x, x)}


@case(([1, "a", 3],), (["a", "b"],), ([],), same_bytecode=True)
def return_from_a_try_inside_a_loop(values):
    """The stdlib's enum (``_generate_next_value_``): the returned value is computed in
    the try, and the tail that drops the iterator and returns lies outside it."""
    for v in values:
        try:
            return v + 1
        except TypeError:
            pass
    return "none"


@case(([3, 1],), ([1, "a"],), (["a", "b"],), ([],), same_bytecode=True)
def return_from_a_loop_inside_an_except_clause(values):
    """The same in an except clause: the tail also ends the clause (POP_EXCEPT)."""
    try:
        values.sort()
    except TypeError as exc:
        for v in values:
            try:
                return v + 1, str(exc)
            except TypeError:
                pass
        for v in values:
            return v, "first"
        return "none"
    values.append(0)
    return values


@case((["a"], {"a": 1}), (["a", "b"], {"a": 1}), (["b", "c"], {"a": 1}), (["a", "b", "c"], {"a": 1, "b": 2}))
def raise_with_a_conditional_expression_in_a_loop(names, given):
    """The stdlib's typing (``NamedTupleMeta.__new__``): the raise after the conditional
    expression post-dominates nothing in the loop; its arms meet there all the same
    (the shared f-string part was evaluated in both arms)."""
    seen = []
    for name in names:
        if name in given:
            seen.append(name)
        elif seen:
            raise TypeError(f"field {name} " f"after default{'s' if len(seen) > 1 else ''} "
                            f"{', '.join(seen)}")
    return seen


@case(([(1, None), (None, 2), (3, 4), (5, None)],), ([],))
def generator_with_a_loop_whose_body_starts_with_try(pairs):
    """The stdlib's difflib (``_line_pair_iterator``): the inner loop's header is the try's
    first block; the try body re-entered the loop it was in (and a generator has no state
    machine to fall back on)."""
    def pair_up(it):
        left, right = [], []
        while True:
            while len(left) == 0 or len(right) == 0:
                try:
                    a, b = next(it)
                except StopIteration:
                    return
                if a is not None:
                    left.append(a)
                if b is not None:
                    right.append(b)
            yield left.pop(0), right.pop(0)
    return list(pair_up(iter(pairs)))


@case((5, 10), (0, 10), (20, 10))
def chained_comparison_returned(size, limit):
    """The stdlib's quopri (3.8-3.10): the last comparison returns at once and the
    failed first one returns after dropping the shared operand: two returns, no merge."""
    return 0 < size <= limit, b"0" <= bytes([48 + size % 10]) <= b"9" or size == 20


@case((5, 10), (0, 10), (20, 10))
def chained_comparison_returned_from_a_with(size, limit):
    """The stdlib's queue (``Queue.full``): the value leaves the with body through the
    comparison's cleanup, and the with's exit then returns it."""
    log = []
    with _Lock(log):
        return 0 < size <= limit, log


class _Frames:
    def __init__(self, first, second):
        self.first, self.second = first, second

    def a(self, n):
        if isinstance(self.first, type):
            raise self.first("a")
        return self.first

    def b(self, n):
        if isinstance(self.second, type):
            raise self.second("b")
        return self.second


@case((None, _Frames("m", None)), (None, _Frames(AttributeError, "n")), (None, _Frames(AttributeError, ValueError)),
      ("given", None), (None, _Frames(AttributeError, KeyError)))
def try_in_an_except_clause_falling_through(module, frames):
    """The stdlib's dataclasses (3.12+, ``make_dataclass``): the inner try's body and its
    handler leave through different ends of the outer clause to the same place."""
    if module is None:
        try:
            module = frames.a(1) or "__main__"
        except AttributeError:
            try:
                module = frames.b(1)
            except (AttributeError, ValueError):
                pass
    if module is not None:
        module = module.upper()
    return module


@case((True,), (False,))
def finally_returns_a_call(fail):
    """Random programs: the finally body returns a call; its exception copy drops the
    exception after computing the value, which left a marker in the output."""
    log = []
    try:
        if fail:
            raise KeyError("lost")

        def helper(a):
            return a
        log.append(helper(1))
    finally:
        return len(log), log.copy()


@case(([1, 2, 3],), ([],))
def nonlocal_bound_only_by_a_comprehension_walrus(values):
    """A nested function's comprehension binds the enclosing variable with a walrus:
    the nested def must still declare it nonlocal, or the name becomes its own."""
    last = "unset"

    def scan(xs):
        nonlocal last
        return [(last := x * 2) for x in xs]

    return scan(values), last


@case((["1", "x", "2"],), (["x"],), ([],))
def return_from_a_try_in_a_loop_in_a_with(lines):
    """The stdlib's uuid (``_find_mac``): the return's tail drops the iterator and runs
    the with's exit copy outside the try."""
    log = []
    with _Lock(log):
        for line in lines:
            try:
                return int(line), log
            except ValueError:
                log.append(line)
    return None, log


@case(([0, "x", 3],), ([0, 0],), (["x", 0, 5],))
def return_from_an_if_in_a_try_in_a_loop(values):
    """The stdlib's uuid (``_find_mac`` on 3.8): the return inside an if leaves the try
    body from one arm, with the value on the stack, through the loop's tail."""
    seen = 0
    for v in values:
        try:
            if v + 1 > 1:
                return v, seen
            seen = seen or v + 1
        except TypeError:
            pass
    return None, seen


@case(([0, "x", 3],), ([0, 0],))
def return_from_an_if_in_a_try_in_loops_in_a_with_in_a_try(values):
    log = []
    try:
        with _Lock(log):
            for v in values:
                for k in range(2):
                    try:
                        if v + k > 2:
                            return v + k, log
                    except TypeError:
                        log.append(k)
    except OSError:
        pass
    return None, log


@case((["ab", "xyz", "q"], 3), (["ab"], 3))
def return_from_a_loop_in_a_with(lines, size):
    """The stdlib's uuid (``_ipconfig_getnode``): the loop region inside the with body
    did not know the with, and its exit copy came out as code."""
    log = []
    with _Lock(log):
        for line in lines:
            if len(line) == size:
                return line, log
    return None, log


@case(("a", "a:b"), ("b", "a:b"), (":", "a:b"), ("z", "a:b"))
def chained_comparison_in_a_loop_with_a_subscript_middle(opt, shortopts):
    """The stdlib's getopt (``short_has_arg``, 3.10+): the failed first comparison's
    cleanup and the failed second one both continue the loop, by different jumps."""
    for i in range(len(shortopts)):
        if opt == shortopts[i] != ":":
            return shortopts.startswith(":", i + 1)
    return "not recognized"


@case((1, False), (0, False), (1, True), (0, True))
def finally_body_with_a_conditional_expression(a, fail):
    """Random programs (3.10): the finally body's exception copy has its tail copied
    into both arms of the conditional expression, each with its own re-raise; it was
    read as ``if a: a += 4; raise`` and the normal path's copy was written again after."""
    log = []
    try:
        try:
            if fail:
                raise KeyError("k")
            log.append("body")
        finally:
            a += (4 if a else 1)
    except KeyError:
        log.append("caught")
    return a, log


@case((0.2,), (0.7,), (0.5,))
def conditional_expression_whose_arms_end_alike(p):
    """WRONG RESULT, the stdlib's statistics (module mode, 3.12+): both arms end in
    ``BINARY_OP -; RETURN``, whose shared copy consumes two values each arm computed;
    it came back as ``(2 * p) - (1 if p < 0.5 else ...)``."""
    triangular = lambda q: (2 * q) - 1 if q < 1 / 2 else 1 - (2 - 2 * q)  # noqa: E731
    if p < 1 / 2:
        direct = (2 * p) * 3 - 1
    else:
        direct = 1 - (2 - 2 * p) * 3
    return triangular(p), direct, (2 * p) - 1 if p < 1 / 2 else 1 - (2 - 2 * p)


@case((0,), (5,))
def chained_assignment_then_an_or(c):
    """Random programs (3.10+, 17 of 3.12's 10k failures): ``COPY 1; STORE x; STORE y``
    then an or-value looked like a guarded capture pattern of a match statement."""
    x = y = None
    c = c or 243

    def gen(d):
        i = j = None
        d = (yield (d or 7))
        return d, i, j
    g = gen(c)
    return c, x, y, next(g)


@case(([["a", "x"], ["y", "b"], []],), ([["y"], ["x"]],), ([],))
def while_else_break_threaded_to_the_outer_loop(rows):
    """3.8-3.10 thread the inner ``break`` straight to the outer loop's header (past the
    else clause); as a generator (no state-machine fallback) this raised "jump back into
    the loop" (netrc's shape)."""
    for row in rows:
        while row:
            t = row.pop(0)
            if t == "x":
                yield "break", t
                break
            elif t == "y":
                continue
            yield "item", t
        else:
            yield "else", len(rows)


@case(([["a", "x"], ["y", "b"], []],), ([["y"], ["x"]],))
def while_else_break_threaded_to_the_outer_loop_returns(rows):
    out = []
    for row in rows:
        while row:
            t = row.pop(0)
            if t == "x":
                break
            out.append(t)
        else:
            out.append("else")
            if len(out) > 3:
                return out
    return out


@case(('a,b,"c', 0), ('a,b,c', 0), ('"', 0), ("x", 0))
def while_true_break_then_elif_raise(s, idx):
    """json.decoder's shape: the ``elif ...: raise`` block lies inside the loop but is
    not part of it, and was taken for the target of a break over an else clause."""
    while True:
        nextchar = s[idx:idx + 1]
        if nextchar == '"':
            break
        elif nextchar != ',' and nextchar.isalpha() is False:
            raise ValueError(idx)
        idx += 1
        if idx > 10:
            return -1
    return idx


@case((["ab%c", "x"],), ([],), ([""],), same_bytecode=True)
def while_test_jumping_past_a_long_body(items):
    """3.13: ``TO_BOOL; EXTENDED_ARG; POP_JUMP_IF_FALSE`` (a body over 255 code units)
    read as ``not not items``, so the loop's two tests differed and the loop went to
    the state machine (configparser's _interpolate_some)."""
    out = []
    while items:
        s = items.pop()
        if not s:
            out.append("empty")
            return out
        out.append(s.upper())
        out.append(s.lower())
        out.append(s.strip())
        out.append(s.title())
        out.append(s.count("%"))
        out.append(s.find("%"))
        out.append(s.rfind("b"))
        out.append(s.startswith("a"))
        out.append(s.endswith("c"))
        out.append(s.isalpha())
        out.append(s.isdigit())
        out.append(s.replace("a", "b"))
        out.append(s.split("%"))
        out.append(s.partition("b"))
        out.append(s.zfill(6))
        out.append(s.encode())
        out.append(s.casefold())
        out.append(s.swapcase())
        out.append(s.center(9))
        out.append(s.ljust(7))
        out.append(s.rjust(7))
        out.append(s.expandtabs())
        out.append(s.isspace())
    return out


@case((1,), (0,))
def dead_with_after_a_return(a):
    """3.8/3.9 keep a ``with``'s cleanup (WITH_CLEANUP_START) after a return even though
    its SETUP_WITH was dropped as dead: "unsupported opcode" (random programs)."""
    x = a
    return not not a
    with (lambda b: True) as b:
        del x


@case(([1, 2], 5), ([], 5))
def for_that_never_loops_inside_while_true(a, b):
    """The for body always returns, so FOR_ITER shared the while header's block and the
    while was read as a for loop: "structuring does not terminate" as a generator or in
    a class (random programs, every version); functions went to the state machine."""
    n = 0
    while True:
        n += 1
        for c in a:
            return b, c, n
        b += 1
        if n > 3:
            a = [b]


@case(([0, 0, 3], 1), ([0], 2))
def return_from_a_for_else_inside_while_true(a, b):
    """The return inside the for was taken for the while loop's exit."""
    while True:
        for c in a:
            if c:
                return b, c
        else:
            b += 1
            a = a + [b]


@case(([1], 2), ([], 0))
def generator_with_while_constant_and_for_else(a, b):
    i = yield []
    while 300:
        i = yield [i]
        for c in a:
            return b
        else:
            b += 1
            a = [b]
        yield b


@case((1,), (5,))
def dead_code_after_a_return_in_a_nested_function(a):
    """3.8: the dead code after g's return made y a cell of the recompiled f ("another
    frame layout": cell variables (i, y) != (i,), random programs)."""
    x = y = i = a
    y += 1

    def g(b):
        nonlocal_dummy = b
        return not (i < y)  # y is g's own local (the dead y += 4): UnboundLocalError
        x += []
        if ([16 for x in [290] if 290] if [True for b in [-1] if 's'] else b):
            b += 1
            return 1
        y += 4
    try:
        g(a)
    except UnboundLocalError as exc:
        return "unbound", x, y


class _Ctx:
    def __init__(self, log):
        self.log = log

    def __enter__(self):
        self.log.append("enter")
        return len(self.log)

    def __exit__(self, *exc):
        self.log.append("exit")
        return False


@case((0,), (3,))
def continue_from_a_with_in_a_while(n):
    """3.12: the continue goes to the top test, the bottom test exits through a jump to
    a copy of the return: the two tests were not shared and the loop had two headers
    (random programs: "jump back into the loop"; functions went to the state machine)."""
    log = []
    while len(log) < n * 2:
        while len(log) < n:
            with _Ctx(log) as c:
                continue
        with _Ctx(log) as c:
            continue


@case(([1], 2), (None, 2), ("ab", None), ([], None))
def try_with_two_named_clauses_inside_a_named_except(a, b):
    """3.11/3.12 copy the outer clause's end (``del exc; return``) into each path of the
    inner try: its body and its two clauses left to three identical copies ("except
    clauses leaves to several places", 3.12 10k random run)."""
    try:
        len(a)
    except TypeError as exc:
        try:
            for y in [1, 2]:
                b * 0
        except TypeError as err:
            b.a
        except KeyError as err:
            a += 0


@case((1, 5, False), (0, 5, False), (1, 5, True), (0, 5, True))
def conditional_expression_in_a_finally_body(a, x, fail):
    """3.10/3.12/3.13 copy the tail after a conditional expression (and its re-raise, or
    the code after the try) into each arm: the finally body was refused, so functions went
    to the state machine and generators failed (3.13 10k random run)."""
    try:
        if fail:
            raise KeyError(a)
        y = a * 2
    finally:
        a += x if (a if a else None) else 1
    return a, y


@case((1, 5, False), (0, 5, False), (1, 5, True))
def generator_with_a_conditional_expression_in_a_finally_body(a, x, fail):
    try:
        y = yield a
        if fail:
            raise KeyError(a)
    finally:
        a += x if a else 1
    yield a, y


@case((3, True), (0, True), (2, False))
def generator_finally_with_an_if_runs_once(n, closing):
    """glob._iterdir's shape (3.11/3.12): the normal path's copy of the finally body left
    to two copies of the return, was not recognised, and was written again after the try:
    the finally body ran twice (fd closed twice; the second OSError was swallowed)."""
    log = []

    def gen():
        try:
            fd = 7 if closing else None
            try:
                with _Ctx(log) as it:
                    for entry in range(n):
                        try:
                            if entry % 2:
                                yield entry
                        except OSError:
                            pass
            finally:
                if fd is not None:
                    log.append("close")
        except OSError:
            return
    return list(gen()), log


@case((["a", "b"],), ([],))
def finally_reads_a_name_the_try_assigned(items):
    """argparse's parse_known_intermixed_args (3.12/3.13): the exception path's copy of
    the outer finally loads ``saved`` with LOAD_FAST_CHECK (maybe unbound), the normal
    path's with LOAD_FAST; the copies did not match and the finally body was written
    again after the try (it ran twice)."""
    log = []
    try:
        saved = len(log)
        try:
            for item in items:
                log.append(item)
        finally:
            for item in items:
                log.append(item.upper())
    finally:
        log.append(("restore", saved))
    return log


@case(([0, 3, 5],), ([0],), ([],))
def or_in_a_call_before_break_and_return(chain):
    """3.11+: the two arms of ``base or 1`` meet in the block that calls, drops the
    iterator and returns (the function's end, copied into the break path): outside
    the loop, so no merge point was found and the arms were written twice (a refused
    double evaluation: state machine)."""
    data = []
    for base in chain:
        if base > 1:
            data.append(base or 1)
            break
    return data


@case(({"a": ["b"], "b": ["a"]},), ({"a": ["b", "c"], "b": [], "c": ["a"]},), ({"a": ["b"], "b": []},), ({},))
def while_else_after_a_break_from_try_in_while_true(graph):
    """graphlib's _find_cycle (3.12): the inner ``while``'s break (inside a try) goes to
    the end of the ``while True`` body; the except handler laid out after the function
    made the inner loop's span reach past that point, so it was not taken as the
    place past the else clause ("jump back into the loop": state machine)."""
    stack, itstack, seen, where = [], [], set(), {}
    for node in graph:
        if node in seen:
            continue
        while True:
            if node in seen:
                if node in where:
                    return stack[where[node]:] + [node]
            else:
                seen.add(node)
                itstack.append(iter(graph[node]).__next__)
                where[node] = len(stack)
                stack.append(node)
            while stack:
                try:
                    node = itstack[-1]()
                    break
                except StopIteration:
                    del where[stack.pop()]
                    itstack.pop()
            else:
                break
    return None


@case((["macdef", "a", "b", "\n", ""], ), (["macdef", "a"],), (["other"],), ([""],))
def while_one_with_an_inner_while_one_and_raising_arms(tokens):
    """netrc's _parse (3.12): ``if not tt: break`` became a copy of the return after
    the loop, and the final ``else: raise`` was laid out after the loop: the raise was
    taken for the place the loop goes on, and the inner loop's ``if not line: raise``
    (after a statement in its header) for a while test with an else clause (state
    machine)."""
    it = iter(tokens)
    out = []
    while 1:
        tt = next(it, "")
        if not tt:
            break
        elif tt == "macdef":
            while 1:
                line = next(it, "")
                if not line:
                    raise ValueError("missing terminator")
                if line == "\n":
                    break
                out.append(line)
            continue
        else:
            raise ValueError(tt)
    return out


@case((0,), (1,), (2,), (3,))
def return_from_a_try_in_an_except_clause(n):
    """3.11+: the inner clause's ``return x`` leaves it (its POP_EXCEPT) and then ends
    the outer clause and returns, outside both handlers: the value was left behind in
    the inner clause and the outer one ran the tail on an empty stack (state machine)."""
    def fail(k):
        if n <= k:
            raise KeyError(k)
        return "ok %d" % k
    try:
        return fail(0)
    except KeyError:
        try:
            return fail(1)
        except KeyError:
            return "both failed"


@case((b"YQ==",), (b"YQ",), (b"Y",), (b"!!",))
def return_a_tuple_with_a_conditional_from_nested_trys(encoded):
    """email's decode_b (3.12): ``return (f(x), [d] if c else [])`` in a try: the
    tuple and return were copied into both arms, the return outside the try, so the
    copies split into two blocks and were not shared (a value evaluated twice: state
    machine)."""
    import base64
    import binascii
    pad_err = len(encoded) % 4
    missing = b"==="[:4 - pad_err] if pad_err else b""
    try:
        return (base64.b64decode(encoded + missing, validate=True), ["padding"] if pad_err else [])
    except binascii.Error:
        try:
            return (base64.b64decode(encoded, validate=False), ["characters"])
        except binascii.Error:
            return encoded, ["length"]


@case(([["a", "=x", "b"], ["", "c"]],), ([],), ([[" d"]],))
def while_in_a_for_ending_with_an_if(lines):
    """email.header's decode_header (3.12): the while loop's repeated test at its
    bottom became a jump to the top test, and the rest of that test, now dead, still
    counted as part of the loop: it took the for loop's header for code past a while
    else clause ("jump back into the loop": state machine)."""
    words = []
    for line in lines:
        parts = list(line)
        first = True
        while parts:
            unencoded = parts.pop(0)
            if first:
                unencoded = unencoded.lstrip()
                first = False
            if unencoded:
                words.append((unencoded, None))
            if parts:
                words.append((parts.pop(0), 1))
    return words


@case(("ab.c",), ("..x!y",), ("\\\\!",), ("",), ("a?b",))
def while_with_a_compound_test_and_continue(value):
    """email's get_obs_local_part (3.11+): the bottom copy of the test ``value and
    (value[0] == '\\\\' or value[0] not in '!?')`` spans several blocks and was not
    shared with the top one, so ``continue`` made a second, nested loop (and in
    get_obs_local_part "jump back into the loop": state machine)."""
    out = []
    while value and (value[0] == "\\\\" or value[0] not in "!?"):
        if value[0] == ".":
            out.append("dot")
            value = value[1:]
            continue
        try:
            token, value = value[0], value[1:]
            if token == "c":
                raise KeyError(token)
        except KeyError:
            if value[:1] not in "xy":
                raise
            token = "cfws"
        out.append(token)
    return out, value


@case(([[0, "", 3], [None, 4]],), ([[0], []],), ([],), ([[5]],))
def or_before_a_break_that_goes_on_with_the_outer_loop(chains):
    """enum's _find_data_type_: ``found.add(candidate or base); break`` in a for loop
    nested in another: the break path goes on with the outer loop, outside the inner
    loop's body, so the arms of the ``or`` had no merge point and were written twice
    (a refused double evaluation: state machine)."""
    found = []
    for chain in chains:
        candidate = None
        for base in chain:
            if base:
                found.append(candidate or base)
                break
            else:
                candidate = candidate or base
    return found


@case((5, 0, 8, 3), (100, 2, 3, 7), (0, 9, 8, 1), (-40, 0, 2, 5))
def while_with_an_or_of_ands_over_two_lines(y, R, L, M):
    """_pydecimal's _ilog: the test spans two lines; matching only its second line's
    copy made the bottom test jump into the middle of the top one, and structuring
    that recursed until Python's limit ("nested too deeply")."""
    if M > 6:
        y += 1
    while (R <= L and abs(y) << L - R >= M or
           R > L and abs(y) >> R - L >= M):
        y = y // 2
        R += 1
    return y, R


@case(({1: "a"}, 1, []), ({}, 2, [(2, "b")]), ({}, [3], [([3], "c")]), ({}, [4], [([5], "d")]),
      ({}, 6, [(7, "e")]))
def for_else_break_in_an_except_clause_in_a_try(table, value, pairs):
    """enum's _proto_member.__set_name__ (3.13): the ``break`` path, laid out before
    the else clause (which raises), leaves the except clause straight away; it was
    not taken for the break ("a loop leaves its enclosing try": state machine)."""
    log = []
    try:
        try:
            member = table[value]
        except TypeError:
            for key, candidate in pairs:
                if key == value:
                    member = candidate
                    break
            else:
                raise KeyError
    except KeyError:
        member = None
    log.append(member)
    try:
        table[value] = member
    except TypeError:
        log.append("unhashable")
    return log


@case(({1: "a"}, 1, []), ({}, [3], [([3], "c")]), ({}, [4], [([5], "d")]))
def for_break_in_an_except_clause_then_return(table, value, pairs):
    """3.13 copies the ``return`` after the try into the break path, after the end of
    the except clause (which runs no code): the return goes inside the loop."""
    try:
        try:
            member = table[value]
        except TypeError:
            for key, candidate in pairs:
                if key == value:
                    member = candidate
                    break
            else:
                raise KeyError
    except KeyError:
        member = None
    return member


@case(([("a", 1), ("b", [2]), ("c", [3])], [[2]], [[2], [9]]), ([], [], []), ([("d", [4])], [], [[4]]))
def for_break_in_an_except_clause_inside_a_for(attrs, unhashable, members):
    """enum's _simple_enum convert_class (3.13): the inner loop's ``break`` runs a copy of
    the except clause's end (``POP_EXCEPT``; jump), not a jump to the loop's exit ("a
    loop leaves its enclosing try": state machine)."""
    table = {1: "one"}
    out = []
    for name, value in attrs:
        try:
            contained = table.get(value)
        except TypeError:
            contained = None
            if value in unhashable:
                for m in members:
                    if m == value:
                        contained = m
                        break
        if contained is not None:
            out.append(contained)
        else:
            out.append(name)
    return out


@case((0, 48), (-3, 48), (-2, 7), (1, 0))
def while_with_a_chained_comparison_in_an_else(ye, yc):
    """_pydecimal's _power_exact: ``while m % 2 == n % 2 == 0`` in an else arm.  The
    failed first comparison's cleanup (``POP_TOP``) was taken for a while-else clause
    (3.8-3.10) or for where the loop goes on (3.11+), and 3.12+ copied the return into
    the cleanup: stack underflow, state machine."""
    if ye >= 0:
        m, n = yc, 1
    else:
        m, n = yc, 10 ** (-ye)
        while m % 2 == n % 2 == 0:
            m //= 2
            n //= 2
    return m, n


@case(([], set()), ([(True, ["a", "b"])], {"b"}), ([(True, ["a"]), (False, [])], set()),
      ([(False, ["x"])], set()))
def for_else_raising_with_a_comprehension_in_a_for(groups, seen):
    """argparse's _parse_known_args (3.13): the else clause's inlined comprehension runs
    in a try of its own; its start was taken for a break path leaving the try the loop
    runs in (a rule for loops in except clauses), and the outer loop went on there."""
    for required, actions in groups:
        if required:
            for action in actions:
                if action in seen:
                    break
            else:
                names = [a for a in actions if a]
                raise ValueError(names)
    return "ok"


@case(("a",), ("b",), ("c",), ("d",), same_bytecode=True)
def two_elifs_returning_alike_on_two_lines(name):
    """_pydecimal's Context.__setattr__: two arms return the same call on two lines;
    joining conditions across copies of one return (3.12+) took them for one place and
    wrote ``if name == 'b' or name == 'c'`` (same behaviour, other bytecode)."""
    if name == "a":
        return len(name) + 1
    elif name == "b":
        return len(name) + 2
    elif name == "c":
        return len(name) + 2
    else:
        raise KeyError(name)


@case(([1, 0, 2],), ([],), same_bytecode=True)
def if_at_the_bottom_of_a_loop_body(xs):
    """3.10/3.11 jump from the test straight to the loop's bottom ``JUMP``, where the
    body ends too: it was read as ``if not x: continue`` (same behaviour, other bytecode)."""
    out = []
    for x in xs:
        if x:
            out.append(x)
            out.append(-x)
    return out


@case(([1, 0, 2],), ([],), same_bytecode=True)
def if_not_continue_then_statements(xs):
    """``if not x: continue`` compiles to a backward conditional jump, as an ``if`` at
    the bottom of the body does; the ``continue`` has a line of its own, and was read as
    ``if x: ...`` (same behaviour, other bytecode)."""
    out = []
    for x in xs:
        if not x:
            continue
        out.append(x)
        out.append(-x)
    return out


@case(([1, 0, 2],), ([],), ([None],), same_bytecode=True)
def if_at_the_end_of_a_try_in_a_loop(xs):
    """contextlib's ExitStack.__exit__: the test jumps to the end of the try body, which
    goes on to the next round; it was written ``if not c: continue``, and a traceback
    through the module's decompiled file quoted that line, not ``if cb(...):``."""
    out = []
    while xs:
        try:
            if xs.pop() > 0:
                out.append(1)
                out.append(2)
        except TypeError:
            out.append(None)
    return out


@case(([1, "a", 2.5, None],), ([],), same_bytecode=True)
def two_continues_then_an_if_at_the_bottom(xs):
    """unittest.mock's seal (3.12): two ``if c: continue`` and an ``if`` ending the body
    all jump back to the loop's top; they were joined into one condition."""
    out = []
    for x in xs:
        if not isinstance(x, (int, float)):
            continue
        if isinstance(x, bool):
            continue
        if x > 1:
            out.append(x)
    return out


class _Entries:
    def __init__(self, items):
        self.items = iter(items)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def __next__(self):
        item = next(self.items)
        if isinstance(item, Exception):
            raise item
        return item


@case(([1, 2],), ([1, OSError("x"), 2],), ([],))
def generator_breaking_out_of_a_nested_try_in_a_loop_in_a_with(items):
    """os.walk: ``break`` from an inner ``except StopIteration`` inside an outer try, in a
    loop inside ``with``.  The break path runs through except clauses only (no block of
    the loop body leaves it), so the loop has no follow; a generator has no state
    machine to fall back on."""
    def walk(entries, errors):
        with entries:
            while True:
                try:
                    try:
                        entry = next(entries)
                    except StopIteration:
                        break
                except OSError as error:
                    errors.append(str(error))
                    return
                yield entry
        yield "done"
    errors = []
    return list(walk(_Entries(items), errors)), errors


@case(([3, 0, 5, 1],), ([],), same_bytecode=True)
def while_test_with_an_empty_body_at_the_end(items):
    """multiprocessing's Condition.notify (3.8): ``while c: pass`` ending a function; its
    backward ``JUMP`` has the ``pass`` line, and the test was taken for an
    ``if c: continue`` in a ``while True``."""
    seen = []
    if items:
        for x in items:
            seen.append(x)
        while items.pop():
            pass
    return seen, items


@case(([1, 2, 3],), ([3, 2, 1],), ([],), same_bytecode=True)
def chained_comparison_statement_ending_a_loop_body(items):
    """Random programs (3.13): ``a < f(x) < c`` as the last statement of a loop body; the
    comparison's arm and the failed test's cleanup each jump back to the loop."""
    seen = []

    def f(x):
        seen.append(x)
        return x
    for x in items:
        1 < f(x) < 3
    return seen


@case((lambda: 5,), (lambda: 0,), (lambda: {}.x,), (lambda: 1 / 0,), same_bytecode=True)
def try_else_ending_in_an_if_inside_an_outer_try(g):
    """multiprocessing's Server.serve_client (every version): an inner try's ``else``
    ends in an if/else whose arms jump to the jump out of the outer try's protected
    range; the arms were taken to leave the clause for good ("else clause does not
    rejoin"), and 3.8-3.10 fell back to the state machine."""
    sent = []
    try:
        try:
            res = g()
        except ZeroDivisionError:
            msg = "error"
        else:
            if res:
                msg = ("value", res)
            else:
                msg = "empty"
    except AttributeError:
        msg = "attribute"
    sent.append(msg)
    return sent


@case(([1, 2, 0, 3],), ([],), ([1, "x", None],))
def server_loop_with_try_else_in_a_try(requests):
    """The whole serve_client shape: the same, in a loop, with except clauses after it
    and a nested try sending the message."""
    sent, queue = [], list(requests)
    while queue:
        methodname = None
        try:
            request = queue.pop(0)
            methodname = "double"
            try:
                res = request * 2
            except TypeError as e:
                msg = ("#ERROR", type(e).__name__)
            else:
                typeid = request and request > 1
                if typeid:
                    msg = ("#PROXY", res)
                else:
                    msg = ("#RETURN", res)
        except AttributeError:
            if methodname is None:
                msg = ("#TRACEBACK", None)
            else:
                msg = ("#RETURN", methodname)
        except Exception:
            msg = ("#TRACEBACK", "other")
        try:
            try:
                sent.append(msg)
            except Exception:
                sent.append(("#UNSERIALIZABLE",))
        except Exception:
            break
    return sent


@case((1,), (3,), same_bytecode=True)
def displays_of_over_thirty_computed_items(k):
    """pickletools (3.10+): a list display of over 30 items that are not constants is
    built from an empty list, each item appended right on top of it; the empty list was
    taken for a comprehension's accumulator ("structuring left an Appended").  Sets are
    built the same way, and tuples as a list."""
    f = [k].__mul__
    items = [f(0), f(1), f(2), f(3), f(4), f(5), f(6), f(7), f(8), f(9), f(10), f(11), f(12), f(13),
             f(14), f(15), f(16), f(17), f(18), f(19), f(20), f(21), f(22), f(23), f(24), f(25), f(26),
             f(27), f(28), f(29), f(30), f(31), f(32)]
    unique = {k + 0, k + 1, k + 2, k + 3, k + 4, k + 5, k + 6, k + 7, k + 8, k + 9, k + 10, k + 11,
              k + 12, k + 13, k + 14, k + 15, k + 16, k + 17, k + 18, k + 19, k + 20, k + 21, k + 22,
              k + 23, k + 24, k + 25, k + 26, k + 27, k + 28, k + 29, k + 30, k + 31, k + 32, k + 33}
    row = (k, -k, k, -k, k, -k, k, -k, k, -k, k, -k, k, -k, k, -k, k, -k, k, -k, k, -k, k, -k,
           k, -k, k, -k, k, -k, k, -k, k, -k)
    return items, sorted(unique), row


@case(([1, 2], [3]), ([0, -1], [3, 4]), ([0], None), same_bytecode=True)
def return_from_a_loop_in_a_try_then_another_loop(opts, args):
    """pydoc's cli (every version): ``return`` from a loop inside a try body whose only
    handlers are except clauses; the constant and the return come after the protected
    range, which was taken for the loop leaving the try ("a loop leaves its enclosing
    try or with"), and the state machine took over."""
    seen = []
    try:
        for opt in opts:
            if opt < 0:
                return
        for arg in args:
            seen.append(arg)
    except TypeError:
        seen.append("no args")
    seen.append(len(seen))
    return seen


@case(([1, 0, 2, 0],), ([0, 0],), ([],), same_bytecode=True)
def continue_from_an_except_clause_in_a_with_in_a_loop(pids):
    """asyncio's FastChildWatcher._do_waitpid_all (every version): ``if c: continue`` in an
    except clause inside a ``with`` in a loop.  The continue runs the with's exit copy,
    then jumps to the loop's header, which is also where the body ends: it was taken for
    the end of the body, the clause for one leaving to two places, and the state
    machine took over (3.8 refused)."""
    log = []
    lock = _Lock(log)
    pending = list(pids)
    while pending:
        with lock:
            try:
                value = 10 // pending.pop()
            except ZeroDivisionError:
                if len(pending) % 2:
                    continue
                value = None
        log.append(value)
    return log


@case((0,), (1,), (2,))
def finally_returning_a_lambda_in_an_except_clause(n):
    """Random programs (every version): ``return lambda: ...`` as a finally body inside an
    except clause.  The return leaves through the clause's cleanup; the pending function
    was not taken for a returned value, so the finally body came out empty (a generator,
    which has no state machine to fall back on, was refused).  Not the same bytecode: a
    finally body that returns a computed value is also written after the try (dead
    code), since its handler copy drops the exception before returning."""
    log = []

    def gen(k):
        yield k
        try:
            log.append(10 // k)
        except ZeroDivisionError as err:
            try:
                log.append(type(err).__name__)
            finally:
                return lambda: k + 1

    def plain(k):
        try:
            log.append(10 // k)
        except ZeroDivisionError as err:
            try:
                log.append(type(err).__name__)
            finally:
                return lambda: k + 2
    made = plain(n)
    return list(gen(n)), made() if made else None, log


@case((0, [1]), (1, [2]), (2, []), same_bytecode=True)
def finally_body_returning_on_one_path(flag, items):
    """Random programs (every version): ``finally: if c: return v``.  Leaving by the
    return, the handler's copy of the body drops its exception first (``POP_TOP;
    POP_EXCEPT``, or under the value ``SWAP 2; POP_TOP; SWAP 2; POP_EXCEPT``) where the
    normal path's copy has nothing to drop; the copies did not match and the state
    machine took over (a generator was refused)."""
    log = []

    def plain():
        try:
            log.append(len(items))
        finally:
            if flag:
                return [flag, items]
        log.append("after")
        return None

    def gen():
        yield flag
        try:
            log.append(10 // flag)
        finally:
            while items:
                return items.pop()
        log.append("after gen")
    out = []
    try:
        out.append(list(gen()))
    except ZeroDivisionError:
        out.append("raised")
    return plain(), out, log


@case((1,), (0,))
def name_bound_only_in_a_dead_except_clause(n):
    """Random programs (3.12+): ``try: pass`` keeps its except clause in the bytecode,
    unreachable; a name bound only there is still local, so reading it first raises
    UnboundLocalError.  The store in the dead handler counted as written, the except
    clause is not, and the name became the enclosing function's.  Not the same bytecode:
    the binding is kept by dead code (``if False: n = None``)."""
    def g(a):
        try:
            seen = n
        except NameError:
            return "unbound"
        try:
            pass
        except (KeyError, IndexError):
            n = a
        return seen
    return g(n)


@case(([1, 2, 0, 3, 4],), ([5, 6],), ([],), structured=True)
def break_to_the_top_of_a_loop_whose_header_is_in_a_try(chunks):
    """stdlib_sweep (3.8/3.9, tokenize's ``_tokenize``): a ``break`` from an inner loop
    that ends the outer loop's body jumps straight to the outer loop's top, whose first
    block is in a try.  The inner loop's ways out were filtered to those outside every
    try, so its follow became the break's own arm and structuring ran back into the
    outer loop from inside it.  Not the same bytecode: the ``pass`` arms come back as
    ``continue`` (the same jump to the loop's bottom)."""
    out = []
    source = iter(chunks)

    def gen():
        line = None
        while True:
            try:
                line = next(source)
            except StopIteration:
                return
            pos = 0
            while pos < 3:
                pos += 1
                if line:
                    if line == 1:
                        pass
                    elif line == 2:
                        pass
                    elif line > 2:
                        if pos == 2:
                            out.append(line)
                            break
                        else:
                            yield line * 10
    return list(gen()), out


@case((0,), (1,), (2,), (3,), same_bytecode=True)
def retry_loop_returning_from_its_trys(fails):
    """stdlib_sweep (mailbox's ``_open_mh_sequences_file``, every version):
    ``while True: try: return f() except E: pass``.  The return comes after the
    try's range, so it was the loop's only way out and taken for the code after the
    loop: structuring ran out of stack (a refusal with ``**kwargs``, else the state
    machine)."""
    tries = []

    def attempt(kind, **options):
        tries.append(kind)
        if len(tries) <= fails and kind == "first":
            raise KeyError(kind)
        if len(tries) <= fails:
            raise ValueError(kind)
        return kind, options

    def opener(extra):
        while True:
            try:
                return attempt("first", **extra)
            except KeyError:
                pass
            try:
                return attempt("second", **extra)
            except ValueError:
                pass

    def plain():
        while True:
            try:
                return attempt("plain")
            except (KeyError, ValueError):
                pass
    return opener({"mode": "b"}), plain(), tries


@case((0, [3, 0, 5]), (2, [1, 2]), (1, []), (3, [4]), same_bytecode=True)
def break_from_a_loop_that_ends_a_finally_body(value, items):
    """stdlib_sweep (3.12+: asyncio.locks' ``Semaphore.acquire``, os.fwalk): a loop at
    the end of a finally body; leaving it is reaching the body's end, so in the handler
    copy the compiler threads each ``break`` (and the loop's own test) to the final
    ``RERAISE``, which read as ``raise``.  Refused, or lowered to the state machine;
    and the ``return True`` after the try, which 3.12+ copy into each way out of the
    loop, moved into the try body (it is on a later line than the finally body).
    3.8/3.9: a loop at the top of the finally body jumped back onto the handler's
    ``PUSH_EXC_INFO`` in the 3.11-model rewrite, so the copies did not match."""
    log = []
    counter = [value]

    def wake():
        log.append("wake")
        if not items:
            return 0
        return items.pop()

    def acquire(fail):
        try:
            if fail:
                raise KeyError(fail)
            log.append("body")
        finally:
            while counter[0] > 0:
                counter[0] -= 1
                if not wake():
                    break
        return True

    def drain(fail):
        try:
            log.append(10 // fail)
        finally:
            if items:
                for item in list(items):
                    if item > 3:
                        break
                    log.append(item)
        return len(log)

    out = []
    for fail in (0, 1):
        try:
            out.append(acquire(fail))
        except KeyError:
            out.append("raised")
        try:
            out.append(drain(fail))
        except ZeroDivisionError:
            out.append("zero")
    return out, log, counter


@case(([3, 0, 5],), ([1, 2],), ([],), same_bytecode=True)
def conditional_break_ending_a_while_body(items):
    """Found with asyncio.locks' case (3.11): ``if not c: break`` as the last statement
    of a ``while`` body jumps on into the copy of the loop's test at the bottom, which
    reads as ``continue``; it came back as ``if c: continue`` then ``break``."""
    log = []
    while len(items) > 1:
        log.append(items.pop())
        if not items[-1]:
            break
    return log, items


@case(([b"ab", "eintr", b"c", b""],), ([b"x", "block", b"y"],), (["eintr", "eintr"],), ([],), structured=True)
def loop_left_from_its_trys_except_clauses(chunks):
    """stdlib_sweep (asyncio's ``_read_from_self``, every version): ``while True: try:
    ... break ... except E: continue except F: break``.  The second clause's test runs
    under the same handler as the first and was taken for the code after the loop (the
    other way out is a copy of the return, with nothing after it): stack underflow,
    then the state machine.  Not the same bytecode: the ``continue`` that ends the
    loop's body comes back as ``pass``."""
    got = []
    source = iter(chunks)

    class Interrupted(Exception):
        pass

    class Blocking(Exception):
        pass

    def recv():
        chunk = next(source, b"")
        if chunk == "eintr":
            raise Interrupted
        if chunk == "block":
            raise Blocking
        return chunk

    def read():
        while True:
            try:
                data = recv()
                if not data:
                    break
                got.append(data)
            except Interrupted:
                continue
            except Blocking:
                break

    read()
    return got


@case(("ab\\\\c\\\"d",), ("plain",), ("\\\\",), ("",), structured=True)
def chained_comparison_loop_left_by_a_compound_test(text):
    """stdlib_sweep (http.cookies' ``_unquote``, 3.10+): ``while 0 <= i < n:`` whose body
    breaks under ``if a and b``.  The way out when the loop's first comparison fails
    drops the chain's middle value (``POP_TOP``) and was taken for the code after the
    loop, which then ran the drop on an empty stack; the state machine took over.  Not
    the same bytecode: the break comes back as a copy of the return after the loop."""
    i, n, out = 0, len(text), []
    while 0 <= i < n:
        escape = text.find("\\", i)
        quote = text.find('"', i)
        if escape < 0 and quote < 0:
            out.append(text[i:])
            break
        j = escape if escape >= 0 else quote
        out.append(text[i:j] + "|")
        i = j + 1
    return out


@case((["ok"],), (["again", "ok"],), (["again", "stop"],), (["fatal"],), (["stop"],), structured=True)
def break_after_a_try_whose_clauses_continue(replies):
    """stdlib_sweep (tarfile's ``TarFile.next``, multiprocessing's ``Queue._feed``, every
    version): ``while True: try: x = f() except E: if c: continue ... break``.  The
    ``break`` after the try and the end of each clause that did not continue all land
    after the loop, but by different ways (a jump, a clause's end, 3.10 and 3.12+ a
    copy of the return each); the clause's end was taken for the follow, and ran its
    ``POP_EXCEPT`` after the loop: the state machine took over.  Not the same bytecode:
    the break comes back inside the try body."""
    source = iter(replies)
    log = []

    class Again(Exception):
        pass

    class Stop(Exception):
        pass

    def fetch():
        reply = next(source)
        if reply == "again":
            raise Again(reply)
        if reply in ("stop", "fatal"):
            raise Stop(reply)
        return reply

    def next_member():
        member = None
        while True:
            try:
                member = fetch()
            except Again as e:
                log.append(str(e))
                if len(log) < 3:
                    continue
            except Stop as e:
                if str(e) == "fatal":
                    raise ValueError("fatal") from None
            break
        return member

    try:
        return next_member(), log
    except ValueError as e:
        return str(e), log


@case((0,), (1,), (2,), same_bytecode=True)
def except_clause_whose_type_is_a_call(kind):
    """stdlib_sweep (urllib.request's ``ftpwrapper``, every version): ``except
    errors():``.  The handler was classified by the instructions before its
    ``CHECK_EXC_MATCH``, and a call there made it a finally body: refused, then the
    state machine."""
    def errors(extra=()):
        return (KeyError, IndexError) + tuple(extra)

    def run():
        if kind == 0:
            return "none"
        if kind == 1:
            raise KeyError(kind)
        raise ValueError(kind)

    try:
        return run()
    except errors():
        return "caught"
    except errors(extra=[ValueError])[2:]:
        return "caught by a slice"


@case(({"a": 1, "b": 2, "c": 3},), ({"a": None, "b": 2, "c": 3},), ({"a": 1, "b": None, "c": 3},),
      ({"a": 1, "b": 2},), structured=True)
def return_under_an_or_condition_in_a_try(fields):
    """stdlib_sweep (ast's ``get_source_segment``, 3.8 and 3.11): ``try: if a is None or
    b is None: return None`` then more of the body.  The return lies after the try's
    range and is reached from both tests of the condition; only a return reached from one
    place was taken back inside, so this one read as a second way out of the try body:
    refused, then the state machine."""
    class Node:
        pass

    node = Node()
    for name, value in fields.items():
        setattr(node, name, value)

    def segment(node):
        try:
            if node.a is None or node.b is None:
                return None
            c = node.c
        except AttributeError:
            return None
        return node.a + node.b + c

    return segment(node)


@case(([b"ab", "again", b"cd", "fatal"],), ([b"x", "fatal"],), (["fatal"],), same_bytecode=True)
def endless_loop_left_only_by_raising_from_an_except_clause(replies):
    """stdlib_sweep (socket's ``_sendfile_use_sendfile``, every version): ``while True:
    try: ... except E: pass except F as err: raise err from None`` (in a try/finally).
    The loop has no way out but the raise; the second clause's test was the only block
    outside it, so it was taken for the code after the loop: stack underflow, then the
    state machine."""
    source = iter(replies)
    sent = []

    def send():
        reply = next(source)
        if reply == "again":
            raise BlockingIOError
        if reply == "fatal":
            raise OSError("fatal")
        return reply

    def loop():
        try:
            while True:
                try:
                    sent.append(send())
                except BlockingIOError:
                    pass
                except OSError as err:
                    raise ValueError(str(err)) from None
        finally:
            sent.append("closed")

    try:
        loop()
    except ValueError as e:
        return sent, str(e)


@case(([1, 2, None, 3],), ([1, "empty"],), ([None],), structured=True)
def break_from_an_if_in_a_try_in_an_endless_loop(items):
    """stdlib_sweep regression of 7c0e6b8 (logging.handlers' ``QueueListener._monitor``,
    uu, http.cookiejar, zipimport): ``while True: try: ... if x is sentinel: if c:
    done(); break ... except Empty: break``.  The only block outside the loop's body is
    the break's arm, inside the try; leaving out the next except clauses left it out
    too, and without a follow the break was refused.  Only blocks under a clause's
    cleanup handler are now left out."""
    source = iter(items)
    done = []

    class Empty(Exception):
        pass

    def dequeue():
        item = next(source)
        if item == "empty":
            raise Empty
        return item

    def monitor(has_task_done):
        record = None
        while True:
            try:
                record = dequeue()
                if record is None:
                    if has_task_done:
                        done.append("sentinel")
                    break
                done.append(record)
                if has_task_done:
                    done.append("task")
            except Empty:
                break

    monitor(True)
    return done


@case(("linux", "glibc 2.28"), ("linux", "glibc 2.10"), ("linux", "musl"), ("linux", None),
      same_bytecode=True)
def and_chain_return_in_a_try_then_a_return_after_it(platform, ver):
    """stdlib_sweep regression of 012659f (subprocess' ``_use_posix_spawn``, 3.10):
    ``try: ... if a and b and c: return True  except E: pass  return False``.  3.10
    copies the return after the try to the end of its body, where the and-chain's
    failing tests jump; that copy was taken for a return inside the try (same
    behaviour, other bytecode).  A return reached from several tests of one condition
    is taken inside only if it is written before the handler."""
    try:
        parts = ver.split(maxsplit=1)
        if len(parts) != 2:
            raise ValueError
        libc = parts[0]
        version = tuple(map(int, parts[1].split(".")))
        if platform == "linux" and libc == "glibc" and version >= (2, 24):
            return True
    except (AttributeError, ValueError):
        pass
    return False


@case((2,), same_bytecode=True)
def generator_yielding_after_a_lambda(n):
    """Regression of 7d63ef6: whether a generator's text still yields was checked by
    walking each statement only up to its first nested function (breadth first); the
    ``yield`` after the lambda was missed and a dead ``if False: yield`` added (the
    compiler drops it, so only the text showed it).  Nested scopes are now skipped,
    not the rest of the statement."""
    fs = [lambda: n, (yield n + 1)]
    return fs[1]


@case(([1, 2],), same_bytecode=True)
def comprehension_target_also_a_dead_local(y):
    """Review regression: a local stored only in dead code counted as bound in the text
    when a comprehension used its name as a target, though before 3.12 that target
    is the comprehension's own; the local was dropped from the frame.  Comprehensions
    that are a scope of their own no longer bind their targets here."""
    return [x for x in y]
    x = 1  # noqa: F841  (dead: the compiler keeps the name a local)


@case((["", "x", "1", "y"],), (["", "a"],), ([],), structured=True)
def with_loop_if_try_continue(lines):
    """Regression: 3.13 leaves an ``if`` test in a loop in a ``with`` out of the
    exception table when its true arm starts a ``try`` (pdb.find_function); the
    jump looked like a way out of the ``with``, and the function became a state
    machine.  A jump between covered code and a ``try`` nested in it shares the
    outer handler."""
    log = []
    with contextlib.nullcontext(log):
        for line in lines:
            if line:
                try:
                    value = int(line)
                except ValueError:
                    log.append(line)
                    continue
                return value, log
    return None, log


@case((["a", "b", "c", "d"], [{"b": 1}, {"c": 2}], {"a": 0}),
      (["x"], [], {}), structured=True)
def except_clause_loop_break_over_else_continue(keys, bases, direct):
    """Regression: inspect._getmembers on 3.13.  In an except clause, a loop's
    ``break`` copies the clause's end inline and its ``else: continue`` leaves the
    clause by other code; the break's copy was not taken for the loop's follow
    (that was only done for an else clause that raises), so the function became
    a state machine."""
    found = []
    for key in keys:
        try:
            value = direct[key]
        except KeyError:
            for base in bases:
                if key in base:
                    value = base[key]
                    break
            else:
                continue
        found.append((key, value))
    return found


@case((True, []), (False, []), (True, None), structured=True)
def finally_tail_copied_into_each_path(flag, log):
    """Regression: fileinput.FileInput.nextfile on 3.13.  The short tail of a finally
    body (``box.y = 2`` and the re-raise) is copied into each path of the handler
    copy, the end of an except clause included; the copies read as re-raises left
    in the arms, and the function became a state machine."""
    box = _Box()
    try:
        try:
            log.append(0)
        finally:
            if flag:
                try:
                    log.append(1)
                except AttributeError:
                    pass
            box.y = 2
    except AttributeError:
        return "raised", box.y
    return log, box.y


@case((None, []), ("", []), ("bye", []), ("bye", None), structured=True)
def finally_ending_in_if_elif(msg, log):
    """Regression: code.InteractiveConsole.interact on 3.13.  Each arm of the
    ``if``/``elif`` ending a finally body gets its own re-raise in the handler copy;
    the ``elif`` was laid out after the first arm's re-raise, which was left in."""
    seen = []
    try:
        try:
            log.append(0)
        finally:
            if msg is None:
                seen.append("none")
            elif msg != "":
                seen.append(msg)
    except AttributeError:
        return "raised", seen
    return log, seen


@case(([1, 2, 3], {2}, {1}), ([1, 2, 3], set(), {1, 2}), ([4], {4}, set()), ([], set(), set()),
      structured=True)
def except_clause_continue_then_break(items, failing, retry):
    """Regression: tempfile._get_default_tempdir on 3.12 and 3.13.  ``break`` from an
    except clause in a loop is threaded on to a copy of the ``return`` after the loop
    (the clause's end, the iterator dropped, then the return); that code was taken
    for the loop's follow past an else clause, and structuring underflowed the stack."""
    done = []
    for item in items:
        try:
            if item in failing:
                raise PermissionError(item)
            done.append(item)
        except PermissionError:
            if item in retry:
                continue
            break
    return done


@case(([0, 1, 5, 2, 7, 0],), ([1, 5, 0],), ([3, 1, 2, 0],), ([],), structured=True)
def inner_loop_breaks_threaded_to_outer_end(stream):
    """Regression: mailbox.MMDF._generate_toc.  Both ``x(); break`` arms of an inner
    ``while True`` jump straight to the outer loop's back edge (the breaks threaded
    past the end of the ``if`` arm); the loop's follow was taken to be the last arm,
    and structuring ran into the outer loop's header from inside it."""
    items = iter(stream + [None])
    out = []
    while True:
        line = next(items)
        if line == 1:
            out.append("start")
            while True:
                line = next(items)
                if line == 2:
                    out.append("stop")
                    break
                elif not line:
                    out.append("end")
                    break
        elif not line:
            break
    return out


@case(([1, 2, 0], 0), ([], 0), ([0], 5), ([3, 0], 0), structured=True)
def generator_try_in_while_true_returns_from_clause(items, n):
    """Regression: a ``return`` in an except clause of a try inside ``while True`` was
    taken for the loop's follow (the loop's only other way out re-raises), and the
    clause's end (``POP_EXCEPT``) ran after the loop: "stack underflow"."""
    it = iter(items)
    while True:
        try:
            n = next(it)
        except StopIteration:
            if not n:
                return
        yield n


@case(([1, 2, 0], 0), ([], 0), ([4, 0], 7), structured=True)
def call_in_while_true_after_try_returning_from_clause(items, n):
    """Regression: the shape above with a call in place of ``yield`` was lowered to the
    state machine."""
    out = []

    def consume(it, n):
        while True:
            try:
                n = next(it)
            except StopIteration:
                if not n:
                    return
            out.append(n)

    consume(iter(items), n)
    return out


@case((["a", "b", "", "c", "d"], 2), ([], 3), (["x"], 1), (["x", "y", "z"], 5), structured=True)
def buffered_generator(items, size):
    """Regression: jinja2.environment.TemplateStream._buffered_generator."""
    gen = iter(items)
    buf = []
    c_size = 0
    push = buf.append
    while True:
        try:
            while c_size < size:
                c = next(gen)
                push(c)
                if c:
                    c_size += 1
        except StopIteration:
            if not c_size:
                return
        yield "".join(buf)
        del buf[:]
        c_size = 0


class _Attrs:
    def __init__(self, a=None, b=None, c=True):
        self.a, self.b, self.c = a, b, c

    def __repr__(self):
        return "_Attrs(%r, %r, %r)" % (self.a, self.b, self.c)


@case((_Attrs(),), (_Attrs(1, 1),), (_Attrs(1, None),), same_bytecode=True)
def is_chain_in_if_then_import(x):
    """Regression: sympy.core.expr.Expr.series.  ``a is b is None`` as a test: its
    comparisons are negated into ``a is not b or b is not None``, which was not folded
    back into one chain, so ``b`` was written twice ("a copied value would be evaluated
    twice"; on a second attempt, through temporaries)."""
    if x.a is x.b is None:
        return 1
    import os
    return os.sep


@case((_Attrs(), 1), (_Attrs(1, None, True), 2), (_Attrs(1, 1, False), None), (_Attrs(1, 2), None),
      same_bytecode=True)
def is_chain_or_test_then_from_import(x, n):
    """Regression: sympy.core.expr.Expr.series (``if x.is_positive is x.is_negative is
    None or x.is_Symbol is not True:``).  The ``or``'s second test is reached from the
    chain's last test by a jump and from its first through the drop of the middle value;
    the two were not joined, the arm was written twice, and the second attempt evaluated
    the module of ``from os import path`` into a temporary as ``__import__()``: wrong
    code."""
    if x.a is x.b is None or x.c is not True:
        xpos = n + 1
        if n is None:
            return (s for s in (xpos,))
        return xpos
    from os import path
    return path.sep, n


@case((_Attrs(),), (_Attrs(1, 1),), (_Attrs(1, None),), same_bytecode=True)
def negated_is_chain_returns_then_from_import(x):
    """Regression: ``if not a is b is None: return 1`` (3.13 copies the return after the
    chain's last test and after the drop of its middle value; the copies were not
    shared), then ``from m import name``."""
    if not x.a is x.b is None:
        return 1
    from os import path
    return path.sep


@case((_Attrs(1, [2], [[3]]),), (_Attrs(1, [1], [[1]]),), (_Attrs(1, [2], [[2]]),), same_bytecode=True)
def not_in_chain_in_if(x):
    """Regression: ``a not in b not in c`` as a test (the ``is`` chain's twin)."""
    if x.a not in x.b not in x.c:
        return 1
    return 2


@case((_Attrs(1, 1, 1),), (_Attrs(None, None, None),), (_Attrs(1, None, None),), same_bytecode=True)
def is_not_chain_of_three_in_if(x):
    """Regression: ``a is not b is not c is not None`` as a test."""
    if x.a is not x.b is not x.c is not None:
        return 1
    return 2


def _elif_chain(name, arms, merge):
    """A function of an ``elif`` chain of ``arms`` tests of ``x``: each arm returns, or
    (``merge``) assigns and all go on to one ``return``."""
    lines = ["def %s(x):" % name]
    for i in range(arms):
        lines.append("    %s x == %d:" % ("if" if i == 0 else "elif", i))
        lines.append("        r = 'a%d'" % i if merge else "        return 'a%d'" % i)
    lines += ["    else:", "        r = None", "    return r"] if merge else ["    return None"]
    namespace = {}
    exec(compile("\n".join(lines), "<elif chain of %d arms>" % arms, "exec"), globals(), namespace)
    return namespace[name]


#: Regression: an ``elif`` chain took time growing with the cube of its length (400
#: arms: 10 s on 3.11), each arm looking for a group of tests to the chain's end, and
#: from about 250 arms whose ends meet the structurer nested deeper than Python's
#: recursion limit ("nested too deeply").  A case of its own, not timed.
long_elif_chain_of_returns = case((0,), (1,), (500,), (999,), (1000,), (-1,), same_bytecode=True)(
    _elif_chain("long_elif_chain_of_returns", 1000, merge=False))
long_elif_chain_meeting_at_one_return = case((0,), (1,), (500,), (999,), (1000,), (-1,), same_bytecode=True)(
    _elif_chain("long_elif_chain_meeting_at_one_return", 1000, merge=True))


def _value_chain(name, op, operands):
    """``return x[0] op x[1] op ...``: one ``and``, ``or`` or ``+`` of ``operands`` values."""
    src = "def %s(x):\n    return %s" % (name, (" %s " % op).join("x[%d]" % i for i in range(operands)))
    namespace = {}
    exec(compile(src, "<%s chain of %d>" % (op, operands), "exec"), globals(), namespace)
    return namespace[name]


#: Regression: each operand of a long ``and``/``or`` whose value is used nested the
#: structurer deeper, and looked for a group of tests to the chain's end (refused from
#: about 200 operands, "nested too deeply").
long_and_chain_value = case(([1] * 1000,), ([1] * 999 + [0],), ([0] + [1] * 999,), ([2] * 500 + [""] * 500,),
                            same_bytecode=True)(_value_chain("long_and_chain_value", "and", 1000))
long_or_chain_value = case(([0] * 1000,), ([0] * 999 + [5],), ([3] + [0] * 999,), ([""] * 500 + [7] * 500,),
                           same_bytecode=True)(_value_chain("long_or_chain_value", "or", 1000))


#: Regression: a sum of 512 terms (and one of 2,000, about the most 3.8-3.12 compile) is
#: an expression nested as deep, which the printer walks down one Python call a level:
#: refused ("nested too deeply to decompile"), as Dynamo's code doing the same was.  And
#: 3.12 converts a tree no deeper than about 1,500 levels, whatever the recursion limit:
#: the recompiled tree of 2,000 terms compiles from its text.
long_sum = case((list(range(512)),), ([0.5] * 512,), same_bytecode=True)(_value_chain("long_sum", "+", 512))
longest_sum = case((list(range(2000)),), (["a"] * 2000,), same_bytecode=True)(_value_chain("longest_sum", "+", 2000))


_CALLS = 0


@case((), ())
def docstring_before_a_global_declaration():
    """_osx_support._get_system_version: a docstring followed by ``global``."""
    global _CALLS
    _CALLS += 1
    return sys._getframe(0).f_code.co_consts[:1]   # the running code's own docstring


@case((True,), (False,))
def class_body_ending_in_if_else(flag):
    """sympy's utilities.decorator.deprecated: a class body ending in an if/else, whose
    end (``return``, ``return __classcell__``) 3.11+ copy into the first arm; written
    as that arm's end, the else arm came after the if and always ran."""
    class C:
        if flag:
            def m(self):
                return 1
        else:
            def m(self):
                return 2

    class D(C):
        if flag:
            def m(self):
                return super().m() + 10
        elif flag is None:
            pass
        else:
            def m(self):
                return super().m() + 20

    return C().m(), D().m()


class _Suppressing:
    """A context manager that logs and suppresses what its body raises."""

    def __init__(self, log):
        self.log = log

    def __enter__(self):
        self.log.append("enter")
        return self

    def __exit__(self, kind, value, tb):
        self.log.append(kind.__name__ if kind else "exit")
        return True


@case((0,), (2,))
def return_from_a_with_in_while_true(n):
    """A ``return`` in a ``with`` that is all a ``while True`` holds: the loop goes on only
    when the with suppresses an exception; the return's exit copy is not where it goes on."""
    log = []
    while True:
        with _Suppressing(log):
            if len(log) > 3 * n:
                return log
            raise ValueError(n)


@case(([((1, 2), 3), "bad", ((4, 5), 6)],), ([],))
def return_from_an_except_clause_in_a_with_in_a_loop(items):
    """sympy's risch.integrate_primitive_polynomial (found by the package sweep): the
    return of an except clause inside a with inside ``while True``."""
    log = []
    it = iter(items)
    while True:
        with _Suppressing(log):
            try:
                (a, b), c = next(it)
            except StopIteration:
                return log
            log.append(a + b + c)


@case(([[1, 2], []], 3), ([[5]], 4), ([], 0))
def while_with_break_to_the_enclosing_for(rows, limit):
    """3.8 (from sympy's trigsimp, found by the package sweep): a ``while`` with an ``and``
    test in a ``for``, whose ``break`` jumps where its test leaves (the for's next
    iteration), was read as a jump into an ``else`` clause."""
    seen = []
    for row in rows:
        while row and len(seen) < limit:
            seen.append(row.pop())
            if sum(seen) > limit:
                break
    return seen


@case(("a$b$c", 5), ("$$", 2), ("", 0), ("abc", -1))
def continue_in_while_with_chained_comparison(s, n):
    """http.cookies.BaseCookie.__parse_string: ``continue`` to the top test of ``while
    0 <= i < n``, which 3.11+ repeat at the bottom with the failed test's cleanup
    (``POP_TOP``) between the top test and the body."""
    i = 0
    out = []
    while 0 <= i < n:
        i += 1
        if s[i - 1] == "$":
            continue
        out.append(i)
    return out


@case(("ab[cd]e",), ("[a-]x",), ("[-]", ), ("[a-b]?",), ("[]]",), ("[",), ("x?",), ("x)y",))
def inner_loop_left_by_break_and_by_an_arm_ending_in_break(chars):
    """sre_parse._parse: the inner loop's ways out are a ``break``, an ``if`` arm that
    runs code and then breaks, and raises; the outer loop's are ``break``s and an arm
    whose every path raises.  Each loop goes on where its ways that go on meet."""
    res = []
    it = iter(chars)
    while True:
        c = next(it, None)
        if c is None:
            break
        if c == ")":
            break
        if c == "?":
            d = next(it, None)
            if d is None:
                raise ValueError("end")
            raise ValueError(d)
        if c == "[":
            out = []
            while True:
                x = next(it, None)
                if x is None:
                    raise ValueError("unterminated")
                if x == "]" and out:
                    break
                if x == "-":
                    y = next(it, None)
                    if y == "]":
                        if out and out[0] == "a":
                            out[0] = "A"
                        out.append("-")
                        break
                    out.append(y)
                else:
                    out.append(x)
            res.append(out)
        else:
            res.append(c)
    return res


def _stat(path):
    if not path.startswith("ok"):
        raise OSError(path)
    return path


@case(("ok", ["a", "b"]), ("x", ["a", "ok"]), ("x", ["a", "b"]), ("x", []), ("x", ["ok"]))
def for_else_in_except_clause_before_a_try(name, dirs):
    """linecache.updatecache (3.13): a ``for``/``else`` in an except clause, its
    ``break`` inside a try; 3.13 copies the clause's end into the break path, laid out
    in the loop, and the code after the clause is another try."""
    try:
        found = _stat(name)
    except OSError:
        for d in dirs:
            try:
                found = _stat(d + name)
                break
            except OSError:
                pass
        else:
            return []
    try:
        size = len(found)
    except TypeError:
        return None
    return size


class _Lines(list):
    def __init__(self, items):
        super().__init__(items)
        self.log = []


@case((_Lines(["ab", "c"]), "x"), (_Lines(["", "c"]), "x"), (_Lines([]), "xyz"), (_Lines(["a", "b"]), ""))
def while_ending_a_with_body_and_an_arm_returning(lines, line):
    """pdb.Pdb.default (3.13): a ``while`` ends a ``with`` body, and an ``if`` arm in it
    runs code and returns (staying inside the with until its exit copy); the loop goes
    on at the with's exit copy its test fails into, not at that arm."""
    with contextlib.nullcontext():
        while len(line) < 3:
            if not lines:
                return "none"
            x = lines.pop()
            if not x:
                lines.log.append("end")
                return None
            line += x
    return line


class _Transport:
    def __init__(self, buf, closing, fail=False):
        self.buf, self.closing, self.fail, self.log = list(buf), closing, fail, []

    def pop(self):
        if self.fail:
            raise OSError("down")
        return self.buf.pop()


@case((_Transport([], True),), (_Transport([], False),), (_Transport([1, 2], False),),
      (_Transport([1], False, True),))
def return_after_an_if_in_a_try_with_else(t):
    """asyncio _ProactorDatagramTransport._loop_writing: ``if c: x()`` then ``return``
    in a try body; the return, outside the try's range, is reached from the test and
    from the end of ``x()``."""
    try:
        if not t.buf:
            if t.closing:
                t.log.append("closing")
            return "empty"
        data = t.pop()
    except OSError as exc:
        t.log.append(str(exc))
    else:
        t.log.append(data)
    return t.log


@case((["a", "b"], ["x", "y", "z"]), (["a"], ["x"]), ([], ["x"]), ([], []), (["a"], []), (["a"], ["**"]))
def while_true_left_only_by_except_clauses_and_raising_arms(args, params):
    """inspect.Signature._bind: ``while True`` whose ways out are ``break``s in except
    clauses and in a try's else clause, jumping to the code after the loop, and arms
    that raise; the loop goes on where the clauses leave it."""
    args, params = iter(args), iter(params)
    out = {}
    while True:
        try:
            a = next(args)
        except StopIteration:
            try:
                p = next(params)
            except StopIteration:
                break
            else:
                out[p] = 0
                break
        else:
            try:
                p = next(params)
            except StopIteration:
                raise TypeError("too many")
            else:
                if p == "**":
                    raise TypeError("too many")
                out[p] = a
    return out


@case((["a", "*", "b", "c"], ["x"]), (["a"], ["x", "y"]), ([], []), (["!"], []), (["a", "b"], []))
def while_true_left_by_a_break_in_a_try_else_and_by_except_clauses(args, params):
    """inspect.Signature._bind: a ``break`` after code of its own in a try's else
    clause, ``break``s in except clauses and arms that raise; code after the loop."""
    args, params = iter(args), iter(params)
    out = {}
    while True:
        try:
            a = next(args)
        except StopIteration:
            try:
                p = next(params)
            except StopIteration:
                break
            else:
                out[p] = 0
                break
        else:
            if a == "!":
                raise TypeError("bad")
            if a == "*":
                out[a] = list(args)
                break
            out[a] = a
    for key in sorted(out):
        out[key] = (out[key],)
    return out


class _Errno(OSError):
    pass


class _reader:
    def __init__(self, items):
        self.items = items

    def __call__(self):
        item = self.items.pop()
        if isinstance(item, Exception):
            raise item
        return item


@case(([], _reader([1])), ([], _reader([2, _Errno(4, "intr")])), ([], _reader([3, _Errno(5, "io")])), ([7], _reader([])))
def return_from_an_except_clause_in_an_inner_while_true(q, read):
    """_pyrepl UnixConsole.get_event (3.13): ``return`` from an except clause in a
    ``while True`` inside ``while not q``; 3.12+ lay out the return's value, still in
    the clause, after the outer loop, which is no place its ``break`` goes to."""
    while not q:
        while True:
            try:
                q.append(read())
            except OSError as err:
                if err.errno == 4:
                    if q:
                        return q.pop()
                    else:
                        continue
                else:
                    raise
            else:
                break
    return q.pop()


@case((True, None, {"k": 1}, "k"), (True, 2, {"k": 1}, "k"), (False, 2, {"k": 1}, "k"), (True, None, {}, "k"),
      structured=True)
def finally_ending_in_an_if_nested_in_an_if(changed, old, env, name):
    """Regression: requests' ``utils.set_environ`` on 3.12 and 3.13.  The inner
    ``if``/``else`` of the ``if`` ending a finally body gives each arm its own
    re-raise in the handler copy; only the outer ``if``'s arms were folded, so the
    inner ``else`` stayed after a re-raise ("a finally body leaves by a threaded
    jump to its re-raise")."""
    try:
        yield dict(env)
    finally:
        if changed:
            if old is None:
                del env[name]
            else:
                env[name] = old


class _Kind:
    STANDARD, EIGHT_BIT = "standard", "eight-bit"


@case((_Kind, 3), (_Kind, 200), (dict, 16))
def conditional_argument_before_more_arguments(kind, number):
    """Regression: rich's ``Color.from_ansi`` on 3.12 and 3.13.  The call after a
    conditional expression is copied into each arm; the copies begin with loads of
    the later arguments, so they were not shared, and the f-string evaluated before
    the test was written in both arms ("a copied value would be evaluated twice")."""
    return dict(name=f"color({number})", type=(kind.STANDARD if number < 16 else kind.EIGHT_BIT), number=number)


class _Live:
    def __init__(self, started, fail):
        self.log = []
        self.lock, self.started, self.fail = _Lock(self.log), started, fail

    def refresh(self):
        if self.fail:
            raise ValueError("refresh")
        self.log.append("refreshed")


@case((_Live(True, False),), (_Live(False, False),), (_Live(False, True),), structured=True)
def with_body_returning_early_then_try_except(live):
    """Guard for the shared-tail rule above (rich's ``Live.start``): the with's exit
    call after the early ``return`` and the one at the with's end are alike, and
    begin with pushes (``None, None, None``) before the call, but after a statement,
    not after an arm's value; sharing them left the stack short ("stack underflow")."""
    with live.lock:
        if live.started:
            return
        try:
            live.refresh()
        except ValueError:
            live.log.append("failed")
        live.started = True


class _Stop(Exception):
    pass


@case(([1, 2, 3], 5, 9), ([], 1, 0), ([1], 1, 3))
def while_in_a_try_left_only_by_its_test_and_a_raise(a, c, x):
    """sympy's ANTLR parser: a ``while`` ending a try body whose only way out in the
    try raises; its test leaves past the try's range (the code after the try, or a
    jump there the exception table leaves uncovered, 3.11), which is where it goes on."""
    try:
        while a:
            if c == len(a):
                raise _Stop(c)
            a.pop()
    except _Stop as e:
        x = e.args
    return x


@case(([1, 2, 3], 2), ([1, 2, 3], 0), ([], 1), ([3, 1, 2], 5), ([5, 3], 1))
def while_in_a_try_finally_left_only_by_its_test_and_a_raise(a, c):
    """sympy's ANTLR parser methods: a ``while`` ending a try body with except and
    finally clauses, whose ways out in the try are the raises of an ``if``/``elif``/
    ``else`` chain; its test leaves past the try's range, to the finally body's copy."""
    log = []
    try:
        log.append("enter")
        while a:
            la = a.pop()
            if la == 1:
                log.append(1)
            elif la == c:
                raise _Stop(la)
            else:
                raise ValueError(la)
    except _Stop as e:
        log.append(e.args)
    except ValueError:
        log.append("bad")
    finally:
        log.append("exit")
    return log


class _Noting:
    """A context manager that notes its enter and exit in a log, and keeps exceptions."""

    def __init__(self, log):
        self.log = log

    def __enter__(self):
        self.log.append("in")

    def __exit__(self, *exc):
        self.log.append("out")
        return False


def _stop_at_two(log, x):
    if x == 2:
        raise _Stop(x)
    log.append(x)


@case(([1, 2, 3],), ([1, 3],), ([],), ([2],))
def return_from_an_except_clause_in_a_with_in_a_for(p):
    """3.12+: ``return`` from an except clause in a ``with`` in a ``for`` moves the
    value under the with's exit (``SWAP 2``), runs the exit copy, which 3.12 lays out
    after the loop's end, and drops the iterator: a return, no place a ``break`` goes."""
    log = []
    for x in p:
        with _Noting(log):
            try:
                _stop_at_two(log, x)
            except _Stop:
                return log
    log.append("end")
    return log


@case(([1, 2, 3],), ([1, 3],), ([],), ([2],), same_bytecode=True)
def return_from_an_except_clause_in_a_with_in_a_while(p):
    """The same in a ``while`` (3.12+), whose try body goes on through the with's exit
    to the loop's test: the ``continue`` that reads as is said by nothing (the
    ``with`` ends the loop body)."""
    log = []
    while p:
        x = p.pop()
        with _Noting(log):
            try:
                _stop_at_two(log, x)
            except _Stop:
                return log
    return log


@case(([0, 1, 2], {0: 0, 1: 1, 2: 0, 5: 0}, 0, 3, 5), ([0, 1], {0: 1, 1: 1, 5: 1}, 0, 3, 5),
      ([0, 1], {}, 0, 2, 5), ([], {}, 0, 0, 0), ([1], {1: 0}, 2, 2, 1))
def break_and_while_test_both_jump_to_the_for_header(b, c, d, e, x):
    """3.10, 3.11 (sympy's trigsimp): a ``while`` ending a ``for`` body, whose test and
    ``break`` both jump to the for's ``continue`` jump: no else clause between them."""
    seen = []
    for a in b:
        seen.append(a)
        while c and d != e:
            if x in c and c[a] * c[x] + c[e] == 0:
                break
            d += 1
    return seen, d


@case(([3, 1, 5], 2, []), ([3, 4], -1, []), ([], 0, []), ([0, 2], 9, []), structured=True)
def while_in_a_for_ending_in_an_if_that_returns(items, cut, log):
    """Regression: rich's ``Segment.divide`` on 3.8 and 3.9.  The while's test and its
    ``break`` both leave to the for's header, before the loop; the ``if`` arm that
    returns, laid out after the while's body, was taken for code past an else clause
    ("jump into a while loop's else clause from its body"; a generator was refused)."""
    for item in items:
        while item:
            if item < cut:
                log.append(("small", item))
                break
            item -= 1
            if cut == -1:
                log.append("stop")
                return log
    return log


@case(([3, 1, 5], 2), ([3, 4], -1), ([], 0), structured=True)
def generator_with_a_while_in_a_for_ending_in_an_if_that_returns(items, cut):
    """The same shape in a generator (no state machine to fall back on)."""
    for item in items:
        while item:
            if item < cut:
                break
            yield item
            item -= 1
            if cut == -1:
                return
    yield "end"


@case(([3, 1, 5], [2, 9]), ([3, 4], []), ([], [0]), ([0, 2], [9, 1, 2]), ([4, 4], [4, 1]), structured=True)
def generator_with_a_while_in_a_for_ending_in_an_if_that_yields_then_returns(items, cuts):
    """rich's ``Segment.divide`` itself (rich 14.3.4 on 3.8, refused still after the case
    above): the arm after the while's last test runs an ``if`` before it returns, so it
    is no block that returns, but every path from it returns all the same."""
    cuts = iter(cuts)
    cut = next(cuts, -1)
    done = []
    for item in items:
        while item:
            if item < cut:
                done.append(item)
                break
            if item == cut:
                cut = next(cuts, -1)
                if cut == -1:
                    if done:
                        yield list(done)
                    return
                break
            item -= 1
            cut = next(cuts, -1)
            if cut == -1:
                if done:
                    yield list(done)
                return
    yield done


@case(("abcab", "b"), ("aaaa", "z"), ("", "a"), ("xbx", "x"), structured=True)
def while_chained_test_with_break_then_return_of_a_call(text, mark):
    """Guard (``http.cookies._unquote``, 3.10 and 3.12): ``return "".join(res)`` is
    copied after the loop's chained test and after the ``break``.  Sharing the copies,
    which begin with pushes after statements, sent the ``break`` past the test's
    cleanup ("jump into a while loop's else clause from its body")."""
    i, n, res = 0, len(text), []
    while 0 <= i < n:
        k = text.find(mark, i)
        if k < 0:
            res.append(text[i:])
            break
        res.append(text[i:k])
        i = k + 1
    return _joined(res)


def _joined(parts):
    return "".join(parts)


def _scan(items):
    if not items:
        raise StopIteration
    return items.pop()


@case((True, [3, 2, 1], 0), (False, [1], 5), (False, [], 1), (True, [0, 0], 2), structured=True)
def while_true_with_a_raising_try_then_a_try_going_back_to_the_header(reset, items, s):
    """Regression: json.decoder.JSONArray and mailbox.MH.get_sequences on 3.12 and
    3.13.  The second try's body goes back to the loop's header, which lies before
    it; the code from there to its clauses (the whole loop body) was taken for its
    else clause ("jump back into the loop")."""
    log = []
    if reset:
        s = 1
    while True:
        try:
            log.append(_scan(items))
        except StopIteration:
            raise ValueError("empty") from None
        if log[-1] == 1:
            break
        try:
            if s:
                s = log[s]
        except IndexError:
            pass
    return log, s


@case(([1, 2, 3], 2), ([1], 5), ([], 0), same_bytecode=True)
def while_ending_a_try_finally_body_with_a_break_after_code(items, stop):
    """Regression: pydoc.ttypager on 3.8 (lowered; 3.9 too) and every later version
    (``while True: if not items: return``).  The loop ends the try body, so its test
    fails past the try's range, into the finally body's normal copy; its one way out
    in the try (``yield "stop"; break``) jumps there too.  The loop went on at that
    way out instead ("a loop leaves its enclosing try or with")."""
    try:
        while items:
            item = items.pop()
            if item == stop:
                yield "stop"
                break
            yield item
    finally:
        yield "finally"


@case((0, 0, "1"), (1, 0, "1"), (1, 1, "2"), (1, 1, "x"), same_bytecode=True)
def finally_if_arm_with_a_try_then_a_short_return(first, second, fail):
    """Regression: subprocess.Popen.__exit__ on 3.12 (3.10 too).  The normal copy of
    the finally body has a copy of the short ``first = 0; return`` at the end of each
    path to it (after the nested try's body, its except clause and the ``if second``
    test); the handler copy has one, jumped to.  Walking the copies side by side, the
    one place met two places ("a way out of a try/finally body ... without a copy of
    the finally body")."""
    try:
        yield "body"
    finally:
        if first:
            if second:
                try:
                    yield int(fail)
                except ValueError:
                    yield "caught"
            first = 0
            return
        yield "after"


def _count(*values):
    return len(values)


@case(("3", True), ("3", False), ("x", True), same_bytecode=True)
def except_as_clause_then_a_jump_past_255_code_units(value, flag):
    """Regression: asyncio.tasks.Task.__step on 3.8 (lowered).  The jump that ends
    ``except E as exc:`` past 255 code units has an ``EXTENDED_ARG`` before it,
    which hid it from the rewrite of 3.8's name cleanup (a finally body), so the
    clause jumped to the jump instead of where it goes: the else clause, whose arms
    leave the outer try there, did not seem to rejoin the clause."""
    log = []
    try:
        try:
            result = int(value)
        except ValueError as exc:
            log.append(type(exc).__name__)
        else:
            if flag:
                log.append(_count(result, result, result, result, result, result, result, result, result, result,
                        result, result, result, result, result, result, result, result, result, result,
                        result, result, result, result, result, result, result, result, result, result,
                        result, result, result, result, result, result, result, result, result, result,
                        result, result, result, result, result, result, result, result, result, result,
                        result, result, result, result, result, result, result, result, result, result,
                        result, result, result, result, result, result, result, result, result, result,
                        result, result, result, result, result, result, result, result, result, result,
                        result, result, result, result, result, result, result, result, result, result,
                        result, result, result, result, result, result, result, result, result, result,
                        result, result, result, result, result, result, result, result, result, result,
                        result, result, result, result, result, result, result, result, result, result,
                        result, result, result, result, result, result, result, result, result, result,
                        result, result, result, result, result))
            else:
                log.append(result)
    finally:
        log.append("finally")
    return log


@case((1, True), (2, False), same_bytecode=True)
def return_in_finally_after_a_try_body_past_255_code_units(value, flag):
    """Regression (3.8, lowered): the ``None`` that 3.8 pushes before a try whose
    finally body returns was not seen as that slot when the ``SETUP_FINALLY`` after
    it has an ``EXTENDED_ARG`` (its handler is past 255 code units)."""
    log = []
    try:
        log.append(_count(value, value, value, value, value, value, value, value, value, value,
                        value, value, value, value, value, value, value, value, value, value,
                        value, value, value, value, value, value, value, value, value, value,
                        value, value, value, value, value, value, value, value, value, value,
                        value, value, value, value, value, value, value, value, value, value,
                        value, value, value, value, value, value, value, value, value, value,
                        value, value, value, value, value, value, value, value, value, value,
                        value, value, value, value, value, value, value, value, value, value,
                        value, value, value, value, value, value, value, value, value, value,
                        value, value, value, value, value, value, value, value, value, value,
                        value, value, value, value, value, value, value, value, value, value,
                        value, value, value, value, value, value, value, value, value, value,
                        value, value, value, value, value, value, value, value, value, value,
                        value, value, value, value, value))
    finally:
        if flag:
            return log
    log.append("after")
    return log


@case(([["a", "b"], ["c"]], "c"), ([["a"]], "z"), ([[], ["x", "y"]], "y"), ([["q"], ["q"]], "q"))
def break_out_of_two_fors_with_else_clauses_then_code_after_them(rows, wanted):
    """imp's ``find_module``: the inner for's ``break`` goes to the outer's ``break``,
    which only drops the iterator and jumps, past an else clause that raises, to code
    that returns.  That jump is no ``if`` arm after the inner loop: the code after the
    loops was copied into the inner loop (3.10/3.11)."""
    for row in rows:
        for cell in row:
            if cell == wanted:
                break
        else:
            continue
        break
    else:
        raise LookupError(wanted)
    found = [row, cell]
    if cell:
        found.append(len(row))
    return found


@case((3, [], False, None), (3, [1, 2, 3], False, None), (3, [1], True, None), (3, [1], True, 1.0),
      (3, [1], True, -1), (0, [1, 2], False, None), (2, [1, 2], True, 5))
def elif_chain_in_a_with_whose_arms_run_into_the_code_after_it(limit, items, block, timeout):
    """queue.Queue.put (3.8 and 3.9, found by CPython's tests of queue): the arms of the
    elif chain meet where the outer if goes on; one arm ends in ``if c: raise`` and the
    others in loops.  The chain's later arms took the code after the if as their own
    and ran on into it: the item was put twice."""
    log = []
    with _Lock(log):
        if limit > 0:
            if not block:
                if len(items) >= limit:
                    raise OverflowError
            elif timeout is None:
                while len(items) >= limit:
                    items.pop()
            elif timeout < 0:
                raise ValueError("'timeout' must be a non-negative number")
            else:
                while len(items) >= limit:
                    if timeout > 2:
                        raise OverflowError
                    items.pop(0)
        items.append("new")
        log.append(len(items))
    return items, log


@case(({"a": 1}, "a", 2), ({}, "b", 3))
def return_after_except_clause_copied_into_it(mapping, key, default):
    """_collections_abc's ``MutableMapping.setdefault``: 3.10 and 3.12+ copy the ``return``
    after the try to the end of the except clause, past its ``POP_EXCEPT``: code after
    the try, not a ``return`` in the clause (which loads its value before ending it)."""
    try:
        return mapping[key]
    except KeyError:
        mapping[key] = default
    return default


@case(([1, 2],), ([],))
def return_after_with_copied_past_its_exit(queue):
    """sched's ``scheduler.enterabs``: 3.10 and 3.12+ copy the ``return event`` after the with
    to the end of its body, past the exit call: code after the with."""
    log = []
    event = len(queue)
    with _Lock(log):
        queue.append(event)
    return event


@case(([0, 3, 4],), ([0, 0],), ([],))
def break_then_return_local_copied_into_the_loop(items):
    """argparse's ``_match_arguments_partial``: a ``break`` to ``return result`` after
    the loop, which 3.10 and 3.12+ copy after the iterator's ``POP_TOP``: a ``break``, not a
    ``return`` (which loads its value before dropping the iterator)."""
    result = []
    for item in items:
        if item:
            result.append(item)
            break
    return result


class _Piped:
    def __init__(self, text, encoding):
        self.text = text
        self.encoding = encoding
        self.sent = None


@case((_Piped("ab", "utf-8"), "x"), (_Piped("", "utf-8"), "y"), (_Piped("ab", None), None))
def if_and_ending_function_implicit_return_copies(pipe, data):
    """subprocess's ``Popen._save_input``: an ``if a and b:`` ending the function
    (inside another ``if``); 3.10+ give each jump past it a copy of the implicit
    return, on the jump's line: no ``else: return`` of the source."""
    if pipe.text and pipe.sent is None:
        pipe.sent = data
        if data is not None and pipe.encoding:
            pipe.sent = data.encode(pipe.encoding)


@case(({"a": 1}, "a"), ({"a": 0}, "a"), ({}, "b"))
def explicit_return_none_shared_by_jumps(options, name):
    """optparse's ``OptionParser.get_option_group``: a final ``return None`` that both
    tests of an ``if a and b`` jump to is the source's (the implicit return would be
    copied for each jump, 3.10+)."""
    option = options.get(name) or options.get(name.upper())
    if option and option > 0:
        return option
    return None


@case(([3, 1], 2), ([], 0), ([1, "a"], None), ([], None), ([None], 1))
def try_ending_function_implicit_return_copies(items, data):
    """asyncio's ``_ProactorBaseWritePipeTransport._loop_writing``: a try ending the
    function, its body ending in an ``if a and b:``, its clauses in calls; 3.10+ give
    each path a copy of the implicit return: no ``return`` of the source."""
    try:
        if data:
            items.append(data)
        if items and data is not None:
            items.sort()
    except TypeError as exc:
        items.append(exc)
    except AttributeError as exc:
        items.append(exc)


@case((None, []), ([0, 2], []), ([0], []), ([], []), same_bytecode=True)
def for_else_after_a_try_ending_the_body(xs, out):
    """asyncio's BaseEventLoop._connect_sock (3.8): the for loop's own jump back, dead
    after a try whose clauses never fall into it, is no jump over an else clause;
    kept, it read the for's else clause as the code after the loop, written twice."""
    try:
        if xs is not None:
            for x in xs:
                try:
                    out.append(10 // x)
                    break
                except ZeroDivisionError as exc:
                    out.append(str(exc))
            else:
                raise ValueError(out)
        out.append(1)
        return out
    except ValueError:
        out.append(2)
        raise


@case((1, 1, 0, []), (1, 0, 1, []), (1, 0, 0, []), (0, 0, 0, []), same_bytecode=True)
def or_test_in_an_if_arm_before_an_else(a, b, c, out):
    """Regression (3.11): the inner test's false side, joined through the lone jump over
    the else arm to where the outer if's arms meet, went past its own if's end: the
    code after the outer if was written again as the inner if's else arm."""
    if a:
        if b or c:
            out.append(1)
    else:
        out.append(2)
    out.append(3)
    return out


@case((1,), (2,))
def keyword_argument_named_by_a_reserved_word(n):
    """Dynamo's suite (torch.Tensor.random_(from=..., to=...) called with **kwargs): a
    keyword that is a reserved word was written ``dict(from=n)``, invalid source."""
    return dict(**{"from": n, "to": n + 1}), dict(**{"class": n}, x=2)


@case(("ab", 1, 1), ("ab", 1632, 1), ("a\u06f5", 1632, 1), ("", 1640, 2), ("ab", 9, 1), structured=True)
def chained_comparison_in_a_loop_after_a_long_arm(label, code_point, pad):
    """idna's ``valid_contexto`` (3.8/3.9): past 256 bytes of code, the chained comparison's
    cleanup in the loop jumps to an ``EXTENDED_ARG``-ed jump back to the loop, which 3.8
    and 3.9 leave unthreaded, laid out after the ``return`` of the next line: that jump
    was taken for a ``continue`` statement of its own, and the condition was not joined."""
    if code_point == 1:
        pad = pad + 1 + pad * 2 + pad * 3 + pad * 4 + pad * 5 + pad * 6 + pad * 7 + pad * 8 + pad * 9 + pad * 10
        pad = pad + 1 + pad * 2 + pad * 3 + pad * 4 + pad * 5 + pad * 6 + pad * 7 + pad * 8 + pad * 9 + pad * 10
        pad = pad + 1 + pad * 2 + pad * 3 + pad * 4 + pad * 5 + pad * 6 + pad * 7 + pad * 8 + pad * 9 + pad * 10
        return pad
    elif 0x660 <= code_point <= 0x669:
        for cp in label:
            if 0x6F0 <= ord(cp) <= 0x06F9:
                return False
        return True
    return False


@case(([1, 2, 3], 3, False), ([1, 0, 3], 3, False), ([1, 2], 1, True), ([2, 1], 2, False), ([1, "a"], 2, False))
def returns_alike_in_a_try_from_a_while_and_a_for(l, n, res):
    """dateutil's ``_tzparser.parse`` (3.8-3.10): a ``return None`` of a try body in a
    while loop was taken for a copy the compiler made of the one in a for loop after
    it, the exit of a finally body, and jumped into that for loop's way out: a jump
    from the while's body past its test's exit, read as a ``break`` over an else
    clause that is not there."""
    try:
        i = 0
        while i < n:
            if l[i] > 0:
                i += 1
            else:
                return None
            if res:
                break
        for x in l:
            if x > 1:
                i += x
            else:
                return None
    except (ValueError, TypeError):
        return -1
    return i


@case(([1, 2, 3, 2, 5], [3]), ([2, 2], []), ([5, 3, 2], [3]))
def inner_continue_then_the_jump_over_the_else_clauses(params, keywords):
    """toolz's ``curry.__signature__`` (3.8/3.9): an ``elif`` arm that is ``if c: continue``
    ends in the continue's jump back, then the dead jump over the other clauses; that
    jump back was read as the arm's own ending ``continue`` as well, and a second one,
    always taken, was written after the if: a parameter went missing."""
    kwonly = False
    out = []
    for p in params:
        kind = p
        if kind == 1:
            pass
        elif kind == 2:
            if kwonly:
                continue
        elif kind in keywords:
            kwonly = True
        else:
            kind = 0
        out.append(kind)
    return out


@case(([1, 2, 3, 4, 6], 2), ([3, 5], 3), ([], 2), ([2, 4], 5))
def inverted_inner_continue_then_the_jump_over_the_else_clauses(params, m):
    """The same as the case above with the inner if the other way round (3.8/3.9):
    ``if not c: x() / else: continue`` comes back as ``if c: continue`` then ``x()``,
    and a second ``continue``, always taken, was added after it."""
    out = []
    for p in params:
        if p == 1:
            pass
        elif p % m:
            if not p % 3:
                out.append(-p)
            else:
                continue
        else:
            out.append(0)
        out.append(p)
    return out


@case(([1, 2],), ([0, 5],), ([0, 0, 0, 4],), ([0, 0],), ([],))
def return_in_a_nested_try_in_an_endless_loop_in_a_clause(xs):
    """lark's ``LALR_Parser.parse`` (every version): ``return`` inside a try in a ``while
    True:`` loop inside an except clause moves its value under the exception within the
    clause's cleanup range and pops the exception outside it; that second half was taken
    for where the loop goes on, and the loop ran into the return's ``POP_EXCEPT`` with
    no exception under the value (lowered: "stack underflow")."""
    it = iter(xs)
    try:
        return 10 // next(it)
    except ZeroDivisionError:
        while True:
            try:
                return 100 // next(it)
            except ZeroDivisionError:
                pass


@case(([1, 2],), ([0, 5],), ([0, 0, 0, 4],), ([0, "a", 0, 2],), ([0, 0],), ([],))
def return_in_a_nested_try_in_an_endless_loop_in_a_named_clause(xs):
    """The case above with the clause's exception named and rebound in the loop (lark's
    own shape, ``e = e2``): the return also clears the name after popping the exception."""
    it = iter(xs)
    try:
        return 10 // next(it), None
    except (ZeroDivisionError, StopIteration) as e:
        while True:
            try:
                return 100 // next(it), type(e).__name__
            except ZeroDivisionError as e2:
                e = e2
            except TypeError as e2:
                e = e2
            except StopIteration:
                return None, type(e).__name__


@case(([0, 2, 1], []), ([5], []), ([], []))
def endless_loop_beginning_a_try_with_finally_left_by_a_clause_break(xs, out):
    """mpmath's ``sqrtm`` (3.10+): a ``while 1:`` that begins the code, inside a try with a
    finally body, left only by a ``break`` in an except clause of a try inside it.  The
    loop's header was the first instruction, entered from nowhere outside the loop, and
    the try around the loop was taken from the header's own: the inner try, so the
    clause's ``break`` was no way out and the loop seemed to leave the finally's try."""
    try:
        while 1:
            try:
                out.append(10 // xs.pop())
            except (ZeroDivisionError, IndexError):
                break
    finally:
        out.append("done")
    return out


@case(([0, 2, 1], []), ([5], []), ([], []), ([3, 4, 0], []))
def endless_loop_first_in_a_try_with_finally_left_by_a_clause_break(xs, out):
    """The case above with code before the try (3.10, 3.12, 3.13; lowered still on 3.8
    and 3.9): the code before the loop is outside the try, which covers the loop's back
    edge."""
    n = len(xs)
    try:
        while 1:
            try:
                out.append(10 // xs.pop())
            except (ZeroDivisionError, IndexError):
                break
    finally:
        out.append(n)
    return out


@case((0,), (2,), (4,), (7,))
def break_and_return_in_an_endless_loop_in_a_try_with_finally(n):
    """mpmath's ``adaptive_extrapolation`` (every version): a ``while 1:`` in a try with a
    finally body, left by a ``break`` and by a ``return``.  The return's value is loaded
    inside the try and the finally body copied after it outside: two blocks, the first of
    which seemed to go on, and was taken for where the loop goes on."""
    log = []
    try:
        while 1:
            if n > 5:
                break
            n += 1
            if n == 3:
                return n, log
    finally:
        log.append(n)
    return -n, log


@case(([2, 1, 5, 4, 3], True), ([2, 0], True), ([0, 1], True), ([], True), ([1, 2, 3, 4, 5, 6], True))
def clause_break_and_return_in_an_endless_loop_in_a_try_with_finally(xs, rot, out=None):
    """mpmath's ``sqrtm`` (3.10+; lowered still on 3.8 and 3.9): the loop is left by a
    ``break`` in an except clause and by a ``return``, which only returns: an arm inside
    the loop, so the loop goes on where the clause leaves it."""
    out = []
    try:
        while 1:
            try:
                out.append(10 // xs.pop())
            except (ZeroDivisionError, IndexError):
                if rot:
                    break
                raise
            if len(out) > 3:
                return out[1:]
    finally:
        out.append("done")
    return out


@case(([1, 2, 3, 4],), ([7, 5, 1],), ([2, 4],), ([],))
def returns_from_a_loop_in_a_try_with_finally(ps):
    """Found by benchmarks/try_loop_programs.py (every version): two ``return out`` in a
    loop in a try with a finally body each run a copy of the finally body, then return;
    the copies were shared as if an expression's tail duplicated into two arms (they
    begin where the try's range ends), and the loop seemed to leave the try."""
    out = []
    try:
        while ps:
            p = ps.pop()
            if p % 3 == 0:
                return out
            if p % 5 == 0:
                return out
            out.append(p)
    finally:
        out.append("f")
    return out


@case(([1, 2, 3],), ([4, 6, 5],), ([],), ([3],))
def break_in_a_try_with_finally_in_a_for(ps):
    """Found by benchmarks/try_loop_programs.py (3.10, 3.12, 3.13): a ``break`` out of a
    try with a finally body in a ``for`` runs the finally body's copy, drops the iterator
    and runs a copy of the short code after the loop, where the other versions jump to
    it: that copy was taken for a second place the try body leaves to (lowered).  The
    finally body's copy that ends the try's body is the last one."""
    out = []
    for p in ps:
        try:
            if p % 3 == 0:
                break
        finally:
            out.append(-1)
        out.append(p)
    return out


@case(([1, 2, 3],), ([4, 6, 5],), ([],), ([3],))
def break_in_a_try_with_finally_in_a_while(ps):
    """The case above in a ``while`` loop: no iterator to drop before the copy."""
    out = []
    while ps:
        p = ps.pop()
        try:
            if p % 3 == 0:
                break
        finally:
            out.append(-1)
        out.append(p)
    return out


@case(([1, 2, 3, 4],), ([7, 5, 1],), ([2, 9],), ([],))
def return_of_a_value_loaded_in_a_try_in_an_endless_loop_in_a_try_with_finally(ps):
    """Found by benchmarks/try_loop_programs.py (every version): ``return out`` from a
    try inside a ``while True`` inside a try with a finally body loads the value inside
    the inner try, then runs the finally body's copy outside both and returns.  That way
    out was taken for where the loop goes on, the ``return`` became a ``break`` with the
    value left on the stack (stack underflow: lowered)."""
    out = []
    table = {1: 1, 2: 0, 3: 1, 7: 1, 5: 0}
    try:
        while True:
            p = ps.pop()
            try:
                if table[p]:
                    return out
            except KeyError:
                pass
            out.append(p)
    finally:
        out.append("f")
    return out


@case(([1, 2, 3, 4],), ([7, 5, 1],), ([2, 9],), ([],))
def return_of_a_value_loaded_in_a_try_in_an_endless_loop_in_a_with(ps):
    """The case above in a ``with``: the way out runs the with's exit copy, then returns."""
    out = []
    table = {1: 1, 2: 0, 3: 1, 7: 1, 5: 0}
    with contextlib.suppress(IndexError):
        while True:
            p = ps.pop()
            try:
                if table[p]:
                    return out
            except KeyError:
                pass
            out.append(p)
    return out + [0]


@case(([1, 2, 3, 4],), ([7, 5, 1],), ([2, 9],), ([],))
def return_of_a_value_loaded_in_a_try_in_a_for_in_a_try_with_finally(ps):
    """The case above in a ``for`` loop: the value is moved over the iterator, which is
    dropped (``SWAP 2; POP_TOP``) before the finally body's copy (the try body seemed to
    leave to two places: lowered)."""
    out = []
    table = {1: 1, 2: 0, 3: 1, 7: 1, 5: 0}
    try:
        for p in ps:
            try:
                if table[p]:
                    return out
            except KeyError:
                pass
            out.append(p)
    finally:
        out.append("f")
    return out


@case(([{"a": 1}], "a"), ([{"b": 1}, {"a": "x"}], "a"), ([{"a": "x"}, {"a": 2}], "a"), ([], "a"))
def return_in_the_else_clause_of_a_try_in_a_for_after_a_nested_try(scopes, name):
    """Found by the package judge (pyflakes' ``Checker.handleNodeLoad``, 3.12): in a
    ``for`` loop, a try's else clause returns after a nested try whose except clause
    passes.  3.12 copies the ``return`` (the iterator's ``POP_TOP`` first) after that
    clause's ``POP_EXCEPT``, past the outer try's range; that copy was taken for where
    a ``break`` goes, the loop's end (stack underflow: lowered).  With the iterator
    still on the stack there, it is no way past the loop."""
    out = []

    def find():
        for scope in scopes:
            try:
                n = scope[name]
                try:
                    out.append(n + 1)
                except TypeError:
                    pass
            except KeyError:
                pass
            else:
                return
        out.append("end")

    find()
    return out


def _check_positive(ps):
    if not all(p > 0 for p in ps):
        raise ValueError("not positive: %r" % (ps,))


@case(([1, 2],), ([3, -1, 2],), ([],), ([-5],))
def while_loop_ending_an_except_clause(ps):
    """Found by benchmarks/try_loop_programs.py (3.12, 3.13): a ``while`` loop ends an
    except clause, and 3.12+ copy the short code after the try to the clause's end,
    after its ``POP_EXCEPT``.  That copy was taken for a ``return`` in a clause of a try
    inside the loop, not the loop's way on, and the loop seemed to leave the clause
    (lowered)."""
    out = []
    try:
        _check_positive(ps)
    except ValueError:
        while ps:
            p = ps.pop()
            out.append(p)
    return out


@case(([1, 2],), ([3, -1, 2],), ([],), ([-5],))
def while_loop_ending_a_named_except_clause(ps):
    """The case above with ``except ValueError as e`` (lowered on 3.10 too): the clause
    ends by deleting the name before the copy."""
    out = []
    try:
        _check_positive(ps)
    except ValueError as e:
        out.append(str(e))
        while ps:
            p = ps.pop()
            out.append(p)
    return out


@case(([1, 2, 3, 4],), ([7, 5, 1],), ([2, 9],), ([6],))
def endless_loop_beginning_a_try_with_finally_left_by_break_and_a_nested_return(ps):
    """Found by benchmarks/try_loop_programs.py (3.10, 3.12, 3.13): a ``while True`` that
    begins the body of a try with a finally body, left by a ``break`` and by a ``return``
    from a try inside it.  No code before the loop is in the outer try, so the loop's way
    on was looked for outside it, where only the ``return``'s lies (its value loaded in
    the inner try, then the finally body's copy and the return): no way on, and the loop
    had none (lowered).  A ``return`` out of a try is now set aside first."""
    out = []
    table = {1: 1, 2: 0, 3: 1, 7: 1, 5: 0}
    try:
        while True:
            p = ps.pop()
            if p % 3 == 0:
                break
            try:
                if table[p]:
                    return out
            except KeyError:
                pass
            out.append(p)
    finally:
        out.append("f")
    return out


@case(([1, 2],), ([3, -1, 2],), ([],), ([-5],), ([6, -1, 9],))
def return_from_a_while_loop_ending_a_named_except_clause(ps):
    """Found by benchmarks/try_loop_programs.py (every version): a ``return`` inside a
    ``while`` loop that ends an except clause computes its value in the loop, under the
    clause's handler, then moves it under the exception and pops that: the loop's way on
    was looked for among the ways out in the clause's try, and only that ``return`` was
    there (lowered).  A value moved under the exception and returned is a ``return``."""
    out = []
    try:
        _check_positive(ps)
    except ValueError as e:
        out.append(str(e))
        while ps:
            p = ps.pop()
            if p % 3 == 0:
                return out
            out.append(p)
    return out + [0]


@case(([1, 2, 3],), ([4, 6, 5],), ([],), ([3],), ([1, "x"],))
def break_in_a_with_in_a_for_in_a_try(ps):
    """Found by benchmarks/try_loop_programs.py (3.10, 3.12, 3.13): a ``break`` in a
    ``with`` in a ``for`` loop in a try runs the with's exit copy, drops the iterator and
    runs a copy of the short code after the try (the other versions jump to the code after
    the loop): the with body seemed to leave to two places (lowered).  Dropping the
    iterator after an exit copy leaves the loop: a ``break``."""
    out = []
    try:
        for p in ps:
            with contextlib.suppress(ZeroDivisionError):
                if p % 3 == 0:
                    break
                out.append(10 // (p % 2))
            out.append(p + 1)
    except TypeError:
        out.append("t")
    return out


@case(([1, 2, 3],), ([4, 6, 5],), ([],), ([3],), ([1, "x"],))
def break_in_a_try_with_finally_in_an_endless_loop_in_a_try(ps):
    """Found by benchmarks/try_loop_programs.py (3.10, 3.12, 3.13): a ``break`` out of a
    try with a finally body, in a ``while True`` in a try with an except clause, runs the
    finally body's copy and then a copy of the ``return out`` after the outer try.  The
    try body seemed to leave to two places (lowered).  The finally body does not bind
    ``out``, so the return can load it first: it was written inside the inner try; since
    the copied return past a finally copy is the loop's way on, it is the ``break``."""
    out = []
    try:
        while True:
            p = ps.pop()
            try:
                if p % 3 == 0:
                    break
            finally:
                out.append(-1)
            out.append(10 // (p % 2))
    except (IndexError, ZeroDivisionError, TypeError):
        out.append("e")
    return out


@case(([1, 2, 3],), ([4, 6, 5],), ([],), ([3],), ([1, "x"],))
def break_in_a_try_with_finally_rebinding_the_returned_name(ps):
    """The case above with a finally body that rebinds the name returned after the
    outer try: loaded before the finally body ran, the return would give the old list.
    Not written inside the try (3.10, 3.12, 3.13: lowered, a known lowering, until the
    copied return past the finally copy counted as the loop's way on: a ``break``)."""
    out = []
    try:
        while True:
            p = ps.pop()
            try:
                if p % 3 == 0:
                    break
            finally:
                out = out + [-1]
            out.append(10 // (p % 2))
    except (IndexError, ZeroDivisionError, TypeError):
        out.append("e")
    return out


@case(([1, 2],), ([3, -1, 2],), ([],), ([-5, 3],), ([6, -1, 9],))
def break_in_a_with_in_a_while_loop_ending_an_except_clause(ps):
    """Found by benchmarks/try_loop_programs.py (3.12, 3.13): a ``break`` in a ``with``
    in a ``while`` loop that ends an except clause runs the with's exit copy and then a
    copy of the clause's end and of the short code after the try, the code the loop's
    test leaves to: taken for a return through the with, the loop had no way on
    (lowered).  The copy of what the test leaves to is a way on."""
    out = []
    try:
        _check_positive(ps)
    except ValueError:
        while ps:
            p = ps.pop()
            with contextlib.suppress(ZeroDivisionError):
                if p % 3 == 0:
                    break
                out.append(10 // (p % 2))
            out.append(p)
    return out


@case(([1, 2],), ([3, -1, 2],), ([],), ([-5, 3],), ([6, -1, 9],))
def break_in_a_with_in_a_while_loop_beginning_a_named_except_clause(ps):
    """The case above with ``except ValueError as e`` and the loop first in the clause:
    the clause's code runs under the handler that clears the name, the code before the
    loop under the clause's own; both are the clause the loop is in (lowered on 3.12,
    3.13)."""
    out = []
    try:
        _check_positive(ps)
    except ValueError as e:
        while ps:
            p = ps.pop()
            with contextlib.suppress(ZeroDivisionError):
                if p % 3 == 0:
                    break
                out.append(10 // (p % 2))
            out.append(type(e).__name__)
    return out


@case((["1", "2"],), (["3", "x", "2"],), ([],), (["4", "6", "y"],))
def break_in_an_except_clause_in_a_while_loop_beginning_a_try_with_a_finally_body(ps):
    """Found by benchmarks/try_loop_programs.py (3.10, 3.12, 3.13): ``try: while 1:``
    with a finally body, left by a ``break`` in an except clause of a try inside the loop
    (items parsed until one is not a number).  The break jumps to the finally body's copy
    past the try's range; the loop jumps back from inside the range, the code before it
    runs outside: the loop was not taken to be in the try, and had no way on (lowered)."""
    out = []
    try:
        while 1:
            item = ps.pop()
            try:
                n = int(item)
            except ValueError:
                break
            out.append(n)
    finally:
        out.append('f')
    return out


@case((["1", "2"],), (["3", "x", "2"],), ([],), (["4", "6", "y"],))
def break_in_an_except_clause_in_a_while_loop_with_code_after_it_in_a_try_with_a_finally_body(ps):
    """The case above with code after the loop in the try body (lowered on 3.10, 3.12,
    3.13)."""
    out = []
    try:
        while 1:
            item = ps.pop()
            try:
                n = int(item)
            except ValueError:
                break
            out.append(n)
        out.append('stopped')
    finally:
        out.append('f')
    return out


@case(([1, 2],), ([3, 1, 2],), ([],), ([4, 6, 5],), ([7, 9],))
def while_loop_beginning_a_try_with_a_finally_body_and_returning_from_it(ps):
    """A ``while ps:`` loop that begins a try with a finally body, left by two returns
    from it: its test fails into the finally body's copy past the try's range, the way
    on.  (Once the loop was taken to be in the try, for the cases above, the returns
    were its only ways out there until the copy counted as the way on: lowered on every
    version.)"""
    out = []
    try:
        while ps:
            p = ps.pop()
            if p % 3 == 0:
                return out
            if p > 6:
                return out
            out.append(p)
    finally:
        out.append('f')
    return out


@case((["1", "2"],), (["3", "x", "2"],), ([],), (["4", "6", "y"],), (["z"],))
def break_in_an_except_clause_in_a_while_loop_beginning_a_try_with_an_except_clause(ps):
    """Found by benchmarks/try_loop_programs.py (3.8, 3.9, 3.11): ``try: while 1:`` with
    an except clause, left by a ``break`` in an except clause of a try inside the loop.
    The loop jumps back from inside the outer try's range, the code before it runs
    outside: that try's handler was searched as one of the loop's own clauses, and its
    end taken for a second way on (lowered).  A try the loop begins whose handler never
    comes back to the loop is none of the loop's clauses."""
    out = []
    try:
        while 1:
            item = ps.pop()
            try:
                n = int(item)
            except ValueError:
                break
            out.append(n)
    except IndexError:
        out.append('empty')
    return out


@case((["1", "2"],), (["3", "x", "2"],), ([],), (["4", "6", "y"],))
def break_in_an_except_clause_in_a_while_loop_in_a_named_except_clause(ps):
    """Found by benchmarks/try_loop_programs.py (3.8, 3.9, 3.11): a ``while 1:`` loop in
    ``except E as e``, left by a ``break`` in an except clause of a try inside it.  The
    break ends the inner clause and jumps to the end of the outer one; past both clause
    ends, the loop's way on was taken to be the code after the outer try, outside the
    clause the loop is in (lowered).  Only the inner clause's end is passed."""
    out = []
    try:
        _check_positive([-1] if ps else [])
    except ValueError as e:
        out.append(str(e))
        while 1:
            item = ps.pop()
            try:
                n = int(item)
            except ValueError:
                break
            out.append(n)
    return out


@case(([1, 2],), ([3, 1, 2],), ([],), ([4, 6, 5],), ([7, 9, 2],))
def break_in_a_try_with_a_finally_body_in_a_while_loop_in_a_named_except_clause(ps):
    """Found by benchmarks/try_loop_programs.py (3.13): a ``break`` in a try with a
    finally body, in a ``while ps:`` loop in ``except E as e``.  3.12+ run the finally
    body's copy, then a copy of the outer clause's end and the ``return out`` after the
    try, the code the loop's test leaves to: the loop had no way on (lowered), and with
    one, the copy was read as a ``return`` inside the try, which loads ``out`` before
    the finally body rebinds it (wrong).  After a finally copy that is not the last, a
    copy of the code after the loop is a break."""
    out = []
    try:
        _check_positive([-1] if ps else [])
    except ValueError as e:
        out.append(str(e))
        while ps:
            p = ps.pop()
            try:
                if p % 3 == 0:
                    break
            finally:
                out = out + [-1]
            out.append(p)
    return out


@case(([1, 2],), ([3, 1, 2],), ([],), ([4, 6, 5],), ([7, 10, 2],))
def break_in_a_try_with_a_rebinding_finally_body_in_a_while_true_loop_in_a_named_except_clause(ps):
    """Found by benchmarks/try_loop_programs.py once its finally bodies rebind ``out``
    (3.13, wrong): ``while 1:`` in ``except E as e``, left by a plain ``break`` and by one
    in a try with a finally body.  3.12+ end the clause and run a copy of the ``return
    out`` after the try on both paths; with no way on, both became ``return out``, the
    second inside the try, loading ``out`` before the finally body rebinds it.  The end
    of a clause that then loads a local is a way on (a ``return x`` in the clause loads
    ``x`` first), and so is the same code past a finally copy."""
    out = []
    try:
        _check_positive([-1] if ps else [])
    except ValueError as e:
        out.append(str(e))
        while 1:
            p = ps.pop() if ps else 0
            if p == 0:
                break
            try:
                if p % 3 == 0:
                    break
            finally:
                out = out + [-1]
            out.append(p)
    return out


@case(([1, 2],), ([3, 1, 2],), ([],), ([4, 6, 5],), ([7, 10, 2],))
def break_in_a_try_with_a_rebinding_finally_body_in_a_while_true_loop_in_a_try(ps):
    """The same ``break`` in a ``while 1:`` loop in a try with an except clause, the loop's
    other way out a ``return`` (lowered on 3.12 and 3.13 once the return tail was no longer
    written inside the try): past the finally copy, a copy of the short ``return out``
    after the try loads the local, as no ``return`` in the try does; it is the way on."""
    out = []
    try:
        while 1:
            p = ps.pop()
            if p > 6:
                return out
            try:
                if p % 3 == 0:
                    break
            finally:
                out = out + [-1]
            out.append(p)
    except IndexError:
        out.append('empty')
    return out


@case(([1, 2],), ([3, 1, 2],), ([],), ([4, 6, 5],), ([7, 10, 2],))
def break_in_a_try_with_a_rebinding_finally_body_in_a_while_true_loop_returning_in_a_named_except_clause(ps):
    """The case above in ``except E as e`` (lowered on 3.13): past the finally copy, the
    clause's end and then the copy of ``return out``."""
    out = []
    try:
        _check_positive([-1] if ps else [])
    except ValueError as e:
        out.append(str(e))
        while 1:
            p = ps.pop()
            if p > 6:
                return out
            try:
                if p % 3 == 0:
                    break
            finally:
                out = out + [-1]
            out.append(p)
    return out


@case(([1, 2],), ([3, 1, 2],), ([],), ([4, 6, 5],), ([7, 10, 2],))
def break_in_a_try_with_a_rebinding_finally_body_in_a_for_loop_in_a_named_except_clause(ps):
    """The ``break`` above in a ``for`` loop (wrong on 3.13): past the finally copy, the
    iterator is dropped, the clause ended and the ``return out`` after the try copied in.
    Taken for a ``return`` through the enclosing clause, it was written inside the try,
    loading ``out`` before the finally body rebinds it.  A return copied past a finally
    copy is written where it is only if that copy binds none of what it loads.  (3.10:
    lowered, "try body leaves to several places", until a clause's end that loads a
    local after it was no return of its own.)"""
    out = []
    try:
        _check_positive([-1] if ps else [])
    except ValueError as e:
        out.append(str(e))
        for p in ps:
            if p > 6:
                break
            try:
                if p % 3 == 0:
                    break
            finally:
                out = out + [-1]
            out.append(p)
    return out


@case(([1, 2],), ([3, 1, 2],), ([],), ([4, 6, 5],), ([7, 10, 2],))
def break_in_a_try_with_a_rebinding_finally_body_and_a_plain_break_in_a_while_true_loop_in_a_try(ps):
    """Found by benchmarks/try_loop_programs.py (3.10): a ``while 1:`` loop in a try with an
    except clause, left by a ``break`` in a try with a finally body that rebinds ``out``
    and by a plain ``break``.  3.10 gives each a copy of the ``return out`` after the
    try, outside the try's range: taken for returns in the loop, the loop had no way on
    (lowered).  A return that loads a local outside the range the code before it runs
    in is a copy of the code after the try (a ``return x`` in the try loads ``x`` inside)."""
    out = []
    try:
        while 1:
            p = ps.pop()
            try:
                if p % 3 == 0:
                    break
            finally:
                out = out + [-1]
            if p > 6:
                break
            out.append(p)
    except IndexError:
        out.append('empty')
    return out


@case(([1, 2],), ([3, 1, 2],), ([],), ([4, 6, 5],), ([7, 10, 2],))
def break_in_an_except_clause_and_in_a_try_with_a_finally_body_in_a_while_true_loop_in_a_named_except_clause(ps):
    """Found by benchmarks/try_loop_programs.py (3.10): a ``while 1:`` loop in ``except E as
    e``, left by a ``break`` in an except clause and one in a try with a finally body.
    Each jumps to its own copy of the clause's end and the ``return out`` after the try;
    the second copy was taken for a ``return`` of its own, the try body left to two
    places (lowered).  A clause's end that then loads a local is a copy: a ``return`` in
    the clause loads its value before ending it."""
    out = []
    try:
        _check_positive([-1] if ps else [])
    except ValueError as e:
        out.append(str(e))
        while 1:
            p = ps.pop()
            try:
                q = 10 // (p % 3)
            except ZeroDivisionError:
                break
            try:
                if p > 6:
                    break
            finally:
                out.append(-q)
            out.append(p)
    return out


@case(([1, 2],), ([3, 1, 2],), ([],), ([4, 6, 5],))
def continue_in_a_while_loop_that_is_a_try_body_with_a_finally_body(ps):
    """Found by benchmarks/try_loop_programs.py (3.8, 3.9): a ``while ps:`` loop that is
    the whole body of a try with a finally body, with a ``continue``.  The loop's test
    fails into the finally body's copy; the try covers only the loop, so it was taken
    for a try inside the loop whose copy a ``break`` runs, and the loop had no way on
    (lowered).  The try the loop is in is not one of the loop's."""
    out = []
    try:
        while ps:
            p = ps.pop()
            if p % 3 == 0:
                continue
            out.append(p)
    finally:
        out.append('f')
    return out


@case(([1], True, False), ([1], False, True), ([1], False, False), ([1, 2], False, False), ([], True, True),
      structured=True)
def raise_as_the_else_arm_of_an_inner_if_in_a_try_with_code_after_the_ifs(field, a, b):
    """Found by the package judge (docutils 0.20.1's ``DocInfo.extract_authors``, 3.8
    and 3.9): in a try body, ``if n: if a: x = 1 elif b: x = 2 else: raise E`` then ``else:
    x = 3``, then code after the ifs.  The inner if's arms never meet (one raises), and
    the outer if's second arm was structured without knowing that its own end is where
    the outer arms meet: the code after the ifs was written into each inner arm as well,
    and ran twice (silently wrong)."""
    out = []
    try:
        if len(field) == 1:
            if a:
                n = 1
            elif b:
                n = 2
            else:
                raise KeyError(b)
        else:
            n = 3
        nodes = [x for x in range(n)]
        if len(nodes) >= 1:
            out.append(nodes)
        else:
            raise KeyError(n)
    except KeyError:
        out.append("k")
    return out


@case(([1, 2, 3],), ([2, 4],), ([],), ([5, 1],), structured=True)
def break_from_a_while_loop_in_an_except_clause_in_a_for_loop(items):
    """Found by benchmarks/nested_try_loop_programs.py (3.13): a ``while`` loop in an
    except clause, in a for loop, with a ``break``, the clause's last statement.  3.13 copies
    the clause's end (``POP_EXCEPT``, the jump to the code after the try) into the
    ``break``: both ways out of the loop jump
    to one place past the clause's end, which was taken for where the loop goes on ("a
    loop leaves its enclosing try or with": lowered).  The loop goes on at the end of
    the clause it is in."""
    out = []
    for p in items:
        try:
            if p % 2:
                raise ValueError(p)
        except ValueError:
            q = 0
            while q < p:
                q += 1
                out.append(q)
                if q * q > p:
                    break
        out.append(p)
    return out


@case(([1, 2],), ([3, 0, 4],), ([],), ([0],), structured=True)
def return_from_an_except_clause_in_a_for_loop_in_a_try_in_a_while_loop(items):
    """Found by benchmarks/nested_try_loop_programs.py (3.12, 3.13): ``return`` from an
    except clause in a for loop, in a try with an except clause that is the body of a
    ``while`` loop.  The return's value is moved under the exception, the clause ended
    and the iterator dropped inside the outer try's range, and its bare ``RETURN_VALUE``
    is laid out past it: taken for where a ``break`` goes, past an else clause (stack
    underflow: lowered)."""
    out = []
    while items:
        try:
            for q in items:
                try:
                    out.append(10 // q)
                except ZeroDivisionError:
                    return out
            items = items[1:]
        except KeyError:
            pass
        out.append(len(items))
    return out


@case(([1, 3],), ([2, 5],), ([],), ([3, 4],), structured=True)
def break_in_a_try_with_finally_from_a_while_loop_ending_an_except_clause_in_a_for_loop(items):
    """Found by benchmarks/nested_try_loop_programs.py (3.13): a ``break`` from a try with
    a finally body, in a while loop that ends an ``except E as e`` clause in a for loop,
    runs the finally copy, then 3.13's copy of the clause's end (``POP_EXCEPT``, ``e =
    None; del e``, the jump past the try): a copy of where the loop's test leaves to,
    which was not taken for the loop's way on ("a loop leaves its enclosing try or
    with": lowered)."""
    out = []
    for p in items:
        try:
            if p % 2:
                raise ValueError(p)
        except ValueError as e:
            q = 0
            while q < p:
                q += 1
                try:
                    if q == 2:
                        break
                finally:
                    out.append(-q)
        out.append(p)
    return out


@case(([1, 3],), ([2, 5],), ([],), ([3, 4],), structured=True)
def break_from_a_for_loop_ending_an_except_clause_in_a_for_loop_in_an_except_clause(items):
    """Found by benchmarks/nested_try_loop_programs.py (3.13): a ``break`` from a for loop
    that ends an ``except E as e`` clause (in a for loop in another such clause) runs
    3.13's copy of the clause's end, whose jump past the try was taken for a ``break``
    over a for loop's else clause ("a loop leaves its enclosing try or with": lowered)."""
    out = []
    try:
        if len(items) % 2:
            raise ValueError(len(items))
    except ValueError as e:
        for p in items:
            try:
                if p % 2:
                    raise ValueError(p)
            except ValueError as e:
                for q in range(p):
                    if q == 1:
                        break
                    out.append(q)
            out.append(p)
    return out


@case(([1, 3],), ([2, 5],), ([],), ([3, 4],), structured=True)
def return_from_a_while_loop_ending_an_except_clause_in_a_for_loop_in_a_try_with_finally(items):
    """Found by benchmarks/nested_try_loop_programs.py (3.8): ``return log`` from a while
    loop that ends an ``except E as e`` clause, in a for loop in a try with a finally
    body, moves the value under the exception, ends the clause, drops the iterator and
    runs the finally body's copy before it returns.  With the drop and the copy between
    the clause's end and the return, it was taken for the loop's way on ("a loop leaves
    its enclosing try or with": lowered)."""
    log = []
    try:
        for p in items:
            try:
                if p % 2:
                    raise ValueError(p)
            except ValueError as e:
                q = 0
                while q < p:
                    q += 1
                    if q == 2:
                        return log
            log.append(p)
    finally:
        log.append("f")
    return log


@case(([1, 2, 3], 2), ([4, 5], 3), ([], 1), ([6, 7, 8], 5), structured=True)
def while_else_continue_in_a_for_loop(items, limit):
    """Found by benchmarks/loop_exit_programs.py (3.8, 3.9: 348 of its 350 lowered
    programs): ``while c: ... break`` with ``else: continue`` in a for loop.  The while's
    test jumps straight to the for loop's top, where the else clause's ``continue``
    goes; the else clause was structured from there, the top of the enclosing loop ("jump
    back into the loop": lowered).  It is that ``continue``."""
    out = []
    for p in items:
        while p < limit * 3:
            p += limit
            if p % 4 == 0:
                break
        else:
            continue
        out.append(p)
    return out


class _Rows:
    def __init__(self, spans):
        self.spans, self.entry, self.out = spans, 0, []

    def rowspan(self, k):
        return self.spans[k] if k < len(self.spans) else 0

    def number(self):
        return self.entry


@case(([1, 1, 0, 1],), ([0],), ([],), ([1, 1, 1],), structured=True)
def while_test_written_over_two_lines(spans):
    """Found by the package judge (docutils 0.20.1's LaTeX writer, 3.11): a while test
    written over two lines.  3.11 repeats the test at the loop's bottom, and the copies
    were compared on the line of the test's jump alone, so the loop had two tests
    (lowered)."""
    t = _Rows(spans)
    while t.rowspan(
            t.number()):
        t.out.append(' & ')
        t.entry += 1
    return t.out, t.entry



def _divides(log, p, m):
    log.append((p, m))
    return p % m == 0


@case(([1, 2, 3, 6, 9],), ([],), ([4, 5],), structured=True)
def one_line_continue_in_an_if_ending_a_loop_body(items):
    """Found by benchmarks/loop_exit_programs.py (3.10-3.13: 30 to 70 lowered): ``if c:
    continue`` written on one line, in an arm of an ``if`` that ends the loop body.  The
    ``continue`` has no line of its own, and its jump, folded into the test, goes to the
    loop's top, as the body's end does (a ``pass`` after the ``if``, a jump back of its
    own line): it was taken for the end of the arm, which then ran back into the loop."""
    log = []
    for p in items:
        if _divides(log, p, 2):
            if _divides(log, p, 3): continue
        else:
            pass
        pass
    return log


@case(([1, 2, 3, 6, 9],), ([],), ([4, 5, 8],), structured=True)
def one_line_continue_in_an_if_in_a_while_body(items):
    """The same in a while loop, with an ``if c: continue`` after the ``if``."""
    log = []
    while items:
        p = items.pop()
        if _divides(log, p, 2):
            if _divides(log, p, 3): continue
        else:
            pass
        if p > 5: continue
        pass
    return log


@case((0, True, [1]), (0, False, [2]), structured=True)
def dead_augmented_subscript_after_a_return_in_a_try(a, x, items):
    """Random programs (3.8, 3.9): dead code after ``return`` in a try body, where the
    compiler folded ``(... if 0 else 0)`` into a jump left dead inside ``L[a] -= ...``.
    3.8 and 3.9 simulate the dead jump's code from the state of what it follows, with
    fewer values than the ``ROT_THREE`` of the augmented store moves (an internal
    error: pop from an empty list)."""
    try:
        return a
        items[a] -= len(((items[a] or True) if 0 else 0) if x else a)
    finally:
        items.append(x)


@case(([], None), ([1], None), ([1], TypeError), ([1, 1], TypeError), ([2], KeyError), structured=True)
def while_true_left_by_its_test_in_a_try_whose_inner_try_returns_from_its_else(items, error):
    """Exception programs, seed 5313 (3.8, 3.9): the jump of the inner try's body to its
    else clause, which returns, was taken for a ``break`` over an else clause, and the
    loop's test leaving the outer try for that clause: the loop became ``while items:`` with
    a ``break`` in the try and the ``return 't7'`` after it, run when the test failed."""
    try:
        while True:
            if not items:
                break
            try:
                if items.pop() > 1 or error:
                    raise error or KeyError
            except TypeError:
                pass
            else:
                return 't7'
    except KeyError:
        return 't9'
    return 'after'



class _Loaded:
    def __init__(self, name, log):
        self.R = (name, tuple(log))


def _importing(log, name, fails):
    log.append(name)
    if name in fails:
        raise ImportError(name)
    return _Loaded(name, log)


@case(("a", ()), ("a", ("x.a",)), ("a", ("x.a", "a")), ("b", ("a",)), structured=True)
def return_attribute_after_a_try_in_an_except_clause(name, fails):
    """Package judge, docutils' ``get_reader_class`` (3.10): 3.10 copies ``return m.R``
    after the try into each path, the except clause's copy past its ``POP_EXCEPT``.  The
    try in that clause, whose own clauses never go on, took that copy for its else clause,
    which then left the clause it is in (lowered: the else clause does not end where it
    jumps)."""
    log = []
    try:
        m = _importing(log, "x." + name, fails)
    except ImportError:
        try:
            m = _importing(log, name, fails)
        except ImportError as err:
            raise ValueError("not found: %s %s" % (err, log))
    return m.R


@case(([{"a": "b", "b": 1}], "a"), ([{"a": "c"}], "a"), ([{"a": ""}], "a"), ([{}, {"a": 0}], "a"),
      ([{}, {}], "a"), ([{"a": "c"}, {"a": "a", "b": 2}], "a"), ([], "a"), structured=True)
def else_clause_copied_past_a_nested_try_in_a_loop(scopes, name):
    """Package judge, pyflakes' ``Checker.handleNodeLoad`` (3.10): ``else: return 1`` of a
    try in a loop, copied into each path of its body (``POP_TOP`` of the iterator, then the
    return), past the end of a try nested in an ``if`` of the body too: that try, whose
    clause never goes on there, took the copy, outside the try body it is in, for its own
    else clause (lowered)."""
    log = []
    for scope in scopes:
        try:
            n = scope[name]
            log.append(n)
            if n:
                try:
                    log.append(scope[n])
                except KeyError:
                    pass
        except KeyError:
            pass
        else:
            return 1
        log.append("next")
        name = "b"
    return log


class _FontError(Exception):
    pass


def _opening(log, key, bad):
    if key in bad:
        raise OSError(key)
    log.append(key)
    return key


@case(([1, 2], (), ()), ([1, 2], (1,), ()), ([1, 2], (1, 2), ()), ([1, 2], (), (1,)),
      ([1, 2], (), (1, 2)), ([1, 2], (1,), (2,)), ([], (), ()), structured=True)
def return_after_a_finally_copy_in_a_try_in_a_for_else(keys, bad, missing):
    """Package judge, Pygments' ``_create_win`` (3.10): a bare ``return`` ending a try body
    with except clauses and a finally body, in a try in a for loop with an else clause:
    the return after the body's copy of the finally body, outside the enclosing try, was
    taken for the else clause of the try/except (lowered)."""
    log = []
    error = None
    for key in keys:
        try:
            k = _opening(log, key, bad)
            try:
                if k in missing:
                    raise _FontError(k, tuple(log))
                return
            except _FontError as err:
                error = err
            finally:
                log.append("close")
        except OSError:
            log.append("oserror")
    else:
        if error:
            raise error
        raise _FontError("none", tuple(log))


def _keywords(**kw):
    return sorted(kw.items())


@case((_Attrs(1, 2, 3), _Attrs(4, 5, 6)), (_Attrs(), _Attrs(4, 5, 6)), (_Attrs(1, None, 0), _Attrs(None, 5, None)),
      (_Attrs(None, 2, ""), _Attrs(4, None, 6)), structured=True)
def conditional_keyword_arguments_on_lines_of_their_own_past_fifteen(o, s):
    """Package judge, python-dateutil's ``relativedelta.__add__`` (3.10; 3.12, 3.13 alike):
    over 15 keyword arguments are built into a dict, item by item (``MAP_ADD``), and the
    last item's conditional expression on lines of its own: its join (``MAP_ADD``, the
    call, the return) is copied after each arm, each ``MAP_ADD`` on its arm's line.  The
    tail shared from the call only, each arm added to its own copy of the dict, whose
    other items were then written twice (refused: "a copied value would be evaluated
    twice")."""
    return _keywords(k0=o.c, k1=s.c, k2=o.a, k3=s.a, k4=o.b, k5=s.b, k6=1, k7=2, k8=3, k9=4,
                     k10=5, k11=6, k12=7,
                     a=(o.a if o.a is not None
                        else s.a),
                     b=(o.b if o.b is not None
                        else s.b),
                     c=(o.c if o.c
                        else s.c))
