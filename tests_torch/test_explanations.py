"""Graph breaks, skipped frames and restarts in the dump, checked against Dynamo's own records.

``torch._dynamo.explain`` lists every graph break with its reason and user stack;
Dynamo's cache says which frames got compiled code; running the program shows
which resume function takes which path of an ``if``.
"""
import functools
import gc
import html as html_module
import json
import logging
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


class _Log(logging.Handler):
    def __init__(self):
        super().__init__()
        self.text = []

    def emit(self, record):
        self.text.append(record.getMessage())


#: the loggers of TORCH_LOGS' artifacts
_ARTIFACT_LOGGERS = {"graph_breaks": "torch._dynamo.symbolic_convert.__graph_breaks",
                     "recompiles": "torch._dynamo.guards.__recompiles"}


def dynamo_log(artifact, run):
    """The messages of TORCH_LOGS=artifact while ``run`` runs."""
    return dynamo_logs(run, artifact)[artifact]


def dynamo_logs(run, *artifacts):
    """``{artifact: [message]}`` of TORCH_LOGS="artifact,..." while ``run`` runs."""
    logs = {artifact: _Log() for artifact in artifacts}
    torch._logging.set_logs(**{artifact: True for artifact in artifacts})
    for artifact, log in logs.items():
        logging.getLogger(_ARTIFACT_LOGGERS[artifact]).addHandler(log)
    try:
        run()
    finally:
        for artifact, log in logs.items():
            logging.getLogger(_ARTIFACT_LOGGERS[artifact]).removeHandler(log)
        torch._logging.set_logs()
    return {artifact: log.text for artifact, log in logs.items()}


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


def test_a_breaks_chain_of_calls_starts_at_a_line_of_the_compiled_function(tmp_path):
    """A break inside ``forward`` inside ``forward``: the summary found the compiled frame
    in the break's stack by its name alone, so at the innermost ``forward``, and gave the
    outer frame's compile a chain that began in the inner one (at BERT's BertLayer, for
    BertForSequenceClassification.forward; found by a new-user trial).  Each chain's
    outermost call is now a line of the compiled function itself, or there is none."""
    from programs import InnerBlock, OuterBlock
    index = dump_of(tmp_path, OuterBlock(), torch.ones(3))
    lines = {f["key"]: f["source_lines"] for f in index["functions"]}
    inner_line, = _lines_of(InnerBlock.forward, "_inner_layer(x)")
    summary = (tmp_path / "summary.txt").read_text()
    chains, key = [], None
    for line in summary.splitlines():
        if line and not line.startswith(" "):
            key = line.split(" (")[0].split(":")[0]
        found = re.match(r"^    inside \S+, called from .*\(line (\d+)\)$", line)
        if found:
            chains.append((key, int(found.group(1))))
    assert ("InnerBlock.forward", inner_line) in chains, summary
    for key, outermost in chains:
        first, last = lines[key]
        assert first <= outermost <= last, (key, outermost, summary)


def _passing_on(function):
    @functools.wraps(function)
    def wrapped(*args, **kwargs):
        return function(*args, **kwargs)
    return wrapped


@_passing_on
def _decorated_breaking(x):
    x = x + 1
    torch._dynamo.graph_break()
    return x * 2


def _between(x):
    return _decorated_breaking(x) - 1


@_passing_on
def _decorated_outer(x):
    return _between(x.sin())


def test_a_chain_through_a_decorator_that_wraps_the_callee_too_starts_at_the_compiled_frame(tmp_path):
    """The compiled frame is a decorator's wrapper, and the function that breaks, called
    from it, is wrapped by the same decorator: the chain was cut at the inner wrapper (the
    innermost frame of the compiled function's name), so ``outer`` and ``_between`` were
    missing (transformers' deprecate_kwarg around BERT's and Llama's layers; a new-user
    trial).  The stack that reached the compile says the first wrapper frame is it."""
    dump_of(tmp_path, _decorated_outer, torch.ones(3))
    summary = (tmp_path / "summary.txt").read_text()
    call, = _lines_of(_passing_on, "return function(*args, **kwargs)")
    between, = _lines_of(_between, "_decorated_breaking(x)")
    outer, = _lines_of(_decorated_outer.__wrapped__, "_between(")
    block = summary.split("\n\n")[2]
    assert block.startswith("_passing_on.wrapped ("), summary
    assert ("    inside _decorated_breaking, called from wrapped (line %d) <- _between (line %d) <- _decorated_outer "
            "(line %d) <- wrapped (line %d)\n" % (call, between, outer, call)) in block, summary


def test_the_two_resume_functions_of_a_data_dependent_branch_say_which_path_each_takes(tmp_path):
    index = dump_of(tmp_path, branch, torch.ones(3), -torch.ones(3) * 5)
    test_line, true_line, false_line = _lines_of(branch, "if x.sum()", "y = x * 2", "y = x * 3")
    resumes = [f for f in index["functions"] if f["kind"] == "resume"]
    paths = {f["continues"]["branch"]["condition_holds"]: f for f in resumes}
    assert set(paths) == {True, False}
    assert paths[True]["continues"]["line"] == true_line and paths[False]["continues"]["line"] == false_line
    assert all(f["continues"]["branch"]["line"] == test_line for f in resumes)
    assert not any(f["continues"]["after_call"] for f in resumes)     # (a jump's targets: no call made for them)
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
    assert "the path on which the test at line %d (`if x.sum() > 0:" % test_line in resume_file
    assert "`) is false." in resume_file


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
    assert "failed, the error reached the program" in (tmp_path / "summary.txt").read_text()


def squared(x):
    return x @ x


def test_a_compile_whose_error_reaches_the_program_is_failed_not_skipped(tmp_path):
    """A fake-tensor error (x @ x of a 2x3 matrix) goes on to the program and leaves the
    frame to be compiled again: the summary said "skipped, the frame runs as it is" and
    counted a skipped frame, and why_recompile answered that Dynamo gave up on the frame,
    where its next good call runs compile 0/0 (a new-user trial)."""
    torch._dynamo.reset()
    compiled = torch.compile(squared, backend="eager")
    with unveil.prepare_debug(tmp_path) as session:
        compiled(torch.ones(2, 2))
        with pytest.raises(RuntimeError):
            compiled(torch.ones(2, 3))
    assert session.failures == []
    index = json.loads((tmp_path / "index.json").read_text())
    comp, = [c for c in index["compiles"] if c["compile_id"] == "0/1"]
    assert comp["skipped"] is None and comp["failed"]["type"] == "TorchRuntimeError", comp
    assert index["skipped_frames"] == [] and index["counts"]["failed"] == 1
    summary = (tmp_path / "summary.txt").read_text()
    assert "compile 0/1: failed, the error reached the program: RuntimeError when making fake tensor call" \
        in summary, summary
    assert "0 frames skipped, 1 failed (the error reached the program)." in summary, summary
    answer = unveil.why_recompile(compiled, torch.ones(2, 2))
    assert "gave up" not in str(answer) and str(answer).splitlines()[-1] == "=> compile 0/0 runs", str(answer)


