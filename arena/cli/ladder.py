"""``mus ladder``: a competition that lives for weeks (docs/ladder.md)."""

from __future__ import annotations

import datetime as dt
import os
import re
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any

import typer
from typer.core import TyperCommand

from arena.cli.common import (
    EXIT_FAILURE,
    EXIT_INTERRUPTED,
    console,
    fail,
    protections_text,
    require_sandbox,
    sigterm_interrupts,
    standings_table,
)
from arena.cli.league import cluster_address, ray_without_address
from arena.cli.report import open_in_browser
from arena.ladder.folder import Ladder, add_version, create_ladder, open_ladder
from arena.ladder.runner import DEFAULT_NARROW, Limits, run_ladder
from arena.ladder.settings import DEFAULT_SETTINGS
from arena.ladder.store import LadderError
from arena.ladder.views import (
    bad_lines,
    export_csv,
    export_json,
    read_view,
    version_rows,
    write_ladder_report,
)
from arena.league.config import LeagueConfigError, check_cluster_address
from arena.remote.process import stop_all_bots
from arena.report import Report

app = typer.Typer(name="ladder", no_args_is_help=True, add_completion=False, rich_markup_mode=None,
                  help="A ladder: entries and versions added over weeks, matches chosen where they inform, "
                       "its history in a database (docs/ladder.md).")

LadderDir = Annotated[Path, typer.Argument(metavar="LADDER", help="The ladder's folder.")]


@contextmanager
def opened(path: Path) -> Iterator[Ladder]:
    """The ladder in ``path``, closed after; a ladder that cannot be opened exits 2."""
    try:
        ladder = open_ladder(path)
    except LadderError as exc:
        fail(str(exc))
    try:
        yield ladder
    finally:
        ladder.close()


@app.command("create")
def create(
    path: LadderDir,
    settings: Annotated[Path | None, typer.Option("--settings", "-s", help="A ladder file: a league file without entries (rules, time, sandbox, duplicate, jobs). Default: duplicate deals, 30 points, strict sandbox.")] = None,
) -> None:
    """Create a ladder in a new (or empty) folder."""
    try:
        ladder = create_ladder(path, settings, DEFAULT_SETTINGS)
    except (LadderError, LeagueConfigError) as exc:
        fail(str(exc))
    typer.echo(f"ladder {ladder.config.name} created in {path}; "
               f"{protections_text({'profile': ladder.config.sandbox})}")
    if ladder.config.sandbox != "strict":
        typer.echo("warning: the default sandbox lets a bot read and write the arena's files, this ladder's database "
                   "included: run a competition under [sandbox] mode = \"strict\"", err=True)
    ladder.close()


@app.command("add")
def add(
    path: LadderDir,
    entry: Annotated[str, typer.Argument(help="The entry's name (letters, digits, _ -); an existing one gets a new version.")],
    bot: Annotated[Path, typer.Argument(help="The bot's folder (with its bot.toml): copied into the ladder as it is now.")],
    note: Annotated[str, typer.Option("--note", help="What changed in this version (shown in the report).")] = "",
    keep_previous: Annotated[bool, typer.Option("--keep-previous", help="Keep the entry's earlier version playing too (default: it stops being paired; its results stay).")] = False,
) -> None:
    """Add an entry, or a new version of one: a snapshot of the bot folder, rated on its own."""
    with opened(path) as ladder:
        try:
            version, warnings = add_version(ladder, entry, bot, note, keep_previous)
        except LadderError as exc:
            fail(str(exc))
    for w in warnings:
        typer.echo(f"warning: {w}", err=True)
    after = f" (after {version.previous})" if version.previous else ""
    typer.echo(f"added {version.id}{after}: {version.snapshot}, digest {version.digest[:16]}")


@app.command("retire")
def retire(path: LadderDir, entry: Annotated[str, typer.Argument(help="The entry to stop pairing.")]) -> None:
    """Stop pairing an entry (every version of it); its results and history stay."""
    with opened(path) as ladder:
        if entry not in ladder.store.entry_names():
            fail(f"no entry {entry!r} in the ladder")
        n = ladder.store.retire(entry)
    typer.echo(f"retired {entry} ({n} active version{'s' if n != 1 else ''} stopped)")


_DURATION = re.compile(r"^(\d+)([smhd])$")


