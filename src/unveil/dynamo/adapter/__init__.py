"""Every place unveil touches PyTorch, most of them private or semi-public API, in
modules by topic.

When a torch release moves one of these, one function here breaks and
``tests_torch/test_adapter.py`` names it.  Nothing else in unveil imports
torch's internals (``tests/test_private_torch.py`` checks it).

What belongs here:

* every use of a private torch module, function or attribute (``torch._C``,
  ``torch._dynamo``, ``torch.utils._device``, ``torch.overrides._*``, the
  ``_torchdynamo_orig_callable`` torch.compile puts on its wrapper, ...) and of
  the keys Dynamo sets in its graphs' ``meta``: the hooks, the names of torch's
  internal loggers, and what dumped guards check (``guards/runtime.py`` calls
  :mod:`.guard_checks`);
* what unveil knows of Dynamo's guard text that names Dynamo's privates: its
  helpers' names (``___check_type_id``, ``___dict_version``, ...) and the
  descriptions that are not Python (the global state, saved-tensors-hooks and
  function-mode-stack guards), in :mod:`.guard_text`.  ``guards/conditions.py``
  keeps the rest of its translation (the shapes of Python guard expressions).

What does not: the names Dynamo gives to the globals and locals of the code it
makes (``__compiled_fn_N``, ``__resume_at_N``, ``__import_m``, ``___stackN``,
``torch_dynamo_resume_in_``).  They are names in public code objects and in the
dumped files, read as text also by modules that never import torch (the
report, ``dumpdiff``), so each reader keeps the pattern it needs.  Text that
unveil writes for another process (a guards file's imports) names only public
torch modules; what it calls comes from ``guards/runtime.py``, and so from here.

The modules (each names the hook points it touches):

* :mod:`.versions` -- the torch release, whether unveil supports it;
* :mod:`.bytecode_hook` -- Dynamo's bytecode hook and ``bytecode`` log;
* :mod:`.compile_ids` -- the compile id of the compile running, a trace record, a graph;
* :mod:`.logs` -- taps on the structured trace and the ``graph_code`` and ``aot_graphs`` logs;
* :mod:`.patches` -- torch's functions replaced while the hooks are attached;
* :mod:`.dynamo_off` -- Dynamo kept off unveil's callbacks and files, and off debuggers;
* :mod:`.cache` -- Dynamo's cache entries, their guard trees, ``torch._dynamo.reset``;
* :mod:`.compile_outcomes` -- recompile limits, frames given up on or skipped, errors that go on;
* :mod:`.resume_functions` -- which code a resume function continues, and where;
* :mod:`.frames` -- what torch.compile's wrapper runs, the frame Dynamo is compiling;
* :mod:`.graphs` -- Dynamo's FX graph modules: example values, subgraphs, readable text;
* :mod:`.backends` -- backend names, Inductor's loaded modules, fresh backend compiles;
* :mod:`.guard_checks` -- what dumped guards check, read now;
* :mod:`.guard_text` -- Dynamo's guard helpers' names and its descriptions that are not Python.

This package's ``__init__`` imports nothing: importing a module of it imports torch
only where that module needs it.
"""
