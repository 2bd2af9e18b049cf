"""Small text helpers the report's modules share: a count with its noun, a shortened
line, a def's length by indentation, a name safe in a file name, a file read as text."""
import re


def plural(n, noun):
    return "%d %s%s" % (n, noun, "" if n == 1 else "s")


def shorten(text, limit):
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[:limit - 1] + "\u2026"


def def_length(lines, start):
    """How many lines after ``start`` belong to the def there (by indentation; the
    decorators a code object's first line may point at come before it)."""
    if start >= len(lines):
        return 0
    head = start
    while head < len(lines) - 1 and lines[start].lstrip().startswith("@") \
            and not lines[head].lstrip().startswith(("def ", "async def ")):
        head += 1
    indent = len(lines[head]) - len(lines[head].lstrip())
    n = head - start
    for line in lines[head + 1:]:
        if line.strip() and len(line) - len(line.lstrip()) <= indent and not line.lstrip().startswith(")"):
            break
        n += 1
    while n and not lines[start + n].strip():
        n -= 1
    return n


def slug(text):
    return re.sub(r"[^A-Za-z0-9_.-]", "_", text)


def read_text(path):
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            return fh.read()
    except OSError:
        return None
