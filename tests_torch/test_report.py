"""``unveil report``: a static site over a dump that opens from disk.  Every link and
anchor resolves, nothing is loaded from outside the site, and every page the index
promises is there; on a tiny GPT-2 in training with a graph break in a layer.  Headless
Chromium checks what a reader sees: no page scrolls sideways at 1,280 px, the user's
function comes first, the pictures name what they should and a graph node leads to its
line; its screenshots are kept in ``tests_torch/artifacts/report/`` (CI's artifacts)."""
import html.parser
import inspect
import json
import os
import re
import shutil
import subprocess
import sys
import time
import urllib.parse

import pytest

import unveil
from unveil.report import ReportError, build_report

#: the browser the report test drives (Debian's chromium, installed by .ci/run)
CHROMIUM = os.environ.get("UNVEIL_CHROMIUM", "/usr/bin/chromium")
#: where the browser tests keep their screenshots (ignored by git; CI keeps them as artifacts)
ARTIFACTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "artifacts", "report")

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from programs import PROGRAMS, _break_after  # noqa: E402
from test_prepare_debug import execute  # noqa: E402


class _Page(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.links, self.ids = [], set()

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        for name in ("href", "src", "xlink:href"):          # xlink:href: links in Graphviz's pictures
            if attrs.get(name):
                self.links.append(attrs[name])
        for name in ("id", "name"):
            if attrs.get(name):
                self.ids.add(attrs[name])


def check_site(root):
    """Every page's links resolve to a page of the site and an anchor in it."""
    pages = {}
    for folder, _, names in os.walk(root):
        for name in names:
            if name.endswith(".html"):
                page = _Page()
                with open(os.path.join(folder, name), encoding="utf-8") as fh:
                    page.feed(fh.read())
                pages[os.path.normpath(os.path.join(folder, name))] = page
    checked = 0
    for path, page in pages.items():
        for link in page.links:
            parts = urllib.parse.urlsplit(link)
            assert not parts.scheme and not parts.netloc, (path, link)      # nothing from outside
            target = os.path.normpath(os.path.join(os.path.dirname(path), parts.path)) if parts.path else path
            assert os.path.exists(target), (path, link)
            if parts.fragment:
                assert parts.fragment in pages[target].ids, (path, link)
            checked += 1
    return pages, checked


@pytest.fixture(scope="module")
def gpt2_dump(tmp_path_factory):
    dump = tmp_path_factory.mktemp("gpt2") / "dump"
    program = next(p for p in PROGRAMS if p.name == "hf_gpt2_train_break")
    with unveil.prepare_debug(dump) as session:
        keep = execute(program)
    assert session.failures == [] and keep
    return dump


@pytest.fixture(scope="module")
def gpt2_report(gpt2_dump):
    """The report of the GPT-2 dump, built once (its build time printed)."""
    import resource

    def cpu():
        return [sum(getattr(resource.getrusage(who), f) for f in ("ru_utime", "ru_stime"))
                for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)]
    started, before = time.perf_counter(), cpu()
    index_page = build_report(str(gpt2_dump))
    seconds, after = time.perf_counter() - started, cpu()
    pages = sum(len([n for n in names if n.endswith(".html")]) for _, _, names in os.walk(os.path.dirname(index_page)))
    sys.__stdout__.write("\nreport of hf_gpt2_train_break: %d pages built in %.2f s (CPU: %.2f s here, %.2f s in "
                         "pygments' workers and Graphviz; load average %.1f)\n"
                         % (pages, seconds, after[0] - before[0], after[1] - before[1], os.getloadavg()[0]))
    return index_page


def _line_of(path, statement):
    """The line of the one line of ``path`` that is ``statement`` (found, not written
    down: a line number written in a test goes stale when the file grows)."""
    with open(path) as f:
        (line,) = [n for n, text in enumerate(f, 1) if text.strip() == statement]
    return line


def _break_after_line():
    """The line of the break in ``programs._break_after``, the hook the layer breaks in."""
    return _break_after.__code__.co_firstlineno + 1


def _gpt2_block_forward_line():
    """Where the installed transformers defines ``GPT2Block.forward``."""
    from transformers.models.gpt2.modeling_gpt2 import GPT2Block
    return inspect.unwrap(GPT2Block.forward).__code__.co_firstlineno


def _numbers(index_text, name):
    """The numbers of a function's row of the index."""
    row = re.search(r'>%s</a></td>(.*?)</tr>' % re.escape(name), index_text, re.S).group(1)
    return re.findall(r'<td class="n">([^<]*)</td>', row)


def test_every_link_of_the_report_resolves(gpt2_dump, gpt2_report):
    index_page = gpt2_report
    assert index_page == os.path.join(str(gpt2_dump), "report", "index.html")
    pages, checked = check_site(os.path.dirname(index_page))
    index = json.loads((gpt2_dump / "index.json").read_text())
    sources = [p for p in pages if os.sep + "source" + os.sep in p]
    assert sources and all(p.endswith(".py.html") for p in sources)            # the files the graphs name
    assert len(pages) == 1 + len(index["functions"]) + len(index["artifacts"]) + len(index["compiles"]) + len(sources)
    assert checked > len(pages)
    compiled = [c for c in index["compiles"] if c["compiled"]]
    assert compiled and all(c["times"]["frame"] > 0 for c in compiled)     # from Dynamo's metrics
    # unveil's hooks run inside Dynamo's timing: measured, and said beside it
    assert all(0 < c["unveil_seconds"] < c["times"]["frame"] for c in compiled)
    index_text = open(index_page, encoding="utf-8").read()
    assert "compile time (s)" in index_text and ">graphs</th>" in index_text
    assert re.search(r"compiling: Dynamo [\d.]+ s.*; of it, [\d.]+ s in unveil's hooks", index_text)
    # aot_eager looks up no cache: the header says so, not "0 hits, 0 misses"
    assert not any(c.get("caches") for c in index["compiles"])
    assert "cache: no compile looked one up" in index_text and "misses</li>" not in index_text
    assert _numbers(index_text, "GPT2Block.forward")[:3] == ["1", "1", "1"]      # compiles, graphs, breaks
    page = open(os.path.join(os.path.dirname(index_page), "function_GPT2Block.forward.html"), encoding="utf-8").read()
    assert re.search(r"<title>Dynamo: [\d.]+ s</title>.*<title>AOT Autograd: [\d.]+ s</title>.*[\d.]+ s</td>", page), page


