"""Standings of a league: counts, stones, a Bradley–Terry rating with a 95% interval, a crosstable.

The rating model: every entry is one player, a plain entry and an explicit mixed pair
alike, and P(entry A wins a match against B) = 1 / (1 + 10^((R_B - R_A) / 400)).
A mixed pair is rated on its own results: its two bots do not share their conventions,
so it is not the mean of its members (rated that way, a pair of the league's only two
bots was always 1500, whatever it did). Ratings are the maximum of the likelihood times
a prior: every entry also played :data:`PRIOR_MATCHES` virtual matches against a
0-rated opponent, winning half (two wins and two losses), which keeps an undefeated
entry finite and small samples modest. They are shown as Elo-like numbers centred on 1500.

The 95% interval is a **profile likelihood** interval, toward 1500 under the rating's
prior and away from it under a weak one (so the prior's pull, reported as
``prior_pull``, cannot leave the truth outside); in a duplicate league each pairing's
likelihood is divided by its own dispersion of deal-pair results. The model and its
reasons are in :mod:`arena.league.rating` (docs/league.md, "Standings").

Ranks: exact ties (the same rating to the 0.1 shown and the same record) share the
better rank (:meth:`Standings.ranks`). ``anchor``: the scale pinned to an entry
(``[standings] anchor``), so that leagues compare.

Stones: a game won by an accepted órdago ends with the winner short of the target, so
the scoreboard (``raw_stones_*``) credits the winner less than the game was worth and
leaves the loser what it scored; between a bot that accepts órdagos with strong hands
and one that calls them at random, the entry that wins nearly every match showed fewer
net stones. ``stones_for`` / ``stones_against`` count such a game as won with the stones
the winner needed to finish it (its score brought up to the target), so they agree with
who wins games.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Hashable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from mus_core import Rules

from arena.league.rating import (
    DISPERSION_PRIOR_SPLITS,
    INTERVAL_PRIOR,
    MISFIT_P,
    PRIOR_MATCHES,
    SCALE,
    Z95,
    Match,
    ModelCheck,
    RatingFit,
    fit_rating_model,
    model_check,
    pairing_dispersion,
    twin_excess,
)
from arena.runner.match import start_failed_seats

__all__ = ["DISPERSION_PRIOR_SPLITS", "INTERVAL_PRIOR", "PRIOR_MATCHES", "SCALE", "Z95", "EntryStanding", "Match",
           "ModelCheck", "RatingFit", "Standings", "compute_standings", "effective_stones", "fit_rating_model", "fit_ratings",
           "pairing_dispersion", "twin_excess"]

FEW_MATCHES = 4
"""Decided matches per pairing below which the intervals of lopsided entries fall short."""
SMALL_SAMPLE_NOTE = (f"fewer than {FEW_MATCHES} decided matches in a pairing: the interval of an entry far from "
                     "1500 may hold its true rating only 92–95% of the time (docs/league.md, Standings)")
"""The table's note when some pairing has fewer than :data:`FEW_MATCHES` decided matches:
measured by bench/rating_coverage.py, 2 matches per pairing give 92–95% for the strongest
and weakest of four entries 690 Elo apart, 4 and more 93–97%."""
FEW_UNSPLIT_PAIRS = 3.5
"""Deal pairs won twice by one side, per entry, below which (twins splitting more often
than independent ones) the intervals are wider than needed."""
WIDE_PAIRS_NOTE = (f"fewer than {FEW_UNSPLIT_PAIRS} deal pairs per entry whose twins did not split: the intervals are "
                   "wider than needed (equal entries were held 97.5–100% of the time, not 95%; docs/league.md, "
                   "Standings)")
"""The table's note then: an entry's record beyond 50% is the count of pairs it won twice
minus those it lost twice, too coarse for a 95% interval (bench/rating_coverage.py and
bench/stats_validation.py (b), equal entries: twins splitting 3 in 4 held 0.994–0.997 at 4
matches per pairing, 0.975–0.987 at 6–8 (1.5–3 such pairs per entry), 0.962–0.966 at 10
(3.75); splitting 9 in 10, 0.98–1.00 up to 20 matches per pairing (3))."""
MISFIT_NOTE = ("the pairings depart from one rating per entry ({check}): some entries fare better against some "
               "opponents than their ratings say, so the ranking depends on who met whom; read the crosstable "
               "(docs/league.md, Standings)")
"""The table's note when :func:`arena.league.rating.model_check` finds the field
non-transitive beyond chance (p below 0.001)."""


@dataclass
class EntryStanding:
    """One line of the standings."""

    name: str
    matches: int = 0
    wins: int = 0
    losses: int = 0
    aborted: int = 0
    games_won: int = 0
    games_lost: int = 0
    stones_for: int = 0
    """Stones scored, a game won by órdago counted as the stones needed to finish it."""
    stones_against: int = 0
    """The opponents' ``stones_for``."""
    raw_stones_for: int = 0
    """Stones on the scoreboard (the sum of each hand's gain, as ``stones`` in results.jsonl)."""
    raw_stones_against: int = 0
    hands: int = 0
    faults: int = 0
    start_failures: int = 0
    """Matches in which the entry's bot (one of its processes) failed to start: its
    team forfeited them. Not in ``faults``, which the referee counts during play."""
    rating: float = 1500.0
    rating_low: float = 1500.0
    rating_high: float = 1500.0
    prior_pull: float = 0.0
    """Elo points the prior moved the rating (toward the centre): the rating minus the
    one a prior too weak to pull gives. Large only at small samples and far from 1500."""

    @property
    def stones_per_hand(self) -> float:
        """Net stones per hand played: (for − against) / hands."""
        return (self.stones_for - self.stones_against) / self.hands if self.hands else 0.0

    @property
    def raw_stones_per_hand(self) -> float:
        """Net scoreboard stones per hand: (raw for − raw against) / hands."""
        return (self.raw_stones_for - self.raw_stones_against) / self.hands if self.hands else 0.0


