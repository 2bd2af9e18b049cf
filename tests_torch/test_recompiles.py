"""Recompile reasons in the dump, against Dynamo's own ``recompiles`` log.

Each case calls a compiled function twice so that the second call fails a guard
of the first entry (a shape, a dtype, a Python int, a global, requires_grad,
grad mode, a value Dynamo kept on its stack across a graph break).  The dump must
give the same (entry, failed guard) pairs as the log, on readable lines, with the
user's name for a stack slot.
"""
import contextlib
import inspect
import json
import logging
import re

import pytest
import torch

import unveil

SCALE = 2.0


def plain(x, n):
    return x * n + SCALE


def _helper(x):
    torch._dynamo.graph_break()
    return x.cos()


def across_break(x, scale):
    return scale * _helper(x) + 1       # scale waits on Dynamo's stack while _helper breaks


def with_keywords(**kwargs):
    return kwargs["a"] * 2


class _A:
    pass


class _B:
    pass


def by_type(obj, x):
    return x + (1 if type(obj).__name__ == "_A" else 2)


def result_across_break(x):
    y = _helper(x)                      # the call's result is on Dynamo's stack at the break
    return y * 2


class _Sub(torch.nn.Module):
    def forward(self, x):
        return x + 1


class _Outer(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.sub = _Sub()

    def forward(self, x):
        return self.sub(x) * 2


def call_module(m, x):
    return m(x)


def _with_its_sub_forward_patched():
    """An ``_Outer`` whose submodule has a ``forward`` of its own, which an entry for an
    unpatched one guards against: ``not ___dict_contains('forward', m._modules['sub'].__dict__)``."""
    m = _Outer()
    m.sub.forward = lambda x: x - 1
    return m


def _set_scale(value):
    global SCALE
    SCALE = value


#: case -> (function, its calls: (positional arguments, what goes before the call: nothing, a
#: callable to run, "no_grad", or a dict, the call's keyword arguments))
CASES = {
    "shape": (plain, [((torch.ones(3), 1), None), ((torch.ones(3, 2), 1), None)]),
    "dtype": (plain, [((torch.ones(3), 1), None), ((torch.ones(3, dtype=torch.float64), 1), None)]),
    "python_int": (plain, [((torch.ones(3), 1), None), ((torch.ones(3), 2), None)]),
    "global": (plain, [((torch.ones(3), 1), None), ((torch.ones(3), 1), lambda: _set_scale(5.0))]),
    "requires_grad": (plain, [((torch.ones(3), 1), None), ((torch.ones(3).requires_grad_(), 1), None)]),
    "grad_mode": (plain, [((torch.ones(3), 1), None), ((torch.ones(3), 1), "no_grad")]),
    "stack_slot": (across_break, [((torch.ones(3), 3.16), None), ((torch.ones(3), 2.5), None)]),
    "stack_slot_tensor": (result_across_break, [((torch.ones(3),), None), ((torch.ones(3, 2),), None)]),
    # (a tensor named with quotes, and a helper's call: their guards files' lines were not found)
    "keyword_tensor": (with_keywords, [((), {"a": torch.ones(2)}), ((), {"a": torch.ones(3, 3)})]),
    "type_id": (by_type, [((_A(), torch.ones(2)), None), ((_B(), torch.ones(2)), None)]),
    # (a helper's call after `not `, which the guards file writes renamed: its line was not found)
    "dict_contains": (call_module, [((_Outer(), torch.ones(2)), None),
                                    ((_with_its_sub_forward_patched(), torch.ones(2)), None)]),
}


class _Log(logging.Handler):
    def __init__(self):
        super().__init__()
        self.text = []

    def emit(self, record):
        self.text.append(record.getMessage())


def dynamo_recompiles(run):
    """(failed entry, guard) pairs the ``recompiles`` log gives while ``run`` runs."""
    log = _Log()
    logger = logging.getLogger("torch._dynamo.guards.__recompiles")
    torch._logging.set_logs(recompiles=True)
    logger.addHandler(log)
    try:
        run()
    finally:
        logger.removeHandler(log)
        torch._logging.set_logs()
    pairs = []
    for message in log.text:
        for entry, guard in re.findall(r"^\s*- (\d+/\d+): (.+?)(?:\s+#.*)?$", message, re.M):
            pairs.append((entry, guard.strip()))
    return pairs


@pytest.mark.parametrize("case", sorted(CASES))
def test_each_recompile_reason_is_in_the_dump_as_dynamo_logs_it(case, tmp_path):
    fn, calls = CASES[case]

    def run():
        torch._dynamo.reset()
        _set_scale(2.0)
        compiled = torch.compile(fn, backend="eager", dynamic=False)
        for args, before in calls:
            if callable(before):
                before()
            with torch.no_grad() if before == "no_grad" else _nothing():
                compiled(*args, **(before if isinstance(before, dict) else {}))

    with unveil.prepare_debug(tmp_path) as session:        # one run: the same compile ids
        expected = dynamo_recompiles(run)
    _set_scale(2.0)
    assert expected, "Dynamo logged no recompile"
    assert session.failures == []
    index = json.loads((tmp_path / "index.json").read_text())
    ours = [(r["failed_entry"], r["guard"]) for c in index["compiles"] for r in c["recompile_reasons"]]
    assert sorted(ours) == sorted(expected)
    headers = [line for path in tmp_path.glob("*.guards.py")
               for line in path.read_text().splitlines() if line.startswith("#")]
    text = "\n".join(headers)
    assert "Compiled anew because an earlier entry's guard failed" in text
    assert "\\n" not in text and "User stack trace" not in text, text
    summary = (tmp_path / "summary.txt").read_text()
    assert summary.count("compiled anew: the guard of compile") == len(expected), summary
    for reason in (r for c in index["compiles"] for r in c["recompile_reasons"]):
        check_guard_line(tmp_path, index, reason, case, fn, calls[-1])
        assert "compile_%s.guards.py, line %d): " % (reason["failed_entry"].replace("/", "_"), reason["guard_line"]) \
            in text, text
        assert "failed (line %d of its guards file)" % reason["guard_line"] in summary, summary
    if case == "stack_slot":
        assert "where ___stack0 is `scale` at the graph break" in text, text
        assert "where ___stack0 is `scale`\n" in summary, summary
    if case == "stack_slot_tensor":      # tensor '___stack0' rank mismatch: it had no name (a new-user trial)
        line = result_across_break.__code__.co_firstlineno + 1
        assert "where ___stack0 is the value of `_helper(x)` (line %d)\n" % line in summary, summary
    if case == "python_int":
        assert re.search(r"^#       from: return x \* n \+ SCALE   \(.*test_recompiles\.py:\d+ in plain\)$", text,
                         re.M), text


def check_guard_line(dump, index, reason, case, fn, failing_call):
    """The reason names the line of the failed entry's guards file with the condition that
    failed: evaluated there on the call that recompiled, it is false (grad mode and a
    resume function's stack slot aside: their values are not this test's to remake)."""
    art = next(a for a in index["artifacts"] if a["kind"] == "guards" and a["compile_id"] == reason["failed_entry"])
    text = (dump / art["file"]).read_text()
    assert reason["guard_line"], reason
    line = text.splitlines()[reason["guard_line"] - 1]
    condition = re.match(r"^\s*if not \((.*)\):$", line)
    assert condition, (reason, line)
    if case in ("grad_mode", "stack_slot", "stack_slot_tensor"):
        return
    namespace = {}
    exec(compile(text, art["file"], "exec"), namespace)
    args, before = failing_call
    if callable(before):
        before()
    f_locals = inspect.signature(fn).bind(*args, **(before if isinstance(before, dict) else {})).arguments
    try:
        assert eval(condition.group(1), namespace, {"L": dict(f_locals), "G": fn.__globals__}) is False, line
    finally:
        _set_scale(2.0)


@contextlib.contextmanager
def _nothing():
    yield


def _activation(x):
    return x + 1


def _other_activation(x):
    return x - 1


ACTIVATION = _activation


def applies_the_activation(x):
    return ACTIVATION(x) * 2


def _summary_with_activations(dump_dir, *activations):
    """The summary of ``applies_the_activation`` compiled, then called again with
    ``ACTIVATION`` set to each of ``activations`` in turn, under ``prepare_debug``."""
    global ACTIVATION
    torch._dynamo.reset()
    fn = torch.compile(applies_the_activation, backend="eager")
    try:
        with unveil.prepare_debug(dump_dir) as session:
            fn(torch.ones(3))
            for activation in activations:
                ACTIVATION = activation
                fn(torch.ones(3))
    finally:
        ACTIVATION = _activation
    assert session.failures == []
    return (dump_dir / "summary.txt").read_text()


def test_a_guard_that_could_not_read_its_value_has_its_line_and_says_so(tmp_path):
    """A global function replaced by a module: Dynamo's reason (``CodeGuardAccessor: Not a
    function on G['ACTIVATION'].__code__``) gives no guard code, so it was linked to no line
    of the guards file and said nothing of the id that guard checks."""
    summary = _summary_with_activations(tmp_path, torch.nn.Tanh())
    failed = re.search(r"the guard of compile 0/0 failed \(line (\d+) of its guards file\): "
                       r"CodeGuardAccessor: Not a function on G\['ACTIVATION'\]\.__code__  "
                       r"\(line \d+: return ACTIVATION\(x\) \* 2\)\n", summary)   # (where the guard's value came from)
    assert failed, summary
    line = (tmp_path / "applies_the_activation.compile_0_0.guards.py").read_text().splitlines()[int(failed.group(1)) - 1]
    assert "check_obj_id(G['ACTIVATION'].__code__, " in line, line
    assert "      Dynamo could not read ACTIVATION.__code__ to check it (Not a function): the value is no longer " \
           "the kind of object compile 0/0 was made for\n" in summary, summary
    code = _activation.__code__
    assert "      the id it checks is that of the code of _activation (%s:%d) (which compile 0/0 ran for)" % (
        code.co_filename, code.co_firstlineno) in summary, summary
    guards = (tmp_path / "applies_the_activation.compile_0_1.guards.py").read_text()
    assert "#   compile 0/0 (applies_the_activation.compile_0_0.guards.py, line %s): CodeGuardAccessor" % failed.group(1) \
        in guards, guards


def _line_checking(path, text):
    """The 1-based line of the file at ``path`` that holds ``text``."""
    return next(k for k, line in enumerate(path.read_text().splitlines(), 1) if text in line)


def test_an_identity_check_that_failed_names_the_object_whose_id_it_checks(tmp_path):
    """``___check_obj_id(G['ACTIVATION'], 1397...)`` says nothing a reader can use, and
    its id differs from run to run: the summary and the guards file name the object."""
    summary = _summary_with_activations(tmp_path, torch.sigmoid, _other_activation)
    # (the ids differ from run to run: the summary is the same text under prepare_debug and debug())
    assert "failed (line %d of its guards file): ___check_obj_id(G['ACTIVATION'], <id>), type=" % _line_checking(
        tmp_path / "applies_the_activation.compile_0_1.guards.py", "check_obj_id(G['ACTIVATION'], ") in summary, summary
    assert not re.search(r"_id\(.*\d{6,}", summary), summary
    assert "    the id it checks is that of torch.sigmoid (which compile 0/1 ran for)" in summary, summary
    code = _activation.__code__
    assert "    the id it checks is that of the code of _activation (%s:%d) (which compile 0/0 ran for)" % (
        code.co_filename, code.co_firstlineno) in summary, summary
    guards = (tmp_path / "applies_the_activation.compile_0_2.guards.py").read_text()
    assert "#       the id it checks is that of torch.sigmoid\n" in guards, guards


class _Projects(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(4, 4)

    def forward(self, x):
        y = self.lin(x)
        return y.relu()


def test_a_tensor_mismatch_names_the_line_its_guard_came_from(tmp_path):
    """Dynamo's ``tensor 'x' size mismatch ...`` gives no place: the summary named no line
    for it, where the guards file says where the guard's value came from (the line of
    ``nn.Linear.forward`` that first used ``x``); it names that line now (a new-user trial)."""
    torch._dynamo.reset()
    compiled = torch.compile(_Projects(), backend="eager", dynamic=False)
    with unveil.prepare_debug(tmp_path) as session:
        compiled(torch.ones(2, 4))
        compiled(torch.ones(3, 4))
    assert session.failures == []
    summary = (tmp_path / "summary.txt").read_text()
    import torch.nn.modules.linear as linear
    line = next(n for n, text in enumerate(open(linear.__file__), 1) if "return F.linear(input, self.weight, self.bias)"
                in text)
    assert re.search(r"failed \(line \d+ of its guards file\): tensor 'x' size mismatch at index 0\. expected 2, "
                     r"actual 3  \(%s:%d, where Dynamo first read it: return F\.linear\(input, self\.weight, "
                     r"self\.bias\)\)\n"
                     % (re.escape(linear.__file__), line), summary), summary
