"""Generated programs for the defect families Dynamo's bytecode showed (issue 35), each
judged by running the decompiled and recompiled code against the original: the
generators of ``tests/test_family_programs.py`` and ``benchmarks/family_fuzz.py``.

* ``constants``: objects with no source form among a code's constants (dicts, lists,
  sets, a dtype-like object, functions, classes, modules, ``object()``, tuples holding
  unhashable things, nan, -0.0, complex, bytes, code objects...), put there by
  ``code.replace(co_consts=...)`` in place of sentinel integers, and loaded to be
  returned, compared with ``is``, called, subscripted, passed to a nested function,
  made a nested def's default, read in a lambda, a comprehension, a class body or a
  method.  The results must be the very objects where the original returns them.
* ``mangling``: classes (names with and without underscores, nested) whose methods
  make functions, lambdas and comprehensions several levels deep that read private
  attributes (``self.__x``), private globals, names already mangled, bound objects of
  the first family, and temporaries the decompiler invents (a value left on the stack
  across a statement, made by cutting a local's store and load out of the bytecode).
* ``prefixes``: ``decompile_code(fn, bindings_prefix=...)`` with prefixes made of
  qualified names as Dynamo's dump makes them (``session._identifier_part``) and of
  arbitrary text: an accepted prefix must give text that recompiles and runs, one that
  does not begin an identifier must raise ``ValueError``.
* ``slices``: ``a:b:c`` with parts left out and parts with effects, as subscripts, in
  tuples of subscripts, stored into, deleted, augmented, and (bytecode no compiler
  writes) a slice ``BUILD_SLICE`` made left on the stack across statements, then
  subscripting, stored, passed or compared.

Every sample is made from source by a ``random.Random(seed)``: the same sample on every
run and every Python from 3.8 to 3.13.  The bytecode edits read and write instructions
with ``tests/stack_branch_programs.py``'s assembler; what differs between versions is
in :func:`_instructions` (3.13's pairs of loads and stores in one instruction) and
:func:`_edited` (the 3.11+ exception table an edited code must not have).
"""
import math
import opcode
import random
import re
import sys
import traceback
import types
import warnings

import unveil
from tests import stack_branch_programs as sbp

VERSION = sys.version_info[:2]
#: the first sentinel integer of a sample's text; each stands for one object
SENTINEL = 9100000


_ADDRESS = re.compile(r" at 0x[0-9a-f]+")


# -- judging ----------------------------------------------------------------------
def alike(a, b, kept=frozenset()):
    """Whether ``b`` is what ``a`` is: the very object where ``a`` is one whose identity
    counts (its id in ``kept``: an object the sample put among the constants), else a
    value of the same type, tuples and lists item by item, floats and complex numbers
    by ``repr`` (nan, -0.0), anything else by ``repr`` with addresses left out (a bound
    method of an instance each call makes)."""
    if a is b:
        return True
    if id(a) in kept or type(a) is not type(b):
        return False
    if type(a) in (tuple, list):
        return len(a) == len(b) and all(alike(x, y, kept) for x, y in zip(a, b))
    if type(a) in (int, str, bytes, bool, frozenset, range, slice):
        return a == b
    return _ADDRESS.sub("", repr(a)) == _ADDRESS.sub("", repr(b))


def outcome(fn, *args):
    """What calling ``fn`` returns, or the exception it raises."""
    try:
        return "value", fn(*args)
    except Exception as exc:   # the program's own exceptions are part of its behaviour
        return "raise", exc


def same_outcome(a, b, kept=frozenset()):
    return a[0] == b[0] and alike(a[1], b[1], kept)


def rebuilt(fn, bindings_prefix=None):
    """``(function, Decompiled)``: ``fn`` decompiled, recompiled, and made a function with
    the bindings the text names among its globals."""
    kwargs = {} if bindings_prefix is None else {"bindings_prefix": bindings_prefix}
    result = unveil.decompile_code(fn, **kwargs)
    code = unveil.recompile(result.source, fn.__code__)
    namespace = dict(fn.__globals__)
    namespace.update(result.bindings)
    return types.FunctionType(code, namespace, fn.__name__, fn.__defaults__, fn.__closure__), result


