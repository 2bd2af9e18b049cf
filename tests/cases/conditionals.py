"""if / elif / else statements and conditional expressions."""
from tests.cases.registry import case


@case((1,), (0,))
def if_only(x):
    r = "start"
    if x:
        r = "taken"
    return r


@case((1,), (0,), (-1,))
def if_else(x):
    if x > 0:
        r = "pos"
    else:
        r = "nonpos"
    return r


@case((-5,), (0,), (5,), (15,), (100,))
def if_elif_else_chain(x):
    if x < 0:
        return "negative"
    elif x == 0:
        return "zero"
    elif x < 10:
        return "digit"
    elif x < 50:
        return "small"
    else:
        return "large"


@case((-5,), (0,), (5,), (11,), (15,))
def if_elif_without_else(x):
    r = []
    if x < 0:
        r.append("neg")
    elif x < 10:
        r.append("lt10")
    elif x < 12:
        r.append("ten or eleven")
    r.append("end")
    return r


@case((True, True), (True, False), (False, True), (False, False))
def nested_if_else(a, b):
    if a:
        if b:
            r = 1
        else:
            r = 2
    else:
        if b:
            r = 3
        else:
            r = 4
    return r


@case((None,), ([],), ([0],), ("",), ("s",))
def if_not_and_is_none(x):
    out = []
    if x is None:
        out.append("none")
    if not x:
        out.append("falsy")
    if x is not None and len(x) > 0:
        out.append("nonempty")
    if not (x is None or x):
        out.append("empty but not none")
    return out


@case((3,), (7,), (12,), (-1,))
def if_with_compound_condition(x):
    if 0 < x < 5 or x > 10:
        a = "in"
    else:
        a = "out"
    if x in (3, 7) and not x == 7:
        b = "three"
    elif x not in [12]:
        b = "other"
    else:
        b = "twelve"
    return a, b


@case((0,), (1,), (2,))
def if_with_pass_bodies(x):
    if x == 0:
        pass
    elif x == 1:
        x += 10
    else:
        pass
    return x


@case((5,), (-5,), (60,))
def early_return_guard(x):
    if x < 0:
        return "negative", x
    y = x * 2
    if y > 100:
        return "huge"
    return "ok", y


@case((1,), (0,))
def constant_conditions(x):
    r = []
    if 0:
        r.append("never")
    if True:
        r.append("always")
    if None:
        r.append("never2")
    else:
        r.append("else of None")
    if 1:
        r.append("one")
    else:
        r.append("never3")
    if x:
        r.append("x")
    return r


@case(([1, 2, 3, 4, 5, 6],), ([],))
def if_inside_loop_with_continue(lst):
    evens = []
    for v in lst:
        if v % 2:
            continue
        elif v > 4:
            evens.append(-v)
        else:
            evens.append(v)
    return evens


@case((0,), (1,), (2,))
def if_with_side_effect_condition(n):
    log = []

    def check(v):
        log.append(v)
        return v == n

    if check(0):
        r = "zero"
    elif check(1):
        r = "one"
    else:
        r = "other"
    return r, log


@case((1,), (2,), (3,))
def conditional_expression_assignments(x):
    a = "odd" if x % 2 else "even"
    b = [x] if x > 1 else []
    c = (x if x < 3 else -x) * 10
    return a, b, c


@case((0,), (1,), (2,), (3,))
def if_elif_returns_in_all_branches(x):
    if x == 0:
        return "zero"
    elif x == 1:
        return "one"
    elif x == 2:
        pass
    else:
        return "many"
    return "two falls through"


@case((True, 5), (True, 4), (True, 2), (False, 5), (True, -1))
def deeply_nested_ifs(flag, n):
    if flag:
        if n > 0:
            if n > 3:
                if n % 2:
                    return "flag big odd"
                return "flag big even"
            return "flag small"
        return "flag nonpos"
    return "no flag"


@case((1,), (2,), (3,))
def if_else_with_assignment_in_both_and_after(x):
    if x == 1:
        a = 10
        b = 20
    elif x == 2:
        a = 30
        b = a + 1
    else:
        a = b = -1
    c = a + b
    return a, b, c


