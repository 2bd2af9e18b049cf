"""What the report's index page shows, read off a :class:`.site.Site`: the functions
grouped by package (the user's first), where the graphs broke, what each graph computes,
the totals, the compile-time chart and the call chains that led to each compile."""
import os

#: the compile-time chart draws at most this many compiles (the user's always)
CHART_ROWS = 40
#: the stages of a compile's time, as the chart splits it (from Dynamo's metrics)
STAGES = (("Dynamo", "#4e79a7"), ("AOT Autograd", "#f28e2b"), ("Inductor", "#59a14f"))


def ordered(site):
    """The functions, each followed by the resume functions made at its breaks."""
    out, seen = [], set()

    def add(fn, depth):
        if fn["key"] in seen:
            return
        seen.add(fn["key"])
        out.append((fn, depth))
        for child in site.index["functions"]:
            if child["kind"] == "resume" and child.get("resumes") == fn["key"]:
                add(child, depth + 1)
    for fn in site.index["functions"]:
        if fn["kind"] != "resume" or fn.get("resumes") not in site.by_key:
            add(fn, 0)
    for fn in site.index["functions"]:
        add(fn, 0)
    return out


def groups(site):
    """``[(package or None, rows)]``: the user's functions first, then each library's."""
    by_package = {}
    for fn, depth in ordered(site):
        entry = row(site, fn)
        entry["depth"] = depth
        by_package.setdefault(site.package(fn["filename"]), []).append(entry)
    user = by_package.pop(None, [])
    libraries = sorted(by_package.items(), key=lambda item: -sum(r["seconds"] for r in item[1]))
    return [(None, user)] + libraries


def row(site, fn):
    comps = site.compiles_by_function.get(fn["key"], [])
    counts = [site.cache_counts(c) for c in comps]
    return {"fn": fn, "page": site.function_page(fn), "compiles": len(comps),
            "graphs": sum(1 for a in site.index["artifacts"] if a["function"] == fn["key"] and a["kind"] == "graph"),
            "breaks": sum(1 for c in comps if c.get("graph_break")),
            "skipped": sum(1 for c in comps if c.get("skipped")),
            "recompiles": sum(1 for c in comps if c.get("recompile_reasons")),
            "seconds": sum((c.get("times") or {}).get("frame") or 0 for c in comps),
            "hits": sum(h for h, _ in counts), "misses": sum(m for _, m in counts)}


def break_rows(site):
    """Where the graphs broke, for the index: one row per place and reason, with the
    line's code, a hint and the compiles that broke there (the user's places first)."""
    rows = {}
    for comp in site.index["compiles"]:
        brk = comp.get("graph_break")
        if not brk:
            continue
        where = brk.get("location") or {}
        key = (where.get("filename"), where.get("line"), brk.get("reason"))
        if key not in rows:
            code = None
            if where.get("filename") and where.get("line"):
                lines = (site.read_source(where["filename"]) or "").splitlines()
                code = lines[where["line"] - 1].strip() if 0 < where["line"] <= len(lines) else None
            rows[key] = {"break": brk, "location": where or None, "code": code, "compiles": [],
                         "user": bool(where.get("filename")) and site.is_user(where["filename"]),
                         "via": _via(site, brk)}
        rows[key]["compiles"].append((comp, site.compile_page(comp)))
    return sorted(rows.values(), key=lambda r: (not r["user"], -len(r["compiles"])))


def _via(site, brk):
    """The two frames just outside a break's place that are not torch's own, outermost
    first: a model's layer calling the hook that broke, say (torch's module-call frames
    between them left out)."""
    outer = (brk.get("user_stack") or [])[:-1]
    return [f for f in outer if site.package(site.origin(f["filename"], f["line"])[0]) != "torch"][-2:]


def graph_rows(site):
    """What each Dynamo graph computes, for the index: ``{art, page, compile, fn, ops:
    [(op, count)], inputs, outputs, lines}`` (the user's functions' graphs first)."""
    rows = []
    for package, group in groups(site):
        for row in group:
            for art in site.index["artifacts"]:
                if art["function"] != row["fn"]["key"] or art["kind"] != "graph":
                    continue
                graph = site.graph_of(art)
                if graph is None:
                    continue
                counts = site.op_counts(graph)
                by_name = {n.name: n for n in graph.nodes}
                output = next((n for n in graph.nodes if n.kind == "output"), None)
                first, last = row["fn"].get("source_lines") or (0, float("inf"))
                own = [n for n in graph.nodes if n.kind == "call" and n.source
                       and n.source[0] == row["fn"]["filename"] and first <= n.source[1] <= last]
                lines = sorted({n.source[1] for n in own} | _lines_run(site, art, row["fn"]["filename"], first, last))
                rows.append({"art": art, "page": site.file_page(art), "fn": row["fn"], "user": package is None,
                             "compile": site.compile_of(art), "ops": list(counts.items()),
                             "op_count": sum(counts.values()),
                             "inputs": [shape for shape in graph.inputs if shape],
                             "outputs": [by_name[i].shape for i in (output.inputs if output else [])
                                         if by_name[i].shape],
                             "lines": (os.path.basename(row["fn"]["filename"]), lines[0], lines[-1]) if lines
                             else None, "own_ops": len(own)})
    return rows


