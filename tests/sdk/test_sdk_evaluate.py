"""mus_sdk.evaluate against docs/rules.md §1, §4 and the test vectors TV-01..TV-05 of §13."""

from __future__ import annotations

import itertools

import pytest
from mus_sdk import CARDS, JuegoReal, Lance, parse_cards
from mus_sdk import evaluate as ev


def h(text: str) -> tuple[int, ...]:
    """A hand from rank letters only (suits are irrelevant): 'R 3 4 4' -> distinct cards."""
    used: set[int] = set()
    out = []
    for r in text.split():
        rank = "A234567SCR".index(r)
        card = next(c for c in range(rank * 4, rank * 4 + 4) if c not in used)
        used.add(card)
        out.append(card)
    return tuple(out)


def winner(hands: list[str], lance: Lance, mano: int = 0, kings: int = 8, real: object = "off") -> int | None:
    return ev.lance_winner([h(x) for x in hands], lance, mano, kings, real)


class TestTV01Grande:
    def test_eight_kings(self) -> None:
        """8 kings: R 3 4 4 (= R R 4 4) beats R C C C at the second card."""
        assert ev.grande_key(h("R 3 4 4")) > ev.grande_key(h("R C C C"))

    def test_four_kings(self) -> None:
        """4 kings: R 4 4 3 loses to R C C C at the second card."""
        assert ev.grande_key(h("R 3 4 4"), 4) < ev.grande_key(h("R C C C"), 4)


class TestTV02Chica:
    @pytest.mark.parametrize("kings", [8, 4])
    def test_example(self, kings: int) -> None:
        """A 2 7 R beats A 4 5 6 with either kings setting."""
        assert ev.chica_key(h("A 2 7 R"), kings) > ev.chica_key(h("A 4 5 6"), kings)

    def test_tie_goes_to_mano(self) -> None:
        """Equal chica hands: mano S0 wins; with mano S1 the order S1 S2 S3 S0 makes S2 win."""
        hands = ["A 2 S 4", "R C 6 5", "A 2 S 4", "7 6 5 4"]
        assert winner(hands, Lance.CHICA, mano=0) == 0
        assert winner(hands, Lance.CHICA, mano=1) == 2


class TestTV03Pares:
    def test_duples_beat_medias(self) -> None:
        assert ev.pares_key(h("R R A A")) > ev.pares_key(h("R R R 4"))
        assert ev.pares(h("R R A A")) is ev.Pares.DUPLES and ev.pares(h("R R R 4")) is ev.Pares.MEDIAS

    def test_four_kings_are_duples(self) -> None:
        """R 3 R 3 (four kings) beats R R C C: higher pairs equal, lower pair R > C."""
        assert ev.pares(h("R 3 R 3")) is ev.Pares.DUPLES
        assert ev.pares_key(h("R 3 R 3")) > ev.pares_key(h("R R C C"))

    def test_higher_pair_decides(self) -> None:
        assert ev.pares_key(h("R R 4 4")) > ev.pares_key(h("C C S S"))

    def test_medias_beat_par(self) -> None:
        assert ev.pares(h("2 A A 5")) is ev.Pares.MEDIAS
        assert ev.pares_key(h("2 A A 5")) > ev.pares_key(h("R 3 C 4"))

    def test_no_kickers(self) -> None:
        """Equal par of kings at S1 and S3 with mano S0: S1 wins, the kickers are not compared."""
        hands = ["7 6 5 4", "R 3 C 4", "S 5 4 A", "R R 6 5"]
        assert ev.pares_key(h("R 3 C 4")) == ev.pares_key(h("R R 6 5"))
        assert winner(hands, Lance.PARES) == 1

    def test_four_kings_variant(self) -> None:
        """With 4 kings R 3 C 4 has no pares and R 3 C C is a par of caballos."""
        assert ev.pares(h("R 3 C 4"), 4) is ev.Pares.NONE
        assert ev.pares(h("R 3 C C"), 4) is ev.Pares.PAR
        assert ev.pares_value(h("R 3 C C"), 4) == 1

    def test_nobody_has_pares(self) -> None:
        assert winner(["7 6 5 4", "R C S A", "7 6 5 4", "R C S A"], Lance.PARES) is None


