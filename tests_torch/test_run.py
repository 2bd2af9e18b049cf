"""``unveil run``: an unmodified program runs exactly as ``python`` runs it (argv,
``__main__``, ``sys.path[0]``, stdin, stdout, exit status, the traceback of its own
error), with everything torch.compile did dumped; compared against a plain run."""
import json
import os
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


@pytest.mark.parametrize("mode, status", [("ok", 0), ("exit", 7), ("message", 1), ("raise", 1)])
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


def test_under_debug_the_compiled_code_runs_from_the_dump(tmp_path):
    ours = _run(_unveil("--debug", "--dump-dir", str(tmp_path / "dump"), SCRIPT), EXAMPLES)
    assert ours.returncode == 0, ours.stderr
    assert "result [4.0, 4.0, 4.0]" in ours.stdout
    _dump_is_complete(tmp_path / "dump", "step")


@pytest.mark.parametrize("argv, message", [
    (["no_such_script.py"], "no such script: no_such_script.py"),
    (["-m", "no_such_module"], "no module named no_such_module"),
    ([], "give a script to run, or -m MODULE"),
    (["-m"], "-m needs a module name"),
    (["--dump-dir", "/etc/passwd", SCRIPT], "dump directory /etc/passwd exists and is not a directory"),
])
def test_bad_input_is_one_line_and_status_2(argv, message, tmp_path):
    done = _run(_unveil(*argv), EXAMPLES)
    assert done.returncode == 2
    assert done.stderr == "unveil: error: %s\n" % message, done.stderr
    assert done.stdout == ""


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


def test_a_run_that_compiles_nothing_leaves_the_last_dump_as_it_was(tmp_path):
    dump = tmp_path / "dump"
    first = _run(_unveil("--dump-dir", str(dump), SCRIPT), EXAMPLES)
    assert first.returncode == 0, first.stderr
    before = {p.name: p.read_bytes() for p in dump.iterdir() if p.is_file()}
    again = _run(_unveil("--dump-dir", str(dump), SCRIPT, "early"), EXAMPLES)
    assert again.returncode == 1 and "stopped before compiling anything" in again.stderr
    assert again.stderr.rstrip().endswith("unveil: nothing was compiled; %s is left as it was" % dump)
    assert {p.name: p.read_bytes() for p in dump.iterdir() if p.is_file()} == before
