"""Python 3.8-3.10 block-stack bytecode rewritten into the exception-table model.

Before 3.11, CPython kept a *block stack*: ``SETUP_FINALLY``/``SETUP_WITH``
push a block naming a handler, ``POP_BLOCK`` pops it, and an exception unwinds
the value stack to the block's level and jumps to the handler with six values
pushed (the previous exception's traceback, value and type, then the new
one's).  :func:`translate` turns such code into the 3.11 shapes that the rest of
the package understands, still as raw (:class:`unveil.bytecode.decoder.Raw`) records so the ordinary
translators of :mod:`unveil.bytecode.canonical` run over them afterwards:

1. (3.8 only) ``BEGIN_FINALLY``/``CALL_FINALLY`` enter a ``finally`` body that
   is shared between the normal and the exceptional path.  Each normal entry
   gets its own copy of the body, as 3.9+ compiles it, so the original body is
   reached by exceptions only.  The copy starts with the pseudo instruction
   ``PUSH_NULL_FINALLY`` standing for the value ``BEGIN_FINALLY`` pushes.
2. A worklist over jump targets simulates the block stack and tags every stack
   slot (ordinary value, one of the three slots of an exception triple, the
   ``with`` exit, the ``finally`` NULL).  With those tags each instruction is
   rewritten: a handler entry gets ``PUSH_EXC_INFO``, the three-slot triples
   become one value, ``DUP_TOP``/``JUMP_IF_NOT_EXC_MATCH`` become
   ``CHECK_EXC_MATCH``/``POP_JUMP_IF_FALSE``, ``with`` cleanups become the
   ``WITH_EXCEPT_START`` form, and so on.  The innermost block of each
   instruction gives its exception-table entry; the ``EXCEPT_HANDLER`` block of
   a running handler becomes the ``COPY 3; POP_EXCEPT; RERAISE 1`` cleanup
   handler that 3.11 emits.
"""
import dis

from ..errors import DecompilationError
from . import decoder
from .opcodes import EXITS

_SETUPS = ("SETUP_FINALLY", "SETUP_WITH", "SETUP_ASYNC_WITH")
_UNCONDITIONAL = ("JUMP_FORWARD", "JUMP_ABSOLUTE")
_JUMP_OPS = set(dis.hasjrel) | set(dis.hasjabs)

# Width, in canonical stack slots, of each tag of the simulated legacy stack.
# An exception triple (tb, value, type) is one canonical value; the exit of a
# ``with`` whose handler runs is two (3.11 keeps ``lasti`` next to it).
_WIDTH = {"v": 1, "d": 0, "e0": 0, "e1": 1, "e2": 0, "XL": 2, "N": 0, "ph": 0}
_TRIPLE = ("e0", "e1", "e2")


class _I:
    """A mutable instruction while rewriting; ``target`` is another ``_I``."""

    __slots__ = ("op", "arg", "argval", "argrepr", "opcode", "line", "target")

    def __init__(self, op, arg=None, argval=None, target=None, line=None, opcode=None, argrepr=""):
        self.op = op
        self.arg = arg
        self.argval = argval
        self.argrepr = argrepr
        self.opcode = opcode if opcode is not None else dis.opmap.get(op)
        if arg is None and self.opcode is not None and self.opcode >= dis.HAVE_ARGUMENT:
            self.arg = 0
        self.line = line
        self.target = target

    def copy(self):
        return _I(self.op, self.arg, self.argval, self.target, self.line, self.opcode, self.argrepr)

    def __repr__(self):
        return "%s %r%s" % (self.op, self.argval, "" if self.target is None else " ->")


def translate(code, raw):
    """``(instructions, exception_table)`` in the 3.11 model for legacy ``raw``."""
    if not any(r.opname in _SETUPS for r in raw):
        return _reachable(raw), []
    instrs = _wrap(raw)
    placeholders = set()
    if any(i.op in ("BEGIN_FINALLY", "CALL_FINALLY") for i in instrs):
        placeholders = _placeholders(instrs)
        instrs = _lower_finally(instrs)
    _merge_exit_copies(instrs)
    return _Rewriter(code, instrs, placeholders).run()


