"""A dump as the report reads it (:class:`Site`): its texts, parsed graphs and the user's
sources, read once; each page's name; the links between the dumped files, the graphs'
nodes, the kernels that compute them and the user's lines; the graphs' and flows'
pictures.  Reads the dump and the source files only: no torch."""
import collections
import os
import re

from . import flows, fxgraph, kernels, pictures
from ..dump_index import compile_key, label_of, ran_in, reason_notes, source_path, told_restarts
from ..volatile import without_ids
from .places import Places
from .words import def_length, read_text, slug

_GRAPH_CALL = re.compile(r"\b(__compiled_fn_\d+(?:_[0-9a-f_]{36})?)\b")
_RESUME_CALL = re.compile(r"\b(__resume_at_\d+_\d+)\b")
#: an FX node's statement in a graph file: ``relu: "f32[2, 16]..." = torch.relu(linear)``
_NODE = re.compile(r"^\s+(\w+)(?:: \"[^\"]*\")? = ")
_GRAPH_KINDS = ("graph", "aot_forward", "aot_backward", "aot_inference", "aot_joint", "post_grad_graph")
#: a name token in pygments' HTML (strings and comments are other tokens)
_NAME_TOKEN = re.compile(r'<span class="n">(__compiled_fn_\w+|__resume_at_\w+)</span>')
#: a library's source page shows the lines links point at with this many lines either side
SOURCE_CONTEXT = 8
#: a line anchor of pygments' HTML, and a link to one
_ANCHOR = re.compile(r'<a id="L-\d+" name="L-\d+"></a>')
_ANCHOR_LINK = re.compile(r'<a href="#L-')
_LINE_SPAN = re.compile(r'<span id="LS-\d+">')


