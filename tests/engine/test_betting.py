"""The betting protocol of docs/rules.md §6 and the scoring of §7, one lance at a time."""

from __future__ import annotations

import pytest
from helpers import deal, script
from mus_core import (
    NO_QUEREMOS,
    NO_QUIERO,
    ORDAGO,
    PASO,
    QUEREMOS,
    QUIERO,
    Action,
    EnvidoRange,
    IllegalActionError,
    Lance,
    LanceOutcome,
    Rules,
    envido,
    is_in,
)
from mus_core.state import MusState

# ---------------------------------------------------------------------------- helpers


def run(
    hands: list[str],
    actions: str,
    *,
    mano: int = 0,
    scores: tuple[int, int] = (0, 0),
    rules: Rules | None = None,
) -> MusState:
    state = MusState.from_deal(rules or Rules(), deal(hands), mano=mano, scores=scores)
    return script(state, actions)


def result(state: MusState):
    assert state.hand_results, "the hand is not over"
    return state.hand_results[-1]


def snapshot(state: MusState) -> tuple:
    return (
        tuple(state.view(s) for s in range(state.n)),
        tuple(state.scores),
        state.to_act,
        state.legal_actions(),
        len(state.hand_results),
    )


P4 = "S0 p; S1 p; S2 p; S3 p"
TV06 = ["R 3 C A", "7 6 5 4", "S S 5 4", "R C 7 7"]
TV07 = ["R R A A", "C C 4 4", "7 6 5 4", "S 5 A 6"]


# ---------------------------------------------------------------------------- legal sets


def test_legal_actions_before_and_after_a_bet() -> None:
    s = run(TV07, "S0 no-mus")
    assert s.current_lance is Lance.GRANDE and s.to_act == 0
    assert s.legal_actions() == (PASO, EnvidoRange(2, None), ORDAGO)
    script(s, "S0 e2")
    assert s.legal_actions() == (NO_QUIERO, QUIERO, EnvidoRange(2, None), ORDAGO)
    assert QUEREMOS not in s.legal_actions() and NO_QUEREMOS not in s.legal_actions()


def test_ordago_only_quiero_or_no_quiero() -> None:
    s = run(TV07, "S0 no-mus; S0 O")
    assert s.to_act == 1
    assert set(s.legal_actions()) == {NO_QUIERO, QUIERO}
    for bad in (envido(2), envido(10), ORDAGO, PASO):
        with pytest.raises(IllegalActionError):
            s.apply(bad)


def test_ordago_as_a_raise_allows_only_answers() -> None:
    s = run(TV07, "S0 no-mus; S0 e2; S1 O")
    assert s.to_act == 2
    assert set(s.legal_actions()) == {NO_QUIERO, QUIERO}
    bet = s.bet
    assert bet is not None and bet.is_ordago and bet.deje == 2 and bet.team == 1


@pytest.mark.parametrize("amount", [0, 1])
def test_envido_below_2_rejected(amount: int) -> None:
    s = run(TV07, "S0 no-mus")
    with pytest.raises(IllegalActionError):
        s.apply(envido(amount))
    script(s, "S0 e2")
    with pytest.raises(IllegalActionError):
        s.apply(envido(amount))


# ---------------------------------------------------------------------------- turn order


def test_answerers_polled_in_turn_order_after_the_bettor() -> None:
    # S2 opens after S0 and S1 passed: the answerers are S3 then S1 (both still live).
    s = run(TV07, "S0 no-mus; S0 p; S1 p; S2 e2")
    assert s.to_act == 3
    script(s, "S3 nq")
    assert s.to_act == 1  # S1 passed before the bet: still live
    script(s, "S1 nq")
    assert s.scores == (1, 0)


def test_bettors_partner_is_skipped_in_phase_a() -> None:
    # S0 passes, S1 bets: S3 (S1's partner, not yet spoken) is skipped; S2 then S0 answer.
    s = run(TV06, "S0 no-mus; S0 p; S1 e2")
    assert s.to_act == 2
    script(s, "S2 nq")
    assert s.to_act == 0  # passing before the bet did not eliminate S0
    script(s, "S0 q")
    assert s.current_lance is Lance.CHICA and s.to_act == 0


