"""A hostile entry in a ladder under its default (strict) sandbox: told where the database
and the secret are, it can neither read the secret nor touch the database; what reaches
the database is the referee's result of its match, and every row still checks."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

from ladder_helpers import TRIVIAL, ok

SNOOP = Path(__file__).resolve().parent / "bots" / "snoop"


def test_a_hostile_bot_cannot_reach_the_database(tmp_path: Path, sandbox_table: str = "") -> None:
    (tmp_path / "s.toml").write_text("duplicate = false\n\n[rules]\nplayers = 2\ntarget_points = 10\n"
                                     "games_to_win = 1\n" + sandbox_table)  # no [sandbox]: strict
    ladder = tmp_path / "ladder"
    ok("ladder", "create", ladder, "--settings", tmp_path / "s.toml")
    db, secret = ladder / "ladder.sqlite", ladder / "secret.json"
    bot = tmp_path / "snoop"
    shutil.copytree(SNOOP, bot)
    with open(bot / "bot.toml", "a") as f:
        f.write(f'\n[env]\nSNOOP_DB = "{db}"\nSNOOP_SECRET = "{secret}"\n')
    ok("ladder", "add", ladder, "snoop", bot)
    ok("ladder", "add", ladder, "trivial", TRIVIAL)
    ok("ladder", "run", ladder, "--matches", "1")

    stderr = "".join(p.read_text(errors="replace") for p in (ladder / "botlogs").rglob("*") if p.is_file())
    assert "SNOOP blocked reading the secret" in stderr and "SNOOP blocked writing the database" in stderr
    assert "SNOOP blocked overwriting the database" in stderr
    assert "SNOOP read" not in stderr and "SNOOP wrote" not in stderr and "SNOOP overwrote" not in stderr
    assert json.loads(secret.read_text())["results_key"] not in stderr
    con = sqlite3.connect(db)
    assert [r[0] for r in con.execute("SELECT team0 || ' ' || team1 FROM matches")] in (
        ["snoop.v1 trivial.v1"], ["trivial.v1 snoop.v1"])  # the one match played, nothing forged
    assert con.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    con.close()
    assert "1 match rows: every one checks" in ok("ladder", "verify", ladder)
