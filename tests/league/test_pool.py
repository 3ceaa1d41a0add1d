"""Bot processes kept across a league's matches (issue 17), with real bot processes.

What reuse must not change: no process ever plays a deal it has played (duplicate twins
and deals shared across pairings included), a fault stays in its match (the faulty
process is replaced, the others are kept), a bot can opt out (``fresh_process``), idle
processes do not run, and none outlives the league. Each hand log's header says how
each seat's process was obtained.
"""

from __future__ import annotations

import json
import threading
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest
from mus_core import Card

from arena.driver.match import MatchConfig
from arena.league.config import load_league
from arena.league.runner import run_league
from arena.remote.manifest import BotManifest, ManifestError, load_manifest
from arena.runner.match import Seating, run_match
from arena.runner.pool import ProcessPool

TESTBOT = Path(__file__).resolve().parents[1] / "remote" / "bots" / "testbot"


def manifest(tmp: Path, name: str, mode: str, *extra: str, **env: str) -> Path:
    """A manifest of the test bot in ``mode`` (own folder: the bot's name is the entry's)."""
    folder = tmp / f"bot-{name}"
    folder.mkdir()
    envs = "".join(f'{k} = "{v}"\n' for k, v in {"MUS_TEST_MODE": mode, **env}.items())
    (folder / "bot.toml").write_text(
        f'name = "{name}"\ncommand = ["python", "{TESTBOT / "bot.py"}"]\n'
        + "".join(line + "\n" for line in extra) + f"[env]\n{envs}", encoding="utf-8")
    return folder


def league_file(tmp: Path, entries: dict[str, Path], *, duplicate: bool, matches: int, max_faults: int = 5) -> Path:
    text = (f'name = "pool"\nseed = 5\nmatches_per_pairing = {matches}\nduplicate = {str(duplicate).lower()}\n'
            f'[rules]\ntarget_points = 15\ngames_to_win = 1\n'
            f'[time]\ndecision_ms = 3000\ntime_bank_ms = 60000\nmax_faults = {max_faults}\n')
    for name, bot in entries.items():
        text += f'[[entry]]\nname = "{name}"\nbot = "{bot}"\n'
    path = tmp / "league.toml"
    path.write_text(text, encoding="utf-8")
    return path


def headers(out: Path) -> dict[str, dict[str, Any]]:
    """The header of every hand log, by match id."""
    return {p.stem: json.loads(p.read_text(encoding="utf-8").splitlines()[0]) for p in (out / "logs").glob("*.jsonl")}


def first_deal(log: Path) -> list[str]:
    """Every seat's cards in the first hand of a match, as its hand log gives them."""
    for line in log.read_text(encoding="utf-8").splitlines():
        rec = json.loads(line)
        if rec["type"] == "hand":
            return [" ".join(sorted(h.split())) for h in rec["deal"]["hands"]]
    raise AssertionError(f"{log}: no hand")


def memories(out: Path) -> dict[int, list[dict[str, Any]]]:
    """Per bot process (pid): each match it was given, with the cards it was dealt."""
    per_pid: dict[int, list[dict[str, Any]]] = {}
    for path in out.glob("memory-*.jsonl"):
        matches: list[dict[str, Any]] = []
        for line in path.read_text(encoding="utf-8").splitlines():
            rec = json.loads(line)
            if rec["kind"] == "match_start":
                matches.append({"match_id": rec["match_id"], "seat": rec["seat"], "hands": {}})
            else:  # the cards of its first decision of each hand: as dealt, before any discard
                matches[-1]["hands"].setdefault(rec["hand"], tuple(rec["cards"]))
        per_pid[int(path.stem.split("-")[1])] = matches
    return per_pid


