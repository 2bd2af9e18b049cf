"""The report's parts that need no torch and no browser: where a file is (the user's or
a library's, and its short name), and an FX graph read back from a dumped graph file."""
from unveil.report.fxgraph import parse_graph
from unveil.report.places import STDLIB, Places

PROGRAM = "/home/u/proj"


def test_the_users_files_are_shown_relative_to_the_programs_directory():
    places = Places(PROGRAM)
    assert places.package("/home/u/proj/train.py") is None
    assert places.short("/home/u/proj/models/gpt.py") == "models/gpt.py"
    assert places.short("/home/u/lib/util.py") == "../lib/util.py"          # close by: still relative
    assert places.is_user("/opt/elsewhere/deep/x.py") and places.short("/opt/elsewhere/deep/x.py") == \
        "/opt/elsewhere/deep/x.py"                                          # far away: whole


def test_a_librarys_files_are_named_by_their_package():
    places = Places(PROGRAM)
    site = "/home/u/proj/.venv/lib/python3.11/site-packages/"
    assert places.package(site + "transformers/models/gpt2/modeling_gpt2.py") == "transformers"
    assert places.short(site + "transformers/models/gpt2/modeling_gpt2.py") == "transformers/models/gpt2/modeling_gpt2.py"
    assert places.package(site + "six.py") == "six"                      # a venv inside the program's directory
    assert places.package("/usr/lib/python3/dist-packages/numpy/core/x.py") == "numpy"
    assert places.package("/usr/lib/python3.11/contextlib.py") == STDLIB
    assert places.short("/usr/lib/python3.11/contextlib.py") == "contextlib.py"
    assert places.package("<frozen runpy>") == STDLIB
    assert places.package("/src/pytorch/torch/nn/modules/module.py") == "torch"     # a source tree
    assert places.short("/src/unveil/src/unveil/runner.py") == "unveil/runner.py"
    assert places.package("C:\\Python311\\Lib\\site-packages\\torch\\nn\\functional.py") == "torch"


def test_without_a_program_directory_the_users_files_share_one():
    places = Places(None, ["/a/b/c.py", "/a/b/d/e.py", "/x/site-packages/t/u.py"])
    assert places.program_dir == "/a/b" and places.short("/a/b/d/e.py") == "d/e.py"


DYNAMO_GRAPH = '''# FX graph __compiled_fn_1
import torch


class GraphModule(torch.nn.Module):
    def forward(self, L_x_: "f32[2, 8][8, 1]cpu", L_w_: "f32[16, 8][8, 1]cpu"):
        l_x_ = L_x_
        l_w_ = L_w_

        # File: /home/u/proj/model.py:12 in forward, code: y = torch.nn.functional.linear(x, w)
        y: "f32[2, 16][16, 1]cpu" = torch._C._nn.linear(l_x_, l_w_);  l_x_ = l_w_ = None

        # File: /home/u/proj/model.py:13 in forward, code: return y.relu() * 2
        relu: "f32[2, 16][16, 1]cpu" = y.relu();  y = None
        mul: "f32[2, 16][16, 1]cpu" = relu * 2;  relu = None
        split = mul.split(8, dim = 1)
        getitem: "f32[2, 8][16, 1]cpu" = split[0];  split = None
        return (getitem,)
'''

JOINT_GRAPH = '''class inner_f(torch.nn.Module):
    def forward(
        self,
        primals,
        tangents,
    ):
        primals_1: "f32[4][1]cpu"  # PlainAOTInput(idx=0)
        tangents_1: "f32[4][1]cpu"  # TangentAOTInput(output=PlainAOTOutput(idx=0))
        primals_1, tangents_1, = fx_pytree.tree_flatten_spec([primals, tangents], self._in_spec)
        sin: "f32[4][1]cpu" = torch.ops.aten.sin.default(primals_1)
        cos: "f32[4][1]cpu" = torch.ops.aten.cos.default(primals_1);  primals_1 = None
        mul: "f32[4][1]cpu" = torch.ops.aten.mul.Tensor(tangents_1, cos);  tangents_1 = cos = None
        return pytree.tree_unflatten([sin, mul], self._out_spec)
'''


