"""Walks that recurse one Python call a level of an expression (the printer, the
comparisons by ``ast.dump``), run deep enough for whatever the compiler compiles:
``x0 + x1 + ... + x2999`` is an expression 3,000 levels deep (10,000 on 3.13)."""
import functools
import sys

from ..bytecode import facts


def deeply(make):
    """``make()``, made again under ``facts.DEEP_RECURSION_LIMIT`` where it recursed too
    deeply (and the limit was lower); deeper still raises ``RecursionError``."""
    try:
        return make()
    except RecursionError:
        limit = sys.getrecursionlimit()
        if limit >= facts.DEEP_RECURSION_LIMIT:
            raise
    sys.setrecursionlimit(facts.DEEP_RECURSION_LIMIT)
    try:
        return make()
    finally:
        sys.setrecursionlimit(limit)


def deep_enough(walk):
    """``walk``, run by :func:`deeply`."""
    @functools.wraps(walk)
    def run(*args, **kwargs):
        return deeply(lambda: walk(*args, **kwargs))
    return run
