"""Code objects as ``def``/``lambda``/``class``/comprehension nodes.

A :class:`FunctionContext` decompiles one code object; nested code objects
(functions, lambdas, classes, comprehensions) get contexts of their own,
sharing the :class:`Bindings` of placeholder names for non-literal constants.
"""
import ast
import collections
import inspect
import itertools
import types

from ..bytecode import decoder, facts
from ..bytecode.canonical import normalise
from ..bytecode.code_objects import argument_count, ends_in_dead_return, globals_shadowed, identifier, \
    is_class_body, is_scope, own_names
from ..errors import DecompilationError
from ..fallback import statemachine
from ..graph import unbound
from ..graph.cfg import Graph
from ..graph.rewrites import share_returns
from ..structure import stackitems as si, unpacks
from ..structure.loops import _generators, rewrite_guarded_while
from ..structure.stackitems import const, name
from ..structure.structurer import Structurer, last_return_in_else
from ..structure.waiting import WaitingValues
from ..syntax.astwalk import children
from ..syntax.depth import deeply
from ..syntax.notes import Notes
from . import generics
from .classes import FUTURE_ANNOTATIONS, SCOPES, ClassBuild, without_copied_returns
from .bodies import check_single_use, returned_conditionals, returns_none, with_asserts, without_implicit_returns
from .parameters import annotation_map, place_parameters, signature
from .values import SignatureValues, is_literal

COMPREHENSIONS = {"<listcomp>", "<setcomp>", "<dictcomp>", "<genexpr>"}

class Lowering(collections.namedtuple("Lowering", "name line reason")):
    """A code object written as a state machine: its qualified name (``co_qualname``
    from 3.11, else ``co_name``), its first line, and why structuring refused it."""


class Bindings:
    """What the code objects of one decompilation share: placeholder names for objects
    that have no literal form (Dynamo's co_consts), which code objects were lowered
    to the state machine (``lowered``: id of a code object -> (it, :class:`Lowering`), in
    order: Dynamo's code may hold a dict constant, and is then unhashable), and
    the clock that orders the values computed and the statements written (``clock``),
    and what is known of their nodes beyond the ``ast`` fields (``notes``).
    ``described``: placeholder name -> what it stands for, for those a function
    object's signature binds (``the default of key, a list of 2 items (it contains
    itself)``)."""

    def __init__(self, prefix="__unveil_"):
        self.names = {}
        self.described = {}
        self._by_id = {}
        self.prefix = prefix
        self.lowered = {}
        self.clock = itertools.count()
        self.notes = Notes()

    def forget_lowerings_since(self, mark):
        """Drop the lowerings recorded after the first ``mark``: they belonged to an
        attempt that failed (its output is not used)."""
        for key in list(self.lowered)[mark:]:
            del self.lowered[key]

    def name_for(self, value):
        key = id(value)
        if key not in self._by_id:
            base = getattr(value, "__name__", None) or type(value).__name__
            base = "".join(c if c.isalnum() or c == "_" else "_" for c in str(base))
            ident = "%s%s_%d" % (self.prefix, base, len(self.names))
            self._by_id[key] = ident
            self.names[ident] = value
        return self._by_id[key]


