"""A function's flow, as its page draws it: the function, its compiles in the order Dynamo
tries them, and the resume functions made at their breaks, each with what happened
(``pictures.flow_picture`` lays the steps out)."""
import os

from ..dump_index import label_of
from .words import plural, shorten, slug


def flow_steps(site, fn):
    """The flow of ``fn`` and the resume functions made at its breaks (see
    ``pictures.flow_picture``)."""
    steps, seen = [], {}            # function key -> its node's id

    def short_line(location):
        return "%s:%s" % (os.path.basename(location["filename"]), location["line"]) if location else "?"

    def visit(f):
        if f["key"] in seen:
            return seen[f["key"]]
        ident = seen[f["key"]] = "f%d" % len(seen)
        if f["kind"] == "resume":
            # (by its key's own name: Dynamo names the two made at one data-dependent ``if`` alike)
            lines = ["resume function", shorten(f["key"].rpartition(".")[2], 44), "goes on %s line %s" % (
                "after the call in" if (f.get("continues") or {}).get("after_call") else "at",
                (f.get("continues") or {}).get("line") or f["line"])]
            cont = f.get("continues") or {}
            if cont.get("branch"):              # one side of a data-dependent ``if``
                lines.append("where `%s` %s" % (shorten((cont["branch"].get("source") or "if").strip(), 30),
                                                "holds" if cont["branch"].get("condition_holds") else
                                                "does not hold"))
            if cont.get("source"):
                lines.append(shorten(cont["source"].strip(), 40))
            steps.append(("node", ident, lines, site.function_page(f), "resume"))
        else:
            steps.append(("node", ident, [f["label"], "%s:%s" % (site.short(f["filename"]), f["line"])],
                          site.function_page(f), "function"))
        comps = site.compiles_by_function.get(f["key"], [])
        generations = sorted({c.get("generation", 0) for c in comps})
        for generation in generations:
            steps.extend(_entries_tried(site, ident, [c for c in comps if c.get("generation", 0) == generation],
                                        _calls_until(generation, generations)))
        for comp in comps:
            if comp["compiled"]:
                continue
            cid = _node_id(comp)
            steps.append(("node", cid, compile_node_lines(site, comp), site.compile_page(comp),
                          "skipped" if comp.get("skipped") or comp.get("failed") else "nocode"))
            steps.append(("edge", ident, cid, ["compiled"], None, "call"))
        for comp in comps:
            brk = comp.get("graph_break") or {}
            for key in comp.get("resume_functions") or []:
                if key not in site.by_key:
                    continue
                rid = visit(site.by_key[key])
                where = brk.get("location")
                label = ["graph break at %s" % short_line(where), shorten(brk.get("reason") or "", 48)]
                url = site.source_link(where["filename"], where["line"]) if where else None
                steps.append(("edge", _node_id(comp), rid, label, url, "break"))
        return ident
    visit(fn)
    return steps

def _entries_tried(site, ident, comps, calls):
    """The steps of one generation's cache entries (of ``comps``, that generation's
    compiles), in the order a call tries them (Dynamo tries the newest first), from the
    function's node ``ident``; the first edge is labelled ``calls``."""
    steps, previous = [], ident
    for number, comp in enumerate([c for c in comps if c["compiled"]][::-1]):
        cid = _node_id(comp)
        steps.append(("node", cid, compile_node_lines(site, comp), site.compile_page(comp), "compiled"))
        if number == 0:
            steps.append(("edge", previous, cid, calls, None, "call"))
        else:
            steps.append(("edge", previous, cid, ["its guards fail"], None, "fail"))
        previous = cid
    return steps


def _calls_until(generation, generations):
    """The calls that try the entries of ``generation`` (one of the dump's ``generations``,
    sorted): each call, between the ``torch._dynamo.reset()`` that began it and the one
    that emptied Dynamo's cache of them."""
    if len(generations) == 1:
        return ["each call"]
    after = ["after reset %d" % generation] if generation else []
    later = [g for g in generations if g > generation]
    before = ["before reset %d" % later[0]] if later else []
    return ["each call", ", ".join(after + before)]


def _node_id(comp):
    """The flow's node of a compile: one per compile, of every generation."""
    return "c" + slug(label_of(comp)).replace(".", "_")


def compile_node_lines(site, comp):
    """What the flow's node of ``comp`` says: its label, how it ended, its time, and why
    it was made."""
    lines = ["compile %s" % label_of(comp)]
    if comp.get("skipped") or comp.get("failed"):
        why = (comp.get("skipped") or comp.get("failed"))
        because = why.get("because") or {}
        lines += ["skipped: runs as it is" if comp.get("skipped") else "failed",
                  shorten(because.get("reason") or why.get("reason") or "", 48)]
    elif comp.get("at_limit"):
        lines += ["not compiled: recompile limit", "its entries still run"]
    elif not comp["compiled"]:
        lines.append("no graph: runs as it is")
    else:
        graphs = [site.graph_of(a) for a in site.compile_files(comp, ("graph",))]
        nodes = sum(len([n for n in g.nodes if n.kind == "call"]) for g in graphs if g is not None)
        lines.append("%s, %s" % (plural(len(graphs), "graph"), plural(nodes, "op")) if graphs else "no graph")
        if comp.get("graph_break"):
            lines.append("ends at a graph break")
    seconds = (comp.get("times") or {}).get("frame")
    if seconds is not None:
        lines.append("%.2f s to compile" % seconds)
    for reason in (comp.get("recompile_reasons") or [])[:1]:
        lines.append("made when %s's guard failed:" % label_of(site.failed_entry(comp, reason)))
        lines.append(shorten(reason["guard"], 48))
    return lines
