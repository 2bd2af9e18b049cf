"""Graph breaks, skipped frames and restarts in the dump, checked against Dynamo's own records.

``torch._dynamo.explain`` lists every graph break with its reason and user stack;
Dynamo's cache says which frames got compiled code; running the program shows
which resume function takes which path of an ``if``.
"""
import json
import re
import sys

import pytest
import torch

import unveil

import programs
from programs import break_in_nested_call, chained_breaks


def loop_break(x):
    for _ in range(2):
        x = x * 2
        torch._dynamo.graph_break()     # in a loop: Dynamo gives up on the whole frame
    return x


def branch(x):
    x = x + 1
    if x.sum() > 0:                     # data-dependent: two resume functions at this line
        y = x * 2
    else:
        y = x * 3
    return y


def disabled_call(x):
    return _disabled(x + 1) * 2


@torch.compiler.disable
def _disabled(x):
    return x - 1


def _lines_of(fn, *needles):
    """The line numbers of ``fn``'s source lines containing each needle."""
    import inspect
    source, first = inspect.getsourcelines(fn)
    return [first + next(k for k, text in enumerate(source) if needle in text) for needle in needles]


def dump_of(tmp_path, fn, *inputs, within=unveil.prepare_debug):
    torch._dynamo.reset()
    compiled = torch.compile(fn, backend="eager")
    with within(tmp_path) as session:
        for x in inputs:
            compiled(x)
    assert session.failures == [], session.failures
    return json.loads((tmp_path / "index.json").read_text())


def dynamo_breaks(fn, x):
    """Dynamo's own list: (first line of the reason, innermost user file and line)."""
    torch._dynamo.reset()
    explained = torch._dynamo.explain(fn)(x)
    return sorted(((b.reason.strip().splitlines()[0], b.user_stack[-1].filename, b.user_stack[-1].lineno)
                   for b in explained.break_reasons), key=lambda b: b[1:])


def our_breaks(index):
    return sorted(((c["graph_break"]["reason"], c["graph_break"]["location"]["filename"],
                    c["graph_break"]["location"]["line"]) for c in index["compiles"] if c["graph_break"]),
                  key=lambda b: b[1:])


@pytest.mark.parametrize("fn", [chained_breaks, break_in_nested_call, branch, disabled_call],
                         ids=lambda fn: fn.__name__)
def test_every_break_has_its_own_reason_and_place_as_dynamo_lists_them(fn, tmp_path):
    index = dump_of(tmp_path, fn, torch.ones(3))
    expected = dynamo_breaks(fn, torch.ones(3))
    ours = our_breaks(index)
    assert [b[1:] for b in ours] == [b[1:] for b in expected]
    for (reason, _, _), (theirs, _, _) in zip(ours, expected):
        # explain() words a data-dependent jump by Dynamo's internal name for it
        assert reason == theirs or (reason, theirs.split()[0]) == ("Data-dependent branching", "generic_jump")
    for comp in index["compiles"]:
        brk = comp["graph_break"]
        if brk:
            assert brk["explanation"] and brk["hints"] and brk["url"].startswith("https://"), brk
            assert brk["user_stack"][-1]["line"] == brk["location"]["line"]


@pytest.mark.parametrize("within", [unveil.prepare_debug, unveil.debug], ids=["prepare_debug", "debug"])
def test_chained_breaks_label_each_resume_function_with_its_own_break(within, tmp_path):
    """Under debug() Dynamo traces the dumped resume function: the second break is still
    named by the user's line."""
    index = dump_of(tmp_path, chained_breaks, torch.ones(3), within=within)
    first, second = _lines_of(chained_breaks, "graph_break()", ".item()")
    resumes = {f["key"]: f for f in index["functions"] if f["kind"] == "resume"}
    at = {key.rpartition("_at_")[2]: f for key, f in resumes.items()}
    assert set(at) == {str(first), str(second)}
    assert at[str(first)]["graph_break"]["location"]["line"] == first
    assert "graph_break()" in at[str(first)]["graph_break"]["reason"]
    where = at[str(second)]["graph_break"]["location"]
    assert (where["filename"], where["line"]) == (programs.__file__, second)
    assert "item()" in at[str(second)]["graph_break"]["reason"]
    # and each goes on from its break's line (the call's result is still to be used there)
    assert at[str(first)]["continues"]["line"] == first
    assert at[str(second)]["continues"]["source"].startswith("s = x.sum().item()")


