"""``unveil.debug()``: what torch.compile runs, run from the dumped files, to step through.

One pass: the block starts from an empty Dynamo cache (``torch._dynamo.reset()``),
so everything in it is compiled inside it; each piece of code is written to the
dump directory when torch makes it and then runs from that file (a
:class:`~unveil.dynamo.session.DebugSession` with ``run_dumped``).  A breakpoint
in a dumped file stops there the first time that code runs, in pdb, VS Code or
PyCharm; the names and lines are the same in the next run of the same program.
When the block ends, torch's caches are reset again and everything replaced is
put back, so nothing compiled from the dump outlives it.
"""
import bdb
import os
import pdb
import sys

from ..adapter.backends import FreshBackendCompiles
from ..adapter.dynamo_off import DebuggerPausesWithoutDynamo, SkipTracing
from ..adapter.versions import unsupported_torch
from ..explanations.summary import failure_lines
from ..hub import HUB
from ..session import DebugSession

#: the debuggers' own modules, which Dynamo must not trace (see adapter.dynamo_off.SkipTracing): it
#: skips only some of the standard library, and compiled bdb's dispatch_return when pdb
#: stopped in transformed code (every later compile id moved up by one, and file names too)
DEBUGGER_MODULES = ("bdb", "pdb", "cmd", "code", "codeop", "rlcompleter", "debugpy", "pydevd", "_pydevd_bundle",
                    "_pydev_bundle", "_pydevd_frame_eval", "pydevd_plugins")


