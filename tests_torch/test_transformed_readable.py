"""Transformed code made readable (unveil.dynamo.dump.readable): each rewrite is run against
the code it replaces, on stand-ins for Dynamo's globals that record what is done to them.

The samples are the decompiled shapes of torch 2.13's transformed code (chained breaks,
a data-dependent ``if``, a closure, an optimizer hook's wrapper); the whole torch suite
then runs the rewritten dump in place of Dynamo's code (test_debug.py)."""
import ast
import re
import textwrap

import pytest

from unveil import decompile_code
from unveil.dynamo.dump import readable

CHAINED = """
def chained_breaks(x):
    __t0 = __compiled_fn_2
    tmp_1 = utils.record_pregraph_bytecode_enter
    tmp_2 = tmp_1()
    tmp_3 = utils.record_pregraph_bytecode_exit
    tmp_3(tmp_2)
    del tmp_1
    del tmp_3
    graph_out_0 = __t0(x)
    __t1 = [()]
    __t2 = torch.graph_break
    __t3 = [graph_out_0[0]]
    del graph_out_0
    __t4 = [__t3[0:1].__iadd__([])]
    __t5 = [__t2()]
    __t4[0][0:0] = __t5
    __t6 = [__t4[0]]
    __t7 = [__t1[0]]
    __t8 = __t6[0]
    __t8[1:] = [__t8[1]]
    __t9 = __resume_at_70_3
    __t10 = __t6[-1]
    del __t6[-1]
    return __t9(*[[], __t6, *__t10])
    if False:
        s = None
"""

BRANCH = """
def data_dependent_if(x):
    graph_out_0 = __compiled_fn_1(x)
    __t1 = [()]
    __t2 = graph_out_0[0]
    __t3 = [graph_out_0[1]]
    del graph_out_0
    __t10 = [__t3[0:1].__iadd__([])]
    if __t2:
        __t4 = __t10
        __t4[0][0:0] = []
        __t5 = [__t4[0]]
        __t6 = [__t1[0]]
        __t7 = __t5[0]
        __t7[0:] = [__t7[0]]
        __t8 = __resume_at_90_2
        __t9 = __t5[-1]
        del __t5[-1]
        return __t8(*[[], __t5, *__t9])
    __t10[0][0:0] = []
    __t11 = [__t10[0]]
    __t12 = [__t1[0]]
    __t13 = __t11[0]
    __t13[0:] = [__t13[0]]
    __t14 = __resume_at_100_3
    __t15 = __t11[-1]
    del __t11[-1]
    return __t14(*[[], __t11, *__t15])
"""

WRAPPER = """
def wrapper(*args, **kwargs):
    __t0 = [(cells(),)]
    __t1 = contextlib.nullcontext
    __t2 = func
    __t3 = [args[0]]
    __t4 = [__t3[0:1].__iadd__([args, kwargs])]
    cm = contextlib.nullcontext()
    cm.__enter__()
    try:
        __t5 = __t2(*args)
    finally:
        cm.__exit__(None, None, None)
    __t4[0][0:0] = [__t1, __t5]
    __t6 = [__t4[0]]
    __t7 = [__t0[0]]
    __t8 = __t6[0]
    __t8[2:] = [__t8[3], __t8[4], __t8[2]]
    __t9 = __resume_at_472_13(__t7[-1])
    __t10 = __t6[-1]
    del __t6[-1]
    return __t9(*[[], __t6, *__t10])
"""

CLOSURE = """
def closure_called_after_break(x, scale):
    __t0 = [(cells(),)]
    __t1 = torch.graph_break
    __t2 = make(lambda: x * scale)
    __t3 = x
    scale = scale
    x = __t3
    __t4 = [__t2]
    __t5 = [__t4[0:1].__iadd__([])]
    __t6 = [__t1()]
    __t5[0][0:0] = __t6
    __t7 = [__t5[0]]
    __t8 = [__t0[0]]
    __t9 = __t7[0]
    __t9[1:] = [__t9[1]]
    __t10 = __resume_at_76_2(__t8[-1])
    __t11 = __t7[-1]
    del __t7[-1]
    return __t10(*[[], __t7, *__t11])
"""


PROFILED = """
def profiled(x):
    __t0 = __compiled_fn_2
    tmp_3 = __import_torch_dot_autograd_dot_profiler._is_profiler_enabled
    tmp_2 = __import_torch_dot__dynamo_dot_utils
    tmp_1 = None
    if tmp_3:
        tmp_1 = tmp_2.record_pregraph_bytecode_enter()
    if tmp_1 is not None:
        tmp_2.record_pregraph_bytecode_exit(tmp_1)
    graph_out_0 = __t0(x)
    __t1 = graph_out_0[0]
    del graph_out_0
    return __t1
"""

