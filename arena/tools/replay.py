"""Replaying hand logs through the engine: verify them, show them, re-ask a bot.

A log holds the seed and every action (señas included), so the engine reproduces the
match exactly; :func:`replay` walks it hand by hand and reports every difference
between what the log says and what the rules give.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from mus_core import (
    Action,
    Card,
    EventKind,
    IllegalActionError,
    IllegalSignalError,
    Observation,
    Rules,
    Sena,
    format_cards,
    parse_cards,
)
from mus_core.state import MusState

from arena.records.handlog import HandLog
from arena.records.results import result_to_json


@dataclass
class ReplayedStep:
    """One logged step, re-applied."""

    index: int
    seat: int
    action: str
    sena: str | None
    sena_visible: tuple[bool, ...]
    """Per seat, whether that seat saw the seña."""
    ms: float | None
    fault: dict[str, Any] | None
    view: Observation | None = None
    """The acting seat's view before the step (only when asked for)."""
    phase: str = ""
    """``mus``, ``discard`` or the lance being bet (``grande`` …) when the step was taken."""
    request_id: int | None = None
    """The decision request's id in the match (the step's ``id``; None in a log without it)."""
    hands_after: list[str] | None = None
    """Every seat's cards after the step, when the step changed them (the discard that
    ends a discard round: the replacements are dealt); None otherwise."""


@dataclass
class ReplayedHand:
    """One logged hand, re-played."""

    number: int
    game: int
    dealer: int
    mano: int
    hands: list[str]
    steps: list[ReplayedStep]
    logged_result: dict[str, Any]
    result: Any = None
    """The engine's HandResult for this hand (None if the replay broke off)."""
    mismatches: list[str] = field(default_factory=list)
    rebuilt: bool = False
    """True when the hand was re-played from its own logged deal, because an earlier
    hand's record is missing or broken (its deal then cannot be checked against the seed)."""
    finished: bool = True
    """False for the hand a forfeit stopped (``"finished": false`` in the log)."""
    stopped: dict[str, Any] | None = None
    """Why and where an unfinished hand stopped, as logged (``reason``, ``detail``, ``phase``,
    ``to_act``, ``scores``)."""


def sena_seen_by(state: MusState, seat: int) -> tuple[bool, ...]:
    """Which seats saw the seña ``seat`` just gave: those whose own view of the hand ends
    with it (the engine's visibility rule; ``mus replay --seat`` and the report's seat
    view both show a seña only to these)."""
    return tuple(bool((h := state.view(s).history) and h[-1].kind is EventKind.SIGNAL and h[-1].seat == seat)
                 for s in range(state.n))


def _rules(header: dict[str, Any]) -> Rules:
    return Rules.from_mapping(dict(header.get("rules", {})))


def _rebuild(rules: Rules, seed: int, rec: dict[str, Any], games: list[int]) -> MusState:
    """A state at the start of ``rec``'s hand, from the deal it logged."""
    deal = rec["deal"]
    return MusState.from_deal(
        rules,
        [parse_cards(h) for h in deal["hands"]],
        mano=int(deal["mano"]),
        stock=parse_cards(deal["stock"]),
        scores=(int(deal["scores"][0]), int(deal["scores"][1])),
        games_won=(games[0], games[1]),
        seed=seed,
        hand_no=int(rec["hand"]),
        game_no=int(rec["game"]),
    )


def _replacements(before: tuple[tuple[Card, ...], ...], state: MusState, results_before: int) -> list[str] | None:
    """Every seat's cards once a discard round's replacements are dealt (after the step
    that ended the round: the hands changed, and all have their full count again)."""
    after = state.hands
    if after == before or len(state.hand_results) != results_before or len({len(h) for h in after}) != 1:
        return None
    return [format_cards(h) for h in after]