@dataclass
class Standings:
    """The whole table plus the crosstable ``cross[a][b]`` = match wins of a against b."""

    entries: list[EntryStanding]
    cross: dict[str, dict[str, int]] = field(default_factory=dict)
    stones_unadjusted: int = 0
    """Matches whose record lacks ``games`` (written before results.jsonl carried it):
    their órdago games cannot be found, so their raw stones are counted."""
    deal_pairs: int = 0
    """Deal pairs (both twins decided): the unit of the intervals in a duplicate league."""
    dispersion: float = 1.0
    """How much the deal pairs' results vary against independent twins, in a pairing of
    equals (below 1: twins split, the intervals are narrower than matches counted as
    independent would give); a lopsided pairing's own is nearer 1."""
    anchor: tuple[str, float] | None = None
    """(entry, its rating) when the scale is anchored to an entry (``[standings] anchor``);
    None: ratings centred on 1500."""
    note: str | None = None
    """What the intervals cannot promise here (:data:`SMALL_SAMPLE_NOTE`,
    :data:`WIDE_PAIRS_NOTE`, :data:`MISFIT_NOTE`), or None."""
    model_check: ModelCheck | None = None
    """How well one rating per entry explains every pairing (None: too few pairings to tell)."""

    def ranks(self) -> list[int]:
        """Each entry's rank, in table order: entries with the same rating (to the 0.1 Elo
        shown) and the same record share the better rank (1, 1, 3)."""
        out: list[int] = []
        for i, e in enumerate(self.entries):
            prev = self.entries[i - 1] if i else None
            same = prev is not None and (round(prev.rating, 1), prev.wins, prev.losses) == (
                round(e.rating, 1), e.wins, e.losses)
            out.append(out[-1] if same else i + 1)
        return out

    def to_json(self) -> dict[str, Any]:
        """As plain JSON values (standings.json)."""
        rows = []
        for e, rank in zip(self.entries, self.ranks(), strict=True):
            row = {"rank": rank, **asdict(e)}
            row["stones_per_hand"] = round(e.stones_per_hand, 4)
            row["raw_stones_per_hand"] = round(e.raw_stones_per_hand, 4)
            for k in ("rating", "rating_low", "rating_high", "prior_pull"):
                row[k] = round(row[k], 1)
            rows.append(row)
        return {"standings": rows, "crosstable": self.cross, "stones_unadjusted": self.stones_unadjusted,
                "deal_pairs": self.deal_pairs, "dispersion": round(self.dispersion, 4),
                "anchor": None if self.anchor is None else {"entry": self.anchor[0], "rating": self.anchor[1]},
                "note": self.note,
                "model_check": None if self.model_check is None else {
                    "pearson": round(self.model_check.pearson, 2), "deviance": round(self.model_check.deviance, 2),
                    "df": self.model_check.df,
                    "p_value": float(f"{self.model_check.p_value:.3g}")}}

    def to_csv(self) -> str:
        """One row per entry (standings.csv)."""
        buf = io.StringIO()
        cols = ["rank", "name", "rating", "rating_low", "rating_high", "prior_pull", "matches", "wins", "losses", "aborted",
                "games_won", "games_lost", "stones_for", "stones_against", "stones_per_hand", "hands", "faults",
                "raw_stones_for", "raw_stones_against", "raw_stones_per_hand", "start_failures"]
        w = csv.writer(buf)
        w.writerow(cols)
        for i, e in zip(self.ranks(), self.entries, strict=True):
            w.writerow([i, e.name, f"{e.rating:.1f}", f"{e.rating_low:.1f}", f"{e.rating_high:.1f}",
                        f"{e.prior_pull:.1f}", e.matches,
                        e.wins, e.losses, e.aborted, e.games_won, e.games_lost, e.stones_for, e.stones_against,
                        f"{e.stones_per_hand:.4f}", e.hands, e.faults, e.raw_stones_for, e.raw_stones_against,
                        f"{e.raw_stones_per_hand:.4f}", e.start_failures])
        return buf.getvalue()


