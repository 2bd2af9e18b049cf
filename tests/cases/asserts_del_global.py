"""assert, del (names, attributes, subscripts, slices) and global statements."""
import types

from tests.cases.registry import case

COUNTER = 0
SETTINGS = {}


@case((1,), (-1,))
def assert_with_message(x):
    assert x > 0, "x must be positive, got %d" % x
    return x


@case((1,), (0,))
def assert_without_message(x):
    assert x
    return "passed"


@case(([1, 2],), ([],), ([1, -1],))
def assert_complex_condition(lst):
    assert lst and all(v > 0 for v in lst), ("bad list", len(lst))
    return sum(lst)


@case((5,), (50,))
def assert_in_loop_and_message_expression(limit):
    total = 0
    for i in range(10):
        total += i
        assert total < limit, f"total {total} reached limit {limit} at {i}"
    return total


@case((True,), (False,))
def assert_message_only_evaluated_on_failure(ok):
    log = []

    def msg():
        log.append("built")
        return "message"

    try:
        assert ok, msg()
    except AssertionError as e:
        return "failed", str(e), log
    return "ok", log


@case((3,),)
def del_local_then_read(n):
    x = n
    y = x * 2
    del x
    try:
        return x
    except NameError as e:
        return type(e).__name__, y


@case()
def del_multiple_targets():
    a = 1
    b = [1, 2, 3, 4]
    c = {"k": 1, "j": 2}
    ns = types.SimpleNamespace(attr=1, other=2)
    del a, b[0], c["k"], ns.attr
    del (b[-1]), [c["j"]]
    return "a" in locals(), b, c, vars(ns)


@case(([0, 1, 2, 3, 4, 5, 6],),)
def del_slices(lst):
    del lst[1:3]
    del lst[::2]
    del lst[-1:]
    return lst


@case(({"a": 1},), ({},))
def del_missing_key_raises(d):
    del d["a"]
    return d


@case((True,), (False,))
def del_attribute_of_object(remove):
    class Obj:
        cls_attr = "class level"

    o = Obj()
    o.cls_attr = "instance level"
    if remove:
        del o.cls_attr
    result = o.cls_attr
    try:
        del o.cls_attr
    except AttributeError:
        result += " (nothing to delete)"
    return result


@case((3,),)
def del_in_loop(n):
    kept = {}
    for i in range(n):
        temp = i * 10
        kept[i] = temp
        del temp
    return kept, "temp" in locals()


@case((4,),)
def global_counter_increment(n):
    global COUNTER
    COUNTER = 0
    for _ in range(n):
        COUNTER += 1
    return COUNTER


@case(("debug", True), ("level", 3))
def global_dict_mutation_without_global_statement(key, value):
    SETTINGS.clear()
    SETTINGS[key] = value
    SETTINGS.setdefault("defaults", []).append(key)
    return dict(SETTINGS)


@case()
def global_read_only_access():
    return COUNTER * 0, len(SETTINGS) >= 0, __name__.rsplit(".", 1)[-1]


@case()
def global_declared_in_nested_function():
    def setter(v):
        global COUNTER
        COUNTER = v

    def getter():
        return COUNTER

    setter(41)
    first = getter()
    setter(first + 1)
    return first, getter()


@case()
def global_create_and_delete():
    global TEMP_GLOBAL
    TEMP_GLOBAL = [1]
    TEMP_GLOBAL.append(2)
    value = list(TEMP_GLOBAL)
    del TEMP_GLOBAL
    try:
        TEMP_GLOBAL
    except NameError as e:
        return value, str(e)


@case()
def local_shadows_global_without_statement():
    COUNTER = "local"
    return COUNTER


@case((True,), (False,))
def del_then_reassign_in_branches(flag):
    x = "first"
    if flag:
        del x
        x = "second"
    return x


@case((1,), (0,))
def del_conditionally_then_unbound(flag):
    x = 10
    if flag:
        del x
    return x


@case(("a", None), ("z", 1), ("b", 2))
def assert_of_membership_and_identity(key, value):
    # warnings.simplefilter on 3.8: its assert loads AssertionError as a global, and
    # ``if not key in ...`` would fold into ``not in``: only ``assert`` compiles the same
    assert key in ("a", "b"), "unknown key %r" % (key,)
    assert value is not None
    return key, value


@case((None, 1), (1, None), (None, None), (1, 1))
def explicit_raise_of_assertion_error_stays_an_if(headers, info):
    # wsgiref's start_response on 3.8: ``elif x is not None: raise AssertionError(...)``
    # jumps if false, where an assert jumps if true: no assert (``assert x is None``
    # compiles ``is``)
    if info:
        headers = None
    elif headers is not None:
        raise AssertionError("headers already set")
    return headers
