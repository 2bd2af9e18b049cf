"""The globals Dynamo adds to a compiled frame's module, told apart by their names
(torch 2.13 to 2.15; one place for the prefixes): a compiled graph
``__compiled_fn_N``, a resume function ``__resume_at_N_M``, a module it imported
``__import_torch_dot_nn``, the builtins' namespace ``__builtins_dict___N``, its
own helpers ``___...``, and an object installed by its id, ``{prefix}_{id}_c{n}``
(``OutputGraph.install_global_by_id``, ``get_safe_global_name``).  Names only:
nothing of torch."""
import re

_GRAPH, _RESUME, _IMPORT, _BUILTINS_DICT, _HELPER = \
    "__compiled_fn", "__resume_at_", "__import_", "__builtins_dict__", "___"
#: a global installed by an object's id; a guard reading one, ``G['_140077905027504_c6']``
BY_ID = re.compile(r"\w*?_\d+_c\d+")
GUARD_READS_BY_ID = re.compile(r"G\['(%s)'\]" % BY_ID.pattern)
#: made once, never rebound: reading one later reads the same object
_NEVER_REBOUND = re.compile(r"__(compiled_fn|resume_at|import)_\w+$")


def is_graph(name):
    """A compiled graph's global (the backend's callable)."""
    return name.startswith(_GRAPH)


def is_resume(name):
    """A resume function's global."""
    return name.startswith(_RESUME)


def imported_module(name):
    """The name of the module an ``__import_...`` global is, or None for another global."""
    return name[len(_IMPORT):].replace("_dot_", ".") if name.startswith(_IMPORT) else None


def is_builtins_dict(name):
    """A global holding the builtins' namespace."""
    return name.startswith(_BUILTINS_DICT)


def made_by_dynamo(name):
    """Any global Dynamo made (none is the user's)."""
    return name.startswith((_GRAPH, _RESUME, _IMPORT, _BUILTINS_DICT, _HELPER)) or bool(BY_ID.fullmatch(name))


def never_rebound(name):
    """A graph, resume function or imported module: Dynamo binds it once."""
    return bool(_NEVER_REBOUND.match(name))
