"""Whole matches between real bot processes: four processes, information hiding, and a
bot at an address (already running elsewhere)."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from mus_core import CARDS, Action, ActionKind, Rules, format_cards, parse_cards
from mus_core.state import MusState
from mus_sdk import handshake
from remote_helpers import RANDOM_BOT, TAG_ENV, Played, close_all, config, pid_alive, play, wait_gone

from arena.remote.client import RemoteBot
from arena.remote.manifest import BotAddress
from arena.remote.process import BotStartError


def test_full_match_of_four_processes(spawn, tag: str, tmp_path: Path) -> None:
    bots = [
        spawn(path=RANDOM_BOT, label=f"s{seat}", MUS_BOT_SEED=str(seat), connect=False,
              unix_socket=seat >= 2)  # two over TCP, two over their private unix sockets
        for seat in range(4)
    ]
    for b in bots:  # all four start at once, then each is waited for
        b.launch()
    for b in bots:
        b.connect()
    assert [b.info.name for b in bots] == ["random"] * 4
    assert [b.process.announce.network for b in bots] == ["tcp", "tcp", "unix", "unix"]
    played = play(bots, config(rules=Rules(), seed=3, decision_ms=1000))
    r = played.result
    assert (r.reason.value, r.detail) == ("completed", "")
    assert r.winner_team in (0, 1) and r.games_won[r.winner_team] == 2 > r.games_won[1 - r.winner_team]
    assert r.faults == [] and played.notify_errors == []
    assert sum(s.decisions for s in r.seats) == sum(len(h["steps"]) for h in played.hands) > 0
    assert r.hands == len(played.hands) >= 1
    # A second match on the same processes (a new stream each) is just as good.
    again = play(bots, config(seed=4, match_id="again", decision_ms=1000))
    assert again.result.reason.value == "completed" and again.result.faults == []

    pids = [b.process.pid for b in bots]
    socket_files = [b.process.announce.address for b in bots[2:]]
    assert all(pid_alive(p) for p in pids)
    close_all(bots)  # closes twice: idempotent
    assert not any(pid_alive(p) for p in pids)
    assert wait_gone(tag) == []  # nor any child of theirs
    assert not any(os.path.exists(s) for s in socket_files)
    for b in bots:
        assert (b.log_dir / f"{b.label}.stderr.log").read_text() == ""


def test_no_request_holds_another_seats_cards(spawn, tmp_path: Path) -> None:
    out = tmp_path / "spy"
    out.mkdir()
    bots = [spawn("spy", label=f"spy{seat}", MUS_BOT_SEED=str(seat), MUS_TEST_OUT=str(out), connect=False)
            for seat in range(4)]
    for b in bots:
        b.launch()
    for b in bots:
        b.connect()
    cfg = config(seed=11, decision_ms=1000, rules=Rules(games_to_win=3))  # long enough for discards
    played = play(bots, cfg)
    assert played.result.faults == []
    assert played.result.reason.value == "completed"
    close_all(bots)  # the spies' files are complete

    records = [json.loads(line) for f in sorted(out.glob("spy-*.jsonl")) for line in f.read_text().splitlines()]
    seen = {r["id"]: r for r in records if r["kind"] == "decision"}
    truth = replay(played, cfg)
    thrown = thrown_before(played)
    remembered = 0
    assert set(seen) == set(truth), "every request reached its bot, once"
    assert len(seen) == sum(1 for r in records if r["kind"] == "decision")
    discards = 0
    for rid, rec in seen.items():
        seat, hands = truth[rid]
        assert rec["seat"] == seat
        own = hands[seat]
        others = set().union(*(h for s, h in enumerate(hands) if s != seat))
        assert set(rec["cards"]) == own, f"request {rid}: cards"
        leaked = set(rec["anywhere"]) & others
        assert not leaked, f"request {rid} to S{seat} holds {format_cards(sorted(leaked))} of another seat"
        assert set(rec["anywhere"]) <= own
        discards += len(rec["anywhere"]) > len(rec["cards"])  # a discard range repeats the own cards
        # Its own earlier discards, and only its own (in the log: what it threw this hand).
        assert rec["own_discards"] == thrown[rid], f"request {rid}: own_discards"
        remembered += bool(rec["own_discards"])
    assert discards > 0, "the spies never saw a discard request: a weak test"
    assert remembered > 0, "no request after a discard: a weak test"

    # Every notification arrived, the last ones too (match end; the last hand end).
    for f in out.glob("spy-*.jsonl"):
        kinds = [json.loads(line)["kind"] for line in f.read_text().splitlines()]
        assert kinds[0] == "match_start" and kinds[-1] == "match_end", f"{f.name}: {kinds[:1]}...{kinds[-3:]}"
        assert kinds.count("hand_end") == len(played.hands)

    # Hand ends reveal every hand, to every seat; that is allowed.
    ends = [r for r in records if r["kind"] == "hand_end"]
    assert len(ends) == 4 * len(played.hands)
    for r in ends:
        revealed = played.hands[r["hand"]]["result"]["hands"]
        assert [format_cards(h) for h in r["hands"]] == revealed


def test_a_bot_that_skips_hand_ends_gets_everything_else(spawn, tmp_path: Path) -> None:
    """GetInfo's skip_hand_ends: those seats get no HandEnd, and every other message."""
    out = tmp_path / "spy"
    out.mkdir()
    skips = (True, False, True, False)
    bots = [
        spawn("spy", label=f"spy{seat}", MUS_BOT_SEED=str(seat), MUS_TEST_OUT=str(out),
              MUS_TEST_SKIP_HAND_ENDS="1" if skip else "0")
        for seat, skip in enumerate(skips)
    ]
    assert [b.info.skip_hand_ends for b in bots] == list(skips)
    played = play(bots, config(seed=5, decision_ms=1000))
    assert played.result.faults == [] and played.result.reason.value == "completed"
    close_all(bots)  # the spies' files are complete
    seen_seats = []
    for f in out.glob("spy-*.jsonl"):
        records = [json.loads(line) for line in f.read_text().splitlines()]
        kinds = [r["kind"] for r in records]
        seat = next(r["seat"] for r in records if r["kind"] == "decision")
        seen_seats.append(seat)
        assert kinds[0] == "match_start" and kinds[-1] == "match_end"
        assert kinds.count("hand_end") == (0 if skips[seat] else len(played.hands)), f"S{seat}"
        steps = [s for rec in played.hands for s in rec["steps"] if s["seat"] == seat]
        assert kinds.count("decision") == len(steps), f"S{seat}: every request arrived"
    assert sorted(seen_seats) == [0, 1, 2, 3]


