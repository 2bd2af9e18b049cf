"""Dynamo's guard tree written as a Python function.

Dynamo checks guards in C++; each leaf guard only carries a description
("verbose code part") that is Python for most kinds and prose for a few.  This
module turns every leaf into a Python condition (calling the checks in
:mod:`unveil.dynamo.guards.runtime`) with a comment saying what it checks, and
writes one function per cache entry that returns what Dynamo's guard returns.
The names of Dynamo's own helpers and its descriptions that are not Python are
:mod:`unveil.dynamo.adapter.guard_text`'s.
"""
import ast
import keyword
import re
from typing import NamedTuple

from ..adapter.guard_text import (CHECK_OBJ_ID, CHECK_TYPE_ID, DICT_CONTAINS, FUNCTION_MODE_STACK_GUARD,
                                  GLOBAL_STATE_GUARD, GUARD_HELPER_PREFIX, GUARD_HELPER_RENAMES,
                                  SAVED_TENSORS_HOOKS_GUARD)
from . import runtime as guard_runtime


#: guard kind -> what the comment says it checks
_KIND_TEXT = {
    "TENSOR_MATCH": "tensor type, dispatch keys, dtype, device, requires_grad, sizes and strides",
    "TYPE_MATCH": "exact type",
    "ID_MATCH": "object identity",
    "EQUALS_MATCH": "value",
    "TRUE_MATCH": "is True",
    "FALSE_MATCH": "is False",
    "NONE_MATCH": "is None",
    "NOT_NONE_MATCH": "is not None",
    "DICT_CONTAINS": "dictionary key presence",
    "DIMENSION_DYNAMIC_MARKING_GUARD": "its dimensions marked dynamic, unbacked or static are among those so marked "
                                      "at compile time",
    "NO_HASATTR": "attribute absence",
    "LENGTH_CHECK": "length",
    "DICT_LENGTH": "dictionary length",
    "NO_TENSOR_ALIASING": "these tensors are distinct objects",
    "GLOBAL_STATE": "global torch state (grad mode, autocast, default dtype, ...)",
    "TORCH_FUNCTION_MODE_STACK": "active torch function modes",
    "DEFAULT_DEVICE": "default device",
    "LAMBDA_GUARD": "condition",
    "DEFAULT_DEVICE_GUARD": "default device",
}

#: Dynamo's closure names -> the names dumped guards use (from guard_runtime)
_RENAMES = GUARD_HELPER_RENAMES

RUNTIME_NAMES = tuple(guard_runtime.__all__)

_GLOBAL_STATE = GLOBAL_STATE_GUARD
_SAVED_HOOKS = SAVED_TENSORS_HOOKS_GUARD
_DISPATCH = re.compile(r"DispatchKeySet\(([^)]*)\)")


class Untranslatable(Exception):
    """A guard description with no Python form that unveil knows."""


def _parse(text):
    try:
        return ast.parse(text, mode="eval")
    except SyntaxError:
        return None


_STR = r"'[^'\\\n]*'"
_ACCESS = r"(?:\.(?!(?:{kw})\b)[A-Za-z_]\w*|\[(?:{s}|-?\d+)\])*".format(s=_STR, kw="|".join(keyword.kwlist))
_VALUE = r"[LG]\[{s}\]{a}".format(s=_STR, a=_ACCESS)
#: a guarded value: a local or global and its attributes and items, or what its type's
#: (or a base class's) ``__dict__`` holds
_SOURCE = r"(?:{v}|dict\(type\({v}\)(?:\.__mro__\[\d+\])?\.__dict__\){a})".format(v=_VALUE, a=_ACCESS)
#: the commonest guards, in shapes that are Python expressions whatever the names and
#: strings in them: no parse needed (a parse is most of a guard's cost)
_NUMBER = r"-?\d+(?:\.\d+)?(?:e[-+]?\d+)?"
_PLAIN = re.compile(r"(?:(?:not )?{contains}\({s}, {src}\)|(?:{obj_id}|{type_id})\({src}, \d+\)"
                    r"|(?:not )?hasattr\({src}, {s}\)(?: == (?:True|False))?|not {src}|len\({src}\) == \d+"
                    r"|{src} (?:is not|is|==|!=) (?:None|True|False|{n}|{s}|\((?:{n}(?:, {n})*,?)?\)|{src}"
                    r"|torch\.(?!(?:{kw})\b)[A-Za-z_]\w*))\Z".format(s=_STR, src=_SOURCE, n=_NUMBER,
                                                                  kw="|".join(keyword.kwlist),
                                                                  contains=DICT_CONTAINS,
                                                                  obj_id=CHECK_OBJ_ID,
                                                                  type_id=CHECK_TYPE_ID))


