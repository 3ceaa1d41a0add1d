"""Hand evaluation per lance: docs/rules.md §1 (ranks, values, totals) and §4 (the lances)."""

from __future__ import annotations

import itertools

import pytest
from helpers import deal
from mus_core import CARDS, JuegoReal
from mus_core.evaluate import PARES_DUPLES, PARES_MEDIAS, PARES_NONE, PARES_PAR, HandValue, evaluate

OFF = JuegoReal.OFF


def ev(text: str, kings: int = 8, real: JuegoReal = OFF) -> HandValue:
    """Evaluate a hand of bare ranks ("R 3 C A"); suits are irrelevant (§1.1)."""
    return evaluate(deal([text])[0], kings, real)


# ---------------------------------------------------------------------------- §1 values


@pytest.mark.parametrize(
    ("hand", "kings", "total"),
    [
        ("R C S 7", 8, 37),
        ("3 3 2 2", 8, 22),  # 3 = king (10), 2 = ace (1)
        ("3 3 2 2", 4, 10),  # natural values
        ("A A A A", 8, 4),
        ("2 2 A A", 8, 4),
        ("R 3 C A", 8, 31),
        ("R 3 C A", 4, 24),
        ("6 5 4 A", 8, 16),
        ("7 6 5 4", 4, 22),
    ],
)
def test_point_values(hand: str, kings: int, total: int) -> None:
    assert ev(hand, kings).total == total


def _natural_value(rank: int, kings: int) -> int:
    """Point value of a natural rank index (A=0 .. R=9), written out from §1.2/§1.3."""
    values_8 = [1, 1, 10, 4, 5, 6, 7, 10, 10, 10]  # A 2 3 4 5 6 7 S C R
    values_4 = [1, 2, 3, 4, 5, 6, 7, 10, 10, 10]
    return (values_8 if kings == 8 else values_4)[rank]


@pytest.mark.parametrize(
    ("kings", "expected"),
    [
        (8, {4} | set(range(7, 38)) | {40}),
        (4, set(range(4, 38)) | {40}),
    ],
)
def test_possible_totals(kings: int, expected: set[int]) -> None:
    """§1.4: enumerate every 4-card rank multiset (at most 4 cards per rank)."""
    seen = set()
    for ranks in itertools.combinations_with_replacement(range(10), 4):
        cards = []
        counts: dict[int, int] = {}
        for r in ranks:
            cards.append(CARDS[r * 4 + counts.get(r, 0)])
            counts[r] = counts.get(r, 0) + 1
        e = evaluate(cards, kings, OFF)
        assert e.total == sum(_natural_value(r, kings) for r in ranks)
        seen.add(e.total)
    assert seen == expected
    assert not seen & {38, 39}
    if kings == 8:
        assert not seen & {5, 6}


# ---------------------------------------------------------------------------- §4.1 grande


def test_grande_tv01_8_kings() -> None:
    assert ev("R 3 4 4").grande_key > ev("R C C C").grande_key


def test_grande_tv01_4_kings() -> None:
    assert ev("R C C C", 4).grande_key > ev("R 3 4 4", 4).grande_key


@pytest.mark.parametrize(
    ("better", "worse"),
    [
        ("R A A A", "C C C C"),  # first card decides
        ("R C S 7", "R C S 6"),  # fourth card decides
        ("R C S A", "R C 7 7"),
        ("S 7 6 5", "7 7 7 7"),
        ("4 A A A", "A A A A"),
        ("R C S S", "R C S A"),  # TV-16
    ],
)
def test_grande_order(better: str, worse: str) -> None:
    assert ev(better).grande_key > ev(worse).grande_key


def test_grande_equivalent_cards_tie() -> None:
    assert ev("R 3 4 4").grande_key == ev("R R 4 4").grande_key
    assert ev("5 2 A 7").grande_key == ev("5 A A 7").grande_key
    assert ev("R C 5 4").grande_key == ev("4 5 C R").grande_key


# ---------------------------------------------------------------------------- §4.2 chica


def test_chica_tv02a_both_variants() -> None:
    assert ev("A 2 7 R").chica_key > ev("A 4 5 6").chica_key
    assert ev("A 2 7 R", 4).chica_key > ev("A 4 5 6", 4).chica_key


