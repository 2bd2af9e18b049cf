"""Bytecode that branches while values wait on the stack beneath the branch, judged by
running it (the fuzzer of ``tests/test_stack_branches.py`` and
``benchmarks/stack_branch_fuzz.py``).

Python source cannot put a statement inside an expression, so no compiler writes a
branch with statements while a call's function and arguments, a tuple being built or
a binary operand wait on the stack; Dynamo's bytecode does (torch 2.15's profiler
marks).  Each sample is made from source: each branch is compiled as statements
between two marker statements, and a hole of an expression after them is a marker
name::

    def sample(log, obj, c0, c1, x, y):
        __A0__
        if c0:                  # the branch (an if with or without else, or an
            x = log('t1', 1)    # expression statement: ``a if c else b``, ``a and b``)
        __B0__
        r = log(obj.p, x, __H0__)  # the host: values beneath the hole
        if c1 is None:             # (not the function's end: see generate)
            r = 0
        return r

The code object is then edited: the branch's instructions are cut out from between
the markers and put in place of the load of ``__H0__``, so that they run with
``log``, ``obj.p`` and ``x`` on the stack (a host with two holes, ``__H1__`` for a
second branch, is Dynamo's graph call between its two profiler marks).  An arm may leave a value (the ``POP_TOP``
of its last expression statement is taken out: an ``if`` whose arms run statements
and leave a value); that value, or the expression statement's, is the hole's value,
or is dropped right where the arms meet, as Dynamo's marks do, and a local is pushed
in its place; after an ``if`` that leaves nothing, a local is pushed.  Jumps are
re-encoded for the interpreter running (3.8 to 3.13), caches and ``EXTENDED_ARG``
written again, and the line table rebuilt.

Every value is an int; ``log(tag, *values)`` records its call and returns its last
value, ``obj.p`` records its read.  A sample is run on the four combinations of
``c0`` and ``c1``; the decompiled and recompiled function must give the same
result (or exception) and record the same calls in the same order.
"""
import dis
import opcode
import random
import sys
import traceback
import types

import unveil

PARAMS = "log, obj, c0, c1, x, y"
VERSION = sys.version_info[:2]


# -- the program ------------------------------------------------------------------
class Branch:
    """One branch of a sample: its kind, what becomes of its value (``tail``), and the
    lines whose expression statement leaves its value (``kept``)."""

    def __init__(self, kind, tail, kept):
        self.kind, self.tail, self.kept = kind, tail, kept

    def __repr__(self):
        return "%s/%s" % (self.kind, self.tail)


class Sample:
    """One generated program: its source, its branches in order (the ``i``-th between
    the markers ``__A<i>__`` and ``__B<i>__``, put in place of ``__H<i>__``), and the
    host expression's template."""

    def __init__(self, seed, source, branches, host):
        self.seed, self.source, self.branches, self.host = seed, source, branches, host

    def __repr__(self):
        return "Sample(%d: %s, host %s)" % (self.seed, ", ".join(map(repr, self.branches)), self.host)


#: expressions with holes ``{H}``, ``{H2}`` for branches, ``{P<k>}`` for the values waiting
_HOSTS = [
    "{H}",
    "log('g', {H})",
    "log({P1}, {H})",
    "log({P1}, {P2}, {H})",
    "log({P1}, {H}, {P2})",
    "({P1}, {H})",
    "({P1}, {P2}, {H}, {P3})",
    "[{P1}, {H}]",
    "{{P1}: {H}}",
    "{P1} + {H}",
    "{P1} - {P2} * {H}",
    "{P1} < {H} < {P2}",
    "obj.m({P1}, {H})",
    "log({P1}, k={H})",
    "log(*[{P1}, {H}])",
    'f"{{P1}}-{{H}}"',
    "log({H}, {P1}, {P2}, {H2})",     # Dynamo's profiler marks: the graph call between two
    "log({P1}, {H}, {P2}, {H2})",
    "({H}, {P1}, {H2}, {P2})",
]

_WAITING = ["log('p{n}', {n})", "obj.p", "x", "y", "G", "7", "-x", "obj.q({n})", "(y := log('p{n}', {n}))"]
_CONDITIONS = ["c0", "not c0", "log('c', c0)", "c0 and c1", "c0 or log('c', c1)", "x > 1", "c1",
               "(y := log('c', c1))", "log('c', c0) and log('d', c1)"]
