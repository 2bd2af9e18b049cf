"""An FX graph's nodes and edges, read back from a dumped graph file (no torch).

A graph file holds the code FX generated for the graph (``GraphModule.forward``):
one statement per node, ``name: "f32[2, 16][16, 1]cpu" = torch.relu(x)``, each group
after a ``# File: path:line in function, code: ...`` comment naming the user's line.
The statements are parsed with ``ast``: a node's inputs are the earlier nodes its
statement names, its op is the callee, its shape the annotation's first bracket.
"""
import ast
import re

from ..syntax.unparse import unparse

#: the comment FX writes before the nodes of one line of the user's code (after a node's
#: annotations where it has some: ``# ac_graph_id: 2 - PREFER_RECOMPUTE File: ...``, checkpointed code)
_FILE_COMMENT = re.compile(r"^\s*#(?: [^#\n]*?)? File: (.+):(\d+) in ([^,]+), code: (.*)$")
#: an annotation's dtype and sizes: ``f32[2, 16]`` of ``"f32[2, 16][16, 1]cpu"``
_SHAPE = re.compile(r"^\s*(\w+\[[^\]]*\])")


class Node:
    def __init__(self, name, kind, op, target, line, shape=None, inputs=()):
        self.name = name
        self.kind = kind            # placeholder, call, get_attr, output
        self.op = op                # what the picture shows: ``aten.addmm``, ``.view``, ``layer_norm``
        self.target = target        # the callee as written: ``torch.ops.aten.addmm.default``
        self.line = line            # the statement's line in the graph file
        self.shape = shape
        self.inputs = list(inputs)
        self.source = None          # (user file, line, code) from the ``# File:`` comment before it


class Graph:
    def __init__(self, nodes, inputs=(), parameters=()):
        self.nodes = nodes
        self.inputs = list(inputs)  # every input the graph is given, in order: its shape or None
        self.parameters = list(parameters)      # the names of ``forward``'s parameters, ``self`` aside

    def __len__(self):
        return len(self.nodes)


def parse_graph(text):
    """The :class:`Graph` of a dumped graph file's text; None when the text has no
    ``forward`` of a graph module or is not Python."""
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return None
    forward = next((item for cls in tree.body if isinstance(cls, ast.ClassDef) for item in cls.body
                    if isinstance(item, ast.FunctionDef) and item.name == "forward"), None)
    if forward is None:
        return None
    lines = text.splitlines()
    nodes, names = [], {}          # names: a name in the code -> the node it stands for

    def add(node):
        nodes.append(node)
        names[node.name] = node
        node.source = _source_before(lines, node.line)
        return node

    params = {arg.arg: Node(arg.arg, "placeholder", "input", arg.arg, arg.lineno, _shape(arg.annotation))
              for arg in forward.args.args[1:]}     # self aside
    names.update(params)
    aliased, iterators = set(), set()
    in_place = {}       # ``step_t += 1``: the name it changes -> (its op, the names it reads)
    for stmt in forward.body:
        if isinstance(stmt, ast.AugAssign) and isinstance(stmt.target, ast.Name):
            in_place[stmt.target.id] = ("i" + _OPERATORS.get(type(stmt.op), type(stmt.op).__name__.lower()),
                                        _names_in(stmt, names))
            continue                            # (its node is the name FX gives the result next)
        boxed = _boxed_input(stmt, params, iterators)
        if boxed is not None:          # a boxed graph's ``primals_1 = next(args_iter)``: an input
            if boxed:
                add(Node(boxed, "placeholder", "input", None, stmt.lineno))
            continue
        if isinstance(stmt, ast.AnnAssign) and stmt.value is None and isinstance(stmt.target, ast.Name):
            add(Node(stmt.target.id, "placeholder", "input", None, stmt.lineno, _shape(stmt.annotation)))
            continue
        if isinstance(stmt, ast.Return):
            add(Node("output", "output", "output", None, stmt.lineno, inputs=_names_in(stmt.value, names)))
            nodes[-1].source = None
            continue
        if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
            add(_call_node("_line_%d" % stmt.lineno, stmt.value, stmt.lineno, None, names))
            continue
        target, value, annotation = _assignment(stmt)
        if target is None or (isinstance(value, ast.Constant) and value.value is None):
            continue                                # ``x = None``: FX freeing a value; a tuple unpacked
        if isinstance(value, ast.Name) and value.id in in_place:      # ``step_t_1 = step_t``, after ``+=``
            op, inputs = in_place.pop(value.id)
            add(Node(target, "call", op, unparse(stmt), stmt.lineno, _shape(annotation), inputs))
        elif isinstance(value, ast.Name) and value.id in params and value.id not in aliased:
            aliased.add(value.id)                   # Dynamo's ``l_x_ = L_x_``: the placeholder
            add(Node(target, "placeholder", "input", value.id, stmt.lineno, params[value.id].shape))
        elif isinstance(value, ast.Call):
            add(_call_node(target, value, stmt.lineno, _shape(annotation), names))
        elif isinstance(value, ast.Attribute) and _dotted(value).startswith("self."):
            add(Node(target, "get_attr", _dotted(value)[5:], _dotted(value), stmt.lineno, _shape(annotation)))
        else:                                       # ``split[0]``, ``a * b``, ``x.shape``
            add(Node(target, "call", _operator(value), unparse(value), stmt.lineno, _shape(annotation),
                     _names_in(value, names)))
    used = _used(nodes)
    given = [p.shape for p in params.values()] + [n.shape for n in nodes if n.kind == "placeholder" and not n.target]
    graph = Graph([p for name, p in params.items() if name not in aliased and name in used] + nodes, given,
                  list(params))
    known = {n.name for n in graph.nodes}
    for node in graph.nodes:
        node.inputs = [i for i in node.inputs if i in known]
    return graph