@pytest.mark.parametrize(
    ("better", "worse", "kings"),
    [
        ("A 4 5 6", "4 4 4 4", 8),
        ("A A 4 S", "A A 5 6", 8),
        ("A 4 5 R", "A 6 C R", 8),  # TV-13
        ("A A R R", "A 5 6 S", 8),  # TV-07
        ("4 5 6 7", "4 5 C R", 8),  # TV-05: the third card decides
        ("A 2 3 4", "A 2 4 4", 4),  # 3 < 4 with 4 kings
        ("A 3 3 3", "2 2 2 2", 4),  # A < 2 with 4 kings
        ("2 4 5 6", "3 3 3 3", 4),
    ],
)
def test_chica_order(better: str, worse: str, kings: int) -> None:
    assert ev(better, kings).chica_key > ev(worse, kings).chica_key


def test_chica_equivalent_aces_tie() -> None:
    assert ev("A 2 S 4").chica_key == ev("2 A 4 S").chica_key == ev("A A 4 S").chica_key
    assert ev("2 A 4 S", 4).chica_key != ev("A A 4 S", 4).chica_key


# ---------------------------------------------------------------------------- §4.3 pares


@pytest.mark.parametrize(
    ("hand", "kings", "kind"),
    [
        ("R R A A", 8, PARES_DUPLES),
        ("R 3 R 3", 8, PARES_DUPLES),  # four kings
        ("5 5 5 5", 8, PARES_DUPLES),  # four of a kind
        ("R R R 4", 8, PARES_MEDIAS),
        ("2 A A 5", 8, PARES_MEDIAS),
        ("R 3 C 4", 8, PARES_PAR),
        ("A 2 7 R", 8, PARES_PAR),
        ("R C S A", 8, PARES_NONE),
        ("R 3 C 4", 4, PARES_NONE),  # TV-03.6
        ("R 3 C C", 4, PARES_PAR),  # TV-03.6: a par of C, not duples
        ("3 3 2 2", 4, PARES_DUPLES),
        ("3 3 R R", 8, PARES_DUPLES),  # four kings with 8 kings
        ("3 3 R R", 4, PARES_DUPLES),  # R/3 duples with 4 kings
        ("5 4 3 A", 8, PARES_NONE),  # TV-13: R 5 4 A
    ],
)
def test_pares_kind(hand: str, kings: int, kind: int) -> None:
    e = ev(hand, kings)
    assert e.pares == kind
    assert (e.pares_key > 0) == (kind != PARES_NONE)


@pytest.mark.parametrize(
    ("better", "worse"),
    [
        ("R R A A", "R R R 4"),  # TV-03.1: duples > medias
        ("R 3 R 3", "R R C C"),  # TV-03.2: four kings beat R-R-C-C
        ("R R C C", "5 5 5 5"),  # four 5s lose to R-R-C-C
        ("R R 4 4", "C C S S"),  # TV-03.3: the higher pair first
        ("5 5 5 5", "5 5 4 4"),  # then the lower pair
        ("6 6 4 4", "5 5 5 5"),
        ("2 A A 5", "R 3 C 4"),  # TV-03.4: medias > par
        ("A A A 4", "R C 7 7"),
        ("R R R 4", "7 7 7 4"),
        ("S S 5 4", "7 7 C R"),  # par of S > par of 7
        ("5 5 4 A", "A 2 6 7"),  # par of 5 > par of aces (TV-05 tie case)
    ],
)
def test_pares_order(better: str, worse: str) -> None:
    assert ev(better).pares_key > ev(worse).pares_key


def test_pares_no_kickers() -> None:
    # TV-03.5: both a par of kings; the other cards are not compared.
    assert ev("R 3 C 4").pares_key == ev("R R 6 5").pares_key
    assert ev("7 7 7 A").pares_key == ev("7 7 7 R").pares_key
    assert ev("R R R A").pares_key == ev("R 3 3 4").pares_key


@pytest.mark.parametrize(
    ("hand", "value"), [("R R C 4", 1), ("7 7 7 4", 2), ("R R A A", 3), ("5 5 5 5", 3), ("7 6 5 4", 0)]
)
def test_pares_values(hand: str, value: int) -> None:
    assert ev(hand).pares == value


