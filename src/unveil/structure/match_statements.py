"""``match`` statements: where one starts in a block, and the ``ast.Match`` written from
its case heads (decoded by :mod:`.patterns`) and case bodies (structured by the
:class:`~unveil.structure.Structurer`)."""
import ast

from ..bytecode import facts
from ..bytecode.opcodes import CONDITIONAL, EXITS
from ..errors import DecompilationError
from ..syntax.astwalk import never_runs_on
from . import stackitems as si
from .conditions import Branch, jump_condition
from .frame import Frame
from .patterns import EXPR_OPS, NAME_LOADS, STORES, Decoder, Val, materialize, wildcard

_MATCH_OPS = {"MATCH_SEQUENCE", "MATCH_MAPPING", "MATCH_CLASS", "MATCH_KEYS"}


# --- finding a match --------------------------------------------------------

def _pattern_start(instrs, j, copies=0):
    if j >= len(instrs) or copies > 8:
        return False
    ins = instrs[j]
    if ins.op in ("MATCH_SEQUENCE", "MATCH_MAPPING", "POP_JUMP_IF_NOT_NONE"):
        return True
    if ins.op == "COPY" and ins.argval == 1:
        return _pattern_start(instrs, j + 1, copies + 1)
    if copies and (ins.op in STORES or ins.op == "POP_TOP"):
        return _guarded_capture(instrs, j)
    if ins.op not in NAME_LOADS:
        return False
    k = j + 1
    while k < len(instrs) and instrs[k].op in EXPR_OPS:
        k += 1
    if k >= len(instrs):
        return False
    op = instrs[k].op
    if op == "MATCH_CLASS":
        return True
    if (op == "COMPARE_OP" and instrs[k].argval == "==") or (op == "IS_OP" and not instrs[k].argval):
        return k + 1 < len(instrs) and instrs[k + 1].op == "POP_JUMP_IF_FALSE"
    return False


def _guarded_capture(instrs, j):
    """``COPY 1; STORE x`` (or ``POP_TOP``), a guard, then ``POP_TOP`` of the subject.

    Not ``x = y = v`` (a second store takes the copy) nor a guard that is an and/or
    value (``COPY 1`` before its jump: ``x = y = None; c = c or 1``)."""
    if j + 1 < len(instrs) and instrs[j + 1].op in STORES:
        return False
    for k in range(j + 1, min(j + 60, len(instrs) - 1)):
        stop = _CAPTURE_SCAN_STOP.get(instrs[k].op)
        if stop == "test":
            return instrs[k + 1].op == "POP_TOP" and instrs[k - 1].op != "COPY"
        if stop is not None:
            return False
    return False


#: where the scan for a guard after a capture stops: at the guard's test, or elsewhere
_CAPTURE_SCAN_STOP = dict.fromkeys(CONDITIONAL, "test")
_CAPTURE_SCAN_STOP.update(dict.fromkeys(("JUMP", "FOR_ITER") + EXITS
                                        + tuple(_MATCH_OPS), "other"))


def _class_head(instrs, q):
    """Start of ``<class expression>; LOAD_CONST names; MATCH_CLASS`` ending at ``q``."""
    k = q - 1
    if k < 0 or instrs[k].op != "LOAD_CONST":
        return None
    k -= 1
    while k >= 0 and instrs[k].op == "LOAD_ATTR":
        k -= 1
    if k >= 0 and instrs[k].op in NAME_LOADS:
        return k
    return None


def nop_before(instrs, index):
    """Whether the raw instruction just before canonical ``index`` is a ``NOP``.

    The compiler marks the start of a trailing ``case _:`` with a NOP carrying
    its line; an ``else`` or the code after a match has none.
    """
    return index < len(instrs) and instrs[index].after_nop


def _same_handler(instrs, a, b):
    """Whether ``b`` is in the same try as ``a`` (a ``try:`` also leaves a NOP)."""
    return b is not None and b < len(instrs) and instrs[a].handler == instrs[b].handler


def _value_test(instrs, i):
    """``LOAD_CONST c`` or a dotted name, compared ``==``/``is`` and jumped on: end index or None."""
    k = i + 1
    if instrs[i].op != "LOAD_CONST":
        if instrs[i].op not in NAME_LOADS:
            return None
        while k < len(instrs) and instrs[k].op == "LOAD_ATTR":
            k += 1
        if k == i + 1:
            return None
    if k + 1 >= len(instrs):
        return None
    op = instrs[k]
    if (op.op == "COMPARE_OP" and op.argval == "==") or (op.op == "IS_OP" and not op.argval):
        if instrs[k + 1].op == "POP_JUMP_IF_FALSE":
            return k + 1
    return None


def find_heads(instrs, pos, end):
    """Indices in ``[pos, end)`` where a match statement may start, most likely first."""
    if not facts.HAS_MATCH:
        return []
    out = []
    i = pos
    while i < end:
        h = _first_head(instrs, i, end, pos)
        if h is None:
            break
        out.append(h)
        i = h + 1
    return out


