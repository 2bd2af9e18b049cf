"""A function body's statements, finished once structuring wrote them: the implicit
``return None`` and the compiler's copies of it dropped, returns the compiler copied
into an ``if``'s arms joined again (into its ``else``, or one returned conditional
expression), ``assert`` statements written again, and the check that no evaluated
expression is written twice."""
import ast

from ..bytecode import facts
from ..errors import DecompilationError
from ..structure import stackitems as si
from ..structure.stackitems import negate
from ..structure.structurer import _never_goes_on
from ..syntax.astwalk import children, nodes, statement_lists


def check_single_use(stmts, notes):
    """Refuse output where one evaluated expression would be written twice, or where
    structuring left one of its own markers.

    The stack machine shares a node when bytecode copies a value (``COPY``);
    if structuring failed to fold both uses into one expression, the text
    would evaluate it twice.  Names and constants may repeat.
    """
    seen = set()
    for node in nodes(*stmts):
        cls = type(node)
        kind = _KIND.get(cls)
        if kind is None:
            kind = _KIND[cls] = _kind_of(cls)
        if kind is _EVALUATED:
            key = id(node)
            if key in seen:
                raise DecompilationError("a copied value would be evaluated twice (line %s)"
                                         % _second_line(notes, stmts, node))
            seen.add(key)
        elif kind is _OURS:
            raise DecompilationError("structuring left a %s in the output" % cls.__name__)


#: what :func:`check_single_use` makes of a node of a class: one of unveil's own markers,
#: an expression evaluated where it is written, or anything else (names and constants too)
_OURS, _EVALUATED, _OTHER = "ours", "evaluated", "other"


#: node class -> its kind (see :func:`_kind_of`)
_KIND = {}


def _kind_of(cls):
    if cls.__module__.startswith("unveil"):
        return _OURS
    if issubclass(cls, ast.expr) and cls is not ast.Name and cls is not ast.Constant:
        return _EVALUATED
    return _OTHER


def _second_line(notes, stmts, node):
    """The original line of the statement holding the second occurrence of ``node``
    (in the order :func:`check_single_use` walks), or ``?`` if no statement has one."""
    out = [(s, notes.line.get(s)) for s in stmts]
    seen = False
    for n, line in out:  # grows while it is read, as astwalk.nodes
        if n is node:
            if seen:
                return "?" if line is None else line
            seen = True
        if isinstance(n, ast.stmt):
            line = notes.line.get(n) or line
        out += [(c, line) for c in children(n)]
    return "?"


def returns_none(st):
    return isinstance(st, ast.Return) and (
        st.value is None or (isinstance(st.value, ast.Constant) and st.value.value is None))


def without_implicit_returns(notes, stmts, function=True):
    """Drop the implicit ``return None`` at the end of a body, and its copies (``after_exit``)
    that end the body of a with, or the statements a try's finally body runs after, where
    that statement ends the function: 3.10+ compile the body falling off its end and then
    returning alike (only a ``NOP`` on the return's own line tells them apart).  The
    ``return None`` after such a with (the way on when its exit suppresses an exception)
    goes with it.  On 3.10+ so does the copy ending an arm of an ``if`` that ends the
    function (a ``return None`` with no line of its own), when the arm has statements of
    its own (``if c: x()``, not ``if c: return``) or is the else arm (``if a and b:``
    ending the function: each test's jump gets a copy), and a final ``return None``
    stays where several paths reach it (``shared_return``): the implicit return would
    be copied into each; the body and clauses of a try with no finally body that ends
    the function end in such copies too.  (A module's or class's body, which has no
    ``return`` of its own, is left to :func:`without_copied_returns`.)"""
    if function and stmts and isinstance(stmts[-1], ast.Return) and not returns_none(stmts[-1]):
        _else_from_jumped_returns(notes, stmts[:-1], stmts)
    if stmts and returns_none(stmts[-1]) and not (
            function and facts.RETURN_COPIED_INTO_BRANCHES and stmts[-1] in notes.shared_return):
        stmts = stmts[:-1]
    todo = [stmts]
    while todo:     # the lists that end the function (an elif chain is a thousand nested ifs)
        body = todo.pop()
        if len(body) > 1 and returns_none(body[-1]) and isinstance(body[-2], (ast.With, ast.AsyncWith)) \
                and returns_none(body[-2].body[-1]) and body[-2].body[-1] in notes.after_exit:
            del body[-1]
        if function and facts.RETURN_COPIED_INTO_BRANCHES:
            _else_from_copied_return(notes, body)
        st = body[-1] if body else None
        if isinstance(st, ast.If):
            if function and facts.RETURN_COPIED_INTO_BRANCHES:
                for arm, least in ((st.body, 2), (st.orelse, 1)):
                    if len(arm) >= least and arm[-1] in notes.no_line_of_its_own:
                        del arm[-1]     # the copy of the implicit return: the arm falls off the end
            todo += [st.body, st.orelse]
            continue
        if isinstance(st, (ast.With, ast.AsyncWith)):
            lists, copies = [st.body], notes.after_exit
        elif isinstance(st, ast.Try) and st.finalbody:
            lists, copies = [st.orelse or st.body] + [h.body for h in st.handlers], notes.after_exit
        elif isinstance(st, ast.Try) and function and facts.RETURN_COPIED_INTO_BRANCHES:
            # the copies ending its body and clauses are those ending an if's arms
            lists, copies = [st.orelse or st.body] + [h.body for h in st.handlers], notes.no_line_of_its_own
        else:
            continue
        for inner in lists:
            if len(inner) > 1 and returns_none(inner[-1]) and inner[-1] in copies:
                del inner[-1]
            todo.append(inner)
    return stmts