#: a recogniser for the expressions guards are made of, faster than a parse (most of a
#: guard's cost): literals and names become markers, then attribute access, indexing and
#: calls over markers fold into one marker until a guard is a single comparison
_PRIMARY, _LITERAL, _STRING = "\x01", "\x02", "\x03"
_STRINGS = re.compile(r"""'[^'\\\n\x01-\x03]*'|"[^"\\\n\x01-\x03]*\"""")
_CONSTANTS = re.compile(r"(?<![\w.])(?:-?\d+(?:\.\d+)?(?:e[-+]?\d+)?|None|True|False)(?![\w.])")
_NAMES = re.compile(r"(?<![\w.])(?!(?:%s)(?!\w))[A-Za-z_]\w*" % "|".join(keyword.kwlist))
_OPERAND = "[\x01-\x03]"
_FOLD = re.compile(r"\x01(?:\.(?!(?:{kw})(?!\w))[A-Za-z_]\w*|\[{o}\]|\((?:{o}(?:, {o})*)?\))+".format(
    kw="|".join(keyword.kwlist), o=_OPERAND))
_GUARD = re.compile(r"(?:not )?\x01(?: (?:is not|is|==|!=|<=|>=|<|>) {o})?\Z".format(o=_OPERAND))
_ONE_PRIMARY = re.compile("\x01\\Z")
_DIMS = r"\[(?:(?:\d+|None)(?:, (?:\d+|None))*)?\]"
#: Dynamo's tensor guard once its dispatch keys are a string: the checked value, the type's bare name, the rest
_CHECK_TENSOR = re.compile(
    r"check_tensor\((?P<source>.+?), (?!(?:{kw})(?!\w))[A-Za-z_]\w*, (?P<rest>'DispatchKeySet\([\w, ]*\)', "
    r"torch\.\w+, device=(?:None|\d+), requires_grad=(?:True|False), size={d}, stride={d})\)\Z".format(
        kw="|".join(keyword.kwlist), d=_DIMS))


def _folds(text, whole=_GUARD):
    """Whether ``text`` is one guard expression of the shapes Dynamo writes (``whole``:
    a value, not a condition, with ``_ONE_PRIMARY``); ``False`` says "parse it", not
    "invalid"."""
    if not text.isascii() or any(c in text for c in (_PRIMARY, _LITERAL, _STRING)):
        return False
    text = _STRINGS.sub(_STRING, text)
    text = _CONSTANTS.sub(_LITERAL, text)
    text = _NAMES.sub(_PRIMARY, text)
    while True:
        folded = _FOLD.sub(_PRIMARY, text)
        if folded == text:
            return whole.match(text) is not None
        text = folded


def _is_expression(text):
    return _PLAIN.match(text) is not None or _folds(text) or _parse(text) is not None


def _without_comment(part):
    """``(code, parses)``: the shortest prefix before a ``#`` that parses as an expression
    (guards' comments follow the code after a ``#``; the code may hold ``#`` in strings)."""
    cuts = [m.start() for m in re.finditer("#", part)] + [len(part)]
    for cut in cuts:
        text = without_type_note(part[:cut].rstrip())
        if _GLOBAL_STATE.match(text) or _SAVED_HOOKS.match(text):
            return text, False
        if _is_expression(text):
            return text, True
    return without_type_note(part.split("#")[0].rstrip()), False


