"""The wire layer: engine values <-> mus.v1 messages, and the byte-level request builder
(arena/remote/encoder.py) checked against the message-based one."""

from __future__ import annotations

import dataclasses
import random

import pytest
from google.protobuf.internal.encoder import _VarintBytes  # protobuf's own encoder, as the oracle
from hypothesis import given, settings
from hypothesis import strategies as st
from mus.v1 import bot_service_pb2 as svc
from mus.v1 import game_pb2 as pb
from mus_core import CARDS, Action, Rules, Sena, SignalMode, discard, envido
from mus_core.random_play import random_action
from mus_core.state import MusState
from mus_sdk import convert as sdk_convert

from arena.remote import encoder
from arena.remote.encoder import RequestEncoder
from arena.wire import convert as wire


def _encoder(rules: Rules, match_id: str = "m") -> RequestEncoder:
    encoder = RequestEncoder()
    encoder.start_match(match_id, rules)
    return encoder


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32), players=st.sampled_from([2, 4, 6]))
def test_request_bytes_equal_the_message(seed: int, players: int) -> None:
    """RequestEncoder's bytes parse to exactly what fill_decision_request builds."""
    state = MusState.new(Rules(players=players), seed=seed)
    rng = random.Random(seed)
    encoder = _encoder(state.rules)
    rules_pb = wire.rules_to_pb(state.rules)
    for k in range(60):
        if state.is_terminal:
            break
        view = state.view(state.to_act)  # type: ignore[arg-type]
        built = svc.PlayRequest()
        wire.fill_decision_request(built.decision_request, view, k, "m", 100, 2000, rules_pb)
        request = encoder.encode(view, k, 100, 2000)
        encoder.sent(request)
        assert svc.PlayRequest.FromString(request.data) == built
        state.apply(random_action(rng, state.legal_actions()))


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 2**32),
    players=st.sampled_from([4, 6]),
    signals=st.sampled_from(list(SignalMode)),
)
def test_request_bytes_per_seat_across_hands_senas_and_unsent_requests(
        seed: int, players: int, signals: SignalMode) -> None:
    """With one encoder per seat (as each RemoteBot holds one), over several hands, with
    señas given and hidden from some seats, and with requests encoded for answers that
    never came (a driver's guesses, never sent), every request sent parses to exactly
    the message-based one."""
    rules = Rules(players=players, signals=signals, interception_p=0.5)
    state = MusState.new(rules, seed=seed)
    rng = random.Random(seed)
    encoders = [_encoder(rules) for _ in range(players)]
    rules_pb = wire.rules_to_pb(rules)
    hands = 0
    for k in range(400):
        if state.is_terminal or hands >= 4:
            break
        seat = state.to_act
        assert seat is not None
        senas = state.legal_senas(seat)
        if senas and rng.random() < 0.5:
            state.give_sena(seat, rng.choice(senas))
        view = state.view(seat)
        built = svc.PlayRequest()
        wire.fill_decision_request(built.decision_request, view, k, "m", 100, 2000, rules_pb)
        request = encoders[seat].encode(view, k, 100, 2000)
        encoders[seat].sent(request)
        assert svc.PlayRequest.FromString(request.data) == built
        action = random_action(rng, state.legal_actions())
        guess = state.what_if(random_action(rng, state.legal_actions()))
        if guess is not None and guess.to_act is not None:  # prepared for a guess, not sent
            encoders[guess.to_act].encode(guess.view(guess.to_act), k + 1, 100, 2000)
        before = len(state.hand_results)
        state.apply(action)
        hands += len(state.hand_results) - before
    assert hands >= 1 or state.is_terminal


