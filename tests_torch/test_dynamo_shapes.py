"""Shapes of code PyTorch's own Dynamo tests compile (benchmarks/dynamo_suite.py found them),
each run plainly and then under ``unveil.debug()``: the same results, the same Dynamo
counters (frames compiled, graphs, captured calls, graph breaks), and no failure of
unveil's, so that what runs under debug() is the dumped code and nothing falls back."""
import collections
import contextlib
import dataclasses
import json
import os
import re
import sys

import pytest
import torch
from torch._dynamo.utils import counters

import unveil

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "benchmarks"))
from dynamo_suite_plugin import snapshot as _counters  # noqa: E402  (the groups the suite compares)


@contextlib.contextmanager
def _nested_graph_breaks(on):
    old = torch._dynamo.config.nested_graph_breaks
    torch._dynamo.config.nested_graph_breaks = on
    try:
        yield
    finally:
        torch._dynamo.config.nested_graph_breaks = old


def _run(make, calls, options, nested):
    torch._dynamo.reset()
    counters.clear()
    with _nested_graph_breaks(nested):
        compiled = torch.compile(make(), **options)
        results = [compiled(*args) for args in calls()]
    return results, _counters()


def judge(make, calls, tmp_path, nested=False, **options):
    """Run plainly, then under debug(); the same results and counters, and unveil
    reported nothing.  Returns the debug session."""
    options.setdefault("backend", "eager")
    plain, plain_counters = _run(make, calls, options, nested)
    with unveil.debug(tmp_path / "dump") as session:
        debugged, debug_counters = _run(make, calls, options, nested)
    assert session.failures == [], session.failures
    assert debug_counters == plain_counters
    torch.testing.assert_close(debugged, plain)
    return session


# -- a resume function of a function made in another, with a dtype among its constants --------
def _autocast_in_a_nested_function():
    def fn(x):
        with torch.autocast("cpu", dtype=torch.bfloat16):
            y = x * 2
            torch._dynamo.graph_break()
            return y + 1
    return fn


def test_a_resume_function_of_a_nested_function_binds_its_objects_under_identifiers(tmp_path):
    """The resume function's key is ``outer.fn...``: the names of the objects Dynamo placed
    in its code were ``__unveil_outer.torch_dynamo_...`` (a dot: Dynamo failed to find
    the name, ResumePrologueTracingError)."""
    judge(_autocast_in_a_nested_function, lambda: [(torch.ones(3),)], tmp_path)
    [resume] = (tmp_path / "dump").glob("*.resume_function.py")
    placeholders = re.findall(r"__unveil_[\w.]*", resume.read_text())
    assert placeholders and all(name.isidentifier() for name in placeholders), placeholders


# -- nested graph breaks: a lambda made before the break, called after it --------------------
def _lambda_across_a_nested_break():
    def g(x):
        h = lambda t: t + 1  # noqa: E731
        torch._dynamo.graph_break()
        return h(x) * 2

    def f(x):
        x = x + 1
        return g(x) + 1
    return f


def test_nested_graph_breaks_with_a_lambda_made_before_the_break(tmp_path):
    """Dynamo names a graph node after the resume function's variable (``__s0``); the graph
    file's ``forward``, compiled inside ``class GraphModule``, had it mangled and was
    refused as not torch's code."""
    judge(_lambda_across_a_nested_break, lambda: [(torch.ones(3),)], tmp_path, nested=True)


# -- a tuple assignment that read its own target --------------------------------------------
def _returns_an_ordered_dict():
    def f(x):
        return collections.OrderedDict(sample=x + 1)
    return f


def test_an_ordered_dict_returned(tmp_path):
    judge(_returns_an_ordered_dict, lambda: [(torch.ones(3),)], tmp_path)


# -- Dynamo decides by file which frames it skips: by the original's file, not the dump's ----
def _break_inside_a_torch_function():
    def fn(x):
        return torch._refs.abs(x) + 1
    return fn


def test_a_resume_function_made_in_torchs_own_code_is_skipped_as_plainly(tmp_path):
    """With nested graph breaks a break inside torch's ``_refs`` makes a resume function
    of torch's code; Dynamo skips its file, but run from the dump its file was the dump's,
    and Dynamo was called for it (one frame more)."""
    judge(_break_inside_a_torch_function, lambda: [(torch.tensor([-1.5, 0.25, 2.0]),)], tmp_path, nested=True)


def _step_unsupported_in_a_nested_call():
    def inner(x):
        x = x * 2
        torch._dynamo.step_unsupported()
        return x + 1

    def f(x):
        y = x + 1
        return inner(y) * 3
    return f