K = 1
THRESH = 0.0


def global_then_branch(x):
    x = x + 1
    torch._dynamo.graph_break()
    x = x * K                           # a guard on K in the resume function
    if x.sum() > THRESH:                # a break in the resume function: resume functions of it
        x = x - 1
    return x


def _cosine(x):
    torch._dynamo.graph_break()
    return x.cos()


def float_across_break(x, scale):
    return scale * _cosine(x) + 1       # scale waits on Dynamo's stack while _cosine breaks


def _set_k(value):
    global K
    K = value


RUN_FROM_THE_DUMP_CASES = {
    "global_then_branch": (global_then_branch, [((torch.ones(3),), lambda: _set_k(1)),
                                                ((torch.ones(3),), lambda: _set_k(2))]),
    "float_across_break": (float_across_break, [((torch.ones(3), 3.16), None), ((torch.ones(3), 2.5), None)]),
}


@pytest.mark.parametrize("case", sorted(RUN_FROM_THE_DUMP_CASES))
def test_the_summary_under_debug_is_the_summary_under_prepare_debug(case, tmp_path):
    """Under debug() Dynamo traces the dumped resume functions: its recompile reasons name
    the dumped file's lines and text (``___stack0 * ___stack1``), and a resume function of
    one run from the dump is made from it.  The summary still names the user's lines, the
    user's text and the user's function, as without the dump."""
    fn, calls = RUN_FROM_THE_DUMP_CASES[case]
    summaries = []
    for within in (unveil.prepare_debug, unveil.debug):
        torch._dynamo.reset()
        compiled = torch.compile(fn, backend="eager", dynamic=False)
        try:
            with within(tmp_path / within.__name__) as session:
                for args, before in calls:
                    if before:
                        before()
                    compiled(*args)
        finally:
            _set_k(1)
        assert session.failures == [], session.failures
        summaries.append((tmp_path / within.__name__ / "summary.txt").read_text())
    assert summaries[0] == summaries[1]
    summary = summaries[1]
    assert "compiled anew" in summary and "___stack0 *" not in summary, summary
    if case == "global_then_branch":
        line, = _lines_of(global_then_branch, "x = x * K")
        assert "G['K'] == 1  (line %d: x = x * K)" % line in summary, summary
        resumes = re.findall(r"^(\S+): resume function of (\S+),", summary, re.M)
        assert len(resumes) == 3 and {parent for _, parent in resumes} == {"global_then_branch"}, resumes
    else:
        line, = _lines_of(float_across_break, "return scale")
        assert "___stack0 == 3.16  (line %d: return scale * _cosine(x) + 1)" % line in summary, summary
        assert "where ___stack0 is `scale`" in summary, summary


def test_a_restart_dynamo_gives_no_reason_for_is_said_in_words():
    from unveil.dynamo.explanations.records import frame_outcome
    outcome = frame_outcome({"has_guarded_code": True, "restart_reasons": [
        "<class 'torch._dynamo.exc.TensorifyScalarRestartAnalysis'>", "<class 'torch._dynamo.exc.OtherRestart'>"]})
    assert outcome["restarts"] == [
        "OtherRestart: Dynamo's own restart, with no reason given",
        "TensorifyScalarRestartAnalysis: a Python float it had made a graph input was specialized to its value, so "
        "it traced the frame again with it as a constant"]


def _mse(a, b, **kwargs):
    return ((a - b) ** 2).mean()


class LossByProperty(torch.nn.Module):
    """GPT-2's shape: the loss function is a property whose getter breaks the graph (it
    logs a warning), called with **kwargs: Dynamo cannot resume after that break."""

    @property
    def loss_function(self):
        torch._dynamo.graph_break()
        return _mse

    def forward(self, x, labels=None, **kwargs):
        logits = x.sin() * 2
        loss = None
        if labels is not None:
            loss = self.loss_function(logits, labels, **kwargs)
        return loss, logits


def _breaks_inside(x):
    x = x * 2
    torch._dynamo.graph_break()
    return x + 1


def returns_a_call_that_breaks(x):
    x = x.cos()
    return _breaks_inside(x)             # nothing after the call: Dynamo makes no resume function


def item_then_python(x):
    n = x.sum().item()
    return n * 2                         # the resume function has no tensor: Dynamo never compiles it


def _interrupt(gm, example_inputs):
    raise KeyboardInterrupt              # what Ctrl-C does while Dynamo compiles


def test_what_runs_after_each_break_is_said(tmp_path):
    """A break Dynamo cannot resume after (the rest of the frame runs uncompiled), one
    with nothing after it but a return (no resume function), a resume function Dynamo
    never compiled, and a compile interrupted by Ctrl-C (not a skipped frame)."""
    torch._dynamo.reset()
    model = LossByProperty()
    with unveil.prepare_debug(tmp_path) as session:
        torch.compile(model, backend="eager")(torch.ones(3), labels=torch.zeros(3))
        torch.compile(returns_a_call_that_breaks, backend="eager")(torch.ones(3))
        torch.compile(item_then_python, backend="eager")(torch.ones(3))
        with pytest.raises(KeyboardInterrupt):
            torch.compile(lambda x: x * 3, backend=_interrupt)(torch.ones(3))
    assert session.failures == [], session.failures
    index = json.loads((tmp_path / "index.json").read_text())
    summary = (tmp_path / "summary.txt").read_text()
    forward = next(c for c in index["compiles"] if c["function"] == "LossByProperty.forward")
    assert forward["compiled"] and forward["graph_break"]["resumable"] is False and not forward["resume_functions"]
    torch._dynamo.reset()
    logged = dynamo_log("graph_breaks", lambda: torch.compile(LossByProperty(), backend="eager")(
        torch.ones(3), labels=torch.zeros(3)))
    assert any("cannot resume from" in text for text in logged), logged      # Dynamo's own word
    call_line, = _lines_of(LossByProperty.forward, "self.loss_function(")
    assert "inside loss_function, called from forward (line %d)" % call_line in summary, summary
    assert "Dynamo cannot resume after this break: the graph ends at the last point it could resume from, and " \
           "the rest of forward runs uncompiled, as written" in summary, summary
    outer = next(c for c in index["compiles"] if c["function"] == "returns_a_call_that_breaks")
    assert outer["graph_break"]["resumable"] and not outer["resume_functions"]
    line, = _lines_of(returns_a_call_that_breaks, "return _breaks_inside(x)")
    assert "no resume function: after the call at line %d, made as it is (what it calls is a frame of its own for " \
           "Dynamo), returns_a_call_that_breaks only returns its result" % line in summary, summary
    resume = next(f for f in session.functions.values() if f.is_resume and f.parent.key == "item_then_python")
    assert torch._dynamo.eval_frame._debug_get_cache_entry_list(resume.code) == []      # Dynamo's truth
    assert "%s: resume function of item_then_python" % resume.key in summary
    assert summary.split("%s: resume function" % resume.key)[1].split("\n\n")[0].rstrip().endswith(
        "not compiled: Dynamo made no compile of it (if it ran, it ran as it is)"), summary
    interrupted = [c for c in index["compiles"] if c["interrupted"]]
    assert len(interrupted) == 1 and interrupted[0]["skipped"] is None and index["skipped_frames"] == []
    assert "compile %s: interrupted while Dynamo compiled (by Ctrl-C or an exit, which went on to the program): no " \
           "code was made" % interrupted[0]["compile_id"] in summary, summary
    assert "None" not in summary, summary


