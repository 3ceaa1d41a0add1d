"""Bot placement on CPUs (arena/remote/placement.py): the settings, the slots of a
league's parallel matches, and real bot processes pinned with everything they start."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

import pytest
from remote_helpers import Spawn, tagged_pids

from arena.remote import placement
from arena.remote.placement import BotCpus, Placement, PlacementError, pinned_thread

CPUS = frozenset(os.sched_getaffinity(0))
LAST = max(CPUS)
two_cpus = pytest.mark.skipif(len(CPUS) < 2, reason="pinning to one CPU of one proves nothing")


@pytest.mark.parametrize(
    ("text", "mode", "cpus"),
    [
        ("any", "any", frozenset()),
        (" AUTO ", "auto", frozenset()),
        ("declared", "declared", frozenset()),
        ("1", "list", frozenset({1})),
        ("2-4", "list", frozenset({2, 3, 4})),
        ("0, 2,4-5", "list", frozenset({0, 2, 4, 5})),
        ("1 - 3", "list", frozenset({1, 2, 3})),
        ("3-3", "list", frozenset({3})),
    ],
)
def test_settings_parse(text: str, mode: str, cpus: frozenset[int]) -> None:
    got = BotCpus.parse(text, available=frozenset(range(8)))
    assert (got.mode, got.cpus) == (mode, cpus)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "must be 'declared', 'any', 'auto' or a CPU list"),
        ("all", "must be 'declared', 'any', 'auto' or a CPU list"),
        ("1,,2", "must be 'declared', 'any', 'auto' or a CPU list"),
        ("-1", "must be 'declared', 'any', 'auto' or a CPU list"),
        ("0 1", "must be 'declared', 'any', 'auto' or a CPU list"),  # a typo, not CPU 1 or 01
        ("4-2", "the range 4-2 is backwards"),
        ("7-9", "CPU 8-9 is not available to the arena (available: 0-7)"),
        ("3,9", "CPU 9 is not available"),
        ("0-4000000000", "CPU 8-4000000000 is not available"),  # refused without building the set
    ],
)
def test_bad_settings_say_why(text: str, message: str) -> None:
    with pytest.raises(PlacementError, match=message.replace("(", r"\(").replace(")", r"\)")):
        BotCpus.parse(text, available=frozenset(range(8)))


def test_a_cpu_list_needs_cpu_affinity(monkeypatch: pytest.MonkeyPatch) -> None:
    """Where the platform has no CPU affinity (macOS), a list is refused; any and auto work."""
    monkeypatch.setattr(placement, "available_cpus", lambda: None)
    with pytest.raises(PlacementError, match="needs Linux"):
        BotCpus.parse("1")
    assert BotCpus.parse("auto").for_slot(0) == Placement(None, None)
    assert BotCpus.parse("any").for_slot(0) == Placement(None, None)


def test_settings_print_as_written() -> None:
    assert [str(BotCpus.parse(t, frozenset(range(8)))) for t in ("declared", "any", "auto", "0,1,2,5", "6-7,3")] == [
        "declared", "any", "auto", "0-2,5", "3,6-7",
    ]
    assert str(BotCpus()) == "declared"  # the default


def one(*cpus: int) -> frozenset[int]:
    return frozenset(cpus)


def test_auto_gives_each_match_a_bot_cpu_and_a_referee_cpu() -> None:
    auto = BotCpus.parse("auto")
    four = frozenset({0, 1, 2, 3})
    # One match at a time: bots on the last CPU, the referee on the one before.
    # The arena chose these CPUs (claim=True): they are claimed against other arenas.
    assert auto.for_slot(0, 1, four) == Placement(one(3), one(2), True)
    assert auto.for_slot(0, 1, frozenset({2, 5})) == Placement(one(5), one(2), True)
    # A pair of CPUs per match while there are enough.
    assert [auto.for_slot(s, 2, four) for s in range(2)] == [Placement(one(3), one(2), True), Placement(one(1), one(0), True)]
    # Fewer: the bots of each running match still get a CPU of their own, and the
    # referees stay free (pinned, one would sit on another match's bots' CPU).
    assert [auto.for_slot(s, 3, four) for s in range(3)] == [Placement(one(c), None, True) for c in (3, 2, 1)]
    assert [auto.for_slot(s, 2, one(0, 1)) for s in range(2)] == [Placement(one(1), None, True), Placement(one(0), None, True)]
    assert auto.for_slot(0, 1, one(0)) == Placement()  # one CPU: nothing to separate
    assert BotCpus.parse("any").for_slot(3, 4, four) == Placement()
    # A list is the user's choice: not claimed.
    assert BotCpus.parse("1-2", four).for_slot(3, 4, four) == Placement(one(1, 2), None, False)


def test_declared_pins_only_a_match_whose_bots_all_share_a_cpu() -> None:
    """``declared`` (the default) places a match as ``auto`` does when its bots all
    declare ``share_cpu``, and leaves any other match to the system."""
    declared, auto = BotCpus(), BotCpus.parse("auto")
    for cpus in (frozenset({0, 1, 2, 3}), one(0, 1), one(0)):
        for jobs in (1, 2, 3):
            for slot in range(jobs):
                assert declared.for_slot(slot, jobs, cpus, bots_share_cpu=True) == auto.for_slot(slot, jobs, cpus)
                assert declared.for_slot(slot, jobs, cpus, bots_share_cpu=False) == Placement()
    assert declared.for_slot(0, 1, one(0, 1), bots_share_cpu=True) == Placement(one(1), one(0), True)
    # The other settings do not ask the bots.
    assert auto.for_slot(0, 1, one(0, 1), bots_share_cpu=False) == Placement(one(1), one(0), True)
    assert BotCpus.parse("any").for_slot(0, 1, one(0, 1), bots_share_cpu=True) == Placement()


def _manifest(folder: Path, extra: str = "") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "bot.toml").write_text(f'name = "b"\ncommand = ["python", "bot.py"]\n{extra}\n', encoding="utf-8")
    return folder


def test_share_cpu_in_a_manifest(tmp_path: Path) -> None:
    from arena.remote.manifest import BotAddress, ManifestError, all_share_cpu, load_manifest

    shares = load_manifest(_manifest(tmp_path / "shares", "share_cpu = true"))
    silent = load_manifest(_manifest(tmp_path / "silent"))
    says_no = load_manifest(_manifest(tmp_path / "no", "share_cpu = false"))
    assert (shares.share_cpu, silent.share_cpu, says_no.share_cpu) == (True, False, False)
    assert all_share_cpu([shares] * 4)
    assert not all_share_cpu([shares, shares, shares, silent])
    assert not all_share_cpu([shares, says_no] * 2)
    # A bot at an address runs where it runs: its match is not pinned.
    assert not all_share_cpu([shares, shares, shares, BotAddress("far", "127.0.0.1:1")])
    assert not all_share_cpu([])
    for bad in ('share_cpu = "yes"', "share_cpu = 1"):
        with pytest.raises(ManifestError, match="field share_cpu: must be true or false"):
            load_manifest(_manifest(tmp_path / "bad", bad))


def test_the_bundled_bots_share_a_cpu() -> None:
    """They think on one thread in their own turn, and say so: the default placement pins
    their matches (the demo league's and the protocol benchmark's)."""
    from arena.remote.manifest import load_manifest

    repo = Path(__file__).resolve().parents[2]
    for folder in ("bots/random", "bots/rulebot", "bots/cpp", "bots/js", "bench/bots/trivial"):
        assert load_manifest(repo / folder).share_cpu, folder


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
    """run_match referees on the placement's CPU and gives the thread back unpinned; the
    header records both placements."""
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
    outcome = run_match([], Seating(("a", "b", "a", "b")), config, tmp_path, players=players,
                        placement=Placement(bots=None, referee=one(LAST)))
    assert outcome.result.reason == "completed"
    assert seen == {one(LAST)}
    assert os.sched_getaffinity(0) == CPUS
    header = json.loads(outcome.log_path.read_text().splitlines()[0])
    # In-process players are not processes the arena placed: no bot_cpus.
    assert (header["bot_cpus"], header["referee_cpus"]) == (None, [LAST])


def test_a_setting_that_another_replaces_is_checked_for_its_form_only() -> None:
    assert BotCpus.parse("4090-4095", check=False).cpus == frozenset(range(4090, 4096))
    with pytest.raises(PlacementError, match="stop at 65535"):
        BotCpus.parse("0-4000000000", check=False)
    with pytest.raises(PlacementError, match="CPU list"):
        BotCpus.parse("lots", check=False)


# --- claims: arenas on one machine do not pin onto each other's CPUs ---------------------------


@pytest.fixture
def locks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The CPU lock files of this test, apart from any real arena's."""
    folder = tmp_path / "locks"
    monkeypatch.setenv(placement.LOCKS_ENV, str(folder))
    return folder


