"""Transformed code and resume functions as a person would write them: Dynamo's
stack-passing idioms undone, on the decompiled ``ast``.

At a graph break Dynamo hands each frame's stack and live locals to the resume
function through lists it builds, splices and slices, because its bytecode has
no other way to move values between stack slots::

    __t4 = [__t3[0:1].__iadd__([])]
    __t5 = [__t2()]
    __t4[0][0:0] = __t5
    ...
    return __t9(*[[], __t6, *__t10])

:func:`tidy` follows those lists symbolically, as Python would, and writes the
call they amount to: ``return __resume_at_70_3([], [], __t1, __t0)``.  Values
with side effects are computed where they were, in the same order, into
temporaries; only the list shuffling goes.  Anything it does not follow leaves
that function as the decompiler wrote it.  Then, each on its own:

* the profiler's ``record_pregraph_bytecode_enter`` / ``_exit`` calls lose the
  local that held each function for one statement, and the locals that held
  the profiler's flag and Dynamo's utils module where the marks are made only
  while the profiler runs (``tmp_1 = utils.record_pregraph_bytecode_enter() if
  profiler._is_profiler_enabled else None``);
* a local Dynamo binds once to an argument (``(tmp_1 := self).weight``) is
  written as that argument, when nothing assigns it;
* a temporary holding a compiled graph or a resume function, read once, is
  replaced by the global itself;
* the decompiler's trailing ``if False: a = b = None`` (names the original code
  object declares as locals) goes: a dumped file runs in place of Dynamo's code
  with its arguments, free and cell variables only;
* a temporary nothing reads, holding a value built of displays and constants
  alone (``__t4 = [[*[]]]``, left on the stack under a return), goes;
* temporaries are numbered in reading order.

What runs is the rewritten text: ``debug()`` executes it in place of Dynamo's
code, which is how each rewrite is proven.
"""
import ast
import copy
import itertools
import re

from ...api import Decompiled
from ...syntax.astwalk import statement_lists
from ...syntax.notes import Notes
from ...syntax.unparse import unparse_with_origins
from .. import made_globals

_TEMP = re.compile(r"__t(\d+)$")
_PROFILER_MARKS = ("record_pregraph_bytecode_enter", "record_pregraph_bytecode_exit")


def tidy(decompiled, code):
    """``decompiled`` (a :class:`Decompiled` of Dynamo's code object ``code``) rewritten as
    above, with its line map; itself when nothing changed."""
    tree = ast.parse(decompiled.source)
    fn = _function_named(tree, code.co_name)
    if fn is None:
        return decompiled
    changed = [_lists_followed(fn, code)] + [rewrite(fn) for rewrite in (
        _profiler_marks, _conditional_marks, _argument_aliases, _dynamo_globals_inlined, _declared_locals_dropped,
        _inert_temporaries_dropped, _temporaries_renumbered)]
    if not any(changed):
        return decompiled
    source, lines = unparse_with_origins(tree, _original_lines(tree, decompiled.lines))
    return Decompiled(source + "\n", decompiled.bindings, lines, decompiled.lowered, decompiled.comments)


def noted(decompiled):
    """The text of ``decompiled`` for a reader with no dump at hand (torch's log, the
    dispatcher's ``source``): after what a dump file's header would say of the objects
    Dynamo placed in the code, and of how it calls a resume function."""
    notes = binding_notes(decompiled)
    if "__resume_at_" in decompiled.source:
        notes += RESUME_CALL_NOTE
    return "".join(line + "\n" for line in notes) + decompiled.source


def binding_notes(decompiled):
    """A comment line for each object Dynamo placed in the code that no literal writes (the
    names ``decompiled.bindings`` gives them): ``# __unveil_Size_0: an object Dynamo placed
    in the code: torch.Size([4]) (torch.Size)``."""
    return ["# %s: an object Dynamo placed in the code: %s" % (ident, _described(value))
            for ident, value in sorted(decompiled.bindings.items())]


def _described(value):
    text = repr(value)
    if len(text) > 100:
        text = text[:97] + "..."
    return "%s (%s.%s)" % (text, type(value).__module__, type(value).__qualname__)


