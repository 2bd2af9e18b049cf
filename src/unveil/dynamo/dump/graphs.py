"""FX graphs as Python files: ``forward`` with its inputs' shapes, dtypes and strides."""
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




def without_frames_of(text, not_the_users):
    """A printed graph whose ``# File:`` comments naming a file ``not_the_users`` (a dumped
    transformed code's, whose frame torch records for the nodes of no line under ``debug()``)
    say what they say when Dynamo's code runs: that those nodes have no line."""
    return FILE_COMMENT.sub(lambda m: m.group(1) + NO_LINE_COMMENT if not_the_users(m.group(2)) else m.group(0), text)


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