class FunctionContext:
    """Decompiles one code object."""

    def __init__(self, code, bindings=None):
        self.code = code
        self.bindings = bindings if bindings is not None else Bindings()
        self.globals = set()
        self.nonlocals = set()
        self.has_annotations = False
        self.instrs = None   # the normalised instructions, once statements() ran
        self.raw = None      # the instructions as decoded, likewise
        self.spill_copies = False   # copy stack values through temporaries (Dynamo's bytecode)
        self.share_returns = False  # every return a jump to the last one (a lambda's expression)
        self.evaluated = False      # module-level code compiled as ``eval``: its returns are its value
        self._temps = set()
        self._taken = None   # the code's own names, which a temporary must not be
        self._stable = None  # see stable_names()
        self._graph = None   # the control-flow graph, shared by the structuring attempts
        self._on_line = None  # see positions_on_line()
        self._free = None    # see _free_names()
        self._unbound = None  # see may_be_unbound
        # the class whose private names (``__x``, compiled as ``_C__x``) this code's text is
        # written inside of: set only for code nested in a class body of the same text, never
        # for a method decompiled on its own (its text is compiled outside the class)
        self.private_class = None

    # -- what the simulator asks ---------------------------------------------
    @property
    def may_be_unbound(self):
        """The locals some load of which may find unbound (3.12+: LOAD_FAST_CHECK; before,
        found by a definitely-bound analysis of the instructions): a load of one may raise."""
        if self._unbound is None:
            if facts.UNBOUND_LOADS_MARKED:
                self._unbound = {ins.argval for ins in self.instrs if ins.may_be_unbound}
            else:
                self._unbound = unbound.maybe_unbound(
                    self.instrs, self.code.co_varnames[:argument_count(self.code)])
        return self._unbound

    def positions_on_line(self, line):
        """The positions of the normalised instructions on ``line``, in order."""
        if self._on_line is None:
            self._on_line = {}
            for ins in self.instrs:
                self._on_line.setdefault(ins.line, []).append(ins.index)
        return self._on_line.get(line, ())

    def constant(self, value):
        if isinstance(value, types.CodeType):
            return si.CodeConstant(value, self.bindings)
        if is_literal(value):
            return const(value)
        return name(self.bindings.name_for(value))

    identifier = staticmethod(identifier)

    def has_locals(self):
        return bool(self.code.co_flags & inspect.CO_NEWLOCALS)

    def stable(self, value):
        """Whether a stack value reads the same whenever it is evaluated, until a
        store to it: a constant, or a fast local (temporaries included)."""
        cls = type(value)
        if cls is ast.Constant:
            return True
        return cls is ast.Name and value.id in self.stable_names()

    def stable_names(self):
        """The names that :meth:`stable` accepts: the fast locals and the temporaries
        (none where the scope has no locals)."""
        if self._stable is None:
            cells = set(self.code.co_cellvars)
            self._stable = {identifier(n) for n in self.code.co_varnames if n not in cells} \
                if self.has_locals() else set()
        return self._stable

    def is_temporary(self, ident):
        return ident in self._temps

    def temporary(self):
        """A new local name for a value Dynamo keeps on the stack across a statement."""
        if self._taken is None:
            self._taken = set(self.code.co_varnames + self.code.co_cellvars + self.code.co_freevars
                              + self.code.co_names)
        n = len(self._temps)
        while "__t%d" % n in self._taken or "__t%d" % n in self._temps:
            n += 1
        self._temps.add("__t%d" % n)
        if self.has_locals():
            self.stable_names().add("__t%d" % n)
        return "__t%d" % n

    def forget_temporary(self, ident):
        """Give up temporary ``ident``, made last: its value went into a local of the code."""
        self._temps.discard(ident)
        self.stable_names().discard(ident)

    def _drop_temporaries(self):
        """Forget the temporaries of a failed structuring attempt: the next one numbers
        its own from ``__t0``."""
        self.stable_names().difference_update(self._temps)
        self._temps = set()

    def declare_global(self, ident):
        """A name the code stores or deletes as a global: a ``global`` statement in a
        function or a class body (a module's names are its globals already)."""
        if self.has_locals() or is_class_body(self.code):
            self.globals.add(ident)

    def declare_nonlocal(self, ident):
        if ident in self._free_names():
            self.nonlocals.add(ident)

    def _free_names(self):
        """The code's free variables, as a set (3.11+ build ``co_freevars`` anew at each
        reading)."""
        if self._free is None:
            self._free = frozenset(self.code.co_freevars)
        return self._free

    def discard(self, frame, marker):
        if isinstance(marker, (si.LoopItem, si.WithValue, si.Exc, si.AsyncItem)):
            frame.emit(si.Discard(value=marker))

    def call(self, frame, func, args, keywords):
        if isinstance(func, si.BuildClass):
            build = ClassBuild(self, args, keywords)
            build.head_line = frame.at_line
            return frame.push(build)
        if isinstance(func, si.Function) and is_scope(func.code):
            return frame.push(generics.definition(self, func, args))
        if isinstance(func, si.Function) and func.code.co_name in COMPREHENSIONS and len(args) == 1:
            return frame.push(self.comprehension(func, args[0]))
        if len(args) == 1 and not keywords and isinstance(args[0], (si.Function, ClassBuild)) \
                and not _is_lambda(args[0]):
            args[0].decorators.insert(0, si.as_expr(func))   # a lambda decorator is its expression
            args[0].decorator_lines.insert(0, frame.at_line if facts.DECORATOR_CALLED_ON_ITS_LINE else None)
            return frame.push(args[0])
        frame.push(ast.Call(func=si.as_expr(func), args=[si.as_expr(a) for a in args],
                            keywords=[ast.keyword(arg=k.arg, value=si.as_expr(k.value)) for k in keywords]))

    def make_function(self, frame, ins):
        flags, has_qualname = ins.argval if isinstance(ins.argval, tuple) else (ins.arg or 0, False)
        if has_qualname:
            frame.pop_raw()
        code_node = frame.pop_raw()
        code = code_node.code if isinstance(code_node, si.CodeConstant) else None
        if code is None:
            raise DecompilationError("MAKE_FUNCTION without a code object")
        fn = si.Function(code)
        fn.ctx = self
        fn.head_line = frame.at_line
        if flags & 8:
            fn.closure = frame.pop()
        if flags & 4:
            fn.annotations = unpacks.starred_annotations(frame, frame.pop())
        if flags & 2:
            fn.kwdefaults = frame.pop()
        if flags & 1:
            fn.defaults = self.bound_tuple_as_display(frame.pop())
        frame.push(fn)

    def bound_tuple_as_display(self, node):
        """A tuple constant bound as a placeholder (Dynamo's defaults holding an object with
        no source form) as the display of its items, which a ``def`` writes one by one."""
        value = self.bindings.names.get(node.id) if isinstance(node, ast.Name) else None
        if type(value) is tuple:
            return ast.Tuple(elts=[si.as_expr(self.constant(v)) for v in value], ctx=ast.Load())
        return node

    def nested_def(self, code, def_name):
        """A ``def`` named ``def_name`` for nested ``code`` (the state machine's functions)."""
        fn = si.Function(code)
        fn.ctx = self
        return function_def(fn, def_name=def_name)

    def lambda_value(self, fn):
        """The ``lambda`` expression of a lambda function on the stack."""
        return lambda_expr(fn)

    def type_param_node(self, param):
        """The ``ast`` node of a PEP 695 type parameter on the stack."""
        return generics.type_param_node(param)

    def subcontext(self, code):
        """The context decompiling ``code``, nested in this one's (the same bindings)."""
        sub = FunctionContext(code, self.bindings)
        sub.private_class = code.co_name if is_class_body(code) else self.private_class
        return sub

    def attribute(self, attr):
        """``attr`` as the text writes it: ``__x`` for ``_C__x`` inside class ``C``, as the
        source had it (3.13's ``__static_attributes__`` records the name unmangled)."""
        cls = (self.private_class or "").lstrip("_")
        prefix = "_%s__" % cls
        if cls and attr.startswith(prefix) and len(attr) > len(prefix) and not attr.endswith("__"):
            return attr[len(prefix) - 2:]
        return attr

    def private_name(self, ident):
        """``ident`` as a class body's text stores it: ``_C__x`` for ``__x`` in the body of
        class ``C`` (decompiled inside its class statement, or on its own: it is
        recompiled inside ``class C:``), and in the code nested in it."""
        cls = self.private_class or (self.code.co_name if is_class_body(self.code) else None)
        cls = (cls or "").lstrip("_")
        if cls and ident.startswith("__") and not ident.endswith("__"):
            return "_%s%s" % (cls, ident)
        return ident

    def define(self, frame, target, value):
        """Store of a function, class or import: the statement that makes it."""
        plain = isinstance(target, ast.Name)
        if isinstance(value, si.Function):
            if value.code.co_name == "<lambda>" or not plain \
                    or target.id not in (value.code.co_name, self.private_name(value.code.co_name)):
                frame.emit(ast.Assign(targets=[target], value=lambda_expr(value) if value.code.co_name == "<lambda>"
                                      else _def_then_name(frame, value)))
                return
            frame.emit(function_def(value))
            return
        if isinstance(value, ClassBuild):
            if plain and target.id in (value.name, self.private_name(value.name)):
                frame.emit(value.node())
            else:
                frame.emit(value.node())
                frame.emit(ast.Assign(targets=[target], value=name(value.name)))
            return
        if isinstance(value, si.TypeParam):
            return generics.bind_type_param(target, value)
        if isinstance(value, si.TypeAlias):
            return frame.emit(generics.alias_statement(target, value))
        stmt = _import_statement(frame.notes, target, value)
        if isinstance(stmt, ast.ImportFrom):
            module = _import_module(frame.notes, value)
            last = frame.out[-1] if frame.out else None
            if isinstance(last, ast.ImportFrom) and frame.notes.import_of.get(last) is module:
                last.names += stmt.names   # ``from m import a, b``: the names one import binds
                frame.line = None          # as a statement put: the next begins on its own line
                return
            frame.notes.import_of.set(stmt, module)
        frame.emit(stmt)

    # -- results ----------------------------------------------------------------
    def statements(self):
        """The body as statements: structured, or failing that an explicit state machine.

        Only a deliberate refusal (``DecompilationError``: "this shape is not
        structurable") leads to the second attempt and to the state machine; any
        other exception is a bug in unveil and propagates.  A lowering is recorded
        in ``bindings.lowered`` with the refusal that caused it."""
        normalised = normalise(self.code)
        self.instrs, self.raw = normalised.instrs, normalised.raw
        if self.share_returns:
            share_returns(self.instrs)
        if is_scope(self.code):   # on its own: the code defining it calls it at once
            return generics.scope_statements(self)
        mark = len(self.bindings.lowered)

        def structured():
            # (deep enough for whatever the compiler compiles: an attempt that recursed
            # too deeply, comparing a long sum by ``ast.dump``, is made again deeper)
            self.bindings.forget_lowerings_since(mark)
            return self._structured()

        try:
            return deeply(structured)
        except DecompilationError as exc:
            first = exc
        self.bindings.forget_lowerings_since(mark)
        if self.has_locals() and (any(ins.op == "COPY" for ins in self.instrs) or isinstance(first, WaitingValues)):
            # a value copied and used twice, or one waiting across a statement that changes
            # it: try again with temporaries
            self.spill_copies = True
            try:
                return deeply(structured)
            except DecompilationError:
                self.bindings.forget_lowerings_since(mark)
        self.globals, self.nonlocals = set(), set()
        try:
            stmts = deeply(lambda: statemachine.lower(self))
        except DecompilationError:
            self.bindings.forget_lowerings_since(mark)
            raise first from None
        self.bindings.lowered[id(self.code)] = (self.code, Lowering(
            getattr(self.code, "co_qualname", self.code.co_name), self.code.co_firstlineno, str(first)))
        return stmts

    def _structured(self):
        self.globals, self.nonlocals = set(), set()
        self._drop_temporaries()
        if self._graph is None:
            self._graph = Graph(list(self.instrs))
        else:
            self._graph.reset_loops()   # the attempt before may have changed them
        stmts = rewrite_guarded_while(Structurer(self, self._graph).body())
        if self.has_locals() and ends_in_dead_return(self.raw):
            last_return_in_else(stmts)
        stmts = returned_conditionals(self.bindings.notes, stmts)
        returns = self.has_locals() or self.evaluated
        stmts = with_asserts(self.bindings.notes, without_implicit_returns(self.bindings.notes, stmts, function=returns))
        if not returns:
            stmts = without_copied_returns(stmts)
        check_single_use(stmts, self.bindings.notes)
        return stmts

    def comprehension(self, fn, iterable):
        sub = FunctionContext(fn.code, self.bindings)
        sub.private_class = self.private_class
        stmts = sub.statements()
        arg = iterable.expr if isinstance(iterable, si.Iter) else iterable
        node = _comprehension_node(fn.code.co_name, stmts, self.bindings.notes)
        if node is None:
            raise DecompilationError("cannot rebuild %s" % fn.code.co_name)
        node.generators[0].iter = arg
        if fn.code.co_flags & inspect.CO_COROUTINE:
            self.bindings.notes.awaited_call.set(node, True)  # 3.11 awaits an async comprehension's function
        return node


