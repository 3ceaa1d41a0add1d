"""``mus replay LOG``: show a logged match hand by hand, verify it, or re-ask a bot."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from arena.cli.common import EXIT_FAILURE, fail, malformed_log
from arena.records.handlog import HandLog, HandLogError, read_log
from arena.tools.replay import format_hand, replay, verify


def replay_cmd(
    log_file: Annotated[Path, typer.Argument(metavar="LOG", help="A hand log (<match>.jsonl).")],
    hand: Annotated[int | None, typer.Option("--hand", help="Show only hand N (numbered from 0 in the match).")] = None,
    seat: Annotated[int | None, typer.Option("--seat", help="Show only what seat S saw (its cards, public actions, señas it saw).")] = None,
    check: Annotated[bool, typer.Option("--verify", help="Re-play through the engine and report every mismatch (exit 1 if any).")] = False,
    against: Annotated[str | None, typer.Option("--against", help="Re-send --seat's decision requests to this bot, with the logged time control, and list where it now answers differently, illegally or late.")] = None,
    html: Annotated[bool, typer.Option("--html", help="Write the match as an HTML report with the hand viewer (LOG's folder/<match>.report/index.html), and open it on a terminal with a display.")] = False,
) -> None:
    """Show a match hand by hand: the cards of each seat, every action in order, señas, scoring.

    A corrupt line is reported with its number and the rest is still shown.
    With --against, each request is sent as the seat saw it (same id, deadline and time
    bank as in the log); an answer past that deadline is late, as in a match.
    Exit codes: 0 ok; 1 --verify found a mismatch (or --against found a different, illegal
    or late answer, or a fault); 2 unreadable log, or a bot that cannot start.
    """
    try:
        log = read_log(log_file)
    except HandLogError as exc:
        fail(str(exc))
    with malformed_log(log_file):
        _run(log, log_file, hand, seat, check, against, html)


def _run(log: HandLog, log_file: Path, hand: int | None, seat: int | None, check: bool, against: str | None,
         html: bool) -> None:
    """``mus replay`` on a log read (the options as :func:`replay_cmd` takes them)."""
    n_seats = int(dict(log.header.get("rules", {})).get("players", 4))
    if seat is not None and not 0 <= seat < n_seats:
        fail(f"--seat must be 0..{n_seats - 1} for this {n_seats}-player match, not {seat}")
    for err in log.errors:
        typer.echo(f"warning: {log_file}: {err} (skipped)", err=True)
    if html:
        _html(log_file)
        return
    if against is not None:
        if seat is None:
            fail("--against needs --seat (whose decisions to re-send)")
        from arena.tools.replay_against import replay_against

        try:
            report = replay_against(log, seat, against)
        except Exception as exc:  # a bot that cannot start, a bad spec
            fail(str(exc))
        typer.echo(f"time control from the log: {report.decision_ms} ms a decision, a bank of {report.time_bank_ms} ms")
        for line in report.lines:
            typer.echo(line)
        if report.stderr:
            typer.echo("bot stderr (its first and last lines):")
            for line in report.stderr:
                typer.echo(f"| {line}")
        extra = f", {report.not_asked} not asked (the stream broke)" if report.not_asked else ""
        if report.bank_empty:
            extra += f", {report.bank_empty} not asked (the seat's bank was empty in the log)"
        typer.echo(f"{report.asked} decisions of S{seat} re-sent; {report.differently} answered differently, "
                   f"{report.illegal} illegal, {report.late} late, {report.faults} other faults{extra}")
        raise typer.Exit(EXIT_FAILURE if report.failed else 0)
    if check:
        problems = verify(log)
        for p in problems:
            typer.echo(f"MISMATCH: {p}")
        unfinished = [h.get("hand") for h in log.hands if h.get("finished", True) is False]
        count = f"{len(log.hands)} hands" + (f" (hand {unfinished[0]} unfinished)" if unfinished else "")
        typer.echo(f"{log_file}: {count}; " + ("verified: the engine agrees with every hand" if not problems else f"{len(problems)} problem(s)"))
        raise typer.Exit(EXIT_FAILURE if problems else 0)
    h = log.header
    seats = ", ".join(f"S{s['seat']}={s.get('bot', '?')}" for s in h.get("seats", []))
    typer.echo(f"match {h.get('match_id')} · seed {h.get('seed')} · {seats}")
    shown = 0
    for rh in replay(log):
        if hand is None or rh.number == hand:
            format_hand(rh, seat, typer.echo)
            shown += 1
    if hand is not None and shown == 0:
        fail(f"no hand {hand} in {log_file} ({len(log.hands)} hands)")
    if log.footer:
        r = log.footer.get("result", {})
        typer.echo(f"result: winner team {r.get('winner_team')}, games {r.get('games_won')}, {r.get('reason')}")
    else:
        typer.echo("no footer: the match did not finish (the log holds every finished hand)")


def _html(log_file: Path) -> None:
    """``--html``: the match's report, as ``mus report`` writes a folder's."""
    from arena.cli.report import publish
    from arena.report import report_log

    publish(lambda: report_log(log_file), None)
