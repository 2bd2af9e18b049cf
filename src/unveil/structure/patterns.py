"""``match`` statements: case heads decoded back into patterns.

The compiler lays a match out as a run of cases over one subject.  Every case
but the last copies the subject (``COPY 1``), tests the copy against its
pattern, jumping to a chain of ``POP_TOP``\\ s on failure, stores the captured
names, tests the guard, pops the subject and runs the body.  The last case
tests the subject itself; a final ``case _:`` is just the code that follows.

:class:`Decoder` follows the success path of one case head.  It keeps the
real stack shape (captures are rotated, stored and popped exactly as the
bytecode says) with :class:`Val` markers for the values patterns are matched
against, and rebuilds the pattern by recursive descent, one function per
pattern kind, mirroring the compiler.  A capture or wildcard emits no test of
its own: its name is whatever ``STORE_*`` later pops its :class:`Val`.
An or-pattern is a ``COPY 1`` whose failures land on the ``COPY 1`` of the
next alternative; the names of the other alternatives are matched to the
first one's by stack position where the alternatives meet.

Where a match starts, and the ``ast.Match`` made of its cases, are
:mod:`.match_statements`'s.
"""
import ast

from ..bytecode.opcodes import CONDITIONAL, NEGATED_JUMP
from ..errors import DecompilationError
from . import stackitems as si
from .frame import HANDLERS, Frame

STORES = {"STORE_FAST", "STORE_NAME", "STORE_GLOBAL", "STORE_DEREF"}
#: Instructions that may build the value of a value pattern, class or mapping key.
EXPR_OPS = {"LOAD_CONST", "LOAD_GLOBAL", "LOAD_NAME", "LOAD_FAST",
             "LOAD_DEREF", "LOAD_CLASSDEREF", "LOAD_FROM_DICT_OR_DEREF",
             "LOAD_FROM_DICT_OR_GLOBALS", "LOAD_ATTR", "UNARY_NEGATIVE", "BINARY_OP",
             "BUILD_TUPLE"}
NAME_LOADS = EXPR_OPS - {"LOAD_ATTR", "UNARY_NEGATIVE", "BINARY_OP", "BUILD_TUPLE"}


class Val(si.Marker):
    """A value a pattern is matched against (subject, element, attribute...)."""

    def __init__(self):
        self.name = None       # set by the STORE that binds it
        self.alias = None      # the same capture in the first alternative of an or-pattern
        self.snapshot = None   # the stack right after it was last popped

    def resolved(self):
        v, seen = self, 0
        while v is not None and seen < 100:
            if v.name is not None:
                return v.name
            v, seen = v.alias, seen + 1
        return None


class _Box(si.Marker):
    """A non-subject value of the pattern machinery (test result, keys, attribute tuple)."""

    def __init__(self, kind, owner=None):
        self.kind = kind
        self.owner = owner


# --- pattern tree before names are known ----------------------------------

class _Leaf:
    def __init__(self, val, star=False):
        self.val, self.star = val, star


class _As:
    def __init__(self, sub, val):
        self.sub, self.val = sub, val


def materialize(p):
    if isinstance(p, _Leaf):
        name = p.val.resolved()
        if p.star:
            return ast.MatchStar(name=name)
        return ast.MatchAs(pattern=None, name=name)
    if isinstance(p, _As):
        sub = materialize(p.sub)
        name = p.val.resolved()
        if name is None:
            return sub
        return ast.MatchAs(pattern=sub, name=name)
    if isinstance(p, ast.MatchOr):
        return ast.MatchOr(patterns=[materialize(x) for x in p.patterns])
    if isinstance(p, ast.MatchSequence):
        return ast.MatchSequence(patterns=[materialize(x) for x in p.patterns])
    if isinstance(p, ast.MatchMapping):
        rest = p.rest.resolved() if isinstance(p.rest, Val) else p.rest
        return ast.MatchMapping(keys=p.keys, patterns=[materialize(x) for x in p.patterns], rest=rest)
    if isinstance(p, ast.MatchClass):
        return ast.MatchClass(cls=p.cls, patterns=[materialize(x) for x in p.patterns],
                              kwd_attrs=p.kwd_attrs,
                              kwd_patterns=[materialize(x) for x in p.kwd_patterns])
    return p


