"""benchmarks/prepare_debug_overhead.py's reporting (the runs themselves need valgrind and minutes)."""
import importlib.util
import os

_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "benchmarks", "prepare_debug_overhead.py")
_spec = importlib.util.spec_from_file_location("prepare_debug_overhead", _PATH)
overhead = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(overhead)


def test_a_failed_run_is_named_by_its_last_line_that_says_something():
    stderr = "Traceback ...\nRecursionError: maximum recursion depth exceeded\n\n==123== Events: Ir\n   \n"
    assert overhead.error_line(stderr, 1) == "RecursionError: maximum recursion depth exceeded"
    # a run that printed nothing but blank and valgrind lines: its exit status, never an empty message
    assert overhead.error_line("\n==1== done\n\n", 139) == "exit status 139"


def test_counts_report_a_failed_tool_and_total_only_programs_both_ran(capsys):
    rows = [("ok", {"plain": (100e6, None), "unveil": (110e6, None), "depyf": (130e6, None)}),
            ("depyf_fails", {"plain": (100e6, None), "unveil": (105e6, None),
                             "depyf": (None, overhead.error_line("\n", 1))}),
            ("plain_fails", {"plain": (None, "ImportError: x"), "unveil": (None, "ImportError: x"),
                             "depyf": (120e6, None)})]
    overhead.print_counts(rows)
    out = capsys.readouterr().out
    assert "depyf_fails              depyf failed: exit status 1" in out
    assert "plain_fails              plain failed: ImportError: x" in out
    assert "total overhead where both ran: unveil 10.0 M instructions, depyf 30.0 M, ratio 0.33" in out
