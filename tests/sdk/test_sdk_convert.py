"""Round trips between SDK values and mus.v1 messages, and rejection of bad wire input."""

from __future__ import annotations

import copy
import dataclasses
import json
import pickle

import pytest
from hypothesis import given
from hypothesis import strategies as st
from mus.v1 import bot_service_pb2 as svc_pb
from mus.v1 import game_pb2 as pb
from mus_sdk import (
    CARDS,
    MUS,
    NO_MUS,
    Action,
    ActionKind,
    BotInfo,
    Card,
    Declarations,
    DiscardRange,
    EnvidoRange,
    Event,
    EventKind,
    HandEnd,
    HandEndKind,
    HandResult,
    JuegoReal,
    Lance,
    LanceOutcome,
    LanceResult,
    LegalActions,
    MatchEnd,
    MatchEndReason,
    MatchInfo,
    MusCorrido,
    Observation,
    Phase,
    Rank,
    Rules,
    Sena,
    SignalMode,
    Suit,
    discard,
    envido,
    parse_cards,
)
from mus_sdk import convert as cv
from mus_sdk.types import FIXED_ACTIONS
from sdk_helpers import discard_observation, make_observation, mus_observation, opening_observation

cards_st = st.sampled_from(CARDS)
fixed_st = st.sampled_from(list(FIXED_ACTIONS.values()))
actions_st = st.one_of(
    fixed_st,
    st.integers(2, 10_000).map(envido),
    st.lists(cards_st, min_size=1, max_size=4, unique=True).map(discard),
)
seats_st = st.integers(0, 5)


@st.composite
def events_st(draw: st.DrawFn) -> Event:
    kind = draw(st.sampled_from(EventKind))
    lance = draw(st.sampled_from(Lance))
    seat = draw(seats_st)
    if kind is EventKind.MUS_CALL:
        return Event(kind, seat=seat, action=draw(st.sampled_from([MUS, NO_MUS])))
    if kind is EventKind.DISCARD:
        return Event(kind, seat=seat, value=draw(st.integers(1, 4)))
    if kind in (EventKind.REPLACEMENTS, EventKind.RESHUFFLE):
        return Event(kind, value=draw(st.integers(0, 40)))
    if kind is EventKind.DECLARATION:
        return Event(kind, seat=seat, lance=lance, value=draw(st.integers(0, 1)))
    if kind is EventKind.LANCE_START:
        return Event(kind, lance=lance)
    if kind is EventKind.BET:
        return Event(kind, seat=seat, lance=lance, action=draw(actions_st))
    if kind is EventKind.DEJE:
        return Event(kind, team=draw(st.integers(0, 1)), value=draw(st.integers(0, 100)))
    if kind is EventKind.LANCE_END:
        return Event(kind, lance=lance, outcome=draw(st.sampled_from(LanceOutcome)))
    return Event(kind, seat=seat, sena=draw(st.sampled_from(Sena)))


rules_st = st.builds(
    Rules,
    players=st.sampled_from([2, 4, 6]),
    kings=st.sampled_from([4, 8]),
    target_points=st.integers(1, 100),
    games_to_win=st.integers(1, 5),
    vacas_to_win=st.integers(1, 3),
    juego_real=st.sampled_from(JuegoReal),
    signals=st.sampled_from(SignalMode),
    interception_p=st.sampled_from([0.0, 0.25, 1.0]),
    signal_timing_rules=st.booleans(),
    mus_corrido=st.sampled_from(MusCorrido),
    plural_answers_bind_partner=st.booleans(),
    max_stake=st.one_of(st.none(), st.integers(2, 100)),
    max_mus_rounds=st.one_of(st.none(), st.integers(0, 10)),
)


class TestCards:
    def test_every_card_round_trips(self) -> None:
        """All 40 cards survive card_to_proto/card_from_proto, and ranks/suits are +1."""
        for c in CARDS:
            msg = cv.card_to_proto(c)
            assert msg.rank == c.rank + 1 and msg.suit == c.suit + 1
            assert cv.card_from_proto(msg) is c

    def test_notation_matches_engine(self) -> None:
        """Text notation is rank char + suit char, as mus_core/cards.py."""
        assert [str(c) for c in parse_cards("Ro 7c Ae Sb 12o 1c")] == ["Ro", "7c", "Ae", "Sb", "Ro", "Ac"]
        assert all(Card.parse(str(c)) is c for c in CARDS)
        assert int(Card.parse("Ro")) == 9 * 4 + 0

    def test_unspecified_card_is_rejected(self) -> None:
        """A card with rank or suit 0 is a sender bug."""
        with pytest.raises(cv.ConversionError):
            cv.card_from_proto(pb.Card(rank=pb.RANK_REY))


