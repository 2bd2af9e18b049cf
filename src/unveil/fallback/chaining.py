"""The interpreter's implicit exception chaining, as the state machine must redo it.

The lowered text keeps the handled exception in a variable, so the interpreter never
sees it handled: an exception raised in a clause gets as its ``__context__`` what the
caller handles (or nothing), and an exception a call raises gets it at the end of the
chain the call made.  Each handler of the machine hands the exception it caught to a
helper defined at the top of the function, which links that chain's end to the
handled exception as the interpreter would have, cutting a cycle the way it does
(``raise a`` under an exception ``a`` caused).  A re-raise must not chain: under a
handler it goes to the handler block without raising, and out of the function it
puts back the ``__context__`` a real ``raise`` may have replaced.
"""
import ast

from ..structure.stackitems import const, name
from .machine import assign, call


def _attribute(obj, attr, store=False):
    return ast.Attribute(value=name(obj), attr=attr, ctx=ast.Store() if store else ast.Load())


def _is(left, right, negated=False):
    return ast.Compare(left=left, ops=[ast.IsNot() if negated else ast.Is()], comparators=[right])


def _seen(node, negated=True):
    """``id(node) not in seen``."""
    return ast.Compare(left=call("id", node), ops=[ast.NotIn() if negated else ast.In()],
                       comparators=[name("seen")])


def _and(*values):
    return ast.BoolOp(op=ast.And(), values=list(values))


def _see(node):
    return ast.Expr(value=call(ast.Attribute(value=name("seen"), attr="add", ctx=ast.Load()), call("id", node)))


def _handled_chain():
    """``links``: the handled exception's chain, each once (``seen`` their ids)."""
    return [
        ast.Assign(targets=[ast.Tuple(elts=[name("links", True), name("seen", True)], ctx=ast.Store())],
                   value=ast.Tuple(elts=[ast.List(elts=[], ctx=ast.Load()), call("set")], ctx=ast.Load())),
        assign("link", name("handled")),
        ast.While(test=_and(_is(name("link"), const(None), negated=True), _seen(name("link"))), orelse=[], body=[
            ast.Expr(value=call(_attribute("links", "append"), name("link"))),
            _see(name("link")),
            assign("link", _attribute("link", "__context__"))])]


def _chain_end():
    """``exc`` moved to the end of its chain short of the handled exception's chain:
    where the interpreter gave the raise the caller's handled exception, or none."""
    return [ast.While(test=_and(_is(_attribute("exc", "__context__"), const(None), negated=True),
                                _seen(_attribute("exc", "__context__"))), orelse=[], body=[
        _see(name("exc")),
        assign("exc", _attribute("exc", "__context__"))])]


def _cut_and_link():
    """The link of the handled exception's chain back to ``exc`` cut, then ``exc``
    chained to the handled exception."""
    return [
        ast.For(target=name("link", True), iter=name("links"), orelse=[], type_comment=None, body=[
            ast.If(test=_is(_attribute("link", "__context__"), name("exc")), orelse=[], body=[
                ast.Assign(targets=[_attribute("link", "__context__", True)], value=const(None))])]),
        ast.Assign(targets=[_attribute("exc", "__context__", True)], value=name("handled"))]


def chain_def(fname):
    """``def fname(exc, handled)``: ``exc``, caught by a handler of the machine, chained
    as if it had been raised while ``handled`` (or nothing, ``None``) was handled."""
    untouched = ast.If(test=ast.BoolOp(op=ast.Or(), values=[
        _is(name("handled"), const(None)), _is(name("exc"), name("handled"))]), body=[ast.Return(value=None)],
        orelse=[])
    args = ast.arguments(posonlyargs=[], vararg=None, kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[],
                         args=[ast.arg(arg=arg, annotation=None, type_comment=None) for arg in ("exc", "handled")])
    node = ast.FunctionDef(name=fname, args=args, decorator_list=[], returns=None, type_comment=None,
                           body=[untouched] + _handled_chain() + _chain_end() + _cut_and_link())
    node.type_params = []
    return node


def reraise_keeping_context(exc, saved):
    """``raise exc`` out of the function (``exc`` a variable), its ``__context__`` kept in
    the variable ``saved`` and put back: a re-raise does not chain, a ``raise`` does when
    the caller handles an exception."""
    return [assign(saved, _attribute(exc, "__context__")),
            ast.Try(body=[ast.Raise(exc=name(exc), cause=None)], handlers=[], orelse=[], finalbody=[
                ast.Assign(targets=[_attribute(exc, "__context__", True)], value=name(saved))])]
