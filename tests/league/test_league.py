"""Whole leagues through the real ``mus`` command, with bot processes: outputs and their
consistency, ``replay --verify`` on every log, determinism, duplicate deals, and resume
after a kill.

The league (tests/league/data/small.toml) has three deterministic bots (random with a
fixed seed, trivial, rulebot), two matches per pairing, duplicate deals and one-game
matches to 20, so a run takes a few seconds.
"""

from __future__ import annotations

import itertools
import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import structlog
from typer.testing import CliRunner

from arena.cli.main import app
from arena.league.config import load_league
from arena.league.schedule import schedule
from arena.league.standings import effective_stones
from arena.records.handlog import untimed
from arena.runtime.settings import DEFAULT_POLL_US, Runtime

REPO = Path(__file__).resolve().parents[2]
DATA = Path(__file__).resolve().parent / "data"
SMALL = DATA / "small.toml"
MUS = [sys.executable, "-m", "arena"]
OTHER_SEED = 12345


def mus(*args: str | Path, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """Run the real ``mus`` command (``python -m arena``) from the repository root."""
    return subprocess.run([*MUS, *(str(a) for a in args)], cwd=REPO, capture_output=True, text=True,
                          timeout=timeout, check=False)


def run_league(out: Path, *extra: str) -> Path:
    r = mus("league", SMALL, "--out", out, "--no-progress", *extra)
    assert r.returncode == 0, f"exit {r.returncode}\n{r.stdout}\n{r.stderr}"
    return out


def jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]



def results_by_id(out: Path) -> dict[str, dict[str, Any]]:
    recs = jsonl(out / "results.jsonl")
    ids = [r["match_id"] for r in recs]
    assert len(ids) == len(set(ids)), f"duplicated results: {[i for i, n in Counter(ids).items() if n > 1]}"
    assert all(isinstance(r.pop("mac"), str) and isinstance(r.pop("league"), str) for r in recs), "a line without its MAC"
    # Without the MACs, which cover the timing fields too, so differ between two runs.
    return {r["match_id"]: r for r in recs}


def first_deal(log: Path) -> dict[str, Any]:
    hands = [r for r in jsonl(log) if r["type"] == "hand"]
    assert hands, f"{log.name} holds no hand"
    deal = hands[0]["deal"]
    return {"hands": deal["hands"], "dealer": deal["dealer"], "mano": deal["mano"], "stock": deal.get("stock")}


@pytest.fixture(scope="module")
def config():  # type: ignore[no-untyped-def]
    return load_league(SMALL)


@pytest.fixture(scope="module")
def scheduled_ids(config) -> list[str]:  # type: ignore[no-untyped-def]
    return [m.match_id for m in schedule(config)]


