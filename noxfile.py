"""Nox sessions for unveil.

``nox`` (or ``bash .ci/run``) runs pyflakes' checks (ruff), the test suite and the random-program
slice (which needs hypothesmith, kept out of the package) on Python 3.8 to 3.13,
two PyPI packages' own tests against their modules decompiled whole on Python 3.11,
and the prepare_debug tests on Python 3.11 with torch 2.13.0 (the local CPU wheel) and,
in part, with the current release 2.15.0;
``nox -s tests-3.11 -- -k cli`` runs one version, passing ``-k cli`` to pytest.
"""
import os

import nox

nox.options.default_venv_backend = "venv"
nox.options.sessions = ["lint", "tests", "random", "mutation", "packages", "torch", "torch_current"]

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
def packages(session):
    """PyPI packages' own test suites against their modules decompiled whole: the slice of
    benchmarks/package_judge.py (benchmarks/test_package_judge_slice.py), which installs the
    pinned packages itself."""
    session.install("pytest", "pytest-timeout", *CONSTRAINTS)
    session.run("pytest", "-q", "-s", "benchmarks/test_package_judge_slice.py", *session.posargs)


#: the torch release unveil is built against: a CPU wheel on this machine's disk
TORCH_BASE = "2.13.0"
#: the current release (October 2026): a CUDA build from PyPI that runs on the CPU, past this
#: machine's pip cap (/etc/xdg/pip allows torch 2.14.1 at most), which is lifted for that one install
TORCH_CURRENT = "2.15.0"
#: the part of tests_torch CI runs on the current release (the whole of it runs on 2.13.0 here, and
#: on any release through ``python benchmarks/torch_versions.py VERSION``; the slice of PyTorch's
#: Dynamo tests runs on 2.13.0 only, to keep .ci/run under an hour: benchmarks/README has 2.15.0's)
TORCH_CURRENT_SLICE = ["tests_torch/test_prepare_debug.py", "tests_torch/test_dynamo_shapes.py",
                       "tests_torch/test_transformed_readable.py", "tests_torch/test_adapter.py",
                       "tests_torch/test_guard_source.py", "tests_torch/test_explanations.py"]
#: what CI leaves to a full run (``bash .ci/run -s torch -- tests_torch``), to keep .ci/run under an hour:
#: test_summary_programs.py (the summary checked against Dynamo on every program, HuggingFace models
#: included, about 20 minutes here) and the HuggingFace programs of test_why_recompile_programs.py
#: (13 models, about 8 minutes; its 45 other programs run in CI)
TORCH_FULL_RUN_ONLY = ["--ignore=tests_torch/test_summary_programs.py",
                       "-k", "not (test_the_answer_is_dynamos_decision and hf_)"]
#: what the torch sessions install beside torch and unveil (hypothesis: test_diff_properties.py)
TORCH_SESSION_PACKAGES = ["transformers", "numpy", "debugpy", "pydevd", "playwright", "expecttest", "hypothesis"]


def install_torch(session, version):
    """torch==version and then unveil with what its torch tests use.  torch comes first, so
    that nothing installed later can pull another; a release past pip's cap on this
    machine is installed with the cap lifted (PIP_CONSTRAINT) for that install alone."""
    env = {"PIP_CONSTRAINT": "/dev/null"} if version == TORCH_CURRENT else None
    session.install("torch==%s" % version, *CONSTRAINTS, env=env)
    extras = ".[torch,test,report]" if version == TORCH_BASE else ".[test,report]"
    session.install("-e", extras, *TORCH_SESSION_PACKAGES, *CONSTRAINTS)
    session.run("python", "-c", "import torch, sys; v = torch.__version__.split('+')[0]; "
                "sys.exit(0 if v == %r else 'torch %%s installed, not %s' %% v)" % (version, version))


def run_torch_tests(session, targets):
    # a temporary folder of the session's own: .ci/run runs the torch session beside the others
    basetemp = os.path.join(session.create_tmp(), "pytest")
    session.run("pytest", "-q", "--timeout", "900", "--basetemp", basetemp, *targets,
                env={"HF_HUB_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false"})


@nox.session(python="3.11")
def torch(session):
    """prepare_debug and debug() on real torch.compile programs (tests_torch/), stepped in pdb,
    debugpy and pydevd, and the slice of PyTorch's own Dynamo tests, on torch 2.13.0 (the
    local wheel)."""
    install_torch(session, TORCH_BASE)
    run_torch_tests(session, session.posargs or ["tests_torch"] + TORCH_FULL_RUN_ONLY)


@nox.session(python="3.11")
def torch_current(session):
    """The same on the current torch release (2.15.0 from PyPI): TORCH_CURRENT_SLICE, or the
    tests given as arguments (``bash .ci/run -s torch_current -- tests_torch`` for all)."""
    install_torch(session, TORCH_CURRENT)
    run_torch_tests(session, session.posargs or TORCH_CURRENT_SLICE)