#: how transformed code calls a resume function (Dynamo's ``create_call_resume_at``)
RESUME_CALL_NOTE = [
    "# A resume function __resume_at_N is called with two lists, the resume functions and the stacks",
    "# and locals of the inlined calls the break happened in (empty when it happened in this frame's",
    "# own code), then this frame's stack and live locals. One with free variables is made first,",
    "# by calling __resume_at_N with the cells it closes over."]


def _original_lines(tree, lines):
    """Each statement's original line: that of the decompiled line it was parsed from,
    or whose place it took (:func:`_at`)."""
    notes = Notes()
    for node in ast.walk(tree):
        if isinstance(node, ast.stmt) and hasattr(node, "lineno"):
            notes.line.set(node, lines[node.lineno - 1])
    return notes.line


def _function_named(tree, name):
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == name:
            return node
    return None


def _names(node, ctx=None):
    """The ids of the ``Name`` nodes in ``node`` (of one context, if given)."""
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and (ctx is None or isinstance(n.ctx, ctx))}


def _stored(stmts):
    return set().union(*[_names(s, (ast.Store, ast.Del)) for s in stmts])


def _at(node, origin):
    return ast.fix_missing_locations(ast.copy_location(node, origin))


# -- the lists Dynamo passes values in --------------------------------------------
class _Unfollowed(Exception):
    """The code does something with a followed list this pass does not model."""


class _List(list):
    """A list the code builds only to move values: its items are :class:`_Value`\\ s and
    other ``_List``\\ s, aliased as in the running code."""
    escaped = False       # written out as a display: the list the code makes from here on


class _Value:
    """An item: an expression that reads the same wherever it is written (a constant, a
    name nothing assigns again)."""

    def __init__(self, node):
        self.node = node


def _lists_followed(fn, code):
    numbers = [int(m.group(1)) for m in map(_TEMP.match, _names(fn)) if m]
    follower = _Follower(itertools.count(max(numbers, default=-1) + 1), set(code.co_cellvars + code.co_freevars))
    try:
        body = follower.block(fn.body, {}, set())
    except _Unfollowed:
        return False
    if not follower.followed:
        return False
    fn.body = body
    return True


