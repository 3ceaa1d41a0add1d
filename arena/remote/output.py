"""What a bot process prints: drained for its whole life into capped log files.

Stdout and stderr are read by two threads into ``<log_dir>/<label>.stdout.log`` and
``.stderr.log``, each capped at :data:`LOG_CAP_BYTES` (what is past the cap is counted,
not written), so a chatty bot never blocks on a full pipe and a flood cannot fill the
disk. The first line of stdout is kept apart: it is the bot's announce line. The first
and last lines of stderr are kept, made printable, for the messages that quote them (a
bot that does not start, a crash on the console, ``mus check``).
"""

from __future__ import annotations

import subprocess
import threading
from collections import deque
from pathlib import Path
from typing import IO

from arena.remote.untrusted import printable

LOG_CAP_BYTES = 16 * 1024 * 1024
"""Per stream and bot: output past this is counted but not written (a flood cannot fill the disk)."""
STDERR_TAIL_LINES = 20
STDERR_HEAD_LINES = 10
"""The first lines of a bot's stderr are kept too: a traceback's start, a missing file."""


class BotOutput:
    """The drains of one bot process's stdout and stderr."""

    def __init__(self, log_dir: Path, label: str) -> None:
        self.log_dir = log_dir
        self.label = label
        self.stdout_bytes = 0
        self.stderr_bytes = 0
        self.first_line: list[bytes] = []
        """The first line of stdout once read (``[b""]``: stdout ended before any line)."""
        self.line_ready = threading.Event()
        """Set once :attr:`first_line` is read."""
        self._stderr_tail: deque[str] = deque(maxlen=STDERR_TAIL_LINES)
        self._stderr_head: list[str] = []
        self._stderr_lines = 0
        self._threads: list[threading.Thread] = []

    @property
    def stderr_log(self) -> Path:
        """The file the bot's stderr is copied to (``<log_dir>/<label>.stderr.log``):
        where a bot's tracebacks are, so the console names it when the bot faults."""
        return self.log_dir / f"{self.label}.stderr.log"

    def start(self, proc: subprocess.Popen[bytes]) -> None:
        """Start draining ``proc``'s stdout and stderr (both pipes)."""
        assert proc.stdout is not None and proc.stderr is not None
        stdout, stderr = proc.stdout, proc.stderr
        self._spawn(lambda: self._drain_stdout(stdout), "stdout")
        self._spawn(lambda: self._copy(stderr, self.stderr_log, stderr=True), "stderr")

    def join(self, timeout: float) -> None:
        """Wait up to ``timeout`` seconds for each drain to end."""
        for t in self._threads:
            t.join(timeout)

    def draining(self) -> bool:
        """Whether a drain still runs (a process outside the bot's group may hold its pipes)."""
        return any(t.is_alive() for t in self._threads)

    def _spawn(self, target: object, name: str) -> None:
        t = threading.Thread(target=target, name=f"{self.label}-{name}", daemon=True)  # type: ignore[arg-type]
        t.start()
        self._threads.append(t)

    def _drain_stdout(self, stream: IO[bytes]) -> None:
        first = stream.readline(4096)
        self.first_line.append(first)
        self.line_ready.set()
        self._copy(stream, self.log_dir / f"{self.label}.stdout.log", stderr=False)

    def _copy(self, stream: IO[bytes], path: Path, stderr: bool) -> None:
        written = 0
        with open(path, "ab") as out:
            while True:
                chunk = stream.readline(65536) if stderr else stream.read1(65536)  # type: ignore[attr-defined]
                if not chunk:
                    break
                if stderr:
                    self.stderr_bytes += len(chunk)
                    # Sanitised once, here: every message that quotes it (the console,
                    # mus check, BotStartError) shows text, never the bot's escape sequences.
                    line = printable(chunk.decode("utf-8", "replace").rstrip("\n"), 300)
                    self._stderr_lines += 1
                    if len(self._stderr_head) < STDERR_HEAD_LINES:
                        self._stderr_head.append(line)
                    self._stderr_tail.append(line)
                else:
                    self.stdout_bytes += len(chunk)
                if written < LOG_CAP_BYTES:
                    out.write(chunk[: LOG_CAP_BYTES - written])
                    written += len(chunk)
                    out.flush()

    def stderr_text(self) -> str:
        """The stderr excerpt as start-up errors quote it (after a "; "), naming the log file."""
        lines = self.stderr_excerpt()
        if not lines:
            return " (its stderr was empty)"
        return f"; its stderr ({self.stderr_log}):\n  " + "\n  ".join(lines)

    def stderr_tail(self) -> list[str]:
        """The last lines the bot wrote to stderr (made printable)."""
        return list(self._stderr_tail)

    def stderr_excerpt(self, tail_lines: int = STDERR_TAIL_LINES) -> list[str]:
        """The first and the last ``tail_lines`` lines the bot wrote to stderr, each once,
        with a line saying how many were left out between them (made printable). The
        start often holds the real error (a traceback's first line), the end what the bot
        did last. Waits briefly for the drain of an exited bot's last lines."""
        self.join(0.2)
        head, total = list(self._stderr_head), self._stderr_lines
        tail = list(self._stderr_tail)[-tail_lines:] if tail_lines > 0 else []
        if total <= len(head) + len(tail):
            return head + tail[len(head) + len(tail) - total:]
        return [*head, f"({total - len(head) - len(tail)} lines left out)", *tail]
