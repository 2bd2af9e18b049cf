"""Which lines of Inductor's code run a line of the user's: the kernel calls in its ``call()``.

With Inductor's provenance tracking on (``unveil.debug()`` turns it on), Inductor writes
a comment before each kernel call of its code, ``# [Provenance debug handles]
cpp_fused_relu_0:2``, and the structured trace gives, after the code, the stack traces
of the user's lines each such call computes (the
``inductor_provenance_tracking_kernel_stack_traces`` artifact, keyed by the same
``name:handle``; it may hold other graphs' calls too), and which nodes of Dynamo's graph
each call computes (``inductor_provenance_tracking_node_mappings``: a call's post-grad
nodes, and each post-grad node's pre-grad ones, which are Dynamo's).
"""
from ..explanations.records import user_stack
from ...dump_index import KERNEL_HANDLE


def kernel_lines(text, stack_traces, untraced=()):
    """``[(user file, user line, line of text)]``: for each kernel call of Inductor's code
    ``text`` whose handle ``stack_traces`` (the artifact's payload, decoded) has, every
    frame of each of its stack traces, innermost first (the line a graph file's ``# File:``
    comment names, then the calls that led there: a break at ``h = self.act(h)`` stops at
    the kernels that compute the activation's own lines).  A call whose handle has none
    (nodes Inductor's passes made anew keep no stack) stands for ``untraced`` (file, line)s:
    the one line all of the graph the code was made from computes, where there is one."""
    found, handle = [], None
    for number, line in enumerate(text.splitlines(), 1):
        match = KERNEL_HANDLE.match(line)
        if match:
            handle = match.group(1)
        elif handle is not None and line.strip() and not line.lstrip().startswith("#"):
            traces = stack_traces.get(handle, ())
            for trace in traces:
                found += [(file, line, number) for file, line in frames_of(trace)]
            if not traces:
                found += [(file, line, number) for file, line in untraced]
            handle = None
    return found


def frames_of(trace):
    """``[(file, line), ...]``: the frames of a stack trace as torch formats it, innermost first."""
    return [(frame["filename"], frame["line"]) for frame in reversed(user_stack(trace))]


def kernel_nodes(mappings):
    """``{name:handle: [node of Dynamo's graph]}`` from the node mappings artifact (decoded):
    what each kernel call of Inductor's code computes, in the names of Dynamo's graph."""
    to_pre = mappings.get("postToPre") or {}
    out = {}
    for handle, posts in (mappings.get("cppCodeToPost") or {}).items():
        nodes = [pre for post in posts for pre in to_pre.get(post, ())]
        if nodes:
            out[handle] = sorted(set(nodes), key=nodes.index)
    return out


def kernel_post_grad_nodes(mappings):
    """``{name:handle: [node of Inductor's post-grad graph]}`` from the node mappings artifact
    (decoded): what each kernel call of Inductor's code computes, in the names of the graph
    the code was made from."""
    return {handle: list(posts) for handle, posts in (mappings.get("cppCodeToPost") or {}).items() if posts}
