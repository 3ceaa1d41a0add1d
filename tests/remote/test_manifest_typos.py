"""A misspelt manifest key is named with the key it looks like (issue 29: ``comand`` gave
"field command: must be a non-empty list of strings", the typo nowhere)."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.remote.manifest import ManifestError, load_manifest


@pytest.mark.parametrize(("text", "says"), [
    ('name = "t"\ncomand = ["python", "bot.py"]\n', "'comand' is not a field: did you mean 'command'?"),
    ('name = "t"\ncommand = ["python", "bot.py"]\nfresh_proces = true\n',
     "field fresh_proces: unknown; did you mean 'fresh_process'?"),
    ('name = "t"\n', "field command: must be a non-empty list of strings (missing)"),
])
def test_a_typo_is_named_with_the_key_it_looks_like(tmp_path: Path, text: str, says: str) -> None:
    (tmp_path / "bot.toml").write_text(text, encoding="utf-8")
    with pytest.raises(ManifestError) as caught:
        load_manifest(tmp_path / "bot.toml")
    assert says in str(caught.value), caught.value
