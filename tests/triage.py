"""Run the case library outside pytest and print one line per failing case.

    python -m tests.triage [substring ...]

A quick view for fixing the decompiler: each failure is shown with the first
line of its error, and the closing line counts passes and failures.
"""
import signal
import sys
import traceback

from tests.cases.registry import all_cases
from tests.outcome import outcome
from tests.roundtrip import rebuild


def _alarm(signum, frame):
    raise TimeoutError("case took more than 10 s")


def check(case):
    """None when ``case`` round-trips, else a one-line reason."""
    try:
        new, source = rebuild(case.fn)
        for call in case.calls:
            if outcome(new, call) != outcome(case.fn, call):
                return "wrong result for %r" % (call,)
    except Exception as exc:
        frame = traceback.extract_tb(exc.__traceback__)[-1]
        return "%s: %s [%s:%d]" % (type(exc).__name__, str(exc).splitlines()[0] if str(exc) else "",
                                    frame.filename.rsplit("/", 1)[-1], frame.lineno)
    return None


def main(argv):
    signal.signal(signal.SIGALRM, _alarm)
    failed = passed = 0
    for case in all_cases():
        if argv and not any(a in case.name for a in argv):
            continue
        signal.alarm(10)
        try:
            reason = check(case)
        except TimeoutError as exc:
            reason = str(exc)
        finally:
            signal.alarm(0)
        if reason:
            failed += 1
            print("%-60s %s" % (case.name, reason[:200]))
        else:
            passed += 1
    print("%d.%d: %d passed, %d failed" % (sys.version_info[:2] + (passed, failed)))


if __name__ == "__main__":
    main(sys.argv[1:])
