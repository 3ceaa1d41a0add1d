"""The referee: plays one match between players, enforcing time and rules.

:func:`play_match` drives a :class:`~arena.engine.MusState`: it asks the seat to act,
measures the time, validates the answer through the engine, and on any fault plays the
safe default of :mod:`arena.referee.policy`. It never raises because of a player;
every finished hand is handed to ``on_hand`` (the hand log) as soon as it is over.

Preparing ahead (``MatchConfig.prepare_ahead``, on by default). A match is a chain of
round trips, and between a bot's answer and the next request the referee applies the
answer, builds the next seat's view and encodes its request: with light bots, a fifth
of each decision's time (docs/performance.md). So while a bot thinks, the referee does
that work for the answer the seat is expected to give (the one it gave last time in the
same situation, the same legal actions) on a copy of the state
(:meth:`~arena.engine.MusState.what_if`), and has the next player build the request
(:class:`~arena.referee.player.PreparingPlayer`). If that answer comes, with no fault
and no seña, the copy becomes the match's state and the prepared request goes out at
once; any other answer is applied as usual and the preparation is dropped. Nothing is
prepared across a hand's end (the deal draws from the random streams, and the hand end
is sent first), nor when the same seat acts next (its time bank is still running). The
match is the same either way, request for request (tests play both); only the time
differs. The work happens while the referee would otherwise wait, and is counted in a
decision's time only when the answer arrives before it is done (tens of microseconds,
more if Python's garbage collector runs then).
"""

from __future__ import annotations

import asyncio
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
    SeatView,
    format_cards,
)
from arena.engine.actions import format_legal
from arena.referee.eventloop import DEFAULT_SPIN_US, refereeing, stall_meter, thread_loop
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
    prepare_ahead: bool = True
    """Build the next request while a bot thinks, for the answer it is expected to give
    (see "Preparing ahead" in the module docstring); it never changes what happens."""


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
    games: list[dict[str, Any]] = field(default_factory=list)
    """Per game begun, in order: ``game`` (its number), ``winner`` (the team, None if the
    match stopped first), ``scores`` (at its end; for an unfinished game, after its last
    finished hand) and ``ended_by`` (the ``ended_by`` of the hand that ended it, e.g.
    ``count``, ``count:chica``, ``deje:pares``, ``ordago:grande``; None if unfinished).
    From the engine's hand results: see :func:`games_record`."""

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
            "games": self.games,
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
    (deal, every step with its time and fault, itemised result) the moment it ends, and,
    when a forfeit stops the match in the middle of a hand, that hand's record marked
    unfinished (:func:`unfinished_hand_record`): every hand in which a decision was asked
    is recorded.

    A decision's time excludes the arena's own stalls (the process stopped, a paused
    VM: see :class:`~arena.referee.eventloop.StallMeter`), which remote players measure
    while they wait: a stall is neither a timeout nor charged to the seat's bank.
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
    # The stall meter runs around the decisions of players that await (remote bots):
    # from before the request is built to the answer's check, so that a stall anywhere
    # in there is seen. A plain decide blocks the loop itself: that is the player's time.
    stalls = stall_meter(asyncio.get_running_loop())
    awaits = [inspect.iscoroutinefunction(getattr(p, "decide", None)) for p in players]
    # Preparing ahead: which players can build a request ahead, what each seat answered
    # last in each situation, and what was prepared for the next decision.
    preparing = [config.prepare_ahead and getattr(p, "can_prepare", False) is True for p in players]
    expected: list[dict[int, tuple[Any, Action]]] = [{} for _ in range(n)]
    ahead: _Ahead | None = None
    ready: _Ahead | None = None  # prepared for this decision, and its answer came

    def prepare_next() -> None:
        """Run while the seat to act thinks: build the next request for its expected answer."""
        nonlocal ahead
        try:
            ahead = _prepare_ahead(state, seat, view, request_id, expected[seat], players, preparing, bank, decision_s)
        except Exception:  # never let the referee's own work for later hurt the decision
            ahead = None

    while not state.is_terminal:
        if state.hand_no >= config.max_hands:
            detail = f"stopped after {config.max_hands} hands"
            break
        to_act = state.to_act
        assert to_act is not None
        seat = to_act
        request_id += 1
        if ready is not None:
            view, timing = ready.view, ready.timing
        else:
            view = state.view(seat)
            timing = DecisionTiming(min(decision_s, max(bank[seat], 0.0)), bank[seat])
        ahead = None
        fault: FaultRecord | None = None
        sena_text: str | None = None
        t0 = clock()
        held = awaits[seat]
        stalled0 = stalls.hold() if held else stalls.stalled_s
        try:
            try:
                if timing.deadline_s <= 0:
                    raise BotFault(FaultKind.TIMEOUT, "time bank exhausted")
                if preparing[seat]:
                    decision = players[seat].decide(  # type: ignore[call-arg]
                        view, request_id, timing,
                        prepared=ready.request if ready is not None else None, while_waiting=prepare_next,
                    )
                else:
                    decision = players[seat].decide(view, request_id, timing)
                if inspect.isawaitable(decision):
                    decision = await decision
            finally:
                if held:
                    stalls.release()
            elapsed = clock() - t0 - (stalls.stalled_s - stalled0)
            if elapsed > timing.deadline_s:
                raise BotFault(FaultKind.TIMEOUT, f"answered after {elapsed * 1000:.0f} ms (deadline {timing.deadline_s * 1000:.0f} ms)")
            action: Action = decision.action
            # The expected answer was applied legally already (what_if); any other is checked.
            if (ahead is None or action != ahead.action) and not state.is_legal(action):
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
        ready = None
        # The stall credit errs for the bot (eventloop.STALL_GRACE_S): never below 0.
        elapsed = max(0.0, clock() - t0 - (stalls.stalled_s - stalled0))
        bank[seat] -= elapsed
        st = stats[seat]
        st.decisions += 1
        st.time_used_s += elapsed
        st.max_decision_s = max(st.max_decision_s, elapsed)
        hands_before = len(state.hand_results)
        if fault is None:
            seen = expected[seat]
            if len(seen) >= 1024:  # discard sets hold the cards: a new tuple each time
                seen.clear()
            seen[id(view.legal_actions)] = (view.legal_actions, action)
        if ahead is not None and fault is None and sena_text is None and action == ahead.action:
            # The answer that was expected: the next state and request are ready.
            state, ready = ahead.state, ahead
        else:
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
            if steps and on_hand is not None:  # the hand was stopped before its end
                on_hand(unfinished_hand_record(state, deal, steps, "forfeit", detail))
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
    # A game has begun once a decision of one of its hands was asked: the hand in play
    # when a forfeit stopped the match may be the first of a new game.
    begun = state.game_no if forfeit_team is not None and steps else None
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
        games=games_record(state.hand_results, begun),
    )
    vacas = (state.vacas[0], state.vacas[1])
    await _notify(players, "end_match", MatchEndInfo(winner, games, reason, detail, vacas), notify_error)
    return result_obj


