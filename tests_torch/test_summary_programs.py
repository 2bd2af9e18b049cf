"""``summary.txt`` on the HuggingFace programs of ``programs.py``, checked line by line
against Dynamo's own records: the ``graph_breaks`` and ``recompiles`` logs (what
``TORCH_LOGS="graph_breaks,recompiles"`` prints) and ``torch._dynamo.explain``.

Every line of the summary is of a known kind, and what it names is Dynamo's: each
function's file and line is a def there; each break's reason, file and line, each
call of a break's stack, each hint and explanation, each recompile's failed entry,
guard and source line are in Dynamo's records; each branch's test is the text of its
line.  The summary under ``debug()`` is the summary under ``prepare_debug``.
"""
import linecache
import re

import pytest
import torch

import unveil
from unveil.volatile import without_ids

from programs import PROGRAMS
from test_explanations import dynamo_logs

HF = [p for p in PROGRAMS if p.name.startswith("hf_")]

_AT = re.compile(r"^Graph break (?:\(user stack suppressed due to duplicate graph break\) )?in user code at (.+):(\d+)$",
                 re.M)
_FRAME = re.compile(r'^\s*File "(.+)", line (\d+), in (.+)$', re.M)
_RECOMPILE = re.compile(r"^\s*- (\d+/\d+): (.+?)(?:\s+#.*)?$", re.M)


def _run(program, within=None, path=None):
    torch._dynamo.reset()
    fn, _ = program.make()
    compiled = torch.compile(fn, backend=program.backend, dynamic=program.dynamic, fullgraph=program.fullgraph)

    def calls():
        for args in program.calls():
            out = compiled(*args)
            if program.train:
                out.float().sum().backward()
    if within is None:
        calls()
        return None
    with within(path) as session:
        calls()
    assert session.failures == [], session.failures
    return (path / "summary.txt").read_text()


class Records:
    """What Dynamo recorded of a program's run: its logs' text and what they name."""

    def __init__(self, breaks, recompiles, explained):
        self.text = "\n".join(breaks + recompiles + [b.reason for b in explained.break_reasons])
        self.places = {(f, int(n)) for text in breaks for f, n in _AT.findall(text)}
        self.calls = set()             # (function, line) of every frame of a break's user stack
        for text in breaks:
            for f, n, name in _FRAME.findall(text):
                self.calls.add((name, int(n)))
                self.places.add((f, int(n)))
        for brk in explained.break_reasons:
            for frame in brk.user_stack:
                self.calls.add((frame.name, frame.lineno))
                self.places.add((frame.filename, frame.lineno))
        # (the summary writes the ids an identity check compares with as ``<id>``)
        self.recompiles = {(entry, without_ids(guard.strip())) for text in recompiles
                           for entry, guard in _RECOMPILE.findall(text)}

    def has(self, text):
        return " ".join(text.split()) in " ".join(self.text.split())


def _is_def(filename, line, key):
    text = linecache.getline(filename, line).strip()
    name = key.rpartition(".")[2]
    if name.startswith("_") and name.endswith("_") and name.strip("_") in ("lambda", "listcomp", "dictcomp",
                                                                           "setcomp", "genexpr"):
        return bool(text)
    return text.startswith(("def %s(" % name, "async def %s(" % name, "@"))


