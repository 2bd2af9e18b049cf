"""``unveil run``: an unmodified program runs exactly as ``python`` runs it (argv,
``__main__``, ``sys.path[0]``, stdin, stdout, exit status, the traceback of its own
error), with everything torch.compile did dumped; compared against a plain run."""
import json
import os
import re
import subprocess
import sys

import pytest

EXAMPLES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "run_examples")
SCRIPT = "compiled_script.py"


def _run(argv, cwd, stdin="a line on stdin\n"):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    return subprocess.run(argv, cwd=cwd, input=stdin, capture_output=True, text=True, env=env, timeout=600)


def _unveil(*args):
    return [sys.executable, "-m", "unveil", "run"] + list(args)


def _dump_is_complete(dump, function):
    index = json.loads((dump / "index.json").read_text())
    kinds = {a["kind"] for a in index["artifacts"] if a["function"].startswith(function)}
    assert {"transformed_code", "guards", "graph", "full_code"} <= kinds, kinds
    assert index["compiles"] and (dump / "summary.txt").exists()
    return index


#: what the index says of how each mode ended: ``sys.exit(0)`` is a normal end (a new-user
#: trial's ``sys.exit(main())`` was said to have "ended early, with SystemExit: 0")
ENDINGS = {"ok": {}, "exit0": {}, "exit": {"exit_status": 7}, "message": {"exit_status": 1},
           "raise": {"ended_early": "ValueError: the program's own error"}}


@pytest.mark.parametrize("mode, status", [("ok", 0), ("exit0", 0), ("exit", 7), ("message", 1), ("raise", 1)])
def test_a_script_runs_as_python_runs_it(mode, status, tmp_path):
    plain = _run([sys.executable, SCRIPT, mode], EXAMPLES)
    ours = _run(_unveil("--dump-dir", str(tmp_path / "dump"), SCRIPT, mode), EXAMPLES)
    assert plain.returncode == status, plain.stderr
    assert ours.returncode == plain.returncode, ours.stderr
    assert ours.stdout == plain.stdout
    assert "argv ['compiled_script.py', '%s']" % mode in ours.stdout
    assert "path0 True" in ours.stdout and "main __main__ None True" in ours.stdout
    assert "stdin a line on stdin" in ours.stdout and "result [4.0, 4.0, 4.0]" in ours.stdout
    *program_err, last = ours.stderr.rstrip("\n").split("\n")
    assert "\n".join(program_err).strip() == plain.stderr.strip()      # the same traceback or message
    assert last == "unveil: dump in %s, report %s" % (tmp_path / "dump", tmp_path / "dump" / "report" / "index.html")
    index = _dump_is_complete(tmp_path / "dump", "step")
    assert any(c["graph_break"] for c in index["compiles"])
    assert {k: index[k] for k in ("ended_early", "exit_status") if k in index} == ENDINGS[mode]


