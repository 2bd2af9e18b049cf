"""Dominators and post-dominators (the semi-dominator and nearest-common-ancestor
algorithm, SNCA, of Georgiadis and Tarjan), and the dominator tree's spans for
constant-time ancestry tests."""


def dominators(entry, succs):
    """Immediate dominators of the nodes reachable from ``entry`` (``entry`` is its own).

    Semi-dominators by a link-eval forest with path compression, then each node's
    immediate dominator by walking up from its depth-first parent.  Near-linear: the
    iterative algorithm it replaced walked the dominator tree once per predecessor
    of a join, quadratic in a long ``and`` chain whose tests all jump to one place."""
    number, order, parent = _preorder(entry, succs)
    preds = [[] for _ in order]
    for v, node in enumerate(order):
        for s in succs(node):
            w = number.get(s)
            if w is not None:
                preds[w].append(v)
    semi = list(range(len(order)))
    label = list(range(len(order)))
    ancestor = [-1] * len(order)
    for w in range(len(order) - 1, 0, -1):
        for v in preds[w]:
            u = _eval(v, ancestor, label, semi)
            if semi[u] < semi[w]:
                semi[w] = semi[u]
        ancestor[w] = parent[w]
    idom = [0] * len(order)
    for w in range(1, len(order)):
        d = parent[w]
        while d > semi[w]:
            d = idom[d]
        idom[w] = d
    return {node: order[idom[v]] for v, node in enumerate(order)}


def _preorder(entry, succs):
    """({node: preorder number}, nodes in preorder, [depth-first parent's number])."""
    number, order, parent = {entry: 0}, [entry], [0]
    stack = [(0, iter(succs(entry)))]
    while stack:
        v, successors = stack[-1]
        for s in successors:
            if s not in number:
                number[s] = len(order)
                order.append(s)
                parent.append(v)
                stack.append((number[s], iter(succs(s))))
                break
        else:
            stack.pop()
    return number, order, parent


def _eval(v, ancestor, label, semi):
    """The node of least semi-dominator on ``v``'s path in the link-eval forest (``v``
    itself while unlinked), compressing the path on the way."""
    if ancestor[v] < 0:
        return v
    path, u = [], v
    while ancestor[ancestor[u]] >= 0:
        path.append(u)
        u = ancestor[u]
    for u in reversed(path):   # from the top: each node's ancestor is compressed first
        a = ancestor[u]
        if semi[label[a]] < semi[label[u]]:
            label[u] = label[a]
        ancestor[u] = ancestor[a]
    return label[v]


def dominator_spans(idom):
    """``{block: (first, last)}``: the block's number and the largest number under it in
    a depth-first walk of the dominator tree, so that a dominance question is two
    comparisons (walking up the tree made them quadratic in an ``elif`` chain)."""
    children = {}
    root = None
    for b, parent in idom.items():
        if parent is b:
            root = b
        else:
            children.setdefault(parent, []).append(b)
    spans, count = {}, 0
    stack = [(root, False)] if root is not None else []
    while stack:
        node, done = stack.pop()
        if done:
            spans[node] = (spans[node], count - 1)
            continue
        spans[node] = count
        count += 1
        stack.append((node, True))
        stack.extend((c, False) for c in children.get(node, ()))
    return spans


def postdominators(nodes, succs, exit_node):
    """Immediate post-dominators of ``nodes`` with ``exit_node`` as the sink."""
    preds = {n: [] for n in nodes}
    preds[exit_node] = []
    for n in nodes:
        for s in succs(n):
            preds.setdefault(s, []).append(n)
    return dominators(exit_node, lambda n: preds.get(n, []))
