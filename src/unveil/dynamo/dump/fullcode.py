"""The full-code file of a function: all of torch.compile's work on it as one Python module.

Layout: the globals the code reads (from the function's module), the original
function, each resume function and compiled graph, each cache entry's guard and
transformed code, and last a dispatch function per code object that does what
Dynamo's C frame evaluation does: try each entry's guard in Dynamo's order, run
that entry's transformed code, otherwise compile anew (here: run the original).
"""
import ast
import builtins
import inspect
import re
import types

from ...api import decompile_code
from ...dump_index import source_path
from ...errors import DecompilationError
from ...bytecode.code_objects import argument_count, identifier as source_name
from ...definitions.functions import ENCLOSING_SCOPE
from .. import made_globals
from ..debugging.from_dump import nested_codes
from .script_runtime import importable_as
from ..guards.functions import identifier


def signature_text(code):
    """``(params, call_args)`` source for a function with ``code``'s arguments."""
    names = [source_name(n) for n in code.co_varnames]
    npos, nkw = code.co_argcount, code.co_kwonlyargcount
    posonly = code.co_posonlyargcount
    params, call = [], []
    for i in range(npos):
        params.append(names[i])
        call.append(names[i])
        if posonly and i == posonly - 1:
            params.append("/")
    i = npos + nkw
    if code.co_flags & inspect.CO_VARARGS:
        params.append("*" + names[i])
        call.append("*" + names[i])
        i += 1
    elif nkw:
        params.append("*")
    for j in range(npos, npos + nkw):
        params.append(names[j])
        call.append("%s=%s" % (names[j], names[j]))
    if code.co_flags & inspect.CO_VARKEYWORDS:
        params.append("**" + names[i])
        call.append("**" + names[i])
    return ", ".join(params), ", ".join(call)


def renamed(source, code, new_name):
    """``source`` (the decompiled ``code``) with that function renamed (a closure's ``def``
    is inside the function that makes its free variables cells)."""
    head = re.compile(r"^(\s*(?:async )?def )%s\(" % re.escape(source_name(code.co_name)), re.MULTILINE)
    return head.sub(lambda m: m.group(1) + new_name + "(", source, count=1)


def global_names(code):
    """Global names ``code`` and its nested code objects read."""
    names = set()
    todo = [code]
    while todo:
        c = todo.pop()
        names.update(c.co_names)
        todo += [k for k in c.co_consts if isinstance(k, types.CodeType)]
    return names


def dispatch_name(fn):
    """The user function's own name; for a resume function, the global Dynamo calls it by."""
    if getattr(fn, "global_names", None):
        return fn.global_names[0]
    return identifier(fn.key) if fn.is_resume else identifier(fn.code.co_name)


def _section(title):
    return ["", "", "# " + "-" * 70, "# " + title, "# " + "-" * 70]


