"""``unveil.why_recompile`` and ``unveil why-recompile``, against Dynamo's own decision.

A function is compiled for a few inputs (several cache entries); then for each
probe, the verdict of every entry must be what Dynamo's guard manager says for
it, the entry said to run must be the first that passes, and calling the
compiled function must add a cache entry exactly when none would run.
"""
import functools
import json
import os
import re
import shutil
import subprocess
import sys

import pytest
import torch

import unveil
from unveil.dynamo.adapter.cache import cache_entries, compiled_codes

OFFSET = 1.0


def target(x, n, scale=2.0):
    y = x * n + OFFSET
    if x.dim() > 1:
        y = y.sum(0)
    return y * scale


COMPILED_FOR = [(torch.ones(3), 1), (torch.ones(3, 2), 1), (torch.ones(3), 2)]

PROBES = {
    "same_as_first": ((torch.ones(3), 1), {}),
    "same_as_second": ((torch.zeros(3, 2), 1), {}),
    "same_as_third": ((torch.full((3,), 5.0), 2), {}),
    "new_length": ((torch.ones(4), 1), {}),
    "new_rank": ((torch.ones(3, 2, 1), 1), {}),
    "new_dtype": ((torch.ones(3, dtype=torch.float64), 1), {}),
    "new_int": ((torch.ones(3), 7), {}),
    "float_for_int": ((torch.ones(3), 1.5), {}),
    "float_equal_to_int": ((torch.ones(3), 1.0), {}),
    "bool_equal_to_int": ((torch.ones(3), True), {}),
    "requires_grad": ((torch.ones(3).requires_grad_(), 1), {}),
    "transposed": ((torch.ones(2, 3).t(), 1), {}),
    "keyword_scale": ((torch.ones(3), 1), {"scale": 3.0}),
    "same_by_keyword": ((torch.ones(3),), {"n": 2}),
}


@pytest.fixture
def compiled():
    torch._dynamo.reset()
    fn = torch.compile(target, backend="eager", dynamic=False)
    for args in COMPILED_FOR:
        fn(*args)
    return fn


@pytest.mark.parametrize("probe", sorted(PROBES))
def test_why_recompile_agrees_with_dynamo(probe, compiled):
    args, kwargs = PROBES[probe]
    why = unveil.why_recompile(compiled, *args, **kwargs)
    f_locals = {"x": args[0], "n": kwargs.get("n", args[1] if len(args) > 1 else None),
                "scale": kwargs.get("scale", 2.0)}
    entries = cache_entries(target.__code__)
    assert [v.compile_id for v in why.verdicts] == [e.compile_id for e in entries]
    assert [v.passes for v in why.verdicts] == [e.check(f_locals) for e in entries], str(why)
    # a guard that could not read its value is a verdict only where a value is really missing:
    # on these inputs every value exists, so a read error here is a bug of ours
    assert all(v.error is None for v in why.verdicts), str(why)
    for verdict in why.verdicts:
        if not verdict.passes:
            assert verdict.condition and verdict.comment and "from: " in verdict.comment, str(why)
            assert verdict.values, str(why)
    before = len(entries)
    compiled(*args, **kwargs)
    recompiled = len(cache_entries(target.__code__)) > before
    assert recompiled == (why.runs is None), str(why)


@pytest.mark.parametrize("probe", sorted(PROBES))
def test_each_guard_function_reads_every_value_and_answers_as_dynamo(probe, compiled):
    """The guard function a guards file holds turns a read that fails into False (Dynamo's
    accessor fails too); run with that except re-raising instead, on inputs where every
    value exists, it must raise nothing and answer as Dynamo's check: a bug in a translated
    guard cannot hide behind it as a quiet False."""
    from unveil.dynamo.guards import runtime as guard_runtime
    from unveil.dynamo.guards.why import entry_guard_source
    args, kwargs = PROBES[probe]
    f_locals = {"x": args[0], "n": kwargs.get("n", args[1] if len(args) > 1 else None),
                "scale": kwargs.get("scale", 2.0)}
    entries = cache_entries(target.__code__)
    assert entries
    for entry in entries:
        source = entry_guard_source(entry, "__guard")
        swallowed = "        return False  # a value the guard reads is missing: Dynamo's accessor fails too"
        assert swallowed in source, source
        namespace = {n: getattr(guard_runtime, n) for n in guard_runtime.__all__}
        namespace["torch"] = torch
        exec(source.replace(swallowed, "        raise"), namespace)
        assert namespace["__guard"](f_locals, target.__globals__) == entry.check(f_locals), source