def verdict(fn, calls, kept=frozenset(), bindings_prefix=None):
    """``(verdict, detail)`` of ``fn``: ``same`` (structured, every call alike),
    ``lowered`` (alike, written as the state machine), ``refused``, ``crash`` (an internal
    error, or text that does not compile) or ``wrong``."""
    expected = [outcome(fn, *args) for args in calls]
    try:
        new, result = rebuilt(fn, bindings_prefix)
    except unveil.InternalError:
        return "crash", traceback.format_exc()
    except unveil.DecompilationError as exc:
        return ("crash" if "does not compile" in str(exc) else "refused"), str(exc)
    for args, want in zip(calls, expected):
        got = outcome(new, *args)
        if not same_outcome(want, got, kept):
            return "wrong", "arguments %r:\n  original:   %r\n  decompiled: %r\n%s" % (args, want, got, result.source)
    return ("lowered" if result.lowered else "same"), result.source


class Sample:
    """One generated program: its family, seed and source (defining ``f``), the objects
    standing for its sentinels (``SENTINEL + i`` for the ``i``-th), those whose identity
    counts (``kept``, ids), its locals whose store and load the edit cuts out
    (``waiting``), the argument tuples ``f`` is called with, and the bindings prefix it
    is decompiled with (None: the default); ``method``, the path of a class and its method
    in the module (``Outer.C.m``): then the module's code is decompiled whole, and the
    method alone, each judged by calling ``f`` (:func:`module_verdict`)."""

    def __init__(self, family, seed, source, objects=(), kept=(), waiting=(), calls=((),), prefix=None,
                 method=None):
        self.family, self.seed, self.source, self.method = family, seed, source, method
        self.objects, self.kept, self.waiting = list(objects), frozenset(kept), tuple(waiting)
        self.calls, self.prefix = list(calls), prefix

    def __repr__(self):
        return "Sample(%s %d)" % (self.family, self.seed)


def judge(sample):
    """The verdict of ``sample`` (see :func:`verdict`); a prefix refused as it must be is
    ``same``, one accepted that must not be ``wrong``."""
    if sample.method is not None:
        return module_verdict(sample)
    fn = build(sample)
    if sample.prefix is not None and not (sample.prefix + "x").isidentifier():
        try:
            unveil.decompile_code(fn, bindings_prefix=sample.prefix)
        except ValueError:
            return "same", "refused the prefix %r" % (sample.prefix,)
        return "wrong", "accepted the prefix %r" % (sample.prefix,)
    return verdict(fn, sample.calls, sample.kept, sample.prefix)


def module_verdict(sample):
    """The verdict of a sample with a ``method``: ``f`` of the module run from the text its
    code decompiles to, then ``f`` of the module with that method alone decompiled and
    recompiled, against ``f`` of the original."""
    code = module_code(sample)
    original = run_module(code)["f"]
    expected = [outcome(original, *args) for args in sample.calls]
    lowered, texts = False, []
    for whole in (True, False):
        try:
            if whole:
                result = unveil.decompile_code(code)
                namespace = run_module(compile(result.source, "<decompiled %r>" % (sample,), "exec"), result.bindings)
            else:
                namespace = run_module(code)
                *path, name = sample.method.split(".")
                cls = namespace[path[0]]
                for part in path[1:]:
                    cls = getattr(cls, part)
                method, result = rebuilt(cls.__dict__[name])
                setattr(cls, name, method)
        except unveil.InternalError:
            return "crash", traceback.format_exc()
        except unveil.DecompilationError as exc:
            return ("crash" if "does not compile" in str(exc) else "refused"), str(exc)
        except SyntaxError:
            return "crash", traceback.format_exc()
        lowered = lowered or bool(result.lowered)
        texts.append(result.source)
        for args, want in zip(sample.calls, expected):
            got = outcome(namespace["f"], *args)
            if not same_outcome(want, got, sample.kept):
                return "wrong", "%s, arguments %r:\n  original:   %r\n  decompiled: %r\n%s" % (
                    "the module" if whole else sample.method + " alone", args, want, got, result.source)
    return ("lowered" if lowered else "same"), "\n".join(texts)


