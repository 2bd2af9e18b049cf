"""Compile decompiled text back into a code object with a reference frame layout."""
import __future__
import ast
import itertools
import sys
import types

from .errors import DecompilationError
from .bytecode import facts
from .bytecode.code_objects import argument_count, compile_mode, enclosing_scopes, first_text_line, identifier, is_class_body, \
    function_scopes, globals_shadowed, module_imports_called, module_names_super
from .definitions.functions import ENCLOSING_SCOPE
from .structure.stackitems import no_arguments
from .syntax.unparse import unparse

#: compiler flags of the original that change what the same text compiles to
_FUTURE_FLAGS = __future__.annotations.compiler_flag


def _find(code, name):
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            if c.co_name == name:
                return c
            found = _find(c, name)
            if found is not None:
                return found
    return None


def _find_path(code, names):
    """The code object ``names[-1]`` defines inside ``names[:-1]`` (classes or functions), searched
    for from the first of them down (any depth, as :func:`_find`)."""
    for name in names:
        code = _find(code, name)
        if code is None:
            return None
    return code


def _in_closure(module, like):
    """``module``'s statements inside a function that makes ``like``'s free variables its cells."""
    closure = ast.FunctionDef(name="__unveil_closure__", args=no_arguments(), decorator_list=[], returns=None,
                              type_comment=None, type_params=[],
                              body=_globals_read(module, like) + _set_none(like.co_freevars) + module.body)
    return ast.fix_missing_locations(ast.Module(body=[closure], type_ignores=[]))


def _globals_read(module, like):
    """``global <names>`` for the function made around ``module``'s statements: the names
    they bind (a def's) that ``like`` reads as globals (a method calling the module's
    function of its own name), which would else be that function's locals and ``like``'s
    reads of them free variables."""
    bound = set()
    for node in module.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.add(node.name)
        elif isinstance(node, ast.Assign):
            bound.update(t.id for t in node.targets if isinstance(t, ast.Name))
    names = sorted(globals_shadowed(like, bound))
    return [ast.Global(names=names)] if names else []


def _in_class(module, like):
    """A class body's statements inside ``class <name>:`` (its code object is the body),
    itself inside the classes and functions its qualified name says it was nested in."""
    return _in_scopes(module, like, [(like.co_name, False)] + list(reversed(enclosing_scopes(like) or [])))


def _in_scopes(module, like, scopes):
    """``module``'s statements inside ``class <name>:`` (or ``def <name>():``) for each
    (name, whether a function) of ``scopes``, innermost first; the innermost function
    makes ``like``'s free variables its cells (and, right around the statements, keeps
    the globals they bind global: :func:`_globals_read`)."""
    body = module.body or [ast.Pass()]
    cells = list(like.co_freevars)
    for i, (name, function) in enumerate(scopes):
        if function:
            declared = _globals_read(module, like) if i == 0 else []
            node = ast.FunctionDef(name=identifier(name), args=no_arguments(),
                                   body=declared + _set_none(cells) + body,
                                   decorator_list=[], returns=None, type_comment=None, type_params=[])
            cells = []
        else:
            node = ast.ClassDef(name=identifier(name), bases=[], keywords=[], decorator_list=[], type_params=[],
                                body=body)
        node.lineno = node.end_lineno = like.co_firstlineno
        node.col_offset = node.end_col_offset = 0
        body = [node]
    return ast.fix_missing_locations(ast.Module(body=body, type_ignores=[]))