def test_a_dynamo_graph_reads_back_as_nodes_with_ops_shapes_inputs_and_lines():
    graph = parse_graph(DYNAMO_GRAPH)
    nodes = {n.name: n for n in graph.nodes}
    assert [n.name for n in graph.nodes] == ["l_x_", "l_w_", "y", "relu", "mul", "split", "getitem", "output"]
    assert nodes["l_x_"].kind == "placeholder" and nodes["l_x_"].shape == "f32[2, 8]"
    assert (nodes["y"].op, nodes["y"].target, nodes["y"].shape) == ("linear", "torch._C._nn.linear", "f32[2, 16]")
    assert nodes["y"].inputs == ["l_x_", "l_w_"] and nodes["y"].source == (
        "/home/u/proj/model.py", 12, "y = torch.nn.functional.linear(x, w)")
    assert (nodes["relu"].op, nodes["relu"].inputs, nodes["relu"].source[1]) == (".relu", ["y"], 13)
    assert (nodes["mul"].op, nodes["mul"].inputs) == ("mul", ["relu"])         # written ``relu * 2``
    assert (nodes["getitem"].op, nodes["getitem"].inputs) == ("getitem [0]", ["split"])
    assert nodes["output"].inputs == ["getitem"] and nodes["output"].source is None
    assert nodes["y"].line == DYNAMO_GRAPH.splitlines().index(
        '        y: "f32[2, 16][16, 1]cpu" = torch._C._nn.linear(l_x_, l_w_);  l_x_ = l_w_ = None') + 1


def test_an_aot_joint_graph_reads_back_with_its_placeholders_and_aten_ops():
    graph = parse_graph(JOINT_GRAPH)
    nodes = {n.name: n for n in graph.nodes}
    assert [n.name for n in graph.nodes] == ["primals_1", "tangents_1", "sin", "cos", "mul", "output"]
    assert nodes["sin"].op == "aten.sin" and nodes["mul"].op == "aten.mul.Tensor"
    assert nodes["mul"].inputs == ["tangents_1", "cos"] and nodes["output"].inputs == ["sin", "mul"]
    assert nodes["tangents_1"].shape == "f32[4]"


CHECKPOINTED = '''class GraphModule(torch.nn.Module):
    def forward(self, primals_1: "f32[3][1]cpu"):
        # ac_graph_id: 2 - PREFER_RECOMPUTE File: /home/u/proj/model.py:5 in inner, code: return x.sin().cos()
        sin: "f32[3][1]cpu" = torch.ops.aten.sin.default(primals_1)
        return (sin,)
'''


def test_a_checkpointed_nodes_annotations_before_its_file_comment_keep_its_line():
    """A checkpointed node's comment begins with its annotations: the report showed the
    AOT forward's sin and cos with no user line (a new-user trial)."""
    nodes = {n.name: n for n in parse_graph(CHECKPOINTED).nodes}
    assert nodes["sin"].source == ("/home/u/proj/model.py", 5, "return x.sin().cos()")


BOXED = '''class GraphModule(torch.nn.Module):
    def forward(self, args_list):
        args_iter = iter(args_list)
        primals_1 = next(args_iter)
        primals_2 = next(args_iter)
        args_list.clear()
        # File: /home/u/proj/model.py:10 in forward, code: h = torch.relu(s.l1(x))
        t: "f32[8, 16][1, 8]cpu" = torch.ops.aten.t.default(primals_1);  primals_1 = None
        addmm: "f32[16, 16][16, 1]cpu" = torch.ops.aten.addmm.default(primals_2, t);  primals_2 = t = None
        return (addmm,)
'''


def test_a_boxed_graphs_inputs_read_as_placeholders_and_its_setup_as_no_node():
    """Under debug() AOT Autograd's graphs take their inputs boxed in a list: the report drew
    ``iter args_iter``, ``next primals_1`` and ``.clear _line_6`` as nodes (a new-user trial)."""
    graph = parse_graph(BOXED)
    assert [(n.name, n.kind) for n in graph.nodes] == [
        ("primals_1", "placeholder"), ("primals_2", "placeholder"), ("t", "call"), ("addmm", "call"),
        ("output", "output")]
    assert {n.name: n.inputs for n in graph.nodes}["addmm"] == ["primals_2", "t"]


IN_PLACE = """
class GraphModule(torch.nn.Module):
    def forward(self, L_g_: "f32[3]"):
        l_g_ = L_g_
        step_t: "f32[]" = self.self___state___0___step
        step_t += 1;  step_t_1: "f32[]" = step_t;  step_t = None
        pow_1: "f32[]" = 0.9 ** step_t_1
        return (pow_1,)
"""


