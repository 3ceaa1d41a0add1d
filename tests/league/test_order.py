"""The order a league plays its matches in (arena.league.order): every match once, each
pairing whole to one referee, and far fewer bot processes started than in schedule order."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.league.config import load_league
from arena.league.order import StreamFeed, deal_streams, pairing_of
from arena.league.runner import run_league
from arena.league.schedule import ScheduledMatch, schedule

ROOT = Path(__file__).resolve().parents[2]


def matches(entries: int, per_pairing: int) -> list[ScheduledMatch]:
    names = [f"e{i:02d}" for i in range(entries)]
    return [ScheduledMatch(f"{a}--{b}--{k:03d}", a if k % 2 == 0 else b, b if k % 2 == 0 else a, 0, k)
            for a, b in itertools.combinations(names, 2) for k in range(per_pairing)]


def loads(order: Sequence[ScheduledMatch], resident: int) -> int:
    """Entries a pool that keeps the ``resident`` most recently used ones must bring in
    (each one a team of processes started)."""
    held: list[str] = []
    brought = 0
    for m in order:
        for entry in (m.team0, m.team1):
            if entry in held:
                held.remove(entry)
            else:
                brought += 1
            held.append(entry)
        del held[:-resident]
    return brought


@settings(max_examples=60, deadline=None)
@given(entries=st.integers(2, 12), per_pairing=st.integers(1, 4), streams=st.integers(1, 5),
       resident=st.integers(1, 8), played=st.sets(st.integers(0, 300)))
def test_every_match_once_each_pairing_whole_to_one_stream_in_its_order(
        entries: int, per_pairing: int, streams: int, resident: int, played: set[int]) -> None:
    """Also when some matches are already played (``--resume``: pairings of unequal size)."""
    todo = [m for i, m in enumerate(matches(entries, per_pairing)) if i not in played]
    dealt = deal_streams(todo, streams, resident)
    assert len(dealt) == streams
    assert sorted(m.match_id for s in dealt for m in s) == sorted(m.match_id for m in todo)
    where = {pairing_of(m): i for i, s in enumerate(dealt) for m in s}
    for i, s in enumerate(dealt):
        assert all(where[pairing_of(m)] == i for m in s)
        for pairing in {pairing_of(m) for m in s}:
            mine = [m.match_id for m in s if pairing_of(m) == pairing]
            assert mine == [m.match_id for m in todo if pairing_of(m) == pairing]
    sizes = [len(s) for s in dealt]
    assert max(sizes) - min(sizes) <= per_pairing  # balanced: the next pairing goes to the shortest


@pytest.mark.parametrize(("entries", "at_most"), [(10, 0.40), (20, 0.30), (60, 0.28)])
def test_one_pool_brings_in_far_fewer_entries_than_in_schedule_order(entries: int, at_most: float) -> None:
    """Schedule order brings in 39, 194 and 1,814 entries (10, 20 and 60 entries, two
    matches per pairing, a pool of 6); this order 14, 54 and 461."""
    todo = matches(entries, 2)
    (order,) = deal_streams(todo, 1, 6)
    assert loads(order, 6) <= at_most * loads(todo, 6)


def test_the_feed_gives_the_stream_with_the_fewest_in_flight() -> None:
    a, b = matches(3, 2)[:2], matches(3, 2)[2:4]
    feed = StreamFeed([a, b])
    first = feed.take([])
    assert first == a[0]
    second = feed.take([first])
    assert second == b[0]
    assert feed.take([first]) == b[1]  # stream 0 has one in flight, stream 1 none
    assert feed.take([]) == a[1] and not feed
    with pytest.raises(IndexError):
        feed.take([])


def test_a_worker_takes_a_match_to_play_again_first_then_its_own_stream_then_the_nearest() -> None:
    from collections import deque
    from concurrent.futures import Future
    from types import SimpleNamespace

    from arena.league.procs import ProcessExecutor

    a, b, c, d = matches(4, 1)[:4]  # e00-e01, e00-e02, e00-e03, e01-e02
    ex = ProcessExecutor.__new__(ProcessExecutor)  # no worker processes: _take alone
    ex._stream_of = {a.match_id: 1, b.match_id: 0, c.match_id: 1, d.match_id: 1}
    ex._queue = deque((m, Future(), again) for m, again in [(a, False), (b, False), (c, True), (d, False)])
    worker = SimpleNamespace(stream=0, recent=["e01", "e02"], last_seed=None)
    assert ex._take(worker)[0] == c  # played again, wherever it is queued
    assert ex._take(worker)[0] == b  # its own stream
    assert ex._take(worker)[0] == d  # both entries recent, before one (a)
    assert ex._take(worker)[0] == a and not ex._queue


def test_a_worker_leaves_the_twin_of_its_last_match_to_another() -> None:
    """Without streams (a ladder), the twin of the match a worker just played has both
    its entries recent, but the processes that played the deal may not play it again:
    a match of one recent entry comes first."""
    from collections import deque
    from concurrent.futures import Future
    from dataclasses import replace
    from types import SimpleNamespace

    from arena.league.procs import ProcessExecutor

    played, other = matches(3, 1)[:2]  # e00-e01, e00-e02
    other = replace(other, seed=7)  # another deal (every match of matches() has seed 0)
    twin = replace(played, match_id=played.match_id + "b", team0=played.team1, team1=played.team0)
    ex = ProcessExecutor.__new__(ProcessExecutor)
    ex._stream_of = {}
    ex._queue = deque((m, Future(), False) for m in (twin, other))
    worker = SimpleNamespace(stream=0, recent=["e00", "e01"], last_seed=played.seed)
    assert ex._take(worker)[0] == other
    assert ex._take(SimpleNamespace(stream=0, recent=["e00", "e01"], last_seed=None))[0] == twin


def test_a_league_of_eight_entries_starts_few_processes_at_one_job_and_at_two(tmp_path: Path) -> None:
    """Eight entries, 28 pairings, short matches. In schedule order a pool brings in 19
    entries (38 processes at --jobs 1), and at --jobs 2 every worker started processes
    for every entry (a ten-entry league started 77 processes at --jobs 1 and 154 at
    --jobs 2, and took longer at 2); now 18 processes at --jobs 1 and 30–32 at 2 (three
    runs), with the same standings (the hand logs: test_procs.py)."""
    bots = ["bots/random", "bots/rulebot", "bench/bots/trivial"]
    text = 'name = "eight"\nseed = 4\nmatches_per_pairing = 1\n[rules]\ngames_to_win = 1\ntarget_points = 5\n'
    for i in range(8):
        text += f'[[entry]]\nname = "e{i}"\nbot = "{ROOT / bots[i % 3]}"\n'
    (tmp_path / "eight.toml").write_text(text)
    config = load_league(tmp_path / "eight.toml")
    started, standings = {}, {}
    for jobs in (1, 2):
        out = tmp_path / f"jobs{jobs}"
        run = run_league(config, out, jobs=jobs)
        assert run.played_now == len(schedule(config)) and not run.failed
        started[jobs] = len(list((out / "bots").glob("*.stderr.log")))
        standings[jobs] = (out / "standings.json").read_text()
    assert standings[1] == standings[2]
    # (at --jobs 2 a worker with nothing of its own queued takes another's match: some slack)
    assert started[1] <= 20 and started[2] <= 40, started


def test_an_idle_worker_is_given_its_own_match_before_another_takes_it() -> None:
    """Two idle workers, one match queued, of the second's stream: the second gets it
    (one pass in list order gave it to the first, whose pool did not hold its entries)."""
    from collections import deque
    from concurrent.futures import Future
    from types import SimpleNamespace

    from arena.league.procs import ProcessExecutor

    (m,) = matches(2, 1)
    sent: list[tuple[int, ScheduledMatch]] = []

    def worker(n: int) -> SimpleNamespace:
        conn = SimpleNamespace(send=lambda match: sent.append((n, match)))
        return SimpleNamespace(stream=n, recent=[], last_seed=None, job=None, conn=conn)

    ex = ProcessExecutor.__new__(ProcessExecutor)
    ex._stream_of, ex._attempts, ex._resident = {m.match_id: 1}, {}, 6
    ex._queue = deque([(m, Future(), False)])
    ex._workers = [worker(0), worker(1)]
    ex._dispatch()
    assert sent == [(1, m)] and ex._workers[0].job is None and not ex._queue
