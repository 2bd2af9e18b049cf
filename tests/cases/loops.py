"""for and while loops, with break, continue, else clauses and all kinds of targets."""
import types

from tests.cases.registry import case
from tests.cases.regressions import _Lock  # a manager that logs its enter and exit


@case((0,), (5,))
def for_over_range(n):
    total = 0
    for i in range(n):
        total += i
    return total


@case((3,), (0,), (-2,))
def while_countdown(n):
    out = []
    while n > 0:
        out.append(n)
        n -= 1
    return out


@case(([1, 3, 5],), ([1, 4, 5],), ([],))
def for_else_break(lst):
    for x in lst:
        if x % 2 == 0:
            found = x
            break
    else:
        found = None
    return found


@case((10, 3), (10, 11), (0, 1))
def while_else_break(limit, target):
    i = 0
    while i < limit:
        if i == target:
            r = "found at %d" % i
            break
        i += 1
    else:
        r = "not found"
    return r, i


@case(([1, -2, 3, -4, 5],), ([],))
def for_continue(lst):
    out = []
    for x in lst:
        if x < 0:
            continue
        out.append(x * 10)
    return out


@case((5,), (0,))
def while_true_break(n):
    i = 0
    acc = []
    while True:
        if i >= n:
            break
        acc.append(i * i)
        i += 1
    return acc


@case((3, 4), (0, 2))
def nested_loops_break_inner(rows, cols):
    out = []
    for r in range(rows):
        for c in range(cols):
            if c > r:
                break
            out.append((r, c))
    return out


@case(([[1, 2], [3, -1, 4], [5]],), ([[1], [2]],))
def nested_for_else_flag(grid):
    result = []
    for row in grid:
        for v in row:
            if v < 0:
                result.append(("neg in row", row))
                break
        else:
            result.append(("clean", sum(row)))
            continue
        result.append("after break")
    return result


@case(({"a": 1, "b": 2},), ({},))
def for_tuple_target_dict_items(d):
    out = []
    for k, v in d.items():
        out.append(k * v)
    for i, (k, v) in enumerate(sorted(d.items())):
        out.append((i, k, v))
    return out


@case(([1, 2, 3], "abc"), ([], "x"))
def for_over_zip_and_string(nums, s):
    out = []
    for n, ch in zip(nums, s):
        out.append(ch * n)
    for ch in s:
        out.append(ord(ch))
    return out


@case(([[1, 2, 3], [4], [5, 6]],))
def for_starred_target(rows):
    heads = []
    tails = []
    for head, *tail in rows:
        heads.append(head)
        tails.append(tail)
    for *init, last in rows:
        tails.append((init, last))
    return heads, tails


@case(([3, 4],))
def for_attribute_and_subscript_targets(values):
    ns = types.SimpleNamespace(cur=None)
    seen = []
    for ns.cur in values:
        seen.append(ns.cur)
    d = {}
    for d["k"] in values:
        seen.append(dict(d))
    lst = [0, 0]
    for lst[1] in values:
        seen.append(list(lst))
    return seen, ns.cur


@case(([5, 1, 4],), ([],))
def while_pop_until_empty(stack):
    out = []
    while stack:
        out.append(stack.pop())
    return out


@case(([1, 2, 30, 4],), ([1],))
def return_from_inside_loop(lst):
    for i, x in enumerate(lst):
        if x > 10:
            return "big at", i
    return "none"


@case((4,), (0,))
def while_with_return_and_else(n):
    while n:
        n -= 1
        if n == 2:
            return "hit two"
    else:
        return "exhausted"


@case((6,),)
def nested_while_with_continue_and_break(n):
    out = []
    i = 0
    while i < n:
        i += 1
        if i % 2:
            continue
        j = 0
        while True:
            j += 1
            if j > i:
                break
            if j == 2:
                continue
            out.append((i, j))
    return out


@case(([],), ([1, 2],))
def empty_loop_bodies(lst):
    for _ in lst:
        pass
    i = 0
    while i < len(lst):
        i += 1
    for x in lst:
        pass
    else:
        pass
    return i


