"""Helpers for the process tests: manifests with test environments, a pool of partner
bots, matches with their hand log, checks of the log, and the search for processes left
behind."""

from __future__ import annotations

import dataclasses
import json
import os
import time
import uuid
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from mus_core import Rules

from arena.driver.match import MatchConfig, MatchResult, play_match
from arena.referee.player import FaultKind, Player
from arena.remote.client import RemoteBot
from arena.remote.manifest import BotManifest, load_manifest

Spawn = Callable[..., RemoteBot]
"""The type of the ``spawn`` fixture (tests/remote/conftest.py)."""

REPO = Path(__file__).resolve().parents[2]
TESTBOT = Path(__file__).resolve().parent / "bots" / "testbot"
RANDOM_BOT = REPO / "bots" / "random"
TRIVIAL_BOT = REPO / "bench" / "bots" / "trivial"
TAG_ENV = "MUS_REMOTE_TEST_TAG"
"""Every process a test starts carries this variable (children inherit it): the
processes left behind are found by it."""

FAST_RULES = Rules(games_to_win=1)


def config(**overrides: Any) -> MatchConfig:
    """A quick match: one game, 300 ms per decision, forfeit after 3 faults."""
    values: dict[str, Any] = dict(rules=FAST_RULES, seed=7, decision_ms=300, max_faults=3)
    values.update(overrides)
    return MatchConfig(**values)


def manifest(path: Path, tag: str, **env: str) -> BotManifest:
    """The manifest at ``path`` with ``env`` added to its ``[env]`` and the test tag."""
    m = load_manifest(path)
    return dataclasses.replace(m, env={**m.env, **env, TAG_ENV: tag})


def new_tag(prefix: str = "") -> str:
    """A tag for the processes of one test or pool, unique across runs (see ``TAG_ENV``)."""
    return f"{prefix}{os.getpid()}-{uuid.uuid4().hex[:12]}"


class Pool:
    """Three healthy bots kept for the whole session, as a league keeps its bots from
    match to match. They are bench/bots/trivial: deterministic whatever ran before, and
    they never bet, so a match lasts several hands. ``table(bot, seat)`` seats a bot
    among them. They carry a tag of their own, so tests that attack "the other bots"
    (scoped by the test's tag) never reach them."""

    def __init__(self, log_dir: Path, tag: str) -> None:
        self.tag = tag
        self.bots = [RemoteBot(manifest(TRIVIAL_BOT, self.tag), log_dir, f"pool{i}") for i in range(3)]
        for b in self.bots:
            b.connect()

    def close(self) -> None:
        """Close the pool's bots; none of their processes may remain."""
        close_all(self.bots)
        assert wait_gone(self.tag, [b.process.pid for b in self.bots if b.process and b.process.pid]) == []

    def table(self, bot: Player, seat: int) -> list[Player]:
        for i, b in enumerate(self.bots):
            if b.is_dead():  # a previous test broke it: restart it, and say so
                restart(b)
                pytest.fail(f"pool bot {i} was dead at the start of this test")
        players: list[Player] = list(self.bots)
        players.insert(seat, bot)
        return players


def proc_state(pid: int) -> str | None:
    """The state letter of a process (``R``, ``S``, ``Z``...) or ``None`` if there is none."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return None


def pid_alive(pid: int) -> bool:
    """Whether a process runs (a zombie, dead but not yet reaped by init, does not)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return proc_state(pid) not in (None, "Z")


def tagged_pids(tag: str) -> list[int]:
    """Live processes whose environment holds ``TAG_ENV=tag``."""
    needle = f"\0{TAG_ENV}={tag}\0".encode()
    out = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/environ", "rb") as f:
                env = b"\0" + f.read() + b"\0"
        except OSError:
            continue
        if needle in env and pid_alive(int(entry)):
            out.append(int(entry))
    return out


def wait_gone(tag: str, pids: Iterable[int] = (), timeout_s: float = 1.0) -> list[int]:
    """Wait a moment for SIGKILLed processes to disappear; return those still alive."""
    pids = list(pids)
    deadline = time.monotonic() + timeout_s
    while True:
        left = sorted(set(tagged_pids(tag)) | {p for p in pids if pid_alive(p)})
        if not left or time.monotonic() > deadline:
            return left
        time.sleep(0.02)


def close_all(bots: Sequence[RemoteBot]) -> None:
    """Close bots (each waits for its process to exit), twice: closing is idempotent."""
    for b in bots:
        b.close()
    for b in bots:
        b.close()


@dataclass
class Played:
    """A match result with everything the referee reported on the way."""

    result: MatchResult
    names: list[str]
    hands: list[dict[str, Any]] = field(default_factory=list)
    notify_errors: list[tuple[str, int, str]] = field(default_factory=list)
    seconds: float = 0.0

    def fault_kinds(self, seat: int | None = None) -> list[FaultKind]:
        return [f.kind for f in self.result.faults if seat is None or f.seat == seat]


def play(players: Sequence[Player], cfg: MatchConfig) -> Played:
    """Play a match, keeping the hand log; the referee must not raise."""
    hands: list[dict[str, Any]] = []
    errors: list[tuple[str, int, str]] = []
    t0 = time.perf_counter()
    result = play_match(
        players, cfg, on_hand=hands.append,
        on_notify_error=lambda method, seat, exc: errors.append((method, seat, repr(exc))),
    )
    out = Played(result, [p.name for p in players], hands, errors, time.perf_counter() - t0)
    check_log(out)
    return out


def check_log(played: Played) -> None:
    """The hand log is whole: one record per finished hand, in order, and one marked
    unfinished for the hand a forfeit stopped (last); the request ids of the steps run
    1, 2, 3... (nothing lost); every fault is in its hand's record and every fault in the
    log is in the result."""
    result, hands = played.result, played.hands
    done = [rec for rec in hands if rec["finished"]]
    assert len(done) == result.hands, f"{result.hands} hands played, {len(done)} finished ones reached on_hand"
    assert all(rec["finished"] for rec in hands[:-1])
    assert result.reason.value == "forfeit" or not hands or hands[-1]["finished"]
    json.dumps(hands)  # JSON-ready
    ids = [s["id"] for rec in hands for s in rec["steps"]]
    assert ids == list(range(1, len(ids) + 1))
    assert [rec["hand"] for rec in hands] == list(range(len(hands)))
    for rec in hands:
        assert rec["type"] == "hand" and rec["steps"]
        assert rec["result"]["hand"] == rec["hand"] if rec["finished"] else "result" not in rec
        assert len(rec["deal"]["hands"]) == result_players(result)
    logged = {(s["id"], s["seat"], s["fault"]["kind"]) for rec in hands for s in rec["steps"] if "fault" in s}
    # Every decision is in the log, the stopped hand's too (issue 15 item 3).
    assert logged == {(f.request_id, f.seat, f.kind.value) for f in result.faults}
    assert sum(s.decisions for s in result.seats) == len(ids)
    if result.reason.value == "completed":
        assert hands[-1]["result"]["game_over"]


def result_players(result: MatchResult) -> int:
    return len(result.seats)


def restart(bot: RemoteBot) -> None:
    """Stop whatever is left of ``bot`` and start its process again (as a pool does
    with a new RemoteBot after a fault)."""
    bot.close()
    bot.process = None
    bot.connect()
