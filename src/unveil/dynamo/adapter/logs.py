"""Taps on torch's loggers, each attached and detached, its callback run with Dynamo off:
the structured trace (the ``torch.__trace`` logger; ``torch._logging._internal.
trace_structured`` checks ``if trace_log.handlers`` before it builds any payload), the
``graph_code`` artifact (``torch._dynamo.output_graph.__graph_code``: each Dynamo graph
module) and the ``aot_graphs`` artifacts (``torch._functorch._aot_autograd.graph_capture``'s
and ``graph_compile``'s: the graph modules AOT Autograd hands its compilers)."""
import inspect
import logging
import sys

import torch

from .dynamo_off import without_dynamo


class _LogTap(logging.Handler):
    """A handler on one torch logger, enabled at DEBUG while attached."""

    logger_name = None

    def __init__(self, callback):
        super().__init__(logging.DEBUG)
        self.callback = without_dynamo(callback)      # (a record may come while the user's code runs)
        self.logger = logging.getLogger(self.logger_name)
        self._saved = None

    def attach(self):
        self._saved = (self.logger.level, self.logger.propagate)
        self.logger.addHandler(self)
        if not self.logger.isEnabledFor(logging.DEBUG):
            # enabled only for us: keep the records from reaching the user's handlers
            self.logger.setLevel(logging.DEBUG)
            self.logger.propagate = False

    def detach(self):
        self.logger.removeHandler(self)
        level, self.logger.propagate = self._saved
        self.logger.setLevel(level)  # not ``.level =``: that would keep isEnabledFor's cached answer

    def handleError(self, record):  # noqa: N802  (logging's name) - never print our errors into torch's logs
        pass


class StructuredTrace(_LogTap):
    """torch's structured trace (what TORCH_TRACE writes): ``callback(event, metadata, payload)``.

    torch builds a record, payload included, for every event while the
    ``torch.__trace`` logger has a handler; most are costly (the guard tree and
    each graph as text) and of no use here.  With ``events`` (event names, and
    artifact names for ``"artifact"`` events), the logger's handler list answers
    "empty" to ``trace_structured``'s check for every other event, unless a
    handler of someone else's (TORCH_TRACE) is attached too.
    """

    logger_name = "torch.__trace"

    def __init__(self, callback, events=None):
        super().__init__(callback)
        self.events = frozenset(events) if events is not None else None

    def attach(self):
        super().attach()
        if self.events is not None:
            self.logger.handlers = _OnlyFor(self, self.logger.handlers)

    def detach(self):
        super().detach()
        if isinstance(self.logger.handlers, _OnlyFor):
            self.logger.handlers = list(self.logger.handlers)

    def wanted(self, frame_locals):
        """Whether the event ``trace_structured`` (whose locals these are) is about to build is kept."""
        name = frame_locals.get("name")
        if name == "artifact":
            try:
                name = frame_locals["metadata_fn"]().get("name")
            except Exception:  # a metadata function we cannot call twice: build the record
                return True
        return name in self.events

    def emit(self, record):
        metadata = getattr(record, "metadata", None)
        if isinstance(metadata, dict) and metadata:
            event = next(iter(metadata))
            self.callback(event, metadata, getattr(record, "payload", None))


def _trace_structured_code():
    from torch._logging import _internal
    return _internal.trace_structured.__code__


class _OnlyFor(list):
    """``torch.__trace``'s handler list while a filtering :class:`StructuredTrace` is on it."""

    def __init__(self, tap, handlers):
        super().__init__(handlers)
        self.tap = tap
        self.check = _trace_structured_code()

    def __bool__(self):
        if any(h is not self.tap for h in self):
            return True
        if not len(self):
            return False
        frame = sys._getframe(1)
        return frame.f_code is self.check and self.tap.wanted(frame.f_locals)


def _logged_graph(record):
    """``(title, graph module)`` of a record logged with ``lazy_format_graph_code(title, gm)``.

    torch's LazyString wraps a lambda closing over the graph module and over a
    function that closes over the title; nothing is formatted here."""
    for arg in record.args or ():
        cells = getattr(getattr(arg, "func", None), "__closure__", None) or ()
        values = [cell.cell_contents for cell in cells]
        for value in values:
            if isinstance(value, torch.fx.GraphModule):
                titles = [inner.cell_contents for fn in values if inspect.isfunction(fn)
                          for inner in fn.__closure__ or () if isinstance(inner.cell_contents, str)]
                return (titles[0] if titles else None), value
    return None, None


class GraphCodeLog(_LogTap):
    """The ``graph_code`` logging artifact: ``callback(name, graph_module)`` per Dynamo graph."""

    logger_name = "torch._dynamo.output_graph.__graph_code"

    def emit(self, record):
        _, gm = _logged_graph(record)
        if gm is not None:
            # Dynamo stores the graph's global name in its meta["backend_id"]
            self.callback(gm.meta.get("backend_id", "graph"), gm)


#: (logger, title) of the ``aot_graphs`` records that carry the graphs AOT Autograd compiles
_AOT_GRAPHS = {
    ("torch._functorch._aot_autograd.graph_capture.__aot_graphs", "Forward graph"): "aot_inference",
    ("torch._functorch._aot_autograd.graph_compile.__aot_graphs", "Forward graph"): "aot_forward",
    ("torch._functorch._aot_autograd.graph_compile.__aot_graphs", "Backward graph"): "aot_backward",
}


class _RecordTap(_LogTap):
    """A tap on a logger named at construction: ``callback(logger name, record)``."""

    def __init__(self, logger_name, callback):
        self.logger_name = logger_name
        super().__init__(callback)

    def emit(self, record):
        self.callback(self.logger_name, record)


class AotGraphsLog:
    """The ``aot_graphs`` logging artifact: ``callback(kind, graph_module)`` for each graph
    AOT Autograd hands its compilers (``aot_forward``, ``aot_backward``, ``aot_inference``)."""

    def __init__(self, callback):
        self.callback = callback
        self.taps = [_RecordTap(name, self._record) for name in sorted({name for name, _ in _AOT_GRAPHS})]

    def _record(self, logger_name, record):
        title, gm = _logged_graph(record)
        kind = _AOT_GRAPHS.get((logger_name, title))
        if kind is not None and gm is not None:
            self.callback(kind, gm)

    def attach(self):
        for tap in self.taps:
            tap.attach()

    def detach(self):
        for tap in self.taps:
            tap.detach()