def _is_lambda(defn):
    """A lambda passed to a call is an argument, never a decorated ``def``."""
    return isinstance(defn, si.Function) and defn.code.co_name == "<lambda>"


def _comprehension_node(kind, stmts, notes):
    if kind == "<genexpr>":
        loops = [s for s in stmts if isinstance(s, (ast.For, ast.AsyncFor))]
        if len(loops) != 1:
            return None
        marker = ast.Set(elts=[])
        _replace_yields(loops[0], marker, notes)
        gens, elt = _generators(loops[0], marker, notes)
        if gens is None:
            return None
        return ast.GeneratorExp(elt=elt[0], generators=gens)
    if len(stmts) == 1 and isinstance(stmts[0], ast.Return) and isinstance(
            stmts[0].value, (ast.ListComp, ast.SetComp, ast.DictComp)):
        return stmts[0].value
    return None


def _replace_yields(node, marker, notes):
    """Turn ``yield x`` statements of a generator expression into fills of ``marker``
    (on the yield's line)."""
    for parent in ast.walk(node):
        for field in ("body", "orelse"):
            body = getattr(parent, field, None)
            if not isinstance(body, list):
                continue
            for i, st in enumerate(body):
                if isinstance(st, ast.Expr) and isinstance(st.value, ast.Yield):
                    body[i] = notes.copy(st, si.Appended(target=marker, value=st.value.value or const(None),
                                                         key=None))