def test_a_program_a_ctrl_c_ends_ends_as_under_python(tmp_path):
    """SIGINT while the program runs: python prints the KeyboardInterrupt's traceback and
    dies of the signal (status -2 to its parent); ``unveil run`` exited 130 (a new-user
    trial).  It now dies of it too, after its own last line."""
    import signal
    import time
    script = tmp_path / "slow.py"
    script.write_text("import time\nprint('started', flush=True)\ntime.sleep(60)\n")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    ended = []
    for argv in ([sys.executable, str(script)], _unveil("--no-report", "--dump-dir", str(tmp_path / "dump"),
                                                        str(script))):
        # (a shell runs a background job, as .ci/run runs the torch session, with SIGINT ignored,
        # and then python never installs its KeyboardInterrupt handler: the child gets the default)
        child = subprocess.Popen(argv, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                 env=env, preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
        assert child.stdout.readline() == "started\n"
        time.sleep(0.5)
        child.send_signal(signal.SIGINT)
        out, err = child.communicate(timeout=120)
        ended.append((child.returncode, err))
    (plain, plain_err), (ours, ours_err) = ended
    assert plain == ours == -signal.SIGINT, ended
    assert "KeyboardInterrupt" in plain_err and "KeyboardInterrupt" in ours_err, ended


def test_the_user_stack_of_a_break_starts_at_the_program_not_at_unveil(tmp_path):
    """Dynamo's user stack goes out to the process's first frame: under ``unveil run``
    that is unveil's command line and runner (and runpy's, for ``python -m unveil``),
    which are not the program's; the stack starts where ``python SCRIPT`` starts it."""
    ours = _run(_unveil("--no-report", "--dump-dir", str(tmp_path / "dump"), SCRIPT), EXAMPLES)
    assert ours.returncode == 0, ours.stderr
    index = json.loads((tmp_path / "dump" / "index.json").read_text())
    stacks = [c["graph_break"]["user_stack"] for c in index["compiles"] if c["graph_break"]]
    assert stacks
    for stack in stacks:
        assert [(os.path.basename(f["filename"]), f["function"]) for f in stack] == [
            (SCRIPT, "<module>"), (SCRIPT, "step")], stack
    # and the stack each compile was reached by (the report's call chains) starts there too
    reached = [c["stack"] for c in index["compiles"] if c["stack"]]
    assert reached
    for stack in reached:
        assert all(os.path.basename(f["filename"]) == SCRIPT for f in stack), stack
    assert any(stack[0]["function"] == "<module>" for stack in reached), reached


def test_options_after_the_script_go_to_the_program(tmp_path):
    ours = _run(_unveil("--dump-dir", str(tmp_path / "dump"), SCRIPT, "--dump-dir", "x"), EXAMPLES)
    assert "argv ['compiled_script.py', '--dump-dir', 'x']" in ours.stdout, ours.stderr


def test_a_module_runs_as_python_dash_m_runs_it(tmp_path):
    plain = _run([sys.executable, "-m", "compiled_module", "a", "--b"], EXAMPLES)
    ours = _run(_unveil("--dump-dir", str(tmp_path / "dump"), "-m", "compiled_module", "a", "--b"), EXAMPLES)
    assert plain.returncode == ours.returncode == 0, ours.stderr
    assert ours.stdout == plain.stdout
    assert "argv ['compiled_module.py', 'a', '--b']" in ours.stdout and "path0 True" in ours.stdout
    assert "main __main__ compiled_module" in ours.stdout
    _dump_is_complete(tmp_path / "dump", "wave")


APP_MAIN = """import sys, torch
print("argv", sys.argv, "path0", sys.path[0], "name", __name__)

@torch.compile(backend="eager")
def twice(x):
    return x * 2

print("result", twice(torch.ones(2)).tolist())
"""


@pytest.mark.parametrize("archive", [False, True])
def test_a_directory_or_zip_with_a_main_module_runs_as_python_runs_it(archive, tmp_path):
    """``python app/`` and ``python app.zip`` run the ``__main__.py`` inside, with the directory
    or archive as ``sys.path[0]``; ``unveil run app`` said "no such script" (a new-user trial)."""
    app = tmp_path / "app"
    app.mkdir()
    (app / "__main__.py").write_text(APP_MAIN)
    target = "app"
    if archive:
        import zipfile
        with zipfile.ZipFile(tmp_path / "app.zip", "w") as zf:
            zf.write(app / "__main__.py", "__main__.py")
        target = "app.zip"
    plain = _run([sys.executable, target, "x"], tmp_path)
    ours = _run(_unveil("--no-report", "--dump-dir", str(tmp_path / "dump"), target, "x"), tmp_path)
    assert plain.returncode == ours.returncode == 0, ours.stderr
    assert ours.stdout == plain.stdout
    assert "argv ['%s', 'x'] path0 %s name __main__" % (target, tmp_path / target) in ours.stdout
    assert "result [2.0, 2.0]" in ours.stdout
    assert (tmp_path / "dump" / "index.json").exists()


def test_under_debug_the_compiled_code_runs_from_the_dump(tmp_path):
    ours = _run(_unveil("--debug", "--dump-dir", str(tmp_path / "dump"), SCRIPT), EXAMPLES)
    assert ours.returncode == 0, ours.stderr
    assert "result [4.0, 4.0, 4.0]" in ours.stdout
    _dump_is_complete(tmp_path / "dump", "step")


@pytest.mark.parametrize("argv, message, missing", [
    (["no_such_script.py"], "no such script: no_such_script.py", True),
    (["not_a_program"], "can't find '__main__' module in 'not_a_program'", True),
    (["-m", "no_such_module"], "no module named no_such_module", True),
    ([], "give a script to run, or -m MODULE", False),
    (["-m"], "-m needs a module name", False),
    (["--dump-dir", "/etc/passwd", SCRIPT], "dump directory /etc/passwd exists and is not a directory", False),
])
def test_bad_input_is_one_line(argv, message, missing, tmp_path):
    """A usage error exits 2; a program that is not there exits as python exits for it (2 for
    a script, 1 for a module)."""
    done = _run(_unveil(*argv), EXAMPLES)
    assert done.stderr == "unveil: error: %s\n" % message, done.stderr
    assert done.stdout == ""
    assert done.returncode == (_run([sys.executable] + argv, EXAMPLES).returncode if missing else 2)


@pytest.mark.parametrize("argv, message", [
    (["--backend", "nope"], "unknown backend 'nope'"),
    (["--dump-dir", "/etc/passwd"], "dump directory /etc/passwd exists and is not a directory"),
])
def test_the_demo_with_bad_options_is_one_line(argv, message, tmp_path):
    done = _run([sys.executable, "-m", "unveil", "demo"] + argv, tmp_path)
    assert done.returncode == 2
    assert done.stderr.startswith("unveil: error: %s" % message) and done.stderr.count("\n") == 1, done.stderr


def test_open_hands_the_report_to_the_web_browser(tmp_path):
    record = tmp_path / "browser.py"
    record.write_text("import sys\nopen(sys.argv[2], 'w').write(sys.argv[1])\n")
    opened = tmp_path / "opened.txt"
    env_browser = "%s %s %%s %s" % (sys.executable, record, opened)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p), BROWSER=env_browser)
    done = subprocess.run(_unveil("--open", "--dump-dir", str(tmp_path / "dump"), SCRIPT), cwd=EXAMPLES,
                          input="x\n", capture_output=True, text=True, env=env, timeout=600)
    assert done.returncode == 0, done.stderr
    assert opened.read_text() == (tmp_path / "dump" / "report" / "index.html").as_uri()


