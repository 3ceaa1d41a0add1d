"""Señas (docs/rules.md §9): truthfulness, timing, modes, visibility, and when they may be given."""

from __future__ import annotations

import pytest
from helpers import deal, script
from mus_core import (
    MUS,
    NO_MUS,
    EventKind,
    IllegalSignalError,
    Lance,
    MusCorrido,
    Phase,
    Rules,
    Sena,
    SignalMode,
    discard,
)
from mus_core.state import MusState


def new(hands: list[str], rules: Rules | None = None, mano: int = 0) -> MusState:
    return MusState.from_deal(rules or Rules(), deal(hands), mano=mano)


def signals_seen_by(state: MusState, seat: int) -> list[tuple[int, Sena]]:
    return [(e.seat, e.sena) for e in state.view(seat).history if e.kind is EventKind.SIGNAL]


TV06 = ["R 3 C A", "7 6 5 4", "S S 5 4", "R C 7 7"]
P4 = "S0 p; S1 p; S2 p; S3 p"


# ---------------------------------------------------------------------------- truthfulness


def test_dos_reyes_with_8_kings_counts_the_3() -> None:
    s = new(TV06)
    assert Sena.DOS_REYES in s.legal_senas(0)  # R 3 C A: two kings with 8 kings
    assert Sena.TRES_REYES not in s.legal_senas(0)
    s.give_sena(0, Sena.DOS_REYES)
    assert signals_seen_by(s, 2) == [(0, Sena.DOS_REYES)]


def test_dos_reyes_with_4_kings_does_not_count_the_3() -> None:
    s = new(TV06, Rules(kings=4))
    assert Sena.DOS_REYES not in s.legal_senas(0)
    with pytest.raises(IllegalSignalError):
        s.give_sena(0, Sena.DOS_REYES)


@pytest.mark.parametrize(
    ("hand", "true", "false"),
    [
        (
            "R 3 C A",
            {Sena.DOS_REYES, Sena.PARES, Sena.TREINTA_Y_UNA},
            {Sena.JUEGO, Sena.CIEGO, Sena.DOS_ASES, Sena.DUPLES},
        ),
        (
            "R R 3 A",
            {Sena.TRES_REYES, Sena.SOLOMILLO, Sena.TREINTA_Y_UNA},
            {Sena.DOS_REYES, Sena.PARES, Sena.MEDIAS},
        ),
        ("R 3 R 3", {Sena.CUATRO_REYES, Sena.DUPLES, Sena.JUEGO}, {Sena.TRES_REYES, Sena.TREINTA_Y_UNA}),
        ("A 2 7 6", {Sena.DOS_ASES, Sena.PARES}, {Sena.CIEGO, Sena.TRES_ASES}),
        ("A 2 A 4", {Sena.TRES_ASES}, {Sena.DOS_ASES, Sena.CUATRO_ASES}),
        ("A 2 A 2", {Sena.CUATRO_ASES, Sena.DUPLES}, {Sena.TRES_ASES}),
        ("R S 5 5", {Sena.TREINTA, Sena.PARES}, {Sena.VEINTINUEVE, Sena.JUEGO}),
        ("R C 4 5", {Sena.VEINTINUEVE}, {Sena.TREINTA, Sena.CIEGO}),
        ("7 6 5 4", {Sena.CIEGO}, {Sena.PARES, Sena.JUEGO, Sena.TREINTA}),
        ("R C 7 7", {Sena.JUEGO, Sena.PARES}, {Sena.TREINTA_Y_UNA, Sena.CIEGO}),
    ],
)
def test_hand_senas_checked_against_the_hand(hand: str, true: set[Sena], false: set[Sena]) -> None:
    others = ["S 6 5 4", "C 7 6 5", "S 7 4 4"]
    s = new([hand, *others])
    legal = set(s.legal_senas(0))
    assert true <= legal, true - legal
    assert not false & legal, false & legal
    assert {Sena.CORTAR_MUS, Sena.ENVIDAR_MAS} <= legal  # intentions are always allowed
    for sena in false:
        with pytest.raises(IllegalSignalError):
            s.give_sena(0, sena)


