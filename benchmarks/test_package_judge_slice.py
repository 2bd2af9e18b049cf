"""CI's slice of benchmarks/package_judge.py: three PyPI packages' own test suites, run against
their installed modules and against those modules decompiled whole (nox session
``packages``, Python 3.11).

The packages, their test dependencies and pytest come from PyPI at the versions pinned in
the script (``PACKAGES``) and in .ci/constraints.txt, installed into the running
interpreter; the sdists (for their tests) are downloaded into
``benchmarks/.venv-pkgjudge-cache/``.  A test that passes on the original and not on the
decompiled modules fails the slice, and so does a module unveil refuses, crashes on, or
prints as text that does not compile.  The negative control breaks one comparison per
decompiled module and must be caught.
"""
import importlib.util
import os
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location("package_judge", os.path.join(HERE, "package_judge.py"))
judge = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(judge)

SLICE = ("six", "more-itertools", "tomlkit")   # (tomlkit: x = 1; y = x was x, y = 1, x)
#: the package the negative control breaks (its suite is the fastest)
CONTROL = "six"

pytestmark = pytest.mark.timeout(900)


@pytest.fixture(scope="module")
def results():
    packages = [judge.PACKAGES[p] for p in SLICE]
    judge.pip_install(sys.executable, judge.requirements(packages), quiet=True)
    recs = judge.run([sys.executable], packages)
    print()
    print(judge.table(recs))
    print(judge.details(recs))
    return {r["package"]: r for r in recs}


@pytest.mark.parametrize("dist", SLICE)
def test_no_test_fails_only_on_the_decompiled_modules(results, dist):
    rec = results[dist]
    assert not judge.failed(rec), "%s: %s\n%s" % (dist, "; ".join(judge.failed(rec)), judge.details([rec]))
    assert rec["passing"] > 100, "the judge ran next to no test: %s" % rec.get("original")
    assert all(f["status"] == "decompiled" for f in rec["files"])


def test_the_negative_control_is_caught(results):
    (rec,) = judge.run([sys.executable], [judge.PACKAGES[CONTROL]], sabotaged=True)
    print(judge.table([rec]))
    print(judge.details([rec]))
    assert any(f.get("sabotaged") for f in rec["files"])
    assert rec["regressed"], "a broken comparison in every module went unnoticed"
    assert any("tests regressed" in why for why in judge.failed(rec))


def test_the_sabotage_negates_one_comparison_and_stays_valid():
    text = "X = 1 == 2\n\ndef f(a, b):\n    if a < b:\n        return a == b\n    return a != b\n"
    broken = judge.sabotage(text)
    assert broken == text.replace("a < b", "a >= b")
    compile(broken, "<sabotaged>", "exec")
    assert judge.sabotage("X = 1 == 2\n") == "X = 1 != 2\n"
    assert judge.sabotage("X = 1\n") is None
