"""Engine values <-> ``mus.v1`` protobuf messages: the thin translation layer.

The engine's values are :mod:`mus_core`'s, the SDK's too, so most conversions are the
SDK's own (:mod:`mus_sdk.convert`) and every enum number comes from
:mod:`mus_sdk.protomap`, the one mapping; a card's proto rank/suit are the core's + 1.
What is here is the arena's side: decision requests built from the engine's
:class:`~mus_core.state.Observation` (message by message; the referee's byte-level
builder is :mod:`arena.remote.encoder`), and the notifications. Bot answers are untrusted: :func:`action_from_pb`
raises :class:`WireError` on anything malformed, and the referee turns that into a
fault.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from mus.v1 import bot_service_pb2 as svc
from mus.v1 import game_pb2 as pb
from mus_core import HandResult, Observation, Rules, Sena
from mus_core.state import MusState
from mus_sdk import convert as sdk
from mus_sdk.protomap import to_proto
from mus_sdk.types import MatchEnd, MatchEndReason, MatchInfo

if TYPE_CHECKING:
    import mus_sdk


WireError = sdk.ConversionError
"""Raised when a message from a bot cannot be read as a valid value (the SDK's
:class:`~mus_sdk.convert.ConversionError`: one reader for both sides)."""

MAX_AMOUNT = sdk.MAX_AMOUNT
"""Largest envido accepted on the wire: a sanity bound against garbage, far above any stake."""

pb_enum = to_proto
"""Proto number of a core enum member (typed ``Any``: see :func:`mus_sdk.protomap.to_proto`)."""

_add_cards = sdk.extend_cards
fill_action = sdk.fill_action
fill_legal = sdk.fill_legal
action_from_pb = sdk.action_from_proto
"""Read a bot's action. Raises :class:`WireError`: no action set, a bad card, or an absurd amount."""
event_to_pb = sdk.event_to_proto
rules_to_pb = sdk.rules_to_proto


def sena_from_pb(value: int) -> Sena:
    """Read a seña number.

    Raises:
        WireError: unspecified or unknown.
    """
    return sdk.enum_from_proto(Sena, value, "seña")


def decision_request(
    view: Observation,
    request_id: int,
    match_id: str,
    deadline_ms: int,
    time_bank_ms: int,
    rules_pb: pb.Rules,
) -> svc.DecisionRequest:
    """The self-contained decision request for the seat of ``view`` (games and vacas
    won are the view's: the engine's count)."""
    req = svc.DecisionRequest()
    fill_decision_request(req, view, request_id, match_id, deadline_ms, time_bank_ms, rules_pb)
    return req


def fill_decision_request(
    req: svc.DecisionRequest,
    view: Observation,
    request_id: int,
    match_id: str,
    deadline_ms: int,
    time_bank_ms: int,
    rules_pb: pb.Rules,
) -> None:
    """Fill an empty ``DecisionRequest`` in place (e.g. inside a ``PlayRequest``), so the
    message is built once and never copied. The field-by-field oracle of the referee's
    byte-level :class:`arena.remote.encoder.RequestEncoder` (a property test compares them)."""
    req.request_id = request_id
    req.seat = view.seat
    req.phase = pb_enum(view.phase)
    if view.lance is not None:
        req.lance = pb_enum(view.lance)
    req.mano = view.mano
    req.dealer = view.dealer
    req.scores.extend(view.scores)
    req.deadline_ms = deadline_ms
    req.time_bank_ms = max(0, time_bank_ms)
    req.discard_round = view.discard_round
    req.match_id = match_id
    req.game = view.game
    req.hand = view.hand
    req.games_won.extend(view.games_won)
    req.target_points = view.rules.target_points
    req.vacas_won.extend(view.vacas_won)
    if view.legal_senas:
        req.legal_senas.extend([pb_enum(s) for s in view.legal_senas])
    req.rules.CopyFrom(rules_pb)
    _add_cards(req.cards, view.cards)
    if view.own_discards:
        _add_cards(req.own_discards, view.own_discards)
    fill_legal(req.legal_actions, view.legal_actions)
    bet = view.bet
    if bet is not None:
        b = req.bet
        b.team = bet.team
        b.seat = bet.seat
        b.stake = bet.stake
        b.deje = bet.deje
        b.is_ordago = bet.is_ordago
    req.history.extend([event_to_pb(e) for e in view.history])


