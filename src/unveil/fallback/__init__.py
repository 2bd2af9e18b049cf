"""The last resort: a code object the structurer refuses, lowered to an explicit
state machine (:mod:`.statemachine`).  Imports the layers below it
(:mod:`unveil.bytecode`, :mod:`unveil.syntax`, :mod:`unveil.structure`).
"""
