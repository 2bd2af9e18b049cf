"""prepare_debug as a context manager: hooks come and go, nesting, threads, failures."""
import json
import re
import logging
import subprocess
import sys
import threading
import warnings

import pytest
import torch

import unveil
from unveil.dynamo import UnveilWarning, session as session_module
from unveil.dynamo.dump.directory import content_digest


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


PROGRAM = """
import sys, torch, unveil

def f(x):
    y = x.sin()
    if y.sum() > 0:
        return y + OFFSET
    return y - 1

with unveil.prepare_debug(sys.argv[1]) as session:
    torch.compile(f, backend="eager")(torch.ones(4))
assert session.failures == [], session.failures
"""


def test_a_second_run_writes_the_same_names_and_a_changed_file_gets_a_new_one(tmp_path):
    """Breakpoints saved in an IDE must still hit in the next run of the same program:
    the same file names with the same content.  A file whose content changed gets
    another name; files of the last run that no longer belong are removed; a file
    unveil did not write is left alone."""
    dump = tmp_path / "dump"
    dump.mkdir()
    (dump / "notes.txt").write_text("mine")

    def run_program(offset):
        script = tmp_path / "prog.py"
        script.write_text(PROGRAM.replace("OFFSET", offset))
        subprocess.run([sys.executable, str(script), str(dump)], check=True, capture_output=True)
        index = json.loads((dump / "index.json").read_text())
        return {a["base"]: a["file"] for a in index["artifacts"]}, index

    first, _ = run_program("1")
    texts = {name: (dump / name).read_text() for name in first.values()}
    second, index = run_program("1")
    assert first == second and all(base == file for base, file in second.items())
    for name, before in texts.items():       # the same text, uuids in Dynamo's global names aside
        after = (dump / name).read_text()
        assert after.count("\n") == before.count("\n") and content_digest(after) == content_digest(before)
    ours = ["index.json", "notes.txt", "summary.txt"]
    assert sorted(p.name for p in dump.iterdir()) == sorted(list(second.values()) + ours)

    third, index = run_program("2")           # the program changed
    changed = [base for base in third if third[base] != base]
    assert changed and all(third[b].startswith(b[:-3] + ".") for b in changed), third
    assert any("resume_function" in b or "transformed" in b for b in changed)
    assert sorted(p.name for p in dump.iterdir()) == sorted(list(third.values()) + ours)
    # names follow the code: f's transformed code and guards did not change (their header
    # names the resume function's file, which did), so they keep their names
    assert third["f.compile_0_0.transformed.py"] == "f.compile_0_0.transformed.py", third
    assert third["f.compile_0_0.guards.py"] == "f.compile_0_0.guards.py", third
    resume = next(b for b in third if b.endswith(".resume_function.py") and third[b] != b)
    assert third[resume] in (dump / "f.compile_0_0.transformed.py").read_text()
    # the full code names this run's own graph files
    full = next(a["file"] for a in index["artifacts"] if a["kind"] == "full_code")
    named = re.findall(r"# Graph \S+ \(file (\S+)\)", (dump / full).read_text())
    assert named and all((dump / name).exists() for name in named)
    fourth, _ = run_program("1")            # back to the first program: back to the plain names
    assert fourth == first, fourth


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
    def broken(code, **options):
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
    assert "# report (open it in a browser): %s" % (tmp_path / "report" / "index.html") in out


def _plus_one(x):
    return x + 1


def _times_two(x):
    return x * 2