# --- functions and classes as statements -------------------------------------


def signature_values(fn, func, bindings, owner=""):
    """Give ``fn`` (a :class:`~unveil.structure.stackitems.Function` for ``func.__code__``) the
    defaults, keyword-only defaults and annotations of the function object ``func``,
    as MAKE_FUNCTION would have pushed them: a code object alone has none, a function
    object carries them.  Each value is written as :mod:`.values` says; a bound one is
    described as the default or annotation it is (``owner`` after the parameter:
    `` of a lambda default``)."""
    values = SignatureValues(func, bindings, _lambda_of)

    def mapping(d, role):
        return ast.Dict(keys=[const(k) for k in d], values=[values.expr(v, role(k) + owner) for k, v in d.items()])

    code = func.__code__
    defaults = (func.__defaults__ or ())[-code.co_argcount:] if code.co_argcount else ()
    if defaults:          # (set by hand, __defaults__ may be longer than the parameters it can fill)
        named = code.co_varnames[code.co_argcount - len(defaults):code.co_argcount]
        fn.defaults = ast.Tuple(elts=[values.expr(v, "the default of %s%s" % (n, owner))
                                      for n, v in zip(named, defaults)], ctx=ast.Load())
    if func.__kwdefaults__:
        fn.kwdefaults = mapping(func.__kwdefaults__, lambda k: "the default of %s" % k)
    annotations = getattr(func, "__annotations__", None)
    if isinstance(annotations, dict) and annotations:
        fn.annotations = mapping(annotations, lambda k: "the return annotation" if k == "return"
                                 else "the annotation of %s" % k)


