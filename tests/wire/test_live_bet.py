"""The live bet on the wire, as proto/mus/v1/bot_service.proto documents ``LiveBet``: for
an órdago, ``stake`` is the stake of the envido it raised (0 when it opened the lance)
and ``deje`` what its team collects if it is declined."""

from __future__ import annotations

from mus.v1 import bot_service_pb2 as svc
from mus_core import Action, Rules, parse_cards
from mus_core.state import MusState

from arena.wire import convert as wire

HANDS = [parse_cards(h) for h in ("Ro Rc Re Rb", "Ao Ac Ae Ab", "Co Cc Ce Cb", "So Sc Se Sb")]


def live_bet_after(*actions: str) -> svc.LiveBet:
    """The ``bet`` of the request to the seat to act after S1 (mano) cuts the mus and
    ``actions`` are played in grande."""
    state = MusState.from_deal(Rules(), HANDS, mano=1)
    state.apply(Action.parse("no-mus"))
    for a in actions:
        state.apply(Action.parse(a))
    seat = state.to_act
    assert seat is not None
    req = wire.decision_request(state.view(seat), 1, "m", 100, 100, wire.rules_to_pb(state.rules))
    assert req.HasField("bet")
    return req.bet


def fields(bet: svc.LiveBet) -> tuple[int, int, int, int, bool]:
    return bet.team, bet.seat, bet.stake, bet.deje, bet.is_ordago


def test_an_envido_and_its_raise() -> None:
    assert fields(live_bet_after("envido 3")) == (1, 1, 3, 1, False)
    assert fields(live_bet_after("envido 3", "envido 2")) == (0, 2, 5, 3, False)


def test_an_ordago_that_opens_the_lance_has_stake_0() -> None:
    assert fields(live_bet_after("ordago")) == (1, 1, 0, 1, True)


def test_an_ordago_that_raises_keeps_the_stake_it_raised() -> None:
    """The stake of the envido it raised, which is also its deje (the proto's comment
    used to say 0 here; the engine always sent this)."""
    assert fields(live_bet_after("envido 3", "ordago")) == (0, 2, 3, 3, True)
    assert fields(live_bet_after("envido 3", "envido 2", "ordago")) == (1, 3, 5, 5, True)
