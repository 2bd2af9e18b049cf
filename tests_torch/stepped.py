"""The program the debugger tests step through: ``python stepped.py DUMP_DIR BACKEND``.

A small model whose forward breaks the graph once, run under ``unveil.debug``
(training under aot_eager, so that the AOT backward graph runs too).  The lines
marked ``# line:`` are looked up by the tests.
"""
import sys

import torch

import unveil


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.l1 = torch.nn.Linear(8, 16)
        self.l2 = torch.nn.Linear(16, 4)

    def forward(self, x):
        h = self.l1(x).relu()  # line: first layer
        torch._dynamo.graph_break()
        return self.l2(h) * 2  # line: second layer


def main(dump_dir, backend):
    model = torch.compile(Net(), backend=backend)
    with unveil.debug(dump_dir) as session:
        out = model(torch.randn(2, 8))
        if backend == "aot_eager":
            out.sum().backward()
    print("unveil-test: out", tuple(out.shape), "failures", len(session.failures), flush=True)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