def test_a_block_ended_by_an_exception_keeps_the_last_runs_files_and_a_complete_one_removes_them(tmp_path):
    """A debugger quit early (an exception through the block) must not delete the files of
    code it did not reach this time: breakpoints are set in them before the next run.  The
    index and summary say so, and which they are: they described only the new run, the
    files beside it unexplained (a new-user trial).  A block that ends normally leaves only
    what it wrote."""
    torch._dynamo.reset()
    with unveil.prepare_debug(tmp_path):
        torch.compile(_plus_one, backend="eager")(torch.ones(2))
    first = {p.name for p in tmp_path.glob("_plus_one.*")}
    assert first
    torch._dynamo.reset()
    with pytest.raises(KeyboardInterrupt):
        with unveil.prepare_debug(tmp_path):
            torch.compile(_times_two, backend="eager")(torch.ones(2))
            raise KeyboardInterrupt
    assert {p.name for p in tmp_path.glob("_plus_one.*")} == first
    assert list(tmp_path.glob("_times_two.*"))
    index = json.loads((tmp_path / "index.json").read_text())
    assert (index["ended_early"], index["kept_from_an_earlier_run"]) == ("KeyboardInterrupt", sorted(first))
    summary = (tmp_path / "summary.txt").read_text()
    assert "This run ended early, with KeyboardInterrupt" in summary, summary
    assert "%d files of an earlier run" % len(first) in summary and sorted(first)[0] in summary, summary
    from unveil.report import build_report
    with open(build_report(tmp_path), encoding="utf-8") as fh:
        page = fh.read()
    assert "ended early</b>, with KeyboardInterrupt" in page and "<b>%d</b> files of an earlier run" % len(first) in page
    torch._dynamo.reset()
    with unveil.prepare_debug(tmp_path):
        torch.compile(_times_two, backend="eager")(torch.ones(2))
    assert not list(tmp_path.glob("_plus_one.*"))
    index = json.loads((tmp_path / "index.json").read_text())
    assert "ended_early" not in index and "kept_from_an_earlier_run" not in index
    assert "ended early" not in (tmp_path / "summary.txt").read_text()


def test_a_block_sys_exit_0_ends_is_complete_and_one_a_nonzero_status_ends_says_it(tmp_path):
    """``sys.exit(main())`` returning 0 is a program's normal end: the dump was said to have
    "ended early, with SystemExit: 0" and kept the earlier run's files (a new-user trial).
    A nonzero status keeps them, and is said as the status the program ended with."""
    torch._dynamo.reset()
    with unveil.prepare_debug(tmp_path):
        torch.compile(_plus_one, backend="eager")(torch.ones(2))
    first = {p.name for p in tmp_path.glob("_plus_one.*")}
    torch._dynamo.reset()
    with pytest.raises(SystemExit):
        with unveil.prepare_debug(tmp_path):
            torch.compile(_times_two, backend="eager")(torch.ones(2))
            sys.exit(3)
    index = json.loads((tmp_path / "index.json").read_text())
    assert "ended_early" not in index
    assert (index["exit_status"], index["kept_from_an_earlier_run"]) == (3, sorted(first))
    summary = (tmp_path / "summary.txt").read_text()
    assert "This run ended with exit status 3 (a sys.exit): it says what ran up to there." in summary, summary
    from unveil.report import build_report
    with open(build_report(tmp_path), encoding="utf-8") as fh:
        page = fh.read()
    assert "ended with <b>exit status 3</b> (a sys.exit)" in page and "ended early" not in page
    for code in (0, None):
        torch._dynamo.reset()
        with pytest.raises(SystemExit):
            with unveil.prepare_debug(tmp_path):
                torch.compile(_times_two, backend="eager")(torch.ones(2))
                sys.exit(code)
        assert not list(tmp_path.glob("_plus_one.*"))
        index = json.loads((tmp_path / "index.json").read_text())
        assert not {"ended_early", "exit_status", "kept_from_an_earlier_run"} & set(index), index
        assert "This run ended" not in (tmp_path / "summary.txt").read_text()


def test_files_a_killed_run_left_unindexed_are_reused_not_avoided(tmp_path):
    """A run killed before its index leaves files no index names: the next run writes the
    same names (a breakpoint set in them hits), not name.2.py beside them."""
    torch._dynamo.reset()
    with unveil.prepare_debug(tmp_path):
        torch.compile(_plus_one, backend="eager")(torch.ones(2))
    names = sorted(p.name for p in tmp_path.glob("_plus_one.*"))
    (tmp_path / "index.json").unlink()               # as if killed before writing it
    torch._dynamo.reset()
    with unveil.prepare_debug(tmp_path):
        torch.compile(_plus_one, backend="eager")(torch.ones(2))
    assert sorted(p.name for p in tmp_path.glob("_plus_one.*")) == names


def test_the_supported_torch_releases_are_named_and_older_ones_refused():
    from unveil.dynamo.adapter import versions
    assert versions.unsupported_torch("2.13.0") is None and versions.unsupported_torch("2.15.0+cu132") is None
    assert versions.unsupported_torch("2.10.0+cu128") == (
        "torch 2.10.0+cu128 is older than unveil supports (torch 2.13 to 2.15); the program runs on without unveil")
    assert versions.untested_torch("2.15.1") is None
    assert "newer than unveil was tested with (up to 2.15)" in versions.untested_torch("2.16.0")


