"""The referee: plays one match between players, enforcing time and rules.

:func:`play_match` drives a :class:`~arena.engine.MusState`: it asks the seat to act,
measures the time, validates the answer through the engine, and on any fault plays the
safe default of :mod:`arena.referee.policy`. It never raises because of a player;
every finished hand is handed to ``on_hand`` (the hand log) as soon as it is over.
"""

from __future__ import annotations

import inspect
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from arena.engine import (
    Action,
    HandResult,
    IllegalActionError,
    IllegalSignalError,
    MusState,
    Rules,
    format_cards,
)
from arena.engine.actions import format_legal
from arena.referee.eventloop import DEFAULT_SPIN_US, refereeing, thread_loop
from arena.referee.player import (
    BotFault,
    DecisionTiming,
    FaultKind,
    FaultRecord,
    MatchEndInfo,
    MatchStartInfo,
    Player,
    SeatStats,
)
from arena.referee.policy import default_action
from arena.results import result_to_json


@dataclass(frozen=True)
class MatchConfig:
    """How a match is refereed."""

    rules: Rules = field(default_factory=Rules)
    seed: int = 0
    match_id: str = "match"
    decision_ms: int = 2000
    """Deadline of one decision, in milliseconds."""
    time_bank_ms: int = 120_000
    """Time a seat may use over the whole match; a decision's deadline never exceeds what is left."""
    max_faults: int = 5
    """Faults by one seat after which its team forfeits the match (0 = never)."""
    first_dealer: int | None = None
    max_hands: int = 10_000
    """Guard against matches that never end (random bets can go on for long)."""


@dataclass
class MatchResult:
    """How a match ended."""

    match_id: str
    seed: int
    winner_team: int | None
    games_won: tuple[int, int]
    reason: str
    """``completed``, ``forfeit`` (a team passed ``max_faults``) or ``aborted`` (``max_hands``)."""
    hands: int
    stones: tuple[int, int]
    """Stones scored per team over the match (all games)."""
    seats: list[SeatStats]
    detail: str = ""

    @property
    def faults(self) -> list[FaultRecord]:
        """Every fault of the match, all seats."""
        return [f for s in self.seats for f in s.faults]

    def to_json(self) -> dict[str, Any]:
        """As plain JSON values."""
        return {
            "match_id": self.match_id,
            "seed": self.seed,
            "winner_team": self.winner_team,
            "games_won": list(self.games_won),
            "reason": self.reason,
            "detail": self.detail,
            "hands": self.hands,
            "stones": list(self.stones),
            "seats": [
                {
                    "decisions": s.decisions,
                    "time_used_ms": round(s.time_used_s * 1000, 3),
                    "max_decision_ms": round(s.max_decision_s * 1000, 3),
                    "faults": len(s.faults),
                }
                for s in self.seats
            ],
            "faults": [f.to_json() for f in self.faults],
        }


HandSink = Callable[[dict[str, Any]], None]
"""Receives one JSON-ready record per finished hand."""


async def _notify(players: Sequence[Player], method: str, arg: Any, log: Callable[[str, int, BaseException], None]) -> None:
    for seat, p in enumerate(players):
        try:
            out = getattr(p, method)(arg)
            if inspect.isawaitable(out):
                await out
        except Exception as exc:  # a notification must never stop the match
            log(method, seat, exc)


def play_match(
    players: Sequence[Player],
    config: MatchConfig,
    on_hand: HandSink | None = None,
    on_fault: Callable[[FaultRecord], None] | None = None,
    on_notify_error: Callable[[str, int, BaseException], None] | None = None,
    clock: Callable[[], float] = time.perf_counter,
    *,
    spin_us: int = DEFAULT_SPIN_US,
) -> MatchResult:
    """Play one match on this thread's event loop; see :func:`play_match_async`.

    ``spin_us``: how long the loop polls for an answer before it sleeps, in
    microseconds (0: never); see :mod:`arena.referee.eventloop`.

    Raises:
        ValueError: a bad ``spin_us``.
    """
    with refereeing(spin_us):
        return thread_loop().run_until_complete(
            play_match_async(players, config, on_hand, on_fault, on_notify_error, clock)
        )