def fit_ratings(names: Sequence[str], matches: Sequence[Match], iterations: int = 100) -> dict[str, float]:
    """Posterior-mode ratings (natural log-odds units, centred): see :func:`fit_rating_model`."""
    return fit_rating_model(names, matches, iterations).rating


def effective_stones(rec: dict[str, Any], target_points: int) -> tuple[int, int] | None:
    """Stones of each team in a result record, each game won below the target (by an
    accepted órdago) counted as the stones the winner needed to finish it.

    None when the record has no ``games`` (per game: ``winner``, final ``scores``).
    """
    games = rec.get("games")
    if games is None:
        return None
    stones = list(rec.get("stones", [0, 0]))
    for g in games:
        w = g.get("winner")
        if w is not None:
            stones[w] += max(0, target_points - g["scores"][w])
    return stones[0], stones[1]


def compute_standings(
    names: Sequence[str],
    members: dict[str, tuple[str, str]],
    results: Sequence[dict[str, Any]],
    seed: int = 0,
    *,
    target_points: int | None = None,
    anchor: str | None = None,
    anchor_rating: float = 1500.0,
) -> Standings:
    """Standings from result records (lines of results.jsonl: ``team0``, ``team1`` and the match result).

    ``members`` and ``seed`` are accepted for the callers' sake and unused: every entry,
    a pair too, is rated as one player, and the interval is computed, not sampled.
    ``target_points`` is the league's ``[rules]`` target (default: the rules' default),
    used to complete the games won by órdago. ``anchor`` (an entry's name) shifts the
    whole scale, intervals too, so that this entry's rating is ``anchor_rating``: ratings
    of two leagues anchored to the same entry compare (differences are what a league
    measures; centred on 1500, the same bot's number depends on who else played).
    """
    if anchor is not None and anchor not in names:
        raise ValueError(f"the anchor {anchor!r} is not an entry of this league")
    del members, seed
    target = Rules().target_points if target_points is None else target_points
    # A canonical order (by match id when present): results.jsonl lists matches in the
    # order they finished, which varies with --jobs and --resume, and float sums must not.
    results = sorted(results, key=lambda r: (str(r.get("match_id", "")), json.dumps(r, sort_keys=True)))
    table = {n: EntryStanding(n) for n in names}
    cross: dict[str, dict[str, int]] = {a: {b: 0 for b in names if b != a} for a in names}
    rated: list[Match] = []
    clusters: list[Hashable | None] = []  # each rated match's deal pair: (its two entries, its deal)
    unadjusted = 0
    for rec in results:
        t = (rec["team0"], rec["team1"])
        winner = rec.get("winner_team")
        games = rec.get("games_won", [0, 0])
        raw = rec.get("stones", [0, 0])
        eff = effective_stones(rec, target)
        if eff is None:
            unadjusted += 1
            eff = (raw[0], raw[1])
        faults = [0, 0]
        for f in rec.get("faults", []):
            faults[f["seat"] & 1] += 1
        not_started = {seat & 1 for seat in start_failed_seats(rec)}
        for side in (0, 1):
            e = table[t[side]]
            e.matches += 1
            if winner is None:
                e.aborted += 1
            elif winner == side:
                e.wins += 1
                cross[t[side]][t[1 - side]] += 1
            else:
                e.losses += 1
            e.games_won += games[side]
            e.games_lost += games[1 - side]
            e.stones_for += eff[side]
            e.stones_against += eff[1 - side]
            e.raw_stones_for += raw[side]
            e.raw_stones_against += raw[1 - side]
            e.hands += rec.get("hands", 0)
            e.faults += faults[side]
            e.start_failures += side in not_started
        if winner is not None:
            rated.append(((t[0],), (t[1],), 1.0 if winner == 0 else 0.0))
            clusters.append((min(t), max(t), rec["deal"]) if rec.get("deal") is not None else None)
    fit = fit_rating_model(list(names), rated, clusters=clusters)
    # At the weak prior's ratings (the rating less its pull): the prior's pull toward the centre
    # is a misfit of its own, which at small samples would read as a non-transitive field.
    check = model_check(list(names), rated, {n: fit.rating[n] - fit.pull.get(n, 0.0) for n in names}, fit.dispersion)
    base = 1500.0 if anchor is None else anchor_rating - SCALE * fit.rating[anchor]
    for n in names:
        e = table[n]
        e.rating = base + SCALE * fit.rating[n]
        e.rating_low, e.rating_high = base + SCALE * fit.low[n], base + SCALE * fit.high[n]
        e.prior_pull = SCALE * fit.pull.get(n, 0.0)
    # Exact ties (same rating to the 0.1 shown, same record) share a rank: Standings.ranks.
    ordered = sorted(table.values(), key=lambda e: (-round(e.rating, 1), -e.wins, e.losses, e.name))
    return Standings(ordered, cross, unadjusted, fit.pairs, fit.dispersion,
                     None if anchor is None else (anchor, anchor_rating), _note(names, cross, rated, clusters, fit, check),
                     check)