class TestActions:
    @given(actions_st)
    def test_action_round_trip(self, action: Action) -> None:
        """Every action survives the wire."""
        assert cv.action_from_proto(cv.action_to_proto(action)) == action

    def test_wire_shape(self) -> None:
        """Actions are a oneof of typed messages; envido carries the amount."""
        msg = cv.action_to_proto(envido(5))
        assert msg.WhichOneof("kind") == "envido" and msg.envido.amount == 5
        assert cv.action_to_proto(FIXED_ACTIONS[ActionKind.PASO]).WhichOneof("kind") == "paso"

    def test_empty_action_is_rejected(self) -> None:
        """An Action with no kind set is a ConversionError."""
        with pytest.raises(cv.ConversionError):
            cv.action_from_proto(pb.Action())

    @given(
        st.one_of(
            fixed_st,
            st.builds(EnvidoRange, st.integers(2, 50), st.one_of(st.none(), st.integers(2, 100))),
            st.lists(cards_st, min_size=1, max_size=4, unique=True).map(
                lambda cs: DiscardRange(tuple(cs), 1, 4)
            ),
        )
    )
    def test_legal_action_round_trip(self, entry: object) -> None:
        """Legal entries (fixed, EnvidoRange with None = unbounded, DiscardRange) round-trip."""
        assert cv.legal_action_from_proto(cv.legal_action_to_proto(entry)) == entry  # type: ignore[arg-type]


    legal_entry_st = st.one_of(
        fixed_st,
        st.builds(EnvidoRange, st.integers(2, 50), st.one_of(st.none(), st.integers(2, 100))),
        st.lists(cards_st, min_size=1, max_size=4, unique=True).map(lambda cs: DiscardRange(tuple(cs), 1, 4)),
    )

    @given(st.lists(st.lists(legal_entry_st, min_size=1, max_size=5), min_size=1, max_size=6))
    def test_legal_sets_convert_the_same_with_the_cache(self, sets: list[list[object]]) -> None:
        """Converted one after another, as requests arrive (the cache keeps earlier
        sets), every set of entries equals its own entries, in order."""
        for entries in sets:
            msgs = [cv.legal_action_to_proto(e) for e in entries]  # type: ignore[arg-type]
            assert list(cv.legal_actions_from_proto(msgs)) == entries

    def test_a_legal_set_from_a_generator_is_whole(self) -> None:
        """Any iterable works, also one that can be read only once."""
        entries = [FIXED_ACTIONS[ActionKind.QUIERO], EnvidoRange(4, 7)]
        once = cv.legal_actions_from_proto(cv.legal_action_to_proto(e) for e in entries)
        again = cv.legal_actions_from_proto([cv.legal_action_to_proto(e) for e in entries])
        assert list(once) == entries and list(again) == entries

    def test_a_legal_set_cannot_be_changed(self) -> None:
        """LegalActions is a frozen value, as every other value a bot is given."""
        legal = cv.legal_actions_from_proto([cv.legal_action_to_proto(FIXED_ACTIONS[ActionKind.PASO])])
        with pytest.raises(AttributeError):
            legal._entries = ()  # type: ignore[misc]
        with pytest.raises(AttributeError):
            del legal._kinds
        assert list(legal) == [FIXED_ACTIONS[ActionKind.PASO]]
        assert pickle.loads(pickle.dumps(legal)) == legal and copy.deepcopy(legal) == legal

    def test_an_empty_legal_entry_is_rejected(self) -> None:
        """A LegalAction with no kind set is a ConversionError."""
        with pytest.raises(cv.ConversionError):
            cv.legal_actions_from_proto([cv.legal_action_to_proto(FIXED_ACTIONS[ActionKind.PASO]), pb.LegalAction()])


