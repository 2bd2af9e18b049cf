"""The last resort: any control flow as an explicit state machine over stack variables.

When structuring fails (Dynamo's resume functions jump into loops; its
transformed code keeps values on the stack across branches), the code object
is lowered instruction by instruction into ``ast`` statements: stack slot ``i``
becomes the variable ``__s<i>``, each basic block becomes one ``if __state ==
k:`` arm of a ``while True`` loop, and each jump assigns ``__state``.  Each
instruction runs exactly where the bytecode runs it, so the output is ugly but
behaves the same.  Blocks under an exception-table entry run inside
``try``/``except`` that jump to the handler block, and each turn of the loop
raises the exception the machine handles into a ``finally`` clause that runs the
arms, so that what an except clause calls sees it (``sys.exc_info()``); a nested function is a
``def`` under a fresh name.  Generators and module or class bodies are not
lowered (a clear error instead).  A block's stack is simulated by
:class:`~unveil.fallback.machine.Machine`, one handler per opcode
(:mod:`unveil.fallback.handlers`).
"""
import ast
import inspect

from ..bytecode.canonical import normalise
from ..bytecode.code_objects import argument_count
from ..bytecode.opcodes import EXITS, JUMPS
from ..errors import DecompilationError
from ..structure.stackitems import const, name
from .chaining import chain_def
from .handlers import HANDLERS
from .machine import NULL, Machine, assign, call

_ENDS_BLOCK = JUMPS | frozenset(EXITS)
#: ops after which the exception handled is another: the code after them starts a turn of
#: the machine's loop of its own, which raises the one handled then (``Lowering._handling``)
_CHANGES_HANDLED = frozenset(("PUSH_EXC_INFO", "POP_EXCEPT"))


