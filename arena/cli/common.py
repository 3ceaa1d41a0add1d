"""Helpers shared by the command modules: error exits, tables."""

from __future__ import annotations

import contextlib
import signal
import sys
from collections.abc import Iterator
from typing import NoReturn

import typer
from rich.console import Console, JustifyMethod
from rich.table import Table

from arena.league.config import parse_seed
from arena.league.standings import Standings
from arena.remote import sandbox

EXIT_OK = 0
EXIT_FAILURE = 1
"""The run worked but found a failure (a mismatch, a failed check step, a failed expectation)."""
EXIT_BAD_INPUT = 2
"""Bad input: a malformed file, an unusable path, a bot that cannot start."""
EXIT_INTERRUPTED = 130


def fail(message: str, code: int = EXIT_BAD_INPUT) -> NoReturn:
    """Print ``error: message`` on stderr and exit with ``code``."""
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(code)


@contextlib.contextmanager
def malformed_log(path: object) -> Iterator[None]:
    """Exit 2 with one line naming ``path`` when reading its log (or league file) breaks
    on a value no arena writes. The readers check the records' types
    (:mod:`arena.records.handlog`); this is the net under them for what the checks do not cover
    (a rules table with an impossible value), so a hostile file never ends in a traceback."""
    try:
        yield
    except (ValueError, TypeError, KeyError, IndexError, AttributeError, RecursionError) as exc:
        fail(f"{path}: not a log this arena wrote, or damaged ({type(exc).__name__}: {str(exc)[:200]})")


def seed_option(value: str | None) -> int | None:
    """``--seed``: None when not given, else the seed (the rule of
    :func:`arena.league.config.parse_seed`); anything else exits 2."""
    if value is None:
        return None
    try:
        return parse_seed(value)
    except ValueError as exc:
        fail(f"--seed: {exc}")


def warn_given_seed(seed: int) -> None:
    """The warning for a seed the user chose (a run without --seed draws a secret)."""
    typer.echo(f"warning: seed {hex(seed)} was given: a chosen seed can be guessed from a bot's own cards, and with "
               "it every deal; do not give a seed in a competition (without one, a 128-bit secret is drawn)", err=True)


def require_sandbox(profile: str) -> dict[str, object]:
    """Check that this machine can give the sandbox ``profile`` (before anything is
    written or started) and return its protections; otherwise print why and exit 2."""
    try:
        sandbox.require(profile)
        return sandbox.protections(profile)
    except sandbox.SandboxUnavailable as exc:
        fail(str(exc))
    except ValueError as exc:
        fail(f"--sandbox: {exc}")


def protections_text(protections: dict[str, object]) -> str:
    """One line of the protections in force, for the header a command prints at start."""
    on = [k for k, v in protections.items() if k != "profile" and v is True]
    off = [k for k, v in protections.items() if k != "profile" and v is False]
    other = [f"{k}={v}" for k, v in protections.items() if k != "profile" and not isinstance(v, bool)]
    parts = [f"sandbox {protections.get('profile')}"]
    if on:
        parts.append("on: " + ", ".join(on))
    if off:
        parts.append("off: " + ", ".join(off))
    if other:
        parts.append(", ".join(other))
    return "; ".join(parts)


def pull(elo: float) -> str:
    """The prior's pull on a rating, as the table shows it: blank under 5 Elo."""
    return f"{elo:+.0f}" if abs(elo) >= 5 else ""


def standings_table(standings: Standings, title: str = "Standings") -> Table:
    """The standings as a rich table; a column "no start" (in red) only when an entry's
    bot failed to start in some match. "prior": how far the prior pulled the rating
    toward the centre (blank when under 5 Elo); the caption says what the scale is."""
    caption = ("ratings centred on 1500" if standings.anchor is None
               else f"scale anchored: {standings.anchor[0]} = {standings.anchor[1]:g}")
    caption += "; prior: Elo the prior moved the rating toward the centre (small samples); tied entries share a rank"
    if standings.note:
        caption += "\n" + standings.note
    table = Table(title=title, caption=caption)
    no_start = any(e.start_failures for e in standings.entries)
    columns: list[tuple[str, JustifyMethod]] = [
        ("#", "right"), ("entry", "left"), ("rating", "right"), ("95% CI", "right"), ("prior", "right"),
        ("W-L", "right"),
        ("games", "right"), ("stones", "right"), ("st/hand", "right"), ("faults", "right")]
    if no_start:
        columns.append(("no start", "right"))
    for col, justify in columns:
        table.add_column(col, justify=justify)
    for i, e in zip(standings.ranks(), standings.entries, strict=True):
        cells = [
            str(i), e.name, f"{e.rating:.0f}", f"{e.rating_low:.0f}–{e.rating_high:.0f}", pull(e.prior_pull),
            f"{e.wins}-{e.losses}",
            f"{e.games_won}-{e.games_lost}", f"{e.stones_for}-{e.stones_against}", f"{e.stones_per_hand:+.2f}",
            str(e.faults),
        ]
        if no_start:
            cells.append(f"[bold red]{e.start_failures}[/]" if e.start_failures else "0")
        table.add_row(*cells)
    return table


def crosstable(standings: Standings) -> Table:
    """Match wins of each row entry against each column entry."""
    names = [e.name for e in standings.entries]
    title = "Crosstable (match wins, row against column)"
    # At least as wide as its title, which rich would otherwise wrap over a small table.
    table = Table(title=title, min_width=len(title) + 4)
    table.add_column("entry")
    for n in names:
        table.add_column(n, justify="right")
    for a in names:
        table.add_row(a, *("—" if a == b else f"{standings.cross[a].get(b, 0)}-{standings.cross[b].get(a, 0)}" for b in names))
    return table


def console() -> Console:
    """A console on stdout. When stdout is not a terminal: no colour, and wide enough
    that a table is never cut (rich would fit it in 80 columns and elide figures)."""
    if sys.stdout.isatty():
        return Console()
    return Console(width=max(Console().width, 200))


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


@contextlib.contextmanager
def sigterm_interrupts() -> Iterator[None]:
    """SIGTERM stops the command as Ctrl-C does (``KeyboardInterrupt``): what is finished
    is kept, the bots are stopped, the command says so and exits 130. A script's timeout
    or a service manager gets the clean end a person at the terminal gets (SIGTERM's
    default action killed the command without a word). The main thread only."""
    previous = signal.getsignal(signal.SIGTERM)
    signal.signal(signal.SIGTERM, _interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
