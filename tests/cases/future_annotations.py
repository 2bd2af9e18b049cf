"""Signatures under ``from __future__ import annotations`` (annotations stored as text)."""
from __future__ import annotations

from tests.cases.registry import case


@case()
def annotations_stay_source_text():
    """String annotations are parsed back to expressions only under the future import."""
    def inner(a: int, b: "list[str]" = None, *, c: dict[str, int] | None = None) -> tuple[int, ...]:
        return (a,)

    return inner(1), inner.__annotations__