def replay(played: Played, cfg) -> dict[int, tuple[int, list[set[int]]]]:  # type: ignore[no-untyped-def]
    """Replay the hand log on the engine: for every request id, the seat asked and the
    cards every seat held at that moment. Checks the log's deals on the way."""
    state = MusState.new(cfg.rules, seed=cfg.seed, first_dealer=cfg.first_dealer)
    out: dict[int, tuple[int, list[set[int]]]] = {}
    for rec in played.hands:
        assert [sorted(h) for h in state.hands] == [
            sorted(CARDS.index(c) for c in parse_cards(text)) for text in rec["deal"]["hands"]
        ]
        for step in rec["steps"]:
            assert state.to_act == step["seat"]
            out[step["id"]] = (step["seat"], [set(h) for h in state.hands])
            assert "sena" not in step
            state.apply(Action.parse(step["action"]))
        assert [format_cards(h) for h in state.hand_results[-1].hands] == rec["result"]["hands"]
    assert state.is_terminal
    return out


def thrown_before(played: Played) -> dict[int, list[int]]:
    """For every request id, the cards its seat threw earlier in the hand, in order, read
    from the hand log's discard steps (not from the engine's record of them)."""
    out: dict[int, list[int]] = {}
    for rec in played.hands:
        mine: dict[int, list[int]] = {}
        for step in rec["steps"]:
            out[step["id"]] = list(mine.get(step["seat"], []))
            action = Action.parse(step["action"])
            if action.kind is ActionKind.DISCARD:
                mine.setdefault(step["seat"], []).extend(CARDS.index(c) for c in action.cards)
    return out


def test_bot_at_an_address(pool, tag: str, log_dir: Path, tmp_path: Path) -> None:
    """A bot already running elsewhere: the arena connects to its address, plays, and
    leaves its process alone when it closes."""
    env = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "PYTHONPATH", "VIRTUAL_ENV")}
    env.update(handshake.handshake_env())
    env[TAG_ENV] = tag
    proc = subprocess.Popen(
        [sys.executable, "bot.py"], cwd=RANDOM_BOT, env=env, stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL, start_new_session=True,
    )
    try:
        assert proc.stdout is not None
        announce = handshake.parse_line(proc.stdout.readline().decode())
        bot = RemoteBot(BotAddress("somewhere", announce.target), log_dir, "ext")
        info = bot.connect()
        assert bot.process is None and info.name == "random" and bot.name == "random"
        played = play(pool.table(bot, 1), config(seed=5, decision_ms=1000))
        assert played.result.reason.value == "completed" and played.result.faults == []
        bot.close()
        assert proc.poll() is None, "the arena stopped a bot it did not start"
        assert not bot.is_dead()
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(5)
        if proc.stdout:
            proc.stdout.close()
    assert wait_gone(tag) == []


def test_nobody_at_the_address(log_dir: Path) -> None:
    bot = RemoteBot(BotAddress("ghost", "127.0.0.1:9"), log_dir, "ghost")
    with pytest.raises(BotStartError, match=re.escape("ghost at 127.0.0.1:9 does not answer GetInfo")):
        bot.connect(info_timeout_s=0.5)
    bot.close()
