"""The root ``mus`` command: global options, and the command groups.

Exit codes (all commands): 0 success; 1 the run worked but found a failure (a scenario
expectation not met, a bot that failed a check, a replay mismatch, ``mus sprt``
accepting H0); 2 bad input (a malformed file, a bad option, an unreadable path); 3
``mus sprt`` reached ``--max-pairs`` without a verdict; 130 interrupted.
"""

from __future__ import annotations

from typing import Annotated

import typer

from arena import __version__
from arena.cli import check, demo, ladder, league, match, play, replay, report, scenario, sprt, watch
from arena.common.log_setup import LOG_FORMATS, configure_logging

app = typer.Typer(
    name="mus",
    no_args_is_help=True,
    add_completion=False,
    rich_markup_mode=None,  # help texts quote TOML tables like [rules]: no markup
    pretty_exceptions_show_locals=False,
)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"mus-arena {__version__}")
        raise typer.Exit()


@app.callback()
def main(
    log_format: Annotated[
        str, typer.Option("--log-format", metavar="console|json",
                          help="Operational logs (warnings, errors; more with -v) on stderr: console (readable lines, "
                               "the default) or json (one JSON object per line).")
    ] = "console",
    verbose: Annotated[int, typer.Option("-v", "--verbose", count=True, help="More logs on stderr, given before the command (mus -v league …): -v info (each bot process started, each match finished, each start failure), -vv debug (each bot's address, each process stopped, the pool's decisions).")] = 0,
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Print the version and exit.")
    ] = False,
) -> None:
    """mus-arena: a referee and arena for Mus bots.

    Start with `mus check BOT` on your bot, then `mus match BOT BOT`; run a league with
    `mus league CONFIG --out DIR`; debug with `mus replay LOG`; settle a rule with
    `mus scenario FILE`; watch with `mus report OUT_DIR` or `mus watch LOG`; play with
    `mus play BOT`; compare two versions with `mus sprt NEW OLD`; run a competition
    for weeks with `mus ladder`. Exit codes: 0 ok, 1 a failure was found (for
    `mus sprt`: H0), 2 bad input, 3 `mus sprt` without a verdict, 130 interrupted.
    """
    if log_format not in LOG_FORMATS:
        raise typer.BadParameter(f"must be {' or '.join(LOG_FORMATS)}", param_hint="--log-format")
    configure_logging("json" if log_format == "json" else "console", verbose)


app.command("match")(match.match)
app.command("league", cls=league.LeagueCommand)(league.league)
app.command("replay")(replay.replay_cmd)
app.command("check")(check.check)
app.command("scenario")(scenario.scenario)
app.command("demo")(demo.demo)
app.command("sprt")(sprt.sprt)
app.command("report")(report.report)
app.command("watch")(watch.watch_cmd)
app.command("play")(play.play)
app.add_typer(ladder.app, name="ladder")
