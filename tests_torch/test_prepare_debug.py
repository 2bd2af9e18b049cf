"""prepare_debug on real torch.compile programs (Python 3.11, torch 2.13.0, CPU).

Each program runs three times: plainly, inside ``prepare_debug``, and inside
``prepare_debug(run_dumped=True)`` (the transformed code recompiled from the
dumped files runs in place of Dynamo's).  Outputs and gradients must agree;
the dump must be complete, every file must compile, nothing may have failed,
and each dumped guard must agree with Dynamo's own on passing and failing inputs.
Dynamo's counters (frames compiled, graphs, captured calls, graph breaks) must be those
of the plain run under ``prepare_debug`` and under ``debug()``: unveil changes where code
runs from, never what Dynamo compiles.
"""
import ast
import collections
import contextlib
import dis
import inspect
import json
import os
import re
import subprocess
import sys

import pytest
import torch

import unveil
from torch._dynamo.utils import counters

from unveil.dynamo.adapter.cache import cache_entries, guard_globals
from unveil.dynamo.dump.script_runtime import with_cells
from unveil.dynamo.guards.why import check_guard_source
from unveil.bytecode.code_objects import argument_count
from unveil.dump_index import label_of

from programs import PROGRAM_KWARGS, PROGRAMS

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "benchmarks"))
from dynamo_suite_plugin import snapshot as dynamo_counters  # noqa: E402  (the groups the suite compares)

#: the errors a guard's read may raise on an input without the value (a dict without the key)
LOOKUP_ERRORS = ("KeyError:", "IndexError:", "AttributeError:")


def execute(program):
    torch._dynamo.reset()
    fn, params = program.make()
    compiled = torch.compile(fn, backend=program.backend, dynamic=program.dynamic, fullgraph=program.fullgraph)
    kwargs = PROGRAM_KWARGS.get(program.name, {})
    outs, grads, calls = [], [], program.calls()
    for args in calls:
        for p in params:
            p.grad = None
        out = compiled(*args, **kwargs)
        if program.train:
            out.float().sum().backward()
            grads.append([p.grad.clone() for p in params if p.grad is not None])
        outs.append(out.detach())
    return fn, outs, grads, calls


def assert_same(a, b):
    assert len(a) == len(b)
    for x, y in zip(a, b):
        if isinstance(x, list):
            assert_same(x, y)
        else:
            torch.testing.assert_close(x, y, rtol=1e-5, atol=1e-6)


def frame_locals(fn, args, kwargs):
    """The locals Dynamo's guard sees on entry to the compiled frame."""
    if isinstance(fn, torch.nn.Module):
        bound = inspect.signature(type(fn).forward).bind(fn, *args, **kwargs)
        bound.apply_defaults()
        return type(fn).forward.__code__, dict(bound.arguments)
    bound = inspect.signature(fn).bind(*args, **kwargs)
    bound.apply_defaults()
    f_locals = dict(bound.arguments)
    for name, cell in zip(fn.__code__.co_freevars, fn.__closure__ or ()):
        f_locals[name] = cell.cell_contents
    return fn.__code__, f_locals


def variants(value):
    """Inputs that differ from ``value`` in dtype or shape (guards should notice)."""
    if isinstance(value, torch.Tensor):
        if value.is_floating_point():
            yield value.double()
            yield torch.cat([value.reshape(-1), value.reshape(-1)])
        else:
            yield value.float()
    elif isinstance(value, dict):
        for key, item in value.items():
            for other in variants(item):
                yield dict(value, **{key: other})
            if isinstance(item, bool):
                yield dict(value, **{key: not item})
    elif isinstance(value, (list, tuple)) and value:
        for other in variants(value[0]):
            yield type(value)([other, *value[1:]])


