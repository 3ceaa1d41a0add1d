"""The league file, not the bot's manifest, decides what a strict bot may see and use (issue 28).

Each test runs ``mus`` (a subprocess) as root and as a normal user, with
``tests/adversarial/bots/escapee``: a bot whose manifest asks for a workdir above its
folder, the organiser's variables, no resource limits, and an ``LD_PRELOAD`` of its own
library; at start it reports what it could read and what it was given (``ESCAPE`` lines in
its stderr log). A manifest asking for what the organiser did not grant is refused before
anything runs; a granted one runs with the league file's ceilings. The contrast test shows
what the default profile still lets a manifest decide (docs/reliability.md).
"""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from adversarial_helpers import HERE
from remote_helpers import TRIVIAL_BOT
from typer.testing import CliRunner
from unprivileged import Runner, root_runner, unprivileged_runner

from arena.cli.main import app
from arena.remote import sandbox

ESCAPEE = HERE / "bots" / "escapee"
TOKEN = "organiser-token-8d1f"
GRANTED = "granted-value-41"
pytestmark = pytest.mark.skipif(sandbox._probe("bwrap") is not None, reason="needs bubblewrap (apt-get install bubblewrap)")


@pytest.fixture
def user_runner() -> Iterator[Runner]:
    """``mus`` as an unprivileged user (the tests' own user when they do not run as root)."""
    home = Path(tempfile.mkdtemp(prefix="mus-adv-test-"))
    os.chmod(home, 0o755)
    try:
        yield unprivileged_runner(home) if os.geteuid() == 0 else root_runner(home)
    finally:
        shutil.rmtree(home, ignore_errors=True)


def setup_league(runner: Runner, manifest: str, *, profile: str = "strict", league_extra: str = "",
                 entry_extra: str = "", preload: bool = False) -> tuple[Runner, Path]:
    """The escapee (its manifest's lines after ``name``/``command`` given) against
    trivial, one match, in the runner's home; the runner, its environment holding the
    organiser's token and a granted variable; the league file."""
    bot = runner.copy_in(ESCAPEE, "bots/escapee")
    runner.copy_in(TRIVIAL_BOT, "bots/trivial")
    if preload:
        subprocess.run(["cc", "-shared", "-fPIC", "-o", str(bot / "preload.so"), str(bot / "preload.c")], check=True)
    (bot / "bot.toml").write_text(f'name = "escapee"\ncommand = ["python", "{bot / "bot.py"}"]\n{manifest}\n')
    (runner.home / "league.toml").write_text(f"""
name = "authority"
matches_per_pairing = 1
{league_extra}
[rules]
target_points = 5
games_to_win = 1

[sandbox]
mode = "{profile}"

[[entry]]
name = "escapee"
bot = "bots/escapee"
{entry_extra}

[[entry]]
name = "trivial"
bot = "bots/trivial"
""")
    for path in (bot, bot / "bot.toml", runner.home / "league.toml", *bot.glob("preload.so")):
        os.chown(path, runner.uid, runner.gid)
    env = {**runner.env, "MUS_ORGANISER_TOKEN": TOKEN, "MUS_GRANTED_VAR": GRANTED}
    return dataclasses.replace(runner, env=env), runner.home / "league.toml"


def probe_env(runner: Runner) -> str:
    """The escapee's ``[env]``: what to read and which variables to report."""
    out = runner.home / "out"
    reads = ":".join(str(p) for p in (out / "secret.json", runner.home / "league.toml", Path("/etc/passwd")))
    return (f'MUS_ESCAPE_READ = "{reads}"\nMUS_ESCAPE_ENV = "MUS_ORGANISER_TOKEN:MUS_GRANTED_VAR"\n'
            f'MUS_ESCAPE_PROOF = "{runner.home / "proof.txt"}"\nMUS_ESCAPE_SECRET = "{out / "secret.json"}"\n')


def league_run(runner: Runner, league: Path, jobs: int, monkeypatch: pytest.MonkeyPatch) -> subprocess.CompletedProcess[str]:
    """``mus league`` into ``out`` of the runner's home: as root in this process (its bots
    are real processes all the same; no interpreter to start), else as the runner."""
    if runner.uid:
        return runner.mus("league", str(league), "--out", "out", "--jobs", str(jobs), timeout=120)
    for name in ("MUS_ORGANISER_TOKEN", "MUS_GRANTED_VAR"):
        monkeypatch.setenv(name, runner.env[name])
    return mus_here("league", str(league), "--out", str(runner.home / "out"), "--jobs", str(jobs), "--no-progress")


def reports(out: Path) -> list[dict[str, object]]:
    found = []
    for log in sorted((out / "bots").glob("*.stderr.log")) if (out / "bots").is_dir() else []:
        found += [json.loads(line[7:]) for line in log.read_text(errors="replace").splitlines()
                  if line.startswith("ESCAPE ")]
    return found


