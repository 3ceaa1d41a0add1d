"""The standings say when one rating per entry does not describe the field
(arena.league.rating.model_check): a non-transitive field (A beats B, B beats C, C beats
A) gets a note and ``model_check`` in standings.json; fields of one rating each, plain
or duplicate, do not; nor does one upset of a lopsided pairing."""

from __future__ import annotations

import html
import json
import math
import random
from pathlib import Path
from typing import Any

import pytest

from arena.ladder.page import render_page
from arena.league.rating import chi2_survival
from arena.league.standings import SCALE, compute_standings
from arena.players.local import RandomPlayer
from arena.report import report_folder
from tests.league.test_standings_intervals import record
from tests.report.test_data import logged


def field(elos: dict[str, float], per_pairing: int, rng: random.Random, agree: float | None = None,
          chance: dict[tuple[str, str], float] | None = None) -> list[dict[str, Any]]:
    """Every pairing's matches, seats alternating; with ``agree``, duplicate deal pairs
    whose second twin repeats the first one's result with that probability. ``chance``:
    a's chance against b where given, else the rating model's."""
    names = sorted(elos)
    out: list[dict[str, Any]] = []
    for x, a in enumerate(names):
        for b in names[x + 1:]:
            p = (chance or {}).get((a, b), 1 / (1 + math.exp(-(elos[a] - elos[b]) / SCALE)))
            wins: list[bool] = []
            while len(wins) < per_pairing:
                won = rng.random() < p
                wins.append(won)
                if agree is not None:
                    wins.append(won if rng.random() < agree else rng.random() < p)
            for i, won in enumerate(wins):
                t0, t1 = (a, b) if i % 2 == 0 else (b, a)
                extra = {"deal": f"{a}{b}{i // 2}"} if agree is not None else {}
                out.append(record(len(out), t0, t1, (0 if t0 == a else 1) if won else (1 if t0 == a else 0), **extra))
    return out


def test_chi2_survival() -> None:
    # The exact 0.001 points of χ² with 3, 10 and 100 degrees of freedom.
    assert chi2_survival(16.266, 3) == pytest.approx(0.001, rel=0.2)
    assert chi2_survival(29.588, 10) == pytest.approx(0.001, rel=0.1)
    assert chi2_survival(149.449, 100) == pytest.approx(0.001, rel=0.05)
    assert chi2_survival(0.0, 5) == 1.0
    assert chi2_survival(5.0, 5) == pytest.approx(0.416, abs=0.01)
    assert chi2_survival(10, 5) > chi2_survival(11, 5) > chi2_survival(30, 5)


@pytest.mark.parametrize("agree", [None, 0.6])
def test_fields_of_one_rating_each_pass(agree: float | None) -> None:
    rng = random.Random(7)
    elos = {c: 100.0 * i for i, c in enumerate("abcdef")}
    checks = [compute_standings(sorted(elos), {}, field(elos, 10, rng, agree)) for _ in range(40)]
    assert all(st.model_check is not None for st in checks)
    assert not any(st.model_check.misfit for st in checks if st.model_check)
    assert not any(st.note and "depart from one rating" in st.note for st in checks)
    # The p-values spread as chance does, not all near 1: the check can fail.
    assert sum(st.model_check.p_value < 0.2 for st in checks if st.model_check) >= 2


def test_a_non_transitive_field_is_told() -> None:
    # a beats b, b beats c, c beats a (80% each); d loses to all three 70% of the time.
    chance = {("a", "b"): 0.8, ("b", "c"): 0.8, ("a", "c"): 0.2, ("a", "d"): 0.7, ("b", "d"): 0.7, ("c", "d"): 0.7}
    st = compute_standings(list("abcd"), {}, field(dict.fromkeys("abcd", 0.0), 40, random.Random(3), chance=chance))
    assert st.model_check is not None and st.model_check.misfit, st.model_check
    assert st.note is not None and "depart from one rating per entry" in st.note
    got = st.to_json()["model_check"]
    assert got["df"] == 3 and got["p_value"] < 0.001 and got["pearson"] > 16 and got["deviance"] > 16


def test_one_upset_of_a_lopsided_pairing_is_not_a_misfit() -> None:
    # a wins every match but one, against the weakest; the rest are one rating each.
    elos = {"a": 900.0, "b": 200.0, "c": 100.0, "d": 0.0}
    recs = field(elos, 10, random.Random(5), chance={("a", "b"): 1.0, ("a", "c"): 1.0, ("a", "d"): 1.0})
    upset = next(r for r in recs if {r["team0"], r["team1"]} == {"a", "d"})
    upset["winner_team"] = 1 - upset["winner_team"]
    st = compute_standings(list("abcd"), {}, recs)
    assert st.model_check is not None and st.model_check.df == 3
    assert not st.model_check.misfit and not (st.note and "depart from one rating" in st.note), st.model_check


def test_three_entries_are_not_checked() -> None:
    elos = {"a": 0.0, "b": 100.0, "c": 200.0}
    st = compute_standings(list("abc"), {}, field(elos, 10, random.Random(1)))
    assert st.model_check is None and st.to_json()["model_check"] is None


def test_the_pages_show_the_note(tmp_path: Path) -> None:
    """The league's report and the ladder's page say what the console's table says."""
    chance = {("a", "b"): 0.8, ("b", "c"): 0.8, ("a", "c"): 0.2, ("a", "d"): 0.7, ("b", "d"): 0.7, ("c", "d"): 0.7}
    results = field(dict.fromkeys("abcd", 0.0), 40, random.Random(3), chance=chance)
    st = compute_standings(list("abcd"), {}, results)
    assert st.note and "depart from one rating" in st.note

    page = render_page("term", st, [], [], [], set(), "info", [])
    assert f"What the table cannot promise: {html.escape(st.note, quote=True)}." in page
    assert "standings-note" not in render_page("term", compute_standings(list("abc"), {}, []), [], [], [], set(), "", [])

    folder = tmp_path / "league"
    (folder / "logs").mkdir(parents=True)
    logged(folder / "logs" / "m0000.jsonl", [RandomPlayer(seat) for seat in range(4)])  # a report needs a log
    (folder / "league.json").write_text(json.dumps({"name": "rps", "entries": [{"name": n} for n in "abcd"]}))
    (folder / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in results))
    (folder / "standings.json").write_text(json.dumps(st.to_json()))
    index = report_folder(folder).index.read_text(encoding="utf-8")
    assert 'id="standings-note"' in index and "depart from one rating per entry" in index
