"""``unveil.debug()``: stepping through what torch.compile runs, in real debuggers.

``stepped.py`` runs once to write the dump; then a debugger runs it again with
breakpoints set by path in the dumped files (names and lines are the same in
the second run, as an IDE that kept its breakpoints needs): pdb driven on its
stdin, and debugpy driven over the Debug Adapter Protocol as VS Code does.
"""
import ast
import json
import os
import re
import socket
import subprocess
import sys
import traceback

import pytest
import torch

import unveil
from unveil.dynamo.adapter.cache import cache_entries

import dap
from debugging import STEPPED, environment, index, plan, run_plain
from programs import chained_breaks

BACKENDS = ["eager", "aot_eager", "inductor"]


def pdb_script(stops):
    """pdb commands: every breakpoint, then at each stop print its expression and go on;
    at the first stop also ``next`` (a step inside the dumped file)."""
    lines = ["break %s:%d" % (s.path, s.line) for s in stops] + ["continue"]
    for k, stop in enumerate(stops):
        lines.append("p %s" % stop.expression)
        if k == 0:
            lines.append("next")
        lines.append("continue")
    return "\n".join(lines + ["quit"]) + "\n"


@pytest.mark.parametrize("backend", BACKENDS)
def test_pdb_stops_in_every_kind_of_dumped_file(backend, tmp_path):
    dump = tmp_path / "dump"
    run_plain(dump, backend)
    stops = plan(str(dump), backend)
    done = subprocess.run([sys.executable, "-m", "pdb", STEPPED, str(dump), backend], input=pdb_script(stops),
                          capture_output=True, text=True, env=environment(), timeout=900)
    out = done.stdout
    assert "unveil-test: out (2, 4) failures 0" in out, out[-3000:] + done.stderr[-3000:]
    where = [(path, int(line)) for path, line in re.findall(r"^(?:\(Pdb\) )*> (.+)\((\d+)\)\S+\(\)$", out, re.M)]
    in_dump = [w for w in where if w[0].startswith(str(dump))]
    first = stops[0]
    expected = [(first.path, first.line), (first.path, first.line + 1)] + [(s.path, s.line) for s in stops[1:]]
    assert in_dump == expected, out[-4000:]
    values = re.findall(r"^(?:\(Pdb\) )*(torch\.Size\(\[[\d, ]*\]\))$", out, re.M)
    assert values == [s.expected for s in stops], out[-4000:]


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_second_run_under_debug_writes_every_file_under_the_same_name(backend, tmp_path):
    """The debuggers above set their breakpoints from the first run's names.  AOT Autograd
    changes how its graphs are called after they are logged (it boxes their arguments), so
    their files are rewritten once in each run: the name must follow the final text."""
    dump = tmp_path / "dump"
    names = []
    for _ in range(2):
        run_plain(dump, backend)
        names.append(sorted((a["base"], a["file"]) for a in index(str(dump))["artifacts"]))
    assert names[1] == names[0] and all(base == file for base, file in names[1]), names
    assert sorted(p.name for p in dump.iterdir()) == sorted([f for _, f in names[1]] + ["index.json", "summary.txt"])


def _free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


#: how each debugger is started so that a DAP client connects to it: debugpy as VS Code's
#: "attach" configurations start it; pydevd (PyCharm's debugger engine, from PyPI) in its
#: DAP mode, listening
DEBUGGERS = {
    "debugpy": lambda port: ["-m", "debugpy", "--listen", "127.0.0.1:%d" % port, "--wait-for-client"],
    "pydevd": lambda port: ["-m", "pydevd", "--port", str(port), "--server", "--json-dap-http", "--file"],
}

#: Inductor under debugpy with a client attached fails to compile its C++ kernels
#: on this machine ("'at::vec' has not been declared"), unveil or not (a plain torch.compile
#: with one breakpoint set does it too; pydevd is the same engine, not tried with Inductor);
#: pdb covers Inductor's ``call`` above.
DAP_CASES = [(debugger, backend) for debugger in DEBUGGERS for backend in ("eager", "aot_eager")]


