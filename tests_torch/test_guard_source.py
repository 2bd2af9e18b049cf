"""Guard descriptions turned into Python (unveil.dynamo.guards.conditions)."""
import ast
import itertools
import keyword

from unveil.dynamo.guards import conditions as guard_source


def _parses(text):
    try:
        ast.parse(text, mode="eval")
        return True
    except SyntaxError:
        return False


SOURCES = ["L['x']", "G['__import_torch']", "L['self']._modules['h'][0].attn", "L['a'][-1]['b#c']",
           "G['m'].lambda_", "L['x'].is_leaf", "dict(type(L['self'].config).__dict__)['x']",
           "dict(type(L['m']).__mro__[1].__dict__)['f'].__code__", "dict(type(G['a'].b).__mro__[2].__dict__)"]
NOT_SOURCES = ["L['x'].lambda", "L['x'].None", "L['x'].is", "L['it''s']", "L['x'].1a", "L['x'](1)",
               "dict(type(L['x']).__dict__", "dict(type(L['x'].if).__dict__)", "dict(L['x'].__dict__)"]
SHAPES = ["___check_obj_id({0}, 140234)", "___check_type_id({0}, 94313838999168)",
          "not ___dict_contains('forward', {0})", "___dict_contains('k', {0})",
          "hasattr({0}, '_dynamo_dynamic_indices') == False", "hasattr({0}, 'x')", "not hasattr({0}, 'y')",
          "{0} is None", "{0} is not None", "{0} == 3", "{0} != 'a'", "{0} == True", "not {0}",
          "len({0}) == 9", "{0} == 1e-12", "{0} == 0.3535533905932738", "{0} == -2.0", "{0} == (16,)",
          "{0} == ()", "{0} == (1, 2)", "{0} is {0}", "{0} == torch.float32"]


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
        assert not guard_source._PLAIN.match("L['x'] == torch.%s" % word)
    for text in ["L['x'] == 1.", "L['x'] == (1, 2", "L['x'] == (,)", "L['x'] == torch.1a", "len(L['x']) == -1x",
                 "not L['x'] is", "L['x'] is L['y'] is", "L['x'] == inf"]:
        assert not guard_source._PLAIN.match(text), text


def test_the_common_shapes_are_renamed_as_the_general_path_renames_them():
    """A guard of ``_PLAIN``'s shapes only gets its leading helper renamed, with no check
    for private names: the same text that the general renaming and check give."""
    for shape, source in itertools.product(SHAPES, SOURCES):
        text = shape.format(source)
        expected = guard_source._renamed(text)
        assert not guard_source._has_private(expected), text
        assert guard_source.translate("EQUALS_MATCH", text) == expected, text


def test_dynamo_helpers_are_renamed_where_they_stand_as_names():
    translate = guard_source.translate
    assert translate("ID_MATCH", "___check_obj_id(L['x'], 1) and not ___dict_contains('k', L['d'])") \
        == "check_obj_id(L['x'], 1) and not dict_contains('k', L['d'])"
    assert translate("EQUALS_MATCH", "L['___check_obj_id'] == '___dict_contains(x)'") \
        == "L['___check_obj_id'] == '___dict_contains(x)'"
    assert translate("LAMBDA_GUARD", "__math_isnan(L['x'].__math_isnan)") == "math_isnan(L['x'].__math_isnan)"


def test_a_private_name_is_refused_but_not_an_attribute_string_or_builtins():
    for part in ["__private(L['x'])", "L['x'] == __y", "(__z)", "L['a'] is not __w"]:
        try:
            text = guard_source.translate("LAMBDA_GUARD", part)
        except guard_source.Untranslatable:
            continue
        raise AssertionError("%s translated to %s" % (part, text))
    for part in ["L['x'].__dict__ is None", "G['__import_torch'] is None", "G['__builtins__'] is None",
                 "__builtins__ is None", "x__y == 1", "L['x'] == '__'"]:
        assert guard_source.translate("LAMBDA_GUARD", part) == part
    for part in ["__builtins__x is None", "__builtins___ is None"]:
        try:
            guard_source.translate("LAMBDA_GUARD", part)
        except guard_source.Untranslatable:
            continue
        raise AssertionError(part)


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