def test_the_summary_and_the_report_count_from_one_place(tmp_path):
    """Breaks in skipped frames are graph breaks too: index.json's counts are what the
    summary's first line and the report's header say."""
    pytest.importorskip("jinja2")
    from unveil.report import build_report
    index = dump_of(tmp_path, loop_break, torch.ones(3))
    counts = index["counts"]
    assert counts == {"compiles": len(index["compiles"]), "graph_breaks": 1, "graph_breaks_in_skipped_frames": 1,
                      "recompiles": 0, "skipped_frames": 1, "failed": 0, "at_limit": 0, "interrupted": 0}, counts
    summary = (tmp_path / "summary.txt").read_text()
    assert "In all: 1 compile, 1 graph break (1 of them made Dynamo skip the frame), 0 recompiles after a guard " \
           "failed, 1 frame skipped." in summary, summary
    page = open(build_report(str(tmp_path))).read()
    assert "<b>1</b> graph break, 1 of them making Dynamo skip the frame, <b>0</b> recompiles, <b>1</b> skipped " \
           "frame</li>" in page, page


def _prints(x):
    y = x + 1
    print("hi")
    return y * 2


def test_the_reports_headline_counts_failed_compiles(tmp_path):
    """A ``fullgraph=True`` compile that failed twice: summary.txt said "2 failed (the error
    reached the program)", the report's headline nothing of it (a new-user trial)."""
    pytest.importorskip("jinja2")
    from unveil.report import build_report
    torch._dynamo.reset()
    compiled = torch.compile(_prints, backend="eager", fullgraph=True)
    with unveil.prepare_debug(tmp_path):
        for _ in range(2):
            with pytest.raises(Exception):
                compiled(torch.ones(3))
    index = json.loads((tmp_path / "index.json").read_text())
    assert index["counts"]["failed"] == 2, index["counts"]
    page = open(build_report(str(tmp_path))).read()
    assert "<b>2</b> compiles of 1 function" in page and \
        "<b>0</b> skipped frames, <b>2</b> failed (the error reached the program)</li>" in page, page


def test_a_resume_functions_page_shows_the_lines_it_runs(tmp_path):
    """index.json gives each function the lines of the user's file it runs: a resume
    function's go from its break to the end of the function, and its report page shows
    them all (it showed the break's line alone)."""
    pytest.importorskip("jinja2")
    from unveil.report import build_report
    index = dump_of(tmp_path, chained_breaks, torch.ones(3))
    first, last = _lines_of(chained_breaks, "graph_break()", "return x + s")
    resume = next(f for f in index["functions"] if f["kind"] == "resume" and f["line"] == first)
    assert resume["source_lines"] == [first, last], resume
    outer = next(f for f in index["functions"] if f["key"] == "chained_breaks")
    assert outer["source_lines"] == [outer["line"], last], outer
    build_report(str(tmp_path))
    page = (tmp_path / "report" / ("function_%s.html" % resume["key"])).read_text()
    source = page.split('<pre class="source">')[1].split("</pre>")[0]
    for text in ("graph_break()", "x = x * 2", "x.sum().item()", "return x + s"):
        assert text in html_module.unescape(re.sub(r"<[^>]+>", "", source)), source


def _matmul_sum(x, y):
    return (x @ y).relu().sum(-1)


def test_a_guard_from_zero_one_specialization_says_so_as_dynamo_does(tmp_path):
    """Sizes 8, 16, then 1: the dynamic entry's guard ``2 <= x.size()[0]`` fails, a guard
    Dynamo says comes of 0/1 specialization, not of the user's code.  TORCH_LOGS says so; the
    summary and the guards file dropped it, and why_recompile described ``L['x'].size``
    (the method) instead of the size that failed.  Found by a new-user trial."""
    torch._dynamo.reset()
    compiled = torch.compile(_matmul_sum, backend="eager")
    inputs = [(torch.randn(n, 4), torch.randn(4, 3)) for n in (8, 16)]

    def run():
        with unveil.prepare_debug(tmp_path):
            for args in inputs:
                compiled(*args)
            run.why = str(unveil.why_recompile(compiled, torch.randn(1, 4), torch.randn(4, 3)))
            compiled(torch.randn(1, 4), torch.randn(4, 3))
    logged = "\n".join(dynamo_log("recompiles", run))
    aside = re.search(r"\((user code shown is first use of this value--.*)\)", logged)
    assert aside, logged
    summary = (tmp_path / "summary.txt").read_text()
    line = _matmul_sum.__code__.co_firstlineno + 1      # the place the guard's comment names, read as the user's
    assert re.search(r"compiled anew: the guard of compile 0/1 failed .*: 2 <= x.size\(\)\[0\]  \(line %d: return "
                     r"\(x @ y\)\.relu\(\)\.sum\(-1\)\)\n      " % line + re.escape(aside.group(1)) + "\n", summary), summary
    assert aside.group(1) in (tmp_path / "_matmul_sum.compile_0_2.guards.py").read_text()
    assert "L['x'].size()[0] is 1" in run.why and "built-in method" not in run.why, run.why


def test_a_resume_functions_header_quotes_the_line_it_goes_on_from(tmp_path):
    """The header said ``It goes on from line 1098: outputs = self.bert(.``: a statement's
    first line, cut at its parenthesis, ran into the sentence's full stop.  Quoted now."""
    dump_of(tmp_path, chained_breaks, torch.ones(3))
    first, = _lines_of(chained_breaks, "graph_break()")
    source = next(text.strip() for n, text in enumerate(open(programs.__file__), 1) if n == first)
    headers = "".join(path.read_text() for path in tmp_path.glob("*.resume_function.py"))
    # (and the call that broke is the transformed code's to make, not the resume function's: the
    # header said "goes on from line 5: `print(...)`", as if it printed; a new-user trial)
    assert "# It goes on in line %d (`%s`), right after the call there that broke the graph: the transformed code " \
           "makes that call, then calls this function.\n" % (first, source) in headers, headers[:3000]