async def play_match_async(
    players: Sequence[Player],
    config: MatchConfig,
    on_hand: HandSink | None = None,
    on_fault: Callable[[FaultRecord], None] | None = None,
    on_notify_error: Callable[[str, int, BaseException], None] | None = None,
    clock: Callable[[], float] = time.perf_counter,
) -> MatchResult:
    """Play one match; return its result. Never raises because of a player.

    A player's methods may be plain or ``async`` (remote bots await the network; local
    players answer at once). ``players[s]`` takes seat ``s``. ``on_hand`` receives each finished hand's record
    (deal, every step with its time and fault, itemised result) the moment it ends.
    """
    rules = config.rules
    n = rules.players
    if len(players) != n:
        raise ValueError(f"{n} players needed, got {len(players)}")
    state = MusState.new(rules, seed=config.seed, first_dealer=config.first_dealer)
    stats = [SeatStats() for _ in range(n)]
    bank = [config.time_bank_ms / 1000.0] * n
    names = tuple(getattr(p, "name", f"S{i}") for i, p in enumerate(players))
    notify_error = on_notify_error or (lambda method, seat, exc: None)
    for seat, p in enumerate(players):
        try:
            out = p.start_match(MatchStartInfo(config.match_id, seat, rules, names, config.decision_ms, config.time_bank_ms))
            if inspect.isawaitable(out):
                await out
        except Exception as exc:
            notify_error("start_match", seat, exc)

    request_id = 0
    forfeit_team: int | None = None
    detail = ""
    steps: list[dict[str, Any]] = []
    deal = _deal_record(state)
    decision_s = config.decision_ms / 1000.0
    while not state.is_terminal:
        if state.hand_no >= config.max_hands:
            detail = f"stopped after {config.max_hands} hands"
            break
        seat = state.to_act
        assert seat is not None
        request_id += 1
        view = state.view(seat)
        timing = DecisionTiming(min(decision_s, max(bank[seat], 0.0)), bank[seat])
        fault: FaultRecord | None = None
        sena_text: str | None = None
        t0 = clock()
        try:
            if timing.deadline_s <= 0:
                raise BotFault(FaultKind.TIMEOUT, "time bank exhausted")
            decision = players[seat].decide(view, request_id, timing)
            if inspect.isawaitable(decision):
                decision = await decision
            elapsed = clock() - t0
            if elapsed > timing.deadline_s:
                raise BotFault(FaultKind.TIMEOUT, f"answered after {elapsed * 1000:.0f} ms (deadline {timing.deadline_s * 1000:.0f} ms)")
            action: Action = decision.action
            if not state.is_legal(action):
                raise BotFault(FaultKind.ILLEGAL_ACTION, f"{action} is not legal (legal: {format_legal(view.legal_actions)})")
            if decision.sena is not None:
                try:
                    state.give_sena(seat, decision.sena)
                    sena_text = decision.sena.name.lower()
                except IllegalSignalError as exc:
                    # The action still counts; only the seña is dropped.
                    fault = _fault(state, seat, FaultKind.ILLEGAL_SENA, str(exc), request_id)
        except BotFault as exc:
            action = default_action(state)
            fault = _fault(state, seat, exc.kind, exc.detail, request_id)
        except Exception as exc:  # a bug in a player adapter must not stop the match
            action = default_action(state)
            fault = _fault(state, seat, FaultKind.BOT_ERROR, f"{type(exc).__name__}: {exc}", request_id)
        elapsed = clock() - t0
        bank[seat] -= elapsed
        st = stats[seat]
        st.decisions += 1
        st.time_used_s += elapsed
        st.max_decision_s = max(st.max_decision_s, elapsed)
        hands_before = len(state.hand_results)
        try:
            state.apply(action)
        except IllegalActionError as exc:  # pragma: no cover - the default is always legal
            raise AssertionError(f"referee default action illegal: {exc}") from exc
        step: dict[str, Any] = {"seat": seat, "id": request_id, "action": str(action), "ms": round(elapsed * 1000, 3)}
        if sena_text:
            step["sena"] = sena_text
        if fault is not None:
            step["fault"] = {"kind": fault.kind.value, "detail": fault.detail}
            st.faults.append(fault)
            if on_fault is not None:
                on_fault(fault)
        steps.append(step)
        if len(state.hand_results) > hands_before:
            result = state.hand_results[-1]
            if on_hand is not None:
                on_hand(hand_record(result, deal, steps))
            await _notify(players, "hand_end", result, notify_error)
            steps = []
            deal = _deal_record(state) if not state.is_terminal else {}
        if fault is not None and config.max_faults and len(st.faults) >= config.max_faults:
            forfeit_team = seat & 1
            detail = f"S{seat} ({names[seat]}) reached {len(st.faults)} faults"
            break
    if forfeit_team is not None:
        winner: int | None = 1 - forfeit_team
        reason = "forfeit"
    elif state.is_terminal:
        winner = state.match_winner
        reason = "completed"
    else:
        winner = None
        reason = "aborted"
    games = _games_won(state.hand_results)
    result_obj = MatchResult(
        match_id=config.match_id,
        seed=config.seed,
        winner_team=winner,
        games_won=games,
        reason=reason,
        hands=len(state.hand_results),
        stones=_stones(state.hand_results),
        seats=stats,
        detail=detail,
    )
    await _notify(players, "end_match", MatchEndInfo(winner, games, reason, detail), notify_error)
    return result_obj


def _fault(state: MusState, seat: int, kind: FaultKind, detail: str, request_id: int) -> FaultRecord:
    return FaultRecord(seat, kind, detail[:500], state.game_no, state.hand_no, request_id)


def _deal_record(state: MusState) -> dict[str, Any]:
    """The deal as dealt: every seat's cards and the stock from the top."""
    return {
        "dealer": state.dealer,
        "mano": state.mano,
        "hands": [format_cards(h) for h in state.hands],
        "stock": format_cards(reversed(state.stock)),
        "scores": list(state.scores),
    }


def _games_won(results: list[HandResult]) -> tuple[int, int]:
    won = [0, 0]
    for r in results:
        if r.game_over and r.game_winner is not None:
            won[r.game_winner] += 1
    return (won[0], won[1])


def _stones(results: list[HandResult]) -> tuple[int, int]:
    """Stones scored over the match: each hand's score gain (a new game starts at 0)."""
    out = [0, 0]
    for r in results:
        for t in (0, 1):
            out[t] += r.scores_after[t] - r.scores_before[t]
    return (out[0], out[1])


def hand_record(result: HandResult, deal: dict[str, Any], steps: list[dict[str, Any]]) -> dict[str, Any]:
    """The hand log's record of one hand (schema in docs/handlog.md)."""
    return {
        "type": "hand",
        "game": result.game,
        "hand": result.hand,
        "deal": deal,
        "steps": steps,
        "result": result_to_json(result),
    }
