"""Immediate dominators against their definition, on random graphs: ``d`` dominates ``n``
when every path from the entry to ``n`` passes ``d``; the immediate dominator is the
strict dominator that all the other strict dominators dominate."""
import random

from unveil.graph.dominators import dominators, postdominators


def _reachable(entry, succs, removed=None):
    seen, todo = {entry} - {removed}, [entry] if entry != removed else []
    while todo:
        for s in succs(todo.pop()):
            if s not in seen and s != removed:
                seen.add(s)
                todo.append(s)
    return seen


def _idoms_by_definition(entry, succs):
    reach = _reachable(entry, succs)
    strict = {n: {d for d in reach if d != n and n not in _reachable(entry, succs, d)} for n in reach}
    idom = {entry: entry}
    for n in reach - {entry}:
        idom[n] = next(d for d in strict[n] if strict[n] - {d} <= strict[d])
    return idom


def _graphs(count):
    for seed in range(count):
        r = random.Random(seed)
        n = r.randint(1, 30)
        edges = {i: [r.randrange(n) for _ in range(r.choice([0, 1, 1, 2, 2, 3]))] for i in range(n)}
        yield n, edges


def test_dominators_match_their_definition():
    for n, edges in _graphs(400):
        assert dominators(0, edges.__getitem__) == _idoms_by_definition(0, edges.__getitem__), edges


def test_postdominators_are_dominators_of_the_reversed_graph():
    for n, edges in _graphs(400):
        preds = {i: [] for i in range(n)}
        for i, targets in edges.items():
            for t in targets:
                preds[t].append(i)
        exit_node = n - 1
        assert postdominators(range(n), edges.__getitem__, exit_node) == \
            _idoms_by_definition(exit_node, preds.__getitem__), edges


def test_a_long_chain_of_tests_jumping_to_one_place():
    """An ``and`` chain: each test goes on to the next or jumps to the one false exit,
    whose immediate dominator is the first test."""
    n = 3000
    edges = {i: [i + 1, n] for i in range(n)}
    edges[n] = []
    idom = dominators(0, edges.__getitem__)
    assert idom[n] == 0 and idom[n - 1] == n - 2