#: the comment a guard file has in place of a guard it could not translate (``why`` reads it back)
UNTRANSLATED = "# NOT TRANSLATED (assumed to pass): "

#: the recompile hint Dynamo may add to a guard's description ("type Parameter", the closure variable)
_HINT = re.compile(r" \(HINT: [^()]*(?:\([^()]*\)[^()]*)*\)\Z")


def without_type_note(text):
    """``text`` less a trailing ``, type=<class 'x'>`` (Dynamo's note of the guarded type)
    and ``(HINT: ...)`` (its recompile hint)."""
    text = _HINT.sub("", text)
    return _TYPE_NOTE.sub("", text.rstrip())


#: Dynamo's note of a guarded type at a guard's end: ``, type=<class 'm.make.<locals>.C'>``
#: (a class made inside a function has ``<locals>`` in its name), ``type=<enum 'E'>``
_TYPE_NOTE = re.compile(r",\s*type=<(?:\w+ '[^']*'|[^<>]*)>\Z")


def names_in(text, names):
    """Those of ``names`` that ``text`` uses as a name (not an attribute or a word's part)."""
    return {name for name in names if next(_as_name(text, name), None) is not None}


def _as_name(text, word):
    """Where ``word`` stands in ``text`` as a name: not an attribute, a string's start or
    part of a longer word."""
    start = text.find(word)
    while start >= 0:
        end = start + len(word)
        if _starts_name(text, start) and _ends_name(text, end):
            yield start
        start = text.find(word, start + 1)


def _starts_name(text, start):
    return start == 0 or not _word_char(text[start - 1], "_.'\"")


def _ends_name(text, end):
    return end == len(text) or not _word_char(text[end], "_")


def _word_char(char, also):
    return char.isalnum() or char in also


def _tensor_match(text, part, value_type):
    """A TENSOR_MATCH guard's ``check_tensor`` call with its type written out (``text``:
    ``part`` up to its first ``#``)."""
    qualified = repr("%s.%s" % (value_type.__module__, value_type.__qualname__))
    match = _CHECK_TENSOR.match(_keys_as_string(text))
    if match and _folds(match.group("source"), _ONE_PRIMARY):
        return "check_tensor(%s, %s, %s)" % (match.group("source"), qualified, match.group("rest"))
    text = _keys_as_string(_without_comment(part)[0])
    tree = _parse(text)
    call = tree.body if tree is not None else None
    if not (isinstance(call, ast.Call) and len(call.args) >= 4):
        raise Untranslatable(text)
    arg = call.args[1]  # the type's bare name: written as its qualified name
    return text[:arg.col_offset] + qualified + text[arg.end_col_offset:]


def _keys_as_string(text):
    """``DispatchKeySet(CPU, ...)`` (not Python) as a string."""
    return _DISPATCH.sub(lambda m: repr("DispatchKeySet(%s)" % m.group(1)), text)


#: a class as Dynamo's guard text writes it (as its repr), not as the type note it may end with
_CLASS_REPR = re.compile(r"(?<!type=)<class '([A-Za-z_][\w.]*)'>")


#: a class repr (not a type note), or a string literal, which is left as it is
_CLASS_OR_STRING = re.compile(r"(?<!type=)<class '(?P<cls>[A-Za-z_][\w.]*)'>|'(?:[^'\\\n]|\\.)*'"
                              r"|\"(?:[^\"\\\n]|\\.)*\"")


def _classes_named(text):
    """``text`` with each class repr outside a string literal as ``class_named('m.C')`` (a
    string may hold one: a dict keyed by a class's ``str``)."""
    return _CLASS_OR_STRING.sub(lambda m: "class_named(%r)" % m.group("cls") if m.group("cls") else m.group(0),
                                text)