def _code_blocks(fn, session, out, used):
    """The original/resume source, graphs, guards and transformed code of ``fn``; then its dispatch."""
    original = "__original_" + identifier(fn.key)
    out += _section("%s %s (%s:%d)" % ("resume function" if fn.is_resume else "function", fn.code.co_name,
                                       fn.code.co_filename, fn.code.co_firstlineno))
    source = fn.resume_source if fn.is_resume else None
    if source is None:
        try:
            source = decompile_code(fn.code).source
        except DecompilationError as exc:
            source = None
            out.append("# the original bytecode could not be decompiled: %s" % exc)
    if source is not None:
        out.append("# The original bytecode, decompiled (what runs when no cache entry's guard passes).")
        if fn.is_resume:
            out += [_binding_line(name, value, fn, original) for name, value in sorted(fn.bindings.items())]
        out.append(_defined(source, fn.code, original))
    for entry, comp in fn.entries:
        out += _section("cache entry for compile %s of %s" % (comp.label, fn.code.co_name))
        for name, text in comp.graphs:
            out.append("# Graph %s (file %s): `forward` below is what the backend compiled;"
                       % (name, comp.graph_files.get(name)))
            out.append("# %s is the backend's compiled version of it, taken from the module's globals."
                       % name)
            body = text[text.index("class GraphModule"):]
            out.append(body.replace("class GraphModule(", "class %s_GraphModule(" % name, 1).rstrip())
        used.update(global_names(comp.transformed))
        if comp.guards is not None:
            out.append("\n".join(comp.guards.comments[:1]))
            out.append(comp.guards.body.rstrip())
        if comp.source is not None:
            out += [_binding_line(name, value, fn, original) for name, value in sorted(comp.bindings.items())]
            out.append("# Transformed code (file %s)." % comp.transformed_file)
            out.append(_defined(comp.source, comp.transformed, _transformed_name(fn, comp)))
        else:
            out.append("# the transformed code could not be decompiled; see %s" % comp.transformed_file)
    for child in session.functions.values():
        if child.parent is fn and child.generation == session.generation:   # (a reset: Dynamo makes them anew)
            _code_blocks(child, session, out, used)
    out += _section("dispatch of %s: what Dynamo's frame evaluation does on each call" % fn.code.co_name)
    out += _dispatch(fn, original)


def _dispatch(fn, original):
    """The dispatch function's lines: each entry's guard in order, else the original.  For a
    closure it is made over placeholder cells (``with_cells`` gives it a frame's) and hands
    its own cells on; a resume function's global is then Dynamo's factory, given the cells."""
    params, call = signature_text(fn.code)
    free = fn.code.co_freevars
    name = dispatch_name(fn)
    inner = "__dispatch_" + identifier(fn.key) if free and fn.is_resume else name
    cells = "lambda: (%s,)" % ", ".join(map(source_name, free))

    def run(function):
        return "%s(%s)" % ("with_cells(%s, %s)" % (function, cells) if free else function, call)
    args = fn.code.co_varnames[:argument_count(fn.code)] + free
    body = ["def %s(%s):" % (inner, params),
            "    L = {%s}  # the frame's locals on entry" % ", ".join("%r: %s" % (a, source_name(a)) for a in args)]
    for entry, comp in fn.entries:
        if comp.guards is not None and comp.source is not None:
            body.append("    if %s(L, G):" % comp.guards.name)
            body.append("        return %s" % run(_transformed_name(fn, comp)))
    body += ["    # No entry's guard passes: Dynamo compiles the frame anew and adds an entry",
             "    # (or, past its recompile limit, runs the original bytecode).",
             "    return %s" % run(original)]
    if not free:
        out = body
    else:
        out = ["# %s closes over %s: made here over placeholders, with_cells(%s, f) gives it the cells"
               % (fn.code.co_name, ", ".join(free), inner),
               "# of the function f it stands for (the entries' code then runs over the same cells).",
               "def __make_%s():" % inner, "    %s = None" % " = ".join(map(source_name, free))]
        out += ["    " + line for line in body] + ["    return %s" % inner, "%s = __make_%s()" % (inner, inner)]
    if free and fn.is_resume:
        out += ["def %s(cells):" % name,
                '    """What Dynamo installs: a factory, given the cells (of %s) the resume function closes over."""'
                % ", ".join(free),
                "    return with_cells(%s, cells, %r)" % (inner, free)]
    for alias in getattr(fn, "global_names", [])[1:]:
        out.append("%s = %s  # Dynamo made one global per compile that calls it" % (alias, name))
    where = _function_path(fn.code, fn.globals or {})
    if where is not None and not free:
        out.append("")
        out.append("# Default argument values, as the compiled function has them.")
        for target in (name, original):
            out.append("%s.__defaults__ = %s.__defaults__" % (target, where))
            out.append("%s.__kwdefaults__ = %s.__kwdefaults__" % (target, where))
    return out