@case((5,),)
def loop_variable_after_loop(n):
    for i in range(n):
        pass
    last = i
    for j in range(0):
        pass
    try:
        after = j
    except NameError as e:
        after = type(e).__name__
    return last, after


@case((10,), (3,))
def for_with_else_and_continue(n):
    skipped = []
    for i in range(n):
        if i % 3:
            skipped.append(i)
            continue
        if i > 6:
            break
    else:
        skipped.append("no break")
    return skipped


@case(([1, 2, 3],))
def mutate_list_during_while_index(lst):
    i = 0
    while i < len(lst):
        if lst[i] == 2:
            lst.insert(i + 1, 99)
            i += 2
            continue
        lst[i] *= 10
        i += 1
    return lst


@case((3,), (1,))
def for_over_iterator_reused(n):
    it = iter(range(n * 2))
    pairs = []
    for a in it:
        b = next(it)
        pairs.append((a, b))
    return pairs


@case((4,),)
def loop_over_reversed_and_sorted(n):
    out = []
    for i in reversed(range(n)):
        out.append(i)
    for s in sorted(["b", "c", "a"], reverse=True):
        out.append(s)
    for i in range(n, 0, -2):
        out.append(-i)
    return out


@case((3,), (0,))
def triple_nested_loops_accumulate(n):
    total = 0
    for a in range(n):
        for b in range(a):
            for c in range(b):
                total += a * 100 + b * 10 + c
    return total


@case(([0, 2, 3], []), ([0, 0], []), ([], []), same_bytecode=True)
def for_body_ending_in_an_if_that_breaks(xs, log):
    """3.10-3.11: the test jumps to the body's bottom (its jump back), not to the
    header; the if's arm ends in ``break``, so it never reaches the bottom, and the
    test read ``if not x: continue`` before the arm."""
    for x in xs:
        log.append(-x)
        if x:
            log.append(x)
            break
    else:
        log.append(None)
    log.append(0)
    return log


@case(([0, 0, 3], 1, []), ([0], 1, []), ([], 0, []), ([2], 0, []), same_bytecode=True)
def for_else_in_while_true_whose_else_returns_or_raises(xs, n, log):
    """jinja2's Lexer.tokeniter: the for's else clause, which returns or raises, is the
    only way out of the ``while True``; it was also taken for the code after the while
    (no break leaves two loops) and written there a second time."""
    while True:
        for x in xs:
            if x:
                log.append(x)
                n -= 1
                xs = xs[1:]
                break
        else:
            if n:
                return log
            raise ValueError(n)


class _Selecting:
    def __init__(self, rounds):
        self.rounds = rounds

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.rounds.append("exit")

    def select(self):
        return self.rounds.pop(0)


@case(([["a", "b"], ["b"], ["x"]], ["t", "", "l"]), ([["b"]], [""]), ([["a"]], []), structured=True)
def returns_from_a_for_in_while_true_in_a_with(rounds, texts):
    """telnetlib's Telnet.interact: the returns leave the for, the while and the with;
    taking them for a nested for's else clause (as in the case above) lowered it."""
    log = []
    with _Selecting(rounds) as selector:
        while True:
            for key in selector.select():
                if key == "a":
                    try:
                        text = texts.pop()
                    except IndexError:
                        log.append("closed")
                        return log
                    if text:
                        log.append(text)
                elif key == "b":
                    if not texts:
                        return log
                    log.append(texts.pop(0))
@case(([1, None, 2, 5], 1, []), ([5], 0, []), ([None], 3, []), ([1, 2], 2, []), same_bytecode=True)
def continue_after_an_and_chain_then_break(xs, n, log):
    """jinja2's Lexer.tokeniter (3.12+): ``if a and b: continue``; the chain's first
    test jumps past the ``continue``, and only its last one says that the jump had a
    line of its own.  It read ``if not a or not b:`` with the rest of the body in it."""
    for x in xs:
        if x is None:
            continue
        if n and x in (1, 2, 3):
            continue
        log.append(x)
        n -= 1
        break
    log.append(n)
    return log


