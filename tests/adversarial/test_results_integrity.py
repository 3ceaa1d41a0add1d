"""results.jsonl cannot be forged or lost (issue 14 point 9): every line is checked on
``mus league --resume``, the first bad one stops it (exit 2, a message naming the line),
and the file is left as it is; two runs on one folder at once: the second is refused.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
import uuid
from collections import Counter
from pathlib import Path

import pytest
from adversarial_helpers import REPO, TAG_ENV, TRIVIAL_BOT
from remote_helpers import wait_gone
from unprivileged import Runner

from arena.league.config import load_league
from arena.league.results_file import read_results, seal
from arena.league.schedule import schedule
from arena.league.secret import read_secret

MUS = [sys.executable, "-m", "arena"]
SNOOP = Path(__file__).resolve().parent / "bots" / "snoop"


def write_league(root: Path, tag: str, *, delay_ms: int = 0, runner: Runner | None = None) -> Path:
    """Three entries (two trivial bots, one slow-able snoop that does not search), one
    match per pairing: three lines in results.jsonl. With a ``runner``, the bots are
    copies in its home (a normal user may not read this checkout)."""
    trivial, snoop = TRIVIAL_BOT, SNOOP
    if runner is not None:
        trivial, snoop = runner.copy_in(TRIVIAL_BOT, "trivial"), runner.copy_in(SNOOP, "snoop")
    entries = (("a", trivial, {}), ("b", trivial, {}),
               ("c", snoop, {"MUS_SNOOP_RANGE": "0", "MUS_SNOOP_OUT": str(root), "MUS_SNOOP_DELAY_MS": str(delay_ms)}))
    for name, src, env in entries:
        d = root / "entries" / name
        d.mkdir(parents=True, exist_ok=True)
        lines = [f'name = "{name}"', f'command = ["python", "{src / "bot.py"}"]', "[env]",
                 f'{TAG_ENV} = "{tag}"', *(f'{k} = "{v}"' for k, v in env.items())]
        (d / "bot.toml").write_text("\n".join(lines) + "\n")
    path = root / "league.toml"
    path.write_text("""\
name = "integrity"
matches_per_pairing = 1

[rules]
target_points = 10
games_to_win = 1

[[entry]]
name = "a"
bot = "entries/a"

[[entry]]
name = "b"
bot = "entries/b"

[[entry]]
name = "c"
bot = "entries/c"
""")
    return path


def _chown(root: Path, runner: Runner) -> None:
    """Everything under ``root`` the runner's user's (its league file and folders)."""
    for path in [root, *root.rglob("*")]:
        os.chown(path, runner.uid, runner.gid, follow_symlinks=False)


def mus(*args: object, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*MUS, *(str(a) for a in args)], cwd=REPO, capture_output=True, text=True,
                          timeout=timeout, check=False)


def tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def done(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A finished league (its config file, its output folder)."""
    root = tmp_path_factory.mktemp("integrity")
    tag = f"adv-integrity-{os.getpid()}-{uuid.uuid4().hex[:12]}"
    config = write_league(root, tag)
    out = root / "out"
    r = mus("league", config, "--out", out, "--no-progress")
    assert r.returncode == 0, r.stdout + r.stderr
    assert len((out / "results.jsonl").read_text().splitlines()) == 3
    assert wait_gone(tag, timeout_s=3.0) == []
    return config, out


def lines_of(out: Path) -> list[str]:
    return (out / "results.jsonl").read_text().splitlines(keepends=True)


def forge(out: Path, rec: dict[str, object]) -> str:
    """A line sealed with the league's own key: what only a holder of secret.json can write."""
    secret = read_secret(out)
    identity = json.loads(lines_of(out)[0])["league"]
    return json.dumps(seal(rec, secret.results_key, identity), separators=(",", ":")) + "\n"


def edited(line: str, **changes: object) -> str:
    rec = json.loads(line)
    rec.update(changes)
    return json.dumps(rec, separators=(",", ":")) + "\n"


