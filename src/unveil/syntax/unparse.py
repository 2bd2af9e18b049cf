"""AST -> Python source printer that behaves the same on Python 3.8 - 3.13.

``unparse(node)`` accepts any module, statement, expression or pattern node
of the 3.8 - 3.13 ``ast`` modules (slices in either the 3.8 ``Index`` /
``ExtSlice`` shape or the 3.9+ shape) and returns source text that parses,
on the running interpreter, back to an equivalent tree.  Parentheses are
added only where precedence requires them.  f-strings are written so that
they are valid on the running version (before 3.12 a replacement field may
not reuse the enclosing quote nor contain a backslash or ``#``); when no
valid f-string exists an equivalent ``'...'.format(...)`` call is printed.
"""

from ast import AST, Constant, Expr as _Expr, Index, Name, Starred, Tuple

from ..bytecode import facts
from .depth import deep_enough
from .literals import LiteralPrinter, docstring_literal
from .precedence import (AND, ATOM, AWAIT, BINARY_OPERATORS, BOR, CMP, COMPARISONS, FACTOR, NAMED, OR, POWER, TEST,
                         TUPLE, UNARY_OPERATORS, YIELD)

__all__ = ["unparse"]


_EXPR = {}   # node class -> expression method
_STMT = {}   # node class -> statement method


def _lookup(table, prefix, cls):
    for klass in cls.__mro__:
        meth = getattr(_Unparser, prefix + klass.__name__, None)
        if meth is not None:
            table[cls] = meth
            return meth
    raise ValueError("unparse: unsupported node type %s" % cls.__name__)


_COMPOUND_STATEMENTS = {"If", "For", "AsyncFor", "While", "With", "AsyncWith", "Try", "TryStar", "Match",
                        "FunctionDef", "AsyncFunctionDef", "ClassDef"}