def _boxed_input(stmt, params, iterators):
    """What a statement of a graph whose inputs come boxed in a list is (AOT Autograd's,
    once it boxed them: ``args_iter = iter(args_list)``, ``primals_1 = next(args_iter)``,
    ``args_list.clear()``): the input's name it reads, "" for the others, None for any
    other statement.  ``iterators`` gathers the iterators' names."""
    target, value, _ = _assignment(stmt)
    call = value if target is not None else stmt.value if isinstance(stmt, ast.Expr) else None
    if not (isinstance(call, ast.Call) and len(call.args) == (0 if target is None else 1) and not call.keywords):
        return None
    if target is None:
        is_clear = isinstance(call.func, ast.Attribute) and call.func.attr == "clear" \
            and isinstance(call.func.value, ast.Name) and call.func.value.id in params
        return "" if is_clear else None
    arg = call.args[0]
    if not (isinstance(call.func, ast.Name) and isinstance(arg, ast.Name)):
        return None
    if call.func.id == "iter" and arg.id in params:
        iterators.add(target)
        return ""
    return target if call.func.id == "next" and arg.id in iterators else None


def _assignment(stmt):
    if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
        return stmt.target.id, stmt.value, stmt.annotation
    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
        return stmt.targets[0].id, stmt.value, None
    return None, None, None


def _call_node(name, call, line, shape, names):
    func = _dotted(call.func)
    inputs = _names_in(call, names)
    if isinstance(call.func, ast.Attribute) and isinstance(call.func.value, ast.Name) \
            and call.func.value.id in names:      # a method of a node: ``x.view(-1, 16)``
        op = "." + call.func.attr
    elif func.startswith("self."):                # a submodule: ``self.L__self___l1(x)``
        op = func[5:]
    elif func.startswith("torch.ops."):
        op = re.sub(r"\.default$", "", func[len("torch.ops."):])
    else:
        op = func.rsplit(".", 1)[-1] or func
    return Node(name, "call", op, func, line, shape, inputs)


#: what FX writes as Python syntax (``operator.mul`` as ``a * b``), by the operator's name
_OPERATORS = {ast.Add: "add", ast.Sub: "sub", ast.Mult: "mul", ast.Div: "truediv", ast.FloorDiv: "floordiv",
              ast.Mod: "mod", ast.Pow: "pow", ast.MatMult: "matmul", ast.LShift: "lshift", ast.RShift: "rshift",
              ast.BitAnd: "and_", ast.BitOr: "or_", ast.BitXor: "xor", ast.USub: "neg", ast.Invert: "invert",
              ast.Not: "not_", ast.Eq: "eq", ast.NotEq: "ne", ast.Lt: "lt", ast.LtE: "le", ast.Gt: "gt",
              ast.GtE: "ge"}


def _operator(value):
    if isinstance(value, ast.Subscript):
        index = value.slice.value if type(value.slice).__name__ == "Index" else value.slice     # 3.8's ast.Index
        return "getitem [%s]" % _dotted(index)
    if isinstance(value, (ast.BinOp, ast.UnaryOp)):
        return _OPERATORS.get(type(value.op), type(value.op).__name__.lower())
    if isinstance(value, ast.Compare) and len(value.ops) == 1:
        return _OPERATORS.get(type(value.ops[0]), "compare")
    if isinstance(value, ast.Attribute):
        return "." + value.attr
    return _dotted(value)


def _dotted(node):
    try:
        return unparse(node)
    except (AttributeError, ValueError):      # nothing FX writes
        return "?"


def _names_in(tree, names):
    seen = []
    for sub in ast.walk(tree) if tree is not None else ():
        if isinstance(sub, ast.Name) and sub.id in names and sub.id not in seen:
            seen.append(sub.id)
    return seen


def _used(nodes):
    return {i for n in nodes for i in n.inputs}


def _shape(annotation):
    if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
        match = _SHAPE.match(annotation.value)
        return match.group(1) if match else annotation.value[:40]
    return None


def _source_before(lines, line):
    """The ``# File:`` comment the statement at ``line`` (1-based) falls under."""
    for number in range(line - 2, -1, -1):
        text = lines[number]
        match = _FILE_COMMENT.match(text)
        if match:
            return match.group(1), int(match.group(2)), match.group(4).strip()
        if not text.strip():
            return None                             # a blank line ends FX's group
    return None