@dataclass(frozen=True, slots=True)
class _Ahead:
    """The next decision, prepared while a seat thought, for the answer it was expected
    to give: the state after that answer, the next seat's view and timing, and the
    request its player built."""

    action: Action
    state: MusState
    view: SeatView
    timing: DecisionTiming
    request: object


def _prepare_ahead(
    state: MusState,
    seat: int,
    view: SeatView,
    request_id: int,
    expected: dict[int, tuple[Any, Action]],
    players: Sequence[Player],
    preparing: list[bool],
    bank: list[float],
    decision_s: float,
) -> _Ahead | None:
    """The next decision if ``seat`` answers as it did last time in the same situation
    (the same legal actions), or None when there is nothing to prepare: no such answer
    yet, the answer ends the hand (a deal follows, and the hand's end is sent first) or
    the match, the same seat acts next (its time bank is still running), or the next
    player cannot build a request ahead."""
    hit = expected.get(id(view.legal_actions))
    if hit is None or hit[0] is not view.legal_actions:
        return None
    action = hit[1]
    after = state.what_if(action)
    if after is None or after.is_terminal or len(after.hand_results) != len(state.hand_results):
        return None
    nxt = after.to_act
    if nxt is None or nxt == seat or not preparing[nxt]:
        return None
    next_view = after.view(nxt)
    timing = DecisionTiming(min(decision_s, max(bank[nxt], 0.0)), bank[nxt])
    request = players[nxt].prepare(next_view, request_id + 1, timing)  # type: ignore[attr-defined]
    return _Ahead(action, after, next_view, timing, request)


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


def games_record(results: list[HandResult], begun: int | None = None) -> list[dict[str, Any]]:
    """Per game begun, from the engine's hand results (``MatchResult.games``).

    ``begun``: the number of a game whose hand was in play when the match stopped (it
    counts as begun even if none of its hands finished). An unfinished game has
    ``winner`` and ``ended_by`` None and the scores after its last finished hand (0–0
    when none finished): dejes of a hand that never finished are not counted, as they
    are not in ``stones``.
    """
    games: list[dict[str, Any]] = []
    for r in results:
        if not games or games[-1]["game"] != r.game:
            games.append({"game": r.game, "winner": None, "scores": [0, 0], "ended_by": None})
        entry = games[-1]
        entry["scores"] = list(r.scores_after)
        if r.game_over:
            entry["winner"], entry["ended_by"] = r.game_winner, r.ended_by
    if begun is not None and (not games or games[-1]["game"] != begun):
        games.append({"game": begun, "winner": None, "scores": [0, 0], "ended_by": None})
    return games


def _stones(results: list[HandResult]) -> tuple[int, int]:
    """Stones scored over the match: each hand's score gain (a new game starts at 0)."""
    out = [0, 0]
    for r in results:
        for t in (0, 1):
            out[t] += r.scores_after[t] - r.scores_before[t]
    return (out[0], out[1])


def hand_record(result: HandResult, deal: dict[str, Any], steps: list[dict[str, Any]]) -> dict[str, Any]:
    """The hand log's record of one finished hand (schema in docs/handlog.md)."""
    return {
        "type": "hand",
        "game": result.game,
        "hand": result.hand,
        "finished": True,
        "deal": deal,
        "steps": steps,
        "result": result_to_json(result),
    }


def unfinished_hand_record(
    state: MusState, deal: dict[str, Any], steps: list[dict[str, Any]], reason: str, detail: str
) -> dict[str, Any]:
    """The hand log's record of a hand the match stopped in (docs/handlog.md): its deal,
    the steps played (faults included), ``"finished": false`` and ``stopped``: why
    (``reason``, ``detail``) and where (the phase or lance, the seat that was to act
    next, the scores then, dejes of the hand included). No ``result``: nothing was
    counted."""
    lance = state.current_lance
    return {
        "type": "hand",
        "game": state.game_no,
        "hand": state.hand_no,
        "finished": False,
        "deal": deal,
        "steps": steps,
        "stopped": {
            "reason": reason,
            "detail": detail,
            "phase": lance.name.lower() if lance is not None else state.phase.name.lower(),
            "to_act": state.to_act,
            "scores": list(state.scores),
        },
    }
