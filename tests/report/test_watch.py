"""Watching a match as it is played: ``mus watch`` follows a log being written and shows
each hand the moment it lands, as ``mus replay`` shows it; ``mus match --watch`` shows
every hand of the match it plays."""

from __future__ import annotations

import json
import sys
import threading
from pathlib import Path

import pexpect
from mus_core import Rules
from typer.testing import CliRunner

from arena.cli.main import app
from arena.driver.match import MatchConfig, play_match
from arena.players.local import RandomPlayer
from arena.records.handlog import HandLogWriter
from arena.referee.player import SyncAdapter
from arena.report.watch import follow
from tests.report.conftest import REPO, mus


def played_log(path: Path, seed: int = 4) -> list[str]:
    """A real match between random players, logged at ``path``; its lines."""
    config = MatchConfig(rules=Rules(target_points=15, games_to_win=2), seed=seed, match_id=path.stem)
    players = [RandomPlayer(seed + s) for s in range(4)]
    header = {"match_id": path.stem, "seed": seed, "rules": config.rules.to_mapping(), "first_dealer": None,
              "seats": [{"seat": s, "entry": f"r{s % 2}", "bot": "random"} for s in range(4)]}
    with HandLogWriter(path, header) as log:
        result = play_match([SyncAdapter(p) for p in players], config, on_hand=log.hand, poll_us=0)
        log.close({"result": result.to_json()})
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    assert sum('"type":"hand"' in line for line in lines) >= 2, "a match of one hand: change the seed"
    return lines


def cli(*args: str | Path) -> str:
    """The output of a ``mus`` command run in this process (quicker than a new interpreter)."""
    r = CliRunner().invoke(app, [str(a) for a in args])
    assert r.exit_code == 0, r.output
    return r.output


def hand_blocks(text: str) -> list[str]:
    """The text of each hand (from its ``── hand`` line to the next hand or the result)."""
    body = text[text.index("── hand"):text.index("result: ")]
    return ["── hand" + block for block in body.split("── hand")[1:]]


def test_follow_reads_each_line_once_it_is_complete(tmp_path: Path) -> None:
    lines = played_log(tmp_path / "m.jsonl")
    growing = tmp_path / "growing.jsonl"
    written = threading.Event()

    def write() -> None:
        with open(growing, "w", encoding="utf-8") as f:
            for line in lines:
                half = len(line) // 2
                f.write(line[:half])  # a line cut in two: it must not be read before its end
                f.flush()
                written.wait(0.02)
                f.write(line[half:])
                f.flush()

    writer = threading.Thread(target=write)
    writer.start()  # the file does not exist yet when follow starts
    got = list(follow(growing, poll_s=0.005))
    writer.join()
    assert got == [json.loads(line) for line in lines]


def test_mus_watch_shows_each_hand_as_it_lands(tmp_path: Path) -> None:
    lines = played_log(tmp_path / "m.jsonl")
    live = tmp_path / "live.jsonl"
    child = pexpect.spawn(sys.executable, ["-m", "arena", "watch", str(live)], cwd=str(REPO), encoding="utf-8",
                          timeout=20)
    hands = [i for i, line in enumerate(lines) if '"type":"hand"' in line]
    with open(live, "w", encoding="utf-8") as f:
        f.write(lines[0])
        f.flush()
        child.expect("match m · S0=r0")  # the header, before any hand
        for n, i in enumerate(hands):
            f.write(lines[i])
            f.flush()
            child.expect(f"── hand {n} ")
            child.expect("scores after")  # the hand's count, then nothing more until the next hand lands
            assert f"── hand {n + 1} " not in child.before
        f.write(lines[-1])
        f.flush()
    child.expect("result: winner team")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    # What was shown is what mus replay shows of the same log, hand for hand.
    watched = cli("watch", tmp_path / "m.jsonl")
    replayed = cli("replay", tmp_path / "m.jsonl")
    assert hand_blocks(watched) == hand_blocks(replayed)
    assert len(hand_blocks(watched)) == len(hands)


def test_mus_match_watch_shows_every_hand(tmp_path: Path) -> None:
    r = mus("match", "bots/random", "bots/random", "--seed", "3", "--target", "10", "--out", tmp_path,
            "--match-id", "w", "--watch")
    assert r.returncode == 0, r.stderr
    logged = (tmp_path / "w.jsonl").read_text(encoding="utf-8").count('"type":"hand"')
    assert len(hand_blocks(r.stdout)) == logged
    assert hand_blocks(r.stdout) == hand_blocks(cli("replay", tmp_path / "w.jsonl"))
    assert r.stdout.index("result: winner team") < r.stdout.index("w: team")  # the hands, then the summary
