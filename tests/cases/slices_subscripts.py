"""Subscripts and slices: reading, assigning, deleting, extended and multi-dimensional keys."""
from tests.cases.registry import case


class KeyEcho:
    """Returns (a description of) the key it is subscripted with."""

    def __getitem__(self, key):
        return describe_key(key)


def describe_key(key):
    if isinstance(key, tuple):
        return tuple(describe_key(k) for k in key)
    if isinstance(key, slice):
        return ("slice", key.start, key.stop, key.step)
    if key is Ellipsis:
        return "..."
    return key


@case(([10, 20, 30, 40, 50],), ("abcdef",))
def basic_indexing(seq):
    return seq[0], seq[-1], seq[2], seq[len(seq) // 2], seq[-2]


@case(([10, 20, 30],), ("ab",))
def index_out_of_range(seq):
    return seq[5]


@case((list(range(10)),), ("abcdefghij",), ((),))
def slice_forms(seq):
    return [
        seq[2:5],
        seq[:3],
        seq[7:],
        seq[:],
        seq[::2],
        seq[::-1],
        seq[1:8:3],
        seq[-3:],
        seq[:-3],
        seq[8:2:-2],
        seq[-1:-5:-1],
        seq[100:],
        seq[3:3],
    ]


@case((list(range(8)), 2, 6, None), (list(range(8)), None, None, -1), (list(range(8)), -3, None, 1))
def slices_with_variables(seq, i, j, k):
    return seq[i:j], seq[i:j:k], seq[i:], seq[:j], seq[::k], seq[i : j + 1 if j is not None else None]


@case(([0, 1, 2, 3, 4, 5],),)
def slice_assignment(lst):
    a = list(lst)
    a[1:3] = ["x", "y", "z"]
    b = list(lst)
    b[::2] = [9, 9, 9]
    c = list(lst)
    c[:] = []
    d = list(lst)
    d[2:2] = [100, 200]
    e = list(lst)
    e[-2:] = "ab"
    return a, b, c, d, e


@case(([0, 1, 2, 3, 4, 5],), ([0, 1, 2],))
def extended_slice_assignment_length_mismatch(lst):
    lst[::2] = [1, 2]
    return lst


@case(([0, 1, 2, 3, 4, 5, 6, 7],),)
def slice_and_index_deletion(lst):
    a = list(lst)
    del a[0]
    del a[-1]
    b = list(lst)
    del b[1:3]
    c = list(lst)
    del c[::3]
    d = {"k": 1, "j": 2}
    del d["k"]
    e = list(lst)
    del e[:]
    return a, b, c, d, e


@case()
def multidimensional_keys():
    k = KeyEcho()
    return [
        k[1, 2],
        k[1:2, ::3],
        k[:, None],
        k[...],
        k[..., 0],
        k[1:2:3],
        k[::],
        k[:],
        k["a":"b"],
        k[(1, 2)],
        k[(1, 2),],
        k[()],
        k[:, :, 1::-1],
        k[-1:],
    ]


@case(("x", 3),)
def subscript_with_computed_keys(s, n):
    k = KeyEcho()
    return k[s * 2], k[n - 1 : n + 1], k[n, s], k[len(s) :: n], k[[n][0]]


@case()
def nested_subscripts():
    grid = [[1, 2, 3], [4, 5, 6], [7, 8, 9]]
    idx = [2, 0]
    d = {"a": {"b": [10, {"c": "deep"}]}}
    return grid[idx[0]][idx[1]], grid[1][1:], [row[-1] for row in grid][::-1], d["a"]["b"][1]["c"], grid[-1][-1]


@case()
def dict_with_tuple_keys():
    d = {}
    d[1, 2] = "a"
    d[(3, 4)] = "b"
    d[1, 2] += "!"
    key = (5, 6)
    d[key] = d[1, 2] + d[3, 4]
    return sorted(d.items()), d[5, 6], (1, 2) in d


@case(([1, 2, 3, 4],),)
def augmented_assignment_on_subscripts_and_slices(lst):
    lst[0] += 10
    lst[-1] *= 2
    lst[1:3] += [7]
    d = {"n": 1}
    d["n"] -= 5
    return lst, d


@case(("hello world",),)
def string_slicing_and_methods(s):
    return s[:5].upper(), s[6:][::-1], s[::3], s[s.index(" ") + 1 :], s[-5:-2], "-".join(s[i : i + 2] for i in range(0, 6, 2))


@case((5,),)
def custom_setitem_delitem_records_keys(n):
    log = []

    class Store:
        def __setitem__(self, key, value):
            log.append(("set", describe_key(key), value))

        def __delitem__(self, key):
            log.append(("del", describe_key(key)))

        def __getitem__(self, key):
            log.append(("get", describe_key(key)))
            return 0

    s = Store()
    s[1] = "a"
    s[1:n] = "b"
    s[::2, n] = "c"
    del s[...]
    del s[1:2, 3]
    s[0] += 1
    s[:n] += 2
    return log


@case((list(range(6)),),)
def slice_objects_explicit(seq):
    sl = slice(1, 5, 2)
    rev = slice(None, None, -1)
    return seq[sl], seq[rev], sl.indices(len(seq)), seq[slice(3)], [seq[slice(i, i + 2)] for i in range(0, 6, 3)]


@case(((1, (2, 3), [4, 5]),),)
def subscript_tuples_and_chained_calls(t):
    return t[1][0], t[2][-1], t[1:][0][1], list(t[2])[::-1][0], t[::-1][0][1:]


@case(({"a": 1},), ({},))
def missing_key_error(d):
    return d["a"], d["b"]


@case((b"abcdef",), (bytearray(b"xyzw"),))
def bytes_subscripts(b):
    return b[0], b[-1], bytes(b[1:3]), bytes(b[::-2])
