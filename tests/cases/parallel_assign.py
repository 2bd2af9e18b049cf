"""Stores that are, and are not, one tuple assignment.

A tuple assignment evaluates all its values before it stores anything, so two
statements where the second reads what the first stored (``x = 1; y = x``) are
never one (``x, y = 1, x`` reads the old ``x``).  They were merged where a value
left on the stack under them looked like the rest of a tuple: after a ``while``
loop whose test spans several blocks and whose body is empty (3.10+ copy the test
to the loop's bottom, and the copy was shared from its second instruction on,
leaving its first load on the stack), and under the right-hand side of a nested
unpacking (``(x, a), b = (a, 1), x``).
"""
from tests.cases.registry import case


class Probe:
    """Answers true ``n`` times, then false; records what was called."""

    def __init__(self, n=2, text="  k  "):
        self.n, self.text, self.log = n, text, []

    def a(self, *args):
        self.log.append(("a",) + args)
        self.n -= 1
        return self.n >= 0

    def c(self, *args):
        self.log.append(("c",) + args)
        return self.n != 1

    def extract(self):
        self.log.append("extract")
        return self.text

    def pair(self):
        return len(self.log), self.n


@case((Probe(2),), (Probe(0),), (Probe(5),))
def store_then_load_after_an_empty_while_and(s):
    while s.a() and s.c():
        pass
    x = 1
    y = x
    return y, s.log


@case((Probe(2),), (Probe(0, " v "),))
def tomlkit_extract_then_strip_after_a_loop(s):
    # tomlkit 0.13.2's parser: ``original = self.extract(); key = original.strip()``
    while s.a() and s.c():
        pass
    original = s.extract()
    key = original.strip()
    return original, key, s.log


@case((Probe(2), 1, 2), (Probe(0), 3, 4))
def swap_then_read_after_an_empty_while_and(s, a, b):
    while s.a(a) and s.c(b):
        pass
    a, b = b, a
    c = a
    return a, b, c, s.log


@case((Probe(3),), (Probe(1),))
def chained_and_augmented_after_an_empty_while_and(s):
    while s.a() and s.c():
        pass
    x = y = len(s.log)
    x += y
    z = x
    w = z
    return x, y, z, w


@case((Probe(2),), (Probe(0),))
def unpacking_after_an_empty_while_and(s):
    while s.a() and s.c():
        pass
    m, n = s.pair()
    k = m + n
    j = k
    return m, n, k, j


@case((Probe(2), 0), (Probe(2), 5))
def store_then_load_after_an_empty_while_with_a_negated_test(s, v):
    while not s.a() and v < 3 and s.c():
        pass
    x = v + 1
    y = x
    return x, y


@case((Probe(2), 0), (Probe(2), 5))
def store_then_load_after_an_empty_while_or(s, v):
    while v < 3 and (s.a() or s.c()):
        v += 1
        pass
    while s.a(v) and s.c():
        pass
    x = v
    y = x * 2
    return x, y


@case((5, 7), (0, 0))
def nested_unpacking_over_a_name_it_rebinds(a, b):
    x = 0
    (x, a), b = (a, 1), x
    return x, a, b


@case((5, 7), (0, 0))
def nested_unpacking_storing_a_name_twice(a, b):
    x = 2
    (x, a), a = (a, b + 1), x
    return x, a
