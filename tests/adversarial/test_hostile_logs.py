"""Hand logs and league files are untrusted input: every command that reads them answers
a hostile or broken one with one error line naming the file, and exit 2, never a
traceback; a line is never held whole past the readers' limit (arena/common/boundedjson.py).

Each crafted file is one a log's author could send: nesting deep enough to make Python's
parser recurse out of its stack, a line over the limit, no header, binary garbage, a
record whose fields have the wrong types. The commands run in this process (typer's
runner) except where memory is the point: there a real ``mus`` process reads a 300 MB
line from a sparse file (nothing is written to the disk) and its peak RSS is measured.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.cli.main import app
from arena.common.boundedjson import MAX_LINE_BYTES
from tests.report.conftest import REPO
from tests.report.test_watch import played_log

DEEP = 100_000  # levels: json.loads raises RecursionError near 1000


@pytest.fixture(scope="module")
def good(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    """The lines of a real log (header, hands, footer)."""
    return played_log(tmp_path_factory.mktemp("hostile") / "m.jsonl")


def _with(lines: list[str], index: int, change: Callable[[dict[str, object]], None]) -> list[str]:
    rec = json.loads(lines[index])
    change(rec)
    return [*lines[:index], json.dumps(rec) + "\n", *lines[index + 1:]]


def _set_step(rec: dict[str, object]) -> None:
    rec["steps"] = [{"seat": "zero", "action": 3}]


CRAFTED: dict[str, Callable[[list[str]], bytes]] = {
    "deep hand": lambda g: (g[0] + '{"type":"hand","steps":' + "[" * DEEP + "]" * DEEP + "}\n").encode(),
    "deep header": lambda g: ('{"type":"header","rules":' + "[" * DEEP + "]" * DEEP + "}\n").encode(),
    "line over the limit": lambda g: g[0].encode() + b'{"type":"hand","x":"' + b"a" * MAX_LINE_BYTES + b'"}\n',
    "empty": lambda g: b"",
    "binary garbage": lambda g: bytes(range(256)) * 64,
    "truncated header": lambda g: g[0][: len(g[0]) // 2].encode(),
    "header seed a string": lambda g: "".join(_with(g, 0, lambda r: r.update(seed="abc"))).encode(),
    "header seats not a list": lambda g: "".join(_with(g, 0, lambda r: r.update(seats="S0"))).encode(),
    "header rules impossible": lambda g: "".join(_with(g, 0, lambda r: r.update(rules={"players": "x"}))).encode(),
    "hand steps of the wrong types": lambda g: "".join(_with(g, 1, _set_step)).encode(),
    "hand deal not a dict": lambda g: "".join(_with(g, 1, lambda r: r.update(deal=[1]))).encode(),
    "footer faults not a list": lambda g: "".join(_with(g, -1, lambda r: r.update(result={"faults": 7}))).encode(),
}

READERS: dict[str, Callable[[Path], list[str]]] = {
    "replay": lambda p: ["replay", str(p)],
    "replay --verify": lambda p: ["replay", str(p), "--verify"],
    "replay --html": lambda p: ["replay", str(p), "--html"],
    "replay --against": lambda p: ["replay", str(p), "--seat", "0", "--against", "bots/random"],
    "report": lambda p: ["report", str(p.parent), "--no-open"],
    "watch": lambda p: ["watch", str(p), "--idle-timeout", "0.5"],
}


def one_error_line(result: object, path: Path | None = None) -> str:
    """The command's single stderr line (exit 2, no traceback), naming ``path``."""
    r = result  # a click Result
    assert r.exit_code == 2, (r.exit_code, r.output, r.exception)  # type: ignore[attr-defined]
    assert "Traceback" not in r.output  # type: ignore[attr-defined]
    errors = [line for line in r.stderr.splitlines() if line.startswith("error:")]  # type: ignore[attr-defined]
    assert len(errors) == 1, r.stderr  # type: ignore[attr-defined]
    if path is not None:
        assert str(path) in errors[0], errors[0]
    return errors[0]


@pytest.mark.parametrize("reader", list(READERS))
@pytest.mark.parametrize("case", list(CRAFTED))
def test_every_reader_answers_a_crafted_log_with_one_line_and_exit_2(
        good: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, case: str, reader: str) -> None:
    monkeypatch.chdir(REPO)  # bots/random for --against (never started: the log is refused first)
    path = tmp_path / "m.jsonl"
    path.write_bytes(CRAFTED[case](good))
    r = CliRunner().invoke(app, READERS[reader](path))
    line = one_error_line(r, path)
    if case.startswith("deep"):
        assert "nested more than" in line
    if case == "line over the limit":
        assert "line 2: longer than 4 MiB" in line


def test_a_log_cut_mid_line_is_still_shown_with_a_warning(good: list[str], tmp_path: Path) -> None:
    """A killed match leaves its last line cut: that is damage, not hostility (the hands before it are shown)."""
    path = tmp_path / "m.jsonl"
    path.write_text("".join(good[:-1]) + good[-1][:20], encoding="utf-8")
    r = CliRunner().invoke(app, ["replay", str(path)])
    assert r.exit_code == 0, r.output
    assert f"warning: {path}: line {len(good)}: not valid JSON" in r.stderr
    assert "── hand 0" in r.stdout


