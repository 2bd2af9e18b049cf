"""Registration and discovery of case functions."""
import importlib
import pkgutil
import sys


class Call:
    """One call of a case function: positional and keyword arguments."""

    def __init__(self, *args, **kwargs):
        self.args = args
        self.kwargs = kwargs

    def __repr__(self):
        parts = [repr(a) for a in self.args]
        parts += ["%s=%r" % kv for kv in self.kwargs.items()]
        return "call(%s)" % ", ".join(parts)


def call(*args, **kwargs):
    return Call(*args, **kwargs)


class Case:
    def __init__(self, fn, calls, same_bytecode, structured=None):
        self.fn = fn
        self.calls = calls
        self.same_bytecode = same_bytecode
        self.structured = structured

    @property
    def name(self):
        return "%s.%s" % (self.fn.__module__.rsplit(".", 1)[-1], self.fn.__qualname__)


_CASES = []


def case(*calls, same_bytecode=None, structured=None):
    """Register the decorated function as a case.

    Each positional argument is one call: a tuple of positional arguments,
    or ``call(*args, **kwargs)``.  ``same_bytecode=True`` asserts that the
    recompiled bytecode is instruction-for-instruction identical;
    ``structured=True`` that no function of it is lowered to the state machine
    (for cases whose bytecode legitimately differs).
    """
    normalised = [c if isinstance(c, Call) else Call(*c) for c in calls]

    def register(fn):
        _CASES.append(Case(fn, normalised or [Call()], same_bytecode, structured))
        return fn

    return register


def all_cases():
    """Import every case module this Python can parse and return the cases."""
    import tests.cases as pkg

    for info in sorted(pkgutil.iter_modules(pkg.__path__), key=lambda m: m.name):
        if info.name == "registry":
            continue
        spec_path = "%s/%s.py" % (pkg.__path__[0], info.name)
        with open(spec_path) as f:
            head = f.read(400)
        min_version = _min_version(head)
        if sys.version_info[:2] < min_version:
            continue
        importlib.import_module("tests.cases." + info.name)
    return list(_CASES)


def _min_version(head):
    for line in head.splitlines():
        if line.startswith("MIN_VERSION"):
            return tuple(int(x) for x in line.split("=")[1].strip(" ()").split(","))
    return (3, 8)
