"""Run with ``-m``: sys.path[0] is the working directory, argv[0] the module's file."""
import os
import sys

import torch


def wave(x):
    return x.sin() + 1


if __name__ == "__main__":
    print("argv", [os.path.basename(sys.argv[0])] + sys.argv[1:])
    print("path0", sys.path[0] == os.getcwd())
    print("main", __name__, __spec__.name)
    print("result", torch.compile(wave, backend="eager")(torch.zeros(2)).tolist())
