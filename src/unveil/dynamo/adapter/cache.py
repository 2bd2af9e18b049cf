"""Dynamo's cache: the entries it holds for a code object
(``torch._C._dynamo.eval_frame._debug_get_cache_entry_list``), each with its guard tree
(``torch._dynamo.guards.GuardManagerWrapper``) and the globals its guards read; the code
objects it holds entries for (``torch._dynamo.convert_frame.input_codes``); and
``torch._dynamo.reset``, which empties it."""
import torch
import torch._dynamo  # noqa: F401  (registers the submodules used below)

from . import compile_ids


class CacheEntry:
    """One entry of Dynamo's cache for a code object, newest first."""

    def __init__(self, raw):
        self.transformed = raw.code
        self.compile_id = compile_ids.as_text(raw.compile_id)
        self.guard_manager = raw.guard_manager

    def check(self, f_locals):
        """Dynamo's own guard on ``f_locals`` (a dict of the frame's locals)."""
        return bool(self.guard_manager.check(f_locals))


    def guard_tree(self):
        """The guard tree as :class:`GuardNode` s, relational guards listed once."""
        # relational guards by id, kept alive: pybind11 gives the same wrapper for one
        # guard while a wrapper lives, and a freed wrapper's id may go to another guard
        seen = {}
        guards = torch._C._dynamo.guards
        relational, dict_manager = guards.RelationalGuard, guards.DictGuardManager

        def leaves(mgr):
            out = []
            for guard in mgr.get_leaf_guards():
                if isinstance(guard, relational):
                    if id(guard) in seen:
                        continue
                    seen[id(guard)] = guard
                out.append((type(guard).__name__, list(guard.verbose_code_parts())))
            return out

        def visit(mgr):
            node = GuardNode(mgr.get_source(), mgr.get_type_of_guarded_value(), leaves(mgr))
            if isinstance(mgr, dict_manager):
                for _, (key_mgr, val_mgr) in sorted(mgr.get_key_value_managers().items()):
                    node.children += [visit(sub) for sub in (key_mgr, val_mgr) if sub is not None]
            node.children += [visit(child) for child in mgr.get_child_managers()]
            return node

        root = visit(self.guard_manager.root)
        for guard in self.guard_manager.root.get_epilogue_lambda_guards():
            root.epilogue.append((type(guard).__name__, list(guard.verbose_code_parts())))
        return root


class GuardNode:
    """A value Dynamo guards: its source expression, type, and leaf guards."""

    def __init__(self, source, value_type, leaves):
        self.source = source
        self.value_type = value_type
        self.leaves = leaves          # [(guard kind, [verbose code parts])]
        self.children = []
        self.epilogue = []            # root only: shape guards checked last


def cache_entries(code):
    """Dynamo's cache entries for ``code``, in the order Dynamo tries them."""
    from torch._C._dynamo.eval_frame import _debug_get_cache_entry_list
    return [CacheEntry(raw) for raw in _debug_get_cache_entry_list(code)]


def compiled_codes():
    """The code objects Dynamo holds compiled code for since the last reset, in the order
    it first saw them."""
    from torch._dynamo import convert_frame
    codes = (ref() for ref in convert_frame.input_codes.seen)
    return [code for code in codes if code is not None and cache_entries(code)]


def guard_globals(entry):
    """The globals dict the entry's guard reads as ``G`` (the frame's globals)."""
    scope = getattr(entry.guard_manager, "global_scope", None) or {}
    return scope.get("G")


def reset():
    """Forget everything Dynamo compiled (its caches, resume functions, counters)."""
    torch._dynamo.reset()