@pytest.mark.parametrize("debugging", [False, True])
def test_an_older_torch_is_refused_in_one_line_and_the_program_runs_on_without_unveil(debugging, tmp_path,
                                                                                       monkeypatch):
    from unveil.dynamo.adapter import versions
    monkeypatch.setattr(versions, "torch_version", lambda: "2.10.0")
    x = torch.randn(4)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with (unveil.debug(tmp_path) if debugging else unveil.prepare_debug(tmp_path)) as session:
            assert not hooks_installed()
            out = run(f, x)
    torch.testing.assert_close(out, f(x))
    messages = [str(w.message) for w in caught if issubclass(w.category, UnveilWarning)]
    assert messages == ["unveil: torch 2.10.0 is older than unveil supports (torch 2.13 to 2.15); "
                        "the program runs on without unveil"]
    assert session.inert and not list(tmp_path.iterdir())


def test_a_hook_point_missing_from_torch_is_a_failure_of_ours_and_the_program_runs_on(tmp_path, monkeypatch):
    """A torch release that moved a hook point: the session says what failed, attaches
    nothing, and the program runs on as if unveil were not there."""
    from unveil.dynamo.adapter import patches
    monkeypatch.setattr(patches.ResumeFunctionInstall, "name", "no_such_method_in_this_torch")
    x = torch.randn(4)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with unveil.prepare_debug(tmp_path) as session:
            assert not hooks_installed()
            out = run(f, x)
    torch.testing.assert_close(out, f(x))
    assert session.inert and len(session.failures) == 1
    assert "attaching unveil's hooks to torch" in session.failures[0]["what"]
    assert "no_such_method_in_this_torch" in session.failures[0]["error"]
    assert len([w for w in caught if issubclass(w.category, UnveilWarning)]) == 1
    assert not hooks_installed()


def test_a_files_digest_leaves_out_uuids_whatever_their_digits():
    """torch names each graph's global with a uuid; a uuid whose group is all digits
    (12345678) read as an object id in a name Dynamo made, the rest of the uuid was then
    kept, and a file whose code had not changed got another name in one run in several
    (a second run under debug() wrote Net.forward.compile_0_0.transformed.e2c7b996.py)."""
    texts = ["graph_out_0 = __compiled_fn_2_%s(x)\n" % uuid for uuid in (
        "12345678_e186_455b_bd95_a524ec3bb8ed", "cc74e3d3_3017_4e60_b743_98cfb6b02d8d",
        "81ae704a_9a13_4693_8bb3_123456789012")]
    assert len({content_digest(text) for text in texts}) == 1


def test_a_files_digest_leaves_out_the_dict_version_a_guard_compares():
    """A guard on a dict's version (vmap's on torch's pytree registry) compares a count of
    the process's dict changes: each run named the guards and full-code files anew
    (f.compile_0_0.guards.891715c4.py, then .a629503b.py: a new-user trial)."""
    texts = ["if not (dict_version(__import__('torch').utils._pytree.SUPPORTED_NODES) == %d):\n" % version
             for version in (939462, 939480, 12)]
    assert len({content_digest(text) for text in texts}) == 1
    assert content_digest("if not (x == 939462):\n") != content_digest("if not (x == 939480):\n")


def test_a_long_qualified_name_loses_whole_enclosing_names_before_characters():
    """transformers' GradientCheckpointingLayer makes forward_with_checkpointing in its
    __init_subclass__: cut through its characters, the file name read
    ``GradientCheckpointingLayer.______.forward_with_checkpointing``."""
    from unveil.dynamo.dump.directory import safe_name
    assert safe_name("GradientCheckpointingLayer.__init_subclass__.forward_with_checkpointing") == \
        "GradientCheckpointingLayer.__init_subclass__.forward_with_checkpointing"      # short enough: as it is
    assert safe_name("Model.a_rather_long_method_name.and_another_one.inner.torch_dynamo_resume_in_inner_at_1234") \
        == "Model.a_rather_long_method_name.torch_dynamo_resume_in_inner_at_1234"
    long_one = "f" * 100
    assert safe_name(long_one) == "f" * 39 + "__" + "f" * 39


