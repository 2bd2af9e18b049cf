"""One test per place unveil touches torch (unveil.dynamo.adapter): a torch release
that moves a hook point fails here, by name, before anything else does."""
import contextlib
import json
import logging

import torch

from unveil.dynamo.adapter import (backends, bytecode_hook, cache, compile_ids, frames, guard_checks, guard_text, logs,
                                   patches, resume_functions)
from unveil.dynamo.adapter import graphs as dynamo_graphs
from unveil.dynamo.hub import TRACE_KEPT as KEPT     # what prepare_debug asks the trace for


def breaking(x):
    y = x.cos()
    if y.sum() > 0:
        return y * 2
    return y - 1


@contextlib.contextmanager
def alone_on_the_trace_logger():
    """Without torch's TORCH_TRACE handler (until it removes itself on its first record) on
    torch.__trace: it wants every record, so every one is built (conftest drops pytest's)."""
    logger = logging.getLogger("torch.__trace")
    others, logger.handlers = logger.handlers, []
    try:
        yield
    finally:
        logger.handlers = others


def compile_and_run(fn, backend="eager", *calls):
    torch._dynamo.reset()
    compiled = torch.compile(fn, backend=backend)
    for args in calls or [(torch.randn(3),)]:
        out = compiled(*args)
    return out


def test_bytecode_hook_sees_original_and_transformed_code_and_compile_id():
    seen = []
    handle = bytecode_hook.register_bytecode_hook(
        lambda code, new: seen.append((code, new, compile_ids.current_compile_id())))
    try:
        compile_and_run(breaking)
    finally:
        handle.remove()
    assert seen[0][0] is breaking.__code__
    assert seen[0][1] is not breaking.__code__ and seen[0][1].co_name == "breaking"
    assert seen[0][2] == "0/0"


def test_a_bytecode_hook_takes_no_id_from_the_handles_the_program_sees():
    """torch's RemovableHandle counts ids class-wide; a program (and a graph break's text)
    reads the counter, which must not move on because unveil hooked Dynamo."""
    from torch.utils.hooks import RemovableHandle
    before = RemovableHandle.next_id
    handle = bytecode_hook.register_bytecode_hook(lambda code, new: None)
    try:
        assert RemovableHandle.next_id == before
    finally:
        handle.remove()
    handle.remove()   # a second remove does nothing, as torch's


def test_structured_trace_events_that_prepare_debug_reads():
    events = []
    trace = logs.StructuredTrace(lambda event, metadata, payload: events.append((event, metadata, payload)),
                                 events=KEPT)
    with alone_on_the_trace_logger():
        trace.attach()
        try:
            torch._dynamo.reset()
            w = torch.randn(3, requires_grad=True)
            compiled = torch.compile(lambda x: (breaking(x) * w).sum(), backend="aot_eager")
            compiled(torch.randn(3)).backward()
            compiled(torch.randn(3).double()).backward()        # recompiles
        finally:
            trace.detach()
    names = {e for e, _, _ in events} | {m["artifact"]["name"] for e, m, _ in events if e == "artifact"}
    assert {"aot_joint_graph", "dynamo_graph_break_reason", "recompile_reasons"} <= names, names
    assert all(compile_ids.record_compile_id(m) for e, m, _ in events if e == "aot_joint_graph")


def test_a_filtered_structured_trace_builds_only_the_events_it_keeps():
    """trace_structured builds every record's payload while torch.__trace has a handler;
    a filtered trace makes it build only the kept ones (the guard tree as text and each
    graph printed cost as much as the rest of prepare_debug)."""
    built, events = [], []

    def payload(name):
        return lambda: built.append(name) or "payload of " + name
    trace = logs.StructuredTrace(lambda event, metadata, payload: events.append(event),
                                 events={"aot_forward_graph", "recompile_reasons"})
    with alone_on_the_trace_logger():
        trace.attach()
        try:
            assert not trace.logger.handlers        # what torch's other checks see
            for name in ("dynamo_cpp_guards_str", "aot_forward_graph", "dynamo_output_graph"):
                torch._logging.trace_structured(name, payload_fn=payload(name))
            for name in ("recompile_reasons", "fx_graph_runnable"):
                torch._logging._internal.trace_structured_artifact(name, "string", payload_fn=payload(name))
        finally:
            trace.detach()
        assert type(trace.logger.handlers) is list and trace.logger.handlers == []
    assert built == ["aot_forward_graph", "recompile_reasons"]
    assert events == ["aot_forward_graph", "artifact"]