def unwritable_directory(tmp_path):
    """A directory that exists and that this process cannot write into: one without write
    permission, or (for root, whom permissions do not stop) /sys or /proc, which take no
    new file."""
    mine = tmp_path / "read_only"
    mine.mkdir()
    mine.chmod(0o555)
    for candidate in (str(mine), "/sys", "/proc"):
        try:
            with open(os.path.join(candidate, ".probe"), "w"):
                pass
        except OSError:
            return candidate
        os.remove(os.path.join(candidate, ".probe"))
    raise AssertionError("no directory this process cannot write into")


def test_an_unwritable_dump_directory_is_a_one_line_error_before_the_program_runs(tmp_path):
    where = unwritable_directory(tmp_path)
    done = _run(_unveil("--dump-dir", where, SCRIPT), EXAMPLES)
    assert done.returncode == 2 and done.stdout == "", done.stdout
    assert re.fullmatch(r"unveil: error: cannot write to dump directory %s: [^\n]+\n" % re.escape(where),
                        done.stderr), done.stderr


@pytest.mark.parametrize("name, text", [("index.json", '{"mine": 1}'), ("summary.txt", "my notes")])
def test_a_directory_holding_a_users_index_or_summary_is_refused_before_the_program_runs(name, text, tmp_path):
    """A dump replaces its directory's ``index.json`` and ``summary.txt``: a user's own (a
    directory of results named as the dump) was overwritten without a word (a new-user
    trial), though the README says files unveil did not write are never touched."""
    (tmp_path / name).write_text(text)
    done = _run(_unveil("--dump-dir", str(tmp_path), SCRIPT), EXAMPLES)
    assert done.returncode == 2 and done.stdout == "", done.stdout
    assert done.stderr == "unveil: error: will not write into dump directory %s: its %s is not unveil's " \
                          "(--dump-dir DIR: another)\n" % (tmp_path, name), done.stderr
    assert (tmp_path / name).read_text() == text and sorted(p.name for p in tmp_path.iterdir()) == [name]


