"""Assignment statements: simple, chained, augmented, annotated, and every kind of target."""
import types

from tests.cases.registry import case


class Mat:
    """Tiny value supporting ``@`` and ``@=``."""

    def __init__(self, v):
        self.v = v

    def __matmul__(self, other):
        return Mat(self.v * other.v + 1)

    def __imatmul__(self, other):
        self.v = self.v * 10 + other.v
        return self


@case((1,), (-7,), ("text",))
def simple_assign(x):
    y = x
    z = y * 2
    w = None
    return y, z, w


@case((3,), ("s",))
def chained_assign(x):
    a = b = c = x
    return a, b, c


@case()
def chained_assign_shares_object():
    a = b = []
    a.append(1)
    return b, a is b


@case()
def chained_assign_left_to_right():
    a = [0, 0, 0]
    i = 0
    i = a[i] = 2
    return i, a


@case((7,))
def chained_assign_mixed_targets(v):
    d = {}
    ns = types.SimpleNamespace()
    lst = [0, 0]
    d["k"] = ns.attr = lst[1] = a = v
    return d, ns.attr, lst, a


@case(((1, 2),), ([3, 4],), ((5,),))
def chained_assign_with_unpack(pair):
    x, y = z = pair
    p = [q, r] = pair
    return x, y, z, p, q, r


@case((5, 3), (-9, 4), (7, -2))
def augmented_arithmetic(a, b):
    x = a
    x += b
    r1 = x
    x -= b * 2
    r2 = x
    x *= b
    r3 = x
    x //= b
    r4 = x
    x %= 5
    r5 = x
    x **= 2
    r6 = x
    y = float(a)
    y /= b
    return [r1, r2, r3, r4, r5, r6, y]


@case((0b1011, 2), (255, 3), (-16, 1))
def augmented_bitwise(a, b):
    x = a
    x <<= b
    r1 = x
    x >>= b + 1
    r2 = x
    x &= 0xF0 | a
    r3 = x
    x |= 0x100
    r4 = x
    x ^= a
    return r1, r2, r3, r4, x


@case((2, 3), (0, 0))
def augmented_matmul(a, b):
    m = Mat(a)
    m2 = m
    m @= Mat(b)
    r = (m @ Mat(1)).v
    return m.v, m2 is m, r


@case((1,), (10,))
def augmented_attribute(n):
    ns = types.SimpleNamespace(count=n, items=[])
    ns.count += 5
    ns.count *= 2
    ns.items += [ns.count]
    ns.items *= 2
    ns.count -= len(ns.items)
    return ns.count, ns.items


@case((["a", "b", "a"],), ([],))
def augmented_subscript(keys):
    d = {"x": 1}
    d["x"] += 10
    counts = {}
    for k in keys:
        counts[k] = counts.get(k, 0)
        counts[k] += 1
    lst = [1, 2, 3]
    lst[0] -= 5
    lst[-1] **= 3
    lst[len(lst) // 2] <<= 4
    return d, counts, lst


@case((2,), (-1,))
def augmented_subscript_evaluated_once(i):
    calls = []

    def idx():
        calls.append("idx")
        return i

    def target():
        calls.append("target")
        return data

    data = [10, 20, 30, 40]
    target()[idx()] += 100
    return data, calls


@case(([1, 2, 3, 4],), ([5],))
def augmented_slice(lst):
    lst[1:3] += [9, 9]
    lst[:1] *= 2
    lst[::2] = [0] * len(lst[::2])
    return lst


@case()
def augmented_inplace_versus_rebind():
    a = [1]
    b = a
    a += [2]
    t = (1,)
    u = t
    t += (2,)
    s = "x"
    s2 = s
    s += "y"
    return a, b, t, u, s, s2


@case((4,), ("q",))
def annotated_assignments(v):
    x: int = 5
    y: str
    z: list = [v]
    w: "forward ref" = v
    ns = types.SimpleNamespace()
    ns.attr: int = 3
    d = {}
    d["k"]: int = v
    x += 1
    return x, z, w, ns.attr, d


@case((1, 2), ("a", "b"))
def swap_and_rotate(a, b):
    a, b = b, a
    r1 = (a, b)
    c = "c"
    a, b, c = c, a, b
    r2 = (a, b, c)
    a, b, c, d = b, c, a, r1
    return r1, r2, (a, b, c, d)


@case((1, 2), ("a", "b"))
def swap_of_a_captured_name(a, b):
    """``b, a = a, b`` where a closure captures ``a`` (its load a ``LOAD_DEREF``): lowered to
    the state machine, both loads went to ``__s0`` and the swap came out as ``a = b = b``
    (an outsider's random programs, 3.8 to 3.11)."""
    b, a = a, b
    r1 = (a, b)
    c = "c"
    c, b, a = a, b, c
    read = lambda: a
    return r1, (a, b, c), read()


@case((3,), (0,))
def assign_nested_attribute_and_subscript(v):
    root = types.SimpleNamespace(child=types.SimpleNamespace(data={"list": [0, 0]}))
    root.child.data["list"][1] = v
    root.child.name = "n%d" % v
    root.child.data["list"][0] += root.child.data["list"][1] * 2
    return root.child.data, root.child.name


@case((3,), (-2,))
def assign_in_branches_then_use(n):
    if n > 0:
        label = "pos"
        value = n * 2
    else:
        label = "nonpos"
    result = [label]
    if n > 0:
        result.append(value)
    return result


@case()
def reassign_shadowing_builtin():
    len = 5
    lst = [len] * 2
    del len
    return lst, len(lst)


@case((10,), (0,))
def unbound_local_read_before_assign(n):
    if n:
        x = n
    return x


@case((1,), (2,), same_bytecode=True)
def parallel_assignment_of_empty_displays(n):
    # empty lists and dicts are values of the tuple assignment, not comprehension
    # accumulators: written one by one they would be stored in another order
    a, b, c = [], [], {}
    d, e = n * 2, []
    for i in range(n):
        a.append(i)
        c[i] = b
    return a, b, c, d, e