RESTORED = """
def resumed(x, y):
    graph_out_0 = __compiled_fn_1(y)
    __t0 = [()]
    __t1 = [graph_out_0[0]]
    del graph_out_0
    __t2 = [__t1[0:1].__iadd__([x])][-1]
    z = __t2[0]
    x = __t2[1]
    return func(z, x)
"""


class Recorder:
    """Stand-ins for Dynamo's globals: every call is logged with its arguments."""

    def __init__(self):
        self.log = []

    def fn(self, name, result=None):
        def call(*args, **kwargs):
            self.log.append((name, repr(args), repr(kwargs)))
            return result if result is not None else name + "()"
        return call

    def namespace(self):
        ns = {}
        ns["__compiled_fn_1"] = ns["__compiled_fn_2"] = self.fn("graph", ("out0", "out1"))
        for resume in ("__resume_at_70_3", "__resume_at_90_2", "__resume_at_100_3"):
            ns[resume] = self.fn(resume)
        ns["__resume_at_472_13"] = ns["__resume_at_76_2"] = lambda cells: self.fn("resume(%r)" % (cells,))
        ns["utils"] = ns["__import_torch_dot__dynamo_dot_utils"] = type("utils", (), {
            "record_pregraph_bytecode_enter": staticmethod(self.fn("enter")),
            "record_pregraph_bytecode_exit": staticmethod(self.fn("exit"))})
        ns["__import_torch_dot_autograd_dot_profiler"] = type("profiler", (), {"_is_profiler_enabled": True})
        ns["torch"] = type("torch", (), {"graph_break": staticmethod(self.fn("graph_break"))})
        ns["cells"] = self.fn("cells", "the cells")
        ns["func"] = self.fn("func")
        ns["make"] = lambda f: self.log.append(("make",)) or "inner"
        ns["contextlib"] = __import__("contextlib")
        return ns


def _function(source, name):
    ns = {}
    exec(compile(textwrap.dedent(source), "<sample>", "exec"), ns)
    return ns[name]


def _run(source, name, args):
    recorder = Recorder()
    ns = recorder.namespace()
    exec(compile(source, "<run>", "exec"), ns)
    return ns[name](*args), recorder.log


@pytest.mark.parametrize("sample, name, args", [
    (CHAINED, "chained_breaks", ("x",)),
    (BRANCH, "data_dependent_if", ("x",)),
    (WRAPPER, "wrapper", ("self", 2)),
    (CLOSURE, "closure_called_after_break", (3, 4)),
    (RESTORED, "resumed", ("x", "y")),
    (PROFILED, "profiled", ("x",)),
])
def test_a_rewrite_calls_what_the_code_it_replaces_calls_in_the_same_order(sample, name, args):
    code = _function(sample, name).__code__
    decompiled = decompile_code(code)
    tidied = readable.tidy(decompiled, code)
    assert tidied is not decompiled
    for idiom in ("__iadd__", "[0:0]", "*[", "if False"):
        assert idiom not in tidied.source, tidied.source
    ours_result, ours_log = _run(tidied.source, name, args)
    theirs_result, theirs_log = _run(textwrap.dedent(sample), name, args)
    assert ours_log == theirs_log
    assert ours_result == theirs_result
    assert any(entry[0].startswith(("__resume", "resume(", "func", "graph")) for entry in ours_log)


def test_the_resume_call_is_written_with_its_arguments():
    code = _function(CHAINED, "chained_breaks").__code__
    source = readable.tidy(decompile_code(code), code).source
    assert source.splitlines()[1:] == [
        "    tmp_2 = utils.record_pregraph_bytecode_enter()",
        "    utils.record_pregraph_bytecode_exit(tmp_2)",
        "    graph_out_0 = __compiled_fn_2(x)",
        "    __t0 = torch.graph_break",                  # temporaries numbered in reading order
        "    __t1 = graph_out_0[0]",
        "    del graph_out_0",
        "    __t2 = __t0()",
        "    return __resume_at_70_3([], [], __t2, __t1)"], source


def test_marks_made_only_while_profiling_read_as_the_2_13_marks_do():
    """torch 2.15 makes the marks only while the profiler runs: the flag and the module
    lose their locals, the enter mark is one conditional expression."""
    code = _function(PROFILED, "profiled").__code__
    source = readable.tidy(decompile_code(code), code).source
    assert source.splitlines()[1:] == [
        "    tmp_1 = __import_torch_dot__dynamo_dot_utils.record_pregraph_bytecode_enter() "
        "if __import_torch_dot_autograd_dot_profiler._is_profiler_enabled else None",
        "    if tmp_1 is not None:",
        "        __import_torch_dot__dynamo_dot_utils.record_pregraph_bytecode_exit(tmp_1)",
        "    graph_out_0 = __compiled_fn_2(x)",
        "    __t0 = graph_out_0[0]",
        "    del graph_out_0",
        "    return __t0"], source