def test_the_dump_records_each_compiles_stack_and_the_programs_directory(gpt2_dump):
    index = json.loads((gpt2_dump / "index.json").read_text())
    assert os.path.isabs(index["program_dir"]) and os.path.isdir(index["program_dir"])
    run = next(c for c in index["compiles"] if c["function"] == "_hf.make.run")
    programs = os.path.join(os.path.dirname(os.path.abspath(__file__)), "programs.py")
    line = _line_of(programs, "def run(ids):")
    assert run["stack"][-1] == {"filename": programs, "line": line, "function": "run"}    # the compiled frame
    layer = next(c for c in index["compiles"] if c["function"] == "GPT2Block.forward")
    caller = os.path.join(os.path.dirname(programs), "test_prepare_debug.py")
    call = _line_of(caller, "out = compiled(*args, **kwargs)")
    assert {"filename": caller, "line": call, "function": "execute"} in layer["stack"]   # who called it
    names = [f["function"] for f in layer["stack"]]
    assert names.index("execute") < names.index("run") < len(names) - 1
    assert names[-1] == "forward" and layer["stack"][-1]["line"] == _gpt2_block_forward_line()


def test_graph_breaks_show_at_their_line_and_files_link_what_they_call(gpt2_dump, gpt2_report):
    root = os.path.dirname(gpt2_report)
    index = json.loads((gpt2_dump / "index.json").read_text())
    broke = next(c for c in index["compiles"] if c["graph_break"] and c["function"] == "GPT2Block.forward")
    page = open(os.path.join(root, "function_GPT2Block.forward.html"), encoding="utf-8").read()
    assert 'class="break"' in page and "# graph break: Call to `torch._dynamo.graph_break()`" in page
    assert broke["graph_break"]["reason"] in page
    # each source line links to the dumped lines that run it: graph nodes, the transformed call, the resume
    assert re.search(r'self\.ln_1\(hidden_states\).*<a href="files/GPT2Block\.forward\.compile_\d+_0\.graph\.py\.html'
                     r'#L-\d+"[^>]*>\d+/\d+ graph:\d+</a>', page), page
    assert re.search(r'self\.mlp\(hidden_states\).*>resume_in_forward_at_\d+:\d+</a>', page), page
    transformed = next(a for a in index["artifacts"] if a["function"] == "GPT2Block.forward"
                       and a["kind"] == "transformed_code")
    text = open(os.path.join(root, "files", transformed["file"] + ".html"), encoding="utf-8").read()
    assert ">graph __compiled_fn_" in text and ">resume function __resume_at_" in text, text[:3000]
    # the call itself links to the graph and to the resume function
    assert re.search(r'<a href="\.\./files/GPT2Block\.forward\.compile_\d+_0\.graph\.py\.html"><span class="n">'
                     r'__compiled_fn_', text), text
    assert re.search(r'<a href="\.\./files/GPT2Block\.torch_dynamo_resume_in_forward_at_308\.resume_function\.py'
                     r'\.html"><span class="n">__resume_at_', text), text


def test_run_builds_the_report_and_report_rebuilds_it(tmp_path):
    examples = os.path.join(os.path.dirname(os.path.abspath(__file__)), "run_examples")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    done = subprocess.run([sys.executable, "-m", "unveil", "run", "--dump-dir", str(tmp_path / "dump"),
                           "compiled_script.py"], cwd=examples, input="x\n", capture_output=True, text=True,
                          env=env, timeout=600)
    assert done.returncode == 0, done.stderr
    assert done.stderr.splitlines()[-1] == "unveil: dump in %s, report %s" % (
        tmp_path / "dump", tmp_path / "dump" / "report" / "index.html"), done.stderr
    check_site(str(tmp_path / "dump" / "report"))
    assert json.loads((tmp_path / "dump" / "index.json").read_text())["program_dir"] == examples
    index_text = (tmp_path / "dump" / "report" / "index.html").read_text()
    assert '<span class="path" title="%s:' % os.path.join(examples, "compiled_script.py") in index_text
    assert '>compiled_script.py:' in index_text               # shown relative to the program's directory
    again = subprocess.run([sys.executable, "-m", "unveil", "report", str(tmp_path / "dump")], capture_output=True,
                           text=True, env=env, timeout=600)
    assert again.returncode == 0 and again.stdout.strip() == str(tmp_path / "dump" / "report" / "index.html")
    bad = subprocess.run([sys.executable, "-m", "unveil", "report", str(tmp_path / "nothing")], capture_output=True,
                         text=True, env=env, timeout=600)
    assert bad.returncode == 2 and bad.stderr.startswith("unveil: error: ") and bad.stderr.count("\n") == 1


def test_a_directory_without_an_index_is_a_clear_error(tmp_path):
    with pytest.raises(ReportError, match="is not a dump directory"):
        build_report(str(tmp_path))