def test_watch_fails_at_once_on_a_missing_path(tmp_path: Path) -> None:
    r = CliRunner().invoke(app, ["watch", str(tmp_path / "nosuch.jsonl")])
    assert "no such file" in one_error_line(r, tmp_path / "nosuch.jsonl")


@pytest.mark.parametrize("lines", [0, 1], ids=["empty", "header only"])
def test_watch_says_when_a_log_stops_growing(good: list[str], tmp_path: Path, lines: int) -> None:
    path = tmp_path / "m.jsonl"
    path.write_text("".join(good[:lines]), encoding="utf-8")
    r = CliRunner().invoke(app, ["watch", str(path), "--idle-timeout", "0.3"])
    line = one_error_line(r, path)
    assert ("is empty" if lines == 0 else "has not grown") in line and "0.3 s" in line


def _replay_peak(path: Path) -> tuple[str, int, list[str]]:
    """``mus replay PATH`` in a fresh interpreter: its exit code, peak RSS (MB), stderr lines."""
    code = ("import resource, sys\nfrom arena.cli.main import app\n"
            "try:\n    app(['replay', sys.argv[1]])\nexcept SystemExit as e:\n    code = e.code\n"
            "print(code, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024, file=sys.stderr)")
    r = subprocess.run([sys.executable, "-c", code, str(path)], cwd=REPO, capture_output=True, text=True,
                       timeout=60, check=False)
    *errors, last = r.stderr.splitlines()
    exit_code, peak_mb = last.split()
    return exit_code, int(peak_mb), errors


def test_a_long_line_is_never_held_whole(good: list[str], tmp_path: Path) -> None:
    """A real ``mus replay`` reads a 128 MiB line (a sparse file: no disk written) in
    bounded memory: about the peak RSS of replaying an ordinary log (65 MB here), measured
    beside it in the same environment. Before the limit the line was read whole: 314 MB
    for this one, 660 MB for a 300 MB line (which costs seconds more to read)."""
    ordinary = tmp_path / "ordinary.jsonl"
    ordinary.write_text("".join(good), encoding="utf-8")
    _, baseline_mb, _ = _replay_peak(ordinary)
    path = tmp_path / "big.jsonl"
    with open(path, "wb") as f:
        f.write(good[0].encode() + b'{"type":"hand","x":"')
        f.truncate(128 * 1024 * 1024)  # zeros up to 128 MiB, never written
    exit_code, peak_mb, errors = _replay_peak(path)
    assert exit_code == "2" and errors == [f"error: {path}: line 2: longer than 4 MiB (not read): not a mus-arena hand log"], errors
    # Holding the line whole costs at least its 128 MiB; the bounded reader a few MiB.
    assert peak_mb < baseline_mb + 64, f"peak RSS {peak_mb} MB, against {baseline_mb} MB for an ordinary log"


def _results_case(path: Path, case: str) -> None:
    if case == "deep":
        path.write_text('{"match_id":' + "[" * DEEP + "]" * DEEP + "}\n", encoding="utf-8")
    elif case == "long":
        path.write_bytes(b'{"match_id":"' + b"a" * MAX_LINE_BYTES + b'"}\n')
    else:
        path.write_bytes(bytes(range(256)) * 16 + b"\n")


@pytest.mark.parametrize("case", ["deep", "long", "garbage"])
def test_a_hostile_results_file_stops_resume_and_report_with_one_line(tmp_path: Path, case: str) -> None:
    from arena.league.config import load_league
    from arena.league.folder import prepare_output

    toml = REPO / "tests" / "report" / "data" / "tiny.toml"
    out = tmp_path / "league"
    prepare_output(out, load_league(toml), resume=False)
    results = out / "results.jsonl"
    _results_case(results, case)
    (out / "logs" / "m.jsonl").write_text('{"type":"header","seed":1,"rules":{}}\n', encoding="utf-8")
    line = one_error_line(CliRunner().invoke(app, ["league", str(toml), "--out", str(out), "--resume",
                                                   "--no-progress"]), results)
    assert f"{results}:1: " in line
    if case != "garbage":  # the report passes over a line that is not JSON (a line cut by a kill)
        line = one_error_line(CliRunner().invoke(app, ["report", str(out), "--no-open"]), results)
        assert "line 1: " in line


def test_a_deep_sprt_file_stops_sprt_resume_with_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(REPO)
    out = tmp_path / "sprt"
    out.mkdir()
    (out / "sprt.json").write_text("[" * DEEP + "]" * DEEP, encoding="utf-8")
    r = CliRunner().invoke(app, ["sprt", "bots/random", "bots/random", "--out", str(out), "--resume"])
    assert "nested more than 64 levels" in one_error_line(r, out / "sprt.json")