def _binding_line(name, value, fn, original):
    """``name = ...`` for an object Dynamo placed in code the file holds (a nested function's
    code, the module's globals, a device, a literal), or a comment saying it has no form."""
    if value is fn.globals:
        return "%s = G  # the module's globals, which Dynamo placed in the code" % name
    if isinstance(value, types.CodeType):
        same = [c for c in nested_codes(fn.code) if c.co_name == value.co_name]
        return "%s = nested_code(%s, %r, %d)  # the code of %s, as the original has it" % (
            name, original, value.co_name, same.index(value) if value in same else 0, value.co_name)
    if type(value).__module__ == "torch" and type(value).__name__ == "device":
        return "%s = torch.device(%r)" % (name, str(value))
    text = repr(value)
    try:
        same = ast.literal_eval(text) == value
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        same = False
    if same:
        return "%s = %s" % (name, text)
    return "# %s has no source form (%s): code that reads it cannot run from this file" % (
        name, _describe_global(name, value))


def _defined(source, code, new_name):
    """Decompiled ``source`` of ``code`` as a module-level function ``new_name``; a closure
    (written inside the function that makes its free variables cells) is made over
    placeholder cells, for ``with_cells`` to replace."""
    text = renamed(source, code, new_name)
    if not code.co_freevars:
        return text
    maker = "__make_" + new_name
    text = text.replace("def %s():" % ENCLOSING_SCOPE, "def %s():" % maker, 1)
    text = re.sub(r"^    return %s$" % re.escape(source_name(code.co_name)), "    return " + new_name, text,
                  count=1, flags=re.MULTILINE)
    return text.rstrip() + "\n%s = %s()" % (new_name, maker)


def full_code_text(fn, session):
    """The full-code module of user function ``fn`` (resume functions included)."""
    _name_resume_functions(fn, session)
    body, used = [], set()
    _code_blocks(fn, session, body, used)
    imports = {"import torch", "from unveil.dynamo.dump.script_runtime import dynamo_global, here, module_globals, program_argv, "
               "program_process"}
    for helper in ("with_cells", "nested_code"):
        if any(helper + "(" in line for line in body):
            imports.add("from unveil.dynamo.dump.script_runtime import " + helper)
    for f in session.functions.values():
        for _, comp in f.entries:
            if comp.guards is not None:
                imports.update(comp.guards.imports)
    module = (fn.globals or {}).get("__name__", "__main__")
    head = ['"""Everything torch.compile did to %s (%s:%d), as one plain Python module.'
            % (fn.code.co_name, fn.code.co_filename, fn.code.co_firstlineno), "",
            "Read it from the bottom: the dispatch function %s does what Dynamo's frame" % dispatch_name(fn),
            "evaluation does on each call (guards in order, then that entry's transformed code).",
            "Transformed code calls the compiled graphs and the resume functions defined above it.",
            '"""']
    head += _merged_imports(i for i in imports if i.startswith(("import", "from")))
    head += [i for i in sorted(imports) if not i.startswith(("import", "from"))]
    head += ["", "# The globals the code runs with: those of %s's module (in a new process, its file" % fn.code.co_name,
             "# loaded as a module, its top-level code seeing the program's sys.argv; globals Dynamo",
             "# made are then rebuilt from the dump).",
             "G = module_globals(%r, %r, program_argv(globals()), program_process(globals()), %r)" % (
                 module, source_path(fn.code.co_filename, session.dump.cwd), fn.import_name),
             "HERE = here(globals())"]
    defined = {n for f in session.functions.values() for n in getattr(f, "global_names", [])}
    taken = [n for n in sorted(used, key=_in_number_order) if n in (fn.globals or {}) and n not in defined]
    main_test = '__name__ == "__main__"'
    if "__name__" in taken:       # rebound below to the module's name, which the code reads
        head.append("RUN_AS_SCRIPT = %s  # (asked before __name__ is rebound to the module's, below)" % main_test)
        main_test = "RUN_AS_SCRIPT"
    if taken:
        head.append("# Names the transformed code reads from those globals:")
        head += [_global_line(n, fn.globals[n], session) for n in taken]
    by_id = {n: where for f in session.functions.values() if f.globals is fn.globals
             for n, where in f.globals_by_id.items()}
    if by_id:
        head.append("# Objects Dynamo put in those globals under their ids, which guards read:")
        head += ["G[%r] = dynamo_global(G, %r, module=%r)" % (n, n, by_id[n]) for n in sorted(by_id, key=_in_number_order)]
    return "\n".join(head + body + _script_block(fn, main_test)) + "\n"


