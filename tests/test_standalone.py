"""Code objects decompiled on their own (as the CLI and a .pyc walker may do) give valid Python."""
import ast
import types

import unveil


def _nested(code):
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield const
            yield from _nested(const)


def comprehensions(xs, ys):
    a = [x * 2 for x in xs if x]
    b = {x: y for x, y in zip(xs, ys)}
    c = {y for y in ys}
    d = list(x + 1 for x in xs)
    return a, b, c, d, (lambda v: v + 1)(3)


def test_nested_code_objects_decompile_to_valid_python():
    for code in _nested(comprehensions.__code__):
        source = unveil.decompile(code)
        ast.parse(source)          # compiler-made parameter names such as ".0" are renamed