def _scaled_item(x, scale):
    return scale * x.sum().item() + x


def _calls_scaled_item(x):
    scale = 3.0
    y = x * 2
    n = scale * _scaled_item(y, scale)
    return n


def test_a_resume_functions_header_says_what_each_stack_parameter_holds(tmp_path):
    """``___stack0`` was a parameter of the resume function whose meaning only the compile
    page gave, where a recompile's guard checked it (a new-user trial)."""
    dump_of(tmp_path, _calls_scaled_item, torch.ones(3))
    [header] = [path.read_text() for path in tmp_path.glob("*resume_in__calls_scaled_item*.resume_function.py")]
    line = _calls_scaled_item.__code__.co_firstlineno + 3
    assert "# Parameter `___stack0`: `scale`.\n# Parameter `___stack1`: the value of `_scaled_item(y, scale)` " \
           "(line %d).\n" % line in header, header



class _Printing(torch.nn.Module):
    def forward(self, x):
        print("a graph break")
        return x + 1


_PRINTING = _Printing()


def _wrapper_past_an_is_none_test(x, flag=None):
    chosen = 2 if flag is None else flag
    if chosen is not None:
        chosen = chosen + 1
    output = _PRINTING(x)
    if not isinstance(output, tuple):
        output = output * chosen
    return output


def test_a_resume_functions_header_reads_the_offset_in_the_codes_own_instructions(tmp_path):
    """Dynamo's resume offsets count its cleaned instructions, which on 3.11+ differ from the
    code's after an ``is None`` test (made ``LOAD_CONST None; IS_OP``) or a zero-argument
    ``super()``: the header of the resume function after ``output = _PRINTING(x)`` (the break
    nested in the module's forward) said it went on from the next line and that ``___stack0`` was
    ``chosen`` (transformers' ``can_return_tuple`` wrapper; a new-user trial)."""
    dump_of(tmp_path, _wrapper_past_an_is_none_test, torch.ones(3))
    [header] = [path.read_text() for path in tmp_path.glob("*resume_in__wrapper_past_an_is_none_test*.resume_function.py")]
    line = _wrapper_past_an_is_none_test.__code__.co_firstlineno + 4
    assert "# It goes on in line %d (`output = _PRINTING(x)`), right after the call there" % line in header, header
    assert "# Parameter `___stack0`: the value of `_PRINTING(x)` (line %d).\n" % line in header, header



def _breaks_without_grad(x):
    y = x * 2
    with torch.no_grad():
        z = y + 1
        torch._dynamo.graph_break()
        z = z * 3
    return z + y


def _breaks_in_a_loop_that_returns(x):
    for k in range(3):
        with torch.no_grad():
            x = x * 2
            torch._dynamo.graph_break()     # nothing jumps back after it: Dynamo resumes in the loop
            return x + k
    return x


def _breaks_inside_an_expression(x):
    y = x + 1
    z = (y * 2 +
         (print("a break inside an expression") or 1) *
         y)
    return z


def _slot_lines(fn, *needles):
    """The headers' ``# Parameter`` lines expected of ``fn``'s resume function: each needle
    a ``(text with {} for the line of the needle, needle)``."""
    lines = _lines_of(fn, *(needle for _, needle in needles))
    return "".join("# Parameter `___stack%d`: %s.\n" % (k, text.format(line))
                   for k, ((text, _), line) in enumerate(zip(needles, lines)))


@pytest.mark.parametrize("fn, slots", [
    (_breaks_without_grad, [("the `torch.no_grad()` context of line {}, exited at the end of the with", "with "),
                            ("the value of `torch._dynamo.graph_break()` (line {})", "graph_break()")]),
    (_breaks_in_a_loop_that_returns, [("the iterator of the for loop of line {} (over `range(3)`)", "for k"),
                                      ("the `torch.no_grad()` context of line {}, exited at the end of the with",
                                       "with "),
                                      ("the value of `torch._dynamo.graph_break()` (line {})", "graph_break()")]),
    (_breaks_inside_an_expression, [("the value of `y * 2` (line {})", "y * 2"),
                                    ('the value of `print("a break inside an expression")` (line {})', "print(")]),
], ids=["with", "for", "expression"])
def test_a_resume_functions_header_names_the_values_earlier_lines_left_on_the_stack(tmp_path, fn, slots):
    """A with's exit, a for loop's iterator, the left operand of an expression that goes on
    over lines stay on the stack from an earlier line than the break's: the stack was read
    from the break's line alone, did not account for them, and the header named no
    parameter (the with's and the loop's are what Dynamo passes to enter the context and
    go on iterating: ``__resume_at_N([], [], __t0, ...)`` with ``__t0 =
    torch.set_grad_enabled``, ``iter(range(1, 3, 1))``)."""
    dump_of(tmp_path, fn, torch.ones(3))
    [header] = [path.read_text() for path in tmp_path.glob("*resume_in_%s*.resume_function.py" % fn.__name__)]
    assert _slot_lines(fn, *slots) in header, header

def test_a_compile_through_torchs_wrap_inline_names_what_it_calls(tmp_path):
    """torch.compile of a torch.nn module or of a torch function compiles a frame of torch's
    ``wrap_inline.inner``, one code for all of them: the summary named only that.  Each
    compile now names the call it is of, read from the frame's closure."""
    linear = torch.nn.Linear(4, 2)
    with unveil.prepare_debug(str(tmp_path)):
        torch.compile(linear, backend="eager")(torch.ones(3, 4))
        torch.compile(torch.sin, backend="eager")(torch.ones(3))
    index = json.loads((tmp_path / "index.json").read_text())
    wraps = sorted(c["wraps"] for c in index["compiles"] if c["wraps"])
    assert wraps == ["a torch.nn.modules.linear.Linear", "torch.sin"], index["compiles"]
    summary = (tmp_path / "summary.txt").read_text()
    for name in wraps:
        assert "\n    the call of %s, through torch's wrap_inline" % name in summary, summary
    pytest.importorskip("jinja2")
    from unveil.report import build_report
    build_report(str(tmp_path))
    page = (tmp_path / "report" / "function_wrap_inline.inner.html").read_text()
    for name in wraps:
        assert "the call of <code>%s</code>, through torch's wrap_inline" % name in page, page


def _scaled(x, k):
    y = x * k
    print("a break, whose hints are several")
    return y