def _in_number_order(name):
    """A sort key reading the numbers in a name as numbers: Dynamo numbers the globals it
    makes as it makes them (``__compiled_fn_9`` before ``__compiled_fn_10``), so two runs
    of one program list them alike."""
    return [(1, int(part), "") if part.isdigit() else (0, 0, part) for part in re.split(r"(\d+)", name)]


def _global_line(name, value, session):
    """``name = ...``: the global as the module has it; one Dynamo made, from the dump if need be."""
    comment = _describe_global(name, value)
    if made_globals.is_graph(name):
        graph = next((files[name] for f in session.functions.values() for c in f.compiles
                      for files in [c.graph_files] if name in files), None)
        if graph is not None:
            return "%s = dynamo_global(G, %r, HERE, graph=%r)  # %s" % (name, name, graph, comment)
    if made_globals.imported_module(name) and getattr(value, "__name__", None):
        return "%s = dynamo_global(G, %r, module=%r)  # %s" % (name, name, value.__name__, comment)
    where = importable_as(value) if made_globals.BY_ID.fullmatch(name) else None
    if where is not None:
        return "%s = dynamo_global(G, %r, module=%r)  # %s" % (name, name, where, comment)
    if value is builtins.__dict__:
        return "%s = dynamo_global(G, %r, module_dict='builtins')  # the builtins' namespace" % (name, name)
    if name.startswith("__"):
        return "%s = dynamo_global(G, %r)  # %s" % (name, name, comment)
    return "%s = G[%r]  # %s" % (name, name, comment)


#: what a guard reads: a local, or an item of one by a constant key, ``L['opts']['k']``
_READ = r"L(?P<path>\['[^']+'\](?:\[(?:'[^'\\]*'|-?\d+)\])*)"
#: a tensor guard's recorded dtype, requires_grad and size, per value read
_TENSOR_GUARD = re.compile(r"check_tensor\(" + _READ + r", '[^']*', '[^']*', (?P<dtype>torch\.\w+), "
                           r"device=[^,]+, requires_grad=(?P<grad>True|False), size=(?P<size>\[[^\]]*\])")
#: a value guard: ``L['n'] == 3`` (after its exact-type test)
_VALUE_GUARD = re.compile(r"^\s*if not \((?:of_type\(L(?:\[[^\]]+\])+, '[\w.]+'\) and )?" + _READ +
                          r" (?:==|is) (?P<value>None|True|False|-?[\d.e+-]+|'[^'\\]*')\):", re.MULTILINE)