@pytest.fixture(scope="module")
def league_a(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The league as its file says (two jobs), the referees never polling (the deprecated
    --spin-us 0, still obeyed)."""
    return run_league(tmp_path_factory.mktemp("league") / "a", "--spin-us", "0")


@pytest.fixture(scope="module")
def league_b(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The same league and seed, one job: its referee polls in every match (the default)."""
    return run_league(tmp_path_factory.mktemp("league") / "b", "--jobs", "1")


@pytest.fixture(scope="module")
def league_c(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The same league with another seed."""
    return run_league(tmp_path_factory.mktemp("league") / "c", "--seed", str(OTHER_SEED))


# --- one league, end to end --------------------------------------------------------------------


def test_league_writes_every_output(league_a: Path, scheduled_ids: list[str]) -> None:
    for name in ("league.json", "results.jsonl", "standings.json", "standings.csv"):
        assert (league_a / name).is_file(), name
    assert not list(league_a.glob("*.tmp"))
    results = results_by_id(league_a)
    assert sorted(results) == sorted(scheduled_ids), "every scheduled match exactly once"
    assert len(scheduled_ids) == 3 * 2
    assert sorted(p.name for p in (league_a / "logs").iterdir()) == sorted(f"{i}.jsonl" for i in scheduled_ids)
    assert all(r["reason"] == "completed" and not r["faults"] and not r["start_error"] for r in results.values())
    meta = json.loads((league_a / "league.json").read_text())
    assert meta["seed"] == 11 and meta["duplicate"] is True


def test_standings_agree_with_results(league_a: Path, config) -> None:  # type: ignore[no-untyped-def]
    results = list(results_by_id(league_a).values())
    doc = json.loads((league_a / "standings.json").read_text())
    rows = {row["name"]: row for row in doc["standings"]}
    names = [e.name for e in config.entries]
    assert sorted(rows) == sorted(names)
    for name, row in rows.items():
        mine = [(r, side) for r in results for side in (0, 1) if r[f"team{side}"] == name]
        assert row["matches"] == len(mine) == (len(names) - 1) * config.matches_per_pairing
        assert row["wins"] + row["losses"] + row["aborted"] == row["matches"]
        assert row["wins"] == sum(r["winner_team"] == side for r, side in mine)
        assert row["losses"] == sum(r["winner_team"] == 1 - side for r, side in mine)
        assert row["aborted"] == sum(r["winner_team"] is None for r, _ in mine)
        assert row["games_won"] == sum(r["games_won"][side] for r, side in mine)
        assert row["games_lost"] == sum(r["games_won"][1 - side] for r, side in mine)
        # The scoreboard's stones are the raw ones; stones_for completes each game won by
        # órdago up to the league's target (from the record's games, when it has them).
        assert row["raw_stones_for"] == sum(r["stones"][side] for r, side in mine)
        assert row["raw_stones_against"] == sum(r["stones"][1 - side] for r, side in mine)
        eff = [(effective_stones(r, config.rules.target_points) or tuple(r["stones"]), side) for r, side in mine]
        assert row["stones_for"] == sum(e[side] for e, side in eff)
        assert row["stones_against"] == sum(e[1 - side] for e, side in eff)
        assert row["hands"] == sum(r["hands"] for r, _ in mine)
        assert row["rating_low"] <= row["rating"] <= row["rating_high"]
    cross = doc["crosstable"]
    for a, b in itertools.permutations(names, 2):
        between = [r for r in results if {r["team0"], r["team1"]} == {a, b}]
        wins_a = sum(r["winner_team"] is not None and r[f"team{r['winner_team']}"] == a for r in between)
        assert cross[a][b] == wins_a
        assert cross[a][b] + cross[b][a] == sum(r["winner_team"] is not None for r in between)
    assert sum(cross[a][b] for a, b in itertools.permutations(names, 2)) == sum(rows[n]["wins"] for n in names)
    # The CSV says the same as the JSON, in the same order.
    csv_lines = (league_a / "standings.csv").read_text().splitlines()
    header = csv_lines[0].split(",")
    csv_rows = [dict(zip(header, line.split(","), strict=True)) for line in csv_lines[1:]]
    assert [r["name"] for r in csv_rows] == [r["name"] for r in doc["standings"]]
    for c in csv_rows:
        for key in ("matches", "wins", "losses", "aborted", "stones_for", "stones_against", "raw_stones_for",
                    "raw_stones_against", "hands", "start_failures"):
            assert int(c[key]) == rows[c["name"]][key], (c["name"], key)
        assert float(c["rating"]) == pytest.approx(rows[c["name"]]["rating"], abs=0.051)


def test_every_log_agrees_with_its_result(league_a: Path) -> None:
    for mid, rec in results_by_id(league_a).items():
        records = jsonl(league_a / "logs" / rec["log"])
        header, *hands, footer = records
        assert header["type"] == "header" and footer["type"] == "footer"
        assert all(h["type"] == "hand" for h in hands)
        assert header["match_id"] == mid and header["seed"] == rec["seed"]
        assert [s["entry"] for s in header["seats"]] == rec["seating"] == [rec["team0"], rec["team1"]] * 2
        assert footer["result"] == {k: rec[k] for k in footer["result"]}
        assert len(hands) == rec["hands"]
        assert [h["hand"] for h in hands] == list(range(len(hands)))


def test_replay_verify_passes_on_every_log(league_a: Path) -> None:
    logs = sorted((league_a / "logs").glob("*.jsonl"))
    assert logs
    for log in logs:  # in-process: the real command, without an interpreter start per log
        r = CliRunner().invoke(app, ["replay", "--verify", str(log)])
        assert r.exit_code == 0, f"{log.name}: {r.output}"
        assert "verified" in r.stdout


# --- determinism and seeds ---------------------------------------------------------------------


def test_same_seed_gives_identical_hand_logs(league_a: Path, league_b: Path) -> None:
    """Two runs of one league and seed (2 jobs without polling, then 1 job polling):
    the same logs, timing aside."""
    names = sorted(p.name for p in (league_a / "logs").iterdir())
    assert names == sorted(p.name for p in (league_b / "logs").iterdir())
    for name in names:
        a, b = jsonl(league_a / "logs" / name), jsonl(league_b / "logs" / name)
        assert len(a) == len(b), name
        for i, (ra, rb) in enumerate(zip(a, b, strict=True)):
            assert untimed(ra) == untimed(rb), f"{name} line {i + 1} differs"
    ra, rb = results_by_id(league_a), results_by_id(league_b)
    assert {k: untimed(v) for k, v in ra.items()} == {k: untimed(v) for k, v in rb.items()}


def test_same_seed_gives_identical_standings(league_a: Path, league_b: Path) -> None:
    """Same league, same seed: the same standings, whatever order the matches finished in
    (league_a runs two jobs, so its results.jsonl may list them in another order)."""
    a = json.loads((league_a / "standings.json").read_text())
    b = json.loads((league_b / "standings.json").read_text())
    order_a = [r["match_id"] for r in jsonl(league_a / "results.jsonl")]
    order_b = [r["match_id"] for r in jsonl(league_b / "results.jsonl")]
    assert a == b, f"standings differ (results order {order_a} vs {order_b})"
    assert (league_a / "standings.csv").read_text() == (league_b / "standings.csv").read_text()


def test_other_seed_gives_other_deals(league_a: Path, league_c: Path) -> None:
    assert json.loads((league_c / "league.json").read_text())["seed"] == OTHER_SEED
    ra, rc = results_by_id(league_a), results_by_id(league_c)
    assert sorted(ra) == sorted(rc)
    for mid in ra:
        assert ra[mid]["seed"] != rc[mid]["seed"], mid
        assert first_deal(league_a / "logs" / f"{mid}.jsonl")["hands"] != first_deal(league_c / "logs" / f"{mid}.jsonl")["hands"], mid


def test_duplicate_deals(league_a: Path, config) -> None:  # type: ignore[no-untyped-def]
    """Matches 2d and 2d+1 of a pairing: one deal seed, the same first deal to the same
    seats, the teams exchanged; and deal d is the same in every pairing."""
    results = results_by_id(league_a)
    by_deal: dict[int, list[dict[str, Any]]] = {}
    for a, b in itertools.combinations([e.name for e in config.entries], 2):
        for d in range(config.matches_per_pairing // 2):
            m0, m1 = results[f"{a}--{b}--{2 * d:03d}"], results[f"{a}--{b}--{2 * d + 1:03d}"]
            assert m0["seed"] == m1["seed"]
            assert m0["deal"] == m1["deal"] == d
            assert (m0["team0"], m0["team1"]) == (m1["team1"], m1["team0"]) == (a, b)
            h0 = jsonl(league_a / "logs" / m0["log"])[0]
            h1 = jsonl(league_a / "logs" / m1["log"])[0]
            for s in range(4):
                assert h0["seats"][s]["entry"] == (a, b)[s % 2]
                assert h1["seats"][s]["entry"] == (b, a)[s % 2]
            d0, d1 = first_deal(league_a / "logs" / m0["log"]), first_deal(league_a / "logs" / m1["log"])
            assert d0 == d1, f"{m0['match_id']} and {m1['match_id']} start with different deals"
            by_deal.setdefault(d, []).extend([m0, m1])
    for d, ms in by_deal.items():
        assert len({m["seed"] for m in ms}) == 1, f"deal {d} has several seeds across pairings"
        deals = [first_deal(league_a / "logs" / m["log"]) for m in ms]
        assert all(x == deals[0] for x in deals), f"deal {d} differs across pairings"


# --- the match command as a real process -------------------------------------------------------


def test_match_command(tmp_path: Path) -> None:
    out = tmp_path / "m"
    r = mus("match", REPO / "bots" / "rulebot", REPO / "bots" / "random", "--out", out, "--games", "1",
            "--target", "20", "--seed", "3", "--json", "--spin-us", "75")
    assert r.returncode == 0, r.stderr
    res = json.loads(r.stdout)
    assert res["match_id"] == "match-3" and res["reason"] == "completed"
    log = out / "match-3.jsonl"
    header, *_, footer = jsonl(log)
    assert [s["bot"] for s in header["seats"]] == ["rulebot", "random"] * 2
    # The deprecated --spin-us still sets the window, with a warning.
    assert header["run"] == {"poll_us": 75, "grpc_experiments": os.environ.get("GRPC_EXPERIMENTS")}
    assert "setting.deprecated" in r.stderr and "--spin-us" in r.stderr
    assert footer["result"]["winner_team"] == res["winner_team"]
    v = CliRunner().invoke(app, ["replay", "--verify", str(log)])
    assert v.exit_code == 0, v.output
    before = log.read_bytes()
    again = mus("match", REPO / "bots" / "rulebot", REPO / "bots" / "random", "--out", out, "--seed", "3")
    assert again.returncode == 2 and "exists" in again.stderr
    assert log.read_bytes() == before


# --- interruptions -----------------------------------------------------------------------------


def children(pid: int) -> set[int]:
    """Processes whose parent is ``pid``."""
    found = set()
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            found.add(int(entry))
    return found


def bot_alive(pid: int) -> bool:
    """Whether ``pid`` is a live (not zombie) bot process."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            state = f.read().rsplit(")", 1)[1].split()[0]
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            cmdline = f.read()
    except OSError:
        return False
    return state != "Z" and b"bot.py" in cmdline


def wait_bots_gone(pids: set[int], timeout: float = 10.0) -> set[int]:
    deadline = time.monotonic() + timeout
    while True:
        alive = {p for p in pids if bot_alive(p)}
        if not alive or time.monotonic() > deadline:
            return alive
        time.sleep(0.1)


class League:
    """A league process under watch: the bot processes it starts are recorded."""

    def __init__(self, out: Path, *extra: str) -> None:
        self.out = out
        self.proc = subprocess.Popen([*MUS, "league", str(SMALL), "--out", str(out), "--no-progress", *extra],
                                     cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.bots: set[int] = set()

    def __enter__(self) -> League:
        return self

    def __exit__(self, *exc: object) -> None:
        """Never leave the league running when a test fails half way."""
        if self.proc.poll() is None:
            self.proc.kill()
        if self.proc.stdout is not None and not self.proc.stdout.closed:
            self.proc.communicate()

    def results(self) -> list[str]:
        path = self.out / "results.jsonl"
        if not path.exists():
            return []
        return [line for line in path.read_text().splitlines(keepends=True) if line.endswith("\n")]

    def poll_until(self, done, timeout: float = 60.0) -> None:  # type: ignore[no-untyped-def]
        deadline = time.monotonic() + timeout
        while not done():
            self.bots |= children(self.proc.pid)
            assert self.proc.poll() is None, f"the league ended early: {self.proc.communicate()}"
            assert time.monotonic() < deadline, "timed out"
            time.sleep(0.02)
        self.bots |= children(self.proc.pid)

    def finish(self, timeout: float = 120.0) -> tuple[int, str, str]:
        deadline = time.monotonic() + timeout
        while self.proc.poll() is None:
            self.bots |= children(self.proc.pid)
            assert time.monotonic() < deadline, "timed out"
            time.sleep(0.02)
        out, err = self.proc.communicate()
        return self.proc.returncode, out, err


def in_progress(out: Path, lines: list[str]) -> set[str]:
    """Logs of matches that have started but have no result line."""
    done = {json.loads(line)["log"] for line in lines}
    logs = out / "logs"
    return {p.name for p in logs.glob("*.jsonl") if p.name not in done} if logs.exists() else set()


def test_resume_after_kill(tmp_path: Path, league_b: Path, scheduled_ids: list[str]) -> None:
    """kill -9 after the first result (with a match half played), then --resume: every match
    once, complete logs, the standings of an uninterrupted run, no bot left behind."""
    out = tmp_path / "league"
    with League(out, "--jobs", "1") as run:
        run.poll_until(lambda: len(run.results()) >= 1)
        first = run.results()
        # Kill while the next match runs, once its log has its header (if it comes in time).
        deadline = time.monotonic() + 5.0
        while not in_progress(out, run.results()) and time.monotonic() < deadline and run.proc.poll() is None:
            run.bots |= children(run.proc.pid)
            time.sleep(0.01)
        run.proc.send_signal(signal.SIGKILL)
    killed_with = len(run.results())
    assert 1 <= len(first) <= killed_with < len(scheduled_ids)
    partial = in_progress(out, run.results())
    assert run.bots, "no bot process was seen"
    left = wait_bots_gone(run.bots)
    assert not left, f"bots still running 10 s after the league was killed: {sorted(left)}"

    with League(out, "--jobs", "1", "--resume") as resumed:
        code, stdout, stderr = resumed.finish()
    assert code == 0, stderr
    assert f"played now: {len(scheduled_ids) - killed_with}" in stdout
    results = results_by_id(out)
    assert sorted(results) == sorted(scheduled_ids)
    for log in sorted((out / "logs").iterdir()):
        records = [json.loads(line) for line in log.read_text().splitlines()]  # every line is JSON
        assert records[0]["type"] == "header" and records[-1]["type"] == "footer", log.name
        assert len([r for r in records if r["type"] == "header"]) == 1, f"{log.name}: two runs in one log"
    for name in partial:
        r = CliRunner().invoke(app, ["replay", "--verify", str(out / "logs" / name)])
        assert r.exit_code == 0, r.output
    reference = results_by_id(league_b)
    assert {k: untimed(v) for k, v in results.items()} == {k: untimed(v) for k, v in reference.items()}
    assert json.loads((out / "standings.json").read_text()) == json.loads((league_b / "standings.json").read_text())
    assert not wait_bots_gone(resumed.bots, timeout=5.0)


def test_sigterm_stops_cleanly_and_resumes(tmp_path: Path, scheduled_ids: list[str]) -> None:
    """SIGTERM (like Ctrl-C): exit 130 with a hint to --resume, finished matches kept, bots
    stopped; --resume then completes the league with every match once."""
    out = tmp_path / "league"
    with League(out, "--jobs", "1") as run:
        run.poll_until(lambda: len(run.results()) >= 1)
        run.proc.send_signal(signal.SIGTERM)
        code, _, stderr = run.finish(timeout=60)
    assert code == 130, stderr
    saved = len(run.results())
    assert 1 <= saved < len(scheduled_ids)
    # One line: how many matches are saved, and the command that continues.
    assert f"interrupted: {saved} of {len(scheduled_ids)} matches finished and saved in {out} ({saved} in this run;" in stderr
    assert f"continue with: mus league {SMALL} --out {out} --resume" in stderr
    assert not wait_bots_gone(run.bots, timeout=5.0)
    # The standings of the saved matches, marked incomplete (issue 29: none were written).
    partial = json.loads((out / "standings.json").read_text())
    assert partial["complete"] is False and sum(e["matches"] for e in partial["standings"]) == 2 * saved
    assert f"standings of the {saved} matches saved so far: {out / 'standings.json'}" in stderr
    r = mus("league", SMALL, "--out", out, "--no-progress", "--jobs", "1", "--resume")
    assert r.returncode == 0, r.stderr
    assert sorted(results_by_id(out)) == sorted(scheduled_ids)
    assert json.loads((out / "standings.json").read_text())["complete"] is True


# --- how matches are run ------------------------------------------------------------------------


def test_the_run_is_in_every_header(league_a: Path, league_b: Path) -> None:
    """Each match's header says how it was run (``run``): league_a polling 0 µs
    (--spin-us 0), league_b the default window. league.json says what was asked."""
    for out, poll in ((league_a, 0), (league_b, DEFAULT_POLL_US)):
        for log in (out / "logs").iterdir():
            header = jsonl(log)[0]
            assert header["run"] == {"poll_us": poll, "grpc_experiments": os.environ.get("GRPC_EXPERIMENTS")}, log.name
            assert not {"bot_cpus", "referee_cpus", "spin_us"} & set(header), log.name
        league = json.loads((out / "league.json").read_text())
        assert league["run"] == {"poll_us": poll}
        assert "bot_cpus" not in league and "spin_us" not in league


def test_deprecated_keys_of_a_league_file_still_work(tmp_path: Path) -> None:
    """spin_us and bot_cpus are read, each with one warning saying what to use instead:
    bot_cpus is ignored whatever it says (the system places the bots), spin_us sets the
    window; the command line's --spin-us replaces the file's."""
    text = SMALL.read_text(encoding="utf-8").replace('"../../../', f'"{REPO}/')
    for cpus in ('"auto"', '"declared"', '"4090-4095"', '"everywhere"', "0"):
        path = tmp_path / f"old{len(cpus)}{cpus[1:3]}.toml"
        path.write_text(text.replace("jobs = 2", f"jobs = 2\nspin_us = 50\nbot_cpus = {cpus}"), encoding="utf-8")
        with structlog.testing.capture_logs() as logs:
            config = load_league(path)
            load_league(path)  # once per file
        assert config.runtime == Runtime(poll_us=50)
        warned = [e for e in logs if e["event"] == "setting.deprecated"]
        assert sorted(e["setting"] for e in warned) == ["bot_cpus", "spin_us"], logs
        assert all(e["source"] == str(path) and e["instead"] for e in warned)
        assert load_league(path, poll_us=0).runtime == Runtime(poll_us=0)
    assert load_league(SMALL).runtime == Runtime()  # the default window


