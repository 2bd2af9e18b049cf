"""``python -m unveil`` and the ``unveil`` console script."""
import sys

from unveil.cli import main

if __name__ == "__main__":
    sys.exit(main())