def test_a_process_never_plays_a_deal_it_has_seen(tmp_path: Path) -> None:
    """Duplicate league, three entries: every deal is played by the two twins of each of
    three pairings. Bots that remember every card they were given, and the hand logs,
    show that no process was ever given a match seed, or a deal, it had played, while
    processes were reused; and none is left running after the league."""
    spies = tmp_path / "spies"
    spies.mkdir()
    bots = {n: manifest(tmp_path, n, "memory", MUS_TEST_OUT=str(spies)) for n in ("a", "b", "c")}
    config = load_league(league_file(tmp_path, bots, duplicate=True, matches=4))
    out = tmp_path / "out"
    run = run_league(config, out, jobs=1)
    assert len(run.results) == 12 and all(r["reason"] == "completed" for r in run.results)
    heads = headers(out)
    seeds = {mid: h["seed"] for mid, h in heads.items()}
    per_pid = memories(spies)
    assert max(len(m) for m in per_pid.values()) >= 2, "no process played two matches: reuse was not tested"
    for pid, matches in per_pid.items():
        played = [m["match_id"] for m in matches]
        assert len({seeds[mid] for mid in played}) == len(played), f"process {pid} played a seed twice: {played}"
        deals = [tuple(first_deal(out / "logs" / f"{mid}.jsonl")) for mid in played]
        assert len(set(deals)) == len(deals), f"process {pid} was dealt one deal twice: {played}"
        for m in matches:  # what the bot remembers is what the log says it was dealt
            dealt = first_deal(out / "logs" / f"{m['match_id']}.jsonl")[m["seat"]]
            assert m["hands"][0] == tuple(sorted(_card_index(c) for c in dealt.split()))
        # The headers count the process's matches as the bot saw them.
        numbers = [heads[m["match_id"]]["seats"][m["seat"]]["process"]["match_number"] for m in matches]
        assert numbers == list(range(1, len(matches) + 1))
    for pid in per_pid:
        assert not _alive(pid), f"bot process {pid} outlived the league"


def _card_index(card: str) -> int:
    """The test bot's index of a card (rank * 4 + suit) from the log's notation (``Ro``…)."""
    c = Card.parse(card)
    return c.rank * 4 + c.suit


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def _state(pid: int) -> str:
    with open(f"/proc/{pid}/stat", encoding="ascii") as f:
        return f.read().rsplit(")", 1)[1].split()[0]


def test_pool_reuses_freezes_and_refuses_a_seen_deal(tmp_path: Path) -> None:
    """Three matches on one pool: the second reuses the first's four processes (frozen
    in between), the third, on the first's seed, gets four new ones; closing the pool
    stops them all."""
    spec = load_manifest(manifest(tmp_path, "t", "none") / "bot.toml")
    seating = Seating(("x", "y", "x", "y"))
    pool = ProcessPool(tmp_path / "bots")

    def play(seed: int, n: int) -> tuple[list[dict[str, Any]], list[int]]:
        mc = MatchConfig(seed=seed, match_id=f"m{n}", decision_ms=3000, time_bank_ms=60000)
        outcome = run_match((spec,) * 4, seating, mc, tmp_path, pool=pool)
        assert outcome.result.reason.value == "completed" and not outcome.result.faults
        head = json.loads(outcome.log_path.read_text(encoding="utf-8").splitlines()[0])
        pids = [lease.bot.process.pid for lease in pool._idle if lease.bot.process is not None]
        return [s["process"] for s in head["seats"]], [pid for pid in pids if pid is not None]

    try:
        first, pids1 = play(1, 1)
        assert [p["started"] for p in first] == [True] * 4 and len(pids1) == 4
        deadline = time.monotonic() + 5  # a signal is delivered when the process is next scheduled
        while not all(_state(pid) == "T" for pid in pids1) and time.monotonic() < deadline:
            time.sleep(0.01)
        assert [_state(pid) for pid in pids1] == ["T"] * 4, "idle processes must not run"
        second, pids2 = play(2, 2)
        assert [(p["started"], p["match_number"], p["why"]) for p in second] == [(False, 2, "reused")] * 4
        assert sorted(pids2) == sorted(pids1)
        third, pids3 = play(1, 3)
        assert [(p["started"], p["why"]) for p in third] == [(True, "every idle process has played this deal")] * 4
        assert pool.started == 8 and pool.reused == 4
    finally:
        pool.close()
    assert not any(_alive(pid) for pid in pids1 + pids3)


