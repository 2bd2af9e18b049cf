"""Nox sessions for unveil.

``nox`` (or ``bash .ci/run``) runs the test suite and the random-program
slice (which needs hypothesmith, kept out of the package) on Python 3.8 to 3.13;
``nox -s tests-3.11 -- -k cli`` runs one version, passing ``-k cli`` to pytest.
"""
import nox

nox.options.default_venv_backend = "venv"
nox.options.sessions = ["tests", "random"]

PYTHONS = ["3.8", "3.9", "3.10", "3.11", "3.12", "3.13"]


@nox.session(python=PYTHONS)
def tests(session):
    """Install unveil with its test extra and run pytest; extra arguments go to pytest."""
    session.install("-e", ".[test]")
    session.run("pytest", "-q", *session.posargs)


@nox.session(python=PYTHONS)
def random(session):
    """300 hypothesmith programs per version (benchmarks/test_random_slice.py), verdicts printed."""
    session.install("-e", ".[test]", "hypothesmith>=0.3")
    session.run("pytest", "-q", "-s", "benchmarks/test_random_slice.py", *session.posargs)
