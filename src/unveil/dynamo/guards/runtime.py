"""The checks that dumped guard functions call, written out in plain Python.

Each mirrors one kind of Dynamo leaf guard (C++ in torch/csrc/dynamo/guards.cpp);
what they read of torch's internals comes from :mod:`unveil.dynamo.adapter.guard_checks`.
"""
import builtins
import collections
import contextlib
import dataclasses
import enum
import importlib
import json
import math
import re
import sys
import types

import torch

from ..adapter import guard_checks

inf = float("inf")
utils_device = guard_checks.default_device_module()   # dumped guards name it

#: what dumped guard files import from here
__all__ = ["check_type_id", "check_obj_id", "dict_contains", "check_tensor", "check_no_aliasing",
           "check_global_state", "check_torch_function_mode_stack", "check_saved_tensors_hooks",
           "math_isnan", "utils_device", "inf", "dict_version", "class_named", "of_type", "tuple_iterator_len",
           "tuple_iterator_getitem", "odict_getitem", "namedtuple_fields", "dataclass_fields"]


def qualified_name(cls):
    """``module.Class``, with the module as the compiling process named it (a module
    loaded here under a stand-in name, :func:`stands_for`, by the name it stands for)."""
    return "%s.%s" % (_STAND_INS.get(cls.__module__, cls.__module__), cls.__qualname__)


#: a module loaded under another name in a process that did not compile (the user's
#: file, which was ``__main__`` or ``mymod`` there) -> the name it stands for
_STAND_INS = {}


def compiled_name(module):
    """The name the compiling process had for module ``module`` (a stand-in's, or itself)."""
    return _STAND_INS.get(module, module)


def in_compiled_names(text):
    """``text`` (a repr) with each stand-in module's name as the name it stands for
    (``<__main__.A object at 0x...>``, not ``<__unveil_user_module___main__.A ...>``)."""
    for stand_in, name in _STAND_INS.items():
        text = text.replace(stand_in + ".", name + ".")
    return text


def stands_for(stand_in, name):
    """Module ``stand_in`` is the compiling process's module ``name``: its classes are
    named by ``name`` where guards check a type by its name."""
    _STAND_INS[stand_in] = name


#: in a process other than the one that compiled (a full-code script, why-recompile over a
#: dump) the recorded object ids mean nothing: a type is then checked by name, and an
#: object's identity is assumed (each assumption counted)
_ELSEWHERE = {"on": False, "assumed": 0}


def ids_from_another_process():
    """Check guards as a process other than the compiling one must (see ``_ELSEWHERE``)."""
    _ELSEWHERE["on"] = True


def identities_assumed(reset=False):
    """How many identity (and dict-version) checks were assumed to hold so far (``reset`` sets it to 0)."""
    count = _ELSEWHERE["assumed"]
    if reset:
        _ELSEWHERE["assumed"] = 0
    return count


def check_type_id(value, type_id, type_name=None):
    """TYPE_MATCH: the value's type is the very type object seen at compile time (by its
    name, ``type_name``, in another process)."""
    if _ELSEWHERE["on"]:
        if type_name is None:
            _ELSEWHERE["assumed"] += 1
            return True
        return qualified_name(type(value)) == type_name
    return id(type(value)) == type_id


def of_type(value, type_name):
    """EQUALS_MATCH's first test: the value's type is exactly the one seen (by name)."""
    return qualified_name(type(value)) == type_name


def check_obj_id(value, obj_id, name=None):
    """ID_MATCH: the value is the very object seen at compile time.  In another process,
    by ``name`` (:func:`identity_name` of that object): a module, class, function, code
    or enum member is its counterpart there when it has the same name; a function known
    only by its code may be another function of that code, and an object with no name is
    any object: both are assumed, and counted."""
    if not _ELSEWHERE["on"]:
        return id(value) == obj_id
    if name is None:
        _ELSEWHERE["assumed"] += 1
        return True
    if identity_name(value) != name:
        return False
    if name.startswith(_BY_CODE):
        _ELSEWHERE["assumed"] += 1
    return True


#: how :func:`identity_name` begins for a function it knows only by its code
_BY_CODE = "a function of "