def _reachable(raw):
    """``raw`` without the instructions no path reaches.

    3.8 and 3.9 keep some dead code after a ``return`` (the cleanup of a ``with``
    whose ``SETUP_WITH`` was dropped as unreachable: ``WITH_CLEANUP_START``
    without a block to clean up), which has no source form.  Only for code
    without blocks: a finally body that returns still needs its dead
    ``END_FINALLY`` to be found.  Kept: the jumps of :func:`_dead_jump` (and what
    they jump to).
    """
    index = {r.offset: k for k, r in enumerate(raw)}
    ops = [r.opname for r in raw]
    targets = {k: index[r.argval] for k, r in enumerate(raw) if r.opcode in _JUMP_OPS and r.argval in index}
    seen, todo = set(), [0] if raw else []
    while todo:
        while todo:
            k = todo.pop()
            if k in seen or k >= len(raw):
                continue
            seen.add(k)
            r = raw[k]
            if r.opcode in _JUMP_OPS and r.argval in index:
                todo.append(index[r.argval])
            if r.opname not in _UNCONDITIONAL and r.opname not in EXITS:
                todo.append(k + 1)
        todo = [j for j in range(1, len(raw)) if j not in seen and j - 1 in seen and _dead_jump(ops, targets, j)]
    if len(seen) == len(raw):
        return raw
    return [r for k, r in enumerate(raw) if k in seen]


def _dead_jump(ops, targets, k):
    """Whether the instruction at ``k`` of the opnames ``ops``, which no path reaches,
    is a jump 3.8 and 3.9 leave over an ``if``'s else clause (an ``EXTENDED_ARG``
    stands for the jump it extends; ``targets`` maps each jump to the index it goes
    to): one right after a ``return``, a ``raise`` or a jump (a ``continue`` or
    ``break``), where the body ends so or in an ``if``/``else`` whose own jumps land
    on it, or after the ``END_FINALLY`` (3.8) of a ``try`` whose body and except
    clauses never go on.  It tells the else clause and where it ends (forward, or
    back to the loop's start at the end of its body): the structurer finds the
    else clause by it.  Not a for loop's own jump back, which its body's last
    statement left dead (the loop's exit follows it)."""
    j = k
    while j < len(ops) - 1 and ops[j] == "EXTENDED_ARG":
        j += 1
    if ops[j] not in _UNCONDITIONAL or ops[k - 1] not in EXITS + _UNCONDITIONAL + ("END_FINALLY",):
        return False
    start = targets[j]
    return not (ops[start] == "FOR_ITER" and targets[start] == j + 1)


def _wrap(raw):
    by_offset = {}
    out = []
    for r in raw:
        i = _I(r.opname, r.arg, r.argval, None, r.line, r.opcode, r.argrepr)
        by_offset[r.offset] = i
        out.append(i)
    for r, i in zip(raw, out):
        if r.opcode in _JUMP_OPS:
            i.target = by_offset.get(r.argval)
            if i.target is None:
                raise DecompilationError("jump to %r outside the code" % (r.argval,))
    return out


# --- step 1: 3.8 finally bodies ----------------------------------------------

