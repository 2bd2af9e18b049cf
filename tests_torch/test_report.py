"""``unveil report``: a static site over a dump that opens from disk.  Every link and
anchor resolves, nothing is loaded from outside the site, and every page the index
promises is there; on a tiny GPT-2 in training with a graph break in a layer."""
import html.parser
import json
import os
import re
import subprocess
import sys
import urllib.parse

import pytest

import unveil
from unveil.report import ReportError, build_report

#: the browser the report test drives (Debian's chromium, installed by .ci/run)
CHROMIUM = os.environ.get("UNVEIL_CHROMIUM", "/usr/bin/chromium")

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from programs import PROGRAMS  # noqa: E402
from test_prepare_debug import execute  # noqa: E402


class _Page(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.links, self.ids = [], set()

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        for name in ("href", "src"):
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


def test_every_link_of_the_report_resolves(gpt2_dump):
    index_page = build_report(str(gpt2_dump))
    assert index_page == os.path.join(str(gpt2_dump), "report", "index.html")
    pages, checked = check_site(os.path.dirname(index_page))
    index = json.loads((gpt2_dump / "index.json").read_text())
    assert len(pages) == 1 + len(index["functions"]) + len(index["artifacts"])
    assert checked > len(pages)
    compiled = [c for c in index["compiles"] if c["compiled"]]
    assert compiled and all(c["times"]["frame"] > 0 for c in compiled)     # from Dynamo's metrics
    index_text = open(index_page, encoding="utf-8").read()
    assert "compile time (s)" in index_text and "<th>graphs</th>" in index_text
    row = re.search(r'>GPT2Block\.forward</a></td>(.*?)</tr>', index_text, re.S).group(1)
    assert re.findall(r"<td>([^<]*)</td>", row)[2:5] == ["1", "1", "1"], row      # compiles, graphs, breaks
    page = open(os.path.join(os.path.dirname(index_page), "function_GPT2Block.forward.html"), encoding="utf-8").read()
    assert re.search(r"Compile time: backend [\d.]+ s, frame [\d.]+ s", page), page


def test_graph_breaks_show_at_their_line_and_files_link_what_they_call(gpt2_dump):
    root = os.path.dirname(build_report(str(gpt2_dump)))
    index = json.loads((gpt2_dump / "index.json").read_text())
    broke = next(c for c in index["compiles"] if c["graph_break"] and c["function"] == "GPT2Block.forward")
    page = open(os.path.join(root, "function_GPT2Block.forward.html"), encoding="utf-8").read()
    assert 'class="break"' in page and "# graph break: Call to `torch._dynamo.graph_break()`" in page
    assert broke["graph_break"]["reason"] in page
    # each source line links to the dumped lines that run it: graph nodes, the transformed call, the resume
    assert re.search(r'self\.ln_1\(hidden_states\).*<a href="files/GPT2Block\.forward\.compile_\d+_0\.graph\.py\.html'
                     r'#L-\d+">graph:\d+</a>', page), page
    assert re.search(r'self\.mlp\(hidden_states\).*>resume_function:\d+</a>', page), page
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
    total = 1 + len(index["functions"]) + len(index["artifacts"])
    assert "\rreport: 1/%d" % total in err and err.endswith("\rreport: %d/%d\r\x1b[K" % (total, total)), err[-300:]


def test_a_browser_goes_from_the_index_to_a_break_its_graph_node_and_the_call(gpt2_dump, tmp_path):
    """Headless Chromium (Debian's, driven by playwright) opens the report from disk and
    clicks: the index, the layer's function, the graph break's line, the graph node that
    line became, then the transformed code's call of that graph; a screenshot per step."""
    from playwright.sync_api import sync_playwright
    index_page = build_report(str(gpt2_dump))
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--headless", "--no-sandbox"])
        try:
            page = browser.new_page()
            page.goto("file://" + index_page)
            assert page.title() == "unveil report: what torch.compile did"
            page.screenshot(path=str(tmp_path / "1_index.png"))
            page.click("text=GPT2Block.forward")
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
    assert re.search(r"self\.l2\(torch\.relu\(self\.l1\(x\)\)\).*>graph:\d+</a>.*>inductor_output:\d+</a>", function)
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
        finally:
            browser.close()