def _first_head(instrs, start, end, pos):
    for i in range(start, end):
        ins = instrs[i]
        if i > pos and ins.op in ("LOAD_CONST", "LOAD_GLOBAL", "LOAD_NAME", "LOAD_DEREF"):
            j = _value_test(instrs, i)
            if (j is not None and nop_before(instrs, instrs[j].target)
                    and _same_handler(instrs, j, instrs[j].target)):
                return i
        if ins.op == "COPY" and ins.argval == 1 and _pattern_start(instrs, i + 1, 1):
            return i
        if ins.op in ("MATCH_SEQUENCE", "MATCH_MAPPING"):
            return i
        if ins.op == "MATCH_CLASS":
            h = _class_head(instrs, i)
            if h is not None and h >= start:
                return h
    return None


def block_needs_match(instrs, pos, end):
    return any(instrs[i].op in _MATCH_OPS for i in range(pos, end))


# --- structuring ------------------------------------------------------------

class _Case:
    def __init__(self, pattern, guard, body_pos, fail, jumped=False):
        self.pattern, self.guard, self.body_pos, self.fail = pattern, guard, body_pos, fail
        self.jumped = jumped


def structure_match(s, head, frame, region):
    """Emit the match starting at ``head`` (subject on top of ``frame``); return where code goes on."""
    subject = frame.top()
    if not si.is_expr(subject) and not isinstance(subject, si.Chain):
        raise DecompilationError("match: no subject on the stack at %d" % head)
    base = list(frame.stack[:-1])
    merge = s.merge_point(s.g.of_instr[head], region)
    mpos = merge.start if merge is not None else None
    stop = mpos if mpos is not None else region.stop

    cases = []
    pos = head
    last = None
    for _ in range(10000):
        case = None
        if s.instrs[pos].op == "COPY" and s.instrs[pos].argval == 1:
            try:
                case = _case(s, pos, base, subject, True, mpos)
            except DecompilationError:
                case = None
        if case is not None and case.fail is not None:
            cases.append(case)
            pos = case.fail
            continue
        last = _case(s, pos, base, subject, False, mpos)
        cases.append(last)
        break
    else:
        raise DecompilationError("match: too many cases")

    default = last.fail
    if default is not None and s.instrs[default].op == "JUMP" and s.instrs[default].target == stop:
        default = stop
    marked = default is not None and nop_before(s.instrs, default)
    after = None
    if (mpos is None and default is not None and not marked and default != region.stop
            and s.jump_kind(default, region) is None):
        # no ``case _:``: the last case fails to the code after the match, and
        # the bodies that do not leave (return, break, continue) go there too
        after = stop = default

    nodes = []
    reached = False
    for case in cases:
        body, end = _body(s, case.body_pos, case.jumped, base, region, stop)
        if end is not None:
            if end != stop:
                raise DecompilationError("match: case body at %d does not end with the match" % case.body_pos)
            reached = True
        nodes.append(ast.match_case(pattern=materialize(case.pattern), guard=case.guard,
                                    body=body or [ast.Pass()]))
    if after is not None:
        frame.stack = base   # (the subject is the statement's)
        frame.emit(ast.Match(subject=si.as_expr(subject), cases=nodes))
        return after
    if default is not None and (marked or (default != stop and s.jump_kind(default, region) is None)):
        body, end = _body(s, default, False, base, region, stop)
        if marked and body and isinstance(body[0], ast.Pass) \
                and frame.notes.line.get(body[0]) == min(s.instrs[default].nop_lines, default=None):
            del body[0]   # the NOP of the ``case _:`` line, not a ``pass`` of its own
        if end is not None:
            if end != stop:
                raise DecompilationError("match: default case at %d does not end with the match" % default)
            reached = True
        nodes.append(ast.match_case(pattern=wildcard(), guard=None, body=body or [ast.Pass()]))
    elif default is not None:
        reached = True
        if default != stop:
            kind = s.jump_kind(default, region)
            if kind in ("break", "continue"):
                nodes.append(ast.match_case(pattern=wildcard(), guard=None,
                                            body=[ast.Break() if kind == "break" else ast.Continue()]))
    frame.stack = base
    frame.emit(ast.Match(subject=si.as_expr(subject), cases=nodes))
    if mpos is not None:
        return mpos
    return stop if reached else None


def _body(s, pos, jumped, base, region, stop):
    """Statements of a case body at ``pos`` and where it ends (``stop``) or None."""
    inner = region.child(stop=stop)
    if jumped:
        # the case test jumps straight to where its body would jump
        kind = s.jump_kind(pos, inner)
        if kind == "stop":
            return [], stop
        if kind in ("break", "continue"):
            return [ast.Break() if kind == "break" else ast.Continue()], None
    arm = Frame(s.ctx, base)
    exits = region.exits
    before = len(exits) if exits is not None else 0
    end = s.seq(pos, arm, inner)
    arm.flush_parallel()
    if any(si.is_expr(v) for v in arm.stack[len(base):]):
        # a value the body computed that its way on drops: a ``return``'s, whose way out
        # runs a finally body that never completes, laid out where the match ends (3.10:
        # ``case 'a' | 'b': return r.upper()`` under ``finally: raise``, written ``pass``,
        # the NameError its evaluation raises lost)
        raise DecompilationError("match: a value waits at the end of the case body at %d" % pos)
    if end is None and exits is not None and exits[before:] and stop is not None and stop != region.stop \
            and not never_runs_on(arm.out):
        # the body leaves the statement the match is in, past the code after the match in
        # it, by a way out that reads like that statement's end (3.10+: ``return 't3'`` in a
        # with in a try whose finally body returns: the with's exit, then the finally
        # body's copy, as where the with body ends); written alone, it ran on after the match
        raise DecompilationError("match: case body at %d leaves the statement around the match" % pos)
    return arm.out, end