def _lower_finally(instrs):
    """Give each ``BEGIN_FINALLY``/``CALL_FINALLY`` its own copy of the finally body."""
    pos = 0
    guard = 0
    while pos < len(instrs):
        ins = instrs[pos]
        if ins.op not in ("BEGIN_FINALLY", "CALL_FINALLY"):
            pos += 1
            continue
        guard += 1
        if guard > 2000:
            raise DecompilationError("finally bodies nest too deeply")
        setup_targets = {id(i.target) for i in instrs if i.op in _SETUPS}
        if ins.op == "CALL_FINALLY":
            start = _index(instrs, ins.target)
            end = _finally_end(instrs, start)
            repl = [_I("PUSH_NULL_FINALLY")] + _copy_range(instrs, start, end + 1)
        else:
            nxt = instrs[pos + 1] if pos + 1 < len(instrs) else None
            if nxt is None:
                raise DecompilationError("BEGIN_FINALLY at the end of the code")
            if nxt.op == "WITH_CLEANUP_START" and id(nxt) not in setup_targets:
                repl = [_I("PUSH_NULL_FINALLY")]
            else:
                start = pos + 1
                end = _finally_end(instrs, start)
                after = instrs[end + 1] if end + 1 < len(instrs) else None
                repl = _name_cleanup_exit(instrs, start, end)
                if repl is None:
                    repl = [_I("PUSH_NULL_FINALLY")] + _copy_range(instrs, start, end + 1)
                    if after is not None:
                        repl.append(_I("JUMP_ABSOLUTE", target=after))
        repl[0].line = ins.line
        _retarget(instrs, ins, repl[0])
        instrs[pos:pos + 1] = repl
    return instrs


def _placeholders(instrs):
    """3.8's ``LOAD_CONST None`` reserving a slot under a finally body that leaves.

    ``return``, ``break`` or ``continue`` inside ``finally`` (it leaves through
    ``POP_FINALLY``) makes 3.8 push ``None`` before ``SETUP_FINALLY`` and pop
    it after the ``END_FINALLY``; 3.9+ has no such slot, so it is tagged and
    never emitted.
    """
    out = set()
    for k in range(len(instrs) - 1):
        ins = instrs[k]
        setup = instrs[_past_extended_arg(instrs, k + 1)]
        if ins.op == "LOAD_CONST" and ins.argval is None and setup.op == "SETUP_FINALLY":
            start = _index(instrs, setup.target)
            try:
                end = _finally_end(instrs, start)
            except DecompilationError:
                continue
            if end + 1 < len(instrs) and instrs[end + 1].op == "POP_TOP" \
                    and any(i.op in ("RETURN_VALUE", "POP_FINALLY") for i in instrs[start:end]):
                out.add(id(ins))
    return out


def _past_extended_arg(instrs, k):
    """The index of the instruction at ``k`` that is not an ``EXTENDED_ARG`` (the raw
    prefix of an argument past 255: a jump past 255 code units)."""
    while k + 1 < len(instrs) and instrs[k].op == "EXTENDED_ARG":
        k += 1
    return k


def _index(instrs, target):
    for k, i in enumerate(instrs):
        if i is target:
            return k
    raise DecompilationError("lost jump target while lowering finally")


def _exit_on_the_way_out(instrs, j):
    """Whether the ``WITH_CLEANUP_START`` at ``j`` is a with's exit that a ``return``,
    ``break`` or ``continue`` runs inline: its ``WITH_CLEANUP_FINISH`` is followed by
    ``POP_FINALLY``, not by an ``END_FINALLY`` of its own."""
    for k in range(j + 1, len(instrs) - 1):
        if instrs[k].op == "WITH_CLEANUP_FINISH":
            return instrs[k + 1].op == "POP_FINALLY"
    return False


def _finally_end(instrs, start):
    """Index of the ``END_FINALLY`` closing the finally body that starts at ``start``.
    The dead cleanup of a ``with`` after a ``return`` (its ``SETUP_WITH`` dropped as
    unreachable, its ``WITH_CLEANUP_START`` and ``END_FINALLY`` kept) closes itself; the
    exit a ``return``, ``break`` or ``continue`` runs on its way out of a with (ended by
    ``POP_FINALLY``) closes nothing."""
    depth = 0
    setup_targets = {id(i.target) for i in instrs if i.op in _SETUPS}
    for j in range(start, len(instrs)):
        op = instrs[j].op
        if op in _SETUPS or op == "WITH_CLEANUP_START" and id(instrs[j]) not in setup_targets \
                and not _exit_on_the_way_out(instrs, j):
            depth += 1
        elif op in ("END_FINALLY", "END_ASYNC_FOR"):
            if depth == 0:
                if op != "END_FINALLY":
                    break
                return j
            depth -= 1
    raise DecompilationError("finally body at %d has no END_FINALLY" % start)


