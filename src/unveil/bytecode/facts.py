"""Per-version facts about CPython bytecode and its compiler, in one place.

Everything that differs between 3.8 and 3.13 is named here; nothing else in the
package looks at ``sys.version_info``.  Imports nothing from the package.
"""
import ast
import opcode
import sys

PY = sys.version_info[:2]

#: Instructions with no effect on the decompiled program.
DROPPED = {"CACHE", "EXTENDED_ARG", "RESUME", "PRECALL", "NOP", "TO_BOOL", "MAKE_CELL",
           "COPY_FREE_VARS", "GEN_START", "ASYNC_GEN_WRAP", "NOT_TAKEN", "SETUP_ANNOTATIONS_NOOP"}

#: Whether exceptions are handled by a block stack (SETUP_* instructions), not a table
BLOCK_STACK = PY < (3, 11)

#: Whether ``CALL`` consumes a NULL-or-self slot below the callable.
CALL_HAS_NULL = PY >= (3, 11)

# --- how co_code encodes arguments (read by unveil.bytecode.decoder) ----------

#: bytes per unit of a jump's argument (3.10 counts code units)
JUMP_UNIT = 1 if PY < (3, 10) else 2

#: how far ``COMPARE_OP``'s argument is shifted past flag bits
COMPARE_SHIFT = {(3, 12): 4}.get(PY, 5 if PY >= (3, 13) else 0)

#: how far a name index is shifted past flag bits, per instruction
NAME_ARG_SHIFT = {"LOAD_GLOBAL": 1} if PY == (3, 11) else \
    {"LOAD_GLOBAL": 1, "LOAD_ATTR": 1, "LOAD_SUPER_ATTR": 2} if PY >= (3, 12) else {}

_WITH_ARG = frozenset(opcode.hasarg) if PY >= (3, 12) else frozenset(range(opcode.HAVE_ARGUMENT, 256))


def has_arg(op):
    """Whether opcode ``op`` has an argument (3.13 has some without one above HAVE_ARGUMENT)."""
    return op in _WITH_ARG


def inline_caches(name):
    """How many cache code units follow instruction ``name`` (3.11+)."""
    table = getattr(opcode, "_inline_cache_entries", None)
    if table is None:
        return 0
    if isinstance(table, dict):  # 3.13: by name
        return table.get(name, 0)
    op = opcode.opmap.get(name, len(table))  # pseudo instructions (3.12) are past the table
    return table[op] if op < len(table) else 0


def local_and_free_names(code):
    """Functions from a local's and a cell's argument to its name.

    3.11+ indexes locals, cells and free variables in one space."""
    if PY >= (3, 11):
        return code._varname_from_oparg, code._varname_from_oparg
    return code.co_varnames.__getitem__, (code.co_cellvars + code.co_freevars).__getitem__


def global_pushes_null(ins):
    return PY >= (3, 11) and bool(ins.arg & 1)


#: 3.13 pushes a cell (for a closure tuple) with ``LOAD_FAST`` of the cell's slot, not ``LOAD_CLOSURE``.
CELL_LOADED_BY_LOAD_FAST = PY >= (3, 13)

#: 3.11 and 3.12 push the NULL of ``LOAD_GLOBAL`` below the global, 3.13 above.
NULL_BELOW_GLOBAL = PY < (3, 13)


def attr_is_method(ins):
    return PY >= (3, 12) and bool(ins.arg & 1)


def binary_op_symbol(ins):
    return ins.argrepr


def compare_symbol(ins):
    return ins.argval


def kw_names_value(ins, code):
    return code.co_consts[ins.arg]


def intrinsic_name(ins):
    return ins.argrepr


#: ``super().f`` and ``super(C, self).f`` load the attribute with LOAD_SUPER_ATTR (3.12+),
#: unless the module's own scope names ``super`` (``_safe_super = super``, unittest.mock):
#: then ``super`` is called and its attribute loaded as any other
SUPER_ATTRIBUTES_LOADED_AT_ONCE = PY >= (3, 12)


