"""Short-circuit conditions: the test blocks of ``a and b``, ``a or (b and c)``,
chained comparisons and ``a if c else b`` used as a test, folded into one condition
before the structurer makes a branch of it (a mixin of
:class:`~unveil.structure.structurer.Structurer`, whose graph and frames it reads).

``and_`` and ``or_`` build the joined conditions."""
import ast
import itertools

from ..bytecode.opcodes import CONDITIONAL, NO_NEXT
from ..errors import DecompilationError
from ..graph.blocks import same_target
from . import stackitems as si
from .conditions import Branch, jump_condition
from .frame import Frame
from .stackitems import negate, same_stack

_CLEANUP_OPS = ("POP_TOP", "SWAP", "JUMP")


class ShortCircuits:
    """Folding condition blocks; mixed into the structurer."""

    def absorb(self, st, block, chain=None):
        """Fold short-circuit condition blocks into one condition (and/or, chained <).

        Blocks are joined one at a time; when none joins, a group of them that forms a
        condition of its own (``a or (b and c)``) may."""
        chain = set() if chain is None else chain
        chain.add(block)
        last_block = block
        while True:
            joined = None
            pures = {}
            for compound in (False, True):
                for which in ("e", "t"):
                    pos, stack = getattr(st, which), getattr(st, which + "_stack")
                    if which not in pures:
                        pures[which] = self.pure_condition(pos, stack, chain)
                    if compound and self._no_group(st, which, pures[which]):
                        continue
                    found = self.condition_at(pos, stack, chain, compound, pures[which])
                    if found is not None and not self._two_continues(last_block, found[1]) \
                            and self._join(st, which, found[0]):
                        chain |= found[1]
                        joined = found[2]
                        break
                if joined is not None:
                    break
            if joined is None:
                joined = self.ternary_condition(st, chain)
                if joined is None:
                    return last_block.start
            last_block = joined

    def _no_group(self, st, which, pure):
        """Whether no condition of several blocks can start at side ``which`` of ``st``
        (``pure``: its first block's test) and join it; checked before looking, one block
        ahead, so that an ``elif`` chain is not searched to its end at every arm.

        A joining group ends where ``st``'s other side goes (the shared place), with the
        stack there, or at one other place, and each of its tests' targets is a test of
        the group or one of those two.  When the first test has one target that is not a test (its ``if``
        arm: the other place) and one that is, and that one's test has a target that is
        neither a test nor one of the two places (the next arm), that test is not in the
        group, so it would be one of the two places: it is not, and the group is the
        first test alone, which did not join."""
        if pure is None:
            return True
        _, t, e, t_stack, e_stack = pure
        other = "t" if which == "e" else "e"
        pos_o, stack_o = getattr(st, other), getattr(st, other + "_stack")
        cleaned, cleaned_stack = self.through_cleanup(pos_o, stack_o)
        # the group's stacks keep values of the first test's, or are new: where it
        # meets ``st`` it has ``st``'s stack there (``return a and b and c``: no group
        # that starts after ``a`` is dropped ends with ``a``)
        kept = {id(v) for v in t_stack + e_stack}
        if not all(id(v) in kept for v in cleaned_stack):
            return True
        places = [pos_o, cleaned]
        tests = [(p, stack) for p, stack in ((t, t_stack), (e, e_stack)) if self._is_test(p)]
        if not tests:
            return True   # the first test alone, which did not join
        if len(tests) != 1 or self._maybe_same((t if tests[0][0] == e else e), places):
            return False
        places.append(t if tests[0][0] == e else e)
        pos, stack = tests[0]
        if self._maybe_same(pos, places):
            return False
        following = self._test(self.g.of_instr[pos], stack)
        return following is not None and any(
            not self._is_test(p) and not self._maybe_same(p, places) for p in following[1:3])

    def _is_test(self, pos):
        """Whether ``pos`` starts a block that may be a test of a condition."""
        block = self.g.of_instr[pos] if pos < len(self.instrs) else None
        return block is not None and block.start == pos and block not in self.g.loops \
            and self.instrs[block.end - 1].op in CONDITIONAL

    def _maybe_same(self, pos, places):
        """Whether ``pos`` may be taken for one of ``places`` when conditions are joined."""
        return any(pos == p or self.through_jumps(pos) == self.through_jumps(p)
                   or same_target(self.instrs, pos, p) for p in places)

    def _two_continues(self, block, blocks):
        """Whether ``block`` and one of ``blocks`` jump back to one place, one of them by
        a ``continue`` statement of its own: two ifs, not one condition."""
        a = self.instrs[block.end - 1]
        return any((a.continues or b.continues) and b.target is not None and a.target is not None
                   and self.through_jumps(b.target) == self.through_jumps(a.target)
                   for b in (self.instrs[b.end - 1] for b in blocks))

    def _statement_apart(self, a, b):
        """Whether two places that lead to one are two: one of them a block of only a jump
        on a line of its own (a ``continue`` statement, where the tests before it are
        on another line), not the jump back that ends the body (``if not a or b:
        continue`` then ``if c: ...``, not ``if a and not b and c: ...``)."""
        return a != b and (self._jump_statement(a) or self._jump_statement(b))

    def _jump_statement(self, pos):
        """Whether ``pos`` is a block of only a jump on a line of its own.  Not one laid
        out right after a ``return`` or ``raise`` of its line, whose line it only inherits:
        3.8/3.9 do not thread a jump to a jump that needs an ``EXTENDED_ARG`` (a chained
        comparison's cleanup in a loop then jumps to a jump back to the loop, after the
        return that ends the body: idna's ``valid_contexto``)."""
        block = self.g.of_instr[pos] if pos < len(self.instrs) else None
        if block is None or block.start != pos or block.end != pos + 1 or self.instrs[pos].op != "JUMP":
            return False
        line = self.instrs[pos].line
        before = self.instrs[pos - 1] if pos else None
        if before is not None and before.line == line and before.op in NO_NEXT:
            return False
        return line is not None and all(self.instrs[p.end - 1].line != line for p in block.preds)

    def condition_at(self, pos, stack, chain, compound, pure):
        """The condition that starts at ``pos`` (``pure``: its first block's): (cond, targets,
        stacks), its blocks and its last block; with ``compound``, only one of several
        blocks folded together."""
        if pure is None:
            return None
        if not compound:
            return pure, {self.g.of_instr[pos]}, self.g.of_instr[pos]
        first = self.g.of_instr[self.through_cleanup(pos, stack)[0]]
        sub = Branch(*pure)
        sub_chain = set(chain) | {self.g.of_instr[pos]}
        end = self.absorb(sub, first, sub_chain)
        if end == first.start:
            return None
        return (sub.c, sub.t, sub.e, sub.t_stack, sub.e_stack), sub_chain - chain, self.g.of_instr[end]

    def _join(self, st, which, found):
        """Join the condition ``found`` on side ``which`` of ``st``: or on the false side,
        and on the true side, when its targets fit."""
        c2, t2, e2, st2_t, st2_e = found
        # the other side may reach the same place through a cleanup
        # block (``not a < b < c``): compare where it finally lands
        other = "t" if which == "e" else "e"
        shared, shared_stack = getattr(st, other), getattr(st, other + "_stack")
        if shared not in (t2, e2):
            pos_n, stack_n = self.through_cleanup(shared, shared_stack)
            # ... or two jumps to one place (a loop's continue after a cleanup)
            # or to two copies of one return (3.12+: on the same line; two returns alike
            # on two lines are two statements)
            pos_n = next((p for p in (t2, e2) if not self._statement_apart(p, pos_n) and (
                self.through_jumps(p) == self.through_jumps(pos_n)
                or same_target(self.instrs, p, pos_n) and self._same_line(p, pos_n))), pos_n)
            if pos_n in (t2, e2):
                shared, shared_stack = pos_n, stack_n
        # on the false side the found condition joins by ``or`` (it must share the true
        # target), on the true side by ``and`` (it must share the false target)
        combine = or_ if which == "e" else and_
        same, rest = ((t2, st2_t), (e2, st2_e)) if which == "e" else ((e2, st2_e), (t2, st2_t))
        if same[0] == shared and same_stack(same[1], shared_stack):
            c, (pos, stack) = c2, rest
        elif rest[0] == shared and same_stack(rest[1], shared_stack):
            c, (pos, stack) = negate(c2), same
        else:
            return False      # (and ``st`` as it was: a join that fails changes nothing)
        st.c = combine(st.c, c)
        setattr(st, other, shared)
        setattr(st, other + "_stack", shared_stack)
        setattr(st, which, pos)
        setattr(st, which + "_stack", stack)
        return True

    def ternary_condition(self, st, chain):
        """``if (a if c else b):``: both sides of the condition so far test a condition
        going to the same two places.  Folds them into ``st``; the later block, or None."""
        sides = [self.pure_condition(pos, stack, chain) for pos, stack in ((st.t, st.t_stack), (st.e, st.e_stack))]
        if None in sides:
            return None
        (ct, tt, et, tst, est), (ce, te, ee, tse, ese) = sides
        if self._copies(tt, ee) and self._copies(et, te):
            ct, tt, et, tst, est = negate(ct), et, tt, est, tst
        if not (self._copies(tt, te) and self._copies(et, ee)) \
                or not (same_stack(tst, tse) and same_stack(est, ese)):
            return None
        # (3.12+ copy a short return into the path of each test that leads to it: the
        # test's copy and the later one are one place, ``if a or (b if c else d): return 1``)
        tt, et = max(tt, te), max(et, ee)
        blocks = [self.g.of_instr[self.through_cleanup(pos, stack)[0]]
                  for pos, stack in ((st.t, st.t_stack), (st.e, st.e_stack))]
        test = st.c
        if _is_negative(test):
            test, ct, ce = negate(test), ce, ct
        st.c = ast.IfExp(test=test, body=ct, orelse=ce)
        st.t, st.e, st.t_stack, st.e_stack = tt, et, tst, est
        chain.update(blocks)
        return max(blocks, key=lambda b: b.start)

    def _copies(self, a, b):
        """Whether two targets of tests are one place, or two copies of one return on one
        line, neither a statement of its own (as ``_join`` takes them)."""
        return a == b or not self._statement_apart(a, b) and same_target(self.instrs, a, b) \
            and self._same_line(a, b)

    def pure_condition(self, pos, stack, chain):
        """If ``pos`` starts a block that only tests a condition and is reached only from
        the condition blocks in ``chain``, its (cond, targets, stacks)."""
        pos, stack = self.through_cleanup(pos, stack)
        block = self.g.of_instr[pos] if pos < len(self.instrs) else None
        if block is None or block.start != pos or block in self.g.loops:
            return None
        # (every block joins ``chain`` through here, so all of them have one handler: one
        # stands for all; comparing each made a long ``a and b and ...`` quadratic)
        if not block.preds or not all(p in chain or self._chain_cleanup(p, chain) for p in block.preds) \
                or any(b.handler != block.handler for b in itertools.islice(chain, 1)):
            return None
        return self._test(block, stack)

    def _test(self, block, stack):
        """The test ``block`` makes on ``stack`` (cond, targets, stacks), or None if it
        does more than test."""
        last = self.instrs[block.end - 1]
        if last.op not in CONDITIONAL:
            return None
        f = Frame(self.ctx, stack)
        try:
            f.run(self.instrs[block.start:block.end - 1])
        except DecompilationError:
            return None
        if f.out or f.parallel is not None or not f.stack or not si.is_expr(f.top()):
            return None   # (a store waiting to join a parallel assignment is a statement too)
        cond = f.pop()
        t, ts = self.through_cleanup(last.target, list(f.stack))
        e, es = self.through_cleanup(block.end, list(f.stack))
        return jump_condition(last.op, cond), t, e, ts, es

    def _chain_cleanup(self, block, chain):
        """Whether ``block`` only drops a chained comparison's middle value or jumps,
        reached only from the condition blocks in ``chain``: ``a is b is None or c``
        reaches ``c`` from the chain's last test through a jump, and from its first
        through the drop."""
        ops = [i.op for i in self.instrs[block.start:block.end]]
        return ops in (["POP_TOP"], ["POP_TOP", "JUMP"], ["JUMP"]) and bool(block.preds) \
            and all(p in chain for p in block.preds)

    def through_cleanup(self, pos, stack):
        """Skip blocks that only drop stack values (chained-comparison cleanups) or jump."""
        for _ in range(4):
            block = self.g.of_instr[pos] if pos < len(self.instrs) else None
            if block is None or block.start != pos or len(block.preds) < 1 \
                    or self.instrs[pos].op not in _CLEANUP_OPS:   # (the usual case, before any list is built)
                return pos, stack
            body = self.instrs[block.start:block.end]
            ops = [i.op for i in body]
            if not ops or any(op not in _CLEANUP_OPS for op in ops) or (
                    "POP_TOP" not in ops and not (ops == ["JUMP"] and body[0].target > pos)):
                return pos, stack
            if ops[-1] == "JUMP":
                body, nxt = body[:-1], body[-1].target
            else:
                nxt = block.end
            f = Frame(self.ctx, stack)
            try:
                f.run(body)
            except DecompilationError:  # pops what this path does not hold: not a cleanup
                return pos, stack
            if f.out or f.parallel is not None:
                return pos, stack
            pos, stack = nxt, f.stack
        return pos, stack