_VALUES = ["log('v{n}', {n})", "x", "obj.p", "y", "(x if c1 else log('w{n}', {n}))"]
_STATEMENTS = ["log('s{n}')", "x = log('t{n}', {n})", "x = log('t{n}', {n})", "y = {n}", "y += log('a{n}', {n})",
               "obj.z = log('z{n}', {n})", "pass", "nested", "nested", "raise", "del"]


class _Writer:
    def __init__(self, rng):
        self.rng, self.n, self.lines = rng, 0, []
        self.may_raise = True   # (not both arms of a branch: the code after it would be dead)

    def num(self):
        self.n += 1
        return self.n

    def fill(self, template):
        return template.replace("{n}", str(self.num()))

    def line(self, depth, text, kept=None):
        self.lines.append("    " * depth + text)
        if kept is not None:
            kept.append(len(self.lines) + 1)   # (line 1 is the ``def``)

    def statements(self, depth, count):
        """Write ``count`` statements; True if the last raises (nothing may follow it:
        the compiler drops dead code)."""
        for _ in range(count):
            kind = self.rng.choice(_STATEMENTS)
            if kind == "nested" and depth < 4:
                self.line(depth, "if %s:" % self.rng.choice(_CONDITIONS))
                raised = self.statements(depth + 1, self.rng.randint(1, 2))
                if self.rng.random() < 0.4:
                    self.line(depth, "else:")
                    if self.statements(depth + 1, 1) and raised:
                        return True   # (both arms raise: 3.10+ drop what would follow as dead code)
            elif kind == "raise" and self.may_raise and self.rng.random() < 0.3:
                self.line(depth, self.fill("raise ValueError('r{n}')"))
                return True
            elif kind == "del" and self.rng.random() < 0.3:
                # (bound again at once: a name read while unbound raises where the text
                # reads it, which may be after effects the bytecode had not run yet)
                self.line(depth, "del y")
                self.line(depth, self.fill("y = {n}"))
            elif kind in ("nested", "raise", "del"):
                self.line(depth, self.fill("log('s{n}')"))
            else:
                self.line(depth, self.fill(kind))
        return False

    def branch(self, i):
        """Write the ``i``-th branch between its markers."""
        rng, kept = self.rng, []
        kind = rng.choice(["if", "if-else", "if-values", "ifexp", "and", "or"])
        self.line(1, "__A%d__" % i)
        cond = rng.choice(_CONDITIONS)
        if kind in ("if", "if-else"):
            self.line(1, "if %s:" % cond)
            raised = self.statements(2, rng.randint(1, 2))
            if kind == "if-else":
                self.line(1, "else:")
                self.may_raise = not raised
                self.statements(2, rng.randint(1, 2))
                self.may_raise = True
        elif kind == "if-values":
            self.line(1, "if %s:" % cond)
            if not self.statements(2, rng.randint(0, 2)):
                self.line(2, self.fill(rng.choice(_VALUES)), kept)
            self.line(1, "else:")
            self.may_raise = bool(kept)
            if not self.statements(2, rng.randint(0, 2)) or not kept:
                self.line(2, self.fill(rng.choice(_VALUES)), kept)
            self.may_raise = True
        else:
            a, b = self.fill(rng.choice(_VALUES)), self.fill(rng.choice(_VALUES))
            text = "(%s if %s else %s)" % (a, cond, b) if kind == "ifexp" else "(%s %s %s)" % (a, kind, b)
            self.line(1, text, kept)
        self.line(1, "__B%d__" % i)
        tail = "push" if kind in ("if", "if-else") else rng.choice(["keep", "keep", "drop"])
        return Branch(kind, tail, kept)


def generate(seed):
    """The sample of ``seed`` (the same on every run and version)."""
    rng = random.Random(seed)
    w = _Writer(rng)
    template = rng.choice(_HOSTS)
    host = template.replace("{H}", "__H0__").replace("{H2}", "__H1__")
    branches = [w.branch(i) for i in range(host.count("__H"))]
    for k in (1, 2, 3):
        host = host.replace("{P%d}" % k, w.fill(rng.choice(_WAITING)))
    # (the code after the branch must not end in the return: 3.10 and 3.12+ copy a block
    # that does into each way to it, and the branch would end in two places)
    w.line(1, "r = " + host)
    w.line(1, "if c1 is None:")
    w.line(2, "r = 0")
    w.line(1, "return r")
    source = "def sample(%s):\n%s\n" % (PARAMS, "\n".join(w.lines))
    return Sample(seed, source, branches, template)