def test_a_filtered_structured_trace_builds_every_event_for_another_handler():
    built = []
    trace = logs.StructuredTrace(lambda event, metadata, payload: None, events={"aot_forward_graph"})
    trace.attach()
    try:
        other = logging.NullHandler()
        trace.logger.addHandler(other)
        torch._logging.trace_structured("dynamo_output_graph", payload_fn=lambda: built.append(1))
        trace.logger.removeHandler(other)
    finally:
        trace.detach()
    assert built == [1]


def test_structured_trace_carries_inductor_output_code():
    events = []
    trace = logs.StructuredTrace(lambda event, metadata, payload: events.append((event, payload)), events=KEPT)
    with alone_on_the_trace_logger():
        trace.attach()
        try:
            compile_and_run(lambda x: x.sin() + 1, "inductor")
        finally:
            trace.detach()
    code = [p for e, p in events if e == "inductor_output_code"]
    assert code and "def call(" in code[0]


def test_graph_code_log_gives_each_graph_module_and_its_global_name():
    graphs = []
    log = logs.GraphCodeLog(lambda name, gm: graphs.append((name, gm)))
    log.attach()
    try:
        compile_and_run(breaking)
    finally:
        log.detach()
    assert graphs and all(isinstance(gm, torch.fx.GraphModule) for _, gm in graphs)
    assert graphs[0][0].startswith("__compiled_fn_")
    assert graphs[0][1].meta["dynamo_compile_id"].frame_id == 0


def test_cache_entries_guards_and_globals():
    compile_and_run(breaking, "eager", (torch.randn(3),), (torch.randn(3, dtype=torch.float64),))
    entries = cache.cache_entries(breaking.__code__)
    assert [e.compile_id for e in entries] == ["0/1", "0/0"]   # newest first
    assert entries[1].check({"x": torch.randn(3)}) and not entries[1].check({"x": torch.randn(3).double()})
    tree = entries[1].guard_tree()
    kinds = set()

    def walk(node):
        kinds.update(kind for kind, _ in node.leaves)
        for child in node.children:
            walk(child)
    walk(tree)
    assert {"TENSOR_MATCH", "GLOBAL_STATE"} <= kinds, kinds
    assert cache.guard_globals(entries[0]) is globals()


def test_the_codes_dynamo_holds_compiled_code_for():
    compile_and_run(breaking, "eager", (torch.ones(3),))
    codes = cache.compiled_codes()
    assert codes[0] is breaking.__code__ and len(codes) == 2
    assert resume_functions.resumed_code(codes[1]) is breaking.__code__
    torch._dynamo.reset()
    assert cache.compiled_codes() == []


def test_resume_function_install_can_put_another_code_in_place():
    """Dynamo installs each resume function as a global; the hook sees its code and
    the frame's globals, and may hand back a code object to install instead."""
    seen, swapped = [], []

    def callback(name, code, f_globals):
        seen.append((name, code, f_globals))
        replacement = code.replace()                   # same program, another object
        swapped.append(replacement)
        return replacement
    hook = patches.ResumeFunctionInstall(callback)
    hook.attach()
    try:
        out = compile_and_run(breaking, "eager", (torch.ones(3),))
    finally:
        hook.detach()
    assert torch.equal(out, breaking(torch.ones(3)))
    name, code, f_globals = seen[0]
    assert code.co_name.startswith("torch_dynamo_resume_in_breaking") and f_globals is globals()
    assert f_globals[name].__code__ is swapped[0]
    assert resume_functions.resumed_code(code) is breaking.__code__
    assert cache.cache_entries(swapped[0]), "Dynamo compiled the installed code when it ran"