def _lambda_of(v, func, bindings):
    """The ``lambda`` expression of the lambda function ``v``, its own defaults included."""
    lam = si.Function(v.__code__)
    lam.ctx = FunctionContext(func.__code__, bindings)
    signature_values(lam, v, bindings, " of a lambda default")
    return lambda_expr(lam)


def function_def(fn, def_name=None, bindings=None):
    """``def``/``async def`` node for a :class:`~unveil.structure.stackitems.Function`."""
    code = fn.code
    sub = FunctionContext(code, bindings if bindings is not None else fn.ctx.bindings)
    sub.private_class = fn.ctx.private_class if fn.ctx is not None else None
    body = sub.statements()
    decls = []
    globals_ = sub.globals | _globals_past_enclosing_bindings(code, fn.ctx.code if fn.ctx is not None else None)
    if globals_:
        decls.append(ast.Global(names=sorted(globals_)))
    nonlocals = sub.nonlocals | {identifier(n) for n in _stored_by_comprehensions(code) | _unused_free(code)}
    if nonlocals:
        decls.append(ast.Nonlocal(names=sorted(nonlocals)))
    body = _docstring(code, sub.instrs) + decls + body   # a docstring first, or it is none
    future = bool(fn.ctx.code.co_flags & FUTURE_ANNOTATIONS) if fn.ctx is not None else False
    args = signature(code, fn.defaults, fn.kwdefaults, fn.annotations, future)
    returns = annotation_map(fn.annotations, future).get("return")
    place_parameters(args, returns, fn, sub.bindings.notes)
    if code.co_flags & (inspect.CO_GENERATOR | inspect.CO_ASYNC_GENERATOR) or _returns_only_none(body):
        _bare_returns(body)
    if code.co_flags & (inspect.CO_GENERATOR | inspect.CO_ASYNC_GENERATOR) and not _contains_yield(body):
        body = body + [ast.If(test=const(False), body=[ast.Expr(value=ast.Yield(value=None))], orelse=[])]
    lost = _lost_locals(code, body, sub)
    if lost:
        # assigned only in code the compiler removed (after ``while True:``): still locals
        body = body + facts.dead_code([ast.Assign(targets=[name(n, store=True) for n in lost],
                                                     value=const(None))], body)
    cls = ast.AsyncFunctionDef if code.co_flags & (inspect.CO_COROUTINE | inspect.CO_ASYNC_GENERATOR) else ast.FunctionDef
    node = cls(name=def_name or code.co_name, args=args, body=body or [ast.Pass()],
               decorator_list=list(fn.decorators), returns=returns, type_comment=None)
    node.type_params = getattr(fn, "type_params", [])
    sub.bindings.notes.def_code.set(node, code)
    fn.note_decorator_lines(sub.bindings.notes, node)
    return node


