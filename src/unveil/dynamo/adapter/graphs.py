"""The FX graph modules Dynamo makes: the example value Dynamo keeps in a node's ``meta``,
the graph modules nested in one, a graph module's readable text
(``torch.fx.graph_module._print_readable``), and a lazily compiled module's ``forward``
made now (``torch.fx._lazy_graph_module._LazyGraphModule.force_recompile``)."""
import torch


def example_value(node):
    """The (fake) value Dynamo recorded for an FX node of its graph, or ``None``."""
    return node.meta.get("example_value")


def subgraph_modules(gm):
    """``(path, module)`` for each graph module ``gm`` holds, as ``print_readable`` nests
    their classes in its own (through graph modules only), outermost first; each made to
    have its ``forward`` (a lazily compiled one compiles it now)."""
    found, todo = [], [([], gm)]
    while todo:
        path, module = todo.pop(0)
        for name, child in module.named_children():
            if isinstance(child, torch.fx.GraphModule):
                force_recompile(child)
                found.append((path + [name], child))
                todo.append((path + [name], child))
    return found


def readable_graph(gm, class_name, expanded_def=False):
    """``gm.print_readable()``'s text (shapes, strides and devices as annotations, each node's
    source line as a comment), with ``class class_name`` (a GraphModule's class may be
    named ``<lambda>``)."""
    from torch.fx.graph_module import _print_readable
    return _print_readable(gm, class_name, False, True, True, False, expanded_def)


def force_recompile(gm):
    """Generate a lazily compiled GraphModule's ``forward`` now (a no-op for others)."""
    from torch.fx._lazy_graph_module import _LazyGraphModule
    _LazyGraphModule.force_recompile(gm)
