"""What dumped guards check, read now (``guards/runtime.py`` calls these): a tensor's
dispatch keys (``torch._C._dispatch_keys`` and the thread-local include and exclude
sets), Dynamo's global state and dict versions (``torch._C._dynamo.guards``), the
saved-tensors hooks (``torch._functorch._aot_autograd.utils``), the torch function mode
stack (``torch.overrides._get_current_function_mode_stack``), the default device's module
(``torch.utils._device``), and what shape guards call by name (``SYMPY_INTERP``)."""
import functools

import torch
import torch._dynamo  # noqa: F401  (a dumped script importing the checks gets Dynamo loaded, as it always has)


def function_mode_stack_types():
    """Qualified names of the torch function modes active now, bottom first."""
    stack = torch.overrides._get_current_function_mode_stack()
    return ["%s.%s" % (type(m).__module__, type(m).__qualname__) for m in stack]


@functools.lru_cache(maxsize=None)
def sympy_interp_names():
    """Names that Dynamo's shape guards may call (its SYMPY_INTERP table)."""
    from torch.fx.experimental.symbolic_shapes import SYMPY_INTERP
    return set(SYMPY_INTERP)


@functools.lru_cache(maxsize=None)
def sympy_interp():
    """What Dynamo's shape guards call by name (its SYMPY_INTERP table)."""
    from torch.fx.experimental.symbolic_shapes import SYMPY_INTERP
    return dict(SYMPY_INTERP)


def dispatch_key_set(tensor):
    """The tensor's dispatch keys as Dynamo's TENSOR_MATCH sees them (thread-local
    include/exclude applied), as their repr: ``DispatchKeySet(CPU, ...)``."""
    keys = torch._C._dispatch_keys(tensor)
    keys = (keys | torch._C._dispatch_tls_local_include_set()) - torch._C._dispatch_tls_local_exclude_set()
    return repr(keys)


def global_state_guard():
    """Dynamo's GLOBAL_STATE guard on the state now: ``check()`` says whether the state is
    still the same (about a microsecond), ``reason()`` names the parts that differ."""
    return torch._C._dynamo.guards.GlobalStateGuard()


def global_state():
    """What Dynamo's GLOBAL_STATE guard compares now (grad mode, autocast, default dtype,
    deterministic algorithms, TF32 flags, thread count), as a JSON text."""
    return torch._C._dynamo.guards.GlobalStateGuard().__getstate__()


def inlineable_saved_tensors_hooks():
    """The innermost saved-tensors hooks, as AUTOGRAD_SAVED_TENSORS_HOOKS checks them, or
    ``None`` when Dynamo cannot inline them."""
    from torch._functorch._aot_autograd import utils
    hooks = utils.top_saved_tensors_hooks()
    return hooks if utils.saved_tensors_hooks_are_inlineable(hooks) else None


def dict_version(mapping):
    """The dict's version tag (DICT_VERSION), which any change to it moves on: CPython
    keeps it, and Dynamo reads it in C."""
    return torch._C._dynamo.guards.dict_version(mapping)


def default_device_module():
    """The module Dynamo's DEFAULT_DEVICE guard reads as ``utils_device``
    (``utils_device.CURRENT_DEVICE == None``)."""
    from torch.utils import _device
    return _device