class TestEvents:
    @given(events_st())
    def test_event_round_trip(self, event: Event) -> None:
        """Every event kind survives the wire."""
        assert cv.event_from_proto(cv.event_to_proto(event)) == event

    def test_empty_event_is_rejected(self) -> None:
        """An Event with no kind set is a ConversionError."""
        with pytest.raises(cv.ConversionError):
            cv.event_from_proto(pb.Event())

    def test_missing_field_is_rejected(self) -> None:
        """Converting an event without a field its kind needs raises."""
        with pytest.raises(cv.ConversionError):
            cv.event_to_proto(Event(EventKind.BET, seat=1))


class TestRules:
    @given(rules_st)
    def test_rules_round_trip(self, rules: Rules) -> None:
        """Every rules variant survives the wire (None max_stake/max_mus_rounds included)."""
        assert cv.rules_from_proto(cv.rules_to_proto(rules)) == rules

    def test_unspecified_enum_is_rejected(self) -> None:
        """A Rules message with JUEGO_REAL_UNSPECIFIED names the field."""
        msg = cv.rules_to_proto(Rules())
        msg.juego_real = pb.JUEGO_REAL_UNSPECIFIED
        with pytest.raises(cv.ConversionError, match="juego_real"):
            cv.rules_from_proto(msg)


class TestObservation:
    @pytest.mark.parametrize(
        "factory", [make_observation, mus_observation, discard_observation, opening_observation]
    )
    def test_observation_round_trip(self, factory: object) -> None:
        """A DecisionRequest built from an observation converts back to an equal one."""
        obs: Observation = factory()  # type: ignore[operator]
        msg = cv.observation_to_proto(obs)
        back = cv.observation_from_proto(svc_pb.DecisionRequest.FromString(msg.SerializeToString()))
        assert back == obs
        assert list(back.history) == list(obs.history)

    @pytest.mark.parametrize(
        "factory", [make_observation, mus_observation, discard_observation, opening_observation]
    )
    def test_wire_observation_behaves_as_an_eager_one(self, factory: object) -> None:
        """The lazily converted observation is equal (both ways), hashes, prints, copies,
        pickles and refuses assignment exactly as the Observation it came from."""
        obs: Observation = factory()  # type: ignore[operator]
        back = cv.observation_from_proto(svc_pb.DecisionRequest.FromString(cv.observation_to_proto(obs).SerializeToString()))
        assert isinstance(back, Observation)
        assert back == obs and obs == back and not (back != obs)
        assert repr(back) == repr(dataclasses.replace(obs, history=back.history))  # same class name and fields
        assert dataclasses.replace(back, seat=3) == dataclasses.replace(obs, seat=3)
        assert pickle.loads(pickle.dumps(back)) == obs
        assert dataclasses.asdict(back).keys() == dataclasses.asdict(obs).keys()
        with pytest.raises(dataclasses.FrozenInstanceError):
            back.seat = 2  # type: ignore[misc]
        other = cv.observation_from_proto(cv.observation_to_proto(dataclasses.replace(obs, mano=(obs.mano + 1) % 4)))
        assert other != back and other != obs

    def test_wire_observation_hash_and_copies(self) -> None:
        """Equal observations hash alike; copy and deepcopy give equal, converted copies."""
        obs = make_observation()
        back = cv.observation_from_proto(cv.observation_to_proto(obs))
        assert hash(back) == hash(obs)
        assert copy.copy(back) == obs and copy.deepcopy(back) == obs
        assert type(copy.copy(back)) is Observation

    def test_fields_are_converted_on_first_access(self) -> None:
        """A bad card fails when the bot reads the cards, not before: the other fields
        are readable, and the error is the ConversionError eager conversion raised."""
        msg = cv.observation_to_proto(make_observation())
        msg.cards[0].rank = 0
        obs = cv.observation_from_proto(msg)
        assert obs.legal_actions == make_observation().legal_actions
        assert obs.scores == make_observation().scores
        with pytest.raises(cv.ConversionError):
            _ = obs.cards

    def test_a_field_is_converted_once(self) -> None:
        """Reading a field twice gives the very same object (converted once, then kept)."""
        obs = cv.observation_from_proto(cv.observation_to_proto(make_observation()))
        assert obs.legal_actions is obs.legal_actions and obs.cards is obs.cards and obs.rules is obs.rules

    def test_former_name_legal_still_works(self) -> None:
        """``legal`` (the field's name before ``legal_actions``) still reads the legal
        actions, eager or from the wire, and still builds an observation (with a warning)."""
        obs = make_observation()
        back = cv.observation_from_proto(cv.observation_to_proto(obs))
        assert obs.legal is obs.legal_actions and back.legal is back.legal_actions
        fields = {f.name: getattr(obs, f.name) for f in dataclasses.fields(obs)}
        fields["legal"] = fields.pop("legal_actions")
        with pytest.warns(DeprecationWarning, match="legal_actions"):
            assert Observation(**fields) == obs
        other = LegalActions([MUS, NO_MUS])
        with pytest.warns(DeprecationWarning):
            assert dataclasses.replace(back, legal=other).legal_actions == other

    def test_derived_fields(self) -> None:
        """Team, partner and score helpers follow seat % 2."""
        obs = make_observation()
        assert (obs.team, obs.partner, obs.my_score, obs.their_score) == (1, 3, 12, 5)
        assert obs.position == 1 and not obs.is_mano and not obs.is_postre

    def test_unspecified_phase_is_rejected(self) -> None:
        """A request without a phase is a sender bug."""
        msg = cv.observation_to_proto(make_observation())
        msg.phase = 0  # type: ignore[assignment]
        with pytest.raises(cv.ConversionError):
            cv.observation_from_proto(msg)


