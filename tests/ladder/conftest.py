"""A small ladder of the fast bundled bots, played once per module through ``mus ladder``."""

from __future__ import annotations

from pathlib import Path

import pytest
from ladder_helpers import TRIVIAL, make_ladder, ok


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The small ladder after ``mus ladder run --matches 4``, then a new version of
    trivial (a copy of the bot, with a note) and 2 more matches (duplicate pairs)."""
    root = tmp_path_factory.mktemp("ladder")
    ladder = make_ladder(root)
    ok("ladder", "run", ladder, "--matches", "4", "--jobs", "2")
    ok("ladder", "add", ladder, "trivial", TRIVIAL, "--note", "second try")
    ok("ladder", "run", ladder, "--matches", "2", "--jobs", "2")
    return ladder
