"""FX graphs as Python files: ``forward`` with its inputs' shapes, dtypes and strides."""
import linecache
import re

from ..adapter.graphs import example_value, readable_graph
from ...dump_index import FILE_COMMENT, NO_LINE_COMMENT


def describe_input(value):
    """``float32 size (3, 4) stride (4, 1) cpu`` for a (fake) tensor; the type otherwise."""
    if value is None:
        return "unknown"
    shape = getattr(value, "shape", None)
    if shape is not None and hasattr(value, "stride"):
        return "%s tensor, size %s, stride %s, %s%s" % (
            str(value.dtype).replace("torch.", ""), tuple(shape), tuple(value.stride()), value.device,
            ", requires_grad" if getattr(value, "requires_grad", False) else "")
    return "%s %s" % (type(value).__name__, value)


def graph_file_text(name, gm):
    """The file for Dynamo graph ``name``: a header of inputs, then ``print_readable``'s class."""
    lines = ["# FX graph %s, captured by Dynamo. `forward` is what the compiled backend was given." % name,
             "# Inputs:"]
    for node in gm.graph.nodes:
        if node.op == "placeholder":
            lines.append("#   %s: %s" % (node.target, describe_input(example_value(node))))
    readable = readable_graph(gm, class_name(gm))
    return "\n".join(lines) + "\n" + _GRAPH_IMPORTS + readable.strip("\n") + "\n"




def without_frames_of(text, not_the_users, origin=None):
    """A printed graph whose ``# File:`` comments say what they say when Dynamo's code runs:
    one naming a file ``not_the_users`` (a dumped transformed code's, whose frame torch
    records for the nodes of no line under ``debug()``) that those nodes have no line, and
    one naming a dumped resume function's line (``debug()`` runs it, and Dynamo traces it)
    the user's line it runs, as ``origin(path, line)`` gives it, with that line's code."""
    def comment(match):
        path, line = match.group(2), int(match.group(3))
        if not_the_users(path):
            return match.group(1) + NO_LINE_COMMENT
        user_path, user_line = origin(path, line) if origin is not None else (path, line)
        if (user_path, user_line) == (path, line):
            return match.group(0)
        text = match.group(0).replace("File: %s:%d in " % (path, line), "File: %s:%d in " % (user_path, user_line), 1)
        code = linecache.getline(user_path, user_line).strip()
        return text.partition(", code: ")[0] + ", code: " + code if code and ", code: " in text else text
    return FILE_COMMENT.sub(comment, text)


def class_name(gm):
    """The class a graph's file defines: the graph module's, if that is a name."""
    name = type(gm).__name__
    return name if name.isidentifier() else "GraphModule"


def aot_file_text(kind, comp, gm):
    """The file of a graph AOT Autograd hands its compiler (``kind``: aot_forward, ...)."""
    readable = readable_graph(gm, class_name(gm), expanded_def=True)
    return "%s\n%s%s\n" % (_backend_head(kind, comp), _GRAPH_IMPORTS, readable.strip("\n"))


#: a class line whose name is no identifier (torch prints a cached graph as ``class <lambda>``)
_CLASS_NOT_A_NAME = re.compile(r"^class (?![A-Za-z_]\w*\()[^(\n]*\(", re.MULTILINE)


def backend_file_text(kind, comp, payload):
    """The file of what a backend logged for compile ``comp`` (Inductor's code, the joint
    graph, an AOT graph taken from AOT Autograd's cache)."""
    payload, renamed = _CLASS_NOT_A_NAME.subn("class GraphModule(", payload)
    note = "\n# (torch printed its class with a name Python does not allow: here it is GraphModule)" if renamed else ""
    imports = _GRAPH_IMPORTS if kind.startswith("aot_") or kind == "post_grad_graph" else ""   # Inductor's code has its own
    return "%s%s\n%s%s" % (_backend_head(kind, comp, _aot_pass(payload)), note, imports, payload)


#: what a printed graph's code needs (torch prints it without)
_GRAPH_IMPORTS = "import torch\nfrom torch import device\n\n\n"


#: the graph AOT Autograd compiled, as Inductor's code names it: ``# AOT ID: ['0_backward']``
_AOT_ID = re.compile(r"^# AOT ID: \['\d+_(forward|backward|inference)'\]", re.MULTILINE)


def _aot_pass(payload):
    """``forward``, ``backward`` or ``inference``: which of AOT Autograd's graphs a backend's
    text is the code of, when it says (Inductor's output does); else None."""
    found = _AOT_ID.search(payload)
    return found.group(1) if found else None


def _backend_head(kind, comp, aot_pass=None):
    # (the backend is given the graph Dynamo made last; an earlier one of the compile was
    # discarded when Dynamo traced the frame again)
    graphs = comp.graph_files.get(comp.graphs[-1][0]) if comp.graphs else None
    graphs = graphs or "none dumped"
    code = comp.fn.code
    return "# %s%s for %s (compile %s), made from Dynamo's graph (%s)" % (
        kind.replace("_", " "), " of the %s graph" % aot_pass if aot_pass else "",
        getattr(code, "co_qualname", code.co_name), comp.label, graphs)
