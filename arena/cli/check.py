"""``mus check BOT``: the conformance test for bot authors."""

from __future__ import annotations

from typing import Annotated

import typer

from arena.cli.common import EXIT_FAILURE, fail, require_sandbox
from arena.remote.manifest import ManifestError


def check(
    bot: Annotated[str, typer.Argument(help="A bot manifest, a folder with bot.toml, or host:port of a running bot.")],
    decision_ms: Annotated[int, typer.Option(min=1, help="Deadline of one decision (ms).")] = 2000,
    sandbox: Annotated[str, typer.Option("--sandbox", metavar="default|strict", help="Run the bot under this sandbox profile: strict checks it as a tournament will run it (no network, only its own folder; docs/reliability.md).")] = "default",
) -> None:
    """Check that a bot follows the protocol, in numbered steps.

    1 starts · 2 announces its address · 3 answers GetInfo · 4 answers a decision
    within its deadline · 5 the answer is legal · 6 answers only legal actions across
    a full match against itself · 7 handles the notifications (and ends its side of the
    stream after the match end) · 8 shuts down when asked · 9 plays a match the same
    in a fresh process and after other matches (a warning if not: a league keeps a
    bot's process across matches, and a bot whose play depends on what it played
    before does not reproduce under --resume or --fresh-processes).
    Stops at the first failing step, says why (a process that exited: with which code) and
    prints the first and last lines of the bot's stderr. A bot at host:port skips steps 1,
    2, 8 and 9, and must serve four Play streams at once (it plays all four seats).
    Exit codes: 0 all steps pass (warnings included); 1 a step failed; 2 no such bot.
    """
    from arena.tools.check import run_check

    require_sandbox(sandbox)  # exits 2 with what is missing
    try:
        results = run_check(bot, typer.echo, decision_ms, sandbox)
    except ManifestError as exc:
        fail(str(exc))
    passed = sum(r.ok for r in results)
    failed = [r for r in results if not r.ok]
    warned = sum(r.ok and r.warning for r in results)
    typer.echo(f"{passed} passed, {len(failed)} failed" + (f", {warned} with a warning" if warned else ""))
    if failed:
        raise typer.Exit(EXIT_FAILURE)