class DebugRun(DebugSession):
    """Context manager returned by :func:`unveil.debug`."""

    def __init__(self, dump_dir, pause=False):
        super().__init__(dump_dir, run_dumped=True)
        self.pause = pause
        self._wanted = []          # (file, line) of the user's code asked for by break_at
        self._breaks = set()       # (dumped file, line) where a breakpoint was set
        self._debugger = None      # the pdb this run started, if it started one
        self.lines.listener = self._set_breakpoints

    def __enter__(self):
        if unsupported_torch() is not None:
            return super().__enter__()       # says so; the block runs as if unveil were not there
        HUB.reset_torch()
        self._debuggers_skipped = SkipTracing(DEBUGGER_MODULES)
        self._debuggers_skipped.attach()
        self._backends = FreshBackendCompiles()    # which kernel call computes which line
        self._backends.attach()
        self._pauses = DebuggerPausesWithoutDynamo()
        self._pauses.attach()
        super().__enter__()
        if self.inert:
            self._pauses.detach()
            self._backends.detach()
            self._debuggers_skipped.detach()
            return self
        if self.unwritable is not None:       # nothing is dumped: the program runs as it is
            return self
        print(self._banner(), file=sys.stderr, flush=True)
        if self.pause:
            try:
                input("unveil.debug: set your breakpoints, then press Enter to run on. ")
            except EOFError:          # no one to press it: run on
                print(file=sys.stderr)
        return self

    def __exit__(self, *exc):
        if self.inert:
            return super().__exit__(*exc)
        try:
            return super().__exit__(*exc)
        finally:
            HUB.reset_torch()
            self._pauses.detach()
            self._backends.detach()
            self._debuggers_skipped.detach()
            self.replaced.undo_codes()
            self.replaced.undo_globals()
            for line in self._never_stopped():
                print(line, file=sys.stderr, flush=True)
            self._clear_breakpoints()
            if self.failures:
                lines = failure_lines(self.failures, True)
                lines[0] = "unveil.debug: " + lines[0]
                lines.append("  (summary.txt and index.json in %s list them too)" % self.dump_dir)
                print("\n".join(lines), file=sys.stderr, flush=True)

    def _banner(self):
        lines = ["unveil.debug: code torch.compile makes in this block runs from files in %s," % self.dump.path,
                 "  each written just before it first runs; a file keeps its name and lines from run to run.",
                 "  pdb: break %s:LINE   (in a `with unveil.debug(...) as session:` block, session.break_at(FILE, "
                 "LINE) for a line of your own code)"
                 % os.path.join(self.dump.path, "<function>.compile_<frame>_<n>.transformed.py"),
                 "  VS Code / PyCharm: set breakpoints in those files, with justMyCode off (see docs/debugging.md)."]
        return "\n".join(lines)

    # -- breakpoints by the user's own lines -----------------------------------------
    def locate(self, filename, line):
        """The dumped lines written so far that run line ``line`` of ``filename`` (the
        user's code): :class:`~unveil.dynamo.linemap.Location` s (path, line, kind)."""
        return self.lines.locate(filename, line)

    def break_at(self, filename, line):
        """Stop in pdb wherever dumped code runs line ``line`` of ``filename``: in files
        written so far and in those written later in the block.  Uses the pdb already
        tracing the program, else starts one that runs on until a breakpoint."""
        self._wanted.append((filename, line))
        self._set_breakpoints()
        return self.locate(filename, line)

    def _set_breakpoints(self):
        """Breakpoints where the lines ``break_at`` asked for run now; those set where they ran
        before a file was written again (a backend changed a graph after it was handed over:
        its lines moved) are cleared."""
        wanted = {(where.path, where.line) for filename, line in self._wanted
                  for where in self.lines.locate(filename, line)}
        stale = self._breaks - wanted
        debugger = _tracing_debugger() or self._debugger
        for path, line in sorted(stale):
            if debugger is not None:
                debugger.clear_break(path, line)
            self._breaks.discard((path, line))
        for path, line in sorted(wanted - self._breaks):
            self._breaks.add((path, line))
            self._break(path, line)

    def _break(self, path, line):
        debugger = _tracing_debugger() or self._debugger
        if debugger is not None:
            debugger.set_break(path, line)
            return
        self._debugger = pdb.Pdb()
        self._debugger.set_break(path, line)
        _run_on_until_a_breakpoint(self._debugger, sys._getframe(1))

    def _never_stopped(self):
        """A line for each ``break_at`` whose breakpoints never stopped the program: said at
        the block's end, since a line that runs only in code no dumped file names (under
        Inductor, a line that makes no kernel call of its own, a view say) would otherwise
        go by without a word."""
        out = []
        for filename, line in self._wanted:
            places = self.lines.locate(filename, line)
            if any(bp.hits for where in places for bp in bdb.Breakpoint.bplist.get((where.path, where.line), ())):
                continue
            where = ", ".join("%s:%d" % (os.path.basename(p.path), p.line) for p in places) or "none"
            files = self.lines.files_named(filename)
            named = "" if files == [os.path.normcase(os.path.abspath(filename))] else " (%s)" % ", ".join(files)
            inductor = "; under Inductor a graph runs as its inductor_output file's call(), where only the kernel " \
                "calls Inductor's provenance record ties to a line of yours are named" \
                if self.lines.has_kind("inductor output") else ""
            out.append("unveil.debug: break_at(%r, %d)%s never stopped: no dumped code that names that line ran "
                       "(the dumped lines naming it: %s%s)" % (os.path.basename(filename), line, named, where, inductor))
        return out

    def _clear_breakpoints(self):
        debugger = _tracing_debugger() or self._debugger
        if debugger is not None:
            for path, line in self._breaks:
                debugger.clear_break(path, line)
        self._breaks = set()
        if self._debugger is not None and not self._debugger.breaks:
            self._debugger.set_continue()      # with no breakpoint left, it stops tracing
        self._debugger = None


def _tracing_debugger():
    """The bdb debugger (pdb) tracing this thread, if any."""
    owner = getattr(sys.gettrace(), "__self__", None)
    return owner if isinstance(owner, bdb.Bdb) else None


def _run_on_until_a_breakpoint(debugger, frame):
    """``debugger.set_trace(frame)``, but running on until a breakpoint instead of
    stopping at the next line."""
    debugger.reset()
    while frame is not None:
        frame.f_trace = debugger.trace_dispatch
        debugger.botframe = frame
        frame = frame.f_back
    debugger.set_continue()
    sys.settrace(debugger.trace_dispatch)
