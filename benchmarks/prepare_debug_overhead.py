"""What prepare_debug adds to compile time: unveil's, next to depyf 0.20.0's.

    python3.11 benchmarks/prepare_debug_overhead.py [--programs a b ...] [--repeat 3] [--torch 2.15.0] [--json OUT]
    python3.11 benchmarks/prepare_debug_overhead.py --instructions [--jobs 2] [--programs a b ...]

Each program (from tests_torch/programs.py) runs in a fresh process per
measurement: plainly, inside unveil.prepare_debug, and inside
depyf.prepare_debug.  unveil and depyf each get their own venv under
benchmarks/ (torch 2.13.0 from the local wheel, made on first use; ``--torch
VERSION`` measures another release, in venvs of its own).  Each
round runs the three modes back to back (their order rotating from round to
round), so a tool's overhead in a round is its time minus that round's plain
time, and slow spells of a shared machine hit all three; a tool's overhead is
the median over the rounds.  The last column is unveil's overhead over
depyf's (target: at most 0.5).  The totals also give a second estimate, each
mode's fastest run minus the fastest plain run (interference only ever adds
time).  Each worker freezes the objects made before its clock starts out of
the garbage collector unless ``--no-freeze`` (see prepare_debug_worker.py).

Wall time on a shared virtual machine drifts by 10-30% within minutes, far
more than the overheads measured.  ``--instructions`` counts instead: each run
goes under valgrind's callgrind, which counts the instructions executed from
the clock's start to its stop only (``callgrind_region.c``, built with the
machine's C compiler), with the same ``PYTHONHASHSEED`` in every mode.  A
program's count moves by well under 1% from run to run and does not depend on
what else the machine runs, so ``--jobs`` runs that many at once.  A run takes
40-80 times as long.
"""
import argparse
import concurrent.futures
import glob
import json
import os
import shutil
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
COMMON = ["numpy", "transformers"]
TOOLS = {"unveil": ["-e", ROOT], "depyf": ["depyf==0.20.0"]}
#: the torch release measured unless --torch says another
TORCH = "2.13.0"


def ensure_venv(tool, torch_version=TORCH):
    """The python of the tool's venv for a torch release (benchmarks/.venv-torch-<tool>, with
    ``-<version>`` for another release than 2.13.0), made on first use."""
    venv = os.path.join(HERE, ".venv-torch-%s%s" % (tool, "" if torch_version == TORCH else "-" + torch_version))
    python = bench_functions.venv_python(venv)
    check = "import torch, transformers, %s, sys; sys.exit(torch.__version__.split('+')[0] != %r)" % (
        tool, torch_version)
    if os.path.exists(python) and subprocess.run([python, "-c", check], stderr=subprocess.DEVNULL,
                                                 stdout=subprocess.DEVNULL).returncode == 0:
        return python
    print("setting up %s ..." % os.path.relpath(venv), file=sys.stderr)
    subprocess.run([sys.executable, "-m", "venv", "--clear", venv], check=True)
    env = dict(os.environ, PIP_DISABLE_PIP_VERSION_CHECK="1", PIP_ROOT_USER_ACTION="ignore")
    pins = ["-c", bench_functions.CONSTRAINTS]
    bench_functions.install_torch(python, torch_version)     # first: nothing later may pull another
    subprocess.run([python, "-m", "pip", "install", "-q"] + COMMON + TOOLS[tool] + pins, check=True, env=env)
    return python


def compile_unveil(python):
    """Byte-compile unveil's editable source, as pip did depyf's: with
    ``PYTHONDONTWRITEBYTECODE`` set and no ``.pyc``, each run compiled the modules it
    imports lazily from source inside the timed stretch (about 8 M instructions of
    hf_gpt2's count), which depyf's installed package never does."""
    subprocess.run([python, "-m", "compileall", "-q", os.path.join(ROOT, "src", "unveil")], check=True)


def build_region_lib(directory):
    """The callgrind region library, compiled into ``directory``; exits naming what is missing."""
    missing = [tool for tool in ("valgrind", "cc") if shutil.which(tool) is None]
    if missing or not os.path.exists("/usr/include/valgrind/callgrind.h"):
        sys.exit("--instructions needs valgrind, its headers and a C compiler (missing: %s)"
                 % ", ".join(missing or ["valgrind/callgrind.h"]))
    lib = os.path.join(directory, "libregion.so")
    subprocess.run(["cc", "-O2", "-shared", "-fPIC", "-o", lib, os.path.join(HERE, "callgrind_region.c")],
                   check=True)
    return lib


