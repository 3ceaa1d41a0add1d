"""A match as a pure state machine: the referee's logic, once, with no I/O and no clock.

A :class:`MatchSession` says which seat must act and what it may see (:attr:`turn`),
takes the seat's answer with the time it took (:meth:`~MatchSession.answer`) or the
fault a driver saw (:meth:`~MatchSession.fault`), applies the fault policy
(:mod:`arena.referee.policy`), and queues what happened for the driver
(:meth:`~MatchSession.events`): finished hands with their hand-log records, faults.
When :attr:`turn` is None the match is over: :meth:`~MatchSession.result`.

Everything that talks to players is a *driver* of a session: :func:`arena.driver.match.play_match`
(bot processes over gRPC and in-process players, for ``mus match``, leagues and
``mus check``), and anything later (a human seat in a terminal, a cluster worker). A
driver's loop is::

    session = MatchSession(config, names)
    while (turn := session.turn) is not None:
        ...ask players[turn.seat] for turn.view, measure the time...
        session.answer(decision, elapsed_s)       # or session.fault(kind, detail, elapsed_s)
        for event in session.events(): ...       # hand ends to log and announce, faults

Time is the driver's to measure; the session only compares it with the turn's deadline
and charges it to the seat's time bank. A seat whose bank is spent is not asked: the
session records the timeout and plays the safe default itself.

Pipelining. A driver may build the next request while a seat thinks. It asks
:meth:`~MatchSession.predict` for the turn that would follow a guessed answer (pure:
the session's state does not change); if the answer that comes is that guess, with no
seña and no fault, :meth:`~MatchSession.answer` adopts the predicted state and the
session's next :attr:`turn` *is* the predicted turn object, so the driver can send
what it prepared for it. Nothing is predicted across a hand's end (a new deal draws
from the random streams), at the match's end, or when the same seat acts next (its
time bank is still running).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from mus_core import (
    Action,
    HandResult,
    IllegalActionError,
    IllegalSignalError,
    MatchEndReason,
    Rules,
    format_legal,
)
from mus_core.state import MusState

from arena.records.handlog import deal_record, hand_record, step_record, unfinished_hand_record
from arena.records.results import ended_by_text
from arena.referee.player import (
    Decision,
    DecisionTiming,
    FaultKind,
    FaultRecord,
    MatchEndInfo,
    MatchStartInfo,
    SeatStats,
    Turn,
)
from arena.referee.policy import default_action

FAULT_DETAIL_CHARS = 500
"""Characters of a fault's detail kept in the hand log and the result."""


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
    max_decisions_per_hand: int = 500
    """Guard against a hand that never ends. The rules allow two: all four seats keep
    asking for mus (without ``max_mus_rounds`` the discards go round for ever,
    reshuffling), or every answer to a bet is a raise (without ``max_stake`` the stake
    grows for ever). A hand of other bots takes a few dozen decisions (the longest of
    8,340 hands of uniformly random play: 42); at this limit the match is aborted, as at
    ``max_hands``."""
    prepare_ahead: bool = True
    """Whether drivers build the next request while a bot thinks (see "Pipelining" in
    :mod:`arena.referee.session`); it never changes what happens, only the time."""


@dataclass
class MatchResult:
    """How a match ended."""

    match_id: str
    seed: int
    winner_team: int | None
    games_won: tuple[int, int]
    reason: MatchEndReason
    hands: int
    stones: tuple[int, int]
    """Stones scored per team over the match (all games)."""
    seats: list[SeatStats]
    detail: str = ""
    games: list[dict[str, Any]] = field(default_factory=list)
    """Per game begun, in order: ``game`` (its number), ``winner`` (the team, None if the
    match stopped first), ``scores`` (at its end; for an unfinished game, after its last
    finished hand) and ``ended_by`` (how the hand that ended it ended, as logged: e.g.
    ``count``, ``count:chica``, ``deje:pares``, ``ordago:grande``; None if unfinished).
    See :func:`games_record`."""

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
            "reason": self.reason.value,
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


@dataclass(frozen=True, slots=True)
class HandEnded:
    """A hand finished: its record for the hand log, and the result to tell every seat."""

    record: dict[str, Any]
    result: HandResult