def replay(log: HandLog, *, with_views: bool = False) -> Iterator[ReplayedHand]:
    """Re-play a log hand by hand; each hand carries its mismatches (empty when the log
    agrees with the rules). The match is re-played from its seed; after a missing or
    broken hand record, each later hand is re-played from its own logged deal."""
    header = log.header
    rules = _rules(header)
    seed = int(header.get("seed", 0))
    # Logs of schema 1 were dealt from mano even after a mus_corrido cut had moved it.
    legacy = int(header.get("schema", 1)) < 2
    state = MusState.new(rules, seed=seed, first_dealer=header.get("first_dealer"), deal_from_mano=legacy)
    games = [0, 0]
    in_sync = True
    for rec in log.hands:
        deal = rec.get("deal", {})
        rebuilt = False
        if not in_sync or rec.get("hand") != state.hand_no:
            try:
                state = _rebuild(rules, seed, rec, games)
                rebuilt = True
            except (KeyError, ValueError, TypeError, IndexError) as exc:
                yield ReplayedHand(
                    number=int(rec.get("hand", -1)), game=int(rec.get("game", -1)), dealer=-1, mano=-1, hands=[],
                    steps=[], logged_result=rec.get("result", {}),
                    mismatches=[f"hand {rec.get('hand')}: cannot re-play it from its logged deal ({exc})"],
                )
                in_sync = False
                continue
        finished = rec.get("finished", True) is not False  # schema 1: every hand finished
        hand = ReplayedHand(
            number=state.hand_no, game=state.game_no, dealer=state.dealer, mano=state.mano,
            hands=[format_cards(h) for h in state.hands], steps=[], logged_result=rec.get("result") or {},
            rebuilt=rebuilt, finished=finished, stopped=rec.get("stopped") if not finished else None,
        )
        if not rebuilt and deal and (deal.get("hands") != hand.hands or deal.get("dealer") != state.dealer):
            hand.mismatches.append(f"hand {state.hand_no}: the deal differs from the seed's (log {deal.get('hands')}, engine {hand.hands})")
        results_before = len(state.hand_results)
        broken = _apply_steps(hand, rec, state, with_views, results_before) or \
            _check_end(hand, state, finished, results_before)
        logged = hand.logged_result
        if logged.get("game_over") and logged.get("game_winner") in (0, 1):
            games[logged["game_winner"]] += 1
            if games[logged["game_winner"]] >= rules.games_to_win:
                games = [0, 0]  # a vaca is won: the games count starts again
        # A rebuilt state's random stream is not the match's: once one hand had to be
        # rebuilt (or could not be applied), every later hand is rebuilt from its deal.
        in_sync = in_sync and not rebuilt and not broken
        yield hand


def _phase(state: MusState) -> str:
    """The lance being played, or else the phase (``mus``, ``discard``...), lower case."""
    lance = state.current_lance
    return lance.name.lower() if lance is not None else state.phase.name.lower()


def _apply_steps(hand: ReplayedHand, rec: dict[str, Any], state: MusState, with_views: bool,
                 results_before: int) -> bool:
    """Apply the hand record's steps to ``state``, adding each to ``hand.steps``; True
    (with a mismatch) if one is logged for the wrong seat or cannot be applied."""
    for i, step in enumerate(rec.get("steps", [])):
        seat = step.get("seat")
        if seat != state.to_act:
            hand.mismatches.append(f"hand {hand.number} step {i}: logged seat S{seat}, but S{state.to_act} is to act")
            return True
        view = state.view(seat) if with_views else None
        phase = _phase(state)
        visible: tuple[bool, ...] = ()
        sena_name = step.get("sena")
        hands_before = state.hands
        try:
            if sena_name:
                state.give_sena(seat, Sena[sena_name.upper()])
                visible = sena_seen_by(state, seat)
            state.apply(Action.parse(step["action"]))
        except (IllegalActionError, IllegalSignalError, ValueError, KeyError) as exc:
            hand.mismatches.append(f"hand {hand.number} step {i}: S{seat} {step.get('action')!r} cannot be applied: {exc}")
            return True
        hand.steps.append(
            ReplayedStep(i, seat, step["action"], sena_name, visible, step.get("ms"), step.get("fault"), view, phase,
                         step.get("id") if isinstance(step.get("id"), int) else None,
                         _replacements(hands_before, state, results_before))
        )
    return False


