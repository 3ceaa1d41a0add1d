"""Conversions between the wire messages of ``mus.v1`` and the SDK's typed values.

Every function is public and total over valid input: ``x_from_proto(x_to_proto(v)) == v``
for every value the SDK can represent (the round trips are tested). Invalid wire input
(an ``*_UNSPECIFIED`` enum, an empty ``oneof``, a card out of range, an absurd amount)
raises :class:`ConversionError`, never a bare ``KeyError``.

The values are :mod:`mus_core`'s, the arena engine's own, so the arena converts with
these functions too (``arena.wire``): to build notifications, to read the bots'
decisions, and to run a :class:`~mus_sdk.Bot` in-process. Enum numbers come from
:mod:`mus_sdk.protomap`, the one mapping; a card's proto ``rank``/``suit`` are the
core ``Rank``/``Suit`` values + 1.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from typing import Any, cast

from mus.v1 import bot_service_pb2 as svc_pb
from mus_core.events import HandEnd

from mus_sdk import handshake
from mus_sdk._values import (
    MAX_AMOUNT,
    ConversionError,
    action_from_proto,
    action_to_proto,
    card_from_proto,
    card_to_proto,
    cards_from_proto,
    enum_from_proto,
    enum_to_proto,
    event_from_proto,
    event_to_proto,
    extend_cards,
    fill_action,
    fill_legal,
    legal_action_from_proto,
    legal_action_to_proto,
    legal_actions_from_proto,
    rules_from_proto,
    rules_to_proto,
)
from mus_sdk.protomap import FROM_PROTO, TO_PROTO
from mus_sdk.types import (
    Action,
    BotInfo,
    Declarations,
    HandResult,
    Lance,
    LanceOutcome,
    LanceResult,
    LazyHistory,
    LiveBet,
    MatchEnd,
    MatchEndReason,
    MatchInfo,
    Observation,
    Phase,
    Sena,
)

__all__ = [
    "MAX_AMOUNT",
    "ConversionError",
    "action_from_proto",
    "action_to_proto",
    "bot_info_from_proto",
    "bot_info_to_proto",
    "card_from_proto",
    "card_to_proto",
    "cards_from_proto",
    "decision_from_proto",
    "decision_to_proto",
    "enum_from_proto",
    "enum_to_proto",
    "event_from_proto",
    "event_to_proto",
    "extend_cards",
    "fill_action",
    "fill_legal",
    "hand_summary_from_proto",
    "hand_summary_to_proto",
    "legal_action_from_proto",
    "legal_action_to_proto",
    "legal_actions_from_proto",
    "live_bet_from_proto",
    "live_bet_to_proto",
    "match_info_from_proto",
    "match_info_to_proto",
    "match_result_from_proto",
    "match_result_to_proto",
    "observation_from_proto",
    "observation_to_proto",
    "rules_from_proto",
    "rules_to_proto",
]


# --------------------------------------------------------------------------- observation


def live_bet_to_proto(bet: LiveBet) -> svc_pb.LiveBet:
    """A :class:`LiveBet` as a ``mus.v1.LiveBet``."""
    return svc_pb.LiveBet(
        team=bet.team, seat=bet.seat, stake=bet.stake, deje=bet.deje, is_ordago=bet.is_ordago
    )


def live_bet_from_proto(msg: svc_pb.LiveBet) -> LiveBet:
    """A ``mus.v1.LiveBet`` as a :class:`LiveBet`."""
    return LiveBet(team=msg.team, seat=msg.seat, stake=msg.stake, deje=msg.deje, is_ordago=msg.is_ordago)


def observation_from_proto(msg: svc_pb.DecisionRequest) -> Observation:
    """A ``mus.v1.DecisionRequest`` as an :class:`Observation`.

    The fields are converted lazily, each on its first access: a bot pays only for what
    it reads (see :class:`_WireObservation`). The result is an :class:`Observation`
    (``isinstance``), equal both ways to an eager one with the same values, with the
    same hash and ``repr``; ``dataclasses.replace``, ``copy`` and ``pickle`` give fully
    converted copies. ``msg`` must not be changed afterwards (fields not yet read would
    show the change); the SDK parses a fresh message for every request.

    Raises:
        ConversionError: an unspecified phase (here); an unspecified enum or a bad card or
            action: on each access to the field that holds it, and so also from ``repr``,
            ``==`` or ``hash`` (a well-formed request, as the arena sends, has none).
    """
    phase = msg.phase
    if not 1 <= phase <= 4:
        raise ConversionError(f"decision request {msg.request_id}: bad or unspecified phase {phase}")
    obs = _new_wire_observation(_WireObservation)
    _WIRE_MSG.__set__(obs, msg)
    return obs


class _WireObservation(Observation):
    """An :class:`Observation` whose fields are converted from its ``DecisionRequest`` on
    first access, then kept in the parent's slots.

    Why: converting all 22 fields costs ~15 µs of a bot's CPU per decision in a warm
    loop, and far more inside a match, where every round trip starts with cold caches.
    Measured on a trivial bot (which reads only ``legal_actions``): the bot's Python work per
    decision 19 -> 9 µs, and a whole match ~14% more decisions per second (median of 8
    paired A/B rounds; docs/performance.md). Most bots read a few fields.

    Each field is a property over the parent's slot: reading an empty slot converts and
    stores once; the dataclass ``__init__`` (used by ``dataclasses.replace``) writes
    through the setter, so such copies are fully converted and need no message. Two
    threads reading a field for the first time may both convert it (equal values).
    """

    __slots__ = ("_msg",)

    def __eq__(self, other: object) -> bool:
        # The dataclass __eq__ only compares instances of the very same class; an
        # observation from the wire equals an eager one with the same fields.
        if isinstance(other, Observation):
            return _field_values(self) == _field_values(other)
        return NotImplemented

    __hash__ = Observation.__hash__

    def __setattr__(self, name: str, value: Any) -> None:
        # Frozen, as an eager Observation (the dataclass's own check would fail with a
        # TypeError about super() in this subclass).
        raise dataclasses.FrozenInstanceError(f"cannot assign to field {name!r}")

    def __repr__(self) -> str:
        return "Observation(" + ", ".join(f"{f}={getattr(self, f)!r}" for f in _OBSERVATION_FIELDS) + ")"

    def __reduce__(self) -> tuple[Any, ...]:
        # Pickles (and copies) as an eager Observation: the message stays behind.
        values = _field_values(self)
        return (Observation, (*values[:_HISTORY], tuple(self.history), *values[_HISTORY + 1 :]))


# Errors a bot's code meets name the public class ("'Observation' object has no attribute
# 'x'"), never this internal one.
_WireObservation.__name__ = _WireObservation.__qualname__ = "Observation"
_new_wire_observation = object.__new__
_WIRE_MSG: Any = _WireObservation.__dict__["_msg"]


def _field_values(obs: Observation) -> tuple[Any, ...]:
    return tuple(getattr(obs, f) for f in _OBSERVATION_FIELDS)


def _lazy_field(name: str, convert: Any) -> property:
    slot = Observation.__dict__[name]  # the parent's slot descriptor

    def get(self: _WireObservation) -> Any:
        try:
            return slot.__get__(self)
        except AttributeError:  # first access: convert and keep
            value = convert(_WIRE_MSG.__get__(self))
            slot.__set__(self, value)
            return value

    return property(get, slot.__set__)


_PHASES = FROM_PROTO[Phase]
_LANCES = FROM_PROTO[Lance]

# How each Observation field is read from a DecisionRequest.
_FROM_REQUEST: dict[str, Any] = {
    "request_id": lambda m: m.request_id,
    "match_id": lambda m: m.match_id,
    "seat": lambda m: m.seat,
    "phase": lambda m: _PHASES[m.phase],
    "lance": lambda m: _LANCES[m.lance] if 0 < m.lance < len(_LANCES) else None,
    "cards": lambda m: cards_from_proto(m.cards),
    "legal_actions": lambda m: legal_actions_from_proto(m.legal_actions),
    "mano": lambda m: m.mano,
    "dealer": lambda m: m.dealer,
    "scores": lambda m: tuple(m.scores),
    "history": lambda m: LazyHistory(m.history, event_from_proto),
    "rules": lambda m: rules_from_proto(m.rules),
    "game": lambda m: m.game,
    "hand": lambda m: m.hand,
    "games_won": lambda m: tuple(m.games_won),
    "vacas_won": lambda m: tuple(m.vacas_won),
    "target_points": lambda m: m.target_points,
    "discard_round": lambda m: m.discard_round,
    "bet": lambda m: live_bet_from_proto(m.bet) if m.HasField("bet") else None,
    "legal_senas": lambda m: tuple(enum_from_proto(Sena, s) for s in m.legal_senas),
    "deadline_ms": lambda m: m.deadline_ms,
    "time_bank_ms": lambda m: m.time_bank_ms,
    "own_discards": lambda m: cards_from_proto(m.own_discards),
    "to_act": lambda m: m.seat,  # a request asks the seat it is sent to
}
_OBSERVATION_FIELDS = tuple(f.name for f in dataclasses.fields(Observation))
_HISTORY = _OBSERVATION_FIELDS.index("history")
if set(_FROM_REQUEST) != set(_OBSERVATION_FIELDS):  # a field added to Observation needs its converter
    raise AssertionError(f"Observation fields without a converter: {set(_OBSERVATION_FIELDS) ^ set(_FROM_REQUEST)}")
for _name in _OBSERVATION_FIELDS:
    setattr(_WireObservation, _name, _lazy_field(_name, _FROM_REQUEST[_name]))
del _name


def observation_to_proto(obs: Observation) -> svc_pb.DecisionRequest:
    """An :class:`Observation` as a ``mus.v1.DecisionRequest``."""
    out = svc_pb.DecisionRequest(
        request_id=obs.request_id,
        match_id=obs.match_id,
        seat=obs.seat,
        phase=TO_PROTO[obs.phase],
        lance=TO_PROTO[obs.lance] if obs.lance is not None else cast(Any, 0),
        mano=obs.mano,
        dealer=obs.dealer,
        scores=obs.scores,
        game=obs.game,
        hand=obs.hand,
        games_won=obs.games_won,
        vacas_won=obs.vacas_won,
        target_points=obs.target_points,
        discard_round=obs.discard_round,
        legal_senas=[TO_PROTO[s] for s in obs.legal_senas],
        deadline_ms=obs.deadline_ms,
        time_bank_ms=obs.time_bank_ms,
    )
    extend_cards(out.cards, obs.cards)
    extend_cards(out.own_discards, obs.own_discards)
    fill_legal(out.legal_actions, obs.legal_actions)
    out.history.extend(event_to_proto(e) for e in obs.history)
    out.rules.CopyFrom(rules_to_proto(obs.rules))
    if obs.bet is not None:
        out.bet.CopyFrom(live_bet_to_proto(obs.bet))
    return out


# --------------------------------------------------------------------------- match lifecycle


def match_info_to_proto(info: MatchInfo) -> svc_pb.MatchStart:
    """A :class:`MatchInfo` as a ``mus.v1.MatchStart``."""
    out = svc_pb.MatchStart(
        match_id=info.match_id,
        seat=info.seat,
        partner_seats=info.partners,
        num_seats=info.num_seats,
        scores=info.scores,
        games_won=info.games_won,
        time_bank_ms=info.time_bank_ms,
        decision_deadline_ms=info.decision_deadline_ms,
        protocol_version=info.protocol_version,
        seat_names=info.seat_names,
    )
    out.rules.CopyFrom(rules_to_proto(info.rules))
    return out


def match_info_from_proto(msg: svc_pb.MatchStart) -> MatchInfo:
    """A ``mus.v1.MatchStart`` as a :class:`MatchInfo`."""
    return MatchInfo(
        match_id=msg.match_id,
        seat=msg.seat,
        partners=tuple(msg.partner_seats),
        num_seats=msg.num_seats,
        rules=rules_from_proto(msg.rules),
        scores=tuple(msg.scores),
        games_won=tuple(msg.games_won),
        time_bank_ms=msg.time_bank_ms,
        decision_deadline_ms=msg.decision_deadline_ms,
        protocol_version=msg.protocol_version,
        seat_names=tuple(msg.seat_names),
    )


def _set_opt(msg: Any, name: str, value: int | None) -> None:
    if value is not None:
        setattr(msg, name, value)


def _get_opt(msg: Any, name: str) -> int | None:
    return getattr(msg, name) if msg.HasField(name) else None


def hand_summary_to_proto(result: HandResult) -> svc_pb.HandEnd:
    """A :class:`HandResult` as a ``mus.v1.HandEnd`` (the result plus the games won after it)."""
    out = svc_pb.HandEnd(games_won=result.games_won)
    r = out.result
    r.game, r.hand, r.dealer, r.mano = result.game, result.hand, result.dealer, result.mano
    for hand in result.hands:
        extend_cards(r.hands.add().cards, hand)
    for lr in result.lances:
        m = r.lances.add(
            lance=TO_PROTO[lr.lance],
            outcome=TO_PROTO[lr.outcome],
            stake=lr.stake,
            deje=lr.deje,
            points=lr.points,
            stake_points=lr.stake_points,
            value_points=lr.value_points,
            counted=lr.counted,
        )
        _set_opt(m, "bet_team", lr.bet_team)
        _set_opt(m, "winner_seat", lr.winner_seat)
        _set_opt(m, "winner_team", lr.winner_team)
    r.scores_before.extend(result.scores_before)
    r.scores_after.extend(result.scores_after)
    r.game_over = result.game_over
    _set_opt(r, "game_winner", result.game_winner)
    r.ended_by = str(result.ended_by)
    # .get with the names: a plain dict, as HandSummary held before Declarations, works too.
    r.has_pares.extend(result.declarations.get("pares", ()))  # type: ignore[call-overload]
    r.has_juego.extend(result.declarations.get("juego", ()))  # type: ignore[call-overload]
    return out


def hand_summary_from_proto(msg: svc_pb.HandEnd) -> HandResult:
    """A ``mus.v1.HandEnd`` as a :class:`HandResult` (``vacas_won`` is not on the wire: (0, 0)).

    Raises:
        ConversionError: an unspecified enum, a bad card or an unknown ``ended_by``.
    """
    r = msg.result
    try:
        ended_by = HandEnd(r.ended_by)
    except ValueError:
        raise ConversionError(f"hand_end: unknown ended_by {r.ended_by!r}") from None
    return HandResult(
        game=r.game,
        hand=r.hand,
        dealer=r.dealer,
        mano=r.mano,
        hands=tuple(cards_from_proto(h.cards) for h in r.hands),
        lances=tuple(
            LanceResult(
                lance=enum_from_proto(Lance, m.lance),
                outcome=enum_from_proto(LanceOutcome, m.outcome),
                stake=m.stake,
                bet_team=_get_opt(m, "bet_team"),
                deje=m.deje,
                winner_seat=_get_opt(m, "winner_seat"),
                winner_team=_get_opt(m, "winner_team"),
                points=m.points,
                stake_points=m.stake_points,
                value_points=m.value_points,
                counted=m.counted,
            )
            for m in r.lances
        ),
        scores_before=tuple(r.scores_before),
        scores_after=tuple(r.scores_after),
        game_over=r.game_over,
        game_winner=_get_opt(r, "game_winner"),
        ended_by=ended_by,
        declarations=Declarations(tuple(r.has_pares) or None, tuple(r.has_juego) or None),
        games_won=tuple(msg.games_won),
    )


def match_result_to_proto(result: MatchEnd) -> svc_pb.MatchEnd:
    """A :class:`MatchEnd` as a ``mus.v1.MatchEnd``."""
    out = svc_pb.MatchEnd(
        games_won=result.games_won,
        reason=TO_PROTO[result.reason],
        detail=result.detail,
        vacas_won=result.vacas_won,
    )
    _set_opt(out, "winner_team", result.winner_team)
    return out


def match_result_from_proto(msg: svc_pb.MatchEnd) -> MatchEnd:
    """A ``mus.v1.MatchEnd`` as a :class:`MatchEnd`.

    Raises:
        ConversionError: an unspecified reason.
    """
    return MatchEnd(
        games_won=tuple(msg.games_won),
        winner_team=_get_opt(msg, "winner_team"),
        reason=enum_from_proto(MatchEndReason, msg.reason, "match_end.reason"),
        detail=msg.detail,
        vacas_won=tuple(msg.vacas_won),
    )


# --------------------------------------------------------------------------- decisions and info


def decision_to_proto(request_id: int, action: Action, sena: Sena | None = None) -> svc_pb.Decision:
    """The answer to request ``request_id``: ``action``, with an optional seña."""
    out = svc_pb.Decision(request_id=request_id)
    fill_action(out.action, action)
    if sena is not None:
        out.sena = TO_PROTO[sena]
    return out


def decision_from_proto(msg: svc_pb.Decision) -> tuple[int, Action, Sena | None]:
    """A ``mus.v1.Decision`` as ``(request_id, action, sena or None)``.

    Raises:
        ConversionError: no action kind, a bad card, or an unspecified seña.
    """
    sena = enum_from_proto(Sena, msg.sena, "decision.sena") if msg.HasField("sena") else None
    return msg.request_id, action_from_proto(msg.action), sena


def bot_info_to_proto(
    info: BotInfo, protocol_versions: Iterable[int] = handshake.SUPPORTED_APP_PROTOCOL_VERSIONS, sdk: str = ""
) -> svc_pb.GetInfoResponse:
    """A :class:`BotInfo` as a ``mus.v1.GetInfoResponse``."""
    return svc_pb.GetInfoResponse(
        name=info.name,
        version=info.version,
        author=info.author,
        protocol_versions=list(protocol_versions),
        sdk=sdk,
    )


def bot_info_from_proto(msg: svc_pb.GetInfoResponse) -> tuple[BotInfo, tuple[int, ...], str]:
    """A ``mus.v1.GetInfoResponse`` as ``(BotInfo, protocol versions, sdk)``."""
    return BotInfo(msg.name, msg.version, msg.author), tuple(msg.protocol_versions), msg.sdk