def _note(names: Sequence[str], cross: dict[str, dict[str, int]], rated: Sequence[Match],
          clusters: Sequence[Hashable | None], fit: RatingFit, check: ModelCheck | None) -> str | None:
    """What the intervals cannot promise (:data:`SMALL_SAMPLE_NOTE`, :data:`WIDE_PAIRS_NOTE`,
    :data:`MISFIT_NOTE`), or None."""
    played = [cross[a][b] + cross[b][a] for i, a in enumerate(names) for b in names[i + 1:]]
    notes = [SMALL_SAMPLE_NOTE] if any(0 < n < FEW_MATCHES for n in played) else []
    winners: dict[Hashable, list[str]] = {}  # each deal pair's winners: one name twice when it did not split
    for (t0, t1, score), cluster in zip(rated, clusters, strict=True):
        if cluster is not None:
            winners.setdefault(cluster, []).append(t0[0] if score == 1.0 else t1[0])
    unsplit = sum(len(w) == 2 and w[0] == w[1] for w in winners.values())
    if fit.pairs and fit.dispersion < 1.0 and 2 * unsplit < FEW_UNSPLIT_PAIRS * len(names):
        notes.append(WIDE_PAIRS_NOTE)
    if check is not None and check.misfit:
        notes.append(MISFIT_NOTE.format(check=f"chi-squared {check.pearson:.0f} and deviance {check.deviance:.0f} on "
                                              f"{check.df} degrees of freedom, p < {MISFIT_P}"))
    return "; ".join(notes) or None
