"""The resume functions Dynamo generates at a graph break
(``torch._dynamo.resume_execution.ContinueExecutionCache``): which code each continues,
and at which offset.  Dynamo installing one as a global is
:class:`.patches.ResumeFunctionInstall`'s."""


def resumed_code(resume_code):
    """The code object a resume function Dynamo generated continues, or ``None``."""
    from torch._dynamo.resume_execution import ContinueExecutionCache
    meta = ContinueExecutionCache.generated_code_metadata.get(resume_code)
    return meta.code if meta is not None else None


def resume_point(resume_code):
    """``(code, offset)``: the code object (the frame Dynamo compiled) and the offset in it
    at which a resume function Dynamo generated goes on, or ``None``.  Dynamo caches each
    resume function under its frame's code and a key whose first item is that offset."""
    from torch._dynamo.resume_execution import ContinueExecutionCache
    cache = ContinueExecutionCache.cache
    for ident, made in list(cache.values.items()):
        for key, code in made.items():
            if code is resume_code:
                ref = cache.refs.get(ident)
                frame_code = ref() if ref is not None else None
                return (frame_code, key[0]) if frame_code is not None else None
    return None
