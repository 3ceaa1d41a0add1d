"""Engine values <-> ``mus.v1`` protobuf messages: the thin translation layer.

The engine's values are :mod:`mus_core`'s, the SDK's too, so most conversions are the
SDK's own (:mod:`mus_sdk.convert`) and every enum number comes from
:mod:`mus_sdk.protomap`, the one mapping; a card's proto rank/suit are the core's + 1.
What is here is the arena's side: decision requests built from the engine's
:class:`~arena.engine.Observation` (the byte-level builder and its message-based
oracle), and the notifications. Bot answers are untrusted: :func:`action_from_pb`
raises :class:`WireError` on anything malformed, and the referee turns that into a
fault.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from mus.v1 import bot_service_pb2 as svc
from mus.v1 import game_pb2 as pb
from mus_sdk import convert as sdk
from mus_sdk.protomap import to_proto
from mus_sdk.types import MatchEnd, MatchEndReason, MatchInfo

from arena.engine import (
    CARDS,
    Card,
    Event,
    HandResult,
    Lance,
    LegalAction,
    MusState,
    Observation,
    Phase,
    Rules,
    SeatView,
    Sena,
)

if TYPE_CHECKING:
    import mus_sdk


WireError = sdk.ConversionError
"""Raised when a message from a bot cannot be read as a valid value (the SDK's
:class:`~mus_sdk.convert.ConversionError`: one reader for both sides)."""

MAX_AMOUNT = sdk.MAX_AMOUNT
"""Largest envido accepted on the wire: a sanity bound against garbage, far above any stake."""

pb_enum = to_proto
"""Proto number of a core enum member (typed ``Any``: see :func:`mus_sdk.protomap.to_proto`)."""

card_from_pb = sdk.card_from_proto
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


class EventCache:
    """Encodings reused across one seat's decision requests (each player holds one).

    Events: most are interned by the engine, so each is converted once per match rather
    than once per request. A seat's history only grows within a hand, so the encoding
    of the last request's history is kept and only new events are appended. The
    fields that stay the same through a hand are kept until they change.
    """

    def __init__(self) -> None:
        self._cache: dict[int, tuple[Event, bytes, bytes]] = {}
        self._history: tuple[Event, ...] = ()
        self._history_bytes = b""
        self._head_key: tuple[Any, ...] = ()
        self._head_bytes = b""
        self._cards: tuple[Card, ...] = ()
        self._cards_bytes = b""
        self._legal: dict[int, tuple[tuple[LegalAction, ...], bytes]] = {}

    def history_fields(self, history: tuple[Event, ...]) -> bytes:
        """``history`` encoded as the repeated ``DecisionRequest.history`` field.

        The prefix check is a tuple comparison, by identity for the engine's events.
        """
        n = len(self._history)
        if n and len(history) >= n and history[:n] == self._history:
            if len(history) > n:
                self._history_bytes += b"".join([self._entry(e)[2] for e in history[n:]])
        else:
            self._history_bytes = b"".join([self._entry(e)[2] for e in history])
        self._history = history
        return self._history_bytes

    def mark(self) -> tuple[tuple[Event, ...], bytes]:
        """The history kept now, for :meth:`reset` (the other encodings are kept by
        value, so a request built in between cannot make them wrong)."""
        return self._history, self._history_bytes

    def reset(self, mark: tuple[tuple[Event, ...], bytes]) -> None:
        """Keep the history of ``mark`` again: a request was built for a history that did
        not happen (the referee prepared it for another answer), and the next request
        appends to the one before it."""
        self._history, self._history_bytes = mark

    def head_fields(self, view: SeatView, match_id: str) -> bytes:
        """The fields that stay the same for a seat through a hand (until a deje
        changes the scores): seat, mano, dealer, scores, match, game, hand, games and
        vacas won, target."""
        key = (view.seat, view.hand, view.game, view.scores, view.games_won, view.mano, view.dealer,
               match_id, view.vacas_won, view.rules.target_points)
        if key != self._head_key:
            self._head_key = key
            self._head_bytes = _encode_head(key)
        return self._head_bytes

    def cards_field(self, cards: tuple[Card, ...]) -> bytes:
        """The seat's cards (the same until a discard)."""
        if cards != self._cards:
            self._cards = cards
            self._cards_bytes = b"".join([_CARD_FIELDS[c] for c in cards])
        return self._cards_bytes

    def legal_fields(self, legal: tuple[LegalAction, ...]) -> bytes:
        """The legal actions, kept by the identity of the engine's tuple: the engine
        hands out the same tuple for the same betting situation, and hashing the
        entries (dataclasses, hashed in Python) cost more than encoding them."""
        hit = self._legal.get(id(legal))
        if hit is not None and hit[0] is legal:
            return hit[1]
        data = _encode_legal_set(legal)
        if len(self._legal) > 256:
            self._legal.clear()
        self._legal[id(legal)] = (legal, data)
        return data

    def serialized(self, event: Event) -> bytes:
        """The serialized ``mus.v1.Event`` for ``event``."""
        return self._entry(event)[1]

    def _entry(self, event: Event) -> tuple[Event, bytes, bytes]:
        hit = self._cache.get(id(event))
        if hit is not None and hit[0] is event:
            return hit
        data = event_to_pb(event).SerializeToString()
        if len(self._cache) > 4096:
            self._cache.clear()
        entry = (event, data, _HISTORY_TAG + _varint(len(data)) + data)
        self._cache[id(event)] = entry
        return entry