def _is_negative(test):
    """``not x``, ``x is not y``, ``x not in y``: read better the other way round."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return True
    return isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], (ast.IsNot, ast.NotIn))


def or_(a, b):
    """``a or b``; ``not x or not y`` over a shared operand is ``not (x and y)``,
    so that a chained comparison's middle operand is written (and evaluated) once
    (``a is not b or b is not None`` too: ``not a is b is None``)."""
    x, y = _negated(a), _negated(b)
    if x is not None and y is not None:
        merged = and_(x, y)
        if isinstance(merged, ast.Compare) and len(merged.ops) > 1 and merged is not y:
            return ast.UnaryOp(op=ast.Not(), operand=merged)
    if isinstance(a, ast.BoolOp) and isinstance(a.op, ast.Or) and y is not None:
        # ``not p or not 1 <= m`` then ``not m <= 12``: the chain is the last operand's
        merged = or_(a.values[-1], b)
        if isinstance(merged, ast.UnaryOp):
            return ast.BoolOp(op=ast.Or(), values=a.values[:-1] + [merged])
    return si.boolop(ast.Or(), a, b)


def _negated(test):
    """The test that ``test`` is the negation of: ``x`` for ``not x``, ``a is b`` for
    ``a is not b`` and the other way round (likewise ``in``); else None."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return test.operand
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and type(test.ops[0]) in si.INVERSE:
        return negate(test)
    return None


def and_(a, b):
    """``a and b``; adjacent comparisons sharing an operand become a chain."""
    if (isinstance(a, ast.Compare) and isinstance(b, ast.Compare)
            and a.comparators[-1] is b.left):
        return ast.Compare(left=a.left, ops=a.ops + b.ops, comparators=a.comparators + b.comparators)
    if isinstance(a, ast.BoolOp) and isinstance(a.op, ast.And) and isinstance(b, ast.Compare):
        merged = and_(a.values[-1], b)
        if isinstance(merged, ast.Compare) and len(merged.ops) > 1 and merged is not b:
            return ast.BoolOp(op=ast.And(), values=a.values[:-1] + [merged])
    return si.boolop(ast.And(), a, b)
