"""``unveil.why_recompile`` and ``unveil why-recompile`` against Dynamo's own decision, on
every program of ``programs.py`` (functions, methods, closures over a model or an
optimizer) and its recompile probes: the calls it made, and each with one input
changed (another dtype, another size, a flag flipped).

For each probe, Dynamo's decision is read from its own guard manager (``entry.check``
on the frame's locals, each entry in Dynamo's order) with the cache as the program left
it, and then by calling the compiled program (did it add a cache entry?).  The API
must give every entry's verdict and the entry that runs; the command, run in a new
process on the dump with the probe written as Python (and ``--set`` for a variable of
an enclosing function), must name the same entry, or say that Dynamo compiles anew,
or that it gave up on the frame.
"""
import json
import os
import re
import subprocess
import sys

import pytest
import torch

import unveil
from unveil.dynamo.adapter.cache import cache_entries
from unveil.dynamo.adapter.compile_outcomes import given_up_on

from programs import PROGRAM_KWARGS, PROGRAMS
from test_prepare_debug import LOOKUP_ERRORS, frame_locals, variants

#: runs the command once per probe in one process: ``[[argv], ...]`` -> each output, separated
DRIVER = '''import contextlib, io, json, sys
from unveil import cli
for argv in json.loads(sys.argv[1]):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = cli.main(argv)
    print(json.dumps([status, out.getvalue(), err.getvalue()]))
'''


def source_of(value):
    """Python source (in programs.py's globals, torch imported) for a probe's value, as far
    as guards see it: a tensor's dtype, size, requires_grad and dynamic marks."""
    if isinstance(value, torch.Tensor):
        text = "torch.zeros(%r, dtype=%s)" % (tuple(value.shape), value.dtype)
        if value.requires_grad:
            text += ".requires_grad_()"
        if getattr(value, "_dynamo_dynamic_indices", None):
            text = "_marked_dynamic(%s)" % text
        return text
    if isinstance(value, dict):
        return "{%s}" % ", ".join("%r: %s" % (k, source_of(v)) for k, v in value.items())
    if isinstance(value, (list, tuple)):
        inner = ", ".join(source_of(v) for v in value)
        return "[%s]" % inner if isinstance(value, list) else "(%s,)" % inner
    text = repr(value)
    assert eval(text) == value, text
    return text


def _cell(name):
    return "(lambda f: f.__closure__[f.__code__.co_freevars.index(%r)].cell_contents)(_unveil_made)" % name


def _compiled_of(program):
    torch._dynamo.reset()
    fn, _ = program.make()
    compiled = torch.compile(fn, backend=program.backend, dynamic=program.dynamic, fullgraph=program.fullgraph)
    return fn, compiled


def _probes(program, calls):
    """The calls, and each with one input changed, that the program's function runs
    without an error (tried on a fresh instance, run eagerly)."""
    kwargs = PROGRAM_KWARGS.get(program.name, {})
    out = []
    for args in calls:
        out.append((args, kwargs))
        for k, value in enumerate(args):
            for other in variants(value):
                out.append((args[:k] + (other,) + args[k + 1:], kwargs))
    fresh, _ = program.make()
    return [(args, kw) for args, kw in out if _runs(fresh, args, kw)]


def _runs(fn, args, kwargs):
    try:
        fn(*args, **kwargs)
    except Exception:  # noqa: BLE001 -- a probe the program itself cannot take is no probe
        return False
    return True


def _decision(entries, given_up, f_locals):
    """What Dynamo does: ('runs', compile id), ('compiles anew',) or ('as it is',)."""
    if given_up is not None:
        return ("as it is",)
    passing = next((e.compile_id for e in entries if e.check(f_locals)), None)
    return ("runs", passing) if passing else ("compiles anew",)


def _answer(text):
    last = next(line for line in text.splitlines() if line.startswith("=> "))    # (reached frames follow it)
    # (over a dump, "runs, if its checks assumed over a dump (...) hold; if not, ...": the entry named first)
    match = re.match(r"^=> compile (\S+) runs(?:, if .*)?$", last)
    if match:
        return ("runs", match.group(1))
    if last.startswith("=> no entry's guards pass: Dynamo compiles anew"):
        return ("compiles anew",)
    if last.startswith("=> Dynamo gave up on this frame"):
        return ("as it is",)
    return ("?", last)


@pytest.mark.parametrize("program", PROGRAMS, ids=repr)
def test_the_answer_is_dynamos_decision(program, tmp_path):
    with torch._dynamo.config.patch(recompile_limit=1000):
        check_program(program, tmp_path)


def _as_in_a_process_of_its_own():
    """Forget the model classes transformers registered for the programs run before: its
    registry (``output_capturing._CAN_RECORD_REGISTRY``) lists each class in the order
    models were built, and Dynamo guards on that order (``list(dict.keys(...))[0] ==
    "<class '...GPT2Model'>"``).  The command's new process builds only this program's
    model; so does a user's program.  Without this, the guards of every HuggingFace
    program after the first failed there for the models built before it in this one."""
    capturing = sys.modules.get("transformers.utils.output_capturing")
    if capturing is not None:
        capturing._CAN_RECORD_REGISTRY.clear()


