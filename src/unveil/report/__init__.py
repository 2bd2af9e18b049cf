"""``unveil report DIR``: a static site over a dump directory, opened from disk with no
server and nothing loaded from outside it (jinja2 templates, pygments highlighting,
pictures laid out by Graphviz through pydot; the ``[report]`` extra).

``DIR/report/index.html`` shows the user's functions first (libraries' folded under
their package), the compile time per function and compile as a chart, the call chains
that led to each compile (a stack trie) and what happened, in words.  A page per
function draws its compiles, breaks and resume functions as a flow and shows its
source with each graph break at its line beside the code Dynamo made of it; a page
per compile has its guards, graphs, break, recompile reason and timing; a page per
dumped file shows it highlighted with numbered, linkable lines (a graph's also drawn,
each node linked to the user's line and the kernel computing it); a page per source
file the graphs name.  Reads the dump and the source files only: no torch.
"""
import collections
import concurrent.futures
import json
import os
import re
import subprocess
import sys

from . import fxgraph, pictures
from ..dump_index import ran_in, source_path
from .highlighting import highlight as _highlight
from .places import Places

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
#: a library's source page shows the lines links point at with this many lines either side
SOURCE_CONTEXT = 8
#: the compile-time chart draws at most this many compiles (the user's always)
CHART_ROWS = 40
#: the stages of a compile's time, as the chart splits it (from Dynamo's metrics)
STAGES = (("Dynamo", "#4e79a7"), ("AOT Autograd", "#f28e2b"), ("Inductor", "#59a14f"))


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
        ranks = sorted(name for name in (os.listdir(dump_dir) if os.path.isdir(dump_dir) else ())
                       if name.startswith("rank_") and os.path.exists(os.path.join(dump_dir, name, "index.json")))
        if ranks:     # torchrun's: a dump per rank
            raise ReportError("%s holds a dump per rank (%s): unveil report %s" % (
                dump_dir, ", ".join(ranks), os.path.join(dump_dir, ranks[0]))) from None
        raise ReportError("%s is not a dump directory (index.json: %s)" % (dump_dir, exc)) from None
    if not isinstance(index, dict) or not all(isinstance(index.get(k), list)
                                              for k in ("functions", "compiles", "artifacts")):
        raise ReportError("%s is not a dump directory (index.json has no functions, compiles and artifacts)"
                          % dump_dir)
    out_dir = out_dir or os.path.join(dump_dir, REPORT_DIR)
    for folder in ("files", "source"):
        os.makedirs(os.path.join(out_dir, folder), exist_ok=True)
    env = jinja2.Environment(loader=jinja2.PackageLoader("unveil.report", "templates"),
                             autoescape=jinja2.select_autoescape(["html"]), keep_trailing_newline=True)
    env.filters["ticks"] = _ticked_as_code
    site = _Site(dump_dir, index)
    written = set()

    def write(name, text):
        written.add(os.path.normpath(name))
        _write_page(out_dir, name, text)

    write("style.css", _stylesheet())
    total = len(index["artifacts"]) + len(index["functions"]) + len(index["compiles"]) + 1
    done = [0]

    def step():
        done[0] += 1
        if progress:
            progress(done[0], total)

    texts = {a["file"]: site.text_of(a) for a in index["artifacts"]}
    with _Highlighter(sum(map(len, texts.values())) > _PARALLEL_TEXT) as highlighter, \
            concurrent.futures.ThreadPoolExecutor(max_workers=1) as drawing:
        site.highlighter = highlighter
        for name, text in texts.items():
            highlighter.submit(name, text)
        highlighter.start()
        for art in index["artifacts"]:              # parsed here, not beside the drawing: 3.11's ast is
            site.graph_of(art)                      # not safe in two threads at once (SystemError: AST
        #                                             constructor recursion depth mismatch, in CI)
        drawn = drawing.submit(site.draw)           # Graphviz lays out while the pages are written
        write("index.html", env.get_template("index.html").render(     # (it has no highlighted code)
            root="", site=site, index=index, groups=site.groups(), chart=site.chart(), trie=site.trie(),
            graphs=site.graph_rows(), breaks=site.break_rows(), totals=site.totals(),
            dump_rel=os.path.relpath(dump_dir, out_dir).replace(os.sep, "/"),
            diff=os.path.exists(os.path.join(out_dir, "diff.html")), diff_mark=DIFF_MARK, diff_link=DIFF_LINK))
        drawn.result()
        for fn in index["functions"]:
            write(site.function_page(fn), env.get_template("function.html").render(
                root="", site=site, fn=fn, source=site.source_of(fn), compiles=site.compiles_of(fn),
                files=site.files_of(fn), resumes=site.resumes_of(fn), beside=site.beside(fn),
                flow=site.flow_of(fn)))
            step()
        for comp in index["compiles"]:
            write(site.compile_page(comp), env.get_template("compile.html").render(
                root="", site=site, comp=comp, fn=site.by_key.get(comp["function"]), **site.compile_parts(comp)))
            step()
        sources = dict(site.source_pages)           # the pages the links so far asked for
        for filename in sorted(sources):
            site.submit_source(filename)
        for art in index["artifacts"]:
            write(site.file_page(art), env.get_template("file.html").render(
                root="../", site=site, art=art, code=site.highlighted(art), calls=site.calls(art),
                function=site.page_of(art), provenance=site.provenance(art), picture=site.picture_of(art),
                not_drawn=pictures.NOT_DRAWN.get(art["kind"])))
            step()
        for filename, page in sorted(site.source_pages.items()):
            if filename not in sources:
                site.submit_source(filename)
            write(page, env.get_template("source.html").render(
                root="../", site=site, filename=filename, code=highlighter.get(("source", filename)),
                whole=site.is_user(filename)))
    _remove_stale_pages(out_dir, written)
    if progress:
        progress(total, total)
    return os.path.join(out_dir, "index.html")