def _copy_range(instrs, start, stop):
    chunk = instrs[start:stop]
    mapping = {id(i): i.copy() for i in chunk}
    out = []
    for i in chunk:
        c = mapping[id(i)]
        if c.target is not None and id(c.target) in mapping:
            c.target = mapping[id(c.target)]
        out.append(c)
    return out


def _name_cleanup_exit(instrs, start, end):
    """``except E as n`` leaving normally: ``POP_EXCEPT; n = None; del n`` as in 3.9.

    3.8 runs the name cleanup as a finally body before ``POP_EXCEPT``; 3.9+
    (and so the canonical form) pops the exception first.
    """
    body = instrs[start:end]
    if not _is_name_cleanup(body) or end + 2 >= len(instrs) or instrs[end + 1].op != "POP_EXCEPT":
        return None
    follow = instrs[_past_extended_arg(instrs, end + 2)]
    out = [_I("POP_EXCEPT")] + [b.copy() for b in body]
    if follow.op in _UNCONDITIONAL:
        out.append(follow.copy())
    else:
        out.append(_I("JUMP_ABSOLUTE", target=follow))
    return out


def _is_name_cleanup(body):
    return (len(body) == 3 and body[0].op == "LOAD_CONST" and body[0].argval is None
            and body[1].op.startswith("STORE_") and body[2].op.startswith("DELETE_")
            and body[1].argval == body[2].argval)


def _retarget(instrs, old, new):
    for i in instrs:
        if i.target is old:
            i.target = new


# --- 3.10: copies of a finally exit ------------------------------------------

_ENDS = EXITS + _UNCONDITIONAL


def _merge_exit_copies(instrs):
    """Jump to one copy of ``POP_BLOCK; <finally body>; <exit>`` instead of another.

    3.10 gives every path leaving a ``try`` with ``finally`` its own copy of
    the inlined finally body and of what follows it; 3.9 and 3.11 make the
    except clauses jump to the copy that ends the ``else`` path.  A copy that is
    entered by jumps only and repeats one entered by falling through, on the same
    lines, is replaced by a jump to that one (or, failing that, to an earlier copy).
    """
    starts = [k for k, i in enumerate(instrs) if i.op == "POP_BLOCK"]
    if len(starts) < 2:
        return
    spans = {k: _exit_span(instrs, k) for k in starts}
    jumped = {}
    for i in instrs:
        if i.target is not None:
            jumped.setdefault(id(i.target), []).append(i)
    for c in starts:
        if spans[c] is None or c == 0 or instrs[c - 1].op not in _ENDS or id(instrs[c]) not in jumped:
            continue
        for d in starts:
            if d == c or spans[d] is None or (d > c and d > 0 and instrs[d - 1].op in _ENDS):
                continue
            if _same_span(instrs, c, spans[c], d, spans[d]):
                for j in jumped.pop(id(instrs[c])):
                    j.target = instrs[d]
                    jumped.setdefault(id(instrs[d]), []).append(j)
                break


def _exit_span(instrs, start):
    for j in range(start, min(len(instrs), start + 200)):
        op = instrs[j].op
        if op in _SETUPS:
            return None
        if op in _ENDS:
            return j + 1
    return None


def _same_span(instrs, a, a_end, b, b_end):
    if a_end - a != b_end - b:
        return False
    pos_a = {id(instrs[k]): k - a for k in range(a, a_end)}
    pos_b = {id(instrs[k]): k - b for k in range(b, b_end)}
    # (a copy the compiler made has the lines of what it copies: two ``return None``
    # of a try body on lines of their own are two statements, not one shared)
    line_a, line_b = _line_at(instrs, a), _line_at(instrs, b)
    for k, (x, y) in enumerate(zip(instrs[a:a_end], instrs[b:b_end])):
        if x.op != y.op or x.arg != y.arg or type(x.argval) is not type(y.argval):
            return False
        line_a = x.line if x.line is not None else line_a
        line_b = y.line if y.line is not None else line_b
        if k and line_a != line_b:
            return False
        if x.target is not None or y.target is not None:
            if x.target is None or y.target is None:
                return False
            rx, ry = pos_a.get(id(x.target)), pos_b.get(id(y.target))
            if (rx, ry) == (None, None):
                if x.target is not y.target:
                    return False
            elif rx != ry:
                return False
        elif x.argval != y.argval:
            return False
    return True