def identity_name(obj):
    """A name for ``obj`` that another process gives its counterpart, or None: a
    singleton's repr, ``module M``, ``M:Q`` for what module ``M`` holds at the path
    ``Q`` (a class, a function, an enum member), ``code Q of FILE:LINE``; a function
    found at no path is named by its code, with :data:`_BY_CODE` before (closures of one
    code share it)."""
    if obj is None or obj is True or obj is False or obj is Ellipsis or obj is NotImplemented:
        return repr(obj)
    if isinstance(obj, types.ModuleType):
        return "module " + compiled_name(obj.__name__)
    if isinstance(obj, types.CodeType):
        return "code %s of %s:%d" % (getattr(obj, "co_qualname", obj.co_name), obj.co_filename, obj.co_firstlineno)
    if isinstance(obj, enum.Enum):
        path = _module_path(type(obj))
        return None if path is None or type(obj).__dict__.get(obj.name) is not obj else path + "." + obj.name
    if isinstance(obj, (type, types.FunctionType, types.BuiltinFunctionType)):
        path = _module_path(obj)
        if path is not None:
            return path
    if isinstance(obj, types.FunctionType):
        return _BY_CODE + identity_name(obj.__code__)
    return None


def readable_identity(name):
    """An :func:`identity_name` as a reader takes it: ``torch.sigmoid``, ``the code of act
    (/path/prog.py:3)``, ``a function of the code of make.<locals>.f (/path/prog.py:9)``."""
    code = re.match(r"(%s)?code (\S+) of (.+)\Z" % _BY_CODE, name)
    if code:
        return "%sthe code of %s (%s)" % ("a function of " if code.group(1) else "", code.group(2), code.group(3))
    return name.replace(":", ".", 1) if ":" in name and not name.startswith("module ") else name


def _module_path(obj):
    """``M:Q`` when module ``M`` (``obj.__module__``) holds ``obj`` itself at the path
    ``Q``, its qualified name or (a builtin's, whose qualified name may be its binding's
    class) its name; else None (read from ``__dict__``: no attribute hook runs)."""
    module = getattr(obj, "__module__", None)
    if not isinstance(module, str) or module not in sys.modules:
        return None
    for path in (getattr(obj, "__qualname__", None), getattr(obj, "__name__", None)):
        if isinstance(path, str) and _found_at(sys.modules[module], path) is obj:
            return "%s:%s" % (compiled_name(module), path)
    return None


def _found_at(found, path):
    """What the dotted ``path`` leads to from ``found``, by ``__dict__`` lookups (or None)."""
    for part in path.split("."):
        namespace = getattr(found, "__dict__", None)
        if not isinstance(namespace, (dict, types.MappingProxyType)):
            return None
        found = namespace.get(part)
    return found


def dict_contains(key, mapping):
    """DICT_CONTAINS: ``key in mapping``, without a subclass's ``__contains__``."""
    return dict.__contains__(mapping, key)


def check_tensor(value, type_name, dispatch_keys, dtype, device, requires_grad, size, stride):
    """TENSOR_MATCH: exact tensor type, dispatch keys, dtype, device index,
    requires_grad, and every size and stride that is not dynamic (``None``)."""
    if qualified_name(type(value)) != type_name:
        return False
    if guard_checks.dispatch_key_set(value) != dispatch_keys:
        return False
    if value.dtype != dtype or value.requires_grad != requires_grad:
        return False
    if device is not None and value.device.index != device:
        return False
    if value.dim() != len(size):
        return False
    for actual, expected in zip(value.size(), size):
        if expected is not None and actual != expected:
            return False
    for actual, expected in zip(value.stride(), stride):
        if expected is not None and actual != expected:
            return False
    return True


def tensor_mismatch(value, type_name, dispatch_keys, dtype, device, requires_grad, size, stride):
    """What makes ``check_tensor`` on these arguments fail, in words ("" when it holds)."""
    if not isinstance(value, torch.Tensor) or qualified_name(type(value)) != type_name:
        return "a %s, expected a %s" % (qualified_name(type(value)), type_name)
    found = []
    if value.dtype != dtype:
        found.append("dtype %s, expected %s" % (value.dtype, dtype))
    if value.requires_grad != requires_grad:
        found.append("requires_grad %s, expected %s" % (value.requires_grad, requires_grad))
    if device is not None and value.device.index != device:
        found.append("device index %s, expected %s" % (value.device.index, device))
    if value.dim() != len(size):
        found.append("%d dimensions, expected %d" % (value.dim(), len(size)))
    else:
        for what, actual, expected in (("size", value.size(), size), ("stride", value.stride(), stride)):
            if any(e is not None and a != e for a, e in zip(actual, expected)):
                found.append("%s %s, expected %s" % (what, list(actual), expected))
    if guard_checks.dispatch_key_set(value) != dispatch_keys:
        found.append("dispatch keys %s, expected %s" % (guard_checks.dispatch_key_set(value), dispatch_keys))
    return "; ".join(found)


