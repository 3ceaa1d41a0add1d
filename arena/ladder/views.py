"""What the ladder shows: its standings, versions, rating history, exports and report."""

from __future__ import annotations

import csv
import io
import json
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.ladder.folder import Ladder
from arena.ladder.page import Series, render_page, write_page
from arena.ladder.runner import standings_of
from arena.ladder.store import BadRow
from arena.league.standings import Standings
from arena.report import REPORT_DIR, ReportError, write_report

RECENT = 100
"""Matches the report lists (and writes the viewer for) by default."""


@dataclass
class View:
    """The ladder as read now: the checked results, the rows failing their check, the
    active field's standings."""

    results: list[dict[str, Any]]
    bad: list[BadRow]
    standings: Standings


def read_view(ladder: Ladder) -> View:
    """The standings of the active versions over every checked result between them."""
    results, bad = ladder.results()
    names = sorted(v.id for v in ladder.store.active())
    return View(results, bad, standings_of(ladder, names, results))


def bad_lines(bad: list[BadRow]) -> list[str]:
    """One line per row failing its check (left out of everything shown)."""
    return [f"match row {b.seq} ({b.match_id}): {b.problem}; left out" for b in bad]


def version_rows(ladder: Ladder) -> list[dict[str, Any]]:
    """Every version with its last rating snapshot (None: never rated)."""
    last: dict[str, sqlite3.Row] = {}
    for r in ladder.store.history():
        last[r["version"]] = r
    rows = []
    for v in ladder.store.versions():
        snap = last.get(v.id)
        rows.append({"id": v.id, "entry": v.entry, "number": v.number, "added_at": v.added_at, "active": v.active,
                     "previous": v.previous, "note": v.note, "digest": v.digest, "source": v.source,
                     "rating": snap["rating"] if snap else None, "low": snap["low"] if snap else None,
                     "high": snap["high"] if snap else None, "matches": snap["matches"] if snap else 0})
    return rows


def rating_series(ladder: Ladder, only: set[str] | None = None) -> list[Series]:
    """Each version's rating after each batch (x: matches saved by then)."""
    points: dict[str, list[tuple[int, float, float, float]]] = {}
    for r in ladder.store.history():
        if only is None or r["version"] in only:
            points.setdefault(r["version"], []).append((r["total"], r["rating"], r["low"], r["high"]))
    return [Series(name, pts) for name, pts in sorted(points.items())]


def export_json(ladder: Ladder) -> str:
    """The whole ladder as JSON: standings, versions, every checked match, the rating history."""
    view = read_view(ladder)
    doc = {"ladder": ladder.config.name, **view.standings.to_json(), "versions": version_rows(ladder),
           "matches": view.results,
           "ratings": [{k: r[k] for k in ("batch", "finished_at", "total", "version", "rating", "low", "high",
                                          "matches")} for r in ladder.store.history()],
           "bad_rows": [b.__dict__ for b in view.bad]}
    return json.dumps(doc, indent=2)


def export_csv(ladder: Ladder, what: str) -> str:
    """One table as CSV: ``standings``, ``matches`` or ``ratings``."""
    if what == "standings":
        return read_view(ladder).standings.to_csv()
    buf = io.StringIO()
    w = csv.writer(buf)
    if what == "matches":
        w.writerow(["seq", "match_id", "team0", "team1", "winner_team", "reason", "hands", "log"])
        for r in read_view(ladder).results:
            w.writerow([r.get("seq"), r["match_id"], r["team0"], r["team1"], r.get("winner_team"), r.get("reason"),
                        r.get("hands"), r.get("log")])
    elif what == "ratings":
        w.writerow(["batch", "finished_at", "matches_total", "version", "rating", "low", "high", "matches"])
        for h in ladder.store.history():
            w.writerow([h["batch"], h["finished_at"], h["total"], h["version"], f"{h['rating']:.1f}",
                        f"{h['low']:.1f}", f"{h['high']:.1f}", h["matches"]])
    else:
        raise ValueError(f"what to export as CSV: standings, matches or ratings, not {what!r}")
    return buf.getvalue()


def write_ladder_report(ladder: Ladder, out: Path | None = None, recent: int = RECENT) -> tuple[Path, list[str]]:
    """The leaderboard page and the hand viewer of the ``recent`` last matches; the
    page's path and warnings (rows failing their check, logs left out).

    Raises:
        OSError: the report cannot be written.
    """
    out = out or ladder.path / REPORT_DIR
    view = read_view(ladder)
    warnings = bad_lines(view.bad)
    last = list(reversed(view.results))[:recent]
    logs = [ladder.path / str(r["log"]) for r in last if (ladder.path / str(r["log"])).is_file()]
    viewable: set[str] = set()
    if logs:
        try:
            made = write_report(sorted(logs), out / "viewer", title=f"Ladder {ladder.config.name}: recent matches")
            warnings += [f"left out of the viewer: {w}" for w in made.warnings]
            viewable = {p.stem for p in logs} - {w.split(":")[0] for w in made.warnings}
        except ReportError as exc:
            warnings.append(f"no match viewer: {exc}")
    active = {v.id for v in ladder.store.active()}
    info = (f"{len(view.results)} matches; {len(active)} active versions; sandbox {ladder.config.sandbox}; "
            f"{'duplicate deals' if ladder.config.duplicate else 'independent deals'}")
    page = render_page(ladder.config.name, view.standings, version_rows(ladder), rating_series(ladder, active),
                       last, viewable, info, warnings)
    return write_page(out, page), warnings
