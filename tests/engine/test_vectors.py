"""docs/rules.md §13: every test vector, as scenario files and as direct engine assertions.

The vectors are read from docs/rules.md §13: each ``### TV-NN`` vector must link a test,
every ``tests/scenarios/*.toml`` must be linked from a vector, and the result written
after a scenario link as ``(expect: scores 4–8, T0 wins the game, chica S2)`` must match
that scenario's ``[expect]`` table. Every scenario is played and must meet its
``[expect]`` table. The explicit tests below replay the headline numbers of each vector
straight through :class:`MusState`, so a bug in the scenario format cannot hide a bug in
the engine (or the other way round).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from helpers import deal, script
from mus_core import JuegoReal, LanceOutcome, Rules
from mus_core.state import MusState

from arena.tools.scenario import load, play

SCENARIOS = Path(__file__).resolve().parents[1] / "scenarios"
SCENARIO_FILES = sorted(SCENARIOS.glob("*.toml"))
RULES_DOC = Path(__file__).resolve().parents[2] / "docs" / "rules.md"
TESTS = Path(__file__).resolve().parents[1]


def vectors_from_doc() -> dict[str, str]:
    """docs/rules.md §13 as ``{"TV-01": text of that vector, ...}`` in document order."""
    text = RULES_DOC.read_text(encoding="utf-8")
    section = re.search(r"^## 13\. .*?(?=^## 14\. )", text, re.M | re.S)
    assert section, f"{RULES_DOC}: no section 13 followed by section 14"
    parts = re.split(r"^### (TV-\d\d)\b.*$", section.group(0), flags=re.M)
    return dict(zip(parts[1::2], parts[2::2], strict=True))


def expectations_from_doc() -> list[tuple[str, str, str]]:
    """``(vector, scenario stem, expectation text)`` for each scenario linked in §13."""
    out = []
    for vector, body in vectors_from_doc().items():
        for m in re.finditer(r"\(\.\./tests/scenarios/(\w+)\.toml\)(?:\s+\(expect:\s*([^)]*)\))?", body):
            out.append((vector, m.group(1), " ".join((m.group(2) or "").split())))
    return out


VECTORS = vectors_from_doc()
DOC_EXPECTATIONS = expectations_from_doc()
LANCE_INDEX = {"grande": 0, "chica": 1, "pares": 2, "juego": 3, "punto": 3}


# ---------------------------------------------------------------------------- helpers


def run(
    hands: list[str],
    actions: str,
    *,
    mano: int = 0,
    scores: tuple[int, int] = (0, 0),
    rules: Rules | None = None,
) -> MusState:
    """Deal, cut the mus at mano, apply ``S1 p; S2 e2; ...`` checking each seat to act."""
    state = MusState.from_deal(rules or Rules(), deal(hands), mano=mano, scores=scores)
    return script(state, actions)


def outcomes(state: MusState) -> list[str]:
    return [lr.outcome.value for lr in state.hand_results[-1].lances]


def points(state: MusState) -> list[int]:
    return [lr.points for lr in state.hand_results[-1].lances]


def winners(state: MusState) -> list[int | None]:
    return [lr.winner_seat for lr in state.hand_results[-1].lances]


ALL_PASS4 = "S0 p; S1 p; S2 p; S3 p"
TV07_HANDS = ["R R A A", "C C 4 4", "7 6 5 4", "S 5 A 6"]
TV11_HANDS = ["R R C 4", "C C S S", "4 5 6 7", "6 6 4 A"]


# ---------------------------------------------------------------------------- scenarios


def test_every_vector_has_a_scenario() -> None:
    assert list(VECTORS) == [f"TV-{n:02d}" for n in range(1, 26)], (
        "docs/rules.md §13 lost or reordered a vector"
    )
    names = {p.name[:4] for p in SCENARIO_FILES}
    # TV-18: test_mus_phase.py; TV-20 on (señas, rules and seat counts a hand script
    # cannot state): test_rules_decisions.py, named in each vector.
    want = {v.lower().replace("-", "") for v in VECTORS if v < "TV-20"} - {"tv18"}
    assert want <= names, f"missing scenarios for {sorted(want - names)}"
    linked = {stem for _, stem, _ in DOC_EXPECTATIONS}
    assert linked <= {p.stem for p in SCENARIO_FILES}, (
        f"docs/rules.md links missing scenarios {sorted(linked - {p.stem for p in SCENARIO_FILES})}"
    )
    assert {p.stem for p in SCENARIO_FILES} <= linked, (
        f"scenarios not linked from docs/rules.md §13: {sorted({p.stem for p in SCENARIO_FILES} - linked)}"
    )
    defined = {
        m
        for f in TESTS.rglob("test_*.py")
        for m in re.findall(r"def (test_\w+)", f.read_text(encoding="utf-8"))
    }
    for vector, body in VECTORS.items():
        names_in_doc = re.findall(r"`(test_\w+)`", body)
        assert names_in_doc or "tests/scenarios/" in body, f"{vector} names no test"
        assert set(names_in_doc) <= defined, (
            f"{vector} names unknown tests {sorted(set(names_in_doc) - defined)}"
        )


@pytest.mark.parametrize(
    ("vector", "stem", "claim"), [e for e in DOC_EXPECTATIONS if e[2]], ids=lambda x: str(x)
)
def test_doc_expectation_matches_scenario(vector: str, stem: str, claim: str) -> None:
    """The result docs/rules.md §13 states beside a scenario link is the scenario's [expect]."""
    expect = load(SCENARIOS / f"{stem}.toml").expect
    for item in (i.strip() for i in claim.split(",")):
        if m := re.fullmatch(r"scores (\d+)\s*[–-]\s*(\d+)", item):
            assert list(expect["scores"]) == [int(m[1]), int(m[2])], f"{vector} {stem}: doc says {item}"
        elif m := re.fullmatch(r"T([01]) wins the game", item):
            assert expect.get("game_winner") == int(m[1]), f"{vector} {stem}: doc says {item}"
        elif m := re.fullmatch(r"(grande|chica|pares|juego|punto) S(\d)", item):
            assert expect["winners"][LANCE_INDEX[m[1]]] == int(m[2]), f"{vector} {stem}: doc says {item}"
        else:
            pytest.fail(f"{vector} {stem}: cannot read the expectation {item!r}")