def test_an_in_place_add_reads_as_its_op_not_as_the_name_it_changes():
    """``step_t += 1;  step_t_1 = step_t`` (an optimizer's step count): the node read as an op
    named ``step_t``, the name it changes (a new-user trial: Adam's step under the report)."""
    nodes = {n.name: n for n in parse_graph(IN_PLACE).nodes}
    assert (nodes["step_t_1"].kind, nodes["step_t_1"].op, nodes["step_t_1"].inputs) == ("call", "iadd", ["step_t"])
    assert nodes["pow_1"].inputs == ["step_t_1"]


DYNAMIC = '''class GraphModule(torch.nn.Module):
    def forward(self, s77: "Sym(s77)", s27: "Sym(s27)", L_x_: "f32[s77, s27][s27, 1]cpu", s17: "Sym(s17)"):
        l_x_ = L_x_
        mul: "f32[s77, s27][s27, 1]cpu" = l_x_ * 2;  l_x_ = None
        sum_1: "f32[][]cpu" = mul.sum();  mul = None
        add: "f32[][]cpu" = sum_1 + s17;  sum_1 = s17 = None
        return (add,)
'''


def test_a_graphs_inputs_are_every_input_it_is_given_in_order_size_symbols_too():
    """The index's "inputs -> outputs" of a dynamic graph read ``Sym(s17), f32[s77, s27]``:
    the sizes no node reads were left out, and the tensor came after the symbol it follows."""
    assert parse_graph(DYNAMIC).inputs == ["Sym(s77)", "Sym(s27)", "f32[s77, s27]", "Sym(s17)"]
    assert parse_graph(JOINT_GRAPH).inputs == [None, None, "f32[4]", "f32[4]"]
    assert parse_graph(BOXED).inputs == [None, None, None]


def test_text_that_is_no_graph_reads_as_none():
    assert parse_graph("def f(:\n") is None
    assert parse_graph("x = 1\n") is None


def test_a_dynamo_input_is_shown_as_the_source_it_reads():
    from unveil.report.pictures import _input_name
    assert _input_name("l_self_modules_attn_modules_c_attn_parameters_weight_") == "self.attn.c_attn.weight"
    assert _input_name("L_x_") == "x" and _input_name("primals_1") == "primals_1"


def test_a_flow_draws_a_resume_function_two_compiles_break_into_once(tmp_path):
    """A data-dependent ``if`` recompiled: both compiles break into the same two resume
    functions (its two paths); each is one node, and every edge joins two nodes."""
    from unveil.report.site import Site
    where = {"filename": str(tmp_path / "m.py"), "line": 3, "function": "f"}
    brk = {"reason": "Data-dependent branching", "location": where}
    resumes = ["f_resume_true", "f_resume_false"]
    functions = [{"key": "f", "name": "f", "qualname": "f", "filename": where["filename"], "line": 1,
                  "kind": "function", "resumes": None}] + [
        {"key": key, "name": key, "qualname": key, "filename": where["filename"], "line": 3, "kind": "resume",
         "resumes": "f", "continues": {"line": 4, "source": "return x",
                                       "branch": {"source": "if x.sum() > 0:", "line": 3, "condition_holds": holds}}}
        for key, holds in zip(resumes, (True, False))]
    compiles = [{"function": "f", "compile_id": cid, "compiled": True, "graph_break": brk, "resume_functions": resumes,
                 "recompile_reasons": [], "times": {"frame": 0.5}} for cid in ("0/0", "0/1")]
    from unveil.report.flows import flow_steps
    site = Site(str(tmp_path), {"functions": functions, "compiles": compiles, "artifacts": []})
    steps = flow_steps(site, functions[0])
    nodes = [s[1] for s in steps if s[0] == "node"]
    assert len(nodes) == len(set(nodes)) == 5                     # f, two compiles, two resume functions
    assert all(s[1] in nodes and s[2] in nodes for s in steps if s[0] == "edge")
    labels = [s[2] for s in steps if s[0] == "node" and s[4] == "resume"]
    assert ["where `if x.sum() > 0:` holds", "where `if x.sum() > 0:` does not hold"] == [l[3] for l in labels]
    # (the line it goes on at, as summary.txt says: the picture said the if's, line 3)
    assert [l[2] for l in labels] == ["goes on at line 4"] * 2, labels
    assert sum(1 for s in steps if s[0] == "edge" and s[5] == "break") == 4


