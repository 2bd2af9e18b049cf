"""A def's parameters: ``ast.arguments`` from its code and the defaults and annotations
MAKE_FUNCTION gave it, and the lines the text had them on, as the NOPs the compiler
kept before them tell."""
import ast
import inspect

from ..bytecode.code_objects import identifier
from ..errors import DecompilationError
from ..structure.stackitems import const
from ..syntax.notes import SignatureLines
from .classes import annotation_value


def signature(code, defaults=None, kwdefaults=None, annotations=None, future=False):
    """``ast.arguments`` for ``code`` with default and annotation expressions."""
    names = [identifier(n) for n in code.co_varnames]
    nargs = code.co_argcount
    nposonly = getattr(code, "co_posonlyargcount", 0)
    nkw = code.co_kwonlyargcount
    ann = annotation_map(annotations, future)
    pos = [ast.arg(arg=n, annotation=ann.get(n), type_comment=None) for n in names[:nargs]]
    kwonly = [ast.arg(arg=n, annotation=ann.get(n), type_comment=None) for n in names[nargs:nargs + nkw]]
    i = nargs + nkw
    vararg = kwarg = None
    if code.co_flags & inspect.CO_VARARGS:
        vararg = ast.arg(arg=names[i], annotation=ann.get(names[i]), type_comment=None)
        i += 1
    if code.co_flags & inspect.CO_VARKEYWORDS:
        kwarg = ast.arg(arg=names[i], annotation=ann.get(names[i]), type_comment=None)
    defs = _elements(defaults)
    kwdefs = _dict_items(kwdefaults)
    kw_defaults = [kwdefs.get(a.arg) for a in kwonly]
    return ast.arguments(posonlyargs=pos[:nposonly], args=pos[nposonly:], vararg=vararg,
                         kwonlyargs=kwonly, kw_defaults=kw_defaults, kwarg=kwarg, defaults=defs)


def place_parameters(args, returns, fn, notes):
    """Put the parameters of a def back on the lines the NOPs before its defaults and
    annotations kept where each was folded into one constant tuple (3.10+ leave one NOP
    per line its defaults were on; 3.12+ one per parameter name and annotation,
    ``('a', 'int', ...)``, the names on the line of ``def``): a parameter goes on the
    line of its annotation or default, a return annotation on a later line than the
    last parameter after the closing bracket, on a line of its own, and a parameter
    with neither between two whose lines leave it one goes on that line."""
    params = _parameters(args)
    lines = {}                  # id(ast.arg) -> its line
    head = close = None
    positional = args.posonlyargs + args.args
    with_default = positional[len(positional) - len(args.defaults):] if args.defaults else []
    kept = notes.element_lines.get(fn.annotations) if fn.annotations is not None else None
    if kept is not None:
        annotated = [a for a in params if a.annotation is not None]
        solved = _annotation_lines(kept, len(annotated) + (returns is not None))
        if solved is not None:
            head = kept.load
            for arg, line in zip(annotated, solved):
                lines[id(arg)] = line
            if returns is not None and solved[-1] > max([head] + list(lines.values())):
                close = solved[-1]
    kept = notes.element_lines.get(fn.defaults) if fn.defaults is not None else None
    if kept is not None and kept.nops and len(kept.nops) <= len(with_default):
        head = kept.load if head is None else head
        for i, (arg, default) in enumerate(zip(with_default, args.defaults)):
            line = kept.nops[min(i, len(kept.nops) - 1)]
            if id(arg) not in lines:
                lines[id(arg)] = line
            elif line > lines[id(arg)]:     # the value on a line after its parameter's
                notes.name_line.set(default, line)
    if head is None:
        return
    _fill_between(params, lines, head, close is not None)
    for arg in params:
        if id(arg) in lines:
            notes.name_line.set(arg, lines[id(arg)])
    notes.signature_lines.set(args, SignatureLines(head, close))


def _parameters(args):
    """The ``ast.arg`` nodes of ``args`` in the order of the text."""
    return args.posonlyargs + args.args + ([args.vararg] if args.vararg else []) + args.kwonlyargs \
        + ([args.kwarg] if args.kwarg else [])


def _fill_between(params, lines, head, closed):
    """Give the parameters of no known line one where the known lines around them leave
    exactly one line each (``self`` on the line after ``def f(`` where the next parameter
    is on the one after that): each parameter on its own line, as the original had them.
    Where the closing bracket has a line of its own (``closed``), those before the first
    known parameter on a later line than ``def`` go on its line if not each on their own."""
    known = [(i, lines[id(a)]) for i, a in enumerate(params) if id(a) in lines]
    bounds = [(-1, head)] + known
    for (i, low), (j, high) in zip(bounds, bounds[1:]):
        if j - i > 1 and high - low == j - i:
            for k in range(i + 1, j):
                lines[id(params[k])] = low + k - i
        elif i == -1 and j > 0 and closed and high > head:
            for k in range(j):
                lines[id(params[k])] = high


def _annotation_lines(kept, count):
    """The lines of ``count`` annotations folded into one constant tuple ``(name, value,
    ...)`` whose NOPs ``kept`` has (:class:`ElementLines`): each name was on the line of
    the load, each value on its own line; the compiler kept a NOP per element but where
    the instruction before or after it is on the same line.  The first lines (not
    decreasing) that leave the same NOPs, or None."""
    head, nops = kept.load, kept.nops
    values = sorted(set(nops) | {head})
    failed = set()

    def solve(k, pos, prev, low):
        if k == count:
            return [] if pos == len(nops) else None
        if (k, pos, prev, low) in failed:
            return None
        for line in values:
            if line < low:
                continue
            p, q = prev, pos
            ok = True
            for element, after in ((head, line), (line, head)):
                if element != p and element != after:      # a NOP the compiler keeps
                    if q >= len(nops) or nops[q] != element:
                        ok = False
                        break
                    p, q = element, q + 1
            if ok:
                rest = solve(k + 1, q, p, line)
                if rest is not None:
                    return [line] + rest
        failed.add((k, pos, prev, low))
        return None

    for before in dict.fromkeys((kept.before, None)):
        found = solve(0, 0, before, head)
        if found is not None:
            return found
    return None


def _elements(node):
    if node is None:
        return []
    if isinstance(node, ast.Tuple):
        return list(node.elts)
    if isinstance(node, ast.Constant) and isinstance(node.value, tuple):
        return [const(v) for v in node.value]
    raise DecompilationError("defaults are not a tuple")


def _dict_items(node):
    if node is None:
        return {}
    if isinstance(node, ast.Dict):
        return {k.value: v for k, v in zip(node.keys, node.values)}
    raise DecompilationError("keyword defaults are not a dict")


def annotation_map(node, future=False):
    """``{parameter name: annotation expression}`` from MAKE_FUNCTION's annotations."""
    if isinstance(node, ast.Dict):
        pairs = zip(node.keys, node.values)
    elif isinstance(node, ast.Tuple):  # 3.10+: flat (name, value, ...) tuple
        pairs = zip(node.elts[0::2], node.elts[1::2])
    elif isinstance(node, ast.Constant) and isinstance(node.value, tuple):
        pairs = [(const(k), const(v)) for k, v in zip(node.value[0::2], node.value[1::2])]
    else:
        return {}
    return {k.value: annotation_value(v, future) for k, v in pairs}