def translate(kind, part, value_type=None, context=None):
    """One verbose code part as a Python expression over ``L`` and ``G``."""
    if "<class '" in part and _CLASS_REPR.search(part):
        part = _classes_named(part)
    cut = part.find("#")
    text = without_type_note((part if cut < 0 else part[:cut]).rstrip())
    if kind != "TENSOR_MATCH" and _PLAIN.match(text):
        return _plain_renamed(text)   # the commonest shapes, no special case among them
    if kind == "TENSOR_MATCH" and value_type is not None:
        text = _tensor_match(text, part, value_type)
    else:
        text, parses = _without_comment(part)
        match = _GLOBAL_STATE.match(text)
        if match:
            return "check_global_state(%r)" % match.group(1)
        match = _SAVED_HOOKS.match(text)
        if match:
            return "check_saved_tensors_hooks(%s)" % match.group(1)
        if text == FUNCTION_MODE_STACK_GUARD:
            modes = list((context or {}).get("function_modes", []))
            return "check_torch_function_mode_stack(%r)" % (modes,)
        if not parses or kind == "TENSOR_MATCH":  # a tensor guard on a value of unknown type
            raise Untranslatable(text)
    if "__" in text:
        text = _renamed(text)
        if _has_private(text):
            raise Untranslatable(text)
    return text


def _plain_renamed(text):
    """A guard of one of ``_PLAIN``'s shapes with its helper renamed: there a helper can
    only stand first (after ``not``), and no other name is private."""
    if text.startswith(_HELPER_STARTS):
        for old, new in _PLAIN_HELPERS:
            if text.startswith(old):
                return new + text[len(old):]
    return text


#: how a guard of ``_PLAIN``'s shapes that calls a helper of Dynamo's begins
_HELPER_STARTS = (GUARD_HELPER_PREFIX, "not " + GUARD_HELPER_PREFIX)
#: (Dynamo's helper call, guard_runtime's), as a guard of ``_PLAIN``'s shapes may begin
_PLAIN_HELPERS = [(prefix + old + "(", prefix + new + "(") for old, new in _RENAMES.items() for prefix in ("", "not ")]


def _renamed(text):
    """``text`` with Dynamo's helpers (``guard_text.GUARD_HELPER_RENAMES``) named as guard_runtime's,
    where they stand as names."""
    for old, new in _RENAMES.items():
        if old not in text:
            continue
        for start in reversed(list(_as_name(text, old))):
            text = text[:start] + new + text[start + len(old):]
    return text


#: names with two leading underscores that are Python's own, not Dynamo's helpers
_PUBLIC_DUNDERS = ("__builtins__", "__import__")


def _has_private(text):
    """Whether ``text`` names something private (``__x``, not an attribute or a string's
    start), ``__builtins__`` and ``__import__`` aside: Dynamo's own helpers, with no Python
    meaning here."""
    start = text.find("__")
    while start >= 0:
        if _starts_name(text, start) and not any(text.startswith(name, start) and _ends_name(text, start + len(name))
                                                 for name in _PUBLIC_DUNDERS):
            return True
        start = text.find("__", start + 1)
    return False


def source_note(part):
    """What follows a guard part's code: the user's line and where it is."""
    return part.partition("  # ")[2].strip()


def _comment(text):
    return "# " + " ".join(text.split())


#: the id an identity check compares, at its end
_CHECKED_ID = re.compile(r", (\d+)\)\Z")


def identity_checked(guard, identities):
    """The name (``identities``: id -> name) of the object an identity check compares with,
    for ``guard`` as Dynamo words it (``___check_obj_id(G['act'], 1397...), type=<...>``), or None."""
    return _name_of_checked_id(without_type_note(guard), identities) if CHECK_OBJ_ID in guard else None


def _with_identity_name(expr, identities):
    """``check_obj_id(value, id)`` with the checked object's name as a third argument, where
    ``identities`` (id -> :func:`runtime.identity_name`, recorded as Dynamo took the id)
    has one: another process checks the identity by it."""
    name = _name_of_checked_id(expr, identities)
    return expr if name is None else expr[:-1] + ", %r)" % name


def _name_of_checked_id(text, identities):
    """The name ``identities`` gives the id that ``text`` (an identity check) ends with, or None."""
    match = _CHECKED_ID.search(text)
    return identities.get(int(match.group(1))) if match else None


