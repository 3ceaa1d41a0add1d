"""A referee worker process stopped by SIGTERM (a league interrupted with --jobs 2 or
more) removes the fixed machine counters it wrote for its strict bots
(:mod:`arena.remote.machine_view`): it exits with ``os._exit``, which runs no ``atexit``
handler, so the folder was left until some later arena swept it."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

WORKER = """
import signal, sys, time
from pathlib import Path
from arena.league import procs_worker
from arena.remote import machine_view
root = Path(sys.argv[1])
machine_view.binds(root)
signal.signal(signal.SIGTERM, procs_worker._on_sigterm)
print(next(root.iterdir()), flush=True)
time.sleep(30)
"""


def test_a_worker_stopped_by_sigterm_removes_its_counter_files(tmp_path: Path) -> None:
    p = subprocess.Popen([sys.executable, "-c", WORKER, str(tmp_path)], cwd=REPO, stdout=subprocess.PIPE, text=True)
    try:
        assert p.stdout is not None
        folder = Path(p.stdout.readline().strip())
        assert folder.is_dir() and any(folder.iterdir())
        p.send_signal(signal.SIGTERM)
        assert p.wait(10) == 128 + signal.SIGTERM
    finally:
        p.kill()
        p.wait()
    assert not folder.exists()
