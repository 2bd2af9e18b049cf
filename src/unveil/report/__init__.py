"""``unveil report DIR``: a static site over a dump directory, opened from disk with no
server and nothing loaded from outside it (jinja2 templates, pygments highlighting;
the ``[report]`` extra).

``DIR/report/index.html`` lists every function with its compiles, graph breaks,
skipped frames and recompile reasons; a page per function shows its source (from
its file) with each graph break marked at its line, then per compile the break,
the recompile reasons (linked to the failed guard's line) and the dumped files;
a page per dumped file shows it highlighted with numbered, linkable lines, and
links to the graphs and resume functions it calls.  Reads the dump only: no torch.
"""
import json
import os
import re

REPORT_DIR = "report"
_GRAPH_CALL = re.compile(r"\b(__compiled_fn_\d+(?:_[0-9a-f_]{36})?)\b")
_RESUME_CALL = re.compile(r"\b(__resume_at_\d+_\d+)\b")
#: an FX node's statement in a graph file: ``relu: "f32[2, 16]..." = torch.relu(linear)``
_NODE = re.compile(r"^\s+(\w+)(?:: \"[^\"]*\")? = ")
#: the FX nodes Inductor says a kernel call computes (its provenance comment)
_KERNEL_NODES = re.compile(r"^\s*# Topologically Sorted Source Nodes: \[([^\]]*)\]")
_GRAPH_KINDS = ("graph", "aot_forward", "aot_backward", "aot_inference", "aot_joint", "post_grad_graph")
#: a name token in pygments' HTML (strings and comments are other tokens)
_NAME_TOKEN = re.compile(r'<span class="n">(__compiled_fn_\w+|__resume_at_\w+)</span>')


class ReportError(Exception):
    """Not a dump directory, or the report's libraries are missing."""


def build_report(dump_dir, out_dir=None, progress=None):
    """Write the site for ``dump_dir`` into ``out_dir`` (default ``dump_dir/report``);
    return the path of its index page.  ``progress(done, total)`` is called after each
    page."""
    try:
        import jinja2
        import pygments  # noqa: F401
    except ImportError:
        raise ReportError("the report needs jinja2 and pygments: pip install 'unveil[report]'") from None
    try:
        with open(os.path.join(dump_dir, "index.json"), encoding="utf-8") as fh:
            index = json.load(fh)
    except (OSError, ValueError) as exc:
        raise ReportError("%s is not a dump directory (index.json: %s)" % (dump_dir, exc)) from None
    out_dir = out_dir or os.path.join(dump_dir, REPORT_DIR)
    os.makedirs(os.path.join(out_dir, "files"), exist_ok=True)
    env = jinja2.Environment(loader=jinja2.PackageLoader("unveil.report", "templates"),
                             autoescape=jinja2.select_autoescape(["html"]), keep_trailing_newline=True)
    site = _Site(dump_dir, index)
    _write(out_dir, "style.css", _stylesheet())
    total, done = len(index["artifacts"]) + len(index["functions"]) + 1, 0
    for art in index["artifacts"]:
        _write(out_dir, site.file_page(art), env.get_template("file.html").render(
            root="../", art=art, code=site.highlighted(art), calls=site.calls(art), function=site.page_of(art),
            provenance=site.provenance(art)))
        done += 1
        if progress:
            progress(done, total)
    for fn in index["functions"]:
        _write(out_dir, site.function_page(fn), env.get_template("function.html").render(
            root="", fn=fn, source=site.source_of(fn), compiles=site.compiles_of(fn),
            files=site.files_of(fn), resumes=site.resumes_of(fn), beside=site.beside(fn)))
        done += 1
        if progress:
            progress(done, total)
    summary = _read(os.path.join(dump_dir, "summary.txt"))
    _write(out_dir, "index.html", env.get_template("index.html").render(
        root="", index=index, rows=site.rows(), summary=summary))
    if progress:
        progress(total, total)
    return os.path.join(out_dir, "index.html")


