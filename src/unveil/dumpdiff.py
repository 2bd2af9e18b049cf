"""``unveil diff DIR_A DIR_B``: two dumps lined up by function and compile, and what
changed: graphs, guards, transformed code, kernels, graph breaks, recompile reasons.

Files are paired by function, kind, generation (the ``torch._dynamo.reset()``s before the
compile) and the compile's place among that function's compiles of that generation
(compile ids count over the whole process and shift when another frame compiles first;
a reset starts them again from 0/0), and a compile is named by its place as the dump
labels a compile id (``compile #1``, ``compile #1_reset1``).  What differs from run to run of the same program is left out
before comparing: graph ids and uuids (``__compiled_fn_3_<uuid>``, numbered in the
order a file names them), resume-function counters, object ids and addresses,
compile ids, dict versions; and the places each run was installed at: the dump
directory, the program's own directory (two checkouts of one program), site-packages and
the standard library (two environments), in full and as torch shortens them (see
:mod:`unveil.volatile`).  Constants are compared as written.  Reads files only: no torch.
"""
import difflib
import json
import os
import re

from .dump_index import compile_key, compile_label
from .volatile import Places, dict_versions_replaced, ids_replaced, program_dir

#: what always differs between two runs, and what it is written as
_VOLATILE = [
    (re.compile(r"\b__resume_at_(\d+)_\d+\b"), r"__resume_at_\1_N"),
    (re.compile(r"\b___context_manager_(\d+)_\d+\b"), r"___context_manager_\1_N"),
    (re.compile(r"\b__builtins_dict___\d+\b"), "__builtins_dict___N"),
    (re.compile(r"\bcompile_\d+_\d+\b"), "compile_N_N"),
    (re.compile(r"\bcompile \d+/\d+\b"), "compile N/N"),
    (re.compile(r"\[\d+/\d+\]"), "[N/N]"),
    (re.compile(r"\b0x[0-9a-fA-F]{6,}\b"), "0x..."),
    (re.compile(r"\b0x[0-9a-fA-F]*\.\.\."), "0x..."),         # an address a long value's text was cut in
    (re.compile(r"(<id>_c)\d+\b"), r"\1N"),                      # ___module_collections_<id>_c23: a counter
    # where in torch's own code a guard of 0/1 specialization was made: Inductor's or AOT
    # Autograd's cache, which a warm run hits and a cold one misses ("... and (_inductor/...:2273 in f))",
    # or the guard's only place: "(from: (_functorch/_aot_autograd/autograd_cache.py:1210 in evaluate_guards))")
    (re.compile(r"(\b(?:and|from:) \()(?:_?[a-z]\w*/)+\w+\.py:\d+ in [\w<>.]+\)(?=\)*$)", re.MULTILINE),
     r"\1torch's code)"),
    # the counter in the AOT id Inductor's code begins with (``# AOT ID: ['0_backward']``), which a
    # warm cache or another compile before it changes
    (re.compile(r"^(# AOT ID: \[')\d+(_\w+'\])", re.MULTILINE), r"\1N\2"),
]
#: a compiled graph's global, with the uuid torch 2.6+ adds (also inside ``..._GraphModule``)
_GRAPH_ID = re.compile(r"\b__compiled_fn_\d+(?:_[0-9a-f]{8}_[0-9a-f]{4}_[0-9a-f]{4}_[0-9a-f]{4}_[0-9a-f]{12})?"
                       r"(?![0-9a-f])")


class DumpError(Exception):
    """Not a dump directory (no readable index.json)."""


def diff_dumps(dir_a, dir_b, full_code=False):
    """The differences between two dump directories as text lines (empty: the same).  A
    function's full-code file repeats its graphs, guards and transformed code: where one of
    those differs too, the full-code file's diff is one line saying so (all of it with
    ``full_code``)."""
    a, b = _Dump(dir_a), _Dump(dir_b)
    out, repeats = [], []
    differing = {}                   # function -> its own or its resume functions' keys whose files differ
    owner = dict(b.owner, **a.owner)
    for key in sorted(set(a.files) | set(b.files), key=lambda k: (k[1] == "full_code", k)):
        if key not in b.files:
            out.append("only in %s: %s" % (dir_a, a.files[key]))
        elif key not in a.files:
            out.append("only in %s: %s" % (dir_b, b.files[key]))
        else:
            lines = list(difflib.unified_diff(a.text(key).splitlines(), b.text(key).splitlines(),
                                              os.path.join(dir_a, a.files[key]), os.path.join(dir_b, b.files[key]),
                                              n=2, lineterm=""))
            if lines and key[1] == "full_code" and not full_code and key[0] in differing:
                repeats.append("%s differs too: it repeats the files of %s above (unveil diff --full-code shows it)"
                               % (b.files[key], " and ".join(differing[key[0]])))
                continue
            if lines:
                keys = differing.setdefault(owner.get(key[0], key[0]), [])
                if key[0] not in keys:
                    keys.append(key[0])
            out += lines
    out += repeats
    for what, mine, theirs in _explained(a, b):
        out.append("%s: %s  ->  %s" % (what, mine, theirs))
    return out