def _remove_stale_pages(out_dir, written):
    """The pages an earlier build wrote for what this dump no longer has (a function, a
    compile, a file): the pages of functions and compiles, and of files and sources, that
    this build did not write (``diff.html``, which ``unveil diff --html`` may put here, stays)."""
    for folder, kinds in (("", ("function_", "compile_")), ("files", ("",)), ("source", ("",))):
        for name in os.listdir(os.path.join(out_dir, folder)):
            page = os.path.normpath(os.path.join(folder, name))
            if name.endswith(".html") and name.startswith(kinds) and page not in written:
                os.remove(os.path.join(out_dir, page))


#: where a report's index links ``diff.html`` once ``unveil diff --html`` writes it there
DIFF_MARK = "<!-- unveil: diff.html -->"
DIFF_LINK = '<li><a href="diff.html">What differs from another run</a> (unveil diff)</li>'


def build_diff_page(dump_a, dump_b, lines, out_dir):
    """``out_dir/diff.html``: the difference between two dumps (``unveil diff``'s lines),
    highlighted; return its path.  A report's index already there links it."""
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
        _write_page(out_dir, "style.css", _stylesheet())
    _write_page(out_dir, "diff.html", env.get_template("diff.html").render(
        root="", dump_a=dump_a, dump_b=dump_b, code=code, count=sum(1 for x in lines if x.startswith("+++ ")),
        index=os.path.exists(os.path.join(out_dir, "index.html"))))
    index_page = _read(os.path.join(out_dir, "index.html"))
    if index_page is not None and DIFF_MARK in index_page:
        _write_page(out_dir, "index.html", index_page.replace(DIFF_MARK, DIFF_LINK))
    return os.path.join(out_dir, "diff.html")


def _highlight_parts(parts, marked=()):
    """Several ``(text, first line)`` highlighted, one after the other."""
    return "\n".join(_highlight(text, start, marked) for text, start in parts)


#: above this many characters of dumped code, pygments runs in two processes
_PARALLEL_TEXT = 150000
#: a line anchor of pygments' HTML, and a link to one
_ANCHOR = re.compile(r'<a id="L-\d+" name="L-\d+"></a>')
_ANCHOR_LINK = re.compile(r'<a href="#L-')
_LINE_SPAN = re.compile(r'<span id="LS-\d+">')


class _Highlighter:
    """Highlights texts as they are submitted.  With ``parallel`` (pygments takes most of a
    report's time), the texts submitted before ``start`` go to two worker interpreters
    (``highlighting.py`` run as a script, not multiprocessing: the report is often built
    in the process that ran the program, whose ``__main__`` a spawned worker would run
    again and whose threads a forked one would copy); the rest are highlighted here when
    first asked for."""

    def __init__(self, parallel):
        self.parallel = parallel
        self.jobs = {}            # key -> (function, arguments...) until done, then its HTML
        self.shares = []          # [(keys, future of their HTML)]
        self.threads = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        if self.threads is not None:
            self.threads.shutdown()

    def submit(self, key, text=None, parts=None, marked=()):
        """Highlight ``text`` (or ``parts``: ``[(text, first line)]``) under ``key``,
        the lines ``marked`` highlighted."""
        if key not in self.jobs:
            self.jobs[key] = (_highlight_parts, parts, sorted(marked)) if parts is not None \
                else (_highlight, text, 1, sorted(marked))

    def start(self, workers=2):
        """Send what was submitted so far to the workers."""
        keys = [k for k, job in self.jobs.items() if isinstance(job, tuple) and job[0] is _highlight]
        if not self.parallel or not keys:
            return
        shares = [[] for _ in range(workers)]
        for key in sorted(keys, key=lambda k: -len(self.jobs[k][1])):   # the longest first: shares even out
            min(shares, key=lambda share: sum(len(self.jobs[k][1]) for k in share)).append(key)
        self.threads = concurrent.futures.ThreadPoolExecutor(max_workers=workers)
        for share in filter(None, shares):
            texts = [[self.jobs[k][1], self.jobs[k][3]] for k in share]
            self.shares.append((share, self.threads.submit(_highlight_elsewhere, texts)))
            for k in share:
                self.jobs[k] = None

    def get(self, key):
        job = self.jobs[key]
        if job is None:                     # in a worker's share: take the whole share
            share, future = next((s, f) for s, f in self.shares if key in s)
            for k, code in zip(share, future.result()):
                self.jobs[k] = code
            job = self.jobs[key]
        if isinstance(job, tuple):
            job = self.jobs[key] = job[0](*job[1:])
        return job