def test_a_compile_the_recompile_limit_stopped_says_which_guards_failed(tmp_path):
    """The compile Dynamo starts and gives up at ``recompile_limit`` had no recompile reason
    in the dump (only compiles with a cache entry got theirs), though TORCH_LOGS=recompiles
    gives it; a new-user trial met it exactly when the reason mattered most."""
    torch._dynamo.reset()
    compiled = torch.compile(_scaled, backend="eager", dynamic=False)

    def run():
        with torch._dynamo.config.patch(recompile_limit=2), unveil.prepare_debug(tmp_path):
            for k in range(3):
                compiled(torch.ones(2), k)
    logged = dynamo_log("recompiles", run)
    index = json.loads((tmp_path / "index.json").read_text())
    last = next(c for c in index["compiles"] if c["compile_id"] == "0/2")
    assert last["at_limit"] and not last["skipped"] and not last["compiled"], last     # (its entries still run)
    assert [(r["failed_entry"], r["guard"]) for r in last["recompile_reasons"]] == [("0/1", "k == 1"), ("0/0", "k == 0")]
    assert sum("Recompiling function _scaled" in m for m in logged) == index["counts"]["recompiles"] == 2, logged
    summary = (tmp_path / "summary.txt").read_text()
    hints = next(c for c in index["compiles"] if c["compile_id"] == "0/0")["graph_break"]["hints"]
    assert len(hints) > 1 and all("hint: " + hint.splitlines()[0] in summary for hint in hints), summary
    assert "  compile 0/2: not compiled: Dynamo recompile limit exceeded\n" \
           "    Dynamo compiles this frame no more: a call one of its compiled entries accepts runs that entry, any " \
           "other runs the frame as it is\n" \
           "    tried anew: the guard of compile 0/1 failed" in summary, summary
    # the overview counted it as "made anew" (a new-user trial: 17 made, where 16 were)
    assert "2 recompiles after a guard failed (1 of them tried anew and not compiled)" in summary, summary
    pytest.importorskip("jinja2")
    from unveil.report import build_report
    build_report(str(tmp_path))
    page = (tmp_path / "report" / "compile__scaled_0_2.html").read_text()
    assert "Why it was tried anew" in page and "k == 1" in page, page


def _breaks_inside(x):
    torch._dynamo.graph_break()
    return x + 1


def _second_break_in_a_call(x):
    x = x * 2
    torch._dynamo.graph_break()
    x = _breaks_inside(x)            # the resume function's graph breaks inside this call
    return x


def test_a_break_inside_a_call_from_a_resume_function_names_the_call(tmp_path):
    """The chain of calls from the compiled frame to a break was found by the frame's name;
    a resume function's frames bear the name of the function it resumes, so for a break in
    a call the resume function made the summary gave only the torch or library line (a
    new-user trial, on a train step's ``opt.step()`` after ``loss.backward()``)."""
    index = dump_of(tmp_path, _second_break_in_a_call, torch.ones(3))
    resume = next(f["key"] for f in index["functions"] if f["kind"] == "resume" and
                  any(c["function"] == f["key"] and c["graph_break"] for c in index["compiles"]))
    line = _second_break_in_a_call.__code__.co_firstlineno + 3
    summary = (tmp_path / "summary.txt").read_text()
    block = summary[summary.index("\n%s: resume function" % resume):]
    assert "    inside _breaks_inside, called from _second_break_in_a_call (line %d)\n" % line in block, summary


def _doubled(x):
    return x * 2


def test_the_guard_on_dimension_markings_says_what_it_checks(tmp_path):
    """Its comment said "not marked dynamic since compile time" over a condition that holds
    when the dimensions marked dynamic are among those marked at compile time (a new-user
    trial, with ``mark_dynamic`` on a Llama's sequence length)."""
    x = torch.ones(2, 5)
    torch._dynamo.mark_dynamic(x, 1)
    index = dump_of(tmp_path, _doubled, x)
    (guards,) = [a["file"] for a in index["artifacts"] if a["kind"] == "guards"]
    lines = (tmp_path / guards).read_text().splitlines()
    (at,) = [k for k, line in enumerate(lines) if "# DIMENSION_DYNAMIC_MARKING_GUARD on L['x']" in line]
    assert "its dimensions marked dynamic, unbacked or static are among those so marked at compile time" in lines[at]
    # (a leaf of several parts: each condition after the comment on where it comes from)
    assert any("_dynamo_dynamic_indices', set()).issubset({1})" in line for line in lines[at + 1:at + 3]), \
        lines[at:at + 4]


def test_a_failed_guard_inside_a_condition_of_several_lines_has_its_line(tmp_path):
    """A size marked dynamic that then is 1 fails ``2 <= x.size()[1]``, a part of a leaf guard
    of several, which the guards file wrote as the second line of one condition: the
    recompile reason had no guard line, where a one-line condition's has one (a new-user
    trial, Llama).  Each part is now a condition of its own."""
    x = torch.ones(2, 5)
    torch._dynamo.mark_dynamic(x, 1)
    index = dump_of(tmp_path, _doubled, x, torch.ones(2, 1))
    (reason,) = [r for c in index["compiles"] for r in c["recompile_reasons"]]
    assert reason["guard"] == "2 <= x.size()[1]", reason
    guards = next(a["file"] for a in index["artifacts"] if a["kind"] == "guards" and a["compile_id"] == "0/0")
    line = (tmp_path / guards).read_text().splitlines()[reason["guard_line"] - 1]
    assert line.strip() == "if not (2 <= L['x'].size()[1]):", line
    assert "(line %d of its guards file): 2 <= x.size()[1]" % reason["guard_line"] in \
        (tmp_path / "summary.txt").read_text()
    # and where: Dynamo gives no user stack for it, only the place its comment ends with, whose
    # path torch shortened (``ests_torch/test_explanations.py:N in _doubled``); it had no location
    line = _doubled.__code__.co_firstlineno + 1
    assert reason["location"] == {"filename": __file__, "line": line, "function": "_doubled"}, reason
    assert reason["source"] == "return x * 2", reason


def test_the_aside_of_a_guard_of_two_sources_is_its_first_bracket_whole():
    """Dynamo's note on a guard two sources made names two places joined by ``and``: the
    aside ran from the first bracket to the last, cut inside its own brackets and through
    the second place (a new-user trial, dynamic=True)."""
    from unveil.dynamo.explanations.records import recompile_reasons
    aside = ("user code shown is first use of this value--the guard itself is not due user code but due to 0/1 "
             "specialization in the framework; to avoid specialization try "
             "torch._dynamo.decorators.mark_unbacked(tensor, dim)")
    payload = ("0/0: 2 <= x.size()[0] <= 4  # if x.shape[0] > 4:  # garble.py:4 in f (%s) and if x.shape[0] > 4:  "
               "# garble.py:4 in f (_dynamo/variables/tensor.py:2606 in evaluate_expr)" % aside)
    reason, = recompile_reasons(payload)
    assert reason["aside"] == aside and reason["guard"] == "2 <= x.size()[0] <= 4", reason
    one = recompile_reasons("0/0: 2 <= x.size()[0]  # y = f(x)  # m.py:3 in g (%s)" % aside)
    assert one[0]["aside"] == aside, one



