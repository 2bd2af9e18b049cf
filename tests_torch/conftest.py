import logging
import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))
os.environ.setdefault("HF_HUB_OFFLINE", "1")


@pytest.fixture(autouse=True)
def trace_logger_as_outside_pytest():
    """pytest's log capture puts its handlers on torch.__trace too (it never propagates);
    they want every structured-trace record, so prepare_debug's filtered trace would
    build them all.  Outside pytest the logger has no handler (torch's own TORCH_TRACE
    handler removes itself on its first record unless TORCH_TRACE is set)."""
    logger = logging.getLogger("torch.__trace")
    saved = logger.handlers
    logger.handlers = [h for h in saved if type(h).__module__.split(".")[0] not in ("_pytest", "pytest")]
    try:
        yield
    finally:
        logger.handlers = saved
