"""The bytecode layer: any CPython 3.8-3.13 code object as one list of canonical
instructions.

Owns the version facts (:mod:`.facts`, the only module that reads
``sys.version_info``), raw decoding (:mod:`.decoder`), the 3.8-3.10 block-stack
rewrite (:mod:`.legacy`), the canonical instruction and its opcode vocabulary
(:mod:`.opcodes`), the translators (:mod:`.canonical`, :mod:`.versioned_opcodes`)
and what a code object says about itself (:mod:`.code_objects`).  Imports only
:mod:`unveil.errors` and the standard library.
"""