def survey(family, seeds):
    """{verdict: [(sample, detail)]} over the samples of ``family`` of ``seeds``."""
    out = {}
    for seed in seeds:
        sample = FAMILIES[family](seed)
        try:
            found = judge(sample)
        except sbp.GeneratorError:
            raise
        except Exception:   # a crash outside unveil's own errors (the judge's own too) is reported whole
            found = "crash", traceback.format_exc()
        out.setdefault(found[0], []).append((sample, found[1]))
    return out


# -- building: sentinels replaced, waiting locals cut out ---------------------------
def build(sample):
    """The function ``f`` of ``sample`` (see :func:`module_code`)."""
    return run_module(module_code(sample))["f"]


def module_code(sample):
    """The module code of ``sample``: compiled, each sentinel among its constants (and its
    nested code's, tuples included) replaced by its object, each waiting local's store
    and load cut out of the bytecode."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")    # ("is" with a literal, an int called)
        code = compile(sample.source, "<%r>" % (sample,), "exec")
    return _transformed(code, sample)


def run_module(code, bindings=None):
    namespace = {"__name__": "family_sample", "math": math, "Recorder": Recorder, "Box": Box}
    namespace.update(bindings or {})
    exec(code, namespace)
    return namespace


def _transformed(code, sample):
    consts = tuple(_transformed(c, sample) if isinstance(c, types.CodeType) else _swapped(c, sample.objects)
                   for c in code.co_consts)
    code = code.replace(co_consts=consts)
    waiting = [n for n in sample.waiting if n in code.co_varnames]
    return _edited(code, waiting) if waiting else code


def _swapped(value, objects):
    if type(value) is int and SENTINEL <= value < SENTINEL + len(objects):
        return objects[value - SENTINEL]
    if type(value) is tuple:
        return tuple(_swapped(v, objects) for v in value)
    return value


def _instructions(code):
    """``code``'s instructions as ``sbp._Ins``, jump targets as instructions, 3.13's
    ``LOAD_FAST_LOAD_FAST``, ``STORE_FAST_LOAD_FAST`` and ``STORE_FAST_STORE_FAST``
    split into their two instructions (an edit cuts out one of them)."""
    instrs = sbp._read(code)
    for ins in instrs:
        if ins.target is not None:
            ins.target = instrs[ins.target]
    out, split = [], {}
    for ins in instrs:
        name = opcode.opname[ins.op]
        if name in ("LOAD_FAST_LOAD_FAST", "STORE_FAST_LOAD_FAST", "STORE_FAST_STORE_FAST"):
            first, second = name.split("_FAST_")
            head = sbp._Ins(opcode.opmap[first + "_FAST"], ins.arg >> 4, ins.line)
            split[id(ins)] = head
            out += [head, sbp._Ins(opcode.opmap[second], ins.arg & 15, ins.line)]
        else:
            out.append(ins)
    for ins in out:
        if ins.target is not None:
            ins.target = split.get(id(ins.target), ins.target)
    return out


def _edited(code, waiting):
    """``code`` with each ``_S[a:b:c]`` made the bare ``BUILD_SLICE`` (:func:`_bare_slices`),
    and without the stores and loads of the locals ``waiting`` (each stored once, then
    loaded once, in the same order): their values wait on the stack in between, as
    Dynamo's do.  Jumps to a cut instruction go to the one after it."""
    if VERSION >= (3, 11) and code.co_exceptiontable:
        raise sbp.GeneratorError("%s has an exception table: the edit would move its ranges" % code.co_name)
    instrs = _instructions(code)
    cut = _bare_slices(code, instrs) if "_S" in code.co_names else set()
    slots = {code.co_varnames.index(n) for n in waiting}
    fast = {opcode.opmap["LOAD_FAST"], opcode.opmap["STORE_FAST"]}
    waits = {id(ins) for ins in instrs if ins.op in fast and ins.arg in slots}
    if len(waits) != 2 * len(slots):
        raise sbp.GeneratorError("a waiting local of %s is not stored and loaded once each" % code.co_name)
    cut |= waits
    after, following = {}, None
    for ins in reversed(instrs):
        if id(ins) in cut:
            after[id(ins)] = following
        else:
            following = ins
    kept = [ins for ins in instrs if id(ins) not in cut]
    for ins in kept:
        if ins.target is not None:
            ins.target = after.get(id(ins.target), ins.target)
    co_code, lines = sbp._assemble(kept)
    fields = dict(co_code=co_code, co_stacksize=code.co_stacksize + len(slots) + 2)
    fields["co_linetable" if VERSION >= (3, 10) else "co_lnotab"] = sbp._line_table(code.co_firstlineno, lines)
    return code.replace(**fields)