def test_grande_opened_by_mano_not_by_the_cutter() -> None:
    s = run(TV07, "S0 mus; S1 mus; S2 no-mus")
    assert s.current_lance is Lance.GRANDE
    assert s.to_act == 0
    assert s.mano == 0


@pytest.mark.parametrize("mano", [1, 2, 3])
def test_grande_opened_by_mano_with_other_mano(mano: int) -> None:
    s = MusState.from_deal(Rules(), deal(TV07), mano=mano)
    assert s.to_act == mano
    script(s, f"S{mano} mus; S{(mano + 1) % 4} no-mus")
    assert s.current_lance is Lance.GRANDE and s.to_act == mano


# ---------------------------------------------------------------------------- braver answer


def test_no_quiero_then_quiero_is_accepted() -> None:
    s = run(TV07, "S0 no-mus; S0 e2; S1 nq; S3 q")
    assert s.current_lance is Lance.CHICA and s.scores == (0, 0)


def test_quiero_then_raise_is_a_raise() -> None:
    s = run(TV07, "S0 no-mus; S0 e2; S1 q")
    assert s.to_act == 3 and s.current_lance is Lance.GRANDE  # the partner is still polled
    script(s, "S3 +3")
    bet = s.bet
    assert bet is not None and (bet.team, bet.seat, bet.stake, bet.deje) == (1, 3, 5, 2)
    assert s.to_act == 0
    script(s, "S0 nq; S2 nq")
    assert s.scores == (0, 2)


def test_quiero_then_partner_quiero_accepted_at_stake() -> None:
    s = run(TV07, "S0 no-mus; S0 e5; S1 q; S3 q;" + P4 + "; S0 p; S1 p;" + P4)
    r = result(s)
    assert r.lances[0].outcome is LanceOutcome.ACCEPTED and r.lances[0].stake == 5
    assert r.lances[0].points == 5 and r.lances[0].winner_team == 0


def test_quiero_against_ordago_ends_the_polling() -> None:
    s = run(TV07, "S0 no-mus; S0 O; S1 q")
    r = result(s)
    assert r.ended_by == "ordago:grande" and r.game_winner == 0


def test_elimination_lasts_across_re_raises() -> None:
    s = run(TV07, "S0 no-mus; S0 e2; S1 nq; S3 +2; S0 +2")
    assert s.to_act == 3  # S1 is out for the rest of the lance
    script(s, "S3 +2")
    assert s.to_act == 0
    script(s, "S0 +2")
    assert s.to_act == 3
    script(s, "S3 nq")
    assert s.scores == (8, 0)  # deje = 8, the stake S3 had raised to before S0's last raise


def test_deje_values_2_4_7_12_declined_gives_7() -> None:
    s = run(TV07, "S0 no-mus; S0 e2")
    assert (s.bet.stake, s.bet.deje) == (2, 1)  # type: ignore[union-attr]
    script(s, "S1 +2")
    assert (s.bet.stake, s.bet.deje) == (4, 2)  # type: ignore[union-attr]
    script(s, "S2 nq; S0 +3")
    assert (s.bet.stake, s.bet.deje) == (7, 4)  # type: ignore[union-attr]
    script(s, "S1 +5")
    assert (s.bet.stake, s.bet.deje) == (12, 7)  # type: ignore[union-attr]
    script(s, "S0 nq")
    assert s.scores == (0, 7)


def test_first_bet_declined_gives_1() -> None:
    s = run(TV07, "S0 no-mus; S0 e10; S1 nq; S3 nq")
    assert s.scores == (1, 0)


# ---------------------------------------------------------------------------- max_stake


