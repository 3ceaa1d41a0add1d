"""Fixtures of the tests of the bots in other languages."""

from __future__ import annotations

import os
import signal
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from lang_helpers import install_js_bot


@pytest.fixture(scope="session")
def js_bot() -> Path:
    """bots/js, installed (``npm ci`` once per session)."""
    return install_js_bot()


@pytest.fixture
def procs() -> Iterator[list[subprocess.Popen[str]]]:
    """Processes a test starts; each in a session of its own, killed with its group after."""
    started: list[subprocess.Popen[str]] = []
    yield started
    for p in started:
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        p.wait(5)