def check_no_aliasing(*tensors):
    """NO_TENSOR_ALIASING: no tensor is passed twice under different names."""
    return len({id(t) for t in tensors}) == len(tensors)


#: checking a frame a decorator's wrapper calls past a graph break: the global state it
#: runs in is the one the wrapper sets (an optimizer's ``_use_grad`` sets grad mode), not
#: the asking process's, and is assumed as it was at compile time
_STATE_SET_BY_CALLER = {"on": False}


@contextlib.contextmanager
def global_state_set_by_caller():
    """Within it, the global-state check holds (see ``_STATE_SET_BY_CALLER``)."""
    _STATE_SET_BY_CALLER["on"] = True
    try:
        yield
    finally:
        _STATE_SET_BY_CALLER["on"] = False


def check_global_state(expected_json):
    """GLOBAL_STATE: grad mode, autocast, default dtype, deterministic algorithms,
    TF32 flags and thread count are as they were at compile time."""
    return _STATE_SET_BY_CALLER["on"] or json.loads(guard_checks.global_state()) == json.loads(expected_json)


def global_state_mismatch(expected_json):
    """What makes ``check_global_state`` fail, in words ("" when it holds): each part of
    the state that differs, now and at compile time (``grad_mode is True here, False at
    compile time``: a frame compiled under ``torch.no_grad()`` checked outside it)."""
    now, then = json.loads(guard_checks.global_state()), json.loads(expected_json)
    differ = ["%s is %s here, %s at compile time" % (key, json.dumps(now.get(key)), json.dumps(then.get(key)))
              for key in sorted(set(now) | set(then)) if now.get(key) != then.get(key)]
    return "global state differs: " + "; ".join(differ) if differ else ""


def check_torch_function_mode_stack(expected_types):
    """TORCH_FUNCTION_MODE_STACK: the same torch function modes are active."""
    return guard_checks.function_mode_stack_types() == list(expected_types)


def check_saved_tensors_hooks(expected_ids):
    """AUTOGRAD_SAVED_TENSORS_HOOKS: the innermost saved-tensors hooks are the same
    (``None``: none that Dynamo can inline)."""
    hooks = guard_checks.inlineable_saved_tensors_hooks()
    if hooks is None:
        return expected_ids is None
    return tuple(map(id, hooks)) == expected_ids


def math_isnan(value):
    return math.isnan(value)


def tuple_iterator_len(iterator):
    """TUPLE_ITERATOR_LEN: how many items a tuple's iterator has left (Dynamo's guard on an
    iterator a frame keeps across a graph break)."""
    return _TUPLE_ITERATOR.__length_hint__(iterator)


_TUPLE_ITERATOR = type(iter(()))


def tuple_iterator_getitem(iterator, index):
    """The item ``index`` places past where a tuple's iterator stands."""
    _, (items,), start = iterator.__reduce__()
    return items[start + index]


def odict_getitem(mapping, key):
    """An OrderedDict's item, without a subclass's ``__getitem__``."""
    return collections.OrderedDict.__getitem__(mapping, key)


def namedtuple_fields(value):
    return value._fields


def dataclass_fields(cls):
    return dataclasses.fields(cls)


def dict_version(mapping):
    """DICT_VERSION: the dict's version tag, which any change to it moves on (in another
    process the tag recorded means nothing: it is assumed equal, and counted)."""
    if _ELSEWHERE["on"]:
        return _ANY_VERSION
    return guard_checks.dict_version(mapping)


class _AnyVersion:
    """A dict version from another process: equal to the recorded one, an assumption counted."""

    def __eq__(self, other):
        _ELSEWHERE["assumed"] += 1
        return True

    def __ne__(self, other):
        return not self.__eq__(other)

    __hash__ = None


_ANY_VERSION = _AnyVersion()


def class_named(qualified):
    """The class Dynamo's guard text writes as ``<class 'qualified'>``: a builtin, or the
    longest importable module prefix and attributes after it."""
    parts = qualified.split(".")
    if len(parts) == 1:
        return getattr(builtins, qualified)
    for cut in range(len(parts) - 1, 0, -1):
        try:
            value = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for name in parts[cut:]:
            value = getattr(value, name)
        return value
    raise LookupError("no class %s" % qualified)
