"""Guard descriptions turned into Python (unveil.dynamo.guard_source)."""
import ast
import itertools
import keyword

from unveil.dynamo import guard_source


def _parses(text):
    try:
        ast.parse(text, mode="eval")
        return True
    except SyntaxError:
        return False


SOURCES = ["L['x']", "G['__import_torch']", "L['self']._modules['h'][0].attn", "L['a'][-1]['b#c']",
           "G['m'].lambda_", "L['x'].is_leaf"]
NOT_SOURCES = ["L['x'].lambda", "L['x'].None", "L['x'].is", "L['it''s']", "L['x'].1a", "L['x'](1)"]
SHAPES = ["___check_obj_id({0}, 140234)", "___check_type_id({0}, 94313838999168)",
          "not ___dict_contains('forward', {0})", "___dict_contains('k', {0})",
          "hasattr({0}, '_dynamo_dynamic_indices') == False", "hasattr({0}, 'x')",
          "{0} is None", "{0} is not None", "{0} == 3", "{0} != 'a'", "{0} == True"]


def test_the_guards_written_without_a_parse_are_python_expressions():
    """The common guard shapes skip ast.parse (most of a guard's cost); the shape check
    must accept only text that parses, keyword attributes (``.lambda``) included."""
    accepted = 0
    for shape, source in itertools.product(SHAPES, SOURCES + NOT_SOURCES):
        text = shape.format(source)
        if guard_source._PLAIN.match(text):
            accepted += 1
            assert _parses(text), text
            assert source in SOURCES, text
    assert accepted == len(SHAPES) * len(SOURCES)
    for word in keyword.kwlist:
        assert not guard_source._PLAIN.match("L['x'].%s is None" % word)


def test_a_guard_that_is_not_python_is_reported_not_written():
    for kind, part in [("ID_MATCH", "___check_obj_id(L['x'].lambda, 1)"),
                       ("EQUALS_MATCH", "L['x'] == <object at 0x1>"),
                       ("LAMBDA_GUARD", "__private_helper(L['x'])")]:
        try:
            text = guard_source.translate(kind, part)
        except guard_source.Untranslatable:
            continue
        raise AssertionError("%s translated to %s" % (part, text))
    assert guard_source.translate("ID_MATCH", "___check_obj_id(G['__import_torch'].nn, 7)  # m.py:3") \
        == "check_obj_id(G['__import_torch'].nn, 7)"
