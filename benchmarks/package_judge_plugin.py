"""pytest plugin of benchmarks/package_judge.py: records each test's outcome, per phase, and
at the session's end the file every judged module was imported from, into the JSON lines
file ``$UNVEIL_PKGJUDGE_RECORD``.  ``$UNVEIL_PKGJUDGE_MODULES`` names the judged top-level
modules (comma-separated).  Loaded with ``-p package_judge_plugin`` (benchmarks/ on
``PYTHONPATH``, after the decompiled tree).
"""
import os
import sys

from pytest_records import append, first_error_line

RECORD = os.environ["UNVEIL_PKGJUDGE_RECORD"]
MODULES = [m for m in os.environ.get("UNVEIL_PKGJUDGE_MODULES", "").split(",") if m]


def pytest_runtest_logreport(report):
    if report.when == "call" or report.outcome != "passed":
        error = first_error_line(report.longreprtext) if report.failed else ""
        _append({"test": report.nodeid, "phase": report.when, "outcome": report.outcome, "error": error,
                 "xfail": hasattr(report, "wasxfail")})


def pytest_collectreport(report):
    if report.failed:
        _append({"test": report.nodeid, "phase": "collect", "outcome": "failed",
                 "error": first_error_line(report.longreprtext), "xfail": False})


def pytest_sessionfinish(session, exitstatus):
    files = {}
    for name, module in list(sys.modules.items()):
        # six.moves.queue is the stdlib's queue under another name: only a module of its own name counts
        if any(name == m or name.startswith(m + ".") for m in MODULES) and getattr(module, "__name__", None) == name:
            files[name] = getattr(module, "__file__", None)
    _append({"phase": "modules", "files": files, "exitstatus": int(exitstatus)})


def _append(record):
    append(RECORD, record)
