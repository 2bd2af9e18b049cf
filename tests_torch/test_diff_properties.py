"""``unveil diff``, as properties over generated programs (hypothesis).

Each example is a few small programs, each a function with a graph op or two, a
constant, maybe a string or a dtype, a guard on a global flag and a global int, and
maybe a graph break.  Every program is written into two checkouts (``v1/``, ``v2/``)
and dumped from each in a process of its own: the second from another working
directory, with another hash seed and environment variables, and through another
path to the same virtual environment (so site-packages is elsewhere).  Then:

* the two dumps of one program differ in nothing;
* a copy of the program with one thing changed (an op, an int, a float, a string, a
  dtype, the flag's value, the int a guard checks, the kind of break) dumps to a
  dump that differs, and the difference shows the new value or reason.
"""
import json
import os
import subprocess
import sys

from hypothesis import HealthCheck, given, settings, strategies as st

from unveil.dumpdiff import diff_dumps

OPS = ["x * {c}", "x + {c}", "torch.relu(x) - {c}", "x.sin() * {c}", "torch.nn.functional.gelu(x, approximate={s})",
       "x.to({dtype}) * {c}", "torch.clamp(x, min={c})"]
STRINGS = ["'none'", "'tanh'"]
DTYPES = ["torch.float64", "torch.float16", "torch.bfloat16"]
BREAKS = ["", "print('a graph break')", "torch._dynamo.graph_break()"]
#: constants: small and large ints, floats with ten digits and more after the point
CONSTANTS = st.one_of(st.integers(-5, 5), st.integers(10 ** 9, 10 ** 13),
                      st.sampled_from([0.7071067811, 0.9071067811, 1.5, 2.25, 3.14159265358979, 1e-07]),
                      st.floats(0.001, 1000, allow_nan=False).map(lambda v: float("%.10f" % v)))

PROGRAM = '''import sys

import torch
import unveil

FLAG = {flag}
N = {n}


def f(x):
    x = {op1}
    if FLAG:
        x = x + N
    {brk}
    x = {op2}
    return x


if __name__ == "__main__":
    compiled = torch.compile(f, backend="eager")
    with unveil.prepare_debug(sys.argv[1]) as session:
        compiled(torch.ones(3))
    assert session.failures == [], session.failures
'''

#: runs each (program, dump directory) of a JSON list in this one process, as python would
DRIVER = '''import json, runpy, sys
import torch
for program, dump in json.loads(sys.argv[1]):
    torch._dynamo.reset()
    sys.argv = [program, dump]
    runpy.run_path(program, run_name="__main__")
'''


@st.composite
def programs(draw):
    def op():
        return {"template": draw(st.sampled_from(OPS)), "c": draw(CONSTANTS), "s": draw(st.sampled_from(STRINGS)),
                "dtype": draw(st.sampled_from(DTYPES))}
    return {"op1": op(), "op2": op(), "flag": draw(st.booleans()), "n": draw(st.integers(1, 10 ** 12)),
            "brk": draw(st.sampled_from(BREAKS))}


def text_of(spec):
    def expression(op):
        return op["template"].format(c=repr(op["c"]), s=op["s"], dtype=op["dtype"])
    return PROGRAM.format(flag=spec["flag"], n=spec["n"], brk=spec["brk"] or "pass", op1=expression(spec["op1"]),
                          op2=expression(spec["op2"]))


#: a mutation: (what changes, a function of (spec, draw) -> (mutant spec, text the difference must show))
def _constant(spec, draw):
    op = dict(spec["op2"], template=draw(st.sampled_from([t for t in OPS if "{c}" in t])))
    spec = dict(spec, op2=op)
    new = draw(CONSTANTS.filter(lambda v: repr(v) != repr(op["c"]) and float(v) != float(op["c"])))
    return spec, dict(spec, op2=dict(op, c=new)), repr(new)


def _op_word(template):
    """What the graph's code writes for a template's operation (`` * ``, ``relu``, ``gelu``;
    the node itself is named after the variable it is stored in)."""
    head = template.split("(")[0]
    if head.startswith("x "):
        return " %s " % head.split(" ")[1]
    return head.rpartition(".")[2]


