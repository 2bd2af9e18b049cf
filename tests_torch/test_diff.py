"""``unveil diff``: two dumps lined up; two runs of the same program differ in nothing
(graph ids, uuids, object ids, compile ids and install paths aside), and a change of one
guard, one graph node or one constant is what it reports."""
import os
import subprocess
import sys

import pytest
import torch

import unveil
from unveil.dumpdiff import diff_dumps

from test_report import check_site

RELU = False
SCALE = 0.7071067811


class Block(torch.nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.linear = torch.nn.Linear(4, 4)

    def forward(self, x):
        x = self.linear(x)
        if RELU:
            x = x.relu()
        print("a graph break")
        return x * 2


def dump(path, relu):
    global RELU
    RELU = relu
    torch._dynamo.reset()
    model = torch.compile(Block(), backend="eager")
    try:
        with unveil.prepare_debug(path) as session:
            model(torch.ones(2, 4))
            model(torch.ones(3, 4))          # a recompile
    finally:
        RELU = False
    assert session.failures == []
    return model


def test_two_runs_of_the_same_program_do_not_differ(tmp_path):
    keep = [dump(tmp_path / "a", False), dump(tmp_path / "b", False)]
    assert keep and diff_dumps(tmp_path / "a", tmp_path / "b") == []


def test_one_guard_and_one_graph_node_are_what_differs(tmp_path):
    keep = [dump(tmp_path / "a", False), dump(tmp_path / "b", True)]
    lines = diff_dumps(tmp_path / "a", tmp_path / "b")
    assert keep and lines
    files = [line[4:] for line in lines if line.startswith("+++ ")]
    graphs = [f for f in files if f.endswith(".graph.py")]
    guards = [f for f in files if f.endswith(".guards.py")]
    assert graphs and guards, lines
    added = [line for line in lines if line.startswith("+") and not line.startswith("+++")]
    removed = [line for line in lines if line.startswith("-") and not line.startswith("---")]
    assert any("relu" in line for line in added) and not any("relu" in line for line in removed), lines
    assert any("RELU" in line and "True" in line for line in added), lines
    assert any("RELU" in line and "False" in line for line in removed), lines
    assert not any(line.startswith("only in") for line in lines), lines
    # the full-code file repeats the graph and the guards: one line says it differs too (a
    # new-user trial read every change twice), and --full-code gives its diff
    assert not any(f.endswith(".full_code.py") for f in files), files
    assert any(line.endswith(".full_code.py differs too: it repeats the files of Block.forward above (unveil diff "
                             "--full-code shows it)") for line in lines), lines
    whole = diff_dumps(tmp_path / "a", tmp_path / "b", full_code=True)
    assert any(line.startswith("+++ ") and line.endswith(".full_code.py") for line in whole), whole


def test_the_command_exits_1_on_a_difference_0_on_none_2_on_a_non_dump(tmp_path):
    keep = [dump(tmp_path / "a", False), dump(tmp_path / "b", True), dump(tmp_path / "c", False)]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))

    def diff(*dirs):
        return subprocess.run([sys.executable, "-m", "unveil", "diff"] + [str(d) for d in dirs],
                              capture_output=True, text=True, env=env, timeout=120)
    assert keep
    assert diff(tmp_path / "a", tmp_path / "b").returncode == 1
    same = diff(tmp_path / "a", tmp_path / "c")
    assert same.returncode == 0 and same.stdout.startswith("no difference"), same.stdout
    report = subprocess.run([sys.executable, "-m", "unveil", "report", str(tmp_path / "b")], capture_output=True,
                            text=True, env=env, timeout=300)
    assert report.returncode == 0, report.stderr
    assert 'href="diff.html"' not in (tmp_path / "b" / "report" / "index.html").read_text()
    page = diff(tmp_path / "a", tmp_path / "b", "--html", tmp_path / "b" / "report")
    assert page.returncode == 1 and page.stderr.startswith("unveil: diff page "), page.stderr
    html = (tmp_path / "b" / "report" / "diff.html").read_text()
    assert "relu" in html and "file(s) differ" in html
    # the report's index links it (it did not: a new-user trial found it only by its name), and
    # a report built again keeps the link
    assert '<a href="diff.html">' in (tmp_path / "b" / "report" / "index.html").read_text()
    check_site(str(tmp_path / "b" / "report"))        # its links resolve, nothing from outside
    report = subprocess.run([sys.executable, "-m", "unveil", "report", str(tmp_path / "b")], capture_output=True,
                            text=True, env=env, timeout=300)
    assert report.returncode == 0 and '<a href="diff.html">' in (tmp_path / "b" / "report" / "index.html").read_text()
    bad = diff(tmp_path / "a", tmp_path / "nothing")
    assert bad.returncode == 2 and bad.stderr.startswith("unveil: error: ") and bad.stderr.count("\n") == 1