class TestTV04Juego:
    def test_order(self) -> None:
        """31 > 32 > 40 > 37 > 36 > 35 > 34 > 33."""
        ranks = [ev.juego_rank(t) for t in (31, 32, 40, 37, 36, 35, 34, 33)]
        assert ranks == sorted(ranks, reverse=True) and len(set(ranks)) == 8
        assert ev.juego_rank(30) == 0

    def test_de_example(self) -> None:
        """R 3 C A = 31 beats R C 7 7 = 34."""
        assert ev.total(h("R 3 C A")) == 31 and ev.total(h("R C 7 7")) == 34
        assert ev.juego_key(h("R 3 C A")) > ev.juego_key(h("R C 7 7"))
        assert ev.juego_value(h("R 3 C A")) == 3 and ev.juego_value(h("R C 7 7")) == 2

    @pytest.mark.parametrize(
        ("mode", "expected"),
        [("off", 0), (JuegoReal.ANY_TEN_CARD, 1), (JuegoReal.FIGURE_NO_THREE, 1), ("sota_only", 1)],
    )
    def test_real(self, mode: object, expected: int) -> None:
        """R R R A vs 7 7 7 S: mano wins the tie with real off, the real wins otherwise."""
        assert winner(["R R R A", "7 7 7 S", "4 4 5 5", "4 5 6 6"], Lance.JUEGO, real=mode) == expected

    def test_real_fourth_card(self) -> None:
        """7 7 7 3 is real only under any_ten_card (8 kings); 7 7 7 R not under sota_only."""
        assert ev.is_real(h("7 7 7 3"), 8, "any_ten_card")
        assert not ev.is_real(h("7 7 7 3"), 8, "figure_no_three")
        assert not ev.is_real(h("7 7 7 3"), 8, "sota_only")
        assert ev.is_real(h("7 7 7 R"), 8, "figure_no_three")
        assert not ev.is_real(h("7 7 7 R"), 8, "sota_only")


class TestTV05Punto:
    def test_best_punto(self) -> None:
        """S3's 30 is the best punto."""
        hands = ["R C 4 5", "S 6 7 4", "7 6 5 4", "R S 5 5"]
        assert [ev.punto(h(x)) for x in hands] == [29, 27, 22, 30]
        assert not any(ev.has_juego(h(x)) for x in hands)
        assert winner(hands, Lance.PUNTO) == 3

    def test_tie(self) -> None:
        """30 at S1 and S3 with mano S0: S1 wins."""
        assert winner(["7 6 5 4", "R S 5 5", "4 4 5 6", "C S 6 4"], Lance.PUNTO) == 1


class TestTables:
    def test_totals_possible(self) -> None:
        """docs/rules.md §1.4: totals 4, 7-37, 40 with 8 kings; 4-37, 40 with 4 kings."""
        for kings, expected in ((8, {4, *range(7, 38), 40}), (4, {*range(4, 38), 40})):
            totals = {ev.total(c, kings) for c in itertools.combinations(range(40), 4)}
            assert totals == expected

    def test_order_independent_and_validated(self) -> None:
        hand = parse_cards("Ro 3c Co Ab")
        assert ev.evaluate(hand) == ev.evaluate(reversed(hand))
        with pytest.raises(ValueError):
            ev.evaluate(hand[:3])
        with pytest.raises(ValueError):
            ev.evaluate(hand, kings=6)

    def test_strength_bounds(self) -> None:
        """Strength is monotone in the key and among_holders excludes hands without pares."""
        best = h("R R R R")
        assert ev.strength(best, Lance.GRANDE) > 0.99
        assert ev.strength(h("4 5 6 7"), Lance.PARES, among_holders=True) == 0.0
        assert (
            0
            < ev.strength(h("A 2 6 7"), Lance.PARES, among_holders=True)
            < ev.strength(h("4 4 6 7"), Lance.PARES, among_holders=True)
        )
        assert ev.strength(CARDS[:4], Lance.CHICA) > 0.99