def _line_at(instrs, k):
    """The line ``instrs[k]`` runs on (the last line started at or before it)."""
    while k > 0 and instrs[k].line is None:
        k -= 1
    return instrs[k].line


# --- step 2: block-stack simulation and rewriting --------------------------------

class _Out:
    """One rewritten instruction: an ``_I``-like record plus its handler."""

    __slots__ = ("op", "arg", "argval", "argrepr", "opcode", "line", "target", "handler")

    def __init__(self, op, arg=None, argval=None, target=None, opcode=None, argrepr="", handler=None):
        self.op = op
        self.arg = arg
        self.argval = argval
        self.argrepr = argrepr
        self.opcode = opcode if opcode is not None else dis.opmap.get(op)
        self.line = None
        self.target = target
        self.handler = handler


def _width(stack):
    return sum(_WIDTH[t] for t in stack)


def _handler_of(blocks):
    return blocks[-1][3] if blocks else None


class _Rewriter:
    def __init__(self, code, instrs, placeholders=()):
        self.code = code
        self.placeholders = placeholders
        self.instrs = instrs
        self.index = {id(i): k for k, i in enumerate(instrs)}
        self.states = [None] * len(instrs)
        self.kinds = {}          # handler target index -> "except", "cleanup", "asyncfor", "with"
        self.cleanup_outer = {}  # handler target index -> handler of its EXCEPT_HANDLER cleanup
        self.with_exit_none = set()
        self._mark_with_exits()

    # -- analysis -------------------------------------------------------------
    def _mark_with_exits(self):
        """``LOAD_CONST None; DUP_TOP; DUP_TOP; CALL_FUNCTION 3``: a normal ``with`` exit."""
        ins = self.instrs
        for k in range(len(ins) - 3):
            if ins[k].op == "LOAD_CONST" and ins[k].argval is None and ins[k + 1].op == "DUP_TOP" \
                    and ins[k + 2].op == "DUP_TOP" and ins[k + 3].op == "CALL_FUNCTION" and ins[k + 3].arg == 3:
                self.with_exit_none.update((k + 1, k + 2))

    def _target_kind(self, t):
        ins = self.instrs
        first = ins[t]
        if first.op == "END_ASYNC_FOR":
            return "asyncfor"
        body = ins[t:t + 3]
        if _is_name_cleanup(body) and t + 3 < len(ins) and ins[t + 3].op in ("RERAISE", "END_FINALLY"):
            return "cleanup"
        return "except"

    def run(self):
        self._simulate()
        out, first, entered = self._emit()
        return _finish(out, first, entered, self.index)

    def _simulate(self):
        todo = [(0, (), ())]
        n = len(self.instrs)
        while todo:
            k, stack, blocks = todo.pop()
            while k is not None and k < n:
                if self.states[k] is not None:
                    break
                self.states[k] = (stack, blocks)
                nexts = self._step(k, stack, blocks)
                if not nexts:
                    break
                (k, stack, blocks), rest = nexts[0], nexts[1:]
                todo.extend(rest)
            if not todo:
                todo = self._dead_jumps()

    def _dead_jumps(self):
        """States for the jumps of :func:`_dead_jump` after reached code: each has the
        state of where it jumps to, else of the instruction before it."""
        out = []
        ops = [i.op for i in self.instrs]
        targets = {k: self.index[id(i.target)] for k, i in enumerate(self.instrs) if i.target is not None}
        for k in range(1, len(self.instrs)):
            if self.states[k] is None and self.states[k - 1] is not None and _dead_jump(ops, targets, k):
                jump = self.instrs[_past_extended_arg(self.instrs, k)]
                stack, blocks = self.states[self.index[id(jump.target)]] or self.states[k - 1]
                out.append((k, stack, blocks))
        return out

    def _step(self, k, stack, blocks):
        """Successor states ``(index, stack, blocks)`` of instruction ``k``."""
        ins = self.instrs[k]
        op = ins.op
        nxt = k + 1
        s = list(stack)
        if op == "SETUP_FINALLY":
            t = self.index[id(ins.target)]
            kind = self.kinds.setdefault(t, self._target_kind(t))
            level = len(s)
            base = _width(s)
            block = ("F", t, level, (t, base, kind == "cleanup"))
            entry_blocks = blocks
            if kind == "except":
                self.cleanup_outer[t] = _handler_of(blocks)
                entry_blocks = blocks + (("H", t, level, (("cleanup", t), base + 1, True)),)
            entry = tuple(s) + _TRIPLE + _TRIPLE
            return [(nxt, stack, blocks + (block,)), (t, entry, entry_blocks)]
        if op in ("SETUP_WITH", "SETUP_ASYNC_WITH"):
            t = self.index[id(ins.target)]
            self.kinds[t] = "with"
            if op == "SETUP_WITH":
                s[-1] = "v"
                after = tuple(s) + ("v",)
            else:
                after = tuple(s)
                s = s[:-1]
            level = len(s)
            base = _width(s)
            block = ("W", t, level, (t, base, True))
            self.cleanup_outer[t] = _handler_of(blocks)
            entry = tuple(s[:-1]) + ("XL",) + _TRIPLE + _TRIPLE
            hblock = ("H", t, level, (("cleanup", t), base + 2, True))
            return [(nxt, after, blocks + (block,)), (t, entry, blocks + (hblock,))]
        if op == "POP_BLOCK":
            return [(nxt, stack, blocks[:-1])]
        if op == "POP_EXCEPT":
            return [(nxt, stack[:-3], _drop_handler_block(blocks))]
        if op == "PUSH_NULL_FINALLY":
            return [(nxt, stack + ("N",), blocks)]
        if op == "LOAD_CONST" and id(ins) in self.placeholders:
            return [(nxt, stack + ("ph",), blocks)]
        if op == "DUP_TOP":
            return [(nxt, stack + ("d" if stack and stack[-1] == "e2" else "v",), blocks)]
        if op == "JUMP_IF_NOT_EXC_MATCH":
            return [(nxt, stack[:-2], blocks), (self.index[id(ins.target)], stack[:-2], blocks)]
        if op == "COMPARE_OP" and ins.argval == "exception match":
            return [(nxt, stack[:-2] + ("v",), blocks)]
        if op in ("ROT_TWO", "ROT_THREE", "ROT_FOUR", "ROT_N"):
            n = {"ROT_TWO": 2, "ROT_THREE": 3, "ROT_FOUR": 4}.get(op) or ins.arg
            s = ["v"] * (n - len(s)) + s   # (as _apply: dead code after a dead jump, its stack unknown)
            top = s.pop()
            s.insert(len(s) - n + 1, top)
            return [(nxt, tuple(s), blocks)]
        if op in ("END_FINALLY", "POP_FINALLY"):
            return self._step_finally(k, s, blocks)
        if op == "WITH_CLEANUP_START":
            if s and s[-1] == "N":
                return [(nxt, tuple(s[:-2]) + ("N", "v"), blocks)]
            return [(nxt, stack + ("v",), blocks)]
        if op == "WITH_CLEANUP_FINISH":
            if len(s) >= 2 and s[-2] == "N":
                return [(nxt, tuple(s[:-1]), blocks)]
            if nxt < len(self.instrs) and self.instrs[nxt].op == "END_FINALLY":
                nxt += 1  # the with's END_FINALLY: part of the rewritten exit
            return [(nxt, tuple(s[:-8]), _drop_handler_block(blocks))]
        if op in EXITS:
            return []
        if ins.opcode is None:
            raise DecompilationError("unknown legacy instruction %s" % op)
        out = []
        if op not in _UNCONDITIONAL:
            eff = dis.stack_effect(ins.opcode, ins.arg, jump=False) if ins.opcode >= dis.HAVE_ARGUMENT \
                else dis.stack_effect(ins.opcode)
            out.append((nxt, _apply(stack, eff), blocks))
        if ins.target is not None:
            eff = dis.stack_effect(ins.opcode, ins.arg, jump=True)
            out.append((self.index[id(ins.target)], _apply(stack, eff), blocks))
        return out

    def _step_finally(self, k, s, blocks):
        ins = self.instrs[k]
        nxt = k + 1
        if ins.op == "END_FINALLY":
            if s and s[-1] == "N":
                return [(nxt, tuple(s[:-1]), blocks)]
            if s and s[-1] == "e2":
                return []
            return [(nxt, tuple(s), blocks)]
        # POP_FINALLY preserve_tos
        keep = s[-1:] if ins.arg else []
        rest = s[:-1] if ins.arg else s
        if rest and rest[-1] == "N":
            return [(nxt, tuple(rest[:-1] + keep), blocks)]
        return [(nxt, tuple(rest[:-6] + keep), _drop_handler_block(blocks))]

    # -- emission ---------------------------------------------------------------
    def _emit(self):
        out = []
        first, entered = {}, {}
        pending_line = None
        for k, ins in enumerate(self.instrs):
            state = self.states[k]
            if state is None:
                continue
            stack, blocks = state
            start = len(out)
            items = self._rewrite(k, ins, stack, blocks)
            if self.kinds.get(k) in ("except", "with"):
                items.insert(0, _Out("PUSH_EXC_INFO"))
                entered[k] = start + 1  # a loop at the top of a finally body jumps back past it
            h = _handler_of(blocks)
            for it in items:
                if it.handler is None:
                    it.handler = h
                elif it.handler == "outer":
                    it.handler = _handler_of(_drop_handler_block(blocks))
            line = ins.line if ins.line is not None else pending_line
            if items:
                items[0].line = line
                pending_line = None
            else:
                pending_line = line
            out.extend(items)
            first[k] = (start, len(out))
        for t, outer in self.cleanup_outer.items():
            if self.states[t] is None:
                continue
            start = len(out)
            out.extend([_Out("COPY", 3, 3, handler=outer), _Out("POP_EXCEPT", handler=outer),
                        _Out("RERAISE", 1, 1, handler=outer)])
            first[("cleanup", t)] = (start, len(out))
        return out, first, entered

    def _rewrite(self, k, ins, stack, blocks):
        op = ins.op
        top = stack[-1] if stack else None
        if op in ("SETUP_FINALLY", "SETUP_ASYNC_WITH", "POP_BLOCK", "PUSH_NULL_FINALLY"):
            return []
        if op == "LOAD_CONST" and id(ins) in self.placeholders:
            return []
        if op == "ROT_TWO" and "ph" in stack[-2:]:
            return []
        if op == "SETUP_WITH":
            return [_Out("BEFORE_WITH")]
        if op == "DUP_TOP":
            if top == "e2":
                return []
            if k in self.with_exit_none:
                return [_Out("LOAD_CONST", None, None)]
            return [_plain(ins)]
        if op == "JUMP_IF_NOT_EXC_MATCH":
            return [_Out("CHECK_EXC_MATCH"), _Out("POP_JUMP_IF_FALSE", target=ins.target)]
        if op == "POP_TOP":
            if top in ("e0", "e2", "d", "N", "ph"):
                return []
            if top == "XL":
                return [_Out("POP_TOP"), _Out("POP_TOP")]
            return [_plain(ins)]
        if op == "ROT_FOUR" and tuple(stack[-4:-1]) == _TRIPLE:
            return [_Out("SWAP", 2, 2)]
        if op == "POP_EXCEPT":
            return [_Out("POP_EXCEPT", handler="outer")]
        if op in ("RERAISE", "END_FINALLY"):
            if op == "END_FINALLY" and top != "e2":
                return []
            return [_Out("RERAISE", None, self._reraise_kind(k, blocks))]
        if op == "POP_FINALLY":
            rest = stack[:-1] if ins.arg else stack
            if rest and rest[-1] == "N":
                return []
            if ins.arg:
                return [_Out("SWAP", 2, 2), _Out("POP_TOP"), _Out("SWAP", 2, 2),
                        _Out("POP_EXCEPT", handler="outer")]
            return [_Out("POP_TOP"), _Out("POP_EXCEPT", handler="outer")]
        if op == "WITH_CLEANUP_START":
            if top == "N":
                return [_Out("LOAD_CONST", None, None), _Out("LOAD_CONST", None, None),
                        _Out("LOAD_CONST", None, None), _Out("CALL_FUNCTION", 3, 3)]
            return [_Out("WITH_EXCEPT_START")]
        if op == "WITH_CLEANUP_FINISH":
            if len(stack) >= 2 and stack[-2] == "N":
                return [_Out("POP_TOP")]
            suppressed = _Out("POP_TOP")
            return [_Out("POP_JUMP_IF_TRUE", target=suppressed), _Out("RERAISE", 2, 2), suppressed,
                    _Out("POP_EXCEPT", handler="outer"), _Out("POP_TOP", handler="outer"),
                    _Out("POP_TOP", handler="outer")]
        return [_plain(ins)]

    def _reraise_kind(self, k, blocks):
        if k >= 3 and _is_name_cleanup_end(self.instrs[k - 3:k]) and self.kinds.get(k - 3) == "cleanup":
            # (the handler clearing the name of ``except E as n``; not the normal path's
            # ``n = None; del n``, which a finally body's copy may thread to its re-raise)
            return 1
        if blocks and blocks[-1][0] == "H" and self.kinds.get(blocks[-1][1]) == "with":
            return 2
        return 0