def _recompiled(generations):
    """An index of ``f`` compiled 0/0, then 0/1 when 0/0's guard failed, in each of
    ``generations`` (None: a dump from before the index said a compile's generation)."""
    compiles, artifacts = [], []
    for generation in generations:
        tag = "" if not generation else "_reset%d" % generation
        stamp = {} if generation is None else {"generation": generation}
        for cid, failed in (("0/0", None), ("0/1", "0/0")):
            reasons = [{"failed_entry": failed, "guard": "x.dim() == 1", "guard_line": 3}] if failed else []
            compiles.append(dict(stamp, function="f", compile_id=cid, compiled=True, graph_break=None,
                                 recompile_reasons=reasons))
            artifacts.append(dict(stamp, function="f", compile_id=cid, kind="guards", ok=True,
                                  file="f.compile_%s%s.guards.py" % (cid.replace("/", "_"), tag)))
    functions = [{"key": "f", "name": "f", "qualname": "f", "filename": "/m.py", "line": 1, "kind": "function",
                  "resumes": None}]
    return {"functions": functions, "compiles": compiles, "artifacts": artifacts}


def test_a_compile_is_its_generations_and_a_dump_without_generations_reads_as_before(tmp_path):
    """After a reset, compile ids repeat: a page, a flow node, a compile's files and the
    failed entry of its recompile reason are its generation's.  A dump from before the
    index's ``generation`` reads as generation 0."""
    from unveil.report.flows import flow_steps
    from unveil.report.site import Site
    for generations, pages in (((None,), ["compile_f_0_0.html", "compile_f_0_1.html"]),
                               ((0, 1), ["compile_f_0_0.html", "compile_f_0_1.html", "compile_f_0_0_reset1.html",
                                         "compile_f_0_1_reset1.html"])):
        index = _recompiled(generations)
        site = Site(str(tmp_path), index)
        assert [site.compile_page(c) for c in index["compiles"]] == pages
        for comp in index["compiles"]:
            assert [a["file"] for a in site.compile_files(comp)] == \
                [a["file"] for a in index["artifacts"] if site.compile_of(a) is comp]
        last = index["compiles"][-1]
        ((_, link),) = site.recompile_reasons(last)
        assert link == "files/%s.html#L-3" % index["artifacts"][-2]["file"]
        nodes = [s[1] for s in flow_steps(site, index["functions"][0]) if s[0] == "node"]
        assert len(nodes) == len(set(nodes)) == 1 + len(index["compiles"])


def test_a_functions_source_marks_the_breaks_its_compiles_traced_not_those_of_frames_it_called(tmp_path):
    """A block's forward calls an MLP, whose own compile and whose resume function break
    (at line 3 of mlp.py): the block's line 6 had both breaks, as the full Python stack
    of each names the block's call (a new-user trial, GPT-2); only the block's compile,
    which inlined the call, breaks at its line."""
    from unveil.report.site import Site
    block, mlp = str(tmp_path / "block.py"), str(tmp_path / "mlp.py")
    (tmp_path / "block.py").write_text("import mlp\n\n\nclass Block:\n    def forward(self, x):\n"
                                       "        return mlp.forward(x)\n")
    (tmp_path / "mlp.py").write_text("def forward(x):\n    h = x * 2\n    print(float(h.sum()))\n    return h\n")
    caller = [{"filename": str(tmp_path / "train.py"), "line": 9, "function": "<module>"}]
    at_block = {"filename": block, "line": 6, "function": "forward"}
    at_mlp = {"filename": mlp, "line": 3, "function": "forward"}
    functions = [
        {"key": "Block.forward", "name": "forward", "qualname": "Block.forward", "filename": block, "line": 5,
         "kind": "function", "resumes": None},
        {"key": "forward", "name": "forward", "qualname": "forward", "filename": mlp, "line": 1, "kind": "function",
         "resumes": None},
        {"key": "resume_in_forward", "name": "torch_dynamo_resume_in_forward_at_3", "qualname": "resume_in_forward",
         "filename": mlp, "line": 3, "kind": "resume", "resumes": "forward"}]
    item = {"reason": "Unsupported Tensor.item() call", "location": at_mlp,
            "user_stack": caller + [at_block, at_mlp]}
    compiles = [
        {"function": "Block.forward", "compile_id": "0/0", "graph_break": item},
        {"function": "forward", "compile_id": "1/0", "graph_break": dict(item, reason="Unsupported float() call")},
        {"function": "resume_in_forward", "compile_id": "2/0", "graph_break": {
            "reason": "Failed to trace builtin operator", "location": at_mlp,
            "user_stack": caller + [at_block, at_mlp]}}]
    site = Site(str(tmp_path), {"functions": functions, "compiles": compiles, "artifacts": [], "line_map": {}})
    marked = {n: reasons for n, _, reasons, _ in site.source_of(functions[0]) if reasons}
    assert marked == {6: ["Unsupported Tensor.item() call"]}, marked
    marked = {n: reasons for n, _, reasons, _ in site.source_of(functions[1]) if reasons}
    assert marked == {3: ["Failed to trace builtin operator", "Unsupported Tensor.item() call",
                          "Unsupported float() call"]}, marked


