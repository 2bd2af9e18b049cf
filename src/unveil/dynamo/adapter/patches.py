"""torch's functions that unveil replaces while its hooks are attached, each replacement
calling back with Dynamo off: Dynamo installing a resume function as a global
(``torch._dynamo.output_graph.OutputGraph.install_resume_function_global``, with
``torch._dynamo.code_context`` copied to a replacement), ``torch._dynamo.reset`` (its
first step ``reset_code_caches``), Dynamo setting what its frame evaluation does with a
code (``torch._dynamo.eval_frame.set_code_exec_strategy``), its trace rules deciding by
file (``torch._dynamo.trace_rules.lookup_inner`` and ``check_file``),
``torch.fx.GraphModule.recompile`` and ``__deepcopy__``, Inductor loading the module
it generated (``torch._inductor.codecache.PyCodeCache.load_by_key_path``), and Dynamo
dropping a cache entry whose guards check an object that was freed
(``torch._dynamo.guards.CheckFunctionManager.invalidate``), and Dynamo taking the id
of an object a guard checks by identity (``CheckFunctionManager.id_ref``)."""
import torch

from .dynamo_off import without_dynamo


class _Patch:
    """Replaces one attribute of a torch class while attached; the replacement calls
    ``callback`` (each subclass says with what)."""

    owner = name = None

    def __init__(self, callback):
        self.callback = without_dynamo(callback)

    def attach(self):
        owner = self.owner()
        self._saved = owner.__dict__[self.name]
        setattr(owner, self.name, self.replacement(self._saved))

    def detach(self):
        setattr(self.owner(), self.name, self._saved)


class ResumeFunctionInstall(_Patch):
    """Dynamo installing a resume function as a global of the frame's module:
    ``callback(global name, code, f_globals)`` may return a code object to install instead
    (with the frame layout and calling convention of Dynamo's)."""

    name = "install_resume_function_global"

    @staticmethod
    def owner():
        from torch._dynamo.output_graph import OutputGraph
        return OutputGraph

    def replacement(self, original):
        callback = self.callback

        def install(output_graph, name, code, f_globals):
            replacement = callback(name, code, f_globals)
            if replacement is not None and replacement is not code:
                copy_code_context(code, replacement)
                code = replacement
            return original(output_graph, name, code, f_globals)
        return install


class DynamoResets(_Patch):
    """``torch._dynamo.reset()``, however the program reaches it: ``callback()`` runs first,
    while Dynamo's caches still hold what it compiled.  ``reset`` clears them, its first
    step being ``reset_code_caches``, which this replaces in ``torch._dynamo``'s namespace
    (a name the program imported ``reset`` by still leads there)."""

    name = "reset_code_caches"

    @staticmethod
    def owner():
        import torch._dynamo
        return torch._dynamo

    def replacement(self, original):
        callback = self.callback

        def reset_code_caches():
            callback()
            return original()
        return reset_code_caches


class CodeExecStrategies(_Patch):
    """Dynamo telling its frame evaluation what to do with a code object without being
    called for it (``skip_code``: a nested graph break's leaf resume function, an FX graph's
    ``forward``): ``callback(code, strategy)`` after it is set."""

    name = "set_code_exec_strategy"

    @staticmethod
    def owner():
        import torch._dynamo.eval_frame as eval_frame     # skip_code calls the name it imported
        return eval_frame

    def replacement(self, original):
        callback = self.callback

        def set_strategy(code, strategy):
            original(code, strategy)
            callback(code, strategy)
        return set_strategy


class _TraceRule(_Patch):
    """A function of Dynamo's trace rules that decides by a file name: given the file of
    code run from the dump, it decides by the file of the code that code stands for
    (``callback(filename)`` says which), as it would have without unveil: a resume function
    made in torch's own files is skipped, not traced from the dumped file."""

    @staticmethod
    def owner():
        from torch._dynamo import trace_rules
        return trace_rules