def test_a_fault_stays_in_its_match(tmp_path: Path) -> None:
    """A bot that crashes at the 30th decision of each of its processes, in a plain
    league: the process that crashed never plays again (each process faults at most in
    its last match), the fault is in the results, and its opponents' processes are kept
    for their next match as if nothing happened."""
    bots = {"crasher": manifest(tmp_path, "crasher", "crash_mid", MUS_TEST_AT="30"),
            "steady": manifest(tmp_path, "steady", "none")}
    config = load_league(league_file(tmp_path, bots, duplicate=False, matches=6, max_faults=1))
    out = tmp_path / "out"
    run = run_league(config, out, jobs=1)
    heads = headers(out)
    order = [r["match_id"] for r in run.results]
    crashed = [r for r in run.results if any(f["kind"] == "crash" for f in r["faults"])]
    assert crashed, "the crasher never crashed: nothing was tested"
    history: dict[str, list[tuple[str, bool]]] = defaultdict(list)  # process -> (match, its seat faulted)
    for mid in order:
        rec = next(r for r in run.results if r["match_id"] == mid)
        for s, seat in enumerate(heads[mid]["seats"]):
            history[f"{seat['entry']}:{seat['process']['first_seat']}"].append((mid, bool(rec["seats"][s]["faults"])))
    for process, matches in history.items():
        assert not any(faulted for _, faulted in matches[:-1]), f"{process} played on after a fault: {matches}"
    # The steady entry's processes went through the crash matches: reused after them.
    steady_reused = [mid for mid in order[1:] for s in heads[mid]["seats"]
                     if s["entry"] == "steady" and not s["process"]["started"]]
    assert len(steady_reused) >= 2 * (len(order) - 1) - 2
    assert any(r["match_id"] != order[-1] for r in crashed), "no crash before the last match"


def test_fresh_process_opts_out(tmp_path: Path) -> None:
    """``fresh_process = true``: a new process for each match, said in every header."""
    bots = {"fresh": manifest(tmp_path, "fresh", "none", "fresh_process = true"),
            "kept": manifest(tmp_path, "kept", "none")}
    assert load_manifest(bots["fresh"] / "bot.toml").fresh_process is True
    config = load_league(league_file(tmp_path, bots, duplicate=False, matches=3))
    out = tmp_path / "out"
    run_league(config, out, jobs=1)
    seats = [s for h in headers(out).values() for s in h["seats"]]
    fresh = [s["process"] for s in seats if s["entry"] == "fresh"]
    assert fresh and all(p == {**p, "started": True, "match_number": 1, "why": "fresh_process in its manifest"}
                         for p in fresh)
    assert any(not s["process"]["started"] for s in seats if s["entry"] == "kept")


def test_reuse_off_starts_every_process(tmp_path: Path) -> None:
    bots = {"a": manifest(tmp_path, "a", "none"), "b": manifest(tmp_path, "b", "none")}
    config = load_league(league_file(tmp_path, bots, duplicate=False, matches=2))
    out = tmp_path / "out"
    run_league(config, out, jobs=1, reuse_processes=False)
    procs = [s["process"] for h in headers(out).values() for s in h["seats"]]
    assert len(procs) == 8 and all(p["started"] and p["why"] == "a process per match" for p in procs)


def test_fresh_process_must_be_a_boolean(tmp_path: Path) -> None:
    bot = manifest(tmp_path, "x", "none", 'fresh_process = "yes"')
    with pytest.raises(ManifestError, match="fresh_process: must be true or false"):
        load_manifest(bot / "bot.toml")
    assert BotManifest("n", ("c",), tmp_path).fresh_process is False


def test_pool_is_bound_to_its_thread(tmp_path: Path) -> None:
    pool = ProcessPool(tmp_path)
    spec = load_manifest(manifest(tmp_path, "t", "none") / "bot.toml")
    errors: list[BaseException] = []

    def other() -> None:
        try:
            pool.acquire("x", spec, 1, "m.s0")
        except RuntimeError as exc:
            errors.append(exc)

    t = threading.Thread(target=other)
    t.start()
    t.join()
    assert errors and "thread" in str(errors[0])