def super_attr(ins):
    return ins.argval, bool(ins.arg & 1), bool(ins.arg & 2)


def for_iter_exit(ins, state):
    """Offset where a finished ``for`` loop continues, past END_FOR and its POP_TOP."""
    target = ins.argval
    raw = state.raw
    for j, r in enumerate(raw):
        if r.offset == target and r.opname == "END_FOR":
            j += 1
            if PY >= (3, 13) and j < len(raw) and raw[j].opname == "POP_TOP":
                state.dropped_pops.add(raw[j].offset)
                j += 1
            return raw[j].offset if j < len(raw) else target + 1000000
    return target


def dead_code(stmts, after):
    """``stmts`` as code the compiler removes but whose names it still makes locals, to
    follow the statements ``after``: under ``if False:``, except on 3.8 and 3.9, whose
    compiler names no local inside one; there they follow a ``return`` (the
    function's own implicit one, unless ``after`` ends in a return or raise)."""
    if PY >= (3, 10):
        return [ast.If(test=ast.Constant(value=False), body=stmts, orelse=[])]
    if after and isinstance(after[-1], (ast.Return, ast.Raise)):
        return stmts
    return [ast.Return(value=None)] + stmts


#: whether this Python has the match statement (3.10+): before, nothing is read as one
HAS_MATCH = PY >= (3, 10)

#: MAKE_FUNCTION's annotations: a flat tuple of names and values (3.10+), else a dict
ANNOTATIONS_ARE_PAIRS = PY >= (3, 10)

#: list, set and dict comprehensions run in their function's scope (3.12+, PEP 709), not their own
COMPREHENSIONS_INLINED = PY >= (3, 12)

#: exception handlers are cold code the compiler moves to the end (3.12+): the code a try
#: body goes on to lies before its clauses whether it is the try's else clause or follows
#: the try (only where the handlers of a try nested in it go tells them apart)
HANDLERS_LAID_OUT_LAST = PY >= (3, 12)

#: a try body's protected range ends with an instruction of its own (3.8-3.10's
#: ``POP_BLOCK``), after the value of a ``return`` in the body and before that of the
#: ``return`` after the try, which 3.10 copies to the body's end: an unprotected ``return
#: x`` the body falls into was written after the try.  (3.11+ tables end the range there
#: too, but where it ends shows in no instruction.)
TRY_RANGE_ENDS_IN_AN_INSTRUCTION = PY < (3, 11)

#: a load of a local that may be unbound on some path is a LOAD_FAST_CHECK (3.12+); before,
#: every LOAD_FAST checks and the decompiler finds such locals itself (graph/unbound.py)
UNBOUND_LOADS_MARKED = PY >= (3, 12)

#: ``return c`` of a constant is one RETURN_CONST (3.12+), fused before the compiler copies
#: a return into the arms that jump to it: a LOAD_CONST then RETURN_VALUE is a return that
#: values of several paths met at, a conditional expression's constant arm
#: (``return x if c else None``)
RETURN_CONST_FUSED = PY >= (3, 12)

#: 3.11+ keep the line of a ``try`` statement as a NOP before its body (the block-stack
#: versions' SETUP_FINALLY held it): none where the body begins on that line (``try: x()``)
TRY_LINE_KEPT_BY_A_NOP = PY >= (3, 11)

#: the function's implicit ``return None`` is copied to the end of each branch that
#: falls into it (3.10+): ``if c: x()`` ending a function compiles as ``if c: x(); return``
RETURN_COPIED_INTO_BRANCHES = PY >= (3, 10)

#: a short ``return`` that code runs into is copied, on its own line, in place of each jump
#: to it (3.10, and 3.12+; 3.11 keeps the jumps), with no NOP where the jump was on the line
#: of the statement before it: ``if c: y = 1`` / ``else: y = 2`` then ``return y`` ends
#: each arm in ``return y``
RETURN_COPIED_ON_ITS_LINE = PY == (3, 10) or PY >= (3, 12)

