"""The case library: small functions, each with the calls that exercise it.

A case module defines functions decorated with :func:`case`.  Modules whose
syntax needs a newer Python set ``MIN_VERSION = (3, X)`` at the top and are
only imported on that version or later (see ``tests/cases/registry.py``).
"""