def _lines_run(site, art, filename, first, last):
    """The lines from ``first`` to ``last`` of ``filename`` that the dumped file of
    ``art`` runs, a node's calling frames included (``site.c_fc(h)``, whose ops sit
    in ``Linear``'s code, is a line of the function too)."""
    wanted = os.path.normcase(os.path.abspath(filename))
    return {line for user_file, line, _ in site.index.get("line_map", {}).get(art["file"], [])
            if user_file == wanted and first <= line <= last}


def totals(site):
    comps = site.index["compiles"]
    stages = {}
    for comp in comps:
        for stage, seconds in site.stages(comp):
            stages[stage] = stages.get(stage, 0.0) + seconds
    caches = [site.cache_counts(c) for c in comps]
    # the counts summary.txt gives (index.json's; a dump from before it had them: counted alike)
    counted = site.index.get("counts") or {
        "graph_breaks": sum(1 for c in comps if c.get("graph_break")),
        "graph_breaks_in_skipped_frames": sum(1 for c in comps if c.get("graph_break") and c.get("skipped")),
        "recompiles": sum(1 for c in comps if c.get("recompile_reasons")),
        "skipped_frames": len(site.index.get("skipped_frames", []))}
    return {"seconds": sum((c.get("times") or {}).get("frame") or 0 for c in comps),
            "stages": [(s, stages[s]) for s, _ in STAGES if s in stages],
            "breaks": counted["graph_breaks"], "breaks_skipping": counted["graph_breaks_in_skipped_frames"],
            "recompiles": counted["recompiles"], "skipped": counted["skipped_frames"],
            "failed": counted.get("failed", 0), "at_limit": counted.get("at_limit", 0),
            "interrupted": counted.get("interrupted", 0),
            "hits": sum(h for h, _ in caches), "misses": sum(m for _, m in caches),
            "cache_looked_up": any(h or m for h, m in caches),
            "unveil_seconds": sum(c.get("unveil_seconds") or 0 for c in comps)}


def chart(site):
    """The compile-time chart's rows: per function (the user's first), each compile's
    stages in seconds; at most ``CHART_ROWS`` rows, the user's always."""
    rows = []
    for package, group in groups(site):
        for row in group:
            for comp in site.compiles_by_function.get(row["fn"]["key"], []):
                seconds = (comp.get("times") or {}).get("frame")
                if seconds is None:
                    continue
                hits, misses = site.cache_counts(comp)
                label = site.compile_label(comp)
                rows.append({"label": "%s %s" % (row["fn"]["label"], label), "cid": label,
                             "user": package is None,
                             "page": site.compile_page(comp), "seconds": seconds, "stages": site.stages(comp),
                             "hits": hits, "misses": misses, "function": row["fn"]["label"]})
    shown = [r for r in rows if r["user"]]
    others = sorted((r for r in rows if not r["user"]), key=lambda r: -r["seconds"])
    shown += others[:max(0, CHART_ROWS - len(shown))]
    left = [r for r in rows if r not in shown]
    shown.sort(key=rows.index)
    scale = max([r["seconds"] for r in shown] or [1.0]) or 1.0
    for r in shown:
        x = 0.0
        r["bars"] = []
        for stage, seconds in r["stages"]:
            r["bars"].append((stage, dict(STAGES)[stage], x / scale, seconds / scale, seconds))
            x += seconds
    drawn = {stage for r in shown for stage, _ in r["stages"]}
    return {"rows": shown, "left": len(left), "left_seconds": sum(r["seconds"] for r in left), "scale": scale,
            "stages": [(stage, color) for stage, color in STAGES if stage in drawn],    # the legend: what is drawn
            "cache": any(r["hits"] or r["misses"] for r in shown)}


def trie(site):
    """The call chains that led to each compile as a trie (as tlparse draws it), over
    the user's frames: the library frames before a user's frame (or before the compile,
    when its own frame is a library's) fold into one item naming their packages."""
    root = {"children": {}, "compiles": []}
    for comp in site.index["compiles"]:
        node, run = root, []
        for frame in comp.get("stack") or []:
            filename, line = site.origin(frame["filename"], frame["line"])
            key = (filename, line, frame["function"])
            if site.is_user(filename):
                node = node["children"].setdefault((tuple(run), key), {"children": {}, "compiles": []})
                run = []
            else:
                run.append(key)
        if run:
            node = node["children"].setdefault((tuple(run), None), {"children": {}, "compiles": []})
        if node is not root:
            node["compiles"].append(comp)
    return _trie_items(site, root)


def _trie_items(site, node):
    items = []
    for (run, key), child in node["children"].items():
        fold = None
        if run:
            frames = [_frame(site, k) for k in run]
            packages = []
            for frame in frames:
                if frame["package"] not in packages:
                    packages.append(frame["package"])
            fold = {"frames": frames, "packages": packages}
        items.append({"fold": fold, "frame": _frame(site, key) if key else None,
                      "compiles": [(c, site.compile_page(c)) for c in child["compiles"]],
                      "children": _trie_items(site, child)})
    return items


def _frame(site, key):
    filename, line, function = key
    return {"filename": filename, "line": line, "function": function, "short": site.short(filename),
            "package": site.package(filename),
            "link": site.source_link(filename, line) if site.is_user(filename) else None}