def parse_until(text: str, now: float | None = None) -> float:
    """``--until``: a duration (``90m``, ``8h``, ``2d``), a time of day (``07:30``: the next
    one), or an ISO date and time (``2026-12-05T07:30``, local time unless it says).

    Raises:
        ValueError: none of those.
    """
    now = time.time() if now is None else now
    if m := _DURATION.match(text):
        return now + int(m.group(1)) * {"s": 1, "m": 60, "h": 3600, "d": 86400}[m.group(2)]
    if re.fullmatch(r"\d{1,2}:\d{2}", text):
        hours, minutes = (int(x) for x in text.split(":"))
        if hours > 23 or minutes > 59:
            raise ValueError(f"{text}: not a time of day")
        base = dt.datetime.fromtimestamp(now)
        at = base.replace(hour=hours, minute=minutes, second=0, microsecond=0)
        if at <= base:
            at += dt.timedelta(days=1)
        return at.timestamp()
    try:
        return dt.datetime.fromisoformat(text).timestamp()
    except ValueError:
        raise ValueError(f"{text!r}: give a duration (90m, 8h, 2d), a time of day (07:30) or a date and "
                         "time (2026-12-05T07:30)") from None


class RunCommand(TyperCommand):
    """``mus ladder run``, whose ``--ray`` takes an optional address (as ``mus league``'s):
    before the ladder's folder, the folder is not taken for it."""

    # ctx: typer's vendored click Context, which typer does not export under a public name.
    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        return super().parse_args(ctx, ray_without_address(args, os.path.isdir))


@app.command("run", cls=RunCommand)
def run(
    path: LadderDir,
    matches: Annotated[int | None, typer.Option("--matches", "-n", min=1, help="Play this many matches (rounded up to whole duplicate pairs).")] = None,
    until: Annotated[str | None, typer.Option("--until", help="Start no match after this: 8h, 07:30 (the next), or 2026-12-05T07:30.")] = None,
    narrow: Annotated[float | None, typer.Option("--narrow", min=1.0, help=f"Stop once every active version's 95%% interval is at most this wide (Elo). Without any limit: {DEFAULT_NARROW:.0f}.")] = None,
    jobs: Annotated[int | None, typer.Option("--jobs", "-j", min=1, help="Matches in parallel, each refereed in a worker process of its own when more than one (default: the settings' jobs, else the CPUs this process may use). With --ray: the most matches in flight (default: what the cluster holds).")] = None,
    ray: Annotated[str | None, typer.Option("--ray", metavar="ADDRESS", help="Play the matches on a Ray cluster, as mus league --ray. ADDRESS (optional): local, auto, host:port or ray://host:port; without one, $RAY_ADDRESS, else local. Needs pip install 'mus-arena[ray]'. See docs/cluster.md.")] = None,
) -> None:
    """Play matches chosen by matchmaking until a limit; each result is saved as it ends.

    Ctrl-C (or SIGTERM) stops cleanly; a killed run loses only the matches in flight,
    which the next run plays first. Exit codes: 0 done; 1 a match could not be played
    (a defect of the arena: the next run plays it); 2 not a ladder, in use, or a row or
    snapshot failing its check; 130 interrupted.
    """
    try:
        deadline = parse_until(until) if until is not None else None
    except ValueError as exc:
        fail(f"--until: {exc}")
    address = None
    if ray is not None:
        address = cluster_address(ray, None)
        try:
            check_cluster_address(address)
        except ValueError as exc:
            fail(f"--ray: {exc}" if ray else f"--ray (from $RAY_ADDRESS): {exc}")
        from arena.league.cluster import RAY_MISSING, ray_available

        if not ray_available():
            fail(RAY_MISSING)
    with opened(path) as ladder:
        protections = require_sandbox(ladder.config.sandbox)
        typer.echo(f"ladder {ladder.config.name}: {len(ladder.store.active())} active versions; "
                   f"{protections_text(protections)}", err=True)
        if address is not None and ladder.config.sandbox != "strict":
            # Ray's ports are unauthenticated: a bot with the network can reach other tasks' seeds.
            typer.echo("warning: on a cluster the default sandbox lets a bot reach Ray's ports, and through them other "
                       "matches' seeds; run a ladder under the strict sandbox (docs/cluster.md)", err=True)
    stop = threading.Event()

    def shown(rec: dict[str, Any], seq: int) -> None:
        winner = (rec["team0"], rec["team1"])[rec["winner_team"]] if rec.get("winner_team") in (0, 1) else "nobody"
        typer.echo(f"#{seq} {rec['match_id']}: {rec['team0']} vs {rec['team1']}: {winner} ({rec.get('reason')})")

    try:
        with sigterm_interrupts():
            done = run_ladder(path, Limits(matches, deadline, narrow), jobs=jobs, stop=stop, on_match=shown,
                              ray=address)
    except LadderError as exc:
        fail(str(exc))
    except KeyboardInterrupt:
        stop_all_bots()
        typer.echo(f"\ninterrupted: the matches saved are kept; mus ladder run {path} continues", err=True)
        raise typer.Exit(EXIT_INTERRUPTED) from None
    typer.echo(f"played {done.played} matches in {done.batches} batches; stopped: {done.stopped}")
    if done.failed:
        fail(f"{len(done.failed)} match(es) could not be played, by a defect of the arena ({done.failed[0][0]}: "
             f"{done.failed[0][1]}); the next run plays them", EXIT_FAILURE)


