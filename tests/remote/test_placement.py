"""CPU affinity (arena/remote/placement.py, ``--affinity``): the settings, the slots of a
league's parallel matches, and real bot processes pinned with everything they start.
Nothing is pinned unless asked."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

import pytest
from remote_helpers import Spawn, tagged_pids

from arena.remote import placement
from arena.remote.placement import Placement, PlacementError, parse_affinity, pinned_thread, place
from arena.runtime import DEFAULT_POLL_US, Runtime

CPUS = frozenset(os.sched_getaffinity(0))
LAST = max(CPUS)
two_cpus = pytest.mark.skipif(len(CPUS) < 2, reason="pinning to one CPU of one proves nothing")


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("none", None),
        (" AUTO ", "auto"),
        ("1", "1"),
        ("2-4", "2-4"),
        ("0, 2,4-5", "0,2,4-5"),
        ("1 - 3", "1-3"),
        ("3-3", "3"),
        ("6-7,3", "3,6-7"),
        ("0,1,2,5", "0-2,5"),
    ],
)
def test_settings_parse_to_their_canonical_form(text: str, canonical: str | None) -> None:
    assert parse_affinity(text, available=frozenset(range(8))) == canonical


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "must be 'none', 'auto' or a CPU list"),
        ("all", "must be 'none', 'auto' or a CPU list"),
        ("declared", "must be 'none', 'auto' or a CPU list"),  # only the deprecated --bot-cpus takes it
        ("1,,2", "must be 'none', 'auto' or a CPU list"),
        ("-1", "must be 'none', 'auto' or a CPU list"),
        ("0 1", "must be 'none', 'auto' or a CPU list"),  # a typo, not CPU 1 or 01
        ("4-2", "the range 4-2 is backwards"),
        ("7-9", "CPU 8-9 is not available to the arena (available: 0-7)"),
        ("3,9", "CPU 9 is not available"),
        ("0-4000000000", "CPU 8-4000000000 is not available"),  # refused without building the set
    ],
)
def test_bad_settings_say_why(text: str, message: str) -> None:
    with pytest.raises(PlacementError, match=message.replace("(", r"\(").replace(")", r"\)")):
        parse_affinity(text, available=frozenset(range(8)))


def test_a_cpu_list_needs_cpu_affinity(monkeypatch: pytest.MonkeyPatch) -> None:
    """Where the platform has no CPU affinity (macOS), a list is refused; auto pins nothing."""
    monkeypatch.setattr(placement, "available_cpus", lambda: None)
    with pytest.raises(PlacementError, match="needs Linux"):
        parse_affinity("1")
    assert place("auto") == Placement(None, None)
    assert Runtime(affinity="auto").placement == Placement(None, None)


def test_a_setting_that_another_replaces_is_checked_for_its_form_only() -> None:
    assert parse_affinity("4090-4095", check=False) == "4090-4095"
    with pytest.raises(PlacementError, match="stop at 65535"):
        parse_affinity("0-4000000000", check=False)
    with pytest.raises(PlacementError, match="CPU list"):
        parse_affinity("lots", check=False)


def one(*cpus: int) -> frozenset[int]:
    return frozenset(cpus)


def test_nothing_is_pinned_by_default() -> None:
    assert Runtime().placement == Placement(None, None)
    assert Runtime().for_job(2, 4).placement == Placement(None, None)
    assert place(None, 3, 4, frozenset(range(8))) == Placement(None, None)


def test_auto_gives_each_match_a_bot_cpu_and_a_referee_cpu() -> None:
    four = frozenset({0, 1, 2, 3})
    # One match at a time: bots on the last CPU, the referee on the one before.
    assert place("auto", 0, 1, four) == Placement(one(3), one(2))
    assert place("auto", 0, 1, frozenset({2, 5})) == Placement(one(5), one(2))
    # A pair of CPUs per match while there are enough.
    assert [place("auto", s, 2, four) for s in range(2)] == [Placement(one(3), one(2)), Placement(one(1), one(0))]
    # Fewer: the bots of each running match still get a CPU of their own, and the
    # referees stay free (pinned, one would sit on another match's bots' CPU).
    assert [place("auto", s, 3, four) for s in range(3)] == [Placement(one(c), None) for c in (3, 2, 1)]
    assert [place("auto", s, 2, one(0, 1)) for s in range(2)] == [Placement(one(1), None), Placement(one(0), None)]
    assert place("auto", 0, 1, one(0)) == Placement()  # one CPU: nothing to separate
    # A list: the bots there, whatever the slot; the referee free.
    assert place("1-2", 3, 4, four) == Placement(one(1, 2), None)


@two_cpus
def test_the_pinned_thread_is_restored_and_other_threads_are_untouched() -> None:
    seen: list[frozenset[int]] = []
    inside = threading.Event()
    done = threading.Event()

    def other() -> None:
        inside.wait(5)
        seen.append(frozenset(os.sched_getaffinity(0)))
        done.set()

    t = threading.Thread(target=other)
    t.start()
    with pinned_thread(frozenset({LAST})):
        assert os.sched_getaffinity(0) == {LAST}
        inside.set()
        done.wait(5)
    t.join(5)
    assert os.sched_getaffinity(0) == CPUS
    assert seen == [CPUS]


def test_a_cpu_outside_the_arena_set_is_a_placement_error() -> None:
    with pytest.raises(PlacementError, match="cannot run on CPUs 4096"):
        with pinned_thread(frozenset({4096})):
            pass
    assert os.sched_getaffinity(0) == CPUS


def task_affinities(pid: int) -> set[frozenset[int]]:
    """The CPU sets of every thread of a process."""
    return {frozenset(os.sched_getaffinity(int(tid))) for tid in os.listdir(f"/proc/{pid}/task")}


@two_cpus
def test_a_bot_and_everything_it_starts_run_on_its_cpus(spawn: Spawn, tag: str, tmp_path: Path) -> None:
    """The bot's process, each of its threads (gRPC's included) and the child it starts
    run on the CPUs given; the arena's own thread is back to all of them."""
    bot = spawn("spawn_child", cpus=frozenset({LAST}))
    child_file = tmp_path / "child.pid"
    deadline = time.monotonic() + 5
    while not child_file.exists() and time.monotonic() < deadline:
        time.sleep(0.02)
    pids = tagged_pids(tag)
    assert bot.process is not None and bot.process.pid in pids
    assert len(pids) >= 2, "the bot and its child"
    for pid in pids:
        assert task_affinities(pid) == {frozenset({LAST})}, f"pid {pid}"
    assert os.sched_getaffinity(0) == CPUS


