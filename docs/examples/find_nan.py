"""Find the first operation that makes a NaN inside a compiled model (see docs/debugging.md).

    python docs/examples/find_nan.py            # runs; the loss is nan
    python -m pdb docs/examples/find_nan.py     # step through the compiled graph to see why

The model normalises its hidden features by their spread over the batch.  With a
batch of one row, the spread (an unbiased standard deviation) is 0/0: NaN, and
everything after it is NaN too.  Which operation was first is what stepping shows.
"""
import sys

import torch

import unveil


class Normalised(torch.nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.proj = torch.nn.Linear(4, 4)

    def forward(self, x):
        h = self.proj(x)
        spread = h.std(dim=0)
        z = (h - h.mean(dim=0)) / spread
        return torch.nn.functional.softplus(z).sum()


def main(dump_dir):
    model = torch.compile(Normalised(), backend="eager")
    with unveil.debug(dump_dir):
        loss = model(torch.randn(1, 4))         # one row: the spread is NaN
    print("loss:", loss.item())


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "nan_dump")
