"""Two ranks under torchrun (gloo, CPU): rank 1 takes another branch, so its graph and
its guards differ from rank 0's."""
import sys
import time

import torch
import torch.distributed as dist

import unveil


def released_by_gloo(tensor, seconds=10.0):
    """Wait, the GIL let go, until gloo's worker thread has dropped its reference to
    ``tensor``.  torch 2.13's gloo worker frees a finished collective after ``wait()`` has
    returned, and needs the GIL to do so: if the interpreter is finalizing by then, the
    worker thread exits inside a destructor and the rank aborts ("terminate called without
    an active exception", seen without unveil imported as well)."""
    deadline = time.monotonic() + seconds
    while tensor._use_count() > 1 and time.monotonic() < deadline:
        time.sleep(0.001)


def step(x, rank):
    x = x * 2
    if rank == 1:
        x = x.relu()
    return x + 1


if __name__ == "__main__":
    dist.init_process_group("gloo")
    rank = dist.get_rank()
    with unveil.prepare_debug(sys.argv[1]):
        out = torch.compile(step, backend="eager")(torch.ones(3), rank)
    total = out.sum()
    dist.all_reduce(total)
    # one write of the whole line: print's parts are written one by one, and the two ranks'
    # parts interleaved on the shared pipe ("rankrank  10  totaltotal  18.0")
    sys.stdout.write("rank %d total %s\n" % (rank, total.item()))
    sys.stdout.flush()
    released_by_gloo(total)
    dist.destroy_process_group()
