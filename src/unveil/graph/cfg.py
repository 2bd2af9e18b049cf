"""The control-flow graph over canonical instructions: blocks linked to their
successors and predecessors, dominators, natural loops and their follows."""
from ..bytecode.opcodes import JUMPS, NO_NEXT
from .blocks import split_blocks
from .dominators import dominator_spans, dominators
from .loop_follow import LoopFollows
from .rewrites import share_chain_cleanups, share_compare_returns, share_loop_tests, share_return_tails


class Loop:
    """A natural loop: header block, body blocks, and where it exits to."""

    def __init__(self, header, body):
        self.header = header
        self.body = body
        self.follow = None
        self.parent = None


class Graph(LoopFollows):
    def __init__(self, instrs):
        self.instrs = instrs
        share_loop_tests(instrs)
        share_return_tails(instrs)
        share_compare_returns(instrs)
        share_chain_cleanups(instrs)
        self.blocks = split_blocks(instrs)
        self.block_at = {b.start: b for b in self.blocks}
        self.of_instr = [None] * len(instrs)
        for b in self.blocks:
            for i in range(b.start, b.end):
                self.of_instr[i] = b
        self._link()
        self.entry = self.blocks[0] if self.blocks else None
        self.idom = dominators(self.entry, self._all_succs) if self.entry else {}
        self._dom_span = dominator_spans(self.idom)
        self._arounds = {}   # loop -> the handler of the try it is in (LoopFollows._try_around)
        self.loops = self._find_loops()

    # -- edges --------------------------------------------------------------
    def _link(self):
        n = len(self.instrs)
        for b in self.blocks:
            last = self.instrs[b.end - 1]
            targets = []
            if last.op in JUMPS and last.target is not None and last.target < n:
                targets.append(last.target)
            if last.op not in NO_NEXT and b.end < n:
                targets.append(b.end)
            for t in targets:
                s = self.block_at[t]
                if s not in b.succs:
                    b.succs.append(s)
                    s.preds.append(b)

    def handler_block(self, b):
        return self.block_at.get(b.handler[0]) if b.handler else None

    def _all_succs(self, b):
        h = self.handler_block(b)
        return b.succs + [h] if h is not None else b.succs

    def dominates(self, a, b):
        """Whether every path from the entry to ``b`` passes ``a`` (``a`` is ``b``'s
        ancestor in the dominator tree: its span holds ``b``'s)."""
        if a is b:
            return True
        span_a, span_b = self._dom_span.get(a), self._dom_span.get(b)
        return span_a is not None and span_b is not None and span_a[0] < span_b[0] and span_b[1] <= span_a[1]

    # -- loops --------------------------------------------------------------
    def reset_loops(self):
        """The loops as first found: structuring sets where a loop goes on."""
        self.loops = self._find_loops()

    def _find_loops(self):
        loops = {}
        for b in self.blocks:
            if b not in self.idom:
                continue
            for s in b.succs:
                if self.dominates(s, b):
                    body = loops[s].body if s in loops else {s}
                    _collect_body(body, s, b, self)
                    loops[s] = loops.get(s) or Loop(s, body)
        for loop in loops.values():
            loop.follow = self._loop_follow(loop, loops)
        return loops


def _collect_body(body, header, latch, graph):
    todo = [latch]
    while todo:
        x = todo.pop()
        if x in body:
            continue
        body.add(x)
        for p in x.preds:
            if p in graph.idom:   # not the dead rest of a loop test shared with the top one
                todo.append(p)
        for h_src in graph.blocks:
            if graph.handler_block(h_src) is x and h_src not in body and h_src in graph.idom:
                todo.append(h_src)