class _Follower:
    def __init__(self, numbers, cells):
        self.numbers = numbers
        self.cells = cells          # names another function may assign to between two statements
        self.followed = False

    def block(self, stmts, lists, later):
        """``stmts`` rewritten; ``lists`` maps a temporary to the list (or item) it holds
        and is updated; ``later`` are the names stored after the block."""
        out, suffixes = [], []
        for stmt in reversed(stmts):         # names stored from each statement on
            later = later | _names(stmt, (ast.Store, ast.Del))
            suffixes.append(later)
        for stmt, stored in zip(stmts, reversed(suffixes)):
            self.statement(stmt, lists, stored, out)
        return out

    def statement(self, stmt, lists, later, out):
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
            target = stmt.targets[0]
            if isinstance(target, ast.Name) and _TEMP.match(target.id) and not self._call_on_lists(stmt.value, lists):
                held = self.value(stmt.value, lists, later, out, stmt)
                lists.pop(target.id, None)
                if held is not None:
                    lists[target.id] = held
                    self.followed = True
                    return
            elif isinstance(target, ast.Name) and _names(stmt.value) & lists.keys() \
                    and not self._call_on_lists(stmt.value, lists):
                held = self.value(stmt.value, lists, later, out, stmt)     # a local restored from a list
                if isinstance(held, _Value):
                    out.append(_at(ast.Assign(targets=[target], value=self.written(held)), stmt))
                    lists.pop(target.id, None)
                    return
                raise _Unfollowed
            elif isinstance(target, ast.Subscript) and isinstance(target.slice, ast.Slice):
                holder = self.value(target.value, lists, later, out, stmt)
                if isinstance(holder, _List):
                    items = self.value(stmt.value, lists, later, out, stmt)
                    self._splice(holder, target.slice, items)
                    return
        elif isinstance(stmt, ast.Delete) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Subscript):
            holder = self.value(stmt.targets[0].value, lists, later, out, stmt)
            if isinstance(holder, _List):
                index = self._index(holder, stmt.targets[0].slice)
                del holder[index]
                return
        elif isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.List):
            self.value(stmt.value, lists, later, out, stmt)     # a list built and dropped: its items' effects
            self.followed = True
            return
        elif isinstance(stmt, ast.If) and _names(stmt) & lists.keys():
            return self._branches(stmt, lists, later, out)
        call = getattr(stmt, "value", None)
        if isinstance(stmt, (ast.Return, ast.Assign, ast.Expr)) and self._call_on_lists(call, lists):
            stmt = copy.copy(stmt)
            stmt.value = self.call(call, lists, later, out, stmt)
        elif _names(stmt) & lists.keys():
            raise _Unfollowed
        out.append(stmt)
        for name in _stored([stmt]):
            lists.pop(name, None)

    def _branches(self, stmt, lists, later, out):
        """An ``if`` whose arms use followed lists: each arm must end the function, or the
        lists would be in two states after it."""
        if _names(stmt.test) & lists.keys():
            raise _Unfollowed
        arms = []
        for arm in (stmt.body, stmt.orelse):
            own = copy.deepcopy(lists)
            arms.append(self.block(arm, own, later))
            if arm and not isinstance(arm[-1], (ast.Return, ast.Raise)):
                raise _Unfollowed
        rewritten = copy.copy(stmt)
        rewritten.body, rewritten.orelse = arms[0] or [ast.Pass()], arms[1]
        out.append(rewritten)

    @staticmethod
    def _call_on_lists(node, lists):
        return (isinstance(node, ast.Call) and _names(node) & lists.keys()
                and not (isinstance(node.func, ast.Attribute) and node.func.attr == "__iadd__"))

    def value(self, node, lists, later, out, origin):
        """What ``node`` evaluates to, when it is a followed list or an item of one (its
        items' side effects written to ``out``); None for anything else."""
        if isinstance(node, ast.Name) and node.id in lists:
            return lists[node.id]
        if isinstance(node, ast.List):
            built = _List()
            for elt in node.elts:
                if isinstance(elt, ast.Starred):
                    built.extend(self._list(elt.value, lists, later, out, origin))
                else:
                    built.append(self.item(elt, lists, later, out, origin))
            return built
        if isinstance(node, ast.Subscript):
            holder = self.value(node.value, lists, later, out, origin)
            if isinstance(holder, _List):
                if isinstance(node.slice, ast.Slice):
                    return _List(holder[self._bounds(node.slice)])
                return holder[self._index(holder, node.slice)]
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "__iadd__" \
                and len(node.args) == 1 and not node.keywords:
            holder = self.value(node.func.value, lists, later, out, origin)
            if isinstance(holder, _List):
                holder.extend(self._list(node.args[0], lists, later, out, origin))
                return holder
        if _names(node) & lists.keys():
            raise _Unfollowed
        return None

    def _list(self, node, lists, later, out, origin):
        found = self.value(node, lists, later, out, origin)
        if not isinstance(found, _List) or found.escaped:
            raise _Unfollowed
        return found

    def item(self, node, lists, later, out, origin):
        """An item of a list display: followed, read as it stands, or computed here into a
        new temporary (an expression with effects, or one that would read otherwise later)."""
        found = self.value(node, lists, later, out, origin)
        if found is not None:
            return found
        if self._inert(node, later):
            return _Value(node)
        temp = "__t%d" % next(self.numbers)
        out.append(_at(ast.Assign(targets=[ast.Name(id=temp, ctx=ast.Store())], value=node), origin))
        return _Value(ast.Name(id=temp, ctx=ast.Load()))

    def _inert(self, node, later):
        """Whether ``node`` has no effects and reads the same until the function ends."""
        if isinstance(node, ast.Tuple):
            return all(self._inert(elt, later) for elt in node.elts)
        return isinstance(node, ast.Constant) or (isinstance(node, ast.Name) and node.id not in later
                                                   and node.id not in self.cells)

    def call(self, node, lists, later, out, origin):
        """A call whose callee or positional arguments come from followed lists, written
        with them spelled out."""
        if node.keywords and any(_names(k) & lists.keys() for k in node.keywords):
            raise _Unfollowed
        before = len(out)
        func = self.value(node.func, lists, later, out, origin)
        plain = [node.func] if func is None else []
        args = []
        for arg in node.args:
            found = self.value(arg.value if isinstance(arg, ast.Starred) else arg, lists, later, out, origin)
            if found is None:
                args.append(arg)
                plain.append(arg)
            elif isinstance(arg, ast.Starred):
                if not isinstance(found, _List) or found.escaped:
                    raise _Unfollowed
                args += [self.written(v) for v in found]
            else:
                args.append(self.written(found))
        plain += [k.value for k in node.keywords]
        if len(out) > before and not all(isinstance(p, ast.Constant) or (isinstance(p, ast.Name) and _TEMP.match(p.id))
                                         for p in plain):
            raise _Unfollowed      # an item computed first would now come before these
        return ast.Call(func=node.func if func is None else self.written(func), args=args, keywords=node.keywords)

    def written(self, held):
        """``held`` as an expression; a list is written out as a display once, and not
        followed after."""
        if isinstance(held, _Value):
            return copy.deepcopy(held.node)
        if held.escaped:
            raise _Unfollowed
        held.escaped = True
        return ast.List(elts=[self.written(v) for v in held], ctx=ast.Load())

    def _splice(self, holder, where, items):
        if holder.escaped or not isinstance(items, _List):
            raise _Unfollowed
        holder[self._bounds(where)] = list(items)

    @staticmethod
    def _bounds(where):
        parts = [where.lower, where.upper]
        if where.step is not None or not all(p is None or _is_int(p) for p in parts):
            raise _Unfollowed
        return slice(*[None if p is None else _int(p) for p in parts])

    @staticmethod
    def _index(holder, index):
        if holder.escaped or not _is_int(index) or not -len(holder) <= _int(index) < len(holder):
            raise _Unfollowed
        return _int(index)


