"""``python -m unveil`` and the ``unveil`` console script."""
import os
import signal
import sys

from unveil import cli


def main():
    """:func:`unveil.cli.main`; where it ran a program that a KeyboardInterrupt ended, die
    of SIGINT as the interpreter does then (its parent sees the signal, not a status)."""
    status = cli.main()
    from unveil.runner import INTERRUPTED     # (the standard library only)
    if status is INTERRUPTED and hasattr(signal, "SIGINT"):
        sys.stdout.flush()
        sys.stderr.flush()
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGINT)
    return status


if __name__ == "__main__":
    sys.exit(main())