def _bare_slices(code, instrs):
    """The ids of the instructions to cut so that each ``_S[a:b:c]`` of ``code`` leaves its
    slice on the stack (no compiler writes that outside a subscript): the load of ``_S``
    and the ``BINARY_SUBSCR`` after its ``BUILD_SLICE``; 3.12+'s ``BINARY_SLICE`` of
    ``_S[a:b]`` is made a ``BUILD_SLICE 2`` in place."""
    marker = code.co_names.index("_S")
    load_global = opcode.opmap["LOAD_GLOBAL"]
    cut, open_markers = set(), 0
    for k, ins in enumerate(instrs):
        name = opcode.opname[ins.op]
        if ins.op == load_global and (ins.arg >> 1 if VERSION >= (3, 11) else ins.arg) == marker:
            cut.add(id(ins))
            open_markers += 1
        elif open_markers and name == "BUILD_SLICE":
            if opcode.opname[instrs[k + 1].op] != "BINARY_SUBSCR":
                raise sbp.GeneratorError("_S[...] is not a BUILD_SLICE then a BINARY_SUBSCR")
            cut.add(id(instrs[k + 1]))
            open_markers -= 1
        elif open_markers and name == "BINARY_SLICE":
            ins.op, ins.arg = opcode.opmap["BUILD_SLICE"], 2
            open_markers -= 1
    return cut


# -- family 1: constants with no source form ----------------------------------------
class DType:
    """A dtype-like object (``torch.float32``): no literal makes it."""

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return "torch." + self.name


def _double(x):
    return 2 * x


def _code_of_a_nested_function():
    def nested(x):
        return x + 1
    return nested.__code__


def _containing_itself():
    items = [1]
    items.append(items)
    return items


#: kind -> (the object's factory, whether a literal makes it anew (its identity does not
#: count), an argument text it is called with (None: not callable), a subscript text,
#: an attribute)
KINDS = {
    "dict": (lambda: {"k": 1, 2: [3]}, False, None, "'k'", None),
    "list": (lambda: [1, "two", None], False, None, "1", None),
    "set": (lambda: {1, 2}, False, None, None, None),
    "list containing itself": (_containing_itself, False, None, "0", None),
    "dtype": (lambda: DType("float32"), False, None, None, "name"),
    "function": (lambda: _double, False, "3", None, "__name__"),
    "lambda": (lambda: (lambda x=0: (x, "lam")), False, "4", None, None),
    "class": (lambda: DType, False, "'half'", None, "__name__"),
    "builtin": (lambda: len, False, "'abc'", None, "__name__"),
    "bound method": (lambda: "abc".upper, False, "", None, "__name__"),
    "type of None": (lambda: type(None), False, "", None, "__name__"),
    "module": (lambda: math, False, None, None, "pi"),
    "object": (object, False, None, None, None),
    "exception": (lambda: ValueError("boom"), False, None, None, "args"),
    "NotImplemented": (lambda: NotImplemented, False, None, None, None),
    "nested tuple": (lambda: (1, ([2], {"k": (3,)}), frozenset({4})), False, None, "1", None),
    "tuple of a function": (lambda: (len, "ab"), False, None, "0", None),
    "code": (_code_of_a_nested_function, False, None, None, "co_name"),
    "slice": (lambda: slice(1, None, -1), False, None, None, "start"),
    "range": (lambda: range(3), False, None, "2", "stop"),
    "nan": (lambda: float("nan"), True, None, None, "real"),
    "-inf": (lambda: float("-inf"), True, None, None, None),
    "-0.0": (lambda: -0.0, True, None, None, None),
    "complex": (lambda: complex(float("nan"), -0.0), True, None, None, "imag"),
    "bytes": (lambda: b"\x00\xff'", True, None, "1", None),
    "Ellipsis": (lambda: ..., True, None, None, None),
    "frozenset": (lambda: frozenset({(1, 2), "a"}), True, None, None, None),
    "big int": (lambda: 2 ** 100, True, None, None, "real"),
    "str": (lambda: "\xe9\n'\\\x00", True, None, "0", None),
}

