"""What a cluster league checks before anything runs, without a cluster: the ``[cluster]``
table, ``--ray`` without Ray installed, bots that cannot ship (too large, at an address,
a workdir outside their folder), and what a worker checks of a bot it unpacks."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from arena.cli.league import cluster_address, ray_without_address
from arena.league import bundle
from arena.league.config import ClusterConfig, LeagueConfigError, load_league
from arena.league.runner import LeagueError, run_league
from arena.remote.manifest import BotManifest, load_manifest

REPO = Path(__file__).resolve().parents[2]
MUS = [sys.executable, "-m", "arena"]


def league(tmp: Path, cluster: str = "", bot: str | None = None) -> Path:
    path = tmp / "league.toml"
    path.write_text(f"""
name = "c"
seed = 3
{cluster}
[[entry]]
name = "a"
bot = "{bot or REPO / "bots" / "random"}"
[[entry]]
name = "b"
bot = "{REPO / "bots" / "rulebot"}"
""", encoding="utf-8")
    return path


def test_the_cluster_table_is_read_and_checked(tmp_path: Path) -> None:
    assert load_league(league(tmp_path)).cluster is None
    c = load_league(league(tmp_path, '[cluster]\naddress = "ray://head:10001"\ncpus_per_bot = 0.5\n'
                                     'cpus_per_referee = 0\nmax_retries = 5\nmax_bot_mb = 20\nship_code = false')).cluster
    assert c == ClusterConfig("ray://head:10001", 0.5, 0.0, 5, 20, False)
    assert c.cpus_per_match(4) == 2.0 and ClusterConfig().cpus_per_match(6) == 7.0
    assert load_league(league(tmp_path, "[cluster]")).cluster == ClusterConfig()
    for bad, field in (('address = "http://x"', "cluster.address"), ("cpus_per_bot = 0", "cluster.cpus_per_bot"),
                       ("cpus_per_referee = -1", "cluster.cpus_per_referee"), ("max_retries = 1.5", "cluster.max_retries"),
                       ('ship_code = "yes"', "cluster.ship_code"), ("nodes = 3", "cluster.nodes")):
        with pytest.raises(LeagueConfigError) as err:
            load_league(league(tmp_path, f"[cluster]\n{bad}"))
        assert f"field {field}" in str(err.value) and ":5:" in str(err.value), err.value


def test_ray_missing_is_one_line_exit_2(tmp_path: Path) -> None:
    """Without Ray, ``--ray`` says how to install it, in one line, and writes nothing."""
    fake = tmp_path / "noray"
    (fake / "ray").mkdir(parents=True)
    (fake / "ray" / "__init__.py").write_text("raise ImportError('no ray here')\n", encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(fake), os.environ.get("PYTHONPATH", "")])}
    out = tmp_path / "out"
    r = subprocess.run([*MUS, "league", str(league(tmp_path)), "--out", str(out), "--ray", "auto"], env=env,
                       capture_output=True, text=True, cwd=REPO, timeout=60)
    assert r.returncode == 2, r.stderr
    errors = [line for line in r.stderr.splitlines() if line.startswith("error")]
    assert errors == ["error: --ray needs Ray, an optional dependency: pip install 'mus-arena[ray]'"], r.stderr
    assert not out.exists()
    from typer.testing import CliRunner

    from arena.cli.main import app

    r2 = CliRunner().invoke(app, ["league", str(league(tmp_path)), "--out", str(out), "--ray", "http://x"])
    assert r2.exit_code == 2 and "local, auto, host:port or ray://host:port" in r2.output, r2.output


def test_ray_without_an_address(tmp_path: Path) -> None:
    """``--ray`` alone means ``$RAY_ADDRESS``, else the file's address, else local; a word
    after it is its address unless it is an option or the league file."""
    cfg = league(tmp_path)
    assert ray_without_address(["--ray"]) == ["--ray", ""]
    assert ray_without_address(["--ray", "--out", "o"]) == ["--ray", "", "--out", "o"]
    assert ray_without_address(["--ray", str(cfg), "--out", "o"]) == ["--ray", "", str(cfg), "--out", "o"]
    assert ray_without_address(["--ray", "auto", str(cfg)]) == ["--ray", "auto", str(cfg)]
    assert ray_without_address(["--ray", "localhots"]) == ["--ray", "localhots"]  # refused as an address
    assert ray_without_address(["--", "--ray"]) == ["--", "--ray"]
    assert cluster_address("h:1", "ray://f:2") == "h:1"
    old = os.environ.pop("RAY_ADDRESS", None)
    try:
        assert cluster_address("", "ray://f:2") == "ray://f:2" and cluster_address("", None) == "local"
        os.environ["RAY_ADDRESS"] = "e:3"
        assert cluster_address("", "ray://f:2") == "e:3"
    finally:
        os.environ.pop("RAY_ADDRESS", None)
        if old is not None:
            os.environ["RAY_ADDRESS"] = old
    # Through the command line, before and after the league file: it reaches the check
    # for Ray (here made to fail), or refuses a bad $RAY_ADDRESS, without connecting.
    from typer.testing import CliRunner

    import arena.league.cluster as cluster_mod
    from arena.cli.main import app

    out = tmp_path / "out"
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(cluster_mod, "ray_available", lambda: False)
        mp.delenv("RAY_ADDRESS", raising=False)
        for args in (["league", str(cfg), "--out", str(out), "--ray"], ["league", "--ray", str(cfg), "--out", str(out)]):
            r = CliRunner().invoke(app, args)
            assert r.exit_code == 2 and "--ray needs Ray" in r.output, r.output
        mp.setenv("RAY_ADDRESS", "http://x")
        r = CliRunner().invoke(app, ["league", str(cfg), "--out", str(out), "--ray"])
        assert r.exit_code == 2 and "--ray (from $RAY_ADDRESS): a Ray address is" in r.output, r.output
    assert not out.exists()


def test_a_bot_at_an_address_or_too_large_is_refused_before_anything_is_written(tmp_path: Path) -> None:
    out = tmp_path / "out"
    remote = load_league(league(tmp_path, "[cluster]", bot="127.0.0.1:50051"))
    with pytest.raises(LeagueError, match=r"entry a: a bot at an address .* cannot play on a cluster"):
        run_league(remote, out)
    big = tmp_path / "big"
    big.mkdir()
    (big / "bot.toml").write_text('name = "big"\ncommand = ["python", "bot.py"]\n', encoding="utf-8")
    (big / "bot.py").write_text("pass\n", encoding="utf-8")
    (big / "weights.bin").write_bytes(os.urandom(1024 * 1024 + 1))
    config = load_league(league(tmp_path, "[cluster]\nmax_bot_mb = 1", bot=str(big)))
    with pytest.raises(LeagueError) as err:
        run_league(config, out)
    assert f"entry a: bot folder {big} holds over 1 MiB" in str(err.value) and "max_bot_mb" in str(err.value)
    assert not out.exists()


def test_a_bundle_is_deterministic_checked_and_unpacked_once(tmp_path: Path) -> None:
    """The same folder packs to the same bytes (one copy per node whatever the league);
    bytes that do not match their digest are refused; ``python`` is the unpacking
    node's interpreter; caches are not shipped; the workdir must be inside the folder."""
    spec = load_manifest(REPO / "bots" / "rulebot")
    a, b = bundle.pack(spec, 10 * bundle.MIB, "x"), bundle.pack(spec, 10 * bundle.MIB, "x")
    assert a == b and a.manifest == "bot.toml"
    with pytest.raises(bundle.BundleError, match="do not match their digest"):
        bundle.unpack(a.digest, a.data + b"x", tmp_path)
    folder = bundle.unpack(a.digest, a.data, tmp_path)
    assert folder == tmp_path / a.digest and bundle.unpack(a.digest, a.data, tmp_path) == folder
    assert not list(folder.rglob("__pycache__"))
    unpacked = bundle.load_unpacked(folder, a.manifest)
    assert unpacked.command[0] == sys.executable and unpacked.workdir == folder
    assert (folder / "bot.py").read_bytes() == (REPO / "bots" / "rulebot" / "bot.py").read_bytes()
    outside = BotManifest("o", ("python", "bot.py"), REPO / "bots", source=REPO / "bots" / "rulebot" / "bot.toml")
    with pytest.raises(bundle.BundleError, match="outside its folder"):
        bundle.pack(outside, bundle.MIB, "o")