#: a short exit block whose first instruction has no line of its own is copied into each
#: path to it, that instruction taking the line of the code before it (3.10+): the join of
#: ``g(..., y=(a if c\n else b))``, whose ``MAP_ADD`` adds the value to the dict of over 15
#: keyword arguments being built, then the call and the ``return``, is copied after each
#: arm, the copies' ``MAP_ADD`` on the lines of ``a`` and of ``b``
EXIT_COPY_TAKES_THE_LINE_BEFORE = PY >= (3, 10)

#: the most canonical instructions of a ``return`` the compiler copies in place of a
#: jump to it (4 raw ones)
COPIED_RETURN_LENGTH = 6

#: the compiler fuses two fast-local loads or stores (LOAD_FAST_LOAD_FAST,
#: a decorator's call is on the decorator's line (3.11+); before, on the line of its ``def``
#: or ``class`` (each decorator's own line is then that of the first instruction of it, which
#: the decompiler does not keep)
DECORATOR_CALLED_ON_ITS_LINE = PY >= (3, 11)

#: STORE_FAST_STORE_FAST, STORE_FAST_LOAD_FAST) only where both are on one line (3.13+):
#: an expression printed on one line where the original spread it over several fuses
#: where the original did not, so the names' lines are kept and printed
SUPERINSTRUCTIONS_WITHIN_A_LINE = PY >= (3, 13)

#: an ``assert`` loads ``AssertionError`` as a global (3.8; 3.9+ have LOAD_ASSERTION_ERROR):
#: ``if not c: raise AssertionError`` compiles the same, but an ``in``/``is`` test can only
#: come back as an ``assert`` (``not a in b`` is folded into ``a not in b``)
ASSERT_LOADS_A_GLOBAL = PY < (3, 9)

#: a filter's test jumps through a comprehension's back jump to the loop's start only
#: where both are on one line (3.11 and 3.12 thread a jump through another only within a
#: line; the back jump has the element's line on 3.12, the last comparison's on 3.11; 3.13
#: always threads, 3.10 and before never): a filter on a line of its own is printed so
FILTER_LINE_DECIDES_JUMP = (3, 11) <= PY < (3, 13)

#: a class body stores the line its statement begins on (``__firstlineno__``, 3.13+): a
#: module's text prints each class statement on its original line
CLASS_BODY_STORES_ITS_LINE = PY >= (3, 13)

#: the compiler keeps the jump that ends an if's body over its else clause when no path
#: reaches it (after a return, raise, continue or break: it starts a basic block, which
#: the peephole keeps), and one to the next instruction (over an ``else: pass``): 3.8
#: and 3.9; 3.10+ drops unreachable code and jumps to the next instruction
KEEPS_JUMPS_OVER_ELSE_CLAUSES = PY < (3, 10)

#: MAKE_FUNCTION pops the function's qualified name above its code (before 3.11)
MAKE_FUNCTION_POPS_QUALNAME = PY < (3, 11)

#: the code object fields that name a function (error messages, tracebacks)
CODE_NAME_FIELDS = ("co_name", "co_qualname") if PY >= (3, 11) else ("co_name",)


#: 3.13+ compilers strip a docstring's indentation (tabs expanded, the first line's
#: leading spaces, then the smallest indentation of the later non-blank lines from each)
DOCSTRINGS_CLEANED = PY >= (3, 13)


def compiled_docstring(text):
    """The docstring the compiler stores for a docstring literal whose value is ``text``
    (CPython's ``_PyCompile_CleanDoc`` from 3.13; ``text`` itself before)."""
    if not DOCSTRINGS_CLEANED:
        return text
    lines = text.expandtabs().split("\n")
    rest = lines[1:]
    margin = min((len(x) - len(x.lstrip(" ")) for x in rest if x.lstrip(" ")), default=0)
    return "\n".join([lines[0].lstrip(" ")] + [x[min(margin, len(x) - len(x.lstrip(" "))):] for x in rest])


