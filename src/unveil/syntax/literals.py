"""How the printer writes literals: numbers (``1e309`` for infinity), strings and bytes,
tuples and frozensets of constants (a frozenset's elements in a fixed order), docstrings
(their line breaks real), and f-strings valid on the running version (before 3.12 a
replacement field may not reuse the enclosing quote nor hold a backslash or ``#``; where no
f-string is valid, an equivalent ``'...'.format(...)`` call)."""
from ast import Constant, FormattedValue, JoinedStr

from ..bytecode import facts
from .precedence import ARITH, ATOM, FACTOR, OR, TEST, TUPLE

CONV = {115: "!s", 114: "!r", 97: "!a"}
QUOTES = ("'", '"', '"""', "'''")
_INF = float("inf")


class NoFString(Exception):
    """No valid f-string spelling exists in the current quoting context."""


def float_text(f):
    """Text and precedence of an expression equal to float ``f``."""
    if f != f:
        return "1e309 - 1e309", ARITH
    if f == _INF:
        return "1e309", ATOM
    if f == -_INF:
        return "-1e309", FACTOR
    r = repr(f)
    return r, FACTOR if r[0] == "-" else ATOM


def complex_text(c):
    r, i = c.real, c.imag
    if r == r and i == i:
        rneg = str(r)[0] == "-"       # sign of zero matters here
        ineg = str(i)[0] == "-"
        imag = ("1e309" if abs(i) == _INF else repr(abs(i))) + "j"
        if r == 0 and rneg == ineg:           # 2j, -2j (== complex(-0.0, -2))
            return ("-" + imag, FACTOR) if ineg else (imag, ATOM)
        if not ineg and not (r == 0 and rneg):
            return float_text(r)[0] + " + " + imag, ARITH
        if ineg and i != 0:
            return float_text(r)[0] + " - " + imag, ARITH
    return "complex(%s, %s)" % (float_text(r)[0], float_text(i)[0]), ATOM


def fstring_literal(s, quote, in_spec):
    """Escape literal text of an f-string (or of its format spec)."""
    if s.isprintable() and "{" not in s and "}" not in s and "\\" not in s \
            and quote not in s:
        return s
    out = []
    for c in s:
        if c == "{" or c == "}":
            if in_spec:      # `{{` is not an escape inside a format spec
                out.append("\\x7b" if c == "{" else "\\x7d")
            else:
                out.append(c + c)
        elif c == "\\" or c == quote:
            out.append("\\" + c)
        elif c.isprintable():
            out.append(c)
        else:
            out.append(c.encode("unicode_escape").decode("ascii"))
    return "".join(out)


def fexpr_ok(text, forbidden):
    """Whether ``text`` may sit in a replacement field before Python 3.12."""
    if "\\" in text or "#" in text or "\n" in text:
        return False
    for q in forbidden:
        if q in text:
            return False
    return True


def docstring_literal(value):
    """``value`` as a triple-quoted literal whose line breaks are real ones (backslashes
    and characters that do not print, tabs and carriage returns included, escaped), or
    None when both triple quotes occur in it."""
    if "\\" not in value and value.replace("\n", "").isprintable():
        escaped = value     # (most docstrings: nothing to escape, no walk over each character)
    else:
        escaped = "".join([c if c == "\n" or (c.isprintable() and c != "\\")
                           else c.encode("unicode_escape").decode("ascii") for c in value])
    quotes = [q for q in ('"""', "'''") if q not in escaped]
    if not quotes:
        return None
    quotes.sort(key=lambda q: escaped[-1:] == q[0])     # a" as '''a"''' rather than """a\""""
    quote = quotes[0]
    if escaped[-1:] == quote[0]:
        escaped = escaped[:-1] + "\\" + quote[0]
    return quote + escaped + quote


def set_elements(value):
    """The elements of a frozenset constant in a fixed order (by type, then value).

    A frozenset of strings iterates in an order that changes with each
    process's string hashing; the text written for it should not.
    """
    def key(x):
        t = type(x)
        return (t.__name__, x, "") if t in (int, float, str, bytes) else (t.__name__, 0, repr(x))
    return sorted(value, key=key)