class Lowering:
    """Lowers one code object; :func:`lower` is the entry point."""

    def __init__(self, ctx):
        self.ctx = ctx
        self.code = ctx.code
        self.instrs = normalise(self.code).instrs
        # (3.11+ build these tuples anew at each reading: read once)
        self.free_names = frozenset(self.code.co_freevars)
        self.frame_names = frozenset(self.code.co_varnames + self.code.co_cellvars) | self.free_names
        names = self.frame_names | set(self.code.co_names)
        self.stack_prefix, self.state, self.handled, self.chain = "__s", "__state", "__handled", "__chain"
        while any(n.startswith(self.stack_prefix) for n in names) \
                or {self.state, self.handled, self.chain} & names:
            self.stack_prefix, self.state, self.handled, self.chain = (
                "_" + self.stack_prefix, "_" + self.state, "_" + self.handled, "_" + self.chain)
        self.assigned_globals = set()
        self.stored_free = set()
        self.functions = 0              # defs named so far in this lowering pass
        self.function_codes = {}        # def name -> its code (3.13's SET_FUNCTION_ATTRIBUTE too)
        self.defs = {}                  # (def name, code) -> its ``def``, shared by both passes
        self.saved_by_comprehensions = {ins.argval for ins in self.instrs if ins.op == "LOAD_FAST_AND_CLEAR"}
        self.keep_names = False
        self.starts = self._block_starts()
        self.numbers = {start: n for n, start in enumerate(self.starts)}

    def _block_starts(self):
        starts = {0}
        previous = None
        for ins in self.instrs:
            if ins.handler != previous:
                starts.add(ins.index)      # one handler per block
                previous = ins.handler
            if ins.handler is not None:
                starts.add(ins.handler[0])
            if ins.op not in HANDLERS:
                raise DecompilationError("%s cannot be lowered to a state machine (opcode %s)"
                                         % (self.code.co_name, ins.op))
            if ins.target is not None:
                starts.add(ins.target)
            if (ins.op in _ENDS_BLOCK or ins.op in _CHANGES_HANDLED) and ins.index + 1 < len(self.instrs):
                starts.add(ins.index + 1)
        return sorted(starts)

    def block_number(self, start):
        return self.numbers[start]

    def goto(self, start):
        return [assign(self.state, const(self.block_number(start))), ast.Continue()]

    def function_name(self, code):
        """A fresh name for the ``def`` of nested ``code`` (the same on a second
        lowering pass, which meets the functions in the same order)."""
        self.functions += 1
        fname = "%sf%d" % (self.stack_prefix, self.functions)
        self.function_codes[fname] = code
        return fname

    def def_node(self, fname):
        """The ``def`` of the function named ``fname``, decompiled once for both passes."""
        key = (fname, self.function_codes[fname])
        if key not in self.defs:
            self.defs[key] = self.ctx.nested_def(key[1], fname)
        return self.defs[key]

    def local(self, raw, store=False):
        ident = self.ctx.identifier(raw)
        if store and raw in self.free_names:
            self.stored_free.add(ident)
        return ident

    def global_name(self, raw):
        if raw in self.frame_names:
            raise DecompilationError("global %s is also a local of %s" % (raw, self.code.co_name))
        return self.ctx.identifier(raw)

    def lower(self):
        """The function body's statements."""
        blocks = self._blocks()
        if self._is_tree(blocks):
            self.keep_names = True   # again, letting each block keep its predecessor's variables
            self.functions = 0
            blocks = self._blocks()
        for ident in sorted(self.assigned_globals):
            self.ctx.declare_global(ident)
        for ident in sorted(self.stored_free):
            self.ctx.declare_nonlocal(ident)
        return self._as_tree(blocks) if self.keep_names else self._as_machine(blocks)

    def _blocks(self):
        """Lower every reachable block: start -> :class:`Machine`."""
        entry = {0: []}            # block start -> slots on entry
        blocks = {}
        todo = [0]
        while todo:
            start = todo.pop()
            if start in blocks:
                continue
            end = next((s for s in self.starts if s > start), len(self.instrs))
            m = Machine(self, entry[start] if self.keep_names else
                        [NULL if null else "%s%d" % (self.stack_prefix, d) for d, null in enumerate(entry[start])])
            if self.instrs[start].handler is not None:
                m.handler_depth = self.instrs[start].handler[1]
            for ins in self.instrs[start:end]:
                m.settle_handler_slots()
                HANDLERS[ins.op](m, ins)
            if self.instrs[end - 1].op not in _ENDS_BLOCK:
                if end >= len(self.instrs):
                    raise DecompilationError("%s runs off its end" % self.code.co_name)
                m.leave(end)
                m.terminator = ("goto", end)
            blocks[start] = m
            handler = self.instrs[start].handler
            if handler is not None:
                target, depth, lasti = handler
                shape = [k is NULL for k in entry[start][:depth]]
                m.exits.append((target, shape + [False] * (bool(lasti) + 1)))
            for target, slots in m.exits:
                if entry.setdefault(target, slots) != slots and not self.keep_names:
                    raise DecompilationError("stack shapes differ where jumps meet in %s" % self.code.co_name)
                todo.append(target)
        return blocks

    def _is_tree(self, blocks):
        """No loops, no handlers, one predecessor per block: nested ``if``/``else`` will do."""
        if any(ins.handler is not None for ins in self.instrs):
            return False
        preds = {}
        for m in blocks.values():
            for target, _ in m.exits:
                preds[target] = preds.get(target, 0) + 1
        if preds.get(0) or any(n > 1 for n in preds.values()):
            return False
        return not any(m.terminator and m.terminator[0] == "next" for m in blocks.values()) \
            and _shallow(blocks)

    def _as_tree(self, blocks):
        """Nested ``if``/``else`` (Dynamo's graph-break code): no state variable needed."""

        def render(start):
            out = []
            while True:                 # a chain of gotos, one block after the other, without recursion
                m = blocks[start]
                out += m.stmts
                term = m.terminator
                if term is None:
                    return out
                if term[0] != "goto":
                    break
                start = term[1]
            _, cond, true, false = term
            return out + [ast.If(test=cond, body=render(true), orelse=render(false))]
        return render(0)

    def to_handler(self, exc, target, depth, lasti):
        """Go to the handler block ``target`` with the exception ``exc`` (a node): the stack
        cut to ``depth`` (the slots below it are in their own variables), then (``lasti``)
        a stand-in offset, then the exception."""
        out = [assign("%s%d" % (self.stack_prefix, depth + bool(lasti)), exc)]
        if lasti:
            out.append(assign("%s%d" % (self.stack_prefix, depth), const(None)))
        return out + self.goto(target)

    def _protected(self, body, target, depth, lasti):
        """``body`` under an exception-table entry: what it raises is chained to the
        exception handled (see :mod:`~unveil.fallback.chaining`), then goes to the handler."""
        caught = "%se" % self.stack_prefix
        handler = [ast.Expr(value=call(self.chain, name(caught), name(self.handled)))]
        handler += self.to_handler(name(caught), target, depth, lasti)
        return [ast.Try(body=body, handlers=[ast.ExceptHandler(type=name("BaseException"), name=caught,
                                                                body=handler)],
                        orelse=[], finalbody=[])]

    def _arm(self, start, m):
        """The statements of the arm of block ``m``: the block, then where it goes."""
        body = list(m.stmts)
        term = m.terminator
        if term is not None and term[0] == "goto":
            body += self.goto(term[1])
        elif term is not None and term[0] == "branch":
            _, cond, true, false = term
            body.append(assign(self.state, ast.IfExp(test=cond, body=const(self.block_number(true)),
                                                     orelse=const(self.block_number(false)))))
            body.append(ast.Continue())
        elif term is not None:
            _, target, iterator, done, more = term
            stop = ast.ExceptHandler(type=name("StopIteration"), name=None,
                                     body=[assign(self.state, const(self.block_number(done))), ast.Continue()])
            body.append(ast.Try(body=[assign(target, call("next", iterator))], handlers=[stop], orelse=[],
                                finalbody=[]))
            body += self.goto(more)
        handler = self.instrs[start].handler
        return self._protected(body, *handler) if handler is not None else body

    def _as_machine(self, blocks):
        """``while True`` over ``if __state == k`` arms, one per block."""
        arms = [ast.If(test=ast.Compare(left=name(self.state), ops=[ast.Eq()],
                                        comparators=[const(self.block_number(start))]),
                       body=self._arm(start, blocks[start]), orelse=[])
                for start in self.starts if start in blocks]   # (the others are unreachable)
        # each arm goes on by ``continue``, ``return`` or ``raise``: many arms are ``if``s one
        # after the other, as an ``elif`` chain of thousands is nested too deeply for the
        # compiler to take as a tree (Python 3.12: 1,500 levels)
        if len(blocks) <= _CHAINED_ARMS:
            for arm, following in zip(arms, arms[1:]):
                arm.orelse = [following]
            arms = arms[:1]
        if any(ins.op == "PUSH_EXC_INFO" for ins in self.instrs):
            arms = self._handling(arms)
        stmts = [assign(self.state, const(0)), ast.While(test=const(True), body=arms, orelse=[])]
        if any(ins.op in ("PUSH_EXC_INFO", "RAISE_VARARGS") or ins.handler for ins in self.instrs):
            stmts.insert(0, assign(self.handled, const(None)))
        if any(ins.handler for ins in self.instrs):
            stmts.insert(0, chain_def(self.chain))
        return stmts

    def _handling(self, arms):
        """``arms`` run where the exception the machine handles is the one Python handles
        too, for ``sys.exc_info()``, ``logging.exception`` and a bare ``raise`` in what they
        call: each turn of the loop raises it (its ``__context__`` and traceback kept) and
        runs the arms in the ``finally`` clause, which every arm leaves by ``continue``,
        ``return`` or ``raise``.  With none handled the clause runs as plain code."""
        saved = "%sh" % self.stack_prefix

        def kept(ctx):       # ``__handled.__context__, __handled.__traceback__``
            return ast.Tuple(elts=[ast.Attribute(value=name(self.handled), attr=attr, ctx=ctx())
                                   for attr in ("__context__", "__traceback__")], ctx=ctx())

        def some():
            return ast.Compare(left=name(self.handled), ops=[ast.IsNot()], comparators=[const(None)])
        raised = ast.If(test=some(), orelse=[], body=[assign(saved, kept(ast.Load)),
                                                     ast.Raise(exc=name(self.handled), cause=None)])
        restored = ast.If(test=some(), orelse=[], body=[ast.Assign(targets=[kept(ast.Store)], value=name(saved))])
        return [ast.Try(body=[raised], handlers=[], orelse=[], finalbody=[restored] + arms)]


