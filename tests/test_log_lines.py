"""Processes that share a stderr (a league and its referee workers) never share a log
line: with ``--log-format json`` each line is one JSON object, whatever writes at once."""

from __future__ import annotations

import json
import subprocess
import sys

LOGGER = r"""
import sys
import structlog
from arena.common.log_setup import configure_logging
configure_logging("json", 1)
log = structlog.get_logger()
for i in range(3000):
    log.warning("bot.start_failed", process=sys.argv[1], i=i, detail="x" * 300)
"""

PARENT = f"""
import subprocess, sys
children = [subprocess.Popen([sys.executable, "-c", {LOGGER!r}, str(k)]) for k in range(3)]
sys.exit(max(c.wait() for c in children))
"""


def test_processes_writing_at_once_never_share_a_line() -> None:
    """Three processes log 3,000 events each, all at once, to one pipe: every line is one
    whole event (written in two parts, text then newline, they were not)."""
    done = subprocess.run([sys.executable, "-c", PARENT], capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    events = [json.loads(line) for line in done.stderr.splitlines()]
    assert len(events) == 9000
    assert {(e["process"], e["i"]) for e in events} == {(str(k), i) for k in range(3) for i in range(3000)}
