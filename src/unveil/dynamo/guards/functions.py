"""The guards file of one cache entry: imports, then the guard function."""
import ast
import builtins
import re

from ..adapter.guard_checks import sympy_interp_names
from ..explanations.records import checked_tensor
from .conditions import RUNTIME_NAMES, GuardWriter, names_in


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
    """One entry's guard function, the imports it needs and the header comments."""

    def __init__(self, name, comments, imports, body, untranslated):
        self.name = name
        self.comments = comments
        self.imports = imports
        self.body = body
        self.untranslated = untranslated

    def file_text(self):
        return "\n".join(self.comments + self.imports) + "\n\n\n" + self.body

    def line_of(self, failed):
        """The line of :meth:`file_text` with the condition Dynamo words as ``failed`` in a
        recompile reason (``cfg['double'] == True``, ``tensor 'x' size mismatch ...``,
        ``KeyError on options['scale']``, ``GLOBAL_STATE changed: grad_mode``,
        ``___check_type_id(obj, 9395...), type=<class 'A'>``), or None."""
        wanted = _user_form(failed)
        tensor = checked_tensor(wanted)
        missing = re.match(r"(?:KeyError|AttributeError|IndexError) on (.+)$", wanted)
        kind = re.match(r"([A-Z][A-Z_]+) ", wanted)         # GLOBAL_STATE changed: grad_mode
        # ___check_type_id(obj, 9395...), type=<class 'A'>: the call, up to its arguments' end
        helper = re.match(r"___(\w+\(.*?)\)(?:, type=.*)?$", wanted)
        lines = self.file_text().splitlines()
        for number, (comment, line) in enumerate(zip(lines, lines[1:]), 2):
            kind_source = _GUARD_COMMENT.match(comment)
            condition = _CONDITION.match(line)
            if not condition:
                continue
            source = _user_form(kind_source.group("source")) if kind_source and kind_source.group("source") else None
            if wanted in _user_form(condition.group(1)):
                return number
            if helper and helper.group(1) in _user_form(condition.group(1)):
                return number
            if kind and kind_source and kind_source.group("kind") == kind.group(1):
                return number
            if tensor and kind_source and kind_source.group("kind") == "TENSOR_MATCH" and source == tensor:
                return number
            if missing and source == missing.group(1):
                return number
        for number, line in enumerate(lines, 1):      # a part of a condition written over several lines
            part = _CONDITION_PART.match(line)
            if part and _user_form(part.group(1)) == wanted:
                return number
        return None


#: a guard's comment (``# TENSOR_MATCH on L['x']: ...``) and the condition after it
_GUARD_COMMENT = re.compile(r"^\s*# (?P<kind>[A-Z_]+)(?: on (?P<source>.+?))?: ")
_CONDITION = re.compile(r"^\s*if not \((.*)\):$")
#: one part of a condition written over several lines: ``if not ((a)`` then ``and (b)):``
_CONDITION_PART = re.compile(r"^\s*(?:if not \(|and )\((.*?)\)\)?:?$")
#: a frame's local or global as guards name it: ``L['x']``
_FRAME_NAME = re.compile(r"\b[LG]\[('(?:[^'\\]|\\.)*')\]")


def _user_form(text):
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
    where = reason["location"]
    if reason["source"] or where:
        out.append("    from: %s%s" % (reason["source"] or "", "   (%s:%s in %s)" % (
            where["filename"], where["line"], where["function"]) if where else ""))
    if reason.get("aside"):
        out.append("    " + reason["aside"])
    return out


def guards_text(fn, comp, entry, recompile_reasons):
    """The :class:`GuardsText` of cache entry ``entry`` (compile ``comp``) of ``fn``;
    ``recompile_reasons`` as :func:`explanations.records.recompile_reasons` gives them."""
    writer = GuardWriter({"function_modes": comp.function_modes})
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
    return GuardsText(name, comments, imports, body, writer.untranslated)
