"""``mus match BOT...``: one match between bot processes."""

from __future__ import annotations

import json
import secrets
import time
import tomllib
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path
from typing import Annotated

import typer
from mus_core import Rules

from arena.cli.common import (
    EXIT_BAD_INPUT,
    EXIT_INTERRUPTED,
    fail,
    protections_text,
    require_sandbox,
    seed_option,
    sigterm_interrupts,
    warn_given_seed,
)
from arena.cli.progress import match_start_failures, print_start_failures
from arena.driver.match import MatchConfig
from arena.league.folder import seed_line
from arena.league.secret import SECRET_BITS, write_secret
from arena.remote import grants
from arena.remote.manifest import BotManifest, BotSpec, ManifestError, parse_bot_spec
from arena.remote.process import stop_all_bots
from arena.remote.readable import readability_problem
from arena.remote.sandbox import STRICT
from arena.report.watch import Watching
from arena.runner.match import MatchOutcome, OutFolderError, Seating, prepare_match_folder, run_match
from arena.runtime.settings import DEFAULT_POLL_US, Runtime, command_line


def load_rules(path: Path | None, overrides: dict[str, object]) -> Rules:
    """Rules from a TOML file (its [rules] table, or the whole file) plus command-line overrides."""
    data: dict[str, object] = {}
    if path is not None:
        try:
            doc = tomllib.loads(path.read_text(encoding="utf-8"))
        except OSError as exc:
            fail(f"{path}: cannot read: {exc.strerror or exc}")
        except tomllib.TOMLDecodeError as exc:
            fail(f"{path}: not valid TOML: {exc}")
        data = dict(doc.get("rules", doc))
    data.update({k: v for k, v in overrides.items() if v is not None})
    try:
        return Rules.from_mapping(data)
    except ValueError as exc:
        fail(f"{path or 'options'}: {exc}")


def match(
    bots: Annotated[list[str], typer.Argument(help="2 bots (each team: two instances of one) or one per seat (S0 S1 S2 S3…); a manifest, a folder with bot.toml, or host:port.")],
    out: Annotated[Path, typer.Option("--out", "-o", help="Folder for the hand log and bot logs (created if needed).")] = Path("out/match"),
    seed: Annotated[str | None, typer.Option(metavar="SEED", help="Seed of the deals, to reproduce a match: a non-negative integer below 2**256, decimal or 0x-hex. Default: a random 128-bit secret, printed after the match. A chosen seed can be guessed: not for competitions.")] = None,
    rules_file: Annotated[Path | None, typer.Option("--rules", help="TOML file with a [rules] table (docs/rules.md §12 keys).")] = None,
    games: Annotated[int | None, typer.Option(help="Games to win the match (rules.games_to_win).")] = None,
    target: Annotated[int | None, typer.Option(help="Stones to win a game (rules.target_points).")] = None,
    decision_ms: Annotated[int, typer.Option(min=1, help="Deadline of one decision (ms).")] = 2000,
    time_bank_ms: Annotated[int, typer.Option(min=1, help="Time each seat may use over the match (ms).")] = 120_000,
    max_faults: Annotated[int, typer.Option(min=0, help="Faults after which a team forfeits (0 = never).")] = 5,
    match_id: Annotated[str | None, typer.Option(help="Name of the match (and its log file).")] = None,
    json_out: Annotated[bool, typer.Option("--json", help="Print the result as JSON.")] = False,
    # retired (REMOVED_IN): --affinity, --bot-cpus, --spin-us (arena.common.deprecation).
    affinity: Annotated[str | None, typer.Option("--affinity", hidden=True, help="Deprecated, ignored.")] = None,
    bot_cpus: Annotated[str | None, typer.Option("--bot-cpus", hidden=True, help="Deprecated, ignored.")] = None,
    spin_us: Annotated[int | None, typer.Option("--spin-us", hidden=True, help="Deprecated.")] = None,
    sandbox: Annotated[str, typer.Option("--sandbox", metavar="default|strict", help="How the bot processes are isolated (see docs/league.md). strict fails (exit 2) on a machine that cannot give it.")] = "default",
    allow_env: Annotated[list[str] | None, typer.Option("--allow-env", metavar="NAME", help="Under --sandbox strict: a variable of this environment a bot's manifest may inherit (inherit_env); repeat for more. Without it a strict bot inherits none, and a manifest asking for one is refused.")] = None,
    watch: Annotated[bool, typer.Option("--watch", help="Show each hand as it is played (as mus replay shows it), from the hand log as the referee writes it.")] = False,
) -> None:
    """Play one match between bot processes and write its hand log.

    With two bots, each team is two processes of one bot (bot 1 at S0/S2, bot 2 at
    S1/S3). Exit codes: 0 the match was played (whatever its result); 2 a bot could not
    be found or started, or bad options; 130 interrupted.
    """
    given = seed_option(seed)
    rules = load_rules(rules_file, {"games_to_win": games, "target_points": target})
    try:
        poll_us = command_line(affinity, bot_cpus, spin_us)
        runtime = Runtime(poll_us=DEFAULT_POLL_US if poll_us is None else poll_us)
    except ValueError as exc:
        fail(str(exc))
    specs = _seat_specs(bots, rules.players, sandbox, allow_env or [])
    protections = require_sandbox(sandbox)
    # The match id is sent to the bots: it names the seed only when the user gave it.
    mid = match_id or (f"match-{given}" if given is not None else time.strftime("match-%Y%m%d-%H%M%S"))
    try:
        log_path = prepare_match_folder(out, mid)
    except OutFolderError as exc:
        fail(str(exc))
    if given is not None:
        warn_given_seed(given)
    match_seed = given if given is not None else secrets.randbits(SECRET_BITS)
    secret_path = out / f"{mid}.secret.json"
    try:
        write_secret(secret_path, {"seed": hex(match_seed), "seed_given": given is not None})
    except FileExistsError:
        fail(f"{secret_path} exists; choose another --out or --match-id")
    except OSError as exc:
        fail(f"{secret_path}: cannot write: {exc.strerror or exc}")
    typer.echo(f"{mid}: {protections_text(protections)}", err=True)
    config = MatchConfig(rules=rules, seed=match_seed, match_id=mid, decision_ms=decision_ms,
                         time_bank_ms=time_bank_ms, max_faults=max_faults)
    # The hands are shown from the log as it is written: what is shown is what is logged.
    shown: AbstractContextManager[object] = Watching(log_path, lambda line: typer.echo(line, err=json_out)) if watch else nullcontext()
    try:
        with sigterm_interrupts(), shown:
            outcome = run_match(specs, Seating(tuple(s.name for s in specs)), config, out, runtime=runtime,
                                sandbox=sandbox)
    except KeyboardInterrupt:
        stop_all_bots()
        typer.echo(f"\ninterrupted; finished hands are in {log_path}", err=True)
        typer.echo(seed_line(match_seed, secret_path), err=True)
        raise typer.Exit(EXIT_INTERRUPTED) from None
    except OSError as exc:
        typer.echo(seed_line(match_seed, secret_path), err=True)
        fail(f"writing the hand log in {out} failed: {exc.strerror or exc}; the hands written before are kept")
    _print_outcome(outcome, json_out)
    # After the match only: a bot must not learn the seed while it plays.
    typer.echo(seed_line(match_seed, secret_path), err=json_out)
    print_start_failures(match_start_failures(outcome), in_league=False)
    if outcome.start_error and outcome.result.hands == 0:
        raise typer.Exit(EXIT_BAD_INPUT)


