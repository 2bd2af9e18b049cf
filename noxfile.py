"""Nox sessions for unveil.

``nox`` (or ``bash .ci/run``) runs the test suite on Python 3.8 to 3.13;
``nox -s tests-3.11 -- -k cli`` runs one version, passing ``-k cli`` to pytest.
"""
import nox

nox.options.default_venv_backend = "venv"
nox.options.sessions = ["tests"]

PYTHONS = ["3.8", "3.9", "3.10", "3.11", "3.12", "3.13"]


@nox.session(python=PYTHONS)
def tests(session):
    """Install unveil with its test extra and run pytest; extra arguments go to pytest."""
    session.install("-e", ".[test]")
    session.run("pytest", "-q", *session.posargs)
