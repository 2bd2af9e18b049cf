"""PEP 696 defaults of type parameters (3.13+)."""
MIN_VERSION = (3, 13)

from tests.cases.registry import case


def defaults(params):
    return [(p.__name__, repr(p.__default__)) for p in params]


@case((1,), (2,))
def type_param_defaults(n):
    def f[T = int, *Ts = *tuple[int, str], **P = [int, str]](a: T = n) -> T:
        return a

    class Box[T: (int, str) = int, U = list[T]]:
        pass

    type Alias[K = bytes] = dict[K, int]
    return f(), defaults(f.__type_params__), defaults(Box.__type_params__), defaults(Alias.__type_params__)


@case((1,), (2,))
def type_param_default_is_lazy(n):
    def f[T = Later]() -> None:
        pass
    try:
        got = f.__type_params__[0].__default__
    except NameError:
        got = "NameError"
    return got, n