def test_each_source_of_a_guard_of_several_is_kept_and_a_torch_place_is_no_aside():
    """A size's bounds from two lines (``y = x * n`` where 0/1 specialization put the lower
    one, ``if x.shape[0] > 4`` the upper): only the first line was kept, so a recompile
    for size 5 named line 8 and Dynamo's aside on 0/1 specialization, not the branch it
    failed by; and the place in torch Dynamo names after a line was shown as its aside
    (a new-user trial, dynamic=True)."""
    from unveil.dynamo.explanations.records import recompile_reasons
    payload = ("0/0: 2 <= x.size()[0] <= 4  # y = x * n  # w/m.py:8 in f (user code shown is first use of this "
               "value) and if x.shape[0] > 4:          # a branch on the size # w/m.py:9 in f "
               "(_dynamo/variables/tensor.py:2606 in evaluate_expr)")
    reason, = recompile_reasons(payload, lambda path: "/tmp/" + path)
    assert (reason["source"], reason["location"]["line"]) == ("y = x * n", 8), reason
    assert reason["also"] == [{"source": "if x.shape[0] > 4:",
                               "location": {"filename": "/tmp/w/m.py", "line": 9, "function": "f"}}], reason
    torch_place, = recompile_reasons("0/1: 5 <= x.size()[0]  # if x.shape[0] > 4:  # w/m.py:9 in f "
                                     "(_dynamo/variables/tensor.py:2606 in evaluate_expr)")
    assert torch_place["aside"] is None and torch_place["also"] == [], torch_place


def _bounded(x, n):
    y = x * n
    if x.shape[0] > 4:
        y = y + 1
    return y


def test_a_guard_torch_gives_in_parts_is_checked_part_by_part_and_the_failing_part_named():
    """torch hands a shape guard's parts as one leaf: its file checked them as one ``and``
    under the note of one part chosen by sorting, so why_recompile named the NaN check of
    a float where the size's upper bound failed (a new-user trial, dynamic=True)."""
    torch._dynamo.reset()
    compiled = torch.compile(_bounded, backend="eager", dynamic=True)
    compiled(torch.ones(3), 2.0)
    why = unveil.why_recompile(compiled, torch.ones(5), 2.0)
    text = str(why)
    failing = [line for line in text.splitlines() if "fails" in line]
    assert failing and "L['x'].size()[0] <= 4" in failing[0] and "isnan" not in failing[0], text
    assert "if x.shape[0] > 4" in text, text


