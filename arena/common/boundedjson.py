"""Reading JSON that may be hostile: hand logs, ``results.jsonl``, a league's own files.

A log can come from anywhere (a bot's author sends one with a bug report, a league folder
is copied between machines), so every reader bounds what one line may cost: a line is
read in chunks of at most :data:`MAX_LINE_BYTES`, a longer one is skipped to its newline
without ever being held whole, and a value nested deeper than :data:`MAX_DEPTH` is refused
before :func:`json.loads` recurses into it (deep enough nesting makes it raise
``RecursionError``, which no reader expected). Memory is then bounded by one line,
whatever the file holds. The limits and why they are what they are: docs/handlog.md.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

MAX_LINE_BYTES = 4 * 1024 * 1024
"""The longest line a reader takes (4 MiB). The arena's longest lines are hand records:
a few hundred steps of about 100 bytes, a fault's detail cut at 500 characters, so tens
of KiB; 4 MiB leaves a hundred times that, and parsing it costs tens of MB at most."""

MAX_DEPTH = 64
"""The deepest nesting of arrays and objects a reader takes. The arena writes at most
5 levels (a step's fault inside a step inside a hand record); Python's parser recurses
once per level and fails with ``RecursionError`` near 1000."""

MAX_FILE_BYTES = 64 * 1024 * 1024
"""The largest whole-file JSON (``league.json``, ``standings.json``, ``sprt.json``) a
reader takes: a crosstable of hundreds of entries is a few MiB."""

_CHUNK = 1024 * 1024
# A whole string (skipped: its brackets are text), a bracket, or a quote that opens a
# string never closed (the line is not JSON: the scan stops there, json.loads says why).
_TOKEN = re.compile(rb'"(?:[^"\\]|\\.)*"|[\[\]{}]|"', re.DOTALL)


class JSONLimitError(ValueError):
    """A line or value over a reader's limits (too long, too deeply nested)."""


def check_depth(data: bytes, max_depth: int = MAX_DEPTH) -> None:
    """Refuse ``data`` if its arrays and objects nest deeper than ``max_depth``, brackets
    inside strings aside. Cheap: a line with fewer opening brackets than the limit is
    not scanned at all.

    Raises:
        JSONLimitError: it nests deeper.
    """
    if data.count(b"[") + data.count(b"{") <= max_depth:
        return
    depth = 0
    for m in _TOKEN.finditer(data):
        token = m.group()
        if token in (b"[", b"{"):
            depth += 1
            if depth > max_depth:
                raise JSONLimitError(f"nested more than {max_depth} levels deep")
        elif token in (b"]", b"}"):
            depth -= 1
        elif token == b'"':
            return


def loads(data: bytes | str, max_depth: int = MAX_DEPTH) -> Any:
    """:func:`json.loads`, with the nesting bounded first (:func:`check_depth`).

    Raises:
        ValueError: not JSON (:class:`json.JSONDecodeError`, or not UTF-8), or
            :class:`JSONLimitError`.
    """
    raw = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data
    check_depth(raw, max_depth)
    return json.loads(raw)


@dataclass(frozen=True)
class Line:
    """One line of a file as a bounded reader saw it."""

    number: int
    """From 1."""
    data: bytes
    """Its bytes, newline included; empty for a line over the limit."""
    too_long: bool = False
    """Longer than the limit: skipped, never held whole."""

    @property
    def complete(self) -> bool:
        """Whether it ends with its newline (only a file's last line may not)."""
        return self.data.endswith(b"\n")


def lines(f: IO[bytes], max_bytes: int = MAX_LINE_BYTES) -> Iterator[Line]:
    """Every line of a binary file, each read in at most ``max_bytes`` bytes; a longer
    line is yielded once as ``too_long`` after being skipped to its newline in chunks."""
    number = 0
    while True:
        data = f.readline(max_bytes + 1)
        if not data:
            return
        number += 1
        if len(data) <= max_bytes or (len(data) == max_bytes + 1 and data.endswith(b"\n")):
            yield Line(number, data)
            continue
        if not data.endswith(b"\n"):
            _skip_line(f)
        yield Line(number, b"", too_long=True)


def _skip_line(f: IO[bytes]) -> None:
    """Read past the next newline, a block of :data:`_CHUNK` bytes at a time (a readline
    of a long line scans it in far smaller steps: ten times slower)."""
    while block := f.read(_CHUNK):
        end = block.find(b"\n")
        if end >= 0:
            f.seek(end + 1 - len(block), os.SEEK_CUR)
            return


def read_file(path: Path, max_bytes: int = MAX_FILE_BYTES) -> Any:
    """The JSON value of a whole (small) file, its size and nesting bounded.

    Raises:
        OSError: it cannot be read.
        ValueError: it is not JSON, or over the limits (:class:`JSONLimitError`).
    """
    with open(path, "rb") as f:
        data = f.read(max_bytes + 1)
    if len(data) > max_bytes:
        raise JSONLimitError(f"larger than {max_bytes // (1024 * 1024)} MiB")
    return loads(data)


def limit_text(number: int) -> str:
    """Why line ``number`` was refused as too long, for a message that names its file."""
    return f"line {number}: longer than {MAX_LINE_BYTES // (1024 * 1024)} MiB (not read)"
