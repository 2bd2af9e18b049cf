"""Python source as pygments' HTML, the report's way.  Also a script: a JSON list of
``[text, marked lines]`` on stdin, their HTML as a JSON list on stdout (the report's
worker interpreters run it so, importing pygments and nothing of unveil)."""
import json
import sys


def highlight(text, start=1, marked=()):
    """``text`` as pygments' HTML with numbered lines from ``start``, each anchored
    ``#L-n`` (in a span ``LS-n``, which the style sheet marks when its anchor is the
    target), the lines ``marked`` highlighted."""
    from pygments import highlight as pygmentize
    from pygments.formatters import HtmlFormatter
    from pygments.lexers import PythonLexer
    return pygmentize(text, PythonLexer(), HtmlFormatter(linenos="table", lineanchors="L", anchorlinenos=True,
                                                         linespans="LS", linenostart=start,
                                                         hl_lines=[n - start + 1 for n in marked]))


def _worker():
    texts = json.loads(sys.stdin.buffer.read().decode("utf-8"))
    sys.stdout.buffer.write(json.dumps([highlight(text, 1, marked) for text, marked in texts]).encode("utf-8"))


if __name__ == "__main__":
    _worker()