class _Unparser(LiteralPrinter):
    def __init__(self):
        self.lines = []
        self.origins = []    # per line: the original line of the statement it prints, or None
        self.origin = None
        self.line_of = {}    # id(statement) -> its original line (a ``Notes.line`` table)
        self.name_line = {}  # id(name) -> the original line it was loaded or stored at
        self.signature_lines = {}  # id(arguments) -> a def's SignatureLines
        self.decorator_lines = {}  # id(def or class) -> (its decorators' lines, that of def or class)
        self.filter_line = {}  # id(test) -> the original line of a comprehension filter on a line of its own
        self.one_line_try = {}  # id(try) -> a try whose body began on its line
        self.at = None       # the original line the text line being printed stands for (None: the
        #                      first name of a statement or clause head sets it)
        self.breaks = []     # the original lines of the line breaks printed and not yet written
        self.open = 0        # how many brackets are open around the expression being printed
        self.held = 0        # > 0 where no line may break (f-strings, patterns, some targets)
        self.outer = False   # printing an expression outside brackets, under its outermost one
        self.wants = False   # a name there wanted a line break, which only brackets allow
        self.pinned = None   # the original line the text's first stands for, where each class
        #                      statement is printed on its original line (None: not so)
        self.indent = ""
        # Quote tokens forbidden inside the replacement field being printed
        # (None outside f-string replacement fields, and always on 3.12+).
        self.fq = None

    # ----------------------------------------------------------- helpers
    def expr(self, node, prec=TEST):
        try:
            meth = _EXPR[node.__class__]
        except KeyError:
            meth = _lookup(_EXPR, "_x_", node.__class__)
        if self.open or self.outer or not self.name_line:
            text, own = meth(self, node)
        else:
            text, own = self.outermost(meth, node)
        return "(" + text + ")" if own < prec else text

    def outermost(self, meth, node):
        """An expression outside brackets, in parentheses where a name in it wants the line
        to break before it (only brackets let a line break inside an expression)."""
        at, breaks = self.at, len(self.breaks)
        self.outer, self.wants = True, False
        try:
            text, own = meth(self, node)
        finally:
            self.outer = False
        if not self.wants:
            return text, own
        self.at = at
        del self.breaks[breaks:]
        self.open += 1
        try:
            text, own = meth(self, node)
        finally:
            self.open -= 1
        return "(" + text + ")", ATOM

    def inside(self, show, *args):
        """``show(*args)``, printed inside brackets."""
        self.open += 1
        try:
            return show(*args)
        finally:
            self.open -= 1

    def unbroken(self, show, *args):
        """``show(*args)``, where no line may break."""
        self.held += 1
        try:
            return show(*args)
        finally:
            self.held -= 1

    def exprs(self, nodes, prec=TEST):
        return ", ".join([self.expr(n, prec) for n in nodes])

    def stmt(self, node):
        try:
            meth = _STMT[node.__class__]
        except KeyError:
            meth = _lookup(_STMT, "_s_", node.__class__)
        saved, self.origin = self.origin, self.line_of.get(id(node))
        self.at = None
        if self.pinned is not None and self.origin is not None and node.__class__.__name__ == "ClassDef":
            blank = self.origin - self.pinned - len(self.lines)
            if blank > 0:     # on its original line, where the text so far is shorter
                self.lines.extend([""] * blank)
                self.origins.extend([None] * blank)
        meth(self, node)
        self.origin = saved

    def line(self, text):
        self.lines.append(self.indent + text)
        self.origins.append(self.origin)
        if "\n" in text:      # broken before names on later original lines
            parts = text.split("\n")
            rest = parts[1:]
            self.lines[-1] = self.indent + parts[0].rstrip()
            self.lines.extend([self._continued(t.rstrip()) for t in rest[:-1]])
            self.lines.append(self._continued(rest[-1]))
            self.origins.extend(self.breaks[:len(rest)])
            del self.breaks[:len(rest)]

    def _continued(self, text):
        """A line the text of a statement goes on to: indented twice, a closing bracket
        first once less (a def's on a line of its own)."""
        return self.indent + (text if text[:1] in ")]}" else "        " + text)

    def block(self, head, body, doc=False):
        self.line(head + ":")
        saved = self.indent
        self.indent = saved + "    "
        if body:
            self.body(body, doc)
        else:
            self.line("pass")
        self.indent = saved

    def body(self, stmts, doc):
        """Statements; with ``doc`` (a module, function or class body), a string
        first is the docstring, written as a triple-quoted block."""
        for i, s in enumerate(stmts):
            if doc and i == 0 and isinstance(s, _Expr) and isinstance(s.value, Constant) \
                    and isinstance(s.value.value, str):
                saved, self.origin = self.origin, self.line_of.get(id(s))
                self.docstring(s.value)
                self.origin = saved
            else:
                self.stmt(s)

    def docstring(self, node):
        """A docstring with its line breaks, as ``ast.unparse`` writes it.  Each line
        after the first is indented with the body where the compiler strips that
        indentation again (3.13+), so the stored docstring stays the same."""
        text = docstring_literal(node.value)
        if text is None:
            self.line(self.constant(node.value, getattr(node, "kind", None))[0])
            return
        if self.indent and "\n" in text:
            first, _, rest = node.value.partition("\n")
            indented = first + "\n" + "\n".join(self.indent + x if x else x for x in rest.split("\n"))
            if facts.compiled_docstring(indented) == node.value:
                text = docstring_literal(indented)
        lines = (("u" if getattr(node, "kind", None) == "u" else "") + text).split("\n")
        self.line(lines[0])
        self.lines.extend(lines[1:])          # inside the literal: no indentation added
        self.origins.extend([None] * (len(lines) - 1))

    # ----------------------------------------------------------- statements
    def _s_Module(self, n):
        self.body(n.body, True)

    _s_Interactive = _s_Module

    def _s_Expression(self, n):
        self.line(self.expr(n.body))

    def _s_FunctionType(self, n):
        self.line("(%s) -> %s" % (self.exprs(n.argtypes), self.expr(n.returns)))

    def _s_Expr(self, n):
        self.line(self.expr(n.value, YIELD))

    def _s_Pass(self, n):
        self.line("pass")

    def _s_Break(self, n):
        self.line("break")

    def _s_Continue(self, n):
        self.line("continue")

    def _s_Global(self, n):
        self.line("global " + ", ".join(n.names))

    def _s_Nonlocal(self, n):
        self.line("nonlocal " + ", ".join(n.names))

    def _s_Return(self, n):
        if n.value is None:
            self.line("return")
        else:
            self.line("return " + self.expr(n.value, TUPLE))

    def _s_Delete(self, n):
        self.line("del " + self.exprs(n.targets))

    def _s_Assign(self, n):
        parts = [self.expr(t, TUPLE) for t in n.targets]
        parts.append(self.expr(n.value, YIELD))
        self.line(" = ".join(parts))

    def _s_AugAssign(self, n):
        self.line("%s %s= %s" % (self.expr(n.target, TUPLE),
                                 BINARY_OPERATORS[n.op.__class__.__name__][0],
                                 self.expr(n.value, YIELD)))

    def _s_AnnAssign(self, n):
        t = self.unbroken(self.expr, n.target, TUPLE)   # in parentheses, a name is not simple
        if not n.simple and isinstance(n.target, Name):
            t = "(" + t + ")"
        t += ": " + self.expr(n.annotation)
        if n.value is not None:
            t += " = " + self.expr(n.value, YIELD)
        self.line(t)

    def _s_Raise(self, n):
        t = "raise"
        if n.exc is not None:
            t += " " + self.expr(n.exc)
        if n.cause is not None:
            t += " from " + self.expr(n.cause)
        self.line(t)

    def _s_Assert(self, n):
        t = "assert " + self.expr(n.test)
        if n.msg is not None:
            t += ", " + self.expr(n.msg)
        self.line(t)

    def _s_Import(self, n):
        self.line("import " + ", ".join([self.alias(a) for a in n.names]))

    def _s_ImportFrom(self, n):
        self.line("from %s%s import %s" % ("." * (n.level or 0), n.module or "",
                                           ", ".join([self.alias(a) for a in n.names])))

    def alias(self, a):
        return a.name + " as " + a.asname if a.asname else a.name

    def _s_If(self, n):
        self.block("if " + self.expr(n.test), n.body)
        orelse = n.orelse
        while len(orelse) == 1 and orelse[0].__class__.__name__ == "If":
            n = orelse[0]
            self.origin = self.line_of.get(id(n), self.origin)
            self.at = None
            self.block("elif " + self.expr(n.test), n.body)
            orelse = n.orelse
        if orelse:
            self.block("else", orelse)

    def _s_While(self, n):
        self.block("while " + self.expr(n.test), n.body)
        if n.orelse:
            self.block("else", n.orelse)

    def _s_For(self, n, kw="for "):
        it = n.iter
        prec = TUPLE
        if not facts.STARRED_FOR_ITERABLE and isinstance(it, Tuple) and any(isinstance(e, Starred) for e in it.elts):
            prec = TEST     # 3.8 does not accept `for x in *a, b:`
        self.block(kw + self.expr(n.target, TUPLE) + " in " + self.expr(it, prec), n.body)
        if n.orelse:
            self.block("else", n.orelse)

    def _s_AsyncFor(self, n):
        self._s_For(n, "async for ")

    def _s_With(self, n, kw="with "):
        items = []
        for item in n.items:
            t = self.expr(item.context_expr)
            if item.optional_vars is not None:
                t += " as " + self.expr(item.optional_vars)
            items.append(t)
        self.block(kw + ", ".join(items), n.body)

    def _s_AsyncWith(self, n):
        self._s_With(n, "async with ")

    def _s_Try(self, n, star=""):
        if not (id(n) in self.one_line_try and self._on_one_line("try: ", n.body)):
            self.block("try", n.body)
        for h in n.handlers:
            self.at = None
            t = "except" + star
            if h.type is not None:
                t += " " + self.expr(h.type)
            if h.name:
                t += " as " + h.name
            self.block(t, h.body)
        if n.orelse:
            self.block("else", n.orelse)
        if n.finalbody:
            self.block("finally", n.finalbody)

    def _on_one_line(self, head, body):
        """Print ``head`` and ``body``, one simple statement, on one line, if it prints
        on one; else print nothing and return False."""
        if len(body) != 1 or body[0].__class__.__name__ in _COMPOUND_STATEMENTS:
            return False
        start = len(self.lines)
        self.stmt(body[0])
        if len(self.lines) != start + 1:
            del self.lines[start:], self.origins[start:]
            return False
        self.lines[start] = self.indent + head + self.lines[start][len(self.indent):]
        return True

    def _s_TryStar(self, n):
        self._s_Try(n, "*")

    def _s_ExceptHandler(self, n):      # only when printed on its own
        start = len(self.lines)
        self._s_Try(_Bare(body=[], handlers=[n], orelse=[], finalbody=[]))
        del self.lines[start:start + 2], self.origins[start:start + 2]   # ``try:`` and its ``pass``

    def decorators(self, n):
        """The ``@`` lines of ``n``, each on its own original line where noted, and after
        them the line of ``def`` or ``class`` where noted (``decorator_lines``)."""
        lines, head = self.decorator_lines.get(id(n), ((), None))
        statement = self.origin
        for i, d in enumerate(n.decorator_list):
            line = lines[i] if i < len(lines) else None
            self.origin = line if line is not None else statement
            self.line("@" + self.unbroken(self.expr, d))
        self.origin = head if head is not None else statement

    def type_params(self, n):
        params = getattr(n, "type_params", None)
        if not params:
            return ""
        return "[" + self.inside(self.type_param_list, params) + "]"

    def type_param_list(self, params):
        out = []
        for p in params:
            kind = p.__class__.__name__
            t = {"TypeVar": "", "ParamSpec": "**", "TypeVarTuple": "*"}[kind] + p.name
            if kind == "TypeVar" and p.bound is not None:
                t += ": " + self.expr(p.bound)
            if getattr(p, "default_value", None) is not None:
                t += " = " + self.expr(p.default_value)
            out.append(t)
        return ", ".join(out)

    def _s_FunctionDef(self, n, kw="def "):
        self.decorators(n)
        if not n.decorator_list:
            self.at = self.origin    # the line of ``def``: its signature may go on below it
        sig = self.signature_lines.get(id(n.args))
        if sig is not None:
            self.at = sig.head       # (after decorators, where it was None)
        head = "%s%s%s(%s" % (kw, n.name, self.type_params(n), self.inside(self.arguments, n.args))
        if sig is not None and sig.close is not None and not self.held and sig.close > self.at:
            head += ",\n" if head[-1:] != "(" else "\n"   # the bracket on a line of its own
            self.at = sig.close
            self.breaks.append(sig.close)
        head += ")"
        if n.returns is not None:
            head += " -> " + self.expr(n.returns)
        self.block(head, n.body, doc=True)

    def _s_AsyncFunctionDef(self, n):
        self._s_FunctionDef(n, "async def ")

    def _s_ClassDef(self, n):
        self.decorators(n)
        head = "class " + n.name + self.type_params(n)
        args = self.inside(self.call_arguments, _Bare(args=n.bases, keywords=n.keywords))
        if n.bases or n.keywords:
            head += "(" + args + ")"
        self.block(head, n.body, doc=True)

    def _s_TypeAlias(self, n):
        self.line("type %s%s = %s" % (self.expr(n.name), self.type_params(n),
                                      self.expr(n.value)))

    def _s_Match(self, n):
        self.line("match " + self.expr(n.subject, TUPLE) + ":")
        saved = self.indent
        self.indent += "    "
        for case in n.cases:
            self._s_match_case(case)
        self.indent = saved

    def _s_match_case(self, c):
        self.at = None
        head = "case " + self.unbroken(self.pattern, c.pattern)
        if c.guard is not None:
            head += " if " + self.expr(c.guard)
        self.block(head, c.body)

    # ----------------------------------------------------------- patterns
    def pattern(self, p, level=0):
        """level 0: anywhere; 1: an alternative of `|`; 2: left of `as`."""
        kind = p.__class__.__name__
        if kind == "MatchValue":
            return self.expr(p.value, 0)
        if kind == "MatchSingleton":
            return repr(p.value)
        if kind == "MatchSequence":
            return "[" + ", ".join([self.pattern(x) for x in p.patterns]) + "]"
        if kind == "MatchStar":
            return "*" + (p.name or "_")
        if kind == "MatchMapping":
            items = [self.expr(k, 0) + ": " + self.pattern(v)
                     for k, v in zip(p.keys, p.patterns)]
            if p.rest is not None:
                items.append("**" + p.rest)
            return "{" + ", ".join(items) + "}"
        if kind == "MatchClass":
            args = [self.pattern(x) for x in p.patterns]
            args += [k + "=" + self.pattern(v) for k, v in zip(p.kwd_attrs, p.kwd_patterns)]
            return self.expr(p.cls, ATOM) + "(" + ", ".join(args) + ")"
        if kind == "MatchAs":
            if p.pattern is None:
                return p.name or "_"
            t = self.pattern(p.pattern, 2) + " as " + p.name
            return "(" + t + ")" if level else t
        if kind == "MatchOr":
            t = " | ".join([self.pattern(x, 1) for x in p.patterns])
            return "(" + t + ")" if level == 1 else t
        raise ValueError("unparse: unsupported pattern %s" % kind)

    # ----------------------------------------------------------- arguments
    def arguments(self, a, lam=False):
        out = []
        posonly = getattr(a, "posonlyargs", None) or []
        pos = posonly + a.args
        defaults = [None] * (len(pos) - len(a.defaults)) + list(a.defaults)
        for i, (arg, default) in enumerate(zip(pos, defaults)):
            out.append(self.arg(arg, default, lam))
            if i == len(posonly) - 1:
                out.append("/")
        if a.vararg is not None:
            out.append(_starred("*", self.arg(a.vararg, None, lam)))
        elif a.kwonlyargs:
            out.append("*")
        for i, (arg, default) in enumerate(zip(a.kwonlyargs, a.kw_defaults)):
            t = self.arg(arg, default, lam)
            if i == 0 and a.vararg is None and t[:1] == "\n":    # the bare star goes on with it
                out[-1], t = "\n*", t[1:]
            out.append(t)
        if a.kwarg is not None:
            out.append(_starred("**", self.arg(a.kwarg, None, lam)))
        return ", ".join(out)

    def arg(self, arg, default, lam):
        t = self.on_its_line(arg, arg.arg) if self.open else arg.arg
        eq = "="
        if arg.annotation is not None and not lam:
            t += ": " + self.expr(arg.annotation)
            eq = " = "
        if default is not None:
            value = self.expr(default)
            if value[:1] == "\n" and t[:1] != "\n":    # the line breaks before the parameter, not after it
                return "\n" + t + eq + value[1:]
            t += eq + value
        return t

    def keyword(self, k):
        if k.arg is None:
            return "**" + self.expr(k.value, BOR)
        value = self.expr(k.value)
        if value[:1] == "\n":      # the line breaks before the keyword, not after it
            return "\n" + k.arg + "=" + value[1:]
        return k.arg + "=" + value

    # ----------------------------------------------------------- expressions
    def _x_Name(self, n):
        return self.on_its_line(n, n.id), ATOM

    def on_its_line(self, n, text):
        """``text`` (of ``n``), after a line break if ``n`` has an original line later than
        the one the text line stands for."""
        line = self.name_line.get(id(n))
        if line is None or self.held:
            return text
        if self.at is None:       # the first name: the line stands for its original line
            self.at = line
        if line <= self.at:
            return text
        if not self.open:
            self.wants = True
            return text
        self.at = line
        self.breaks.append(line)
        return "\n" + text

    def _x_Constant(self, n):
        text, own = self.constant(n.value, getattr(n, "kind", None))
        return self.on_its_line(n, text), own

    def _x_Tuple(self, n):
        if not n.elts:
            return "()", ATOM
        if len(n.elts) == 1:
            return self.expr(n.elts[0]) + ",", TUPLE
        return self.exprs(n.elts), TUPLE

    def _x_List(self, n):
        return "[" + self.inside(self.exprs, n.elts) + "]", ATOM

    def _x_Set(self, n):
        if not n.elts:
            return "{*()}", ATOM
        return "{" + self.inside(self.exprs, n.elts) + "}", ATOM

    def _x_Dict(self, n):
        return "{" + self.inside(self.items, n) + "}", ATOM

    def items(self, n):
        out = []
        for k, v in zip(n.keys, n.values):
            if k is None:
                out.append("**" + self.expr(v, BOR))
            else:
                out.append(self.expr(k) + ": " + self.expr(v))
        return ", ".join(out)

    def comprehension(self, generators):
        out = []
        for g in generators:
            out.append(" async for " if g.is_async else " for ")
            out.append(self.expr(g.target, TUPLE))
            out.append(" in ")
            out.append(self.expr(g.iter, OR))
            for cond in g.ifs:
                out.append(self.filter_head(cond))
                out.append(self.expr(cond, OR))
        return "".join(out)

    def filter_head(self, cond):
        """`` if `` before a comprehension's filter, on a new line where it had one of its own."""
        line = self.filter_line.get(id(cond))
        if line is None or self.held:
            return " if "
        self.at = line
        self.breaks.append(line)
        return "\nif "

    def _x_ListComp(self, n):
        return "[" + self.inside(self.element, n) + "]", ATOM

    def _x_SetComp(self, n):
        return "{" + self.inside(self.element, n) + "}", ATOM

    def _x_GeneratorExp(self, n):
        return "(" + self.inside(self.element, n) + ")", ATOM

    def _x_DictComp(self, n):
        return "{" + self.inside(self.element, n) + "}", ATOM

    def element(self, n):
        """A comprehension's element (``key: value`` of a dict's) and its loops."""
        elt = self.expr(n.key) + ": " + self.expr(n.value) if n.__class__.__name__ == "DictComp" \
            else self.expr(n.elt)
        return elt + self.comprehension(n.generators)

    def _x_BoolOp(self, n):
        if n.op.__class__.__name__ == "And":
            sep, prec = " and ", AND
        else:
            sep, prec = " or ", OR
        return sep.join([self.expr(v, prec + 1) for v in n.values]), prec

    def _x_BinOp(self, n):
        sym, prec = BINARY_OPERATORS[n.op.__class__.__name__]
        if prec == POWER:                 # right associative; `2 ** -1` is fine
            left, right = AWAIT, FACTOR
        else:
            left, right = prec, prec + 1
        return self.expr(n.left, left) + " " + sym + " " + self.expr(n.right, right), prec

    def _x_UnaryOp(self, n):
        sym, prec = UNARY_OPERATORS[n.op.__class__.__name__]
        return sym + self.expr(n.operand, prec), prec

    def _x_Compare(self, n):
        out = [self.expr(n.left, CMP + 1)]
        for op, right in zip(n.ops, n.comparators):
            out.append(COMPARISONS[op.__class__.__name__])
            out.append(self.expr(right, CMP + 1))
        return " ".join(out), CMP

    def _x_Lambda(self, n):
        args = self.arguments(n.args, lam=True)
        return ("lambda " + args if args else "lambda") + ": " + self.expr(n.body), TEST

    def _x_IfExp(self, n):
        return (self.expr(n.body, OR) + " if " + self.expr(n.test, OR) + " else "
                + self.expr(n.orelse, TEST)), TEST

    def _x_NamedExpr(self, n):
        return self.expr(n.target, ATOM) + " := " + self.expr(n.value), NAMED

    def _x_Await(self, n):
        return "await " + self.expr(n.value, ATOM), AWAIT

    def _x_Yield(self, n):
        if n.value is None:
            return "yield", YIELD
        return "yield " + self.expr(n.value, TUPLE), YIELD

    def _x_YieldFrom(self, n):
        return "yield from " + self.expr(n.value), YIELD

    def _x_Starred(self, n):
        return "*" + self.expr(n.value, BOR), ATOM

    def _x_Attribute(self, n):
        v = n.value
        t = self.expr(v, ATOM)
        if isinstance(v, Constant) and v.value.__class__ is int and v.value >= 0:
            t = "(" + t + ")"             # `1.real` would lex as a float
        return t + "." + n.attr, ATOM

    def _x_Call(self, n):
        args = n.args
        if len(args) == 1 and not n.keywords and args[0].__class__.__name__ == "GeneratorExp":
            func = self.expr(n.func, ATOM)
            return func + self.expr(args[0]), ATOM
        func = self.expr(n.func, ATOM)
        return func + "(" + self.inside(self.call_arguments, n) + ")", ATOM

    def call_arguments(self, n):
        return ", ".join([self.expr(a) for a in n.args] + [self.keyword(k) for k in n.keywords])

    def _x_Subscript(self, n):
        value = self.expr(n.value, ATOM)
        return value + "[" + self.inside(self.index, n.slice) + "]", ATOM

    def index(self, s):
        kind = s.__class__.__name__
        if kind == "Index":
            return self.index(s.value)
        elts = None
        if kind == "ExtSlice":
            elts = s.dims
        elif kind == "Tuple" and s.elts and (
                facts.STARRED_SUBSCRIPT or not any(isinstance(e, Starred) for e in s.elts)):
            elts = s.elts
        if elts is None:
            return self.expr(s, TUPLE)
        parts = [self.expr(e.value if isinstance(e, Index) else e) for e in elts]
        if len(parts) == 1 and not isinstance(elts[0], Starred):
            return parts[0] + ","
        return ", ".join(parts)

    _x_Index = lambda self, n: (self.index(n), TUPLE)   # noqa: E731
    _x_ExtSlice = _x_Index

    def _x_Slice(self, n):
        out = []
        for bound in (n.lower, n.upper, n.step):
            if bound is None:
                out.append("")
            else:
                t = self.expr(bound)
                out.append("(" + t + ")" if bound.__class__.__name__ == "Lambda" else t)
        if n.step is None:
            del out[2]
        return ":".join(out), ATOM

