"""For why-recompile over a dump: a function compiled with a decorator (the module holds
the wrapper, not the frame's function) and one whose resume function recompiles; the
dump goes to the directory given."""
import sys

import torch
@torch.compile(backend="eager", dynamic=False)
def g(x, n):
    return x * n + 1
def f(x, n):
    y = x * 2
    print("break")
    return y * n
if __name__ == "__main__":
    import unveil
    cf = torch.compile(f, backend="eager", dynamic=False)
    with unveil.prepare_debug(sys.argv[1]):
        g(torch.ones(3, 2), 1); g(torch.ones(3, 2), 2)
        cf(torch.ones(2), 3); cf(torch.ones(2), 4)
