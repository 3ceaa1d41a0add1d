"""The ladder's database without playing: migrations, sealed rows, no double count."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest

from arena.ladder.store import (
    SCHEMA_VERSION,
    LadderError,
    LadderStore,
    Version,
    connect,
    migrate,
    schema_version,
)

KEY = bytes(range(32))
IDENTITY = "ladder-under-test"


def record(match_id: str, team0: str = "a.v1", team1: str = "b.v1", winner: int = 0) -> dict[str, Any]:
    return {"match_id": match_id, "team0": team0, "team1": team1, "winner_team": winner, "deal": 1,
            "log": f"logs/{match_id}.jsonl", "reason": "completed", "games_won": [1, 0], "stones": [30, 12]}


def version(entry: str, number: int = 1, previous: str | None = None) -> Version:
    return Version(f"{entry}.v{number}", entry, number, f"/src/{entry}", f"entries/{entry}/v{number}", "d" * 64,
                   "2026-12-01T00:00:00+00:00", previous, True)


def test_a_v1_database_is_migrated_to_v2_keeping_its_rows(tmp_path: Path) -> None:
    db = tmp_path / "ladder.sqlite"
    con = connect(db)
    assert migrate(con, upto=1) == [1]
    con.execute("INSERT INTO entries VALUES ('alice', '2026-11-01T00:00:00+00:00', NULL)")
    con.execute("INSERT INTO versions VALUES ('alice.v1', 'alice', 1, '/src', 'entries/alice/v1', 'd', "
                "'2026-11-01T00:00:00+00:00', NULL, 1)")
    assert schema_version(con) == 1
    assert "note" not in {r[1] for r in con.execute("PRAGMA table_info(versions)")}
    con.close()

    store = LadderStore(db)  # opening migrates
    assert schema_version(store.con) == SCHEMA_VERSION == 2
    assert [r[0] for r in store.con.execute("SELECT version FROM schema_migrations ORDER BY version")] == [1, 2]
    [v] = store.versions()
    assert (v.id, v.note) == ("alice.v1", "")
    assert store.con.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    store.close()
    assert LadderStore(db).con.execute("SELECT count(*) FROM schema_migrations").fetchone()[0] == 2  # idempotent


def test_a_database_newer_than_the_arena_is_refused(tmp_path: Path) -> None:
    store = LadderStore(tmp_path / "l.sqlite")
    store.con.execute("INSERT INTO schema_migrations VALUES (99, 'future', 'x')")
    store.close()
    with pytest.raises(LadderError, match="schema 99, newer than this arena"):
        LadderStore(tmp_path / "l.sqlite")


@pytest.fixture
def store(tmp_path: Path) -> LadderStore:
    s = LadderStore(tmp_path / "ladder.sqlite")
    for k in range(1, 5):
        assert s.record_match(record(f"u{k:07d}", winner=k % 2), KEY, IDENTITY) == k
    return s


def bad(store: LadderStore) -> list[tuple[int, str]]:
    return [(b.seq, b.problem) for b in store.results(KEY, IDENTITY)[1]]


def test_a_match_is_saved_once(store: LadderStore) -> None:
    assert store.record_match(record("u0000002", winner=1), KEY, IDENTITY) == 0
    good, problems = store.results(KEY, IDENTITY)
    assert [r["match_id"] for r in good] == [f"u{k:07d}" for k in range(1, 5)] and not problems
    assert [r["seq"] for r in good] == [1, 2, 3, 4]


def test_an_edited_column_is_detected(store: LadderStore) -> None:
    store.con.execute("UPDATE matches SET winner = 1 - winner WHERE seq = 2")
    assert bad(store) == [(2, "its columns (seq, match_id, teams, winner, log) differ from its sealed record: edited")]


def test_an_edited_record_is_detected(store: LadderStore) -> None:
    row = store.con.execute("SELECT record FROM matches WHERE seq = 3").fetchone()[0]
    store.con.execute("UPDATE matches SET record = ?, winner = 0 WHERE seq = 3",
                      (row.replace('"winner_team":1', '"winner_team":0'),))
    [(seq, problem)] = bad(store)
    assert seq == 3 and "MAC does not match" in problem
    good, _ = store.results(KEY, IDENTITY)
    assert "u0000003" not in {r["match_id"] for r in good}  # left out of the standings


def test_a_deleted_row_is_detected(store: LadderStore) -> None:
    store.con.execute("DELETE FROM matches WHERE seq = 2")
    assert bad(store) == [(3, "rows 2..2 are missing before it (deleted)")]


def test_a_row_forged_with_another_key_is_detected(store: LadderStore) -> None:
    store.record_match(record("u0000009"), bytes(32), IDENTITY)
    [(seq, problem)] = bad(store)
    assert seq == 5 and "MAC does not match" in problem


def test_versions_link_and_retire(tmp_path: Path) -> None:
    s = LadderStore(tmp_path / "l.sqlite")
    s.add_version(version("alice"), keep_previous=False)
    s.add_version(version("bob"), keep_previous=False)
    s.add_version(version("alice", 2, "alice.v1"), keep_previous=False)
    assert [v.id for v in s.active()] == ["bob.v1", "alice.v2"]
    assert [v.previous for v in s.versions("alice")] == [None, "alice.v1"]
    assert s.retire("bob") == 1
    assert [v.id for v in s.active()] == ["alice.v2"] and s.entry_names()["bob"] is not None
    with pytest.raises(sqlite3.IntegrityError):
        s.add_version(version("alice", 2), keep_previous=False)  # a version number is never reused
    assert [v.id for v in s.active()] == ["alice.v2"]  # the failed insert changed nothing (one transaction)


def test_planned_matches_are_pending_until_saved(tmp_path: Path) -> None:
    s = LadderStore(tmp_path / "l.sqlite")
    unit = [{"match_id": f"u0000001{c}", "unit": 1, "team0": t0, "team1": t1, "seed": 2**100 + 7, "deal": 1}
            for c, (t0, t1) in zip("ab", (("a.v1", "b.v1"), ("b.v1", "a.v1")), strict=True)]
    s.plan(1, [unit])
    assert [p["match_id"] for p in s.pending()] == ["u0000001a", "u0000001b"]
    assert s.pending()[0]["seed"] == 2**100 + 7
    s.record_match(record("u0000001a"), KEY, IDENTITY)
    assert [p["match_id"] for p in s.pending()] == ["u0000001b"]
    s.cancel(["u0000001b"])
    assert s.pending() == [] and s.counters() == (1, 1)
