"""Decompile a function, recompile it, and rebuild an equivalent function object."""
import dis
import types

import unveil


def rebuild(fn, original_lines=False):
    """A copy of ``fn`` whose code is the recompiled decompiled source (on the lines
    of the decompiled text, or on ``fn``'s own lines if ``original_lines``), and the source."""
    new, result = rebuild_decompiled(fn, original_lines)
    return new, result.source


def rebuild_decompiled(fn, original_lines=False):
    """:func:`rebuild`, with the whole ``unveil.Decompiled`` (``lowered`` included)."""
    result = unveil.decompile_code(fn)
    code = unveil.recompile(result.source, fn.__code__, lines=result.lines if original_lines else None)
    glob = dict(fn.__globals__)
    glob.update(result.bindings)
    new = types.FunctionType(code, glob if result.bindings else fn.__globals__, fn.__name__,
                             fn.__defaults__, fn.__closure__)
    new.__kwdefaults__ = fn.__kwdefaults__
    return new, result


def instructions(code, drop=("CACHE", "EXTENDED_ARG"), nested=True):
    """Comparable (opname, argument) pairs of ``code``, jump targets erased.

    Nested code objects are compared whole, or only by name if not ``nested``.
    """
    out = []
    for ins in dis.get_instructions(code):
        if ins.opname in drop:
            continue
        arg = ins.argval
        if isinstance(arg, types.CodeType):
            arg = ("code", arg.co_name, tuple(instructions(arg, drop))) if nested else ("code", arg.co_name)
        elif ins.opcode in dis.hasjrel or ins.opcode in dis.hasjabs or "JUMP" in ins.opname \
                or ins.opname in ("FOR_ITER", "SEND"):
            arg = "jump"
        out.append((ins.opname, _comparable(arg)))
    return out


def _comparable(value):
    """``repr(value)``, with the items of frozensets in a fixed order: two equal frozensets
    of strings may iterate in different orders (by the order their items went in), and
    code objects compare their constants by equality."""
    if isinstance(value, frozenset):
        return "frozenset({%s})" % ", ".join(sorted(_comparable(v) for v in value))
    if isinstance(value, tuple) and any(isinstance(v, (frozenset, tuple)) for v in value):
        return "(%s%s)" % (", ".join(_comparable(v) for v in value), "," if len(value) == 1 else "")
    return repr(value)


def same_bytecode(a, b):
    return instructions(a) == instructions(b)
