"""Import statements inside functions (stdlib only; relative imports are not possible here)."""
from tests.cases.registry import case


@case()
def import_simple():
    import math
    import string

    return math.floor(2.5), string.digits, math.__name__


@case(("a", "b"),)
def import_dotted_binds_top_package(x, y):
    import os.path
    import xml.etree.ElementTree

    return os.path.join(x, y).replace("\\", "/"), os.__name__, xml.etree.ElementTree.__name__, xml.__name__


@case(("a", "b"),)
def import_dotted_as_alias(x, y):
    import os.path as osp
    import xml.etree.ElementTree as ET
    import collections.abc as cabc

    root = ET.fromstring("<r><c v='1'/><c v='2'/></r>")
    return osp.__name__ == "posixpath" or osp.__name__ == "ntpath", [c.get("v") for c in root], isinstance([], cabc.Sequence), ET.__name__


@case(same_bytecode=True)   # one statement per from-import, its names together
def from_import_forms():
    from collections import OrderedDict, defaultdict
    from collections import Counter as C
    from os.path import join as j, basename
    from itertools import (
        chain,
        islice as take,
    )

    dd = defaultdict(list)
    dd["k"].append(1)
    od = OrderedDict([("b", 2), ("a", 1)])
    return (
        dict(dd),
        list(od),
        C("abca").most_common(1),
        j("p", "q").replace("\\", "/"),
        basename("/x/y.txt"),
        list(take(chain([1, 2], [3]), 2)),
    )


@case()
def from_package_import_submodule():
    from xml.etree import ElementTree
    from email import message as msg_mod
    from json import decoder, encoder

    return ElementTree.__name__, msg_mod.__name__, decoder.__name__, encoder.__name__


@case(("json",), ("no_such_module_for_unveil_tests",))
def import_failure_handled(name):
    try:
        if name == "json":
            import json as mod
        else:
            import no_such_module_for_unveil_tests as mod
    except ImportError as e:
        return "ImportError", type(e).__name__, e.name
    return mod.dumps({"a": [1, 2]})


@case(("dumps",), ("does_not_exist",))
def from_import_missing_name(attr):
    try:
        if attr == "dumps":
            from json import dumps as found
        else:
            from json import does_not_exist as found
    except ImportError as e:
        return type(e).__name__, "does_not_exist" in str(e)
    return found([1])


@case((True,), (False,))
def conditional_import(flag):
    if flag:
        import json as codec

        return codec.loads("[1, 2]")
    else:
        import pickle as codec

        return codec.loads(codec.dumps((3, 4)))


@case((3,),)
def import_inside_loop_and_nested_function(n):
    out = []
    for i in range(n):
        import math

        out.append(math.factorial(i))

    def helper():
        from functools import reduce
        import operator as op

        return reduce(op.mul, range(1, n + 1), 1)

    return out, helper()


@case()
def import_shadowing_local_names():
    string = "a local string"
    before = string
    import string

    after = string.ascii_lowercase[:3]
    return before, after


@case()
def dunder_import_and_importlib():
    import importlib

    m1 = __import__("os.path")
    m2 = __import__("os.path", fromlist=["join"])
    m3 = importlib.import_module("json.decoder")
    return m1.__name__, m2.__name__ in ("posixpath", "ntpath"), m3.__name__


@case()
def global_import_from_function():
    global textwrap_mod
    import textwrap as textwrap_mod

    result = use_global_textwrap()
    del textwrap_mod
    return result


def use_global_textwrap():
    return textwrap_mod.shorten("hello there world", width=12)


@case((3,),)
def import_in_class_body_and_closure(n):
    class Uses:
        import math as m

        root = m.sqrt(n * n)

        def method(self):
            import math

            return math.pow(n, 2)

    def closure():
        return sys_mod.version_info[0]

    import sys as sys_mod

    return Uses.root, Uses().method(), closure() >= 3, Uses.m.__name__


@case()
def import_with_try_finally_and_with():
    import contextlib
    import io

    log = []
    try:
        with contextlib.redirect_stdout(io.StringIO()) as buf:
            from textwrap import dedent
            log.append(dedent("    x\n    y"))
        log.append(buf.getvalue())
    finally:
        import operator

        log.append(operator.add(1, 2))
    return log