def _script_block(fn, main_test):
    """``if __name__ == "__main__":`` (``main_test``) : per entry, call the dispatch and the
    entry's transformed code on inputs of the dtypes and sizes its guards record."""
    entries = [comp for _, comp in fn.entries if comp.guards is not None]
    if not entries or fn.is_resume:
        return []
    code = fn.code
    params = list(code.co_varnames[:code.co_argcount + code.co_kwonlyargcount])
    by_keyword = params[code.co_posonlyargcount:]
    # ``*args`` and ``**kwargs`` are passed nothing: a guard that reads them is not satisfied
    packed = list(code.co_varnames[len(params):len(params) + bool(code.co_flags & inspect.CO_VARARGS)
                                   + bool(code.co_flags & inspect.CO_VARKEYWORDS)])
    rows = []
    qualified = "%s.%s" % (fn.module, getattr(code, "co_qualname", code.co_name))
    for comp in entries:
        recorded = _recorded_inputs(comp.guards.body)
        # a parameter no guard reads: the entry runs for any value of it, so for its default
        # (the user's function's, looked up when the script runs; none: said not run)
        values = {p: recorded[p] if p in recorded else "parameter_default(G, %r, %r)" % (qualified, p)
                  for p in by_keyword if p in recorded or "L[%r]" % p not in comp.guards.body}
        missing = [p for p in params if p not in values] + [p for p in packed if "L[%r]" % p in comp.guards.body] \
            + list(code.co_freevars)
        inputs = "{%s}" % ", ".join("%r: %s" % (p, values[p]) for p in params if p not in missing)
        transformed = _transformed_name(fn, comp) if comp.source is not None else "None"
        checked = "{%s}" % ", ".join("%s: %s" % pair for pair in _checked_globals(comp.guards.body))
        rows.append("        (%r, %s, %s, %s, %r, %s)," % (comp.label, comp.guards.name, transformed, inputs, missing,
                                                        checked))
    return _section("run as a script: per entry, inputs of the dtypes and sizes its guards record") + [
        "if %s:" % main_test,
        "    from unveil.dynamo.dump.script_runtime import example_tensor, instance_of, parameter_default, "
        "run_as_script",
        "    run_as_script(%s, [" % dispatch_name(fn)] + rows + ["    ], G)"]


#: an exact-type guard (a method's ``self``, a dict): the class, by the name it had
_TYPE_GUARD = re.compile(r"check_type_id\(" + _READ + r", \d+, (?P<cls>'[\w.]+')\)")


def _recorded_inputs(guards_body):
    """``{local: source of a value}`` from a guard function's tensor and value checks, and
    an instance of the class its exact-type check names (a method's ``self``); a dict
    whose items the guards check, by constant keys, is made of those items."""
    read = {}                       # path (local, key, ...) -> source of its value
    types_ = {}                     # path -> the class its exact-type check names
    for match in _TYPE_GUARD.finditer(guards_body):
        types_.setdefault(_path(match.group("path")), match.group("cls")[1:-1])
    for match in _TENSOR_GUARD.finditer(guards_body):
        read.setdefault(_path(match.group("path")), "example_tensor(%s, %s, requires_grad=%s)" % (
            match.group("dtype"), match.group("size"), match.group("grad")))
    for match in _VALUE_GUARD.finditer(guards_body):
        read.setdefault(_path(match.group("path")), match.group("value"))
    for path, value in _bounded_ints(guards_body).items():
        read.setdefault(path, repr(value))
    return {path[0]: _made(path, read, types_) for path in set(read) | set(types_) if len(path) == 1}


#: a bound a guard puts on an int Dynamo made dynamic (``3 <= L['n']``, ``L['n'] < 8``, in the
#: guard of a condition on it, maybe one of several joined by ``and``)
_LOWER_BOUND = re.compile(r"(?<![\w\]])(?P<bound>-?\d+) (?P<op><=|<) " + _READ + r"(?![\w\[.(])")
_UPPER_BOUND = re.compile(r"(?<![\w\]])" + _READ + r" (?P<op><=|<) (?P<bound>-?\d+)(?![\w.])")


def _bounded_ints(guards_body):
    """``{path: the least int within the bounds the guards put on it}`` (the greatest
    lower bound, else the least upper bound), for each value a guard bounds: a dynamic
    int's example must pass its own entry's guards (``3 <= L['n']`` after ``if n > 2``)."""
    lows, highs = {}, {}
    for match in _LOWER_BOUND.finditer(guards_body):
        bound = int(match.group("bound")) + (match.group("op") == "<")
        path = _path(match.group("path"))
        lows[path] = max(lows.get(path, bound), bound)
    for match in _UPPER_BOUND.finditer(guards_body):
        bound = int(match.group("bound")) - (match.group("op") == "<")
        path = _path(match.group("path"))
        highs[path] = min(highs.get(path, bound), bound)
    return {path: lows[path] if path in lows else highs[path] for path in set(lows) | set(highs)
            if path not in lows or path not in highs or lows[path] <= highs[path]}