def _is_int(node):
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        node = node.operand
    return isinstance(node, ast.Constant) and type(node.value) is int


def _int(node):
    return -node.operand.value if isinstance(node, ast.UnaryOp) else node.value


# -- smaller rewrites ----------------------------------------------------------------
def _loads(fn):
    counts = {}
    for node in ast.walk(fn):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            counts[node.id] = counts.get(node.id, 0) + 1
    return counts


class _Substitute(ast.NodeTransformer):
    """Reads of the names in ``values`` replaced by those expressions; the ``:=`` in
    ``unwrap`` written as their values; the statements in ``drop`` left out."""

    def __init__(self, values=(), unwrap=(), drop=()):
        self.values, self.unwrap, self.drop = dict(values), set(unwrap), set(map(id, drop))

    def visit_Name(self, node):
        if isinstance(node.ctx, ast.Load) and node.id in self.values:
            return copy.deepcopy(self.values[node.id])
        return node

    def visit_NamedExpr(self, node):
        node = self.generic_visit(node)
        return node.value if node.target.id in self.unwrap else node

    def generic_visit(self, node):
        for field, old in ast.iter_fields(node):
            if isinstance(old, list) and old and isinstance(old[0], ast.stmt):
                setattr(node, field, [s for s in old if id(s) not in self.drop])
        return super().generic_visit(node)


def _stores(fn, name):
    return [n for n in ast.walk(fn) if isinstance(n, ast.Name) and n.id == name and not isinstance(n.ctx, ast.Load)]


def _deletes(fn, name):
    """The ``del name`` statements, if each deletes ``name`` alone (else None)."""
    found = [s for s in ast.walk(fn) if isinstance(s, ast.Delete) and [t.__class__ for t in s.targets] == [ast.Name]
             and s.targets[0].id == name]
    return found if len(found) == len(_stores(fn, name)) - 1 else None


def _profiler_marks(fn):
    """``tmp_1 = utils.record_pregraph_bytecode_enter; tmp_2 = tmp_1(); del tmp_1`` as
    ``tmp_2 = utils.record_pregraph_bytecode_enter()``, and ``(tmp := mark)()`` as ``mark()``."""
    loads, values, unwrap, drop = _loads(fn), {}, set(), []
    for block in _blocks(fn):
        for i, stmt in enumerate(block):
            if _is_mark_binding(stmt) and i + 1 < len(block):
                name, deletes = stmt.targets[0].id, _deletes(fn, stmt.targets[0].id)
                if loads.get(name) == 1 and name in _names(block[i + 1], ast.Load) and deletes is not None:
                    values[name] = stmt.value
                    drop += [stmt] + deletes
    for node in ast.walk(fn):
        if isinstance(node, ast.NamedExpr) and _is_mark(node.value) and loads.get(node.target.id, 0) == 0:
            deletes = _deletes(fn, node.target.id)
            if deletes is not None:
                unwrap.add(node.target.id)
                drop += deletes
    if not (values or unwrap):
        return False
    _Substitute(values, unwrap, drop).visit(fn)
    return True