def _op(spec, draw):
    old = _op_word(spec["op1"]["template"])
    new = draw(st.sampled_from([t for t in OPS if _op_word(t) not in (old, "to")]))
    return spec, dict(spec, op1=dict(spec["op1"], template=new)), _op_word(new)


def _string(spec, draw):
    base = dict(spec, op1=dict(spec["op1"], template=OPS[4]))
    new = next(s for s in STRINGS if s != base["op1"]["s"])
    return base, dict(base, op1=dict(base["op1"], s=new)), new


def _dtype(spec, draw):
    base = dict(spec, op1=dict(spec["op1"], template=OPS[5]))
    new = draw(st.sampled_from([d for d in DTYPES if d != base["op1"]["dtype"]]))
    return base, dict(base, op1=dict(base["op1"], dtype=new)), new


def _flag(spec, draw):
    return spec, dict(spec, flag=not spec["flag"]), "FLAG"


def _guarded_int(spec, draw):
    base = dict(spec, flag=True)
    new = draw(st.integers(1, 10 ** 12).filter(lambda v: v != base["n"]))
    return base, dict(base, n=new), "G['N'] == %d" % new


def _break(spec, draw):
    new = draw(st.sampled_from([b for b in BREAKS if b != spec["brk"]]))
    return spec, dict(spec, brk=new), None


MUTATIONS = {"constant": _constant, "op": _op, "string": _string, "dtype": _dtype, "flag": _flag,
             "guarded_int": _guarded_int, "break": _break}


@st.composite
def cases(draw):
    """Four (program, mutant, what the difference shows, what changed)."""
    out = []
    for kind in draw(st.lists(st.sampled_from(sorted(MUTATIONS)), min_size=4, max_size=4)):
        base, mutant, shown = MUTATIONS[kind](draw(programs()), draw)
        out.append((base, mutant, shown, kind))
    return out


def _dump_all(jobs, cwd, python, env):
    """Dump each (program file, dump directory) in one process of its own."""
    done = subprocess.run([python, "-c", DRIVER, json.dumps([[str(p), str(d)] for p, d in jobs])], cwd=cwd,
                          capture_output=True, text=True, env=env, timeout=1800)
    assert done.returncode == 0, done.stderr[-3000:]


@settings(max_examples=int(os.environ.get("UNVEIL_DIFF_EXAMPLES", "5")), deadline=None, database=None,
          suppress_health_check=list(HealthCheck))
@given(cases())
def test_two_runs_do_not_differ_and_one_change_does(tmp_path_factory, cases):
    root = tmp_path_factory.mktemp("diff")
    venv = os.path.dirname(os.path.dirname(sys.executable))
    elsewhere = root / "another_place_for_the_venv"
    os.symlink(venv, elsewhere)                       # the same environment, installed at another path
    python_elsewhere = str(elsewhere / os.path.relpath(sys.executable, venv))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p), PYTHONHASHSEED="1")
    other_env = dict(env, PYTHONHASHSEED="4242", UNVEIL_UNRELATED="x" * 17, LANG="C.UTF-8")
    jobs = {"v1": [], "v2": [], "changed": []}
    for k, (base, mutant, _, _) in enumerate(cases):
        for place, spec in (("v1", base), ("v2", base), ("changed", mutant)):
            folder = root / place / ("program_%d" % k)
            folder.mkdir(parents=True)
            (folder / "model.py").write_text(text_of(spec))
            jobs[place].append((folder / "model.py", root / ("dump_%s_%d" % (place, k))))
    (root / "cwd").mkdir()
    _dump_all(jobs["v1"], root, sys.executable, env)
    _dump_all(jobs["v2"], root / "cwd", python_elsewhere, other_env)
    _dump_all(jobs["changed"], root, sys.executable, env)
    for k, (base, mutant, shown, kind) in enumerate(cases):
        v1, v2, changed = (root / ("dump_%s_%d" % (place, k)) for place in ("v1", "v2", "changed"))
        same = diff_dumps(v1, v2)
        assert same == [], (text_of(base), same[:40])
        differs = diff_dumps(v1, changed)
        assert differs, (kind, text_of(base), text_of(mutant))
        if shown is not None:
            new = [line for line in differs if (line.startswith("+") and not line.startswith("+++"))
                   or "  ->  " in line]
            assert any(shown in line for line in new), (kind, shown, text_of(base), text_of(mutant), differs[:60])
