"""The built-in torch.compile example that ``unveil demo`` dumps."""
import torch


class TinyNet(torch.nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.encode = torch.nn.Linear(8, 16)
        self.decode = torch.nn.Linear(16, 4)

    def forward(self, x):
        h = torch.relu(self.encode(x))
        if h.mean() > 0.1:          # data-dependent branch: a graph break
            h = h * 2
        return self.decode(h)


def run(dump_dir, backend="eager"):
    """Compile TinyNet, run it twice (the second shape recompiles) under prepare_debug."""
    import unveil
    model = torch.compile(TinyNet(), backend=backend)
    with unveil.prepare_debug(dump_dir) as session:
        for batch in (2, 3):
            model(torch.randn(batch, 8)).sum()
    return session
