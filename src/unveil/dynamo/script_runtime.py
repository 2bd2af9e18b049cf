"""What a full-code file needs to run on its own, as a script in a new process.

In the process that compiled, the file reads the user's module and the globals
Dynamo made (the compiled graphs, the modules it imported) from that module.
In a new process neither exists: the user's module is loaded from its file
(its ``if __name__ == "__main__"`` block does not run), each compiled graph is
the ``forward`` of its dumped graph file, and each module Dynamo imported is
imported again.  Guards that check an object's identity then fail, as they
would for Dynamo in a new process, and the dispatch runs the original code.
"""
import importlib
import importlib.util
import os
import runpy
import sys

import torch


def here(namespace):
    """The directory of the file whose globals ``namespace`` are (``None`` when exec'd)."""
    path = namespace.get("__file__")
    return os.path.dirname(os.path.abspath(path)) if path else None


def module_globals(name, path):
    """The globals of the user's module ``name`` (defined in ``path``): the live module in the
    process that compiled, else the file loaded as a module of another name."""
    module = sys.modules.get(name)
    if module is not None and os.path.abspath(getattr(module, "__file__", "") or "") == os.path.abspath(path):
        return module.__dict__
    stand_in = "__unveil_user_module_%s" % name.replace(".", "_")
    if stand_in in sys.modules:
        return sys.modules[stand_in].__dict__
    spec = importlib.util.spec_from_file_location(stand_in, path)
    if spec is None or spec.loader is None:
        raise ImportError("cannot load %s from %s" % (name, path))
    module = importlib.util.module_from_spec(spec)
    sys.modules[stand_in] = module
    spec.loader.exec_module(module)
    return module.__dict__


def dynamo_global(globals_, name, directory=None, graph=None, module=None, module_dict=None):
    """A global Dynamo made for the transformed code: the live one, else a stand-in made from
    the dump (``graph``: the graph file whose ``forward`` the backend compiled; ``module``:
    the module Dynamo imported; ``module_dict``: the module whose namespace it is)."""
    if name in globals_:
        return globals_[name]
    if module is not None:
        return importlib.import_module(module)
    if module_dict is not None:
        return vars(importlib.import_module(module_dict))
    if graph is not None and directory is not None:
        return _graph_forward(os.path.join(directory, graph))
    raise LookupError("%s exists only in the process that compiled (no file of it was dumped)" % name)


def _graph_forward(path):
    namespace = runpy.run_path(path)
    classes = [v for v in namespace.values() if isinstance(v, type) and issubclass(v, torch.nn.Module)
               and v.__module__ == namespace.get("__name__")]
    if not classes:
        raise LookupError("no graph module class in %s" % path)
    return classes[-1]().forward


def example_tensor(dtype, size, requires_grad=False):
    """A tensor of the recorded dtype and size (a dynamic size, ``None``, as 3)."""
    size = [3 if s is None else s for s in size]
    if dtype.is_floating_point or dtype.is_complex:
        return torch.randn(size, dtype=dtype).requires_grad_(requires_grad)
    return torch.ones(size, dtype=dtype)


def run_as_script(call, guards, inputs, missing, globals_, transformed=()):
    """Say what each entry's guard (``(compile id, guard function)``, Dynamo's order) decides
    on ``inputs`` (the frame's locals by name), ``call()`` the dispatch on them, then run
    each entry's transformed code (``(compile id, call)``) on them too and compare."""
    if missing:
        print("not run: no recorded value for %s (only tensors and constants are rebuilt)" % ", ".join(missing))
        return None
    for cid, guard in guards:
        print("guard of compile %s: %s" % (cid, "passes" if guard(inputs, globals_) else "fails"))
    out = call()
    print("result of the dispatch:", _describe(out))
    for cid, run in transformed:
        mine = run()
        same = "the same values" if _same(out, mine) else "values that differ"
        print("transformed code of compile %s: %s, %s" % (cid, _describe(mine), same))
    return out


def _same(a, b):
    if isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor):
        return a.shape == b.shape and torch.allclose(a.detach(), b.detach(), equal_nan=True)
    if isinstance(a, (tuple, list)) and isinstance(b, (tuple, list)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return a == b


def _describe(value):
    if isinstance(value, torch.Tensor):
        return "tensor %s %s" % (str(value.dtype).replace("torch.", ""), tuple(value.shape))
    if isinstance(value, (tuple, list)):
        return "%s of [%s]" % (type(value).__name__, ", ".join(_describe(v) for v in value))
    return repr(value)