def test_max_stake_caps_the_envido_range() -> None:
    s = run(TV07, "S0 no-mus", rules=Rules(max_stake=10))
    assert EnvidoRange(2, 10) in s.legal_actions()
    with pytest.raises(IllegalActionError):
        s.apply(envido(11))
    script(s, "S0 e4")
    assert EnvidoRange(2, 6) in s.legal_actions()
    assert is_in(envido(6), s.legal_actions()) and not is_in(envido(7), s.legal_actions())
    with pytest.raises(IllegalActionError):
        s.apply(envido(7))
    script(s, "S1 +5")  # stake 9: no room for a raise of 2
    legal = s.legal_actions()
    assert not any(isinstance(a, EnvidoRange) for a in legal)
    assert ORDAGO in legal and QUIERO in legal and NO_QUIERO in legal
    with pytest.raises(IllegalActionError):
        s.apply(envido(2))


def test_no_max_stake_by_default() -> None:
    s = run(TV07, "S0 no-mus; S0 e1000")
    assert s.bet is not None and s.bet.stake == 1000
    script(s, "S1 +5000")
    assert s.bet.stake == 6000


# ---------------------------------------------------------------------------- plural answers


def test_plural_answers_illegal_by_default() -> None:
    s = run(TV07, "S0 no-mus; S0 e2")
    before = snapshot(s)
    for a in (QUEREMOS, NO_QUEREMOS):
        with pytest.raises(IllegalActionError):
            s.apply(a)
    assert snapshot(s) == before


def test_no_queremos_binds_the_partner() -> None:
    rules = Rules(plural_answers_bind_partner=True)
    s = run(TV07, "S0 no-mus; S0 e2", rules=rules)
    assert QUEREMOS in s.legal_actions() and NO_QUEREMOS in s.legal_actions()
    script(s, "S1 no-queremos")
    assert s.scores == (1, 0)
    assert s.current_lance is Lance.CHICA  # S3 was not polled


def test_queremos_binds_the_partner() -> None:
    rules = Rules(plural_answers_bind_partner=True)
    s = run(TV07, "S0 no-mus; S0 e3; S1 queremos", rules=rules)
    assert s.current_lance is Lance.CHICA and s.to_act == 0
    script(s, P4 + "; S0 p; S1 p;" + P4)
    r = result(s)
    assert r.lances[0].outcome is LanceOutcome.ACCEPTED and r.lances[0].stake == 3


def test_singular_answers_still_poll_partner_with_plural_variant() -> None:
    rules = Rules(plural_answers_bind_partner=True)
    s = run(TV07, "S0 no-mus; S0 e2; S1 nq", rules=rules)
    assert s.to_act == 3
    s = run(TV07, "S0 no-mus; S0 e2; S1 q", rules=rules)
    assert s.to_act == 3


def test_plural_answer_needs_a_partner_to_bind() -> None:
    # With one live answerer there is nobody to bind: only the singular answers.
    rules = Rules(plural_answers_bind_partner=True)
    s = run(TV07, "S0 no-mus; S0 e2; S1 nq; S3 +2", rules=rules)
    assert s.to_act == 0
    s2 = run(TV07, "S0 no-mus; S0 e2; S1 nq; S3 +2; S0 +2", rules=rules)
    assert s2.to_act == 3
    assert QUEREMOS not in s2.legal_actions() and NO_QUEREMOS not in s2.legal_actions()


# ---------------------------------------------------------------------------- illegal actions


@pytest.mark.parametrize(
    ("setup", "bad"),
    [
        ("S0 no-mus", "quiero"),
        ("S0 no-mus", "no-quiero"),
        ("S0 no-mus", "mus"),
        ("S0 no-mus", "no-mus"),
        ("S0 no-mus", "discard Ao"),
        ("S0 no-mus; S0 e2", "paso"),
        ("S0 no-mus; S0 e2", "e1"),
        ("S0 no-mus; S0 O", "+2"),
        ("S0 no-mus; S0 O", "O"),
        ("", "paso"),
        ("", "e2"),
    ],
)
def test_illegal_action_raises_and_leaves_state_unchanged(setup: str, bad: str) -> None:
    s = run(TV07, setup)
    before = snapshot(s)
    seat = s.to_act
    action = Action.parse(bad)
    with pytest.raises(IllegalActionError) as info:
        s.apply(action)
    err = info.value
    assert err.seat == seat
    assert err.action == action
    assert err.legal == before[3]
    msg = str(err)
    assert f"S{seat}" in msg and str(action) in msg
    for legal in err.legal:
        assert str(legal) in msg
    assert snapshot(s) == before
    # The state still works: the first legal fixed action is accepted.
    s.apply(next(a for a in before[3] if isinstance(a, Action)))


