"""docs/rules.md §13 TV-20 to TV-25 (issue 29, item 7): what the rules documents had left
unsaid or said against the engine, decided and tested straight through :class:`MusState`."""

from __future__ import annotations

import pytest
from helpers import deal, script
from mus_core import MUS, IllegalSignalError, MusCorrido, Phase, Rules, Sena, discard
from mus_core.state import CARDS, MusState, _permute

TV06 = ["R 3 C A", "7 6 5 4", "S S 5 4", "R C 7 7"]
CORRIDO = MusCorrido.FIRST_HAND_OF_MATCH


def test_tv20_max_mus_rounds_cuts_the_mus_corrido_and_opens_the_senas() -> None:
    """``max_mus_rounds`` ends the mus phase as a no-mus would: under ``mus_corrido`` the
    current nominal mano stays mano and señas open (a window after the replacements)."""
    s = MusState.from_deal(Rules(mus_corrido=CORRIDO, max_mus_rounds=1), deal(TV06), mano=0)
    assert all(s.legal_senas(q) == () for q in range(4))
    for _ in range(4):
        s.apply(MUS)
    assert s.mano == 1 and all(s.legal_senas(q) == () for q in range(4))  # discarding: still no señas
    for _ in range(4):
        s.apply(discard(sorted(s.hands[s.to_act])[:1]))
    assert s.phase is Phase.BETTING and s.mano == 1 and s.to_act == 1
    for q in range(4):
        assert Sena.CORTAR_MUS in s.legal_senas(q)  # the window after the replacements
    s.give_sena(3, Sena.CORTAR_MUS)


def test_tv21_the_cutter_gives_no_sena_with_its_no_mus() -> None:
    """Under ``mus_corrido`` a seña goes before its action: when the cutter gives it the
    mus is not cut yet, so it is refused; the cutter signals on its next turn."""
    s = MusState.from_deal(Rules(mus_corrido=CORRIDO), deal(TV06), mano=0)
    s.apply(MUS)
    with pytest.raises(IllegalSignalError):
        s.give_sena(1, Sena.CORTAR_MUS)
    script(s, "S1 no-mus")
    assert s.mano == 1 and s.to_act == 1
    s.give_sena(1, Sena.ENVIDAR_MAS)


def test_tv22_treinta_and_veintinueve_at_any_time() -> None:
    """Only ``medias`` has a timing rule: ``treinta`` and ``veintinueve`` are accepted
    whenever señas may be given, before the mus included, timing rules on."""
    s = MusState.from_deal(Rules(signal_timing_rules=True), deal(["R C 6 4", "7 6 5 4", "S S 5 4", "R C 7 7"]),
                           mano=0)
    assert s.phase is Phase.MUS
    s.give_sena(0, Sena.TREINTA)  # R C 6 4: punto 30
    s.give_sena(2, Sena.VEINTINUEVE)  # S S 5 4: punto 29


def test_tv23_dejes_stay_in_the_score_after_an_accepted_ordago() -> None:
    """TV-09: the grande deje brought T1 to 38; the accepted órdago gives T0 the game,
    and the game's final score still shows T1's 38 (only the game's winner changes)."""
    s = MusState.from_deal(Rules(), deal(["R C 6 5", "R R 7 S", "A 2 S 4", "C 7 5 4"]), mano=0, scores=(5, 37))
    script(s, "S0 no-mus; S0 p; S1 e2; S2 nq; S0 nq; S0 p; S1 p; S2 O; S3 q")
    r = s.hand_results[-1]
    assert r.game_winner == 0 and r.scores_after == (5, 38)


def test_tv24_games_to_win_one_is_a_single_game() -> None:
    """``games_to_win = 1`` (the demo's): the first game won ends the match; 0 is refused."""
    s = MusState.from_deal(Rules(games_to_win=1), deal(["R R A A", "C C 4 4", "7 6 5 4", "S 5 A 6"]), mano=0,
                           scores=(39, 0))
    script(s, "S0 no-mus; S0 e2; S1 nq; S3 nq")
    assert s.is_terminal and s.match_winner == 0
    with pytest.raises(ValueError):
        Rules(games_to_win=0)


@pytest.mark.parametrize(("players", "first_dealer"), [(2, 1), (4, 3), (4, 1), (6, 5), (6, 2)])
def test_tv25_dealing_with_n_seats(players: int, first_dealer: int) -> None:
    """§2.3 for n seats: card k of the shuffled deck (k < 4n) goes to seat (start + k) mod
    n, start being mano, one at a time; the 40 − 4n cards left are the stock."""
    rules = Rules(players=players)
    state = MusState.new(rules, seed=7, first_dealer=first_dealer)
    deck = list(CARDS)
    _permute(deck, MusState(rules, 7, 0)._prf.draw(b"deal:0"))  # the shuffle of hand 0
    start = state.deal_start
    assert start == state.mano == (first_dealer + 1) % players
    for seat in range(players):
        want = sorted(deck[k] for k in range(4 * players) if (start + k) % players == seat)
        assert sorted(state.hands[seat]) == want
    assert 40 - sum(len(h) for h in state.hands) == 40 - 4 * players