def _decorated(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        return fn(*args, **kwargs) + 1
    return wrapper


@_decorated
def decorated(x):
    return x * 2


def test_a_decorated_function_is_asked_about_its_wrapper_frame():
    """Dynamo compiles the wrapper's frame: its locals are ``args``, ``kwargs`` and the
    wrapped function it closes over, not the wrapped function's parameters."""
    torch._dynamo.reset()
    fn = torch.compile(decorated, backend="eager", dynamic=False)
    fn(torch.ones(3))
    assert unveil.why_recompile(fn, torch.ones(3)).runs is not None
    why = unveil.why_recompile(fn, torch.ones(4))
    assert why.runs is None and "L['args'][0]" in str(why), str(why)
    assert all(v.error is None for v in why.verdicts), str(why)


def with_options(x, options):
    return x * options["scale"]


def test_a_value_the_guard_cannot_read_fails_the_entry_as_in_dynamo():
    """The one place a read error is an answer: the key a guard reads is gone.  Dynamo's
    accessor fails and the entry does not run; the verdict says which read failed."""
    torch._dynamo.reset()
    fn = torch.compile(with_options, backend="eager", dynamic=False)
    fn(torch.ones(3), {"scale": 2.0})
    probe = {"other": 2.0}
    why = unveil.why_recompile(fn, torch.ones(3), probe)
    entries = cache_entries(with_options.__code__)
    assert [v.passes for v in why.verdicts] == [e.check({"x": torch.ones(3), "options": probe}) for e in entries]
    assert why.runs is None and why.verdicts[0].error.startswith("KeyError"), str(why)


def _instance_of_a_new_local_class():
    class Func:                      # a class of its own each call
        k = 3.0
    return Func()


def with_object(x, o):
    return x * o.k


def test_a_class_made_in_a_function_is_guarded_by_its_type_as_in_dynamo():
    """Dynamo notes a type guard's class after the guard, ``type=<class 'm.f.<locals>.C'>``:
    with ``<locals>`` in the name the guard was left untranslated, assumed to pass, and the
    answer said the entry runs where Dynamo compiled anew (a new-user trial; transformers'
    Llama guards such a class)."""
    torch._dynamo.reset()
    fn = torch.compile(with_object, backend="eager", dynamic=False)
    fn(torch.ones(2), _instance_of_a_new_local_class())
    other = _instance_of_a_new_local_class()
    why = unveil.why_recompile(fn, torch.ones(2), other)
    assert why.runs is None, str(why)
    assert not any(v.untranslated for v in why.verdicts), str(why)
    entries = cache_entries(with_object.__code__)
    assert [v.passes for v in why.verdicts] == [e.check({"x": torch.ones(2), "o": other}) for e in entries] \
        == [False], str(why)
    assert "check_type_id(L['o']" in str(why), str(why)
    fn(torch.ones(2), other)
    assert len(cache_entries(with_object.__code__)) == 2


def test_a_guard_left_untranslated_is_named_and_the_entry_said_to_run_only_if_it_passes():
    """What unveil could not translate it cannot check: the answer says so, not just that
    the entry runs."""
    from unveil.dynamo.guards.conditions import UNTRANSLATED
    from unveil.dynamo.guards.why import WhyRecompile, check_guard_source
    source = ("def __guard(L, G):\n    " + UNTRANSLATED + "strange_check(L['x'])\n"
              "    if not (L['x'] == 1):\n        return False\n    return True\n")
    verdict = check_guard_source("0/0", source, "__guard", {"x": 1}, {})
    assert verdict.passes and verdict.untranslated == ["strange_check(L['x'])"]
    text = str(WhyRecompile("f", [verdict]))
    assert "not checked and assumed to pass: strange_check(L['x'])" in text, text
    assert text.endswith("=> compile 0/0 runs, if its guard unveil could not check passes; if not, no entry's "
                         "guards pass: Dynamo compiles anew"), text


def test_the_text_names_the_failing_guard_its_values_and_line(compiled):
    text = str(unveil.why_recompile(compiled, torch.ones(3, dtype=torch.float64), 1))
    assert "dtype torch.float64, expected torch.float32" in text
    assert "L['x'] is a tensor float64 of size (3,)" in text
    assert "y = x * n + OFFSET" in text
    assert text.endswith("=> no entry's guards pass: Dynamo compiles anew")


def _never_compiled(x):
    return x + 1


def test_a_function_never_given_to_torch_compile_is_said_to_be_one(compiled):
    """A plain function Dynamo holds no compile of: the answer said only "0 cache entries ...
    Dynamo compiles anew", though calling it compiles nothing (a new-user trial).  One that
    torch.compile compiled elsewhere is answered for plainly (its code has the entries)."""
    text = str(unveil.why_recompile(_never_compiled, torch.ones(2)))
    assert "_never_compiled is not what torch.compile returned, and Dynamo holds no compile of its code: " \
           "called as it is, it runs as plain Python and compiles nothing" in text, text
    inner = compiled._torchdynamo_orig_callable
    compiled(torch.ones(3), 1)
    assert "not what torch.compile returned" not in str(unveil.why_recompile(inner, torch.ones(3), 1))


def _makes_inner():
    def inner(x):
        return x * 2
    return inner


def test_a_nested_function_is_named_as_the_dump_names_it():
    """``_makes_inner.<locals>.inner`` in the answer, ``_makes_inner.inner`` in the summary and
    the report: one name now (a new-user trial)."""
    torch._dynamo.reset()
    compiled = torch.compile(_makes_inner(), backend="eager")
    compiled(torch.ones(2))
    text = str(unveil.why_recompile(compiled, torch.ones(2)))
    assert text.startswith("_makes_inner.inner: 1 cache entry"), text


def test_a_failing_global_state_guard_names_the_parts_that_differ():
    """A frame compiled under ``torch.no_grad()`` (an optimizer's step always is) asked
    about outside it: the verdict quoted the whole state as JSON and said nothing of
    which part differs (a new-user trial).  Inside no_grad it runs, as Dynamo decides."""
    torch._dynamo.reset()
    fn = torch.compile(target, backend="eager", dynamic=False)
    with torch.no_grad():
        fn(torch.ones(3), 1)
    why = unveil.why_recompile(fn, torch.ones(3), 1)
    entry = cache_entries(target.__code__)[0]
    assert why.verdicts[0].passes is False and entry.check({"x": torch.ones(3), "n": 1}) is False
    assert why.verdicts[0].detail == "global state differs: grad_mode is true here, false at compile time", str(why)
    with torch.no_grad():
        assert unveil.why_recompile(fn, torch.ones(3), 1).runs == "0/0"


def index_first(x, items):
    return x * items[0]


def test_a_failing_length_guard_says_the_length_it_found():
    """``len(L['items']) == 2`` failing said what the list is, cut short at 80 characters
    (a new-user trial: an optimizer's param group of eleven keys, not ten); its length is
    the answer."""
    torch._dynamo.reset()
    fn = torch.compile(index_first, backend="eager", dynamic=False)
    fn(torch.ones(3), [1.0, 2.0])
    why = unveil.why_recompile(fn, torch.ones(3), [float(k) for k in range(40)])
    assert why.verdicts[0].condition == "len(L['items']) == 2", str(why)
    assert why.verdicts[0].values == {"len(L['items'])": "40"}, str(why)


def _adam_compiled_step():
    """``torch.compile(opt.step)``, as torch's tutorial compiles an optimizer: the step's
    wrapper frame runs, breaks the graph in ``_use_grad`` and calls ``Adam.step`` past the
    break, which Dynamo compiles as a frame of its own."""
    torch._dynamo.reset()
    torch.manual_seed(0)
    model = torch.nn.Linear(4, 2)
    opt = torch.optim.Adam(model.parameters(), lr=0.01)
    step = torch.compile(opt.step, backend="eager")

    def train():          # (the grads stay after it: a step is asked about with them there)
        opt.zero_grad()
        model(torch.randn(3, 4)).sum().backward()
        step()
    return opt, step, train


def called_past_a_break(x):
    x = x.sin()
    torch._dynamo.graph_break()
    return x.cos()


def calls_past_a_break(x):
    return called_past_a_break(x) + 1


def breaks_on_data(x, n):
    if x.sum() > 0:
        return x * n
    return x - n


def returns_a_call_that_breaks(x, n):
    return breaks_on_data(x.cos(), n)


ADAM_STEP_LINE = torch.optim.Adam.step.__wrapped__.__code__.co_firstlineno


def test_a_frame_that_breaks_names_the_frames_its_calls_reach_and_those_are_answered():
    """``why_recompile(torch.compile(opt.step))`` answered for the wrapper frame, which
    runs, and said nothing of ``Adam.step``, which recompiles (a new-user trial).  The
    answer names the frames compiled on their own; asked about ``Adam.step`` itself (a
    decorator's wrapper around the frame Dynamo compiled), it answers for that frame."""
    opt, step, train = _adam_compiled_step()
    for _ in range(2):
        train()
    opt.param_groups[0]["lr"] = 0.5
    why = unveil.why_recompile(step)
    assert why.runs == "0/0" and why.reached == [], str(why)
    [inner] = why.wrapped
    assert inner.function == "Adam.step" and inner.recompiles, str(why)
    assert inner.verdicts[0].condition.endswith("L['self'].param_groups[0]['lr'] == 0.01"), str(why)
    assert inner.reached == [] and inner.wrapped == [], str(why)      # it made one graph: it reaches no frame
    text = str(why).splitlines()
    # the whole first: a reader of the first verdict alone (the wrapper's) took it for the answer
    assert text[0] == "In all, for this call: %s: compile 0/0 runs; Adam.step: no entry's guards pass: Dynamo " \
        "compiles anew." % why.function, text
    assert text[4].startswith("Past a graph break it calls Adam.step, the function it wraps"), text
    assert text[5:] == str(inner).splitlines() and text[-1] == "=> no entry's guards pass: Dynamo compiles anew"
    opt.param_groups[0]["lr"] = 0.01
    again = unveil.why_recompile(step)
    assert again.wrapped[0].runs == "1/0", str(again)


def test_with_an_lr_scheduler_the_step_frame_that_makes_no_graph_names_adam_step():
    """An LR scheduler wraps ``opt.step`` in a plain function: Dynamo compiles a frame of
    its own around it that makes no graph and calls the step as it is (no resume
    function), and the answer was "compile 0/0 runs" alone, where Adam.step recompiles
    (a new-user trial).  The frames it reaches are named; the step is not answered with
    the call's arguments, which are not its receiver's."""
    torch._dynamo.reset()
    model = torch.nn.Linear(4, 2)
    opt = torch.optim.Adam(model.parameters(), lr=0.01)
    torch.optim.lr_scheduler.StepLR(opt, step_size=100)
    step = torch.compile(opt.step, backend="eager")
    for _ in range(2):
        opt.zero_grad()
        model(torch.randn(3, 4)).sum().backward()
        step()
    opt.param_groups[0]["lr"] = 0.5
    why = unveil.why_recompile(step)
    assert why.runs == "0/0" and why.wrapped == [], str(why)
    assert "  Adam.step (adam.py:%d): 1 cache entry" % ADAM_STEP_LINE in str(why).splitlines(), str(why)


def test_a_frame_reached_past_a_break_that_no_wrapper_leads_to_is_named():
    """A frame called past a break that is not the function a decorator wraps: its
    arguments are not the call's, so it is named, with its cache, and not answered."""
    torch._dynamo.reset()
    fn = torch.compile(calls_past_a_break, backend="eager")
    fn(torch.ones(3))
    why = unveil.why_recompile(fn, torch.ones(3))
    assert why.runs == "0/0" and why.wrapped == [], str(why)
    names = [r.name for r in why.reached]
    assert names[0].startswith("torch_dynamo_resume_in_calls_past_a_break_at_"), str(why)
    assert why.reached[0].through.startswith("the rest of it from line "), str(why)
    assert "called_past_a_break" in names and len(names) == 3, str(why)        # and its own resume function
    line = "  called_past_a_break (test_why_recompile.py:%d): 1 cache entry" % (
        called_past_a_break.__code__.co_firstlineno)
    assert line in str(why).splitlines(), str(why)
    torch._dynamo.reset()
    fn = torch.compile(target, backend="eager")
    fn(torch.ones(3), 1)
    assert unveil.why_recompile(fn, torch.ones(3), 1).reached == []        # no break: it reaches no frame


def test_a_frame_whose_last_call_breaks_inside_names_the_frames_it_reaches():
    """A break inside the function a frame returns the call of: the frame's code makes its
    graph and calls that function as it is, with no resume function.  The answer named no
    frame, though the call went on to compile the called function's other branch (a
    new-user trial: "compile 0/3 runs" alone)."""
    torch._dynamo.reset()
    fn = torch.compile(returns_a_call_that_breaks, backend="eager")
    fn(torch.zeros(3), 1)                    # cos(0) > 0: the first branch
    why = unveil.why_recompile(fn, torch.full((3,), 3.0), 1)      # cos(3) < 0: the other one
    assert why.runs == "0/0", str(why)
    names = [r.name for r in why.reached]
    assert "breaks_on_data" in names, str(why)
    assert any(name.startswith("torch_dynamo_resume_in_breaks_on_data_at_") for name in names), str(why)
    torch._dynamo.reset()


def test_over_a_dump_the_frames_its_calls_reached_are_named_with_how_and_what_they_came_to(tmp_path):
    """The dump records the Python stack of each compile with the frames that run code
    Dynamo made (its metrics' stack lacks the step's wrapper and ``_use_grad``): the answer
    over the dump says how the wrapper reached ``Adam.step`` and why that recompiled."""
    from unveil.dynamo.guards.why import why_recompile_in_dump
    opt, step, train = _adam_compiled_step()
    with unveil.prepare_debug(tmp_path):
        for _ in range(2):
            train()
        opt.param_groups[0]["lr"] = 0.5
        train()
    index = json.loads((tmp_path / "index.json").read_text())
    adam = next(c for c in index["compiles"] if c["function"] == "Adam.step")
    assert [f["function"] for f in adam["stack"][-3:]] == ["wrapper", "_use_grad", "step"], adam["stack"]
    why = why_recompile_in_dump(str(tmp_path), "Optimizer.profile_hook_step.wrapper", (opt,), {},
                                settings={"func": torch.optim.Adam.step.__wrapped__})
    text = str(why).splitlines()
    assert why.runs == "0/0", text
    resume = next(r for r in why.reached if r.name != "Adam.step")
    assert resume.through.startswith("the rest of it from line ") and \
        ".torch_dynamo_resume_in_wrapper_at_" in resume.name, text
    call = [line for line in text if line.startswith("  Adam.step")]
    assert call == ["  Adam.step (adam.py:%d), called at line %s, through _use_grad (line %d): compiles 1/0, 1/1; "
                    "1/1 was compiled anew, as a guard of compile 1/0 failed: self.param_groups[0]['lr'] == 0.01"
                    % (ADAM_STEP_LINE, resume.through.split()[-1], adam["stack"][-2]["line"])], text


def verdict(text):
    """The answer's verdict on the frame asked about: its first ``=>`` line (what the frame
    reaches past its graph breaks follows it)."""
    return next(line for line in text.splitlines() if line.startswith("=> "))


def test_the_command_runs_the_dumped_guards(tmp_path):
    torch._dynamo.reset()
    with unveil.prepare_debug(tmp_path) as session:
        fn = torch.compile(target, backend="eager", dynamic=False)
        for args in COMPILED_FOR:
            fn(*args)
    assert session.failures == []
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))

    def run(*argv):
        return subprocess.run([sys.executable, "-m", "unveil", "why-recompile", *argv], capture_output=True,
                              text=True, env=env, timeout=300)
    first = cache_entries(target.__code__)[-1].compile_id
    done = run(str(tmp_path), "target", "torch.ones(3), 1")
    assert done.returncode == 0, done.stderr
    assert verdict(done.stdout) == "=> compile %s runs" % first, done.stdout
    done = run(str(tmp_path), "target", "torch.ones(3), n=9")
    assert done.returncode == 0 and "=> no entry's guards pass" in done.stdout, done.stdout + done.stderr
    assert "L['n'] is 9" in done.stdout
    done = run(str(tmp_path), "nothing", "1")
    assert done.returncode == 2 and done.stderr.startswith("unveil: error: no function nothing"), done.stderr
    done = run(str(tmp_path), "target", "torch.ones(")
    assert done.returncode == 2 and "cannot evaluate the call's arguments" in done.stderr, done.stderr


