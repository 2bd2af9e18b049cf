"""What depyf offers besides its two context managers: decompiled code in torch's own
logs (``unveil.install``) and a custom dispatcher (``unveil.CustomDispatcher``)."""
import logging

import pytest
import torch

import unveil
from unveil.dynamo.adapter.bytecode_hook import bytecode_logger, register_bytecode_hook
from unveil.dynamo.adapter.compile_outcomes import recompile_limit

OFFSET = 1.0


class _Records(logging.Handler):
    def __init__(self):
        super().__init__(logging.DEBUG)
        self.messages = []

    def emit(self, record):
        self.messages.append(record.getMessage())


@pytest.fixture
def bytecode_log():
    records = _Records()
    log = bytecode_logger()
    log.addHandler(records)
    torch._logging.set_logs(bytecode=True)
    try:
        yield records.messages
    finally:
        torch._logging.set_logs()
        log.removeHandler(records)
        unveil.uninstall()


def breaks(x):
    x = x + 1
    print("a graph break")
    return x * 2


def test_install_logs_each_transformed_code_as_python_next_to_dynamos_bytecode(bytecode_log):
    torch._dynamo.reset()
    unveil.install()
    unveil.install()                 # twice changes nothing
    torch.compile(breaks, backend="eager")(torch.ones(2))
    ours = [m for m in bytecode_log if "decompiled by unveil" in m]
    theirs = [m for m in bytecode_log if "MODIFIED BYTECODE" in m]
    assert theirs and len(ours) == len(theirs), bytecode_log     # the frame and its resume function
    assert ours[0].startswith("transformed code of breaks (")
    assert "def breaks(x):" in ours[0] and "return __resume_at_" in ours[0], ours[0]
    compile(ours[0].split("\n", 1)[1], "<logged>", "exec")         # the logged text is Python


def shape_printed(x):
    y = x.sin()
    print(y.shape)          # a graph break; Dynamo puts torch.Size([4]) in its code
    return y.cos()


def test_the_log_says_what_the_objects_dynamo_placed_in_the_code_are(bytecode_log):
    """As a dump file's header does: the log's text named ``__unveil_Size_0`` and called
    ``__resume_at_..([], [], ...)`` with nothing saying what either is."""
    torch._dynamo.reset()
    unveil.install()
    torch.compile(shape_printed, backend="eager")(torch.ones(4))
    ours = [m for m in bytecode_log if "decompiled by unveil" in m]
    text = ours[0].split("\n", 1)[1]
    assert "# __unveil_Size_0: an object Dynamo placed in the code: torch.Size([4]) (torch.Size)\n" in text, text
    assert "# A resume function __resume_at_N is called with two lists" in text, text
    compile(text, "<logged>", "exec")


def test_uninstall_leaves_nothing_hooked(bytecode_log):
    torch._dynamo.reset()
    unveil.install()
    unveil.uninstall()
    torch.compile(breaks, backend="eager")(torch.ones(2))
    assert not [m for m in bytecode_log if "unveil" in m]
    assert any("MODIFIED BYTECODE" in m for m in bytecode_log)


def test_with_logging_off_nothing_is_decompiled(monkeypatch):
    torch._dynamo.reset()
    calls = []
    monkeypatch.setattr("unveil.dynamo.loghook.decompile_code", lambda *a: calls.append(a))
    unveil.install()
    try:
        torch.compile(breaks, backend="eager")(torch.ones(2))
    finally:
        unveil.uninstall()
    assert calls == []


class Scaled(unveil.CustomDispatcher):
    def __init__(self):
        super().__init__(backend="eager")
        torch.manual_seed(0)
        self.linear = torch.nn.Linear(4, 3)

    def forward(self, x):
        return self.linear(x).relu() + OFFSET


def _compiles_of(function):
    count = []
    handle = register_bytecode_hook(lambda code, new: count.append(code) if code is function else None)
    return count, handle


