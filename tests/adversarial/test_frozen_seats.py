"""Under the strict sandbox a bot runs only while it is asked (docs/reliability.md).

A bot can compute while the other seats decide: to think on their time, to take the CPU
from the seat that decides (slowing a searching opponent down, or making it time out),
or to signal its partner through the machine's load (a covert channel: the partner
times its own work). Under ``strict`` the arena freezes every process of a bot (SIGSTOP)
after each of its decisions and wakes it (SIGCONT) for the next.

The attacker (tests/adversarial/bots/attacker, attack ``ponder``) starts a thread that
spins from its first decision on, and reports at each decision how much CPU that thread
got since its previous decision ended, against the wall time between them. Its
opponents think 100 ms per decision. The real ``mus match`` runs, as root and as a
normal user.
"""

from __future__ import annotations

import json
from pathlib import Path

from adversarial_helpers import HERE
from unprivileged import Runner

ATTACKER = HERE / "bots" / "attacker"


def _bot(runner: Runner, name: str, env: dict[str, str]) -> Path:
    folder = runner.copy_in(ATTACKER, f"bots/{name}")
    manifest = folder / "bot.toml"
    manifest.write_text(manifest.read_text() + "\n[env]\n" + "".join(f'{k} = "{v}"\n' for k, v in env.items()))
    return folder


def _spun_share(runner: Runner, profile: str, ponder: Path, thinker: Path) -> tuple[float, int]:
    """(the spinner's CPU seconds over the wall seconds the bot waited, decisions measured)."""
    out = runner.home / f"out-{profile}"
    run = runner.mus("match", str(ponder), str(thinker), "--sandbox", profile, "--out", str(out),
                     "--target", "10", "--games", "1", "--seed", "3", "--json")
    assert run.returncode == 0, run.stdout + run.stderr
    result = json.loads(run.stdout)
    assert result["reason"] == "completed" and result["faults"] == [], result
    waited = spun = 0.0
    count = 0
    for log in sorted((out / "bots").glob("*.stderr.log")):
        for line in log.read_text(errors="replace").splitlines():
            if line.startswith("ATTACK "):
                report = json.loads(line[7:])
                if report["attack"] == "ponder":
                    waited += report["waited"]
                    spun += report["spun"]
                    count += 1
    assert waited > 0, f"no ponder report under {profile}"
    return spun / waited, count


def test_a_strict_bot_gets_no_cpu_while_the_others_decide(runner: Runner) -> None:
    """Under strict the spinner got about 2% of the wait (the moments between the bot's
    answer and its freezing, and between its waking and its next decision: its own
    time); under default, as before this protection under strict too, about 95%."""
    bots = runner.home / "bots"
    bots.mkdir(exist_ok=True)
    ponder = _bot(runner, "ponder", {"MUS_ATTACK": "ponder"})
    thinker = _bot(runner, "thinker", {"MUS_ATTACK": "none", "MUS_ATTACK_THINK_MS": "100"})
    strict, decisions = _spun_share(runner, "strict", ponder, thinker)
    default, _ = _spun_share(runner, "default", ponder, thinker)
    assert decisions >= 8, decisions
    assert strict < 0.2, (strict, default)
    # The attack is real: unfrozen, the spinner runs through the others' decisions.
    assert default > 2 * strict, (strict, default)