def sample_of(source, tails):
    """A sample written by hand: ``source`` in the form :func:`generate` writes, its
    kept expression statements marked ``# kept``, ``tails`` what becomes of each
    branch's value (``push``, ``keep``, ``drop``)."""
    lines = source.splitlines()
    branches = []
    for i, tail in enumerate(tails):
        start = next(n for n, text in enumerate(lines, 1) if text.strip() == "__A%d__" % i)
        end = next(n for n, text in enumerate(lines, 1) if text.strip() == "__B%d__" % i)
        kept = [n for n in range(start, end) if lines[n - 1].rstrip().endswith("# kept")]
        if tail != "push" and not kept:
            # (unmarked, the statements' POP_TOPs stay and the bytecode built pops what no
            # one pushed: the interpreter crashes running it)
            raise GeneratorError("branch %d leaves a value (%s) but no line of it is marked '# kept'"
                                 % (i, tail))
        branches.append(Branch("by hand", tail, kept))
    return Sample(0, source, branches, "by hand")


# -- the bytecode ---------------------------------------------------------------
class GeneratorError(Exception):
    """The sample could not be made (a bug of this module, not of the decompiler)."""


def _caches(op):
    entries = getattr(opcode, "_inline_cache_entries", None)
    if entries is None:
        return 0
    if isinstance(entries, dict):
        return entries.get(opcode.opname[op], 0)
    return entries[op]


_GOTO = ("JUMP_FORWARD", "JUMP_ABSOLUTE", "JUMP", "JUMP_NO_INTERRUPT")
_JUMPS = set(dis.hasjrel) | set(dis.hasjabs) | set(getattr(dis, "hasjump", ()))


class _Ins:
    def __init__(self, op, arg, line, target=None):
        self.op, self.arg, self.line, self.target = op, arg, line, target


def _read(code):
    """The instructions of ``code`` as :class:`_Ins`, jump targets as instruction
    indexes, ``EXTENDED_ARG`` folded into the argument."""
    raw = [i for i in dis.get_instructions(code) if i.opname not in ("EXTENDED_ARG", "CACHE")]
    at = {}
    line = code.co_firstlineno
    out = []
    for i in raw:
        if VERSION >= (3, 11):
            line = i.positions.lineno if i.positions is not None else None
        elif i.starts_line is not None:
            line = i.starts_line
        out.append(_Ins(i.opcode, i.arg, line))
        at[i.offset] = len(out) - 1
    # a jump to an EXTENDED_ARG lands on the instruction it prefixes
    offsets = sorted(at)
    for i, ins in zip(raw, out):
        if i.opcode in _JUMPS:
            target = i.argval
            ins.target = at.get(target, at[min(o for o in offsets if o >= target)])
    return out


def _ext(arg):
    n = 0
    while arg > 0xFF:
        arg >>= 8
        n += 1
    return n


def _assemble(instrs):
    """``(co_code, per code unit line)`` of :class:`_Ins` whose ``target`` are
    instructions of ``instrs``, for the running version's jump encoding."""
    index = {id(ins): k for k, ins in enumerate(instrs)}
    ext = [0] * len(instrs)
    while True:
        starts, pos = [], 0
        for k, ins in enumerate(instrs):
            starts.append(pos)
            pos += 2 * (1 + ext[k] + _caches(ins.op))
        args = []
        for k, ins in enumerate(instrs):
            if ins.target is None:
                args.append(ins.arg or 0)
                continue
            here = starts[k] + 2 * ext[k]          # the instruction itself, past its prefixes
            after = here + 2 + 2 * _caches(ins.op)
            target = starts[index[id(ins.target)]]
            if VERSION >= (3, 11):
                arg = (after - target) // 2 if "BACKWARD" in opcode.opname[ins.op] else (target - after) // 2
            elif ins.op in dis.hasjabs:
                arg = target // 2 if VERSION >= (3, 10) else target
            else:
                arg = (target - after) // 2 if VERSION >= (3, 10) else target - after
            if arg < 0:
                raise GeneratorError("a jump changed direction")
            args.append(arg)
        need = [_ext(a) for a in args]
        if need == ext:
            break
        ext = [max(a, b) for a, b in zip(ext, need)]
    code, lines = bytearray(), []
    for k, ins in enumerate(instrs):
        arg = args[k]
        for shift in range(ext[k], 0, -1):
            code += bytes([opcode.opmap["EXTENDED_ARG"], (arg >> (8 * shift)) & 0xFF])
        code += bytes([ins.op, arg & 0xFF]) + bytes(2 * _caches(ins.op))
        lines += [ins.line] * (1 + ext[k] + _caches(ins.op))
    return bytes(code), lines