@case(([None, 3, None],), ([None],), ([],), same_bytecode=True)
def return_in_while_true_after_a_try(refs):
    """_weakrefset.WeakSet.pop (3.11+): ``while True: try: ... except E: raise; if c:
    return x``; the return, the loop's only way out, is laid out before the jump back.
    It read ``if c: break`` then ``return x`` after the loop."""
    while True:
        try:
            ref = refs.pop()
        except IndexError:
            raise KeyError('pop from empty') from None
        item = ref
        if item is not None:
            return item


@case(([("a", "b"), ("c",), ("b",), ("a.x",)], {"a", "b"}), ([], set()))
def if_at_the_end_of_an_arm_at_the_loop_bottom(items, known):
    """pyclbr's _ModuleBrowser.visit_ClassDef (3.12): an ``if`` with no else ends the arm
    of an if/elif/else at the bottom of a loop; its test goes back to the loop's start
    by the back jump the arm ended with (threaded: no line of its own).  It read
    ``if not c: continue`` and each arm ending in ``continue``, whose jumps have lines."""
    out = []
    for item in items:
        if len(item) > 1:
            out.append(item[0])
        elif "." in item[0]:
            if item[0].split(".")[0] in known:
                out.append(item[0])
        else:
            out.append(len(item))
    return out


@case(([1, 0, 5, 3, 5, 7], {7}, []), ([], set(), []))
def continue_after_an_or_chain_then_an_if(xs, seen, out):
    """zoneinfo's available_timezones (3.10+): ``if not a or b:`` then ``continue`` on
    a line of its own, then ``if c: ...`` at the end of the body.  The ``continue``'s
    jump and the jump back that ends the body lead to one place, and the three tests
    read as one condition, ``if a and not b and c:``."""
    for x in xs:
        if not x or x in seen:
            continue
        if x > 2:
            out.append(x)
    seen.add(len(out))
    return out


@case(([3, 4, 9], {4: 1}), ([3, 9], {9: 2}), ([], {}), ([5, 3], {5: 0, 3: 0}))
def raise_in_an_if_then_break(keys, registry):
    """functools' _find_impl (all versions): ``if a and b and not c: raise ...`` then
    ``break``.  The test goes to the ``break`` and falls into the raise, laid out
    first: it read ``if not a or not b or c: break`` then the raise."""
    match = None
    for key in keys:
        if match is not None:
            if key in registry and registry[key] and not registry[match]:
                raise RuntimeError("ambiguous: %r or %r" % (match, key))
            break
        if key in registry:
            match = key
    return match


@case(("  a(b)c",), ("(x)  ",), ("",), ("a",), (" \n (",), same_bytecode=True)
def if_elif_else_break_ending_a_while_body(text):
    """email's AddrlistClass.gotonext (3.11+): ``if a: ... / elif b: ... / else: break``
    ends the body; the first arm jumps forward to the bottom (the copy of the test),
    over the others: no ``continue``, and the ``break`` laid out after the elif arm,
    which jumps over it, is the else clause."""
    pos, spaces, words = 0, [], []
    while pos < len(text):
        if text[pos] in " \n":
            if text[pos] != "\n":
                spaces.append(pos)
            pos += 1
        elif text[pos] != "(":
            words.append(text[pos])
            pos += 1
        else:
            break
    return "".join(words), spaces, pos