def wildcard():
    return ast.MatchAs(pattern=None, name=None)


# --- the decoder ------------------------------------------------------------

class Decoder:
    """Decodes one case head from ``pos`` with the given stack."""

    def __init__(self, s, pos, stack, floor):
        self.s = s
        self.instrs = s.instrs
        self.pos = pos
        self.frame = Frame(s.ctx, stack)
        self.floor = floor     # stack depth below which the case never pops
        self.fails = []        # (jump target, stack depth after the jump's pop)
        self.jumped = None     # set when a test jumps to its case body's jump target

    @property
    def stack(self):
        return self.frame.stack

    def cur(self):
        if self.pos >= len(self.instrs):
            raise DecompilationError("match: pattern runs off the code")
        return self.instrs[self.pos]

    def fail(self, msg):
        raise DecompilationError("match: %s at %d" % (msg, self.pos))

    def expect(self, *ops):
        ins = self.cur()
        if ins.op not in ops:
            self.fail("expected %s, found %s" % ("/".join(ops), ins.op))
        self.pos += 1
        return ins

    # -- raw stack effects ---------------------------------------------------
    def push(self, v):
        self.stack.append(v)

    def pop(self):
        if len(self.stack) <= self.floor:
            self.fail("pattern pops below its subject")
        v = self.stack.pop()
        if isinstance(v, Val):
            v.snapshot = list(self.stack)
        return v

    def shuffle_one(self):
        """Run one stack-only instruction (rotation, pop or store of a pattern value)."""
        ins = self.cur()
        st = self.stack
        if ins.op == "SWAP":
            st[-1], st[-ins.argval] = st[-ins.argval], st[-1]
        elif ins.op == "ROT":
            top = st.pop()
            st.insert(len(st) - ins.argval + 1, top)
        elif ins.op == "POP_TOP":
            if len(st) <= self.floor:
                return False
            self.pop()
        elif ins.op in STORES:
            if len(st) <= self.floor or not isinstance(st[-1], Val):
                return False
            if ins.op == "STORE_GLOBAL":
                self.s.ctx.declare_global(ins.argval)
            elif ins.op == "STORE_DEREF":
                self.s.ctx.declare_nonlocal(ins.argval)
            self.pop().name = self.s.ctx.identifier(ins.argval)
        else:
            return False
        self.pos += 1
        return True

    def shuffle(self):
        while self.jumped is None and self.pos < len(self.instrs) and self.shuffle_one():
            pass

    def until_gone(self, item, follow_jumps=False):
        """Run stack-only instructions until ``item`` has left the stack."""
        while any(x is item for x in self.stack):
            ins = self.cur()
            if follow_jumps and ins.op == "JUMP":
                self.pos = ins.target
                continue
            if not self.shuffle_one():
                self.fail("value of the pattern not consumed")

    def test_jump(self, fail_op="POP_JUMP_IF_FALSE"):
        """A conditional jump on a test result.

        Normally the jump (``fail_op``) leaves on failure; the opposite jump is
        a test whose success branch was only a jump (``case 1: continue``), so
        the success path goes on at its target and the failure falls through.
        """
        ins = self.expect(*CONDITIONAL)
        self.pop()
        if ins.op == fail_op:
            self.fails.append((ins.target, len(self.stack)))
        elif ins.op == NEGATED_JUMP[fail_op]:
            self.fails.append((self.pos, len(self.stack)))
            self.pos = self.jumped = ins.target
        else:
            self.fail("unexpected %s" % ins.op)
        return ins

    def expect_not_none(self):
        """``COPY 1; LOAD_CONST None; IS_OP 1; POP_JUMP_IF_FALSE`` or ``COPY 1; POP_JUMP_IF_NONE``."""
        self.expect("COPY")
        self.push(_Box("copy"))
        ins = self.cur()
        if ins.op in ("POP_JUMP_IF_NONE", "POP_JUMP_IF_NOT_NONE"):
            self.test_jump("POP_JUMP_IF_NONE")
            return
        self.expect("LOAD_CONST")
        self.expect("IS_OP")
        self.test_jump()

    def land(self, target, depth, floor):
        """Where a failure jump arrives once the stack is back to ``floor`` items."""
        pos, seen = target, 0
        while depth > floor and seen < 1000:
            seen += 1
            if pos >= len(self.instrs):
                return None
            ins = self.instrs[pos]
            if ins.op == "POP_TOP":
                depth -= 1
                pos += 1
            elif ins.op == "JUMP":
                pos = ins.target
            else:
                return None
        if depth != floor:
            return None
        while pos < len(self.instrs) and self.instrs[pos].op == "JUMP" and seen < 1000:
            pos, seen = self.instrs[pos].target, seen + 1
        return pos

    def run_expr(self):
        """Run expression instructions (loads, attributes, tuples); False if none."""
        start = self.pos
        while self.pos < len(self.instrs) and self.cur().op in EXPR_OPS:
            ins = self.cur()
            HANDLERS[ins.op](self.frame, ins)
            self.pos += 1
        return self.pos != start

    # -- patterns ---------------------------------------------------------------
    def pattern(self, val):
        """The pattern matched against ``val`` (on top of the stack when it starts)."""
        self.shuffle()
        if self.jumped is not None or not self.stack or self.stack[-1] is not val:
            return _Leaf(val)
        ins = self.cur()
        if ins.op == "MATCH_SEQUENCE":
            return self.sequence(val)
        if ins.op == "MATCH_MAPPING":
            return self.mapping(val)
        if ins.op == "COPY" and ins.argval == 1:
            return self.as_or(val)
        if ins.op in ("POP_JUMP_IF_NOT_NONE", "POP_JUMP_IF_NONE"):
            self.test_jump("POP_JUMP_IF_NOT_NONE")
            return ast.MatchSingleton(value=None)
        if ins.op in EXPR_OPS:
            saved = self.pos, list(self.stack)
            try:
                self.run_expr()
            except DecompilationError:
                self.pos, self.frame.stack = saved[0], list(saved[1])
                return _Leaf(val)
            ins = self.cur()
            if ins.op == "MATCH_CLASS" and len(self.stack) >= 3 and self.stack[-3] is val:
                return self.class_(val)
            if ins.op in ("COMPARE_OP", "IS_OP") and len(self.stack) >= 2 and self.stack[-2] is val:
                return self.value(val)
            self.pos, self.frame.stack = saved[0], list(saved[1])
        return _Leaf(val)

    def value(self, val):
        ins = self.expect("COMPARE_OP", "IS_OP")
        expr = si.as_expr(self.stack.pop())
        self.pop()
        self.push(_Box("test"))
        if ins.op == "IS_OP":
            if ins.argval or not isinstance(expr, ast.Constant) or expr.value not in (None, True, False):
                self.fail("unexpected identity test")
            self.test_jump()
            return ast.MatchSingleton(value=expr.value)
        if ins.argval != "==":
            self.fail("unexpected comparison %s" % ins.argval)
        self.test_jump()
        return ast.MatchValue(value=expr)

    def as_or(self, val):
        depth = len(self.stack)
        before = list(self.stack)
        self.expect("COPY")
        copy = Val()
        self.push(copy)
        nfails = len(self.fails)
        first = self.pattern(copy)
        nxt = self._next_alternative(nfails, depth)
        if nxt is None:
            return _As(first, val)
        alts = [first]
        self.until_gone(val, follow_jumps=True)
        shape = val.snapshot
        main = self.pos, list(self.stack)
        while nxt is not None:
            self.pos, self.frame.stack = nxt, list(before)
            self.expect("COPY")
            copy = Val()
            self.push(copy)
            nfails = len(self.fails)
            alts.append(self.pattern(copy))
            nxt = self._next_alternative(nfails, depth)
            self.until_gone(val, follow_jumps=True)
            _align(shape, val.snapshot)
        self.pos, self.frame.stack = main[0], list(main[1])
        return ast.MatchOr(patterns=alts)

    def _next_alternative(self, nfails, depth):
        for target, d in self.fails[nfails:]:
            at = self.land(target, d, depth)
            if at is not None and at < len(self.instrs):
                ins = self.instrs[at]
                if ins.op == "COPY" and ins.argval == 1:
                    return at
        return None

    def items(self, box):
        """Sub-patterns of the elements of ``box`` (on top): {index: pattern}, count, star."""
        ins = self.cur()
        out = {}
        if ins.op in ("UNPACK_SEQUENCE", "UNPACK_EX") and self.stack[-1] is box:
            self.pos += 1
            self.pop()
            if ins.op == "UNPACK_SEQUENCE":
                count, star = ins.arg, None
            else:
                star = ins.arg & 0xFF
                count = star + 1 + (ins.arg >> 8)
            vals = [Val() for _ in range(count)]
            for v in reversed(vals):
                self.push(v)
            for i, v in enumerate(vals):
                p = self.pattern(v)
                if i == star:
                    if not isinstance(p, _Leaf):
                        self.fail("starred sub-pattern is not a name")
                    p.star = True
                out[i] = p
            return out, count, star
        while self.stack and self.stack[-1] is box and ins.op == "COPY" and ins.argval == 1:
            self.pos += 1
            self.push(_Box("copy"))
            ins = self.cur()
            if ins.op == "LOAD_CONST" and isinstance(ins.argval, int):
                index = ins.argval
                self.pos += 1
            elif ins.op == "GET_LEN":
                self.pos += 1
                k = self.expect("LOAD_CONST").argval
                op = self.expect("BINARY_OP")
                if op.argval != "-" or not isinstance(k, int):
                    self.fail("unexpected element index")
                index = -k
            else:
                self.fail("unexpected element access")
            self.expect("BINARY_SUBSCR")
            self.stack.pop()
            v = Val()
            self.push(v)
            out[index] = self.pattern(v)
            self.shuffle()
            ins = self.cur()
        self.until_gone(box)
        return out, None, None

    def length(self):
        """An optional ``GET_LEN; LOAD_CONST n; COMPARE_OP ==|>=`` test: (op, n) or None."""
        if self.cur().op != "GET_LEN":
            return None
        self.pos += 1
        n = self.expect("LOAD_CONST").argval
        op = self.expect("COMPARE_OP").argval
        if op not in ("==", ">="):
            self.fail("unexpected length test")
        self.push(_Box("test"))
        self.test_jump()
        return op, n

    def sequence(self, val):
        self.expect("MATCH_SEQUENCE")
        self.push(_Box("test"))
        self.test_jump()
        length = self.length()
        ins = self.cur()
        if ins.op in ("UNPACK_SEQUENCE", "UNPACK_EX"):
            out, count, star = self.items(val)
            return ast.MatchSequence(patterns=[out[i] for i in range(count)])
        if ins.op == "COPY" and ins.argval == 1:
            out, _, _ = self.items(val)
            if length is None or length[0] != ">=":
                self.fail("indexed sequence pattern without a length test")
            size = length[1] + 1
            star = max([i + 1 for i in out if i >= 0] or [0])
            pats = [wildcard() for _ in range(size)]
            pats[star] = ast.MatchStar(name=None)
            for i, p in out.items():
                j = i if i >= 0 else size + i
                if not 0 <= j < size or j == star:
                    self.fail("sequence index out of range")
                pats[j] = p
            return ast.MatchSequence(patterns=pats)
        self.until_gone(val)
        if length is None:
            return ast.MatchSequence(patterns=[ast.MatchStar(name=None)])
        pats = [wildcard() for _ in range(length[1])]
        if length[0] == ">=":
            pats.append(ast.MatchStar(name=None))
        return ast.MatchSequence(patterns=pats)

    def mapping(self, val):
        self.expect("MATCH_MAPPING")
        self.push(_Box("test"))
        self.test_jump()
        ins = self.cur()
        if ins.op == "POP_TOP" and self.stack[-1] is val:
            self.pos += 1
            self.pop()
            return ast.MatchMapping(keys=[], patterns=[], rest=None)
        self.length()
        self.run_expr()
        keys_node = self.stack[-1]
        self.expect("MATCH_KEYS")
        keys = _elements(self.s.ctx, keys_node)
        values = _Box("values")
        self.push(values)
        if self.cur().op in CONDITIONAL:
            self.push(_Box("test"))
            self.test_jump()
        else:
            self.expect_not_none()
        out, _, _ = self.items(values)
        while self.cur().op in ("SWAP", "ROT") and not (len(self.stack) >= 2 and self.stack[-2] is val):
            self.shuffle_one()   # an ``as`` capture's value, left on top: the swaps that put it below the subject
        if len(self.stack) >= 2 and self.stack[-2] is val:
            keys_box = self.stack[-1]
        else:
            keys_box = None
        rest = None
        ins = self.cur()
        if ins.op == "BUILD_MAP" and keys_box is not None:
            # rest = dict(subject); del rest[key] for each key   (3.11+)
            self.pos += 1
            self.expect("SWAP")
            self.expect("DICT_UPDATE")
            self.expect("UNPACK_SEQUENCE")
            for _ in keys:
                self.expect("COPY")
                self.expect("SWAP")
                self.expect("DELETE_SUBSCR")
            rest = self._rest(val, keys_box)
        elif ins.op == "COPY_DICT_WITHOUT_KEYS" and keys_box is not None:
            self.pos += 1
            self.stack.pop()
            rest_val = Val()
            self.push(rest_val)
            p = self.pattern(rest_val)
            if not isinstance(p, _Leaf):
                self.fail("mapping rest is not a name")
            rest = rest_val
            self.until_gone(val)
        else:
            if keys_box is not None:
                self.until_gone(keys_box)
            self.until_gone(val)
        pats = [out.get(i) or wildcard() for i in range(len(keys))]
        return ast.MatchMapping(keys=keys, patterns=pats, rest=rest)

    def _rest(self, val, keys_box):
        st = self.stack
        st[:] = [x for x in st if x is not val and x is not keys_box]
        rest_val = Val()
        self.push(rest_val)
        p = self.pattern(rest_val)
        if not isinstance(p, _Leaf):
            self.fail("mapping rest is not a name")
        return rest_val

    def class_(self, val):
        ins = self.expect("MATCH_CLASS")
        names = self.stack.pop()
        cls = si.as_expr(self.stack.pop())
        self.pop()
        attrs = _Box("attrs")
        self.push(attrs)
        kwd = [str(n) for n in _const_tuple(names)]
        nargs = ins.arg
        if self.cur().op in CONDITIONAL:
            self.push(_Box("test"))
            self.test_jump()
        else:
            self.expect_not_none()
        total = nargs + len(kwd)
        out, _, _ = self.items(attrs)
        pats = [out.get(i) or wildcard() for i in range(total)]
        return ast.MatchClass(cls=cls, patterns=pats[:nargs], kwd_attrs=kwd, kwd_patterns=pats[nargs:])


def _align(first, other):
    """Names of an or-pattern's alternative: same stack slots as the first one's."""
    if first is None or other is None or len(first) != len(other):
        raise DecompilationError("match: or-pattern alternatives leave different stacks")
    for a, b in zip(first, other):
        if a is b:
            continue
        if isinstance(a, Val) and isinstance(b, Val):
            b.alias = a
        else:
            raise DecompilationError("match: or-pattern alternatives bind different values")


def _const_tuple(node):
    if isinstance(node, ast.Constant) and isinstance(node.value, tuple):
        return node.value
    if isinstance(node, ast.Tuple) and all(isinstance(e, ast.Constant) for e in node.elts):
        return tuple(e.value for e in node.elts)
    raise DecompilationError("match: expected a constant tuple")


def _elements(ctx, node):
    if isinstance(node, ast.Constant) and isinstance(node.value, tuple):
        return [ctx.constant(v) for v in node.value]
    if isinstance(node, ast.Tuple):
        return list(node.elts)
    raise DecompilationError("match: mapping keys are not a tuple")
