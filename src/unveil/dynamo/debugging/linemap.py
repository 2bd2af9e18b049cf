"""Which dumped lines run a line of the user's own code.

Three sources: a decompiled file (transformed code, resume function) knows, per
printed line, the original line of the bytecode it came from (Dynamo keeps the
user's lines in the code it makes); a graph file says it in the comments torch
writes before each node's statement (``# File: /path/model.py:42 in forward,
code: ...``); Inductor's code, by its provenance record of what each kernel call
computes (:mod:`.kernel_calls`).
"""
import collections
import os
import re

from .kernel_calls import frames_of, kernel_lines
from ...dump_index import FILE_COMMENT, NO_LINE_COMMENT

#: a node's statement in a printed graph: its name, then its annotation or ``=``
_NODE = re.compile(r"^\s+(\w+)(?::|\s*=)")
_OTHER_COMMENT = re.compile(r"^\s*" + re.escape(NO_LINE_COMMENT))
_DEFINITION = re.compile(r"^\s*(?:class|def) ")

Location = collections.namedtuple("Location", "path line kind")


def _same_file(path):
    return os.path.normcase(os.path.abspath(path))


class LineMap:
    def __init__(self, not_the_users=lambda path: False):
        self._files = {}        # dumped path -> (kind, [(user file, user line, dumped line)])
        self.listener = None    # called after each file added
        #: whether a file a stack trace names runs none of the user's lines (a dumped transformed
        #: code's, which ``debug()`` runs: torch records its frame for nodes that have no line)
        self.not_the_users = not_the_users

    def add_decompiled(self, path, header_lines, lines, user_file, kind):
        """A decompiled file: ``lines[i]`` is the original line of its text line ``i + 1``
        after ``header_lines`` lines of comments."""
        user_file = _same_file(user_file)
        self._files[path] = (kind, [(user_file, line, header_lines + i + 1)
                                    for i, line in enumerate(lines) if line is not None])
        self._added()

    def add_graph(self, path, text, kind, stacks=None):
        """A graph file (its text); ``kind`` None keeps what the file was added as before.
        ``stacks`` (:func:`node_stacks` of its graph module, where there is one) gives each
        node the outer frames of its stack too, which its ``# File:`` comment leaves out:
        the node of ``torch.tanh(h)`` in an ``Act`` module stands for the line
        ``h = self.act(h)`` that called it as well."""
        if kind is None:
            kind = self._files.get(path, ("graph", None))[0]
        found, here = [], None
        for number, line in enumerate(text.splitlines(), 1):
            match = FILE_COMMENT.match(line)
            if match:
                here = None if self.not_the_users(match.group(2)) else (_same_file(match.group(2)), int(match.group(3)))
            elif _OTHER_COMMENT.match(line) or _DEFINITION.match(line):
                here = None     # (a subgraph's class, torch.cond's branch, begins no line of the user's)
            elif here is not None and line.strip() and not line.lstrip().startswith("#"):
                found.append(here + (number,))
                node = _NODE.match(line)
                outer = (stacks or {}).get(node.group(1), ()) if node else ()
                # (a frame of a dumped resume function that ``debug()`` runs: the user's line it runs)
                outer = [self.origin(_same_file(file), at) for file, at in outer if not self.not_the_users(file)]
                found += [(file, at, number) for file, at in outer if (file, at) != here]
        self._files[path] = (kind, found)
        self._added()

    def add_kernels(self, path, text, stack_traces, graph=None):
        """Inductor's code ``text``, written to ``path``, and its provenance record's stack
        traces (decoded): each kernel call stands for the lines it computes; one whose
        traces are missing, for the one line all of ``graph`` (the path of Dynamo's graph
        the code was made from) computes, where that graph has one line only."""
        graph_lines = {(file, line) for file, line, _ in self._files.get(graph, (None, ()))[1]}
        untraced = graph_lines if len(graph_lines) == 1 else ()
        self._files[path] = ("inductor output", [(_same_file(file), line, dumped)
                                                 for file, line, dumped in kernel_lines(text, stack_traces, untraced)
                                                 if not self.not_the_users(file)])
        self._added()

    def forget(self, path):
        """A dumped file that never runs (made from a graph Dynamo discarded) runs no line."""
        if self._files.pop(path, None) is not None:
            self._added()

    def _added(self):
        if self.listener is not None:
            self.listener()

    def locate(self, user_file, user_line):
        """The dumped lines that run ``user_file:user_line``: the first line of each run of
        consecutive lines in each file, as :class:`Location` s.  Through dumped files too:
        code run from a dumped resume function is traced by Dynamo, whose transformed code
        and graphs then name that file's lines."""
        wanted, out, seen = [(file, user_line) for file in self.files_named(user_file)], [], set()
        while wanted:
            file, line = wanted.pop()
            for where in self._direct(file, line):
                if (where.path, where.line) not in seen:
                    seen.add((where.path, where.line))
                    out.append(where)
                    wanted += [(where.path, dumped) for dumped in self._lines_of(where.path, where.line)]
        return sorted(out)

    def files_named(self, user_file):
        """The user's files ``user_file`` names: the file it is from the current directory;
        a relative name that is no file here (``model.py`` run from elsewhere), each file
        the dumped code names whose path ends with it."""
        exact = _same_file(user_file)
        if os.path.isabs(user_file) or os.path.exists(user_file):
            return [exact]
        tail = os.sep + os.path.normcase(os.path.normpath(user_file))
        ending = sorted({file for _, entries in self._files.values() for file, _, _ in entries if file.endswith(tail)})
        return ending or [exact]

    def has_kind(self, kind):
        """Whether a dumped file of ``kind`` (``"inductor output"``) was added."""
        return any(k == kind for k, _ in self._files.values())

    def dumped_files(self):
        """The dumped files whose lines run the user's."""
        return list(self._files)

    def origin(self, path, line):
        """The user's ``(file, line)`` that dumped ``path:line`` runs (through dumped files
        that Dynamo traced), or ``(path, line)`` for a file that is not a dumped one."""
        seen = set()
        while (path, line) not in seen:
            seen.add((path, line))
            kind_entries = self._files.get(path)
            if kind_entries is None:
                break
            found = [(file, source) for file, source, dumped in kind_entries[1] if dumped == line]
            if not found:
                break
            path, line = found[0]
        return path, line

    def table(self, directory):
        """Every dumped line that runs a user's line, as ``{file relative to directory:
        [[user file, user line, dumped line], ...]}`` (the user's, through dumped files)."""
        out = {}
        for path, (_, entries) in sorted(self._files.items()):
            rows = sorted([list(self.origin(file, line)) + [dumped] for file, line, dumped in entries],
                          key=lambda row: row[2])
            out[os.path.relpath(path, directory)] = rows
        return out

    def _direct(self, user_file, user_line):
        for path, (kind, entries) in sorted(self._files.items()):
            previous = None
            for file, line, dumped in sorted(entries, key=lambda e: e[2]):
                if file == user_file and line == user_line:
                    if previous is None or dumped != previous + 1:
                        yield Location(path, dumped, kind)
                    previous = dumped

    def _lines_of(self, path, first):
        """The run of consecutive lines of ``path`` that starts at ``first`` and stands for
        one line of the code it came from."""
        kind, entries = self._files[path]
        by_line = {dumped: (file, line) for file, line, dumped in entries}
        origin, n = by_line.get(first), first
        while by_line.get(n) == origin:
            yield n
            n += 1


def node_stacks(gm):
    """``{node name: [(file, line), ...]}``: the frames of each node's stack trace in graph
    module ``gm`` (``node.meta["stack_trace"]``), innermost first."""
    stacks = {}
    for node in gm.graph.nodes:
        trace = node.meta.get("stack_trace")
        if isinstance(trace, str):
            stacks[node.name] = frames_of(trace)
    return stacks
