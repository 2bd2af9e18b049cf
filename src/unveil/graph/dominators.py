"""Dominators and post-dominators (Cooper, Harvey and Kennedy's iterative
algorithm), and the dominator tree's spans for constant-time ancestry tests."""

def dominators(entry, succs):
    """Immediate dominators (Cooper, Harvey and Kennedy's iterative algorithm)."""
    order, seen = [], set()
    stack = [(entry, iter(succs(entry)))]
    seen.add(entry)
    while stack:
        node, it = stack[-1]
        for s in it:
            if s not in seen:
                seen.add(s)
                stack.append((s, iter(succs(s))))
                break
        else:
            order.append(node)
            stack.pop()
    order.reverse()
    rank = {b: i for i, b in enumerate(order)}
    preds = {b: [] for b in order}
    for b in order:
        for s in succs(b):
            if s in preds:
                preds[s].append(b)
    idom = {entry: entry}
    changed = True
    while changed:
        changed = False
        for b in order[1:]:
            new = None
            for p in preds[b]:
                if p in idom:
                    new = p if new is None else _intersect(p, new, idom, rank)
            if new is not None and idom.get(b) is not new:
                idom[b] = new
                changed = True
    return idom


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


def _intersect(a, b, idom, rank):
    while a is not b:
        while rank[a] > rank[b]:
            a = idom[a]
        while rank[b] > rank[a]:
            b = idom[b]
    return a


def postdominators(nodes, succs, exit_node):
    """Immediate post-dominators of ``nodes`` with ``exit_node`` as the sink."""
    preds = {n: [] for n in nodes}
    preds[exit_node] = []
    for n in nodes:
        for s in succs(n):
            preds.setdefault(s, []).append(n)
    return dominators(exit_node, lambda n: preds.get(n, []))