#: where a use of an object goes: in the returned tuple, or in a definition made first
_EXPRESSIONS = ["{K}", "{K} is a", "a is not {K}", "({K} if a is None else 0)", "({K}, a)", "(lambda: {K})()",
                "(lambda v={K}: v)()", "[{K} for _ in range(2)]", "tuple({K} for _ in 'ab')", "_pass({K})",
                "{{1: {K}}}[1]"]
_CALLABLE = ["{K}({arg})"]
_SUBSCRIPTABLE = ["{K}[{sub}]"]
_ATTRIBUTED = ["({K}).{attr}"]
#: definitions (lines of the function's body before its return) and the expression reading them
_DEFINITIONS = [
    (["def _d{n}(v={K}):", "    return v"], "_d{n}()"),
    (["def _k{n}(*, v={K}):", "    return v"], "_k{n}()"),
    (["class {C}{n}:", "    attr = {K}"], "{C}{n}.attr"),
    (["class {C}{n}:", "    __p = {K}", "    def get(self):", "        return self.__p"], "{C}{n}().get()"),
    (["class {C}{n}:", "    def m(self):", "        return {K}"], "{C}{n}().m()"),
    (["class {C}{n}:", "    def m(self):", "        return (lambda: {K})()"], "{C}{n}().m()"),
    (["class {C}{n}:", "    def m(self):", "        return [{K} for _ in (1,)]"], "{C}{n}().m()"),
    (["class {C}{n}:", "    def m(self):", "        def inner(v={K}):", "            return (v, {K})",
      "        return inner()"], "{C}{n}().m()"),
    (["class {C}{n}:", "    class Inner:", "        def m(self):", "            return {K}"], "{C}{n}.Inner().m()"),
]
_CLASS_NAMES = ["C", "_C", "__C", "C_", "_"]


def constants_sample(seed):
    """A function ``f(a)`` whose constants include objects with no source form, each
    read in one of many ways; called with ``a`` None and ``a`` each such object."""
    rng = random.Random(seed)
    kinds = sorted(KINDS)
    objects, literal, lines, values = [], [], [], []
    for n in range(rng.randint(1, 5)):
        kind = rng.choice(kinds)
        make, is_literal, arg, sub, attr = KINDS[kind]
        sentinel = str(SENTINEL + len(objects))
        objects.append(make())
        literal.append(is_literal)
        uses = list(_EXPRESSIONS) + _CALLABLE * (arg is not None) + _SUBSCRIPTABLE * (sub is not None) \
            + _ATTRIBUTED * (attr is not None)
        if rng.random() < 0.4:
            definition, use = rng.choice(_DEFINITIONS)
            fill = dict(K=sentinel, n=n, C=rng.choice(_CLASS_NAMES))
            lines += [line.format(**fill) for line in definition]
            values.append(use.format(**fill))
        else:
            values.append(rng.choice(uses).format(K=sentinel, arg=arg, sub=sub, attr=attr))
    source = "def _pass(v):\n    return v\n\n\ndef f(a):\n%s    return (%s,)\n" % (
        "".join("    %s\n" % line for line in lines), ", ".join(values))
    kept = [id(o) for o, lit in zip(objects, literal) if not lit]
    calls = [(None,)] + [(o,) for o, lit in zip(objects, literal) if not lit]
    return Sample("constants", seed, source, objects, kept, calls=calls)