def check_guards(program, fn, calls, dump_dir, index):
    kwargs = PROGRAM_KWARGS.get(program.name, {})
    code, _ = frame_locals(fn, calls[0], kwargs)
    entries = cache_entries(code)
    assert entries, "no cache entry for the compiled frame"
    guard_files = {(a["compile_id"]): a for a in index["artifacts"] if a["kind"] == "guards"}
    checks = []
    for args in calls:
        _, base = frame_locals(fn, args, kwargs)
        checks.append(base)
        for name, value in base.items():
            for other in variants(value):
                checks.append(dict(base, **{name: other}))
    outcomes = set()
    for entry in entries:
        art = guard_files[entry.compile_id]
        assert art["ok"], art.get("untranslated")
        namespace = {}
        path = os.path.join(dump_dir, art["file"])
        source = open(path).read()
        exec(compile(source, path, "exec"), namespace)
        name, guard = next((k, v) for k, v in namespace.items() if k.startswith("__guard_"))
        g = guard_globals(entry)
        for f_locals in checks:
            expected = entry.check(f_locals)
            assert guard(f_locals, g) == expected, (entry.compile_id, f_locals.keys())
            outcomes.add(expected)
            # the guard function turns a failed read into False (conditions.py's except): here it
            # may only be a value the input lacks, never an error of the guard's own text
            read = check_guard_source(entry.compile_id, source, name, f_locals, g)
            assert read.error is None or not expected and read.error.startswith(LOOKUP_ERRORS), \
                (entry.compile_id, read.condition, read.error)
    expected = {True, False} if program.guards_read_inputs else {True}
    assert outcomes == expected, "the guard checks saw %s" % outcomes


def check_full_code(program, fn, calls, dump_dir, index, expected):
    """The full-code module's dispatch function, called like the compiled function, gives
    the same results (a closure's, given the cells of the function it stands for).  A
    stateful program runs on a new instance (whose objects fail the identity guards:
    the dispatch runs the original), with autograd on, as the program needs it."""
    kwargs = PROGRAM_KWARGS.get(program.name, {})
    if program.stateful:
        torch._dynamo.reset()
        fn = program.make()[0]
    code, _ = frame_locals(fn, calls[0], kwargs)
    key = next(f["key"] for f in index["functions"]
               if f["name"] == code.co_name and f["line"] == code.co_firstlineno and f["kind"] == "function")
    art = next(a for a in index["artifacts"] if a["kind"] == "full_code" and a["function"] == key)
    path = os.path.join(dump_dir, art["file"])
    namespace = {"__name__": "unveil_full_code"}
    exec(compile(open(path).read(), path, "exec"), namespace)
    dispatch = namespace[code.co_name]
    if code.co_freevars:
        dispatch = with_cells(dispatch, fn)
    receiver = (fn,) if isinstance(fn, torch.nn.Module) else ()
    torch.manual_seed(1)                  # the dropout masks of the run (programs.py seeds so)
    with contextlib.nullcontext() if program.stateful else torch.no_grad():
        outs = [dispatch(*receiver, *args, **kwargs).detach() for args in calls]
    assert_same([e.detach() for e in expected], outs)


@contextlib.contextmanager
def code_run(filenames):
    """Collect the file name of every Python function called in this thread.  (The
    profile function runs with Dynamo off: Dynamo would compile it, one frame more in its
    counters than in the plain run.)"""
    def profile(frame, event, arg):
        if event == "call":
            filenames.add(frame.f_code.co_filename)
    sys.setprofile(torch._dynamo.disable(profile))
    try:
        yield
    finally:
        sys.setprofile(None)


#: the kinds of dumped file whose code must have run, by backend: AOT Autograd traces
#: Dynamo's graph with an interpreter, not its forward; Inductor compiles the AOT graphs.
#: (A backward graph runs only if the loss depends on the graph's outputs: checked apart.)
RUN_KINDS = {"eager": {"transformed_code", "graph"},
             "aot_eager": {"transformed_code", "aot_forward", "aot_inference"},
             "inductor": {"transformed_code", "inductor_output"}}


def _slots(code):
    """3.11+: the names of a frame's slots, in order: locals, cells that are not arguments,
    free variables."""
    return list(code.co_varnames) + [c for c in code.co_cellvars if c not in code.co_varnames] + list(code.co_freevars)


_KIND_FLAGS = inspect.CO_VARARGS | inspect.CO_VARKEYWORDS | inspect.CO_GENERATOR | inspect.CO_COROUTINE


