"""Signatures under ``from __future__ import annotations`` (annotations stored as text)."""
from __future__ import annotations

from tests.cases.registry import case


@case()
def annotations_stay_source_text():
    """String annotations are parsed back to expressions only under the future import."""
    def inner(a: int, b: "list[str]" = None, *, c: dict[str, int] | None = None) -> tuple[int, ...]:
        return (a,)

    return inner(1), inner.__annotations__


@case(("1.2.3", None, "2.0"), same_bytecode=True)
def signature_one_parameter_a_line(version, chardet, normalizer):
    """A signature with a parameter a line and the closing bracket on its own
    (requests/__init__.py check_compatibility): 3.12+ fold the annotations into one
    constant and keep a NOP per name and annotation line before it."""
    def check(
        urllib3_version: str,
        chardet_version: str | None,
        charset_normalizer_version: str | None,
    ) -> None:
        return urllib3_version, chardet_version, charset_normalizer_version

    return check(version, chardet, normalizer), check.__annotations__


@case(("bad",), same_bytecode=True)
def signature_self_and_defaults_a_line(message):
    """An ``__init__`` with ``self`` on the line after ``def`` and defaults on lines of their
    own (click/exceptions.py BadParameter.__init__): ``self`` has no annotation, so no
    NOP says where it was."""
    class BadParameter:
        def __init__(
            self,
            message: str,
            ctx: object | None = None,
            param: object | None = None,
            param_hint: str | None = None,
        ) -> None:
            self.args = message, ctx, param, param_hint

    return BadParameter(message).args, BadParameter.__init__.__annotations__


@case((2,), same_bytecode=True)
def decorated_signature_a_parameter_a_line(n):
    """A decorated def with a parameter a line (rich/segment.py Segment.apply_style): the
    line of ``def``, not of the decorator, is where the names' NOPs are."""
    class Segment:
        @classmethod
        def apply_style(
            cls,
            segments: list[int],
            style: int | None = None,
            post_style: int | None = None,
        ) -> list[int]:
            return segments + [style, post_style]

    return Segment.apply_style([n]), Segment.apply_style.__annotations__