def _conditional_marks(fn):
    """Marks made only while the profiler runs (torch 2.15's transformed code; 2.13's makes
    them always, :func:`_profiler_marks`)::

        tmp_3 = profiler._is_profiler_enabled
        tmp_2 = utils
        tmp_1 = None
        if tmp_3:
            tmp_1 = tmp_2.record_pregraph_bytecode_enter()
        ... tmp_2.record_pregraph_bytecode_exit(tmp_1)

    as ``tmp_1 = utils.record_pregraph_bytecode_enter() if profiler._is_profiler_enabled
    else None`` and ``utils.record_pregraph_bytecode_exit(tmp_1)``: the flag (an
    attribute of a global, read once, by the ``if``) is read where the ``if`` tests it,
    after stores of no effect; the module (a Dynamo global, never rebound) where each
    mark is called."""
    loads, stores, values, drop = _loads(fn), _stored_counts(fn), {}, []
    for block in _blocks(fn):
        for i in range(3, len(block)):
            found = _conditional_enter(block[i - 3:i + 1], loads, stores)
            if found is None:
                continue
            (flag, module, target, test), (first, second, third, branch) = found
            values[module.targets[0].id] = module.value
            branch.body[0].value = ast.IfExp(test=flag.value, body=branch.body[0].value,
                                             orelse=ast.Constant(value=None))
            block[i] = _at(branch.body[0], branch)
            drop += [first, second, third]
    if not values:
        return False
    _Substitute(values, drop=drop).visit(fn)
    return True


def _conditional_enter(window, loads, stores):
    """The four statements of :func:`_conditional_marks`' ``if`` and the three stores
    before it (in any order), as (flag store, module store, ``None`` store, the if) and
    as written; else None."""
    *before, branch = window
    if not (isinstance(branch, ast.If) and not branch.orelse and len(branch.body) == 1
            and isinstance(branch.test, ast.Name) and _is_mark_call(branch.body[0], "record_pregraph_bytecode_enter")):
        return None
    enter = branch.body[0]
    target, module_name = enter.targets[0].id, enter.value.func.value.id
    by_target = {s.targets[0].id: s for s in before if isinstance(s, ast.Assign) and len(s.targets) == 1
                 and isinstance(s.targets[0], ast.Name)}
    flag, module, none = by_target.get(branch.test.id), by_target.get(module_name), by_target.get(target)
    if None in (flag, module, none) or len({flag.targets[0].id, module_name, target}) != 3:
        return None
    if not (isinstance(none.value, ast.Constant) and none.value.value is None and stores.get(target) == 2
            and isinstance(flag.value, ast.Attribute) and isinstance(flag.value.value, ast.Name)
            and made_globals.never_rebound(flag.value.value.id) and loads.get(flag.targets[0].id) == 1
            and stores.get(flag.targets[0].id) == 1 and isinstance(module.value, ast.Name)
            and made_globals.never_rebound(module.value.id) and stores.get(module_name) == 1):
        return None
    return (flag, module, none, branch), tuple(window)


def _is_mark_call(stmt, mark):
    """Whether ``stmt`` is ``name = local.mark()``."""
    return isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name) \
        and isinstance(stmt.value, ast.Call) and isinstance(stmt.value.func, ast.Attribute) \
        and stmt.value.func.attr == mark and isinstance(stmt.value.func.value, ast.Name)


def _stored_counts(fn):
    counts = {}
    for node in ast.walk(fn):
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            counts[node.id] = counts.get(node.id, 0) + 1
    return counts


def _is_mark(node):
    return isinstance(node, ast.Attribute) and node.attr in _PROFILER_MARKS


def _is_mark_binding(stmt):
    return isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name) \
        and _is_mark(stmt.value)


def _blocks(fn):
    for node in ast.walk(fn):
        for _, value in ast.iter_fields(node):
            if isinstance(value, list) and value and isinstance(value[0], ast.stmt):
                yield value