def test_progress_shows_on_a_terminal_only(gpt2_dump, monkeypatch, capsys):
    from unveil import cli
    monkeypatch.setattr("sys.stderr.isatty", lambda: False, raising=False)
    assert cli._progress("report") is None
    monkeypatch.setattr("sys.stderr.isatty", lambda: True, raising=False)
    build_report(str(gpt2_dump), progress=cli._progress("report"))
    err = capsys.readouterr().err
    index = json.loads((gpt2_dump / "index.json").read_text())
    total = 1 + len(index["functions"]) + len(index["artifacts"]) + len(index["compiles"])
    assert "\rreport: 1/%d" % total in err and err.endswith("\rreport: %d/%d\r\x1b[K" % (total, total)), err[-300:]


def test_a_browser_goes_from_the_index_to_a_break_its_graph_node_and_the_call(gpt2_report, tmp_path):
    """Headless Chromium (Debian's, driven by playwright) opens the report from disk and
    clicks: the index, the layer's function, the graph break's line, the graph node that
    line became, then the transformed code's call of that graph; a screenshot per step."""
    from playwright.sync_api import sync_playwright
    index_page = gpt2_report
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--headless", "--no-sandbox"])
        try:
            page = browser.new_page()
            page.goto("file://" + index_page)
            assert page.title() == "unveil report: what torch.compile did"
            page.screenshot(path=str(tmp_path / "1_index.png"))
            page.check("#show-libraries")                   # the layer is transformers': folded until then
            page.click("table.functions a:text-is('GPT2Block.forward')")
            assert page.url.endswith("function_GPT2Block.forward.html")
            broken = page.locator("span.break")
            assert broken.count() == 1 and "self.mlp(hidden_states)" in broken.inner_text()
            assert "graph break: Call to `torch._dynamo.graph_break()`" in broken.inner_text()
            assert "def forward(self" in page.locator("div.side > div").nth(1).inner_text()   # beside the source
            page.screenshot(path=str(tmp_path / "2_function.png"))
            page.locator("#L276 a", has_text="graph:").first.click()
            assert re.search(r"files/GPT2Block\.forward\.compile_\d+_0\.graph\.py\.html#L-\d+$", page.url), page.url
            line = int(page.url.rsplit("#L-", 1)[1])
            assert "self.ln_1" in page.locator("pre").nth(1).inner_text().splitlines()[line - 2]   # its File: comment
            page.screenshot(path=str(tmp_path / "3_graph.png"))
            page.go_back()
            page.locator("#L308 a", has_text="transformed_code:").first.click()     # the broken line's call
            page.locator("a", has_text="__compiled_fn_").first.click()
            assert re.search(r"files/GPT2Block\.forward\.compile_\d+_0\.graph\.py\.html$", page.url), page.url
            assert "class GraphModule" in page.locator("pre").nth(1).inner_text()
            page.screenshot(path=str(tmp_path / "4_called_graph.png"))
        finally:
            browser.close()
    assert len(list(tmp_path.glob("*.png"))) == 4


def _scaled_relu(x, w):
    y = (x @ w).relu()
    return (y * 2 + 1).sum()


def test_under_debug_a_fused_kernels_nodes_link_to_its_call(tmp_path):
    """torch 2.13 writes Inductor's node comment on an extern call only: the fused kernel
    computing ``relu``, ``mul``, ``add`` and ``sum`` linked to none of them.  Under ``debug()``
    Inductor's provenance record names them."""
    import torch
    torch._dynamo.reset()
    compiled = torch.compile(_scaled_relu)
    with unveil.debug(tmp_path / "dump") as session:
        compiled(torch.randn(4, 4), torch.randn(4, 4))
    assert session.failures == []
    index = json.loads((tmp_path / "dump" / "index.json").read_text())
    code = next(a for a in index["artifacts"] if a["kind"] == "inductor_output")
    assert sorted(n for nodes in code["kernel_nodes"].values() for n in nodes) == [
        "add", "matmul", "mul", "sum_1", "y"], code
    root = os.path.dirname(build_report(str(tmp_path / "dump")))
    check_site(root)
    graph = next(a for a in index["artifacts"] if a["kind"] == "graph")
    graph_page = open(os.path.join(root, "files", graph["file"] + ".html"), encoding="utf-8").read()
    for node in ("y", "mul", "add", "sum_1"):
        assert re.search(r'line \d+</a> %s &#8594; <a href="\.\./files/%s\.html#L-\d+">inductor_output:\d+</a>'
                         % (node, re.escape(code["file"])), graph_page), (node, graph_page[:3000])


def _gelu_tanh(x, w):
    h = x @ w
    return 0.5 * h * (1.0 + (0.79788 * (h + 0.044715 * h ** 3)).tanh())


def _kernel_rows(root, art):
    """``[(node, [(file, label)])]``: a graph page's rows linking each node to its kernel calls."""
    page = open(os.path.join(root, "files", art["file"] + ".html"), encoding="utf-8").read()
    return [(node, re.findall(r'href="\.\./files/([^"#]+)\.html#L-\d+">([^<:]*):\d+<', links)) for node, links in
            re.findall(r'line \d+</a> (\w+) &#8594; ((?:<a [^>]*>[^<]*</a>[, ]*)+)', page)]