#: the function a closure decompiled on its own is written in, so that its free variables
#: (which ``nonlocal`` needs) are bound in source: ``recompile`` looks through it
ENCLOSING_SCOPE = "__enclosing_scope__"


def enclosing_scope(node, code):
    """``def __enclosing_scope__(): <free> = None; <node>; return <its name>``: a closure
    written on its own, its free variables the locals of the function around it (``node``
    a def, ``name = lambda ...``, or a bare lambda's ``lambda ...``, which it returns), for
    ``code``, the closure's code.

    The name a def binds there is a local of the function around it too.  Where ``code``
    reads that name as a global (a method calling the module's function of its own name,
    a generic function naming itself), the def declares it ``global`` and a lambda is
    returned bare, so that the name still reads the module's binding, as it did."""
    freevars = code.co_freevars
    body = [ast.Assign(targets=[name(identifier(n), store=True) for n in freevars], value=const(None))]
    if isinstance(node, ast.Expr):
        inner = [ast.Return(value=node.value)]
    else:
        made = node.targets[0].id if isinstance(node, ast.Assign) else node.name
        if not globals_shadowed(code, {made}):
            inner = [node, ast.Return(value=name(made))]
        elif isinstance(node, ast.Assign):
            inner = [ast.Return(value=node.value)]
        else:
            _declare_global(node, code, made)
            inner = [node, ast.Return(value=name(made))]
    outer = ast.FunctionDef(name=ENCLOSING_SCOPE, args=si.no_arguments(), decorator_list=[], returns=None,
                            type_comment=None, body=body + inner)
    outer.type_params = []
    return outer


def _globals_past_enclosing_bindings(code, parent):
    """The names ``code`` (or code nested in it) reads as globals that the function ``parent``
    around it binds or sees: its text must declare them ``global``, or it would read that
    binding (``def f(): x = 5; def g(): global x; return x``: ``g`` read 5)."""
    if parent is None or not parent.co_flags & inspect.CO_NEWLOCALS or is_class_body(parent):
        return set()
    return globals_shadowed(code, own_names(parent))


def _declare_global(node, code, ident):
    """Declare ``ident`` global in the def ``node`` of ``code``: in its ``global``
    statement, or in one of its own after its docstring."""
    first = node.body[0] if node.body else None
    at = 1 if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and code.co_consts \
        and first.value.value is code.co_consts[0] and isinstance(code.co_consts[0], str) else 0
    if at < len(node.body) and isinstance(node.body[at], ast.Global):
        node.body[at].names = sorted(set(node.body[at].names) | {ident})
    else:
        node.body.insert(at, ast.Global(names=[ident]))


def _unused_free(code):
    """Free variables that no instruction of ``code`` loads, stores, deletes or passes on
    to nested code: declared ``nonlocal`` and never used (types._cell_factory's ``nonlocal
    a``).  Without the declaration the function would not close over them."""
    if not code.co_freevars:
        return set()
    used = {i.argval for i in decoder.read(code) if "DEREF" in i.opname or "CLOSURE" in i.opname}
    return {n for n in code.co_freevars if n not in used and n.isidentifier() and not n.startswith("__class")}


def _stored_by_comprehensions(code, cells=False):
    """Free variables of ``code`` that a comprehension in it binds (a walrus): in source
    the binding is ``code``'s, which must declare them ``nonlocal``.  (With ``cells``, its
    cell variables that one binds: in source, bound by ``code``.)"""
    found = set()
    names = set(code.co_cellvars if cells else code.co_freevars)
    if not names:
        return found
    for nested in code.co_consts:
        if isinstance(nested, types.CodeType) and nested.co_name in COMPREHENSIONS:
            stored = {i.argval for i in decoder.read(nested) if i.opname == "STORE_DEREF"}
            found |= (stored | _stored_by_comprehensions(nested)) & names
    return found