@case(([],), ([1],), ([1, 2],))
def if_on_container_truthiness(lst):
    if lst:
        if len(lst) == 1:
            return "one"
        return "many"
    else:
        return "empty"


@case(((1, 2),), ("ab",), (3,), (("a", ""),), same_bytecode=True)
def else_arm_returns_before_shared_tail(cmd):
    # the if/elif arms go on to the loop, the else arm returns: the loop is written
    # once, after the if (not in each arm that goes on)
    if isinstance(cmd, tuple):
        items = cmd
    elif isinstance(cmd, str):
        items = [cmd]
    else:
        return False
    for item in items:
        if not item:
            return False
    return True


@case(({"posix": 1}, []), ({"nt": "7"}, []), ({"nt": "x"}, []), ({}, []), same_bytecode=True)
def elif_arm_ending_in_a_try_before_a_raising_else(names, log):
    """os's module body (3.11): the ``elif`` arm ends in a try and the ``else`` raises.
    The if's arms meet past the elif, but the elif's own branch, which has no merge
    point, structured its arm on past that meeting point: the code after the if
    was written into it too (and a module body ending there was refused)."""
    if "posix" in names:
        log.append(1)
    elif "nt" in names:
        log.append(2)
        try:
            log.append(int(names["nt"]))
        except ValueError:
            pass
    else:
        raise ImportError("no os specific module found")
    log.append(3)
    return log


@case(*[(a, b, c) for a in (0, 1) for b in (0, 1) for c in (0, 1)], same_bytecode=True)
def if_whose_returning_body_runs_into_the_code_after_it(a, b, c):
    """click's Option._resolve_lazy_default: the body returns on some paths and runs
    into the code after the ``if`` on the others, which returns too; nothing
    post-dominates the test, and the body took the code after the ``if`` as its own:
    ``return 3`` was written twice."""
    if a:
        if b:
            return 1
        if c:
            return 2
    return 3


@case(*[(v, m, r) for v in (None, True, 5) for m in (0, 1) for r in (0, 1)], same_bytecode=True)
def two_ifs_returning_in_a_row_after_a_nested_if(value, multiple, required):
    if value is None and multiple:
        if required and not multiple:
            return ()
        if not required:
            return False
    if value is True and required:
        return "flag"
    return value
@case((True, 2), (False, 2), same_bytecode=True)
def if_else_both_returning_ends_the_body(flag, n):
    # 3.8 and 3.9 write a dead ``return None`` after a body whose last statement is not a
    # ``return``: the else keeps it one (sysconfig.get_paths, tracemalloc)
    if flag:
        return n
    else:
        n += 1
        return n * 2


@case(({"a": 1}, "a"), ({}, "a"), same_bytecode=True)
def try_else_returning_ends_the_body(table, key):
    # collections.abc's Mapping.__contains__: the return in the else clause, not after the try
    try:
        table[key]
    except KeyError:
        return False
    else:
        return True


@case((True,), (False,), same_bytecode=True)
def if_else_returning_none_explicitly(flag):
    if flag:
        return [flag]
    else:
        return None


@case((True, True, 1), (True, False, 1), (False, True, 1), (False, False, 1), same_bytecode=True)
def else_clause_after_an_if_else_that_returns(a, b, c):
    # _pydecimal's Decimal._cmp: 3.8 and 3.9 keep the dead jump over the else clause
    # after an arm ending in an if/else (whose own jumps land on it)
    if a:
        if b:
            return 1
        else:
            return 2
    else:
        c = c + 1
    return c


@case((True, 1), (False, 1), same_bytecode=True)
def else_clause_after_a_raise(a, b):
    # and after an arm ending in a raise (logging.basicConfig)
    if a:
        raise ValueError(b)
    else:
        b += 1
    return b


@case((1, 0), (0, 0), (0, 1), ([], "x"))
def if_or_else_with_the_or_arm_first(a, b):
    # argparse's add_subparsers on 3.8/3.9 (and with stores of attributes, 3.12): the
    # first test of ``a or b`` jumps to the body, the last one past it; the arm laid
    # out first is the body (it came out as ``if not a and not b:`` with the arms swapped)
    if a or "b" in str(b):
        x = 1
    else:
        x = 2
    return x


