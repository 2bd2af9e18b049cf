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
    resume function under its frame's code and a key whose first item is that offset, in
    its own cleaned instructions (:func:`code_offset`)."""
    from torch._dynamo.resume_execution import ContinueExecutionCache
    cache = ContinueExecutionCache.cache
    for ident, made in list(cache.values.items()):
        for key, code in made.items():
            if code is resume_code:
                ref = cache.refs.get(ident)
                frame_code = ref() if ref is not None else None
                offset = code_offset(frame_code, key[0]) if frame_code is not None else None
                return (frame_code, offset) if offset is not None else None
    return None


def code_offset(code, cleaned_offset):
    """The offset in ``code`` of the instruction at ``cleaned_offset`` in Dynamo's cleaned
    instructions of it, or ``None``.  On 3.11+ Dynamo numbers those anew after changing
    them (``x is None`` tests become ``LOAD_CONST None; IS_OP``, zero-argument ``super()``
    gets its arguments, 3.13's fused loads and stores are split), so its offsets pass the
    code's own after the first change.  The two lists are aligned on each instruction's
    name and source position; one Dynamo put in goes on at the code's next instruction."""
    import difflib
    import dis
    from ...bytecode import facts
    if facts.BLOCK_STACK:
        return cleaned_offset      # (before 3.11 Dynamo keeps the offsets it read)
    from torch._dynamo.bytecode_transformation import cleaned_instructions
    cleaned = cleaned_instructions(code)
    at = next((k for k, ins in enumerate(cleaned) if ins.offset == cleaned_offset), None)
    if at is None:
        return None
    own = [ins for ins in dis.get_instructions(code) if ins.opname != "EXTENDED_ARG"]
    matcher = difflib.SequenceMatcher(None, [(ins.opname, ins.positions) for ins in cleaned],
                                      [(ins.opname, ins.positions) for ins in own], autojunk=False)
    for _, i1, i2, j1, j2 in matcher.get_opcodes():
        if not i1 <= at < i2:
            continue
        if j1 == j2:         # instructions Dynamo put in: the code goes on at its next one
            return own[j1].offset if j1 < len(own) else None
        return own[min(j1 + at - i1, j2 - 1)].offset
    return None
