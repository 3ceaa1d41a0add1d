"""``mus ladder`` end to end on a small ladder of real bot processes: versions, matchmaking,
standings and exports from the database, tamper-evidence, snapshots, the run lock."""

from __future__ import annotations

import csv
import io
import json
import shutil
import sqlite3
from pathlib import Path

from conftest import RANDOM, SETTINGS, TRIVIAL, make_ladder, mus, ok

from arena.handlog import read_log
from arena.ladder.runner import ladder_lock


def rows(ladder: Path, sql: str) -> list[tuple[object, ...]]:
    con = sqlite3.connect(ladder / "ladder.sqlite")
    try:
        return [tuple(r) for r in con.execute(sql)]
    finally:
        con.close()


def test_every_match_is_saved_once_with_its_hand_log(played: Path) -> None:
    matches = rows(played, "SELECT match_id, team0, team1, log FROM matches ORDER BY seq")
    assert len(matches) == 10
    assert len({m[0] for m in matches}) == 10
    for match_id, team0, team1, log in matches:
        hand_log = read_log(played / str(log))
        assert hand_log.footer is not None and hand_log.header["match_id"] == match_id
        assert {s["entry"] for s in hand_log.header["seats"]} == {team0, team1}
        assert hand_log.header["sandbox"]["profile"] == "default"
    # Duplicate deals: the twins of a unit share the seed, the teams exchanging seats.
    twins = rows(played, "SELECT a.team0, a.team1, b.team0, b.team1, a.seed = b.seed FROM planned a JOIN planned b "
                         "ON a.unit = b.unit AND a.match_id < b.match_id")
    assert twins and all(t[0] == t[3] and t[1] == t[2] and t[4] for t in twins)
    assert rows(played, "SELECT count(*) FROM planned WHERE state = 'planned' AND match_id NOT IN "
                        "(SELECT match_id FROM matches)") == [(0,)]


def test_a_new_version_is_rated_on_its_own_and_played_first(played: Path) -> None:
    versions = rows(played, "SELECT id, previous, active, note FROM versions ORDER BY rowid")
    assert versions[-1] == ("trivial.v2", "trivial.v1", 1, "second try")
    assert ("trivial.v1", None, 0, "") in versions
    second_run = rows(played, "SELECT team0, team1 FROM matches WHERE seq > 6")
    assert all("trivial.v2" in pair for pair in second_run)  # new versions first
    out = ok("ladder", "standings", played)
    assert "trivial.v2" in out and "retired: trivial.v1 (last rated" in out


def test_ratings_are_snapshotted_after_each_batch(played: Path) -> None:
    history = json.loads(ok("ladder", "export", played))["ratings"]
    batches = sorted({r["batch"] for r in history})
    assert len(batches) >= 2
    last = [r for r in history if r["batch"] == batches[-1]]
    assert {r["version"] for r in last} == {"trivial.v2", "random.v1", "rulebot.v1"}
    assert max(r["total"] for r in history) == 10
    doc = json.loads(ok("ladder", "export", played))
    assert {s["name"] for s in doc["standings"]} == {"trivial.v2", "random.v1", "rulebot.v1"}
    assert len(doc["matches"]) == 10 and doc["bad_rows"] == []
    table = list(csv.reader(io.StringIO(ok("ladder", "export", played, "--format", "csv", "--what", "matches"))))
    assert len(table) == 11 and table[0][:2] == ["seq", "match_id"]


def test_a_tampered_row_is_detected_and_reported(played: Path, tmp_path: Path) -> None:
    copy = tmp_path / "copy"
    shutil.copytree(played, copy)
    assert "10 match rows: every one checks" in ok("ladder", "verify", copy)
    seq, winner = rows(copy, "SELECT seq, winner FROM matches WHERE winner IS NOT NULL LIMIT 1")[0]
    con = sqlite3.connect(copy / "ladder.sqlite")
    con.execute("UPDATE matches SET winner = ? WHERE seq = ?", (1 - int(str(winner)), seq))
    con.commit()
    con.close()
    result = mus("ladder", "verify", copy)
    assert result.exit_code == 1 and f"match row {seq} (" in result.output and "edited" in result.output
    standings = mus("ladder", "standings", copy)
    assert standings.exit_code == 0 and "left out" in standings.output
    refused = mus("ladder", "run", copy, "--matches", "2")
    assert refused.exit_code == 2 and "fail their check" in refused.output


