"""What a manifest may decide, and what the league file decides instead (issue 28):
``workdir`` inside the bot's folder, ``inherit_env`` only as granted under strict, limits
under the league's ceilings, ``[env]`` for the bot's own process only, readability of a
strict bot's folder; each refusal one line naming the key and the entry."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from arena.league.config import LeagueConfigError, load_league
from arena.remote import grants, readable, sandbox
from arena.remote.manifest import BotManifest, Limits, ManifestError, load_manifest

REPO = Path(__file__).resolve().parents[2]


def bot(folder: Path, extra: str = "", name: str = "b") -> Path:
    """A bot folder with a manifest (its script need not exist to be loaded)."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "bot.toml").write_text(f'name = "{name}"\ncommand = ["python", "bot.py"]\n{extra}\n')
    return folder


def league(tmp_path: Path, top: str = "", first: str = "", bot_extra: str = "", mode: str = "strict") -> Path:
    bot(tmp_path / "bots" / "a", bot_extra)
    bot(tmp_path / "bots" / "b")
    path = tmp_path / "league.toml"
    path.write_text(f'name = "l"\n{top}\n[sandbox]\nmode = "{mode}"\n\n[[entry]]\nname = "first"\nbot = "bots/a"\n'
                    f'{first}\n\n[[entry]]\nname = "second"\nbot = "bots/b"\n')
    return path


def refused(path: Path, *words: str, sandbox_mode: str | None = None) -> str:
    with pytest.raises(LeagueConfigError) as caught:
        load_league(path, sandbox=sandbox_mode)
    text = str(caught.value)
    assert "\n" not in text
    for word in words:
        assert word in text, (word, text)
    return text


@pytest.mark.parametrize("workdir", ["..", "/", "../..", "sub/../.."])
def test_a_workdir_outside_the_bot_folder_is_refused(tmp_path: Path, workdir: str) -> None:
    folder = bot(tmp_path / "a", f'workdir = "{workdir}"')
    (folder / "sub").mkdir()
    with pytest.raises(ManifestError, match=r"field workdir: .* outside the bot's folder"):
        load_manifest(folder)


def test_a_workdir_through_a_link_out_of_the_folder_is_refused_and_one_inside_is_kept(tmp_path: Path) -> None:
    folder = bot(tmp_path / "a", 'workdir = "out"')
    (folder / "out").symlink_to(tmp_path)
    with pytest.raises(ManifestError, match="field workdir: 'out' resolves to"):
        load_manifest(folder)
    (folder / "bot.toml").write_text('name = "b"\ncommand = ["python", "bot.py"]\nworkdir = "in"\n')
    (folder / "real").mkdir()
    (folder / "in").symlink_to(folder / "real")
    m = load_manifest(folder)
    assert m.workdir == (folder / "real").resolve() and m.folder == folder.resolve()


@pytest.mark.parametrize(("extra", "field"), [('[env]\n"A=B" = "1"', "env."), ('inherit_env = ["A B"]', "inherit_env"),
                                              ("workdir = 3", "workdir")])
def test_bad_env_names_and_workdirs_are_refused_in_one_line(tmp_path: Path, extra: str, field: str) -> None:
    with pytest.raises(ManifestError) as caught:
        load_manifest(bot(tmp_path / "a", extra))
    assert f"field {field}" in str(caught.value) and "\n" not in str(caught.value)


def test_ceilings_cap_what_a_manifest_asks() -> None:
    strict = grants.ceilings("strict", {"memory_mb": 3000}, {"cpu_seconds": 600})
    assert strict == Limits(memory_mb=3000, cpu_seconds=600, open_files=1024, processes=4096)
    asked = Limits(memory_mb=0, cpu_seconds=10, open_files=99999, processes=0)
    assert grants.capped(asked, strict) == Limits(3000, 10, 1024, 4096)
    # Under default nothing is capped unless the league file says so.
    assert grants.capped(asked, grants.ceilings("default")) == asked
    assert grants.capped(asked, grants.ceilings("default", {"memory_mb": 100})).memory_mb == 100
    # A ceiling of 0 (none) leaves the manifest's word.
    assert grants.capped(asked, grants.ceilings("strict", {"memory_mb": 0})).memory_mb == 0


def test_strict_league_refuses_an_ungranted_variable_naming_key_and_entry(tmp_path: Path) -> None:
    path = league(tmp_path, bot_extra='inherit_env = ["HOME", "TOKEN"]', top='[limits]\nmemory_mb = 10',
                  first='allow_env = ["HOME"]')
    text = refused(path, "entry[0].bot", "'first'", "inherit_env: TOKEN is not granted", "allow_env")
    assert text.startswith(f"{path}:")
    # Granted for all entries: loads, with the league's ceiling.
    path.write_text(path.read_text().replace("[sandbox]\n", '[sandbox]\nallow_env = ["TOKEN"]\n'))
    spec = load_league(path).entry("first").spec
    assert isinstance(spec, BotManifest) and spec.inherit_env == ("HOME", "TOKEN") and spec.limits.memory_mb == 10
    # Under default the manifest decides (docs/reliability.md): no grant needed.
    assert load_league(league(tmp_path / "d", bot_extra='inherit_env = ["TOKEN"]', mode="default")).entries


