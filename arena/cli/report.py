"""``mus report OUT_DIR``: the HTML report of a league's (or a match folder's) output."""

from __future__ import annotations

import os
import sys
import webbrowser
from collections.abc import Callable
from pathlib import Path
from typing import Annotated

import typer

from arena.cli.common import fail, malformed_log
from arena.report import Report, ReportError, report_folder


def open_in_browser(report: Report, asked: bool | None) -> None:
    """Open the report's page in the user's browser: when asked, or (``asked`` None)
    when a person is there to see it (stdout a terminal, and a display to show a
    window on; on a bare terminal the browser could be a text one taking it over)."""
    if asked is None:
        asked = sys.stdout.isatty() and bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")
                                             or sys.platform in ("darwin", "win32"))
    if asked and not webbrowser.open(report.index.resolve().as_uri()):
        typer.echo("no browser could be started: open the file above", err=True)


def publish(make: Callable[[], Report], open_page: bool | None) -> None:
    """Write a report with ``make``; say where it is and which logs it left out, and open
    it (:func:`open_in_browser`). A report that cannot be made or written exits 2."""
    try:
        written = make()
    except ReportError as exc:
        fail(str(exc))
    except OSError as exc:
        fail(f"cannot write the report: {exc.strerror or exc}")
    for w in written.warnings:
        typer.echo(f"warning: left out: {w}", err=True)
    typer.echo(f"report: {written.index} ({written.matches} match{'es' if written.matches != 1 else ''})")
    open_in_browser(written, open_page)


def report(
    folder: Annotated[Path, typer.Argument(metavar="OUT_DIR", help="A league's output folder (mus league --out), or a folder of hand logs (mus match --out).")],
    out: Annotated[Path | None, typer.Option("--out", "-o", help="Where to write the report (default: OUT_DIR/report).")] = None,
    open_page: Annotated[bool | None, typer.Option("--open/--no-open", help="Open it in a browser (default: on a terminal with a display).")] = None,
) -> None:
    """Write an HTML report: standings with rating intervals, charts, the crosstable,
    every match, and a hand-by-hand replay viewer (all-seeing or one seat's view).

    It needs no server and no network: open OUT_DIR/report/index.html. Each match's
    hands are in report/matches/, loaded when the match is opened, so a league of
    thousands of matches opens at once. It can be written while a league runs (the
    standings of the matches saved so far). Exit codes: 0 written; 2 no hand log, or
    the report cannot be written.
    """
    with malformed_log(folder):
        publish(lambda: report_folder(folder, out, on_match=_progress()), open_page)


def _progress() -> Callable[[int, int], None] | None:
    """A counter on a terminal's stderr while the matches are written (a large league takes seconds)."""
    if not sys.stderr.isatty():
        return None

    def show(done: int, total: int) -> None:
        typer.echo(f"\rwriting the report: {done}/{total} matches" + ("\n" if done == total else ""), nl=False, err=True)

    return show