@pytest.mark.parametrize("debugging", [False, True], ids=["prepare_debug", "debug"])
def test_a_graphs_nodes_link_to_the_kernels_of_its_own_inductor_code(tmp_path, debugging):
    """A GELU on ``x @ w``, trained: the forward graph's ``mul`` and ``add_1`` (and Dynamo's)
    linked to the backward's ``mm``, whose comment names the backward's recomputed nodes of
    the same names, labelled ``inductor_output:119`` though it was ``inductor_output_1.py``;
    under ``debug()`` the forward's ``mm`` had no link (torch 2.15, a new-user trial)."""
    import torch
    torch._dynamo.reset()
    compiled = torch.compile(_gelu_tanh)
    x, w = torch.randn(16, 32), torch.randn(32, 128, requires_grad=True)
    with (unveil.debug if debugging else unveil.prepare_debug)(tmp_path / "dump") as session:
        compiled(x, w).sum().backward()
    assert session.failures == []
    root = os.path.dirname(build_report(str(tmp_path / "dump")))
    index = json.loads((tmp_path / "dump" / "index.json").read_text())
    codes = [a for a in index["artifacts"] if a["kind"] == "inductor_output"]
    graph = next(a for a in index["artifacts"] if a["kind"] == "graph")
    forward, backward = (a for a in index["artifacts"] if a["kind"] == "post_grad_graph")
    for art, code in [(graph, codes[0]), (forward, codes[0]), (backward, codes[1])]:
        rows = _kernel_rows(root, art)
        label = code["file"].rsplit(".", 2)[-2]
        assert all(links == [(code["file"], label)] * len(links) for _, links in rows), (art["file"], rows)
    assert {"mul", "mul_4", "add_1"} <= {node for node, _ in _kernel_rows(root, backward)}
    assert ("mm" in dict(_kernel_rows(root, forward))) == debugging
    assert [code["post_grad_graph"] for code in codes] == [forward["file"], backward["file"]]


def test_a_line_links_through_its_graph_node_to_the_inductor_code_that_computes_it(tmp_path):
    """Inductor's provenance comments (the FX nodes each kernel call computes) link a
    kernel call to its graph nodes and back, and a source line to its kernels."""
    program = next(p for p in PROGRAMS if p.name == "inductor_train")
    with unveil.prepare_debug(tmp_path / "dump") as session:
        keep = execute(program)
    assert session.failures == [] and keep
    root = os.path.dirname(build_report(str(tmp_path / "dump")))
    check_site(root)
    index = json.loads((tmp_path / "dump" / "index.json").read_text())
    post_grad = [a for a in index["artifacts"] if a["kind"] == "post_grad_graph"]
    assert len(post_grad) == 2 and all(os.path.exists(os.path.join(root, "files", a["file"] + ".html"))
                                       for a in post_grad)        # Inductor's graphs, forward and backward
    code = next(a for a in index["artifacts"] if a["kind"] == "inductor_output")
    graph = next(a for a in index["artifacts"] if a["kind"] == "graph")
    kernel_page = open(os.path.join(root, "files", code["file"] + ".html"), encoding="utf-8").read()
    graph_page = open(os.path.join(root, "files", graph["file"] + ".html"), encoding="utf-8").read()
    assert re.search(r'line \d+</a> linear &#8594; <a href="\.\./files/%s\.html#L-\d+">graph:\d+</a>'
                     % re.escape(graph["file"]), kernel_page), kernel_page[:3000]
    assert re.search(r'line \d+</a> linear &#8594; <a href="\.\./files/%s\.html#L-\d+">inductor_output:\d+</a>'
                     % re.escape(code["file"]), graph_page), graph_page[:3000]
    function = open(os.path.join(root, "function_MLP.forward.html"), encoding="utf-8").read()
    assert re.search(r"self\.l2\(torch\.relu\(self\.l1\(x\)\)\).*>0/0 graph:\d+</a>.*>0/0 inductor_output:\d+</a>", function)
    from playwright.sync_api import sync_playwright
    with sync_playwright() as playwright:        # and a browser follows it to the kernel call
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--headless", "--no-sandbox"])
        try:
            page = browser.new_page()
            page.goto("file://" + os.path.join(root, "function_MLP.forward.html"))
            page.locator("span.became a", has_text="inductor_output:").first.click()
            line = int(page.url.rsplit("#L-", 1)[1])
            assert "inductor_output" in page.url
            text = page.locator("pre").nth(1).inner_text().splitlines()[line - 1]
            assert "Topologically Sorted Source Nodes: [linear" in text, text
            page.screenshot(path=str(tmp_path / "kernel.png"))
            # the graph's picture: a node's kernel cell leads to the kernel call too
            page.goto("file://" + os.path.join(root, "files", graph["file"] + ".html"))
            node = page.locator(".picture svg g.node", has_text="linear").first
            assert "programs.py:312" in node.text_content()
            node.locator("a", has_text="kernel, inductor_output:").first.click()
            line = int(page.url.rsplit("#L-", 1)[1])
            assert "inductor_output" in page.url
            assert "Topologically Sorted Source Nodes: [linear" in page.locator("pre").nth(1).inner_text().splitlines()[
                line - 1]
            # and the index's chart says what the caches did
            page.goto("file://" + os.path.join(root, "index.html"))
            assert re.search(r"cache \d+ hits? / \d+ miss(es)?", _svg_text(page, "svg#time-chart"))
            assert re.search(r"<li>cache: <b>\d+</b> hits?, <b>\d+</b> miss(?:es)?</li>", page.content())
            if index["compiles"][0]["times"].get("inductor"):       # (not on a hit in Inductor's cache)
                assert any(": Inductor " in t for t in page.eval_on_selector_all("svg#time-chart rect title",
                                                                                 "els => els.map(e => e.textContent)"))
            _shot(page, "index_inductor.png")
        finally:
            browser.close()


def _browser(playwright):
    return playwright.chromium.launch(executable_path=CHROMIUM, args=["--headless", "--no-sandbox"])


def _svg_text(page, selector):
    """The texts of an SVG's text elements, one a line (SVG has no innerText)."""
    return page.eval_on_selector_all(selector + " text", "els => els.map(e => e.textContent).join('\\n')")


def _shot(page, name):
    os.makedirs(ARTIFACTS, exist_ok=True)
    page.screenshot(path=os.path.join(ARTIFACTS, name))