def build_diff_page(dump_a, dump_b, lines, out_dir):
    """``out_dir/diff.html``: the difference between two dumps (``unveil diff``'s lines),
    highlighted; return its path."""
    try:
        import jinja2
        from pygments import highlight
        from pygments.formatters import HtmlFormatter
        from pygments.lexers import DiffLexer
    except ImportError:
        raise ReportError("the report needs jinja2 and pygments: pip install 'unveil[report]'") from None
    os.makedirs(out_dir, exist_ok=True)
    env = jinja2.Environment(loader=jinja2.PackageLoader("unveil.report", "templates"),
                             autoescape=jinja2.select_autoescape(["html"]))
    code = highlight("\n".join(lines) + "\n", DiffLexer(), HtmlFormatter(linenos="table", lineanchors="L",
                                                                          anchorlinenos=True)) if lines else ""
    if not os.path.exists(os.path.join(out_dir, "style.css")):
        _write(out_dir, "style.css", _stylesheet())
    _write(out_dir, "diff.html", env.get_template("diff.html").render(
        root="", dump_a=dump_a, dump_b=dump_b, code=code, count=sum(1 for x in lines if x.startswith("+++ ")),
        index=os.path.exists(os.path.join(out_dir, "index.html"))))
    return os.path.join(out_dir, "diff.html")