def returned_conditionals(notes, stmts):
    """``if c: return a`` then ``return b`` (or ``else: return b``) as ``return a if c else
    b`` where one of the two returns a constant compiled as LOAD_CONST and RETURN_VALUE
    (``notes.constant_arm``, 3.12+: ``return b`` alone is one RETURN_CONST; the arms of a
    returned conditional expression each get a copy of the return they jump to, after that
    fusion).  The same program: the test is evaluated once, each arm returns.  Nested lists
    first, each from its end: ``return 0 if x == y else 1 if x > y else -1``."""
    if not notes.constant_arm.values:
        return stmts
    for owner, field in reversed(statement_lists(stmts)):
        _join_returned_arms(notes, getattr(owner, field))
    _join_returned_arms(notes, stmts)
    return stmts


def _join_returned_arms(notes, body):
    for i in range(len(body) - 1, -1, -1):
        st = body[i]
        if not (isinstance(st, ast.If) and len(st.body) == 1 and _returns_value(st.body[0])):
            continue
        other = st.orelse or body[i + 1:i + 2]
        if len(other) != 1 or not _returns_value(other[0]) or not (
                st.body[0] in notes.constant_arm or other[0] in notes.constant_arm):
            continue
        node = ast.Return(value=ast.IfExp(test=st.test, body=st.body[0].value, orelse=other[0].value))
        lines = [notes.line.get(n) for n in (st, st.body[0], other[0]) if notes.line.get(n) is not None]
        if lines:
            notes.line.set(node, min(lines))
        body[i:i + (1 if st.orelse else 2)] = [node]


def _returns_value(st):
    return isinstance(st, ast.Return) and st.value is not None


def _else_from_jumped_returns(notes, run, owner):
    """The statements ``run`` of the list ``owner`` run on to the function's final
    ``return`` (``owner[-1]``): an ``if`` with no else among them whose arm ends in the
    compiler's copy of that return in place of the jump to it (``jumped_return``)
    ran on to it in the source, so the statements after it were its ``else``
    (``if a: x = 1`` / ``elif b: ...`` then ``return x``); so in the arms of the
    ``if`` that ends ``run``."""
    if not notes.jumped_return.values:
        return
    final = ast.dump(owner[-1])
    todo = [(run, owner)]
    while todo:
        run, owner = todo.pop()
        for i, st in enumerate(run):
            if isinstance(st, ast.If) and not st.orelse and st.body and st.body[-1] in notes.jumped_return \
                    and ast.dump(st.body[-1]) == final and (run[i + 1:] or notes.jumped_return.get(
                        st.body[-1]) != "without a NOP" or _ends_in_try(st.body[:-1])):
                # (an arm running on has no jump to copy over, but for a try's past its clauses)
                rest = run[i + 1:]
                del owner[owner.index(st) + 1:owner.index(st) + 1 + len(rest)]
                own_line = notes.jumped_return.get(st.body.pop())
                _else_runs_on(notes, st.body, final)
                st.body = st.body or [ast.Pass()]
                st.orelse = rest
                if not own_line:
                    _else_before_jump(st.body)
                todo += [(st.body, st.body), (st.orelse, st.orelse)]
                break
        else:
            _else_from_handlers(notes, owner, len(run), final)
            if run and isinstance(run[-1], ast.If):
                todo += [(run[-1].body, run[-1].body), (run[-1].orelse, run[-1].orelse)]


def _ends_in_try(stmts):
    return bool(stmts) and isinstance(stmts[-1], ast.Try) and not stmts[-1].finalbody


