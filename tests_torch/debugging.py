"""What the debugger tests share: running ``stepped.py`` and where to stop in its dump.

A first run writes the dump; the stops are read from its files (the names and
lines stay the same in the next run, which the debugger drives).  Each stop is
a file, a line, an expression to evaluate there and what it must show.
"""
import ast
import collections
import json
import os
import re
import subprocess
import sys

STEPPED = os.path.join(os.path.dirname(__file__), "stepped.py")

Stop = collections.namedtuple("Stop", "path line expression expected")

#: the compiled frames of stepped.Net.forward: the forward, then the resume function
FORWARD, RESUME = "Net.forward", "Net.torch_dynamo_resume_in_forward_at_"


def run_plain(dump, backend):
    done = subprocess.run([sys.executable, STEPPED, str(dump), backend], capture_output=True, text=True,
                          env=environment(), timeout=600)
    assert done.returncode == 0 and "failures 0" in done.stdout, done.stdout + done.stderr


def environment():
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
    return env


def index(dump):
    with open(os.path.join(dump, "index.json")) as fh:
        return json.load(fh)


def files(dump, kind, function_prefix):
    """The dumped files of ``kind`` of the function whose key starts so, in compile order."""
    arts = [a for a in index(dump)["artifacts"] if a["kind"] == kind and a["function"].startswith(function_prefix)]
    return [os.path.join(dump, a["file"]) for a in sorted(arts, key=lambda a: a.get("compile_id", ""))]


def transformed_stop(path, variable, size):
    """At the first statement of the function that calls the compiled graph (the next is
    on the next line), the frame's own variable."""
    with open(path) as fh:
        tree = ast.parse(fh.read())
    fn = next(node for node in ast.walk(tree) if isinstance(node, ast.FunctionDef)
              and any(isinstance(n, ast.Name) and n.id.startswith("__compiled_fn") for n in ast.walk(node))
              and not any(isinstance(n, ast.FunctionDef) for n in node.body))
    assert fn.body[1].lineno == fn.body[0].lineno + 1, path
    return Stop(path, fn.body[0].lineno, "%s.shape" % variable, "torch.Size(%s)" % size)


def graph_stop(path, method="forward"):
    """At the second statement of a graph's method that computes a tensor: the first
    one's result, whose shape its annotation (or Inductor's buffer) gives."""
    with open(path) as fh:
        tree = ast.parse(fh.read())
    body = next(node.body for node in ast.walk(tree) if isinstance(node, ast.FunctionDef) and node.name == method)
    for k, first in enumerate(body):
        size = _size_of(first)
        later = [s.lineno for s in body[k + 1:] if s.lineno > first.lineno]   # ``;`` puts two on a line
        if size is not None and later:
            return Stop(path, later[0], "%s.shape" % _target(first), "torch.Size(%s)" % size)
    raise AssertionError("no tensor statement in %s" % path)


def _target(statement):
    target = statement.target if isinstance(statement, ast.AnnAssign) else statement.targets[0]
    return target.id


def _size_of(statement):
    """``[2, 16]`` from ``x: "f32[2, 16][16, 1]cpu" = ...`` or ``buf0 = empty_strided_cpu((2, 16), ...)``."""
    if isinstance(statement, ast.AnnAssign) and isinstance(statement.annotation, ast.Constant) \
            and isinstance(statement.target, ast.Name):
        match = re.match(r"[a-z]+\d*\[([\d, ]*)\]", statement.annotation.value)
        return "[%s]" % match.group(1) if match else None
    if isinstance(statement, ast.Assign) and isinstance(statement.value, ast.Call) \
            and isinstance(statement.targets[0], ast.Name) \
            and getattr(statement.value.func, "id", "").startswith("empty_strided"):
        dims = ast.literal_eval(statement.value.args[0])
        return str(list(dims))
    return None


def plan(dump, backend):
    """The stops, in the order the program reaches them."""
    forward, resume = files(dump, "transformed_code", FORWARD)[0], files(dump, "transformed_code", RESUME)[0]
    first, second = transformed_stop(forward, "x", [2, 8]), transformed_stop(resume, "h", [2, 16])
    if backend == "eager":
        return [first, graph_stop(files(dump, "graph", FORWARD)[0]),
                second, graph_stop(files(dump, "graph", RESUME)[0])]
    if backend == "aot_eager":
        return [first, graph_stop(files(dump, "aot_forward", FORWARD)[0]),
                second, graph_stop(files(dump, "aot_forward", RESUME)[0]),
                graph_stop(files(dump, "aot_backward", RESUME)[0]), graph_stop(files(dump, "aot_backward", FORWARD)[0])]
    return [first, graph_stop(files(dump, "inductor_output", FORWARD)[0], "call"),
            second, graph_stop(files(dump, "inductor_output", RESUME)[0], "call")]