def test_a_long_class_name_loses_its_middle_and_the_functions_name_stays_whole():
    """``BertForSequenceClassification.torch_dynamo_resume_in_forward_at_1098`` was cut
    through both, to ``BertForSequenceClassification__amo_resume_in_forward_at_1098`` (a
    new-user trial); 68 characters now stay, and past the limit the class loses its middle."""
    from unveil.dynamo.dump.directory import safe_name
    name = "BertForSequenceClassification.torch_dynamo_resume_in_forward_at_1098"
    assert safe_name(name) == name
    longer = "AVeryLongModelNameForSequenceClassification.torch_dynamo_resume_in_forward_at_1098"
    assert safe_name(longer) == "AVeryLongModelNameF__quenceClassification.torch_dynamo_resume_in_forward_at_1098"
    assert len(safe_name(longer)) == 80


COMPILED_OPTIMIZER_STEP = """import torch, unveil, sys
torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 1))
opt = torch.optim.AdamW(model.parameters(), lr=1e-2)

@torch.compile(backend="eager")
def train_step(x, y):
    opt.zero_grad(set_to_none=True)
    loss = torch.nn.functional.mse_loss(model(x), y)
    loss.backward()
    opt.step()
    return loss

x = torch.randn(32, 8); y = torch.randn(32, 1)
with unveil.prepare_debug(sys.argv[1]):
    for i in range(2):
        train_step(x, y)
"""


def test_a_full_code_script_whose_code_reads_the_global_name_still_runs_its_entries(tmp_path):
    """AdamW's step, compiled inside a train step: the code of the optimizer's profiling
    wrapper reads the global ``__name__``, which the script rebinds to the module's name
    (``torch.optim.optimizer``) for it; its ``if __name__ == "__main__":`` was then false, and
    the script printed nothing and exited 0.  Found by a new-user trial."""
    (tmp_path / "opt.py").write_text(COMPILED_OPTIMIZER_STEP)
    made = subprocess.run([sys.executable, "opt.py", "dump"], cwd=tmp_path, capture_output=True, text=True,
                          timeout=600)
    assert made.returncode == 0, made.stderr[-3000:]
    script = tmp_path / "dump" / "Optimizer.profile_hook_step.wrapper.full_code.py"
    text = script.read_text()
    assert "\n__name__ = dynamo_global(G, '__name__')" in text, text
    done = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    assert re.match(r"compile \d+/\d+: ", done.stdout), done.stdout + done.stderr[-3000:]