def check_frame_layout(session):
    """What Dynamo's frame evaluation and resume machinery rely on (torch's eval_frame.c
    copies a frame's arguments by position and its cells and free variables from the end
    of its slots; convert_frame checks arguments, cells and free variables by name; resume
    functions are found and called by name, with Dynamo's calling convention), kept by each
    code object recompiled from the dump that ran in place of Dynamo's."""
    assert session.aliases
    for ours, dynamos in session.aliases.values():
        n = argument_count(dynamos)
        assert ours.co_varnames[:n] == dynamos.co_varnames[:n], dynamos.co_name
        assert [getattr(ours, f) for f in ("co_argcount", "co_posonlyargcount", "co_kwonlyargcount")] == \
            [getattr(dynamos, f) for f in ("co_argcount", "co_posonlyargcount", "co_kwonlyargcount")]
        assert ours.co_flags & _KIND_FLAGS == dynamos.co_flags & _KIND_FLAGS
        assert (ours.co_cellvars, ours.co_freevars) == (dynamos.co_cellvars, dynamos.co_freevars)
        tail = len(_slots(dynamos)) - len(dynamos.co_varnames)
        assert _slots(ours)[len(_slots(ours)) - tail:] == _slots(dynamos)[len(_slots(dynamos)) - tail:]
        assert (ours.co_name, ours.co_qualname) == (dynamos.co_name, dynamos.co_qualname)
        made = [i.argval for i in dis.get_instructions(ours) if i.opname == "MAKE_CELL"]
        assert sorted(made) == sorted(dynamos.co_cellvars), dynamos.co_name


def check_ran_from_the_dump(program, session, ran):
    """Everything the dump holds of the kinds that run, ran from its file; Dynamo's
    frames of each resume function are frames of the code recompiled from its file."""
    with open(os.path.join(session.dump.path, "index.json")) as fh:
        index = json.load(fh)
    kinds = RUN_KINDS[program.backend]
    expected = {os.path.join(session.dump.path, a["file"]) for a in index["artifacts"] if a["kind"] in kinds}
    assert (expected or program.skipped) and expected <= ran, sorted(expected - ran)
    if program.backend == "aot_eager":
        assert any("aot_" in os.path.basename(path) for path in expected), "no AOT graph ran"
    if program.backend == "aot_eager" and program.train:
        backward = {os.path.join(session.dump.path, a["file"]) for a in index["artifacts"] if a["kind"] == "aot_backward"}
        assert backward & ran, "no AOT backward graph ran from its file"
    for fn in session.functions.values():
        if fn.is_resume:         # Dynamo's frames of it, and what it compiled, are ours
            assert fn.frame_code.co_filename == os.path.join(session.dump.path, fn.resume_file), fn.key
            assert all(comp.code is fn.frame_code for comp in fn.compiles if comp.transformed is not None)
    if not program.skipped:
        check_frame_layout(session)


def check_explanations(program, fn, index, dynamo_breaks):
    """Every break Dynamo counted is in the index (it does not count all: a data-dependent
    jump is not); a compiled frame that made resume functions broke, and each carries that
    break, whose user stack passes through the line Dynamo named the
    resume function after; a skipped frame is listed with why."""
    ours = collections.Counter(c["graph_break"]["reason"] for c in index["compiles"] if c["graph_break"])
    assert set(dynamo_breaks) <= set(ours), (dynamo_breaks, ours)
    assert bool(ours) == (program.graph_breaks or program.skipped), ours
    compiled = {(c["function"], c["compile_id"]): c for c in index["compiles"] if c["compiled"]}
    for comp in compiled.values():      # (a break inside a try makes no resume function)
        assert comp["graph_break"] or not comp["resume_functions"], comp
    for entry in index["functions"]:
        if entry["kind"] == "resume":
            made_at = next(c for c in index["compiles"] if entry["key"] in c["resume_functions"])
            assert entry["graph_break"] == made_at["graph_break"], entry
            line = int(entry["name"].rpartition("_at_")[2])
            assert line in [frame["line"] for frame in entry["graph_break"]["user_stack"]], entry
            assert entry["continues"]["line"] and entry["continues"]["source"], entry
    skipped = {c["function"] for c in index["skipped_frames"]}
    name = getattr(fn, "__name__", "forward")      # a module: its forward
    top = next((f["key"] for f in index["functions"] if f["name"] == name), None)
    assert (top in skipped) == program.skipped, skipped
    for comp in index["skipped_frames"]:     # (a break in a layer inside an HF encoder's loop
        why = comp["skipped"]               # skips the encoder's frame)
        assert why["reason"] and why["location"]["line"] and why["because"]["reason"], why