def test_the_dispatcher_compiles_once_per_signature_and_then_skips_the_guards():
    global OFFSET
    torch._dynamo.reset()
    model = Scaled()
    count, handle = _compiles_of(Scaled.forward.__code__)
    try:
        x, wide = torch.randn(2, 4), torch.randn(5, 4)
        expected = model.linear(x).relu() + 1.0
        torch.testing.assert_close(model(x), expected)
        assert len(count) == 1 and len(model.codes) == 1
        for _ in range(3):
            torch.testing.assert_close(model(x), expected)
        assert len(count) == 1                       # the same signature: Dynamo's code, called directly
        torch.testing.assert_close(model(wide), model.linear(wide).relu() + 1.0)
        torch.testing.assert_close(model(wide), model.linear(wide).relu() + 1.0)
        assert len(count) == 2 and len(model.codes) == 2     # a new signature compiles once
        OFFSET = 5.0     # a guard of Dynamo's checks it: torch.compile would recompile
        try:
            torch.testing.assert_close(model(x), expected)   # the dispatcher evaluates no guard
            assert len(count) == 2
            plain = torch.compile(Scaled().forward, backend="eager", fullgraph=True)
            torch.testing.assert_close(plain(x), model.linear(x).relu() + 5.0)   # Dynamo's own call does
        finally:
            OFFSET = 1.0
    finally:
        handle.remove()
    assert Scaled.forward.__code__ is count[0]                # the method has its own code back


def test_the_dispatcher_shows_the_source_of_each_signatures_code():
    torch._dynamo.reset()
    model = Scaled()
    model(torch.randn(2, 4))
    (key,) = model.codes
    assert key == (("tensor", (2, 4), torch.float32, torch.device("cpu"), False),)
    source = model.source(key)
    assert source.startswith("def forward(self, x):") and "__compiled_fn_" in source, source


class ScaledBy(unveil.CustomDispatcher):
    """The issue's shape: an attribute the signature does not cover."""

    def __init__(self, check_guards):
        super().__init__(check_guards=check_guards, backend="eager")
        self.scale = 1.0

    def forward(self, x):
        return x * self.scale


def test_check_guards_says_which_guard_the_kept_code_would_fail():
    """Without it the dispatcher runs the code made for scale=1.0 when scale is 2.0 (its
    point, and its risk); with check_guards=True it raises, naming the guard Dynamo would
    have failed and the user's line it came from; on the values it was made for it runs."""
    from unveil.dynamo.dispatcher import GuardFailed
    torch._dynamo.reset()
    x = torch.ones(3)
    silent, checked = ScaledBy(False), ScaledBy(True)
    assert silent(x).tolist() == checked(x).tolist() == [1.0, 1.0, 1.0]
    assert checked(x).tolist() == [1.0, 1.0, 1.0]          # the same values: the guards pass, the code runs
    silent.scale = checked.scale = 2.0
    assert silent(x).tolist() == [1.0, 1.0, 1.0]           # the stale result, as documented
    with pytest.raises(GuardFailed) as failed:
        checked(x)
    text = str(failed.value)
    assert "compiled for other values" in text and "L['self'].scale == 1.0" in text, text
    assert "return x * self.scale" in text and "L['self'].scale is 2.0" in text, text


class Batched(unveil.CustomDispatcher):
    """vLLM's shape: one compile per batch size."""

    def __init__(self, backend="eager"):
        super().__init__(backend=backend)
        torch.manual_seed(0)
        self.proj = torch.nn.Linear(4, 4)

    def forward(self, x):
        return self.proj(x).relu()

    def signature(self, x):
        return x.shape[0]


def test_the_dispatcher_compiles_more_signatures_than_dynamos_recompile_limit():
    """Each signature's compile is one more cache entry of ``forward``'s code: the ninth
    batch size hit Dynamo's recompile limit (8), which fullgraph=True makes an error."""
    torch._dynamo.reset()
    first, second = Batched(), Batched()
    sizes = range(1, recompile_limit() + 3)
    for model in (first, second):          # the limit counts per code object, across instances
        for n in sizes:
            x = torch.randn(n, 4)
            torch.testing.assert_close(model(x), model.proj(x).relu())
    assert sorted(first.codes) == sorted(second.codes) == list(sizes)
    assert recompile_limit() == 8        # raised only while the dispatcher compiles


