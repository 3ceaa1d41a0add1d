"""The ladder's database: one SQLite file (``ladder.sqlite``), in WAL mode, every change a
transaction, its schema versioned and migrated forward.

What it holds: the entries and their versions (each a snapshot of a bot folder), the
matches planned and not yet played (so that a killed run plays them again with the
same seeds), every finished match (its result record as the referee gave it, its hand
log's path, an HMAC), the batches, and each version's rating after each batch.

A finished match is one row written in one transaction: a run killed at any moment
loses at most the matches in flight, and a match is never counted twice (its id is
unique). Each row's record is sealed with the ladder's results key
(:func:`arena.league.results_file.seal`, the MAC of results.jsonl) and numbered
(``seq``): an edited, forged or deleted row is found by :meth:`LadderStore.verify`.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import hmac
import json
import sqlite3
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.league.results_file import canonical, seal

DB_FILE = "ladder.sqlite"
BUSY_TIMEOUT_MS = 30_000
"""How long a writer waits for another (``mus ladder add`` while a run records a match)."""


class LadderError(RuntimeError):
    """A ladder that cannot be used as asked; the message says what to do."""


MIGRATIONS: tuple[tuple[int, str, tuple[str, ...]], ...] = (
    (1, "baseline", (
        "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
        "CREATE TABLE entries (name TEXT PRIMARY KEY, created_at TEXT NOT NULL, retired_at TEXT)",
        """CREATE TABLE versions (
            id TEXT PRIMARY KEY, entry TEXT NOT NULL REFERENCES entries(name), number INTEGER NOT NULL,
            source TEXT NOT NULL, snapshot TEXT NOT NULL, digest TEXT NOT NULL, added_at TEXT NOT NULL,
            previous TEXT REFERENCES versions(id), active INTEGER NOT NULL, UNIQUE (entry, number))""",
        """CREATE TABLE planned (
            match_id TEXT PRIMARY KEY, unit INTEGER NOT NULL, batch INTEGER NOT NULL, team0 TEXT NOT NULL,
            team1 TEXT NOT NULL, seed TEXT NOT NULL, deal INTEGER NOT NULL, state TEXT NOT NULL)""",
        """CREATE TABLE matches (
            seq INTEGER PRIMARY KEY, match_id TEXT NOT NULL UNIQUE, team0 TEXT NOT NULL, team1 TEXT NOT NULL,
            winner INTEGER, log TEXT NOT NULL, finished_at TEXT NOT NULL, record TEXT NOT NULL)""",
        "CREATE TABLE batches (id INTEGER PRIMARY KEY, finished_at TEXT NOT NULL, matches INTEGER NOT NULL)",
        """CREATE TABLE ratings (
            batch INTEGER NOT NULL REFERENCES batches(id), version TEXT NOT NULL, rating REAL NOT NULL,
            low REAL NOT NULL, high REAL NOT NULL, matches INTEGER NOT NULL, PRIMARY KEY (batch, version))""",
    )),
    (2, "a note per version", (
        "ALTER TABLE versions ADD COLUMN note TEXT NOT NULL DEFAULT ''",
    )),
)
"""Each schema version: (number, what it adds, its statements). Never edit one that has
shipped: add the next. ``schema_migrations`` records which were applied, and when."""
SCHEMA_VERSION = MIGRATIONS[-1][0]


def now() -> str:
    """The current time, UTC, ISO 8601 to the second (what every ``*_at`` column holds)."""
    return dt.datetime.now(dt.UTC).replace(microsecond=0).isoformat()


@dataclass(frozen=True)
class Version:
    """One rated version of an entry: a snapshot of the bot folder the organiser added."""

    id: str
    """``<entry>.v<number>``: the name it plays and is rated under."""
    entry: str
    number: int
    source: str
    snapshot: str
    """The snapshot's folder, relative to the ladder's."""
    digest: str
    added_at: str
    previous: str | None
    active: bool
    note: str = ""


@dataclass(frozen=True)
class BadRow:
    """A match row that fails its check: tampered with, forged, or out of sequence."""

    seq: int
    match_id: str
    problem: str


def connect(path: Path) -> sqlite3.Connection:
    """A connection in autocommit mode (transactions are explicit: :func:`transaction`),
    WAL, full fsync on commit, foreign keys on."""
    try:
        con = sqlite3.connect(path, isolation_level=None, timeout=BUSY_TIMEOUT_MS / 1000)
        con.execute("PRAGMA journal_mode=WAL")
        con.execute("PRAGMA synchronous=FULL")  # a committed match survives a power cut, not only a kill
        con.execute("PRAGMA foreign_keys=ON")
    except sqlite3.Error as exc:
        raise LadderError(f"{path}: cannot open the ladder's database: {exc}") from None
    con.row_factory = sqlite3.Row
    return con


@contextlib.contextmanager
def transaction(con: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """``BEGIN IMMEDIATE`` … ``COMMIT`` (``ROLLBACK`` on any exception): the block's writes
    land together or not at all, and no other writer interleaves."""
    con.execute("BEGIN IMMEDIATE")
    try:
        yield con
    except BaseException:
        con.execute("ROLLBACK")
        raise
    con.execute("COMMIT")


def schema_version(con: sqlite3.Connection) -> int:
    """The schema version of the database (0: empty)."""
    has = con.execute("SELECT 1 FROM sqlite_master WHERE name = 'schema_migrations'").fetchone()
    if not has:
        return 0
    row = con.execute("SELECT max(version) FROM schema_migrations").fetchone()
    return int(row[0] or 0)


def migrate(con: sqlite3.Connection, upto: int = SCHEMA_VERSION) -> list[int]:
    """Apply the migrations after the database's version, up to ``upto``, each in its own
    transaction (with its row in ``schema_migrations``); the versions applied.

    Raises:
        LadderError: the database is newer than this arena, or a migration fails.
    """
    with transaction(con):
        con.execute("CREATE TABLE IF NOT EXISTS schema_migrations "
                    "(version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)")
    current = schema_version(con)
    if current > SCHEMA_VERSION:
        raise LadderError(f"the ladder's database has schema {current}, newer than this arena's "
                          f"({SCHEMA_VERSION}): upgrade mus-arena")
    applied = []
    for number, name, statements in MIGRATIONS:
        if number <= current or number > upto:
            continue
        try:
            with transaction(con):
                for sql in statements:
                    con.execute(sql)
                con.execute("INSERT INTO schema_migrations VALUES (?, ?, ?)", (number, name, now()))
        except sqlite3.Error as exc:
            raise LadderError(f"migrating the ladder's database to schema {number} ({name}) failed: {exc}; "
                              "it is left at the schema before") from None
        applied.append(number)
    return applied


def _version(row: sqlite3.Row) -> Version:
    return Version(row["id"], row["entry"], row["number"], row["source"], row["snapshot"], row["digest"],
                   row["added_at"], row["previous"], bool(row["active"]), row["note"])


class LadderStore:
    """The ladder's database, opened (and migrated to this arena's schema)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.con = connect(path)
        migrate(self.con)

    def close(self) -> None:
        """Close the connection (everything committed is already on disk)."""
        self.con.close()

    # ------------------------------------------------------------------ meta

    def get_meta(self, key: str) -> str | None:
        """A value of the ``meta`` table (the ladder's identity, its settings' digest)."""
        row = self.con.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def set_meta(self, values: dict[str, str]) -> None:
        """Set ``meta`` values, in one transaction."""
        with transaction(self.con):
            self.con.executemany("INSERT OR REPLACE INTO meta VALUES (?, ?)", list(values.items()))

    # ------------------------------------------------------------------ entries and versions

    def versions(self, entry: str | None = None) -> list[Version]:
        """Every version (of ``entry``), oldest first."""
        sql = "SELECT * FROM versions" + (" WHERE entry = ?" if entry else "") + " ORDER BY rowid"  # as added
        return [_version(r) for r in self.con.execute(sql, (entry,) if entry else ())]

    def active(self) -> list[Version]:
        """The versions matchmaking pairs: active, of an entry not retired."""
        return [v for v in self.versions() if v.active]

    def entry_names(self) -> dict[str, str | None]:
        """Every entry's name and when it was retired (None: it plays)."""
        return {r["name"]: r["retired_at"] for r in self.con.execute("SELECT * FROM entries ORDER BY name")}

    def add_version(self, v: Version, keep_previous: bool) -> None:
        """Record a new version (creating its entry if new); its predecessor stops being
        paired unless ``keep_previous``."""
        with transaction(self.con):
            self.con.execute("INSERT OR IGNORE INTO entries VALUES (?, ?, NULL)", (v.entry, v.added_at))
            self.con.execute("UPDATE entries SET retired_at = NULL WHERE name = ?", (v.entry,))
            if not keep_previous:
                self.con.execute("UPDATE versions SET active = 0 WHERE entry = ?", (v.entry,))
            self.con.execute(
                "INSERT INTO versions (id, entry, number, source, snapshot, digest, added_at, previous, active, note) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, 1, ?)",
                (v.id, v.entry, v.number, v.source, v.snapshot, v.digest, v.added_at, v.previous, v.note))

    def retire(self, entry: str) -> int:
        """Stop pairing every version of ``entry`` (its results stay); the versions retired."""
        with transaction(self.con):
            self.con.execute("UPDATE entries SET retired_at = ? WHERE name = ?", (now(), entry))
            return self.con.execute("UPDATE versions SET active = 0 WHERE entry = ? AND active = 1",
                                    (entry,)).rowcount

    # ------------------------------------------------------------------ planned matches

    def plan(self, batch: int, units: Sequence[Sequence[dict[str, Any]]]) -> None:
        """Record the matches of a batch before any is played (each unit: its matches)."""
        with transaction(self.con):
            for unit in units:
                for m in unit:
                    self.con.execute("INSERT INTO planned VALUES (?, ?, ?, ?, ?, ?, ?, 'planned')",
                                     (m["match_id"], m["unit"], batch, m["team0"], m["team1"], hex(m["seed"]),
                                      m["deal"]))

    def pending(self) -> list[dict[str, Any]]:
        """The planned matches not played yet (a run was stopped or killed first)."""
        rows = self.con.execute("SELECT p.* FROM planned p WHERE p.state = 'planned' AND NOT EXISTS "
                                "(SELECT 1 FROM matches m WHERE m.match_id = p.match_id) ORDER BY p.match_id")
        return [{**dict(r), "seed": int(r["seed"], 16)} for r in rows]

    def cancel(self, match_ids: Sequence[str]) -> None:
        """Drop planned matches that will not be played (an entry of theirs was retired)."""
        with transaction(self.con):
            self.con.executemany("UPDATE planned SET state = 'cancelled' WHERE match_id = ?",
                                 [(m,) for m in match_ids])

    def counters(self) -> tuple[int, int]:
        """The last unit number and the last batch number used (0 when none)."""
        unit = self.con.execute("SELECT coalesce(max(unit), 0) FROM planned").fetchone()[0]
        batch = self.con.execute("SELECT coalesce(max(batch), 0) FROM planned").fetchone()[0]
        return int(unit), int(batch)

    # ------------------------------------------------------------------ results

    def record_match(self, record: dict[str, Any], key: bytes, identity: str) -> int:
        """Save a finished match: its record sealed (with the next ``seq``) in one
        transaction; returns its ``seq``. A match already saved is not saved again (0)."""
        with transaction(self.con):
            if self.con.execute("SELECT 1 FROM matches WHERE match_id = ?", (record["match_id"],)).fetchone():
                return 0
            seq = int(self.con.execute("SELECT coalesce(max(seq), 0) + 1 FROM matches").fetchone()[0])
            sealed = seal({**record, "seq": seq}, key, identity)
            self.con.execute("INSERT INTO matches VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                             (seq, record["match_id"], record["team0"], record["team1"], record.get("winner_team"),
                              record["log"], now(), canonical(sealed).decode()))
        return seq

    def results(self, key: bytes, identity: str) -> tuple[list[dict[str, Any]], list[BadRow]]:
        """Every saved match's record (its seal removed) whose row checks, in ``seq``
        order, and the rows that do not (:func:`check_row`)."""
        good: list[dict[str, Any]] = []
        bad: list[BadRow] = []
        expected = 1
        for row in self.con.execute("SELECT * FROM matches ORDER BY seq"):
            problem = check_row(row, key, identity)
            if problem is None and row["seq"] != expected:
                problem = f"rows {expected}..{row['seq'] - 1} are missing before it (deleted)"
            expected = row["seq"] + 1
            if problem is not None:
                bad.append(BadRow(row["seq"], row["match_id"], problem))
                continue
            rec = json.loads(row["record"])
            good.append({k: v for k, v in rec.items() if k not in ("league", "mac")})
        return good, bad

    def match_rows(self, limit: int | None = None) -> list[sqlite3.Row]:
        """The saved matches' rows, newest first."""
        sql = "SELECT * FROM matches ORDER BY seq DESC" + (" LIMIT ?" if limit else "")
        return list(self.con.execute(sql, (limit,) if limit else ()))

    # ------------------------------------------------------------------ ratings through time

    def snapshot(self, matches: int, rows: Sequence[tuple[str, float, float, float, int]]) -> int:
        """Record a batch's end and every rated version's (rating, low, high, matches) then."""
        with transaction(self.con):
            cur = self.con.execute("INSERT INTO batches (finished_at, matches) VALUES (?, ?)", (now(), matches))
            batch = int(cur.lastrowid or 0)
            self.con.executemany("INSERT INTO ratings VALUES (?, ?, ?, ?, ?, ?)",
                                 [(batch, *r) for r in rows])
        return batch

    def history(self) -> list[sqlite3.Row]:
        """Every rating snapshot, with its batch's time and match count, in order."""
        return list(self.con.execute(
            "SELECT r.*, b.finished_at, b.matches AS total FROM ratings r JOIN batches b ON b.id = r.batch "
            "ORDER BY r.batch, r.version"))


def check_row(row: sqlite3.Row, key: bytes, identity: str) -> str | None:
    """What is wrong with a match row; None if its record's MAC is the ladder's and its
    columns say what its record says."""
    try:
        rec = json.loads(row["record"])
    except ValueError:
        return "its record is not JSON"
    if not isinstance(rec, dict):
        return "its record is not a JSON object"
    mac = rec.get("mac")
    if not isinstance(mac, str) or not hmac.compare_digest(mac, seal(rec, key, identity)["mac"]):
        return "its MAC does not match its record: edited, forged, or from another ladder"
    if rec.get("league") != identity:
        return "its record belongs to another ladder"
    columns = (row["seq"], row["match_id"], row["team0"], row["team1"], row["winner"], row["log"])
    sealed = (rec.get("seq"), rec.get("match_id"), rec.get("team0"), rec.get("team1"), rec.get("winner_team"),
              rec.get("log"))
    if columns != sealed:
        return "its columns (seq, match_id, teams, winner, log) differ from its sealed record: edited"
    return None