def test_no_page_scrolls_sideways_at_1280_px(gpt2_report):
    """Every page of the GPT-2 report fits a 1,280 px window: long code and pictures
    scroll inside their own panes."""
    from playwright.sync_api import sync_playwright
    root = os.path.dirname(gpt2_report)
    names = sorted(os.path.relpath(os.path.join(folder, name), root) for folder, _, files in os.walk(root)
                   for name in files if name.endswith(".html"))
    wide = []
    with sync_playwright() as playwright:
        browser = _browser(playwright)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            for name in names:
                page.goto("file://" + os.path.join(root, name))
                width = page.evaluate("document.documentElement.scrollWidth")
                if width > 1280:
                    wide.append((name, width))
        finally:
            browser.close()
    assert len(names) > 60 and not wide, wide


def test_the_index_shows_the_users_code_first_and_folds_the_libraries(gpt2_dump, gpt2_report):
    from playwright.sync_api import sync_playwright
    with sync_playwright() as playwright:
        browser = _browser(playwright)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.goto("file://" + gpt2_report)
            first = page.locator("table.functions tbody tr").first
            assert first.locator("td").first.inner_text() == "_hf.<locals>.make.<locals>.run"
            where = first.locator("td").nth(1).locator("span.path")
            programs = os.path.join(os.path.dirname(os.path.abspath(__file__)), "programs.py")
            program_dir = json.loads((gpt2_dump / "index.json").read_text())["program_dir"]
            run, hook = _line_of(programs, "def run(ids):"), _break_after_line()
            assert where.inner_text() == "%s:%d" % (os.path.relpath(programs, program_dir), run)  # (sys.path[0]: pytest's)
            assert where.get_attribute("title") == "%s:%d" % (programs, run)
            broke = page.locator("ul.breaks > li").first                     # where it broke, at the top
            assert broke.locator("span.path").first.inner_text() == where.inner_text().replace(":%d" % run, ":%d" % hook)
            assert "torch._dynamo.graph_break()" in broke.locator("code.source").inner_text()
            # and the layer it broke in: the hook's caller, past torch's module-call frames
            assert re.search(r"reached through .*forward .*modeling_gpt2\.py:\d+", broke.inner_text())
            assert "_hf.make.run 0/0" in broke.locator("a.cid").all_inner_texts()
            library = page.locator("details.library[data-package=transformers] table.functions")
            assert not library.is_visible()                                # folded under its package
            layer = page.locator("table.functions tr", has_text="GPT2Block.forward").first
            assert layer.locator("span.path").text_content() == \
                "transformers/models/gpt2/modeling_gpt2.py:%d" % _gpt2_block_forward_line()
            _shot(page, "index.png")
            page.check("#show-libraries")
            assert library.is_visible() and layer.is_visible()
            # the compile-time chart: the user's compile first, split by stage
            assert _svg_text(page, "svg#time-chart").splitlines()[0] == "_hf.make.run 0/0"      # (its label without <locals>.)
            titles = page.eval_on_selector_all("svg#time-chart rect title", "els => els.map(e => e.textContent)")
            assert any(": Dynamo " in t for t in titles) and any(": AOT Autograd " in t for t in titles), titles
            # the stack trie: the user's frames, library frames folded, each compile at its end
            first_call = page.locator("ul.trie li:has(> a[href='function__hf.make.run.html#L356'])")
            assert first_call.locator("> a.cid").all_inner_texts() == ["_hf.make.run 0/0"]
            run = page.locator("xpath=//ul[@class='trie']//li[a[normalize-space(.)='run'] and "
                               "span[normalize-space(.)='%s:357']]" % os.path.relpath(programs, program_dir)).first
            fold = run.locator("xpath=./ul/li/details[@class='fold'][contains(., 'transformers')]").first
            assert fold.is_visible() and not fold.locator("ol").is_visible()
            assert run.locator("a.cid", has_text="GPT2Block.forward 10/0").count() == 1
            page.locator("#stacks").scroll_into_view_if_needed()
            _shot(page, "index_stacks.png")
            page.locator("a.cid", has_text="GPT2Block.forward 10/0").first.click()
            assert page.url.endswith("compile_GPT2Block.forward_10_0.html")
        finally:
            browser.close()
    text = open(gpt2_report, encoding="utf-8").read()
    assert "<pre>" not in text and 'class="story"' in text                # the summary as HTML


def test_the_flow_names_the_break_and_the_resume_function_and_leads_to_a_compile_page(gpt2_report):
    from playwright.sync_api import sync_playwright
    root = os.path.dirname(gpt2_report)
    with sync_playwright() as playwright:
        browser = _browser(playwright)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.goto("file://" + os.path.join(root, "function_GPT2Block.forward.html"))
            text = _svg_text(page, ".picture.flow svg")
            assert "resume function" in text and "torch_dynamo_resume_in_forward_at_308" in text, text
            assert "graph break at programs.py:363" in text and "compile 14/0" in text, text
            _shot(page, "function_GPT2Block.forward.png")
            page.goto("file://" + os.path.join(root, "function__hf.make.run.html"))
            assert "torch_dynamo_resume_in_run_at_357" in _svg_text(page, ".picture.flow svg")
            _shot(page, "function_run.png")
            page.goto("file://" + os.path.join(root, "function_deprecate_kwarg.wrapper.wrapped_func.html"))
            flow = _svg_text(page, ".picture.flow svg")   # a call tries 5/2, then 5/1, then 5/0
            assert flow.index("compile 5/2") < flow.index("compile 5/1") < flow.index("compile 5/0"), flow
            assert "its guards fail" in flow and "made when 5/0's guard failed:" in flow, flow
            _shot(page, "function_recompiled.png")
            page.goto("file://" + os.path.join(root, "function_GPT2Block.forward.html"))
            outcome = page.locator("table.compiles tr#compile-10-0 td").nth(1).inner_text()   # what the graph computes
            assert "graph of 30 ops: layer_norm×2, .view×" in outcome and "scaled_dot_product_attention" in outcome
            page.click("table.compiles a:text-is('compile 10/0')")          # one click to the compile's page
            assert page.url.endswith("compile_GPT2Block.forward_10_0.html")
            for section in ("#break", "#stack", "#graph-1", "#guards", "#transformed"):
                assert page.locator(section).count() == 1, section
            assert "Call to torch._dynamo.graph_break()" in page.locator("#break + p").inner_text()
            assert page.locator("#break + p code").first.inner_text() == "torch._dynamo.graph_break()"  # (`...`)
            stack = page.locator("#stack + ol.stack")           # how it was reached: library frames folded
            assert stack.locator("> li > a", has_text="run").count() == 1
            assert stack.locator("> li.library details.fold").count() >= 2
            assert "AOT Autograd" in page.locator("dl.facts").inner_text()
            assert page.locator(".picture svg").count() == 1
            _shot(page, "compile_GPT2Block.forward_10_0.png")
        finally:
            browser.close()