@pytest.mark.parametrize("debugger,backend", DAP_CASES)
def test_a_dap_debugger_stops_in_every_kind_of_dumped_file(debugger, backend, tmp_path):
    """The debugger is started as an IDE starts it; a Debug Adapter Protocol client sets
    breakpoints by path in the dump directory, then at each ``stopped`` event reads the
    top frame's file and line, its variables (as the Variables pane does: pydevd's
    ``inspect`` calls were compiled by Dynamo, renaming the later files, whose breakpoints
    then never hit) and evaluates an expression in it."""
    dump = tmp_path / "dump"
    run_plain(dump, backend)
    stops = plan(str(dump), backend)
    port = _free_port()
    log = tmp_path / "program.log"
    with open(log, "w") as out:      # not a pipe: debugpy's adapter process inherits it and outlives the program
        program = subprocess.Popen([sys.executable] + DEBUGGERS[debugger](port) + [STEPPED, str(dump), backend],
                                   stdout=out, stderr=subprocess.STDOUT, env=environment())
    client = dap.Client(port, timeout=120)
    seen = []
    try:
        client.request("initialize", clientID="unveil-test", adapterID=debugger, pathFormat="path",
                       linesStartAt1=True, columnsStartAt1=True)
        attach = client.send("attach", justMyCode=False, subProcess=False)
        if debugger == "debugpy":
            client.event("initialized")
        for path in dict.fromkeys(s.path for s in stops):
            lines = [s.line for s in stops if s.path == path]
            body = client.request("setBreakpoints", source={"path": path}, breakpoints=[{"line": n} for n in lines])
            assert [b["line"] for b in body["breakpoints"]] == lines
        client.request("configurationDone")
        client.response(attach)
        for k, stop in enumerate(stops):
            thread = client.event("stopped")["body"]["threadId"]
            frame = client.request("stackTrace", threadId=thread, levels=1)["stackFrames"][0]
            for scope in client.request("scopes", frameId=frame["id"])["scopes"]:   # as the Variables pane does
                client.request("variables", variablesReference=scope["variablesReference"])
            value = client.request("evaluate", expression=stop.expression, frameId=frame["id"], context="repl")
            seen.append((frame["source"]["path"], frame["line"], value["result"]))
            if k == 0:
                client.request("next", threadId=thread)
                client.event("stopped")
                frame = client.request("stackTrace", threadId=thread, levels=1)["stackFrames"][0]
                seen.append((frame["source"]["path"], frame["line"], None))
            client.request("continue", threadId=thread)
        client.event("terminated", "exited")
        client.send("disconnect")
    except Exception:
        program.kill()
        raise AssertionError("stops so far: %s\n%s" % (seen, log.read_text()[-3000:]))
    finally:
        client.close()
    program.wait(timeout=600)
    out = log.read_text()
    first = stops[0]
    expected = [(first.path, first.line, first.expected), (first.path, first.line + 1, None)] + \
        [(s.path, s.line, s.expected) for s in stops[1:]]
    assert seen == expected, out[-3000:]
    assert "unveil-test: out (2, 4) failures 0" in out, out[-3000:]


# --- in this process -------------------------------------------------------------------

def _dumped(session, path):
    return path.startswith(session.dump.path + os.sep)


LINEAR = torch.nn.Linear(3, 3)


def returns_objects(x):
    size = x.size()
    y = LINEAR(x)
    torch._dynamo.graph_break()
    return y * 2, size, torch.device("cpu")


def test_objects_with_no_source_form_are_bound_and_the_code_runs_from_the_dump(tmp_path):
    """Dynamo puts a torch.Size and a torch.device in the code's constants; the dumped
    text names them, the names are bound in the module's globals while the block runs,
    and the code recompiled from the file (not Dynamo's) is what ran."""
    torch._dynamo.reset()
    plain = torch.compile(returns_objects, backend="eager")(torch.ones(2, 3))
    with unveil.debug(tmp_path) as session:
        out = torch.compile(returns_objects, backend="eager")(torch.ones(2, 3))
        entries = cache_entries(returns_objects.__code__)
        bound = {name for name in globals() if name.startswith("__unveil_")}
    assert session.failures == []
    torch.testing.assert_close(out[0], plain[0])
    assert out[1:] == plain[1:]
    assert entries and _dumped(session, entries[0].transformed.co_filename)
    texts = "".join(p.read_text() for p in tmp_path.glob("*.transformed.py"))
    assert "(torch.Size)" in texts and "(torch.device)" in texts
    assert any("Size" in name for name in bound) and any("device" in name for name in bound)
    assert not [name for name in globals() if name.startswith("__unveil_")], "the bound names outlive the block"