def _keep(module, like, cells, free):
    """Add dead code to ``like``'s def in ``module`` that makes ``cells`` cell variables
    and ``free`` free variables again.

    The compiler keeps a cell or free variable for a name only used in code it
    then removed (``if not (1 or b): ...``), and Dynamo's transformed code keeps
    the cells of inner functions it compiled away; the text no longer names
    them, but the frame layout must keep them.
    """
    for node in ast.walk(module):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name in (like.co_name,
                                                                                     identifier(like.co_name)):
            dead = []
            if free:
                dead.append(_reads(free))
            if cells:
                inner = ast.FunctionDef(name="__unveil_cells__", args=no_arguments(), body=[_reads(cells)],
                                        decorator_list=[], returns=None, type_comment=None, type_params=[])
                dead += _set_none([n for n in cells if n not in like.co_varnames[:argument_count(like)]])
                dead.append(inner)
            node.body.append(ast.If(test=ast.Constant(value=False), body=dead, orelse=[]))
            ast.fix_missing_locations(node)
            return True
    return False


def _set_none(names):
    return [ast.Assign(targets=[ast.Name(id=n, ctx=ast.Store())], value=ast.Constant(value=None)) for n in names]


def _reads(names):
    return ast.Expr(value=ast.Tuple(elts=[ast.Name(id=n, ctx=ast.Load()) for n in names], ctx=ast.Load()))


def _at_original_lines(module, lines, first):
    """Move every node to the original line of the statement its text line prints
    (a line printed by no marked statement goes with the line before it)."""
    known, last = [], first
    for line in lines:
        last = last if line is None else line
        known.append(last)

    def original(n):
        return known[n - 1] if 0 < n <= len(known) else last

    for node in ast.walk(module):
        lineno = getattr(node, "lineno", None)
        if lineno is None:
            continue
        end = getattr(node, "end_lineno", None) or lineno
        node.lineno = original(lineno)
        node.end_lineno = max(original(end), node.lineno)
        if node.lineno == node.end_lineno and end != lineno:
            node.end_col_offset = max(node.end_col_offset, node.col_offset)


def _shifted(module, by):
    """Move every node ``by`` lines down: a text that begins where the original did (a
    3.13 class body stores its statement's line, which a function's text puts there)."""
    for node in ast.walk(module):
        if getattr(node, "lineno", None) is not None:
            node.lineno += by
            if getattr(node, "end_lineno", None) is not None:
                node.end_lineno += by


def recompile(source, like, filename=None, lines=None, as_written=False):
    """Compile ``source`` and return the code object standing for ``like``.

    The result has ``like``'s name, arguments, free and cell variables in the
    same order, so it can replace ``like`` in a function or frame.  With
    ``lines`` (a :class:`Decompiled`'s), it also runs on ``like``'s original
    source lines, as tracebacks, warnings and debuggers see them; with
    ``as_written``, on the lines of ``source`` itself (a file a debugger shows);
    else the text's first line stands for the original's first line.
    """
    try:
        module = ast.parse(source)
    except SyntaxError as exc:
        raise _not_compiling(like, exc) from exc
    if lines is not None:
        _at_original_lines(module, lines, like.co_firstlineno)
    elif not as_written:
        _shifted(module, first_text_line(like) - 1)
    if is_class_body(like):
        module = _in_class(module, like)
    code = _recompile(module, like, filename)
    cells = [n for n in like.co_cellvars if n not in code.co_cellvars]
    free = [n for n in like.co_freevars if n not in code.co_freevars]
    if (cells or free) and (like.co_flags & 0x2) and _keep(module, like, cells, free):
        code = _recompile(module, like, filename)
    return _checked(code, like)


def _not_compiling(like, exc):
    return DecompilationError("decompiled source of %s does not compile: %s" % (like.co_name, exc))