FOLDED = ["dict(type(L['m']).__dict__)['forward'].__closure__[0].cell_contents == False",
          "len(dict(type(G['a'].F).__dict__)['_m']['sdpa'].__defaults__) == 9",
          "___dict_contains('k', dict.__getitem__(G['g']._R, list(dict.keys(G['g']._R))[0]))",
          "list(dict.keys(G['g']._R))[0] == \"<class 'x.Y'>\"", "L['s'] == 1.0670875310897827",
          "not G['m'].ALL._local_mapping", "L['x'][-1] is not None", "check_no_aliasing(L['a'], L['b'][0])",
          "utils_device.CURRENT_DEVICE == None", "G['x'].match.type == 1e-05"]
NOT_FOLDED = ["L['x'].lambda == 1", "L['x'] == <object at 0x1>", "L['a'], L['b']", "f(x=1)", "L['x'] if a else b",
              "b'x' == L['y']", "L['it''s'] == 1", "L['x'].1 == 2", "L['x'] == 0x1f", "L['x'] == 1_0",
              "[L['x']] == 1", "L['x'] .y == 1", "(L['x']) == 1", "L['x'] == 'a\\'b'", "L['x'] == \x01",
              "lambda: 1", "L['x'] == not 1", "L['x'] is is None", "x(", "x)", "L['x'][1:2] == 1", "L['a'] L['b']"]


def test_the_guard_recogniser_accepts_only_python():
    """The recogniser that stands in for a parse of the longer guards must never accept
    text that does not parse (a false "no" only costs a parse)."""
    for text in FOLDED:
        assert guard_source._folds(text), text
        assert _parses(text), text
    for text in NOT_FOLDED:
        assert not guard_source._folds(text), text
    # every prefix and every one-character deletion of the accepted shapes: no false "yes"
    for text in FOLDED:
        for variant in [text[:i] for i in range(len(text))] + [text[:i] + text[i + 1:] for i in range(len(text))]:
            if guard_source._folds(variant):
                assert _parses(variant), variant


def test_a_tensor_guard_gets_its_qualified_type_without_a_parse(monkeypatch):
    monkeypatch.setattr(guard_source, "_parse", lambda text: (_ for _ in ()).throw(AssertionError(text)))
    part = ("check_tensor(dict(type(L['m']).__dict__)['w'], Tensor, DispatchKeySet(CPU, AutogradCPU), "
            "torch.float32, device=None, requires_grad=True, size=[None, 3], stride=[3, 1])  # x = m.w  # a.py:3")
    text = guard_source.translate("TENSOR_MATCH", part, torch_tensor_type())
    assert text == ("check_tensor(dict(type(L['m']).__dict__)['w'], 'torch.Tensor', "
                    "'DispatchKeySet(CPU, AutogradCPU)', torch.float32, device=None, requires_grad=True, "
                    "size=[None, 3], stride=[3, 1])")


def torch_tensor_type():
    import torch
    return torch.Tensor


def test_names_in_finds_names_not_attributes_or_parts_of_words():
    text = "check_obj_id(L['x'], 1) and L['y'].check_type_id and xinf == 1 and 'inf' and math.pi"
    assert guard_source.names_in(text, {"check_obj_id", "check_type_id", "inf", "math", "torch"}) \
        == {"check_obj_id", "math"}