def test_a_dump_whose_index_cannot_be_written_is_not_said_to_have_compiled_nothing(tmp_path):
    dump = tmp_path / "dump"
    (dump / "index.json").mkdir(parents=True)          # the index cannot take its place
    done = _run(_unveil("--no-report", "--dump-dir", str(dump), SCRIPT), EXAMPLES)
    assert done.returncode == 0 and "result [4.0, 4.0, 4.0]" in done.stdout, done.stderr
    last = done.stderr.rstrip("\n").split("\n")[-1]
    assert last.startswith("unveil: the dump in %s is not complete: writing it failed (IsADirectoryError" % dump), last


UNWRITABLE_PROGRAM = """
import sys
import warnings

import torch
import unveil


def f(x):
    x = x + 1
    print("a graph break")
    return x * 2


with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    with unveil.prepare_debug(sys.argv[1]) as session:
        out = torch.compile(f, backend="eager")(torch.ones(3))
print("result", out.tolist())
print("index", session.index_file, "failures", len(session.failures))
for w in caught:
    print("warning", w.category.__name__, str(w.message))
"""


def test_inside_prepare_debug_an_unwritable_directory_is_one_warning_naming_it(tmp_path):
    """The program runs on; one warning says which folder cannot be written (not a
    failure of some file of it, nor "nothing was compiled")."""
    where = unwritable_directory(tmp_path)
    (tmp_path / "prog.py").write_text(UNWRITABLE_PROGRAM)
    done = _run([sys.executable, str(tmp_path / "prog.py"), where], tmp_path)
    assert done.returncode == 0, done.stderr
    assert "result [4.0, 4.0, 4.0]" in done.stdout and "index None failures 0" in done.stdout, done.stdout
    warned = [line for line in done.stdout.splitlines() if line.startswith("warning ")]
    assert len(warned) == 1 and warned[0].startswith(
        "warning UnveilWarning unveil: cannot write to the dump directory %s (" % where), warned


def test_a_run_that_compiles_nothing_makes_no_dump_directory(tmp_path):
    """A dump directory made for the run and left empty is removed again (the run said the
    directory was "left as it was" while it had made it)."""
    dump = tmp_path / "dump"
    done = _run(_unveil("--dump-dir", str(dump), SCRIPT, "early"), EXAMPLES)
    assert done.returncode == 1 and "stopped before compiling anything" in done.stderr
    assert done.stderr.rstrip().endswith("unveil: nothing was compiled; no dump directory was made"), done.stderr
    assert not dump.exists()


def test_a_run_that_compiles_nothing_leaves_the_last_dump_as_it_was(tmp_path):
    dump = tmp_path / "dump"
    first = _run(_unveil("--dump-dir", str(dump), SCRIPT), EXAMPLES)
    assert first.returncode == 0, first.stderr
    before = {p.name: p.read_bytes() for p in dump.iterdir() if p.is_file()}
    again = _run(_unveil("--dump-dir", str(dump), SCRIPT, "early"), EXAMPLES)
    assert again.returncode == 1 and "stopped before compiling anything" in again.stderr
    assert again.stderr.rstrip().endswith("unveil: nothing was compiled; %s is left as it was" % dump)
    assert {p.name: p.read_bytes() for p in dump.iterdir() if p.is_file()} == before


RELATIVE = '''
import torch, unveil

def f(x):
    y = x + 1
    print("break")
    return y * 2

if __name__ == "__main__":
    with unveil.prepare_debug(%r):
        torch.compile(f)(torch.ones(3))
'''