def test_a_graphs_lines_count_the_functions_lines_whose_ops_sit_in_what_they_call(tmp_path):
    """'What they compute' gave a graph of ``h = self.fc(x); y = h.relu()`` only the relu's
    line: the matmul's ``# File:`` comment names ``Linear``'s code, the calling line only
    in the node's stack (a new-user trial, GPT-2's MLP: lines 13-13 for 12-13)."""
    from unveil.report.site import Site
    user = str(tmp_path / "m.py")
    (tmp_path / "m.py").write_text("def f(x):\n    h = fc(x)\n    y = h.relu()\n    return y\n")
    dump = tmp_path / "dump"
    dump.mkdir()
    (dump / "f.compile_0_0.graph.py").write_text(
        "class GraphModule(torch.nn.Module):\n"
        '    def forward(self, L_x_: "f32[2, 4]"):\n'
        "        l_x_ = L_x_\n"
        "\n"
        "         # File: /lib/linear.py:5 in forward, code: return x @ x\n"
        '        matmul: "f32[2, 4]" = l_x_ @ l_x_\n'
        "\n"
        "         # File: %s:3 in f, code: y = h.relu()\n"
        '        relu: "f32[2, 4]" = matmul.relu()\n'
        "        return (relu,)\n" % user)
    functions = [{"key": "f", "name": "f", "qualname": "f", "filename": user, "line": 1, "kind": "function",
                  "resumes": None, "source_lines": [1, 4]}]
    index = {"functions": functions, "artifacts": [{"function": "f", "kind": "graph", "ok": True,
                                                   "file": "f.compile_0_0.graph.py", "compile_id": "0/0"}],
             "compiles": [{"function": "f", "compile_id": "0/0", "graph_break": None}],
             "line_map": {"f.compile_0_0.graph.py": [["/lib/linear.py", 5, 6], [user, 2, 6], [user, 3, 9]]},
             "program_dir": str(tmp_path)}
    from unveil.report.index_page import graph_rows
    rows = graph_rows(Site(str(dump), index))
    assert [(r["lines"], r["own_ops"], r["op_count"]) for r in rows] == [(("m.py", 2, 3), 1, 2)], rows


class _Text:
    """A picture as render() takes it: something with ``to_string()``."""

    def __init__(self, text):
        self.text = text

    def to_string(self):
        return self.text


#: a stand-in for Graphviz's ``dot -Tsvg``: one SVG document per graph it is given, after
#: a long pause when one of them says ``slow``
_FAKE_DOT = '''#!%s
import sys, time
text = sys.stdin.read()
if "slow" in text:
    time.sleep(30)
for _ in range(text.count("digraph")):
    sys.stdout.write('<?xml version="1.0"?>\\n<svg width="10pt" height="10pt"></svg>\\n')
'''


def test_a_picture_graphviz_takes_too_long_on_says_so_and_the_others_are_drawn(tmp_path, monkeypatch):
    """Graphviz laid out a tiny T5's AOT backward graphs for minutes each and the report took
    16 minutes (a new-user trial).  A batch that takes too long is laid out again picture by
    picture, each within the time limit: the slow one says it was not drawn, the rest are."""
    import os
    import sys
    from unveil.report import pictures
    fake = tmp_path / "dot"
    fake.write_text(_FAKE_DOT % sys.executable)
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", "%s%s%s" % (tmp_path, os.pathsep, os.environ["PATH"]))
    monkeypatch.setattr(pictures, "LAYOUT_SECONDS", 2)
    texts = ["digraph a {}", "digraph slow {}", "digraph c {}", "digraph d {}"]
    results = pictures.render([_Text(t) for t in texts], batches=1)
    assert [error for _, error in results] == [None, "Graphviz took more than 2 s to lay it out", None, None]
    assert all(svg.startswith("<svg") for svg, _ in results[:1] + results[2:])


