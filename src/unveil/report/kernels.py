"""Which nodes of which graph each kernel call of an Inductor file computes (no torch).

Before a kernel call Inductor writes ``# Topologically Sorted Source Nodes: [...]``: for
each post-grad node the call computes, the node it came from (torch's ``from_node``): a
node of Dynamo's graph for what forward or inference code computes, a backward node's own
name in backward code.  Under ``debug()`` it also writes ``# [Provenance debug handles]
name:N``, which the file's index entry resolves exactly: ``kernel_nodes`` in Dynamo's
graph, ``kernel_post_grad_nodes`` in the post-grad graph.  An Inductor file is made from
one post-grad graph (its entry's ``post_grad_graph``) and one Dynamo graph
(``made_from``); its calls name nodes of those two graphs only, never of another graph
whose nodes have the same names (the backward's recomputed ``mul``).
"""
import collections
import re

from ..dump_index import KERNEL_HANDLE

#: the nodes Inductor says a kernel call computes, as the nodes they came from
SOURCE_NODES = re.compile(r"^\s*# Topologically Sorted Source Nodes: \[([^\]]*)\]")
#: the AOT Autograd graphs Inductor makes code of
MADE_FOR = ("aot_forward", "aot_backward", "aot_inference")

#: a kernel call's comments: the line of the first, the nodes Inductor's comment names,
#: its provenance handle (None without one)
KernelCall = collections.namedtuple("KernelCall", "line source_nodes handle")


def kernel_calls(text):
    """``[KernelCall]`` of an Inductor file's text: each run of comment lines before a
    statement that has Inductor's node comment or a provenance handle."""
    calls, comments = [], []
    for number, line in enumerate(text.splitlines(), 1):
        if line.lstrip().startswith("#"):
            comments.append((number, line))
            continue
        call = _call_of(comments)
        if call is not None:
            calls.append(call)
        comments = []
    return calls


def _call_of(comments):
    first, names, handle = None, [], None
    for number, line in comments:
        source, provenance = SOURCE_NODES.match(line), KERNEL_HANDLE.match(line)
        if source:
            names += [n.strip() for n in source.group(1).split(",") if n.strip()]
        if provenance:
            handle = provenance.group(1)
        if (source or provenance) and first is None:
            first = number
    return KernelCall(first, names, handle) if first is not None else None


def nodes_computed(calls, resolved, source_nodes_are_its):
    """``[(line, [node])]``: the nodes of one graph each call computes, from the provenance
    handles ``resolved`` (``{name:handle: [node]}``) and, where ``source_nodes_are_its``,
    from Inductor's node comment; calls naming none of its nodes left out."""
    out = []
    for call in calls:
        names = (list(call.source_nodes) if source_nodes_are_its else []) + list(resolved.get(call.handle, ()))
        if names:
            out.append((call.line, sorted(set(names), key=names.index)))
    return out


def made_for(post_grad_parameters, aot_graphs):
    """The AOT Autograd graph kind (``aot_forward``, ``aot_backward``, ``aot_inference``)
    Inductor's code was made for: that of the graphs ``[(kind, parameters)]`` whose
    parameters its post-grad graph has (Inductor's passes keep a graph's inputs); None
    when none or graphs of two kinds have them."""
    kinds = {kind for kind, parameters in aot_graphs if kind in MADE_FOR and parameters == post_grad_parameters}
    return kinds.pop() if len(kinds) == 1 else None


def computes_forward(kind):
    """Whether code made for AOT graph ``kind`` computes Dynamo's graph itself (forward or
    inference), so that Inductor's node comment names nodes of Dynamo's graph."""
    return kind in ("aot_forward", "aot_inference")