def _case(s, pos, base, subject, copied, mpos):
    instrs = s.instrs
    root = Val()
    if copied:
        if instrs[pos].op != "COPY":
            raise DecompilationError("match: no subject copy at %d" % pos)
        stack = base + [subject, root]
        floor = len(base) + 1
        pos += 1
    else:
        stack = base + [root]
        floor = len(base)
    dec = Decoder(s, pos, stack, floor)
    pattern = dec.pattern(root)
    dec.shuffle()
    if len(dec.stack) != floor:
        raise DecompilationError("match: captures left on the stack at %d" % dec.pos)
    fails = set()
    for target, depth in dec.fails:
        at = dec.land(target, depth, floor)
        if at is not None:
            fails.add(at)
    fail = min(fails) if fails else None
    if any(not _same_code(instrs, fail, other) for other in fails):
        raise DecompilationError("match: case fails to several places at %d" % pos)
    gpos = dec.pos
    if dec.jumped is not None:
        if copied:
            raise DecompilationError("match: copied case jumps to its body at %d" % gpos)
        return _Case(pattern, None, gpos, fail, jumped=True)
    gstack = base + [subject] if copied else list(base)
    if copied and instrs[gpos].op == "POP_TOP":
        return _Case(pattern, None, gpos + 1, fail)
    st = _guard(s, gpos, gstack)
    if st is not None:
        if copied:
            sides = [(st.t, st.c, st.e), (st.e, si.negate(st.c), st.t)]
            for body, cond, other in sides:
                if instrs[body].op == "POP_TOP" and (fail is None or other == fail):
                    return _Case(pattern, cond, body + 1, other)
            raise DecompilationError("match: guard at %d does not lead to the body" % gpos)
        if fail is not None:
            if st.e == fail:
                return _Case(pattern, st.c, st.t, fail)
            if st.t == fail:
                return _Case(pattern, si.negate(st.c), st.e, fail)
        elif st.t > gpos and st.e < st.t:
            return _Case(pattern, si.negate(st.c), st.e, st.t)
    if copied:
        raise DecompilationError("match: case at %d does not pop its subject" % pos)
    return _Case(pattern, None, gpos, fail)


def _same_code(instrs, a, b):
    """Whether ``a`` and ``b`` start copies of the same exit code (duplicated returns)."""
    if a == b:
        return True
    for _ in range(40):
        if a >= len(instrs) or b >= len(instrs) or not instrs[a].same(instrs[b]):
            return False
        if instrs[a].op in EXITS:
            return True
        if instrs[a].op in CONDITIONAL or instrs[a].op in ("JUMP", "FOR_ITER"):
            return False
        a, b = a + 1, b + 1
    return False


def _guard(s, gpos, stack):
    if gpos >= len(s.instrs):
        return None
    block = s.g.of_instr[gpos]
    last = s.instrs[block.end - 1]
    if last.op not in CONDITIONAL or any(i.op not in EXPR_OPS and i.op not in _GUARD_OPS
                                         for i in s.instrs[gpos:block.end - 1]):
        return None
    f = Frame(s.ctx, stack)
    try:
        f.run(s.instrs[gpos:block.end - 1])
    except DecompilationError:
        return None
    if f.out or not f.stack or not si.is_expr(f.top()) or len(f.stack) != len(stack) + 1:
        return None
    if any(a is not b for a, b in zip(f.stack, stack)):
        return None
    if stack and any(n is stack[-1] for n in ast.walk(f.top())):
        return None   # the guard does not use the subject: this is code after a copy
    cond = f.pop()
    st = Branch(jump_condition(last.op, cond), last.target, block.end, list(f.stack), list(f.stack))
    s.absorb(st, block)
    return st


_GUARD_OPS = {"COMPARE_OP", "IS_OP", "CONTAINS_OP", "CALL", "PUSH_NULL", "LOAD_METHOD", "BINARY_SUBSCR",
              "UNARY_NOT", "UNARY_INVERT", "UNARY_POSITIVE", "COPY", "STORE_FAST", "STORE_NAME",
              "STORE_DEREF", "STORE_GLOBAL", "BUILD_LIST", "BUILD_MAP", "BUILD_SET", "CALL_FUNCTION_EX",
              "FORMAT_VALUE", "BUILD_STRING", "BINARY_SLICE", "BUILD_SLICE", "LIST_EXTEND",
              "BUILD_CONST_KEY_MAP", "GET_LEN"}