def test_a_graph_is_drawn_and_a_node_leads_to_its_source_line(gpt2_report):
    from playwright.sync_api import sync_playwright
    root = os.path.dirname(gpt2_report)
    with sync_playwright() as playwright:
        browser = _browser(playwright)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.goto("file://" + os.path.join(root, "files", "GPT2MLP.forward.compile_11_0.graph.py.html"))
            text = _svg_text(page, ".picture svg")
            assert "addmm" in text and "f32[6, 64]" in text and "activations.py:66" in text, text
            _shot(page, "graph_GPT2MLP.forward.png")
            page.goto("file://" + os.path.join(root, "files", "GPT2Block.forward.compile_10_0.graph.py.html"))
            page.locator(".picture svg a", has_text="modeling_gpt2.py:276").first.click()
            assert page.url.endswith("function_GPT2Block.forward.html#L276"), page.url
            assert "self.ln_1(hidden_states)" in page.locator("#L276").inner_text()
            page.go_back()
            page.locator(".picture svg a", has_text="pytorch_utils.py:119").first.click()   # a line of no function
            assert re.search(r"source/transformers_pytorch_utils\.py\.html#L-119$", page.url), page.url
            assert "torch.addmm" in page.locator("pre").nth(1).inner_text()
            _shot(page, "source_line.png")
            page.go_back()
            page.locator(".picture svg a", has_text="layer_norm").first.click()        # the op: its line of code
            line = int(page.url.rsplit("#L-", 1)[1])
            assert "layer_norm" in page.locator("pre").nth(1).inner_text().splitlines()[line - 1]
        finally:
            browser.close()