def test_the_leaf_resume_function_dynamo_skips_is_skipped_from_the_dump_too(tmp_path):
    """Dynamo marks the leaf resume function of a nested step_unsupported() to be skipped
    (skip_code); the code run from the dump in its place must be skipped alike."""
    judge(_step_unsupported_in_a_nested_call, lambda: [(torch.ones(3),), (torch.ones(3),)], tmp_path, nested=True)


def _breaks_on_both_paths():
    def f(x):
        if x.sum() > 0:
            x = x + 1
            torch._dynamo.graph_break()
        else:
            x = x - 1
            torch._dynamo.graph_break()
        return x * 2
    return f


@pytest.mark.parametrize("nested", [False, True])
def test_resume_paths_that_join(nested, tmp_path):
    judge(_breaks_on_both_paths, lambda: [(torch.ones(3),), (-torch.ones(3),), (torch.ones(3),)], tmp_path,
          nested=nested)


@dataclasses.dataclass(frozen=True)
class _Pair:
    x: torch.Tensor
    y: torch.Tensor


def _frozen_dataclass_across_a_break():
    def fn(x, y):
        pair = _Pair(x, y)
        torch._dynamo.graph_break()
        return pair.x + pair.y
    return fn


def test_a_resume_function_whose_locals_hold_no_tensor_is_compiled_as_plainly(tmp_path):
    """Dynamo compiles a frame whose locals hold no tensor only when its code names a global
    bound to torch; Dynamo's resume function keeps every name of the function it was made
    from (``torch`` among them), the one recompiled from the dump only those it uses: Dynamo
    skipped it and captured no graph."""
    judge(_frozen_dataclass_across_a_break, lambda: [(torch.ones(2, 2), torch.ones(2, 2))], tmp_path)


# -- unveil's own functions, run between graphs, are no frames for Dynamo ----------------------
def _symbolic_trace_across_a_break():
    def traced(x):
        return torch.sin(x)

    def fn(x):
        torch.fx.symbolic_trace(traced)     # a break; its GraphModule.recompile calls unveil's hook
        return x * 2
    return fn


def test_unveils_hooks_called_between_graphs_are_not_compiled(tmp_path):
    """symbolic_trace runs between two graphs, and its GraphModule.recompile is patched by
    unveil: Dynamo compiled unveil's replacement and what it calls (8 frames more than
    plainly, in PyTorch's test_multi_dot_import)."""
    judge(_symbolic_trace_across_a_break, lambda: [(torch.ones(3),)], tmp_path)


def test_unveils_demo_is_compiled_though_unveils_hooks_are_not(tmp_path):
    """Dynamo skips the file of unveil's replacements, not unveil's folder: the demo
    (unveil.dynamo.demo.TinyNet) is a program like the user's, compiled and dumped after
    the hooks were first attached (skipping the folder left it uncompiled)."""
    from unveil.dynamo import demo
    torch._dynamo.reset()
    with unveil.prepare_debug(tmp_path / "first"):
        torch.compile(torch.sin, backend="eager")(torch.ones(2))
    session = demo.run(tmp_path / "dump")
    assert session.failures == []
    index = json.loads((tmp_path / "dump" / "index.json").read_text())
    assert "TinyNet.forward" in {f["qualname"] for f in index["functions"]}


@pytest.mark.parametrize("backend", ["eager", "aot_eager"])
def test_a_failure_of_unveils_is_said_at_the_end_of_the_block_and_in_the_summary(backend, tmp_path, capsys,
                                                                                  monkeypatch):
    """When unveil falls back, debug() says so on stderr when the block ends, with the count
    and what runs Dynamo's code instead of the dumped file, and summary.txt says it too."""
    from unveil.dynamo.debugging import from_dump

    def refuse(path, like):
        raise unveil.DecompilationError("refused for the test")
    monkeypatch.setattr(from_dump, "recompiled", refuse)
    torch._dynamo.reset()
    with unveil.debug(tmp_path / "dump") as session:
        torch.compile(_autocast_in_a_nested_function(), backend=backend)(torch.ones(3))
    err = capsys.readouterr().err
    count = len(session.failures)
    assert count >= 2           # the transformed code and the resume function
    assert "unveil.debug: unveil failed %d times here; in each place Dynamo's own code ran instead" % count in err
    summary = (tmp_path / "dump" / "summary.txt").read_text()
    assert "unveil failed %d times here" % count in summary
    assert summary.count("refused for the test") == count
