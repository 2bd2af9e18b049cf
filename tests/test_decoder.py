"""unveil.bytecode.decoder reads co_code as ``dis`` does, field for field, on this Python.

Judged against ``dis.get_instructions`` (and ``dis.Bytecode``'s exception
table on 3.11+) over every code object of the case library and of a set of
large standard-library modules, plus generated code with arguments past 255.
"""
import dis
import importlib.util
import os
import sys
import types
import warnings

import pytest

from unveil.bytecode import decoder

HERE = os.path.dirname(os.path.abspath(__file__))
STDLIB = ("typing", "inspect", "argparse", "dataclasses", "enum", "tarfile", "ast", "difflib",
          "pydoc", "collections", "statistics", "_pydecimal", "tokenize", "subprocess",
          "asyncio.base_events", "asyncio.tasks", "email._header_value_parser", "contextlib",
          "functools", "pickle", "string", "textwrap", "unittest.case", "logging", "json.decoder")
_UNKNOWN = getattr(dis, "UNKNOWN", object())
#: operators whose argrepr the normalising layer reads
NAMED_BY_ARGREPR = ("BINARY_OP", "CALL_INTRINSIC_1", "CALL_INTRINSIC_2")


def _codes(code):
    yield code
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield from _codes(const)


def _compiled(path):
    with open(path, encoding="utf-8") as fh, warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the cases' own SyntaxWarnings and DeprecationWarnings
        return compile(fh.read(), path, "exec")


def _case_files():
    cases = os.path.join(HERE, "cases")
    for name in sorted(os.listdir(cases)):
        if not name.endswith(".py"):
            continue
        path = os.path.join(cases, name)
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
        needs = [line for line in text.splitlines() if line.startswith("MIN_VERSION")]
        if needs and sys.version_info[:2] < eval(needs[0].partition("=")[2]):
            continue  # syntax of a newer Python (the registry leaves it out too)
        yield path


def _generated():
    """A function with more than 255 constants, names and locals, and jumps past 255 code units."""
    lines = ["def big(x):"]
    for k in range(300):
        lines.append("    v%d = x + %d.5" % (k, k))
        lines.append("    if v%d > g%d: x = v%d" % (k, k, k))
    lines.append("    while x:\n        x -= 1\n        if x == 7: break")
    lines.append("    return x")
    return compile("\n".join(lines), "<generated>", "exec")


def _line(ins):
    if sys.version_info >= (3, 13):
        return ins.line_number if ins.starts_line else None
    return ins.starts_line


def _expected(ins, code):
    argrepr = ins.argrepr if ins.opname in NAMED_BY_ARGREPR else ""
    argval = ins.argval
    if argval is _UNKNOWN:  # 3.11's dis leaves KW_NAMES's names tuple out
        argval = code.co_consts[ins.arg]
    return (ins.opname, ins.opcode, ins.arg, argval, argrepr, ins.offset, _line(ins))


def _same(a, b):
    if len(a) != len(b):
        return False
    return all(type(x) is type(y) and (x is y or x == y) for x, y in zip(a, b))


def _mismatches(code):
    want = [_expected(i, code) for i in dis.get_instructions(code)]
    got = [tuple(r) for r in decoder.read(code)]
    out = [(w, g) for w, g in zip(want, got) if not _same(w, g)]
    if len(want) != len(got):
        out.append(("%d instructions" % len(want), "%d read" % len(got)))
    if sys.version_info >= (3, 11):
        table = [tuple(e[:5]) for e in dis.Bytecode(code).exception_entries]
        if table != decoder.exception_table(code):
            out.append((table, decoder.exception_table(code)))
    return out


def _sources():
    paths = list(_case_files())
    for name in STDLIB:
        spec = importlib.util.find_spec(name)
        paths.append(spec.origin)
    return paths


@pytest.mark.parametrize("path", _sources(), ids=os.path.basename)
def test_every_instruction_reads_as_dis_reads_it(path):
    bad = []
    for code in _codes(_compiled(path)):
        bad += [(code.co_name,) + m for m in _mismatches(code)]
    assert not bad, bad[:5]


def test_arguments_past_255_and_long_jumps():
    codes = list(_codes(_generated()))
    assert any(i.opname == "EXTENDED_ARG" for c in codes for i in decoder.read(c))
    for code in codes:
        assert not _mismatches(code), _mismatches(code)[:5]


class _Unprintable:
    def __repr__(self):
        raise RuntimeError("no repr")


def test_constants_are_not_printed():
    """Dynamo puts arbitrary objects in co_consts; reading one must not call its repr (dis does)."""
    thing = _Unprintable()
    code = (lambda: 0).__code__
    code = code.replace(co_consts=tuple(thing if c == 0 else c for c in code.co_consts))
    loads = [r for r in decoder.read(code) if r.opname in ("LOAD_CONST", "RETURN_CONST")]
    assert loads and loads[0].argval is thing
    with pytest.raises(RuntimeError):
        list(dis.get_instructions(code))