def test_an_unpinned_bot_runs_anywhere(spawn: Spawn, tag: str) -> None:
    bot = spawn("none")
    assert bot.process is not None
    assert task_affinities(bot.process.pid) == {CPUS}


def test_a_bot_on_a_cpu_the_arena_cannot_use_fails_to_start_with_the_reason(spawn: Spawn) -> None:
    from arena.remote.process import BotStartError

    bot = spawn("none", connect=False, cpus=frozenset({4096}))
    with pytest.raises(BotStartError, match="cannot run on CPUs 4096"):
        bot.connect()


@two_cpus
def test_the_referee_thread_is_pinned_during_the_match_only(tmp_path: Path) -> None:
    """run_match referees on the runtime's referee CPU and gives the thread back
    unpinned; the header's ``run`` records where the match ran."""
    import json

    from arena.engine import Rules
    from arena.league.runmatch import Seating, run_match
    from arena.players.local import RandomPlayer
    from arena.referee.match import MatchConfig

    seen: set[frozenset[int]] = set()

    class Watching(RandomPlayer):
        def decide(self, view, request_id, timing):  # type: ignore[no-untyped-def]
            seen.add(frozenset(os.sched_getaffinity(0)))
            return super().decide(view, request_id, timing)

    players = [Watching(seed=s) for s in range(4)]
    config = MatchConfig(rules=Rules(games_to_win=1, target_points=10), seed=3)
    runtime = Runtime(affinity="auto")
    assert runtime.placement.referee is not None
    (referee,) = runtime.placement.referee
    outcome = run_match([], Seating(("a", "b", "a", "b")), config, tmp_path, players=players, runtime=runtime)
    assert outcome.result.reason == "completed"
    assert seen == {one(referee)}
    assert os.sched_getaffinity(0) == CPUS
    header = json.loads(outcome.log_path.read_text().splitlines()[0])
    # In-process players are not processes the arena placed: no bots' CPUs.
    assert header["run"] == {"poll_us": DEFAULT_POLL_US, "affinity": {"bots": None, "referee": [referee]},
                             "grpc_experiments": os.environ.get("GRPC_EXPERIMENTS")}
    for old in ("bot_cpus", "referee_cpus", "spin_us"):
        assert old not in header


