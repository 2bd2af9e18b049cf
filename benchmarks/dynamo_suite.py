"""PyTorch's own Dynamo tests as a judge of ``unveil.debug()``.

Each test file of ``../shared/pytorch-dynamo-tests/`` (PyTorch's ``test/dynamo`` files, data
and not project code; its README says where each came from) runs twice under pytest, in a
copy of the folder: plainly, then with every test's call wrapped in ``with unveil.debug(dir):``
(benchmarks/dynamo_suite_plugin.py).  Only the tests that pass plainly count.  For each file
it prints the tests passing plainly, those passing under debug(), those failing only under
debug() (with their first error line), those in which unveil reported a failure of its own
(it fell back to Dynamo's code there), those whose Dynamo counters (frames, graphs,
captured calls, graph breaks) differ between the two runs, and those with a transformed or
resume file of the dump written as a state machine; a test whose counters a second
plain run does not repeat is listed as nondeterministic instead, and not judged on them.

    python benchmarks/dynamo_suite.py                      # every file (about 40 minutes)
    python benchmarks/dynamo_suite.py --files test_hooks.py --json out.json
    python benchmarks/dynamo_suite.py --tests benchmarks/dynamo_suite_slice.txt   # CI's slice

Run it with the Python of a venv that has torch and unveil installed (``--python`` for
another).  Exit status 1 when any counted test fails only under debug(), unveil reported a
failure, counters differ, or a dumped file is a state machine.
"""
import argparse
import collections
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def suite_folder():
    """The folder of PyTorch's test files: ``$UNVEIL_DYNAMO_TESTS``, ``../shared/pytorch-dynamo-tests``
    beside the checkout, or this machine's ``/work/shared/pytorch-dynamo-tests`` (for a clone
    elsewhere); None when none holds them."""
    for folder in (os.environ.get("UNVEIL_DYNAMO_TESTS"), os.path.join(HERE, "..", "..", "shared", "pytorch-dynamo-tests"),
                   "/work/shared/pytorch-dynamo-tests"):
        if folder and os.path.isfile(os.path.join(folder, "README.md")):
            return os.path.abspath(folder)
    return None


def run_pytest(python, workdir, mode, targets, extra, timeout):
    """Run pytest on ``targets`` in ``workdir``; the plugin's records, one dict per line."""
    fd, record = tempfile.mkstemp(prefix="suite-%s-" % mode, suffix=".jsonl")
    os.close(fd)
    env = dict(os.environ, UNVEIL_SUITE_MODE=mode, UNVEIL_SUITE_RECORD=record, PYTHONDONTWRITEBYTECODE="1",
               PYTHONPATH=os.pathsep.join([HERE] + [p for p in [os.environ.get("PYTHONPATH")] if p]))
    cmd = [python, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "dynamo_suite_plugin",
           "--timeout", str(timeout), "-o", "timeout_method=signal"] + extra + list(targets)
    proc = subprocess.run(cmd, cwd=workdir, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          universal_newlines=True)
    with open(record) as f:
        records = [json.loads(line) for line in f if line.strip()]
    os.unlink(record)
    tail = [line for line in proc.stdout.splitlines() if line.strip()][-1:]
    return records, (tail[0] if tail else "")


def outcomes(records):
    """``{test: (outcome, error, counters, unveil failures)}``: a test passes when its call
    passed and neither setup nor teardown failed."""
    result = {}
    for r in records:
        test = r["test"]
        outcome, error, counters, failures, frames, machines = result.get(test, ("passed", "", None, [], [], []))
        if r["phase"] == "counters":
            counters, failures, frames = r["counters"], r["unveil_failures"], r["frames"]
            machines = r.get("state_machines", [])
        elif r["outcome"] != "passed" and outcome == "passed":
            outcome, error = r["outcome"], r.get("error", "")
        result[test] = (outcome, error, counters, failures, frames, machines)
    return {t: v for t, v in result.items() if v[2] is not None or v[0] != "passed"}