def test_a_version_is_a_snapshot_of_its_folder(tmp_path: Path) -> None:
    source = tmp_path / "mybot"
    shutil.copytree(TRIVIAL, source)
    (tmp_path / "s.toml").write_text(SETTINGS)
    ladder = tmp_path / "ladder"
    ok("ladder", "create", ladder, "--settings", tmp_path / "s.toml")
    ok("ladder", "add", ladder, "mine", source)
    (source / "bot.py").write_text("raise SystemExit('edited after it was added')\n")
    snapshot = ladder / "entries" / "mine" / "v1" / "bot.py"
    assert snapshot.read_text() == (TRIVIAL / "bot.py").read_text()
    # Changing the snapshot itself is caught before anything is played.
    ok("ladder", "add", ladder, "other", RANDOM)
    snapshot.chmod(0o644)
    snapshot.write_text(snapshot.read_text() + "\n# changed\n")
    refused = mus("ladder", "run", ladder, "--matches", "1")
    assert refused.exit_code == 2 and "changed since mine.v1 was added" in refused.output
    assert rows(ladder, "SELECT count(*) FROM planned") == [(0,)]


def test_a_second_run_is_refused_while_one_holds_the_ladder(tmp_path: Path) -> None:
    ladder = make_ladder(tmp_path)
    with ladder_lock(ladder):
        refused = mus("ladder", "run", ladder, "--matches", "1")
    assert refused.exit_code == 2 and "another mus ladder run is running on this ladder" in refused.output
    assert rows(ladder, "SELECT count(*) FROM planned") == [(0,)]


def test_bad_input_gets_one_line(tmp_path: Path) -> None:
    (tmp_path / "bad.toml").write_text('[[entry]]\nname = "x"\nbot = "y"\n')
    r = mus("ladder", "create", tmp_path / "l", "--settings", tmp_path / "bad.toml")
    assert r.exit_code == 2 and "a ladder file has no [[entry]]" in r.output
    (tmp_path / "bad.toml").write_text('duplicate = true\n\n[time]\ndecision_ms = -1\n')
    r = mus("ladder", "create", tmp_path / "l2", "--settings", tmp_path / "bad.toml")
    assert r.exit_code == 2 and f"{tmp_path / 'bad.toml'}:4: field time.decision_ms" in r.output
    r = mus("ladder", "run", tmp_path, "--matches", "1")
    assert r.exit_code == 2 and "not a ladder" in r.output
    ladder = make_ladder(tmp_path / "x")
    r = mus("ladder", "add", ladder, "bad.name", TRIVIAL)
    assert r.exit_code == 2 and "letters, digits" in r.output
    r = mus("ladder", "add", ladder, "ghost", tmp_path)
    assert r.exit_code == 2 and "not a bot folder" in r.output
    r = mus("ladder", "run", ladder, "--until", "tomorrowish")
    assert r.exit_code == 2 and "--until" in r.output
    assert "Traceback" not in r.output


def test_the_sandbox_is_strict_unless_the_file_says_otherwise(tmp_path: Path) -> None:
    (tmp_path / "s.toml").write_text("duplicate = false\n")
    ok("ladder", "create", tmp_path / "strict", "--settings", tmp_path / "s.toml")
    from arena.ladder.folder import open_ladder

    lad = open_ladder(tmp_path / "strict")
    assert lad.config.sandbox == "strict" and lad.config.duplicate is False
    lad.close()
    assert (tmp_path / "strict").stat().st_mode & 0o077 == 0
    assert (tmp_path / "strict" / "secret.json").stat().st_mode & 0o777 == 0o600