@dataclass(frozen=True, slots=True)
class HandStopped:
    """The match stopped (a forfeit) in the middle of a hand: the hand's record, marked
    unfinished (:func:`unfinished_hand_record`). Nothing is told to the seats."""

    record: dict[str, Any]


@dataclass(frozen=True, slots=True)
class Faulted:
    """A seat committed a fault, already dealt with: its safe default was played (for
    an illegal seña, the seña was dropped and the action counted)."""

    fault: FaultRecord


SessionEvent = HandEnded | HandStopped | Faulted
"""What :meth:`MatchSession.events` gives, in the order it happened."""


@dataclass(frozen=True, slots=True)
class _Prediction:
    action: Action
    state: MusState
    turn: Turn


class MatchSession:
    """One match being refereed; see the module docstring.

    Args:
        config: the match's settings.
        names: one name per seat (for the start notification and forfeit details).

    Raises:
        ValueError: not one name per seat of ``config.rules``.
    """

    def __init__(self, config: MatchConfig, names: Sequence[str]) -> None:
        rules = config.rules
        if len(names) != rules.players:
            raise ValueError(f"{rules.players} players needed, got {len(names)}")
        self.config = config
        self.names = tuple(names)
        self._state = MusState.new(rules, seed=config.seed, first_dealer=config.first_dealer)
        self._stats = [SeatStats() for _ in names]
        self._bank = [config.time_bank_ms / 1000.0] * len(names)
        self._decision_s = config.decision_ms / 1000.0
        self._request_id = 0
        self._steps: list[dict[str, Any]] = []
        self._deal = deal_record(self._state)
        self._events: list[SessionEvent] = []
        self._forfeit_team: int | None = None
        self._detail = ""
        self._prediction: _Prediction | None = None
        self._turn: Turn | None = None
        self._result: MatchResult | None = None
        self._advance(None)

    # ------------------------------------------------------------------ what the driver reads

    @property
    def turn(self) -> Turn | None:
        """The decision to ask now; None when the match is over."""
        return self._turn

    def start_info(self, seat: int) -> MatchStartInfo:
        """What ``seat`` is told when the match starts."""
        c = self.config
        return MatchStartInfo(c.match_id, seat, c.rules, self.names, c.decision_ms, c.time_bank_ms)

    @property
    def deal(self) -> dict[str, Any]:
        """The current hand's deal as the hand log records it (dealer, mano, every seat's
        cards, the stock, the scores); empty once the match is over."""
        return dict(self._deal)

    def events(self) -> list[SessionEvent]:
        """What happened since the last call, in order (and forget it)."""
        out, self._events = self._events, []
        return out

    # ------------------------------------------------------------------ what the driver tells

    def answer(self, decision: Decision, elapsed_s: float) -> None:
        """The seat to act answered ``decision`` after ``elapsed_s`` seconds of its own
        time (the driver leaves out the arena's stalls). A late answer is a TIMEOUT, an
        illegal one an ILLEGAL_ACTION (the safe default is played instead); an illegal
        seña is dropped, with an ILLEGAL_SENA fault, and the action still counts.

        Raises:
            RuntimeError: the match is over.
        """
        turn = self._current()
        action = decision.action
        prediction = self._prediction
        if elapsed_s > turn.timing.deadline_s:
            deadline_ms = turn.timing.deadline_s * 1000
            self.fault(FaultKind.TIMEOUT, f"answered after {elapsed_s * 1000:.0f} ms (deadline {deadline_ms:.0f} ms)",
                       elapsed_s)
            return
        # A predicted action was applied legally already (MusState.what_if); any other is checked.
        if (prediction is None or action != prediction.action) and not self._state.is_legal(action):
            legal = format_legal(turn.view.legal_actions)
            self.fault(FaultKind.ILLEGAL_ACTION, f"{action} is not legal (legal: {legal})", elapsed_s)
            return
        fault: FaultRecord | None = None
        sena_text: str | None = None
        if decision.sena is not None:
            try:
                self._state.give_sena(turn.seat, decision.sena)
                sena_text = decision.sena.name.lower()
            except IllegalSignalError as exc:
                fault = self._fault_record(turn, FaultKind.ILLEGAL_SENA, str(exc))
        adopt = prediction is not None and fault is None and sena_text is None and action == prediction.action
        self._play(turn, action, elapsed_s, fault, sena_text, prediction if adopt else None)

    def fault(self, kind: FaultKind, detail: str, elapsed_s: float) -> None:
        """The seat to act committed a fault the driver saw (no answer in time, a dead
        bot, garbage, an error of the bot's own): record it and play the safe default.

        Raises:
            RuntimeError: the match is over.
        """
        turn = self._current()
        self._play(turn, default_action(self._state), elapsed_s, self._fault_record(turn, kind, detail), None, None)

    def predict(self, action: Action) -> Turn | None:
        """The turn that follows if the seat to act answers ``action``, or None when
        nothing can be predicted (an illegal action, the hand or the match would end, the
        same seat acts next). Pure: the match does not change; see "Pipelining" in the
        module docstring. Only the last prediction is kept."""
        turn = self._turn
        self._prediction = None
        if turn is None:
            return None
        state = self._state
        after = state.what_if(action)
        if after is None or after.is_terminal or len(after.hand_results) != len(state.hand_results):
            return None
        seat = after.to_act
        if seat is None or seat == turn.seat:
            return None
        nxt = Turn(seat, turn.request_id + 1, after.view(seat), self._timing(seat))
        if nxt.timing.deadline_s <= 0:
            return None  # that seat will not be asked (its bank is spent)
        self._prediction = _Prediction(action, after, nxt)
        return nxt

    # ------------------------------------------------------------------ the end

    @property
    def is_over(self) -> bool:
        """Whether the match is over (no turn is left)."""
        return self._turn is None

    def result(self) -> MatchResult:
        """How the match ended (call it when :attr:`is_over`; built once, then the same object)."""
        if self._result is not None:
            return self._result
        state = self._state
        if self._forfeit_team is not None:
            winner: int | None = 1 - self._forfeit_team
            reason = MatchEndReason.FORFEIT
        elif state.is_terminal:
            winner, reason = state.match_winner, MatchEndReason.COMPLETED
        else:
            winner, reason = None, MatchEndReason.ABORTED
        # A game has begun once a decision of one of its hands was asked: the hand in
        # play when a forfeit stopped the match may be the first of a new game.
        begun = state.game_no if self._forfeit_team is not None and self._steps else None
        result = MatchResult(
            match_id=self.config.match_id,
            seed=self.config.seed,
            winner_team=winner,
            games_won=_games_won(state.hand_results),
            reason=reason,
            hands=len(state.hand_results),
            stones=_stones(state.hand_results),
            seats=self._stats,
            detail=self._detail,
            games=games_record(state.hand_results, begun),
        )
        if self._turn is None:  # over: nothing can change it any more
            self._result = result
        return result

    def end_info(self) -> MatchEndInfo:
        """What every seat is told when the match is over."""
        result = self.result()
        vacas = self._state.vacas
        return MatchEndInfo(result.winner_team, result.games_won, result.reason, result.detail, (vacas[0], vacas[1]))

    # ------------------------------------------------------------------ inside

    def _current(self) -> Turn:
        if self._turn is None:
            raise RuntimeError("the match is over: no seat is to act")
        return self._turn

    def _timing(self, seat: int) -> DecisionTiming:
        bank = self._bank[seat]
        return DecisionTiming(min(self._decision_s, max(bank, 0.0)), bank)

    def _fault_record(self, turn: Turn, kind: FaultKind, detail: str) -> FaultRecord:
        state = self._state
        return FaultRecord(turn.seat, kind, detail[:FAULT_DETAIL_CHARS], state.game_no, state.hand_no, turn.request_id)

    def _play(self, turn: Turn, action: Action, elapsed_s: float, fault: FaultRecord | None,
              sena_text: str | None, prediction: _Prediction | None) -> None:
        """Play the seat's step and move on to the next turn."""
        self._prediction = None
        if not self._step(turn, action, elapsed_s, fault, sena_text, prediction):
            self._advance(prediction.turn if prediction is not None else None)

    def _step(self, turn: Turn, action: Action, elapsed_s: float, fault: FaultRecord | None,
              sena_text: str | None, prediction: _Prediction | None) -> bool:
        """Charge the time, apply the action (or adopt the prediction) and log the step.
        Returns whether the match stopped (a forfeit)."""
        seat = turn.seat
        elapsed_s = max(0.0, elapsed_s)
        self._bank[seat] -= elapsed_s
        st = self._stats[seat]
        st.decisions += 1
        st.time_used_s += elapsed_s
        st.max_decision_s = max(st.max_decision_s, elapsed_s)
        state = self._state
        hands_before = len(state.hand_results)
        if prediction is not None:
            state = self._state = prediction.state
        else:
            try:
                state.apply(action)
            except IllegalActionError as exc:  # pragma: no cover - the default is always legal
                raise AssertionError(f"referee default action illegal: {exc}") from exc
        self._steps.append(step_record(seat, turn.request_id, str(action), elapsed_s, sena_text,
                                       (fault.kind.value, fault.detail) if fault is not None else None))
        if fault is not None:
            st.faults.append(fault)
            self._events.append(Faulted(fault))
        if len(state.hand_results) > hands_before:
            result = state.hand_results[-1]
            self._events.append(HandEnded(hand_record(result, self._deal, self._steps), result))
            self._steps = []
            self._deal = deal_record(state) if not state.is_terminal else {}
        max_faults = self.config.max_faults
        if fault is not None and max_faults and len(st.faults) >= max_faults:
            self._forfeit_team = seat & 1
            self._detail = f"S{seat} ({self.names[seat]}) reached {len(st.faults)} faults"
            if self._steps:  # the hand was stopped before its end
                self._events.append(HandStopped(
                    unfinished_hand_record(state, self._deal, self._steps, MatchEndReason.FORFEIT.value, self._detail)))
            self._turn = None
            return True
        return False

    def _advance(self, predicted: Turn | None) -> None:
        """Set the next turn (``predicted``, when the prediction came true). A seat whose
        time bank is spent is not asked: its timeout is recorded here, and the match
        moves on (a loop, not a recursion: every seat's bank may be spent)."""
        while True:
            state = self._state
            if state.is_terminal:
                self._turn = None
                return
            if state.hand_no >= self.config.max_hands:
                self._detail = f"stopped after {self.config.max_hands} hands"
                self._turn = None
                return
            if len(self._steps) >= self.config.max_decisions_per_hand:
                lance, bet = state.current_lance, state.bet
                why = (f"the betting on {lance} never ended (stake {bet.stake if bet else 0}): every answer raised"
                       if lance is not None else
                       f"{state.discard_round} rounds of discards: no seat cut the mus")
                self._detail = f"stopped after {len(self._steps)} decisions in hand {state.hand_no + 1}, {why}"
                self._events.append(HandStopped(unfinished_hand_record(
                    state, self._deal, self._steps, MatchEndReason.ABORTED.value, self._detail)))
                self._turn = None
                return
            seat = state.to_act
            assert seat is not None  # a match that is not over has a seat to act
            self._request_id += 1
            turn = predicted or Turn(seat, self._request_id, state.view(seat), self._timing(seat))
            self._turn = turn
            if turn.timing.deadline_s > 0:
                return
            fault = self._fault_record(turn, FaultKind.TIMEOUT, "time bank exhausted")
            if self._step(turn, default_action(state), 0.0, fault, None, None):
                return
            predicted = None


def _games_won(results: Sequence[HandResult]) -> tuple[int, int]:
    won = [0, 0]
    for r in results:
        if r.game_over and r.game_winner is not None:
            won[r.game_winner] += 1
    return (won[0], won[1])


def games_record(results: Sequence[HandResult], begun: int | None = None) -> list[dict[str, Any]]:
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
            entry["winner"], entry["ended_by"] = r.game_winner, ended_by_text(r.ended_by)
    if begun is not None and (not games or games[-1]["game"] != begun):
        games.append({"game": begun, "winner": None, "scores": [0, 0], "ended_by": None})
    return games


def _stones(results: Sequence[HandResult]) -> tuple[int, int]:
    """Stones scored over the match: each hand's score gain (a new game starts at 0)."""
    out = [0, 0]
    for r in results:
        for t in (0, 1):
            out[t] += r.scores_after[t] - r.scores_before[t]
    return (out[0], out[1])