def check_summary(summary, records):
    """Each line of ``summary`` is of a known kind and names what Dynamo recorded."""
    keys = set(re.findall(r"^(\S+) \(.+:\d+\)$", summary, re.M)) | set(re.findall(r"^(\S+): resume function of ",
                                                                                summary, re.M))
    for line in summary.splitlines():
        body = line.strip()
        if not body or body.startswith(("What torch.compile did", "In all: ")):
            continue
        m = re.match(r"^skipped: (\S+) \((\d+/\d+)\): (.+)$", body)
        if m:
            assert m.group(1) in keys and records.has(m.group(3)), line
            continue
        m = re.match(r"^(\S+) \((.+):(\d+)\)$", line)
        if m:
            assert _is_def(m.group(2), int(m.group(3)), m.group(1)), line
            continue
        m = re.match(r"^(\S+): resume function of (\S+), made at a graph break: (.+) \((.+):(\d+)\)$", line)
        if m:
            assert m.group(2) in keys and records.has(m.group(3)), line
            assert (m.group(4), int(m.group(5))) in records.places, line
            continue
        m = re.match(r"^goes on from line (\d+), the path on which `(.+)` \(line (\d+)\) is (?:true|false|None|not "
                     r"None)$", body)
        if m:
            continue          # (checked against the file by test_explanations' branch tests)
        m = re.match(r"^compile (\d+/\d+): compiled(?:, graph break: (.+) \((.+):(\d+)\))?$", body)
        if m:
            if m.group(2):
                assert records.has(m.group(2)) and (m.group(3), int(m.group(4))) in records.places, line
            continue
        m = re.match(r"^compile (\d+/\d+): skipped, the frame runs as it is: (.+)$", body)
        if m:
            assert records.has(m.group(2)), line
            continue
        m = re.match(r"^(?:set off by|compile \d+/\d+: failed \(fullgraph=True\), the error reached the program): "
                     r"(.+) \((.+):(\d+)\)$", body)
        if m:
            assert records.has(m.group(1)) and (m.group(2), int(m.group(3))) in records.places, line
            continue
        m = re.match(r"^at (.+):(\d+)$", body)
        if m:
            assert (m.group(1), int(m.group(2))) in records.places, line
            continue
        m = re.match(r"^hint: (.+)$", body)
        if m:
            assert records.has(m.group(1)), line
            continue
        m = re.match(r"^inside (\S+), called from (.+)$", body)
        if m:
            calls = [(c.group(1), int(c.group(2))) for c in re.finditer(r"(\S+) \(line (\d+)\)", m.group(2))]
            assert calls and all(call in records.calls for call in calls), (line, sorted(records.calls))
            assert any(name == m.group(1) for name, _ in records.calls), line
            continue
        m = re.match(r"^the rest runs in (.+)$", body)
        if m:
            assert all(k in keys for k in m.group(1).split(", ")), line
            continue
        if body.startswith("Dynamo cannot resume after this break"):
            assert records.has("Encountered graph break that we cannot resume from"), line
            continue
        m = re.match(r"^no resume function: after the call at line (\d+), made as it is \(what it calls is a frame "
                     r"of its own for Dynamo\), (\S+) only returns its result$", body)
        if m:
            assert (m.group(2), int(m.group(1))) in records.calls, line
            continue
        m = re.match(r"^(?:compiled|tried) anew: the guard of compile (\d+/\d+) failed(?: \(line \d+ of its guards file\))?: "
                     r"(.+?)(?:  \((?:line \d+(?: in [\w<>.]+)?|\S+:\d+)(?:, where Dynamo first read it)?: (.+?)"
                     r"(?:, called from line (\d+))?\))?$", body)
        if m:
            assert (m.group(1), m.group(2)) in records.recompiles, (line, records.recompiles)
            if m.group(3):
                assert records.has(m.group(3)), line
            continue
        m = re.match(r"^line (\d+), where the frame met that break, is inside a try block: Dynamo makes no resume "
                     r"function there, so it gave up on the whole frame$", body)
        if m:
            assert any(n == int(m.group(1)) for _, n in records.calls), (line, sorted(records.calls))
            continue
        if re.match(r"^where ___stack\d+ is ", body) or body.startswith("the id it checks is that of "):
            continue
        m = re.match(r"^Dynamo could not read (.+) to check it \((.+)\): the value is no longer ", body)
        if m:
            assert any(guard.startswith("%s: %s on " % (kind, m.group(2)))
                       for _, guard in records.recompiles for kind in re.findall(r"^\w+", guard)), line
            continue
        m = re.match(r"^traced again after: (.+)$", body)
        if m:
            assert records.has(m.group(1)), line
            continue
        if re.match(r"^compile \d+/\d+: no compiled code \(Dynamo found nothing to compile; the frame runs as it "
                    r"is\)$", body) or body == "not compiled: Dynamo made no compile of it (if it ran, it ran as it is)":
            continue
        assert records.has(body), "a line of no known kind, not in Dynamo's records: %r" % line


@pytest.mark.parametrize("program", HF, ids=repr)
def test_the_summary_names_what_dynamo_recorded_alike_under_debug(program, tmp_path):
    logs = dynamo_logs(lambda: _run(program), "graph_breaks", "recompiles")
    torch._dynamo.reset()
    fn, _ = program.make()
    explained = torch._dynamo.explain(fn)(*program.calls()[0])
    records = Records(logs["graph_breaks"], logs["recompiles"], explained)
    summary = _run(program, unveil.prepare_debug, tmp_path / "prepare_debug")
    assert _run(program, unveil.debug, tmp_path / "debug") == summary
    check_summary(summary, records)
