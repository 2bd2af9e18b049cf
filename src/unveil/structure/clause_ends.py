"""The ends of except clauses and with bodies: the markers they leave on the frame's
stack (the exception a clause handles, a with's exit), and the ``POP_EXCEPT`` and
``name = None; del name`` that end a clause, dropped from the statements written
(leaving an except clause ends it in source).
"""
import ast

from . import stackitems as si


def remove_marker(frame, kind):
    for i in range(len(frame.stack) - 1, -1, -1):
        if isinstance(frame.stack[i], kind):
            del frame.stack[i]
            return True
    return False


_LEAVING = (ast.Return, ast.Raise, ast.Break, ast.Continue)


def without_exc_ends(stmts, name):
    """The statements without the clause's ends, nested ones too (``POP_EXCEPT`` and
    ``name = None; del name`` before a ``return`` from a loop in the clause, the
    exception dropped by a ``return`` in a finally body): leaving an except clause
    ends it in source."""
    out = []
    for k, st in enumerate(stmts):
        if isinstance(st, si.ExcEnd) or (isinstance(st, si.Discard) and isinstance(st.value, si.Exc)):
            continue
        if name and is_name_cleanup(st, name):
            rest = [t for t in stmts[k + 1:k + 4] if not isinstance(t, si.ExcEnd)]
            if not rest or isinstance(rest[0], _LEAVING) or (
                    is_name_cleanup(rest[0], name) and (len(rest) == 1 or isinstance(rest[1], _LEAVING))):
                continue
        for field in ("body", "orelse", "finalbody"):
            inner = getattr(st, field, None)
            if isinstance(inner, list) and inner and isinstance(inner[0], ast.stmt):
                setattr(st, field, without_exc_ends(inner, name) or [ast.Pass()])
        out.append(st)
    return out


def is_name_cleanup(st, name):
    if isinstance(st, ast.Assign) and len(st.targets) == 1 and isinstance(st.targets[0], ast.Name) \
            and st.targets[0].id == name and isinstance(st.value, ast.Constant) and st.value.value is None:
        return True
    return isinstance(st, ast.Delete) and len(st.targets) == 1 and getattr(st.targets[0], "id", None) == name