def _highlight_elsewhere(texts):
    """``[text, marked lines]`` highlighted by a new interpreter running ``highlighting.py``
    as a script (so that it imports pygments only, not unveil)."""
    script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "highlighting.py")
    done = subprocess.run([sys.executable, "-c", "import runpy; runpy.run_path(%r, run_name='__main__')" % script],
                          input=json.dumps(texts).encode(), capture_output=True)
    if done.returncode != 0:
        lines = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise ReportError("highlighting failed in a worker: %s" % (lines[-1] if lines else done.returncode))
    return json.loads(done.stdout.decode("utf-8"))


class _Site:
    def __init__(self, dump_dir, index):
        self.dump_dir = dump_dir
        self.index = index
        self.by_key = {fn["key"]: fn for fn in index["functions"]}
        _label_functions(index["functions"])
        self.graph_files = {a["graph"]: a for a in index["artifacts"] if a.get("graph")}
        self.by_file = {a["file"]: a for a in index["artifacts"]}
        self.places = Places(index.get("program_dir"), [fn["filename"] for fn in index["functions"]])
        self.source_pages = {}          # user file -> its page, for each file a link pointed at
        self._texts, self._graphs, self._ranges, self._origins, self._sources = {}, {}, {}, {}, {}
        self.source_lines = {}          # user file -> the lines links point at
        self.highlighter = None         # a _Highlighter, while the site is written
        self._pictures = {}             # artifact file or ("flow", function key) -> (svg, error)
        self._kernels = {}              # (function, compile id) -> kernel_lines
        self.pictures_missing = None    # why there are no pictures, when there are none
        self.compiles_by_function = {}
        for comp in index["compiles"]:
            self.compiles_by_function.setdefault(comp["function"], []).append(comp)

    # -- reading --------------------------------------------------------------------
    def text_of(self, art):
        if art["file"] not in self._texts:
            self._texts[art["file"]] = _read(os.path.join(self.dump_dir, art["file"])) or ""
        return self._texts[art["file"]]

    def read_source(self, filename):
        """A user's (or library's) source file, read once; None when it cannot be read."""
        if filename not in self._sources:
            self._sources[filename] = _read(source_path(filename, ran_in(self.index)))
        return self._sources[filename]

    def _lines_of(self, art):
        return self.text_of(art).splitlines()

    def graph_of(self, art):
        """The parsed FX graph of a graph artifact (None when it does not parse)."""
        if art["file"] not in self._graphs:
            self._graphs[art["file"]] = fxgraph.parse_graph(self.text_of(art)) if art["kind"] in _GRAPH_KINDS \
                else None
        return self._graphs[art["file"]]

    # -- places -----------------------------------------------------------------------
    def short(self, filename):
        return self.places.short(filename)

    def is_user(self, filename):
        return self.places.is_user(filename)

    def package(self, filename):
        return self.places.package(filename)

    def origin(self, filename, line):
        """A dumped file's line as the user's line that it runs (under ``debug()``, stacks
        and graphs name the dumped files Dynamo traced)."""
        if not filename or os.path.dirname(os.path.abspath(filename)) != os.path.abspath(self.dump_dir):
            return filename, line
        rows = self._origins.get(filename)
        if rows is None:
            rows = self._origins[filename] = {dumped: (user_file, user_line) for user_file, user_line, dumped
                                              in self.index.get("line_map", {}).get(os.path.basename(filename), [])}
        return rows.get(line, (filename, line))

    def source_link(self, filename, line, root=""):
        """The page showing the user's ``filename`` at ``line``: its function's page where a
        function of the dump shows that line, else a page of the whole file."""
        filename, line = self.origin(filename, line)
        for fn in self.index["functions"]:
            if fn["filename"] == filename and fn["kind"] == "function":
                first, last = self._range_of(fn)
                if first <= line <= last:
                    return "%s%s#L%d" % (root, self.function_page(fn), line)
        if self.read_source(filename) is None:
            return None
        page = self.source_pages.setdefault(filename, "source/%s.html" % _slug(self.short(filename).lstrip("./")))
        self.source_lines.setdefault(filename, set()).add(line)
        return "%s%s#L-%d" % (root, page, line)

    def submit_source(self, filename):
        """Highlight a source file links point at: the user's whole, a library's around
        those lines only (``SOURCE_CONTEXT`` lines either side)."""
        text = self.read_source(filename) or ""
        marked = self.source_lines.get(filename, ())
        if self.is_user(filename):
            self.highlighter.submit(("source", filename), text, marked=marked)
            return
        lines = text.splitlines(True)
        parts = []
        for line in sorted(self.source_lines.get(filename, ())):
            first, last = max(1, line - SOURCE_CONTEXT), min(len(lines), line + SOURCE_CONTEXT)
            if parts and first <= parts[-1][1] + 1:
                parts[-1][1] = max(parts[-1][1], last)
            else:
                parts.append([first, last])
        self.highlighter.submit(("source", filename), parts=[("".join(lines[a - 1:b]), a) for a, b in parts],
                                marked=marked)

    # -- graph nodes and the kernels that compute them ---------------------------------
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

    @staticmethod
    def compile_page(comp):
        return "compile_%s_%s.html" % (_slug(comp["function"]), comp["compile_id"].replace("/", "_"))

    def page_of(self, art):
        fn = self.by_key.get(art["function"])
        return self.function_page(fn) if fn is not None else None

    def compile_graphs(self, art):
        """The other drawn graphs of ``art``'s compile, as ``(artifact, page)``."""
        return [(a, self.file_page(a)) for a in self._compile_files(art, _GRAPH_KINDS)
                if a["kind"] not in pictures.NOT_DRAWN]

    def compile_of(self, art):
        return next((c for c in self.compiles_by_function.get(art["function"], [])
                     if c["compile_id"] == art.get("compile_id")), None)

    # -- content ----------------------------------------------------------------
    def highlighted(self, art):
        code = self.highlighter.get(art["file"])
        targets = self._call_targets(art, self.text_of(art))

        def linked(match):         # a name token pygments marked, for a graph or resume function it calls
            page = targets.get(match.group(1))
            return '<a href="../%s">%s</a>' % (page, match.group(0)) if page else match.group(0)
        return _NAME_TOKEN.sub(linked, code) if targets else code

    def embedded(self, art):
        """The file's code to show inside another page: no line anchors of its own, line
        numbers linking to the file's page."""
        code = _LINE_SPAN.sub("<span>", _ANCHOR.sub("", self.highlighter.get(art["file"])))
        return _ANCHOR_LINK.sub('<a href="%s#L-' % self.file_page(art), code)

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
        links = [("%s %s" % ("graph" if name.startswith("__compiled_fn") else "resume function", name), page)
                 for name, page in sorted(self._call_targets(art, self.text_of(art)).items())]
        owner = self.by_key.get(art["function"]) or {}
        parent = self.by_key.get(owner.get("resumes"))
        if art["kind"] == "resume_function" and parent is not None:
            anchor = "#L%s" % art["line"] if self._shows_line(parent, art.get("line")) else ""
            links.append(("resumes %s at line %s" % (parent["name"], art.get("line")),
                          self.function_page(parent) + anchor))
        return links

    def _shows_line(self, fn, line):
        first, last = self._range_of(fn)
        return isinstance(line, int) and first <= line <= last

    def _range_of(self, fn):
        """The lines of ``fn``'s file its page shows: ``(first, last)``."""
        if fn["key"] not in self._ranges:
            lines = (self.read_source(fn["filename"]) or "").splitlines()
            if fn.get("source_lines") and lines:    # the lines it runs (a resume function's: from its break on)
                first, last = fn["source_lines"][0], min(len(lines), fn["source_lines"][1])
            else:
                first = fn["line"]
                last = min(len(lines), first + _length(lines, first - 1)) if lines else first - 1
            self._ranges[fn["key"]] = (first, last)
        return self._ranges[fn["key"]]

    def source_of(self, fn):
        """The function's lines from its file, each marked with the graph breaks at it."""
        lines = (self.read_source(fn["filename"]) or "").splitlines()
        first, last = self._range_of(fn)
        breaks = {}
        for comp in self.index["compiles"]:
            brk = comp.get("graph_break") or {}
            for frame in [brk.get("location")] + self._traced(comp, brk.get("user_stack") or []):
                if frame and frame["filename"] == fn["filename"] and first <= frame["line"] <= last:
                    breaks.setdefault(frame["line"], set()).add(brk["reason"])
        became = self._became(fn["filename"])
        return [(n, lines[n - 1], sorted(breaks.get(n, ())), became.get(n, []))
                for n in range(first, last + 1)] if lines else []

    def _traced(self, comp, stack):
        """The frames of a graph break's ``stack`` (outermost first) that ``comp`` traced:
        its own frame and those it inlined, not the frames that called it (a break in a
        resume function of ``mlp.forward`` is no break at the line of the block that
        called the MLP, unless the block's own compile inlined that call)."""
        names, fn = set(), self.by_key.get(comp["function"])
        filename = fn["filename"] if fn else None
        while fn is not None and len(names) < 100:
            names.add(fn["name"])      # (a resume function's frame bears the name of the function it resumes)
            fn = self.by_key.get(fn.get("resumes"))
        own = [k for k, frame in enumerate(stack) if frame and frame["filename"] == filename
               and frame.get("function") in names]
        return stack[own[-1]:] if own else stack

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

    def recompile_reasons(self, comp, root=""):
        """``[(reason, link to the failed guard's line)]``."""
        reasons = []
        for reason in comp.get("recompile_reasons") or []:
            guards = next((a for a in self.index["artifacts"] if a["function"] == comp["function"]
                           and a["kind"] == "guards" and a.get("compile_id") == reason["failed_entry"]), None)
            link = None
            if guards is not None:
                link = root + self.file_page(guards) + ("#L-%d" % reason["guard_line"] if reason.get("guard_line")
                                                        else "")
            reasons.append((reason, link))
        return reasons

    def compiles_of(self, fn):
        return [(comp, self.recompile_reasons(comp)) for comp in self.compiles_by_function.get(fn["key"], [])]

    def beside(self, fn):
        """The code Dynamo runs for ``fn``, to show beside its source: each compile's
        transformed code and, for a resume function, its own code (highlighted, with links
        to their pages; line anchors are the pages' own)."""
        return [(art, self.file_page(art), self.embedded(art)) for art in self.index["artifacts"]
                if art["function"] == fn["key"] and art["kind"] in ("resume_function", "transformed_code")]

    def files_of(self, fn):
        return [(a, self.file_page(a)) for a in self.index["artifacts"] if a["function"] == fn["key"]]

    def resumes_of(self, fn):
        return [(f, self.function_page(f)) for f in self.index["functions"]
                if f["kind"] == "resume" and f.get("resumes") == fn["key"]]

    # -- compile pages ---------------------------------------------------------------
    def compile_parts(self, comp):
        arts = [a for a in self.index["artifacts"] if a["function"] == comp["function"]
                and a.get("compile_id") == comp["compile_id"]]
        graphs = [(a, self.file_page(a), self._from_root(self.picture_of(a), a), self.graph_of(a))
                  for a in arts if a["kind"] == "graph"]
        return {"arts": [(a, self.file_page(a)) for a in arts], "graphs": graphs,
                "guards": [(a, self.file_page(a), self.embedded(a)) for a in arts if a["kind"] == "guards"],
                "transformed": [(a, self.file_page(a), self.embedded(a)) for a in arts
                                if a["kind"] == "transformed_code"],
                "reasons": self.recompile_reasons(comp), "stages": self.stages(comp),
                "resumes": [(self.by_key[k], self.function_page(self.by_key[k])) for k in comp.get("resume_functions")
                            or [] if k in self.by_key],
                "stack": self.folded(comp.get("stack") or [])}

    def folded(self, frames):
        """Stack frames with each run of library frames folded: ``[{"frame": frame}]`` or
        ``[{"fold": [frames], "packages": [names]}]``, outermost first."""
        out = []
        for frame in frames:
            filename = self.origin(frame["filename"], frame["line"])[0]
            if self.is_user(filename):
                out.append({"frame": frame, "link": self.source_link(frame["filename"], frame["line"])})
                continue
            if not out or "fold" not in out[-1]:
                out.append({"fold": [], "packages": []})
            out[-1]["fold"].append(frame)
            if self.package(filename) not in out[-1]["packages"]:
                out[-1]["packages"].append(self.package(filename))
        return out

    @staticmethod
    def stages(comp):
        """``[(stage, seconds)]``: Dynamo (the frame's time less the backend's), AOT
        Autograd (the backend's less Inductor's) and Inductor, as far as the metrics
        say; a stage that took no time is left out."""
        times = comp.get("times") or {}
        frame, backend, inductor = (times.get(k) for k in ("frame", "backend", "inductor"))
        if frame is None:
            return []
        backend = min(backend or 0.0, frame)
        inductor = min(inductor or 0.0, backend)
        out = [("Dynamo", frame - backend), ("AOT Autograd", backend - inductor), ("Inductor", inductor)]
        return [(stage, seconds) for stage, seconds in out if seconds > 0]

    @staticmethod
    def cache_counts(comp):
        caches = comp.get("caches") or {}
        return (sum(n for k, n in caches.items() if k.endswith("hits")),
                sum(n for k, n in caches.items() if k.endswith("misses")))

    # -- pictures ---------------------------------------------------------------------
    def draw(self):
        """Lay out every picture (graphs, flows) with Graphviz; without it, say why."""
        try:
            pictures.check_tools()
        except pictures.Missing as exc:
            self.pictures_missing = str(exc)
            return
        keys, dots = [], []
        for art in self.index["artifacts"]:
            graph = self.graph_of(art)
            if graph is None or not graph.nodes or art["kind"] in pictures.NOT_DRAWN:
                continue
            if len(graph) > pictures.MAX_NODES:
                self._pictures[art["file"]] = (None, "%d nodes: too many to draw (at most %d); the code is below"
                                               % (len(graph), pictures.MAX_NODES))
                continue
            keys.append(art["file"])
            dots.append(pictures.graph_picture(graph, lambda node, art=art: self._node_links(art, node)))
        for fn in self.index["functions"]:
            if fn["kind"] == "function" or fn.get("resumes") not in self.by_key:
                keys.append(("flow", fn["key"]))
                dots.append(pictures.flow_picture(self._flow_steps(fn)))
        for key, result in zip(keys, pictures.render(dots)):
            self._pictures[key] = pictures.legible(result) if key[0] == "flow" else result
        for fn in self.index["functions"]:          # a resume function's flow is its first function's
            root = fn
            while root.get("resumes") in self.by_key and root["kind"] == "resume":
                root = self.by_key[root["resumes"]]
            self._pictures.setdefault(("flow", fn["key"]), self._pictures.get(("flow", root["key"])))

    def picture_of(self, art):
        return self._pictures.get(art["file"])

    def _from_root(self, picture, art):
        """A graph's picture (made for its file's page, in ``files/``) for a page at the
        report's root: its links rebased."""
        if not picture or not picture[0]:
            return picture
        svg = picture[0].replace('xlink:href="../', 'xlink:href="')
        return svg.replace('xlink:href="#', 'xlink:href="%s#' % self.file_page(art)), picture[1]

    def flow_of(self, fn):
        return self._pictures.get(("flow", fn["key"]))

    def _node_links(self, art, node):
        links = {"code": "#L-%d" % node.line, "kernels": [], "user": False}
        if node.source is not None:
            filename, line = self.origin(node.source[0], node.source[1])
            target = self.source_link(filename, line, root="../")
            links["user"] = self.is_user(filename)
            if target:
                links["source"] = ("%s:%d" % (os.path.basename(filename), line), target,
                                   "%s:%d: %s" % (self.short(filename), line, node.source[2]))
        key = (art["function"], art.get("compile_id"))
        if key not in self._kernels:
            self._kernels[key] = self.kernel_lines(art)
        links["kernels"] = [("kernel, line %d" % n, "../%s#L-%d" % (self.file_page(k), n))
                            for k, n in self._kernels[key].get(node.name, [])]
        return links

    def _flow_steps(self, fn):
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
                lines = ["resume function", _shorten(f["name"], 44), "goes on %s line %s" % (
                    "after the call in" if (f.get("continues") or {}).get("after_call") else "at", f["line"])]
                cont = f.get("continues") or {}
                if cont.get("branch"):              # one side of a data-dependent ``if``
                    lines.append("where `%s` %s" % (_shorten((cont["branch"].get("source") or "if").strip(), 30),
                                                    "holds" if cont["branch"].get("condition_holds") else
                                                    "does not hold"))
                if cont.get("source"):
                    lines.append(_shorten(cont["source"].strip(), 40))
                steps.append(("node", ident, lines, self.function_page(f), "resume"))
            else:
                steps.append(("node", ident, [f["label"], "%s:%s" % (self.short(f["filename"]), f["line"])],
                              self.function_page(f), "function"))
            comps = self.compiles_by_function.get(f["key"], [])
            entries = [c for c in comps if c["compiled"]][::-1]        # Dynamo tries the newest first
            previous = ident
            for number, comp in enumerate(entries):
                cid = "c" + _slug(comp["compile_id"]).replace(".", "_")
                steps.append(("node", cid, self._compile_label(comp), self.compile_page(comp), "compiled"))
                if number == 0:
                    steps.append(("edge", previous, cid, ["each call"], None, "call"))
                else:
                    steps.append(("edge", previous, cid, ["its guards fail"], None, "fail"))
                previous = cid
            for comp in comps:
                if comp["compiled"]:
                    continue
                cid = "c" + _slug(comp["compile_id"]).replace(".", "_")
                steps.append(("node", cid, self._compile_label(comp), self.compile_page(comp),
                              "skipped" if comp.get("skipped") or comp.get("failed") else "nocode"))
                steps.append(("edge", ident, cid, ["compiled"], None, "call"))
            for comp in comps:
                brk = comp.get("graph_break") or {}
                for key in comp.get("resume_functions") or []:
                    if key not in self.by_key:
                        continue
                    rid = visit(self.by_key[key])
                    where = brk.get("location")
                    label = ["graph break at %s" % short_line(where), _shorten(brk.get("reason") or "", 48)]
                    url = self.source_link(where["filename"], where["line"]) if where else None
                    steps.append(("edge", "c" + _slug(comp["compile_id"]).replace(".", "_"), rid, label, url,
                                  "break"))
            return ident
        visit(fn)
        return steps

    def _compile_label(self, comp):
        lines = ["compile %s" % comp["compile_id"]]
        if comp.get("skipped") or comp.get("failed"):
            why = (comp.get("skipped") or comp.get("failed"))
            because = why.get("because") or {}
            lines += ["skipped: runs as it is" if comp.get("skipped") else "failed",
                      _shorten(because.get("reason") or why.get("reason") or "", 48)]
        elif comp.get("at_limit"):
            lines += ["not compiled: recompile limit", "its entries still run"]
        elif not comp["compiled"]:
            lines.append("no graph: runs as it is")
        else:
            graphs = [self.graph_of(a) for a in self.index["artifacts"] if a["function"] == comp["function"]
                      and a.get("compile_id") == comp["compile_id"] and a["kind"] == "graph"]
            nodes = sum(len([n for n in g.nodes if n.kind == "call"]) for g in graphs if g is not None)
            lines.append("%s, %d ops" % (_plural(len(graphs), "graph"), nodes) if graphs else "no graph")
            if comp.get("graph_break"):
                lines.append("ends at a graph break")
        seconds = (comp.get("times") or {}).get("frame")
        if seconds is not None:
            lines.append("%.2f s to compile" % seconds)
        for reason in (comp.get("recompile_reasons") or [])[:1]:
            lines.append("made when %s's guard failed:" % reason["failed_entry"])
            lines.append(_shorten(reason["guard"], 48))
        return lines

    # -- the index ----------------------------------------------------------------------
    def ordered(self):
        """The functions, each followed by the resume functions made at its breaks."""
        out, seen = [], set()

        def add(fn, depth):
            if fn["key"] in seen:
                return
            seen.add(fn["key"])
            out.append((fn, depth))
            for child in self.index["functions"]:
                if child["kind"] == "resume" and child.get("resumes") == fn["key"]:
                    add(child, depth + 1)
        for fn in self.index["functions"]:
            if fn["kind"] != "resume" or fn.get("resumes") not in self.by_key:
                add(fn, 0)
        for fn in self.index["functions"]:
            add(fn, 0)
        return out

    def groups(self):
        """``[(package or None, rows)]``: the user's functions first, then each library's."""
        groups = {}
        for fn, depth in self.ordered():
            row = self.row(fn)
            row["depth"] = depth
            groups.setdefault(self.package(fn["filename"]), []).append(row)
        user = groups.pop(None, [])
        libraries = sorted(groups.items(), key=lambda item: -sum(r["seconds"] for r in item[1]))
        return [(None, user)] + libraries

    def row(self, fn):
        comps = self.compiles_by_function.get(fn["key"], [])
        counts = [self.cache_counts(c) for c in comps]
        return {"fn": fn, "page": self.function_page(fn), "compiles": len(comps),
                "graphs": sum(1 for a in self.index["artifacts"] if a["function"] == fn["key"] and a["kind"] == "graph"),
                "breaks": sum(1 for c in comps if c.get("graph_break")),
                "skipped": sum(1 for c in comps if c.get("skipped")),
                "recompiles": sum(1 for c in comps if c.get("recompile_reasons")),
                "seconds": sum((c.get("times") or {}).get("frame") or 0 for c in comps),
                "hits": sum(h for h, _ in counts), "misses": sum(m for _, m in counts)}

    @staticmethod
    def op_counts(graph):
        """``{op: how many nodes}``, in the graph's order: what it computes, first to last."""
        counts = {}
        for node in graph.nodes:
            if node.kind == "call":
                op = node.op.split(" ")[0]          # ``getitem [0]``: getitem
                counts[op] = counts.get(op, 0) + 1
        return counts

    def graphs_of(self, comp):
        """``[(page, number of ops, its ops in words)]`` for each Dynamo graph of ``comp``."""
        out = []
        for art in self.index["artifacts"]:
            if art["function"] == comp["function"] and art.get("compile_id") == comp["compile_id"] \
                    and art["kind"] == "graph" and self.graph_of(art) is not None:
                counts = self.op_counts(self.graph_of(art))
                words = ", ".join(op + ("\u00d7%d" % n if n > 1 else "") for op, n in list(counts.items())[:12])
                out.append((self.file_page(art), sum(counts.values()), words + (", \u2026" if len(counts) > 12 else "")))
        return out

    def break_rows(self):
        """Where the graphs broke, for the index: one row per place and reason, with the
        line's code, a hint and the compiles that broke there (the user's places first)."""
        rows = {}
        for comp in self.index["compiles"]:
            brk = comp.get("graph_break")
            if not brk:
                continue
            where = brk.get("location") or {}
            key = (where.get("filename"), where.get("line"), brk.get("reason"))
            if key not in rows:
                code = None
                if where.get("filename") and where.get("line"):
                    lines = (self.read_source(where["filename"]) or "").splitlines()
                    code = lines[where["line"] - 1].strip() if 0 < where["line"] <= len(lines) else None
                rows[key] = {"break": brk, "location": where or None, "code": code, "compiles": [],
                             "user": bool(where.get("filename")) and self.is_user(where["filename"]),
                             "via": self._via(brk)}
            rows[key]["compiles"].append((comp, self.compile_page(comp)))
        return sorted(rows.values(), key=lambda r: (not r["user"], -len(r["compiles"])))

    def _via(self, brk):
        """The two frames just outside a break's place that are not torch's own, outermost
        first: a model's layer calling the hook that broke, say (torch's module-call frames
        between them left out)."""
        outer = (brk.get("user_stack") or [])[:-1]
        return [f for f in outer if self.package(self.origin(f["filename"], f["line"])[0]) != "torch"][-2:]

    def graph_rows(self):
        """What each Dynamo graph computes, for the index: ``{art, page, compile, fn, ops:
        [(op, count)], inputs, outputs, lines}`` (the user's functions' graphs first)."""
        rows = []
        for package, group in self.groups():
            for row in group:
                for art in self.index["artifacts"]:
                    if art["function"] != row["fn"]["key"] or art["kind"] != "graph":
                        continue
                    graph = self.graph_of(art)
                    if graph is None:
                        continue
                    counts = self.op_counts(graph)
                    by_name = {n.name: n for n in graph.nodes}
                    output = next((n for n in graph.nodes if n.kind == "output"), None)
                    first, last = row["fn"].get("source_lines") or (0, float("inf"))
                    own = [n for n in graph.nodes if n.kind == "call" and n.source
                           and n.source[0] == row["fn"]["filename"] and first <= n.source[1] <= last]
                    lines = sorted({n.source[1] for n in own} | self._lines_run(art, row["fn"]["filename"], first, last))
                    rows.append({"art": art, "page": self.file_page(art), "fn": row["fn"], "user": package is None,
                                 "compile": self.compile_of(art), "ops": list(counts.items()),
                                 "op_count": sum(counts.values()),
                                 "inputs": [n.shape for n in graph.nodes if n.kind == "placeholder" and n.shape],
                                 "outputs": [by_name[i].shape for i in (output.inputs if output else [])
                                             if by_name[i].shape],
                                 "lines": (os.path.basename(row["fn"]["filename"]), lines[0], lines[-1]) if lines
                                 else None, "own_ops": len(own)})
        return rows

    def _lines_run(self, art, filename, first, last):
        """The lines from ``first`` to ``last`` of ``filename`` that the dumped file of
        ``art`` runs, a node's calling frames included (``self.c_fc(h)``, whose ops sit
        in ``Linear``'s code, is a line of the function too)."""
        wanted = os.path.normcase(os.path.abspath(filename))
        return {line for user_file, line, _ in self.index.get("line_map", {}).get(art["file"], [])
                if user_file == wanted and first <= line <= last}

    def totals(self):
        comps = self.index["compiles"]
        stages = {}
        for comp in comps:
            for stage, seconds in self.stages(comp):
                stages[stage] = stages.get(stage, 0.0) + seconds
        caches = [self.cache_counts(c) for c in comps]
        # the counts summary.txt gives (index.json's; a dump from before it had them: counted alike)
        counted = self.index.get("counts") or {
            "graph_breaks": sum(1 for c in comps if c.get("graph_break")),
            "graph_breaks_in_skipped_frames": sum(1 for c in comps if c.get("graph_break") and c.get("skipped")),
            "recompiles": sum(1 for c in comps if c.get("recompile_reasons")),
            "skipped_frames": len(self.index.get("skipped_frames", []))}
        return {"seconds": sum((c.get("times") or {}).get("frame") or 0 for c in comps),
                "stages": [(s, stages[s]) for s, _ in STAGES if s in stages],
                "breaks": counted["graph_breaks"], "breaks_skipping": counted["graph_breaks_in_skipped_frames"],
                "recompiles": counted["recompiles"], "skipped": counted["skipped_frames"],
                "hits": sum(h for h, _ in caches), "misses": sum(m for _, m in caches),
                "cache_looked_up": any(h or m for h, m in caches),
                "unveil_seconds": sum(c.get("unveil_seconds") or 0 for c in comps)}

    def chart(self):
        """The compile-time chart's rows: per function (the user's first), each compile's
        stages in seconds; at most ``CHART_ROWS`` rows, the user's always."""
        rows = []
        for package, group in self.groups():
            for row in group:
                for comp in self.compiles_by_function.get(row["fn"]["key"], []):
                    seconds = (comp.get("times") or {}).get("frame")
                    if seconds is None:
                        continue
                    hits, misses = self.cache_counts(comp)
                    rows.append({"label": "%s %s" % (row["fn"]["label"], comp["compile_id"]), "cid": comp["compile_id"],
                                 "user": package is None,
                                 "page": self.compile_page(comp), "seconds": seconds, "stages": self.stages(comp),
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

    def trie(self):
        """The call chains that led to each compile as a trie (as tlparse draws it), over
        the user's frames: the library frames before a user's frame (or before the compile,
        when its own frame is a library's) fold into one item naming their packages."""
        root = {"children": {}, "compiles": []}
        for comp in self.index["compiles"]:
            node, run = root, []
            for frame in comp.get("stack") or []:
                filename, line = self.origin(frame["filename"], frame["line"])
                key = (filename, line, frame["function"])
                if self.is_user(filename):
                    node = node["children"].setdefault((tuple(run), key), {"children": {}, "compiles": []})
                    run = []
                else:
                    run.append(key)
            if run:
                node = node["children"].setdefault((tuple(run), None), {"children": {}, "compiles": []})
            if node is not root:
                node["compiles"].append(comp)
        return self._trie_items(root)

    def _trie_items(self, node):
        items = []
        for (run, key), child in node["children"].items():
            fold = None
            if run:
                frames = [self._frame(k) for k in run]
                packages = []
                for frame in frames:
                    if frame["package"] not in packages:
                        packages.append(frame["package"])
                fold = {"frames": frames, "packages": packages}
            items.append({"fold": fold, "frame": self._frame(key) if key else None,
                          "compiles": [(c, self.compile_page(c)) for c in child["compiles"]],
                          "children": self._trie_items(child)})
        return items

    def _frame(self, key):
        filename, line, function = key
        return {"filename": filename, "line": line, "function": function, "short": self.short(filename),
                "package": self.package(filename),
                "link": self.source_link(filename, line) if self.is_user(filename) else None}



def _plural(n, noun):
    return "%d %s%s" % (n, noun, "" if n == 1 else "s")


def _shorten(text, limit):
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[:limit - 1] + "\u2026"


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


def _write_page(out_dir, name, text):
    with open(os.path.join(out_dir, name), "w", encoding="utf-8") as fh:
        fh.write(text)


def _ticked_as_code(text):
    """Dynamo's words (a reason, an explanation, a hint) as HTML: what it quotes in
    backticks (``Call to `torch._dynamo.graph_break()` ``) as code."""
    import markupsafe
    escaped = str(markupsafe.escape("" if text is None else text))
    return markupsafe.Markup(re.sub(r"`([^`]+)`", r"<code>\1</code>", escaped))


def _stylesheet():
    from pygments.formatters import HtmlFormatter
    with open(os.path.join(os.path.dirname(__file__), "templates", "style.css"), encoding="utf-8") as fh:
        return fh.read() + HtmlFormatter().get_style_defs(".highlight")


__all__ = ["build_report", "build_diff_page", "ReportError"]


def _label_functions(functions):
    """Each function's ``label``, what the report calls it: its qualified name, or where
    two share one (the two resume functions of a data-dependent branch, made at the same
    line), its key, as summary.txt names it."""
    counts = collections.Counter(fn["qualname"] for fn in functions)
    for fn in functions:
        fn["label"] = fn["qualname"] if counts[fn["qualname"]] == 1 else fn["key"]