def _function_scopes(like, module):
    """The classes and functions a function was defined in (see :func:`function_scopes`),
    outermost first, or None: its def is compiled inside them, so that the functions it
    makes get their qualified names (3.8-3.10 load them as constants); the innermost
    function makes its free variables cells.  Not for code with an unmangled private name
    in a class (Dynamo's resume functions take ``__nested_resume_fns``, and their
    qualified name says ``Net.torch_dynamo_resume_in_forward``), nor for a text naming one
    the code does not (a decompiler's temporary ``__t0``, a bound object
    ``__unveil_compile_0_0_max_0``): a class would mangle it; nor for free variables (but
    a method's ``__class__``) no function around binds."""
    if not like.co_flags & 0x2 or is_class_body(like):
        return None
    scopes = function_scopes(like)
    if not scopes:
        return None
    names = like.co_varnames + like.co_names + like.co_cellvars + like.co_freevars
    if not all(function for _, function in scopes) \
            and any(_private(n) for n in itertools.chain(names, _identifiers(module))):
        return None   # not compiled in a class: there its private names would be mangled
    if any(n != "__class__" for n in like.co_freevars) and not any(function for _, function in scopes):
        return None
    return scopes


def _private(name):
    """Whether a class body compiling ``name`` would mangle it."""
    return name.startswith("__") and not name.endswith("__")


def _identifiers(module):
    """Every name a tree reads, writes or binds (attributes and parameters too)."""
    for node in ast.walk(module):
        if isinstance(node, ast.Name):
            yield node.id
        elif isinstance(node, ast.Attribute):
            yield node.attr
        elif isinstance(node, ast.arg):
            yield node.arg
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            yield node.name


def _unwrapped(module):
    """``module`` with the function a decompiled closure is written in (see
    :func:`.enclosing_scope`) replaced by the closure's def: the scopes it is compiled in
    bind its free variables."""
    body = []
    for node in module.body:
        if isinstance(node, ast.FunctionDef) and node.name == ENCLOSING_SCOPE and len(node.body) >= 2 \
                and isinstance(node.body[0], ast.Assign) and isinstance(node.body[-1], ast.Return):
            body += node.body[1:-1]
            if isinstance(node.body[-1].value, ast.Lambda):      # a bare lambda over free variables
                body.append(ast.copy_location(ast.Expr(value=node.body[-1].value), node.body[-1]))
        else:
            body.append(node)
    return ast.Module(body=body, type_ignores=[])


def _recompile(module, like, filename):
    scopes = _function_scopes(like, module)
    in_function = is_class_body(like) and any(function for _, function in enclosing_scopes(like) or [])
    if scopes:
        tree = _in_scopes(_unwrapped(module), like, list(reversed(scopes)))
    elif like.co_freevars and not in_function:
        tree = _in_closure(module, like)
    else:
        tree = module
    if like.co_flags & 0x2 or is_class_body(like):
        tree = _with_module_imports(tree, like)
    try:
        module_code = _compile_tree(_in_mode(tree, compile_mode(like)), filename or like.co_filename,
                                    like.co_flags & _FUTURE_FLAGS)
    except (SyntaxError, ValueError) as exc:
        raise _not_compiling(like, exc) from exc
    if not (like.co_flags & 0x2) and not is_class_body(like):  # module code
        return module_code
    path = [name for name, _ in (enclosing_scopes(like) if is_class_body(like) else scopes) or []]
    code = _find_path(module_code, path + [like.co_name]) if like.co_name.isidentifier() else None
    if code is None:     # the text defines another name: its first function, inside the scopes made for it
        scope = _find_path(module_code, path) if path else None
        code = _first_defined(scope if scope is not None else module_code)
        if code is None:
            raise DecompilationError("no code object for %s in the recompiled source" % like.co_name)
    return code


def _with_module_imports(tree, like):
    """``tree`` after ``import g`` for each global ``g`` that ``like`` calls a function of
    as the original's module imported it (3.11+ compile ``g.f()`` then without a
    method call), and after ``super`` where the original's module named it (3.12+ then
    compile ``super().f`` as a call, not LOAD_SUPER_ATTR): never run, these statements
    only tell the compiler so again."""
    names = module_imports_called(like)
    imports = [ast.Import(names=[ast.alias(name=n, asname=None)]) for n in names]
    if module_names_super(like):
        imports.append(ast.Expr(value=ast.Name(id="super", ctx=ast.Load())))
    if not imports:
        return tree
    for node in imports:
        node.lineno = node.end_lineno = like.co_firstlineno
        node.col_offset = node.end_col_offset = 0
        ast.fix_missing_locations(node)
    return ast.Module(body=imports + tree.body, type_ignores=[])