# 3.8 and 3.9 keep the jump over an else clause after an arm that never goes on; it
# starts a basic block, so the peephole leaves it dead.  The cases below are the shapes
# of it that read as an if without else (the rest written after it, or twice).

@case(([1, 0, 2], 0), ([], 1), ([0, 0], 5), same_bytecode=True)
def else_clause_after_an_arm_ending_in_continue(xs, b):
    # argparse's _parse_known_args: the else clause, then more of the loop body
    for x in xs:
        if x:
            b += x
            continue
        else:
            b -= 1
        b *= 2
    return b


@case(([1, 0, 2], 0), ([], 1), ([0, 0], 5), same_bytecode=True)
def else_clause_after_a_bare_continue(xs, b):
    # ast.NodeTransformer.generic_visit
    for x in xs:
        if x:
            continue
        else:
            b -= 1
        b *= 2
    return b


@case((3, 1), (0, 0), (2, 1), same_bytecode=True)
def else_clause_ending_the_loop_body_after_a_continue(a, b):
    # the dead jump goes back to the loop's start (its target, the jump back, threaded)
    while a:
        if b:
            a -= 1
            continue
        else:
            b = 2
            a -= 1
    return b


@case((100, 7), (5, 5), (1, 1), same_bytecode=True)
def else_clause_ending_the_loop_body_after_a_break(c, n):
    # _pydecimal's Decimal.sqrt (Newton's method)
    while True:
        q = c // n
        if n <= q:
            break
        else:
            n = n + q >> 1
    return n


@case(([0, 0], 1), ([1], 1), ([], 2), same_bytecode=True)
def else_clause_ending_the_loop_body_after_a_raise(xs, b):
    for x in xs:
        if x:
            raise ValueError(x)
        else:
            b -= 1
    return b


@case(([1, None, 2, 'ab'],), ([None],), ([],))
def else_clause_in_an_if_ending_where_the_outer_if_does(values):
    # ast.NodeTransformer.generic_visit: 'if a: if b: continue; elif c: ...; continue'
    # then the code after the outer if; the inner dead jump goes there
    out = []
    for value in values:
        if not isinstance(value, int):
            value = value and value * 2
            if value is None:
                continue
            elif not isinstance(value, str):
                out.extend(value)
                continue
        out.append(value)
    return out


@case(([1, 0, 2], False), ([0, 0], True), ([0, 1, 2], True), ([], True), structured=True, same_bytecode=True)
def else_clause_returning_from_a_for_after_a_continue(values, c):
    """sympy.polys.solvers.solve_lin_sys: 'if c: if not x: continue; else: return'
    then the code after the outer if; the return pops the iterator first, the
    continue side keeps it for the dead jump over the else clause (3.8, 3.9)."""
    out = []
    for x in values:
        if c:
            if not x:
                continue
            else:
                return None
        out.append(x)
    return out


@case((True, None), (False, None), (False, OSError))
def else_clause_holding_a_try_after_a_raise(a, exc):
    # asyncio's _set_reuseport: code with blocks keeps the dead jump too
    def run():
        if exc is not None:
            raise exc()
    if a:
        raise ValueError('unsupported')
    else:
        try:
            run()
        except OSError:
            raise ValueError('not implemented')
    return a


@case((True, None), (False, None), (True, KeyError), (False, KeyError), same_bytecode=True)
def both_arms_raising_in_an_except_clause(a, exc):
    # asyncio's IocpProactor.recv's finish_recv, os._fspath
    def run():
        if exc is not None:
            raise exc()
    try:
        run()
    except KeyError:
        if a:
            raise
        else:
            raise ValueError('wrapped')
    return 1


@case((None,), (1,), (KeyError,), same_bytecode=True)
def raise_or_return_in_a_try_body(v):
    # importlib.find_loader
    try:
        if v is KeyError:
            raise KeyError(v)
        if v is None:
            raise ValueError('none')
        else:
            return v
    except KeyError:
        pass
    return 2