def test_a_source_lines_links_put_the_functions_own_files_first(tmp_path):
    """A layer's line runs in its own graph and in the graphs of every frame that inlined it:
    137 links on one line, the function's own last (a new-user trial, GPT-2)."""
    from unveil.report.site import Site
    user = str(tmp_path / "m.py")
    (tmp_path / "m.py").write_text("def f(x):\n    return x + 1\n")
    other = [{"function": "a", "kind": "graph", "ok": True, "file": "a.compile_%d_0.graph.py" % k,
              "compile_id": "%d/0" % k} for k in range(12)]
    own = {"function": "f", "kind": "graph", "ok": True, "file": "f.compile_20_0.graph.py", "compile_id": "20/0"}
    index = {"functions": [{"key": key, "name": key, "qualname": key, "filename": user, "line": 1,
                            "kind": "function", "resumes": None, "source_lines": [1, 2]} for key in ("f", "a")],
             "artifacts": other + [own], "compiles": [], "program_dir": str(tmp_path),
             "line_map": {a["file"]: [[user, 2, 5]] for a in other + [own]}}
    site = Site(str(tmp_path), index)
    (line, _, _, became), = [row for row in site.source_of(index["functions"][0]) if row[0] == 2]
    assert len(became) == 13 and became[0][1].startswith("files/f.compile_20_0.graph.py.html"), became[:2]


def test_a_kernel_call_without_inductors_node_comment_is_linked_through_its_provenance_handle(tmp_path):
    """torch 2.13 writes no ``# Topologically Sorted Source Nodes`` comment on a fused CPU
    kernel's call, so a graph's elementwise nodes had no kernel link.  Under ``debug()`` the
    index's ``kernel_nodes`` (Inductor's provenance record) names the nodes of each handle;
    a call with both comments names its nodes once, at the first."""
    from unveil.report import kernels
    text = "\n".join([
        "def call(args):",                                                              # 1
        "    # Topologically Sorted Source Nodes: [matmul], Original ATen: [aten.mm]",   # 2
        "    # [Provenance debug handles] extern_kernels.mm:1",                          # 3
        "    extern_kernels.mm(a, b, out=buf0)",                                         # 4
        "    # [Provenance debug handles] cpp_fused_mul_relu_0:2",                       # 5
        "    cpp_fused_mul_relu_0(buf0, buf1)",                                          # 6
        "    # [Provenance debug handles] cpp_fused_unknown_1:3",                        # 7
        "    cpp_fused_unknown_1(buf1)",                                                 # 8
        "    return (buf1, )", ""])
    calls = kernels.kernel_calls(text)
    resolved = {"extern_kernels.mm:1": ["matmul"], "cpp_fused_mul_relu_0:2": ["y", "mul"]}
    assert kernels.nodes_computed(calls, resolved, True) == [(2, ["matmul"]), (5, ["y", "mul"])]
    assert kernels.nodes_computed(calls, {}, True) == [(2, ["matmul"])]
    assert kernels.nodes_computed(calls, {}, False) == []