class WrittenGuard(NamedTuple):
    """One verbose code part of a leaf guard and the line of the function's text that checks
    it (its condition, or the comment saying it was not translated)."""
    kind: str
    source: str             # the value it guards (``L['x']``), or "" (a shape guard of the root)
    part: str               # Dynamo's verbose code part, as Dynamo gave it
    line: int               # 1-based, in the text :meth:`GuardWriter.write` returns


class GuardWriter:
    """Writes the guard function of one cache entry."""

    def __init__(self, context=None):
        self.context = context or {}
        self.lines = []
        self.untranslated = []
        self.conditions = []     # every translated condition, for the names they use
        self.written = []        # a WrittenGuard per verbose code part, in the order Dynamo checks them

    def _leaf(self, kind, parts, node):
        """One leaf guard: a comment on what it checks, then a condition per part, each with
        its own origin where it has one of its own: a leaf of several parts (the shape
        guards torch gives as one) fails by one of them, which why-recompile then names."""
        comment = kind
        if node is not None and node.source not in ("", "L", "G"):
            comment += " on " + node.source
        comment += ": " + (_KIND_TEXT.get(kind) or kind.lower().replace("_", " "))
        in_user_lines = self.context.get("user_note") or (lambda note: note)
        notes = [in_user_lines(source_note(part)) for part in parts]
        if len(parts) == 1 and notes[0]:
            comment += "  (from: %s)" % notes[0]
        self.lines.append("    " + _comment(comment))
        value_type = node.value_type if node is not None else None
        source = node.source if node is not None else ""
        for part, note in zip(parts, notes):
            try:
                expr = self._condition(kind, part, node, value_type)
            except Untranslatable as exc:
                self.untranslated.append(str(exc))
                self._checks(kind, source, part, UNTRANSLATED + " ".join(str(exc).split()))
                continue
            if len(parts) > 1 and note:
                self.lines.append("    " + _comment("(from: %s)" % note))
            self.conditions.append(expr)
            self._checks(kind, source, part, "if not (%s):" % expr)
            self.lines.append("        return False")

    def _checks(self, kind, source, part, line):
        """``line`` written as what checks ``part`` (its index among :attr:`lines` until
        :meth:`write` makes it the text's line)."""
        self.written.append(WrittenGuard(kind, source, part, len(self.lines)))
        self.lines.append("    " + line)

    def _condition(self, kind, part, node, value_type):
        """One verbose code part of a leaf guard as the condition its file checks."""
        expr = translate(kind, part, value_type, self.context)
        if kind == "TYPE_MATCH" and value_type is not None and expr.startswith("check_type_id(") \
                and expr.endswith(")"):    # its name, for a check in another process
            expr = expr[:-1] + ", %r)" % guard_runtime.qualified_name(value_type)
        if kind == "ID_MATCH" and expr.startswith("check_obj_id("):
            expr = _with_identity_name(expr, self.context.get("identities", {}))
        if kind == "EQUALS_MATCH" and value_type is not None and node.source not in ("", "L", "G"):
            # Dynamo's check compares the exact type first: 1.0 or True is not 1
            expr = "of_type(%s, %r) and %s" % (node.source, guard_runtime.qualified_name(value_type), expr)
        return expr

    def _node(self, node):
        for kind, parts in node.leaves:
            self._leaf(kind, parts, node)
        for child in node.children:
            self._node(child)

    def write(self, name, root, args, doc):
        """Source of ``def name(args): ...`` for the guard tree ``root``."""
        self.lines, self.conditions, self.written = [], [], []
        self._node(root)
        for kind, parts in root.epilogue:
            self._leaf(kind, parts, None)
        head = ["def %s(%s):" % (name, ", ".join(args)), '    """%s"""' % doc, "    try:"]
        body = ["    " + line for line in self.lines] + [
            "    except (KeyError, AttributeError, IndexError, TypeError):",
            "        return False  # a value the guard reads is missing: Dynamo's accessor fails too",
            "    return True",
        ]
        self.written = [guard._replace(line=len(head) + 1 + guard.line) for guard in self.written]
        return "\n".join(head + body) + "\n"