def test_a_break_in_a_nested_call_names_the_callee_line_and_the_callers_stack(tmp_path):
    index = dump_of(tmp_path, break_in_nested_call, torch.ones(3))
    outer = next(c for c in index["compiles"] if c["function"] == "break_in_nested_call")
    stack = [(s["function"], s["line"]) for s in outer["graph_break"]["user_stack"]]
    call_line, = _lines_of(break_in_nested_call, "_inner_layer(")
    summary = (tmp_path / "summary.txt").read_text()
    assert "inside _inner_layer, called from break_in_nested_call (line %d)" % call_line in summary, summary
    from programs import _inner_layer
    break_line, = _lines_of(_inner_layer, "graph_break()")
    assert stack[-2:] == [("break_in_nested_call", call_line), ("_inner_layer", break_line)]


def test_the_two_resume_functions_of_a_data_dependent_branch_say_which_path_each_takes(tmp_path):
    index = dump_of(tmp_path, branch, torch.ones(3), -torch.ones(3) * 5)
    test_line, true_line, false_line = _lines_of(branch, "if x.sum()", "y = x * 2", "y = x * 3")
    resumes = [f for f in index["functions"] if f["kind"] == "resume"]
    paths = {f["continues"]["branch"]["condition_holds"]: f for f in resumes}
    assert set(paths) == {True, False}
    assert paths[True]["continues"]["line"] == true_line and paths[False]["continues"]["line"] == false_line
    assert all(f["continues"]["branch"]["line"] == test_line for f in resumes)
    assert all(f["continues"]["branch"]["source"].startswith("if x.sum() > 0:") for f in resumes)
    # proof by running: a positive input runs the resume function said to be the true path
    codes = {}
    with unveil.prepare_debug(tmp_path / "again") as session:
        torch._dynamo.reset()
        compiled = torch.compile(branch, backend="eager")
        ran = _resume_functions_run(lambda: compiled(torch.ones(3)))
        codes = {fn.key: fn for fn in session.functions.values()}
    assert ran == {codes[paths[True]["key"]].code.co_name}
    resume_file = (tmp_path / next(a["file"] for a in index["artifacts"] if a["function"] == paths[False]["key"]
                                   and a["kind"] == "resume_function")).read_text()
    assert "the path on which the test at line %d (if x.sum() > 0:" % test_line in resume_file
    assert ") is false." in resume_file


def _resume_functions_run(call):
    ran = set()

    def profile(frame, event, arg):
        if event == "call" and frame.f_code.co_name.startswith("torch_dynamo_resume_in_"):
            ran.add(frame.f_code.co_name)
    sys.setprofile(profile)
    try:
        call()
    finally:
        sys.setprofile(None)
    return ran


def test_a_skipped_frame_is_listed_with_why_where_dynamo_has_no_code_for_it(tmp_path):
    index = dump_of(tmp_path, loop_break, torch.ones(3))
    assert torch._dynamo.eval_frame._debug_get_cache_entry_list(loop_break.__code__) == []   # Dynamo's truth
    skipped = [c for c in index["skipped_frames"] if c["function"] == "loop_break"]
    assert len(skipped) == 1, index["skipped_frames"]
    why = skipped[0]["skipped"]
    break_line, = _lines_of(loop_break, "graph_break()")
    assert why["location"]["line"] == break_line
    assert why["because"]["reason"] == "graph break in loop" and "loop" in why["because"]["explanation"]
    summary = (tmp_path / "summary.txt").read_text()
    assert re.search(r"^In all: 1 compile, .*, 1 frame skipped\.$", summary, re.M), summary     # one, not "1 frames"
    assert "skipped, the frame runs as it is: graph break in loop" in summary
    assert "set off by: Call to `torch._dynamo.graph_break()` (%s:%d)" % (__file__, break_line) in summary
    assert "hint: Remove the `torch._dynamo.graph_break()` call." in summary
    # a frame that compiled is not listed
    index = dump_of(tmp_path / "b", chained_breaks, torch.ones(3))
    assert index["skipped_frames"] == []


def test_a_fullgraph_compile_that_breaks_is_listed_as_failed_not_skipped(tmp_path):
    torch._dynamo.reset()
    with unveil.prepare_debug(tmp_path) as session:
        with pytest.raises(torch._dynamo.exc.Unsupported):
            torch.compile(chained_breaks, backend="eager", fullgraph=True)(torch.ones(3))
    assert session.failures == []
    index = json.loads((tmp_path / "index.json").read_text())
    comp, = [c for c in index["compiles"] if c["function"] == "chained_breaks"]
    first, = _lines_of(chained_breaks, "graph_break()")
    assert comp["failed"]["location"]["line"] == first and "graph_break()" in comp["failed"]["reason"]
    assert comp["skipped"] is None and index["skipped_frames"] == []
    assert "failed (fullgraph=True), the error reached the program" in (tmp_path / "summary.txt").read_text()