def test_a_worker_names_what_it_lacks_to_run_a_bot(tmp_path: Path) -> None:
    def spec(*command: str) -> BotManifest:
        return BotManifest("t", command, tmp_path)

    assert bundle.missing(spec(sys.executable, "bot.py")) is None
    assert "is not on the PATH" in (bundle.missing(spec("mus-arena-no-such-tool")) or "")
    assert "does not exist" in (bundle.missing(spec("build/bot")) or "")
    (tmp_path / "plain").write_text("#!/bin/sh\n", encoding="utf-8")
    assert "is not executable" in (bundle.missing(spec("./plain")) or "")
    # A native executable whose shared library this machine lacks: the worker names it.
    lib = "libmus-arena-missing-20.so"
    elf = tmp_path / "elf"
    cc = subprocess.run(["cc", "-x", "c", "-", "-o", str(elf), f"-L{tmp_path}", "-lmus-arena-missing-20"],
                        input="int mus_arena_20(void); int main(void){return mus_arena_20();}", text=True, capture_output=True, cwd=tmp_path,
                        env={**os.environ, "LIBRARY_PATH": str(tmp_path)}) if _make_lib(tmp_path, lib) else None
    if cc is None or cc.returncode != 0:
        pytest.fail(f"cannot build the test executable: {cc.stderr if cc else 'no cc'}")
    (tmp_path / lib).unlink()
    assert f"needs shared libraries this node lacks: {lib}" in (bundle.missing(spec(str(elf))) or "")