#: the recursion limit while compiling a tree nested too deeply for the usual one
_DEEP_TREE_LIMIT = 4000


#: the ``compile()`` mode of each kind of tree
_MODES = {ast.Module: "exec", ast.Expression: "eval", ast.Interactive: "single"}


def _in_mode(module, mode):
    """``module`` as the tree ``compile()`` takes in ``mode``: an ``eval`` code's text is
    its one expression, a ``single`` code's statements print their values."""
    if mode == "eval":
        if len(module.body) != 1 or not isinstance(module.body[0], ast.Expr):
            raise DecompilationError("the text of an eval code object is not one expression")
        return ast.Expression(body=module.body[0].value)
    if mode == "single":
        return ast.Interactive(body=module.body)
    return module


def _compile_tree(tree, filename, flags):
    """``compile(tree)``.  Python 3.9 to 3.11 convert each node of an ``ast`` tree
    under Python's recursion limit, so that an ``elif`` chain of 1,000 arms, which
    compiles as text, does not as a tree (3.8 and 3.13 convert without it): a tree
    refused so is converted again under a higher limit, as deep as the parser goes.
    3.12 converts under a fixed depth (``facts.TREE_DEPTH_FIXED``): a tree deeper than
    that (``x0 + x1 + ... + x1999``) is compiled from its text."""
    try:
        return compile(tree, filename, _MODES[type(tree)], flags=flags, dont_inherit=True)
    except RecursionError:
        limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, _DEEP_TREE_LIMIT))
    try:
        try:
            return compile(tree, filename, _MODES[type(tree)], flags=flags, dont_inherit=True)
        except RecursionError:
            if not facts.TREE_DEPTH_FIXED:
                raise
        return compile(unparse(tree), filename, _MODES[type(tree)], flags=flags, dont_inherit=True)
    finally:
        sys.setrecursionlimit(limit)


def _first_defined(code):
    """The first function ``code`` defines, looking through the functions that only
    make free variables cells (``recompile``'s and a decompiled closure's own)."""
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            if const.co_name in ("__unveil_closure__", ENCLOSING_SCOPE):
                return _first_defined(const)
            return const
    return None


def _checked(code, like):
    if not (like.co_flags & 0x2):
        return code
    stand_ins = {identifier(n): n for n in like.co_varnames if identifier(n) != n}
    if stand_ins:     # names the compiler made (a comprehension's ``.0``): the source has stand-ins
        code = code.replace(co_varnames=tuple(stand_ins.get(n, n) for n in code.co_varnames))
    nargs = argument_count(like)
    problems = []
    if code.co_varnames[:nargs] != like.co_varnames[:nargs]:
        problems.append("arguments %s != %s" % (code.co_varnames[:nargs], like.co_varnames[:nargs]))
    if code.co_freevars != like.co_freevars:
        problems.append("free variables %s != %s" % (code.co_freevars, like.co_freevars))
    if code.co_cellvars != like.co_cellvars:
        problems.append("cell variables %s != %s" % (code.co_cellvars, like.co_cellvars))
    if problems:
        named = "" if code.co_name == like.co_name else (
            " (the text defines %s, not %s: a decorated function is decompiled unwrapped, through __wrapped__, "
            "so recompile it with the code of the function it wraps)" % (code.co_name, like.co_name))
        raise DecompilationError("recompiled %s has another frame layout: %s%s"
                                 % (like.co_name, "; ".join(problems), named))
    return code.replace(co_name=like.co_name, co_qualname=like.co_qualname) if hasattr(like, "co_qualname") \
        else code.replace(co_name=like.co_name)