@pytest.mark.parametrize("program", PROGRAMS, ids=repr)
def test_program(program, tmp_path):
    counters.clear()
    _, plain, plain_grads, _ = execute(program)
    plain_counters = dynamo_counters()

    dump_dir = tmp_path / "dump"
    counters.clear()
    with unveil.prepare_debug(dump_dir) as session:
        fn, dumped, dumped_grads, calls = execute(program)
    assert dynamo_counters() == plain_counters      # prepare_debug changes nothing Dynamo does
    dynamo_breaks = collections.Counter({reason.strip().splitlines()[0]: n
                                         for reason, n in counters["graph_break"].items()})
    assert_same(plain, dumped)
    assert_same(plain_grads, dumped_grads)

    index = json.loads((dump_dir / "index.json").read_text())
    assert index["schema"] == "unveil.dump/1"
    assert index["failures"] == [], index["failures"]
    kinds = {a["kind"] for a in index["artifacts"]}
    if program.skipped:
        top = next(f for f in index["functions"] if f["name"] == fn.__name__)
        assert top["compiles"] == [] and top["compiles_without_code"], top
        assert kinds == set(), kinds
    else:
        assert {"transformed_code", "guards", "graph", "full_code"} <= kinds, kinds
    if program.graph_breaks:
        assert "resume_function" in kinds
    if program.backend in ("aot_eager", "inductor") and program.train:
        assert {"aot_forward", "aot_backward"} <= kinds
    if program.backend == "inductor":
        assert "inductor_output" in kinds
    for art in index["artifacts"]:
        assert art["ok"], (art, art.get("untranslated"), art.get("error"))
        assert (dump_dir / art["file"]).exists()
        if art["kind"] in ("transformed_code", "resume_function"):
            # structured, not the state machine (neither its loop nor, for loop-free code,
            # its stack slots): Dynamo's stack values become temporaries
            text = (dump_dir / art["file"]).read_text()
            assert "__state = " not in text and not re.search(r"^ *__s\d+ = ", text, re.M), art["file"]
            # numbered from __t0 even where a structuring attempt without them failed first
            temps = {int(n) for n in re.findall(r"\b__t(\d+)\b", text)}
            assert temps == set(range(len(temps))), (art["file"], sorted(temps))
            # Dynamo's list shuffling written as the resume call it amounts to (readable.py)
            assert ".__iadd__(" not in text and not re.search(r"\[-?\d*:-?\d*\] = |\(\*\[", text), art["file"]
    for fn_entry in index["functions"]:
        compiled = {label_of(a) for a in index["artifacts"]
                    if a["function"] == fn_entry["key"] and a["kind"] == "transformed_code"}
        assert compiled == set(fn_entry["compiles"])
    for path in dump_dir.glob("*.py"):
        compile(path.read_text(), str(path), "exec")
    check_explanations(program, fn, index, dynamo_breaks)
    if not program.skipped:
        check_guards(program, fn, calls, dump_dir, index)
        check_full_code(program, fn, calls, dump_dir, index, plain)
    assert session.failures == []

    ran = set()
    counters.clear()
    with code_run(ran), unveil.debug(tmp_path / "debug") as session:
        _, rerun, rerun_grads, _ = execute(program)
    assert session.failures == [], session.failures
    assert dynamo_counters() == plain_counters      # nor does debug(), running the dumped code
    assert_same(plain, rerun)
    assert_same(plain_grads, rerun_grads)
    check_ran_from_the_dump(program, session, ran)


def test_a_call_dynamo_makes_inside_its_own_try_stays_in_the_text(tmp_path):
    """Dynamo calls ``print`` inside the try it builds for ``with torch.no_grad()``, with
    the function and argument pushed before the try, and leaves the result on the stack
    after it.  A try body that leaves a value the structurer then dropped would lose the
    call from the transformed code, and the tensor results would not show it; the
    value is handed on through a temporary."""
    program = next(p for p in PROGRAMS if p.name == "break_in_with_and_try")
    with unveil.prepare_debug(tmp_path):
        execute(program)
    index = json.loads((tmp_path / "index.json").read_text())
    texts = [(tmp_path / a["file"]).read_text() for a in index["artifacts"]
             if a["kind"] == "transformed_code" and a["function"].startswith("break_inside_with_and_try")]
    assert texts and all("'inside no_grad'" in t for t in texts), texts


