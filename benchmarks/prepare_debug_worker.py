"""One timed run of one program, in a fresh process (run by prepare_debug_overhead.py).

    python prepare_debug_worker.py MODE PROGRAM DUMP_DIR [--no-freeze]      MODE: plain | unveil | depyf

Prints the seconds from compiling to the end of the program's calls (torch's
import excluded) as JSON.  Unless
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


def main(mode, name, dump_dir, freeze=True):
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
    start = time.perf_counter()
    with context:
        compiled = torch.compile(fn, backend=program.backend, dynamic=program.dynamic)
        for args in calls:
            out = compiled(*args, **kwargs)
            if program.train:
                out.float().sum().backward()
    print(json.dumps({"seconds": time.perf_counter() - start}))


if __name__ == "__main__":
    main(*sys.argv[1:4], freeze="--no-freeze" not in sys.argv[4:])