@case(([3, 1, 0, 2], True), ([3, 0], False), ([], True), same_bytecode=True)
def if_else_ending_a_try_body_ending_a_for_body(items, flip):
    """subprocess's Popen._on_error_fd_closer (3.11, 3.12): the if/else ends a try body
    that ends the loop body; the first arm jumps forward to the loop's bottom, where
    the try body leaves, over the else arm: not ``continue``."""
    out = []
    for x in items:
        try:
            if flip and x > 2:
                out.append(-x)
            else:
                out.append(6 // x)
        except ZeroDivisionError:
            pass
    return out


@case(([3, 7, 0, 2], True), ([3, 0, 9], False), ([], True), same_bytecode=True)
def if_else_with_a_continue_in_an_arm_ending_a_try_body_in_a_for(items, flip):
    """shutil's _copytree (3.11, 3.12): one arm of the if/else ending the try body
    continues on one path and runs to the loop's bottom on the others: the arms still
    meet there (no ``continue`` written at their ends)."""
    out = []
    for x in items:
        try:
            if flip:
                if x > 5:
                    continue
                if x:
                    out.append(-x)
                else:
                    out.append(1 // x)
            else:
                out.append(6 // x)
        except ZeroDivisionError:
            out.append("zero")
    return out


@case(([("a", 1), ("b", "x"), ("c", 2)], {"a"}, {"b"}), ([("z", 1)], set(), set()), same_bytecode=True)
def elif_chain_ending_in_a_raise_in_a_try_body_in_a_for(items, negative, flags):
    """distutils' Distribution._set_command_options (3.11): ``if / elif / elif / else:
    raise`` ending a try body in a for loop; the arms that go on jump to the loop's
    bottom."""
    out = []
    for name, value in items:
        try:
            text = isinstance(value, str)
            if name in negative and not text:
                out.append(-value)
            elif name in flags and text:
                out.append(value.upper())
            elif hasattr(out, name):
                out.append(name)
            else:
                raise KeyError(name)
        except KeyError as exc:
            out.append(str(exc))
    return out


@case((3, [0, 0, 1]), (2, [0, 0, 0]), (0, []), same_bytecode=True)
def break_before_a_short_return_after_the_loop(c, flags):
    """logging.Logger.hasHandlers, getopt.getopt: 3.12+ put a NOP on the break's line
    and a copy of the return after the loop in the break's place: a ``break`` (written
    ``return rv`` in the loop, the NOP was lost)."""
    rv = False
    while c:
        if flags[c - 1]:
            rv = True
            break
        c -= 1
    return rv


@case((5, {1: 1, 3: 2}), (4, {}), (9, {0: 1}), same_bytecode=True)
def return_in_a_loop_alike_the_return_after_it(base, deltas):
    """encodings.punycode.insertion_sort: a ``return`` in the loop, the same code as
    the return after the loop but with no NOP before it, is no ``break``."""
    pos = 0
    while pos < 10:
        delta = deltas.get(pos)
        if delta is None:
            return base
        pos += delta + 1
        base += 1
    return base


@case(([[1], [], [2, 3]], []), ([], []), same_bytecode=True)
def while_true_whose_first_statement_returns(sequences, result):
    """functools._c3_merge, fileinput.FileInput.readline: ``while True:`` whose body
    begins with ``if not c: return x``; the test that falls into the return is no
    while test, and the return is one of the loop (written ``break`` and the
    return after the loop)."""
    while True:
        sequences = [s for s in sequences if s]
        if not sequences:
            return result
        result.append(sequences.pop().pop())


@case(([("a", "x", "/"), ("b", "y", "/p")], None, None), ([("a", "x", "/"), ("b", "y", "/p")], "y", "/p"),
      ([("a", "x", "/")], "z", None), ([], None, "/"), same_bytecode=True)
def if_or_conditions_ending_a_for_body(cookies, domain, path):
    """requests.cookies.RequestsCookieJar.get_dict (requests.packages, rich's
    Markdown.__rich_console__): ``if (a or b) and (c or d): <body>`` ending a for body,
    whose last test goes, when false, to the jump back the body runs into (3.10,
    3.11); written ``if not ... : continue`` and the body after it."""
    dictionary = {}
    for name, dom, pth in cookies:
        if (domain is None or dom == domain) and (path is None or pth == path):
            dictionary[name] = dom
    return dictionary


@case((["x", "lparen", "dot", "lbracket"],), (["lparen"],), (["x"],), ([],), same_bytecode=True)
def elif_chain_with_else_break_in_while_true(tokens):
    """jinja2.parser.Parser.parse_postfix (parse_filter_expr, click's _resolve_context):
    ``if/elif/else: break`` ending a ``while True`` body; 3.8 and 3.9 thread the elif
    test through the break to the loop's exit and leave the break dead after the elif
    arm (written ``if not c: break`` and the arm after it)."""
    node = []
    while True:
        token_type = tokens.pop() if tokens else "end"
        if token_type == "dot" or token_type == "lbracket":
            node.append(1)
        elif token_type == "lparen":
            node.append(2)
        else:
            break
    return node


@case((["ab", "(c", "dm", "e", "fx"],), ([],), (["(", "m"],), same_bytecode=True)
def if_else_whose_first_arm_continues_inside_then_a_tail(codes):
    """rich.ansi._ansi_tokenize (Text.wrap, jinja2's Lexer.wrap, requests'
    _encode_files): ``if c: <an inner if that continues> else: ...`` then a tail
    ending the loop body; the first arm jumps over the else clause to the tail
    (written with the tail copied into each arm and ``continue``)."""
    position, out = 0, []
    for end, sgr in enumerate(codes):
        if sgr:
            if sgr[0] == "(":
                position = end + 1
                continue
            if sgr.endswith("m"):
                out.append(sgr[1:-1])
        else:
            out.append(None)
        position = end
    return position, out


@case((["end", "y", "in", "not", ">", "<"],), (["end"],), (["x", "not"],), (["in", "not"],), same_bytecode=True)
def elif_and_test_else_break_then_a_tail(tokens):
    """jinja2.parser.Parser.parse_compare: ``elif a and b: <arm>`` / ``else: break``
    then a tail ending a ``while True`` body: on 3.11 both tests go to the break laid
    out after the arm, which jumps over it to the tail; on 3.8 and 3.9 they go past
    the loop, the break left dead after the arm (written ``if not a or not b: break``
    in an else clause)."""
    ops = []
    lineno = 0
    while True:
        token_type = tokens.pop()
        if token_type in ("<", ">"):
            ops.append(token_type)
        elif token_type == "not" and tokens and tokens[-1] == "in":
            tokens.pop()
            ops.append("notin")
        else:
            break
        lineno += 1
    return ops, lineno


@case(([5, 6], [0, 3], True), ([5, 6], [0, 3], False), ([5, 6], [0, 0], True), ([], [1], True),
      same_bytecode=True)
def conditional_return_in_a_for_in_a_while(active, neighbors, forward):
    """networkx boykov_kolmogorov_impl.grow: ``return a if c else b`` in a for loop in
    a while loop; the return is no way out of the while (it was taken for the while's
    follow, and the for's iterator was missing under the returned value)."""
    while active:
        for v in neighbors:
            if v:
                return (active[-1], v) if forward else (v, active[-1])
        active.pop()


@case(([[1, 2], [], [3]],), ([],), ([[]],), same_bytecode=True)
def break_after_code_in_a_clause_of_a_while_true_in_a_while(stacks):
    """networkx shortest_augmenting_path_impl: the only way out of a ``while True`` is
    an except clause's ``if c: x(); break``, whose other arm goes back to the loop
    (the clause is in the loop's body); the loop goes on past the clause's end."""
    out = []
    while stacks:
        stack = stacks.pop()
        tries = 0
        while True:
            try:
                out.append(stack.pop())
            except IndexError:
                tries += 1
                if tries > 1:
                    out.append(-tries)
                    break
        out.append(len(stacks))
    return out


@case(([1, 2], [0, 3]), ([], [0, 3]), ([1], [0, 0]), same_bytecode=True)
def conditional_return_of_constants_in_a_for(a, nb):
    """networkx boykov_kolmogorov_impl.grow, reduced: ``return 1 if a else 2`` in a for
    loop; 3.12+ copy the iterator's drop and the return (``SWAP 2; POP_TOP;
    RETURN_VALUE``) after each arm (written ``if a: return 1`` / ``return 2``)."""
    for v in nb:
        if v:
            return 1 if a else 2
    a.append(0)
    return a


@case(([[1], [2], [3]],), ([[1, 2]],), ([],), same_bytecode=True)
def bare_break_in_a_clause_of_a_while_true_in_a_while(stacks):
    """networkx shortest_augmenting_path_impl, reduced: a ``while True`` left only by an
    except clause's ``if c: break``, which 3.11+ thread to the enclosing loop's test
    (the loop goes on at that jump)."""
    out = []
    while stacks:
        while True:
            try:
                out.append(stacks[-1].pop())
            except IndexError:
                if stacks.pop() == [] and len(stacks) % 2 == 0:
                    break
    return out


class _Truthy:
    """Counts its truth tests: ``c or True`` tests ``c``, whatever it decides."""

    def __init__(self, value):
        self.value, self.tests = value, 0

    def __bool__(self):
        self.tests += 1
        return self.value


@case((0, True, False), (0, False, True), (1, False, False), (5, True, True), structured=True)
def while_test_going_on_either_way_with_continue(n, c, d):
    # the test's last part goes on to the body either way (``c or True``): the bottom copy
    # ends "jump-if BODY; JUMP BODY", which was not taken for a loop's test, and with a
    # ``continue`` going to the top copy the loop became a state machine (3.11+)
    seen = _Truthy(c)
    while n < 3 and (seen or True):
        n += 1
        if d:
            continue
        seen = _Truthy(False)
    else:
        n += 10
    return n, seen.tests


@case((0, True), (4, False), structured=True)
def while_test_going_on_either_way(n, c):
    seen = _Truthy(c)
    while n < 3 and (seen or True):
        n += 1
    return n, seen.tests


@case((0,), (1,), (2,), (3,), structured=True)
def for_loop_that_never_loops_back_with_a_try_in_a_while_loop(a):
    """Random programs (every version): a for loop that never loops back (its try's
    ``else: break``, then ``return`` after the try) in a while loop.  The code after the
    try, where the except clause goes on, is no natural loop's body, and was taken for
    where the while loop goes on (where its except clauses leave it): written after the
    loop, it dropped the for loop's iterator from an empty stack (lowered: "stack
    underflow")."""
    log = []
    w = 0
    while w < 4 and a:
        w += 1
        for x in range(a):
            try:
                log.append(1 // (x - 1))
            except ZeroDivisionError as e:
                log.append(repr(e))
            else:
                break
            log.append(3)
            return log
    return log


def _cm_log():
    class CM:
        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return True
    return CM()


@case((0,), (1,))
def local_bound_only_past_a_with_that_always_breaks(n):
    """``b`` is bound only past a with whose body always breaks (reachable in the bytecode
    by the exit's suppressing way alone, and not written): it is still a local, so the
    ``return b`` raises UnboundLocalError, not NameError (3.10+, in a finally body)."""
    try:
        n += 1
    finally:
        while n:
            with _cm_log():
                break
            b = n
    return b


@case((0,), (1,), (2,))
def return_after_a_for_whose_with_breaks_through_a_finally(n):
    """``return b`` after the loop, past a with whose body breaks through a finally, ``b``
    bound only after the break: 3.10 copies the return past the with's exit on the
    break's way, and it was written inside the with, as a load that cannot raise, so the
    with's exit saw the UnboundLocalError (3.8-3.11 have no LOAD_FAST_CHECK to tell)."""
    for i in range(n):
        with _Strict():
            try:
                break
            finally:
                n += 1
            b = i
    return b


class _Strict:
    def __enter__(self):
        return self

    def __exit__(self, kind, value, tb):
        if kind is not None:
            raise RuntimeError("the exit saw %s" % kind.__name__)


@case(([],), ([True],), ([True, True],), ([True, False, True, True],))
def while_arm_that_begins_a_try_whose_body_never_completes(flags):
    """``if c():`` arm in a ``while True`` whose try body always raises (``del r``, r
    unbound) under a finally body, in a try/except: no normal way back to the loop.  3.8
    and 3.9 took that arm for where a ``break`` goes past an else clause: the loop came
    out ``while c(): if c(): break`` with the try after it, run when the test failed too
    (found by exception_programs.py, seed 1318)."""
    it = iter(flags)
    log = []
    try:
        while True:
            if not next(it, False):
                break
            if next(it, False):
                try:
                    del r  # noqa: F821  (never bound: the UnboundLocalError is the behaviour)
                    return 1
                finally:
                    log.append(2)
    except Exception:
        return "t2", log
    log.append(3)
    return log


@case(([],), ([True],), ([True, "key"],), ([True, "none", True, "none"],))
def while_true_whose_try_else_clause_raises(kinds):
    """A ``while True`` in a try/except whose body's try/except has an else clause that
    raises: the try body's way on to that clause falls out of the inner try into the loop's
    own, no ``break``.  3.8 and 3.9 took it for one, past an else clause made of the loop's
    test: ``raise`` came after the loop, run when the test failed (found by
    exception_programs.py, seed 1672)."""
    it = iter(kinds)
    log = []
    try:
        while True:
            if not next(it, False):
                break
            try:
                log.append(next(it, "none"))
                if log[-1] == "key":
                    raise KeyError("k")
            except KeyError:
                pass
            else:
                raise ValueError("t6")
    except TypeError:
        pass
    log.append(3)
    return log


@case(([],), ([True],), ([True, True],), ([True, True, "key"],), ([True, True, "key", True, False],))
def while_in_while_break_from_try_except_finally(kinds):
    """``break`` from a try/except/finally body in a ``while`` nested in another: 3.8 and
    3.9 run the finally body's copy, then jump straight to the outer loop's top, where the
    inner loop's test jumps too.  The copy was taken for code past an else clause made of
    that ``continue``: written after the loop as well, it ran twice (found by
    exception_programs.py, seed 1152)."""
    it = iter(kinds)
    log = []
    while next(it, False):
        while next(it, False):
            try:
                if next(it, "none") == "key":
                    raise KeyError("k")
                break
            except KeyError:
                log.append(1)
            finally:
                log.append("t4")
    return log


@case(([],), ([True],), ([True, "key"],), ([True, "key", False],))
def while_true_return_from_a_try_except_finally_in_a_try(kinds):
    """``return 't2'`` from the body of a try/except/finally in a ``while True`` inside a
    try: 3.10 runs the finally body's copy, then loads the constant and returns.  That
    copy was taken for where a ``break`` goes past an else clause made of the code after
    the loop: the return came out as ``break``, and the copy and ``return 't2'`` after the
    loop, where the failing test went too (found by exception_programs.py, seed 3892)."""
    it = iter(kinds)
    log = []
    try:
        while True:
            if not next(it, False):
                break
            try:
                log.append({"none": 1}[next(it, "none")])   # (KeyError: "key")
                return "t2"
            except KeyError:
                continue
            finally:
                log.append("t3")
    except ValueError:
        pass
    return log


@case(([],), ([True],), ([True, "key"],), ([True, "key", False],))
def while_true_return_from_a_try_except_finally_then_a_tuple(kinds):
    """The same with the raise in an ``if`` of the try body and a tuple returned after the
    loop: 3.13 too took the finally body's copy on the return's way out for where a
    ``break`` goes (the loop's failing test returned ``'t2'``)."""
    it = iter(kinds)
    log = []
    try:
        while True:
            if not next(it, False):
                break
            try:
                if next(it, "none") == "key":
                    raise KeyError("k")
                return "t2"
            except KeyError:
                continue
            finally:
                log.append("t3")
    except ValueError:
        pass
    return "end", log


@case(([False],), ([True, True],), ([True, False, True, True],))
def while_true_left_only_by_breaks_in_a_with(tests):
    """exception_programs.py seed 83973 (3.8, 3.9): each way out of ``while True: if not
    c(): break; if c(): break`` jumps to the code after the loop; the failing test was
    taken for the way into an else clause, which copied that code up to the with's end,
    so ``log.append("after")`` ran twice."""
    it = iter(tests)
    log = []
    with _Lock(log):
        while True:
            if not next(it):
                break
            if next(it):
                break
        log.append("after")
    return log


class _Swallows(_Lock):
    def __exit__(self, *exc):
        self.log.append("exit")
        return True


@case(([False],), ([True, False],), ([True, True, True],), ([True, True, False, False],),
      ([True, True, False, True],))
def while_else_clause_in_a_with_that_swallows_the_return(tests):
    """exception_programs.py seed 77699 (3.12, 3.13): the loop's test fails into a with
    whose body returns, and a way out of the body that returns was taken for a ``break``;
    the with was written as the loop's else clause and taken never to go on, but its
    manager swallows the body's NameError: the text then ran on to the code after the loop
    (``return "t6"``), where the original goes on past the if."""
    it = iter(tests)
    log = []
    try:
        if next(it):
            while True:
                if not next(it):
                    break
                with _Swallows(log):
                    return "body", missing_name  # noqa: F821 (the NameError is the behaviour)
                if next(it):
                    log.append("t5")
                    return "t6"
            with _Swallows(log):
                return "after", missing_name  # noqa: F821
        else:
            log.append("else")
    finally:
        log.append("finally")
    return "end", log


@case(([False],), ([True],))
def for_whose_except_clause_holds_a_try_that_never_goes_on(tests):
    """exception_programs.py seed 79121 (3.12, 3.13): the try in the except clause, which
    always raises, is laid out past the loop, and was taken for where a ``break`` goes: it
    was written after the loop, outside the clause, so its bare ``raise`` had no exception
    to raise.  Code under a handler that keeps the loop's iterator is in the loop."""
    it = iter(tests)
    log = []
    b = None
    for i in range(1):
        try:
            raise ValueError("t3")
        except ValueError:
            if next(it):
                try:
                    b = log.append("t5")
                finally:
                    raise
        finally:
            log.append(b)
    return "end", log


@case(([False],), ([True, False, False],), ([True, True],), ([True, False, True, True],))
def while_whose_try_holds_a_for_else_break(tests):
    """exception_programs.py seed 81336 (3.12, 3.13): the for loop in the try/finally, whose
    ``else: break`` runs the finally copy laid out after it, was taken for code that leaves
    the try the while loop is in, and written after the loop: the finally body ran before
    the for loop and again after it."""
    it = iter(tests)
    log = []
    while next(it):
        try:
            if next(it):
                for i in range(2):
                    log.append(i)
                else:
                    break
                break
        finally:
            log.append("finally")
    else:
        raise ValueError(log)
    return "broke", log


@case(([1],), ([0, 1, 1],), ([0, 1, 0, 0],), ([0, 0],))
def with_while_true_whose_first_if_returns_through_the_exit(tests):
    """A ``while True`` in a with whose first ``if`` returns: on 3.11 the loop's header is
    that test, its true arm the with's exit copy and the return; that was taken for the
    loop's test failing into the exit copy, where the loop goes on, and the loop was
    lowered to the state machine (reduced from tomlkit's ``Parser._parse_item``)."""
    it = iter(tests)
    log = []
    with _Lock(log):
        while True:
            if next(it):
                return 1, log
            elif next(it):
                if next(it):
                    return 2, log
            else:
                break
    return 3, log


@case(([1],), ([0, 1, 0],), ([0, 1, 1, 1],), ([0, 0],), ([0, 1, 1, 0, 0],))
def with_while_true_returning_a_value_from_two_arms(tests):
    """Two arms of a ``while True`` in a with return a tuple ending in a call: the
    compiler's two copies (value, move it under the exit, exit, return) are shared again
    from the tuple on, and the arms were taken for where the loop goes on (lowered to the
    state machine; tomlkit's ``Parser._parse_item``, 3.10-3.13)."""
    it = iter(tests)
    log = []
    state = _Lock(log)
    with state:
        while True:
            c = next(it)
            if c:
                return None, log.append("nl")
            elif next(it):
                if not next(it):
                    return None, log.append("ws")
            else:
                state.restore = True
                break
    return log, getattr(state, "restore", None)


@case(([[0, 1]],), ([[0], [2]],), ([],), ([None, [3]],), ([[0], None],))
def constant_return_from_a_for_in_a_try_in_a_for(bases):
    """``return True`` from a for loop in a try body inside another for loop: the inner
    iterator is dropped inside the try, the outer one past its end, then the constant
    returned.  Written as a state machine on every version (astroid's ``_is_metaclass``,
    found by running astroid's tests on its decompiled modules): the drop of the outer
    iterator hid the constant return past the try."""
    for base in bases:
        try:
            for b in base:
                if b:
                    return True
        except TypeError:
            continue
    return False


@case(([[0, 1]],), ([[0], [2]],), ([],), ([None, [3]],))
def constant_return_from_a_for_in_a_try_in_two_fors(bases):
    """The same two loops deep past the try: two iterators dropped before the return."""
    for outer in [bases]:
        for base in outer:
            try:
                for b in base:
                    if b:
                        return "found"
            except TypeError:
                pass
    return None