@settings(max_examples=40, deadline=None)
@given(
    match_id=st.text(max_size=40),
    numbers=st.lists(st.integers(0, 2**32 - 1), min_size=9, max_size=9),
    seat=st.integers(0, 5),
)
def test_hand_fields_encoded_by_hand_parse_as_protobuf_encodes_them(match_id: str, numbers: list[int], seat: int) -> None:
    """The hand fields (written without protobuf) parse equal to the message protobuf
    builds, for any match id (non-ASCII, empty) and numbers of any size (zeros, varints
    of several bytes), at a 6-seat table too."""
    state = MusState.new(Rules(players=6), seed=1)
    assert state.to_act is not None
    game, hand, mano, dealer, s0, s1, g1, v0, v1 = numbers
    view = dataclasses.replace(
        state.view(state.to_act), seat=seat, game=game, hand=hand, mano=mano, dealer=dealer,
        scores=(s0, s1), games_won=(0, g1), vacas_won=(v0, v1),
    )
    rules_pb = wire.rules_to_pb(state.rules)
    built = svc.PlayRequest()
    wire.fill_decision_request(built.decision_request, view, 7, match_id, 100, 2000, rules_pb)
    data = _encoder(state.rules, match_id).encode(view, 7, 100, 2000).data
    assert svc.PlayRequest.FromString(data) == built
    assert list(built.decision_request.vacas_won) == [v0, v1]


def test_request_holds_only_the_seats_cards() -> None:
    """A decision request never carries another seat's cards."""
    state = MusState.new(Rules(), seed=4)
    seat = state.to_act
    assert seat is not None
    req = wire.decision_request(state.view(seat), 1, "m", 100, 100, wire.rules_to_pb(state.rules))
    mine = {(c >> 2) * 4 + (c & 3) for c in state.hands[seat]}
    got = {(c.rank - 1) * 4 + c.suit - 1 for c in req.cards}
    assert got == mine


@pytest.mark.parametrize(
    "action",
    [Action.parse(t) for t in ("mus", "no-mus", "paso", "quiero", "no-quiero", "ordago", "queremos", "no-queremos")]
    + [envido(2), envido(37), discard([CARDS[0], CARDS[39]])],
)
def test_actions_round_trip(action: Action) -> None:
    """An engine action survives the wire (through the SDK's types too)."""
    msg = pb.Action()
    wire.fill_action(msg, action)
    assert wire.action_from_pb(msg) == action
    sdk_action = sdk_convert.action_from_proto(msg)
    again = pb.Action()
    sdk_convert.fill_action(again, sdk_action)
    assert wire.action_from_pb(again) == action


def test_bad_answers_are_wire_errors() -> None:
    """Garbage from a bot raises WireError, never anything else."""
    with pytest.raises(wire.WireError):
        wire.action_from_pb(pb.Action())
    bad_card = pb.Action()
    bad_card.discard.cards.add(rank=0, suit=1)
    with pytest.raises(wire.WireError):
        wire.action_from_pb(bad_card)
    huge = pb.Action()
    huge.envido.amount = wire.MAX_AMOUNT + 1
    with pytest.raises(wire.WireError):
        wire.action_from_pb(huge)
    with pytest.raises(wire.WireError):
        wire.sena_from_pb(0)
    assert wire.sena_from_pb(1) is Sena.DOS_REYES


def test_hand_end_bytes_are_built_once_per_hand_and_stay_exact() -> None:
    """The cached notification equals a fresh serialization, for each hand and score."""
    # Five games to win: at least five hands whatever the random play (an órdago can end
    # a game, and with it a short match, in one hand).
    state = MusState.new(Rules(games_to_win=5), seed=11)
    rng = random.Random(2)
    while len(state.hand_results) < 3:
        state.apply(random_action(rng, state.legal_actions()))
    first, second = state.hand_results[0], state.hand_results[1]
    for result in (first, first, second, first):
        expected = svc.PlayRequest(hand_end=wire.hand_end_pb(result)).SerializeToString()
        assert wire.hand_end_request_bytes(result) == expected
    assert wire.hand_end_request_bytes(first) is wire.hand_end_request_bytes(first)
    assert wire.hand_end_request_bytes(first) != wire.hand_end_request_bytes(second)


@given(st.one_of(st.integers(0, 2**22), st.integers(0, 2**64 - 1)))
def test_varint_is_protobufs_encoding(n: int) -> None:
    """The hand-written varint (with its two- and three-byte shortcuts) encodes every
    value as protobuf does, on both sides of each length boundary."""
    assert encoder._varint(n) == _VarintBytes(n)


def test_varint_length_boundaries() -> None:
    for edge in (0x80, 0x4000, 0x200000, 0x10000000):
        for n in (edge - 1, edge, edge + 1):
            assert encoder._varint(n) == _VarintBytes(n)