def worker_run(python, mode, program, tmp, freeze=True, wrapper=(), extra=(), env=None):
    """One worker run in a fresh process, its dump and Inductor cache under ``tmp``."""
    env = dict(os.environ, HF_HUB_OFFLINE="1", TORCHINDUCTOR_CACHE_DIR=os.path.join(tmp, "inductor"), **(env or {}))
    return subprocess.run(list(wrapper) + [python, WORKER, mode, program, os.path.join(tmp, "dump")]
                          + ([] if freeze else ["--no-freeze"]) + list(extra), env=env, cwd=tmp,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)


def error_line(stderr, returncode):
    """The last line of a failed run's stderr that says something (valgrind's own lines left out)."""
    lines = [line for line in stderr.splitlines() if line.strip() and not line.startswith("==")]
    return (lines[-1:] or ["exit status %d" % returncode])[0]


def python_for(pythons, mode):
    """The venv python a mode runs in: plain runs use unveil's venv, without unveil."""
    return pythons["unveil" if mode == "plain" else mode]


def count_once(python, mode, program, lib, freeze=True):
    """Instructions of one run's timed stretch under callgrind, or the error's last line."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "callgrind.out")
        done = worker_run(python, mode, program, tmp, freeze, env={"PYTHONHASHSEED": "0"},
                          wrapper=["valgrind", "--tool=callgrind", "--instr-atstart=no",
                                   "--callgrind-out-file=" + out], extra=["--region-lib", lib])
        if done.returncode != 0:
            return None, error_line(done.stderr, done.returncode)
        for name in glob.glob(out + ".*"):  # the dump made by region_stop
            with open(name) as fh:
                for line in fh:
                    if line.startswith("totals:"):
                        return int(line.split()[1]), None
    return None, "callgrind wrote no region dump"


def count(pythons, programs, repeat, jobs, lib, freeze=True):
    """Yield per program, in order, ``{mode: (median instructions, None) or (None, error)}``."""
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        futures = [(program, {mode: [pool.submit(count_once, python_for(pythons, mode), mode, program, lib, freeze)
                                     for _ in range(repeat)]
                              for mode in ("plain", "unveil", "depyf")}) for program in programs]
        for program, by_mode in futures:
            row = {}
            for mode, runs in by_mode.items():
                results = [f.result() for f in runs]
                errors = [e for _, e in results if e is not None]
                row[mode] = (None, errors[0]) if errors else (statistics.median(n for n, _ in results), None)
            yield program, row


def print_counts(rows):
    print("%-24s %10s %10s %10s %7s" % ("program", "plain Mi", "unveil +Mi", "depyf +Mi", "ratio"))
    totals = {"unveil": 0, "depyf": 0}
    for program, row in rows:
        plain, plain_error = row["plain"]
        over = {}
        for tool in ("unveil", "depyf"):
            n, error = row[tool]
            if n is None or plain is None:
                print("%-24s %s failed: %s" % (program, "plain" if plain is None else tool,
                                               (plain_error or error)[:90]))
            else:
                over[tool] = n - plain
        if len(over) == 2:
            for tool in over:
                totals[tool] += over[tool]
        ratio = over["unveil"] / over["depyf"] if len(over) == 2 and over["depyf"] > 0 else float("nan")
        mi = lambda tool: "%10.1f" % (over[tool] / 1e6) if tool in over else "%10s" % "-"
        print("%-24s %10s %s %s %7.2f" % (program, "%.0f" % (plain / 1e6) if plain else "-", mi("unveil"),
                                           mi("depyf"), ratio), flush=True)
    if totals["depyf"] > 0:
        print("total overhead where both ran: unveil %.1f M instructions, depyf %.1f M, ratio %.2f"
              % (totals["unveil"] / 1e6, totals["depyf"] / 1e6, totals["unveil"] / totals["depyf"]))


def run_once(python, mode, program, freeze=True):
    """Seconds of one run in a fresh process, or the error's last line."""
    with tempfile.TemporaryDirectory() as tmp:
        done = worker_run(python, mode, program, tmp, freeze)
    if done.returncode != 0:
        return None, error_line(done.stderr, done.returncode)
    return json.loads(done.stdout.strip().splitlines()[-1])["seconds"], None


