"""Standings of entries of very different strength (issue 29, items 8 and 9): intervals
that hold the true rating of the strongest and the weakest entry, not only between
equals; the prior's pull reported; exact ties ranked alike; a scale anchored to an entry.

The leagues are simulated in-process from known true ratings by
``bench/rating_coverage.py`` (the figures of docs/league.md come from it, with more
leagues)."""

from __future__ import annotations

import random
from pathlib import Path
from types import ModuleType

import pytest

from arena.league.standings import compute_standings

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(("design", "size", "leagues"), [("plain", 4, 120), ("duplicate, luck", 10, 80)])
def test_strongest_and_weakest_intervals_hold_their_true_ratings(sim: ModuleType, design: str, size: int,
                                                                 leagues: int) -> None:
    """Four entries 690 Elo apart (the strongest beats the weakest 98% of the time):
    the strongest's and the weakest's intervals hold their true ratings in at least 91%
    of seeded leagues (95% meant; 91% leaves two standard errors of this sample). The
    prior's pull and one league-wide dispersion set by the close pairings held them
    72–88% of the time."""
    out = sim.cell(sim.SCENARIOS["spread"], size, sim.DESIGNS[design], leagues, f"test:{design}:{size}")
    strongest, weakest = out["coverage"][0], out["coverage"][3]
    assert strongest >= 0.91 and weakest >= 0.91, out
    # Not bought by intervals that hold everything (the middle entries, whose three
    # pairings mix close and lopsided ones, do reach 97–100%: docs/league.md says so).
    assert strongest <= 0.995 and weakest <= 0.995, out


def test_a_lopsided_pairing_keeps_its_own_dispersion() -> None:
    """Twins that split between equals say nothing about a pairing won 97% of the time
    (its weaker side can win one twin at most): that pairing's dispersion stays near 1."""
    from arena.league.standings import pairing_dispersion
    assert pairing_dispersion(0.5, 0.5) == pytest.approx(0.5)
    assert pairing_dispersion(0.5, 0.97) > 0.98
    assert pairing_dispersion(-0.3, 0.97) == pytest.approx(1.3)  # twins that agree can at any p


def test_the_prior_pull_is_reported_and_shrinks_with_matches() -> None:
    """Five wins in six: the prior holds the rating back, and the table says by how much
    (standings.json and .csv carry it); with ten times the matches, far less."""
    def standing(n: int) -> tuple[float, dict[str, object], str]:
        recs = [{"match_id": f"m{i:04d}", "team0": "a" if i % 2 == 0 else "b", "team1": "b" if i % 2 == 0 else "a",
                 "winner_team": (i % 2 if i % 6 == 5 else 1 - i % 2) ^ 1} for i in range(n)]
        st = compute_standings(["a", "b"], {}, recs)
        a = next(e for e in st.entries if e.name == "a")
        assert a.wins == 5 * n // 6
        return a.prior_pull, st.to_json()["standings"][0], st.to_csv()
    (small, row, text), (large, _, _) = standing(6), standing(60)
    assert small < -15  # toward 1500
    assert large < 0 and abs(large) < abs(small) / 3
    assert row["prior_pull"] == round(small, 1) and f"{small:.1f}" in text


def test_exact_ties_share_a_rank() -> None:
    rng = random.Random(3)
    recs = []
    for i, (x, y) in enumerate([("a", "c"), ("b", "c"), ("a", "b"), ("b", "a")] * 2):
        recs.append({"match_id": f"m{i:03d}", "team0": x, "team1": y, "winner_team": 0})
    del rng
    st = compute_standings(["a", "b", "c"], {}, recs)
    ranks = {e.name: r for e, r in zip(st.entries, st.ranks(), strict=True)}
    assert ranks["a"] == ranks["b"] == 1 and ranks["c"] == 3
    lines = st.to_csv().splitlines()
    assert [ln.split(",")[0] for ln in lines[1:]] == ["1", "1", "3"]
    assert [row["rank"] for row in st.to_json()["standings"]] == [1, 1, 3]


def _three_entries() -> list[dict[str, object]]:
    out: list[dict[str, object]] = []
    for x, y, xw in (("a", "b", 3), ("a", "c", 4), ("b", "c", 3)):
        for k in range(4):
            t0, t1 = (x, y) if k % 2 == 0 else (y, x)
            x_side = 0 if t0 == x else 1
            out.append({"match_id": f"{x}--{y}--{k:03d}", "team0": t0, "team1": t1,
                        "winner_team": x_side if k < xw else 1 - x_side})
    return out


