"""Writing the HTML report: ``index.html`` and one ``matches/m<k>.js`` per match.

The index holds the standings, the charts, the crosstable and one line per match; a
match's hands are in its own script file, which the page loads with a ``<script>``
tag when the match is opened (a page opened from ``file://`` may not ``fetch`` files
beside it, but may load scripts). So a league of thousands of matches opens as fast as
a small one, and nothing needs a server or the network: the style, the viewer and the
chart library (Chart.js, vendored in ``static/``, see ``static/VENDORED.md``) are
inlined in the index.
"""

from __future__ import annotations

import base64
import hashlib
import json
import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import jinja2

from arena import __version__
from arena.records.handlog import HandLogError, read_log
from arena.report.data import find_logs, league_data, match_data, match_summary

REPORT_DIR = "report"
"""The report's folder inside a league's (or match folder's) output folder."""


class ReportError(ValueError):
    """A folder or log the report cannot be made of (nothing to show, unreadable)."""


@dataclass(frozen=True)
class Report:
    """A written report: its index page and what it holds."""

    index: Path
    matches: int
    warnings: tuple[str, ...] = ()
    """One line per log that could not be read (it is left out)."""


def _static(name: str) -> str:
    return resources.files("arena.report").joinpath("static", name).read_text(encoding="utf-8")


def _environment() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.PackageLoader("arena.report", "templates"),
        autoescape=jinja2.select_autoescape(default=True),  # every name and detail in it comes from bots
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
    )


def _sha256(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode("ascii") + "'"


def content_security_policy(scripts: list[str], styles: list[str]) -> str:
    """The page's Content-Security-Policy: nothing from the network, and no script or
    style but the page's own, allowed by the SHA-256 of each inline ``<script>`` and
    ``<style>`` (the exact text between its tags). So a name or error text that ever
    got into the page as markup (if escaping broke) could not run: no inline handler
    (``onerror=``), no injected ``<script>``, no ``file:`` script from elsewhere on the
    disk. ``'strict-dynamic'`` lets the viewer (trusted by its hash) load the match
    files it writes the ``<script>`` tags of (``matches/m<k>.js``); a script the parser
    meets in markup gets no such trust. Styles the viewer sets go through the CSSOM
    (``element.style``), which a policy does not restrict."""
    script_src = " ".join(_sha256(s) for s in scripts)
    style_src = " ".join(_sha256(s) for s in styles)
    return (f"default-src 'none'; script-src {script_src} 'strict-dynamic'; style-src {style_src}; "
            "img-src data:; base-uri 'none'; form-action 'none'")


def _match_script(data: dict[str, Any]) -> str:
    """A match's data as the script the page loads: a call that hands it over. JSON is
    JavaScript; the separators keep the file small."""
    return "MusReport.matchLoaded(" + json.dumps(data, ensure_ascii=False, separators=(",", ":")) + ");\n"


def write_report(logs: list[Path], out: Path, *, title: str, league: dict[str, Any] | None = None,
                 on_match: Callable[[int, int], None] | None = None) -> Report:
    """Write the report of ``logs`` in ``out`` (created; an earlier report there is
    replaced): ``out/index.html`` and ``out/matches/m<k>.js``. ``league``: the league's
    summary (:func:`arena.report.data.league_data`), shown above the matches.
    ``on_match(done, total)`` after each match (progress).

    Raises:
        ReportError: no log could be read.
        OSError: ``out`` cannot be written.
    """
    matches_dir = out / "matches"
    if matches_dir.exists():
        shutil.rmtree(matches_dir)  # matches of an earlier report that are gone now must not linger
    matches_dir.mkdir(parents=True)
    summaries: list[dict[str, Any]] = []
    warnings: list[str] = []
    for k, path in enumerate(logs):
        try:
            log = read_log(path)
            data = match_data(log)
        except HandLogError as exc:
            warnings.append(str(exc))
        except (ValueError, TypeError, KeyError, IndexError, AttributeError) as exc:
            # Values the log's checks let through but the re-play cannot use: a log no
            # arena wrote, left out like an unreadable one rather than ending the report.
            warnings.append(f"{path}: not a log this arena wrote ({type(exc).__name__}: {str(exc)[:200]})")
        else:
            name = f"m{len(summaries)}.js"
            (matches_dir / name).write_text(_match_script(data), encoding="utf-8")
            summary = {**match_summary(log, data), "file": f"matches/{name}"}
            if league is not None and summary["id"] not in league["results"]:
                # Played to its end, or not, but its result was never saved (the league was
                # interrupted first): not counted in the standings, played again on --resume.
                summary.update(winner=None, reason="not saved: played again on --resume")
            summaries.append(summary)
        if on_match is not None:
            on_match(k + 1, len(logs))
    if not summaries:
        raise ReportError("no hand log could be read" + (f": {warnings[0]}" if warnings else " (no *.jsonl found)"))
    index = {
        "title": title, "league": league, "matches": summaries, "arena_version": __version__,
        "generated": time.strftime("%Y-%m-%d %H:%M:%S %Z"),
    }
    css, viewer_js, chart_js = _static("report.css"), _static("viewer.js"), _static("chart.umd.min.js")
    page = _environment().get_template("index.html.j2").render(
        title=title, data=index, css=css, viewer_js=viewer_js, chart_js=chart_js,
        csp=content_security_policy([chart_js, viewer_js], [css]),
    )
    (out / "index.html").write_text(page, encoding="utf-8")
    return Report(out / "index.html", len(summaries), tuple(warnings))


def report_folder(folder: Path, out: Path | None = None,
                  on_match: Callable[[int, int], None] | None = None) -> Report:
    """The report of a league's output folder (standings, crosstable, every match) or
    of a folder of hand logs (``mus match --out``), in ``folder/report`` by default.

    Raises:
        ReportError: the folder holds no readable hand log.
        OSError: the report cannot be written.
    """
    if not folder.is_dir():
        raise ReportError(f"{folder}: not a folder")
    try:
        league = league_data(folder)
    except HandLogError as exc:
        raise ReportError(str(exc)) from None
    logs = find_logs(folder)
    if not logs:
        raise ReportError(f"{folder}: no hand log (*.jsonl) in it" + (" or in logs/" if league is None else ""))
    title = f"League {league['name']}" if league is not None else f"Matches in {folder.name}"
    return write_report(logs, out or folder / REPORT_DIR, title=title, league=league, on_match=on_match)


def report_log(log: Path, out: Path | None = None) -> Report:
    """The report of one match's hand log, in ``<log's folder>/<match>.report`` by default.

    Raises:
        ReportError: the log cannot be read.
        OSError: the report cannot be written.
    """
    try:
        read_log(log)  # say what is wrong with it, rather than "no hand log could be read"
    except HandLogError as exc:
        raise ReportError(str(exc)) from None
    return write_report([log], out or log.with_name(f"{log.stem}.report"), title=f"Match {log.stem}")
