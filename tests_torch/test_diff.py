"""``unveil diff``: two dumps lined up; two runs of the same program differ in nothing
(graph ids, uuids, object ids and compile ids aside), and a change of one guard and
one graph node is what it reports."""
import os
import subprocess
import sys

import pytest
import torch

import unveil
from unveil.dumpdiff import diff_dumps

from test_report import check_site

RELU = False


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
    page = diff(tmp_path / "a", tmp_path / "b", "--html", tmp_path / "b" / "report")
    assert page.returncode == 1 and page.stderr.startswith("unveil: diff page "), page.stderr
    html = (tmp_path / "b" / "report" / "diff.html").read_text()
    assert "relu" in html and "file(s) differ" in html
    check_site(str(tmp_path / "b" / "report"))        # its links resolve, nothing from outside
    bad = diff(tmp_path / "a", tmp_path / "nothing")
    assert bad.returncode == 2 and bad.stderr.startswith("unveil: error: ") and bad.stderr.count("\n") == 1


@pytest.mark.parametrize("text, expected", [
    ("__compiled_fn_12_0d3f5f4e_1d2b_4c4e_9a61_37c1f4c0a9b2(x); __compiled_fn_13(y)",
     "__compiled_fn_0(x); __compiled_fn_1(y)"),
    ("check_obj_id(L['self'], 140415347928976)", "check_obj_id(L['self'], <id>)"),
    ("return __resume_at_42_7([], [], x)", "return __resume_at_42_N([], [], x)"),
    ("___module_collections_140574649687696_c23.OrderedDict", "___module_collections_<id>_cN.OrderedDict"),
    ("if not (dict_version(__import__('torch').utils._pytree.SUPPORTED_NODES) == 3168271):",
     "if not (dict_version(__import__('torch').utils._pytree.SUPPORTED_NODES) == <version>):"),
])
def test_what_always_differs_is_written_the_same(text, expected):
    from unveil.dumpdiff import normalised
    assert normalised(text, "/nowhere") == expected