# ---------------------------------------------------------------------------- pares / juego rounds


def test_juego_holders_pass_with_non_holders_between_does_not_stall() -> None:
    # TV-06 cards: juego holders S0 (31) and S3 (34); S1, S2 sit between without juego.
    s = run(TV06, "S0 no-mus;" + P4 + ";" + P4 + "; S0 p; S2 p; S3 p")
    assert s.current_lance is Lance.JUEGO and s.to_act == 0
    script(s, "S0 p")
    assert s.to_act == 3
    script(s, "S3 p")
    r = result(s)
    assert r.lances[3].outcome is LanceOutcome.EN_PASO
    assert r.lances[3].winner_seat == 0 and r.lances[3].points == 3  # 31 is worth 3


def test_juego_holders_s1_s2_with_mano_and_postre_without() -> None:
    hands = ["7 6 5 4", "R C S A", "R C 7 7", "S 6 5 A"]
    s = run(hands, "S0 no-mus;" + P4 + ";" + P4)
    # pares: S2 (7 7) only: one team; juego: S1 (31) and S2 (34)
    assert s.current_lance is Lance.JUEGO and s.to_act == 1
    script(s, "S1 e2")
    assert s.to_act == 2  # S3 (no juego) is never asked
    script(s, "S2 nq")
    r = result(s)
    assert r.lances[3].outcome is LanceOutcome.DECLINED
    # grande S1 (R C S A beats R C 7 7 at the third card) T1 +1; chica S3 (A 5 vs A S) T1 +1;
    # pares only S2 (7 7): T0 +1; juego deje T1 +1 and T1's own values (S1's 31) +3.
    assert r.lances[3].points == 3 and r.lances[3].winner_team == 1
    assert r.scores_after == (1, 6)


def test_non_eligible_seats_never_bet_in_pares() -> None:
    s = run(TV06, "S0 no-mus;" + P4 + "; S0 p; S1 e2; S2 nq; S0 q")
    assert s.current_lance is Lance.PARES and s.to_act == 0
    script(s, "S0 p")
    assert s.to_act == 2  # S1 has no pares
    script(s, "S2 e2")
    assert s.to_act == 3  # only S3 answers


def test_pares_and_juego_values_score_en_paso() -> None:
    s = run(TV06, "S0 no-mus;" + P4 + ";" + P4 + "; S0 p; S2 p; S3 p; S0 p; S3 p")
    r = result(s)
    pares, juego = r.lances[2], r.lances[3]
    assert pares.outcome is LanceOutcome.EN_PASO and juego.outcome is LanceOutcome.EN_PASO
    # pares: S0's par of kings wins; T0 holds two pares (Anna, Carla): 1 + 1.
    assert (pares.winner_seat, pares.points) == (0, 2)
    # juego: S0's 31 wins; Carla (29) has none: 3.
    assert (juego.winner_seat, juego.points) == (0, 3)
    # grande 1 + chica 1 + 2 + 3
    assert r.scores_after == (7, 0)


def test_declined_juego_betting_team_collects_own_values() -> None:
    # Juego: S0 31 and S2 33 (T0) vs S1 32 (T1). S1 bets, T0 declines:
    # T1 gets deje 1 and, at the count, its own juego values (2), although T0's 31 is better.
    hands = ["R C S A", "R C 6 6", "R C 7 6", "7 5 4 A"]
    s = run(hands, "S0 no-mus;" + P4 + ";" + P4)
    # pares: only S1 (6 6): one team, no betting.
    assert s.current_lance is Lance.JUEGO and s.to_act == 0
    script(s, "S0 p; S1 e2; S2 nq")
    assert s.to_act == 0  # S0 passed before the bet: still live; S3 has no juego
    script(s, "S0 nq")
    r = result(s)
    juego = r.lances[3]
    assert juego.outcome is LanceOutcome.DECLINED and juego.deje == 1
    assert juego.winner_team == 1 and juego.points == 2
    # grande: S0 R C S A vs S2 R C 7 6 vs S1 R C 6 6: S0 (S > 7). T0 +1.
    # chica: S3 A 4 5 7. T1 +1.
    # pares: S1 par of 6, the only pares: T1 +1. Juego: deje 1 + S1's 32 (2).
    assert r.scores_after == (1, 1 + 1 + 1 + 2)