def test_a_graph_of_a_resume_function_run_from_the_dump_names_the_users_lines(tmp_path):
    """Under ``debug()`` Dynamo traces the resume function recompiled from its dumped file:
    its graph's ``# File:`` comments name the user's lines, as under ``prepare_debug``, not
    the dumped file's."""
    torch._dynamo.reset()
    with unveil.debug(tmp_path) as session:
        torch.compile(returns_objects, backend="eager")(torch.ones(2, 3))
    assert session.failures == []
    graphs = [p for p in tmp_path.glob("*resume_in_returns_objects*.graph.py")]
    assert graphs, sorted(p.name for p in tmp_path.iterdir())
    comments = [line.strip() for p in graphs for line in p.read_text().splitlines() if "# File: " in line]
    line = returns_objects.__code__.co_firstlineno + 4
    assert comments and all(c.startswith("# File: %s:%d in " % (__file__, line)) and
                            c.endswith(", code: return y * 2, size, torch.device(\"cpu\")") for c in comments), comments


def test_the_guards_of_a_resume_function_run_from_the_dump_name_the_users_lines(tmp_path):
    """Under ``debug()`` the guards Dynamo made tracing the resume function recompiled from
    its dumped file came from that file's lines: their comments named the dumped file (a
    new-user trial), where ``prepare_debug`` names the user's line.  Both name the user's."""
    texts = []
    for run, where in ((unveil.prepare_debug, tmp_path / "prepared"), (unveil.debug, tmp_path / "debugged")):
        torch._dynamo.reset()
        with run(where) as session:
            torch.compile(returns_objects, backend="eager")(torch.ones(2, 3))
        assert session.failures == []
        guards = sorted(where.glob("*resume_in_returns_objects*.guards.py"))
        assert guards, sorted(p.name for p in where.iterdir())
        texts.append([line.strip() for p in guards for line in p.read_text().splitlines() if "(from: " in line])
    prepared, debugged = texts
    line = returns_objects.__code__.co_firstlineno + 4
    assert any(":%d in " % line in c for c in prepared), prepared
    assert debugged == prepared
    assert not any("resume_function.py" in c for c in debugged), debugged


def raises_in_the_graph(x):
    y = x * 2
    torch._dynamo.graph_break()
    return torch.linalg.cholesky(-torch.eye(2) * y.sum())   # not positive-definite: fails when it runs


def test_a_traceback_from_compiled_code_names_the_dumped_files_and_linecache_shows_them(tmp_path):
    with unveil.debug(tmp_path) as session:
        with pytest.raises(torch.linalg.LinAlgError) as caught:
            torch.compile(raises_in_the_graph, backend="eager")(torch.ones(3))
    frames = [f for f in traceback.extract_tb(caught.value.__traceback__) if _dumped(session, f.filename)]
    assert any(".graph." in f.filename for f in frames) and any(".transformed." in f.filename for f in frames)
    import linecache
    for frame in frames:
        assert frame.line and linecache.getline(frame.filename, frame.lineno).strip() == frame.line.strip()


def test_debug_nested_in_prepare_debug_both_dump_everything(tmp_path):
    """The inner debug() resets Dynamo on entering and leaving: the outer session keeps
    the cache entries it saw (for its guards) and records the compiles made inside."""
    fn = chained_breaks
    with unveil.prepare_debug(tmp_path / "outer") as outer:
        compiled = torch.compile(fn, backend="eager")
        first = compiled(torch.ones(3))
        with unveil.debug(tmp_path / "inner") as inner:
            second = compiled(torch.ones(3))
        third = compiled(torch.ones(3))
    torch.testing.assert_close(first, second)
    torch.testing.assert_close(first, third)
    assert outer.failures == [] and inner.failures == []
    for session in (outer, inner):
        index = json.load(open(os.path.join(session.dump.path, "index.json")))
        kinds = [a["kind"] for a in index["artifacts"]]
        assert {"transformed_code", "graph", "guards", "resume_function", "full_code"} <= set(kinds), kinds
    outer_guards = [a for a in json.load(open(os.path.join(outer.dump.path, "index.json")))["artifacts"]
                    if a["kind"] == "guards" and a["function"] == "chained_breaks"]
    assert len(outer_guards) == 3                  # before, inside and after the debug block


def _torch_hooks():
    from torch._dynamo.convert_frame import _bytecode_hooks
    from torch._dynamo.output_graph import OutputGraph
    from torch._dynamo import trace_rules
    from torch._inductor.codecache import PyCodeCache
    return (dict(_bytecode_hooks), OutputGraph.__dict__["install_resume_function_global"],
            torch.fx.GraphModule.__dict__["recompile"], torch.fx.GraphModule.__dict__["__deepcopy__"],
            PyCodeCache.__dict__["load_by_key_path"], list(trace_rules.SKIP_DIRS), sys.gettrace())


