"""What the decompiler knows about an ``ast`` node that ``ast`` has no field for.

Each such fact is declared once, in :class:`Notes`, and kept in a side table
beside the tree, never as an attribute on a node.  A node that is copied or
rebuilt keeps a fact only where :meth:`Notes.copy` carries it.  One
:class:`Notes` serves one decompilation (the ``Bindings`` its code objects share
hold it); it keeps every node it has a fact about alive, so that no identity is
reused while it lives.
"""


class ElementLines:
    """Where a folded constant tuple's elements were: ``load`` the line of its LOAD_CONST, ``nops``
    the lines (not before it) of the NOPs right before it, ``before`` the line of the instruction
    before those NOPs (None where none)."""

    __slots__ = ("load", "nops", "before")

    def __init__(self, load, nops, before):
        self.load, self.nops, self.before = load, nops, before


class SignatureLines:
    """Where a def's signature was: ``head`` the line of ``def``, ``close`` that of the bracket
    closing its parameters (None where not known)."""

    __slots__ = ("head", "close")

    def __init__(self, head, close):
        self.head, self.close = head, close


class Fact:
    """One declared fact: a value per node, by the node's identity."""

    __slots__ = ("values", "held")

    def __init__(self, held):
        self.values = {}     # id(node) -> value
        self.held = held     # id(node) -> node, shared by the facts of one table (written with values)

    def get(self, node, default=None):
        return self.values.get(id(node), default)

    def set(self, node, value=True):
        key = id(node)
        self.values[key] = value
        self.held[key] = node

    def __contains__(self, node):
        return id(node) in self.values


class Notes:
    """The facts the layers note on nodes, one :class:`Fact` each."""

    FACTS = {
        "line": "the original line a statement begins on (printed beside it, recompiled at it)",
        "name_line": "the original line of the instruction that loaded or stored a name (or of a "
                     "default value a folded tuple gave): where it is later than the text's line so "
                     "far, the printer breaks the line before it",
        "element_lines": "an :class:`ElementLines` of a constant tuple's load after NOPs (3.10+): the "
                         "elements of a def's defaults or annotations folded into one constant were on "
                         "the lines of those NOPs",
        "decorator_lines": "a decorated def's or class's ``(lines, head)``: per decorator its original line "
                           "(None: not known), and the line of its ``def`` or ``class`` below them",
        "signature_lines": "a :class:`SignatureLines` of a def's ``arguments``: the line of its ``def`` and "
                           "that of its closing bracket, where its parameters go on lines of their own",
        "filter_line": "the original line of a comprehension filter on another line than the element "
                       "(``facts.FILTER_LINE_DECIDES_JUMP``): the printer breaks the line before its ``if``",
        "seq": "when a stack value was computed, on the decompilation's clock",
        "stored_at": "when a name was stored, on the same clock",
        "body_begun": "the first statement of a try body (a ``pass`` for an empty one): when that body "
                      "began, on the same clock (a value computed later that waits past the try "
                      "statement was computed in its body)",
        "accumulator": "a list, set or dict display (or ``set()`` call) the bytecode is still "
                       "building with LIST_APPEND and the like: not a finished value",
        "built_in": "a display still being built (LIST_APPEND and the like): the frame that adds its items "
                    "in place (its ``builder`` token); any other frame handed it (a branch's arm, a loop's "
                    "body) adds to a copy of its own",
        "set_call": "a ``set()`` call that 3.8 starts a set display with",
        "inplace": "a binary operation an in-place opcode computed (the value of ``x += y``)",
        "slice_call": "a ``slice(a, b, c)`` call BUILD_SLICE made: written ``a:b:c`` where it is a "
                      "subscript's index (or an item of a tuple that is one)",
        "copied": "a value the bytecode copied (COPY): written once, so evaluated once",
        "dropped": "a target whose value an unpacking drops at once (``a, _ = ...`` without the store)",
        "imported": "an IMPORT_NAME value: (module, fromlist, level)",
        "imported_from": "an IMPORT_FROM value: (the module value, the name)",
        "reraise": "a ``raise`` the compiler wrote (RERAISE), not one of the source",
        "to_else": "a ``break`` that leaves a loop for its ``else`` clause's end",
        "before_dead_jump": "a ``continue`` ending an if's body that the dead jump over its else clause "
                            "follows (3.8, 3.9): not the if's end, even last in the loop's body",
        "awaited_call": "the call of an async comprehension's function that 3.11 awaits",
        "assertion": "the ``AssertionError`` an ``assert`` loads (LOAD_ASSERTION_ERROR; 3.8: the global), "
                     "not the name's value",
        "body_code": "the class body code object a ``class`` statement was decompiled from",
        "def_code": "the code object a ``def`` or ``lambda`` was decompiled from (a def printed on its own "
                    "takes the defaults and annotations that code around it computes from there)",
        "import_of": "the IMPORT_NAME value a ``from m import x`` statement names: the next name "
                     "imported from that value joins the statement",
        "after_exit": "a ``return`` of a constant loaded only after a with's exit or a finally body "
                      "ran: at the end of the function, the implicit return after the statement",
        "no_line_of_its_own": "a ``return None`` on the line of the code before it (3.10+: the copy of "
                              "the function's implicit return at the end of a branch, not a ``return``)",
        "constant_arm": "a ``return`` of a constant that 3.12+ compiled as LOAD_CONST and RETURN_VALUE, "
                        "not RETURN_CONST: an arm of a conditional expression returned "
                        "(``return x if c else None``)",
        "try_on_body_line": "a ``try`` whose body begins on its line (``facts.TRY_LINE_KEPT_BY_A_NOP``: no "
                            "NOP before the body): printed ``try: stmt`` where that body is one simple statement",
        "jumped_return": "a ``return`` the compiler copied in place of a jump to it (3.12+: a NOP of the "
                         "jump's line before it, its value whether that line is one of its own; or "
                         "\"without a NOP\", the jump being on the line of the statement before): the "
                         "statement before it ran on to the return in the source",
        "shared_return": "a ``return None`` that several paths reach (3.10+ give the implicit return a copy "
                         "per path: this one is a ``return`` of the source)",
    }

    __slots__ = tuple(FACTS) + ("_held", "_made")

    def __init__(self):
        self._held = {}
        self._made = []     # the facts made so far: most decompilations note a few of them

    def __getattr__(self, name):
        """A fact's :class:`Fact`, made when it is first asked for."""
        if name not in self.FACTS:
            raise AttributeError(name)
        fact = Fact(self._held)
        setattr(self, name, fact)
        self._made.append(fact)
        return fact

    def copy(self, src, dst):
        """Give ``dst`` (a copy or a rebuild of ``src``) every fact ``src`` has."""
        for fact in list(self._made):
            if src in fact:
                fact.set(dst, fact.get(src))
        return dst
