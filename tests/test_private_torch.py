"""No module of unveil outside the package ``unveil/dynamo/adapter/`` uses a private torch API
(issue 24).

Each module's source is parsed (no torch needed, nothing imported) and these count
as private uses:

* ``import torch._x``, ``from torch._x import y``, ``from torch.utils import _device``;
* an attribute chain from a name bound to torch or one of its modules (``import torch``,
  ``import torch.fx as fx``, ``from torch import overrides``) with a part that begins
  with ``_`` and is not a dunder (``torch._C``, ``overrides._get_current_function_mode_stack``),
  and ``getattr`` of such a name with such a string;
* a string literal, docstrings aside, holding ``torch._`` (or ``torch\\._``, as a
  regular expression writes it): a module named to ``importlib.import_module`` or
  ``sys.modules``, a logger's name, text of Dynamo's naming torch privates;
* a string literal, docstrings aside, holding ``___check_``: Dynamo's guard helpers
  (``___check_type_id``, ...), whose names the adapter keeps.
"""
import ast
import os
import re

SRC = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "src", "unveil")

#: the adapter: a package of modules by topic
ADAPTER = os.path.join("dynamo", "adapter") + os.sep

_TORCH_PRIVATE_TEXT = re.compile(r"\btorch(?:\.\w+)*(?:\.|\\\.)_")
_DYNAMO_HELPER_TEXT = "___check_"


def _private(name):
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__") and len(name) > 4)


def _torch_module(dotted):
    return dotted == "torch" or dotted.startswith("torch.")


def _has_private_part(dotted):
    return any(_private(part) for part in dotted.split("."))


def _docstrings(tree):
    """The string constants that are docstrings (of the module, classes and functions)."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) \
                    and isinstance(first.value.value, str):
                found.add(first.value)
    return found


def _torch_names(tree):
    """Names bound to torch or one of its modules anywhere in the module -> their dotted path."""
    bound = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if _torch_module(alias.name):
                    if alias.asname:
                        bound[alias.asname] = alias.name
                    else:
                        bound["torch"] = "torch"
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module and _torch_module(node.module):
            for alias in node.names:
                bound[alias.asname or alias.name] = node.module + "." + alias.name
    return bound


def _chain(node, bound):
    """The dotted path of ``a.b.c`` when ``a`` is bound to torch, else ``None``."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name) and node.id in bound:
        return ".".join([bound[node.id]] + parts[::-1])
    return None


def private_uses(source, filename="<string>"):
    """``[(line, what)]``: the private torch uses in ``source`` (see the module's docstring)."""
    tree = ast.parse(source, filename)
    bound = _torch_names(tree)
    docstrings = _docstrings(tree)
    inner = {id(node.value) for node in ast.walk(tree) if isinstance(node, ast.Attribute)}
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, "import " + a.name) for a in node.names
                      if _torch_module(a.name) and _has_private_part(a.name)]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module and _torch_module(node.module):
            names = [a.name for a in node.names]
            if _has_private_part(node.module) or any(_private(n) for n in names):
                found.append((node.lineno, "from %s import %s" % (node.module, ", ".join(names))))
        elif isinstance(node, ast.Attribute) and id(node) not in inner:     # a whole chain, once
            dotted = _chain(node, bound)
            if dotted is not None and _has_private_part(dotted):
                found.append((node.lineno, dotted))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "getattr" \
                and len(node.args) >= 2 and isinstance(node.args[1], ast.Constant) \
                and isinstance(node.args[1].value, str) and _private(node.args[1].value):
            dotted = _chain(node.args[0], bound)
            if dotted is not None:
                found.append((node.lineno, "getattr(%s, %r)" % (dotted, node.args[1].value)))
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and node not in docstrings:
            if _TORCH_PRIVATE_TEXT.search(node.value) or _DYNAMO_HELPER_TEXT in node.value:
                found.append((node.lineno, "string %r" % (node.value[:60],)))
    return sorted(set(found))


