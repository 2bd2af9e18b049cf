"""The package is a house with floors: each layer imports only the layers below it,
and no two of its modules import each other, directly or in a ring.

Imports are read from the source (``ast``), those inside functions included, so a
cycle cannot hide in a function body.  ARCHITECTURE.md draws the same floors.
"""
import ast
import os

import pytest

SRC = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "src", "unveil")

#: lowest first; a module's floor is its first name under ``unveil``
FLOORS = [
    {"errors", "dispatch"},
    {"bytecode"},
    {"graph"},
    {"syntax"},
    {"structure"},
    {"fallback"},
    {"definitions"},
    {"api", "recompile", "pyc", "targets"},
    {"__init__", "__main__", "cli", "shown", "runner", "dumpdiff", "dump_index", "volatile", "examples", "dynamo", "report"},
]


def modules():
    """``{dotted name: path}`` of every module of the package."""
    found = {}
    for folder, _, files in os.walk(SRC):
        for f in files:
            if f.endswith(".py"):
                rel = os.path.relpath(os.path.join(folder, f), os.path.dirname(SRC))[:-3]
                parts = rel.split(os.sep)
                if parts[-1] == "__init__" and len(parts) > 1:
                    parts.pop()
                found[".".join(parts)] = os.path.join(folder, f)
    return found


def _resolve(name, known):
    """The module ``name`` is, or the package holding it (``pkg.name`` a function)."""
    while name not in known and "." in name:
        name = name.rpartition(".")[0]
    return name if name in known else None


def imports(module, path, known):
    """The package's modules that ``module`` imports, anywhere in its source."""
    package = module if path.endswith("__init__.py") else module.rpartition(".")[0]
    out = set()
    for node in ast.walk(ast.parse(open(path, encoding="utf-8").read(), path)):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - node.level + 1]
                stem = ".".join(base + ([node.module] if node.module else []))
            else:
                stem = node.module
            names = [stem + "." + a.name for a in node.names] + [stem]
            if any(_resolve(n, known) not in (None, stem) for n in names[:-1]):
                names = names[:-1]   # ``from pkg import module``: the module, not the package
        else:
            continue
        for n in names:
            target = _resolve(n, known)
            if target is not None and target != module:
                out.add(target)
    return out


def graph():
    known = modules()
    return {m: imports(m, p, known) for m, p in known.items()}


def floor(module):
    parts = module.split(".")
    first = parts[1] if len(parts) > 1 else "__init__"
    for level, names in enumerate(FLOORS):
        if first in names:
            return level
    raise AssertionError("%s is on no floor: add it to FLOORS (and to ARCHITECTURE.md)" % module)


def cycles(edges):
    """The strongly connected components of more than one module (Tarjan)."""
    index, low, stack, on, found = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            ring = []
            while True:
                w = stack.pop()
                on.discard(w)
                ring.append(w)
                if w == v:
                    break
            if len(ring) > 1:
                found.append(sorted(ring))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return found


def test_no_module_imports_itself_through_others():
    assert cycles(graph()) == []


def test_each_layer_imports_only_the_layers_below():
    upward = ["%s (floor %d) imports %s (floor %d)" % (m, floor(m), t, floor(t))
              for m, targets in sorted(graph().items()) for t in sorted(targets) if floor(t) > floor(m)]
    assert upward == []


def test_the_version_facts_import_nothing_from_the_package():
    assert graph()["unveil.bytecode.facts"] == set()


def test_only_the_version_facts_read_the_python_version():
    readers = []
    for module, path in sorted(modules().items()):
        tree = ast.parse(open(path, encoding="utf-8").read(), path)
        if module != "unveil.bytecode.facts" and any(
                isinstance(n, ast.Attribute) and n.attr in ("version_info", "hexversion") for n in ast.walk(tree)):
            readers.append(module)
    assert readers == []


@pytest.mark.parametrize("source, expected", [
    ("from . import b\n", {"unveil.x.b"}),
    ("def f():\n    from ..y import c\n", {"unveil.y.c"}),
    ("from .b import name\n", {"unveil.x.b"}),
    ("import unveil.y.c\n", {"unveil.y.c"}),
])
def test_the_reader_finds_imports_at_any_depth(tmp_path, source, expected):
    """The checks above are only as good as this reader: it must see each form."""
    path = tmp_path / "a.py"
    path.write_text(source)
    known = {"unveil", "unveil.x", "unveil.x.a", "unveil.x.b", "unveil.y", "unveil.y.c"}
    assert imports("unveil.x.a", str(path), known) == expected


def test_a_ring_is_found():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
