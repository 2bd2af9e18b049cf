"""Nox sessions for unveil.

``nox`` (or ``bash .ci/run``) runs pyflakes' checks (ruff), the test suite and the random-program
slice (which needs hypothesmith, kept out of the package) on Python 3.8 to 3.13,
and the prepare_debug tests (torch 2.13.0, the local CPU wheel) on Python 3.11;
``nox -s tests-3.11 -- -k cli`` runs one version, passing ``-k cli`` to pytest.
"""
import nox

nox.options.default_venv_backend = "venv"
nox.options.sessions = ["lint", "tests", "random", "mutation", "torch"]

#: the pinned versions of everything tests install besides unveil (see the file)
CONSTRAINTS = ("-c", ".ci/constraints.txt")

PYTHONS = ["3.8", "3.9", "3.10", "3.11", "3.12", "3.13"]


@nox.session(python="3.11")
def lint(session):
    """pyflakes' checks by ruff (configured in pyproject.toml): unused imports and names,
    undefined names, a name defined twice."""
    session.install("ruff", *CONSTRAINTS)
    session.run("ruff", "check", "--no-cache", ".")


@nox.session(python=PYTHONS)
def tests(session):
    """Install unveil with its test extra and run pytest; extra arguments go to pytest."""
    session.install("-e", ".[test]", *CONSTRAINTS)
    session.run("pytest", "-q", *session.posargs)


@nox.session(python=PYTHONS)
def random(session):
    """300 hypothesmith programs per version (benchmarks/test_random_slice.py), verdicts printed."""
    session.install("-e", ".[test]", "hypothesmith", *CONSTRAINTS)
    session.run("pytest", "-q", "-s", "benchmarks/test_random_slice.py", *session.posargs)


@nox.session(python="3.11")
def mutation(session):
    """The case library can fail: benchmarks/mutation_check.py breaks the structurer four ways in
    copies of src/ and checks that tests/test_cases.py passes on the unmutated copy and fails on each."""
    session.install("-e", ".[test]", *CONSTRAINTS)
    session.run("python", "benchmarks/mutation_check.py", "--python", "python", "--fast",
                "--suite", "tests/test_cases.py", *session.posargs)


@nox.session(python="3.11")
def torch(session):
    """prepare_debug and debug() on real torch.compile programs (tests_torch/), stepped in pdb,
    debugpy and pydevd: torch 2.13.0 from the local wheel first, so that nothing installed later
    can pull another torch."""
    session.install("torch==2.13.0", *CONSTRAINTS)
    session.install("-e", ".[torch,test,report]", "transformers", "numpy", "debugpy", "pydevd", "playwright",
                    *CONSTRAINTS)
    session.run("pytest", "-q", "--timeout", "900", "tests_torch", *session.posargs,
                env={"HF_HUB_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false"})
