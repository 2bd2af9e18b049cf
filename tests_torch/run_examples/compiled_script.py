"""An unmodified program ``unveil run`` must run exactly as python does: it prints what it
was given, reads stdin, compiles a function with a graph break, and exits as told."""
import os
import sys

import torch


def step(x):
    x = x + 1
    print("inside the compiled function")      # a graph break
    return x * 2


if __name__ == "__main__":
    print("argv", sys.argv)
    print("path0", sys.path[0] == os.path.dirname(os.path.realpath(__file__)))
    print("main", __name__, __spec__, os.path.isabs(__file__))
    print("stdin", sys.stdin.readline().strip())
    if len(sys.argv) > 1 and sys.argv[1] == "early":
        sys.exit("stopped before compiling anything")       # as argparse stops on a mistyped option
    out = torch.compile(step, backend="eager")(torch.ones(3))
    print("result", out.tolist())
    mode = sys.argv[1] if len(sys.argv) > 1 else "ok"
    if mode == "raise":
        raise ValueError("the program's own error")
    if mode == "exit":
        sys.exit(7)
    if mode == "exit0":
        sys.exit(0)             # the common sys.exit(main()): a normal end
    if mode == "message":
        sys.exit("a message instead of a status")
