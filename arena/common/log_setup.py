"""Operational logging (structlog) on stderr: ``console`` (for people; the default) or
``json`` (one JSON object per line, for machines).

Hand logs are data files and never go through here.
"""

from __future__ import annotations

import logging
import os
import sys
from typing import Literal

import structlog

LogFormat = Literal["console", "json"]
LOG_FORMATS: tuple[LogFormat, ...] = ("console", "json")

_configured: tuple[LogFormat, int] | None = None
"""What :func:`configure_logging` was last called with (None: never)."""


class _CurrentStderr:
    """Writes to whatever ``sys.stderr`` is at the time of the write, not at start: a
    live progress bar (rich) swaps it for a proxy that prints above the bar; a logger
    holding the original stream would write through the bar and garble it.

    A whole line to the process's own stderr goes out in one ``write(2)``: a league's
    referee worker processes share that stderr, and lines written in parts (the text,
    then its newline) interleaved, two JSON objects on one line (a pipe keeps each write
    of up to 4 KiB whole; a longer line may still be cut, never merged into another)."""

    def write(self, text: str) -> int:
        err = sys.stderr
        if id(err) != id(sys.__stderr__) or not text.endswith("\n"):  # (id: no narrowing to Optional)
            return err.write(text)
        try:
            fd = err.fileno()
        except (AttributeError, OSError, ValueError):  # no file behind it
            return err.write(text)
        err.flush()
        data = memoryview(text.encode(err.encoding or "utf-8", "backslashreplace"))
        while data:
            data = data[os.write(fd, data):]
        return len(text)

    def flush(self) -> None:
        sys.stderr.flush()


def configure_logging(fmt: LogFormat = "console", verbosity: int = 0) -> None:
    """Configure structlog once, at program start (called by the CLI callback only).

    ``fmt``: ``console`` prints one readable line per event (colours only when stderr is
    a terminal and ``NO_COLOR`` is not set), whatever stderr is: a user who redirects it
    to a file still reads it; ``json`` prints one JSON object per event, only when asked
    (``--log-format json``). ``verbosity`` 0 logs warnings and up, 1 info, 2 or more
    debug. Logs go to stderr so that stdout stays for results (tables, JSON).

    Raises:
        ValueError: an unknown ``fmt``.
    """
    if fmt not in LOG_FORMATS:
        raise ValueError(f"log format {fmt!r}: must be one of {', '.join(LOG_FORMATS)}")
    global _configured
    _configured = (fmt, verbosity)
    level = logging.WARNING if verbosity <= 0 else logging.INFO if verbosity == 1 else logging.DEBUG
    shared: list[structlog.typing.Processor] = [
        structlog.contextvars.merge_contextvars,
        structlog.processors.add_log_level,
    ]
    renderer: structlog.typing.Processor
    if fmt == "console":
        colors = sys.stderr.isatty() and not os.environ.get("NO_COLOR")
        shared.append(structlog.processors.TimeStamper(fmt="%H:%M:%S", utc=False))
        renderer = structlog.dev.ConsoleRenderer(
            colors=colors,
            # Never the locals of a frame: they may hold a league's secret seed.
            exception_formatter=(structlog.dev.RichTracebackFormatter(show_locals=False) if colors
                                 else structlog.dev.plain_traceback),
        )
    else:
        shared += [structlog.processors.TimeStamper(fmt="iso", utc=True), structlog.processors.dict_tracebacks]
        renderer = structlog.processors.JSONRenderer()
    structlog.configure(
        processors=[*shared, renderer],
        wrapper_class=structlog.make_filtering_bound_logger(level),
        # WriteLogger writes an event and its newline in one call (PrintLogger: two).
        logger_factory=structlog.WriteLoggerFactory(file=_CurrentStderr()),  # type: ignore[arg-type]
        cache_logger_on_first_use=False,
    )


def current_logging() -> tuple[LogFormat, int] | None:
    """The format and verbosity logging was configured with in this process (None: it
    was not): a league's referee worker processes log as their parent does."""
    return _configured