def _bound_names(body, wanted=None):
    """The names the statements bind in their own scope (the targets of comprehensions
    that run in it included).  Given ``wanted``, the walk (first statement first, where
    most names are bound first) stops once it found them all."""
    bound = set()
    todo = body[::-1]
    while todo:
        node = todo.pop()
        kind = type(node)
        if kind is ast.Name:     # (most nodes: by type first, the cheapest test)
            if type(node.ctx) is not ast.Load:
                bound.add(node.id)
                if wanted is not None and wanted <= bound:
                    break
            continue
        if kind is ast.Constant or kind is ast.Lambda:
            continue
        if kind in _DEFINITIONS:
            bound.add(node.name)
            todo += node.decorator_list
            continue
        if kind in _OWN_SCOPE_COMPREHENSIONS:
            # its targets are its own; a ``:=`` inside still binds here
            todo += [part for part in children(node) if not isinstance(part, ast.comprehension)]
            todo += [part for gen in node.generators for part in [gen.iter] + gen.ifs]
            continue
        if kind is ast.alias:
            bound.add((node.asname or node.name).split(".")[0])
        elif kind in _BINDS:
            named = getattr(node, _BINDS[kind], None)
            if named:
                bound.add(named)
        todo += children(node)
    return bound


_DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
#: node type -> the field naming what it binds, where set
_BINDS = {ast.ExceptHandler: "name", **{getattr(ast, kind): "name" for kind in ("MatchAs", "MatchStar")
                                         if hasattr(ast, kind)}}
if hasattr(ast, "MatchMapping"):
    _BINDS[ast.MatchMapping] = "rest"


#: comprehensions that are a scope of their own: generator expressions, and all of them before 3.12
_OWN_SCOPE_COMPREHENSIONS = (ast.GeneratorExp,) if facts.COMPREHENSIONS_INLINED else (
    ast.GeneratorExp, ast.ListComp, ast.SetComp, ast.DictComp)

_GLOBAL_NAME_OPS = {"LOAD_GLOBAL", "STORE_GLOBAL", "DELETE_GLOBAL", "LOAD_NAME", "STORE_NAME", "DELETE_NAME"}


def _lost_locals(code, body, ctx):
    """Locals of ``code`` that nothing in ``body`` binds any more (``ctx``: the context
    that made ``body``, with its instructions)."""
    nargs = argument_count(code)
    named = {ins.argval for ins in ctx.instrs if ins.op in _GLOBAL_NAME_OPS}  # not attribute names
    # (3.11+ build ``co_varnames`` anew at each reading: read once, not once a local)
    varnames, freevars = code.co_varnames, set(code.co_freevars)
    arguments = set(varnames[:nargs])
    candidates = [n for n in varnames[nargs:] + code.co_cellvars
                  if n.isidentifier() and n not in arguments and n not in named
                  and n not in freevars and n not in ctx.globals and n not in ctx.nonlocals]
    if not candidates:
        return []
    # only a name some instruction stores can be bound in the text: the others are lost
    # without a look at it.  A store that can run need not be in the text: a with whose
    # body cannot raise (``break``) has no way on past it but its exit's suppressing one,
    # and the code there is not written (3.10+: ``b`` bound only there, then loaded, was
    # read as a global: NameError for UnboundLocalError)
    # (a walrus in a comprehension, a code object of its own before 3.12, stores a cell of
    # this code's)
    stored = {ins.argval for ins in ctx.instrs
              if ins.op.startswith(("STORE_", "DELETE_")) or ins.op == "LOAD_FAST_AND_CLEAR"} \
        | _stored_by_comprehensions(code, cells=True)
    bound = _bound_names(body, set(candidates)) if stored.intersection(candidates) else ()
    return sorted(set(n for n in candidates if n not in bound))


def _own_nodes(body):
    """The nodes of ``body`` outside the scopes nested in it (a nested def, class or
    lambda is one of them, what it holds is not)."""
    todo = list(body)
    while todo:
        node = todo.pop()
        yield node
        if not isinstance(node, SCOPES):
            todo += children(node)


def _bare_returns(body):
    """``return None`` as ``return``: an async generator may not return a value, a
    generator's ``return`` ends it (the value is rarely what the source meant), and a
    function that returns nothing else is a procedure."""
    for node in _own_nodes(body):
        if isinstance(node, ast.Return) and returns_none(node):
            node.value = None


def _returns_only_none(body):
    """Whether every ``return`` in ``body`` (outside the scopes nested in it) returns
    ``None``: a procedure, whose source says ``return``."""
    return all(returns_none(n) for n in _own_nodes(body) if isinstance(n, ast.Return))


def _contains_yield(body):
    """Whether ``body`` yields (outside the scopes nested in it)."""
    return any(isinstance(n, (ast.Yield, ast.YieldFrom)) for n in _own_nodes(body))