def _starred(star, text):
    """``star`` before a parameter's ``text``, after the line break that text begins with."""
    return "\n" + star + text[1:] if text[:1] == "\n" else star + text


class _Bare:
    def __init__(self, **kw):
        self.__dict__.update(kw)


@deep_enough
def unparse_with_origins(module, lines, name_lines=None, pinned=None, filter_lines=None, one_line_trys=None,
                         signature_lines=None, decorator_lines=None):
    """``unparse`` of a module, and per line of the text the original line of the
    statement it prints (as ``lines``, a :class:`~unveil.syntax.notes.Fact`, has it) or None.
    With ``name_lines`` (the names' original lines, another such fact), an expression
    breaks its line before each name of a later original line than the text so far
    (inside brackets: in parentheses of its own if it has none), as the original spread it.
    With ``pinned`` (the original line the text's first line stands for: 1 for a whole
    module), each class statement is printed on its original line where the text before it
    is shorter.
    With ``filter_lines`` (another such fact), a comprehension filter noted there starts a line.
    With ``one_line_trys`` (another such fact), a ``try`` noted there whose body is one
    simple statement is printed on one line with it (``try: x = f()``).
    With ``signature_lines`` (another such fact), a def noted there breaks its parameters'
    lines from the line of ``def`` (the ``name_lines`` of its parameters), and puts its
    closing bracket on a line of its own where noted.
    With ``decorator_lines`` (another such fact), each decorator of a def or class noted
    there, and its ``def`` or ``class``, stand for their own original lines."""
    u = _Unparser()
    u.line_of = lines.values
    u.pinned = pinned
    if name_lines is not None:
        u.name_line = name_lines.values
    if filter_lines is not None:
        u.filter_line = filter_lines.values
    if one_line_trys is not None:
        u.one_line_try = one_line_trys.values
    if signature_lines is not None:
        u.signature_lines = signature_lines.values
    if decorator_lines is not None:
        u.decorator_lines = decorator_lines.values
    u.stmt(module)
    return "\n".join(u.lines), u.origins


@deep_enough
def unparse(node):
    """Return Python source text for ``node`` (valid on the running Python)."""
    u = _Unparser()
    if isinstance(node, list):
        for s in node:
            u.stmt(s)
        return "\n".join(u.lines)
    if not isinstance(node, AST):
        raise ValueError("unparse: expected an AST node, got %r" % (node,))
    kind = node.__class__.__name__
    if node.__class__ in _EXPR or hasattr(_Unparser, "_x_" + kind):
        return u.expr(node, TEST)
    if kind.startswith("Match") or kind == "pattern":
        return u.pattern(node)
    if kind == "arguments":
        return u.arguments(node)
    if kind == "keyword":
        return u.keyword(node)
    if kind == "alias":
        return u.alias(node)
    if kind == "comprehension":
        return u.comprehension([node]).lstrip()
    if kind == "withitem":
        t = u.expr(node.context_expr)
        return t + " as " + u.expr(node.optional_vars) if node.optional_vars else t
    if kind in ("TypeVar", "ParamSpec", "TypeVarTuple"):
        return u.type_params(_Bare(type_params=[node]))[1:-1]
    if kind == "match_case":
        u._s_match_case(node)
        return "\n".join(u.lines)
    u.stmt(node)
    return "\n".join(u.lines)
