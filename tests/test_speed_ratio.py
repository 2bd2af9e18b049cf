"""The decompiler's speed, as a ratio measured in one run: the case library's decompile
time divided by the floor's time on the same functions (benchmarks/bench_functions.py's
``floor``: ``dis.get_instructions`` over the code and ``ast.unparse(ast.parse(source))``
of the function's source).  No timed assertion: both sides run interleaved in this
process, so a load on the machine slows both, and each function counts its best time
over the rounds, in this thread's CPU time (on a loaded machine a longer function is
more often stopped by the scheduler in every round: wall time would count that against
it).  A commit that makes the ratio more than 20% above the one recorded for this
Python in speed_ratios.json fails; a faster one may record the ratio it prints there.
``python benchmarks/decompile_speed.py`` measures the same floor on stdlib functions,
next to depyf.
"""
import gc
import json
import os
import sys
import time

import pytest

import unveil
from tests.cases import registry

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "benchmarks"))
import bench_functions  # noqa: E402

RECORDED = os.path.join(os.path.dirname(os.path.abspath(__file__)), "speed_ratios.json")
VERSION = "%d.%d" % sys.version_info[:2]
ROUNDS = 3
TOLERANCE = 1.2


def measured_ratio():
    """The case library's decompile time over the floor's, on the cases both run: each
    case decompiled and then its floor run, case after case, round after round (so a
    change of load falls on both alike), each side's best time per case summed."""
    with open(os.path.join(os.path.dirname(RECORDED), "known_failures.json")) as fh:
        refused = json.load(fh).get(VERSION, {})     # (cases this interpreter refuses: not timed)
    codes = [case.fn.__code__ for case in registry.all_cases() if case.name not in refused]
    items = [(code, source) for code, source in zip(codes, bench_functions.function_sources(codes))
             if source is not None]
    assert len(items) > 0.95 * len(codes), "no source found for too many cases"
    best_unveil, best_floor = [float("inf")] * len(items), [float("inf")] * len(items)
    clock = time.thread_time   # CPU time: a case the scheduler stops in every round counts no pause
    gc.collect()
    gc.disable()   # a collection falls on whichever function allocates next: none while timing
    try:
        for _ in range(ROUNDS):
            for i, (item, copy) in enumerate(zip(items, [code.replace() for code, _ in items])):
                start = clock()
                unveil.decompile(copy)
                middle = clock()
                bench_functions.floor(item)
                end = clock()
                best_unveil[i] = min(best_unveil[i], middle - start)
                best_floor[i] = min(best_floor[i], end - middle)
            gc.collect()
    finally:
        gc.enable()
    return sum(best_unveil) / sum(best_floor)


def test_decompile_time_over_the_floor_is_as_recorded():
    with open(RECORDED) as f:
        recorded = json.load(f).get(VERSION)
    if recorded is None:
        pytest.skip("no ratio recorded for Python %s in %s" % (VERSION, RECORDED))
    ratio = measured_ratio()
    print("Python %s: decompile time / floor time = %.2f (recorded %.2f)" % (VERSION, ratio, recorded))
    assert ratio <= recorded * TOLERANCE, (
        "the case library decompiles %.0f%% slower relative to the floor than recorded: %.2f, recorded %.2f"
        % (100 * (ratio / recorded - 1), ratio, recorded))