class _Site:
    def __init__(self, dump_dir, index):
        self.dump_dir = dump_dir
        self.index = index
        self.by_key = {fn["key"]: fn for fn in index["functions"]}
        self.graph_files = {a["graph"]: a for a in index["artifacts"] if a.get("graph")}
        self.by_file = {a["file"]: a for a in index["artifacts"]}

    # -- graph nodes and the kernels that compute them ---------------------------------
    def _lines_of(self, art):
        return (_read(os.path.join(self.dump_dir, art["file"])) or "").splitlines()

    def _compile_files(self, art, kinds):
        return [a for a in self.index["artifacts"] if a["function"] == art["function"]
                and a.get("compile_id") == art.get("compile_id") and a["kind"] in kinds]

    def node_lines(self, art):
        """``{node: [(graph file, line)]}`` for the graphs of ``art``'s compile."""
        out = {}
        for graph in self._compile_files(art, _GRAPH_KINDS):
            for number, line in enumerate(self._lines_of(graph), 1):
                match = _NODE.match(line)
                if match:
                    out.setdefault(match.group(1), []).append((graph, number))
        return out

    def kernel_lines(self, art):
        """``{node: [(Inductor file, line)]}``: where Inductor's code computes each node of
        ``art``'s compile (its provenance comments)."""
        out = {}
        for code in self._compile_files(art, ("inductor_output",)):
            for number, line in enumerate(self._lines_of(code), 1):
                match = _KERNEL_NODES.match(line)
                if match:
                    for node in filter(None, (n.strip() for n in match.group(1).split(","))):
                        out.setdefault(node, []).append((code, number))
        return out

    def provenance(self, art):
        """Rows for a graph or Inductor file's page: (its line, the node(s), [(label, link)])
        linking a node to the kernel lines computing it, and a kernel to its nodes."""
        rows = []
        if art["kind"] in _GRAPH_KINDS:
            kernels = self.kernel_lines(art)
            for number, line in enumerate(self._lines_of(art), 1):
                match = _NODE.match(line)
                if match and match.group(1) in kernels:
                    rows.append((number, match.group(1), [self._link(k, n) for k, n in kernels[match.group(1)]]))
        elif art["kind"] == "inductor_output":
            nodes = self.node_lines(art)
            for number, line in enumerate(self._lines_of(art), 1):
                match = _KERNEL_NODES.match(line)
                if match:
                    names = [n.strip() for n in match.group(1).split(",") if n.strip()]
                    rows.append((number, ", ".join(names), [self._link(g, n) for name in names
                                                            for g, n in nodes.get(name, [])]))
        return rows

    def _link(self, art, line):
        return ("%s:%d" % (art["kind"], line), "%s#L-%d" % (self.file_page(art), line))

    # -- names ------------------------------------------------------------------
    @staticmethod
    def function_page(fn):
        return "function_%s.html" % _slug(fn["key"])

    @staticmethod
    def file_page(art):
        return "files/%s.html" % _slug(art["file"])

    def page_of(self, art):
        fn = self.by_key.get(art["function"])
        return self.function_page(fn) if fn is not None else None

    # -- content ----------------------------------------------------------------
    def highlighted(self, art):
        from pygments import highlight
        from pygments.formatters import HtmlFormatter
        from pygments.lexers import PythonLexer
        text = _read(os.path.join(self.dump_dir, art["file"])) or ""
        code = highlight(text, PythonLexer(), HtmlFormatter(linenos="table", lineanchors="L", anchorlinenos=True))
        targets = self._call_targets(art, text)

        def linked(match):         # a name token pygments marked, for a graph or resume function it calls
            page = targets.get(match.group(1))
            return '<a href="../%s">%s</a>' % (page, match.group(0)) if page else match.group(0)
        return _NAME_TOKEN.sub(linked, code) if targets else code

    def _call_targets(self, art, text):
        """``{global: page}`` for the compiled graphs and resume functions ``text`` names."""
        targets = {}
        for name in set(_GRAPH_CALL.findall(text)):
            target = self.graph_files.get(name)
            if target is not None and target["file"] != art["file"]:
                targets[name] = self.file_page(target)
        for name in set(_RESUME_CALL.findall(text)):
            for fn in self.index["functions"]:
                page = next((self.file_page(a) for a in self.index["artifacts"] if a["function"] == fn["key"]
                             and a["kind"] == "resume_function"), None)
                if page is not None and name in (fn.get("installed_as") or []):
                    targets[name] = page
        return targets

    def calls(self, art):
        """The graphs and resume functions a file names, and the line a resume function
        resumes at, as (label, page) links."""
        text = _read(os.path.join(self.dump_dir, art["file"])) or ""
        links = [("%s %s" % ("graph" if name.startswith("__compiled_fn") else "resume function", name), page)
                 for name, page in sorted(self._call_targets(art, text).items())]
        owner = self.by_key.get(art["function"]) or {}
        parent = self.by_key.get(owner.get("resumes"))
        if art["kind"] == "resume_function" and parent is not None:
            anchor = "#L%s" % art["line"] if self._shows_line(parent, art.get("line")) else ""
            links.append(("resumes %s at line %s" % (parent["name"], art.get("line")),
                          self.function_page(parent) + anchor))
        return links

    def _shows_line(self, fn, line):
        return any(str(row[0]) == str(line) for row in self.source_of(fn))

    def source_of(self, fn):
        """The function's lines from its file, each marked with the graph breaks at it."""
        lines = (_read(fn["filename"]) or "").splitlines()
        first = fn["line"]
        last = min(len(lines), first + _length(lines, first - 1))
        breaks = {}
        for comp in self.index["compiles"]:
            brk = comp.get("graph_break") or {}
            for frame in [brk.get("location")] + (brk.get("user_stack") or []):
                if frame and frame["filename"] == fn["filename"] and first <= frame["line"] <= last:
                    breaks.setdefault(frame["line"], set()).add(brk["reason"])
        became = self._became(fn["filename"])
        return [(n, lines[n - 1], sorted(breaks.get(n, ())), became.get(n, []))
                for n in range(first, last + 1)] if lines else []

    def _became(self, filename):
        """Per line of the user's file: (label, link) of the first dumped line of each run
        that runs it (transformed code, resume functions, graphs)."""
        wanted = os.path.normcase(os.path.abspath(filename))
        out = {}
        for file, rows in sorted(self.index.get("line_map", {}).items()):
            art = self.by_file.get(file)
            if art is None:
                continue
            previous, lines = {}, None
            kernels = self.kernel_lines(art) if art["kind"] in _GRAPH_KINDS else {}
            for user_file, user_line, dumped in rows:
                if user_file == wanted:
                    if previous.get(user_line) != dumped - 1:
                        out.setdefault(user_line, []).append(self._link(art, dumped))
                    previous[user_line] = dumped
                    if kernels:          # and the Inductor lines that compute the node there
                        lines = lines or self._lines_of(art)
                        node = _NODE.match(lines[dumped - 1]) if dumped <= len(lines) else None
                        for link in [self._link(k, n) for k, n in kernels.get(node.group(1), [])] if node else []:
                            if link not in out[user_line]:
                                out[user_line].append(link)
        return out

    def compiles_of(self, fn):
        out = []
        for comp in self.index["compiles"]:
            if comp["function"] != fn["key"]:
                continue
            reasons = []
            for reason in comp.get("recompile_reasons") or []:
                guards = next((a for a in self.index["artifacts"] if a["function"] == fn["key"]
                               and a["kind"] == "guards" and a.get("compile_id") == reason["failed_entry"]), None)
                link = None
                if guards is not None:
                    link = self.file_page(guards) + ("#L-%d" % reason["guard_line"] if reason.get("guard_line") else "")
                reasons.append((reason, link))
            out.append((comp, reasons))
        return out

    def beside(self, fn):
        """The code Dynamo runs for ``fn``, to show beside its source: each compile's
        transformed code and, for a resume function, its own code (highlighted, with links
        to their pages; line anchors are the pages' own)."""
        from pygments import highlight
        from pygments.formatters import HtmlFormatter
        from pygments.lexers import PythonLexer
        out = []
        for art in self.index["artifacts"]:
            if art["function"] == fn["key"] and art["kind"] in ("resume_function", "transformed_code"):
                text = _read(os.path.join(self.dump_dir, art["file"])) or ""
                out.append((art, self.file_page(art), highlight(text, PythonLexer(), HtmlFormatter(linenos="table"))))
        return out

    def files_of(self, fn):
        return [(a, self.file_page(a)) for a in self.index["artifacts"] if a["function"] == fn["key"]]

    def resumes_of(self, fn):
        return [(f, self.function_page(f)) for f in self.index["functions"]
                if f["kind"] == "resume" and f.get("resumes") == fn["key"]]

    def rows(self):
        out = []
        for fn in self.index["functions"]:
            comps = [c for c in self.index["compiles"] if c["function"] == fn["key"]]
            out.append({"fn": fn, "page": self.function_page(fn), "compiles": len(comps),
                        "graphs": sum(1 for a in self.index["artifacts"] if a["function"] == fn["key"]
                                      and a["kind"] == "graph"),
                        "breaks": sum(1 for c in comps if c.get("graph_break")),
                        "skipped": sum(1 for c in comps if c.get("skipped")),
                        "recompiles": sum(1 for c in comps if c.get("recompile_reasons")),
                        "seconds": sum((c.get("times") or {}).get("frame") or 0 for c in comps),
                        "hits": sum(n for c in comps for k, n in (c.get("caches") or {}).items() if k.endswith("hits")),
                        "misses": sum(n for c in comps for k, n in (c.get("caches") or {}).items()
                                      if k.endswith("misses"))})
        return out