def _docstring(code, instrs):
    """The docstring statement: co_consts[0], if a string the code (``instrs``, its
    normalised instructions) never loads itself."""
    if code.co_name == "<lambda>":
        return []
    doc = code.co_consts[0] if code.co_consts else None
    if isinstance(doc, str) and not any(ins.op == "LOAD_CONST" and ins.argval is doc for ins in instrs):
        return [ast.Expr(value=const(doc))]
    return []


def lambda_expr(fn):
    body, sub = returned_expression(lambda: fn.ctx.subcontext(fn.code), "lambda body")
    node = ast.Lambda(args=signature(fn.code, fn.defaults, fn.kwdefaults), body=body)
    sub.bindings.notes.def_code.set(node, fn.code)
    return node


def returned_expression(new_context, what):
    """``(expression, context)``: the one expression the code of ``new_context()`` returns
    (a lambda's body, an ``eval`` code's value), refused as ``what`` where it is none."""
    sub = new_context()
    mark = len(sub.bindings.lowered)
    body = _lambda_body(sub.statements())
    if body is None:
        # (3.8/3.9 return from the arms of its expression: once more, their returns
        # joined into the last one)
        sub.bindings.forget_lowerings_since(mark)
        sub = new_context()
        sub.share_returns = True
        body = _lambda_body(sub.statements())
        if body is None:
            raise DecompilationError("%s is not an expression" % what)
    return body, sub


def _lambda_body(stmts):
    """The expression a lambda's ``stmts`` return, or None."""
    if len(stmts) == 1 and isinstance(stmts[0], ast.Return) and stmts[0].value is not None:
        return stmts[0].value
    if not stmts:
        return const(None)
    if len(stmts) == 1 and isinstance(stmts[0], ast.Expr) and isinstance(stmts[0].value, ast.Yield):
        return stmts[0].value
    return _returns_as_expr(stmts)


def _returns_as_expr(stmts):
    """``if c: return a`` / ``return b`` as ``a if c else b`` (or ``c and a``, ``c or b``).

    3.12+ copies the ``RETURN_VALUE`` of a conditional expression into each
    arm, so a lambda such as ``lambda x: a if x else b`` comes back as
    statements.  None when ``stmts`` are not only such returns.
    """
    if not stmts:
        return const(None)
    first, rest = stmts[0], stmts[1:]
    if isinstance(first, ast.Return):
        return first.value if first.value is not None else const(None)
    if not isinstance(first, ast.If):
        return None
    test, body, orelse = first.test, first.body, first.orelse + rest
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        test, body, orelse = test.operand, orelse, body
    if _falls_through(first.body):
        return None
    yes, no = _returns_as_expr(body), _returns_as_expr(orelse)
    if yes is None or no is None:
        return None
    if no is test:
        return si.boolop(ast.And(), test, yes)
    if yes is test:
        return si.boolop(ast.Or(), test, no)
    return ast.IfExp(test=test, body=yes, orelse=no)


def _falls_through(stmts):
    last = stmts[-1] if stmts else None
    if isinstance(last, ast.Return):
        return False
    if isinstance(last, ast.If):
        return _falls_through(last.body) or _falls_through(last.orelse)
    return True


def _def_then_name(frame, fn):
    frame.emit(function_def(fn))
    return name(fn.code.co_name)


def _import_module(notes, value):
    """The IMPORT_NAME value an IMPORT_FROM value came from."""
    module = notes.imported_from.get(value)[0]
    while module not in notes.imported:  # ``import a.b.c as d`` walks a chain
        module = notes.imported_from.get(module)[0]
    return module


def _import_statement(notes, target, value):
    """``import a.b [as c]`` or ``from m import x [as y]`` from a store of an import."""
    local = target.id
    imp = notes.imported.get(value)
    if imp is not None:
        modname, _, level = imp
        asname = None if local == modname.split(".")[0] else local
        if asname is not None and "." not in modname and level == 0:
            return ast.Import(names=[ast.alias(name=modname, asname=asname)])
        if asname is None:
            return ast.Import(names=[ast.alias(name=modname, asname=None)])
        return ast.Import(names=[ast.alias(name=modname, asname=asname)])
    attr = notes.imported_from.get(value)[1]
    module = _import_module(notes, value)
    modname, fromlist, level = notes.imported.get(module)
    if not fromlist:
        return ast.Import(names=[ast.alias(name=modname, asname=local)])
    return ast.ImportFrom(module=modname or None, names=[ast.alias(name=attr, asname=None if attr == local else local)],
                          level=level)
