"""The report's pictures, as SVG that opens from disk: an FX graph drawn as a graph, and
a function's compiles, breaks and resume functions as a flow.  pydot describes them
and Graphviz's ``dot`` lays them out (Debian's ``graphviz``, ``pip install pydot``);
without either the report still builds and says which is missing.  (The compile-time
chart is drawn by the index's template: bars need no layout.)
"""
import concurrent.futures
import html
import re
import shutil
import subprocess
import textwrap

#: an FX graph with more nodes is not drawn (its code is on the page)
MAX_NODES = 600
#: graphs not drawn: AOT Autograd's joint graph is its forward and backward graphs together
NOT_DRAWN = {"aot_joint": "the joint graph is the forward and backward graphs together; each is drawn on its page"}
#: Graphviz's attributes shared by every picture
_FONT = "Helvetica"
#: bounds on ``dot``'s network simplex passes (ranking, then placing), in passes per node: a
#: graph that converges within them (any small one) is laid out as without them; T5's AOT
#: backward graphs of 460 to 730 edges took from 79 s to over 120 s each without them and
#: about 2.5 s with them (a tiny T5's training report: 16 minutes, then 24 s of Graphviz)
_LAYOUT_LIMITS = dict(nslimit1="5", nslimit="5")
#: how long Graphviz may take over a batch of pictures, then over each picture of a batch
#: that took longer; a picture past it is not drawn and says so
LAYOUT_SECONDS = 60
_COLORS = {"placeholder": "#dbe9f6", "output": "#e8e8e8", "get_attr": "#eee6f6", "call": "#ffffff",
           "user": "#fff4c2"}


class Missing(Exception):
    """What the pictures need and this machine lacks."""


def check_tools():
    """Raise :class:`Missing` (one line) when pydot or Graphviz's ``dot`` is not there."""
    try:
        import pydot  # noqa: F401
    except ImportError:
        raise Missing("pydot is not installed (pip install 'unveil[report]')") from None
    if shutil.which("dot") is None:
        raise Missing("Graphviz's dot is not on PATH (apt-get install graphviz)")


def _text(value, limit=None):
    value = str(value)
    if limit and len(value) > limit:
        value = value[:limit - 1] + "\u2026"
    return html.escape(value, quote=True)


def _wrapped(value, width, most):
    """``value`` as up to ``most`` lines of about ``width`` characters (the last cut short
    with an ellipsis if there is more), escaped: a flow's boxes grow down, not across."""
    lines = textwrap.wrap(str(value), width, break_long_words=False, break_on_hyphens=False) or [""]
    if len(lines) > most:
        lines = lines[:most - 1] + [" ".join(lines[most - 1:])]
    return [_text(line, width + 1 if k == most - 1 else None) for k, line in enumerate(lines)]


def _cell(text, href=None, tooltip=None, bold=False, size=None, color=None, colspan=None):
    attrs = ""
    if href:
        attrs += ' HREF="%s"' % _text(href)
    if tooltip or href:
        attrs += ' TOOLTIP="%s"' % _text(tooltip or text)
    if color:
        attrs += ' BGCOLOR="%s"' % color
    if colspan:
        attrs += ' COLSPAN="%d"' % colspan
    body = '<FONT COLOR="#0b57d0">%s</FONT>' % text if href else text
    if size:
        body = '<FONT POINT-SIZE="%d">%s</FONT>' % (size, body)
    if bold:
        body = "<B>%s</B>" % body
    return "<TD%s>%s</TD>" % (attrs, body)