def test_every_line_keeps_the_original_line_it_stands_for():
    code = _function(CHAINED, "chained_breaks").__code__
    decompiled = decompile_code(code)
    tidied = readable.tidy(decompiled, code)
    assert len(tidied.lines) == len(tidied.source.splitlines())
    ret = next(i for i, line in enumerate(tidied.source.splitlines()) if "return" in line)
    original_ret = next(i for i, line in enumerate(decompiled.source.splitlines()) if "return" in line)
    assert tidied.lines[ret] == decompiled.lines[original_ret] is not None


@pytest.mark.parametrize("tail", [
    "    return __t5\n",                          # the list itself escapes to the caller
    "    __t5.append(1)\n    return __t5\n",      # a method of the list
    "    __t5[0:0] = g()\n    return __t5\n",     # a splice of something not followed
])
def test_a_list_used_in_a_way_not_modelled_leaves_the_code_as_it_was(tail):
    source = "def f(x):\n    __t5 = [x]\n" + tail
    code = _function(source, "f").__code__
    decompiled = decompile_code(code)
    tidied = readable.tidy(decompiled, code)
    assert re.search(r"__t0 = \[x\]\n", tidied.source), tidied.source


def test_an_item_read_from_a_name_assigned_later_is_read_where_the_list_was_built():
    source = "def f(x):\n    __t1 = [x]\n    x = g()\n    __t2 = __t1[-1]\n    return h(__t2, x)\n"
    code = _function(source, "f").__code__
    tidied = readable.tidy(decompile_code(code), code)
    ns = {"g": lambda: "new", "h": lambda *a: a}
    exec(tidied.source, ns)
    assert ns["f"]("old") == ("old", "new"), tidied.source
    assert ast.parse(tidied.source)


def test_a_local_bound_once_to_an_argument_is_written_as_the_argument():
    source = ("def forward(self, x):\n    __t0 = (tmp_1 := self).f\n    __t1 = tmp_1.g\n    del tmp_1\n"
              "    return __t0(__t1, x)\n")
    code = _function(source, "forward").__code__
    tidied = readable.tidy(decompile_code(code), code)
    assert "tmp_1" not in tidied.source and "__t0 = self.f" in tidied.source, tidied.source
    ns = {}
    exec(tidied.source, ns)
    receiver = type("R", (), {"f": staticmethod(lambda g, x: (g, x)), "g": 5})()
    assert ns["forward"](receiver, 3) == (5, 3)


def test_a_local_bound_to_an_argument_the_code_assigns_stays():
    source = "def forward(self, x):\n    __t0 = (tmp_1 := self).f\n    self = x\n    return tmp_1.g(__t0)\n"
    code = _function(source, "forward").__code__
    assert "tmp_1" in readable.tidy(decompile_code(code), code).source


LEFT_UNDER_RETURN = """
def torch_dynamo_resume_in_f_at_4(__nested_resume_fns, __nested_frame_values, ___stack0, y):
    graph_out_0 = __compiled_fn_1(y)
    __t0 = [graph_out_0[0], {'a': y}]
    __t1 = [[*[]]]
    __t2 = {1: [()], 'k': (2, *[3])}
    del graph_out_0
    return __t0
"""


def test_a_temporary_nothing_reads_built_of_displays_alone_goes():
    """torch 2.13 leaves ``[[*[]]]`` on the stack under a resume function's return: written
    as a temporary nothing reads, it was a line of noise in every such file."""
    name = "torch_dynamo_resume_in_f_at_4"
    code = _function(LEFT_UNDER_RETURN, name).__code__
    tidied = readable.tidy(decompile_code(code), code)
    assert "[[*[]]]" not in tidied.source and "'k'" not in tidied.source, tidied.source
    assert _run(tidied.source, name, (1, 2, 3, "y")) == _run(textwrap.dedent(LEFT_UNDER_RETURN), name, (1, 2, 3, "y"))


@pytest.mark.parametrize("value", ["[z.a]", "{[]: 1}", "{()}", "[*y]", "[f()]"])
def test_a_temporary_whose_value_may_do_something_stays(value):
    """An attribute or a call may do anything, a key may be unhashable: those are kept."""
    source = "def f(y):\n    __t1 = %s\n    return 0\n" % value
    code = _function(source, "f").__code__
    tidied = readable.tidy(decompile_code(code), code)
    assert "__t0 = " in tidied.source, tidied.source
