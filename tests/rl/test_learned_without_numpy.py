"""bots/learned on an arena without the SDK's rl extra (no numpy): one line saying what to
install, not a traceback in the bot's stderr, which mus check and the league quote."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

RUN = ("import runpy, sys; sys.modules['numpy'] = None; sys.argv = ['bot.py']; "
       "runpy.run_path('bot.py', run_name='__main__')")


def test_without_numpy_the_learned_bot_says_what_to_install() -> None:
    p = subprocess.run([sys.executable, "-c", RUN], cwd=REPO / "bots" / "learned", capture_output=True, text=True,
                       timeout=60, check=False)
    assert p.returncode == 1
    assert "Traceback" not in p.stderr and "pip install 'mus-sdk[rl]'" in p.stderr, p.stderr