class LiteralPrinter:
    """The printer's constants and f-strings (a part of ``unparse._Unparser``, which gives
    ``expr``, ``unbroken`` and ``fq``, the quotes forbidden in the replacement field being
    printed)."""

    def constant(self, v, kind=None):
        t = v.__class__
        if v is None or t is bool:
            return repr(v), ATOM
        if v is Ellipsis:
            return "...", ATOM
        if t is str or t is bytes:
            if self.fq is not None:
                return self.fstring_field_str(v, "u" if kind == "u" else "")
            return ("u" + repr(v) if kind == "u" else repr(v)), ATOM
        if t is int:
            return repr(v), FACTOR if v < 0 else ATOM
        if t is float:
            return float_text(v)
        if t is complex:
            return complex_text(v)
        if t is tuple:
            if not v:
                return "()", ATOM
            parts = []
            for x in v:
                text, prec = self.constant(x)
                parts.append("(" + text + ")" if prec < TEST else text)
            return ", ".join(parts) + ("," if len(parts) == 1 else ""), TUPLE
        if t is frozenset:
            if not v:
                return "frozenset()", ATOM
            parts = []
            for x in set_elements(v):
                text, prec = self.constant(x)
                parts.append("(" + text + ")" if prec < TEST else text)
            return "frozenset({" + ", ".join(parts) + "})", ATOM
        raise ValueError("unparse: constant of non-literal type %s: %r"
                         % (t.__name__, v))

    def _x_FormattedValue(self, n):
        return self._x_JoinedStr(JoinedStr(values=[n]))

    def _x_JoinedStr(self, n):
        return self.unbroken(self.joined_str, n)

    def joined_str(self, n):
        if facts.FSTRING_FIELDS_REUSE_QUOTES:
            lits = "".join([v.value for v in n.values if isinstance(v, Constant)])
            q = '"' if "'" in lits and '"' not in lits else "'"
            return self.fstring(n, q, None), ATOM
        outer = self.fq
        for q in QUOTES:
            try:
                text = self.fstring(n, q, (outer or ()) + (q,))
            except NoFString:
                continue
            if outer is None or fexpr_ok(text, outer):
                return text, ATOM
        if outer is not None:
            raise NoFString
        return self.format_call(n)

    def fstring(self, n, q, forbidden):
        out = ["f", q]
        for v in n.values:
            self.fstring_part(v, q, forbidden, out, 0)
        out.append(q)
        return "".join(out)

    def fstring_part(self, v, q, forbidden, out, depth):
        if isinstance(v, Constant):
            out.append(fstring_literal(v.value, q[0], depth > 0))
            return
        if not isinstance(v, FormattedValue):
            raise ValueError("unparse: unexpected f-string part %s" % v.__class__.__name__)
        if depth > 1 and forbidden is not None:
            raise NoFString          # before 3.12 specs nest only one level
        saved = self.fq
        self.fq = forbidden
        try:
            text = self.expr(v.value, OR)
        finally:
            self.fq = saved
        if forbidden is not None and not fexpr_ok(text, forbidden):
            raise NoFString
        out.append("{ " if text[0] == "{" else "{")
        out.append(text)
        if v.conversion is not None and v.conversion != -1:
            out.append(CONV[v.conversion])
        if v.format_spec is not None:
            out.append(":")
            for s in v.format_spec.values:
                self.fstring_part(s, q, forbidden, out, depth + 1)
        out.append("}")

    def fstring_field_str(self, v, prefix):
        """A str/bytes literal inside a replacement field (before 3.12)."""
        if v.__class__ is bytes:
            s = v.decode("latin-1")
            prefix = "b"
            ok = all(" " <= c <= "~" for c in s)
        else:
            s = v
            ok = s.isprintable()
        if ok and "\\" not in s and "#" not in s:
            for q in QUOTES:
                if q[0] in s and (len(q) == 1 or q in s or s.endswith(q[0])):
                    continue
                text = prefix + q + s + q
                if all(f not in text for f in self.fq):
                    return text, ATOM
        raise NoFString

    def format_call(self, n):
        """Last resort: an f-string printed as an equivalent str.format call."""
        template, args = [], []
        for v in n.values:
            if isinstance(v, Constant):
                template.append(v.value.replace("{", "{{").replace("}", "}}"))
                continue
            template.append("{" + CONV.get(v.conversion, ""))
            args.append(self.expr(v.value))
            spec = v.format_spec
            if spec is not None:
                lits = [s.value for s in spec.values if isinstance(s, Constant)]
                text = "".join(lits)
                if len(lits) == len(spec.values) and "{" not in text and "}" not in text:
                    template.append(":" + text)
                else:
                    template.append(":{}")
                    args.append(self.expr(spec))
            template.append("}")
        return repr("".join(template)) + ".format(" + ", ".join(args) + ")", ATOM