def _make_lib(tmp: Path, name: str) -> bool:
    r = subprocess.run(["cc", "-shared", "-fPIC", "-x", "c", "-", "-o", str(tmp / name)],
                       input="int mus_arena_20(void){return 1;}", text=True, capture_output=True)
    return r.returncode == 0


def test_the_progress_shows_the_nodes_and_matches_in_flight() -> None:
    """Without a terminal: a line each time the number of nodes changes; the bar's column
    says the nodes and the matches in flight."""
    from rich.console import Console

    from arena.cli.progress import LeagueProgress
    from arena.league.executor import ClusterStatus

    lines: list[str] = []
    shown = LeagueProgress("c", Console(file=open(os.devnull, "w"), force_terminal=False))
    shown._print = lambda line: lines.append(line.plain)  # type: ignore[method-assign]
    for status in (ClusterStatus(2, 10.0, 3, 2), ClusterStatus(2, 10.0, 4, 2), ClusterStatus(1, 5.0, 3, 1)):
        shown.on_cluster(status)
    assert lines == ["cluster: 2 nodes (10 CPUs, 2 matches at once)", "cluster: 1 node (5 CPUs, 1 match at once)"]
    assert shown.bar.tasks[0].fields["cluster"] == "1 node, 3 in flight"


def test_a_connection_made_before_the_league_is_warned_about(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A league run where Ray is already connected (``ray.init`` in the user's script)
    keeps that job's runtime environment: without the code shipped, or without niceness
    0 for the workers, it says so (the matches would run the workers' installed arena, or
    at Ray's niceness 15)."""
    from types import SimpleNamespace

    from structlog.testing import capture_logs

    import arena.league.cluster as cluster_mod

    def fake_ray(runtime_env: dict[str, object]) -> SimpleNamespace:
        return SimpleNamespace(
            is_initialized=lambda: True, get_runtime_context=lambda: SimpleNamespace(runtime_env=runtime_env),
            put=lambda data: object(), nodes=lambda: [{"Alive": True, "NodeID": "n1", "Resources": {"CPU": 8.0}}],
            shutdown=lambda: pytest.fail("a connection the caller made is left open"))

    config = load_league(league(tmp_path, "[cluster]"))
    for runtime_env, expected in (
            ({}, {"cluster.code_not_shipped", "cluster.niceness"}),
            ({"py_modules": ["x"], "env_vars": {"RAY_worker_niceness": "0"}}, set()),
            ({"py_modules": ["x"], "env_vars": {"OTHER": "1"}}, {"cluster.niceness"})):
        monkeypatch.setattr(cluster_mod, "import_ray", lambda env=runtime_env: fake_ray(env))
        with capture_logs() as logs, cluster_mod.open_cluster(config) as cluster:
            assert cluster.capacity(cluster.nodes()) == 1  # 8 CPUs: one match of 5 (4 bots, a referee)
        assert {e["event"] for e in logs if e["log_level"] == "warning"} == expected, logs


def test_a_machine_smaller_than_a_match_plays_with_the_reservation_scaled(tmp_path: Path,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """A 2-CPU machine and the default reservation of 5 CPUs: the league plays, one match
    at a time reserving the 2 CPUs, with one warning saying so (issue 30); a node large
    enough keeps the reservation."""
    from types import SimpleNamespace

    from structlog.testing import capture_logs

    import arena.league.cluster as cluster_mod

    config = load_league(league(tmp_path, "[cluster]"))
    for cpus, reserved, warned in ((2.0, 2.0, True), (8.0, 5.0, False)):
        ray = SimpleNamespace(
            is_initialized=lambda: True,
            get_runtime_context=lambda: SimpleNamespace(
                runtime_env={"py_modules": ["x"], "env_vars": {"RAY_worker_niceness": "0"}}),
            put=lambda data: object(),
            nodes=lambda cpus=cpus: [{"Alive": True, "NodeID": "n1", "Resources": {"CPU": cpus}}])
        monkeypatch.setattr(cluster_mod, "import_ray", lambda ray=ray: ray)
        with capture_logs() as logs, cluster_mod.open_cluster(config) as cluster:
            assert (cluster.cpus_per_match, cluster.capacity(cluster.nodes())) == (reserved, 1)
        scaled = [e for e in logs if e["event"] == "cluster.reservation_scaled"]
        assert len(scaled) == warned and (not warned or "largest node has 2" in scaled[0]["detail"]), logs