def test_the_command_lines_profile_decides_which_rules_apply(tmp_path: Path) -> None:
    path = league(tmp_path, bot_extra='inherit_env = ["TOKEN"]\n[limits]\nmemory_mb = 0', mode="default")
    spec = load_league(path).entry("first").spec
    assert isinstance(spec, BotManifest) and spec.limits.memory_mb == 0
    refused(path, "inherit_env", sandbox_mode="strict")


@pytest.mark.parametrize(("top", "first", "words"), [
    ("[limits]\nmemory = 1", "", ("field limits:", "unknown key 'memory'")),
    ("[limits]\nmemory_mb = -1", "", ("field limits:", "integer >= 0")),
    ("", "limits = 3", ("field entry[0].limits:", "must be a table")),
    ("", 'allow_env = "HOME"', ("field entry[0].allow_env:", "list of environment variable names")),
    ("", "allow = 1", ("field entry[0].allow:", "allow_env, limits")),
])
def test_bad_grants_in_the_league_file_are_refused_in_one_line(tmp_path: Path, top: str, first: str,
                                                               words: tuple[str, ...]) -> None:
    refused(league(tmp_path, top=top, first=first), *words)


def test_bad_sandbox_allow_env_is_refused(tmp_path: Path) -> None:
    path = league(tmp_path)
    path.write_text(path.read_text().replace("[sandbox]\n", "[sandbox]\nallow_env = [1]\n"))
    refused(path, "field sandbox.allow_env:")


def test_a_bots_env_reaches_its_own_process_only(tmp_path: Path) -> None:
    """``[env]`` is set by env(1) right before the bot's command, after the sandbox and the
    limits: ``LD_PRELOAD`` there never reaches bwrap, the cgroup shell or setpriv (which
    run outside the sandbox, or as root with every capability)."""
    tmp_path.chmod(0o755)  # a root arena's strict bot runs as a uid of its own
    m = BotManifest("b", (sys.executable, "bot.py"), tmp_path, env={"LD_PRELOAD": "./x.so", "MUS_ARENA_SOCKET_DIR": "/forged"})
    for profile in ("default", "strict") if sandbox._probe("bwrap") is None else ("default",):
        jail = sandbox.confine(profile, m, "m.s0")
        try:
            assert "LD_PRELOAD" not in jail.env
            at = jail.argv.index("LD_PRELOAD=./x.so")
            assert jail.argv[at - 2:at] == ["/usr/bin/env", "--"]
            assert jail.argv[at + 1:][1:] == ["bot.py"]  # the bot's command (python: the one the profile gives)
            assert all(arg != "MUS_ARENA_SOCKET_DIR=/forged" for arg in jail.argv)  # the arena's handshake wins
        finally:
            jail.release()


@pytest.mark.skipif(sandbox._probe("bwrap") is not None, reason="needs bubblewrap")
def test_strict_confine_refuses_a_workdir_outside_the_bots_folder(tmp_path: Path) -> None:
    """A manifest made in code (not through load_spec) is checked again at confine."""
    m = BotManifest("b", (sys.executable, "bot.py"), tmp_path, folder=tmp_path / "inner")
    with pytest.raises(sandbox.SandboxError, match="outside the bot's folder"):
        sandbox.confine("strict", m, "m.s0")


def test_readability_as_root_needs_others_and_as_a_user_needs_the_user(tmp_path: Path) -> None:
    folder = bot(tmp_path / "a")
    (folder / "data").mkdir()
    (folder / "link").symlink_to("/root/nothing-here")  # followed inside the sandbox only: not checked
    assert readable.readability_problem(folder) is None
    closed = folder / "data" / "weights.bin"
    closed.write_bytes(b"x")
    closed.chmod(0o600)
    problem = readable.readability_problem(folder)
    if os.geteuid() == 0:
        assert problem is not None and str(closed) in problem and "chmod -R a+rX" in problem
    else:  # this user's own file: its bot, running as this user, reads it
        assert problem is None
    closed.chmod(0o644)
    (folder / "data").chmod(0o700)
    problem = readable.readability_problem(folder)
    assert (problem is not None and str(folder / "data") in problem) if os.geteuid() == 0 else problem is None


def test_commands_without_a_league_file_grant_nothing_under_strict(tmp_path: Path) -> None:
    """``mus check`` and ``mus sprt`` have no grants: under strict a manifest inheriting a
    variable is refused, and its limits are the arena's defaults at most."""
    m = load_manifest(bot(tmp_path / "a", 'inherit_env = ["TOKEN"]\n[limits]\nmemory_mb = 0'))
    with pytest.raises(grants.GrantError, match="field inherit_env: TOKEN is not granted"):
        grants.ungranted(m, "strict")
    kept = grants.ungranted(m, "default")
    assert isinstance(kept, BotManifest) and kept.inherit_env == ("TOKEN",) and kept.limits.memory_mb == 0
    m = load_manifest(bot(tmp_path / "b", "[limits]\nmemory_mb = 0"))
    strict = grants.ungranted(m, "strict")
    assert isinstance(strict, BotManifest) and strict.limits.memory_mb == Limits().memory_mb
