"""The case library's own hygiene: a helper or case defined twice in one module.

A second ``def``/``class`` of a name shadows the first for every case defined
before it; those cases then test the later definition (or raise the same
error in the original and the decompiled code, and compare equal while
testing nothing).
"""
import ast
import pathlib
import sys

import pytest

from tests.cases import registry

CASES = pathlib.Path(registry.__file__).parent


def _modules():
    registry.all_cases()
    return sorted(
        name for name in sys.modules if name.startswith("tests.cases.") and name != "tests.cases.registry"
    )


def top_level_rebindings(source):
    """(name, first line, later line) for each module-level name bound twice."""
    first = {}
    twice = []
    for node in ast.parse(source).body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names = [node.name]
        elif isinstance(node, ast.Assign):
            names = [t.id for t in node.targets if isinstance(t, ast.Name)]
        else:
            continue
        for name in names:
            if name in first:
                twice.append((name, first[name], node.lineno))
            first[name] = node.lineno
    return twice


@pytest.mark.parametrize("module", _modules())
def test_no_name_defined_twice(module):
    path = CASES / (module.rsplit(".", 1)[1] + ".py")
    assert top_level_rebindings(path.read_text()) == []


def test_a_second_definition_is_found():
    source = "class _Lock:\n    pass\n\ndef case(): pass\n\nclass _Lock:\n    def __init__(self, log): pass\n"
    assert top_level_rebindings(source) == [("_Lock", 1, 6)]