class _LookupByOrigin(_TraceRule):
    name = "lookup_inner"       # the rule of a function or code (the torch rule map, then its file)

    def replacement(self, original):
        origin = self.callback

        def lookup_inner(obj, name=None, filename=None, *args, **kwargs):
            return original(obj, name, origin(filename) if filename is not None else None, *args, **kwargs)
        return lookup_inner


class _FileByOrigin(_TraceRule):
    name = "check_file"         # whether a file is skipped

    def replacement(self, original):
        origin = self.callback

        def check_file(filename, *args, **kwargs):
            return original(origin(filename) if filename is not None else None, *args, **kwargs)
        return check_file


def trace_rules_by_origin(origin):
    """The patches that make Dynamo's trace rules see the user's or torch's file where code
    runs from a dumped one: ``origin(filename)`` is the file a dumped file stands for, or the
    same name."""
    return [_LookupByOrigin(origin), _FileByOrigin(origin)]


def set_code_exec_strategy(code, strategy):
    """Tell Dynamo's frame evaluation to treat ``code`` as ``strategy`` says (what
    :class:`CodeExecStrategies` saw set on the code it stands in for)."""
    torch._C._dynamo.eval_frame.set_code_exec_strategy(code, strategy)


def copy_code_context(source, target):
    """What Dynamo keeps about code object ``source`` (its code_context), for ``target`` too."""
    from torch._dynamo import code_context
    if code_context.has_context(source):
        code_context.get_context(target).update(code_context.get_context(source))


class GraphRecompiles(_Patch):
    """``callback(gm)`` each time a GraphModule's ``forward`` has been generated anew."""

    name = "recompile"

    @staticmethod
    def owner():
        return torch.fx.GraphModule

    def replacement(self, original):
        callback = self.callback

        def recompile(gm):
            result = original(gm)
            callback(gm)
            return result
        return recompile


class GraphCopies(_Patch):
    """``callback(graph_module, copy)`` after each deep copy of a GraphModule (AOT Autograd
    compiles a copy of the backward graph, when ``backward`` first runs)."""

    name = "__deepcopy__"

    @staticmethod
    def owner():
        return torch.fx.GraphModule

    def replacement(self, original):
        callback = self.callback

        def deepcopy(gm, memo):
            copy = original(gm, memo)
            callback(gm, copy)
            return copy
        return deepcopy


class InductorModuleLoads(_Patch):
    """``callback(path, module)`` each time Inductor loads the Python module it generated."""

    name = "load_by_key_path"

    @staticmethod
    def owner():
        from torch._inductor.codecache import PyCodeCache
        return PyCodeCache

    def replacement(self, original):
        callback, load = self.callback, original.__func__

        def load_by_key_path(cls, key, path, *args, **kwargs):
            module = load(cls, key, path, *args, **kwargs)
            callback(path, module)
            return module
        return classmethod(load_by_key_path)


class CacheEntryDrops(_Patch):
    """Dynamo dropping a cache entry because an object its guards check by id was freed
    (a weakref finalizer calls ``CheckFunctionManager.invalidate``; the entry stays in the
    cache's list with a guard that always fails, and its code is no longer the
    transformed code): ``callback(raw cache entry, the object's source)`` first, while the
    entry still holds its code and guards."""

    name = "invalidate"

    @staticmethod
    def owner():
        from torch._dynamo.guards import CheckFunctionManager
        return CheckFunctionManager

    def replacement(self, original):
        callback = self.callback

        def invalidate(manager, obj_str):
            entry = getattr(getattr(manager, "guard_manager", None), "cache_entry", None)
            if entry is not None:
                callback(entry, obj_str)
            return original(manager, obj_str)
        return invalidate


class IdentityChecks(_Patch):
    """Dynamo taking the id of an object a guard is to check by identity (an ID_MATCH
    guard, a type's id, a dict key's): ``callback(obj)`` first, while the compile runs
    and the object is alive."""

    name = "id_ref"

    @staticmethod
    def owner():
        from torch._dynamo.guards import CheckFunctionManager
        return CheckFunctionManager

    def replacement(self, original):
        callback = self.callback

        def id_ref(manager, obj, obj_str):
            callback(obj)
            return original(manager, obj, obj_str)
        return id_ref
