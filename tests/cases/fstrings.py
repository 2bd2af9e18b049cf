"""f-strings: conversions, format specs (also nested), self-documenting =, concatenation."""
import datetime

from tests.cases.registry import case


@case(("world", 3), ("", 0))
def simple_fstring(name, n):
    return f"hello {name}", f"{n}", f"{name}{n}", f"", f"plain", f"{name} has {n} items"


@case(("text",), ("é'\"",))
def fstring_conversions(s):
    return f"{s!r}", f"{s!s}", f"{s!a}", f"[{s!r:>12}]", f"{s!s:_^10}"


@case((3.14159, 8, 2), (-2.5, 10, 0))
def fstring_format_specs(x, width, prec):
    return [
        f"{x:.2f}",
        f"{x:10.3f}",
        f"{x:<10}|",
        f"{x:>{width}}",
        f"{x:{width}.{prec}f}",
        f"{x:+.1e}",
        f"{x:%}",
        f"{int(x):05d}",
        f"{int(x * 1000):,}",
        f"{int(x * 1000):_}",
        f"{255:#x}|{255:#o}|{255:#b}|{255:X}",
        f"{'s':*^{width}}",
    ]


@case((5, "ab"),)
def fstring_self_documenting(value, s):
    return f"{value=}", f"{value = }", f"{s=!s}", f"{value*2=:>5}", f"{s.upper()=}"


@case(({"k": 1, "j": [2, 3]}, 4),)
def fstring_expressions_inside(d, n):
    return [
        f"{d['k']}",
        f"{d['j'][1]}",
        f"{n + 1}",
        f"{n * 2 if n > 3 else -n}",
        f"{'yes' if n else 'no'}",
        f"{[x * 2 for x in range(n)]}",
        f"{len(d)}",
        f"{(lambda v: v * 3)(n)}",
        f"{n!r:>4}{n:<3}|",
        f"{ {'set': n}['set'] }",
        f"{n:{'>' if n else '<'}6}",
    ]


@case(("x", 1),)
def fstring_brace_escapes(s, n):
    return f"{{}}", f"{{{s}}}", f"{{s}}", f"a{{b{n}c}}d", f"}}{n}{{"


@case(("abc", 2),)
def fstring_concatenation(s, n):
    a = f"{s}" "-plain-" f"{n}"
    b = "start " f"{s!r}" " end"
    c = f"{s}" + "+" + f"{n}"
    d = (
        f"line one {s}\n"
        f"line two {n}\t"
        "line three"
    )
    return a, b, c, d


@case(("name",),)
def fstring_triple_quoted_and_raw(s):
    t = f"""multi
{s}
  line {len(s)}"""
    r = rf"raw \n {s} \t"
    fr = fR"{s}\d+"
    return t, r, fr


@case((2020, 1, 2),)
def fstring_with_custom_format_protocol(y, m, d):
    day = datetime.date(y, m, d)

    class Fmt:
        def __format__(self, spec):
            return "<" + spec + ">"

    return f"{day:%Y/%m/%d}", f"{day}", f"{Fmt():anything goes}", f"{Fmt()}", f"{Fmt():{y}}"


@case(("in",),)
def nested_fstrings_with_different_quotes(s):
    inner = f"{f'{s}-{s}'}"
    deeper = f"""{f'{f"{s}!"}'}"""
    return inner, deeper, f"{'x' + f'{s}'}"


@case((1.5,), (float("inf"),))
def fstring_special_floats_and_none(x):
    return f"{x}", f"{None}", f"{True:d}", f"{x:g}", f"{-0.0}", f"{1e20:.3g}"


@case(([1, 2, 3],), ([],))
def fstring_in_loops_and_joins(items):
    parts = []
    for i, v in enumerate(items):
        parts.append(f"{i}:{v:02d}")
    return ", ".join(parts), "".join(f"<{v}>" for v in items)


@case(("abc", 5),)
def fstring_width_from_expression(s, w):
    return f"{s:>{w + 2}}", f"{s:{'^'}{w}}", f"{s!r:{w * 2}}", f"{w:{w}d}"


@case(("bad spec",),)
def fstring_invalid_spec_raises(s):
    return f"{s:d}"
