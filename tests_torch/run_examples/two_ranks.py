"""Two ranks under torchrun (gloo, CPU): rank 1 takes another branch, so its graph and
its guards differ from rank 0's."""
import sys

import torch
import torch.distributed as dist

import unveil


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
    print("rank", rank, "total", total.item())
    dist.destroy_process_group()
