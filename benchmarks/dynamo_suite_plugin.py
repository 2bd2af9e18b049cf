"""pytest plugin of benchmarks/dynamo_suite.py: records each test's outcome, and Dynamo's
counters as the test left them, into the JSON lines file ``$UNVEIL_SUITE_RECORD``.

With ``UNVEIL_SUITE_MODE=debug`` every test's call (setUp, the test, tearDown) runs inside
``with unveil.debug(dir):``, and the record also holds the failures unveil reported.
Loaded with ``-p dynamo_suite_plugin`` (benchmarks/ on ``PYTHONPATH``).
"""
import json
import os
import re
import shutil
import tempfile
import warnings

import pytest

from pytest_records import append, first_error_line

MODE = os.environ.get("UNVEIL_SUITE_MODE", "plain")
#: the counter groups compared between a plain run and one under debug(): what Dynamo
#: compiled (frames, graphs, captured calls) and where it broke
COMPARED = ("frames", "stats", "graph_break", "unimplemented")

_state = {"counters": None, "frames": []}


#: what differs from process to process in a counter's key (a graph-break reason names objects
#: by their address): written alike
_ADDRESS = re.compile(r"\b0x[0-9a-fA-F]+\b")


def snapshot():
    """Dynamo's counters of the groups compared, as plain dicts with addresses written alike."""
    from torch._dynamo.utils import counters
    result = {}
    for group, counts in counters.items():
        if group in COMPARED and counts:
            merged = result.setdefault(group, {})
            for key, n in counts.items():
                key = _ADDRESS.sub("0x?", str(key))
                merged[key] = merged.get(key, 0) + n
    return result


def pytest_configure(config):
    # Dynamo's TestCase clears its counters in tearDown: take them just before
    import torch._dynamo.test_case as test_case
    original = test_case.TestCase.tearDown

    def tear_down(self):
        _state["counters"] = snapshot()
        return original(self)

    test_case.TestCase.tearDown = tear_down
    # every frame Dynamo is called on (what counters["frames"] counts), to say which differ
    import torch._dynamo.convert_frame as convert_frame
    convert = convert_frame.ConvertFrame.__call__

    def called(self, frame, *args, **kwargs):
        code = frame.f_code
        _state["frames"].append("%s (%s:%d)" % (code.co_name, _shown_file(code.co_filename), code.co_firstlineno))
        return convert(self, frame, *args, **kwargs)

    convert_frame.ConvertFrame.__call__ = called


def _shown_file(path):
    """A frame's file: a dumped file by its kind (it differs from run to run), else its name."""
    name = os.path.basename(path)
    if os.path.basename(os.path.dirname(path)).startswith("unveil-suite-"):
        return "<dumped %s>" % name.split(".")[-2]
    return name


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item):
    _state["counters"], _state["frames"] = None, []
    if MODE != "debug":
        yield
        _write_counters(item, [])
        return
    import unveil
    dump = tempfile.mkdtemp(prefix="unveil-suite-", dir=os.environ.get("UNVEIL_SUITE_KEEP"))
    session = unveil.debug(dump)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", category=Warning)
        session.__enter__()
    try:
        yield
    finally:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", category=Warning)
            session.__exit__(None, None, None)
        failures = ["%s: %s" % (f["what"], f["error"]) for f in session.failures]
        if os.environ.get("UNVEIL_SUITE_SHOW"):       # when looking into one test: every traceback
            for f in session.failures:
                print("unveil failure: %s: %s\n%s" % (f["what"], f["error"], f.get("traceback", "")))
        _state["counters"] = _as_the_user_wrote(_state["counters"] if _state["counters"] is not None else snapshot(), dump)
        _write_counters(item, failures, _state_machines(dump))
        if not os.environ.get("UNVEIL_SUITE_KEEP"):    # (a folder to keep each test's dump in)
            shutil.rmtree(dump, ignore_errors=True)


#: the state machine the decompiler falls back to for code it cannot structure
_STATE_MACHINE = re.compile(r"^ *__state = ", re.M)


def _state_machines(dump):
    """The transformed and resume files of the dump written as a state machine."""
    try:
        with open(os.path.join(dump, "index.json")) as f:
            artifacts = json.load(f).get("artifacts", [])
    except FileNotFoundError:        # nothing was compiled
        return []
    found = []
    for art in artifacts:
        if art.get("kind") in ("transformed_code", "resume_function") and art.get("ok"):
            with open(os.path.join(dump, art["file"])) as f:
                if _STATE_MACHINE.search(f.read()):
                    found.append(art["file"])
    return found


def _as_the_user_wrote(counters, dump):
    """Counters whose texts name a dumped resume function's file and line (Dynamo's "frame
    skipped: torch_dynamo_resume_in_fn_at_1204 (FILE line N)") with the file and line of the
    resume function Dynamo made, which a plain run names: where the code runs from is the one
    difference debug() makes."""
    if counters is None or not os.path.exists(os.path.join(dump, "index.json")):
        return counters
    with open(os.path.join(dump, "index.json")) as f:
        index = json.load(f)
    filename = {fn["key"]: fn["filename"] for fn in index["functions"]}
    original = {art["file"]: "(%s line %s)" % (filename[art["function"]], art["line"])
                for art in index["artifacts"] if art["kind"] == "resume_function" and art["function"] in filename}
    mention = re.compile(r"\(%s/([^ ()]+) line \d+\)" % re.escape(dump))

    def named(text):
        return mention.sub(lambda m: original.get(m.group(1), m.group(0)), text)
    return {group: {named(key): n for key, n in counts.items()} for group, counts in counters.items()}


def _write_counters(item, failures, state_machines=()):
    counters = _state["counters"] if _state["counters"] is not None else snapshot()
    _append({"test": item.nodeid, "phase": "counters", "counters": counters, "unveil_failures": failures,
             "frames": _state["frames"], "state_machines": list(state_machines)})


def pytest_runtest_logreport(report):
    if report.when == "call" or report.outcome != "passed":
        error = ""
        if report.failed:
            error = first_error_line(report.longreprtext)
        _append({"test": report.nodeid, "phase": report.when, "outcome": report.outcome, "error": error,
                 "seconds": round(report.duration, 3)})


def _append(record):
    append(os.environ["UNVEIL_SUITE_RECORD"], record)
