"""``super()`` in a module whose own scope names ``super`` (unittest.mock's ``_safe_super =
super``): 3.12+ then compile ``super().f`` as a call and an attribute load, not
LOAD_SUPER_ATTR, in every function of the module."""
from tests.cases.registry import case

_safe_super = super


class _Base:
    def reset(self, *args, **kw):
        return "base", args, sorted(kw.items())


@case((1,), (0,), same_bytecode=True)
def super_calls_in_a_module_naming_super(n):
    # unittest.mock's MagicMock.reset_mock: decompiled on its own, the text was compiled
    # without the module's ``super``, and its super() calls loaded the attribute at once
    class Child(_Base):
        def reset(self, /, *args, flag=False, **kw):
            if flag and n:
                flag = False
            return super().reset(*args, flag=flag, **kw), super(Child, self).reset(n)

    return Child().reset(n, flag=True, k=2), _safe_super(Child, Child()).reset()
