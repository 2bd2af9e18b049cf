"""prepare_debug as a context manager: hooks come and go, nesting, threads, failures."""
import json
import re
import logging
import threading
import warnings

import pytest
import torch

import unveil
from unveil.dynamo import UnveilWarning, session as session_module


def f(x):
    y = x.sin()
    if y.sum() > 0:
        return y + 1
    return y - 1


def run(fn=f, *args):
    torch._dynamo.reset()
    return torch.compile(fn, backend="eager")(*(args or (torch.randn(4),)))


def hooks_installed():
    from torch._dynamo.convert_frame import _bytecode_hooks
    trace = logging.getLogger("torch.__trace")
    return bool(_bytecode_hooks) or any(isinstance(h, logging.Handler) and type(h).__module__.startswith("unveil")
                                        for h in trace.handlers)


def test_leaving_removes_every_hook_even_after_an_exception(tmp_path):
    assert not hooks_installed()
    with pytest.raises(ZeroDivisionError):
        with unveil.prepare_debug(tmp_path):
            assert hooks_installed()
            run()
            1 / 0
    assert not hooks_installed()
    assert (tmp_path / "index.json").exists()


def test_a_second_session_keeps_torch_debug_records_out_of_the_users_logs(tmp_path):
    """Leaving once assigned the saved level to ``Logger.level``, which kept logging's
    cached isEnabledFor(DEBUG) answer; the next session then saw the graph_code logger
    as enabled, left it propagating, and every graph was printed to stderr by torch."""
    seen = []

    class Catch(logging.Handler):
        def emit(self, record):
            seen.append(record.name)

    catch = Catch(logging.DEBUG)
    torch_logger = logging.getLogger("torch")
    torch_logger.addHandler(catch)
    try:
        for k in range(2):
            with unveil.prepare_debug(tmp_path / str(k)):
                run()
    finally:
        torch_logger.removeHandler(catch)
    assert not [name for name in seen if name.endswith(("__graph_code", "__trace"))]
    assert not logging.getLogger("torch._dynamo.output_graph.__graph_code").isEnabledFor(logging.DEBUG)


def test_entering_the_same_session_twice_is_an_error(tmp_path):
    debug = unveil.prepare_debug(tmp_path)
    with debug:
        with pytest.raises(RuntimeError, match="already active"):
            with debug:
                pass
    assert not hooks_installed()


def test_nested_sessions_both_dump_and_the_hooks_go_with_the_outer(tmp_path):
    with unveil.prepare_debug(tmp_path / "outer") as outer:
        with unveil.prepare_debug(tmp_path / "inner") as inner:
            run()
        assert hooks_installed()
    assert not hooks_installed()
    for d in (outer, inner):
        index = json.loads((tmp_path / d.dump_dir.rsplit("/", 1)[1] / "index.json").read_text())
        assert index["failures"] == [] and any(a["kind"] == "transformed_code" for a in index["artifacts"])


def test_a_second_run_into_the_same_directory_never_overwrites(tmp_path):
    for _ in range(2):
        with unveil.prepare_debug(tmp_path):
            run()
    names = sorted(p.name for p in tmp_path.iterdir())
    assert "index.json" in names and "run2.index.json" in names
    first = json.loads((tmp_path / "index.json").read_text())
    second = json.loads((tmp_path / "run2.index.json").read_text())
    assert not {a["file"] for a in first["artifacts"]} & {a["file"] for a in second["artifacts"]}
    # the full code names the second run's own graph files
    full = next(a["file"] for a in second["artifacts"] if a["kind"] == "full_code")
    named = re.findall(r"# Graph \S+ \(file (\S+)\)", (tmp_path / full).read_text())
    assert named and all(name.startswith("run2.") and (tmp_path / name).exists() for name in named)


def test_compiles_in_threads_are_all_dumped(tmp_path):
    def g(x):
        return x.cos() * 3

    def h(x):
        return x.tanh() - 2
    torch._dynamo.reset()
    results = {}
    with unveil.prepare_debug(tmp_path) as debug:
        threads = [threading.Thread(target=lambda fn=fn: results.setdefault(fn.__name__, torch.compile(
            fn, backend="eager")(torch.ones(3)))) for fn in (g, h)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    assert set(results) == {"g", "h"} and debug.failures == []
    assert {fn.code.co_name for fn in debug.functions.values()} == {"g", "h"}


def test_a_failure_of_ours_is_written_warned_once_and_the_program_runs_on(tmp_path, monkeypatch):
    def broken(code):
        raise unveil.DecompilationError("simulated failure in %s" % code.co_name)
    monkeypatch.setattr(session_module, "decompile_code", broken)
    x = torch.randn(4)
    expected = f(x)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with unveil.prepare_debug(tmp_path, run_dumped=True) as debug:
            out = run(f, x)
    torch.testing.assert_close(out, expected)
    assert len([w for w in caught if issubclass(w.category, UnveilWarning)]) == 1
    index = json.loads((tmp_path / "index.json").read_text())
    failed = [a for a in index["artifacts"] if not a["ok"]]
    assert failed and all("simulated failure" in a["error"] for a in failed)
    text = (tmp_path / failed[0]["file"]).read_text()
    assert "simulated failure" in text and "LOAD_FAST" in text      # the bytecode instead of source
    compile(text, failed[0]["file"], "exec")
    assert debug.failures


def test_the_demo_command_dumps_the_built_in_example_and_lists_it(tmp_path, capsys):
    from unveil.cli import main
    assert main(["demo", "--dump-dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    compile(out, "<demo output>", "exec")          # the listing is comments after the examples
    index = json.loads((tmp_path / "index.json").read_text())
    assert index["failures"] == []
    kinds = {a["kind"] for a in index["artifacts"]}
    assert {"transformed_code", "guards", "graph", "resume_function", "full_code"} <= kinds
    for art in index["artifacts"]:
        assert art["file"] in out
