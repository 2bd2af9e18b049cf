"""The definitions layer: a code object as the ``def``, ``lambda``, ``class``,
comprehension or PEP 695 generic definition that made it (:mod:`.functions`,
:mod:`.classes`, :mod:`.generics`).  Its :class:`~.functions.FunctionContext` is
the context object every layer below calls back into for nested code.  Imports
every layer below it; only :mod:`unveil.api`, :mod:`unveil.recompile` and
:mod:`unveil.dynamo` import it.
"""