def judge(plain, debug):
    """What the debug run did to each test that passed plainly."""
    counted = sorted(t for t, (outcome, *_) in plain.items() if outcome == "passed")
    verdict = {"plain_passed": len(counted), "debug_passed": 0, "only_debug_fails": {}, "unveil_failures": {},
               "counters_differ": {}, "state_machines": {}}
    for test in counted:
        outcome, error, counters, failures, frames, machines = debug.get(
            test, ("missing", "did not run under debug()", None, [], [], []))
        if outcome == "passed":
            verdict["debug_passed"] += 1
        else:
            verdict["only_debug_fails"][test] = error or outcome
        if failures:
            verdict["unveil_failures"][test] = failures
        if machines:
            verdict["state_machines"][test] = machines
        if outcome == "passed":
            counters = _without_warning_frames(counters, plain[test][4], frames)
            if counters != plain[test][2]:
                verdict["counters_differ"][test] = _counter_difference(plain[test][2], counters) \
                    + _frame_difference(plain[test][4], frames)
    return verdict


#: the one difference allowed: a warning raised by code run from the dump is attributed to the
#: dumped file's line, so Python's once per location filter shows it where the plain run had
#: shown it already at the user's line, and Dynamo is called for (and skips) the frames of the
#: warnings module that show it
_WARNING_FRAMES = re.compile(r"\(warnings\.py:\d+\)$")


def _without_warning_frames(counters, plain_frames, debug_frames):
    """``counters`` of the debug run less the frames of the warnings module it had more."""
    extra = sum(1 for f in debug_frames if _WARNING_FRAMES.search(f)) \
        - sum(1 for f in plain_frames if _WARNING_FRAMES.search(f))
    if not extra or not counters or "frames" not in counters:
        return counters
    frames = dict(counters["frames"])
    for key in ("total", "ok"):
        if key in frames:
            frames[key] -= extra
    return dict(counters, frames=frames)


def _frame_difference(plain, debug):
    """The frames Dynamo was called on in one run and not (as often) in the other (a resume
    function by its name: its file is the dumped one under debug())."""
    a, b = collections.Counter(map(_frame_key, plain)), collections.Counter(map(_frame_key, debug))
    return ["frame %s: %d plainly, %d under debug()" % (f, a[f], b[f]) for f in sorted(set(a) | set(b)) if a[f] != b[f]]


def _counter_difference(plain, debug):
    plain, debug = plain or {}, debug or {}
    diffs = []
    for group in sorted(set(plain) | set(debug)):
        a, b = plain.get(group, {}), debug.get(group, {})
        for key in sorted(set(a) | set(b)):
            if a.get(key) != b.get(key):
                diffs.append("%s[%s]: %s plainly, %s under debug()" % (group, str(key), a.get(key), b.get(key)))
    return diffs


def _nondeterministic(args, suite, differing, plain):
    """The tests among ``differing`` whose counters a second plain run does not repeat (two
    threads compiling at once, say): taken out of ``differing`` and listed apart."""
    if not differing:
        return {}
    again, _ = run_pytest(args.python, suite, "plain", sorted(differing), [], args.timeout)
    again = outcomes(again)
    moved = {}
    for test in list(differing):
        if test in again and again[test][2] != plain[test][2]:
            moved[test] = _counter_difference(plain[test][2], again[test][2])
            del differing[test]
    return moved


def _frame_key(frame):
    return frame.split(" (")[0] if frame.startswith("torch_dynamo_resume_in_") else frame