class _PrintsInForward(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        print("in forward")
        return x * 2

    @staticmethod
    def backward(ctx, grad):
        return grad * 2


def through_autograd_function(x):
    return _PrintsInForward.apply(x.sin()) + 1


def test_a_break_inside_a_higher_order_operator_is_named_by_its_own_reason(tmp_path):
    """Dynamo puts the operator's line between a break's title and its explanation: a print
    in ``autograd.Function.forward`` read "Higher Order Operator: autograd.Function" where
    Dynamo's reason is "Failed to trace builtin operator" (a new-user trial)."""
    index = dump_of(tmp_path, through_autograd_function, torch.ones(3, requires_grad=True))
    brk, = [c["graph_break"] for c in index["compiles"] if c["function"] == "through_autograd_function"]
    line, = _lines_of(_PrintsInForward.forward, 'print("in forward")')
    assert (brk["reason"], brk["inside"], brk["location"]["line"]) == (
        "Failed to trace builtin operator", "autograd.Function", line), brk
    assert "print" in brk["explanation"], brk
    summary = (tmp_path / "summary.txt").read_text()
    assert "graph break: Failed to trace builtin operator, inside autograd.Function (%s:%d)" % (__file__, line) in summary
    assert "Higher Order Operator" not in summary and "traced again after" not in summary, summary
    transformed = (tmp_path / "through_autograd_function.compile_0_0.transformed.py").read_text()
    assert "while tracing the body of autograd.Function" in transformed


class _Dropped(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(3, 3)
        self.drop = torch.nn.Dropout(0.5)

    def forward(self, x):
        return self.drop(self.lin(x)).sum()


def test_a_recompile_whose_guard_came_from_a_library_line_names_its_file_and_the_users_line(tmp_path):
    """``model.eval()`` fails a guard on the dropout's ``training``, first used in torch's
    ``dropout.py``: the summary said "(line 73: return F.dropout(...))" under the user's
    function, a line of a file of 20 lines (a new-user trial)."""
    torch._dynamo.reset()
    model = _Dropped()
    compiled = torch.compile(model, backend="eager")
    with unveil.prepare_debug(tmp_path) as session:
        compiled(torch.ones(2, 3))
        model.eval()
        compiled(torch.ones(2, 3))
    assert session.failures == []
    import torch.nn.modules.dropout as dropout_module
    index = json.loads((tmp_path / "index.json").read_text())
    reason, = [r for c in index["compiles"] for r in c["recompile_reasons"]]
    assert reason["location"]["filename"] == dropout_module.__file__, reason
    line, = _lines_of(_Dropped.forward, "return self.drop(self.lin(x)).sum()")
    assert (__file__, line) in [(f["filename"], f["line"]) for f in reason["user_stack"]], reason
    summary = (tmp_path / "summary.txt").read_text()
    # (said to be where Dynamo first read the value: a trial took a library's line for the user's)
    assert "(%s:%d, where Dynamo first read it: %s, called from line %d)" % (
        dropout_module.__file__, reason["location"]["line"], reason["source"], line) in summary, summary


def _reads_the_flag(x, cfg):
    if cfg["double"]:
        return x * 2
    return x


def _calls_the_reader(x, cfg):
    y = x + 1
    return _reads_the_flag(y, cfg)


def calls_a_helper(x, cfg):
    z = x.cos()
    return _calls_the_reader(z, cfg)


def test_a_recompile_whose_guard_came_from_a_function_it_calls_names_that_function_and_its_own_line(tmp_path):
    """The guard's value was first used in a function the compiled one calls (through
    another of the same file): the summary said "(line N: if cfg["double"]:)" as if line N
    were the compiled function's, or "called from" the helper's line, not the compiled
    function's (a new-user trial: GPT2Block.forward's reason named GPT2Attention's line)."""
    torch._dynamo.reset()
    compiled = torch.compile(calls_a_helper, backend="eager")
    with unveil.prepare_debug(tmp_path) as session:
        compiled(torch.ones(3), {"double": True})
        compiled(torch.ones(3), {"double": False})
    assert session.failures == []
    used, = _lines_of(_reads_the_flag, 'if cfg["double"]:')
    own, = _lines_of(calls_a_helper, "return _calls_the_reader(z, cfg)")
    summary = (tmp_path / "summary.txt").read_text()
    assert "(line %d in _reads_the_flag, where Dynamo first read it: if cfg[\"double\"]:, called from line %d)" % (
        used, own) in summary, summary


def dropped_out(x, p):
    return torch.nn.functional.dropout(x, p, training=True).sum() + p


def test_a_graph_dynamo_discarded_at_a_restart_is_said_never_to_run(tmp_path):
    """A float made a graph input and then specialized (TensorifyScalarRestartAnalysis) makes
    Dynamo trace the frame again: the first graph it compiled is called by nothing, yet it
    was the plainly named ``graph.py``, counted among the graphs (a new-user trial)."""
    torch._dynamo.reset()
    compiled = torch.compile(dropped_out)
    with unveil.prepare_debug(tmp_path) as session:
        compiled(torch.ones(4), 0.1)
        compiled(torch.ones(4), 0.3)
    assert session.failures == []
    index = json.loads((tmp_path / "index.json").read_text())
    second = {a["file"]: a["kind"] for a in index["artifacts"] if a.get("compile_id") == "0/1" and a.get("graph")}
    assert sorted(second.values()) == ["discarded_graph", "graph"], second
    restarted, = [c for c in index["compiles"] if c["compile_id"] == "0/1"]
    assert restarted["restarts"] and restarted["restarts"][0].startswith("TensorifyScalarRestartAnalysis")
    transformed = (tmp_path / "dropped_out.compile_0_1.transformed.py").read_text()
    for file, kind in second.items():
        name = next(a["graph"] for a in index["artifacts"] if a["file"] == file)
        text = (tmp_path / file).read_text()
        assert (name in transformed) == (kind == "graph") == ("this one never runs" not in text), (file, kind)
    # and what the backend made of the discarded graph is said so too, and named by the graph
    # it came from alone (a second trial: aot_inference.py came of the discarded graph, and
    # each backend file said it was made from both)
    discarded = next(f for f, kind in second.items() if kind == "discarded_graph")
    kept = next(f for f, kind in second.items() if kind == "graph")
    backend = [a for a in index["artifacts"] if a.get("compile_id") == "0/1" and a["kind"].startswith(
        ("aot_", "inductor_output"))]
    assert backend and any(a.get("discarded") for a in backend) and not all(a.get("discarded") for a in backend)
    for art in backend:
        head = (tmp_path / art["file"]).read_text().splitlines()[:2]
        made_from = discarded if art.get("discarded") else kept
        assert head[0].endswith("made from Dynamo's graph (%s)" % made_from), (art, head)
        assert ("this code never runs" in head[1]) == bool(art.get("discarded")), (art, head)


def warmed_then_broken(x, n):
    torch._dynamo.graph_break()
    return x * n


def test_a_resume_function_made_before_the_dump_began_names_its_function(tmp_path):
    """Compiled once before the block, recompiled inside: its resume function read "resume
    function of None ... reason not logged", in the summary and the report (a new-user trial)."""
    torch._dynamo.reset()
    compiled = torch.compile(warmed_then_broken, backend="eager")
    compiled(torch.ones(2), 1)
    with unveil.prepare_debug(tmp_path) as session:
        compiled(torch.ones(2), 2)
    assert session.failures == []
    index = json.loads((tmp_path / "index.json").read_text())
    resume, = [f for f in index["functions"] if f["kind"] == "resume"]
    assert resume["resumes"] == "warmed_then_broken", resume
    summary = (tmp_path / "summary.txt").read_text()
    assert "resume function of warmed_then_broken, made at a graph break: not logged here (Dynamo made it " \
           "before the dump began)" in summary, summary
    assert "None" not in summary
    assert "warmed_then_broken (%s:" % __file__ in summary and "Dynamo compiled it before the dump began" in summary
    from unveil.report import build_report
    page = open(build_report(str(tmp_path)), encoding="utf-8").read()
    assert "Resume function of None" not in page and "before the dump began" in page


def _gate(h):
    if h.mean() > 0:
        return h * 2
    return h - 1


def gated_in_a_try(x):
    h = x.sin()
    try:
        h = _gate(h)
    except ValueError:
        h = h * 0
    return h.cos().sum()


def gated(x):
    h = x.sin()
    h = _gate(h)
    return h.cos().sum()


def test_a_frame_skipped_for_a_break_inside_its_try_block_says_so(tmp_path):
    """The break is in the callee, which compiled; the caller was skipped because the call is
    inside a ``try``, where Dynamo makes no resume function.  The summary named only the
    callee's break, at the callee's line (a new-user trial)."""
    index = dump_of(tmp_path, gated_in_a_try, torch.ones(3))
    assert torch._dynamo.eval_frame._debug_get_cache_entry_list(gated_in_a_try.__code__) == []   # Dynamo's truth
    skipped, = [c["skipped"] for c in index["compiles"] if c["function"] == "gated_in_a_try"]
    line, = _lines_of(gated_in_a_try, "h = _gate(h)")
    assert skipped["inside_try"] == line, skipped
    summary = (tmp_path / "summary.txt").read_text()
    assert "line %d, where the frame met that break, is inside a try block" % line in summary, summary
    index = dump_of(tmp_path / "plain", gated, torch.ones(3))       # without the try, it compiles
    assert not [c for c in index["compiles"] if c["skipped"]], index["compiles"]


def test_under_debug_a_break_in_a_decorated_layer_is_called_from_the_same_frames(tmp_path):
    """GPT-2's layers run through a decorator's ``wrapped_func``, one code for all it wraps:
    which frame of it a compile is depends on the stack that reached the compile, whose
    frames running the dumped files named the dump's lines under debug(), so the summary's
    "called from" ran on past the compiled frame (a new-user trial)."""
    transformers = pytest.importorskip("transformers")
    summaries = []
    for within in (unveil.prepare_debug, unveil.debug):
        torch._dynamo.reset()
        torch.manual_seed(0)
        config = transformers.GPT2Config(n_embd=32, n_layer=2, n_head=2, vocab_size=99, n_positions=64)
        config._attn_implementation = "eager"
        model = transformers.GPT2LMHeadModel(config)
        layer = model.transformer.h[1]
        forward = layer.forward

        def patched(*args, **kwargs):
            out = forward(*args, **kwargs)
            print("layer done")                 # a graph break inside the layer
            return out
        layer.forward = patched
        compiled = torch.compile(model, backend="eager")
        ids = torch.randint(0, 99, (2, 8))
        with within(tmp_path / within.__name__) as session:
            for _ in range(2):
                compiled(input_ids=ids, labels=ids).loss.backward()
        assert session.failures == [], session.failures
        summaries.append((tmp_path / within.__name__ / "summary.txt").read_text())
    ids_aside = [re.sub(r"\b\d{9,}\b", "ID", s) for s in summaries]
    chains = [re.findall(r"inside patched, called from .*", s) for s in ids_aside]
    assert chains[0] and chains[0] == chains[1], chains
    assert ids_aside[0] == ids_aside[1]


def _times_two(x):
    return x * 2


def test_a_guard_with_no_python_form_is_named_in_the_summary_and_the_index(tmp_path, monkeypatch):
    """The guards file takes a guard it could not translate to pass; the summary says which and
    what follows from it (a new-user trial read only summary.txt, which was silent on it)."""
    from unveil.dynamo.guards import conditions
    translate = conditions.translate

    def no_tensor_match(kind, part, *rest):
        if kind == "TENSOR_MATCH":
            raise conditions.Untranslatable(part)
        return translate(kind, part, *rest)

    monkeypatch.setattr(conditions, "translate", no_tensor_match)
    index = dump_of(tmp_path, _times_two, torch.ones(3))
    comp, = [c for c in index["compiles"] if c["function"] == "_times_two"]
    assert comp["untranslated_guards"] and all("L['x']" in g for g in comp["untranslated_guards"]), comp
    guards_file, = [a for a in index["artifacts"] if a["kind"] == "guards"]
    assert guards_file["untranslated"] == comp["untranslated_guards"]
    summary = (tmp_path / "summary.txt").read_text()
    assert "1 guard of its guards file has no Python form there: that file takes it to pass, so it can " \
           "accept a call Dynamo's check refuses (%s)" % comp["untranslated_guards"][0] in summary, summary



def _step(opt):
    opt.step()


def _optimizer():
    p = torch.nn.Parameter(torch.ones(3))
    p.grad = torch.ones(3)
    return torch.optim.SGD([p], lr=0.1)


def test_a_cache_entry_dynamo_drops_keeps_its_guards_file_and_every_recompile_is_counted(tmp_path):
    """A cache entry whose guards check an object by id (an optimizer) is dropped when that
    object is freed: its compile's recompile reason went missing, and its guards file too,
    so the summary counted fewer recompiles than Dynamo logged (a new-user trial: 3 where
    TORCH_LOGS=recompiles had 5)."""
    torch._dynamo.reset()
    compiled = torch.compile(_step, backend="eager")
    first, second, third = _optimizer(), _optimizer(), _optimizer()
    with unveil.prepare_debug(tmp_path) as session:
        compiled(first)
        compiled(second)
        del first
        gc.collect()
        compiled(second)
        compiled(third)
    assert session.failures == [], session.failures
    index = json.loads((tmp_path / "index.json").read_text())
    comps = [c for c in index["compiles"] if c["function"] == "_step"]
    assert [c["compile_id"] for c in comps] == ["0/0", "0/1", "0/2"], comps
    assert [bool(c["recompile_reasons"]) for c in comps] == [False, True, True], comps
    assert [bool(c["dropped"]) for c in comps] == [True, False, False], comps
    assert "L['opt'], which its guards check by id, was freed" == comps[0]["dropped"]
    guards = {a["compile_id"]: a for a in index["artifacts"] if a["kind"] == "guards" and a["function"] == "_step"}
    assert sorted(guards) == ["0/0", "0/1", "0/2"]
    assert [bool(guards[c].get("dropped")) for c in ("0/0", "0/1", "0/2")] == [True, False, False]
    recompiles = sum(1 for c in index["compiles"] if c["recompile_reasons"])
    summary = (tmp_path / "summary.txt").read_text()
    assert recompiles == 6 and "6 recompiles after a guard failed" in summary, summary
    assert "Dynamo dropped its cache entry later (L['opt'], which its guards check by id, was freed)" in summary


_TAKEN = []


def _both_paths(x):
    y = x + 1
    if y.sum() > 0:                     # data-dependent: a resume function for each path
        _TAKEN.append("pos")
        return y * 2
    _TAKEN.append("neg")                # a guard on len(_TAKEN), which each call changes
    return y * 0.5


def test_a_recompile_of_one_of_two_resume_functions_of_a_branch_names_it_by_its_key(tmp_path):
    """Dynamo names the resume functions of both paths of a data-dependent ``if`` alike;
    unveil keys them apart (``..._at_N``, ``..._at_N_2``).  A recompile of the second's said
    its guard's value came from "line L in ..._at_N", the first's key, and the report's flow
    named both resume functions alike (a new-user trial)."""
    _TAKEN.clear()
    index = dump_of(tmp_path, _both_paths, torch.ones(2), -torch.ones(2), torch.ones(2), -torch.ones(2))
    resumes = [fn for fn in index["functions"] if fn["kind"] == "resume"]
    assert len(resumes) == 2 and resumes[0]["name"] == resumes[1]["name"] != resumes[1]["key"], resumes
    summary = (tmp_path / "summary.txt").read_text()
    for fn in resumes:
        (recompile,) = [c for c in index["compiles"] if c["function"] == fn["key"] and c["recompile_reasons"]]
        (reason,) = recompile["recompile_reasons"]
        line = reason["location"]["line"]
        assert reason["location"]["function"] == fn["name"], reason
        # a line of the recompiled function itself: by its number, no function named
        assert "  (line %d: %s)" % (line, reason["source"]) in summary, summary
    assert " in %s:" % resumes[0]["name"] not in summary, summary
    from unveil.report.flows import flow_steps
    from unveil.report.site import Site
    site = Site(str(tmp_path), index)
    flow = flow_steps(site, site.by_key["_both_paths"])
    assert [step[2][1] for step in flow if step[0] == "node" and step[4] == "resume"] == [fn["key"] for fn in resumes]
    _TAKEN.clear()


def _users_own(x):
    return x.relu() * 2


def test_the_summary_lists_the_users_functions_before_the_libraries(tmp_path):
    """A library's frames compiled first (a model's layers in transformers) came first in
    summary.txt, the user's own function a hundred lines down; the report lists the
    user's first (a new-user trial)."""
    from transformers.activations import NewGELUActivation
    torch._dynamo.reset()
    with unveil.prepare_debug(tmp_path) as session:
        torch.compile(NewGELUActivation(), backend="eager")(torch.ones(3))
        torch.compile(_users_own, backend="eager")(torch.ones(3))
    assert session.failures == []
    summary = (tmp_path / "summary.txt").read_text()
    assert 0 <= summary.index("\n_users_own (") < summary.index("\nNewGELUActivation.forward ("), summary