class _BreakingNet(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(4, 4)

    def forward(self, x):
        h = self.fc(x)
        print("a break")
        return h.relu()


def test_a_program_run_again_in_one_process_keeps_its_file_names(tmp_path, capsys):
    """A notebook cell run again, or pdb's restart: Dynamo's process-wide counters go on
    (``__builtins_dict___1`` then ``___7``, ``__resume_at_72_3`` then ``_9``), which the
    name check took for a change of code, so the second run wrote ``...transformed.<digest>.py``
    and a breakpoint set in the first run's file no longer hit (a new-user trial)."""
    model = torch.compile(_BreakingNet(), backend="eager")
    names = []
    for _ in range(2):
        with unveil.debug(tmp_path):
            model(torch.ones(2, 4))
        names.append(sorted(p.name for p in tmp_path.glob("*.py")))
    assert names[0] == names[1], names
    assert any(name.endswith(".transformed.py") for name in names[0]), names


@pytest.mark.parametrize("debugging", [False, True])
def test_a_directory_holding_a_users_index_is_one_warning_and_left_as_it_is(debugging, tmp_path):
    """``debug(d)`` where ``d`` holds the user's own ``index.json``: it was replaced without
    a word (a new-user trial).  Nothing is dumped there, one warning says why, the program
    runs on, and a dump's own index of an earlier run is no such file."""
    (tmp_path / "index.json").write_text('{"mine": 1}')
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with (unveil.debug(tmp_path) if debugging else unveil.prepare_debug(tmp_path)):
            out = torch.compile(_plus_one, backend="eager")(torch.ones(2))
    assert out.tolist() == [2.0, 2.0]
    warned = [w for w in caught if issubclass(w.category, UnveilWarning)]
    assert len(warned) == 1 and "(its index.json is not unveil's): nothing is dumped" in str(warned[0].message), \
        warned
    assert (tmp_path / "index.json").read_text() == '{"mine": 1}' and len(list(tmp_path.iterdir())) == 1
    (tmp_path / "index.json").unlink()
    for _ in range(2):               # (a dump's own index, of the run before, is unveil's)
        torch._dynamo.reset()
        with (unveil.debug(tmp_path) if debugging else unveil.prepare_debug(tmp_path)):
            torch.compile(_plus_one, backend="eager")(torch.ones(2))
        assert json.loads((tmp_path / "index.json").read_text())["compiles"]


_STEP = "import torch\n\n\ndef step(x):\n    y = x.sin()\n    torch._dynamo.graph_break()\n    return y.cos()\n"


def test_a_file_name_never_stands_for_two_functions_across_runs(tmp_path, monkeypatch):
    """Two functions ``step`` of two modules, compiled in one order, then the other: their
    code reads the same but for comments, so ``step.compile_0_0.transformed.py`` kept its
    name and stood for ``mod_b``'s step in the second run, ``mod_a``'s in the first: a
    breakpoint saved in it stopped in the other function (a new-user trial).  Now no file
    name is another function's in a later run."""
    for name in ("mod_a", "mod_b"):
        (tmp_path / (name + ".py")).write_text(_STEP)
    monkeypatch.syspath_prepend(str(tmp_path))
    import mod_a
    import mod_b
    dump = tmp_path / "dump"
    whose = {}
    for order in ((mod_a, mod_b), (mod_b, mod_a), (mod_a, mod_b)):
        torch._dynamo.reset()
        with unveil.debug(dump):
            for module in order:
                torch.compile(module.step, backend="eager")(torch.ones(2))
        for path in dump.glob("*.py"):
            origin = re.search(r"/(mod_[ab])\.py", path.read_text())
            if origin is not None:
                assert whose.setdefault(path.name, origin.group(1)) == origin.group(1), (path.name, whose)
    assert any(".transformed." in name for name in whose), whose


@pytest.mark.parametrize("debugging", [False, True])
def test_a_dump_directory_that_cannot_be_written_is_one_warning_at_the_users_line(debugging, tmp_path):
    """The warning named unveil's own ``stepping.py`` under ``debug()`` (whose ``__enter__``
    enters prepare_debug's): it names the ``with`` line of the user's, as under prepare_debug."""
    blocked = tmp_path / "a_file"
    blocked.write_text("")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        line = sys._getframe().f_lineno + 1
        with (unveil.debug(blocked / "dump") if debugging else unveil.prepare_debug(blocked / "dump")):
            out = torch.compile(_plus_one, backend="eager")(torch.ones(2))
    assert out.tolist() == [2.0, 2.0]
    warned = [w for w in caught if issubclass(w.category, UnveilWarning)]
    assert len(warned) == 1 and "cannot write to the dump directory" in str(warned[0].message), warned
    assert (warned[0].filename, warned[0].lineno) == (__file__, line), (warned[0].filename, warned[0].lineno)


@pytest.mark.parametrize("debugging", [False, True])
def test_a_block_inside_another_on_the_same_directory_is_one_warning_and_the_program_runs_on(debugging, tmp_path):
    """``debug(d)`` inside ``prepare_debug(d)`` (or a program that opens ``debug("unveil-dump")``
    run by ``unveil run``): the inner block raised RuntimeError ("another active session
    writes into ...") into the user's program (a new-user trial).  It dumps nothing, says so
    once at the user's line, and the outer block's dump is whole."""
    torch._dynamo.reset()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with unveil.prepare_debug(tmp_path):
            line = sys._getframe().f_lineno + 1
            with (unveil.debug(tmp_path) if debugging else unveil.prepare_debug(tmp_path)):
                out = torch.compile(_plus_one, backend="eager")(torch.ones(2))
    assert out.tolist() == [2.0, 2.0]
    warned = [w for w in caught if issubclass(w.category, UnveilWarning)]
    assert len(warned) == 1 and "already writes into %s: this one dumps nothing" % tmp_path in str(warned[0].message), \
        warned
    assert (warned[0].filename, warned[0].lineno) == (__file__, line), (warned[0].filename, warned[0].lineno)
    assert (tmp_path / "index.json").exists() and list(tmp_path.glob("_plus_one.compile_0_0.transformed.py"))


FLAG_SET_BY_THE_PROGRAM = """import sys, torch, unveil
SCALE_UP = False

def forward(x):
    y = x + 1
    if SCALE_UP:
        y = y * 2
    return y

if __name__ == "__main__":
    compiled = torch.compile(forward, backend="eager")
    with unveil.prepare_debug(sys.argv[1]):
        compiled(torch.ones(3))
        SCALE_UP = True
        compiled(torch.ones(3))
"""


def _full_code_script_run(tmp_path, program):
    """``program`` run (it dumps ``forward`` into ``dump``), then its full-code script, in new
    processes; the script's completed process."""
    (tmp_path / "program.py").write_text(program)
    made = subprocess.run([sys.executable, "program.py", "dump"], cwd=tmp_path, capture_output=True, text=True,
                          timeout=600)
    assert made.returncode == 0, made.stderr[-3000:]
    done = subprocess.run([sys.executable, str(tmp_path / "dump" / "forward.full_code.py")], cwd=tmp_path,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    return done


def test_a_full_code_script_runs_each_entry_with_the_flags_its_guards_check(tmp_path):
    """A program that sets a global flag after import, then compiles again: the script made
    each entry's inputs from its guards but left the flag at the module's top-level value,
    so the second entry failed its own guards and its code 'gave values that differ' (a
    new-user trial).  The flag its guards check is now set for the entry, and put back."""
    done = _full_code_script_run(tmp_path, FLAG_SET_BY_THE_PROGRAM)
    assert "inputs made from the guards of compile 0/1 (with SCALE_UP = True, as its guards check):\n" \
           "  guards: 0/1 passes, 0/0 fails\n" in done.stdout, done.stdout
    assert "inputs made from the guards of compile 0/0:\n  guards: 0/1 fails, 0/0 passes\n" in done.stdout, done.stdout
    assert done.stdout.count(", the same values") == 2 and "differ" not in done.stdout, done.stdout


ATTRIBUTE_SET_BY_THE_PROGRAM = """import sys, torch, unveil

class Config:
    scale = 1

CFG = Config()

def forward(x):
    return x * CFG.scale

if __name__ == "__main__":
    compiled = torch.compile(forward, backend="eager")
    CFG.scale = 3
    with unveil.prepare_debug(sys.argv[1]):
        compiled(torch.ones(3))
"""


def test_a_full_code_script_says_when_an_entry_fails_its_own_guards(tmp_path):
    """What a guard checks is not all rebuilt (an attribute the program set): the entry's
    own guards fail on the inputs made for it, and its code's result is no verdict on the
    code; the script says so rather than let 'values that differ' read as one."""
    done = _full_code_script_run(tmp_path, ATTRIBUTE_SET_BY_THE_PROGRAM)
    # and which check fails (a new-user trial could not tell what was not rebuilt)
    found = re.search(r"  guards: 0/0 fails\n  \(its own guards fail on these inputs, first at line (\d+) of "
                      r"forward\.full_code\.py: "
                      r"(# EQUALS_MATCH on G\['CFG'\]\.scale: value .*), so Dynamo would not run its code", done.stdout)
    assert found, done.stdout
    lines = (tmp_path / "dump" / "forward.full_code.py").read_text().splitlines()
    assert lines[int(found.group(1)) - 2] == "        " + found.group(2), lines[int(found.group(1)) - 3:int(found.group(1))]
    assert lines[int(found.group(1)) - 1].strip().startswith("if not (") and "== 3" in lines[int(found.group(1)) - 1]


DICT_ARGUMENT = """
import sys
import torch, unveil

def forward(x, opts):
    return x * opts["k"] + opts["bias"]

if __name__ == "__main__":
    compiled = torch.compile(forward, backend="eager")
    with unveil.prepare_debug(sys.argv[1]):
        compiled(torch.ones(3), {"k": 2, "bias": torch.zeros(3)})
"""


def test_a_full_code_script_makes_a_dict_argument_of_the_items_its_guards_check(tmp_path):
    """``opts`` a dict whose item ``opts['k']`` a guard checks: the script made an empty
    dict, said the entry's guards fail, then died with ``KeyError: 'k'`` (a new-user trial)."""
    done = _full_code_script_run(tmp_path, DICT_ARGUMENT)
    assert "inputs made from the guards of compile 0/0:\n  guards: 0/0 passes\n  result of the dispatch: tensor " \
           "float32 (3,)\n  transformed code of compile 0/0: tensor float32 (3,), the same values" in done.stdout, \
        done.stdout
    text = (tmp_path / "dump" / "forward.full_code.py").read_text()
    assert "'opts': {'bias': example_tensor(torch.float32, [3], requires_grad=False), 'k': 2}" in text


PACKED_ARGUMENTS = """
import sys
import torch, unveil

def forward(x, *args, scale=2, **kwargs):
    return x * scale

def reads_args(x, *args):
    return x * len(args)

if __name__ == "__main__":
    with unveil.prepare_debug(sys.argv[1]):
        torch.compile(forward, backend="eager")(torch.ones(3), 1, flag=True)
        torch.compile(reads_args, backend="eager")(torch.ones(3), 1, 2)
"""


def test_a_full_code_script_runs_a_function_taking_args_and_kwargs_its_guards_do_not_read(tmp_path):
    """A function with ``**kwargs`` (every HF model's ``forward``) was "not run: no recorded
    value for" each of its parameters, those its guards record too (a new-user trial, GPT-2).
    Its parameters are passed by keyword, and ``*args`` or ``**kwargs`` nothing, unless a
    guard reads them."""
    done = _full_code_script_run(tmp_path, PACKED_ARGUMENTS)
    assert "inputs made from the guards of compile 0/0:\n  guards: 0/0 passes\n" in done.stdout, done.stdout
    script = tmp_path / "dump" / "reads_args.full_code.py"
    ran = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert re.search(r"^compile 1/0: not run: no recorded value for args ", ran.stdout, re.M), ran.stdout


def test_a_full_code_script_shows_what_the_users_code_raises_on_the_inputs_it_made(tmp_path):
    """Inputs the guards do not describe whole are made up; the user's code may raise on
    them, which is its result, shown for the dispatch and the transformed code alike."""
    from unveil.dynamo.dump.script_runtime import Raised, _outcome
    assert _outcome(lambda **kw: kw["a"][1], {"a": [0]}, True) == Raised(IndexError("list index out of range"))
    assert repr(_outcome(lambda **kw: {}["k"], {}, True)) == "raised KeyError: 'k'"
    assert _outcome(lambda **kw: 1, {}, True) == 1 and Raised(KeyError("k")) != Raised(IndexError("k"))
    # on inputs the entry's own guards pass it is no result: an exception there (a bug of a
    # dumped file, say) ends the script, which the test of every program's script sees
    with pytest.raises(KeyError):
        _outcome(lambda **kw: {}["k"], {}, False)


def _linear_sum(x):
    return _LINEAR(x).sum()


_LINEAR = torch.nn.Linear(8, 4)


def test_a_graph_file_the_backend_changed_in_place_says_so(tmp_path):
    """Run from the dump, AOT Autograd's backward graph file is written again after Inductor's
    post-grad passes change the module in place (``view`` becomes ``reshape``): a new-user
    trial diffed it against a plain dump and saw a difference nothing explained.  The file
    now says it was written again; the plain dump keeps the graph as handed over."""
    files = {}
    for run_dumped in (False, True):
        torch._dynamo.reset()
        dump = tmp_path / ("run_dumped" if run_dumped else "plain")
        with torch._inductor.config.patch(force_disable_caches=True), \
                unveil.prepare_debug(dump, run_dumped=run_dumped) as session:
            torch.compile(_linear_sum, backend="inductor")(torch.randn(3, 8)).backward()
        assert session.failures == []
        files[run_dumped] = next(dump.glob("*.aot_backward.py")).read_text()
    assert "aten.view.default(" in files[False] and "Written again" not in files[False], files[False]
    assert files[True].split("\n")[1].startswith("# Written again: the backend changed this graph module in place"), \
        files[True]
    assert "aten.reshape.default(" in files[True], files[True]


def test_a_crash_reading_where_a_resume_function_goes_on_is_a_reported_failure(tmp_path, monkeypatch):
    """resume_points' refusal (a DecompilationError) leaves the continuation unknown; its
    crash (an InternalError, a bug) was caught by the same except and vanished.  It is a
    failure of the session now, which the tests' ``failures == []`` sees."""
    import unveil.dynamo.session as session_module

    def crash(*args):
        raise unveil.InternalError("a bug")
    monkeypatch.setattr(session_module.resume_points, "continuation", crash)
    torch._dynamo.reset()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with unveil.prepare_debug(tmp_path) as session:
            torch.compile(_BreakingNet(), backend="eager")(torch.ones(2, 4))
    assert any("a bug" in str(f) for f in session.failures), session.failures


class _DeviceHolder:
    pass


_HOLDER = _DeviceHolder()


def _breaks_and_keeps_a_device(x):
    _HOLDER.device = x.device          # a torch.device global: each compile installs it under a name
    y = x.sin()
    print("a graph break")
    return y.cos()


@pytest.mark.parametrize("within", [unveil.prepare_debug, unveil.debug], ids=["prepare_debug", "debug"])
def test_the_programs_own_reset_inside_the_block_starts_a_generation(within, tmp_path):
    """``torch._dynamo.reset()`` inside the block restarts Dynamo's compile ids: the second
    0/0 took the first one's files and records, so summary.txt said 2 compiles of 4, called
    a resume function Dynamo compiled "not compiled", and under debug() the second compile's
    transformed code was refused (its global taken by the first's device) and ran from
    Dynamo's bytecode (a new-user trial).  Only unveil's own resets were seen."""
    torch._dynamo.reset()
    compiled = torch.compile(_breaks_and_keeps_a_device, backend="aot_eager")
    with within(tmp_path) as session:
        first = compiled(torch.ones(3))
        torch._dynamo.reset()
        second = compiled(torch.ones(3))
    assert session.failures == [], session.failures
    assert torch.equal(first, second)
    index = json.loads((tmp_path / "index.json").read_text())
    assert sorted((c["compile_id"], c["generation"]) for c in index["compiles"]) == [
        ("0/0", 0), ("0/0", 1), ("1/0", 0), ("1/0", 1)], index["compiles"]
    assert all(c["compiled"] for c in index["compiles"]), index["compiles"]
    # a function's compiles by label: the bare ids repeated after the reset
    user_fn = next(f for f in index["functions"] if f["name"] == "_breaks_and_keeps_a_device")
    assert user_fn["compiles"] == ["0/0", "0/0_reset1"], user_fn
    transformed = sorted(a["file"] for a in index["artifacts"] if a["kind"] == "transformed_code")
    assert len(set(transformed)) == 4 and sum("_reset1." in f for f in transformed) == 2, transformed
    summary = (tmp_path / "summary.txt").read_text()
    assert "In all: 4 compiles, 2 graph breaks" in summary and "compile 0/0, after reset 1: compiled" in summary, \
        summary
    # (one place broke twice: the count says so, as the report does)
    assert "2 graph breaks at 1 place in the code (each counted once per compile that broke there" in summary, summary
    assert "not compiled" not in summary, summary


def test_a_reset_before_anything_is_compiled_starts_no_generation(tmp_path):
    """A program (or a test) that resets Dynamo first thing inside the block: compile ids
    had not started, and its files must not be named as after a reset."""
    with unveil.prepare_debug(tmp_path) as session:
        torch._dynamo.reset()
        torch.compile(_breaks_and_keeps_a_device, backend="eager")(torch.ones(3))
    assert session.failures == []
    index = json.loads((tmp_path / "index.json").read_text())
    assert {c["generation"] for c in index["compiles"]} == {0}
    assert not any("_reset" in a["file"] for a in index["artifacts"]), index["artifacts"]


DYNAMIC_INT = """
import sys
import torch, unveil

def forward(x, n):
    if n > 2:
        return x * n
    return x - n

if __name__ == "__main__":
    compiled = torch.compile(forward, backend="eager")
    with unveil.prepare_debug(sys.argv[1]):
        compiled(torch.ones(3), 1)
        compiled(torch.ones(3), 3)
        compiled(torch.ones(3), 4)
"""


def test_a_full_code_script_gives_a_dynamic_int_a_value_within_its_guards_bounds(tmp_path):
    """``n`` made dynamic past ``if n > 2`` (its guard ``3 <= L['n']``): the script passed it an
    int of no value the guards name, which failed the entry's own guards, and its code's
    result read 'values that differ' (a new-user trial)."""
    done = _full_code_script_run(tmp_path, DYNAMIC_INT)
    assert "fails, so Dynamo" not in done.stdout and "differ" not in done.stdout, done.stdout
    assert done.stdout.count("the same values") == 2, done.stdout
    assert "guards: 0/1 passes" in done.stdout, done.stdout