def _length(lines, start):
    """How many lines after ``start`` belong to the def there (by indentation; the
    decorators a code object's first line may point at come before it)."""
    if start >= len(lines):
        return 0
    head = start
    while head < len(lines) - 1 and lines[start].lstrip().startswith("@") \
            and not lines[head].lstrip().startswith(("def ", "async def ")):
        head += 1
    indent = len(lines[head]) - len(lines[head].lstrip())
    n = head - start
    for line in lines[head + 1:]:
        if line.strip() and len(line) - len(line.lstrip()) <= indent and not line.lstrip().startswith(")"):
            break
        n += 1
    while n and not lines[start + n].strip():
        n -= 1
    return n


def _slug(text):
    return re.sub(r"[^A-Za-z0-9_.-]", "_", text)


def _read(path):
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            return fh.read()
    except OSError:
        return None


def _write(out_dir, name, text):
    with open(os.path.join(out_dir, name), "w", encoding="utf-8") as fh:
        fh.write(text)


def _stylesheet():
    from pygments.formatters import HtmlFormatter
    return _BASE_CSS + HtmlFormatter().get_style_defs(".highlight")


_BASE_CSS = """body { font-family: sans-serif; margin: 1.5em; }
table.list { border-collapse: collapse; } table.list td, table.list th { border: 1px solid #ccc; padding: 2px 8px; }
pre.source span.break { background: #fdd; } .reason { color: #a00; } .became { font-size: smaller; }
.highlight pre { margin: 0; } td.linenos { color: #888; }
div.side { display: flex; gap: 2em; align-items: flex-start; } div.side > div { flex: 1; min-width: 0; overflow-x: auto; }
"""

__all__ = ["build_report", "build_diff_page", "ReportError"]
