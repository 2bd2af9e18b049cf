"""One small handler per canonical instruction, run by :class:`~unveil.structure.frame.Frame`
on its stack: ``HANDLERS[op](frame, instruction)``.  A handler pops what the instruction
consumes, pushes the ``ast`` node of what it makes, and emits the statements it completes."""
from . import calls, generators, names, values  # noqa: F401  (each files its handlers in HANDLERS)
from .table import HANDLERS  # noqa: F401