def test_outside_debug_nothing_stays_patched(tmp_path):
    before = _torch_hooks()
    compiled = torch.compile(chained_breaks, backend="eager")
    with unveil.debug(tmp_path) as session:
        compiled(torch.ones(3))
        assert _dumped(session, cache_entries(chained_breaks.__code__)[0].transformed.co_filename)
    assert _torch_hooks() == before
    assert not cache_entries(chained_breaks.__code__), "code compiled from the dump outlives the block"
    compiled(torch.ones(3))
    assert not _dumped(session, cache_entries(chained_breaks.__code__)[0].transformed.co_filename)


def test_entering_prints_where_the_files_are_and_pause_waits_for_enter(tmp_path, capsys, monkeypatch):
    asked = []
    monkeypatch.setattr("builtins.input", lambda prompt="": asked.append(prompt) or "")
    with unveil.debug(tmp_path, pause=True):
        pass
    err = capsys.readouterr().err
    assert str(tmp_path) in err and "break " in err and "justMyCode" in err
    assert asked and "Enter" in asked[0]
    with unveil.debug(tmp_path / "again"):
        pass
    assert len(asked) == 1                    # the default does not wait

    def no_terminal(prompt=""):
        raise EOFError
    monkeypatch.setattr("builtins.input", no_terminal)
    with unveil.debug(tmp_path / "eof", pause=True):     # nothing to read: it runs on
        pass


def test_dynamo_leaves_the_debuggers_own_code_alone_inside_debug(tmp_path):
    """Stopped in transformed code, pdb's and debugpy's functions run with Dynamo's
    callback on: Dynamo compiled bdb's dispatch_return (shifting every later compile
    id, and the file names with them) and debugpy's evaluation code."""
    import bdb
    from torch._dynamo import trace_rules
    assert not trace_rules.check_file(bdb.__file__).skipped
    with unveil.debug(tmp_path):
        for module in (bdb, __import__("pdb"), __import__("debugpy")):
            assert trace_rules.check_file(module.__file__).skipped, module
    assert not trace_rules.check_file(bdb.__file__).skipped


BREAK_AT = """
import os, sys, torch, unveil
sys.path.insert(0, %(tests)r)
import stepped
line = next(n for n, text in enumerate(open(stepped.__file__), 1) if "# line: " + sys.argv[3] in text)
model = torch.compile(stepped.Net(), backend=sys.argv[2])
named = os.path.basename(stepped.__file__) if "bare" in sys.argv[4:] else stepped.__file__
with unveil.debug(sys.argv[1]) as session:
    session.break_at(named, line)
    out = model(torch.randn(2, 8))
    if "backward" in sys.argv[4:]:
        out.sum().backward()
    print("unveil-test: located", sorted((p, n) for p, n, kind in session.locate(stepped.__file__, line)))
"""


def run_break_at(tmp_path, backend, marker, *more, commands="continue\n" * 8):
    """``session.break_at`` the stepped model's line marked ``marker``; (the run, where pdb
    stopped: {(file, line)}, what ``session.locate`` gave for that line)."""
    script = tmp_path / "break_at.py"
    script.write_text(BREAK_AT % {"tests": os.path.dirname(STEPPED)})
    done = subprocess.run([sys.executable, str(script), str(tmp_path / "dump"), backend, marker] + list(more),
                          input=commands, capture_output=True, text=True, env=environment(), timeout=900)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    located = re.search(r"unveil-test: located (.*)", done.stdout)
    assert located, done.stdout[-3000:] + done.stderr[-3000:]
    where = set((p, int(n)) for p, n in re.findall(r"^(?:\(Pdb\) )*> (.+)\((\d+)\)\S+\(\)$", done.stdout, re.M))
    return done, where, eval(located.group(1))


def test_break_at_a_line_of_ones_own_code_stops_pdb_in_the_dumped_code_that_runs_it(tmp_path):
    """``session.break_at(file, line)`` starts pdb (none was running), which runs on until
    dumped code that runs that line of the model's forward: the resume function's
    transformed code and its graph's forward, both written after break_at was called."""
    done, where, located = run_break_at(tmp_path, "eager", "second layer", commands="p l_h_.shape\ncontinue\n" * 4)
    assert "never stopped" not in done.stderr, done.stderr
    assert where and where <= set(located) and all(".graph." in p for p, _ in where), (where, located)
    # the resume function's own line is located too (Dynamo compiles that function, so
    # it does not run; the graph it traced names that file's line, which is how it is found)
    assert {p for p, _ in located} - {p for p, _ in where} == {p for p, _ in located if "resume_function" in p}
    assert "torch.Size([2, 16])" in done.stdout