def test_declined_ordago_juego_betting_team_collects_own_values() -> None:
    hands = ["R C S A", "R C 6 6", "R C 7 6", "7 5 4 A"]
    s = run(hands, "S0 no-mus;" + P4 + ";" + P4 + "; S0 p; S1 e2; S2 O; S1 nq")
    r = result(s)
    juego = r.lances[3]
    assert juego.outcome is LanceOutcome.DECLINED and juego.deje == 2
    # T0's own values: S0 31 (3) + S2 33 (2).
    assert juego.winner_team == 0 and juego.points == 5
    assert r.scores_after == (1 + 2 + 5, 1 + 1)


def test_both_partners_values_count() -> None:
    # TV-16: one team has juego; S0 31 (3) + S2 40 (2) = 5.
    s = run(["R C S A", "7 6 5 4", "R C S S", "5 5 4 4"], "S0 no-mus;" + P4 + ";" + P4 + "; S2 p; S3 p")
    assert result(s).lances[3].points == 5
    # Accepted pares: stake + both partners' values.
    hands = ["R R 5 4", "C C 7 6", "S S 7 6", "5 4 A 6"]
    s = run(hands, "S0 no-mus;" + P4 + ";" + P4 + "; S0 e2; S1 q; S1 p; S2 p")
    pares = result(s).lances[2]
    assert pares.outcome is LanceOutcome.ACCEPTED
    assert pares.winner_seat == 0 and pares.points == 2 + 1 + 1


# ---------------------------------------------------------------------------- game end


def test_deje_reaching_target_ends_the_game_at_once() -> None:
    s = run(TV07, "S0 no-mus; S0 e2; S1 nq; S3 nq", scores=(39, 0))
    r = result(s)
    assert r.game_over and r.game_winner == 0 and r.ended_by == "deje:grande"
    assert r.scores_after == (40, 0)
    assert [lr.outcome for lr in r.lances] == [LanceOutcome.DECLINED] + [LanceOutcome.NOT_PLAYED] * 3
    assert s.games_won == (1, 0) and s.scores == (0, 0) and not s.is_terminal
    assert s.hand_no == 1 and len(s.hand_results) == 1


def test_deje_reaching_target_in_pares() -> None:
    s = run(TV06, "S0 no-mus;" + P4 + ";" + P4 + "; S0 p; S2 e5; S3 +2; S0 nq; S2 nq", scores=(0, 35))
    r = result(s)
    assert r.scores_after == (0, 40)
    assert r.game_winner == 1 and r.ended_by == "deje:pares"
    assert r.lances[3].outcome is LanceOutcome.NOT_PLAYED


def test_deje_below_target_does_not_end_the_game() -> None:
    s = run(TV07, "S0 no-mus; S0 e2; S1 nq; S3 nq", scores=(38, 0))
    assert not s.hand_results and s.scores == (39, 0) and s.current_lance is Lance.CHICA


def test_accepted_ordago_decides_the_game_whatever_the_scores() -> None:
    # S1 calls órdago in grande at 0-39; S0's R R A A wins grande: T0 wins the game.
    s = run(TV07, "S0 no-mus; S0 p; S1 O; S2 nq; S0 q", scores=(0, 39))
    r = result(s)
    assert r.game_over and r.game_winner == 0 and r.ended_by == "ordago:grande"
    assert r.lances[0].outcome is LanceOutcome.ORDAGO and r.lances[0].winner_seat == 0
    assert s.games_won == (1, 0)