def test_dynamos_type_note_and_recompile_hint_are_left_out_of_the_condition():
    """A type guard on a closure variable or a parameter carries Dynamo's note of the
    type and a recompile hint after the code (an SGD step's second compile had one)."""
    code = "___check_type_id(L['self'].param_groups[0]['params'][0], 94750655469728)"
    for suffix in [", type=<class 'torch.nn.parameter.Parameter'> (HINT: type Parameter)",
                   " (HINT: closure variable 'scale' (from f), type int)", ", type=<class 'int'>",
                   ", type=<class '__main__.make.<locals>.Func'>"]:   # (a class made in a function)
        assert guard_source.translate("TYPE_MATCH", code + suffix) == guard_source._renamed(code), suffix


def test_guards_on_pytree_registrations_are_python_and_true_where_dynamo_made_them():
    """torch.cond, vmap and torch.func guard torch's pytree registry: classes written as
    their repr, the registry reached through ``__import__``, and its dict version.  Each
    becomes Python that holds now, as Dynamo's guard does."""
    import torch
    from unveil.dynamo.guards import runtime as guard_runtime
    registry = torch.utils._pytree.SUPPORTED_NODES
    scope = {name: getattr(guard_runtime, name) for name in guard_runtime.__all__}
    parts = ["___dict_contains(<class 'tuple'>, __import__('torch').utils._pytree.SUPPORTED_NODES)",
             "not ___dict_contains(<class 'torch.Tensor'>, __import__('torch').utils._pytree.SUPPORTED_NODES)",
             "___dict_version(__import__('torch').utils._pytree.SUPPORTED_NODES) == %d"
             % torch._C._dynamo.guards.dict_version(registry),
             "check_obj_id(list(dict.keys(__import__('torch').utils._pytree.SUPPORTED_NODES))[0], %d)"
             % id(next(iter(registry)))]
    for part in parts:
        text = guard_source.translate("DICT_CONTAINS", part)
        assert "<class" not in text and "___" not in text, text
        assert eval(text, scope) is True, text
    assert guard_runtime.class_named("torch.nn.Linear") is torch.nn.Linear
    assert guard_source.translate("TYPE_MATCH", "___check_type_id(L['x'], 5)  # x, type=<class 'int'>") \
        == "check_type_id(L['x'], 5)"


def test_a_class_repr_inside_a_string_stays_a_string():
    """transformers keys a registry by a class's str: the guard compares with that string."""
    part = "list(dict.keys(G['m']._REG))[0] == \"<class 'transformers.models.t5.modeling_t5.T5EncoderModel'>\""
    assert guard_source.translate("EQUALS_MATCH", part) == part
    assert guard_source.translate("DICT_CONTAINS", "___dict_contains(<class 'int'>, G['d'])") \
        == "dict_contains(class_named('int'), G['d'])"


def test_the_guard_helpers_dumped_guards_call_compute_what_dynamos_do():
    """Each helper of Dynamo's guard text that dumped guards call by another name exists
    there, and the iterator and container ones give what Dynamo's own give (a generator
    kept across a break on torch 2.14+ is guarded through them)."""
    import collections
    import dataclasses

    from torch._dynamo import utils as dynamo_utils

    from unveil.dynamo.adapter.guard_text import GUARD_HELPER_RENAMES
    from unveil.dynamo.guards import runtime

    assert set(GUARD_HELPER_RENAMES.values()) <= set(runtime.__all__)
    it = iter((10, 20, 30))
    next(it)
    assert runtime.tuple_iterator_len(it) == dynamo_utils.tuple_iterator_len(it) == 2
    assert runtime.tuple_iterator_getitem(it, 1) == dynamo_utils.tuple_iterator_getitem(it, 1) == 30

    class Odd(collections.OrderedDict):
        def __getitem__(self, key):
            return "not this"

    assert runtime.odict_getitem(Odd(a=1), "a") == 1
    assert runtime.namedtuple_fields(collections.namedtuple("P", "x y")(1, 2)) == ("x", "y")

    @dataclasses.dataclass
    class D:
        a: int = 0

    assert [f.name for f in runtime.dataclass_fields(D)] == ["a"]
