"""The control-flow graph layer: basic blocks, dominators, natural loops and their
follows, and the rewrites that share code the compiler duplicated.  Imports only
:mod:`unveil.bytecode`.
"""