def _varint(n: int) -> bytes:
    if n < 0x80:
        return _SMALL_VARINTS[n]
    # Two and three bytes (up to ~2 million: deadlines and time banks in ms) without the loop.
    if n < 0x4000:
        return bytes((n & 0x7F | 0x80, n >> 7))
    if n < 0x200000:
        return bytes((n & 0x7F | 0x80, n >> 7 & 0x7F | 0x80, n >> 14))
    out = bytearray()
    while True:
        byte = n & 0x7F
        n >>= 7
        if n:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


_SMALL_VARINTS = tuple(bytes((i,)) for i in range(0x80))


def _field_tag(number: int) -> bytes:
    """The key of a length-delimited field (wire type 2)."""
    return _varint(number << 3 | 2)


_HISTORY_TAG = _field_tag(svc.DecisionRequest.DESCRIPTOR.fields_by_name["history"].number)
_RULES_TAG = _field_tag(svc.DecisionRequest.DESCRIPTOR.fields_by_name["rules"].number)
_DECISION_TAG = _field_tag(svc.PlayRequest.DESCRIPTOR.fields_by_name["decision_request"].number)


def rules_field(rules_pb: pb.Rules) -> bytes:
    """``rules`` encoded as the ``DecisionRequest.rules`` field (computed once per match)."""
    data: bytes = rules_pb.SerializeToString()
    return _RULES_TAG + _varint(len(data)) + data


def decision_request_bytes(
    view: SeatView,
    request_id: int,
    match_id: str,
    deadline_ms: int,
    time_bank_ms: int,
    rules_field_bytes: bytes,
    events: EventCache,
) -> bytes:
    """A serialized ``PlayRequest`` holding the decision request for ``view``.

    Equal, once parsed, to :func:`decision_request` wrapped in a ``PlayRequest``
    (a property test checks it). Protobuf parsers merge fields in any order, so the
    request is concatenated from encodings kept in caches: the rules and the history (per
    match), and the parts that repeat across requests (a seat's fields for the hand,
    cards, legal-action entries, the live bet, seña lists). Measured: a third of the
    building cost of the message-based path, which was the referee's largest share of
    CPU per decision.
    """
    bet = view.live_bet
    parts = [
        events.head_fields(view, match_id),
        _uint(_TAG_REQUEST_ID, request_id),
        _cached(_STEP_FIELDS, (view.phase, view.lance, view.mus_round), _encode_step),
        _uint(_TAG_DEADLINE, deadline_ms),
        _uint(_TAG_TIME_BANK, max(0, time_bank_ms)),
        events.cards_field(view.cards),
        events.legal_fields(view.legal_actions),
        _cached(_SENAS_FIELDS, view.legal_senas, _encode_senas) if view.legal_senas else b"",
        # LiveBet's own hash is the dataclass's, in Python: key by a plain tuple instead.
        _cached(_BET_FIELDS, (bet.team, bet.seat, bet.stake, bet.prev, bet.is_ordago), _encode_bet)
        if bet is not None else b"",
        rules_field_bytes,
        events.history_fields(view.history),
    ]
    inner = b"".join(parts)
    return _DECISION_TAG + _varint(len(inner)) + inner