def scaled(x):
    return x * SCALE


def dumps_at_two_scales(tmp_path, fn, first, second):
    """``fn`` dumped into ``tmp_path/a`` with SCALE ``first`` and into ``tmp_path/b`` with
    ``second``; the two compiled functions (kept alive: the dumps' ids stay theirs)."""
    global SCALE
    keep = []
    try:
        for name, value in (("a", first), ("b", second)):
            SCALE = value
            torch._dynamo.reset()
            compiled = torch.compile(fn, backend="eager")
            with unveil.prepare_debug(tmp_path / name) as session:
                compiled(torch.ones(3))
            assert session.failures == []
            keep.append(compiled)
    finally:
        SCALE = 0.7071067811
    return keep


def test_a_changed_constant_of_ten_digits_is_reported(tmp_path):
    """0.7071067811 and 0.9071067811: digits after a decimal point are a value, not an
    object id, in the graph and in the guard on the global."""
    keep = dumps_at_two_scales(tmp_path, scaled, 0.7071067811, 0.9071067811)
    lines = diff_dumps(tmp_path / "a", tmp_path / "b")
    assert keep
    graph = [line for line in lines if "* 0." in line]
    guard = [line for line in lines if "G['SCALE'] ==" in line]
    assert any(line.startswith("-") and "0.7071067811" in line for line in graph), lines
    assert any(line.startswith("+") and "0.9071067811" in line for line in graph), lines
    assert any(line.startswith("+") and "== 0.9071067811" in line for line in guard), lines
    assert not any("<id>" in line for line in graph + guard), lines


def scaled_after_a_break(x):
    x = x + 1
    print("a graph break")
    return x * SCALE


def test_a_change_only_after_a_break_leaves_the_full_code_file_one_line(tmp_path):
    """Only the resume function's graph and guards differ: its code is in the full-code
    file of the function it resumes, whose diff was printed whole (a new-user trial on
    BERT's feed_forward_chunk), where a change in the function's own files gave one line."""
    keep = dumps_at_two_scales(tmp_path, scaled_after_a_break, 0.5, 0.25)
    lines = diff_dumps(tmp_path / "a", tmp_path / "b")
    assert keep
    files = [line[4:] for line in lines if line.startswith("+++ ")]
    assert files and all("resume_in_scaled_after_a_break" in f for f in files), lines
    resume = files[0].rsplit("/", 1)[-1].split(".")[0]
    assert lines[-1].endswith("scaled_after_a_break.full_code.py differs too: it repeats the files of %s above "
                              "(unveil diff --full-code shows it)" % resume), lines


CHECKOUT = """
import sys
import torch
import unveil

K = 3


class Lin(torch.nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.lin = torch.nn.Linear(4, 4)

    def forward(self, x):
        y = self.lin(x) * 0.5
        print("a graph break")
        return y + K


if __name__ == "__main__":
    model = torch.compile(Lin(), backend="eager")
    with unveil.prepare_debug(sys.argv[1]) as session:
        model(torch.ones(2, 4))
        model(torch.ones(3, 4))
    assert session.failures == [], session.failures
"""