def test_a_claimed_placement_moves_to_free_cpus_then_gives_up(locks: Path) -> None:
    """Each claim of the same pair (as by arenas started at once) gets the next free pair
    of CPUs, then nothing pinned; released CPUs are free again."""
    four = frozenset(range(4))
    wanted = BotCpus.parse("auto").for_slot(0, 1, four)
    with placement.claimed(wanted, four) as first, placement.claimed(wanted, four) as second:
        assert (first, second) == (wanted, Placement(one(1), one(0), True))
        with placement.claimed(wanted, four) as third:
            assert third == Placement()
    with placement.claimed(wanted, four) as again:
        assert again == wanted
    # Bots alone (more jobs than pairs): another single CPU.
    alone = Placement(one(3), None, True)
    with placement.claimed(alone, four) as a, placement.claimed(alone, four) as b:
        assert (a, b) == (alone, Placement(one(2), None, True))


def test_a_placement_the_user_listed_is_not_claimed(locks: Path) -> None:
    listed = BotCpus.parse("1", frozenset({0, 1})).for_slot(0, 1, frozenset({0, 1}))
    with placement.claimed(listed, frozenset({0, 1})) as a, placement.claimed(listed, frozenset({0, 1})) as b:
        assert a == b == listed
    assert not locks.exists() or not list(locks.iterdir())