def test_break_at_a_bare_file_name_stops_in_the_file_of_that_name_the_dump_names(tmp_path):
    """``break_at("stepped.py", n)`` from a directory with no stepped.py (the README's
    ``break_at("model.py", 42)``) never stopped, and said at the end that no dumped code
    named the line (a new-user trial): a relative name that is no file here names the
    files of the dumped code whose path ends with it."""
    done, where, located = run_break_at(tmp_path, "eager", "second layer", "bare",
                                        commands="p l_h_.shape\ncontinue\n" * 4)
    assert "never stopped" not in done.stderr, done.stderr[-3000:]
    assert where and where <= set(located) and all(".graph." in p for p, _ in where), (where, located)


def test_break_at_under_inductor_stops_at_each_kernel_call_that_computes_the_line(tmp_path):
    """Under Inductor a graph runs as its inductor_output file's call(): debug() turns on
    Inductor's provenance tracking, and break_at stops pdb at each kernel call there that
    computes the line, in the forward pass and in the backward pass (which names the
    forward's lines), and nowhere else."""
    done, where, located = run_break_at(tmp_path, "inductor", "first layer", "backward")
    assert "never stopped" not in done.stderr, done.stderr[-3000:]
    assert where <= set(located), (where, located)
    assert where == {(p, n) for p, n in located if ".inductor_output" in p}, (where, located)
    forward, backward = ({(p, n) for p, n in where if p.endswith(name)}
                         for name in (".inductor_output.py", ".inductor_output_1.py"))
    assert forward and backward, where
    for path, line in where:        # each a kernel call, as Inductor's own comment before it says
        text = open(path).read().splitlines()
        assert text[line - 2].lstrip().startswith("# [Provenance debug handles] "), text[line - 2:line]


DYNAMIC_SCALAR = """
import sys, torch, unveil

@torch.compile
def f(t, k):
    v = t.max().item()
    return t / (v + k)  # line: divides

line = next(n for n, text in enumerate(open(__file__), 1) if "# line: divides" in text)
with unveil.debug(sys.argv[1]) as session:
    session.break_at(__file__, line)
    for i in range(4):
        f(torch.randn(4, 8, generator=torch.Generator().manual_seed(i)), i)
        print("unveil-test: call", i)
    print("unveil-test: located", sorted((p, n) for p, n, kind in session.locate(__file__, line)))
"""


def test_break_at_stops_in_the_kernel_of_a_recompile_whose_nodes_keep_no_stack(tmp_path):
    """A recompile makes ``k`` dynamic: Inductor's passes rewrite the division into new
    nodes with no stack, so its provenance record names no line for the one kernel call,
    and break_at stopped once in four runs of the line (a new-user trial, torch 2.15).  A
    graph all of whose nodes come from one line computes that line in each of its calls."""
    script = tmp_path / "dynamic_scalar.py"
    script.write_text(DYNAMIC_SCALAR)
    done = subprocess.run([sys.executable, str(script), str(tmp_path / "dump")], input="continue\n" * 12,
                          capture_output=True, text=True, env=environment(), timeout=900)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    stops = re.findall(r"^(?:\(Pdb\) )*> (.+)\((\d+)\)\S+\(\)$", done.stdout, re.M)
    assert len(stops) == 4 and all(".inductor_output" in p for p, _ in stops), done.stdout[-3000:]
    located = eval(re.search(r"unveil-test: located (.*)", done.stdout).group(1))
    assert {(p, int(n)) for p, n in stops} == {(p, n) for p, n in located if ".inductor_output" in p}, located


CALLS_A_MODULE = """
import sys, torch, unveil


class Act(torch.nn.Module):
    def forward(self, h):
        return torch.tanh(h) * 2


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(4, 4)
        self.act = Act()

    def forward(self, x):
        h = self.fc(x)
        h = self.act(h)  # line: calls a module
        return h


line = next(n for n, text in enumerate(open(__file__), 1) if text.rstrip().endswith("# line: calls a module"))
model = torch.compile(Net(), backend=sys.argv[2])
with unveil.debug(sys.argv[1]) as session:
    session.break_at(__file__, line)
    model(torch.ones(2, 4)).sum().backward()
    print("unveil-test: located", sorted((p, n) for p, n, kind in session.locate(__file__, line)))
"""


