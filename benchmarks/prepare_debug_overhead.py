"""What prepare_debug adds to compile time: unveil's, next to depyf 0.20.0's.

    python3.11 benchmarks/prepare_debug_overhead.py [--programs a b ...] [--repeat 3]

Each program (from tests_torch/programs.py) runs in a fresh process per
measurement: plainly, inside unveil.prepare_debug, and inside
depyf.prepare_debug.  unveil and depyf each get their own venv under
benchmarks/ (torch 2.13.0 from the local wheel, made on first use).  The
overhead is the median time minus the plain median; the last column is
unveil's overhead over depyf's (target: at most 0.5).
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import bench_functions  # noqa: E402  (venv pythons; shared with the other benchmarks)
ROOT = os.path.dirname(HERE)
WORKER = os.path.join(HERE, "prepare_debug_worker.py")
DEFAULT_PROGRAMS = ["arith_fullgraph", "print_break", "data_dependent_if", "item_break", "tensor_list_loop",
                    "closure", "dict_input", "dynamic_shapes", "recompile_shape", "module_forward",
                    "module_train_aot_eager", "hf_bert", "hf_gpt2", "hf_llama"]
COMMON = ["torch==2.13.0", "numpy", "transformers"]
VENVS = {
    "unveil": (os.path.join(HERE, ".venv-torch-unveil"), ["-e", ROOT]),
    "depyf": (os.path.join(HERE, ".venv-torch-depyf"), ["depyf==0.20.0"]),
}


def ensure_venv(tool):
    venv, extra = VENVS[tool]
    python = bench_functions.venv_python(venv)
    check = "import torch, transformers, %s" % tool
    if os.path.exists(python) and subprocess.run([python, "-c", check], stderr=subprocess.DEVNULL,
                                                 stdout=subprocess.DEVNULL).returncode == 0:
        return python
    print("setting up %s ..." % os.path.relpath(venv), file=sys.stderr)
    subprocess.run([sys.executable, "-m", "venv", "--clear", venv], check=True)
    env = dict(os.environ, PIP_DISABLE_PIP_VERSION_CHECK="1", PIP_ROOT_USER_ACTION="ignore")
    subprocess.run([python, "-m", "pip", "install", "-q", "torch==2.13.0"], check=True, env=env)
    subprocess.run([python, "-m", "pip", "install", "-q"] + COMMON + extra, check=True, env=env)
    return python


def measure(python, mode, program, repeat):
    times = []
    for _ in range(repeat):
        with tempfile.TemporaryDirectory() as tmp:
            env = dict(os.environ, HF_HUB_OFFLINE="1", TORCHINDUCTOR_CACHE_DIR=os.path.join(tmp, "inductor"))
            done = subprocess.run([python, WORKER, mode, program, os.path.join(tmp, "dump")], env=env,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
            if done.returncode != 0:
                return None, done.stderr.strip().splitlines()[-1:] or ["failed"]
            times.append(json.loads(done.stdout.strip().splitlines()[-1])["seconds"])
    return statistics.median(times), None


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--programs", nargs="*", default=DEFAULT_PROGRAMS)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    pythons = {tool: ensure_venv(tool) for tool in VENVS}
    print("%-24s %8s %8s %8s %10s %10s %7s" % ("program", "plain s", "unveil s", "depyf s",
                                               "unveil +s", "depyf +s", "ratio"))
    totals = {"unveil": 0.0, "depyf": 0.0}
    for program in args.programs:
        plain, _ = measure(pythons["unveil"], "plain", program, args.repeat)
        row, over = {}, {}
        for tool in ("unveil", "depyf"):
            row[tool], error = measure(pythons[tool], tool, program, args.repeat)
            if row[tool] is None:
                print("%-24s %s failed: %s" % (program, tool, error[0][:90]))
            elif plain is not None:
                over[tool] = row[tool] - plain
                totals[tool] += over[tool]
        ratio = over["unveil"] / over["depyf"] if len(over) == 2 and over["depyf"] > 0 else float("nan")
        fmt = lambda v: "%8.2f" % v if v is not None else "       -"
        print("%-24s %s %s %s %10s %10s %7.2f" % (program, fmt(plain), fmt(row.get("unveil")),
                                                   fmt(row.get("depyf")),
                                                   "%.2f" % over["unveil"] if "unveil" in over else "-",
                                                   "%.2f" % over["depyf"] if "depyf" in over else "-", ratio))
    if totals["depyf"] > 0:
        print("total overhead: unveil %.2f s, depyf %.2f s, ratio %.2f"
              % (totals["unveil"], totals["depyf"], totals["unveil"] / totals["depyf"]))


if __name__ == "__main__":
    main()
