"""The program the debugger tests step through: ``python stepped.py DUMP_DIR BACKEND``.

A small model whose forward breaks the graph once, run under ``unveil.debug``
(training under aot_eager, so that the AOT backward graph runs too).  The lines
marked ``# line:`` are looked up by the tests.
"""
import sys

import torch

import unveil
from programs import MLP


class Net(MLP):
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
    print("unveil-test: out", tuple(out.shape), "failures", len(session.failures), flush=True)  # line: not compiled


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