def _gelu_dump(tmp_path):
    """The files of one compile of ``0.5 * h * (1 + tanh(...))`` on ``h = x @ w``, trained:
    Dynamo's graph, the AOT forward and backward, and Inductor's post-grad graph and code of
    each; the backward recomputes ``mul`` and ``add_1`` and Inductor's comment on its ``mm``
    names them (torch 2.13 and 2.15, a new-user trial)."""
    def graph_file(params, body):
        return "\n".join(["import torch", "", "", "class GraphModule(torch.nn.Module):",
                          "    def forward(self, %s):" % ", ".join('%s: "f32[4, 4]"' % p for p in params)]
                         + ["        %s" % line for line in body] + [""])

    def code_file(params, calls):
        return "\n".join(["def call(args):", "    %s, = args" % ", ".join(params)]
                         + ["    %s" % line for line in calls] + ["    return (buf1, )", ""])

    files = {
        "graph": graph_file(["L_x_", "L_w_"], [
            "l_x_ = L_x_", "l_w_ = L_w_", 'h: "f32[4, 4]" = l_x_ @ l_w_', 'mul: "f32[4, 4]" = 0.5 * h',
            'tanh: "f32[4, 4]" = torch.tanh(h)', 'add_1: "f32[4, 4]" = 1.0 + tanh',
            'mul_3: "f32[4, 4]" = mul * add_1', "return (mul_3,)"]),
        "aot_forward": graph_file(["primals_1", "primals_2"], ["return (primals_1,)"]),
        "aot_backward": graph_file(["mm", "tangents_1"], ["return (mm,)"]),
        "post_grad_graph": graph_file(["primals_1", "primals_2"], [
            'mm: "f32[4, 4]" = torch.ops.aten.mm.default(primals_1, primals_2)',
            'mul: "f32[4, 4]" = torch.ops.aten.mul.Tensor(mm, 0.5)',
            'tanh: "f32[4, 4]" = torch.ops.aten.tanh.default(mm)',
            'add_1: "f32[4, 4]" = torch.ops.aten.add.Tensor(tanh, 1.0)',
            'mul_3: "f32[4, 4]" = torch.ops.aten.mul.Tensor(mul, add_1)', "return (mul_3, mm)"]),
        "post_grad_graph_1": graph_file(["mm", "tangents_1"], [
            'mul: "f32[4, 4]" = torch.ops.aten.mul.Tensor(mm, 0.5)',
            'mul_4: "f32[4, 4]" = torch.ops.aten.mul.Tensor(tangents_1, mul)',
            'tanh: "f32[4, 4]" = torch.ops.aten.tanh.default(mm)',
            'add_1: "f32[4, 4]" = torch.ops.aten.add.Tensor(tanh, 1.0)',
            'mm_1: "f32[4, 4]" = torch.ops.aten.mm.default(mul_4, add_1)', "return (mm_1,)"]),
        "inductor_output": code_file(["primals_1", "primals_2"], [
            "# Topologically Sorted Source Nodes: [h], Original ATen: [aten.mm]",
            "# [Provenance debug handles] extern_kernels.mm:1",
            "extern_kernels.mm(primals_1, primals_2, out=buf0)",
            "# [Provenance debug handles] cpp_fused_add_mul_tanh_0:2",
            "cpp_fused_add_mul_tanh_0(buf0, buf1)"]),
        "inductor_output_1": code_file(["mm", "tangents_1"], [
            "cpp_fused_add_mul_tanh_backward_0(buf0, tangents_1)",
            "# Topologically Sorted Source Nodes: [mul, mul_4, add_1, mm_1], Original ATen: [aten.mul, aten.mm]",
            "extern_kernels.mm(buf0, buf1, out=buf2)"]),
    }
    made_from = "__compiled_fn_1_9e887d37_cf49_420b_9ebd_1ca1e13190ac"
    artifacts = []
    for name, text in files.items():
        (tmp_path / ("f.compile_0_0.%s.py" % name)).write_text(text)
        art = {"function": "f", "compile_id": "0/0", "kind": name.rstrip("_1"), "ok": True,
               "file": "f.compile_0_0.%s.py" % name}
        art.update({"graph": made_from} if name == "graph" else {"made_from": made_from})
        if name.startswith("inductor_output"):
            art["post_grad_graph"] = "f.compile_0_0.%s.py" % name.replace("inductor_output", "post_grad_graph")
        artifacts.append(art)
    return {"functions": [], "artifacts": artifacts, "compiles": [], "line_map": {}}


def _kernel_links(site, index, name):
    """``{node: [label]}``: the kernel links of graph file ``name``'s nodes (its page's rows)."""
    art = next(a for a in index["artifacts"] if a["file"] == "f.compile_0_0.%s.py" % name)
    return {node: [label for label, _ in links] for _, node, links in site.provenance(art)}


def test_a_graphs_nodes_link_only_to_the_kernels_of_the_code_made_from_it(tmp_path):
    """The forward's ``mul`` and ``add_1`` linked to the backward's ``mm`` (``inductor_output:119``,
    a link to ``inductor_output_1.py``), whose comment names the backward's recomputed
    nodes of the same names; Dynamo's graph too.  Inductor's comment names Dynamo's graph's
    nodes in forward code and the backward graph's in backward code; each link names its file."""
    from unveil.report.site import Site
    index = _gelu_dump(tmp_path)
    site = Site(str(tmp_path), index)
    assert _kernel_links(site, index, "graph") == {"h": ["inductor_output:3"]}
    assert _kernel_links(site, index, "post_grad_graph") == {}
    assert _kernel_links(site, index, "post_grad_graph_1") == {
        node: ["inductor_output_1:4"] for node in ("mul", "mul_4", "add_1", "mm_1")}
    assert _kernel_links(site, index, "aot_forward") == _kernel_links(site, index, "aot_backward") == {}
    code = next(a for a in index["artifacts"] if a["file"] == "f.compile_0_0.inductor_output_1.py")
    (_, names, links), = site.provenance(code)
    assert names == "mul, mul_4, add_1, mm_1" and {label.partition(":")[0] for label, _ in links} == {
        "post_grad_graph_1"}


