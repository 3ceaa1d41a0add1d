"""``mus ladder report``: the leaderboard page, ``LADDER/report/index.html``.

One static page, no script and no request (its Content-Security-Policy allows none):
the current standings with their 95% intervals, each entry's versions (when added,
their notes, each one's last rating), every active version's rating through time as
an inline SVG chart drawn here, and the recent matches, each opening the arena's
hand viewer: the league report's viewer (:func:`arena.report.write_report`) written in
``report/viewer/`` for those matches.
"""

from __future__ import annotations

import html
import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.league.standings import Standings

PALETTE = ("#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#bcbd22",
           "#7f7f7f")
CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:"

_STYLE = """
body{font-family:system-ui,sans-serif;margin:1.5rem auto;max-width:72rem;color:#222}
table{border-collapse:collapse;margin:.5rem 0 1.5rem}th,td{padding:.2rem .6rem;border-bottom:1px solid #ddd}
td.num{text-align:right;font-variant-numeric:tabular-nums}.note{color:#666}.bad{color:#b00}
svg text{font-size:11px;fill:#333}svg .grid{stroke:#eee}
"""


@dataclass(frozen=True)
class Series:
    """One version's rating through time: (matches saved then, rating, low, high) per batch."""

    name: str
    points: Sequence[tuple[int, float, float, float]]


def _esc(value: object) -> str:
    return html.escape(str(value), quote=True)


def rating_chart(series: Sequence[Series], width: int = 860, height: int = 320) -> str:
    """An SVG line chart of each series' rating against matches saved, its 95% interval as a band."""
    pts = [p for s in series for p in s.points]
    if not pts:
        return '<p class="note">No batch has finished yet: no rating history.</p>'
    x_max = max(max(p[0] for p in pts), 1)
    lo = min(p[2] for p in pts)
    hi = max(p[3] for p in pts)
    lo, hi = (lo - 10, hi + 10) if hi > lo else (lo - 100, hi + 100)
    left, right, top, bottom = 50, 150, 10, 30

    def x(v: float) -> float:
        return left + (width - left - right) * v / x_max

    def y(v: float) -> float:
        return top + (height - top - bottom) * (hi - v) / (hi - lo)

    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" role="img" '
             f'aria-label="rating over time" data-testid="rating-chart">']
    for k in range(5):
        v = lo + (hi - lo) * k / 4
        parts.append(f'<line class="grid" x1="{left}" x2="{width - right}" y1="{y(v):.1f}" y2="{y(v):.1f}"/>'
                     f'<text x="4" y="{y(v) + 4:.1f}">{v:.0f}</text>')
    parts.append(f'<text x="{left}" y="{height - 8}">0</text><text x="{width - right - 60}" y="{height - 8}">'
                 f'{x_max} matches</text>')
    labels = _spread([y(s.points[-1][1]) for s in series], 12.0)
    for i, s in enumerate(series):
        color = PALETTE[i % len(PALETTE)]
        line = " ".join(f"{x(p[0]):.1f},{y(p[1]):.1f}" for p in s.points)
        band = " ".join([f"{x(p[0]):.1f},{y(p[3]):.1f}" for p in s.points]
                        + [f"{x(p[0]):.1f},{y(p[2]):.1f}" for p in reversed(s.points)])
        dots = "".join(f'<circle cx="{x(p[0]):.1f}" cy="{y(p[1]):.1f}" r="2.5" fill="{color}"/>' for p in s.points)
        parts.append(f'<g data-series="{_esc(s.name)}"><polygon points="{band}" fill="{color}" fill-opacity="0.12"/>'
                     f'<polyline points="{line}" fill="none" stroke="{color}" stroke-width="2"/>{dots}'
                     f'<text x="{width - right + 6}" y="{labels[i] + 4:.1f}" style="fill:{color}">'
                     f'{_esc(s.name)}</text></g>')
    parts.append("</svg>")
    return "".join(parts)


def _spread(ys: Sequence[float], gap: float) -> list[float]:
    """``ys`` moved apart (in their order) so that no two are closer than ``gap``: the
    labels at the lines' ends, which overlap for versions rated alike."""
    order = sorted(range(len(ys)), key=lambda i: ys[i])
    out = list(ys)
    for before, i in itertools.pairwise(order):
        out[i] = max(out[i], out[before] + gap)
    return out