class TestLifecycle:
    def test_match_info_round_trip(self) -> None:
        """MatchStart round-trips."""
        info = MatchInfo(
            "m", 2, (0,), 4, Rules(kings=4), (0, 0), (1, 0), 60000, 1000, 1, ("a", "b", "c", "d")
        )
        assert cv.match_info_from_proto(cv.match_info_to_proto(info)) == info

    def test_hand_summary_round_trip(self) -> None:
        """HandEnd round-trips with optional seats/teams set and unset."""
        summary = HandResult(
            game=0,
            hand=3,
            dealer=3,
            mano=0,
            hands=tuple(parse_cards(h) for h in ("Ro 3c Co Ab", "7o 6o 5o 4o", "So Sc 5c 4c", "Re Ce 7e 7b")),
            lances=(
                LanceResult(
                    Lance.GRANDE, LanceOutcome.EN_PASO, winner_seat=0, winner_team=0, points=1, stake_points=1
                ),
                LanceResult(
                    Lance.CHICA,
                    LanceOutcome.ACCEPTED,
                    stake=2,
                    bet_team=1,
                    winner_seat=0,
                    winner_team=0,
                    points=2,
                    stake_points=2,
                ),
                LanceResult(
                    Lance.PARES,
                    LanceOutcome.DECLINED,
                    stake=2,
                    bet_team=0,
                    deje=1,
                    winner_seat=3,
                    winner_team=0,
                    points=2,
                    value_points=2,
                ),
                LanceResult(Lance.JUEGO, LanceOutcome.NOT_PLAYED, counted=False),
            ),
            scores_before=(0, 0),
            scores_after=(11, 0),
            game_over=False,
            game_winner=None,
            ended_by=HandEnd.COUNT,
            declarations=Declarations((True, False, True, True), (True, False, False, True)),
            games_won=(0, 0),
        )
        assert cv.hand_summary_from_proto(cv.hand_summary_to_proto(summary)) == summary

    def test_hand_summary_as_bots_built_it_before_still_converts(self) -> None:
        """A HandResult built with a string ended_by and a dict of declarations (as the
        SDK typed them before HandEnd and Declarations) goes out as the typed one does."""
        typed = HandResult(0, 0, 3, 0, (), (), (0, 0), (40, 3), True, 0, HandEnd.COUNT_PARES, Declarations((True,), None))
        legacy = HandResult(0, 0, 3, 0, (), (), (0, 0), (40, 3), True, 0, "count:pares", {"pares": (True,)})  # type: ignore[arg-type]
        assert cv.hand_summary_to_proto(legacy) == cv.hand_summary_to_proto(typed)
        back = cv.hand_summary_from_proto(cv.hand_summary_to_proto(legacy))
        assert back == typed and back.ended_by == "count:pares" and back.declarations["pares"] == (True,)
        assert back.ended_by.kind is HandEndKind.COUNT and back.ended_by.lance is Lance.PARES

    @pytest.mark.parametrize("winner", [None, 0, 1])
    def test_match_result_round_trip(self, winner: int | None) -> None:
        """MatchEnd round-trips; winner_team uses presence (0 is a real team)."""
        result = MatchEnd((2, 1), winner, MatchEndReason.FORFEIT, "seat 3 faulted", (0, 0))
        assert cv.match_result_from_proto(cv.match_result_to_proto(result)) == result

    @pytest.mark.parametrize("sena", [None, Sena.DOS_REYES, Sena.ENVIDAR_MAS])
    def test_decision_round_trip(self, sena: Sena | None) -> None:
        """A Decision carries the request id, the action and an optional seña."""
        msg = cv.decision_to_proto(2**40, envido(7), sena)
        assert cv.decision_from_proto(msg) == (2**40, envido(7), sena)
        assert msg.HasField("sena") == (sena is not None)

    def test_bot_info_round_trip(self) -> None:
        """GetInfoResponse round-trips."""
        msg = cv.bot_info_to_proto(BotInfo("x", "1.2", "me"), (1,), "sdk/1")
        assert cv.bot_info_from_proto(msg) == (BotInfo("x", "1.2", "me"), (1,), "sdk/1")