def test_without_graphviz_the_report_builds_and_says_what_is_missing(gpt2_dump, tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    out = tmp_path / "report"
    index_page = build_report(str(gpt2_dump), out_dir=str(out))
    check_site(str(out))
    message = "Graphviz&#39;s dot is not on PATH (apt-get install graphviz)"
    assert message in open(index_page, encoding="utf-8").read()
    graph = (out / "files" / "GPT2MLP.forward.compile_11_0.graph.py.html").read_text()
    assert "No picture of the graph: " + message in graph and "<svg" not in graph
    monkeypatch.setitem(sys.modules, "pydot", None)
    build_report(str(gpt2_dump), out_dir=str(out))
    assert "pydot is not installed (pip install &#39;unveil[report]&#39;)" in (out / "index.html").read_text()
    assert shutil.which("dot") is None


def test_a_broken_index_is_a_clear_error(tmp_path):
    (tmp_path / "index.json").write_text("[]")
    with pytest.raises(ReportError, match="^%s is not a dump directory \\(index.json has no functions" % re.escape(
            str(tmp_path))):
        build_report(str(tmp_path))


def test_two_resume_functions_made_at_one_line_are_told_apart(tmp_path):
    """A data-dependent branch makes two resume functions at its line, with one qualified
    name: the report named both ``...resume_in_branch_at_N`` everywhere ("the rest runs in
    X, X"), while summary.txt tells them apart by key (``..._N`` and ``..._N_2``).  Found by
    a new-user trial."""
    import torch
    from test_explanations import branch
    torch._dynamo.reset()
    with unveil.prepare_debug(tmp_path):
        compiled = torch.compile(branch, backend="eager")
        compiled(torch.ones(3))
        compiled(-torch.ones(3))
    build_report(str(tmp_path))
    keys = [f["key"] for f in json.loads((tmp_path / "index.json").read_text())["functions"] if f["kind"] == "resume"]
    assert len(keys) == 2 and len(set(keys)) == 2, keys
    index_text = (tmp_path / "report" / "index.html").read_text()
    for key in keys:
        assert ">%s</a>" % key in index_text, key


def _twice(x):
    return x * 2


def test_each_generation_of_a_compile_id_has_its_own_page_and_links(tmp_path):
    """A ``torch._dynamo.reset()`` inside the block starts Dynamo's compile ids again from
    0/0: the report named both 0/0s' pages ``compile_f_0_0.html`` (the second overwrote the
    first, and the links of both led to it) and matched files and the failed entry of a
    recompile reason by compile id alone.  Each compile has a page of its own, named and
    titled by its label (``0/0_reset1``), that links its own generation's files only."""
    import torch
    torch._dynamo.reset()
    with unveil.prepare_debug(tmp_path):
        for generation, size in enumerate((3, 4)):    # each: a compile, then one for another rank
            if generation:
                torch._dynamo.reset()
            compiled = torch.compile(_twice, backend="eager")
            compiled(torch.ones(size))
            compiled(torch.ones(size, 2))
    build_report(str(tmp_path))
    index = json.loads((tmp_path / "index.json").read_text())
    report = tmp_path / "report"
    pages, _ = check_site(str(report))
    labels = {(c["generation"], c["compile_id"]): "%s%s" % (c["compile_id"], "_reset%d" % c["generation"]
                                                           if c["generation"] else "") for c in index["compiles"]}
    assert sorted(labels) == [(0, "0/0"), (0, "0/1"), (1, "0/0"), (1, "0/1")], sorted(labels)
    generation_of = {a["file"]: a.get("generation") for a in index["artifacts"]}
    function_page = (report / "function__twice.html").read_text()
    for (generation, cid), label in labels.items():
        page = report / ("compile__twice_%s.html" % label.replace("/", "_"))
        text = page.read_text()
        assert "<h1>Compile %s of _twice</h1>" % label in text
        assert 'href="%s"' % page.name in function_page, label
        linked = set(re.findall(r'href="files/([^"#]+)\.html', text))
        assert linked and {generation_of[f] for f in linked} == {generation}, (label, sorted(linked))
        if cid == "0/1":          # made when the same generation's 0/0 failed its guard
            first = "compile__twice_%s.html" % labels[generation, "0/0"].replace("/", "_")
            assert re.search(r'the guard of <a href="%s">compile %s</a> failed' % (
                re.escape(first), re.escape(labels[generation, "0/0"])), text), label
    assert len([p for p in pages if os.path.basename(p).startswith("compile_")]) == len(index["compiles"])


def test_a_report_built_again_over_another_run_keeps_no_page_of_the_last(tmp_path):
    """A dump directory used again by another program: its files were cleaned but the report
    kept the last run's function, compile, file and source pages beside the new ones (a
    new-user trial).  Only what the new dump links stays, and ``diff.html`` is left alone."""
    import torch
    from test_explanations import branch, loop_break
    torch._dynamo.reset()
    with unveil.prepare_debug(tmp_path):
        torch.compile(branch, backend="eager")(torch.ones(3))
    build_report(str(tmp_path))
    (tmp_path / "report" / "diff.html").write_text("<p>a diff</p>")
    first = {p.relative_to(tmp_path / "report") for p in (tmp_path / "report").rglob("*.html")}
    torch._dynamo.reset()
    with unveil.prepare_debug(tmp_path):
        torch.compile(loop_break, backend="eager")(torch.ones(3))
    build_report(str(tmp_path))
    pages = {p.relative_to(tmp_path / "report") for p in (tmp_path / "report").rglob("*.html")}
    assert not any("branch" in str(page) for page in pages), sorted(pages)
    assert any("branch" in str(page) for page in first) and any("loop_break" in str(page) for page in pages)
    assert (tmp_path / "report" / "diff.html").exists()
    check_site(str(tmp_path / "report"))


def test_a_break_reads_with_all_its_hints_and_its_explanation_keeps_its_lines(tmp_path):
    """Dynamo gives a data-dependent branch three hints, the one to act on not first, and an
    explanation of several lines that quotes the code (``# File ...``, then the FX node).
    The index's list of breaks showed only the first hint and its story of each compile two
    (summary.txt gives all), and the compile page ran the explanation's lines into one paragraph."""
    import torch
    from playwright.sync_api import sync_playwright
    from test_explanations import branch
    torch._dynamo.reset()
    with unveil.prepare_debug(tmp_path):
        torch.compile(branch, backend="eager")(torch.ones(3))
    index_page = build_report(str(tmp_path))
    (broke,) = [c for c in json.loads((tmp_path / "index.json").read_text())["compiles"] if c["graph_break"]]
    hints, explanation = broke["graph_break"]["hints"], broke["graph_break"]["explanation"]
    assert len(hints) >= 3 and len(explanation.splitlines()) >= 3, broke["graph_break"]
    with sync_playwright() as playwright:
        browser = _browser(playwright)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.goto("file://" + index_page)
            for where in ("ul.breaks", "section.story"):
                shown = page.locator(where + " .hint").all_text_contents()
                assert [h.replace("`", "") for h in shown] == [h.replace("`", "") for h in hints], (where, shown)
            page.click("a.cid")
            assert "compile_branch_0_0.html" in page.url, page.url
            _shot(page, "explanation.png")
            lines = [" ".join(line.split()) for line in page.locator("p.explanation").inner_text().splitlines()]
            assert lines == [" ".join(line.replace("`", "").split()) for line in explanation.splitlines()], lines
        finally:
            browser.close()


def test_a_restart_says_what_it_is_and_its_reason_quotes_code_as_code(tmp_path):
    """A graph break makes Dynamo trace the frame again: the index's story and the compile
    page showed the restart's reason with torch's backticks as they are (``Call to
    `torch._dynamo.graph_break()` ``) under 'traced again', said nowhere what that is
    (a new-user trial)."""
    import torch

    def breaks(x):
        h = x * 2
        torch._dynamo.graph_break()
        return h.relu()

    torch._dynamo.reset()
    with unveil.prepare_debug(tmp_path):
        torch.compile(breaks, backend="eager")(torch.ones(3))
    restarted = [c for c in json.loads((tmp_path / "index.json").read_text())["compiles"] if c.get("restarts")]
    assert restarted and any("`" in r for c in restarted for r in c["restarts"]), restarted
    build_report(str(tmp_path))
    pages = [(tmp_path / "report" / "index.html").read_text()] + [
        p.read_text() for p in (tmp_path / "report").rglob("compile_*.html")]
    shown = [re.sub(r"<[^>]+>", "", m) for page in pages
             for m in re.findall(r"a restart\)(?:,)? after: (.*?)</(?:span|dd)>", page, re.S)]
    assert shown and all("`" not in text for text in shown), shown
    assert any("<code>" in page and "a restart" in page for page in pages)


def _one_line(x):
    return (x * 2).relu() + 1


def test_a_graph_of_one_line_is_said_to_be_of_that_line(tmp_path):
    """The index said ``train.py lines 15–15`` of a graph made of one line (a new-user trial)."""
    import torch
    torch._dynamo.reset()
    with unveil.prepare_debug(tmp_path):
        torch.compile(_one_line, backend="eager")(torch.ones(3))
    page = open(build_report(str(tmp_path)), encoding="utf-8").read()
    line = _one_line.__code__.co_firstlineno + 1
    assert "test_report.py line %d</span>" % line in page and "lines %d&#8211;%d" % (line, line) not in page, page


def test_a_long_flow_keeps_legible_text_and_fits_the_width_of_its_box(tmp_path):
    """The demo's flow (two compiles, each breaking into two resume functions) was drawn
    1,679 pt wide, left to right: shrunk to fit a 1,280 px window its text was at half
    size, and at no less than 0.8 of its size it scrolled sideways (a new user's "needs a
    horizontal scrollbar").  A flow too wide is laid out top to bottom: it fits its box's
    width at no less than 0.8 of its drawn size, and a tall one scrolls down in its box."""
    import torch
    from playwright.sync_api import sync_playwright
    from unveil.dynamo import demo
    from unveil.report import pictures
    torch._dynamo.reset()
    assert demo.run(tmp_path).failures == []
    build_report(str(tmp_path))
    with sync_playwright() as playwright:
        browser = _browser(playwright)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.goto("file://" + str(tmp_path / "report" / "function_TinyNet.forward.html"))
            drawn = float(page.get_attribute(".picture.flow svg", "width").rstrip("pt")) * 4 / 3     # px
            shown = page.evaluate("document.querySelector('.picture.flow svg').getBoundingClientRect().width")
            box = page.evaluate("(b => [b.clientWidth, b.scrollWidth])(document.querySelector('.picture.flow'))")
            assert shown >= pictures.FLOW_SMALLEST * drawn - 1, (drawn, shown)
            assert box[1] <= box[0], box                 # nothing to scroll sideways
            assert page.evaluate("document.documentElement.scrollWidth") <= 1280
            assert "0.00 0.00" in page.get_attribute(".picture.flow svg", "viewBox")
            height = float(page.get_attribute(".picture.flow svg", "height").rstrip("pt"))
            assert height > float(page.get_attribute(".picture.flow svg", "width").rstrip("pt")), "not laid out downwards"
            _shot(page, "function_long_flow.png")
        finally:
            browser.close()


def test_every_picture_bounds_graphvizs_layout_passes():
    """Without bounds on its network simplex passes, Graphviz took 79 s to over 120 s on each
    of a tiny T5's AOT backward graphs (460 to 730 edges): the report took 16 minutes.  With
    them, 2.5 s each (small graphs converge within them: laid out the same)."""
    from unveil.report import pictures
    from unveil.report.fxgraph import parse_graph
    graph = parse_graph("class GraphModule(torch.nn.Module):\n    def forward(self, x):\n"
                        "        y = x.relu()\n        return (y,)\n")
    flow = pictures.flow_picture([("node", "f", ["f"], None, "function")])
    for picture in (pictures.graph_picture(graph, lambda node: {}), flow):
        assert picture.get_nslimit() == "5" and picture.get_nslimit1() == "5", picture.to_string()


def test_an_empty_graph_says_so_in_the_index(tmp_path):
    """A tiny T5's training step made a graph of no ops, inputs or outputs (``def forward(self):
    return ()``, Dynamo's compile 2/7 of transformers' ``deprecate_kwarg`` wrapper); the index's
    table of graphs gave it an empty cell and a lone arrow.  Here a dumped graph's text is made
    that graph's."""
    import torch
    from test_explanations import branch
    torch._dynamo.reset()
    with unveil.prepare_debug(tmp_path):
        torch.compile(branch, backend="eager")(torch.ones(3))
    (graph,) = [a for a in json.loads((tmp_path / "index.json").read_text())["artifacts"]
                if a["kind"] == "graph" and a["function"] == "branch"]
    path = tmp_path / graph["file"]
    head = path.read_text().split("class GraphModule")[0]
    path.write_text(head + "class GraphModule(torch.nn.Module):\n    def forward(self):\n        return ()\n")
    index_text = open(build_report(str(tmp_path)), encoding="utf-8").read()
    row = re.search(r'compile 0/0</a>.*?</tr>', index_text.split('id="graphs"')[1], re.S).group(0)
    assert "an empty graph: it takes nothing and returns nothing" in row and "&#8594;" not in row, row


def test_a_source_page_shows_the_lines_linked_after_it_was_first_highlighted(tmp_path):
    """Source pages are highlighted while the files' pages are written, and a file's page may
    link to more of a library's lines: those lines' anchors were missing.  (Here for pygments,
    which the report extra installs.)"""
    from unveil.report.highlight_jobs import Highlighter
    from unveil.report.site import Site
    path = tmp_path / "lib" / "python3.11" / "site-packages" / "pkg" / "mod.py"
    path.parent.mkdir(parents=True)
    path.write_text("".join("x%d = %d\n" % (n, n) for n in range(1, 200)))
    site = Site(str(tmp_path), {"functions": [], "artifacts": [], "compiles": [], "program_dir": str(tmp_path)})
    site.highlighter = Highlighter(parallel=False)
    site.source_link(str(path), 150)
    site.submit_source(str(path))
    site.source_link(str(path), 20)
    site.submit_source(str(path))
    code = site.highlighter.get(site.source_key(str(path)))
    assert 'id="L-20"' in code and 'id="L-150"' in code, code[:500]
