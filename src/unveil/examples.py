"""Small functions that ``python -m unveil demo`` decompiles from their bytecode."""


def parse_numbers(items):
    """Sum the items that parse as integers and count the ones that don't."""
    total = 0
    rejected = 0
    for item in items:
        try:
            total += int(item)
        except (TypeError, ValueError):
            rejected += 1
            continue
    return total, rejected


def even_squares(n):
    """The squares of the even numbers below n."""
    return [i * i for i in range(n) if i % 2 == 0]


def make_counter(start=0):
    """A closure: each call of the returned function adds ``by`` to a shared count."""
    count = start

    def step(by=1):
        nonlocal count
        count += by
        return count

    return step


#: The functions the demo shows, in order.
EXAMPLES = (parse_numbers, even_squares, make_counter)
