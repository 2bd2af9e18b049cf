"""PEP 646 starred annotations of ``*args`` (3.11+)."""
MIN_VERSION = (3, 11)

from typing import TypeVarTuple

from tests.cases.registry import case

Shape = TypeVarTuple("Shape")


@case((1, 2), (3,))
def starred_args_annotation(*dims):
    def shaped(*args: *Shape) -> tuple[*Shape]:
        return args

    def literal(*args: *tuple[int, ...]):
        return len(args)
    ann = shaped.__annotations__["args"]
    return shaped(*dims), literal(*dims), type(ann).__name__, repr(ann), repr(literal.__annotations__["args"])