def test_untruthful_sena_leaves_history_unchanged() -> None:
    s = new(TV06)
    before = [s.view(i) for i in range(4)]
    with pytest.raises(IllegalSignalError):
        s.give_sena(1, Sena.DOS_REYES)  # 7 6 5 4
    assert [s.view(i) for i in range(4)] == before
    s.give_sena(1, Sena.CIEGO)  # still allowed afterwards


# ---------------------------------------------------------------------------- timing


MEDIAS_HANDS = ["7 7 7 4", "R C 6 A", "S S 5 4", "5 4 3 A"]  # TV-13: S0 holds medias


def test_medias_not_before_grande_is_over() -> None:
    s = new(MEDIAS_HANDS)
    assert Sena.MEDIAS not in s.legal_senas(0)
    with pytest.raises(IllegalSignalError):
        s.give_sena(0, Sena.MEDIAS)
    script(s, "S0 no-mus")
    assert s.current_lance is Lance.GRANDE and s.to_act == 0
    assert Sena.MEDIAS not in s.legal_senas(0)
    script(s, P4)
    assert s.current_lance is Lance.CHICA and s.to_act == 0
    assert Sena.MEDIAS in s.legal_senas(0)
    s.give_sena(0, Sena.MEDIAS)


def test_medias_any_time_without_timing_rules() -> None:
    s = new(MEDIAS_HANDS, Rules(signal_timing_rules=False))
    assert Sena.MEDIAS in s.legal_senas(0)
    s.give_sena(0, Sena.MEDIAS)


def test_window_after_the_deal() -> None:
    s = new(TV06)
    # Every seat may give one seña in the window after the deal.
    for seat in (1, 2, 3):
        assert s.legal_senas(seat)
        s.give_sena(seat, Sena.CORTAR_MUS)
        assert s.legal_senas(seat) == ()
        with pytest.raises(IllegalSignalError):
            s.give_sena(seat, Sena.ENVIDAR_MAS)
    # The first action closes the window: S2 and S3 are not to act.
    s.apply(MUS)
    assert s.legal_senas(2) == () and s.legal_senas(3) == ()
    with pytest.raises(IllegalSignalError):
        s.give_sena(3, Sena.CORTAR_MUS)
    assert s.legal_senas(1)  # S1 is to act: its turn


def test_window_reopens_after_replacements() -> None:
    s = new(TV06)
    for _ in range(4):
        s.apply(MUS)
    assert s.legal_senas(3) == ()  # S0 is to discard; S3 has no window
    for _ in range(4):
        s.apply(discard(sorted(s.hands[s.to_act])[:1]))
    assert s.phase == Phase.MUS
    for seat in (1, 2, 3):
        assert Sena.CORTAR_MUS in s.legal_senas(seat)
    s.give_sena(3, Sena.CORTAR_MUS)


def test_one_sena_per_turn() -> None:
    s = new(TV06)
    script(s, "S0 no-mus; S0 p")
    assert s.to_act == 1
    s.give_sena(1, Sena.CIEGO)
    assert s.legal_senas(1) == ()
    with pytest.raises(IllegalSignalError):
        s.give_sena(1, Sena.ENVIDAR_MAS)
    script(s, "S1 p")
    assert s.to_act == 2 and s.legal_senas(2)
    s.give_sena(2, Sena.PARES)
    script(s, "S2 p; S3 p; S0 p")
    assert s.to_act == 1 and s.legal_senas(1)  # a new turn, a new seña
    s.give_sena(1, Sena.ENVIDAR_MAS)


def test_no_sena_out_of_turn_during_betting() -> None:
    s = new(TV06)
    script(s, "S0 no-mus")
    for seat in (1, 2, 3):
        assert s.legal_senas(seat) == ()
        with pytest.raises(IllegalSignalError):
            s.give_sena(seat, Sena.CORTAR_MUS)


def test_mus_corrido_no_senas_until_the_mus_is_cut() -> None:
    s = new(TV06, Rules(mus_corrido=MusCorrido.FIRST_HAND_OF_MATCH))
    for seat in range(4):
        assert s.legal_senas(seat) == ()
    with pytest.raises(IllegalSignalError):
        s.give_sena(0, Sena.CORTAR_MUS)
    s.apply(MUS)
    assert s.legal_senas(1) == ()
    s.apply(NO_MUS)  # S1 cuts: S1 is mano and speaks first
    assert s.to_act == 1
    assert s.legal_senas(1)
    s.give_sena(1, Sena.CIEGO)


