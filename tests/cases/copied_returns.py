"""Short returns 3.12+ copy into the place of the jumps to them (where 3.10 and 3.11
still jump: their bytecode differs in other ways there)."""
MIN_VERSION = (3, 12)

from tests.cases.registry import case


@case(("a/b/c",), ("a",), ("",), same_bytecode=True)
def while_and_test_left_by_copies_of_the_implicit_return(path):
    """os.removedirs: each test of ``while head and tail:`` at the bottom fails to a
    copy of the implicit return on the while's line (3.12+): the loop's way out,
    not a ``return`` in the loop."""
    seen = []
    head, tail = path.rsplit("/", 1) if "/" in path else ("", path)
    while head and tail:
        try:
            seen.append(head)
        except OSError:
            break
        head, tail = head.rsplit("/", 1) if "/" in head else ("", head)