def graph_picture(graph, links):
    """A ``pydot.Dot`` of an FX graph (:class:`fxgraph.Graph`).  ``links(node)`` gives
    ``{"code": url, "source": (label, url, title) or None, "kernels": [(label, url)],
    "user": bool}``: the op links to the node's line of the graph file, the source cell
    to the user's line, each kernel cell to the Inductor code computing the node."""
    import pydot
    dot = pydot.Dot(graph_type="digraph", rankdir="TB", nodesep="0.2", ranksep="0.3", bgcolor="transparent",
                    **_LAYOUT_LIMITS)
    dot.set_node_defaults(shape="plain", fontname=_FONT, fontsize="10")
    dot.set_edge_defaults(arrowsize="0.6", color="#666666")
    ids = {}
    for number, node in enumerate(graph.nodes):
        ids[node.name] = "n%d" % number
        link = links(node)
        color = _COLORS["user"] if link.get("user") and node.kind == "call" else _COLORS[node.kind]
        rows = [_cell(_text(node.op, 48), href=link.get("code"), tooltip=node.target or node.op, bold=True,
                      color=color, colspan=2)]
        name = _input_name(node.name) if node.kind == "placeholder" else node.name
        detail = _text(name, 40) + (" &#183; " + _text(node.shape) if node.shape else "")
        rows.append(_cell(detail, size=9, color=color, colspan=2, tooltip=node.name if name != node.name else None))
        extra = []
        if link.get("source"):
            label, url, title = link["source"]
            extra.append(dict(text=_text(label, 40), href=url, tooltip=title, size=9, color=color))
        for label, url in link.get("kernels", [])[:2 - len(extra)]:
            extra.append(dict(text=_text(label), href=url, tooltip="the Inductor code that computes this node",
                              size=9, color="#e3f3e0"))
        if extra:
            rows.append("".join(_cell(colspan=2 if len(extra) == 1 else None, **cell) for cell in extra))
        label = '<<TABLE BORDER="0" CELLBORDER="1" CELLSPACING="0" CELLPADDING="3">%s</TABLE>>' % "".join(
            "<TR>%s</TR>" % row for row in rows)
        dot.add_node(pydot.Node(ids[node.name], label=label, id="node-" + _safe_id(node.name)))
    for node in graph.nodes:
        for name in node.inputs:
            dot.add_edge(pydot.Edge(ids[name], ids[node.name]))
    return dot


#: the characters a line of a flow's box holds (a longer line goes on below it)
_FLOW_BOX_WIDTH = 36


def flow_picture(steps):
    """A ``pydot.Dot`` of a function's flow.  ``steps`` is a list of
    ``("node", id, label lines, url, kind)`` and ``("edge", from, to, label, url, kind)``;
    kinds pick the colors (``function``, ``resume``, ``compiled``, ``skipped``, ``nocode``;
    edges ``call``, ``fail``, ``break``)."""
    import pydot
    dot = pydot.Dot(graph_type="digraph", rankdir="LR", nodesep="0.3", ranksep="0.45", bgcolor="transparent",
                    **_LAYOUT_LIMITS)
    dot.set_node_defaults(shape="box", style="rounded,filled", fontname=_FONT, fontsize="10", margin="0.12,0.06")
    dot.set_edge_defaults(fontname=_FONT, fontsize="9", arrowsize="0.7")
    fills = {"function": "#dbe9f6", "resume": "#fff4c2", "compiled": "#e3f3e0", "skipped": "#fde2cf",
             "nocode": "#eeeeee"}
    edges = {"call": dict(color="#444444"), "fail": dict(color="#888888", style="dashed", fontcolor="#555555"),
             "break": dict(color="#c0392b", fontcolor="#c0392b", penwidth="1.6")}
    for step in steps:
        if step[0] == "node":
            _, ident, lines, url, kind = step
            label = "<%s>" % "<BR/>".join(["<B>%s</B>" % _text(lines[0], 60)] + [
                part for line in lines[1:] for part in _wrapped(line, _FLOW_BOX_WIDTH, 4)])
            attrs = dict(label=label, fillcolor=fills[kind], id="flow-" + ident)
            if url:
                attrs.update(URL=url, tooltip=lines[0])
            dot.add_node(pydot.Node(ident, **attrs))
        else:
            _, a, b, label, url, kind = step
            attrs = dict(edges[kind])
            if label:
                attrs["label"] = "<%s>" % "<BR/>".join(part for line in label for part in _wrapped(line, 30, 2))
            if url:
                attrs.update(URL=url, tooltip=label[0] if label else "")
            dot.add_edge(pydot.Edge(a, b, **attrs))
    return dot


