"""``mus ladder`` end to end on a small ladder of real bot processes: versions, matchmaking,
standings and exports from the database, tamper-evidence, snapshots, the run lock, and
the leaderboard page in headless Chromium (last: Playwright's sync API runs an event
loop on this thread while the browser is open, and playing a match runs its own)."""

from __future__ import annotations

import csv
import io
import json
import shutil
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from ladder_helpers import RANDOM, SETTINGS, TRIVIAL, mus, ok

from arena.ladder.runner import ladder_lock
from arena.records.handlog import read_log
from tests.report.conftest import CHROMIUM, Page, chromium_args


def rows(ladder: Path, sql: str) -> list[tuple[object, ...]]:
    con = sqlite3.connect(ladder / "ladder.sqlite")
    try:
        return [tuple(r) for r in con.execute(sql)]
    finally:
        con.close()


def test_every_match_is_saved_once_with_its_hand_log(played: Path) -> None:
    matches = rows(played, "SELECT match_id, team0, team1, log FROM matches ORDER BY seq")
    assert len(matches) == 6
    assert len({m[0] for m in matches}) == 6
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
    second_run = rows(played, "SELECT team0, team1 FROM matches WHERE seq > 4")
    assert all("trivial.v2" in pair for pair in second_run)  # new versions first
    out = ok("ladder", "standings", played)
    assert "trivial.v2" in out and "retired: trivial.v1 (last rated" in out


def test_ratings_are_snapshotted_after_each_batch(played: Path) -> None:
    history = json.loads(ok("ladder", "export", played))["ratings"]
    batches = sorted({r["batch"] for r in history})
    assert len(batches) >= 2
    last = [r for r in history if r["batch"] == batches[-1]]
    assert {r["version"] for r in last} == {"trivial.v2", "random.v1", "rulebot.v1"}
    assert max(r["total"] for r in history) == 6
    doc = json.loads(ok("ladder", "export", played))
    assert {s["name"] for s in doc["standings"]} == {"trivial.v2", "random.v1", "rulebot.v1"}
    assert len(doc["matches"]) == 6 and doc["bad_rows"] == []
    table = list(csv.reader(io.StringIO(ok("ladder", "export", played, "--format", "csv", "--what", "matches"))))
    assert len(table) == 7 and table[0][:2] == ["seq", "match_id"]


def test_a_tampered_row_is_detected_and_reported(played: Path, tmp_path: Path) -> None:
    copy = tmp_path / "copy"
    shutil.copytree(played, copy)
    assert "6 match rows: every one checks" in ok("ladder", "verify", copy)
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


def test_a_second_run_is_refused_while_one_holds_the_ladder(played: Path) -> None:
    planned = rows(played, "SELECT count(*) FROM planned")
    with ladder_lock(played):
        refused = mus("ladder", "run", played, "--matches", "1")
    assert refused.exit_code == 2 and "another mus ladder run is running on this ladder" in refused.output
    assert rows(played, "SELECT count(*) FROM planned") == planned  # nothing planned, nothing played


def test_bad_input_gets_one_line(played: Path, tmp_path: Path) -> None:
    (tmp_path / "bad.toml").write_text('[[entry]]\nname = "x"\nbot = "y"\n')
    r = mus("ladder", "create", tmp_path / "l", "--settings", tmp_path / "bad.toml")
    assert r.exit_code == 2 and "a ladder file has no [[entry]]" in r.output
    (tmp_path / "bad.toml").write_text('duplicate = true\n\n[time]\ndecision_ms = -1\n')
    r = mus("ladder", "create", tmp_path / "l2", "--settings", tmp_path / "bad.toml")
    assert r.exit_code == 2 and f"{tmp_path / 'bad.toml'}:4: field time.decision_ms" in r.output
    r = mus("ladder", "run", tmp_path, "--matches", "1")
    assert r.exit_code == 2 and "not a ladder" in r.output
    ladder = played
    r = mus("ladder", "add", ladder, "bad.name", TRIVIAL)
    assert r.exit_code == 2 and "letters, digits" in r.output
    r = mus("ladder", "add", ladder, "ghost", tmp_path)
    assert r.exit_code == 2 and "not a bot folder" in r.output
    r = mus("ladder", "run", ladder, "--until", "tomorrowish")
    assert r.exit_code == 2 and "--until" in r.output
    r = mus("ladder", "retire", ladder, "nobody")
    assert r.exit_code == 2 and "no entry 'nobody'" in r.output
    assert "Traceback" not in r.output
    assert len(rows(ladder, "SELECT * FROM versions")) == 4  # nothing was added


def test_the_sandbox_is_strict_unless_the_file_says_otherwise(tmp_path: Path) -> None:
    (tmp_path / "s.toml").write_text("duplicate = false\n")
    ok("ladder", "create", tmp_path / "strict", "--settings", tmp_path / "s.toml")
    from arena.ladder.folder import open_ladder

    lad = open_ladder(tmp_path / "strict")
    assert lad.config.sandbox == "strict" and lad.config.duplicate is False
    lad.close()
    assert (tmp_path / "strict").stat().st_mode & 0o077 == 0
    assert (tmp_path / "strict" / "secret.json").stat().st_mode & 0o777 == 0o600


@pytest.fixture
def browser() -> Iterator[Any]:
    if not CHROMIUM.exists():
        pytest.fail("the browser tests need Debian's chromium: apt-get install --no-install-recommends chromium")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(**chromium_args())
        yield b
        b.close()


def test_the_leaderboard_page_in_chromium(played: Path, browser: Any) -> None:
    out = ok("ladder", "report", played, "--no-open", "--recent", "3")
    index = played / "report" / "index.html"
    assert f"report: {index}" in out
    doc = json.loads(ok("ladder", "export", played))
    tab = Page(browser)
    try:
        page = tab.open(index.as_uri())
        names = page.eval_on_selector_all("#standings tbody tr td:nth-child(2)", "els => els.map(e => e.textContent)")
        assert names == [s["name"] for s in doc["standings"]]
        intervals = page.eval_on_selector_all("#standings tbody tr td:nth-child(4)",
                                              "els => els.map(e => e.textContent)")
        bounds = [[int(x) for x in text.split("–")] for text in intervals]
        for (low, high), s in zip(bounds, doc["standings"], strict=True):  # the export rounds to 0.1
            assert abs(low - s["rating_low"]) <= 1 and abs(high - s["rating_high"]) <= 1
        series = page.eval_on_selector_all("[data-testid=rating-chart] g[data-series]",
                                           "els => els.map(e => e.dataset.series)")
        assert sorted(series) == sorted(names)
        versions = page.eval_on_selector_all("#versions tbody tr", "els => els.map(e => e.dataset.version)")
        assert versions == [v["id"] for v in doc["versions"]]
        recent = page.eval_on_selector_all("#recent tbody tr", "els => els.map(e => e.dataset.match)")
        assert recent == [m["match_id"] for m in reversed(doc["matches"])][:3]
        page.click(f"#recent tr[data-match='{recent[0]}'] a")
        page.wait_for_function("want => document.body.dataset.ready === want", arg=f"{recent[0]}/0/0/all",
                               timeout=10000)
        assert recent[0] in page.inner_text("#match-title")
        assert not tab.errors
    finally:
        tab.close()