class Site:
    """A dump as the report's pages read it: its texts, parsed graphs and the user's sources,
    read once; the pages' names and the links between them; the graphs' pictures."""

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
        self.highlighter = None         # a highlight_jobs.Highlighter, while the site is written
        self._pictures = {}             # artifact file or ("flow", function key) -> (svg, error)
        self._kernels = {}              # graph file -> kernel_lines
        self._computed = {}             # Inductor file -> computed_graphs
        self.pictures_missing = None    # why there are no pictures, when there are none
        self.compiles_by_function = {}
        for comp in index["compiles"]:
            self.compiles_by_function.setdefault(comp["function"], []).append(comp)

    # -- reading --------------------------------------------------------------------
    def text_of(self, art):
        if art["file"] not in self._texts:
            self._texts[art["file"]] = read_text(os.path.join(self.dump_dir, art["file"])) or ""
        return self._texts[art["file"]]

    def read_source(self, filename):
        """A user's (or library's) source file, read once; None when it cannot be read."""
        if filename not in self._sources:
            self._sources[filename] = read_text(source_path(filename, ran_in(self.index)))
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
        page = self.source_pages.get(filename) or self._new_source_page(filename)
        self.source_lines.setdefault(filename, set()).add(line)
        return "%s%s#L-%d" % (root, page, line)

    def _new_source_page(self, filename):
        """A page of its own for a source file: two files whose short names are alike (a
        library's, and the same library's in another environment, which a compiled graph's
        comment names) get ``X.py.html`` and ``X.py_2.html``; one page for both showed the
        lines of one, and the other's links pointed at lines it lacked."""
        base = "source/%s" % slug(self.short(filename).lstrip("./"))
        taken = set(self.source_pages.values())
        page, n = base + ".html", 2
        while page in taken:
            page, n = "%s_%d.html" % (base, n), n + 1
        self.source_pages[filename] = page
        return page

    def source_key(self, filename):
        """The highlighter's key of a source file's page as the links so far ask for it: one
        more line linked to (from a page written after the file was first submitted) is
        another page, of more of a library's lines."""
        return "source", filename, tuple(sorted(self.source_lines.get(filename, ())))

    def submit_source(self, filename):
        """Highlight a source file links point at: the user's whole, a library's around
        those lines only (``SOURCE_CONTEXT`` lines either side)."""
        text = self.read_source(filename) or ""
        marked = self.source_lines.get(filename, ())
        if self.is_user(filename):
            self.highlighter.submit(self.source_key(filename), text, marked=marked)
            return
        lines = text.splitlines(True)
        parts = []
        for line in sorted(self.source_lines.get(filename, ())):
            first, last = max(1, line - SOURCE_CONTEXT), min(len(lines), line + SOURCE_CONTEXT)
            if parts and first <= parts[-1][1] + 1:
                parts[-1][1] = max(parts[-1][1], last)
            else:
                parts.append([first, last])
        self.highlighter.submit(self.source_key(filename), parts=[("".join(lines[a - 1:b]), a) for a, b in parts],
                                marked=marked)

    # -- graph nodes and the kernels that compute them ---------------------------------
    def compile_files(self, entry, kinds=None):
        """The artifacts of the compile ``entry`` names (an entry of ``compiles``, or an
        artifact of that compile) of the given ``kinds`` (all, without them)."""
        return [a for a in self.index["artifacts"] if compile_key(a) == compile_key(entry)
                and (kinds is None or a["kind"] in kinds)]

    def computed_graphs(self, code):
        """``[(graph artifact, [(call line, [node])])]``: the graphs whose nodes the kernel
        calls of Inductor file ``code`` compute (:mod:`kernels`), the post-grad graph it was
        made from and Dynamo's: Inductor's node comment names the nodes of Dynamo's graph in
        forward or inference code, the backward graph's in backward code, and neither where
        the dump does not say which code it is; its provenance handles name both exactly."""
        if code["file"] not in self._computed:
            calls = kernels.kernel_calls(self.text_of(code))
            post_grad = self.by_file.get(code.get("post_grad_graph"))
            dynamo = self.graph_files.get(code.get("made_from"))
            made_for = self._made_for(code, post_grad)
            out = []
            if post_grad is not None:
                out.append((post_grad, kernels.nodes_computed(calls, code.get("kernel_post_grad_nodes") or {},
                                                              made_for == "aot_backward")))
            if dynamo is not None:
                out.append((dynamo, kernels.nodes_computed(calls, code.get("kernel_nodes") or {},
                                                           kernels.computes_forward(made_for))))
            self._computed[code["file"]] = out
        return self._computed[code["file"]]

    def _made_for(self, code, post_grad):
        """The AOT graph kind Inductor file ``code`` was made for (:func:`kernels.made_for`)."""
        graph = self.graph_of(post_grad) if post_grad is not None else None
        if graph is None:
            return None
        aot = [(a["kind"], self.graph_of(a).parameters) for a in self.compile_files(code, kernels.MADE_FOR)
               if a.get("made_from") == code.get("made_from") and self.graph_of(a) is not None]
        return kernels.made_for(graph.parameters, aot)

    def kernel_lines(self, art):
        """``{node: [(Inductor file, line)]}``: the kernel calls that compute each node of
        graph ``art`` (:meth:`computed_graphs`)."""
        if art["file"] not in self._kernels:
            out = self._kernels[art["file"]] = {}
            for code in self.compile_files(art, ("inductor_output",)):
                for graph, calls in self.computed_graphs(code):
                    for number, nodes in calls if graph["file"] == art["file"] else ():
                        for node in nodes:
                            out.setdefault(node, []).append((code, number))
        return self._kernels[art["file"]]

    def _statement_lines(self, graph):
        """``{node: line}``: the line of each node's statement in a graph file."""
        out = {}
        for number, line in enumerate(self._lines_of(graph), 1):
            match = _NODE.match(line)
            if match:
                out.setdefault(match.group(1), number)
        return out

    def provenance(self, art):
        """Rows for a graph or Inductor file's page: (its line, the node(s), [(label, link)])
        linking a node to the kernel lines computing it, and a kernel to its nodes."""
        if art["kind"] in _GRAPH_KINDS:
            kernel_lines = self.kernel_lines(art)
            return [(number, node, [self._link(k, n) for k, n in kernel_lines[node]])
                    for node, number in sorted(self._statement_lines(art).items(), key=lambda item: item[1])
                    if node in kernel_lines]
        if art["kind"] != "inductor_output":
            return []
        rows = {}
        for graph, calls in self.computed_graphs(art):
            lines = self._statement_lines(graph)
            for number, names in calls:
                named, links = rows.setdefault(number, ([], []))
                named += [n for n in names if n not in named]
                links += [self._link(graph, lines[n]) for n in names if n in lines]
        return [(number, ", ".join(named), links) for number, (named, links) in sorted(rows.items())]

    def _link(self, art, line):
        return ("%s:%d" % (self.file_label(art), line), "%s#L-%d" % (self.file_page(art), line))

    def _became_link(self, art, line):
        """:meth:`_link`, labelled for a list of many compiles' and functions' files (a user's
        line runs in each compile's graph and transformed code): with the compile
        (``0/1 graph:21``), or a resume function's name (``resume_in_forward_at_14_2:15``)."""
        label, link = self._link(art, line)
        if art.get("compile_id"):
            return "%s %s" % (self.compile_label(art), label), link
        if art["kind"] == "resume_function":
            return "%s:%d" % (art["function"].rpartition(".")[2].replace("torch_dynamo_", "", 1), line), link
        return label, link

    # -- names ------------------------------------------------------------------
    @staticmethod
    def function_page(fn):
        return "function_%s.html" % slug(fn["key"])

    @staticmethod
    def file_label(art):
        """What a link calls a dumped file: its kind, with the number its name adds for the
        compile's second such file (``inductor_output_1``: the backward's code)."""
        match = re.search(r"\.(%s(?:_\d+)?)\." % re.escape(art["kind"]), art["file"])
        return match.group(1) if match else art["kind"]

    @staticmethod
    def file_page(art):
        return "files/%s.html" % slug(art["file"])

    @staticmethod
    def compile_label(entry):
        """What the pages call the compile an entry names: its id, and after a
        ``torch._dynamo.reset()`` the generation (``0/0_reset1``), as the dump does."""
        return label_of(entry)

    @staticmethod
    def compile_page(comp):
        return "compile_%s_%s.html" % (slug(comp["function"]), label_of(comp).replace("/", "_"))

    def page_of(self, art):
        fn = self.by_key.get(art["function"])
        return self.function_page(fn) if fn is not None else None

    def compile_graphs(self, art):
        """The other drawn graphs of ``art``'s compile, as ``(artifact, page)``."""
        return [(a, self.file_page(a)) for a in self.compile_files(art, _GRAPH_KINDS)
                if a["kind"] not in pictures.NOT_DRAWN]

    def compile_of(self, art):
        return next((c for c in self.compiles_by_function.get(art["function"], [])
                     if compile_key(c) == compile_key(art)), None)

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
                last = min(len(lines), first + def_length(lines, first - 1)) if lines else first - 1
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
        own = {self.file_page(a) for a in self.index["artifacts"] if a["function"] == fn["key"]}

        def theirs_last(link):     # the function's own files first (a layer's line runs in many graphs)
            return link[1].partition("#")[0] not in own
        return [(n, lines[n - 1], sorted(breaks.get(n, ())), sorted(became.get(n, []), key=theirs_last))
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
                        out.setdefault(user_line, []).append(self._became_link(art, dumped))
                    previous[user_line] = dumped
                    if kernels:          # and the Inductor lines that compute the node there
                        lines = lines or self._lines_of(art)
                        node = _NODE.match(lines[dumped - 1]) if dumped <= len(lines) else None
                        for link in [self._became_link(k, n) for k, n in kernels.get(node.group(1), [])] if node else []:
                            if link not in out[user_line]:
                                out[user_line].append(link)
        return out

    @staticmethod
    def failed_entry(comp, reason):
        """The compile whose guard failed in one of ``comp``'s recompile reasons, as
        ``compile_key`` and ``compile_label`` read it: of ``comp``'s generation (a
        ``torch._dynamo.reset()`` empties Dynamo's cache, so no entry of another is tried)."""
        return {"function": comp["function"], "generation": comp.get("generation", 0),
                "compile_id": reason["failed_entry"]}

    def recompile_reasons(self, comp, root=""):
        """``[(reason, link to the failed guard's line)]``, each guard written as the summary
        writes it: the ids it compares (another run's numbers) as ``<id>``, which the
        reason's notes (:meth:`reason_notes`) name."""
        reasons = []
        for reason in comp.get("recompile_reasons") or []:
            guards = next(iter(self.compile_files(self.failed_entry(comp, reason), ("guards",))), None)
            link = None
            if guards is not None:
                link = root + self.file_page(guards) + ("#L-%d" % reason["guard_line"] if reason.get("guard_line")
                                                        else "")
            reasons.append((dict(reason, guard=without_ids(reason["guard"])), link))
        return reasons

    reason_notes = staticmethod(reason_notes)
    told_restarts = staticmethod(told_restarts)

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
        arts = self.compile_files(comp)
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
                dots.append(pictures.flow_picture(flows.flow_steps(self, fn)))
        results = pictures.render(dots)
        # a flow too wide for the page even shrunk, laid out top to bottom instead (a long chain of recompiles)
        wide = [n for n, (key, result) in enumerate(zip(keys, results)) if key[0] == "flow" and pictures.too_wide(result)]
        for n, result in zip(wide, pictures.render([pictures.downwards(dots[n]) for n in wide])):
            results[n] = result
        for key, result in zip(keys, results):
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
        links["kernels"] = [("kernel, %s:%d" % (self.file_label(k), n), "../%s#L-%d" % (self.file_page(k), n))
                            for k, n in self.kernel_lines(art).get(node.name, [])]
        return links

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
        for art in self.compile_files(comp, ("graph",)):
            if self.graph_of(art) is not None:
                counts = self.op_counts(self.graph_of(art))
                words = ", ".join(op + ("\u00d7%d" % n if n > 1 else "") for op, n in list(counts.items())[:12])
                out.append((self.file_page(art), sum(counts.values()), words + (", \u2026" if len(counts) > 12 else "")))
        return out


def _label_functions(functions):
    """Each function's ``label``, what the report calls it: its qualified name, or where
    two share one (the two resume functions of a data-dependent branch, made at the same
    line), its key, as summary.txt names it."""
    counts = collections.Counter(fn["qualname"] for fn in functions)
    for fn in functions:
        fn["label"] = fn["qualname"] if counts[fn["qualname"]] == 1 else fn["key"]