# ---------------------------------------------------------------------------- §4.4 juego


JUEGO_HANDS = {
    31: "R C S A",
    32: "R C 6 6",
    40: "R C S S",
    37: "R C S 7",
    36: "R C S 6",
    35: "R C S 5",
    34: "R C 7 7",
    33: "R C 7 6",
}


def test_juego_hands_have_their_totals() -> None:
    for total, hand in JUEGO_HANDS.items():
        assert ev(hand).total == total


def test_juego_order() -> None:
    order = [31, 32, 40, 37, 36, 35, 34, 33]
    strengths = [ev(JUEGO_HANDS[t]).juego_key for t in order]
    assert all(s > 0 for s in strengths)
    assert all(a > b for a, b in itertools.pairwise(strengths)), strengths


@pytest.mark.parametrize(
    ("hand", "value"),
    [("R C S A", 3), ("R 3 C A", 3), ("R C S S", 2), ("R C 7 6", 2), ("R C 5 5", 0), ("7 6 5 4", 0)],
)
def test_juego_values(hand: str, value: int) -> None:
    e = ev(hand)
    assert e.juego_value == value
    assert (e.juego_key > 0) == (value > 0)


def test_tv04_de_example() -> None:
    assert ev("R 3 C A").juego_key > ev("R C 7 7").juego_key


def test_thirty_is_no_juego() -> None:
    assert ev("R C 5 5").total == 30 and ev("R C 5 5").juego_key == 0


def test_equal_31s_tie_without_real() -> None:
    assert ev("R R R A").juego_key == ev("7 7 7 S").juego_key == ev("7 7 7 3").juego_key


@pytest.mark.parametrize(
    ("fourth", "any_ten", "figure", "sota"),
    [
        ("S", True, True, True),
        ("C", True, True, False),
        ("R", True, True, False),
        ("3", True, False, False),  # 8 kings: 3 is a king worth 10
    ],
)
def test_juego_real_variants(fourth: str, any_ten: bool, figure: bool, sota: bool) -> None:
    hand = f"7 7 7 {fourth}"
    plain = ev("R R R A")  # a 31 that is never real
    for variant, is_real in (
        (JuegoReal.OFF, False),
        (JuegoReal.ANY_TEN_CARD, any_ten),
        (JuegoReal.FIGURE_NO_THREE, figure),
        (JuegoReal.SOTA_ONLY, sota),
    ):
        e = ev(hand, 8, variant)
        p = ev("R R R A", 8, variant)
        assert e.total == 31 and e.juego_value == 3, variant  # a real is worth any 31
        if is_real:
            assert e.juego_key > p.juego_key, (hand, variant)
        else:
            assert e.juego_key == p.juego_key == plain.juego_key, (hand, variant)


def test_real_beats_every_juego_and_reales_tie() -> None:
    real = ev("7 7 7 S", 8, JuegoReal.ANY_TEN_CARD)
    for hand in JUEGO_HANDS.values():
        assert real.juego_key > ev(hand, 8, JuegoReal.ANY_TEN_CARD).juego_key
    assert real.juego_key == ev("7 7 7 C", 8, JuegoReal.ANY_TEN_CARD).juego_key


def test_777_3_with_4_kings_is_no_juego() -> None:
    e = ev("7 7 7 3", 4, JuegoReal.ANY_TEN_CARD)
    assert e.total == 24 and e.juego_key == 0


# ---------------------------------------------------------------------------- §4.5 punto


def test_punto_order() -> None:
    # Punto is decided by the highest total (30 best, down to 4).
    totals = [ev(h).total for h in ("R S 5 5", "R C 4 5", "S 6 7 4", "7 6 5 4", "A A A A")]
    assert totals == [30, 29, 27, 22, 4]
    assert ev("R S 5 5").total == ev("C S 6 4").total == 30  # TV-05 tie


# ---------------------------------------------------------------------------- counts for señas


def test_kings_and_aces_counts() -> None:
    assert (ev("R 3 C A").kings, ev("R 3 C A").aces) == (2, 1)
    assert (ev("R 3 C A", 4).kings, ev("R 3 C A", 4).aces) == (1, 1)
    assert (ev("2 A 2 A").aces, ev("2 A 2 A", 4).aces) == (4, 2)
