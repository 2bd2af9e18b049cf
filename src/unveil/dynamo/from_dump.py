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

from ..errors import DecompilationError
from ..recompile import recompile

#: code object fields that make two code objects the same program (line numbers aside)
_PROGRAM_FIELDS = ("co_code", "co_names", "co_varnames", "co_freevars", "co_cellvars", "co_argcount",
                   "co_posonlyargcount", "co_kwonlyargcount", "co_flags", "co_stacksize")


def read(path):
    with open(path, encoding="utf-8") as fh:
        return fh.read()


def recompiled(path, like):
    """``like`` (transformed code, resume function) recompiled from the dumped file at ``path``."""
    return recompile(read(path), like, filename=path, as_written=True)


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
    module imports is called differently (``LOAD_ATTR`` where it was ``LOAD_METHOD``)."""
    tree = ast.parse(read(path), path)
    if not imports:
        tree.body = [node for node in tree.body if not isinstance(node, (ast.Import, ast.ImportFrom))]
    module = compile(tree, path, "exec", dont_inherit=True)
    found = [c for c in nested_codes(module) if getattr(c, "co_qualname", c.co_name) == qualname]
    if len(found) != 1:
        raise DecompilationError("%s defines %d functions %s" % (path, len(found), qualname))
    if not same_program(found[0], theirs):
        raise DecompilationError("%s in %s is not the code torch compiled" % (qualname, path))
    return found[0]


class Replacements:
    """Function codes replaced and globals bound for code run from the dump, to undo."""

    _MISSING = object()

    def __init__(self):
        self._codes = []
        self._globals = []

    def replace_code(self, function, code):
        self._codes.append((function, function.__code__))
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