def _modules():
    for root, dirs, files in os.walk(SRC):
        dirs.sort()
        for name in sorted(files):
            if name.endswith(".py"):
                path = os.path.join(root, name)
                yield os.path.relpath(path, SRC), path


def _is_adapter(relative):
    return relative.startswith(ADAPTER)


def test_no_module_but_the_adapter_uses_a_private_torch_api():
    scanned, found = 0, []
    for relative, path in _modules():
        if _is_adapter(relative):
            continue
        with open(path, encoding="utf-8") as f:
            source = f.read()
        scanned += 1
        found += ["%s:%d: %s" % (relative, line, what) for line, what in private_uses(source, path)]
    assert scanned > 40
    assert not found, "private torch APIs outside unveil/dynamo/adapter/:\n" + "\n".join(found)


def test_the_adapter_itself_is_found_using_them():
    """The scan sees the adapter's real uses: it is not blind to the code it checks."""
    uses = []
    for relative, path in _modules():
        if _is_adapter(relative):
            with open(path, encoding="utf-8") as f:
                uses += [what for _, what in private_uses(f.read(), path)]
    for expected in ("torch._dynamo.convert_frame._bytecode_hooks", "torch._C._dispatch_keys",
                     "from torch.utils import _device", "string '___check_type_id'"):
        assert any(what.startswith(expected) for what in uses), (expected, uses)


PRIVATE = {
    "import torch._dynamo": "import torch._dynamo",
    "import torch._inductor.codecache as cc": "import torch._inductor.codecache",
    "from torch._functorch._aot_autograd import utils": "from torch._functorch._aot_autograd import utils",
    "from torch.utils import _device as d": "from torch.utils import _device",
    "from torch import _C": "from torch import _C",
    "import torch\nkeys = torch._C._dispatch_keys(t)": "torch._C._dispatch_keys",
    "import torch\ntorch.overrides._get_current_function_mode_stack()":
        "torch.overrides._get_current_function_mode_stack",
    "import torch as t\nt._dynamo.reset()": "torch._dynamo.reset",
    "import torch.fx as fx\nfx.graph_module._print_readable": "torch.fx.graph_module._print_readable",
    "from torch import overrides\ndef f():\n    return overrides._get_current_function_mode_stack()":
        "torch.overrides._get_current_function_mode_stack",
    "import torch\ngetattr(torch.utils, '_device')": "getattr(torch.utils, '_device')",
    "import importlib\nimportlib.import_module('torch._dynamo.guards')": "string 'torch._dynamo.guards'",
    "import sys\nsys.modules.get('torch._inductor.codecache')": "string 'torch._inductor.codecache'",
    "PATTERN = r'^torch\\._functorch\\.aot_autograd'": "string '^torch\\\\._functorch",
    "IMPORT = 'from torch._guards import CompileId'": "string 'from torch._guards",
    "RENAMES = {'___check_obj_id': 'check_obj_id'}": "string '___check_obj_id'",
    "PLAIN = r'(?:not )?___check_(?:obj|type)_id\\('": "string '(?:not )?___check_",
}

PUBLIC = [
    "import torch\nprint(torch.__version__, torch.nn.Module.__init__, torch.compile)",
    "from torch.fx.experimental.symbolic_shapes import SYMPY_INTERP",
    "import torch\nx = torch.ones(3)\ny = x._version",            # not a name bound to torch
    '"""Starts and ends with ``torch._dynamo.reset()``; ``___check_obj_id``."""',
    "def f():\n    '''``torch._logging.set_logs``'''\n    return self._x",
    "from . import _private\n_private._x",
    "import collections\ncollections._private",
    "import torch\nname = 'torch_dynamo_resume_in_f'\nslot = '___stack0'",
]


def test_the_scan_finds_each_kind_of_private_use():
    for source, expected in PRIVATE.items():
        uses = [what for _, what in private_uses(source)]
        assert any(what.startswith(expected) for what in uses), (source, expected, uses)


def test_the_scan_passes_public_uses_and_docstrings():
    for source in PUBLIC:
        assert private_uses(source) == [], source
