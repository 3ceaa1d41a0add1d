"""``mus sprt``: a real test between bot processes (rulebot against random, which loses
heavily, so a wide Elo window decides in a few pairs), its output folder, its verdict
and exit code, and --resume (the same verdict, whatever was saved before and however
many jobs played it)."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from arena.cli.main import app

REPO = Path(__file__).resolve().parents[2]
RULEBOT = REPO / "bots" / "rulebot"
RANDOM = REPO / "bots" / "random"
WIDE = ("--elo0", "0", "--elo1", "300", "--seed", "7", "--max-pairs", "30")


def invoke(*args: str | Path):
    """Run ``mus ARGS`` in this process; stdout and stderr apart."""
    return CliRunner().invoke(app, [str(a) for a in args], env={"COLUMNS": "200", "NO_COLOR": "1"})


def verdict(out: Path) -> dict[str, object]:
    return dict(json.loads((out / "verdict.json").read_text()))


def test_sprt_accepts_h1_and_resumes_to_the_same_verdict(tmp_path: Path) -> None:
    out = tmp_path / "t"
    res = invoke("sprt", RULEBOT, RANDOM, "--out", out, "--jobs", "2", *WIDE)
    assert res.exit_code == 0, res.stdout + res.stderr
    assert "H1 accepted" in res.stdout
    assert "pair 1:" in res.stdout and "LLR" in res.stdout and "LOS" in res.stdout
    first = verdict(out)
    assert first["verdict"] == "H1"
    pairs = first["pairs"]
    assert isinstance(pairs, int) and 2 <= pairs < 30
    assert isinstance(first["llr"], float) and first["llr"] >= first["upper"]
    for name in ("sprt.json", "secret.json", "league.json", "results.jsonl", "standings.json"):
        assert (out / name).is_file(), name
    lines = (out / "results.jsonl").read_text().splitlines()
    assert len(lines) >= 2 * pairs  # parallel jobs may finish a match past the verdict; it is not counted
    assert len(list((out / "logs").glob("*.jsonl"))) == len(lines)
    # A resume after the verdict plays nothing and says the same.
    res = invoke("sprt", RULEBOT, RANDOM, "--out", out, "--resume")
    assert res.exit_code == 0, res.stdout + res.stderr
    assert len((out / "results.jsonl").read_text().splitlines()) == len(lines)
    assert verdict(out) == first
    # Interrupted after three matches: the resume (one job now) plays the rest from the same seeds.
    (out / "results.jsonl").write_text("\n".join(lines[:3]) + "\n")
    res = invoke("sprt", RULEBOT, RANDOM, "--out", out, "--resume", "--jobs", "1")
    assert res.exit_code == 0, res.stdout + res.stderr
    assert "resuming: 3 matches already played" in res.stdout
    assert verdict(out) == first
    # The settings cannot change on resume.
    res = invoke("sprt", RULEBOT, RANDOM, "--out", out, "--resume", "--elo1", "50")
    assert res.exit_code == 2
    assert "started with elo1 = 300.0" in res.stderr


def test_sprt_accepts_h0_for_a_weaker_bot(tmp_path: Path) -> None:
    out = tmp_path / "t"
    res = invoke("sprt", RANDOM, RULEBOT, "--out", out, *WIDE)
    assert res.exit_code == 1, res.stdout + res.stderr
    assert "H0 accepted" in res.stdout
    assert verdict(out)["verdict"] == "H0"


def test_sprt_without_a_verdict_exits_3(tmp_path: Path) -> None:
    out = tmp_path / "t"
    res = invoke("sprt", RULEBOT, RANDOM, "--out", out, "--elo0", "0", "--elo1", "300", "--max-pairs", "1")
    assert res.exit_code == 3, res.stdout + res.stderr
    assert "no verdict" in res.stdout
    doc = verdict(out)
    assert doc["verdict"] == "none" and doc["pairs"] == 1


def test_sprt_bad_input_exits_2_and_writes_nothing(tmp_path: Path) -> None:
    out = tmp_path / "t"
    for args in (("--elo0", "10", "--elo1", "5"), ("--alpha", "0"), ("--alpha", "0.6", "--beta", "0.5")):
        res = invoke("sprt", RULEBOT, RANDOM, "--out", out, *args)
        assert res.exit_code == 2, args
        assert not out.exists()
    res = invoke("sprt", RULEBOT, tmp_path / "nosuchbot", "--out", out)
    assert res.exit_code == 2 and not out.exists()
    res = invoke("sprt", RULEBOT, RANDOM, "--out", out, "--resume")
    assert res.exit_code == 2 and "holds no test of mus sprt" in res.stderr


def test_sprt_with_a_bot_that_does_not_start_exits_2_and_says_so(tmp_path: Path) -> None:
    """A broken new version is the commonest input: the test stops at its first start
    failure with the documented exit 2 and what to do (issue 29: it crashed with a
    KeyError, exit 1)."""
    out = tmp_path / "t"
    broken = REPO / "tests" / "cli" / "bots" / "broken"
    res = invoke("sprt", broken, RANDOM, "--out", out, *WIDE)
    assert res.exit_code == 2, res.stdout + res.stderr
    assert "a bot did not start" in res.stderr and "--resume" in res.stderr
    assert "new: never started" in res.stderr and "weights.bin" in res.stderr
    assert "Traceback" not in res.stdout + res.stderr