@pytest.mark.parametrize("path", SCENARIO_FILES, ids=lambda p: p.stem)
def test_scenario(path: Path) -> None:
    scenario = load(path)
    assert scenario.expect, f"{path.name} has no [expect] table"
    assert {"scores", "lances"} <= set(scenario.expect), f"{path.name}: expect scores and lances"
    outcome = play(scenario)
    assert outcome.mismatches == [], "\n".join(outcome.mismatches)


# ---------------------------------------------------------------------------- TV-01..05


def test_tv01_grande_kings_variant() -> None:
    # 8 kings: R 3 4 4 (S1) beats R C C C (S0).
    s = run(
        ["R C C C", "R 3 4 4", "7 6 5 A", "S 7 6 5"],
        "S0 no-mus;" + ALL_PASS4 + ";" + ALL_PASS4 + "; S0 p; S1 p",
    )
    assert winners(s)[0] == 1
    # 4 kings: R C C C (S1) beats R 3 4 4 (S0).
    s = run(
        ["R 3 4 4", "R C C C", "7 6 5 A", "S 7 6 5"],
        "S0 no-mus;" + ALL_PASS4 + ";" + ALL_PASS4 + "; S0 p; S1 p",
        rules=Rules(kings=4),
    )
    assert winners(s)[0] == 1


def test_tv02b_tie_changes_with_mano() -> None:
    hands = ["A 2 S 4", "R C 6 5", "A 2 S 4", "7 6 5 4"]
    s = run(hands, "S0 no-mus;" + ALL_PASS4 + ";" + ALL_PASS4)
    assert winners(s)[1] == 0
    s = run(hands, "S1 no-mus; S1 p; S2 p; S3 p; S0 p; S1 p; S2 p; S3 p; S0 p", mano=1)
    assert winners(s)[1] == 2


def test_tv03_pares_ranking_in_play() -> None:
    # TV-03.2: four kings beat R R C C (S1 after mano).
    s = run(
        ["R R C C", "R 3 R 3", "7 6 5 4", "S 7 6 A"],
        "S0 no-mus;" + ALL_PASS4 + ";" + ALL_PASS4 + "; S0 p; S1 p; S0 p; S1 p",
    )
    assert winners(s)[2] == 1 and points(s)[2] == 3
    # TV-03.5: equal par of kings, S1 nearer mano wins; the other cards are not compared.
    s = run(["7 6 5 A", "R 3 C 4", "S 7 6 4", "R R 6 5"], "S0 no-mus;" + ALL_PASS4 + ";" + ALL_PASS4)
    assert winners(s)[2] == 1


def test_tv04_real_changes_the_juego_winner() -> None:
    hands = ["R R R A", "7 7 7 S", "6 5 4 A", "6 5 4 2"]
    acts = "S0 no-mus;" + ALL_PASS4 + ";" + ALL_PASS4 + "; S0 p; S1 p; S0 p; S1 p"
    assert winners(run(hands, acts))[3] == 0
    for v in (JuegoReal.ANY_TEN_CARD, JuegoReal.FIGURE_NO_THREE, JuegoReal.SOTA_ONLY):
        assert winners(run(hands, acts, rules=Rules(juego_real=v)))[3] == 1, v