def _varint(value):
    out = bytearray()
    while value >= 0x40:
        out.append(0x40 | (value & 0x3F))
        value >>= 6
    out.append(value)
    return out


def _line_table(first, lines):
    """The line table of code whose code units have ``lines``."""
    out, last = bytearray(), first
    if VERSION >= (3, 11):
        k = 0
        while k < len(lines):
            n = 1
            while n < 8 and k + n < len(lines) and lines[k + n] == lines[k]:
                n += 1
            if lines[k] is None:
                out.append(0x80 | (15 << 3) | (n - 1))
            else:
                delta = lines[k] - last
                out.append(0x80 | (13 << 3) | (n - 1))
                out += _varint(delta << 1 if delta >= 0 else (-delta << 1) | 1)
                last = lines[k]
            k += n
        return bytes(out)
    if VERSION >= (3, 10):
        for line in lines:
            if line is None:
                out += bytes([2, 0x80])
                continue
            delta = line - last
            while not -127 <= delta <= 127:
                step = 127 if delta > 0 else -127
                out += bytes([0, step & 0xFF])
                delta -= step
            out += bytes([2, delta & 0xFF])
            last = line
        return bytes(out)
    # 3.8, 3.9: co_lnotab, (offset increment, line increment) where the line changes
    offset, last_offset = 0, 0
    for line in lines:
        if line is not None and line != last:
            bdelta, delta = offset - last_offset, line - last
            while bdelta > 255:
                out += bytes([255, 0])
                bdelta -= 255
            while not -128 <= delta <= 127:
                step = 127 if delta > 0 else -128
                out += bytes([bdelta, step & 0xFF])
                bdelta, delta = 0, delta - step
            out += bytes([bdelta, delta & 0xFF])
            last, last_offset = line, offset
        offset += 2
    return bytes(out)


def build(sample):
    """The function of ``sample``, its bytecode edited as the module docstring says."""
    code = next(c for c in compile(sample.source, "<stack-branch %d>" % sample.seed, "exec").co_consts
                if isinstance(c, types.CodeType))
    instrs = _read(code)
    loads = [k for k, ins in enumerate(instrs) if ins.op == opcode.opmap["LOAD_GLOBAL"]]

    def marker(name):
        found = [k for k in loads if _global_name(code, instrs[k].arg) == name]
        if len(found) != 1:
            raise GeneratorError("marker %s not found once" % name)
        return found[0]

    pop_top, load_fast = opcode.opmap["POP_TOP"], opcode.opmap["LOAD_FAST"]
    x_slot = code.co_varnames.index("x")
    moved, holes, removed = [], [], set()
    for i, branch in enumerate(sample.branches):
        a, b, hole = marker("__A%d__" % i), marker("__B%d__" % i), marker("__H%d__" % i)
        if instrs[a + 1].op != pop_top or instrs[b + 1].op != pop_top:
            raise GeneratorError("a marker statement is not a load and a POP_TOP")
        span = range(a + 2, b)
        removed |= {a, a + 1, b, b + 1, hole}
        for line in branch.kept:
            removed.update(_kept_pops(instrs, span, line))
        line = instrs[hole].line
        tail = {"push": [_Ins(load_fast, x_slot, line)], "keep": [],
                "drop": [_Ins(pop_top, None, line), _Ins(load_fast, x_slot, line)]}[branch.tail]
        after = tail[0] if tail else None     # (else the host's instruction after the hole)
        for k in span:
            target = instrs[k].target
            if target is None:
                continue
            while target in removed and target in span:
                target += 1
            if target == b:
                instrs[k].target = after if after is not None else hole + 1
            elif target in span:
                instrs[k].target = instrs[target]
            else:
                raise GeneratorError("a jump of the branch leaves it")
        moved.append([instrs[k] for k in span if k not in removed] + tail)
        holes.append(hole)
    inside = {k for i in range(len(sample.branches)) for k in range(marker("__A%d__" % i), marker("__B%d__" % i) + 2)}
    for k, ins in enumerate(instrs):
        if isinstance(ins.target, int):
            if k in inside:
                ins.target = instrs[ins.target]   # (a branch's jump to the host's instruction after the hole)
            elif ins.target <= holes[-1] or k <= holes[-1]:
                raise GeneratorError("a jump before a hole")
            else:
                ins.target = instrs[ins.target]   # (the code after the host's statement)
    new, hole_code = [], dict(zip(holes, moved))
    for k, ins in enumerate(instrs):
        if k in hole_code:
            new += hole_code[k]
        elif k not in removed and k not in inside:
            new.append(ins)
    co_code, lines = _assemble(new)
    fields = dict(co_code=co_code, co_stacksize=code.co_stacksize + 8)
    table = _line_table(code.co_firstlineno, lines)
    if VERSION >= (3, 10):
        fields["co_linetable"] = table
    else:
        fields["co_lnotab"] = table
    if VERSION >= (3, 11):
        fields["co_exceptiontable"] = b""
    return types.FunctionType(code.replace(**fields), _globals(), "sample")