#: what makes a test count against unveil (each a column of the table)
_JUDGED = ("only_debug_fails", "unveil_failures", "counters_differ", "state_machines")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--suite", default=suite_folder(), help="the folder of PyTorch's test files")
    parser.add_argument("--python", default=sys.executable, help="a Python with torch and unveil installed")
    parser.add_argument("--files", nargs="*", help="test files to run (default: every test_*.py)")
    parser.add_argument("--tests", help="a file listing test ids (file::Class::test), one per line: run only these")
    parser.add_argument("-k", dest="keyword", help="pytest's -k, for every file")
    parser.add_argument("--timeout", type=int, default=600, help="seconds per test")
    parser.add_argument("--json", help="write every verdict here")
    args = parser.parse_args(argv)
    if args.suite is None or not os.path.isdir(args.suite):
        parser.error("PyTorch's Dynamo test files are not here (%s): pass --suite or set UNVEIL_DYNAMO_TESTS"
                     % (args.suite or "../shared/pytorch-dynamo-tests"))

    work = tempfile.mkdtemp(prefix="dynamo-suite-")
    suite = os.path.join(work, "suite")
    shutil.copytree(args.suite, suite, ignore=shutil.ignore_patterns("__pycache__"))
    if args.tests:
        with open(args.tests) as f:
            ids = [line.split("#")[0].strip() for line in f]
        by_file = collections.OrderedDict()
        for test in filter(None, ids):
            by_file.setdefault(test.split("::")[0], []).append(test)
    else:
        files = args.files or sorted(n for n in os.listdir(suite) if n.startswith("test_") and n.endswith(".py"))
        by_file = collections.OrderedDict((f, [f]) for f in files)
    extra = ["-k", args.keyword] if args.keyword else []

    results, bad = {}, False
    print("| file | pass plainly | pass under debug() | fail only under debug() | unveil failed | counters differ "
          "| state machines |")
    print("|---|---|---|---|---|---|---|")
    for name, targets in by_file.items():
        plain, plain_tail = run_pytest(args.python, suite, "plain", targets, extra, args.timeout)
        debug, debug_tail = run_pytest(args.python, suite, "debug", targets, extra, args.timeout)
        seconds = {r["test"]: r.get("seconds") for r in plain if r.get("phase") == "call"}
        plain = outcomes(plain)
        verdict = judge(plain, outcomes(debug))
        # each counted test and its plain call's seconds (what a slice is chosen from)
        verdict["passed_plainly"] = {t: seconds.get(t) for t, v in plain.items() if v[0] == "passed"}
        verdict["pytest"] = {"plain": plain_tail, "debug": debug_tail}
        verdict["nondeterministic"] = _nondeterministic(args, suite, verdict["counters_differ"], plain)
        results[name] = verdict
        bad = bad or any(verdict[k] for k in _JUDGED)
        print("| %s | %d | %d | %d | %d | %d | %d |" % (
            (name, verdict["plain_passed"], verdict["debug_passed"]) + tuple(len(verdict[k]) for k in _JUDGED)),
            flush=True)
    totals = [sum(v["plain_passed"] for v in results.values()), sum(v["debug_passed"] for v in results.values())] + \
        [sum(len(v[k]) for v in results.values()) for k in _JUDGED]
    print("| **all** | %d | %d | %d | %d | %d | %d |" % tuple(totals))
    for name, verdict in results.items():
        for test, error in verdict["only_debug_fails"].items():
            print("FAILS ONLY UNDER debug(): %s: %s" % (test, error))
        for test, failures in verdict["unveil_failures"].items():
            print("UNVEIL FAILED: %s: %s" % (test, "; ".join(failures)[:400]))
        for test, diffs in verdict["counters_differ"].items():
            print("COUNTERS DIFFER: %s: %s" % (test, "; ".join(diffs)[:400]))
        for test, files in verdict["state_machines"].items():
            print("STATE MACHINE: %s: %s" % (test, ", ".join(files)))
        for test, diffs in verdict["nondeterministic"].items():
            print("NONDETERMINISTIC (two plain runs differ, not judged): %s: %s" % (test, "; ".join(diffs)[:300]))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1, sort_keys=True)
    shutil.rmtree(work, ignore_errors=True)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