def test_under_aot_eager_pdb_stops_and_shows_the_lines_that_run_in_a_graph_file_written_again(tmp_path):
    """AOT Autograd boxes its graph modules' inputs after they are handed over, so debug()
    writes their files again, every line moved: break_at's breakpoints stayed at the lines
    of the first text, and pdb listed that text (its line cache), so the line shown was
    not the one running (a new-user trial).  Each stop is now a line of the file as it is
    on disk, and pdb shows that line."""
    done, where, located = run_break_at(tmp_path, "aot_eager", "second layer", "backward",
                                        commands="continue\n" * 8)
    assert "never stopped" not in done.stderr, done.stderr[-3000:]
    assert where and where <= set(located), (where, located)
    shown = re.findall(r"^(?:\(Pdb\) )*> (.+)\((\d+)\)\S+\(\)\n-> (.*)$", done.stdout, re.M)
    assert shown and any("backward" in path for path, _, _ in shown), done.stdout[-3000:]
    for path, line, text in shown:
        assert text == open(path).read().splitlines()[int(line) - 1].strip(), (path, line, text)


@pytest.mark.parametrize("backend,runs", [("eager", ".graph."), ("aot_eager", ".aot_"), ("inductor", ".inductor_output")])
def test_break_at_a_line_that_calls_a_module_stops_where_the_modules_code_runs(tmp_path, backend, runs):
    """``h = self.act(h)``: the graph's nodes are ``Act.forward``'s, whose ``# File:`` comments
    name only that line; break_at found nothing to stop at under any backend.  Each node's
    whole stack (its graph module's ``stack_trace``), and each kernel's, counts now: pdb
    stops in what runs, forward (and backward: AOT's graph and Inductor's second file).
    Under Inductor another program compiles the same graphs first: from Inductor's cache
    the graphs would keep that program's stack traces, so debug() turns those caches off."""
    if backend == "inductor":
        other = tmp_path / "other" / "same_model.py"
        other.parent.mkdir()
        other.write_text("\n\n" + CALLS_A_MODULE)
        subprocess.run([sys.executable, str(other), str(other.parent / "dump"), backend], input="continue\n" * 8,
                       capture_output=True, text=True, env=environment(), timeout=900, check=True)
    script = tmp_path / "calls_a_module.py"
    script.write_text(CALLS_A_MODULE)
    done = subprocess.run([sys.executable, str(script), str(tmp_path / "dump"), backend], input="continue\n" * 8,
                          capture_output=True, text=True, env=environment(), timeout=900)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "never stopped" not in done.stderr, done.stderr[-3000:]
    located = eval(re.search(r"unveil-test: located (.*)", done.stdout).group(1))
    where = set((p, int(n)) for p, n in re.findall(r"^(?:\(Pdb\) )*> (.+)\((\d+)\)\S+\(\)$", done.stdout, re.M))
    assert where and where <= set(located) and all(runs in p for p, _ in where), (where, located)
    if backend != "eager":
        assert any("backward" in p or p.endswith("_1.py") for p, _ in where), where


def test_a_kernel_call_stands_for_every_line_of_its_stack_traces():
    """Inductor's provenance record, read against its code: each kernel call after its handle
    comment stands for each frame of its stack traces, innermost first, so a break at a
    line that calls a module (``h = self.act(h)``, whose ops are in the activation's own
    file) stops at the kernels that compute it (in a tiny GPT-2 it found nothing at the
    MLP's ``self.act`` line); a handle the record lacks stands for nothing."""
    from unveil.dynamo.debugging.kernel_calls import kernel_lines
    text = "\n".join([
        "def call(args):",                                       # 1
        "    buf0 = empty_strided_cpu((2, 4), (4, 1))",          # 2
        "    # [Provenance debug handles] extern_kernels.mm:1",  # 3
        "    extern_kernels.mm(a, b, out=buf0)",                 # 4
        "    # [Provenance debug handles] cpp_fused_tanh_2:2",   # 5
        "",
        "    cpp_fused_tanh_2(buf0)",                            # 7
        "    # [Provenance debug handles] cpp_fused_other_3:3",  # 8
        "    cpp_fused_other_3(buf0)",                           # 9
        "    return (buf0, )"])
    traces = {
        "extern_kernels.mm:1": ['  File "/m/model.py", line 10, in forward\n    h = self.fc(x)\n'],
        "cpp_fused_tanh_2:2": ['  File "/m/model.py", line 11, in forward\n    h = self.act(h)\n'
                               '  File "/m/act.py", line 5, in forward\n    return torch.tanh(h)\n'],
        "cpp_fused_relu_0:1": ['  File "/m/other.py", line 1, in forward\n    x.relu()\n'],   # another graph's
    }
    assert kernel_lines(text, traces) == [("/m/model.py", 10, 4), ("/m/act.py", 5, 7), ("/m/model.py", 11, 7)]