# --- the grammar: what the parser of this version accepts ------------------

#: ``for x in *a, b:`` parses (3.9+)
STARRED_FOR_ITERABLE = PY >= (3, 9)

#: ``a[*b]`` parses (3.11+, PEP 646)
STARRED_SUBSCRIPT = PY >= (3, 11)

#: an f-string's fields may reuse its own quote (3.12+, PEP 701)
FSTRING_FIELDS_REUSE_QUOTES = PY >= (3, 12)


# --- the compiler's context ---------------------------------------------------

def opens_call(raw):
    """Whether raw instruction ``raw`` pushes the NULL-or-self slot of a call (3.11+):
    a ``LOAD_GLOBAL`` with its NULL bit, a method load, ``PUSH_NULL``."""
    if PY < (3, 11):
        return False
    if raw.opname in ("PUSH_NULL", "LOAD_METHOD"):
        return True
    if raw.opname == "LOAD_GLOBAL" or raw.opname == "LOAD_ATTR" and PY >= (3, 12):
        return bool(raw.arg & 1)
    return False


_NAME_LOADS = ("LOAD_GLOBAL", "LOAD_NAME", "LOAD_FAST", "LOAD_DEREF")


def called_as_module_function(raw, i):
    """The index in ``raw`` of the load of ``g`` if the raw instructions from ``i`` are how
    ``g.f(...)`` compiles when an import at module level binds the name ``g`` (whatever
    scope the name is in here): 3.11+ then load ``f`` as a plain attribute with a NULL
    below (3.11 and 3.12: the NULL bit of ``LOAD_GLOBAL``, or ``PUSH_NULL`` before the
    name) or pushed after it (3.13), not as a method; else None.  The same text
    recompiled alone needs ``g`` imported again."""
    if PY < (3, 11) or i + 2 >= len(raw):
        return None
    a, b, c = raw[i], raw[i + 1], raw[i + 2]
    if PY >= (3, 13):
        return i if a.opname in _NAME_LOADS and not (a.opname == "LOAD_GLOBAL" and a.arg & 1) \
            and b.opname == "LOAD_ATTR" and not b.arg & 1 and c.opname == "PUSH_NULL" else None
    plain = 1 if PY >= (3, 12) else 0     # the method bit of LOAD_ATTR (3.11: LOAD_METHOD)
    if a.opname == "LOAD_GLOBAL" and a.arg & 1 and b.opname == "LOAD_ATTR" and not b.arg & plain:
        return i
    if a.opname == "PUSH_NULL" and b.opname in _NAME_LOADS and not (b.opname == "LOAD_GLOBAL" and b.arg & 1) \
            and c.opname == "LOAD_ATTR" and not c.arg & plain:
        return i + 1
    return None


def called_as_method(load, after):
    """Whether raw ``load`` (of a name) then ``after`` is ``g.f`` loaded as a method (3.11+):
    then no import at module level binds ``g``."""
    if load.opname not in _NAME_LOADS:
        return False
    return after.opname == "LOAD_METHOD" or after.opname == "LOAD_ATTR" and PY >= (3, 12) and after.arg & 1


# --- the interpreter's limits -------------------------------------------------

#: how deep Python code may recurse to decompile (print) the deepest expression the
#: compiler compiles, about 3,000 nested operations on 3.8-3.12 and 10,000 on 3.13 (two
#: frames a level): 3.8-3.10 spend C stack on every Python call (8 MB of it overflow
#: near 16,000 frames on 3.8), 3.11+ do not
DEEP_RECURSION_LIMIT = 25000 if PY >= (3, 13) else 10000

#: ``compile`` converts an ``ast`` tree under a fixed depth, about 1,500 levels,
#: whatever the recursion limit (3.12; 3.9-3.11 under the recursion limit, 3.8 and 3.13
#: without one): a deeper tree compiles only as text
TREE_DEPTH_FIXED = PY == (3, 12)