def test_cpus_held_by_another_process_are_not_used(locks: Path) -> None:
    """The claim is between processes (another arena): while a process holds CPU 3's
    lock, a claim of (3, 2) moves to (1, 0); once it exits, (3, 2) is free."""
    import subprocess
    import sys

    locks.mkdir()
    holder = subprocess.Popen(
        [sys.executable, "-c", f"import fcntl, os, sys, time; fd = os.open({str(locks / 'cpu-3.lock')!r}, "
         "os.O_RDWR | os.O_CREAT); fcntl.lockf(fd, fcntl.LOCK_EX); print('held', flush=True); time.sleep(60)"],
        stdout=subprocess.PIPE, text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        four = frozenset(range(4))
        wanted = Placement(one(3), one(2), True)
        with placement.claimed(wanted, four) as got:
            assert got == Placement(one(1), one(0), True)
    finally:
        holder.kill()
        holder.wait()
    with placement.claimed(wanted, four) as got:
        assert got == wanted


@two_cpus
def test_run_match_records_the_placement_it_could_claim(tmp_path: Path, locks: Path) -> None:
    """A match whose CPUs another arena holds runs unpinned (on two CPUs there is no
    other pair), and its header says so."""
    import json

    from arena.engine import Rules
    from arena.league.runmatch import Seating, run_match
    from arena.players.local import RandomPlayer
    from arena.referee.match import MatchConfig

    wanted = BotCpus.parse("auto").for_slot(0)
    config = MatchConfig(rules=Rules(games_to_win=1, target_points=10), seed=3)
    from structlog.testing import capture_logs

    with placement.claimed(Placement(None, frozenset(CPUS), True), CPUS), capture_logs() as logs:  # another arena's claim on every CPU
        outcome = run_match([], Seating(("a", "b", "a", "b")), config, tmp_path, players=[RandomPlayer(seed=s) for s in range(4)],
                            placement=wanted)
    header = json.loads(outcome.log_path.read_text().splitlines()[0])
    assert header["referee_cpus"] is None and outcome.result.reason == "completed"
    assert [(e["event"], e["wanted_referee"], e["referee"]) for e in logs] == [
        ("placement.cpus_taken", sorted(wanted.referee or ()), None)]
    (tmp_path / "free").mkdir()
    outcome = run_match([], Seating(("a", "b", "a", "b")), config, tmp_path / "free", players=[RandomPlayer(seed=s) for s in range(4)],
                        placement=wanted)
    assert json.loads(outcome.log_path.read_text().splitlines()[0])["referee_cpus"] == sorted(wanted.referee or ())