# -- family 2: mangling ----------------------------------------------------------------
#: the kinds of object a mangling sample reads (their identity counts)
_MANGLING_KINDS = ("dict", "list", "dtype", "function", "class", "module", "object", "code")


class _MethodWriter:
    """The body of a method and of the functions it makes, reading private names."""

    def __init__(self, rng, owner):
        self.rng, self.owner, self.n = rng, owner, 0
        self.objects, self.waiting = [], []

    def num(self):
        self.n += 1
        return self.n

    def read(self, comprehensions):
        """An expression reading a private name, a bound object, or one made in a lambda or comprehension."""
        rng = self.rng
        kind = rng.randrange(10 if comprehensions else 8)
        if kind == 0:
            return "self.__x"
        if kind == 1:
            return "self._%s__y" % self.owner if self.owner else "self.__y"
        if kind == 2:
            return "__g"
        if kind == 3:
            return "self.__bump()"
        if kind == 4:
            make = KINDS[rng.choice(_MANGLING_KINDS)][0]
            self.objects.append(make())
            return str(SENTINEL + len(self.objects) - 1)
        if kind == 5:
            return "(lambda: %s)()" % self.read(comprehensions)
        if kind == 6:
            return "(lambda v=%s: v)()" % self.read(comprehensions)
        if kind == 7:
            return "a"
        if kind == 8:
            return "[%s for _ in range(2)]" % self.read(comprehensions)
        return "self.__k"

    def body(self, depth):
        """Lines of a function body (unindented) ending in a return of a tuple."""
        rng = self.rng
        waits = rng.random() < 0.5      # (3.12+ inline a comprehension: an exception table the edit cannot move)
        lines, values = [], []
        for _ in range(rng.randint(0, 2)):
            if depth < 3 and rng.random() < 0.6:
                name = "__g%d" % self.num() if rng.random() < 0.5 else "g%d" % self.num()
                lines += ["def %s():" % name] + ["    " + line for line in self.body(depth + 1)]
                values.append("%s()" % name)
        if waits:
            for _ in range(rng.randint(1, 2)):
                wait = "_w%d" % self.num()
                self.waiting.append(wait)
                lines.append("%s = %s" % (wait, rng.choice(("self.__bump()", "self.__x", "__g", "a"))))
            head = [w for w in self.waiting if any(line.startswith(w + " = ") for line in lines)]
            lines.append(rng.choice(("self.__x = self.__bump()", "__v = self.__bump()", "self.__bump()",
                                     "__g2 = %s" % self.read(False))))
            values[:0] = head
        if any(line.startswith("__v = ") for line in lines):
            values.append("__v")
        values += [self.read(not waits) for _ in range(rng.randint(1, 3))]
        return lines + ["return (%s,)" % ", ".join(values)]