def test_compiling_frame_is_the_frame_dynamo_compiles():
    found = []
    handle = bytecode_hook.register_bytecode_hook(lambda code, new: found.append(frames.compiling_frame()))
    try:
        compile_and_run(breaking)
    finally:
        handle.remove()
    assert found[0][:4] == (breaking.__code__, globals(), False, None)
    # the stack that reached it, Dynamo's own frames left out, the compiled frame last
    assert [f["function"] for f in found[0].stack[-3:]] == [
        "test_compiling_frame_is_the_frame_dynamo_compiles", "compile_and_run", "breaking"]
    assert found[0].stack[-1] == {"filename": __file__, "line": breaking.__code__.co_firstlineno,
                                  "function": "breaking"}
    # the resume function's: through the frame running Dynamo's code for breaking, at the break
    assert [(f["function"], f["line"]) for f in found[1].stack[-3:-1]] == [
        ("compile_and_run", compile_and_run.__code__.co_firstlineno + 4),
        ("breaking", breaking.__code__.co_firstlineno + 2)]
    assert frames.compiling_frame() is None
    found = []
    handle = bytecode_hook.register_bytecode_hook(lambda code, new: found.append(frames.compiling_frame()))
    try:
        torch._dynamo.reset()
        torch.compile(lambda x: x + 1, backend="eager", fullgraph=True)(torch.ones(2))
    finally:
        handle.remove()
    assert found[0].fullgraph is True
    # a torch.nn module's call runs in torch's wrap_inline.inner: the frame says what it calls
    found = []
    linear = torch.nn.Linear(2, 2)
    handle = bytecode_hook.register_bytecode_hook(lambda code, new: found.append(frames.compiling_frame()))
    try:
        torch._dynamo.reset()
        torch.compile(linear, backend="eager")(torch.ones(2))
    finally:
        handle.remove()
    assert found[0].code.co_name == "inner" and found[0].wraps is linear, found


def test_graph_recompiles_and_forcing_a_lazy_graph_module():
    made = []
    hook = patches.GraphRecompiles(made.append)
    hook.attach()
    try:
        gm = torch.fx.symbolic_trace(lambda x: x + 1)
        assert made == [gm]
        from torch.fx._lazy_graph_module import _LazyGraphModule
        lazy = _LazyGraphModule(gm, gm.graph)
        dynamo_graphs.force_recompile(lazy)
        assert made[-1] is lazy and type(lazy).forward is not _LazyGraphModule._lazy_forward
    finally:
        hook.detach()
    assert torch.fx.GraphModule.recompile is not None and "recompile" in torch.fx.GraphModule.__dict__
    torch.fx.symbolic_trace(lambda x: x * 2)
    assert len(made) == 2


def test_aot_graphs_log_gives_the_graphs_aot_autograd_compiles():
    graphs = []
    log = logs.AotGraphsLog(lambda kind, gm: graphs.append((kind, gm)))
    log.attach()
    try:
        w = torch.randn(3, requires_grad=True)
        compile_and_run(lambda x: (x.sin() * w).sum(), "aot_eager")
        with torch.no_grad():
            compile_and_run(lambda x: (x.cos() * w).sum(), "aot_eager")
    finally:
        log.detach()
    kinds = [kind for kind, _ in graphs]
    assert kinds == ["aot_forward", "aot_backward", "aot_inference"], kinds
    assert all(isinstance(gm, torch.fx.GraphModule) for _, gm in graphs)


def test_inductor_module_loads_and_lookup_by_path():
    loaded = []
    hook = patches.InductorModuleLoads(lambda path, module: loaded.append((path, module)))
    hook.attach()
    try:
        compile_and_run(lambda x: x.sin() + 1, "inductor")
    finally:
        hook.detach()
    path, module = loaded[0]
    assert callable(module.call) and backends.inductor_module(path) is module


def test_code_context_copy_and_reset():
    from torch._dynamo import code_context
    source, target = breaking.__code__, breaking.__code__.replace()
    code_context.get_context(source)["unveil_test"] = 1
    patches.copy_code_context(source, target)
    assert code_context.get_context(target)["unveil_test"] == 1
    compile_and_run(breaking)
    assert cache.cache_entries(breaking.__code__)
    cache.reset()
    assert not cache.cache_entries(breaking.__code__)


def test_function_mode_stack_and_shape_guard_names():
    assert guard_checks.function_mode_stack_types() == []

    class Mode(torch.overrides.TorchFunctionMode):
        pass
    with Mode():
        assert guard_checks.function_mode_stack_types() == [Mode.__module__ + "." + Mode.__qualname__]
    assert {"math", "IsNonOverlappingAndDenseIndicator"} <= guard_checks.sympy_interp_names()


def three_tensors(a, b, c):
    return a * b + c


