"""unveil's PyTorch side: ``prepare_debug`` dumps what torch.compile did, as Python files.

Imports torch; ``unveil`` itself only imports this package when asked for it.
"""
from .session import DebugSession, UnveilWarning

__all__ = ["DebugSession", "UnveilWarning"]
