"""The example bots decide legally from any observation, importable without a server."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from mus_sdk import (
    CARDS,
    MUS,
    NO_MUS,
    NO_QUIERO,
    ORDAGO,
    PASO,
    QUIERO,
    ActionKind,
    Bot,
    DiscardRange,
    EnvidoRange,
    Lance,
    LegalActions,
    LiveBet,
    Observation,
    Phase,
    parse_cards,
    split_decision,
)
from sdk_helpers import (
    discard_observation,
    load_bot_module,
    make_observation,
    mus_observation,
    opening_observation,
)

random_bot = load_bot_module("random")
rulebot = load_bot_module("rulebot")


@st.composite
def observations(draw: st.DrawFn) -> Observation:
    cards = tuple(draw(st.lists(st.sampled_from(CARDS), min_size=4, max_size=4, unique=True)))
    phase = draw(st.sampled_from([Phase.MUS, Phase.DISCARD, Phase.BETTING]))
    seat, mano = draw(st.integers(0, 3)), draw(st.integers(0, 3))
    scores = (draw(st.integers(0, 39)), draw(st.integers(0, 39)))
    if phase is Phase.MUS:
        return make_observation(
            phase=phase,
            lance=None,
            cards=cards,
            legal_actions=LegalActions([MUS, NO_MUS]),
            bet=None,
            seat=seat,
            mano=mano,
            scores=scores,
        )
    if phase is Phase.DISCARD:
        return make_observation(
            phase=phase,
            lance=None,
            cards=cards,
            legal_actions=LegalActions([DiscardRange(cards)]),
            bet=None,
            seat=seat,
            mano=mano,
            scores=scores,
        )
    lance = draw(st.sampled_from(Lance))
    if draw(st.booleans()):
        legal, bet = LegalActions([PASO, EnvidoRange(2, draw(st.sampled_from([None, 5]))), ORDAGO]), None
    elif draw(st.booleans()):
        legal = LegalActions([NO_QUIERO, QUIERO])
        bet = LiveBet(team=1 - seat % 2, seat=(seat + 1) % 4, stake=0, deje=1, is_ordago=True)
    else:
        legal = LegalActions([NO_QUIERO, QUIERO, EnvidoRange(2, None), ORDAGO])
        bet = LiveBet(team=1 - seat % 2, seat=(seat + 1) % 4, stake=draw(st.integers(2, 30)), deje=1)
    return make_observation(
        phase=phase, lance=lance, cards=cards, legal_actions=legal, bet=bet, seat=seat, mano=mano, scores=scores
    )


@pytest.mark.parametrize("make_bot", [lambda: random_bot.RandomBot(0), lambda: rulebot.RuleBot()])
@settings(max_examples=300, deadline=None)
@given(obs=observations())
def test_bots_always_answer_legally(make_bot: object, obs: Observation) -> None:
    """Every answer of both example bots is in the offered legal actions."""
    bot: Bot = make_bot()  # type: ignore[operator]
    action, sena = split_decision(bot.decide(obs))
    assert action in obs.legal_actions, (str(action), str(obs.legal_actions))
    assert sena is None or sena in obs.legal_senas


def test_random_bot_is_deterministic() -> None:
    """The same seed plays the same actions; another seed differs somewhere."""
    obs = [mus_observation(), discard_observation(), opening_observation(), make_observation()] * 10

    def play(seed: int) -> list[str]:
        bot = random_bot.RandomBot(seed)
        return [str(bot.decide(o)) for o in obs]

    assert play(0) == play(0)
    assert play(0) != play(1)


def test_random_bot_seed_from_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """MUS_BOT_SEED seeds the bot; default 0."""
    monkeypatch.setenv("MUS_BOT_SEED", "5")
    assert random_bot.RandomBot().rng.random() == random.Random(5).random()
    monkeypatch.delenv("MUS_BOT_SEED")
    assert random_bot.RandomBot().rng.random() == random.Random(0).random()


class TestRuleBot:
    def test_cuts_mus_with_31(self) -> None:
        """R R C A (31, par of kings) is kept: no hay mus."""
        obs = make_observation(
            phase=Phase.MUS,
            lance=None,
            cards=parse_cards("Ro 3c Co Ab"),
            legal_actions=LegalActions([MUS, NO_MUS]),
            bet=None,
        )
        assert rulebot.RuleBot().decide(obs).kind is ActionKind.NO_MUS

    def test_asks_mus_with_a_poor_hand(self) -> None:
        obs = make_observation(
            phase=Phase.MUS,
            lance=None,
            cards=parse_cards("4o 5c 6o 7b"),
            legal_actions=LegalActions([MUS, NO_MUS]),
            bet=None,
        )
        assert rulebot.RuleBot().decide(obs).kind is ActionKind.MUS

    def test_discards_middle_cards_keeps_kings_and_aces(self) -> None:
        """From R 4 5 A it throws the 4 and the 5."""
        action = rulebot.RuleBot().decide(discard_observation())
        assert sorted(str(c) for c in action.cards) == ["4c", "5o"]

    def test_accepts_ordago_with_four_kings_in_grande(self) -> None:
        obs = make_observation(
            lance=Lance.GRANDE,
            cards=parse_cards("Ro Rc Re Rb"),
            legal_actions=LegalActions([NO_QUIERO, QUIERO]),
            bet=LiveBet(team=0, seat=0, stake=0, deje=1, is_ordago=True),
        )
        assert rulebot.RuleBot().decide(obs) is QUIERO

    def test_declines_ordago_with_a_weak_grande(self) -> None:
        obs = make_observation(
            lance=Lance.GRANDE,
            cards=parse_cards("4o 5c 6o Ab"),
            scores=(0, 0),
            legal_actions=LegalActions([NO_QUIERO, QUIERO]),
            bet=LiveBet(team=0, seat=0, stake=0, deje=1, is_ordago=True),
        )
        assert rulebot.RuleBot().decide(obs) is NO_QUIERO
