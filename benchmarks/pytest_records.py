"""What the benchmarks' pytest plugins (dynamo_suite_plugin.py, package_judge_plugin.py)
share: the line of a failure's report that names it, and appending a record to a JSON
lines file.  Standard library only; imported from beside the plugin."""
import json


def first_error_line(text):
    """The exception line of a failure's report (``E   Type: message``), else its last line."""
    for line in text.splitlines():
        if line.startswith("E   ") and ("Error" in line or "Exception" in line or "assert" in line.lower()):
            return line[4:].strip()[:300]
    lines = [line for line in text.splitlines() if line.strip()]
    return lines[-1].strip()[:300] if lines else ""


def append(path, record):
    """Add ``record`` to the JSON lines file ``path``."""
    with open(path, "a") as f:
        f.write(json.dumps(record, default=str) + "\n")
