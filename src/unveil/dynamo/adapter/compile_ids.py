"""The compile id of a compile (``"frame/compile"``), read where torch keeps it: the
compile running in this thread (``torch._guards.CompileContext.current_compile_id``), a
structured-trace record's metadata, a Dynamo graph module's ``meta['dynamo_compile_id']``."""
import torch


def as_text(cid):
    """Dynamo's ``CompileId`` as ``"frame/compile"``, or ``None`` for none."""
    if cid is None or cid.frame_id is None:
        return None
    return "%s/%s" % (cid.frame_id, cid.frame_compile_id)


def current_compile_id():
    """``"frame/compile"`` of the compile running in this thread, or ``None``."""
    return as_text(torch._guards.CompileContext.current_compile_id())


def graph_compile_id(gm):
    """The compile id of a Dynamo graph module (Dynamo keeps its CompileId in the
    module's ``meta``), or ``None``."""
    return as_text(gm.meta.get("dynamo_compile_id"))


def record_compile_id(metadata):
    """The compile id a structured-trace record belongs to, or ``None``."""
    if metadata.get("frame_id") is None:
        return None
    return "%s/%s" % (metadata["frame_id"], metadata.get("frame_compile_id", 0))