def test_a_relational_guard_is_listed_once():
    """Dynamo hangs one relational guard (no aliasing among the tensor inputs) on each
    input's manager; the tree lists it once, whatever ids pybind11's wrappers get."""
    compile_and_run(three_tensors, "eager", tuple(torch.randn(3) for _ in range(3)))
    tree = cache.cache_entries(three_tensors.__code__)[0].guard_tree()
    found = []

    def walk(node):
        found.extend(parts for kind, parts in node.leaves if kind == "NO_TENSOR_ALIASING")
        for child in node.children:
            walk(child)
    walk(tree)
    assert len(found) == 1, found
    assert all("L['%s']" % name in " ".join(found[0]) for name in "abc"), found


def test_the_wrapped_function_and_a_graph_modules_compile_id_and_example_values():
    compiled = torch.compile(breaking, backend="eager")
    assert frames.compile_wrapped(compiled) is breaking and frames.compile_wrapped(breaking) is None
    graphs = []
    log = logs.GraphCodeLog(lambda name, gm: graphs.append(gm))
    log.attach()
    try:
        compile_and_run(breaking)
    finally:
        log.detach()
    assert compile_ids.graph_compile_id(graphs[0]) == "0/0"
    inputs = [node for node in graphs[0].graph.nodes if node.op == "placeholder"]
    assert inputs and all(tuple(dynamo_graphs.example_value(node).shape) == (3,) for node in inputs)


def test_what_dumped_guards_check():
    x = torch.randn(3)
    assert guard_checks.dispatch_key_set(x).startswith("DispatchKeySet(CPU")
    state = json.loads(guard_checks.global_state())
    assert state["grad_mode"] is True
    with torch.no_grad():
        assert json.loads(guard_checks.global_state())["grad_mode"] is False
    assert guard_checks.inlineable_saved_tensors_hooks() is None
    mapping = {}
    version = guard_checks.dict_version(mapping)
    mapping["a"] = 1
    assert guard_checks.dict_version(mapping) != version
    assert guard_checks.default_device_module().CURRENT_DEVICE is None


def guarded(x, d):
    if "k" in d:
        x = x + 1
    return torch.relu(x.cos()) * d["k"]


def test_the_guard_text_dynamo_writes():
    """Dynamo's guard text has the helpers and descriptions the adapter names."""
    compile_and_run(guarded, "eager", (torch.randn(3), {"k": 2.0}))
    tree = cache.cache_entries(guarded.__code__)[0].guard_tree()
    parts = {}

    def walk(node):
        for kind, texts in node.leaves:
            parts.setdefault(kind, []).extend(text.split("  #")[0].rstrip() for text in texts)
        for child in node.children:
            walk(child)
    walk(tree)
    state = guard_text.GLOBAL_STATE_GUARD.match(parts["GLOBAL_STATE"][0])
    assert json.loads(state.group(1)) == json.loads(guard_checks.global_state())
    assert any(guard_text.SAVED_TENSORS_HOOKS_GUARD.match(text).group(1) == "None" for text in parts["LAMBDA_GUARD"]
               if guard_text.SAVED_TENSORS_HOOKS_GUARD.match(text))
    assert parts["TORCH_FUNCTION_MODE_STACK"] == [guard_text.FUNCTION_MODE_STACK_GUARD]
    assert parts["TYPE_MATCH"][0].startswith(guard_text.CHECK_TYPE_ID + "(L['d'], ")
    assert parts["DICT_CONTAINS"][0] == guard_text.DICT_CONTAINS + "('k', L['d'])"
    assert all(text.startswith(guard_text.CHECK_OBJ_ID + "(G['torch']") for text in parts["ID_MATCH"])
    assert eval(parts["DEFAULT_DEVICE"][0], {"utils_device": guard_checks.default_device_module()}) is True
    assert set(guard_text.GUARD_HELPER_RENAMES) >= {guard_text.CHECK_TYPE_ID, guard_text.CHECK_OBJ_ID,
                                                    guard_text.DICT_CONTAINS}
    assert all(name.startswith(guard_text.GUARD_HELPER_PREFIX) for name in
               (guard_text.CHECK_TYPE_ID, guard_text.CHECK_OBJ_ID, guard_text.DICT_CONTAINS))


def test_a_reset_however_reached_calls_back_while_the_caches_still_hold():
    from torch._dynamo import reset as imported_reset     # (a program may hold reset by this name)
    compile_and_run(breaking)
    seen = []
    hook = patches.DynamoResets(lambda: seen.append(len(cache.cache_entries(breaking.__code__))))
    hook.attach()
    try:
        imported_reset()
        torch._dynamo.reset()
    finally:
        hook.detach()
    assert seen == [1, 0]
    torch._dynamo.reset()
    assert seen == [1, 0]
