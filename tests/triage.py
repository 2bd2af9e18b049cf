"""Run the case library outside pytest and print one line per failing case.

    python -m tests.triage [--write-known] [--write-lowerings] [substring ...]

A quick view for fixing the decompiler: each failure is shown with the first
line of its error, and the closing line counts passes and failures.
``--write-known`` records this interpreter's failures, with their reasons, in
``tests/known_failures.json``, which the test suite turns into strict xfails.
``--write-lowerings`` records in ``tests/known_lowerings.json`` which code objects
of each case this interpreter lowers to the state machine, and why (the case tests
fail on any other lowering, and on a listed one that no longer lowers).
"""
import json
import os
import signal
import sys
import traceback

from tests.cases.registry import all_cases
from tests.outcome import outcome
from tests.roundtrip import rebuild_decompiled


def _alarm(signum, frame):
    raise TimeoutError("case took more than 10 s")


def check(case, lowerings=None):
    """None when ``case`` round-trips, else a one-line reason.  Its lowerings go into
    ``lowerings`` (case name -> {code object: reason})."""
    try:
        new, result = rebuild_decompiled(case.fn)
        if result.lowered and lowerings is not None:
            lowerings[case.name] = {low.name: low.reason for low in result.lowered}
        for call in case.calls:
            if outcome(new, call) != outcome(case.fn, call):
                return "wrong result for %r" % (call,)
    except Exception as exc:
        frame = traceback.extract_tb(exc.__traceback__)[-1]
        return "%s: %s [%s:%d]" % (type(exc).__name__, str(exc).splitlines()[0] if str(exc) else "",
                                    frame.filename.rsplit("/", 1)[-1], frame.lineno)
    return None


KNOWN = os.path.join(os.path.dirname(__file__), "known_failures.json")
LOWERINGS = os.path.join(os.path.dirname(__file__), "known_lowerings.json")


def main(argv):
    write = "--write-known" in argv
    write_lowerings = "--write-lowerings" in argv
    argv = [a for a in argv if a not in ("--write-known", "--write-lowerings")]
    if write_lowerings and argv:
        raise SystemExit("--write-lowerings records every case: give no substrings")
    lowerings = {}
    signal.signal(signal.SIGALRM, _alarm)
    failed = passed = 0
    failures = {}
    for case in all_cases():
        if argv and not any(a in case.name for a in argv):
            continue
        signal.alarm(10)
        try:
            reason = check(case, lowerings)
        except TimeoutError as exc:
            reason = str(exc)
        finally:
            signal.alarm(0)
        if reason:
            failed += 1
            failures[case.name] = reason[:200]
            print("%-60s %s" % (case.name, reason[:200]))
        else:
            passed += 1
    print("%d.%d: %d passed, %d failed" % (sys.version_info[:2] + (passed, failed)))
    print("%d.%d: %d cases lowered to the state machine" % (sys.version_info[:2] + (len(lowerings),)))
    if write:
        _write_version(KNOWN, failures)
    if write_lowerings:
        _write_version(LOWERINGS, lowerings)


def _write_version(path, entries):
    """Replace this interpreter's entries in the JSON file ``path``."""
    known = {}
    if os.path.exists(path):
        with open(path) as f:
            known = json.load(f)
    known["%d.%d" % sys.version_info[:2]] = dict(sorted(entries.items()))
    with open(path, "w") as f:
        json.dump(dict(sorted(known.items())), f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main(sys.argv[1:])