@app.command("standings")
def standings(path: LadderDir) -> None:
    """The current standings of the active versions, then every version's last rating."""
    with opened(path) as ladder:
        view = read_view(ladder)
        rows = version_rows(ladder)
        name = ladder.config.name
    for line in bad_lines(view.bad):
        typer.echo(f"warning: {line}", err=True)
    out = console()
    out.print(standings_table(view.standings, f"Ladder {name}: {len(view.results)} matches"))
    for v in rows:
        if not v["active"]:
            rating = f"last rated {v['rating']:.0f} [{v['low']:.0f}–{v['high']:.0f}]" if v["rating"] else "never rated"
            typer.echo(f"retired: {v['id']} ({rating}, {v['matches']} matches)")


@app.command("export")
def export(
    path: LadderDir,
    fmt: Annotated[str, typer.Option("--format", "-f", metavar="json|csv", help="json: everything; csv: one table (--what).")] = "json",
    what: Annotated[str, typer.Option("--what", metavar="standings|matches|ratings", help="The CSV's table.")] = "standings",
    out: Annotated[Path | None, typer.Option("--out", "-o", help="Write here (default: stdout).")] = None,
) -> None:
    """Export the standings, versions, matches and rating history (JSON), or one table (CSV)."""
    if fmt not in ("json", "csv"):
        fail(f"--format: json or csv, not {fmt!r}")
    with opened(path) as ladder:
        try:
            text = export_json(ladder) if fmt == "json" else export_csv(ladder, what)
        except ValueError as exc:
            fail(f"--what: {exc}")
    if out is None:
        typer.echo(text, nl=False)
        return
    try:
        out.write_text(text, encoding="utf-8")
    except OSError as exc:
        fail(f"{out}: cannot write: {exc.strerror or exc}")


@app.command("verify")
def verify(path: LadderDir) -> None:
    """Check every match row's MAC and sequence; exit 1 naming each row that fails."""
    with opened(path) as ladder:
        results, bad = ladder.results()
    for line in bad_lines(bad):
        typer.echo(line)
    if bad:
        raise typer.Exit(EXIT_FAILURE)
    typer.echo(f"{len(results)} match rows: every one checks")


@app.command("report")
def report(
    path: LadderDir,
    out: Annotated[Path | None, typer.Option("--out", "-o", help="Where to write it (default: LADDER/report).")] = None,
    recent: Annotated[int, typer.Option("--recent", min=1, help="Matches listed, each opening the hand viewer.")] = 100,
    open_page: Annotated[bool | None, typer.Option("--open/--no-open", help="Open it in a browser (default: on a terminal with a display).")] = None,
) -> None:
    """Write the leaderboard page: standings with intervals, versions, rating over time, recent matches."""
    with opened(path) as ladder:
        try:
            index, warnings = write_ladder_report(ladder, out, recent)
        except OSError as exc:
            fail(f"cannot write the report: {exc.strerror or exc}")
    for w in warnings:
        typer.echo(f"warning: {w}", err=True)
    typer.echo(f"report: {index}")
    open_in_browser(Report(index, 0), open_page)
