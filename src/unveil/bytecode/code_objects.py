"""What a code object says about itself, read without decompiling it: how many
parameters it has, whether it is a class body or a generic definition's hidden
scope, the qualified name a class body stores or a function has, the source name
of each of its names, and which of its globals the compiler took for imported
modules."""
import dis
import inspect
import keyword
import types

from . import decoder, facts


def identifier(ident):
    """``ident``, or a valid stand-in for a name the compiler made (``.0``) or Dynamo chose."""
    known = _IDENTIFIERS.get(ident)
    if known is None:
        known = ident if ident.isidentifier() and not keyword.iskeyword(ident) \
            else "_unveil_" + "".join(c if c.isalnum() or c == "_" else "_" for c in ident)
        if len(_IDENTIFIERS) < _IDENTIFIERS_KEPT:
            _IDENTIFIERS[ident] = known
    return known


#: name -> :func:`identifier` of it, for the names read most (every load and store asks)
_IDENTIFIERS = {}
_IDENTIFIERS_KEPT = 100000


def argument_count(code):
    """How many leading ``co_varnames`` are parameters (``*args`` and ``**kw`` included)."""
    return code.co_argcount + code.co_kwonlyargcount + bool(code.co_flags & inspect.CO_VARARGS) \
        + bool(code.co_flags & inspect.CO_VARKEYWORDS)


def is_class_body(code):
    """Whether ``code`` is a class body (module-like scope that names its module and qualname)."""
    return not code.co_flags & inspect.CO_NEWLOCALS and code.co_name != "<module>" \
        and "__module__" in code.co_names and "__qualname__" in code.co_names


def compile_mode(code):
    """The ``compile()`` mode a module-level code object was compiled in: ``"single"``
    where it prints an expression statement's value (``PRINT_EXPR``, 3.12+'s
    ``INTRINSIC_PRINT``), ``"eval"`` where it returns a value other than the constant
    None, else ``"exec"`` (also the answer for an ``eval`` of ``None``, which compiles
    alike).  A function's or class body's code is ``"exec"``."""
    if code.co_flags & inspect.CO_NEWLOCALS or is_class_body(code):
        return "exec"
    previous = None
    for ins in decoder.read(code):
        if ins.opname == "PRINT_EXPR" or ins.opname == "CALL_INTRINSIC_1" \
                and facts.intrinsic_name(ins) == "INTRINSIC_PRINT":
            return "single"
        if ins.opname == "RETURN_CONST" and ins.argval is not None or ins.opname == "RETURN_VALUE" and not (
                previous is not None and previous.opname == "LOAD_CONST" and previous.argval is None):
            return "eval"
        previous = ins
    return "exec"


def class_qualname(code):
    """The ``__qualname__`` a class body sets (the constant it stores), or None."""
    last = None
    for ins in decoder.read(code):
        if ins.opname == "STORE_NAME" and ins.argval == "__qualname__":
            return last if isinstance(last, str) else None
        last = ins.argval if ins.opname == "LOAD_CONST" else None
    return None


def function_qualname(code):
    """The qualified name of the function ``code``: its own where code objects have one
    (3.11+), else the one the qualified names of the functions and classes it makes
    begin with (``A.f`` from ``A.f.<locals>.g``, the constant its ``MAKE_FUNCTION`` takes
    or a class body stores), or None."""
    own = getattr(code, "co_qualname", None)
    if own is not None:
        return own
    raw = decoder.read(code)
    for a, b in zip(raw, raw[1:]):
        if a.opname == b.opname == "LOAD_CONST" and isinstance(a.argval, types.CodeType):
            made = class_qualname(a.argval) if is_class_body(a.argval) else b.argval
            if isinstance(made, str) and made.endswith(".<locals>." + a.argval.co_name):
                return made[:-len(".<locals>." + a.argval.co_name)]
    return None


#: the opcodes of a jump, and those after which the next instruction only runs if a jump lands on it
_JUMP_OPS = frozenset(dis.hasjrel) | frozenset(dis.hasjabs)
_NO_NEXT = ("RETURN_VALUE", "RAISE_VARARGS", "RERAISE", "JUMP_FORWARD", "JUMP_ABSOLUTE")


def ends_in_dead_return(raw):
    """Whether code (``raw``: its instructions as decoded) ends with a ``return None`` that no path reaches: 3.8 and 3.9
    compile one after a function's last statement unless that statement is a
    ``return`` (so an ``if``/``else`` or ``try``/``else`` whose every way returns
    ends the body there), and drop no such dead code."""
    raw = [r for r in raw if r.opname != "EXTENDED_ARG"]
    if len(raw) < 3 or raw[-1].opname != "RETURN_VALUE" or raw[-2].opname != "LOAD_CONST" \
            or raw[-2].argval is not None or raw[-3].opname not in _NO_NEXT:
        return False
    return not any(r.opcode in _JUMP_OPS and r.argval == raw[-2].offset for r in raw)


def first_text_line(code):
    """The original line that the first line of ``code``'s decompiled text stands for:
    1 for a module, a function's first line (its def, or its first decorator), the line
    after its class statement for a class body (whose text is the body alone)."""
    if is_class_body(code):
        return code.co_firstlineno + 1
    return code.co_firstlineno if code.co_flags & 0x2 else 1