def test_a_kernel_calls_nodes_are_dynamos_through_inductors_post_grad_nodes():
    from unveil.dynamo.debugging.kernel_calls import kernel_nodes
    mappings = {"postToPre": {"mm": ["matmul"], "relu": ["y"], "mul": ["mul"], "mul_1": ["mul"]},
                "cppCodeToPost": {"extern_kernels.mm:1": ["mm"], "cpp_fused_mul_relu_0:2": ["mul_1", "relu", "mul"],
                                  "cpp_fused_unknown_1:3": ["clone"]}}
    assert kernel_nodes(mappings) == {"extern_kernels.mm:1": ["matmul"], "cpp_fused_mul_relu_0:2": ["mul", "y"]}
    assert kernel_nodes({}) == {}


def test_a_kernel_calls_post_grad_nodes_are_inductors_own_record():
    """The post-grad graph's nodes each call computes, which link that graph (its forward's
    ``mm`` had no link under ``debug()``: Inductor's comment names Dynamo's ``matmul``)."""
    from unveil.dynamo.debugging.kernel_calls import kernel_post_grad_nodes
    mappings = {"postToPre": {"mm": ["matmul"]},
                "cppCodeToPost": {"extern_kernels.mm:1": ["mm"], "cpp_fused_mul_relu_0:2": ["mul_1", "relu"],
                                  "cpp_fused_nothing_1:3": []}}
    assert kernel_post_grad_nodes(mappings) == {"extern_kernels.mm:1": ["mm"],
                                                "cpp_fused_mul_relu_0:2": ["mul_1", "relu"]}
    assert kernel_post_grad_nodes({"version": 2.0}) == {}


def test_a_break_at_that_never_stops_is_said_at_the_blocks_end(tmp_path):
    """A line no dumped code runs (here one outside the compiled model): pdb never stops,
    and the block's end says so, with the dumped places that name it (none)."""
    done, where, located = run_break_at(tmp_path, "inductor", "not compiled")
    assert not where and not located, (where, located)
    said = [line for line in done.stderr.splitlines() if "never stopped" in line]
    assert len(said) == 1 and said[0].startswith("unveil.debug: break_at('stepped.py', ") \
        and "(the dumped lines naming it: none;" in said[0], done.stderr[-3000:]
    # the hint on Inductor's kernel calls comes only where Inductor wrote code (it came under eager)
    done, where, located = run_break_at(tmp_path, "eager", "not compiled")
    said = [line for line in done.stderr.splitlines() if "never stopped" in line]
    assert len(said) == 1 and said[0].endswith("(the dumped lines naming it: none)"), done.stderr[-3000:]


FIND_NAN = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "docs", "examples",
                        "find_nan.py")


def test_the_documented_nan_hunt_finds_the_first_nan(tmp_path):
    """docs/debugging.md's worked example, as a user does it in pdb: a breakpoint at the
    graph's first node, then ``next`` and a NaN check after each statement; the first
    NaN is the spread (``h.std(dim=0)`` over a batch of one row)."""
    dump = tmp_path / "nan_dump"
    subprocess.run([sys.executable, FIND_NAN, str(dump)], check=True, capture_output=True, env=environment(),
                   timeout=600)
    graph = next(dump.glob("Normalised.forward.*.graph.py"))
    tree = ast.parse(graph.read_text())
    forward = next(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == "forward")
    nodes = [s for s in forward.body if isinstance(s, ast.AnnAssign)]
    script = ["break %s:%d" % (graph, nodes[0].lineno), "continue"]
    for node in nodes:
        script += ["next", "p ('nan-check', %r, bool(%s.isnan().any()))" % (node.target.id, node.target.id)]
    done = subprocess.run([sys.executable, "-m", "pdb", FIND_NAN, str(dump)], input="\n".join(script + ["quit"]) + "\n",
                          capture_output=True, text=True, env=environment(), timeout=600)
    checks = re.findall(r"\('nan-check', '(\w+)', (True|False)\)", done.stdout)
    assert checks and checks[0] == ("h", "False"), done.stdout[-3000:]
    assert next(name for name, nan in checks if nan == "True") == "spread", checks


