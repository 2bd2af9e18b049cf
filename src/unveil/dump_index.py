"""What a dump's ``index.json`` says, for its readers (the report, ``why-recompile``), which
need no torch."""
import os
import re

#: the comment Inductor writes before each kernel call of its code with provenance tracking on
#: (``unveil.debug()`` turns it on): ``# [Provenance debug handles] cpp_fused_relu_0:2``.  An
#: Inductor file's index entry keys its ``kernel_nodes`` by that ``name:handle``.
KERNEL_HANDLE = re.compile(r"^\s*# \[Provenance debug handles\] (\S+)\s*$")


def ran_in(index):
    """The directory the dumped program ran in (a dump from before ``cwd``: its script's)."""
    return index.get("cwd") or index.get("program_dir") or os.curdir


def source_path(filename, directory):
    """The file a code object's file name names.  A script run through ``runpy`` (``python -m
    debugpy prog.py``, ``runpy.run_path``) has the relative name it was given, as its code and
    Dynamo's records say it: that is relative to the ``directory`` the program ran in."""
    if not filename or os.path.isabs(filename) or filename.startswith("<"):
        return filename
    return os.path.join(directory, filename)