SCRIPT_PROGRAMS = ["arith_fullgraph", "print_break", "data_dependent_if", "chained_breaks", "recompile_dtype",
                   "dynamic_shapes", "inductor_fn", "module_forward", "module_train_aot_eager", "no_grad", "kw_only"]


@pytest.mark.parametrize("name", SCRIPT_PROGRAMS)
def test_a_full_code_file_runs_as_a_script_in_a_new_process(name, tmp_path):
    """In a new process the user's module is loaded from its file and the compiled graphs
    from their dumped files: on inputs made from each entry's guards, that entry's guard
    passes (object identities assumed, the ids being another process's), the dispatch
    runs, and the entry's transformed code gives what the dispatch gives.  A method's
    ``self`` is an instance of the class its type guard names, made without arguments.)"""
    program = next(p for p in PROGRAMS if p.name == name)
    with unveil.prepare_debug(tmp_path) as session:
        fn, _, _, _ = execute(program)
    assert session.failures == []
    index = json.loads((tmp_path / "index.json").read_text())
    for art in index["artifacts"]:
        if art["kind"] != "full_code":
            continue
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
        done = subprocess.run([sys.executable, art["file"]], cwd=tmp_path, capture_output=True, text=True,
                              env=env, timeout=300)
        assert done.returncode == 0, done.stdout + done.stderr[-3000:]
        blocks = re.findall(r"^inputs made from the guards of compile (\S+):\n  guards: (.*)$", done.stdout, re.M)
        assert blocks, done.stdout
        for cid, verdicts in blocks:
            assert "%s passes" % cid in verdicts.split(", "), done.stdout
        ran = re.findall(r"^  transformed code of compile \S+: .*, (the same values|values that differ)$",
                         done.stdout, re.M)
        assert len(ran) == len(blocks) and set(ran) == {"the same values"}, done.stdout


class NeedsAWidth(torch.nn.Module):
    def __init__(self, width):
        super().__init__()
        self.width = width

    def forward(self, x):
        return x * self.width


