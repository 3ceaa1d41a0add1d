"""The bundled learned bot starts under the strict sandbox: its imports (the SDK's rl
extra, ``mus_rl``, and ``numpy`` with its compiled libraries) are visible inside it, as
the SDK's own are. Without them it died at its first import, a traceback in its stderr."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.cli.main import app
from arena.remote import sandbox

REPO = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.skipif(sandbox._probe("bwrap") is not None, reason="needs bubblewrap (apt-get install bubblewrap)")


def test_the_learned_bot_passes_mus_check_under_strict() -> None:
    result = CliRunner().invoke(app, ["check", str(REPO / "bots" / "learned"), "--sandbox", "strict"])
    assert result.exit_code == 0, result.output
    assert "ModuleNotFoundError" not in result.output