def _closure_reading_one():
    scale = 2

    def inner(x):
        return x * scale
    return inner


def _closure_reading_two():
    scale, shift = 2, 3

    def inner(x):
        return x * scale + shift
    return inner


@pytest.mark.parametrize("make, said", [
    (_closure_reading_one, "read scale, a variable of the function it was made in, which the call cannot give: set it "
                 "(--set scale=EXPR)"),
    (_closure_reading_two, "read scale, shift, variables of the function it was made in, which the call cannot "
                         "give: set them (--set scale=EXPR)")])
def test_the_command_asks_for_the_variables_of_the_function_a_closure_was_made_in(tmp_path, make, said):
    """The guards of a closure read its free variables, which a call alone cannot give:
    the error names each, in the singular or the plural."""
    torch._dynamo.reset()
    inner = make()
    with unveil.prepare_debug(tmp_path) as session:
        torch.compile(inner, backend="eager", dynamic=False)(torch.ones(3))
    assert session.failures == []
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    done = subprocess.run([sys.executable, "-m", "unveil", "why-recompile", str(tmp_path), "inner", "torch.ones(3)"],
                          capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 2 and said in done.stderr, done.stdout + done.stderr


def test_the_command_binds_a_decorated_function_and_a_resume_function_by_their_own_parameters(tmp_path):
    """A decorator's wrapper takes (*args, **kwargs): the arguments bind to the compiled
    frame's parameters; a resume function's come from its dumped def; too many arguments
    are a one-line error."""
    examples = os.path.join(os.path.dirname(os.path.abspath(__file__)), "run_examples")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    made = subprocess.run([sys.executable, "recompiles_decorated.py", str(tmp_path)], cwd=examples,
                          capture_output=True, text=True, env=env, timeout=300)
    assert made.returncode == 0, made.stderr

    def run(*argv):
        return subprocess.run([sys.executable, "-m", "unveil", "why-recompile", str(tmp_path), *argv],
                              capture_output=True, text=True, env=env, timeout=300)
    done = run("g", "torch.ones(3, 2), 2")
    assert done.returncode == 0 and verdict(done.stdout) == "=> compile 0/1 runs", done.stdout + done.stderr
    done = run("g", "torch.ones(3, 2), n=1")
    assert done.returncode == 0 and verdict(done.stdout) == "=> compile 0/0 runs", done.stdout + done.stderr
    resume = next(p.name.split(".")[0] for p in tmp_path.glob("*.resume_function.py"))
    done = run(resume, "[], [], None, 4, torch.ones(2)")
    assert done.returncode == 0 and re.search(r"=> compile \d+/1 runs$", done.stdout.rstrip()), done.stdout
    # its arguments given as the function's: the error names the resume function's parameters
    # (it told a method's resume function's call to start with self; a new-user trial)
    done = run(resume, "4, torch.ones(2)")
    assert done.returncode == 2 and "(a resume function, called with its parameters (" in done.stderr \
        and "___stack0" in done.stderr and "starts with its self" not in done.stderr, done.stderr
    done = run("g", "torch.ones(3, 2), 2, 3")
    assert done.returncode == 2 and done.stderr == (
        "unveil: error: the arguments 'torch.ones(3, 2), 2, 3' do not fit g: too many positional arguments\n")


MODULE_WITH_A_CLASS = '''
import torch

FLAG = False


class Lin(torch.nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.lin = torch.nn.Linear(4, 4)

    def forward(self, x):
        y = self.lin(x)
        if FLAG:
            y = y.relu()
        return y
'''

PROGRAM_OF_THE_CLASS = '''
import json
import sys

import torch
import unveil
from unveil.dynamo.adapter.cache import cache_entries

import mymod


class Local(torch.nn.Module):               # a class of the script itself: __main__.Local
    def forward(self, x):
        return x * 2


def main():
    model, local = mymod.Lin(), Local()
    mymod.FLAG = True                            # changed after import, before the compile
    compiled, compiled_local = torch.compile(model, backend="eager"), torch.compile(local, backend="eager")
    with unveil.prepare_debug(sys.argv[1]) as session:
        compiled(torch.ones(2, 4))
        compiled_local(torch.ones(3))
    assert session.failures == [], session.failures
    decisions = {}
    for name, (c, m, x) in {"same": (compiled, model, torch.ones(2, 4)), "longer": (compiled, model, torch.ones(5, 4)),
                            "local_same": (compiled_local, local, torch.ones(3)),
                            "local_longer": (compiled_local, local, torch.ones(4))}.items():
        why = unveil.why_recompile(c, x)
        before = len(cache_entries(type(m).forward.__code__))
        c(x)
        recompiled = len(cache_entries(type(m).forward.__code__)) > before
        decisions[name] = {"recompiled": recompiled, "api": why.runs is None}
    json.dump(decisions, open(sys.argv[2], "w"))


if __name__ == "__main__":
    main()
'''


def test_the_command_answers_for_a_method_as_dynamo_decided(tmp_path):
    """A module's forward: the class named in the type guard (``mymod.Lin``, a script's
    ``__main__.Local``) is the class the command's call makes, though the file is loaded
    under another name; a flag the program set after import is given with --set."""
    (tmp_path / "mymod.py").write_text(MODULE_WITH_A_CLASS)
    (tmp_path / "prog.py").write_text(PROGRAM_OF_THE_CLASS)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    made = subprocess.run([sys.executable, "prog.py", str(tmp_path / "dump"), str(tmp_path / "decided.json")],
                          cwd=tmp_path, capture_output=True, text=True, env=env, timeout=600)
    assert made.returncode == 0, made.stderr
    decided = json.loads((tmp_path / "decided.json").read_text())
    assert decided == {"same": {"recompiled": False, "api": False}, "longer": {"recompiled": True, "api": True},
                       "local_same": {"recompiled": False, "api": False},
                       "local_longer": {"recompiled": True, "api": True}}, decided

    def run(*argv):
        return subprocess.run([sys.executable, "-m", "unveil", "why-recompile", str(tmp_path / "dump"), *argv],
                              cwd=tmp_path, capture_output=True, text=True, env=env, timeout=300)
    done = run("Lin.forward", "Lin(), torch.ones(2, 4)", "--set", "FLAG=True")
    assert done.returncode == 0 and verdict(done.stdout) == "=> compile 0/0 runs", done.stdout + done.stderr
    assert "check_type_id" not in done.stdout
    # a setting no guard reads (a misspelt name) changes no verdict, and the answer says so
    done = run("Lin.forward", "Lin(), torch.ones(2, 4)", "--set", "FLAG=True", "--set", "FLGA=False")
    assert done.returncode == 0 and verdict(done.stdout) == "=> compile 0/0 runs", done.stdout + done.stderr
    assert "(--set FLGA: the module has no global FLGA, no guard of Lin.forward reads it and the call does not " \
           "name it, so its value changes no verdict)" in done.stdout, done.stdout
    assert "--set FLAG:" not in done.stdout, done.stdout
    # one the call names changes the call's values, which the guards read: no such note (it said
    # "changes no verdict" of ``--set model.mode=...`` as the verdict changed; a new-user trial)
    done = run("Lin.forward", "Lin(), torch.ones(2, 4)", "--set", "FLAG=True", "--set", "Lin.note='set'")
    assert done.returncode == 0 and verdict(done.stdout) == "=> compile 0/0 runs", done.stdout + done.stderr
    assert "--set Lin:" not in done.stdout, done.stdout
    done = run("Lin.forward", "Lin(), torch.ones(5, 4)", "--set", "FLAG=True")
    assert done.returncode == 0 and "size [5, 4], expected [2, 4]" in done.stdout, done.stdout + done.stderr
    assert verdict(done.stdout) == "=> no entry's guards pass: Dynamo compiles anew"
    # without --set the flag has its import-time value, and the answer says so
    done = run("Lin.forward", "Lin(), torch.ones(2, 4)")
    assert "fails G['FLAG'] == True" in done.stdout and "--set FLAG=EXPR" in done.stdout, done.stdout + done.stderr
    cid = json.loads((tmp_path / "dump" / "index.json").read_text())
    local_cid = next(c["compile_id"] for c in cid["compiles"] if c["function"] == "Local.forward")
    done = run("Local.forward", "Local(), torch.ones(3)")
    assert done.returncode == 0 and verdict(done.stdout) == "=> compile %s runs" % local_cid, done.stdout
    done = run("Local.forward", "Local(), torch.ones(4)")
    assert verdict(done.stdout) == "=> no entry's guards pass: Dynamo compiles anew", done.stdout
    done = run("Lin.forward", "Lin(), torch.ones(2, 4)", "--set", "x=1")
    assert done.returncode == 2 and done.stderr == (
        "unveil: error: x is a parameter of Lin.forward: give it in the call, not as a setting\n"), done.stderr
    done = run("Lin.forward", "torch.ones(2, 4)", "--set", "FLAG=True")      # (its self forgotten)
    assert done.returncode == 2 and done.stderr.endswith(
        "missing a required argument: 'x' (a method's call starts with its self: \"Lin(...), ...\")\n"), done.stderr
    done = run("Lin.forward", "Lin(), torch.ones(2, 4)", "--set", "FLAG")
    assert done.returncode == 2 and done.stderr == "unveil: error: --set wants NAME=EXPR or NAME.ATTR=EXPR, not 'FLAG'\n", done.stderr


MODULE_ASKING_A_TYPE = '''import torch


def f(x):
    y = x * 2
    if type(y) is torch.Tensor:     # Dynamo installs torch as a global of its own, named by its id
        return y + 1
    return y
'''


def _made_in_a_new_process(tmp_path, program):
    """Run ``program`` (Python text) in a new process in ``tmp_path``, which is first on its
    path; the environment it ran in (for the commands asked after it)."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tmp_path)] + [p for p in sys.path if p]))
    made = subprocess.run([sys.executable, "-c", program], cwd=tmp_path, capture_output=True, text=True, env=env,
                          timeout=600)
    assert made.returncode == 0, made.stderr
    return env


def test_the_command_has_the_globals_dynamo_installed_by_id(tmp_path):
    """``type(y)`` of a tensor made in the frame: Dynamo installs ``torch`` in the module as
    ``_<id>_c0`` and guards read it.  A new process loads the module without it: the dump
    says what it is, and the entry runs (it said "compiles anew" with a KeyError, on every
    HuggingFace model); the full-code script's guards passed only then."""
    (tmp_path / "askstype.py").write_text(MODULE_ASKING_A_TYPE)
    env = _made_in_a_new_process(tmp_path, "import torch, unveil, askstype\n"
                                           "with unveil.prepare_debug('dump'):\n"
                                           "    torch.compile(askstype.f, backend='eager')(torch.ones(3))\n")
    guards = next((tmp_path / "dump").glob("f.compile_0_0.guards.py")).read_text()
    assert re.search(r"G\['_\d+_c0'\]\.Tensor", guards), guards
    done = subprocess.run([sys.executable, "-m", "unveil", "why-recompile", "dump", "f", "torch.ones(3)"],
                          cwd=tmp_path, capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0 and verdict(done.stdout) == "=> compile 0/0 runs", done.stdout + done.stderr
    assert "KeyError" not in done.stdout
    # and the full-code file, run as a script, gets it from the dump too
    done = subprocess.run([sys.executable, "dump/f.full_code.py"], cwd=tmp_path, capture_output=True, text=True,
                          env=env, timeout=300)
    assert done.returncode == 0 and "guards: 0/0 passes" in done.stdout, done.stdout + done.stderr


def test_the_command_asks_as_under_no_grad_with_no_grad(tmp_path):
    """A frame compiled for inference (under ``torch.no_grad()``): asked about outside it,
    its global-state guard fails, and the answer says how to ask as the program called it;
    --no-grad does.  A setting whose evaluation turned grad mode off changed the verdict
    though the note said it "changes no verdict" (a new-user trial)."""
    (tmp_path / "infer.py").write_text("import torch\n\n\ndef f(x):\n    return x * 2\n")
    env = _made_in_a_new_process(tmp_path, "import torch, unveil, infer\n"
                                           "with unveil.prepare_debug('dump'), torch.no_grad():\n"
                                           "    torch.compile(infer.f, backend='eager')(torch.ones(3))\n")

    def run(*argv):
        return subprocess.run([sys.executable, "-m", "unveil", "why-recompile", "dump", "f", "torch.ones(3)", *argv],
                              cwd=tmp_path, capture_output=True, text=True, env=env, timeout=300)
    done = run()
    assert done.returncode == 0 and "=> no entry's guards pass" in done.stdout, done.stdout + done.stderr
    assert "grad_mode is true here, false at compile time" in done.stdout, done.stdout
    assert "  (compiled under torch.no_grad(), as inference is: --no-grad asks as there)" in done.stdout, done.stdout
    done = run("--no-grad")
    assert done.returncode == 0 and verdict(done.stdout) == "=> compile 0/0 runs", done.stdout + done.stderr
    assert "--no-grad asks" not in done.stdout, done.stdout
    done = run("--set", "_off=torch.set_grad_enabled(False)")
    assert done.returncode == 0 and verdict(done.stdout) == "=> compile 0/0 runs", done.stdout + done.stderr
    assert "(--set _off: the module has no global _off, no guard of f reads it and the call does not name it, " \
           "so its value changes no verdict)" in done.stdout, done.stdout


def test_a_function_of_a_package_module_with_relative_imports_is_answered_and_its_script_runs(tmp_path):
    """A module of a package that imports its siblings relatively (every HuggingFace model
    does): loaded in a new process under another name it had no package, and both the
    command and the full-code script died with 'attempted relative import with no known
    parent package'.  Found by a new-user trial."""
    package = tmp_path / "mypkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "consts.py").write_text("SCALE = 2.0\n")
    (package / "model.py").write_text("from .consts import SCALE\n\n\ndef step(x, n):\n    return x * SCALE + n\n")
    env = _made_in_a_new_process(tmp_path, "import torch, unveil\nfrom mypkg.model import step\n"
                                           "with unveil.prepare_debug('dump'):\n"
                                           "    torch.compile(step, backend='eager', dynamic=False)(torch.ones(3), 2)\n")
    done = subprocess.run([sys.executable, "-m", "unveil", "why-recompile", "dump", "step", "torch.ones(3), 2"],
                          cwd=tmp_path, capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0 and verdict(done.stdout) == "=> compile 0/0 runs", done.stdout + done.stderr
    done = subprocess.run([sys.executable, "-m", "unveil", "why-recompile", "dump", "step", "torch.ones(3), 3"],
                          cwd=tmp_path, capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0 and "=> no entry's guards pass" in done.stdout, done.stdout + done.stderr
    done = subprocess.run([sys.executable, "dump/step.full_code.py"], cwd=tmp_path, capture_output=True, text=True,
                          env=env, timeout=300)
    assert done.returncode == 0 and "guards: 0/0 passes" in done.stdout, done.stdout + done.stderr
    # as the ``unveil`` console script runs (its own directory first on sys.path, not the working
    # directory), from another directory, with the package on no path: it failed so (a new-user
    # trial); the package is found from the module's name and file
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "unveil_command.py").write_text("import sys\nfrom unveil.__main__ import main\nsys.exit(main())\n")
    bare = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p and p != str(tmp_path)))
    done = subprocess.run([sys.executable, str(elsewhere / "unveil_command.py"), "why-recompile",
                           str(tmp_path / "dump"), "step", "torch.ones(3), 2"], cwd=elsewhere, capture_output=True,
                          text=True, env=bare, timeout=300)
    assert done.returncode == 0 and verdict(done.stdout) == "=> compile 0/0 runs", done.stdout + done.stderr
    done = subprocess.run([sys.executable, str(tmp_path / "dump" / "step.full_code.py")], cwd=elsewhere,
                          capture_output=True, text=True, env=bare, timeout=300)
    assert done.returncode == 0 and "guards: 0/0 passes" in done.stdout, done.stdout + done.stderr


def test_a_name_several_functions_have_is_an_error_naming_their_keys(tmp_path):
    """``why-recompile DUMP forward`` in a dump of a model with five ``forward``s answered
    for the first, without a word (a new-user trial); a key is always one function."""
    from unveil.dynamo.guards.why import dumped_function
    functions = [{"key": key, "name": "forward", "qualname": key} for key in ("Outer.forward", "Layer.forward")]
    (tmp_path / "index.json").write_text(json.dumps({"functions": functions}))
    with pytest.raises(LookupError, match=r"^2 functions of .* are named forward: give one's key "
                                          r"\(Outer.forward, Layer.forward\)$"):
        dumped_function(str(tmp_path), "forward")
    assert dumped_function(str(tmp_path), "Layer.forward")[1]["key"] == "Layer.forward"


BY_TYPE = '''
import sys
import torch
import unveil


class A:
    pass


class B:
    pass


def h(obj, x):
    return x + (1 if type(obj).__name__ == "A" else 2)


if __name__ == "__main__":
    with unveil.prepare_debug(sys.argv[1]):
        torch.compile(h, backend="eager")(A(), torch.ones(2))
'''


def test_a_scripts_object_reads_as_of_its_module_in_the_answer(tmp_path):
    """The command loads the script under a stand-in name: a value of one of its classes
    read ``<__unveil_user_module___main__.B object ...>`` (a new-user trial)."""
    (tmp_path / "prog.py").write_text(BY_TYPE)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    made = subprocess.run([sys.executable, "prog.py", str(tmp_path / "dump")], cwd=tmp_path, capture_output=True,
                          text=True, env=env, timeout=600)
    assert made.returncode == 0, made.stderr
    done = subprocess.run([sys.executable, "-m", "unveil", "why-recompile", str(tmp_path / "dump"), "h",
                           "B(), torch.ones(2)"], cwd=tmp_path, capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr
    assert re.search(r"^      L\['obj'\] is <__main__\.B object at 0x[0-9a-f]+>$", done.stdout, re.M), done.stdout
    assert "__unveil_user_module" not in done.stdout, done.stdout


def test_the_frames_reached_are_named_up_to_twenty():
    from unveil.dynamo.guards.reached import Reached, lines
    many = [Reached("f%d" % k, "m.py:%d" % k, None, "1 cache entry", None, None) for k in range(25)]
    text = lines(many, live=True)
    assert text[1] == "  f0 (m.py:0): 1 cache entry" and text[20] == "  f19 (m.py:19): 1 cache entry", text
    assert text[21] == "  and 5 more (the answer's .reached lists them all)", text
    assert len(text) == 23 and lines([], live=True) == []


def test_over_a_dump_another_functions_resume_function_is_not_the_rest_of_the_asked_one():
    """A compiled ``step()`` calling ``opt.step()`` reached the optimizer wrapper's resume
    function, which the answer called "the rest of it from line 7" (a new-user trial)."""
    from unveil.dynamo.guards.reached import reached_in_dump
    stack_to = [{"filename": "/p/prog.py", "line": 7, "function": "step"},
                {"filename": "/t/optimizer.py", "line": 530, "function": "wrapper"}]
    index = {"functions": [
        {"key": "step", "kind": "function", "resumes": None, "filename": "/p/prog.py", "line": 5},
        {"key": "wrapper", "kind": "function", "resumes": None, "filename": "/t/optimizer.py", "line": 509},
        {"key": "wrapper.resume_at_530", "kind": "resume", "resumes": "wrapper", "filename": "/t/optimizer.py",
         "line": 530},
        {"key": "step.resume_at_7", "kind": "resume", "resumes": "step", "filename": "/p/prog.py", "line": 7}],
        "compiles": [
            {"function": "wrapper.resume_at_530", "compile_id": "3/0", "compiled": True,
             "stack": stack_to + [{"filename": "/t/optimizer.py", "line": 530, "function": "resume_at_530"}]},
            {"function": "step.resume_at_7", "compile_id": "1/0", "compiled": True,
             "stack": stack_to[:1] + [{"filename": "/p/prog.py", "line": 7, "function": "resume_at_7"}]}]}
    asked = {"key": "step", "filename": "/p/prog.py", "name": "step", "line": 5, "source_lines": [5, 7]}
    through = {r.name: r.through for r in reached_in_dump(index, asked)}
    assert through == {"wrapper.resume_at_530": "called at line 7, through wrapper (line 530)",
                       "step.resume_at_7": "the rest of it from line 7"}, through


def _three_breaks(x):
    x = x + 1
    torch._dynamo.graph_break()
    x = x * 2
    torch._dynamo.graph_break()
    x = x - 3
    torch._dynamo.graph_break()
    return x.sin()


def test_over_a_dump_each_resume_function_goes_on_from_its_own_line(tmp_path):
    """Over a dump, the second and third resume functions were "the rest of it from line 4",
    the first break's line, where the recorded stack passes through the asked frame; the
    live answer said 6 and 8 (a new-user trial)."""
    from unveil.dynamo.guards.why import why_recompile_in_dump
    torch._dynamo.reset()
    compiled = torch.compile(_three_breaks, backend="eager")
    with unveil.prepare_debug(tmp_path):
        compiled(torch.ones(3))
    live = {r.name.rpartition(".")[2]: r.through for r in unveil.why_recompile(compiled, torch.ones(3)).reached}
    answer = why_recompile_in_dump(str(tmp_path), "_three_breaks", [torch.ones(3)], {})
    first = _three_breaks.__code__.co_firstlineno
    expected = {"torch_dynamo_resume_in__three_breaks_at_%d" % (first + n):
                "the rest of it from line %d" % (first + n) for n in (2, 4, 6)}
    assert {r.name.rpartition(".")[2]: r.through for r in answer.reached} == expected == live, (answer, live)


class _AddOne(torch.nn.Module):
    def forward(self, x):
        return x + 1


def test_a_module_compiled_in_place_is_asked_about_the_frame_its_call_compiles():
    """``module.compile()`` (the API torch recommends for modules) keeps the module and
    compiles its ``_call_impl``: the answer was "0 cache entries ... compiles anew" for the
    call that had just run (a new-user trial, torch 2.15).  Dynamo starts at the module's
    ``forward`` (a user's module), or at torch's ``wrap_inline`` frame around the call
    (torch 2.14+, a module of torch's own), or never compiles it (torch 2.13: ``torch.nn``'s
    files are skipped)."""
    torch._dynamo.reset()
    mine = _AddOne()
    mine.compile(backend="eager")
    mine(torch.ones(3))
    answer = unveil.why_recompile(mine, torch.ones(3))
    assert answer.runs is not None and answer.function.endswith("_AddOne.forward"), str(answer)
    assert unveil.why_recompile(mine, torch.ones(2, 2)).recompiles
    torchs = torch.nn.Sequential(torch.nn.Linear(4, 4), torch.nn.ReLU())
    torchs.compile(backend="eager")
    torchs(torch.ones(2, 4))
    answer = unveil.why_recompile(torchs, torch.ones(2, 4))
    assert not answer.recompiles, str(answer)
    if tuple(int(part) for part in torch.__version__.split(".")[:2]) >= (2, 14):
        assert answer.runs is not None and "wrap_inline" in answer.function, str(answer)
    else:
        assert answer.skipped and "Dynamo never compiles this frame" in str(answer), str(answer)
        assert not any(os.path.join("torch", "nn", "") in c.co_filename for c in compiled_codes())


def test_a_compiled_torch_module_is_asked_about_the_wrap_inline_frame_torch_compiles():
    """``torch.compile(nn.Sequential(...))`` compiles torch's ``wrap_inline`` wrapper around the
    module, not ``Sequential.forward`` (torch's own code, which Dynamo cannot start at): the
    answer read "0 cache entries ... compiles anew" for the very call that had just run (a
    new-user trial).  The wrapper's one code holds the entries of all it wraps."""
    torch._dynamo.reset()
    torch.manual_seed(0)
    seq = torch.compile(torch.nn.Sequential(torch.nn.Linear(4, 4), torch.nn.ReLU()), backend="eager", dynamic=False)
    x = torch.randn(2, 4)
    seq(x)
    answer = unveil.why_recompile(seq, x)
    assert answer.runs == "0/0" and not answer.recompiles, answer
    assert "around a torch.nn.modules.container.Sequential" in str(answer).splitlines()[0], answer
    wide = torch.randn(3, 4)
    assert unveil.why_recompile(seq, wide).recompiles
    seq(wide)
    assert unveil.why_recompile(seq, wide).runs == cache_entries(seq.forward._torchdynamo_orig_callable
                                                                 .__code__)[0].compile_id
    linear = torch.compile(torch.nn.Linear(4, 4), backend="eager", dynamic=False)
    linear(x)
    assert unveil.why_recompile(linear, x).runs == "0/2" and unveil.why_recompile(seq, x).runs == "0/0"


def pooled(x, k):
    return x.unfold(0, k, k).mean(-1)


def test_over_a_dump_a_frame_at_the_recompile_limit_still_runs_its_entries(tmp_path):
    """Past the recompile limit Dynamo compiles no more, but the frame's entries still run
    (``FrameAction.RUN_ONLY``): over the dump that compile read "skipped, the frame runs as it
    is", and the answer "Dynamo gave up on this frame ... no guard checked" (a new-user trial)."""
    torch._dynamo.reset()
    compiled = torch.compile(pooled, backend="eager", dynamic=False)
    x = torch.randn(24)
    with torch._dynamo.config.patch(recompile_limit=2):
        with unveil.prepare_debug(tmp_path) as session:
            for k in (1, 2, 3, 4):
                compiled(x, k)
        assert session.failures == []
        assert unveil.why_recompile(compiled, x, 1).runs == "0/0"        # Dynamo's own state, live
    index = json.loads((tmp_path / "index.json").read_text())
    limited, = [c for c in index["compiles"] if not c["compiled"]]
    assert limited["at_limit"]["reason"] == "Dynamo recompile limit exceeded" and limited["skipped"] is None
    assert index["skipped_frames"] == [] and index["counts"]["at_limit"] == 1
    summary = (tmp_path / "summary.txt").read_text()
    assert "0 frames skipped, 1 stopped at the recompile limit (the frame's entries still run)" in summary
    assert "compile 0/2: not compiled: Dynamo recompile limit exceeded" in summary and "runs as it is: Dynamo" not in summary
    from unveil.dynamo.guards.why import why_recompile_in_dump
    answer = why_recompile_in_dump(str(tmp_path), "pooled", [x, 1], {})
    assert answer.runs == "0/0" and answer.given_up is None, answer
    answer = why_recompile_in_dump(str(tmp_path), "pooled", [x, 4], {})
    assert answer.runs is None and not answer.recompiles and "it runs as it is, not compiled anew" in str(answer)


def test_over_a_dump_from_another_process_a_torch_modules_frame_checks_types_by_name(tmp_path):
    """torch's modules are imported in any process: the ids a dump's guards recorded were
    checked as if this process had compiled, so ``check_type_id(L['args'], ..., 'builtins.tuple')``
    failed on a tuple and every frame in torch (a compiled ``nn`` module) "compiled anew"."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    made = subprocess.run([sys.executable, "-c", "import torch, unveil\n"
                           "seq = torch.nn.Sequential(torch.nn.Linear(4, 4), torch.nn.ReLU())\n"
                           "with unveil.prepare_debug('dump'):\n"
                           "    torch.compile(seq, backend='eager')(torch.randn(2, 4))\n"],
                          cwd=tmp_path, capture_output=True, text=True, env=env, timeout=600)
    assert made.returncode == 0, made.stderr
    done = subprocess.run([sys.executable, "-m", "unveil", "why-recompile", "dump", "inner", "torch.randn(2, 4)",
                           "--set", "fn=torch.nn.Sequential(torch.nn.Linear(4, 4), torch.nn.ReLU())"],
                          cwd=tmp_path, capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0 and verdict(done.stdout) == "=> compile 0/0 runs", done.stdout + done.stderr
    assert "assumed" not in done.stdout, done.stdout     # (torch's modules and functions are named alike here)


SCRIPT_WITHOUT_A_MAIN_GUARD = '''
import torch, unveil
@torch.compile(backend="eager")
def f(x, n):
    torch._dynamo.graph_break()
    return x * n
f(torch.ones(2), 1)               # before the block: f's compile is not in the dump
with unveil.prepare_debug("dump"):
    f(torch.ones(2), 2)
'''


def test_asking_over_a_dump_does_not_write_over_it_and_knows_what_it_lacks(tmp_path):
    """A script without a ``__main__`` guard runs whole when why-recompile loads its globals: its
    ``prepare_debug`` block wrote over the very dump being asked about.  And a function compiled
    before the block (only its resume function is in the dump) read "0 cache entries ...
    compiles anew" (a new-user trial)."""
    (tmp_path / "unguarded.py").write_text(SCRIPT_WITHOUT_A_MAIN_GUARD)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    made = subprocess.run([sys.executable, "unguarded.py"], cwd=tmp_path, capture_output=True, text=True, env=env,
                          timeout=600)
    assert made.returncode == 0, made.stderr
    before = {p.name: p.read_bytes() for p in (tmp_path / "dump").iterdir() if p.is_file()}
    resume = next(k for k in json.loads(before["index.json"])["functions"] if k["kind"] == "resume")["key"]

    def ask(function, call):
        return subprocess.run([sys.executable, "-m", "unveil", "why-recompile", "dump", function, call],
                              cwd=tmp_path, capture_output=True, text=True, env=env, timeout=300)
    done = ask("f", "torch.ones(2), 5")
    assert done.returncode == 2 and "f has no compile in dump: Dynamo compiled it before the dump began" \
        in done.stderr, done.stdout + done.stderr
    done = ask(resume, "[], [], None, torch.ones(2), 2")   # (torch 2.13: the nested-resume lists first)
    assert done.returncode == 0 and verdict(done.stdout).startswith("=> compile 1/1 runs"), done.stdout + done.stderr
    assert "the block does nothing while unveil runs its module's top-level code" in done.stderr
    after = {p.name: p.read_bytes() for p in (tmp_path / "dump").iterdir() if p.is_file()}
    assert after == before


FLAGGED = '''
import torch, unveil

class Config:
    USE_GELU = False

cfg = Config()

def act(x):
    return torch.nn.functional.gelu(x) if cfg.USE_GELU else x.relu()

if __name__ == "__main__":
    with unveil.prepare_debug("dump"):
        torch.compile(act, backend="eager")(torch.ones(2))
'''


def test_the_command_sets_an_attribute_of_a_global(tmp_path):
    """A flag of a config object the program changed is given as ``--set cfg.USE_GELU=True``;
    it was refused ("--set wants NAME=EXPR"), and replacing the whole object was the only way."""
    (tmp_path / "flagged.py").write_text(FLAGGED)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    made = subprocess.run([sys.executable, "flagged.py"], cwd=tmp_path, capture_output=True, text=True, env=env,
                          timeout=600)
    assert made.returncode == 0, made.stderr

    def ask(*more):
        return subprocess.run([sys.executable, "-m", "unveil", "why-recompile", "dump", "act", "torch.ones(2)", *more],
                              cwd=tmp_path, capture_output=True, text=True, env=env, timeout=300)
    done = ask()
    assert done.returncode == 0 and verdict(done.stdout) == "=> compile 0/0 runs", done.stdout + done.stderr
    done = ask("--set", "cfg.USE_GELU=True")
    assert done.returncode == 0 and verdict(done.stdout) == "=> no entry's guards pass: Dynamo compiles anew", \
        done.stdout + done.stderr
    assert "USE_GELU" in done.stdout
    done = ask("--set", "cfg.NO.SUCH=1")
    assert done.returncode == 2 and "cannot set cfg.NO.SUCH: AttributeError" in done.stderr, done.stderr
    done = ask("--set", "nothing.x=1")
    assert done.returncode == 2 and "the module has no global nothing" in done.stderr, done.stderr


RESET_INSIDE_THE_BLOCK = '''
import json, torch, unveil

@torch.compile(backend="eager")
def f(x):
    y = x.sin()
    torch._dynamo.graph_break()
    return y + 1

if __name__ == "__main__":
    with unveil.prepare_debug("dump"):
        f(torch.ones(2))
        f(torch.ones(3))          # 0/0 takes size 2, 0/1 any size
        torch._dynamo.reset()
        f(torch.ones(4))          # 0/0 again, after the reset: size 4 alone
    print(json.dumps({n: unveil.why_recompile(f, torch.ones(n)).runs for n in (3, 4)}))
'''


@pytest.fixture(scope="module")
def reset_dump(tmp_path_factory):
    """A program that resets Dynamo inside its prepare_debug block, run; and Dynamo's own
    answer at the block's end, ``{size: the compile id that runs, or None}``."""
    where = tmp_path_factory.mktemp("reset")
    (where / "resets.py").write_text(RESET_INSIDE_THE_BLOCK)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    made = subprocess.run([sys.executable, "resets.py"], cwd=where, capture_output=True, text=True, env=env,
                          timeout=600)
    assert made.returncode == 0, made.stderr
    return where, env, {int(n): runs for n, runs in json.loads(made.stdout.splitlines()[-1]).items()}


def _ask(where, env, *argv):
    return subprocess.run([sys.executable, "-m", "unveil", "why-recompile", "dump", *argv], cwd=where,
                          capture_output=True, text=True, env=env, timeout=300)


def test_over_a_dump_with_a_reset_the_entries_dynamo_holds_at_the_end_are_answered(reset_dump):
    """After ``torch._dynamo.reset()`` inside the block, Dynamo's compile ids start again
    from 0/0: the command looked for ``__guard_compile_0_0_for_`` in the file of the second
    0/0, which defines ``__guard_compile_0_0_reset1_for_f``, and crashed (StopIteration, a
    traceback); and it would have asked the entries the reset had emptied from Dynamo's cache
    (a new-user trial)."""
    where, env, live = reset_dump
    assert live == {3: None, 4: "0/0"}, live
    done = _ask(where, env, "f", "torch.ones(4)")
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.startswith("f: 1 cache entry, in the order Dynamo tries them\n"), done.stdout
    assert verdict(done.stdout) == "=> compile %s_reset1 runs" % live[4], done.stdout
    done = _ask(where, env, "f", "torch.ones(3)")
    assert done.returncode == 0, done.stdout + done.stderr
    assert live[3] is None and verdict(done.stdout) == "=> no entry's guards pass: Dynamo compiles anew", done.stdout
    assert "compile 0/0_reset1: fails" in done.stdout, done.stdout


def test_a_guards_file_unlike_what_the_index_says_is_a_one_line_error(reset_dump, tmp_path):
    """A guards file without the guard function the index leads to, or gone: one line and
    status 2, not a traceback."""
    where, env, _ = reset_dump
    shutil.copytree(where / "dump", tmp_path / "dump")
    index = json.loads((tmp_path / "dump" / "index.json").read_text())
    guards = next(a["file"] for a in index["artifacts"] if a["base"] == "f.compile_0_0_reset1.guards.py")
    path = tmp_path / "dump" / guards
    path.write_text(path.read_text().replace("__guard_compile_0_0_reset1_for_f", "__guard_renamed"))
    done = _ask(tmp_path, env, "f", "torch.ones(4)")
    assert done.returncode == 2 and done.stderr.startswith("unveil: error: ") and len(done.stderr.splitlines()) == 1, \
        done.stderr
    assert "defines no __guard_compile_0_0_reset1_for_f" in done.stderr, done.stderr
    path.unlink()
    done = _ask(tmp_path, env, "f", "torch.ones(4)")
    assert done.returncode == 2 and done.stderr.startswith("unveil: error: ") and len(done.stderr.splitlines()) == 1, \
        done.stderr
    assert "lists %s, which is not in it" % guards in done.stderr, done.stderr


def test_with_a_reset_the_full_code_dispatches_among_the_entries_dynamo_holds_at_the_end(reset_dump):
    """The full-code file's dispatch held the entries of before the reset too, which Dynamo's
    cache no longer held, two labelled 0/0, and its script ran "the guards of compile 0/0"
    twice; their guards files are still written."""
    where, env, live = reset_dump
    index = json.loads((where / "dump" / "index.json").read_text())
    guards = sorted(a["file"] for a in index["artifacts"] if a["kind"] == "guards" and a["function"] == "f")
    assert guards == ["f.compile_0_0.guards.py", "f.compile_0_0_reset1.guards.py", "f.compile_0_1.guards.py"], guards
    full_code = next(a["file"] for a in index["artifacts"] if a["kind"] == "full_code" and a["function"] == "f")
    text = (where / "dump" / full_code).read_text()
    assert re.findall(r"^# cache entry for compile (\S+) of", text, re.M) == ["0/0_reset1", "1/0_reset1"], text
    assert len(re.findall(r"^# resume function ", text, re.M)) == 1, text
    done = subprocess.run([sys.executable, full_code], cwd=where / "dump", capture_output=True, text=True, env=env,
                          timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr[-3000:]
    blocks = re.findall(r"^inputs made from the guards of compile (\S+):\n  guards: (.*)$", done.stdout, re.M)
    assert blocks == [("%s_reset1" % live[4], "%s_reset1 passes" % live[4])], done.stdout
    assert index["generation"] == 1


def test_a_frame_given_up_after_a_reset_is_named_by_its_label():
    """The compile that gave up on a frame is named as the dump's files name it: after a
    reset, ``0/0`` alone is the first generation's compile (the bare id was printed)."""
    from unveil.dynamo.guards.why import _given_up_in_dump
    last = {"compile_id": "0/0", "generation": 1, "skipped": {"because": {"reason": "a graph break in a loop"}}}
    assert _given_up_in_dump(last) == ("0/0_reset1", "a graph break in a loop")
    assert _given_up_in_dump(dict(last, generation=0))[0] == "0/0"


PATCHED_SUBMODULE = '''import json, sys
import torch, unveil


class Sub(torch.nn.Module):
    def forward(self, x):
        return x + 1


def doubled(x):
    return x * 2


class M(torch.nn.Module):
    def __init__(self, patched=False):
        super().__init__()
        self.sub = Sub()
        if patched:
            self.sub.forward = doubled

    def forward(self, x):
        return self.sub(x) - 1


if __name__ == "__main__":
    plain, patched = torch.compile(M(), backend="eager"), torch.compile(M(True), backend="eager")
    with unveil.prepare_debug(sys.argv[1]):
        plain(torch.ones(3))
        patched(torch.ones(3))
    json.dump({name: unveil.why_recompile(fn, torch.ones(3)).runs for name, fn in
               (("plain", plain), ("patched", patched))}, open(sys.argv[2], "w"))
'''


def test_over_a_dump_an_identity_check_compares_by_name_what_another_process_can_name(tmp_path):
    """A submodule's forward patched on one instance: Dynamo guards the code it runs by id.
    In another process that id means nothing; assumed to hold, it made the patched entry
    (tried first) run for the plain instance too.  Its name (``code doubled of FILE:LINE``)
    tells the two apart, as Dynamo's id did."""
    (tmp_path / "prog.py").write_text(PATCHED_SUBMODULE)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    made = subprocess.run([sys.executable, "prog.py", "dump", "live.json"], cwd=tmp_path, capture_output=True,
                          text=True, env=env, timeout=600)
    assert made.returncode == 0, made.stderr
    live = json.loads((tmp_path / "live.json").read_text())
    assert live == {"plain": "0/0", "patched": "0/1"}, live
    guards = (tmp_path / "dump" / "M.forward.compile_0_1.guards.py").read_text()
    assert "'code doubled of %s:10')" % (tmp_path / "prog.py") in guards, guards
    for name, call in (("plain", "M(), torch.ones(3)"), ("patched", "M(True), torch.ones(3)")):
        done = subprocess.run([sys.executable, "-m", "unveil", "why-recompile", "dump", "M.forward", call],
                              cwd=tmp_path, capture_output=True, text=True, env=env, timeout=300)
        assert done.returncode == 0, done.stderr
        assert verdict(done.stdout) == "=> compile %s runs" % live[name], done.stdout
        assert "assumed" not in done.stdout, done.stdout


class _Colour(__import__("enum").Enum):
    RED = 1


def _closure():
    def inner():
        return 1
    return inner


def test_what_an_identity_check_names_is_named_alike_in_any_process():
    from unveil.dynamo.guards.runtime import identity_name
    here = __name__
    assert identity_name(torch.nn) == "module torch.nn"
    assert identity_name(torch.nn.Linear) == "torch.nn.modules.linear:Linear"
    assert identity_name(torch.nn.functional.relu) == "torch.nn.functional:relu"
    assert identity_name(torch._C._get_tracing_state) == "torch._C:_get_tracing_state"   # a builtin's own name
    assert identity_name(len) == "builtins:len"
    assert identity_name(target) == "%s:target" % here
    assert identity_name(_Colour.RED) == "%s:_Colour.RED" % here
    assert identity_name(target.__code__) == "code target of %s:%d" % (__file__, target.__code__.co_firstlineno)
    inner = _closure()      # one of many functions of its code: named by the code, which another check assumes
    assert identity_name(inner) == "a function of code _closure.<locals>.inner of %s:%d" % (
        __file__, inner.__code__.co_firstlineno)
    assert identity_name(None) == "None" and identity_name(True) == "True"
    assert identity_name(torch.nn.Linear(2, 2)) is None and identity_name([1]) is None


ASSUMED_IDENTITY = '''
from unveil.dynamo.guards import runtime
from unveil.dynamo.guards.why import WhyRecompile, check_guard_source

runtime.ids_from_another_process()
guard = "def g(L, G):\\n    if not (%s):\\n        return False\\n    return True\\n"
make = lambda: (lambda: 1)
verdicts = [check_guard_source("0/1", guard % "check_obj_id(L['o'], 1)", "g", {"o": object()}, {}),
            check_guard_source("0/0", guard % "check_obj_id(L['f'], 2, %r)" % runtime.identity_name(make()), "g",
                               {"f": make()}, {})]
print(WhyRecompile("f", verdicts))
'''


def test_an_entry_that_runs_by_assumed_identities_is_said_to_and_what_runs_if_they_do_not_hold():
    done = subprocess.run([sys.executable, "-c", ASSUMED_IDENTITY], capture_output=True, text=True, timeout=300,
                          env=dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p)))
    assert done.returncode == 0, done.stderr
    assert verdict(done.stdout) == (
        "=> compile 0/1 runs, if its check assumed over a dump (check_obj_id(L['o'], 1)) holds; if not, compile 0/0 "
        "runs, if its check assumed over a dump (check_obj_id(L['f'], 2, 'a function of code <lambda>.<locals>.<lambda> of "
        "<string>:7')) holds; if not, no entry's guards pass: Dynamo compiles anew"), done.stdout
    assert "(assumed to hold, as they compare the compiling process's objects: check_obj_id(L['o'], 1))" \
        in done.stdout, done.stdout


def _breaks_inside(x):
    torch._dynamo.graph_break()
    return x + 1


def calls_one_that_breaks(x):
    return _breaks_inside(x * 2) * 3


def test_over_a_dump_a_reached_frames_recompile_names_its_stack_slots_as_the_user_wrote_them(tmp_path):
    """Dynamo's reason for a resume function's recompile names its stack slot
    (``tensor '___stack0' size mismatch``); the frames reached say what the user's code put there."""
    from unveil.dynamo.guards.why import why_recompile_in_dump
    torch._dynamo.reset()
    fn = torch.compile(calls_one_that_breaks, backend="eager", dynamic=False)
    with unveil.prepare_debug(tmp_path):
        fn(torch.ones(3))
        fn(torch.ones(4))
    text = str(why_recompile_in_dump(str(tmp_path), "calls_one_that_breaks", (torch.ones(4),), {}))
    anew = [line for line in text.splitlines() if "was compiled anew" in line and "___stack0" in line]
    assert anew and all("; ___stack0 is the value of `_breaks_inside(x * 2)` (line %d) at the graph break"
                           % (calls_one_that_breaks.__code__.co_firstlineno + 1) in line for line in anew), text