def _else_runs_on(notes, arm, final):
    """``arm`` now runs on to the function's final return (dumped as ``final``): a try
    with no finally body ending it whose else clause ends in the compiler's copy of that
    return (3.10+) runs on to it too.  (Not its body, where evaluating the return's
    value is covered by the except clauses, nor its clauses, where ``as`` names are bound.)"""
    last = arm[-1] if arm else None
    if isinstance(last, ast.Try) and not last.finalbody and last.orelse and last.orelse[-1] in notes.jumped_return \
            and ast.dump(last.orelse[-1]) == final:
        del last.orelse[-1]


def _else_from_handlers(notes, body, end, final):
    """``body[:end]`` runs on to the function's final return (dumped as ``final``): a try with
    no else or finally body among them whose except clauses each end in the compiler's copy
    of that return (3.10+, ``jumped_return``) or never go on, one at least in a copy, ran
    its clauses on to that return in the source, so the statements after it were its else
    clause (``try: g()`` / ``except E: pass`` / ``else: h()``).  A copy ending those
    statements goes too: it stood for the jump from the end of that else clause."""
    for i in range(end - 1, -1, -1):
        st = body[i]
        if not (isinstance(st, ast.Try) and st.handlers and not st.orelse and not st.finalbody):
            continue
        copies = [h.body for h in st.handlers if h.body and h.body[-1] in notes.jumped_return
                  and ast.dump(h.body[-1]) == final]
        if not copies or not all(h.body in copies or _never_goes_on(h.body) for h in st.handlers):
            return
        rest = body[i + 1:end]
        if rest and rest[-1] in notes.jumped_return and ast.dump(rest[-1]) == final:
            rest.pop()
        for clause in copies:
            del clause[-1]
            if not clause:
                clause.append(ast.Pass())
        st.orelse = rest
        del body[i + 1:end]
        return


def _else_before_jump(body):
    """``body`` ran on to a jump whose NOP stayed on the line of the statement before
    it (3.12+ keep it there only after a block's end): the statements after the last
    ``if`` with no else whose arm never goes on were its else clause (``if b: return
    x`` / ``else: r = 2``)."""
    for i in range(len(body) - 2, -1, -1):
        st = body[i]
        if isinstance(st, ast.If) and not st.orelse and _never_goes_on(st.body):
            st.orelse = body[i + 1:]
            del body[i + 1:]
            return
        if not isinstance(st, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Expr)):
            return


def _else_from_copied_return(notes, body):
    """In ``body``, a list that ends the function: the first ``if`` with no else whose arm
    ends in a copy of the implicit return (3.10+, no line of its own) ran off the end of
    the function in the source, so the statements after it were its ``else``."""
    for i, st in enumerate(body[:-1]):
        if isinstance(st, ast.If) and not st.orelse and len(st.body) > 1 \
                and st.body[-1] in notes.no_line_of_its_own:
            st.orelse = body[i + 1:]
            del body[i + 1:]
            del st.body[-1]
            return


def with_asserts(notes, stmts):
    """``if not c: raise AssertionError(msg)`` whose ``AssertionError`` an ``assert``
    loaded (3.9+: LOAD_ASSERTION_ERROR; 3.8: the global) as ``assert c, msg``, in every
    statement list."""
    if not notes.assertion.values:
        return stmts
    for owner, field in reversed(statement_lists(stmts)):
        setattr(owner, field, _asserts_in(notes, getattr(owner, field)))
    return _asserts_in(notes, stmts)


def _asserts_in(notes, stmts):
    out = []
    for st in stmts:
        msg = _assertion_message(notes, st)
        if msg is None or _ambiguous_on_38(st.test):
            out.append(st)
            continue
        node = ast.Assert(test=negate(st.test), msg=msg[0])
        notes.copy(st, node)
        out += [node] + st.orelse       # the raise never falls through: the else follows
    return out


def _ambiguous_on_38(test):
    """3.8: whether ``test`` is an and/or with an ``is`` or ``in`` test.  Its ``is not``
    may be the bytecode's own or the flip of an ``is`` jumping the other way, so the
    negated test of an assert may compile either way round: such an ``if`` stays."""
    return facts.ASSERT_LOADS_A_GLOBAL and isinstance(test, ast.BoolOp) and any(
        isinstance(n, ast.Compare) and any(type(op) in si.INVERSE for op in n.ops) for n in nodes(test))


def _assertion_message(notes, st):
    """``(msg or None,)`` if ``st`` is the ``if`` an ``assert`` compiles to, else None."""
    if not (isinstance(st, ast.If) and len(st.body) == 1 and isinstance(st.body[0], ast.Raise)
            and st.body[0].cause is None):
        return None
    exc = st.body[0].exc
    if exc in notes.assertion:
        return (None,)
    if isinstance(exc, ast.Call) and exc.func in notes.assertion and len(exc.args) == 1 and not exc.keywords \
            and not isinstance(exc.args[0], ast.Starred):
        return (exc.args[0],)
    return None