def _scalar_tag(name: str) -> bytes:
    """The key of a varint field of ``DecisionRequest``."""
    return _varint(svc.DecisionRequest.DESCRIPTOR.fields_by_name[name].number << 3)


(_TAG_REQUEST_ID, _TAG_PHASE, _TAG_LANCE, _TAG_DEADLINE, _TAG_TIME_BANK, _TAG_DISCARD_ROUND,
 _TAG_SEAT, _TAG_MANO, _TAG_DEALER, _TAG_GAME, _TAG_HAND, _TAG_TARGET) = (
    _scalar_tag(name)
    for name in ("request_id", "phase", "lance", "deadline_ms", "time_bank_ms", "discard_round",
                 "seat", "mano", "dealer", "game", "hand", "target_points")
)
_TAG_MATCH_ID, _TAG_SCORES, _TAG_GAMES_WON, _TAG_VACAS_WON = (
    _field_tag(svc.DecisionRequest.DESCRIPTOR.fields_by_name[name].number)
    for name in ("match_id", "scores", "games_won", "vacas_won")
)


def _uint(tag: bytes, value: int) -> bytes:
    """A varint field; zero is the default and is left out, as protobuf does."""
    return tag + _varint(value) if value else b""


def _fragment(fill: Callable[[svc.DecisionRequest], None]) -> bytes:
    """The encoding of the fields ``fill`` sets on an empty ``DecisionRequest``."""
    msg = svc.DecisionRequest()
    fill(msg)
    data: bytes = msg.SerializeToString()
    return data


_CARD_FIELDS = tuple(_fragment(lambda m, c=c: _add_cards(m.cards, (c,))) for c in CARDS)  # type: ignore[misc]
_LEGAL_FIELDS: dict[Any, bytes] = {}
_STEP_FIELDS: dict[Any, bytes] = {}
_SENAS_FIELDS: dict[Any, bytes] = {}
_BET_FIELDS: dict[Any, bytes] = {}
_CACHE_LIMIT = 4096


def _cached(cache: dict[Any, bytes], key: Any, encode: Callable[[Any], bytes]) -> bytes:
    """``encode(key)``, memoised in ``cache`` (cleared when full; values are immutable,
    so threads sharing a cache at worst encode twice)."""
    data = cache.get(key)
    if data is None:
        data = encode(key)
        if len(cache) >= _CACHE_LIMIT:
            cache.clear()
        cache[key] = data
    return data


def _encode_legal(entry: LegalAction) -> bytes:
    return _fragment(lambda m: fill_legal(m.legal_actions, (entry,)))


def _encode_senas(senas: tuple[Sena, ...]) -> bytes:
    return _fragment(lambda m: m.legal_senas.extend([pb_enum(s) for s in senas]))


def _encode_bet(bet: tuple[int, int, int, int, bool]) -> bytes:
    def fill(m: svc.DecisionRequest) -> None:
        b = m.bet
        b.team, b.seat, b.stake, b.deje, b.is_ordago = bet
        b.SetInParent()

    return _fragment(fill)


def _encode_step(key: tuple[Phase, Lance | None, int]) -> bytes:
    """The fields that say where in the hand a request is: phase, lance, discard round."""
    phase, lance, mus_round = key
    return (_uint(_TAG_PHASE, pb_enum(phase)) + (_uint(_TAG_LANCE, pb_enum(lance)) if lance is not None else b"")
            + _uint(_TAG_DISCARD_ROUND, mus_round))