class _Dump:
    def __init__(self, path):
        self.path = os.path.abspath(path)
        try:
            with open(os.path.join(path, "index.json"), encoding="utf-8") as fh:
                self.index = json.load(fh)
        except (OSError, ValueError) as exc:
            raise DumpError("%s is not a dump directory (index.json: %s)" % (path, exc)) from None
        # a resume function -> the function whose full-code file holds its code too
        resumes = {fn["key"]: fn.get("resumes") for fn in self.index.get("functions", [])}
        self.owner = {key: _outermost(key, resumes) for key in resumes}
        self.ordinal = {}                     # compile_key -> its place among the function's compiles of its generation
        for comp in self.index.get("compiles", []):
            function, generation, _ = key = compile_key(comp)
            self.ordinal[key] = len([k for k in self.ordinal if k[:2] == (function, generation)])
        # the program is where the user's files the dump names are; the directory it was run
        # from only when it names none (``python -c`` runs from any directory)
        found = program_dir(_paths_named(self.index), self.path)
        if found is None and self.index.get("program_dir"):
            found = program_dir([os.path.join(self.index["program_dir"], "_")], self.path)
        self.places = Places(self.path, found)
        self.files, self.graphs = {}, {}
        for art in self.index.get("artifacts", []):
            key = self.key(art)
            self.files[key] = art["file"]
            if art.get("graph"):       # a graph is named by its file's place in the pairing
                self.graphs[art["graph"]] = "__compiled_fn[%s%s]" % (key[4], _named(key[2], key[3]))

    def key(self, art):
        """``(function, kind, generation, place, the file's name without its compile)``;
        place -1 for a function's own files."""
        _, generation, _ = compile_key(art)
        place = self.ordinal.get(compile_key(art))
        extra = re.sub(r"\.compile_\d+_\d+(?:_reset\d+)?", "", art.get("base") or art["file"])
        return (art["function"], art["kind"], generation, place if place is not None else -1, extra)

    def text(self, key):
        with open(os.path.join(self.path, self.files[key]), encoding="utf-8", errors="replace") as fh:
            return normalised(fh.read(), self.places, self.graphs)


def _named(generation, place):
    """What the diff calls the compile at ``place`` among its function's compiles of
    ``generation``: ``#1``, ``#1_reset1`` (as ``dump_index.compile_label`` labels an id)."""
    return compile_label("#%d" % place, generation)


def _outermost(key, resumes):
    """The function a resume function's chain of ``resumes`` starts at (``key`` itself for
    one that resumes nothing)."""
    seen = {key}
    while resumes.get(key) and resumes[key] not in seen:
        key = resumes[key]
        seen.add(key)
    return key


def normalised(text, places, graphs=None):
    """``text`` with what differs from run to run written the same way: the places the run
    was installed at (``places``, a :class:`unveil.volatile.Places`, or the dump's path),
    ids, and a graph the index knows by the place of its file (``graphs``), another by its
    order in the text."""
    if not isinstance(places, Places):
        places = Places(places)
    text = places.replaced(text)
    named = dict(graphs or {})
    text = _GRAPH_ID.sub(lambda m: named.setdefault(m.group(0), "__compiled_fn_%d" % len(named)), text)
    text = dict_versions_replaced(ids_replaced(text))
    for pattern, replacement in _VOLATILE:
        text = pattern.sub(replacement, text)
    return text


def _paths_named(index):
    """Every file path the index names: the functions', and those of breaks, stacks and
    recompile reasons (the user's own among them show where the program is)."""
    paths = [fn.get("filename") for fn in index.get("functions", [])]
    for comp in index.get("compiles", []):
        frames = list(comp.get("stack") or [])
        for brk in [comp.get("graph_break")] + [comp.get(k) for k in ("skipped", "failed")]:
            if brk:
                frames += (brk.get("user_stack") or []) + [brk.get("location")]
        frames += [r.get("location") for r in comp.get("recompile_reasons") or []]
        paths += [f.get("filename") for f in frames if isinstance(f, dict)]
    return [p for p in paths if isinstance(p, str)]


def _explained(a, b):
    """Per compile (paired as the files are: by function, generation and place): graph break
    and recompile reasons that differ."""
    def by_place(dump):
        out = {}
        for comp in dump.index.get("compiles", []):
            function, generation, _ = key = compile_key(comp)
            brk = comp.get("graph_break") or {}
            reasons = sorted(r["guard"] for r in comp.get("recompile_reasons") or [])
            skipped = (comp.get("skipped") or {}).get("reason")
            out[function, generation, dump.ordinal[key]] = (brk.get("reason"), reasons, skipped)
        return out
    mine, theirs = by_place(a), by_place(b)
    for key in sorted(set(mine) & set(theirs)):
        for label, x, y in zip(("graph break", "recompile reasons", "skipped"), mine[key], theirs[key]):
            if normalised(json.dumps(x), a.places) != normalised(json.dumps(y), b.places):
                yield "%s: %s" % (_compile_name(key), label), x, y
    for key in sorted(set(mine) ^ set(theirs)):
        yield _compile_name(key), _presence(mine.get(key)), _presence(theirs.get(key))


def _compile_name(key):
    """``f, compile #1`` (``#1_reset1`` after a reset) for ``(function, generation, place)``."""
    function, generation, place = key
    return "%s, compile %s" % (function, _named(generation, place))


def _presence(explained):
    """A compile one dump has and the other lacks: "absent", or "present" with why it was
    made (its recompile reasons) and how it ended (its graph break, or why it was skipped)."""
    if explained is None:
        return "absent"
    brk, reasons, skipped = explained
    words = ["recompiled: %s" % "; ".join(reasons)] if reasons else []
    words += ["graph break: %s" % brk] if brk else []
    words += ["skipped: %s" % skipped] if skipped else []
    return "present (%s)" % ", ".join(words) if words else "present"