def _standings_table(standings: Standings) -> str:
    rows = []
    for i, e in enumerate(standings.entries, start=1):
        rows.append(f"<tr><td class=num>{i}</td><td>{_esc(e.name)}</td><td class=num>{e.rating:.0f}</td>"
                    f"<td class=num>{e.rating_low:.0f}–{e.rating_high:.0f}</td><td class=num>{e.wins}-{e.losses}</td>"
                    f"<td class=num>{e.matches}</td><td class='num{' bad' if e.faults else ''}'>{e.faults}</td></tr>")
    return ('<table id="standings"><thead><tr><th>#</th><th>version</th><th>rating</th><th>95% interval</th>'
            "<th>W-L</th><th>matches</th><th>faults</th></tr></thead><tbody>" + "".join(rows) + "</tbody></table>")


def _versions_table(versions: Sequence[dict[str, Any]]) -> str:
    rows = []
    for v in versions:
        rating = f"{v['rating']:.0f}" if v.get("rating") is not None else "—"
        rows.append(f"<tr data-version='{_esc(v['id'])}'><td>{_esc(v['entry'])}</td><td>{_esc(v['id'])}</td>"
                    f"<td>{_esc(v['added_at'])}</td><td>{'active' if v['active'] else 'retired'}</td>"
                    f"<td class=num>{rating}</td><td>{_esc(v.get('note') or '')}</td></tr>")
    return ('<table id="versions"><thead><tr><th>entry</th><th>version</th><th>added</th><th>state</th>'
            "<th>last rating</th><th>note</th></tr></thead><tbody>" + "".join(rows) + "</tbody></table>")


def _matches_table(matches: Sequence[dict[str, Any]], viewable: set[str]) -> str:
    rows = []
    for m in matches:
        mid = str(m["match_id"])
        link = (f"<a href='viewer/index.html#match={_esc(mid)}'>{_esc(mid)}</a>" if mid in viewable else _esc(mid))
        winner = (m["team0"], m["team1"])[m["winner_team"]] if m.get("winner_team") in (0, 1) else "—"
        rows.append(f"<tr data-match='{_esc(mid)}'><td>{link}</td><td>{_esc(m['team0'])}</td><td>{_esc(m['team1'])}"
                    f"</td><td>{_esc(winner)}</td><td>{_esc(m.get('reason', ''))}</td>"
                    f"<td class=num>{_esc(m.get('hands', ''))}</td></tr>")
    return ('<table id="recent"><thead><tr><th>match</th><th>team 0</th><th>team 1</th><th>winner</th><th>end</th>'
            "<th>hands</th></tr></thead><tbody>" + "".join(rows) + "</tbody></table>")


def render_page(name: str, standings: Standings, versions: Sequence[dict[str, Any]], series: Sequence[Series],
                recent: Sequence[dict[str, Any]], viewable: set[str], info: str, warnings: Sequence[str]) -> str:
    """The whole page (every value from the database or a bot escaped)."""
    warn = "".join(f"<p class='bad warning'>{_esc(w)}</p>" for w in warnings)
    # What the table cannot promise (small samples, a field one rating per entry does not
    # describe), as under `mus ladder standings`.
    note = (f"<p class=note id=standings-note>What the table cannot promise: {_esc(standings.note)}.</p>"
            if standings.note else "")
    return (f'<!doctype html><html lang="en"><head><meta charset="utf-8">'
            f'<meta http-equiv="Content-Security-Policy" content="{CSP}">'
            f"<title>Ladder {_esc(name)} · mus-arena</title><style>{_STYLE}</style></head><body>"
            f"<h1>Ladder {_esc(name)}</h1><p class=note>{_esc(info)}</p>{warn}"
            f"<h2>Standings</h2>{_standings_table(standings)}{note}"
            f"<h2>Rating over time</h2>{rating_chart(series)}"
            f"<h2>Versions</h2>{_versions_table(versions)}"
            f"<h2>Recent matches</h2>{_matches_table(recent, viewable)}</body></html>\n")


def write_page(out: Path, page: str) -> Path:
    """Write ``out/index.html`` (through a temporary file: a reader never sees half a page)."""
    out.mkdir(parents=True, exist_ok=True)
    tmp = out / "index.html.tmp"
    tmp.write_text(page, encoding="utf-8")
    tmp.replace(out / "index.html")
    return out / "index.html"
