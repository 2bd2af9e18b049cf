"""Code compiled from the dumped files, to run in place of torch's (``run_dumped``, ``debug()``).

What runs is then the file's own text, on the file's lines and under its path:
a debugger's breakpoint in a dumped file stops there, a traceback names it, and
``linecache`` shows its lines.

* Transformed code and resume functions are recompiled with the frame layout
  of Dynamo's code object (:func:`unveil.recompile`); the objects Dynamo put in
  their constants are bound as globals of the frame's module, under the names
  the dumped text gives them.
* A graph's ``forward`` and Inductor's ``call`` are compiled from the file and
  must be torch's own bytecode, line numbers apart: anything else is refused.

:class:`Replacements` remembers what was replaced, to put it back.
"""
import ast
import types

from ...errors import DecompilationError
from ...recompile import recompile

#: code object fields that make two code objects the same program (line numbers aside)
_PROGRAM_FIELDS = ("co_code", "co_names", "co_varnames", "co_freevars", "co_cellvars", "co_argcount",
                   "co_posonlyargcount", "co_kwonlyargcount", "co_flags", "co_stacksize")


def read(path):
    with open(path, encoding="utf-8") as fh:
        return fh.read()


def recompiled(path, like):
    """``like`` (transformed code, resume function) recompiled from the dumped file at ``path``.
    Its names (``co_names``) are then ``like``'s too, after its own: Dynamo decides whether
    to trace a frame by them (a global naming torch makes a frame worth compiling), and a
    resume function keeps every name of the function it was made from."""
    code = recompile(read(path), like, filename=path, as_written=True)
    missing = tuple(name for name in like.co_names if name not in code.co_names)
    return code.replace(co_names=code.co_names + missing) if missing else code


def same_program(ours, theirs):
    """Whether two code objects are the same bytecode with the same constants (lines aside)."""
    if any(getattr(ours, f) != getattr(theirs, f) for f in _PROGRAM_FIELDS):
        return False
    if getattr(ours, "co_exceptiontable", b"") != getattr(theirs, "co_exceptiontable", b""):
        return False
    if len(ours.co_consts) != len(theirs.co_consts):
        return False
    for a, b in zip(ours.co_consts, theirs.co_consts):
        if isinstance(a, types.CodeType) and isinstance(b, types.CodeType):
            if not same_program(a, b):
                return False
        elif type(a) is not type(b) or not (a == b or repr(a) == repr(b)):
            return False
    return True


def nested_codes(code):
    """The code objects nested in ``code``, depth first."""
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield const
            yield from nested_codes(const)


def same_function_from(path, theirs, qualname, imports=True):
    """The code of function ``qualname`` in the dumped file at ``path``, compiled from it;
    it must be ``theirs`` (torch's own code for it) with other line numbers.

    ``imports=False`` leaves out the file's top-level imports, for code torch compiled
    without them (a graph's ``forward``, whose globals torch provides): a name the
    module imports is called differently (``LOAD_ATTR`` where it was ``LOAD_METHOD``).
    A method the file writes in its class (``GraphModule.forward``) that torch compiled
    on its own (``forward``) is compiled on its own too: the class body would mangle its
    private names (a graph node Dynamo named ``__s0``)."""
    tree = ast.parse(read(path), path)
    compiled_as = getattr(theirs, "co_qualname", qualname)
    body = [node for node in tree.body if imports or not isinstance(node, (ast.Import, ast.ImportFrom))]
    if compiled_as != qualname and qualname.endswith("." + compiled_as):
        defs = _defs_at(tree.body, qualname.split("."))
        if len(defs) != 1:
            raise DecompilationError("%s defines %d functions %s" % (path, len(defs), qualname))
        body = [node for node in body if isinstance(node, (ast.Import, ast.ImportFrom))] + defs
        qualname = compiled_as
    tree.body = body
    module = compile(tree, path, "exec", dont_inherit=True)
    found = [c for c in nested_codes(module) if getattr(c, "co_qualname", c.co_name) == qualname]
    if len(found) != 1:
        raise DecompilationError("%s defines %d functions %s" % (path, len(found), qualname))
    if not same_program(found[0], theirs):
        raise DecompilationError("%s in %s is not the code torch compiled" % (qualname, path))
    return found[0]


def _defs_at(body, path):
    """The statements of ``body`` defining the class or function at ``path`` (names)."""
    found = [node for node in body if isinstance(node, (ast.ClassDef, ast.FunctionDef)) and node.name == path[0]]
    if len(path) == 1:
        return found
    return [inner for node in found for inner in _defs_at(node.body, path[1:])]


class Replacements:
    """Function codes replaced and globals bound for code run from the dump, to undo."""

    _MISSING = object()

    def __init__(self, announce=None):
        self._codes = []
        self._globals = []
        self._announce = announce     # told (torch's code, ours) of each code replaced

    def replace_code(self, function, code):
        self._codes.append((function, function.__code__))
        if self._announce is not None:
            self._announce(function.__code__, code)
        function.__code__ = code

    def bind(self, namespace, bindings):
        """Bind ``{name: object}`` in the globals ``namespace``; a name bound to another
        object there already is an error (two codes would read one global)."""
        for name, value in bindings.items():
            present = namespace.get(name, self._MISSING)
            if present is value:
                continue
            if present is not self._MISSING:
                raise DecompilationError("the global %s is taken by another object" % name)
            namespace[name] = value
            self._globals.append((namespace, name))

    def undo_codes(self):
        for function, code in reversed(self._codes):
            function.__code__ = code
        self._codes = []

    def undo_globals(self):
        for namespace, name in reversed(self._globals):
            namespace.pop(name, None)
        self._globals = []