@case((None,), (1,))
def raise_or_return_in_an_except_clause(b):
    # configparser's RawConfigParser.get
    try:
        c = {}[1]
    except KeyError:
        if b is None:
            raise
        else:
            return b
    return c


@case(([1, 0, 2], 1), ([0], 0), ([], 3), ([0], None), same_bytecode=True)
def continue_or_reraise_in_an_except_clause_in_a_loop(xs, flag):
    # bz2.decompress, tempfile.mkdtemp: the continue leaves the handler first
    out = []
    for x in xs:
        try:
            out.append(10 // x)
        except ZeroDivisionError:
            if flag is not None:
                continue
            else:
                raise
        out.append(x)
    return out


@case((None,), ([1],), (['a'],), same_bytecode=True)
def else_clause_after_a_try_that_never_goes_on(f):
    # fileinput.FileInput.fileno: the dead jump follows the try's END_FINALLY (3.8)
    if f:
        try:
            return int(f[0])
        except ValueError:
            return -1
    else:
        return -2


@case((100, 7), (5, 5), same_bytecode=True)
def else_clause_ending_a_loop_body_far_from_its_start(c, n):
    # _pydecimal's Decimal.sqrt: with the loop's start past 255 code units the peephole
    # leaves the dead jump to the loop's jump back as it is (EXTENDED_ARG)
    pad = [c, c, c, c, c, c, c, c, c, c, c, c, c, c, c, c,
            c, c, c, c, c, c, c, c, c, c, c, c, c, c, c, c,
            c, c, c, c, c, c, c, c, c, c, c, c, c, c, c, c,
            c, c, c, c, c, c, c, c, c, c, c, c, c, c, c, c,
            c, c, c, c, c, c, c, c, c, c, c, c, c, c, c, c,
            c, c, c, c, c, c, c, c, c, c, c, c, c, c, c, c,
            c, c, c, c, c, c, c, c, c, c, c, c, c, c, c, c,
            c, c, c, c, c, c, c, c, c, c, c, c, c, c, c, c,
            c, c, c, c, c, c, c, c, c, c, c, c, c, c, c, c]
    while True:
        q = c // n
        if n <= q:
            break
        else:
            n = n + q >> 1
    return n, len(pad)


@case((0, 1), (1, 2), same_bytecode=True)
def else_clause_past_255_code_units(a, c):
    # venv.main: the dead jump over it needs an EXTENDED_ARG
    if not a:
        raise ValueError(a)
    else:
        r = [c, c, c, c, c, c, c, c, c, c, c, c, c, c, c, c,
            c, c, c, c, c, c, c, c, c, c, c, c, c, c, c, c,
            c, c, c, c, c, c, c, c, c, c, c, c, c, c, c, c,
            c, c, c, c, c, c, c, c, c, c, c, c, c, c, c, c,
            c, c, c, c, c, c, c, c, c, c, c, c, c, c, c, c,
            c, c, c, c, c, c, c, c, c, c, c, c, c, c, c, c,
            c, c, c, c, c, c, c, c, c, c, c, c, c, c, c, c,
            c, c, c, c, c, c, c, c, c, c, c, c, c, c, c, c,
            c, c, c, c, c, c, c, c, c, c, c, c, c, c, c, c]
    return r


@case((1, 0), (0, 1), (0, 0))
def elif_arm_that_is_pass(a, c):
    # enum's _EnumDict.__setitem__: 3.8 and 3.9 keep the empty arm's jump over the rest
    r = []
    if a:
        r.append(1)
    elif c:
        pass
    else:
        r.append(3)
    return r


@case((1,), (0,))
def else_clause_that_is_pass(a):
    # wsgiref's BaseHandler.finish_content: 3.8 and 3.9 keep the jump over it, to the
    # next instruction
    r = []
    if a:
        r.append(1)
    else:
        pass
    return r


@case((1, 1), (1, 0), (0, 0))
def else_clause_that_is_pass_in_an_if(a, b):
    # the inner if's: both are written alike
    r = []
    if a:
        if b:
            r.append(1)
        else:
            pass
    return r


@case((0, 3), (1, 3), (2, 3), same_bytecode=True)
def if_pass_then_elif_before_more_code(w, o):
    # ``if c: pass`` keeps its jump over the else clause on every version; ``if not c:``
    # would jump when c is true instead
    if w == 0:
        pass
    elif w == 1:
        o = 2
    else:
        o = -1
    while o > 0:
        o -= 1
    return o


@case((["a", "b", "a"],), (["b", "c"],), ([],), same_bytecode=True)
def elif_then_else_that_raises_in_a_loop(tags):
    # the else arm never comes back and is laid out after the elif arm, which jumps
    # over it: if/else, not ``if not tag == "b": raise`` before the arm's code
    out = []
    for tag in tags:
        if tag == "a":
            g = 1
        elif tag == "b":
            g = 2
        else:
            raise ValueError(tag)
        out.append(g)
    return out


@case(([1, 2, 3],), ([1, 5, 2],), ([-1],), ([],), same_bytecode=True)
def if_else_that_returns_ending_a_for_body(ps):
    # the body's jump back to the loop's start (no line of its own: no ``continue``)
    # jumps over the else arm, which returns
    out = []
    for p in ps:
        if p > 0 and not p == 5:
            out.append(p)
        else:
            return None
    return out


@case(([1, 2, 3],), ([1, 5, 2],), ([-1],), ([],), same_bytecode=True)
def if_body_ending_in_continue_before_a_return_in_a_for(ps):
    # laid out as the if/else above, but the jump back is a continue statement
    out = []
    for p in ps:
        if p > 0 and not p == 5:
            out.append(p)
            continue
        return None
    return out


@case(*[(a, b, m) for a in (0, 1) for b in (0, 1) for m in (0, 5)], same_bytecode=True)
def arms_running_on_to_a_shared_return(a, b, m):
    """argparse's HelpFormatter._format_args: 3.12+ copy the short ``return r`` after
    the if into the place of each arm's jump to it, a NOP on the jump's line before
    the copy: the arm ran on to the return (written ``return r`` in the arm and the
    rest after the if, the NOP was lost); the NOP on the line of ``r = 2`` tells
    that an else clause ended there."""
    if a:
        if b:
            r = m
        else:
            r = 2
    elif m:
        r = 3
    else:
        r = 4
    return r


@case(*[(n, m) for n in (None, 1, 2, 3, 4) for m in ("ab", ("x", "y"))], same_bytecode=True)
def elif_chain_with_a_nested_if_before_a_shared_return(n, m):
    if n is None:
        result = '%s' % (m,)
    elif n == 1:
        result = '[%s]' % (m,)
    elif n == 2:
        if len(m) == 2:
            result = '[%s [%s ...]]' % tuple(m)
        else:
            result = '[%s ...]' % (m,)
    elif n == 3:
        result = '...'
    else:
        result = ''
    return result


@case(*[(n, a, b) for n in ("", "x") for a in (0, 1) for b in (0, 1)], same_bytecode=True)
def nested_if_in_an_arm_before_a_shared_return(basename, a, b):
    """glob's _glob0: the outer arm's end (after an if with no else) jumps to the
    return after the if, copied in its place after a NOP on the inner if's line."""
    if basename:
        if a:
            return [basename]
    else:
        if b:
            return [basename]
    return []


@case(([1, 2, 3], []), ([], []), same_bytecode=True)
def conditions_folded_away_between_statements(items, log):
    """imaplib (``if __debug__:``), _pyrepl (``if False:``): the folded condition
    leaves a NOP on its line (3.10+), a ``pass`` of its own (dropped, the NOP was
    lost)."""
    total = len(items)
    if __debug__:
        if total > 2:
            log.append(total)
    if False:
        log.append("never")
    for x in items:
        total += x
    return total, log


@case((int,), (len,), (3,), ("s",), same_bytecode=True)
def conditional_expression_over_an_or_test(obj):
    """rich._inspect.Inspect._make_title (rich.style.Style.__init__): ``x if a or b or
    c else y``; the tests jump, when true, to the body laid out first (3.10+: written
    ``y if not a and not b and not c else x``, the arms swapped)."""
    title_str = str(obj) if (isinstance(obj, type) or callable(obj) or obj == "s") else str(type(obj))
    return title_str