def _kept_pops(instrs, span, line):
    """The ``POP_TOP`` instructions ending the expression statement on ``line`` within ``span``: each
    one the statement's code goes on from only by leaving it (the next instruction is
    another line's, or a jump).  3.13 drops ``a if c else b`` in each arm; 3.11 gives the
    one where the arms meet, a jump target, no line (so do the instructions of no line
    right after the statement's)."""
    own, k = set(), None
    for k in span:
        if instrs[k].line == line or instrs[k].line is None and k - 1 in own:
            own.add(k)
    ends = [k for k in sorted(own) if opcode.opname[instrs[k].op] == "POP_TOP"
            and (k + 1 not in own or opcode.opname[instrs[k + 1].op] in _GOTO)]
    if not ends:
        raise GeneratorError("the statement on line %d does not end in a POP_TOP" % line)
    return ends


def _global_name(code, arg):
    return code.co_names[arg >> 1 if VERSION >= (3, 11) else arg]


G = 5


def _globals():
    return {"G": G, "__builtins__": __builtins__}


# -- running and judging ------------------------------------------------------------
class _Obj:
    def __init__(self, events):
        self._events = events

    @property
    def p(self):
        self._events.append(("obj.p",))
        return 10

    def q(self, n):
        self._events.append(("obj.q", n))
        return n * 3

    def m(self, *args):
        self._events.append(("obj.m",) + args)
        return sum(args)


INPUTS = [(c0, c1) for c0 in (False, True) for c1 in (False, True)]


def run(fn, c0, c1):
    """What calling ``fn`` does: (its result or exception, the calls it recorded)."""
    events = []

    def log(tag, *values, k=None):
        events.append((tag,) + values + ((("k", k),) if k is not None else ()))
        return (values[-1] if values else len(events)) if k is None else k

    try:
        result = ("value", fn(log, _Obj(events), c0, c1, 1, 2))
    except Exception as exc:   # the program's own exceptions are part of its behaviour
        result = ("raise", type(exc).__name__, str(exc))
    return result, events


def judge(sample):
    """``(verdict, detail)``: ``same`` (structured, behaving alike), ``lowered`` (alike,
    written as the state machine), ``refused`` (a DecompilationError), ``wrong``
    (behaving otherwise), ``crash`` (an internal error, or text that does not compile)."""
    fn = build(sample)
    expected = [run(fn, *inputs) for inputs in INPUTS]
    try:
        result = unveil.decompile_code(fn)
    except unveil.InternalError:
        return "crash", traceback.format_exc()
    except unveil.DecompilationError as exc:
        return "refused", str(exc)
    try:
        code = unveil.recompile(result.source, fn.__code__)
    except SyntaxError:
        return "crash", "does not compile:\n" + result.source
    namespace = _globals()
    namespace.update(result.bindings)
    new = types.FunctionType(code, namespace, "sample")
    for inputs, want in zip(INPUTS, expected):
        got = run(new, *inputs)
        if got != want:
            return "wrong", "c0, c1 = %s:\n  original:   %r\n  decompiled: %r\n%s" % (inputs, want, got,
                                                                                   result.source)
    return ("lowered" if result.lowered else "same"), result.source


def survey(seeds):
    """The verdicts of the samples of ``seeds``: {verdict: [(sample, detail)]}."""
    out = {}
    for seed in seeds:
        sample = generate(seed)
        verdict, detail = judge(sample)
        out.setdefault(verdict, []).append((sample, detail))
    return out
