"""``Observation.bet_answers`` and ``partner_said_quiero``: who already answered the live
bet, read from the history the request carries (no state kept by the bot)."""

from __future__ import annotations

from mus_sdk import (
    NO_QUIERO,
    ORDAGO,
    PASO,
    QUIERO,
    Event,
    EventKind,
    Lance,
    LanceOutcome,
    LiveBet,
    Observation,
    Rules,
    envido,
)
from mus_sdk.convert import observation_from_proto, observation_to_proto
from sdk_helpers import make_observation

START_CHICA = (
    # An earlier lance, whose bet was accepted by S3 after S1's quiero: none of it counts.
    Event(EventKind.LANCE_START, lance=Lance.GRANDE),
    Event(EventKind.BET, seat=0, lance=Lance.GRANDE, action=envido(2)),
    Event(EventKind.BET, seat=1, lance=Lance.GRANDE, action=QUIERO),
    Event(EventKind.BET, seat=3, lance=Lance.GRANDE, action=QUIERO),
    Event(EventKind.LANCE_END, lance=Lance.GRANDE, outcome=LanceOutcome.ACCEPTED),
    Event(EventKind.LANCE_START, lance=Lance.CHICA),
    Event(EventKind.BET, seat=0, lance=Lance.CHICA, action=PASO),
)


def chica(seat: int, *after: Event, bet: LiveBet | None = None) -> Observation:
    """S1 bets envido 2 in chica; then ``after``; ``seat`` is asked."""
    bet_event = Event(EventKind.BET, seat=1, lance=Lance.CHICA, action=envido(2))
    return make_observation(
        seat=seat, lance=Lance.CHICA, history=(*START_CHICA, bet_event, *after),
        bet=bet or LiveBet(team=1, seat=1, stake=2, deje=1), rules=Rules(),
    )


def answer(seat: int, action: object) -> Event:
    return Event(EventKind.BET, seat=seat, lance=Lance.CHICA, action=action)  # type: ignore[arg-type]


def test_first_answerer_sees_no_answers() -> None:
    obs = chica(2)
    assert obs.bet_answers == () and not obs.partner_said_quiero


def test_partner_quiero_is_seen_by_the_second_answerer() -> None:
    obs = chica(0, answer(2, QUIERO))
    assert obs.bet_answers == (answer(2, QUIERO),)
    assert obs.partner_said_quiero


def test_partner_no_quiero_is_not_a_quiero() -> None:
    obs = chica(0, answer(2, NO_QUIERO))
    assert obs.bet_answers == (answer(2, NO_QUIERO),) and not obs.partner_said_quiero


def test_a_raise_makes_a_new_live_bet() -> None:
    """S2 said quiero to S1's envido, S0 raised, S1 said quiero to the raise, and S3 is
    asked: S2's quiero was to the old bet; S1's is S3's partner's answer to the new one."""
    raised = LiveBet(team=0, seat=0, stake=4, deje=2)
    obs = chica(3, answer(2, QUIERO), answer(0, envido(2)), answer(1, QUIERO), bet=raised)
    assert obs.bet_answers == (answer(1, QUIERO),) and obs.partner_said_quiero
    before = chica(1, answer(2, QUIERO), answer(0, envido(2)), bet=raised)
    assert before.bet_answers == () and not before.partner_said_quiero


def test_an_ordago_is_a_live_bet_too() -> None:
    ordago = LiveBet(team=0, seat=0, stake=2, deje=2, is_ordago=True)
    obs = chica(3, answer(2, QUIERO), answer(0, ORDAGO), answer(1, NO_QUIERO), bet=ordago)
    assert obs.bet_answers == (answer(1, NO_QUIERO),) and not obs.partner_said_quiero


def test_no_live_bet_no_answers() -> None:
    obs = make_observation(history=START_CHICA, bet=None)
    assert obs.bet_answers == () and not obs.partner_said_quiero


def test_same_answer_from_the_wire() -> None:
    """An observation read from a request (lazily converted) answers the same."""
    obs = chica(0, answer(2, QUIERO))
    wire = observation_from_proto(observation_to_proto(obs))
    assert wire.bet_answers == obs.bet_answers and wire.partner_said_quiero
