"""A league that keeps bot processes across matches stays reproducible: the same seed and
the same deterministic bots give the same hand logs (timing fields aside), whichever job
played which match and whichever matches a process played before (issue 17)."""

from __future__ import annotations

import json
from pathlib import Path

from arena.league.config import load_league
from arena.league.runner import run_league
from arena.records.handlog import untimed

REPO = Path(__file__).resolve().parents[2]


def league(tmp: Path) -> Path:
    path = tmp / "league.toml"
    path.write_text(f"""
name = "reuse"
seed = 9
matches_per_pairing = 6
[rules]
target_points = 15
games_to_win = 1
[[entry]]
name = "a"
bot = "{REPO / "bots" / "random"}"
[[entry]]
name = "b"
bot = "{REPO / "bots" / "random"}"
""", encoding="utf-8")
    return path


def logs(out: Path) -> dict[str, list[object]]:
    return {p.name: [untimed(json.loads(line)) for line in p.read_text(encoding="utf-8").splitlines()]
            for p in sorted((out / "logs").glob("*.jsonl"))}


def test_the_same_seed_gives_the_same_hand_logs_with_reused_processes(tmp_path: Path) -> None:
    """Six matches between two entries of the random bot, with one job and with two:
    processes are reused (the headers say so), each played other matches before in each
    run, and the hand logs are identical, because the random bot seeds itself at each
    match start (bots/random)."""
    config = load_league(league(tmp_path))
    first = run_league(config, tmp_path / "one", jobs=1)
    second = run_league(config, tmp_path / "two", jobs=2)
    assert first.played_now == second.played_now == 6
    reused = [seat for log in logs(tmp_path / "one").values() for seat in log[0]["seats"]  # type: ignore[index]
              if seat.get("process", {}).get("started") is False]
    assert reused, "no process was reused: the test shows nothing"
    one, two = logs(tmp_path / "one"), logs(tmp_path / "two")
    assert one.keys() == two.keys()
    for name in one:
        # The header's per-seat process record depends on which job played which match.
        for log in (one[name], two[name]):
            for seat in log[0]["seats"]:  # type: ignore[index]
                seat.pop("process", None)
        assert one[name] == two[name], name


def test_fresh_processes_in_the_league_file_starts_every_process(tmp_path: Path) -> None:
    """``fresh_processes = true`` (or ``mus league --fresh-processes``): every seat of every
    match has a process of its own, as the headers say; league.json records it; a value
    that is not a boolean is refused with the line named."""
    from arena.league.config import LeagueConfigError

    path = league(tmp_path)
    path.write_text(path.read_text().replace('seed = 9\n', 'seed = 9\nfresh_processes = true\n'), encoding="utf-8")
    config = load_league(path)
    assert config.fresh_processes is True
    run_league(config, tmp_path / "out", jobs=1)
    seats = [seat for log in logs(tmp_path / "out").values() for seat in log[0]["seats"]]  # type: ignore[index]
    assert len(seats) == 24 and all(seat["process"]["started"] is True for seat in seats), seats
    assert json.loads((tmp_path / "out" / "league.json").read_text())["fresh_processes"] is True
    path.write_text(path.read_text().replace("fresh_processes = true", 'fresh_processes = "yes"'), encoding="utf-8")
    try:
        load_league(path)
    except LeagueConfigError as exc:
        assert "fresh_processes" in str(exc) and ":4:" in str(exc), exc
    else:
        raise AssertionError("a non-boolean fresh_processes was accepted")


def search_league(tmp: Path) -> Path:
    """Two entries of bots/search (its manifest, but for the cap on a decision's time:
    reached only on a very busy machine, where the play would depend on the clock; and
    fewer samples per search, for speed), in short games: every opening is searched once
    the opponent model is trusted."""
    search = REPO / "bots" / "search"
    manifest = (search / "bot.toml").read_text(encoding="utf-8")
    (tmp / "search.toml").write_text(manifest.replace('MUS_SEARCH_MS = "300"', 'MUS_SEARCH_MS = "60000"')
                                     .replace('MUS_SEARCH_SAMPLES = "30"', 'MUS_SEARCH_SAMPLES = "6"')
                                     .replace('"bot.py"', f'"{search / "bot.py"}"'), encoding="utf-8")
    path = tmp / "league.toml"
    path.write_text(f"""
name = "search"
seed = 5
matches_per_pairing = 2
[rules]
target_points = 15
games_to_win = 1
[time]
decision_ms = 30000
[[entry]]
name = "a"
bot = "{tmp / "search.toml"}"
[[entry]]
name = "b"
bot = "{tmp / "search.toml"}"
""", encoding="utf-8")
    return path


def plays(out: Path) -> dict[str, list[object]]:
    """The hand logs without the header's record of each seat's process."""
    found = logs(out)
    for log in found.values():
        for seat in log[0]["seats"]:  # type: ignore[index]
            seat.pop("process", None)
    return found


def test_a_search_league_reproduces_with_fresh_processes_and_after_a_resume(tmp_path: Path) -> None:
    """bots/search's play is a function of the match alone (issue 29: it carried its
    opponent model's counts across matches): the same league with kept processes, with a
    process per match, and interrupted after one match then resumed, gives the same logs."""
    import threading

    config = load_league(search_league(tmp_path))
    kept = run_league(config, tmp_path / "kept", jobs=1)
    assert kept.played_now == 2 and not kept.start_failures
    reused = [seat for log in logs(tmp_path / "kept").values() for seat in log[0]["seats"]  # type: ignore[index]
              if seat.get("process", {}).get("started") is False]
    assert reused, "no process was reused: the test shows nothing"
    run_league(config, tmp_path / "fresh", jobs=1, reuse_processes=False)
    stop = threading.Event()
    first = run_league(config, tmp_path / "resumed", jobs=1, stop=stop, on_match=lambda *_: stop.set())
    assert first.interrupted and first.played_now == 1
    run_league(config, tmp_path / "resumed", jobs=1, resume=True)
    expected = plays(tmp_path / "kept")
    assert plays(tmp_path / "fresh") == expected
    assert plays(tmp_path / "resumed") == expected
