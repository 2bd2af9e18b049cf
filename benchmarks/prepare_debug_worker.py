"""One timed run of one program, in a fresh process (run by prepare_debug_overhead.py).

    python prepare_debug_worker.py MODE PROGRAM DUMP_DIR      MODE: plain | unveil | depyf

Prints the seconds from compiling to the end of the program's calls (torch's
import excluded) as JSON.
"""
import json
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests_torch"))


def main(mode, name, dump_dir):
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
    start = time.perf_counter()
    with context:
        compiled = torch.compile(fn, backend=program.backend, dynamic=program.dynamic)
        for args in calls:
            out = compiled(*args, **kwargs)
            if program.train:
                out.float().sum().backward()
    print(json.dumps({"seconds": time.perf_counter() - start}))


if __name__ == "__main__":
    main(*sys.argv[1:4])