def lower(ctx):
    """The body of ``ctx.code`` as a state machine (``ast`` statements), or ``DecompilationError``."""
    if ctx.code.co_flags & (inspect.CO_GENERATOR | inspect.CO_COROUTINE | inspect.CO_ASYNC_GENERATOR):
        raise DecompilationError("%s is a generator or coroutine: not lowered to a state machine"
                                 % ctx.code.co_name)
    if not ctx.code.co_flags & inspect.CO_NEWLOCALS:
        raise DecompilationError("%s is a module or class body: not lowered to a state machine"
                                 % ctx.code.co_name)
    stmts = Lowering(ctx).lower()
    cells = [ctx.identifier(n) for n in ctx.code.co_cellvars
             if n not in ctx.code.co_varnames[:argument_count(ctx.code)]]
    if cells:
        # a cell only a nested function's walrus stores is still the enclosing one's local
        stmts.append(ast.If(test=const(False), orelse=[], body=[
            ast.Assign(targets=[name(c, store=True) for c in cells], value=const(None))]))
    return stmts


#: the most arms the loop form writes as one ``if``/``elif`` chain
_CHAINED_ARMS = 200

#: how deep the nested ``if``/``else`` form may go: CPython's tokenizer refuses 100
#: levels of indentation (and each level is a Python call of the renderer's)
_TREE_INDENTS = 90


def _shallow(blocks):
    """Whether the nested ``if``/``else`` form of a tree of ``blocks`` stays within
    :data:`_TREE_INDENTS` indentations on every path (a long ``elif`` chain does not: it
    gets the state machine's loop).  Gotos do not indent: the renderer follows them in a
    loop (counting them too sent long straight-line trees to the loop form)."""
    todo = [(0, 0)]
    while todo:
        start, indents = todo.pop()
        if indents > _TREE_INDENTS:
            return False
        term = blocks[start].terminator
        if term is None:
            continue
        if term[0] == "goto":
            todo.append((term[1], indents))
        else:
            todo += [(term[2], indents + 1), (term[3], indents + 1)]
    return True
