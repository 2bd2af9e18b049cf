"""What a dump's ``index.json`` says, for its readers (the report, ``unveil diff``,
``why-recompile``), which need no torch."""
import os
import re

#: the comment Inductor writes before each kernel call of its code with provenance tracking on
#: (``unveil.debug()`` turns it on): ``# [Provenance debug handles] cpp_fused_relu_0:2``.  An
#: Inductor file's index entry keys its ``kernel_nodes`` by that ``name:handle``.
KERNEL_HANDLE = re.compile(r"^\s*# \[Provenance debug handles\] (\S+)\s*$")
#: FX's comment before the nodes of one line of the user's code in a printed graph (after a
#: node's annotations where it has some: ``# ac_graph_id: 2 - PREFER_RECOMPUTE File: ...``):
#: its indentation, the file and the line
FILE_COMMENT = re.compile(r"^(\s*)#(?: [^#\n]*?)? File: (.+?):(\d+) in .*$", re.MULTILINE)
#: FX's comment before nodes that come from no line
NO_LINE_COMMENT = "# No stacktrace found for following nodes"


def ran_in(index):
    """The directory the dumped program ran in (a dump from before ``cwd``: its script's)."""
    return index.get("cwd") or index.get("program_dir") or os.curdir


def at_the_end(index, comp):
    """Whether compile ``comp`` (an entry of the index's ``compiles``) is of the dump's last
    generation: a ``torch._dynamo.reset()`` in the block empties Dynamo's cache (and its
    compile ids start again from 0/0), so when the block ends the cache holds entries of
    those compiles alone.  (A dump from before the index said its ``generation``: the
    last of its compiles'.)"""
    last = index.get("generation")
    if last is None:
        last = max((c.get("generation", 0) for c in index.get("compiles", [])), default=0)
    return comp.get("generation", 0) == last


def compile_label(cid, generation):
    """A compile's id, told apart from the same id of another generation (after the
    program's Nth ``torch._dynamo.reset()`` Dynamo's ids start again from 0/0): ``0/1``,
    then ``0/1_reset1``."""
    return cid if not generation else "%s_reset%d" % (cid, generation)


def label_of(entry):
    """The label (:func:`compile_label`) of the compile an index entry (of ``compiles``, or an
    artifact of one) names; a dump from before ``generation`` has generation 0 alone."""
    return compile_label(entry["compile_id"], entry.get("generation", 0))


def compile_key(entry):
    """``(function, generation, compile id)``: what tells one compile from every other in a
    dump, for an entry of ``compiles`` or an artifact (a per-function file's: ``(function, 0,
    None)``).  The compile id alone repeats after a ``torch._dynamo.reset()``."""
    return entry["function"], entry.get("generation", 0), entry.get("compile_id")


def source_path(filename, directory):
    """The file a code object's file name names.  A script run through ``runpy`` (``python -m
    debugpy prog.py``, ``runpy.run_path``) has the relative name it was given, as its code and
    Dynamo's records say it: that is relative to the ``directory`` the program ran in."""
    if not filename or os.path.isabs(filename) or filename.startswith("<"):
        return filename
    return os.path.join(directory, filename)


def reason_notes(reason):
    """What a recompile reason (of a compile's ``recompile_reasons``) says besides its guard
    and where the guard came from, a line each: what the names in the guard stand for, the
    value Dynamo could not read and what that means, the object whose id the guard checks."""
    notes = ["where %s is %s" % item for item in sorted((reason.get("names") or {}).items())]
    if reason.get("unreadable"):
        notes.append(unreadable_line(reason))
    if reason.get("identity"):
        notes.append("the id it checks is that of %s (which compile %s ran for)"
                     % (reason["identity"], reason["failed_entry"]))
    return notes


def told_restarts(comp):
    """The reasons Dynamo traced a compile's frame again (a restart) that say something of
    their own: not the graph break's (a break makes Dynamo trace again up to it), nor an
    unnamed one (``Unknown fail_and_restart_analysis``: Dynamo's own affair)."""
    brk = comp.get("graph_break")
    return [reason for reason in comp.get("restarts") or []
            if (not brk or reason != brk["reason"]) and not reason.startswith("Unknown")]


def unreadable_line(reason):
    """What a recompile reason whose guard could not read its value means, in words."""
    unreadable = reason["unreadable"]
    return "Dynamo could not read %s to check it (%s): the value is no longer the kind of object " \
        "compile %s was made for" % (unreadable["value"], unreadable["why"].rstrip("."), reason["failed_entry"])