def test_one_program_run_from_two_checkouts_does_not_differ(tmp_path):
    """The same model.py in v1/ and v2/, each run in a process of its own: the paths of
    the user's files (in headers, graph comments and the shortened ones in guard comments)
    and of site-packages are where each was installed, not a difference."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    for name in ("v1", "v2", "v3"):
        (tmp_path / name).mkdir()
        text = CHECKOUT if name != "v3" else CHECKOUT.replace("* 0.5", "* 0.25")
        (tmp_path / name / "model.py").write_text(text)
        done = subprocess.run([sys.executable, "model.py", str(tmp_path / ("dump_" + name))], cwd=tmp_path / name,
                              capture_output=True, text=True, env=env, timeout=600)
        assert done.returncode == 0, done.stderr
    text = (tmp_path / "dump_v1" / "Lin.forward.compile_0_0.guards.py").read_text()
    assert str(tmp_path / "v1" / "model.py") in (tmp_path / "dump_v1" / "Lin.forward.compile_0_0.graph.py").read_text()
    assert "/v1/model.py:" in text                      # (the shortened path Dynamo writes in guard notes)
    assert diff_dumps(tmp_path / "dump_v1", tmp_path / "dump_v2") == []
    changed = diff_dumps(tmp_path / "dump_v1", tmp_path / "dump_v3")
    assert any(line.startswith("+") and "* 0.25" in line for line in changed), changed
    assert not any("/v1/" in line or "/v3/" in line for line in changed), changed


@pytest.mark.parametrize("text, expected", [
    ("__compiled_fn_12_0d3f5f4e_1d2b_4c4e_9a61_37c1f4c0a9b2(x); __compiled_fn_13(y)",
     "__compiled_fn_0(x); __compiled_fn_1(y)"),
    ("check_obj_id(L['self'], 140415347928976)", "check_obj_id(L['self'], <id>)"),
    # an address a long value's text was cut in (a new-user trial: a dict of functions in a global's note)
    ("TABLE = G['TABLE']  # dict: {'k': <function f at 0x7fc6...", "TABLE = G['TABLE']  # dict: {'k': <function f at 0x..."),
    ("<function f at 0x7fc6a1b2c3d0>, 0x...", "<function f at 0x...>, 0x..."),
    ("return __resume_at_42_7([], [], x)", "return __resume_at_42_N([], [], x)"),
    ("___module_collections_140574649687696_c23.OrderedDict", "___module_collections_<id>_cN.OrderedDict"),
    # a global installed by id with no prefix, and one named by two ids (a new-user trial: Adam.step's guards)
    ("if not (check_obj_id(G['_139718848043808_c33'].Tensor, 94241808540352)):",
     "if not (check_obj_id(G['_<id>_cN'].Tensor, <id>)):"),
    ("G['__optimizer_140558051810160_139718126034016_c37']() is not None", "G['__optimizer_<id>_<id>_cN']() is not None"),
    ("if not (dict_version(__import__('torch').utils._pytree.SUPPORTED_NODES) == 3168271):",
     "if not (dict_version(__import__('torch').utils._pytree.SUPPORTED_NODES) == <version>):"),
    # values stay: digits after a decimal point, a long int in a graph, an equality guard
    ("mul = linear * 0.7071067811;  linear = None", "mul = linear * 0.7071067811;  linear = None"),
    ("add = x + 12345678901234", "add = x + 12345678901234"),
    ("G['N'] == 98765432109 and math.pi == 3.141592653589793", "G['N'] == 98765432109 and math.pi == 3.141592653589793"),
    # ids: the second argument of an identity or type check, whatever its first holds
    ("___check_type_id(G['m'].f(a, 'x,y')[0], 94241808540352)", "___check_type_id(G['m'].f(a, 'x,y')[0], <id>)"),
    ("check_type_id(L['self'], 948, '__main__.Lin')", "check_type_id(L['self'], <id>, '__main__.Lin')"),
    # install places: site-packages and the standard library, also as torch shortens them
    ("# File: /work/venv213/lib/python3.11/site-packages/torch/nn/modules/linear.py:134 in forward",
     "# File: <site-packages>/torch/nn/modules/linear.py:134 in forward"),
    ("(from: with x: # sr/lib/python3.11/contextlib.py:12 in f)", "(from: with x: # <python-lib>/contextlib.py:12 in f)"),
    # where torch's own code made a guard: a warm Inductor cache makes it elsewhere than a cold one
    ("# LAMBDA_GUARD: condition (from: y = f(x) # m.py:3 in g (user code shown ... (tensor, dim)) and "
     "(_inductor/codegen/cpp.py:2273 in need_use_acc_helper))",
     "# LAMBDA_GUARD: condition (from: y = f(x) # m.py:3 in g (user code shown ... (tensor, dim)) and "
     "(torch's code))"),
    # (a new-user trial: a run with the caches warm against one with them off)
    ("# SYMBOLIC: x (from: (_functorch/_aot_autograd/autograd_cache.py:1210 in evaluate_guards))",
     "# SYMBOLIC: x (from: (torch's code))"),
    ("# AOT ID: ['4_backward']", "# AOT ID: ['N_backward']"),
])
def test_what_always_differs_is_written_the_same(text, expected):
    from unveil.dumpdiff import normalised
    assert normalised(text, "/nowhere") == expected


@pytest.mark.parametrize("text", ["# File: /home/me/v1/model.py:3 in f", "# ome/me/v1/model.py:3 in f",
                                  "# home/me/v1/model.py:3 in f", "# me/v1/model.py:3 in f", "# v1/model.py:3 in f",
                                  "G = module_globals('__main__', '/home/me/v1/model.py')"])
def test_the_programs_directory_is_written_alike_in_full_and_shortened(text):
    from unveil.volatile import Places
    places = Places(None, "/home/me/v1")
    assert "<program>/model.py" in places.replaced(text)
    assert "compile 1/0" == places.replaced("compile 1/0")       # a path only before a file's name
    assert "x = v1/scale" == places.replaced("x = v1/scale")


def twice(x):
    return x * 2


def dump_with_a_reset(path, second_after_reset):
    """``twice`` dumped with a ``torch._dynamo.reset()`` inside the block: each generation
    compiles it for a vector, then once more (0/1) for ``torch.ones(3, 2)``, or after the
    reset for ``second_after_reset``."""
    torch._dynamo.reset()
    with unveil.prepare_debug(path) as session:
        for generation, second in enumerate((torch.ones(3, 2), second_after_reset)):
            if generation:
                torch._dynamo.reset()
            compiled = torch.compile(twice, backend="eager")
            compiled(torch.ones(3))
            compiled(second)
    assert session.failures == []


def test_compiles_are_paired_by_generation_and_named_by_label(tmp_path):
    """After a reset, compile ids start again from 0/0: the diff paired a function's
    compiles by id alone (two of each id, so one file of each pair went uncompared) and
    named them by a place counted across generations.  A change in the second generation
    only is its files' and its compile's, ``compile #1_reset1``."""
    dump_with_a_reset(tmp_path / "a", torch.ones(3, 2))
    dump_with_a_reset(tmp_path / "b", torch.ones(3, dtype=torch.float64))
    lines = diff_dumps(tmp_path / "a", tmp_path / "b")
    changed = [line[4:] for line in lines if line.startswith("+++ ")]
    assert changed and all(".compile_0_1_reset1." in f for f in changed), lines
    explained = [line for line in lines if line.startswith("twice, compile")]
    assert [line.partition(":")[0] for line in explained] == ["twice, compile #1_reset1"], lines
    assert "dtype mismatch" in explained[0] and not any(line.startswith("only in") for line in lines), lines