def _encode_legal_set(legal: tuple[LegalAction, ...]) -> bytes:
    return b"".join([_cached(_LEGAL_FIELDS, entry, _encode_legal) for entry in legal])


def _encode_head(key: tuple[Any, ...]) -> bytes:
    """The head fields from :meth:`EventCache.head_fields`'s key."""
    seat, hand, game, scores, games_won, mano, dealer, match_id, vacas, target_points = key
    name = match_id.encode()
    return b"".join((
        _uint(_TAG_SEAT, seat), _uint(_TAG_MANO, mano), _uint(_TAG_DEALER, dealer),
        _uint(_TAG_GAME, game), _uint(_TAG_HAND, hand), _uint(_TAG_TARGET, target_points),
        _TAG_MATCH_ID + _varint(len(name)) + name if name else b"",
        _packed(_TAG_SCORES, scores), _packed(_TAG_GAMES_WON, games_won), _packed(_TAG_VACAS_WON, vacas),
    ))


def _packed(tag: bytes, values: tuple[int, ...]) -> bytes:
    """A packed repeated varint field (proto3's encoding of ``repeated uint32``)."""
    if not values:
        return b""
    payload = b"".join([_varint(v) for v in values])
    return tag + _varint(len(payload)) + payload


def decision_request(
    view: Observation,
    request_id: int,
    match_id: str,
    deadline_ms: int,
    time_bank_ms: int,
    rules_pb: pb.Rules,
    events: EventCache,
) -> svc.DecisionRequest:
    """The self-contained decision request for the seat of ``view`` (games and vacas
    won are the view's: the engine's count)."""
    req = svc.DecisionRequest()
    fill_decision_request(req, view, request_id, match_id, deadline_ms, time_bank_ms, rules_pb, events)
    return req


def fill_decision_request(
    req: svc.DecisionRequest,
    view: Observation,
    request_id: int,
    match_id: str,
    deadline_ms: int,
    time_bank_ms: int,
    rules_pb: pb.Rules,
    events: EventCache,
) -> None:
    """Fill an empty ``DecisionRequest`` in place (e.g. inside a ``PlayRequest``), so the
    message is built once and never copied."""
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
    req.discard_round = view.mus_round
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
    fill_legal(req.legal_actions, view.legal_actions)
    bet = view.live_bet
    if bet is not None:
        b = req.bet
        b.team = bet.team
        b.seat = bet.seat
        b.stake = bet.stake
        b.deje = bet.deje
        b.is_ordago = bet.is_ordago
    history = req.history
    for e in view.history:
        history.add().MergeFromString(events.serialized(e))


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
    requests with :func:`decision_request_bytes`.

    Raises:
        ValueError: no seat is to act (the match is over) and none is given, or there is
            no such seat.
    """
    if seat is None:
        seat = state.to_act
        if seat is None:
            raise ValueError("no seat is to act: the match is over (name a seat)")
    view = state.view(seat)
    return decision_request(view, request_id, match_id, deadline_ms, time_bank_ms, rules_to_pb(state.rules), EventCache())


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
    is not to act gets an observation with no legal actions (``legal`` empty), which a
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
    winner_team: int | None, games_won: Sequence[int], reason: str, detail: str, vacas_won: Sequence[int] = (0, 0)
) -> svc.MatchEnd:
    """The match-end notification: ``games_won`` over the whole match, ``vacas_won``
    as the engine counted them; ``reason`` a :class:`~mus_core.events.MatchEndReason`
    value (``completed``, ``forfeit``, ``aborted``; anything else is sent as aborted)."""
    why = MatchEndReason(reason) if reason in _END_REASONS else MatchEndReason.ABORTED
    return sdk.match_result_to_proto(MatchEnd(tuple(games_won), winner_team, why, detail, tuple(vacas_won)))


_END_REASONS = frozenset(r.value for r in MatchEndReason)


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