def test_enum_mapping_is_position_plus_one() -> None:
    """Proto enum numbers are the SDK member's position + 1, by name."""
    for sdk_enum, pb_enum, prefix in (
        (Lance, pb.Lance, "LANCE_"),
        (Phase, pb.Phase, "PHASE_"),
        (Rank, pb.Rank, "RANK_"),
        (Suit, pb.Suit, "SUIT_"),
        (Sena, pb.Sena, "SENA_"),
        (LanceOutcome, pb.LanceOutcome, "LANCE_OUTCOME_"),
        (JuegoReal, pb.JuegoReal, "JUEGO_REAL_"),
        (SignalMode, pb.SignalMode, "SIGNAL_MODE_"),
        (MusCorrido, pb.MusCorrido, "MUS_CORRIDO_"),
        (MatchEndReason, svc_pb.MatchEndReason, "MATCH_END_REASON_"),
    ):
        for member in sdk_enum:  # type: ignore[attr-defined]
            number = pb_enum.Value(prefix + member.name)
            if sdk_enum in (Rank, Suit):  # used only inside Card, converted arithmetically
                assert number == member.value + 1
                continue
            assert cv.enum_to_proto(member) == number
            assert cv.enum_from_proto(sdk_enum, number) is member


def test_a_lance_prints_as_its_name_and_stays_an_int() -> None:
    """A bot author's ``print(f"{obs.lance}")`` read ``0``: an IntEnum formats as its
    number. It reads ``grande`` now; the order, JSON and ``:d`` are still the number's."""
    from mus_sdk import Lance

    assert [f"{lance}" for lance in Lance] == ["grande", "chica", "pares", "juego", "punto"]
    assert str(Lance.JUEGO) == "juego" and f"{Lance.JUEGO:d}" == "3" and int(Lance.JUEGO) == 3
    assert json.dumps([Lance.GRANDE, Lance.PUNTO]) == "[0, 4]"
    assert Lance.CHICA < Lance.PARES


def test_errors_on_an_observation_from_the_wire_name_the_public_class() -> None:
    """A bot's mistake on an observation it was sent reads as on any Observation (issue
    29: the messages named the internal _WireObservation, or raised a TypeError about
    super() on an assignment)."""
    obs = cv.observation_from_proto(cv.observation_to_proto(opening_observation()))
    with pytest.raises(AttributeError, match=r"^'Observation' object has no attribute 'cardz'$"):
        obs.cardz  # type: ignore[attr-defined]  # noqa: B018
    for name in ("cards", "note"):
        with pytest.raises(dataclasses.FrozenInstanceError, match=f"cannot assign to field '{name}'"):
            setattr(obs, name, ())
    assert obs == opening_observation()  # still whole