def assert_refused(run: subprocess.CompletedProcess[str], out: Path, *words: str) -> None:
    """Refused before any bot ran: exit 2, one line naming ``words``, nothing read."""
    assert run.returncode == 2, (run.returncode, run.stdout, run.stderr, reports(out))
    lines = [line for line in run.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, run.stderr
    for word in words:
        assert word in lines[0], (word, lines[0])
    assert "Traceback" not in run.stderr
    assert reports(out) == []


def in_process(runner_home: Path) -> Runner:
    """``mus`` of this (root) process, for the checks made before any bot runs: they
    refuse the same whoever runs the arena, and cost no process start here."""
    return root_runner(runner_home)


def mus_here(*args: str) -> subprocess.CompletedProcess[str]:
    """``mus ARGS`` run in this process (typer's runner): exit code and stderr."""
    result = CliRunner().invoke(app, list(args))
    return subprocess.CompletedProcess(args, result.exit_code, result.stdout, result.stderr)


@pytest.mark.parametrize("workdir", ["..", "/", "link"])
def test_workdir_outside_the_bot_folder_is_refused(tmp_path: Path, workdir: str) -> None:
    """``workdir`` above the bot's folder, at ``/``, or through a link out of it showed a
    strict bot the league's secret and the host (issue 28, item 1): refused at load, by
    ``mus league`` (strict and default) and ``mus match``."""
    runner, league = setup_league(in_process(tmp_path / "home"), "")
    bot = runner.home / "bots" / "escapee"
    if workdir == "link":
        os.symlink(runner.home, bot / "link")
    (bot / "bot.toml").write_text((bot / "bot.toml").read_text() + f'workdir = "{workdir}"\n[env]\n{probe_env(runner)}')
    for profile in ("strict", "default"):
        run = mus_here("league", str(league), "--out", str(runner.home / "out"), "--sandbox", profile, "--no-progress")
        assert_refused(run, runner.home / "out", "field workdir", "entry[0]", "'escapee'", "outside the bot's folder")
    run = mus_here("match", str(bot), str(runner.home / "bots" / "trivial"), "--sandbox", "strict",
                   "--out", str(runner.home / "m"))
    assert_refused(run, runner.home / "m", "field workdir", "outside the bot's folder")


def test_a_normal_users_strict_league_refuses_an_escaping_workdir(user_runner: Runner) -> None:
    """The hole of issue 28 was a normal user's arena (as root the bot was refused by
    chance: its folder was closed to other uids): that arena now refuses it at once."""
    runner, league = setup_league(user_runner, "")
    bot = runner.home / "bots" / "escapee"
    (bot / "bot.toml").write_text((bot / "bot.toml").read_text() + f'workdir = ".."\n[env]\n{probe_env(runner)}')
    run = runner.mus("league", str(league), "--out", "out", "--jobs", "2", timeout=120)
    assert_refused(run, runner.home / "out", "field workdir", "'escapee'", "outside the bot's folder")
    assert not (runner.home / "out" / "secret.json").exists()


def test_strict_refuses_an_ungranted_variable(tmp_path: Path) -> None:
    """``inherit_env`` of a variable the league file does not grant: refused at load,
    naming the key and the entry (issue 28, item 2); ``mus match`` likewise."""
    runner, league = setup_league(in_process(tmp_path / "home"), "", entry_extra='allow_env = ["MUS_GRANTED_VAR"]')
    bot = runner.home / "bots" / "escapee"
    (bot / "bot.toml").write_text((bot / "bot.toml").read_text()
                                  + f'inherit_env = ["MUS_ORGANISER_TOKEN"]\n[env]\n{probe_env(runner)}')
    run = mus_here("league", str(league), "--out", str(runner.home / "out"), "--no-progress")
    assert_refused(run, runner.home / "out", "inherit_env", "MUS_ORGANISER_TOKEN", "'escapee'", "allow_env")
    run = mus_here("match", str(bot), str(runner.home / "bots" / "trivial"), "--sandbox", "strict",
                   "--out", str(runner.home / "m"), "--allow-env", "MUS_GRANTED_VAR")
    assert_refused(run, runner.home / "m", "inherit_env", "MUS_ORGANISER_TOKEN", "--allow-env")


def test_strict_bot_folder_must_be_readable_by_the_bot(runner: Runner) -> None:
    """A file of the bot's folder its process could not read: refused at load, saying how
    to fix it, for a root arena (a uid per bot: others must read it) and for a normal
    user's (the bot runs as that user: a file of root's, mode 0600, is closed to it)."""
    runner, league = setup_league(runner if runner.uid else in_process(runner.home), "")
    closed = runner.home / "bots" / "escapee" / "weights.bin"
    closed.write_bytes(b"\0" * 16)
    os.chown(closed, 0, 0)
    closed.chmod(0o600)
    if runner.uid:
        run = runner.mus("league", str(league), "--out", "out", "--jobs", "1", timeout=120)
    else:
        run = mus_here("league", str(league), "--out", str(runner.home / "out"), "--no-progress")
    assert_refused(run, runner.home / "out", str(closed), "not readable", "chmod -R a+rX")
    if runner.uid:
        # The same file, the user's own and closed to others: its bot (the user, mapped) reads it.
        os.chown(closed, runner.uid, runner.gid)
        code = f"from arena.remote.readable import readability_problem as r; print(r(__import__('pathlib').Path('{closed.parent}')))"
        check = subprocess.run([*runner.command[:-2], "-c", code], env=runner.env, capture_output=True, text=True,
                               timeout=60, check=False)
        assert check.stdout.strip() == "None", check.stdout + check.stderr


@pytest.mark.skipif(shutil.which("cc") is None, reason="needs a C compiler (the hostile library is built here)")
def test_strict_bot_gets_what_the_league_grants_and_no_more(runner: Runner, monkeypatch: pytest.MonkeyPatch) -> None:
    """A granted manifest runs: it inherits the granted variable only, its limits of 0 (none)
    become the league file's ceilings, and its ``LD_PRELOAD`` reaches its own process only,
    never a program that runs outside the sandbox or with the arena's privileges."""
    limits = "[limits]\nmemory_mb = 0\ncpu_seconds = 0\nopen_files = 100000\nprocesses = 0\n"
    runner, league = setup_league(
        runner, "", preload=True, league_extra="[limits]\nmemory_mb = 3000\nopen_files = 256\n",
        entry_extra='allow_env = ["MUS_GRANTED_VAR"]\nlimits = { cpu_seconds = 600 }')
    bot = runner.home / "bots" / "escapee"
    (bot / "bot.toml").write_text((bot / "bot.toml").read_text() + 'inherit_env = ["MUS_GRANTED_VAR"]\n'
                                  + f'[env]\nLD_PRELOAD = "./preload.so"\n{probe_env(runner)}{limits}')
    # As root (in this process: cheap) --jobs 1 and 2; as a normal user, 2.
    for jobs in (2,) if runner.uid else (1, 2):
        shutil.rmtree(runner.home / "out", ignore_errors=True)
        run = league_run(runner, league, jobs, monkeypatch)
        assert run.returncode == 0, run.stdout + run.stderr
        check_granted(runner, reports(runner.home / "out"))


def check_granted(runner: Runner, found: list[dict[str, object]]) -> None:
    """What a granted escapee reported: the granted variable only, the league's ceilings,
    nothing of the league read, and its library never loaded outside the sandbox."""
    assert len([r for r in found if r["probe"] == "limits"]) == 2, found  # two seats, two processes
    assert not any(r["ok"] for r in found if r["probe"] == "read"), found
    env = {(r["name"], r["value"]) for r in found if r["probe"] == "env"}
    assert env == {("MUS_ORGANISER_TOKEN", None), ("MUS_GRANTED_VAR", GRANTED)}, found
    for r in found:
        if r["probe"] == "limits":
            assert (r["memory_mb"], r["cpu_seconds"], r["open_files"], r["processes"]) == (3000, 600, 256, 4096), r
    assert not (runner.home / "proof.txt").exists(), (runner.home / "proof.txt").read_text()


def test_default_profile_lets_the_manifest_decide(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The contrast (docs/reliability.md: the default profile is for development): the
    same kind of manifest inherits the organiser's token and keeps no limit; its workdir
    must still stay in its folder (checked under every profile)."""
    runner, league = setup_league(in_process(tmp_path / "home"), "", profile="default")
    bot = runner.home / "bots" / "escapee"
    (bot / "bot.toml").write_text((bot / "bot.toml").read_text() + 'inherit_env = ["MUS_ORGANISER_TOKEN"]\n'
                                  + f'[env]\n{probe_env(runner)}[limits]\nmemory_mb = 0\ncpu_seconds = 0\n')
    run = league_run(runner, league, 1, monkeypatch)
    assert run.returncode == 0, run.stdout + run.stderr
    found = reports(runner.home / "out")
    assert ("MUS_ORGANISER_TOKEN", TOKEN) in {(r["name"], r["value"]) for r in found if r["probe"] == "env"}, found
    assert any(r["ok"] for r in found if r["probe"] == "read"), found  # the league file, at least
    assert all(r["memory_mb"] == -1 and r["cpu_seconds"] == -1 for r in found if r["probe"] == "limits"), found