def render(dots, batches=2):
    """Each ``pydot.Dot`` laid out by Graphviz as inline SVG: ``[(svg or None, error or
    None)]`` in order.  The pictures go to ``batches`` ``dot`` processes running side by
    side, each laying out its share one after the other (one process per picture would
    spend more starting than drawing)."""
    texts = [d.to_string() for d in dots]
    shares = [[] for _ in range(max(1, min(batches, len(texts))))]
    for number in sorted(range(len(texts)), key=lambda n: -len(texts[n])):
        min(shares, key=lambda share: sum(len(texts[n]) for n in share)).append(number)
    results = [None] * len(texts)
    with concurrent.futures.ThreadPoolExecutor(max_workers=len(shares)) as pool:
        for share, svgs in zip(shares, pool.map(lambda share: _layout([texts[n] for n in share]), shares)):
            for number, result in zip(share, svgs):
                results[number] = result
    return results


def _layout(texts):
    """``dot -Tsvg`` on several graphs at once (it writes one SVG document per graph);
    when that fails or takes too long, each on its own, to say which failed and why."""
    if not texts:
        return []
    done = _dot("".join(texts))
    if done is not None and done[0] is not None:
        documents = done[0].split("<?xml ")[1:]
        if len(documents) == len(texts):
            return [(_inline(d), None) for d in documents]
    return [_one(text) for text in texts] if len(texts) > 1 else [_one(texts[0], done)]


def _one(text, done=None):
    svg, error = done or _dot(text)
    return (_inline(svg), None) if svg is not None else (None, error)


def _dot(text):
    try:
        done = subprocess.run(["dot", "-Tsvg"], input=text.encode("utf-8"), capture_output=True,
                              timeout=LAYOUT_SECONDS)
    except subprocess.TimeoutExpired:
        return None, "Graphviz took more than %d s to lay it out" % LAYOUT_SECONDS
    if done.returncode != 0:
        message = done.stderr.decode("utf-8", "replace").strip().splitlines()
        return None, "Graphviz failed: %s" % (message[0] if message else "exit status %d" % done.returncode)
    return done.stdout.decode("utf-8"), None


#: the least share of its drawn size a flow is shown at; a wider one scrolls in its box
FLOW_SMALLEST = 0.8


#: the widest picture, in points, that shrunk to ``FLOW_SMALLEST`` fits a page at 1,280 px
#: (its box is some 1,230 px wide, 922 points: a point is 4/3 px)
PAGE_POINTS = 922 / FLOW_SMALLEST


def too_wide(result):
    """Whether a rendered picture (``(svg, error)``) is wider than a page holds at its least size."""
    match = re.match(r'<svg width="([\d.]+)pt"', result[0] or "")
    return match is not None and float(match.group(1)) > PAGE_POINTS


def downwards(dot):
    """A flow (``pydot.Dot``) laid out top to bottom, not left to right."""
    dot.set("rankdir", "TB")
    return dot


def legible(result, smallest=FLOW_SMALLEST):
    """A rendered picture (``(svg, error)``) that a page may shrink to fit its width, but
    never below ``smallest`` of its drawn size: a long flow (many recompiles) shrunk to fit
    1,280 px had text too small to read.  Past that its box scrolls sideways."""
    svg, error = result
    match = re.match(r'<svg width="([\d.]+)pt"', svg or "")
    if match is None:
        return result
    least = "%.0fpt" % (float(match.group(1)) * smallest)
    return svg.replace("<svg ", '<svg style="min-width: %s" ' % least, 1), error


def _inline(document):
    """An SVG document as an element to put in a page: no XML declaration or doctype."""
    return document[document.index("<svg"):]


def _input_name(name):
    """A Dynamo placeholder's name as the source it reads: ``l_self_modules_ln_1_parameters_bias_``
    is ``self.ln_1.bias``."""
    text = re.sub(r"_(?:modules|parameters|buffers)_", ".", re.sub(r"^[LG]_", "", name, flags=re.I))
    return text.rstrip("_") or name


def _safe_id(name):
    return re.sub(r"[^A-Za-z0-9_-]", "_", name)