def test_a_script_with_a_relative_file_name_is_found_from_another_directory(tmp_path):
    """``python -m debugpy prog.py`` runs the script through runpy, with the relative name it
    was given: Dynamo's records and the code say ``prog.py``.  From another directory the
    report still shows its source, its full-code file still runs and ``why-recompile`` still
    loads its module."""
    program, dump = tmp_path / "program", tmp_path / "dump"
    program.mkdir()
    (program / "prog.py").write_text(RELATIVE % str(dump))
    ran = _run([sys.executable, "-c", "import runpy; runpy.run_path('prog.py', run_name='__main__')"], program)
    assert ran.returncode == 0, ran.stderr
    index = json.loads((dump / "index.json").read_text())
    assert [fn["filename"] for fn in index["functions"] if fn["name"] == "f"] == ["prog.py"]
    report = _run([sys.executable, "-m", "unveil", "report", str(dump)], tmp_path)
    assert report.returncode == 0, report.stderr
    assert "return y * 2</span>" in (dump / "report" / "function_f.html").read_text()
    full = _run([sys.executable, str(dump / "f.full_code.py")], tmp_path)
    assert full.returncode == 0, full.stderr
    why = _run([sys.executable, "-m", "unveil", "why-recompile", str(dump), "f", "torch.ones(3)"], tmp_path)
    assert why.returncode == 0, why.stderr
    assert "=> compile 0/0 runs" in why.stdout.splitlines(), why.stdout


PARSES_ITS_ARGUMENTS = '''
import argparse
import torch

parser = argparse.ArgumentParser()
parser.add_argument("--lr", type=float, default=1e-3)
args = parser.parse_args()


@torch.compile(backend="eager")
def f(x):
    return x * args.lr


print(f(torch.ones(3)).tolist())
'''


def test_a_script_that_parses_its_arguments_at_the_top_is_loaded_with_them(tmp_path):
    """why-recompile and a full-code file load the user's module in a new process: its
    top-level code parsed unveil's command line (``unrecognized arguments: why-recompile
    ...``, a new-user trial); it sees the program's ``sys.argv``."""
    (tmp_path / "argp.py").write_text(PARSES_ITS_ARGUMENTS)
    ran = _run(_unveil("--no-report", "--dump-dir", str(tmp_path / "dump"), "argp.py", "--lr", "0.5"), tmp_path)
    assert ran.returncode == 0 and "[0.5, 0.5, 0.5]" in ran.stdout, ran.stderr
    assert json.loads((tmp_path / "dump" / "index.json").read_text())["argv"] == ["argp.py", "--lr", "0.5"]
    why = _run([sys.executable, "-m", "unveil", "why-recompile", str(tmp_path / "dump"), "f", "torch.ones(3)"],
               tmp_path)
    assert why.returncode == 0 and "=> compile 0/0 runs" in why.stdout.splitlines(), why.stderr
    full = _run([sys.executable, str(tmp_path / "dump" / "f.full_code.py")], tmp_path)
    assert full.returncode == 0, full.stderr


PACKAGE_MODULE = '''import sys, torch
from . import helper


@torch.compile(backend="eager")
def f(x):
    return helper.double(x) + 1


if __name__ == "__main__":
    print(f(torch.ones(3)).tolist(), sys.argv[1:])
'''


def test_a_package_module_run_with_dash_m_is_loaded_with_its_package(tmp_path):
    """``unveil run -m pkg.mod``: a new process loaded ``__main__``'s file on its own, so
    its relative imports failed in why-recompile and the full-code file (a new-user trial);
    and index.json's argv named the module where the program saw its file."""
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "helper.py").write_text("def double(x):\n    return x * 2\n")
    (tmp_path / "pkg" / "mod.py").write_text(PACKAGE_MODULE)
    ran = _run(_unveil("--no-report", "--dump-dir", str(tmp_path / "dump"), "-m", "pkg.mod", "a1"), tmp_path)
    assert ran.returncode == 0 and "[3.0, 3.0, 3.0] ['a1']" in ran.stdout, ran.stderr
    index = json.loads((tmp_path / "dump" / "index.json").read_text())
    assert index["argv"] == [str(tmp_path / "pkg" / "mod.py"), "a1"]
    f, = [fn for fn in index["functions"] if fn["key"] == "f"]
    assert (f["module"], f["import_name"]) == ("__main__", "pkg.mod")
    why = _run([sys.executable, "-m", "unveil", "why-recompile", str(tmp_path / "dump"), "f", "torch.ones(3)"],
               tmp_path)
    assert why.returncode == 0 and "=> compile 0/0 runs" in why.stdout.splitlines(), why.stdout + why.stderr
    full = _run([sys.executable, str(tmp_path / "dump" / "f.full_code.py")], tmp_path / "dump")
    assert full.returncode == 0, full.stderr
