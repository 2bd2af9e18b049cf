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
import concurrent.futures
import json
import os
import re

from . import index_page, pictures
from .highlight_jobs import PARALLEL_TEXT, Highlighter, HighlightFailed
from .site import Site
from .words import read_text

REPORT_DIR = "report"




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
    site = Site(dump_dir, index)
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

    try:
        texts = {a["file"]: site.text_of(a) for a in index["artifacts"]}
        with Highlighter(sum(map(len, texts.values())) > PARALLEL_TEXT) as highlighter, \
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
                root="", site=site, index=index, groups=index_page.groups(site), chart=index_page.chart(site),
                trie=index_page.trie(site), graphs=index_page.graph_rows(site), breaks=index_page.break_rows(site),
                totals=index_page.totals(site),
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
                site.submit_source(filename)     # (again where a file page linked to more of its lines)
                write(page, env.get_template("source.html").render(
                    root="../", site=site, filename=filename, code=highlighter.get(site.source_key(filename)),
                    whole=site.is_user(filename)))
    except HighlightFailed as exc:
        raise ReportError(str(exc)) from None
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
    index_page_text = read_text(os.path.join(out_dir, "index.html"))
    if index_page_text is not None and DIFF_MARK in index_page_text:
        _write_page(out_dir, "index.html", index_page_text.replace(DIFF_MARK, DIFF_LINK))
    return os.path.join(out_dir, "diff.html")


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