def test_accepted_ordago_in_pares_only_eligible_hands() -> None:
    # TV-06 cards: pares S0 (kings), S2 (S), S3 (7s). S3 ordago, S0 q: S0's kings win.
    s = run(TV06, "S0 no-mus;" + P4 + ";" + P4 + "; S0 p; S2 p; S3 O; S0 q")
    r = result(s)
    assert r.ended_by == "ordago:pares" and r.game_winner == 0 and r.lances[2].winner_seat == 0


def test_accepted_ordago_in_punto() -> None:
    s = run(TV07, "S0 no-mus;" + P4 + ";" + P4 + "; S0 p; S1 p; S0 O; S1 q")
    r = result(s)
    assert r.ended_by == "ordago:punto" and r.game_winner == 1
    assert r.lances[3].lance is Lance.PUNTO and r.lances[3].winner_seat == 1


def test_game_ends_mid_count_at_chica() -> None:
    # TV-07 cards, all pass, 38-30: grande T0 +1 (39), chica T0 +1 (40): pares and punto are not counted.
    s = run(TV07, "S0 no-mus;" + P4 + ";" + P4 + "; S0 p; S1 p;" + P4, scores=(38, 30))
    r = result(s)
    assert r.ended_by == "count:chica" and r.game_winner == 0
    assert r.scores_after == (40, 30)
    assert [lr.counted for lr in r.lances] == [True, True, False, False]
    assert [lr.points for lr in r.lances] == [1, 1, 0, 0]


def test_count_order_beats_a_later_bigger_lance() -> None:
    # TV-11: T1 would get 7 in chica, pares and juego; grande comes first.
    s = run(
        ["R R C 4", "C C S S", "4 5 6 7", "6 6 4 A"],
        "S0 no-mus; S0 e3; S1 q; S3 q;" + P4 + "; S0 p; S1 p; S3 p; S0 p; S1 p",
        scores=(37, 38),
    )
    assert result(s).game_winner == 0


# ---------------------------------------------------------------------------- other tables


def test_six_players_polls_all_live_opponents() -> None:
    hands = ["R R 4 5", "C 7 6 4", "C C 5 6", "S 7 5 A", "S S 4 6", "7 6 4 A"]
    s = MusState.from_deal(Rules(players=6), deal(hands), mano=0)
    script(s, "S0 no-mus; S0 e2")
    assert s.to_act == 1
    script(s, "S1 nq")
    assert s.to_act == 3
    script(s, "S3 nq")
    assert s.to_act == 5
    script(s, "S5 +2")
    assert s.to_act == 0  # T0's live players after S5: S0, S2, S4
    script(s, "S0 nq; S2 nq")
    assert s.to_act == 4
    script(s, "S4 nq")
    assert s.scores == (0, 2)


def test_six_players_values_of_three_partners() -> None:
    # pares: S0 par R, S2 par C, S4 par S; T1 none: one team, 1 + 1 + 1.
    # juego: only S2 (31): one team, 3.
    hands = ["R R 4 5", "C 7 6 4", "C C 5 6", "S 7 5 A", "S S 4 6", "7 6 4 A"]
    s = MusState.from_deal(Rules(players=6), deal(hands), mano=0)
    six = "; ".join(f"S{i} p" for i in range(6))
    script(s, "S0 no-mus;" + six + ";" + six)
    r = result(s)
    assert r.lances[2].outcome is LanceOutcome.ONE_TEAM and r.lances[2].points == 3
    assert r.lances[3].outcome is LanceOutcome.ONE_TEAM and r.lances[3].points == 3


def test_two_players_single_answerer() -> None:
    hands = ["R R A A", "C C 4 4"]
    s = MusState.from_deal(Rules(players=2), deal(hands), mano=0)
    script(s, "S0 no-mus; S0 e2; S1 nq")
    assert s.scores == (1, 0) and s.current_lance is Lance.CHICA and s.to_act == 0


def test_only_the_seat_to_act_has_legal_actions_in_its_view() -> None:
    s = run(TV07, "S0 no-mus; S0 e2")
    for seat in range(4):
        view = s.view(seat)
        assert view.to_act == 1
        assert (view.legal_actions != ()) == (seat == 1)
        assert view.bet == s.bet