CHECKPOINTED_AND_COND = '''class GraphModule(torch.nn.Module):
    def forward(self, primals_1: "f32[3]"):
        # ac_graph_id: 2 - PREFER_RECOMPUTE File: /u/prog.py:5 in inner, code: return x.sin().cos()
        sin: "f32[3]" = torch.ops.aten.sin.default(primals_1)
        # File: /u/prog.py:9 in f, code: return torch.cond(...)
        cond = torch.ops.higher_order.cond(gt, self.cond_true_0, self.cond_false_0, (x,))
        return (sin, cond)

    class cond_true_0(torch.nn.Module):
        def forward(self, l_x_):
            # File: /u/prog.py:10 in <lambda>, code: lambda x: x.sin() + 1,
            sin_1 = l_x_.sin()
            return (sin_1,)
'''


def test_a_node_annotated_before_its_file_comment_and_a_subgraph_class_are_placed_right():
    """Checkpointed code's comments begin ``# ac_graph_id: 2 - PREFER_RECOMPUTE File:``:
    break_at never found the AOT forward's lines; and torch.cond's branch class after the
    graph's return was placed on the user's line of the node before it (a new-user trial)."""
    from unveil.dynamo.debugging.linemap import LineMap
    lines = LineMap()
    lines.add_graph("/d/f.graph.py", CHECKPOINTED_AND_COND, "graph")
    assert [(loc.path, loc.line) for loc in lines.locate("/u/prog.py", 5)] == [("/d/f.graph.py", 4)]
    assert [(loc.path, loc.line) for loc in lines.locate("/u/prog.py", 9)] == [("/d/f.graph.py", 6)]
    assert [(loc.path, loc.line) for loc in lines.locate("/u/prog.py", 10)] == [("/d/f.graph.py", 12)]


def branches(x):
    return torch.cond(x.sum() > 0, lambda x: x.sin() + 1, lambda x: x.cos() - 1, (x,))


def test_torch_conds_branches_run_from_the_graph_file(tmp_path):
    """The graph file writes each branch as a class nested in the graph's: only the graph's
    own forward ran from the file, so a breakpoint in a branch never stopped (a new-user
    trial)."""
    torch._dynamo.reset()
    calls = []

    def tracer(frame, event, arg):
        if event == "call" and frame.f_code.co_filename.startswith(str(tmp_path)):
            calls.append((os.path.basename(frame.f_code.co_filename), frame.f_code.co_firstlineno))
    compiled = torch.compile(branches, backend="eager")
    with unveil.debug(tmp_path) as session:
        sys.settrace(tracer)
        try:
            results = [compiled(x) for x in (torch.ones(3), -torch.ones(3))]
        finally:
            sys.settrace(None)
    assert session.failures == []
    for x, result in zip((torch.ones(3), -torch.ones(3)), results):
        torch.testing.assert_close(result, branches(x))
    graph, = [name for name in os.listdir(tmp_path) if name.endswith(".graph.py")]
    text = (tmp_path / graph).read_text().splitlines()
    branch_defs = {number + 2 for number, line in enumerate(text) if line.strip().startswith("class cond_")}
    assert len(branch_defs) == 2 and branch_defs <= {line for name, line in calls if name == graph}, (calls, text)


def _loss_after_a_break(logits, y):
    print("in loss")
    return torch.nn.functional.cross_entropy(logits, y)


class _BreakThenLoss(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(8, 5)

    def forward(self, x, y):
        h = self.lin(x)
        print("break in forward")
        return _loss_after_a_break(h, y)


def test_nodes_of_no_line_are_not_tied_to_the_transformed_code_that_runs_them(tmp_path, capsys):
    """Under ``debug()`` the dumped transformed code runs as a frame of its own, and torch
    recorded it as the stack of the nodes that come from no line (cross_entropy's backward
    one-hot): their graph files named the transformed code's line, and the line map took
    them for the line that calls the loss, whose kernels ``locate`` then listed (a new-user
    trial).  They have no line, as when Dynamo's code runs."""
    torch._dynamo.reset()
    torch.manual_seed(0)
    model = torch.compile(_BreakThenLoss())
    x, y = torch.randn(2, 8), torch.tensor([1, 3])
    with unveil.debug(tmp_path) as session:
        model(x, y).backward()
        call_line = _BreakThenLoss.forward.__code__.co_firstlineno + 3
        kinds = {place.kind for place in session.locate(__file__, call_line)}
    assert session.failures == [], session.failures
    graphs = [p for p in tmp_path.iterdir() if p.name.endswith(("graph.py", "backward.py", "forward.py"))]
    assert graphs
    for path in graphs:
        assert ".transformed.py:" not in path.read_text(), path.name
    assert kinds and kinds <= {"transformed code", "resume function"}, kinds
