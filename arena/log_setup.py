"""Operational logging (structlog): pretty on a terminal, JSON lines otherwise.

Hand logs are data files and never go through here.
"""

from __future__ import annotations

import logging
import sys
from typing import Literal

import structlog

LogFormat = Literal["auto", "console", "json"]


def configure_logging(fmt: LogFormat = "auto", verbosity: int = 0) -> None:
    """Configure structlog once, at program start (called by the CLI callback only).

    ``verbosity`` 0 logs warnings and up, 1 info, 2 or more debug. Logs go to stderr so
    that stdout stays for results (tables, JSON).
    """
    level = logging.WARNING if verbosity <= 0 else logging.INFO if verbosity == 1 else logging.DEBUG
    if fmt == "auto":
        fmt = "console" if sys.stderr.isatty() else "json"
    shared: list[structlog.typing.Processor] = [
        structlog.contextvars.merge_contextvars,
        structlog.processors.add_log_level,
        structlog.processors.TimeStamper(fmt="iso", utc=True),
    ]
    renderer: structlog.typing.Processor
    if fmt == "console":
        renderer = structlog.dev.ConsoleRenderer()
    else:
        shared.append(structlog.processors.dict_tracebacks)
        renderer = structlog.processors.JSONRenderer()
    structlog.configure(
        processors=[*shared, renderer],
        wrapper_class=structlog.make_filtering_bound_logger(level),
        logger_factory=structlog.PrintLoggerFactory(file=sys.stderr),
        cache_logger_on_first_use=False,
    )
