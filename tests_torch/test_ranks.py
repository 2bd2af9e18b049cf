"""Distributed runs: under torchrun each rank dumps into its own directory, and
``ranks.json`` covers them all and flags the rank whose graphs or guards differ."""
import json
import os
import re
import subprocess
import sys

EXAMPLES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "run_examples")


def test_each_rank_dumps_apart_and_the_rank_that_differs_is_flagged(tmp_path):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p), OMP_NUM_THREADS="1")
    done = subprocess.run([sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc_per_node", "2",
                           os.path.join(EXAMPLES, "two_ranks.py"), str(tmp_path)],
                          capture_output=True, text=True, env=env, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr[-4000:]
    assert done.stdout.count("total 18.0") == 2, done.stdout       # 9 on each rank, all-reduced
    for rank in (0, 1):
        index = json.loads((tmp_path / ("rank_%d" % rank) / "index.json").read_text())
        assert {a["kind"] for a in index["artifacts"]} >= {"transformed_code", "graph", "guards", "full_code"}
    ranks = json.loads((tmp_path / "ranks.json").read_text())
    assert ranks["world_size"] == 2
    first, second = ranks["ranks"]
    assert (first["rank"], first["dir"], first["differs_from"], first["differences"]) == (0, "rank_0", None, [])
    assert second["rank"] == 1 and second["differs_from"] == 0
    differing = " ".join(second["differences"])
    assert "step.compile_0_0.graph.py" in differing and "step.compile_0_0.guards.py" in differing, second
    graph = (tmp_path / "rank_1" / "step.compile_0_0.graph.py").read_text()
    assert "relu" in graph and "relu" not in (tmp_path / "rank_0" / "step.compile_0_0.graph.py").read_text()
    # each says where the file first differs, and how (it said only "differs: FILE"; a new-user trial)
    for headline in second["differences"]:
        found = re.match(r"^differs: (\S+), first at line (\d+): (?:`.*` in the lowest rank, `(.*)` here|`(.*)`, a line "
                         r"only this rank has)$", headline)
        assert found, headline
        line = (tmp_path / "rank_1" / found.group(1)).read_text().splitlines()[int(found.group(2)) - 1]
        here = (found.group(3) or found.group(4)).strip(".").split("<program>")[-1]   # (paths as unveil diff shows them)
        assert here in line, (headline, line)
    assert not (tmp_path / "index.json").exists()       # the top level holds the ranks' directories

    # the top level is no dump: the report says which are (it said only "not a dump directory")
    from unveil.report import ReportError, build_report
    try:
        build_report(str(tmp_path))
    except ReportError as exc:
        assert str(exc) == "%s holds a dump per rank (rank_0, rank_1): unveil report %s" % (tmp_path, tmp_path / "rank_0")
    else:
        raise AssertionError("a report was built of the ranks' parent directory")


def test_a_line_only_one_rank_has_that_is_empty_is_named_so():
    """ranks.json quoted an empty line as ``first at line 18: ``, a line only this rank has``
    (a new-user trial: rank 1's extra ``h * 2`` had moved a blank line)."""
    from unveil.dynamo.dump.ranks import _headlines
    diff = ["--- /d/rank_0/f.py", "+++ /d/rank_1/f.py", "@@ -16,3 +16,4 @@", " a", " b", "+", " c"]
    assert _headlines(diff, "/d") == ["differs: rank_1/f.py, first at line 18: an empty line only this rank has"]
    diff = ["--- /d/rank_0/f.py", "+++ /d/rank_1/f.py", "@@ -16,3 +16,2 @@", " a", "-", " c"]
    assert _headlines(diff, "/d") == ["differs: rank_1/f.py, first at line 17: an empty line only the lowest rank has"]


def test_a_compile_only_one_rank_made_says_why_it_was_made():
    """A rank that recompiled where the lowest did not was listed as ``Net.forward, compile #1:
    absent -> present``, without the reasons the README says ranks.json gives."""
    from unveil.dumpdiff import _presence
    assert _presence(None) == "absent"
    assert _presence((None, ["tensor 'x' size mismatch at index 0. expected 8, actual 12"], None)) == \
        "present (recompiled: tensor 'x' size mismatch at index 0. expected 8, actual 12)"
    assert _presence(("Call to `print`", [], None)) == "present (graph break: Call to `print`)"
    assert _presence((None, [], None)) == "present"