def test_tv05_punto() -> None:
    s = run(["R C 4 5", "S 6 7 4", "7 6 5 4", "R S 5 5"], "S0 no-mus;" + ";".join([ALL_PASS4] * 3))
    last = s.hand_results[-1].lances[3]
    assert last.lance.name == "PUNTO" and last.winner_seat == 3 and last.winner_team == 1 and last.points == 1


# ---------------------------------------------------------------------------- TV-06..17


def test_tv06_full_hand_11_0() -> None:
    s = run(
        ["R 3 C A", "7 6 5 4", "S S 5 4", "R C 7 7"],
        """S0 no-mus
        S0 p; S1 p; S2 p; S3 p
        S0 p; S1 e2; S2 nq; S0 q
        S0 p; S2 e2; S3 nq
        S0 p; S3 e2; S0 q""",
    )
    r = s.hand_results[-1]
    assert r.scores_after == (11, 0)
    assert points(s) == [1, 2, 2, 5]
    assert r.declarations["pares"] == (True, False, True, True)
    assert r.declarations["juego"] == (True, False, False, True)
    assert not r.game_over


def test_tv06_pares_deje_is_immediate() -> None:
    s = run(
        ["R 3 C A", "7 6 5 4", "S S 5 4", "R C 7 7"],
        "S0 no-mus;" + ALL_PASS4 + "; S0 p; S1 e2; S2 nq; S0 q; S0 p; S2 e2; S3 nq",
    )
    assert s.scores == (1, 0)  # before the count: only the deje
    assert not s.hand_results


def test_tv07_deje_after_raises_is_7_and_final_4_8() -> None:
    s = run(TV07_HANDS, "S0 no-mus; S0 e2; S1 +2; S2 nq; S0 +3; S1 +5")
    bet = s.bet
    assert bet is not None and bet.stake == 12 and bet.deje == 7 and bet.team == 1
    assert s.to_act == 0  # S2 is eliminated: only S0 answers
    script(s, "S0 nq")
    assert s.scores == (0, 7)
    script(s, ALL_PASS4 + "; S0 p; S1 p;" + ALL_PASS4)
    r = s.hand_results[-1]
    assert r.scores_after == (4, 8)
    assert r.lances[0].deje == 7 and r.lances[0].stake == 12


def test_tv08a_ordago_first_bet_declined_pays_1() -> None:
    s = run(TV07_HANDS, "S0 no-mus; S0 O; S1 nq; S3 nq")
    assert s.scores == (1, 0)
    s = run(TV07_HANDS, "S0 no-mus; S0 O; S1 nq; S3 nq;" + ALL_PASS4 + "; S0 p; S1 p;" + ALL_PASS4)
    assert s.hand_results[-1].scores_after == (5, 1)


def test_tv08b_ordago_raise_declined_pays_prev_2() -> None:
    s = run(TV07_HANDS, "S0 no-mus;" + ALL_PASS4 + "; S0 p; S1 e2; S2 O")
    bet = s.bet
    assert bet is not None and bet.is_ordago and bet.deje == 2 and bet.team == 0
    script(s, "S3 nq; S1 nq")
    assert s.scores == (2, 0)
    s = run(
        TV07_HANDS, "S0 no-mus;" + ALL_PASS4 + "; S0 p; S1 e2; S2 O; S3 nq; S1 nq; S0 p; S1 p;" + ALL_PASS4
    )
    assert s.hand_results[-1].scores_after == (6, 1)


def test_tv09_accepted_ordago_wins_the_game_for_t0() -> None:
    s = run(
        ["R C 6 5", "R R 7 S", "A 2 S 4", "C 7 5 4"],
        "S0 no-mus; S0 p; S1 e2; S2 nq; S0 nq",
        scores=(5, 37),
    )
    assert s.scores == (5, 38)
    script(s, "S0 p; S1 p; S2 O; S3 q")
    r = s.hand_results[-1]
    assert r.game_over and r.game_winner == 0 and r.ended_by == "ordago:chica"
    assert r.lances[1].winner_seat == 2
    assert s.games_won == (1, 0) and s.scores == (0, 0)  # a new game at 0-0


