"""One timed run of one program, in a fresh process (run by prepare_debug_overhead.py).

    python prepare_debug_worker.py MODE PROGRAM DUMP_DIR [--no-freeze] [--region-lib LIB]
    MODE: plain | unveil | depyf

Prints the seconds from compiling to the end of the program's calls (torch's
import excluded) as JSON.  With ``--region-lib`` (a shared library with
``region_start()`` and ``region_stop()``, see ``callgrind_region.c``) the
library is called where the clock starts and stops, so that a run under
callgrind counts the instructions of that stretch alone.  Unless
``--no-freeze``, the objects that exist when the clock starts (torch,
transformers, the model) are frozen out of the collector first (``gc.freeze``):
a full collection over them takes 150-200 ms in the HuggingFace programs, its
length varies by tens of ms from run to run, and it would otherwise drown
the overheads being measured.  New objects, the tools' own included, are
still collected.
"""
import gc
import json
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests_torch"))


def main(mode, name, dump_dir, freeze=True, region_lib=None):
    import contextlib
    import torch
    from programs import PROGRAM_KWARGS, PROGRAMS
    program = next(p for p in PROGRAMS if p.name == name)
    fn, _ = program.make()
    calls = program.calls()
    kwargs = PROGRAM_KWARGS.get(name, {})
    if mode == "unveil":
        import unveil
        context = unveil.prepare_debug(dump_dir)
    elif mode == "depyf":
        import depyf
        context = depyf.prepare_debug(dump_dir)
    else:
        context = contextlib.nullcontext()
    if freeze:
        gc.collect()
        gc.freeze()
    region = _region(region_lib)
    region.region_start()
    start = time.perf_counter()
    with context:
        compiled = torch.compile(fn, backend=program.backend, dynamic=program.dynamic)
        for args in calls:
            out = compiled(*args, **kwargs)
            if program.train:
                out.float().sum().backward()
    seconds = time.perf_counter() - start
    region.region_stop()
    print(json.dumps({"seconds": seconds}))


class _NoRegion:
    def region_start(self):
        pass

    def region_stop(self):
        pass


def _region(path):
    if path is None:
        return _NoRegion()
    import ctypes
    return ctypes.CDLL(path)


if __name__ == "__main__":
    rest = sys.argv[4:]
    main(*sys.argv[1:4], freeze="--no-freeze" not in rest,
         region_lib=rest[rest.index("--region-lib") + 1] if "--region-lib" in rest else None)
