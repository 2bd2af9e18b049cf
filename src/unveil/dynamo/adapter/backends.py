"""torch.compile's backends: the names it accepts (``torch._dynamo.list_backends``), the
module Inductor loaded from a file (``torch._inductor.codecache.PyCodeCache.modules``), and
the settings under which a block's backends compile afresh and say what they compute
(``torch._inductor.config``'s provenance tracking and FX graph cache,
``torch._functorch.config``'s AOT Autograd cache)."""
import sys


def backend_names():
    """The names torch.compile accepts as ``backend=``."""
    import torch._dynamo
    return sorted(torch._dynamo.list_backends(exclude_tags=()))


def inductor_module(path):
    """The module Inductor loaded last from ``path`` (it may load a file more than once), or ``None``."""
    codecache = sys.modules.get("torch._inductor.codecache")
    if codecache is None:
        return None
    for module in reversed(list(codecache.PyCodeCache.modules)):
        if getattr(module, "__file__", None) == path:
            return module
    return None


class FreshBackendCompiles:
    """While attached, what a backend compiles is compiled in the block, and says what it
    computes: Inductor's provenance tracking on (``config.trace.provenance_tracking_level``
    1, as ``TORCH_COMPILE_DEBUG=1`` sets it: after each graph's code the structured trace
    gives the stack traces of the user's lines each kernel call computes; a level the user
    set is kept), and Inductor's and AOT Autograd's caches of whole graphs off (a graph
    taken from them keeps the stack traces of the compile that filled them: another
    program's file, or this one's lines before an edit).  Kernels' own caches stay on.
    A setting this torch lacks is left alone."""

    def __init__(self):
        self._saved = []

    def attach(self):
        from torch._functorch import config as functorch_config
        from torch._inductor import config as inductor_config
        trace = getattr(inductor_config, "trace", None)
        for owner, name, value in ((trace, "provenance_tracking_level", 1), (inductor_config, "fx_graph_cache", False),
                                   (functorch_config, "enable_autograd_cache", False)):
            if owner is None or not hasattr(owner, name):
                continue
            before = getattr(owner, name)
            if name == "provenance_tracking_level" and before != 0:
                continue
            setattr(owner, name, value)
            self._saved.append((owner, name, before))

    def detach(self):
        for owner, name, before in reversed(self._saved):
            setattr(owner, name, before)
        self._saved = []