def check_program(program, tmp_path):
    index = PROGRAMS.index(program)
    _as_in_a_process_of_its_own()
    with unveil.prepare_debug(tmp_path) as session:
        fn, compiled = _compiled_of(program)
        calls = program.calls()
        kwargs = PROGRAM_KWARGS.get(program.name, {})
        for args in calls:
            out = compiled(*args, **kwargs)
            if program.train:
                out.float().sum().backward()
    assert session.failures == [], session.failures
    code, _ = frame_locals(fn, calls[0], kwargs)
    entries = cache_entries(code)
    given_up = given_up_on(code)
    probes = _probes(program, calls)

    # the API, and Dynamo's guard manager, on the cache as the program left it
    decisions = []
    for args, kw in probes:
        _, f_locals = frame_locals(fn, args, kw)
        decision = _decision(entries, given_up, f_locals)
        why = unveil.why_recompile(compiled, *args, **kw)
        if given_up is None:
            assert [v.passes for v in why.verdicts] == [e.check(f_locals) for e in entries], str(why)
            # reading a value may fail only where the probe lacks it (a dict key, an item, an
            # attribute) and Dynamo's guard fails too: never a TypeError of our guard text
            misread = [(v.compile_id, v.error) for v in why.verdicts
                       if v.error is not None and (v.passes or not v.error.startswith(LOOKUP_ERRORS))]
            assert misread == [], misread
        assert _answer(str(why)) == decision, (decision, str(why))
        decisions.append(decision)

    # the command, in a new process, on the dump
    dumped = json.loads((tmp_path / "index.json").read_text())
    key = next(f["key"] for f in dumped["functions"]
               if (f["name"], f["line"]) == (code.co_name, code.co_firstlineno) and f["kind"] == "function")
    settings = []
    if code.co_freevars:
        settings = ["--set", "_unveil_made=PROGRAMS[%d].make()[0]" % index]
        if program.stateful:         # its model and optimizer as the program's calls left them
            settings += ["--set", "_unveil_ran=[_unveil_made(*a) for a in PROGRAMS[%d].calls()]" % index]
        for name in code.co_freevars:
            settings += ["--set", "%s=%s" % (name, _cell(name))]
    receiver = "%s(), " % type(fn).__name__ if isinstance(fn, torch.nn.Module) else ""
    argvs = []
    for args, kw in probes:
        call = receiver + ", ".join([source_of(a) for a in args] + ["%s=%s" % (k, source_of(v)) for k, v in kw.items()])
        argvs.append(["why-recompile", str(tmp_path), key, call] + settings)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    done = subprocess.run([sys.executable, "-c", DRIVER, json.dumps(argvs)], cwd=os.path.dirname(__file__),
                          capture_output=True, text=True, env=env, timeout=1800)
    assert done.returncode == 0, done.stderr[-3000:]
    results = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("[")]
    assert len(results) == len(argvs), done.stdout[-3000:]
    for argv, decision, (status, out, err) in zip(argvs, decisions, results):
        assert status == 0, (argv, err)
        assert _answer(out) == decision, (argv, decision, out)

    # and Dynamo's decision when the program is called: a new cache entry exactly when said
    dynamo_failed = []
    for k, (args, kw) in enumerate(probes):
        why = unveil.why_recompile(compiled, *args, **kw)
        before = len(cache_entries(code))
        try:
            out = compiled(*args, **kw)
        except torch._dynamo.exc.InternalTorchDynamoError:
            dynamo_failed.append(k)                # (checked below: Dynamo fails so without unveil)
            continue
        if program.train and isinstance(out, torch.Tensor) and out.requires_grad:
            out.float().sum().backward()
        assert (len(cache_entries(code)) > before) == why.recompiles, str(why)
    if dynamo_failed:
        assert _probes_dynamo_fails_plainly(program, calls, kwargs, probes) == dynamo_failed


def _probes_dynamo_fails_plainly(program, calls, kwargs, probes):
    """The probes torch.compile itself, without unveil, fails on when called in the same
    order after the program's calls: torch 2.14 and 2.15 raise "Unknown format code 'f' for
    object of type 'str'" compiling fstring_item_break's resume function anew (a dtype or a
    size changed), 2.13 does not.  A call Dynamo cannot take is no probe of ours."""
    _, compiled = _compiled_of(program)
    for call in calls:
        compiled(*call, **kwargs)
    failed = []
    for k, (args, kw) in enumerate(probes):
        try:
            compiled(*args, **kw)
        except torch._dynamo.exc.InternalTorchDynamoError:
            failed.append(k)
    return failed