def test_tv10_envido_40_is_not_an_ordago() -> None:
    hands = ["R R R 4", "A 2 A 4", "5 5 6 7", "C 6 5 4"]
    s = run(hands, "S0 no-mus; S0 e40; S1 q", scores=(10, 10))
    assert s.to_act == 3  # S3 is still polled after S1's quiero
    script(s, "S3 q")
    assert not s.hand_results and s.current_lance is not None and s.current_lance.name == "CHICA"
    # (a) a later órdago decides.
    a = run(hands, "S0 no-mus; S0 e40; S1 q; S3 q; S0 p; S1 O; S2 q", scores=(10, 10))
    assert a.hand_results[-1].game_winner == 1
    # (b) the 40 is counted first.
    b = run(hands, "S0 no-mus; S0 e40; S1 q; S3 q;" + ALL_PASS4 + "; S0 p; S1 p; S2 p", scores=(10, 10))
    r = b.hand_results[-1]
    assert r.game_winner == 0 and r.scores_after == (50, 10) and r.ended_by == "count:grande"
    assert [lr.counted for lr in r.lances] == [True, False, False, False]


def test_tv11_game_ends_mid_count() -> None:
    s = run(
        TV11_HANDS,
        "S0 no-mus; S0 e3; S1 q; S3 q;" + ALL_PASS4 + "; S0 p; S1 p; S3 p; S0 p; S1 p",
        scores=(37, 38),
    )
    r = s.hand_results[-1]
    assert r.scores_after == (40, 38) and r.game_winner == 0 and r.ended_by == "count:grande"


def test_tv12_deje_reaches_target() -> None:
    s = run(TV11_HANDS, "S0 no-mus; S0 e2; S1 nq; S3 nq", scores=(39, 20))
    r = s.hand_results[-1]
    assert r.scores_after == (40, 20) and r.game_winner == 0 and r.ended_by == "deje:grande"
    assert [lr.outcome for lr in r.lances][1:] == [LanceOutcome.NOT_PLAYED] * 3


def test_tv13_only_one_team_pares_4_2() -> None:
    s = run(["7 7 7 4", "R C 6 A", "S S 5 4", "5 4 3 A"], "S0 no-mus;" + ";".join([ALL_PASS4] * 3))
    assert s.hand_results[-1].scores_after == (4, 2)
    assert outcomes(s)[2] == "one_team"


def test_tv14_pares_declined_3_2() -> None:
    s = run(
        ["4 4 6 7", "R R A A", "C S 5 A", "7 6 5 4"],
        "S0 no-mus;" + ALL_PASS4 + ";" + ALL_PASS4 + "; S0 e2; S1 nq;" + ALL_PASS4,
    )
    assert s.hand_results[-1].scores_after == (3, 2)


def test_tv15_punto_declined_and_accepted() -> None:
    hands = ["S C 5 5", "A 2 A 4", "4 5 6 7", "4 5 6 A"]
    pre = "S0 no-mus;" + ALL_PASS4 + ";" + ALL_PASS4 + "; S0 p; S1 p; S0 p; S1 e2; S2 nq; S0 "
    assert run(hands, pre + "nq").hand_results[-1].scores_after == (1, 5)
    assert run(hands, pre + "q").hand_results[-1].scores_after == (4, 3)


def test_tv16_only_one_team_juego_7_3() -> None:
    s = run(
        ["R C S A", "7 6 5 4", "R C S S", "5 5 4 4"],
        "S0 no-mus;" + ALL_PASS4 + ";" + ALL_PASS4 + "; S2 p; S3 p",
    )
    r = s.hand_results[-1]
    assert r.scores_after == (7, 3)
    assert r.lances[3].lance.name == "JUEGO" and r.lances[3].points == 5


@pytest.mark.parametrize(
    ("grande", "final"),
    [
        ("S0 e2; S1 nq; S3 q", (6, 1)),
        ("S0 e2; S1 q; S3 +3; S0 nq; S2 nq", (4, 3)),
        ("S0 e2; S1 nq; S3 +2; S0 +2; S3 nq", (8, 1)),
    ],
    ids=["a", "b", "c"],
)
def test_tv17_braver_answer(grande: str, final: tuple[int, int]) -> None:
    s = run(TV07_HANDS, "S0 no-mus;" + grande + ";" + ALL_PASS4 + "; S0 p; S1 p;" + ALL_PASS4)
    assert s.hand_results[-1].scores_after == final


def test_tv17b_raise_after_partner_quiero_state() -> None:
    s = run(TV07_HANDS, "S0 no-mus; S0 e2; S1 q; S3 +3")
    bet = s.bet
    assert bet is not None and (bet.team, bet.stake, bet.deje) == (1, 5, 2)
    assert s.to_act == 0


def test_tv17c_eliminated_player_is_not_polled_again() -> None:
    s = run(TV07_HANDS, "S0 no-mus; S0 e2; S1 nq; S3 +2; S0 +2")
    assert s.to_act == 3  # S1 said no quiero earlier
    script(s, "S3 nq")
    assert s.scores == (4, 0)