def _check_end(hand: ReplayedHand, state: MusState, finished: bool, results_before: int) -> bool:
    """Compare how the steps left the hand with the log: finished with the logged result,
    or (a hand the match stopped in) unfinished where the log says it stopped. Sets
    ``hand.result``; True if nothing can follow this hand (a mismatch, or a stopped hand)."""
    if not finished:
        # A hand the match stopped in: its steps must leave it unfinished, and
        # it must agree with where the log says it stopped.
        if len(state.hand_results) != results_before:
            hand.mismatches.append(f"hand {hand.number}: logged as unfinished, but its steps finish it")
        else:
            stopped = hand.stopped or {}
            where = {"phase": _phase(state), "to_act": state.to_act, "scores": list(state.scores)}
            diffs = [k for k, v in where.items() if stopped.get(k) != v]
            if diffs:
                hand.mismatches.append(f"hand {hand.number}: where it stopped differs in {', '.join(diffs)}")
        return True  # nothing can follow it
    if len(state.hand_results) == results_before:
        hand.mismatches.append(f"hand {hand.number}: the logged steps do not finish the hand")
        return True
    hand.result = state.hand_results[-1]
    got = result_to_json(hand.result)
    if got != hand.logged_result:
        diffs = [k for k in got if got.get(k) != hand.logged_result.get(k)]
        hand.mismatches.append(f"hand {hand.number}: result differs in {', '.join(diffs)}")
    return False


def verify(log: HandLog) -> list[str]:
    """Every mismatch between the log and a re-play through the engine (empty = valid)."""
    problems = [f"corrupt {e}" for e in log.errors]
    hands = 0
    for hand in replay(log):
        problems.extend(hand.mismatches)
        hands += 1
    finished = [h for h in log.hands if h.get("finished", True) is not False]
    for rec in log.hands[:-1]:
        if rec.get("finished", True) is False:
            problems.append(f"hand {rec.get('hand')} is logged as unfinished but is not the last hand")
    if log.footer is not None:
        res = log.footer.get("result", {})
        # The footer counts finished hands; an unfinished one is logged besides.
        if res.get("hands") is not None and res.get("hands") != len(finished):
            problems.append(f"footer says {res.get('hands')} hands, the log holds {len(finished)} finished")
        logged = {h.get("hand") for h in log.hands}
        # Schema 1 logs did not hold the hand a forfeit stopped: only newer ones must.
        schema2 = int(log.header.get("schema", 1)) >= 2
        for f in res.get("faults", []) if schema2 else []:
            if isinstance(f, dict) and f.get("hand") not in logged:
                problems.append(f"footer lists a fault of S{f.get('seat')} in hand {f.get('hand')}, "
                                "which the log does not hold")
    return problems


def format_hand(hand: ReplayedHand, seat: int | None = None, echo: Callable[[str], None] = print) -> None:
    """Print one replayed hand; with ``seat``, only what that seat saw before the showdown."""
    echo(f"── hand {hand.number} (game {hand.game}) · dealer S{hand.dealer} · mano S{hand.mano}")
    for s, cards in enumerate(hand.hands):
        if seat is None or s == seat:
            echo(f"   S{s} (T{s & 1}) dealt: {cards}")
    for st in hand.steps:
        action = st.action
        if seat is not None and st.seat != seat and action.startswith("discard"):
            count = len(action.split()) - 1
            action = f"discard {count} card{'s' if count != 1 else ''}"
        sena = ""
        if st.sena and (seat is None or st.seat == seat or (st.sena_visible and st.sena_visible[seat])):
            sena = f"  [seña: {st.sena}]"
        timing = f"  {st.ms:.1f} ms" if st.ms is not None else ""
        # A bot_error's detail goes on with its traceback's lines: indent them under the step.
        fault = f"  FAULT {st.fault['kind']}: {st.fault.get('detail', '')}".replace("\n", "\n         ") if st.fault else ""
        echo(f"   {st.index:>3}  {st.phase:<8} S{st.seat}  {action}{sena}{timing}{fault}")
        if st.hands_after is not None:  # the replacements were dealt: each seat's new cards
            for s, cards in enumerate(st.hands_after):
                if seat is None or s == seat:
                    echo(f"        S{s} (T{s & 1}) now holds: {cards}")
    if hand.result is not None:
        from arena.records.results import format_result

        for line in format_result(hand.result).splitlines()[1:]:
            echo("   " + line.strip() if line.startswith("  S") else "  " + line)
    if not hand.finished:
        stop = hand.stopped or {}
        scores = stop.get("scores") or ["?", "?"]
        echo(f"   UNFINISHED: the match stopped here ({stop.get('reason', '?')}: {stop.get('detail', '')}); "
             f"in {stop.get('phase', '?')}, S{stop.get('to_act')} to act, scores T0 {scores[0]} - T1 {scores[1]}; "
             "nothing was counted")
    for m in hand.mismatches:
        echo(f"   MISMATCH: {m}")
