"""``mus play BOT...``: sit at the table in the terminal against bots."""

from __future__ import annotations

import contextlib
import secrets
import sys
import time
from pathlib import Path
from typing import Annotated

import typer

from arena.cli.common import EXIT_INTERRUPTED, fail, seed_option
from arena.cli.match import load_rules
from arena.driver.match import MatchConfig
from arena.league.secret import SECRET_BITS
from arena.players.human import HumanPlayer, InputClosed, LineReader
from arena.referee.player import Player, SyncAdapter
from arena.remote.client import RemoteBot, close_bots
from arena.remote.manifest import BotSpec, ManifestError, parse_bot_spec
from arena.remote.process import BotStartError, stop_all_bots
from arena.runner.match import Seating, run_match

DAY_MS = 24 * 3600 * 1000


def seat_bots(specs: list[BotSpec], seat: int, n: int) -> dict[int, BotSpec]:
    """Which bot sits where: one bot takes every other seat; at a table of 4, two bots are
    your partner and the opponents; otherwise one bot per other seat, in turn order from
    the seat after yours."""
    others = [(seat + k) % n for k in range(1, n)]
    if len(specs) == 1:
        return dict.fromkeys(others, specs[0])
    if n == 4 and len(specs) == 2:
        return {s: specs[0] if (s - seat) % 2 == 0 else specs[1] for s in others}
    if len(specs) != len(others):
        fail(f"give 1 bot, {'2 (your partner, the opponents) or ' if n == 4 else ''}{len(others)} (one per other "
             f"seat, from the seat after yours) for a {n}-player table, not {len(specs)}")
    return dict(zip(others, specs, strict=True))


def play(
    bots: Annotated[list[str], typer.Argument(help="The bots at the table: 1 (every other seat), 2 at a table of 4 (your partner, then the opponents), or one per other seat in turn order from the seat after yours; a manifest, a folder with bot.toml, or host:port.")],
    seat: Annotated[int, typer.Option("--seat", min=0, help="Your seat (S0 is mano in the first hand when S3 deals; turn order runs S0, S1, S2…).")] = 0,
    think_s: Annotated[float, typer.Option("--think-s", min=1, help="Seconds you have for a decision; then the referee plays the safe default for you (a timeout fault, as for a bot).")] = 300,
    max_faults: Annotated[int, typer.Option(min=0, help="Faults (timeouts) after which a team forfeits (0 = never).")] = 5,
    seed: Annotated[str | None, typer.Option(metavar="SEED", help="Seed of the deals, to play the same cards again (default: a random secret, printed after the match).")] = None,
    rules_file: Annotated[Path | None, typer.Option("--rules", help="TOML file with a [rules] table (docs/rules.md §12 keys).")] = None,
    players: Annotated[int | None, typer.Option(help="Seats at the table: 2, 4 or 6 (rules.players).")] = None,
    games: Annotated[int | None, typer.Option(help="Games to win the match (rules.games_to_win).")] = None,
    target: Annotated[int | None, typer.Option(help="Stones to win a game (rules.target_points).")] = None,
    out: Annotated[Path, typer.Option("--out", "-o", help="Folder for the hand log and the bots' logs.")] = Path("out/play"),
    match_id: Annotated[str | None, typer.Option(help="Name of the match (and its log file).")] = None,
) -> None:
    """Play a match in the terminal against bots: your cards, the hand so far and the bet
    on the table are shown, with the legal actions numbered; type a number (with an
    amount for an envido, the positions of the cards for a discard: 2 1 3), or an action
    (paso, envido 5, discard Ro 7c), and +SEÑA to give a seña with it. The count is shown
    after every hand. The referee is the same as for bots: the same session, deadlines
    and fault policy. The match is logged: see it again with mus replay LOG --html.
    The end of the input (Ctrl-D) is you leaving: the match stops there, unfinished.
    Exit codes: 0 played; 2 a bot could not start, or bad options; 130 interrupted
    (Ctrl-C, or the input ended).
    """
    given = seed_option(seed)
    rules = load_rules(rules_file, {"games_to_win": games, "target_points": target, "players": players})
    n = rules.players
    if seat >= n:
        fail(f"--seat must be 0..{n - 1} at a {n}-player table")
    try:
        specs = [parse_bot_spec(b) for b in bots]
    except ManifestError as exc:
        fail(str(exc))
    placed = seat_bots(specs, seat, n)
    mid = match_id or time.strftime("play-%Y%m%d-%H%M%S")
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        fail(f"{out}: cannot create: {exc.strerror or exc}")
    if (out / f"{mid}.jsonl").exists():
        fail(f"{out / (mid + '.jsonl')} exists; choose another --out or --match-id")
    match_seed = given if given is not None else secrets.randbits(SECRET_BITS)
    human = HumanPlayer(LineReader(sys.stdin), typer.echo, lambda text: typer.echo(text, nl=False))
    with contextlib.ExitStack() as stack:
        seated: list[Player] = []
        stack.callback(lambda: close_bots(p for p in seated if isinstance(p, RemoteBot)))
        for s in range(n):
            if s == seat:
                seated.append(SyncAdapter(human))
                continue
            seated.append(RemoteBot(placed[s], out / "bots", f"{mid}.s{s}"))
        typer.echo("starting the bots…")
        for s, p in enumerate(seated):
            if isinstance(p, RemoteBot):
                try:
                    p.connect()
                except BotStartError as exc:
                    fail(f"S{s}: {exc}")
        # The whole day for the match: only a decision's deadline (--think-s) binds.
        config = MatchConfig(rules=rules, seed=match_seed, match_id=mid, decision_ms=int(think_s * 1000),
                             time_bank_ms=DAY_MS, max_faults=max_faults)
        names = tuple("you" if s == seat else p.name for s, p in enumerate(seated))
        try:
            outcome = run_match((), Seating(names), config, out, players=seated)
        except KeyboardInterrupt as exc:
            stop_all_bots()
            why = ("the input ended (Ctrl-D, or a closed pipe): you left the table, the match stops unfinished"
                   if isinstance(exc, InputClosed) else "\ninterrupted")
            typer.echo(f"{why}; the hands played are in {out / (mid + '.jsonl')}", err=True)
            raise typer.Exit(EXIT_INTERRUPTED) from None
    typer.echo(f"hand log: {outcome.log_path} (see it again: mus replay {outcome.log_path} --html)")
    typer.echo(f"seed: {hex(match_seed)} (the same cards again: mus play … --seed {hex(match_seed)})")
