"""League-file keys that a later branch added (``[standings]``, issue 29) in a ladder's
settings: refused in the ladder's own words, never with the placeholder entries the
ladder's parser adds (``_ladder_a``) in the message."""

from __future__ import annotations

from pathlib import Path

from ladder_helpers import mus


def test_a_standings_anchor_is_refused_in_the_ladders_words(tmp_path: Path) -> None:
    (tmp_path / "s.toml").write_text('[rules]\nplayers = 2\n\n[standings]\nanchor = "rulebot"\n')
    result = mus("ladder", "create", tmp_path / "ladder", "--settings", tmp_path / "s.toml")
    assert result.exit_code != 0
    assert "_ladder_" not in result.output and "standings" in result.output, result.output
    assert "Traceback" not in result.output
