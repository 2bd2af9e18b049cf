"""Which lines of Inductor's code run a line of the user's: the kernel calls in its ``call()``.

With Inductor's provenance tracking on (``unveil.debug()`` turns it on), Inductor writes
a comment before each kernel call of its code, ``# [Provenance debug handles]
cpp_fused_relu_0:2``, and the structured trace gives, after the code, the stack traces
of the user's lines each such call computes (the
``inductor_provenance_tracking_kernel_stack_traces`` artifact, keyed by the same
``name:handle``; it may hold other graphs' calls too).
"""
import re

from ..explanations.records import user_stack

#: the comment Inductor writes before a kernel call, with provenance tracking on
_HANDLE = re.compile(r"^\s*# \[Provenance debug handles\] (\S+)\s*$")


def kernel_lines(text, stack_traces):
    """``[(user file, user line, line of text)]``: for each kernel call of Inductor's code
    ``text`` whose handle ``stack_traces`` (the artifact's payload, decoded) has, every
    frame of each of its stack traces, innermost first (the line a graph file's ``# File:``
    comment names, then the calls that led there: a break at ``h = self.act(h)`` stops at
    the kernels that compute the activation's own lines)."""
    found, handle = [], None
    for number, line in enumerate(text.splitlines(), 1):
        match = _HANDLE.match(line)
        if match:
            handle = match.group(1)
        elif handle is not None and line.strip() and not line.lstrip().startswith("#"):
            for trace in stack_traces.get(handle, ()):
                found += [(file, line, number) for file, line in frames_of(trace)]
            handle = None
    return found


def frames_of(trace):
    """``[(file, line), ...]``: the frames of a stack trace as torch formats it, innermost first."""
    return [(frame["filename"], frame["line"]) for frame in reversed(user_stack(trace))]
