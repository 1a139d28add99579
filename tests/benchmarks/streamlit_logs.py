"""Streamlit's logging, quieted for tools that run pages without a server.

Streamlit creates its loggers as its modules load, so the level has to be set before
the app (and the cached functions of ``rskpca.ui.compute``) are imported, which is
why ``tests/benchmarks/bench_latency.py`` calls :func:`quiet_streamlit_logs` first.
"""

from __future__ import annotations

import logging
import os


def quiet_streamlit_logs() -> None:
    """Silence Streamlit's warnings about the missing runtime (AppTest runs without a server).

    Streamlit warns "missing ScriptRunContext" on every cached call outside a
    server; those warnings would bury the table. Streamlit creates its loggers
    as its modules load, at the level :func:`streamlit.logger.set_log_level`
    last set, so that is set before the app is imported, and loggers that
    already exist are lowered too.
    """
    # AppTest re-parses the config on each run, which resets the levels from ``logger.level``,
    # so the levels alone do not hold: a filter on the loggers does.
    os.environ["STREAMLIT_LOGGER_LEVEL"] = "error"
    import streamlit.runtime.caching.cache_data_api  # noqa: F401 - creates the loggers that warn
    import streamlit.runtime.caching.cache_resource_api  # noqa: F401
    from streamlit import logger

    logger.set_log_level("error")
    for name in list(logging.root.manager.loggerDict):
        if name.startswith("streamlit"):
            log = logging.getLogger(name)
            log.setLevel(logging.ERROR)
            if _errors_only not in log.filters:
                log.addFilter(_errors_only)


def _errors_only(record: logging.LogRecord) -> bool:
    return record.levelno >= logging.ERROR