# ---------------------------------------------------------------------------- modes


def test_signals_off() -> None:
    s = new(TV06, Rules(signals=SignalMode.OFF))
    for seat in range(4):
        assert s.legal_senas(seat) == ()
        with pytest.raises(IllegalSignalError):
            s.give_sena(seat, Sena.CORTAR_MUS)
    script(s, "S0 no-mus")
    assert s.legal_senas(0) == ()
    assert s.view(0).legal_senas == ()


def test_two_players_disables_senas() -> None:
    s = new(["R 3 C A", "7 6 5 4"], Rules(players=2, signals=SignalMode.PUBLIC))
    for seat in range(2):
        assert s.legal_senas(seat) == ()
        with pytest.raises(IllegalSignalError):
            s.give_sena(seat, Sena.DOS_REYES if seat == 0 else Sena.CIEGO)


def test_public_signals_seen_by_everybody() -> None:
    s = new(TV06)
    s.give_sena(2, Sena.PARES)
    for seat in range(4):
        assert signals_seen_by(s, seat) == [(2, Sena.PARES)]


def _interception(p: float) -> Rules:
    return Rules(signals=SignalMode.PARTNER_WITH_INTERCEPTION, interception_p=p)


def test_partner_with_interception_zero_opponents_never_see() -> None:
    for seed_hand in range(3):
        s = MusState.from_deal(_interception(0.0), deal(TV06), mano=0, seed=seed_hand)
        s.give_sena(0, Sena.DOS_REYES)
        s.give_sena(1, Sena.CIEGO)
        s.give_sena(2, Sena.PARES)
        s.give_sena(3, Sena.JUEGO)
        assert signals_seen_by(s, 0) == [(0, Sena.DOS_REYES), (2, Sena.PARES)]
        assert signals_seen_by(s, 2) == [(0, Sena.DOS_REYES), (2, Sena.PARES)]
        assert signals_seen_by(s, 1) == [(1, Sena.CIEGO), (3, Sena.JUEGO)]
        assert signals_seen_by(s, 3) == [(1, Sena.CIEGO), (3, Sena.JUEGO)]


def test_partner_with_interception_one_everybody_sees() -> None:
    s = MusState.from_deal(_interception(1.0), deal(TV06), mano=0)
    s.give_sena(0, Sena.DOS_REYES)
    s.give_sena(3, Sena.JUEGO)
    for seat in range(4):
        assert signals_seen_by(s, seat) == [(0, Sena.DOS_REYES), (3, Sena.JUEGO)]


def test_interception_mode_from_mapping() -> None:
    rules = Rules.from_mapping({"signals": "partner_with_interception(0.0)"})
    assert rules.signals is SignalMode.PARTNER_WITH_INTERCEPTION and rules.interception_p == 0.0
    s = MusState.from_deal(rules, deal(TV06), mano=0)
    s.give_sena(2, Sena.PARES)
    assert signals_seen_by(s, 0) == [(2, Sena.PARES)]
    assert signals_seen_by(s, 1) == [] and signals_seen_by(s, 3) == []


def test_view_never_shows_other_cards_with_senas() -> None:
    s = new(TV06)
    s.give_sena(0, Sena.DOS_REYES)
    v = s.view(1)
    assert sorted(v.cards) == sorted(s.hands[1])
    assert not set(v.cards) & set(s.hands[0])
    assert v.legal_senas == s.legal_senas(1)


def test_interception_partner_always_sees_and_is_seeded() -> None:
    def visibility(seed: int) -> list[list[tuple[int, Sena]]]:
        s = MusState.from_deal(_interception(0.5), deal(TV06), mano=0, seed=seed)
        for seat, sena in ((0, Sena.DOS_REYES), (1, Sena.CIEGO), (2, Sena.PARES), (3, Sena.JUEGO)):
            s.give_sena(seat, sena)
        return [signals_seen_by(s, q) for q in range(4)]

    for seed in range(8):
        seen = visibility(seed)
        assert seen == visibility(seed)
        for q in range(4):
            signers = [x for x, _ in seen[q]]
            for signer in range(4):
                if signer % 2 == q % 2:
                    assert signer in signers  # the signer and the partner always see it