def _made(path, read, types_):
    if types_.get(path) == "builtins.dict" and path not in read:
        items = sorted((p[len(path)], p) for p in set(read) | set(types_)
                       if len(p) == len(path) + 1 and p[:len(path)] == path)
        if items:
            return "{%s}" % ", ".join("%r: %s" % (key, _made(p, read, types_)) for key, p in items)
    if path in read:
        return read[path]
    return "instance_of(G, %r)" % types_[path]


def _path(text):
    """``('opts', 'k')`` of a guard's ``['opts']['k']``."""
    return tuple(ast.literal_eval(part) for part in re.findall(r"\[('(?:[^'\\])*'|-?\d+)\]", text))


#: a value guard on a global: ``G['FLAG'] == True`` (after its exact-type test)
_GLOBAL_VALUE_GUARD = re.compile(r"^\s*if not \((?:of_type\(G\['[^']+'\], '[\w.]+'\) and )?G\[(?P<name>'\w+')\] "
                                 r"(?:==|is) (?P<value>None|True|False|-?[\d.e+-]+|'[^'\\]*')\):", re.MULTILINE)


def _checked_globals(guards_body):
    """``[(name's source, value's source)]`` of the globals a guard function checks for one
    value (a flag): the entry runs only with that value, which the program may have set
    after its module's top-level code ran."""
    return list({m.group("name"): (m.group("name"), m.group("value"))
                 for m in _GLOBAL_VALUE_GUARD.finditer(guards_body)}.values())


def _transformed_name(fn, comp):
    return "__transformed_%s_for_%s" % (comp.tag, identifier(fn.key))


def _merged_imports(lines):
    """Import lines, once each: ``from m import a`` and ``from m import b`` (two entries'
    guards need different helpers) as ``from m import a, b``."""
    plain, names = set(), {}
    for line in lines:
        if line.startswith("from ") and " import " in line:
            module, _, imported = line[5:].partition(" import ")
            names.setdefault(module, set()).update(n.strip() for n in imported.split(","))
        else:
            plain.add(line)
    merged = ["from %s import %s" % (module, ", ".join(sorted(found))) for module, found in names.items()]
    return sorted(plain) + sorted(merged)


def _describe_global(name, value):
    """Where a global the transformed code reads comes from, for a comment."""
    if made_globals.is_graph(name):
        return "the backend's compiled graph (see its graph file)"
    if made_globals.imported_module(name):
        return "module %s, imported by Dynamo" % getattr(value, "__name__", "?")
    if made_globals.is_resume(name):
        return "a resume function (see its resume_function file)"
    text = " ".join(repr(value).split())      # a module's repr spans lines
    return "%s: %s" % (type(value).__name__, text if len(text) <= 60 else text[:57] + "...")


def _function_path(code, globals_):
    """``G[...]`` source reaching the function or method with ``code`` and defaults, or ``None``."""
    for name, value in globals_.items():
        candidates = [("G[%r]" % name, value)]
        if isinstance(value, type):
            candidates += [("G[%r].%s" % (name, attr), member) for attr, member in vars(value).items()
                           if attr.isidentifier()]
        for path, obj in candidates:
            if getattr(obj, "__code__", None) is code:
                if getattr(obj, "__defaults__", None) or getattr(obj, "__kwdefaults__", None):
                    return path
                return None
    return None


def _name_resume_functions(fn, session):
    """Give each resume function the global names Dynamo's transformed code calls it by
    (for a closure, the factory that makes it)."""
    for f in session.functions.values():
        if f.is_resume:
            f.global_names = sorted(f.installed_as, key=lambda n: int(n.rsplit("_", 1)[1]))
