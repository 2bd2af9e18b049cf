"""FX graphs as Python files: ``forward`` with its inputs' shapes, dtypes and strides."""


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
            lines.append("#   %s: %s" % (node.target, describe_input(node.meta.get("example_value"))))
    readable = gm.print_readable(print_output=False, include_stride=True, include_device=True)
    return "\n".join(lines) + "\nimport torch\nfrom torch import device\n\n\n" + readable.strip("\n") + "\n"


def link_comment(linked):
    """Comment lines naming the files of what the backend made of a graph."""
    if not linked:
        return ""
    lines = ["# What the backend made of this graph:"]
    for kind, files in sorted(linked.items()):
        for fname in files:
            lines.append("#   %s: %s" % (kind.replace("_", " "), fname))
    return "\n".join(lines) + "\n"