def measure(pythons, program, repeat, freeze=True):
    """Per mode: the median seconds, and per tool the median of its paired overheads."""
    modes = ["plain", "unveil", "depyf"]
    times = {mode: [] for mode in modes}
    errors = {}
    for k in range(repeat):
        for mode in modes[k % 3:] + modes[:k % 3]:
            if mode in errors:
                continue
            seconds, error = run_once(python_for(pythons, mode), mode, program, freeze)
            if error is not None:
                errors[mode] = error
            else:
                times[mode].append(seconds)
    median = {mode: statistics.median(t) for mode, t in times.items() if t and mode not in errors}
    over, over_min = {}, {}
    if "plain" in median:
        for tool in ("unveil", "depyf"):
            if tool in median:
                over[tool] = statistics.median(t - p for t, p in zip(times[tool], times["plain"]))
                over_min[tool] = min(times[tool]) - min(times["plain"])
    return median, over, over_min, errors


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--programs", nargs="*", default=DEFAULT_PROGRAMS)
    parser.add_argument("--repeat", type=int, default=None,
                        help="runs per program and mode (default 3; 1 with --instructions)")
    parser.add_argument("--instructions", action="store_true",
                        help="count instructions under callgrind instead of timing (see above)")
    parser.add_argument("--jobs", type=int, default=2, help="runs at once with --instructions")
    parser.add_argument("--no-freeze", dest="freeze", action="store_false",
                        help="leave the objects made before the clock starts to the garbage collector "
                             "(a full collection then costs 150-200 ms of the HuggingFace programs' time)")
    parser.add_argument("--torch", default=TORCH, help="the torch release (default %(default)s)")
    parser.add_argument("--json", help="write the total ratio (programs both tools ran) here")
    args = parser.parse_args(argv)
    pythons = {tool: ensure_venv(tool, args.torch) for tool in TOOLS}
    compile_unveil(pythons["unveil"])
    if args.instructions:
        with tempfile.TemporaryDirectory() as tmp:
            lib = build_region_lib(tmp)
            print_counts(count(pythons, args.programs, args.repeat or 1, args.jobs, lib, args.freeze))
        return
    args.repeat = args.repeat or 3
    print("%-24s %8s %8s %8s %10s %10s %7s" % ("program", "plain s", "unveil s", "depyf s",
                                               "unveil +s", "depyf +s", "ratio"))
    totals = {"unveil": 0.0, "depyf": 0.0}
    totals_min = {"unveil": 0.0, "depyf": 0.0}
    fmt = lambda v: "%8.2f" % v if v is not None else "       -"
    for program in args.programs:
        median, over, over_min, errors = measure(pythons, program, args.repeat, args.freeze)
        for mode, error in errors.items():
            print("%-24s %s failed: %s" % (program, mode, error[:90]))
        if len(over) == 2:  # the totals compare programs both tools ran
            for tool in over:
                totals[tool] += over[tool]
                totals_min[tool] += over_min[tool]
        ratio = over["unveil"] / over["depyf"] if len(over) == 2 and over["depyf"] > 0 else float("nan")
        print("%-24s %s %s %s %10s %10s %7.2f" % (program, fmt(median.get("plain")), fmt(median.get("unveil")),
                                                   fmt(median.get("depyf")),
                                                   "%.3f" % over["unveil"] if "unveil" in over else "-",
                                                   "%.3f" % over["depyf"] if "depyf" in over else "-", ratio),
              flush=True)
    if totals["depyf"] > 0:
        print("total overhead where both ran: unveil %.3f s, depyf %.3f s, ratio %.2f"
              % (totals["unveil"], totals["depyf"], totals["unveil"] / totals["depyf"]))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"torch": args.torch, "ratio": totals["unveil"] / totals["depyf"] if totals["depyf"] > 0
                       else None, "unveil_s": totals["unveil"], "depyf_s": totals["depyf"]}, f)
    if totals_min["depyf"] > 0:
        print("fastest run minus fastest plain run, summed: unveil %.3f s, depyf %.3f s, ratio %.2f"
              % (totals_min["unveil"], totals_min["depyf"], totals_min["unveil"] / totals_min["depyf"]))


if __name__ == "__main__":
    main()