def _is_name_cleanup_end(run):
    """``n = None; del n`` (the end of ``except E as n``), not any ``del`` in a finally."""
    load, store, delete = run
    return (load.op == "LOAD_CONST" and load.argval is None and store.op.startswith("STORE_")
            and delete.op.startswith("DELETE_") and store.argval == delete.argval
            and not delete.op in ("DELETE_ATTR", "DELETE_SUBSCR"))


def _plain(ins):
    return _Out(ins.op, ins.arg, ins.argval, ins.target, ins.opcode, ins.argrepr)


def _drop_handler_block(blocks):
    for j in range(len(blocks) - 1, -1, -1):
        if blocks[j][0] == "H":
            return blocks[:j] + blocks[j + 1:]
    return blocks


def _apply(stack, eff):
    if eff < 0:
        return stack[:len(stack) + eff] if len(stack) + eff >= 0 else ()
    return stack + ("v",) * eff


def _finish(out, first, entered, index):
    """Offsets, jump targets and the exception table of the rewritten code.

    A jump to a handler's first instruction lands after the ``PUSH_EXC_INFO`` put
    there (``entered``); the exception table's entry is the ``PUSH_EXC_INFO``."""
    offset_of = {id(it): 2 * pos for pos, it in enumerate(out)}
    end = 2 * len(out)

    def place(key, jump=False):
        if isinstance(key, _I):
            key = index[id(key)]
        span = first.get(key)
        if span is None:
            return end
        start = entered[key] if jump and key in entered else span[0]
        return 2 * start if start < len(out) else end

    result = []
    table = []
    for pos, it in enumerate(out):
        argval = it.argval
        if it.target is not None:
            argval = offset_of[id(it.target)] if isinstance(it.target, _Out) else place(it.target, jump=True)
        result.append(decoder.Raw(it.op, it.opcode, it.arg, argval, it.argrepr, 2 * pos, it.line))
        if it.handler is not None:
            t, depth, lasti = it.handler
            table.append((2 * pos, 2 * pos + 2, place(t), depth, lasti))
    return result, _merge(table)


def _merge(table):
    merged = []
    for e in table:
        if merged and merged[-1][1] == e[0] and merged[-1][2:] == e[2:]:
            merged[-1] = (merged[-1][0], e[1]) + e[2:]
        else:
            merged.append(e)
    return merged