def _seat_specs(bots: list[str], players: int, sandbox: str, allow_env: list[str]) -> list[BotSpec]:
    """One spec per seat from the bots given (two: each team two processes of one bot);
    a bot that does not load, or the wrong number of bots, exits 2."""
    try:
        specs = [_granted(parse_bot_spec(b), b, sandbox, allow_env) for b in bots]
    except ManifestError as exc:
        fail(str(exc))
    if len(specs) == 2 and players >= 4:
        specs = [specs[s & 1] for s in range(players)]
    if len(specs) != players:
        fail(f"give 2 bots or {players} (one per seat) for a {players}-player table, not {len(bots)}")
    return specs


def _print_outcome(outcome: MatchOutcome, json_out: bool) -> None:
    """The result on stdout: as JSON, or a line with the faults and where their bots' stderr went."""
    res = outcome.result
    if json_out:
        typer.echo(json.dumps(outcome.to_json(), indent=2))
        return
    names = outcome.seating.teams
    winner = f"team {res.winner_team} ({' + '.join(names[res.winner_team])})" if res.winner_team is not None else "nobody"
    # A start failure's detail is every seat's error: the summary below quotes it once.
    detail = f": {res.detail}" if res.detail and not outcome.start_failed else ""
    typer.echo(f"{outcome.match_id}: {winner} wins, games {res.games_won[0]}-{res.games_won[1]}, {res.hands} hands, "
               f"{res.reason.value}{detail}")
    for f in res.faults:
        typer.echo(f"  fault S{f.seat} hand {f.hand}: {f.kind.value}: {f.detail}")
    # Where to look next: a faulting bot's stderr holds its tracebacks and logs.
    for seat in sorted({f.seat for f in res.faults}):
        if seat < len(outcome.stderr_logs) and (path := outcome.stderr_logs[seat]) is not None:
            typer.echo(f"  S{seat} ({outcome.seating.seats[seat]}) stderr: {path}")
    typer.echo(f"hand log: {outcome.log_path}")


def _granted(spec: BotSpec, given: str, profile: str, allow_env: list[str]) -> BotSpec:
    """The bot as this match lets it run: under strict, only the ``--allow-env`` variables
    inherited and the arena's limits as ceilings (arena.remote.grants), its folder readable.

    Raises:
        ManifestError: what the manifest asks is not granted, or its folder is unreadable.
    """
    if not isinstance(spec, BotManifest):
        return spec
    spec = grants.apply(spec, profile, grants.Grants(frozenset(allow_env), grants.ceilings(profile)))
    if profile == STRICT:
        unreadable = readability_problem(spec.workdir)
        if unreadable is not None:
            raise ManifestError(f"{given}: {unreadable}")
    return spec