def _argument_aliases(fn):
    """``(tmp_1 := self).weight ... tmp_1.bias`` as ``self.weight ... self.bias``: a local
    Dynamo binds once to an argument the code never assigns."""
    arguments = {a.arg for a in fn.args.posonlyargs + fn.args.args + fn.args.kwonlyargs + [fn.args.vararg,
                                                                                          fn.args.kwarg] if a}
    stored = _names(fn, (ast.Store, ast.Del))
    values, unwrap, drop = {}, set(), []
    for node in ast.walk(fn):
        if isinstance(node, ast.NamedExpr) and isinstance(node.value, ast.Name) \
                and node.value.id in arguments and node.value.id not in stored:
            deletes = _deletes(fn, node.target.id)
            if deletes is not None and not any(isinstance(n, (ast.FunctionDef, ast.Lambda, ast.AsyncFunctionDef))
                                               and node.target.id in _names(n) for n in ast.walk(fn) if n is not fn):
                values[node.target.id] = node.value
                unwrap.add(node.target.id)
                drop += deletes
    if not values:
        return False
    _Substitute(values, unwrap, drop).visit(fn)
    return True


def _dynamo_globals_inlined(fn):
    """``__t0 = __compiled_fn_3; ...; out = __t0(x)`` as ``out = __compiled_fn_3(x)``:
    a temporary holding a Dynamo global, read once, further on in its own block."""
    loads, values, drop = _loads(fn), {}, []
    for block in _blocks(fn):
        for i, stmt in enumerate(block):
            if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name) \
                    and isinstance(stmt.value, ast.Name) and made_globals.never_rebound(stmt.value.id):
                name = stmt.targets[0].id
                if _TEMP.match(name) and loads.get(name) == 1 and len(_stores(fn, name)) == 1 \
                        and any(name in _names(s) for s in block[i + 1:]):
                    values[name] = stmt.value
                    drop.append(stmt)
    if not values:
        return False
    _Substitute(values, drop=drop).visit(fn)
    return True


def _declared_locals_dropped(fn):
    last = fn.body[-1] if fn.body else None
    if isinstance(last, ast.If) and isinstance(last.test, ast.Constant) and last.test.value is False \
            and not last.orelse and all(isinstance(s, ast.Assign) and isinstance(s.value, ast.Constant)
                                        and s.value.value is None for s in last.body) and len(fn.body) > 1:
        fn.body = fn.body[:-1]
        return True
    return False


def _inert_temporaries_dropped(fn):
    """Drop ``__t4 = [[*[]]]``: a temporary nothing reads, holding a value built of
    displays and constants alone (Dynamo's code leaves one on the stack under its return),
    which computing has no effect."""
    read = _names(fn, ast.Load)
    dropped = False
    for owner, field in [(fn, "body")] + statement_lists(fn.body):
        kept = [st for st in getattr(owner, field) if not _inert_temporary(st, read)]
        if kept and len(kept) < len(getattr(owner, field)):
            setattr(owner, field, kept)
            dropped = True
    return dropped


def _inert_temporary(st, read):
    return isinstance(st, ast.Assign) and len(st.targets) == 1 and isinstance(st.targets[0], ast.Name) \
        and _TEMP.match(st.targets[0].id) and st.targets[0].id not in read and _inert(st.value)


def _inert(node):
    """Whether evaluating ``node`` can do nothing but build it: constants, and displays,
    starred or not, of such."""
    if isinstance(node, ast.Constant):
        return True
    if isinstance(node, (ast.List, ast.Tuple)):
        return all(_inert(e) for e in node.elts)
    if isinstance(node, ast.Starred):
        return isinstance(node.value, (ast.List, ast.Tuple)) and _inert(node.value)
    hashed = node.elts if isinstance(node, ast.Set) else node.keys if isinstance(node, ast.Dict) else None
    return hashed is not None and all(isinstance(k, ast.Constant) for k in hashed) \
        and all(_inert(v) for v in getattr(node, "values", ()))


class _InReadingOrder(ast.NodeVisitor):
    def __init__(self):
        self.order = []

    def visit_Name(self, node):
        if _TEMP.match(node.id) and node.id not in self.order:
            self.order.append(node.id)


def _temporaries_renumbered(fn):
    reader = _InReadingOrder()
    reader.visit(fn)
    renamed = {old: "__t%d" % i for i, old in enumerate(reader.order)}
    if all(old == new for old, new in renamed.items()):
        return False
    for node in ast.walk(fn):
        if isinstance(node, ast.Name) and node.id in renamed:
            node.id = renamed[node.id]
    return True
