"""The ``ast`` toolbox: walking nodes (:mod:`.astwalk`) and printing them as source
(:mod:`.unparse`, any node on any supported version).  Imports only
:mod:`unveil.bytecode.facts`.
"""
