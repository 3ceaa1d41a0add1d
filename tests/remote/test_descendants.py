"""Finding every process below a bot (arena.remote.process.descendants), which freezing
and waking a bot relies on: a child started from any thread of any process below it."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time

import pytest

from arena.remote.process import descendants

# A process that starts a child from a thread other than its main one (Linux lists a
# child under the thread that made it), then a grandchild below that child.
_TREE = """
import subprocess, sys, threading, time
kids = []
def spawn():
    kids.append(subprocess.Popen([sys.executable, "-c",
        "import subprocess, sys, time; subprocess.Popen(['sleep', '30']); time.sleep(30)"]))
t = threading.Thread(target=spawn)
t.start(); t.join()
print(kids[0].pid, flush=True)
time.sleep(30)
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_children_of_every_thread_and_their_children_are_found() -> None:
    root = subprocess.Popen([sys.executable, "-c", _TREE], stdout=subprocess.PIPE, text=True)
    found: list[int] = []
    try:
        assert root.stdout is not None
        child = int(root.stdout.readline())
        for _ in range(100):  # the grandchild starts a moment later
            found = descendants(root.pid)
            if len(found) >= 2:
                break
            time.sleep(0.05)
        assert child in found and len(found) == 2
        assert descendants(child) == [p for p in found if p != child]
    finally:
        for pid in found:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        root.kill()
        root.wait()