def request_for(
    state: MusState,
    seat: int | None = None,
    *,
    request_id: int = 1,
    match_id: str = "match",
    deadline_ms: int = 2000,
    time_bank_ms: int = 120_000,
) -> svc.DecisionRequest:
    """The ``DecisionRequest`` the arena sends ``seat`` (by default the seat to act) in
    ``state``: built by the same code as a match's requests, from ``state.view(seat)``.

    For tests and tools (a bot author's unit tests, replays); the referee builds its
    requests with :class:`arena.remote.encoder.RequestEncoder`.

    Raises:
        ValueError: no seat is to act (the match is over) and none is given, or there is
            no such seat.
    """
    if seat is None:
        seat = state.to_act
        if seat is None:
            raise ValueError("no seat is to act: the match is over (name a seat)")
    view = state.view(seat)
    return decision_request(view, request_id, match_id, deadline_ms, time_bank_ms, rules_to_pb(state.rules))


def observation_for(
    state: MusState,
    seat: int | None = None,
    *,
    request_id: int = 1,
    match_id: str = "match",
    deadline_ms: int = 2000,
    time_bank_ms: int = 120_000,
) -> mus_sdk.Observation:
    """The ``mus_sdk.Observation`` a Python bot's ``decide`` receives for ``seat`` (by
    default the seat to act) in ``state``: :func:`request_for`, converted by the SDK's
    own :func:`mus_sdk.convert.observation_from_proto`, as a bot process converts it.

    Lets a bot author test ``decide`` on positions set up with the engine::

        state = MusState.from_deal(Rules(), hands, mano=0)   # hands: four lists of cards
        action = MyBot().decide(observation_for(state))

    It needs the arena installed (the SDK alone does not import the arena). A seat that
    is not to act gets an observation with no legal actions (``legal_actions`` empty), which a
    real request never has.

    Raises:
        ValueError: as :func:`request_for`.
    """
    # Imported here: importing mus_sdk tunes and imports grpc, which the wire layer's
    # other users (the referee's players) do not need at import time.
    from mus_sdk.convert import observation_from_proto

    return observation_from_proto(
        request_for(state, seat, request_id=request_id, match_id=match_id, deadline_ms=deadline_ms,
                    time_bank_ms=time_bank_ms)
    )


def match_start_pb(
    match_id: str, seat: int, rules: Rules, seat_names: Sequence[str], decision_ms: int, time_bank_ms: int,
    protocol_version: int = 1,
) -> svc.MatchStart:
    """The match-start notification for one seat."""
    n = rules.players
    return sdk.match_info_to_proto(MatchInfo(
        match_id=match_id,
        seat=seat,
        partners=tuple(s for s in range(n) if s != seat and (s & 1) == (seat & 1)),
        num_seats=n,
        rules=rules,
        time_bank_ms=time_bank_ms,
        decision_deadline_ms=decision_ms,
        protocol_version=protocol_version,
        seat_names=tuple(seat_names),
    ))


def match_end_pb(
    winner_team: int | None, games_won: Sequence[int], reason: MatchEndReason, detail: str,
    vacas_won: Sequence[int] = (0, 0),
) -> svc.MatchEnd:
    """The match-end notification: ``games_won`` over the whole match, ``vacas_won``
    as the engine counted them."""
    return sdk.match_result_to_proto(MatchEnd(tuple(games_won), winner_team, reason, detail, tuple(vacas_won)))


def hand_end_pb(result: HandResult) -> svc.HandEnd:
    """The end-of-hand notification: every hand revealed and the itemised count, and
    the games won in the current vaca after the hand as the engine counts them (0–0
    again after a hand that won a vaca, as the next decision request says)."""
    return sdk.hand_summary_to_proto(result)


_last_hand_end: tuple[HandResult | None, bytes] = (None, b"")


def hand_end_request_bytes(result: HandResult) -> bytes:
    """A serialized ``PlayRequest`` holding :func:`hand_end_pb`.

    Every seat gets the same notification, so the last one is kept and reused (building
    it costs ~40 µs, four times per hand otherwise). The cache is one tuple, replaced
    whole, so threads refereeing other matches never see a torn entry.
    """
    global _last_hand_end
    last = _last_hand_end
    if last[0] is result:
        return last[1]
    data: bytes = svc.PlayRequest(hand_end=hand_end_pb(result)).SerializeToString()
    _last_hand_end = (result, data)
    return data