def mangling_sample(seed):
    """A module with a class (named with or without underscores, nested in another or
    not) whose method makes functions, lambdas and comprehensions reading private names,
    bound objects and values left on the stack across a statement; ``f(a)`` calls it."""
    rng = random.Random(seed)
    cls = rng.choice(_CLASS_NAMES + ["Net", "_Net_", "\u03a9"])
    owner = cls.lstrip("_")
    writer = _MethodWriter(rng, owner)
    method = ["def m(self, a):"] + ["    " + line for line in writer.body(0)]
    body = ["__k = %d" % (SENTINEL + len(writer.objects))] if rng.random() < 0.5 else ["__k = 3"]
    if body[0] != "__k = 3":
        writer.objects.append(KINDS[rng.choice(_MANGLING_KINDS)][0]())
    body += ["def __init__(self):", "    self.__x, self.__n = 1, 0",
             "    self._%s__y = 2" % owner if owner else "    self.__y = 2",
             "def __bump(self):", "    self.__n += 1", "    return self.__n"] + method
    lines = ["class %s:" % cls] + ["    " + line for line in body]
    path = cls
    if rng.random() < 0.3 and not cls.startswith("__"):   # (``Outer.__C`` would be ``Outer._Outer__C``)
        lines = ["class Outer:"] + ["    " + line for line in lines]
        path = "Outer." + cls
    glob = "_%s__g" % owner if owner else "__g"
    source = "%s = 7\n%s\n\n\ndef f(a):\n    return %s().m(a)\n" % (glob, "\n".join(lines), path)
    objects = writer.objects
    calls = [(None,)] + [(o,) for o in objects[:2]]
    return Sample("mangling", seed, source, objects, [id(o) for o in objects], writer.waiting, calls,
                  method=path + ".m")




# -- family 3: placeholders' prefixes ----------------------------------------------------
#: parts of qualified names as Dynamo's dump sees them, unicode and digits included
_QUALNAME_PARTS = ["fn", "outer", "<locals>", "<lambda>", "<genexpr>", "torch_dynamo_resume_in_fn_at_8", "Net",
                   "forward", "__init__", "0", "9x", "_", "__", "\u00e9t\u00e9", "\u03bb", "\u4e2d\u6587",
                   "\ufb01x", "\u210c", "x\u00b2", "x-y", "a b", "$", "\u0301", "\U0001d4b3", "\u2160"]
#: raw prefixes: some begin an identifier, some do not
_RAW_PARTS = ["", "_", "__", "p", "__unveil_", "1", "-", " ", "\u00e9", "\ufb01", "\u00b2", "\u0301", "\u03a9_",
              "$", "\u2160", "a.b", "x"]


def prefixes_sample(seed):
    """A sample of the constants family decompiled with a bindings prefix: made by
    ``unveil.api.bindings_prefix_for`` of a qualified name (as Dynamo's dump makes one),
    or raw text, which must then be refused unless it begins an identifier."""
    from unveil.api import bindings_prefix_for
    rng = random.Random(seed)
    sample = constants_sample(seed)
    if rng.random() < 0.5:
        qualname = ".".join(rng.choice(_QUALNAME_PARTS) for _ in range(rng.randint(1, 4)))
        sample.prefix = bindings_prefix_for(qualname)
        if not (sample.prefix + "x").isidentifier():
            raise sbp.GeneratorError("bindings_prefix_for(%r) = %r begins no identifier" % (qualname, sample.prefix))
    else:
        sample.prefix = "".join(rng.choice(_RAW_PARTS) for _ in range(rng.randint(1, 3)))
    sample.family = "prefixes"
    return sample




# -- family 4: slices ------------------------------------------------------------------------
class Box:
    """What a slices sample subscripts: a list whose item reads, stores and deletes are
    logged (with their keys) in the log ``s`` keeps."""

    def __init__(self, log):
        self.log, self.items = log, list(range(10))

    def __getitem__(self, key):
        self.log.append(("get", repr(key)))
        return self.items[key] if not isinstance(key, tuple) else [self.items[k] for k in key]

    def __setitem__(self, key, value):
        self.log.append(("set", repr(key), repr(value)))
        if isinstance(key, tuple):
            key = key[0]
        if isinstance(key, slice):
            value = [value] * len(range(*key.indices(len(self.items)))) if key.step not in (None, 1) else [value]
        self.items[key] = value

    def __delitem__(self, key):
        self.log.append(("del", repr(key)))
        del self.items[key[0] if isinstance(key, tuple) else key]


class Recorder:
    """``s``: ``s.v(n)`` logs and returns ``n``."""

    def __init__(self):
        self.log = []

    def v(self, n):
        self.log.append(("v", n))
        return n