def test_under_debug_the_provenance_handles_link_the_post_grad_graphs_nodes(tmp_path):
    """Under ``debug()`` the forward's ``mm`` had no link though its call has a provenance
    handle: the handle's post-grad nodes (``kernel_post_grad_nodes``) link the post-grad
    graph, its Dynamo nodes (``kernel_nodes``) Dynamo's graph."""
    from unveil.report.site import Site
    index = _gelu_dump(tmp_path)
    code = next(a for a in index["artifacts"] if a["file"] == "f.compile_0_0.inductor_output.py")
    code["kernel_nodes"] = {"extern_kernels.mm:1": ["h"], "cpp_fused_add_mul_tanh_0:2": ["mul_3", "mul", "add_1",
                                                                                         "tanh"]}
    code["kernel_post_grad_nodes"] = {"extern_kernels.mm:1": ["mm"],
                                      "cpp_fused_add_mul_tanh_0:2": ["mul_3", "mul", "add_1", "tanh"]}
    site = Site(str(tmp_path), index)
    assert _kernel_links(site, index, "post_grad_graph") == {
        "mm": ["inductor_output:3"], **{node: ["inductor_output:6"] for node in ("mul", "tanh", "add_1", "mul_3")}}
    assert _kernel_links(site, index, "graph") == {
        "h": ["inductor_output:3"], **{node: ["inductor_output:6"] for node in ("mul", "tanh", "add_1", "mul_3")}}


def test_code_whose_graph_the_dump_does_not_tell_links_no_node_by_name(tmp_path):
    """An Inductor file with no post-grad graph in its entry (a dump from before
    ``post_grad_graph``, or none logged) is not taken for the forward: Inductor's comment
    then links nothing."""
    from unveil.report.site import Site
    index = _gelu_dump(tmp_path)
    for art in index["artifacts"]:
        art.pop("post_grad_graph", None)
    site = Site(str(tmp_path), index)
    assert all(_kernel_links(site, index, name) == {} for name in ("graph", "post_grad_graph", "post_grad_graph_1"))



def test_a_reason_whose_guard_could_not_read_its_value_says_so_under_it(tmp_path):
    """The compile page says under a recompile reason what the summary says: that Dynamo
    could not read the value (``CodeGuardAccessor: Not a function``) and whose id the guard
    checks."""
    from unveil.report.site import Site
    index = _recompiled((0,))
    reason = index["compiles"][-1]["recompile_reasons"][0]
    reason.update(guard="CodeGuardAccessor: Not a function on G['act'].__code__", identity="the code of act (/m.py:1)",
                  unreadable={"value": "act.__code__", "why": "Not a function", "checks": "___check_obj_id(...)"})
    assert Site(str(tmp_path), index).reason_notes(reason) == [
        "Dynamo could not read act.__code__ to check it (Not a function): the value is no longer the kind of "
        "object compile 0/0 was made for",
        "the id it checks is that of the code of act (/m.py:1) (which compile 0/0 ran for)"]


def test_two_library_files_of_one_short_name_get_a_page_each(tmp_path):
    """The same library file in two environments (the installed one, and the one a compiled
    graph's comment names, Inductor's cache having made it elsewhere) was one source page:
    the one written last, whose lines the other's links lacked (a new-user trial)."""
    from unveil.report.site import Site
    files = []
    for env in ("venv_a", "venv_b"):
        path = tmp_path / env / "lib" / "python3.11" / "site-packages" / "transformers" / "cache_utils.py"
        path.parent.mkdir(parents=True)
        path.write_text("".join("x%d = %d\n" % (n, n) for n in range(1, 200)))
        files.append(str(path))
    site = Site(str(tmp_path), {"functions": [], "artifacts": [], "compiles": [], "program_dir": str(tmp_path)})
    first, second = site.source_link(files[0], 150), site.source_link(files[1], 20)
    assert first == "source/transformers_cache_utils.py.html#L-150"
    assert second == "source/transformers_cache_utils.py_2.html#L-20"
    assert site.source_link(files[0], 30) == "source/transformers_cache_utils.py.html#L-30"