CASES = {
    # name: (how the lines change, the line named, words of the message)
    "forged_winner": (lambda out, ls: [ls[0], edited(ls[1], winner_team=1 - json.loads(ls[1])["winner_team"]), ls[2]],
                      2, "MAC does not match"),
    "duplicated_line": (lambda out, ls: [*ls, ls[0]], 4, "already on line 1"),
    "unknown_entry": (lambda out, ls: [edited(ls[0], team0="mallory"), *ls[1:]], 1, "MAC does not match"),
    "unknown_entry_with_the_key": (lambda out, ls: [forge(out, {**json.loads(ls[0]), "team0": "mallory"}), *ls[1:]],
                                   1, "not the schedule's"),
    "not_in_schedule": (lambda out, ls: [*ls[:2], forge(out, {**json.loads(ls[2]), "match_id": "a--c--007"})],
                        3, "not in this league's schedule"),
    "garbage_in_the_middle": (lambda out, ls: [ls[0], "}{ not json\n", *ls[1:]], 2, "not a JSON line"),
    "missing_mac": (lambda out, ls: [ls[0], json.dumps({k: v for k, v in json.loads(ls[1]).items() if k != "mac"}) + "\n",
                                     ls[2]], 2, "MAC is missing"),
    "torn_last_line": (lambda out, ls: [*ls[:2], ls[2][: len(ls[2]) // 2]], 3, "incomplete"),
}


@pytest.mark.parametrize("case", list(CASES))
def test_a_bad_line_stops_the_resume(done: tuple[Path, Path], tmp_path: Path, case: str) -> None:
    """Exit 2, one message naming results.jsonl and the line and saying what to do; the
    folder is left exactly as it was (no line dropped, none after the bad one lost),
    and no match is played."""
    config, finished = done
    out = tmp_path / "out"
    shutil.copytree(finished, out)
    change, number, words = CASES[case]
    # Drop the standings so that a resume which wrongly went on would change the folder.
    (out / "standings.json").unlink()
    (out / "results.jsonl").write_text("".join(change(out, lines_of(finished))))
    before = tree(out)
    r = mus("league", config, "--out", out, "--no-progress", "--resume")
    assert r.returncode == 2, r.stdout + r.stderr
    assert "Traceback" not in r.stderr
    errors = [line for line in r.stderr.splitlines() if line.startswith("error: ")]
    assert len(errors) == 1, r.stderr
    assert f"results.jsonl:{number}: " in errors[0] and words in errors[0], errors[0]
    assert "--resume" in errors[0] and "left as it is" in errors[0]
    assert tree(out) == before


def test_the_untouched_file_resumes(done: tuple[Path, Path], tmp_path: Path) -> None:
    """The control of the cases above: the same copy, unchanged, resumes (nothing to
    play) and every line is kept."""
    config, finished = done
    out = tmp_path / "out"
    shutil.copytree(finished, out)
    r = mus("league", config, "--out", out, "--no-progress", "--resume")
    assert r.returncode == 0, r.stderr
    assert "played now: 0" in r.stdout
    assert (out / "results.jsonl").read_bytes() == (finished / "results.jsonl").read_bytes()


@pytest.mark.parametrize("jobs", [1, 2])
def test_two_resumes_at_once(runner: Runner, jobs: int) -> None:
    """Two ``mus league --resume`` on one folder: the second is refused at once (exit 2,
    naming the folder), the first plays the missing matches, each exactly once. As root
    and as a normal user."""
    tag = f"adv-integrity-{os.getpid()}-{uuid.uuid4().hex[:12]}"
    root = runner.home
    config = write_league(root, tag, runner=runner)
    _chown(root, runner)
    out = root / "out"

    def mus(*args: object) -> subprocess.CompletedProcess[str]:
        return runner.mus(*(str(a) for a in args), timeout=120)

    r = mus("league", config, "--out", out, "--no-progress", "--jobs", str(jobs), "--seed", "5")
    assert r.returncode == 0, r.stderr
    # Forget the two matches of c (whole lines may be deleted: they are played again).
    kept = [line for line in lines_of(out) if "c" not in (json.loads(line)["team0"], json.loads(line)["team1"])]
    assert len(kept) == 1
    (out / "results.jsonl").write_text("".join(kept))
    replayed = [m.match_id for m in schedule(load_league(config), 5) if "c" in (m.team0, m.team1)]
    for m in replayed:
        (out / "logs" / f"{m}.jsonl").unlink()
    # c holds its matches open (it does not answer while the hold file exists) until the
    # second resume has been refused: an overlap on a machine of any speed.
    hold = root / "hold"
    hold.write_text("")
    manifest = root / "entries" / "c" / "bot.toml"
    manifest.write_text(manifest.read_text() + f'MUS_SNOOP_HOLD = "{hold}"\n')
    first = runner.popen("league", str(config), "--out", str(out), "--no-progress", "--resume", "--jobs", str(jobs))
    try:
        # Wait until the first run plays (a hand log is written again: it holds the lock by then).
        deadline = time.monotonic() + 30
        while not any((out / "logs" / f"{m}.jsonl").exists() for m in replayed):
            assert time.monotonic() < deadline and first.poll() is None, "the first resume never started a match"
            time.sleep(0.05)
        # No clock: were the second run to wait for the lock, it would wait for the held first
        # run and time out (mus's timeout above); returning while the first still runs proves
        # it was refused without waiting, on a machine of any load.
        second = mus("league", config, "--out", out, "--no-progress", "--resume", "--jobs", str(jobs))
        assert first.poll() is None, "the first resume ended before the second was refused: no overlap tested"
        hold.unlink()  # let the first run finish
        assert second.returncode == 2, second.stdout + second.stderr
        assert "another league is running in this folder" in second.stderr and str(out) in second.stderr
    finally:
        hold.unlink(missing_ok=True)
        _, err = first.communicate(timeout=120)
    assert first.returncode == 0, err.decode(errors="replace")
    ids = [r["match_id"] for r in read_results(out / "results.jsonl")]
    assert Counter(ids) == Counter(m.match_id for m in schedule(load_league(config), 5))
    for m in ids:
        records = [json.loads(x) for x in (out / "logs" / f"{m}.jsonl").read_text().splitlines()]
        assert records[0]["type"] == "header" and records[-1]["type"] == "footer"
        assert sum(x["type"] == "header" for x in records) == 1
    assert wait_gone(tag, timeout_s=3.0) == []