def test_a_signature_called_under_another_grad_mode_gets_code_of_its_own():
    """AOT Autograd's code for a call under no_grad makes no graph for backward: a training
    step after an evaluation step of the same signature must not run it (Dynamo's
    GLOBAL_STATE guard would fail), nor the training code under no_grad."""
    torch._dynamo.reset()
    model = Batched("aot_eager")
    x = torch.randn(3, 4)
    with torch.no_grad():
        assert not model(x).requires_grad
    out = model(x)
    assert out.requires_grad
    out.sum().backward()
    assert model.proj.weight.grad is not None
    with torch.no_grad():
        assert not model(x).requires_grad
    assert list(model.codes) == [3] and len(model._variants[3]) == 2
    assert not model.source(3).startswith("#")                 # the code for the grad mode now
    fresh = Batched("aot_eager")
    with torch.no_grad():
        fresh(torch.randn(2, 4))
    assert fresh.source(2).startswith("# compiled under another global state than now's: grad_mode")
    with pytest.raises(KeyError) as raised:
        fresh.source(16)
    assert str(raised.value) == "no code for signature 16; the signatures compiled so far: 2"


class Broken(unveil.CustomDispatcher):
    def __init__(self, backend):
        super().__init__(backend=backend, fullgraph=False)
        torch.manual_seed(0)
        self.a, self.b = torch.nn.Linear(4, 4), torch.nn.Linear(4, 4)

    def forward(self, x):
        h = self.a(x).relu()
        torch._dynamo.graph_break()
        return self.b(h)


def test_with_fullgraph_false_the_code_past_a_break_runs_compiled_too():
    """Dynamo's code calls the resume function as Python: called directly, outside
    Dynamo, the graph past the break ran only on the first call."""
    torch._dynamo.reset()
    runs = []

    def counting(gm, example_inputs):
        index = len(runs)
        runs.append(0)

        def call(*args):
            runs[index] += 1
            return gm.forward(*args)
        return call
    model, x = Broken(counting), torch.randn(2, 4)
    for _ in range(3):
        torch.testing.assert_close(model(x), model.b(model.a(x).relu()))
    assert runs == [3, 3]


@pytest.mark.parametrize("signature, wanted", [
    (lambda self, x: [x.shape[0]], "returned [2], which is not hashable"),
    (lambda self, x: (x.sum(),), "returned a tensor, which equals only itself"),
    (lambda self, x: (float("nan"),), "returned (nan,), then (nan,) for the same call: the two differ"),
])
def test_a_signature_no_call_could_find_again_is_a_one_line_error(signature, wanted):
    torch._dynamo.reset()
    model = type("Keyed", (Batched,), {"signature": signature})()
    with pytest.raises(TypeError) as failed:
        model(torch.randn(2, 4))
    assert wanted in str(failed.value) and "\n" not in str(failed.value), failed.value


class Shifted(unveil.CustomDispatcher):
    def __init__(self):
        super().__init__(backend="eager")

    def forward(self, x, fill):
        return torch.nan_to_num(x, nan=0.0) + 1 if fill != fill else x + fill


def test_a_nan_argument_finds_its_code_again_under_the_default_signature():
    """A float argument is its own key, and a fresh NaN equals no other: each call with one
    compiled anew (a new-user trial)."""
    torch._dynamo.reset()
    model, x = Shifted(), torch.tensor([1.0, float("nan")])
    count, handle = _compiles_of(Shifted.forward.__code__)
    try:
        for _ in range(3):
            torch.testing.assert_close(model(x, float("nan")), torch.tensor([2.0, 1.0]))
        torch.testing.assert_close(model(x, 2.0), x + 2.0, equal_nan=True)
    finally:
        handle.remove()
    assert len(count) == 2 and list(model.codes) == [(("tensor", (2,), torch.float32, torch.device("cpu"), False),
                                                      ("float", "nan")),
                                                     (("tensor", (2,), torch.float32, torch.device("cpu"), False), 2.0)]