def test_a_methods_self_that_cannot_be_made_is_said_not_run(tmp_path):
    model = NeedsAWidth(3)
    torch._dynamo.reset()
    with unveil.prepare_debug(tmp_path) as session:
        torch.compile(model, backend="eager")(torch.ones(2))
    assert session.failures == []
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    done = subprocess.run([sys.executable, "NeedsAWidth.forward.full_code.py"], cwd=tmp_path, capture_output=True,
                          text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr[-3000:]
    assert re.search(r"^compile \S+: not run: cannot make self \(test_prepare_debug.NeedsAWidth\(\) raised "
                     r"TypeError: .*width.*\)$", done.stdout, re.M), done.stdout


class ScaledAfterABreak(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(4, 2)

    def forward(self, x, n=1):
        h = self.fc(x)
        print("break")              # n is read only after the break: forward's guards never check it
        return h * n


def test_a_parameter_no_guard_checks_takes_its_default_in_the_script(tmp_path):
    """An entry whose guards do not check ``n`` runs for any ``n``: the script calls it with
    ``n``'s default, where it said "no recorded value for n" and ran nothing."""
    model = ScaledAfterABreak()
    torch._dynamo.reset()
    with unveil.prepare_debug(tmp_path) as session:
        compiled = torch.compile(model, backend="eager")
        compiled(torch.ones(3, 4))
        compiled(torch.ones(5, 4, dtype=torch.float64).float(), n=2)
    assert session.failures == []
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    done = subprocess.run([sys.executable, "ScaledAfterABreak.forward.full_code.py"], cwd=tmp_path,
                          capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr[-3000:]
    assert "not run" not in done.stdout, done.stdout
    ran = re.findall(r"^  transformed code of compile \S+: .*, (the same values|values that differ)$",
                     done.stdout, re.M)
    assert ran and set(ran) == {"the same values"}, done.stdout


class DropsInTraining(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(8, 8)
        self.drop = torch.nn.Dropout(0.5)

    def forward(self, x):
        return self.drop(self.fc(x))


def test_the_script_runs_the_dispatch_and_the_transformed_code_on_the_same_random_numbers(tmp_path):
    """A model in training with dropout: the script's two runs drew different random numbers,
    and it printed "values that differ" of code that computes the same (a new-user trial)."""
    model = DropsInTraining().train()
    torch._dynamo.reset()
    with unveil.prepare_debug(tmp_path) as session:
        torch.compile(model, backend="eager")(torch.ones(4, 8))
    assert session.failures == []
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    done = subprocess.run([sys.executable, "DropsInTraining.forward.full_code.py"], cwd=tmp_path,
                          capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr[-3000:]
    ran = re.findall(r"^  transformed code of compile \S+: .*, (the same values|values that differ)$",
                     done.stdout, re.M)
    assert ran and set(ran) == {"the same values"}, done.stdout


def prints_between_two_graphs(x):
    x = x * 2
    print("break")              # Dynamo calls print through the builtins' namespace it installs
    return x + 1


def test_the_transformed_code_lists_every_global_dynamo_created_that_it_reads(tmp_path):
    """The header's "Globals Dynamo created" names each global of Dynamo's making that the
    code reads; the builtins' namespace (``__builtins_dict___N``) was left out."""
    torch._dynamo.reset()
    with unveil.prepare_debug(tmp_path) as session:
        torch.compile(prints_between_two_graphs, backend="eager")(torch.ones(2))
    assert session.failures == []
    path = next(tmp_path.glob("prints_between_two_graphs.compile_0_0.transformed.py"))
    text = path.read_text()
    listed = re.search(r"^# Globals Dynamo created: (.*)$", text, re.M).group(1).split(", ")
    read = {node.id for node in ast.walk(ast.parse(text)) if isinstance(node, ast.Name)}
    made = {name for name in read if name.startswith(("__builtins_dict__", "__compiled_fn", "__resume_at"))}
    assert any(name.startswith("__builtins_dict__") for name in made), sorted(read)
    assert made <= set(listed), (made, listed)


def sine_of_double(x):
    return (x * 2).sin()


def test_inductors_files_say_which_graph_they_are_the_code_of(tmp_path):
    """In training Inductor writes the forward graph's code and then the backward's: each
    file's first line says which (the second file read "inductor output for forward", the
    function's name, though it holds the backward pass)."""
    torch._dynamo.reset()
    with unveil.prepare_debug(tmp_path) as session:
        torch.compile(sine_of_double, backend="inductor")(torch.ones(3, requires_grad=True)).sum().backward()
    assert session.failures == []
    heads = {path.name: path.read_text().splitlines()[0]
             for path in tmp_path.glob("sine_of_double.compile_0_0.inductor_output*.py")}
    assert sorted(heads.values()) == [
        "# inductor output of the %s graph for sine_of_double (compile 0/0), made from Dynamo's graph "
        "(sine_of_double.compile_0_0.graph.py)" % graph for graph in ("backward", "forward")], heads


def test_a_closures_full_code_run_as_a_script_says_its_free_variables_have_no_value(tmp_path):
    """A closure's free variables (an optimizer step's model and optimizer) have no
    recorded form in another process: the script says so instead of running the step
    over placeholders."""
    program = next(p for p in PROGRAMS if p.name == "sgd_step")
    with unveil.prepare_debug(tmp_path) as session:
        step = execute(program)[0]      # alive: Dynamo drops an entry whose guarded objects die
    assert session.failures == [] and step
    index = json.loads((tmp_path / "index.json").read_text())
    art = next(a for a in index["artifacts"] if a["kind"] == "full_code" and a["function"].endswith("make.step"))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    done = subprocess.run([sys.executable, art["file"]], cwd=tmp_path, capture_output=True, text=True, env=env,
                          timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr[-3000:]
    assert re.search(r"^compile 0/0: not run: no recorded value for (x, )?model, opt ", done.stdout, re.M), done.stdout


@pytest.mark.parametrize("within", [unveil.prepare_debug, unveil.debug])
def test_an_empty_dump_directory_is_refused_in_one_line(within):
    """``prepare_debug("")`` dumped into the current directory, unsaid (a new-user trial)."""
    with pytest.raises(ValueError, match=r"^the dump directory '' names no directory: give a path \('\.' for the "
                                         r"current one\)$"):
        with within(""):
            pass
