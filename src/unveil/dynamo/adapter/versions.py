"""The torch release unveil runs with: its version, whether unveil supports it, and what
differs between the supported releases that callers ask about (whether Dynamo resumes
past a live generator)."""
import re

import torch


def torch_version():
    return torch.__version__


#: the torch releases unveil supports, as (major, minor): measured on 2.13.0, 2.14.1 and 2.15.0
#: (README's table).  Older ones lack hook points unveil needs (2.10.0: OutputGraph has no
#: install_resume_function_global) and are refused up front; a newer one is tried, with a note.
SUPPORTED_TORCH = ((2, 13), (2, 15))


def _release(version):
    return tuple(int(part) for part in re.findall(r"\d+", version.split("+")[0])[:2])


def resumes_with_a_live_generator(version=None):
    """Whether Dynamo resumes after a graph break while a generator the frame made is alive:
    torch 2.14 and 2.15 do (a resume function takes the generator); torch 2.13 skips the
    frame, which then runs as it is."""
    return _release(version or torch_version()) >= (2, 14)


def unsupported_torch(version=None):
    """None for a torch release unveil supports; else the one line that says it is not."""
    version = version or torch_version()
    low, high = SUPPORTED_TORCH
    if _release(version) < low:
        return ("torch %s is older than unveil supports (torch %d.%d to %d.%d); the program runs on "
                "without unveil" % ((version,) + low + high))
    return None


def untested_torch(version=None):
    """A note for a release newer than unveil was tested with, else None."""
    version = version or torch_version()
    high = SUPPORTED_TORCH[1]
    if _release(version) > high:
        return "torch %s is newer than unveil was tested with (up to %d.%d): what fails is reported" % (
            (version,) + high)
    return None