def test_a_scale_anchored_to_an_entry() -> None:
    """``anchor``: the named entry shows ``anchor_rating``; every rating and bound moves by
    the same amount (the differences are the league's); standings.json says so."""
    recs = _three_entries()
    centred = {e.name: e for e in compute_standings(["a", "b", "c"], {}, recs).entries}
    st = compute_standings(["a", "b", "c"], {}, recs, anchor="c", anchor_rating=1000)
    anchored = {e.name: e for e in st.entries}
    assert anchored["c"].rating == pytest.approx(1000)
    shift = 1000 - centred["c"].rating
    for n in "abc":
        for f in ("rating", "rating_low", "rating_high"):
            assert getattr(anchored[n], f) == pytest.approx(getattr(centred[n], f) + shift)
    assert st.to_json()["anchor"] == {"entry": "c", "rating": 1000}
    assert compute_standings(["a", "b", "c"], {}, recs).to_json()["anchor"] is None
    with pytest.raises(ValueError, match="not an entry"):
        compute_standings(["a", "b", "c"], {}, recs, anchor="zz")


def test_league_file_standings_table(tmp_path: Path) -> None:
    from arena.league.config import LeagueConfigError, load_league
    bots = REPO / "bots"
    head = (f'name = "x"\nseed = 1\n[[entry]]\nname = "rule"\nbot = "{bots / "rulebot"}"\n'
            f'[[entry]]\nname = "random"\nbot = "{bots / "random"}"\n')
    good = tmp_path / "good.toml"
    good.write_text(head + '[standings]\nanchor = "random"\nanchor_rating = 1000\n')
    cfg = load_league(good)
    assert (cfg.anchor, cfg.anchor_rating) == ("random", 1000.0)
    assert load_league(_write(tmp_path, "plain.toml", head)).anchor is None
    for bad, words in (('[standings]\nanchor = "nobody"\n', "standings.anchor"),
                       ('[standings]\nanchor_rating = 1000\n', "needs an anchor"),
                       ('[standings]\nanchor = "random"\nanchor_rating = "high"\n', "standings.anchor_rating"),
                       ('[standings]\nancor = "random"\n', "standings.ancor")):
        with pytest.raises(LeagueConfigError, match=words):
            load_league(_write(tmp_path, "bad.toml", head + bad))


def _write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def test_the_league_writes_and_shows_what_the_table_is(tmp_path: Path) -> None:
    """The runner's standings.json honours ``[standings] anchor``; the console table has the
    ``prior`` column, shared ranks, and a caption naming the scale."""
    import io
    import json

    from rich.console import Console

    from arena.cli.common import standings_table
    from arena.league.config import load_league
    from arena.league.loop import write_standings
    bots = REPO / "bots"
    cfg = load_league(_write(tmp_path, "l.toml", f'name = "x"\nseed = 1\n[[entry]]\nname = "a"\nbot = "{bots / "rulebot"}"\n'
                             f'[[entry]]\nname = "b"\nbot = "{bots / "random"}"\n[[entry]]\nname = "c"\n'
                             f'bot = "{bots / "random"}"\n[standings]\nanchor = "c"\nanchor_rating = 1000\n'))
    st = write_standings(cfg, tmp_path, [{**r, "match_id": str(r["match_id"])} for r in _three_entries()], complete=True)
    doc = json.loads((tmp_path / "standings.json").read_text())
    assert doc["anchor"] == {"entry": "c", "rating": 1000}
    assert next(r for r in doc["standings"] if r["name"] == "c")["rating"] == 1000.0
    out = io.StringIO()
    Console(file=out, width=160).print(standings_table(st))
    text = out.getvalue()
    assert "prior" in text and "anchored: c = 1000" in text


def test_the_table_says_when_few_matches_cannot_reach_95() -> None:
    """Fewer than 4 decided matches in a pairing: the table says its intervals fall short
    for lopsided entries (measured 92–95% at 2); with 4, no note."""
    two = [r for r in _three_entries() if int(str(r["match_id"])[-3:]) < 2]
    assert compute_standings(["a", "b", "c"], {}, two).note is not None
    assert compute_standings(["a", "b", "c"], {}, two).to_json()["note"]
    assert compute_standings(["a", "b", "c"], {}, _three_entries()).note is None
