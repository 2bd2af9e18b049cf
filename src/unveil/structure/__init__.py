"""The structuring layer: the symbolic frame that runs canonical instructions on
``ast`` values (:mod:`.frame`, :mod:`.stackitems`), and the structurer that reads
conditions, loops, ``try``/``with`` and ``match`` off the graph as statements
(:mod:`.structurer`, :mod:`.conditions`, :mod:`.loops`, :mod:`.trys`,
:mod:`.withs`, :mod:`.patterns`).  Imports :mod:`unveil.bytecode`,
:mod:`unveil.graph` and :mod:`unveil.syntax`; nested code objects are decompiled
through the context object the definitions layer passes in, never by importing it.
"""
