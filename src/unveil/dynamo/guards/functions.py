"""The guards file of one cache entry: imports, then the guard function."""
import ast
import builtins
import re

from ..adapter.guard_checks import sympy_interp_names
from ...dump_index import unreadable_line
from ..explanations.records import checked_tensor, unreadable_value
from .conditions import RUNTIME_NAMES, GuardWriter, names_in, without_type_note


#: every dumped guard takes the frame's locals and globals (Dynamo's own guards may skip G)
GUARD_PARAMS = ("L", "G", "**___kwargs_ignored")
_PARAMS = frozenset(a.lstrip("*") for a in GUARD_PARAMS)
_RUNTIME = frozenset(RUNTIME_NAMES)
_BUILTINS = frozenset(dir(builtins))


def identifier(text):
    return "".join(c if c.isalnum() or c == "_" else "_" for c in text)


def guard_function_name(key, tag):
    """The guard function of the compile tagged ``tag`` (``compiles.compile_tag``) of the
    function of key ``key``."""
    return "__guard_%s_for_%s" % (tag, identifier(key))


class GuardsText:
    """One entry's guard function, the imports it needs and the header comments; ``written``
    (:class:`conditions.WrittenGuard`) where the function checks each of Dynamo's guards."""

    def __init__(self, name, comments, imports, body, untranslated, written):
        self.name = name
        self.comments = comments
        self.imports = imports
        self.body = body
        self.untranslated = untranslated
        self.written = written

    def file_text(self):
        return "\n".join(self.comments + self.imports) + "\n\n\n" + self.body

    def guard_of(self, failed):
        """The :class:`conditions.WrittenGuard` Dynamo words as ``failed`` in a recompile
        reason, or None: its verbose code part as the reason gives one (``not
        ___dict_contains('forward', m._modules['sub'].__dict__)``, ``cfg['double'] == True``,
        ``___check_type_id(obj, 9395...), type=<class 'A'>``), or, for the reasons Dynamo
        words otherwise, the first guard of their kind (``GLOBAL_STATE changed: grad_mode``)
        or on their value (``tensor 'x' size mismatch ...``, ``KeyError on options['scale']``,
        ``CodeGuardAccessor: Not a function on G['act'].__code__``)."""
        wanted = _as_reasons_word_it(failed)
        return next((g for g in self.written if _as_reasons_word_it(g.part) == wanted), None) \
            or next((g for g in self.written if _worded_otherwise_for(g, wanted)), None)

    def line_of(self, guard):
        """The line of :meth:`file_text` that checks ``guard`` (a :meth:`guard_of`)."""
        return len(self.comments) + len(self.imports) + 2 + guard.line


def _worded_otherwise_for(guard, wanted):
    """Whether ``guard`` (a :class:`conditions.WrittenGuard`) is one a recompile reason that
    does not give its code (``wanted``, as :func:`_as_reasons_word_it` puts it) may be about."""
    source = user_form(guard.source)
    tensor = checked_tensor(wanted)
    if tensor is not None:
        return guard.kind == "TENSOR_MATCH" and source == tensor
    missing = re.match(r"(?:KeyError|AttributeError|IndexError) on (.+)$", wanted)
    if missing:
        return source == missing.group(1)
    unreadable = unreadable_value(wanted)
    if unreadable is not None:
        return source == unreadable[1]
    kind = re.match(r"([A-Z][A-Z_]+) ", wanted)         # GLOBAL_STATE changed: grad_mode
    return kind is not None and guard.kind == kind.group(1)


#: a frame's local or global as guards name it: ``L['x']``
_FRAME_NAME = re.compile(r"\b[LG]\[('(?:[^'\\]|\\.)*')\]")


def _as_reasons_word_it(text):
    """A guard's verbose code part, or a recompile reason's guard, as Dynamo's recompile
    reasons word a guard: its code before the comment, less the type note and hint, with
    the frame's names (``L['cfg']['a']`` as ``cfg['a']``), on one line."""
    return user_form(without_type_note(text.partition("#")[0]))


def user_form(text):
    """Guard text as Dynamo's recompile reasons word it: ``L['cfg']['a']`` as ``cfg['a']``."""
    return " ".join(_FRAME_NAME.sub(lambda m: ast.literal_eval(m.group(1)), text).split())


def recompile_lines(reason, key):
    """A recompile reason (``explanations.records.recompile_reasons``) as readable lines: the entry
    whose guard failed and its guards file, the guard with the user's names for Dynamo's
    stack slots, and the user's line it came from."""
    entry = reason["failed_entry"]
    line = ", line %d" % reason["guard_line"] if reason.get("guard_line") else ""
    head = "compile %s (%s.compile_%s.guards.py%s): " % (entry, key, entry.replace("/", "_"), line) if entry else ""
    out = [head + reason["guard"]]
    for slot, meaning in sorted(reason.get("names", {}).items()):
        out.append("    where %s is %s at the graph break" % (slot, meaning))
    if reason.get("unreadable"):
        out.append("    " + unreadable_line(reason))
    if reason.get("identity"):
        out.append("    the id it checks is that of %s" % reason["identity"])
    where = reason["location"]
    if reason["source"] or where:
        out.append("    from: %s%s" % (reason["source"] or "", "   (%s:%s in %s)" % (
            where["filename"], where["line"], where["function"]) if where else ""))
    if reason.get("aside"):
        out.append("    " + reason["aside"])
    return out


def guards_text(fn, comp, entry, recompile_reasons, identities=None, user_note=None):
    """The :class:`GuardsText` of cache entry ``entry`` (compile ``comp``) of ``fn``;
    ``recompile_reasons`` as :func:`explanations.records.recompile_reasons` gives them;
    ``identities``: the name of each object by id that identity checks may compare;
    ``user_note``: a guard's comment as the user's lines word it (``note -> note``)."""
    writer = GuardWriter({"function_modes": comp.function_modes, "identities": identities or {},
                          "user_note": user_note})
    name = guard_function_name(fn.key, comp.tag)
    doc = "True when Dynamo may run the transformed code of compile %s of %s." % (comp.label, fn.code.co_name)
    body = writer.write(name, entry.guard_tree(), GUARD_PARAMS, doc)
    sympy = sympy_interp_names()
    free = names_in("\n".join(writer.conditions), (_RUNTIME | sympy) - _PARAMS - _BUILTINS)
    runtime = sorted(free & _RUNTIME)
    comments = ["# Guards of compile %s of %s (%s:%d)." % (comp.label, fn.code.co_name, fn.code.co_filename,
                                                           fn.code.co_firstlineno),
                "# Dynamo's frame evaluation runs this entry's transformed code (%s)" % (comp.transformed_file,),
                "# only when %s(L, G) is True; L holds the frame's locals, G its globals." % name]
    if recompile_reasons:
        comments.append("# Compiled anew because an earlier entry's guard failed on the call:")
    for reason in recompile_reasons:
        comments += ["#   " + line for line in recompile_lines(reason, fn.key)]
    if writer.untranslated:
        comments.append("# %d guard(s) below could not be translated and are assumed to pass."
                        % len(writer.untranslated))
    imports = ["import torch"]
    if runtime:
        imports.append("from unveil.dynamo.guards.runtime import %s" % ", ".join(runtime))
    needed = sorted(n for n in free - _RUNTIME - {"torch"} if n in sympy)
    if needed:
        imports.append("from torch.fx.experimental.symbolic_shapes import SYMPY_INTERP")
        imports += ["%s = SYMPY_INTERP[%r]" % (n, n) for n in needed]
    return GuardsText(name, comments, imports, body, writer.untranslated, writer.written)