def enclosing_scopes(code):
    """The classes and functions a class body is nested in, outermost first, as (name,
    whether it is a function), when its qualified name is such a chain (``A.B`` for
    ``B``, ``A.f.<locals>.B``: ``f`` a function); None if it is no such chain."""
    return _scope_chain(class_qualname(code) or code.co_name, code.co_name)


def function_scopes(code):
    """The classes and functions the function ``code`` is defined in, outermost first, as
    (name, whether it is a function), when its qualified name is such a chain (``A.f``:
    ``[("A", False)]``, ``A.f.<locals>.g``: ``[("A", False), ("f", True)]``); None if it
    is not known or no such chain."""
    name = function_qualname(code)
    return None if name is None else _scope_chain(name, code.co_name)


def _scope_chain(qualname, name):
    parts = qualname.split(".")
    if parts[-1] != name:
        return None
    scopes = []
    for part in parts[:-1]:
        if part == "<locals>" and scopes and not scopes[-1][1]:
            scopes[-1] = (scopes[-1][0], True)
        elif part.isidentifier():
            scopes.append((part, False))
        else:
            return None
    return scopes if name.isidentifier() else None


def is_scope(code):
    """The hidden scope of a generic definition (``<generic parameters of X>``)."""
    return code.co_name.startswith("<generic parameters of ")


def module_imports_called(code):
    """The names that ``code`` and the code nested in it call a function of as the
    compiler does for a name an import at module level binds (``os.getcwd()``, or
    ``enum.auto()`` in a class body; see :func:`.facts.called_as_module_function`),
    and never as a method, in first-use order."""
    names, methods = {}, set()
    todo = [code]
    while todo:
        c = todo.pop(0)
        raw = decoder.read(c)
        for i in range(len(raw) - 1):
            if facts.called_as_method(raw[i], raw[i + 1]):
                methods.add(raw[i].argval)
            at = facts.called_as_module_function(raw, i)
            if at is not None and _call_of(raw, i) != "CALL_FUNCTION_EX":   # ``m.f(*a)`` loads f so anyway
                names.setdefault(raw[at].argval, None)
        todo += [k for k in c.co_consts if isinstance(k, types.CodeType)]
    return [n for n in names if n not in methods]


def module_names_super(code):
    """Whether the module ``code`` was compiled in names ``super`` in its own scope, as
    ``code`` tells it: where the compiler loads ``super().f`` with LOAD_SUPER_ATTR
    (:data:`.facts.SUPER_ATTRIBUTES_LOADED_AT_ONCE`), ``code`` and the code nested in it load
    the global ``super`` and never so (``super().f`` was then a call and an attribute)."""
    if not facts.SUPER_ATTRIBUTES_LOADED_AT_ONCE or "super" not in _all_names(code):
        return False
    loads_super = False
    todo = [code]
    while todo:
        c = todo.pop()
        for r in decoder.read(c):
            if r.opname == "LOAD_SUPER_ATTR":
                return False
            loads_super = loads_super or r.opname == "LOAD_GLOBAL" and r.argval == "super"
        todo += [k for k in c.co_consts if isinstance(k, types.CodeType)]
    return loads_super


#: the instructions that read a name of the module's (or the builtins'): a function's
#: LOAD_GLOBAL, a class body's LOAD_NAME, a 3.12+ annotation scope's in a class
_GLOBAL_READS = frozenset({"LOAD_GLOBAL", "LOAD_NAME", "LOAD_FROM_DICT_OR_GLOBALS"})


def reads_as_global(code, ident):
    """Whether ``code`` or the code nested in it reads the name written ``ident`` as a
    global (as no scope around binds it): text that binds ``ident`` in a function around
    ``code`` would read that binding instead."""
    if not any(identifier(n) == ident for n in _all_names(code)):
        return False
    todo = [code]
    while todo:
        c = todo.pop()
        if any(r.opname in _GLOBAL_READS and identifier(r.argval) == ident for r in decoder.read(c)):
            return True
        todo += [k for k in c.co_consts if isinstance(k, types.CodeType)]
    return False


def own_names(code):
    """The names ``code`` binds or closes over, as its text writes them (its locals, cells
    and free variables)."""
    return {identifier(n) for n in code.co_varnames + code.co_cellvars + code.co_freevars}


def globals_shadowed(code, names):
    """Those of ``names`` (as text writes them) that ``code`` does not bind itself but reads
    as globals: text that binds them in a function around ``code`` must declare them
    ``global`` there or in ``code``, or ``code`` would read that binding."""
    return {n for n in set(names) - own_names(code) if reads_as_global(code, n)}


def _all_names(code):
    names = set(code.co_names)
    for k in code.co_consts:
        if isinstance(k, types.CodeType):
            names |= _all_names(k)
    return names


def _call_of(raw, start):
    """The name of the call instruction that calls what ``raw[start:]`` begins to load:
    calls open (push their NULL-or-self slot) and close in nested order."""
    depth = 0
    for r in raw[start:]:
        if facts.opens_call(r):
            depth += 1
        elif r.opname in ("CALL", "CALL_KW", "CALL_FUNCTION_EX"):
            depth -= 1
            if depth <= 0:
                return r.opname
    return None