class _SliceWriter:
    def __init__(self, rng):
        self.rng, self.n = rng, 0
        self.waiting = []

    def num(self):
        self.n += 1
        return self.n

    def part(self):
        """A part of a slice: left out (None), a constant, a name, a call with an effect."""
        return self.rng.choice(["", "", "None", "1", "-2", "p", "q", "s.v(%d)" % self.num(), "s.v(-1)"])

    def slice(self, parts=None):
        parts = parts or self.rng.choice((2, 3))
        text = ":".join(self.part() for _ in range(parts))
        return text if text.strip(":") or parts == 2 else "::"

    def step_free(self):
        return "%s:%s" % (self.part(), self.part())

    def statement(self):
        """A statement of source slices."""
        rng, sl = self.rng, self.slice()
        kind = rng.randrange(8)
        if kind == 0:
            return "r.append(x[%s])" % sl
        if kind == 1:
            return "r.append(x[%s, %s])" % (sl, rng.choice(("::3", "1", "s.v(%d)" % self.num(), self.slice())))
        if kind == 2:
            return "x[%s] = s.v(%d)" % (self.step_free(), self.num())
        if kind == 3:
            return "del x[%s]" % self.step_free()
        if kind == 4:
            return "x[%s] += [s.v(%d)]" % (self.step_free(), self.num())
        if kind == 5:
            return "p = s.v(%d)" % self.num()
        if kind == 6:
            return "x.items.append(s.v(%d))" % self.num()
        return "r.append(x[%s][%s])" % (self.step_free(), self.slice())

    def waiting_slice(self):
        """Lines keeping a slice (and what takes it) on the stack across a statement."""
        rng = self.rng
        n = self.num()
        sl, between = "_S[%s]" % self.slice(), self.statement()
        kind = rng.randrange(6)
        if kind == 0:
            names, use = ["_w%d" % n], "r.append(_w%d.indices(10))" % n
        elif kind == 1:
            names, use = ["_x%d" % n, "_w%d" % n], "r.append(_x%d[_w%d])" % (n, n)
        elif kind == 2:
            names, use = ["_v%d" % n, "_x%d" % n, "_w%d" % n], "_x%d[_w%d] = _v%d" % (n, n, n)
        elif kind == 3:
            names, use = ["_x%d" % n, "_w%d" % n], "del _x%d[_w%d]" % (n, n)
        elif kind == 4:
            names, use = ["_x%d" % n, "_w%d" % n], "r.append(_x%d[_w%d, 2])" % (n, n)
        else:
            names, use = ["_w%d" % n], "r.append((_w%d, 1))" % n
        values = {"_v": "s.v(%d)" % self.num(), "_x": "x", "_w": sl}
        self.waiting += names
        if "append" in use:           # (``r.append`` would be loaded before the waiting values)
            use = use.replace("r.append(", "t%d = (" % n) + "; r.append(t%d)" % n
        return ["%s = %s" % (name, values[name[:2]]) for name in names] + [between] + use.split("; ")


def slices_sample(seed):
    """A function ``f(p, q)`` subscripting a :class:`Box` ``x`` with slices of every form, and
    keeping slices made by ``BUILD_SLICE`` on the stack across a statement before it
    subscripts, stores, deletes with them or passes them on; its log says what ran when."""
    rng = random.Random(seed)
    writer = _SliceWriter(rng)
    lines = ["r = []"]
    for _ in range(rng.randint(1, 4)):
        lines += writer.waiting_slice() if rng.random() < 0.5 else [writer.statement()]
    source = "def f(p, q):\n    s = Recorder()\n    x = Box(s.log)\n%s    return r, s.log, x.items\n" % "".join(
        "    %s\n" % line for line in lines)
    calls = [(1, 3), (-1, None), (0, 2)]
    return Sample("slices", seed, source, waiting=writer.waiting, calls=calls)


FAMILIES = {"constants": constants_sample, "mangling": mangling_sample, "prefixes": prefixes_sample,
            "slices": slices_sample}
