"""The ``mus`` command line through Typer's runner: help, exit codes, messages on bad input,
and what ``replay`` shows.

Hand logs for the replay tests are written in-process (``run_match`` with SDK bots run
in this process), so these tests start no bot process except for ``mus check``.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from mus_core import Rules
from mus_sdk import MUS, NO_MUS, NO_QUIERO, PASO, Bot, EventKind, Observation, Phase
from typer.testing import CliRunner

from arena.cli.main import app
from arena.driver.match import MatchConfig
from arena.players.inprocess import InProcessBot
from arena.referee.player import SyncAdapter
from arena.runner.match import Seating, run_match

REPO = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
DATA = HERE / "data"
LEAGUE_BAD = REPO / "tests" / "league" / "data" / "bad"
LEAGUE_SMALL = REPO / "tests" / "league" / "data" / "small.toml"
BROKEN_BOT = HERE / "bots" / "broken"
RANDOM_BOT = REPO / "bots" / "random"
TV06 = REPO / "tests" / "scenarios" / "tv06_full_hand.toml"

CARD = re.compile(r"\b[1-7SCRA][oceb]\b")
"""A card in the logs' notation (rank then suit: ``Ro``, ``7c``, ``Ae``...)."""
STEP = re.compile(r"^\s+(\d+)\s+(?:[a-z]+\s+)?S(\d)\s+(.*)$")  # index, phase or lance, seat, action
DEALT = re.compile(r"^\s+S(\d) \(T\d\) dealt: (.*)$")
HOLDS = re.compile(r"^\s+S(\d) \(T\d\) now holds: (.*)$")
"""A seat's cards once a discard round's replacements are dealt."""
SHOWN = re.compile(r"^\s+S\d \(T\d\): ")
"""The first result line of a hand: the revealed cards."""


def invoke(*args: str | Path):
    """Run ``mus ARGS`` in this process; stdout and stderr are kept apart."""
    return CliRunner().invoke(app, [str(a) for a in args], env={"COLUMNS": "200", "NO_COLOR": "1"})


def flat(text: str) -> str:
    """Help text without rich's boxes and line breaks, for phrase searches."""
    return " ".join(re.sub(r"[│╭╮╰╯─]", " ", text).split())


def tree(folder: Path) -> dict[str, tuple[int, int, bytes]]:
    """Every file under ``folder`` with its size, mtime and content."""
    return {
        str(p.relative_to(folder)): (p.stat().st_size, p.stat().st_mtime_ns, p.read_bytes())
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


# --- a hand log with discards and partner señas, written in-process ----------------------------


class MusBot(Bot):
    """Takes mus once per hand (so every hand has a discard round), discards its first card,
    then passes or declines; gives a seña whenever it may."""

    name = "musbot"
    version = "1"

    def decide(self, obs: Observation):  # type: ignore[no-untyped-def]
        legal = obs.legal_actions
        sena = obs.legal_senas[0] if obs.legal_senas else None
        if obs.phase is Phase.MUS:
            discarded = any(e.kind is EventKind.DISCARD for e in obs.history)
            action = MUS if MUS in legal and not discarded else NO_MUS
        elif obs.phase is Phase.DISCARD:
            rng = legal.discard_range
            assert rng is not None
            action = rng.options()[0]
        else:
            action = PASO if PASO in legal else NO_QUIERO if NO_QUIERO in legal else legal.fixed[0]
        return action, sena


@pytest.fixture(scope="module")
def hand_log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A finished match of several hands, each with discards; señas seen by partners only."""
    out = tmp_path_factory.mktemp("handlog")
    rules = Rules.from_mapping({"target_points": 20, "games_to_win": 1, "signals": "partner_with_interception"})
    players = [SyncAdapter(InProcessBot(MusBot())) for _ in range(4)]
    outcome = run_match([], Seating(("a", "b", "a", "b")), MatchConfig(rules=rules, seed=5, match_id="m"), out,
                        players=players)
    assert outcome.result.reason.value == "completed"
    records = [json.loads(line) for line in outcome.log_path.read_text().splitlines()]
    hands = [r for r in records if r["type"] == "hand"]
    assert len(hands) >= 4, "the fixture needs a match of at least four hands"
    assert all(any(s["action"].startswith("discard") for s in h["steps"]) for h in hands)
    return outcome.log_path


def log_lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines(keepends=True)


def hand_line_index(lines: list[str], hand: int) -> int:
    """Index in ``lines`` of the record of hand ``hand``."""
    for i, line in enumerate(lines):
        rec = json.loads(line)
        if rec["type"] == "hand" and rec["hand"] == hand:
            return i
    raise AssertionError(f"no hand {hand}")


# --- help --------------------------------------------------------------------------------------

COMMANDS = {
    "match": ["--out", "--seed", "--rules", "--games", "--target", "--decision-ms", "--json"],
    "league": ["--out", "--jobs", "--seed", "--resume", "--no-progress"],
    "replay": ["--hand", "--seat", "--verify", "--against"],
    "check": ["--decision-ms"],
    "scenario": ["--json"],
    "demo": ["--seed", "--matches"],
}


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_help_of_every_command(command: str) -> None:
    r = invoke(command, "--help")
    assert r.exit_code == 0, r.output
    text = flat(r.stdout)
    assert f"Usage: mus {command}" in text
    for option in COMMANDS[command]:
        assert option in text, f"mus {command} --help does not mention {option}"


@pytest.mark.parametrize("command", ["match", "league", "replay", "check"])
def test_help_documents_exit_codes(command: str) -> None:
    assert "Exit codes:" in flat(invoke(command, "--help").stdout)


def test_root_help_lists_commands_and_exit_codes() -> None:
    """`mus --help` teaches: every command, and the exit codes shared by all of them."""
    r = invoke("--help")
    assert r.exit_code == 0
    text = flat(r.stdout)
    for command in COMMANDS:
        assert command in text
    assert "Exit codes" in text, "the exit codes (main.py's docstring) are not shown by `mus --help`"


@pytest.mark.parametrize(("command", "phrase"), [("match", "[rules] table"), ("scenario", "[expect] table")])
def test_help_keeps_bracketed_toml_names(command: str, phrase: str) -> None:
    """Rich markup must not swallow a TOML table name written in square brackets."""
    assert phrase in flat(invoke(command, "--help").stdout)


def test_version_and_bad_log_format() -> None:
    r = invoke("--version")
    assert r.exit_code == 0 and r.stdout.startswith("mus-arena ")
    r = invoke("--log-format", "xml", "check", "--help")
    assert r.exit_code == 2


# --- scenario ----------------------------------------------------------------------------------


def test_scenario_ok() -> None:
    r = invoke("scenario", TV06)
    assert r.exit_code == 0, r.output
    assert "scores after: T0 11 - T1 0" in r.stdout
    assert "expectations met" in r.stdout


def test_scenario_failed_expectation_exits_1() -> None:
    r = invoke("scenario", DATA / "wrong_expectation.toml")
    assert r.exit_code == 1, r.output
    assert "EXPECTATION FAILED: scores: expected [12, 0], got [11, 0]" in r.stdout


@pytest.mark.parametrize(
    ("name", "line", "field"),
    [("malformed_mano.toml", 4, "hand.mano"), ("illegal_action.toml", 9, "hand.actions")],
)
def test_scenario_malformed_exits_2_naming_line_and_field(name: str, line: int, field: str) -> None:
    r = invoke("scenario", DATA / name)
    assert r.exit_code == 2, r.output
    assert name in r.stderr
    assert f"line {line}" in r.stderr
    assert f"field {field}" in r.stderr
    assert r.stdout == ""


def test_scenario_json() -> None:
    r = invoke("scenario", TV06, "--json")
    assert r.exit_code == 0
    assert json.loads(r.stdout)["result"]["scores_after"] == [11, 0]


# --- match -------------------------------------------------------------------------------------


def test_match_unknown_bot_path_exits_2(tmp_path: Path) -> None:
    out = tmp_path / "m"
    r = invoke("match", RANDOM_BOT, tmp_path / "no-such-bot", "--out", out)
    assert r.exit_code == 2, r.output
    assert "no-such-bot" in r.stderr
    assert not out.exists(), "nothing is created for a match that cannot start"


def test_the_old_placement_flags_are_hidden() -> None:
    for command in ("match", "league"):
        shown = flat(invoke(command, "--help").stdout)
        assert "--affinity" not in shown and "--bot-cpus" not in shown and "--spin-us" not in shown


@pytest.mark.parametrize("value", ["-1", "10001", "fast"])
def test_bad_spin_us_exit_2_before_anything_starts(tmp_path: Path, value: str) -> None:
    out = tmp_path / "m"
    for args in (("match", RANDOM_BOT, RANDOM_BOT), ("league", LEAGUE_SMALL, "--no-progress")):
        r = invoke(*args, "--out", out, "--spin-us", value)
        assert r.exit_code == 2, r.output
        assert "--spin-us" in r.stderr, r.stderr
        assert not out.exists()


def test_match_wrong_number_of_bots_exits_2(tmp_path: Path) -> None:
    r = invoke("match", RANDOM_BOT, RANDOM_BOT, RANDOM_BOT, "--out", tmp_path / "m")
    assert r.exit_code == 2
    assert "error:" in r.stderr


# --- league: bad league files and output folders --------------------------------------------


def expected_lines(path: Path) -> set[int]:
    """The lines an error message may name, as marked in the file: ``# <- error`` at the end
    of the line itself; ``# v error`` on the line before (``in the entry below``: any line of
    that table)."""
    lines = path.read_text(encoding="utf-8").splitlines()
    for i, line in enumerate(lines, start=1):
        if line.rstrip().endswith("# <- error"):
            return {i}
        if line.startswith("# v error"):
            if "entry below" not in line:
                return {i + 1}
            end = next((j for j in range(i + 1, len(lines)) if lines[j].startswith("[")), len(lines))
            return set(range(i + 1, end + 1))
    raise AssertionError(f"{path.name} marks no error line")


BAD_LEAGUES = [
    ("unknown_key.toml", "colour"),
    ("bad_type.toml", "matches_per_pairing"),
    ("duplicate_string.toml", "duplicate"),
    ("bad_rule_type.toml", "rules.target_points"),
    ("unknown_rule.toml", "rules.games_to_wim"),
    ("bad_time_type.toml", "time.decision_ms"),
    ("rules_not_table.toml", "rules"),
    ("entry_not_tables.toml", "entry"),
    ("one_entry.toml", "entry"),
    ("pair_missing_entry.toml", "pair"),
    ("bad_bot_path_first.toml", "entry[0].bot"),
    ("bad_bot_path_second.toml", "entry[1].bot"),
    ("duplicate_entry_name.toml", "entry[1].name"),
    ("entry_without_name.toml", "entry[1].name"),
    ("entry_unknown_key.toml", "entry[1].colour"),
    ("spin_us_too_long.toml", "spin_us"),
    ("spin_us_not_integer.toml", "spin_us"),
]


@pytest.mark.parametrize(("name", "field"), BAD_LEAGUES)
def test_league_file_error_names_file_line_and_field(tmp_path: Path, name: str, field: str) -> None:
    path = LEAGUE_BAD / name
    out = tmp_path / "out"
    r = invoke("league", path, "--out", out, "--no-progress")
    assert r.exception is None or isinstance(r.exception, SystemExit), f"crashed: {r.exception!r}"
    assert r.exit_code == 2, r.output
    message = r.stderr.strip()
    assert message.startswith("error: "), message
    lines = expected_lines(path)
    named = [int(n) for n in re.findall(rf"{re.escape(name)}:(\d+)", message)]
    assert named, f"no {name}:LINE in {message!r}"
    assert named[0] in lines, f"{message!r} names line {named[0]}, expected {sorted(lines)}"
    assert field in message, f"{message!r} does not name the field {field}"
    assert not out.exists(), "a bad league file must not create the output folder"


def test_league_file_not_toml_names_the_line(tmp_path: Path) -> None:
    path = LEAGUE_BAD / "not_toml.toml"
    r = invoke("league", path, "--out", tmp_path / "out", "--no-progress")
    assert r.exit_code == 2
    (line,) = expected_lines(path)
    assert "not_toml.toml" in r.stderr
    assert f"line {line}" in r.stderr or f"not_toml.toml:{line}" in r.stderr


def test_league_missing_file_exits_2(tmp_path: Path) -> None:
    r = invoke("league", tmp_path / "nope.toml", "--out", tmp_path / "out", "--no-progress")
    assert r.exit_code == 2
    assert "nope.toml" in r.stderr


def test_league_into_non_empty_folder_changes_nothing(tmp_path: Path) -> None:
    out = tmp_path / "out"
    (out / "logs").mkdir(parents=True)
    (out / "notes.txt").write_text("precious\n")
    (out / "results.jsonl").write_text('{"match_id": "x"}\n')
    (out / "logs" / "x.jsonl").write_text("{}\n")
    before = tree(out)
    r = invoke("league", LEAGUE_SMALL, "--out", out, "--no-progress")
    assert r.exit_code == 2, r.output
    assert str(out) in r.stderr and "--resume" in r.stderr
    assert tree(out) == before


def test_league_resume_without_league_json_exits_2(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / "notes.txt").write_text("precious\n")
    before = tree(out)
    r = invoke("league", LEAGUE_SMALL, "--out", out, "--resume", "--no-progress")
    assert r.exit_code == 2, r.output
    assert "league.json" in r.stderr
    assert tree(out) == before
    missing = tmp_path / "missing"
    r = invoke("league", LEAGUE_SMALL, "--out", missing, "--resume", "--no-progress")
    assert r.exit_code == 2
    assert not missing.exists()


def test_league_out_is_a_file_exits_2(tmp_path: Path) -> None:
    """--out naming a regular file: a message and exit 2 (not a traceback), the file untouched."""
    out = tmp_path / "out"
    out.write_text("a file\n")
    r = invoke("league", LEAGUE_SMALL, "--out", out, "--no-progress")
    assert r.exit_code == 2, f"exit {r.exit_code}: {r.exception!r}"
    assert str(out) in r.stderr
    assert out.read_text() == "a file\n"


def test_league_resume_of_a_changed_league_exits_2(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    snapshot = {"name": "small", "seed": 999, "matches_per_pairing": 2, "duplicate": True, "rules": {},
                "time": {}, "entries": []}
    (out / "league.json").write_text(json.dumps(snapshot))
    before = tree(out)
    r = invoke("league", LEAGUE_SMALL, "--out", out, "--resume", "--no-progress")
    assert r.exit_code == 2, r.output
    assert "seed" in r.stderr
    assert tree(out) == before


# --- replay ------------------------------------------------------------------------------------


def test_replay_shows_every_hand(hand_log: Path) -> None:
    r = invoke("replay", hand_log)
    assert r.exit_code == 0, r.output
    n = sum(1 for line in log_lines(hand_log) if '"type":"hand"' in line)
    assert [int(m) for m in re.findall(r"── hand (\d+) ", r.stdout)] == list(range(n))
    dealt = [m.group(1) for line in r.stdout.splitlines() if (m := DEALT.match(line))]
    assert dealt == ["0", "1", "2", "3"] * n
    assert "MISMATCH" not in r.stdout
    assert r.stdout.rstrip().splitlines()[-1].startswith("result: winner team")


def test_replay_verify_passes_on_a_good_log(hand_log: Path) -> None:
    r = invoke("replay", "--verify", hand_log)
    assert r.exit_code == 0, r.output
    assert "verified" in r.stdout


def test_replay_hand_filter(hand_log: Path) -> None:
    r = invoke("replay", hand_log, "--hand", "2")
    assert r.exit_code == 0
    assert re.findall(r"── hand (\d+) ", r.stdout) == ["2"]


def test_replay_missing_hand_exits_2(hand_log: Path) -> None:
    r = invoke("replay", hand_log, "--hand", "99")
    assert r.exit_code == 2
    assert "no hand 99" in r.stderr


def test_replay_unreadable_logs_exit_2(tmp_path: Path) -> None:
    r = invoke("replay", tmp_path / "nope.jsonl")
    assert r.exit_code == 2 and "nope.jsonl" in r.stderr
    not_a_log = tmp_path / "x.jsonl"
    not_a_log.write_text('{"type": "hand", "hand": 0}\n')
    r = invoke("replay", not_a_log)
    assert r.exit_code == 2 and "header" in r.stderr


@pytest.mark.parametrize("seat", [0, 1, 2, 3])
def test_replay_seat_shows_only_what_the_seat_saw(hand_log: Path, seat: int) -> None:
    """Before the result lines of a hand: only the seat's own cards (dealt, and after each
    discard round), no card of another seat's discard, and only the señas of the seat and
    its partner (interception p = 0)."""
    r = invoke("replay", hand_log, "--seat", str(seat))
    assert r.exit_code == 0, r.output
    blocks = re.split(r"^── hand ", r.stdout, flags=re.M)[1:]
    assert blocks
    own_discards = other_discards = holds = 0
    for block in blocks:
        lines = block.splitlines()[1:]
        cut = next((i for i, line in enumerate(lines) if SHOWN.match(line)), len(lines))
        for line in lines[:cut]:
            if m := DEALT.match(line) or HOLDS.match(line):
                assert int(m.group(1)) == seat, f"--seat {seat} shows {line.strip()!r}"
                holds += "now holds" in line
            elif m := STEP.match(line):
                actor, text = int(m.group(2)), m.group(3)
                if text.startswith("discard"):
                    if actor == seat:
                        own_discards += 1
                        assert CARD.search(text), f"the seat's own discard should show its cards: {line!r}"
                    else:
                        other_discards += 1
                        assert not CARD.search(text), f"--seat {seat} shows another seat's discard: {line!r}"
                if "[seña:" in text:
                    assert (actor & 1) == (seat & 1), f"--seat {seat} shows an opponent's seña: {line!r}"
            else:
                assert not CARD.search(line), f"--seat {seat} shows cards before the result: {line!r}"
    assert own_discards and other_discards, "the log should have discards of every seat"
    assert holds, "the seat's cards after the replacements are shown"


@pytest.mark.parametrize("seat", ["4", "9", "-1"])
def test_replay_seat_out_of_range_exits_2(hand_log: Path, seat: str) -> None:
    r = invoke("replay", hand_log, "--seat", seat)
    assert r.exit_code == 2, f"exit {r.exit_code}: {r.exception!r}"
    assert "seat" in r.stderr.lower()


def test_replay_garbage_line_between_hands(hand_log: Path, tmp_path: Path) -> None:
    """An extra unreadable line: named (with its number) on stderr; every hand still shown."""
    lines = log_lines(hand_log)
    at = hand_line_index(lines, 2)
    bad = tmp_path / "extra.jsonl"
    bad.write_text("".join([*lines[:at], "{not json\n", *lines[at:]]), encoding="utf-8")
    n = sum(1 for line in lines if '"type":"hand"' in line)
    r = invoke("replay", bad)
    assert r.exit_code == 0, r.output
    assert f"line {at + 1}" in r.stderr
    assert [int(m) for m in re.findall(r"── hand (\d+) ", r.stdout)] == list(range(n))
    assert "MISMATCH" not in r.stdout


def test_replay_corrupt_hand_line_shows_the_other_hands(hand_log: Path, tmp_path: Path) -> None:
    """A hand record torn in the middle of the log: the line is named on stderr and every
    other hand is still shown, without mismatches (issue 4, item 8)."""
    lines = log_lines(hand_log)
    at = hand_line_index(lines, 1)
    bad = tmp_path / "corrupt.jsonl"
    bad.write_text("".join([*lines[:at], lines[at][: len(lines[at]) // 2] + "\n", *lines[at + 1:]]), encoding="utf-8")
    n = sum(1 for line in lines if '"type":"hand"' in line)
    r = invoke("replay", bad)
    assert f"line {at + 1}" in r.stderr
    assert r.exit_code == 0, r.output
    shown = [int(m) for m in re.findall(r"── hand (\d+) ", r.stdout)]
    assert shown == [h for h in range(n) if h != 1], f"hands shown: {shown}"
    assert "MISMATCH" not in r.stdout, [x for x in r.stdout.splitlines() if "MISMATCH" in x]
    assert "result: winner team" in r.stdout


def test_replay_verify_corrupt_hand_line_still_verifies_the_rest(hand_log: Path, tmp_path: Path) -> None:
    """--verify on that log: exit 1 for the corrupt line, and no mismatch for the hands
    after it (they are checked, not lost)."""
    lines = log_lines(hand_log)
    at = hand_line_index(lines, 1)
    bad = tmp_path / "corrupt.jsonl"
    bad.write_text("".join([*lines[:at], "{torn\n", *lines[at + 1:]]), encoding="utf-8")
    r = invoke("replay", "--verify", bad)
    assert r.exit_code == 1
    problems = [x for x in r.stdout.splitlines() if x.startswith("MISMATCH")]
    assert any(f"line {at + 1}" in p for p in problems)
    unexpected = [p for p in problems if f"line {at + 1}" not in p and "footer" not in p]
    assert not unexpected, unexpected


def test_replay_verify_tampered_result_exits_1_naming_the_hand(hand_log: Path, tmp_path: Path) -> None:
    lines = log_lines(hand_log)
    at = hand_line_index(lines, 2)
    rec = json.loads(lines[at])
    rec["result"]["scores_after"][1] += 1
    bad = tmp_path / "tampered.jsonl"
    bad.write_text("".join([*lines[:at], json.dumps(rec) + "\n", *lines[at + 1:]]), encoding="utf-8")
    r = invoke("replay", "--verify", bad)
    assert r.exit_code == 1, r.output
    problems = [x for x in r.stdout.splitlines() if x.startswith("MISMATCH")]
    assert problems and all("hand 2" in p for p in problems), problems
    assert any("scores_after" in p for p in problems)


def test_replay_verify_tampered_action_exits_1(hand_log: Path, tmp_path: Path) -> None:
    lines = log_lines(hand_log)
    at = hand_line_index(lines, 3)
    rec = json.loads(lines[at])
    last = rec["steps"][-1]
    last["action"] = "envido 5" if last["action"] != "envido 5" else "paso"
    bad = tmp_path / "tampered.jsonl"
    bad.write_text("".join([*lines[:at], json.dumps(rec) + "\n", *lines[at + 1:]]), encoding="utf-8")
    r = invoke("replay", "--verify", bad)
    assert r.exit_code == 1
    assert "hand 3" in r.stdout


# --- check -------------------------------------------------------------------------------------


def test_check_random_bot_passes_every_time() -> None:
    """A conforming bot passes every step on every run, not on most: a flaky step would
    make bot authors chase bugs that are not theirs."""
    failures = []
    for run in range(3):
        r = invoke("check", RANDOM_BOT)
        if r.exit_code != 0 or not re.search(r"\b\d+ passed, 0 failed", r.stdout) or "[FAIL]" in r.stdout:
            failures.append(f"run {run}: exit {r.exit_code}: "
                            + " | ".join(x for x in r.stdout.splitlines() if "[FAIL]" in x))
    assert not failures, failures


def test_check_broken_bot_fails_and_prints_its_stderr() -> None:
    r = invoke("check", BROKEN_BOT)
    assert r.exit_code == 1, r.output
    assert "[FAIL]" in r.stdout
    assert "broken-bot: cannot load its model file weights.bin" in r.output
    assert re.search(r"\b1 failed", r.stdout)


def test_check_no_such_bot_exits_2(tmp_path: Path) -> None:
    r = invoke("check", tmp_path / "nobot")
    assert r.exit_code == 2
    assert "nobot" in r.stderr


# --- seeds: one rule everywhere (issue 15 item 8) -----------------------------------------------

SEED_RULE = "a seed is a non-negative integer below 2**256, in decimal or 0x-hex"
BAD_SEEDS = ["-1", "-5", str(2**256), "abc", "0x", "1.5", "+3", " 7"]


@pytest.mark.parametrize("seed", BAD_SEEDS)
def test_bad_seed_is_refused_by_mus_match(tmp_path: Path, seed: str) -> None:
    """``--seed -1`` dealt as ``--seed 1`` (abs()); now every non-seed exits 2 with one
    message, before any bot starts or any file is written."""
    out = tmp_path / "out"
    r = invoke("match", RANDOM_BOT, RANDOM_BOT, "--out", out, "--seed", seed)
    assert r.exit_code == 2, r.output
    assert SEED_RULE in r.stderr and "--seed" in r.stderr
    assert not out.exists()


@pytest.mark.parametrize("seed", BAD_SEEDS)
def test_bad_seed_is_refused_by_mus_league(tmp_path: Path, seed: str) -> None:
    out = tmp_path / "out"
    r = invoke("league", LEAGUE_SMALL, "--out", out, "--seed", seed, "--no-progress")
    assert r.exit_code == 2, r.output
    assert SEED_RULE in r.stderr
    assert not out.exists()


@pytest.mark.parametrize("value", ["-1", "-5", str(2**256), '"abc"', '"-1"', "1.5", "true"])
def test_bad_seed_is_refused_in_a_league_file(tmp_path: Path, value: str) -> None:
    """The same rule, the same words, with the file's line: before, -5 was refused here
    but accepted on the command line."""
    text = LEAGUE_SMALL.read_text().replace("seed = 11", f"seed = {value}")
    text = text.replace('bot = "../../../', f'bot = "{REPO}/')
    path = tmp_path / "league.toml"
    path.write_text(text)
    r = invoke("league", path, "--out", tmp_path / "out", "--no-progress")
    assert r.exit_code == 2, r.output
    assert SEED_RULE in r.stderr and f"{path}:3: field seed" in r.stderr


@pytest.mark.parametrize(("text", "value"), [("0", 0), ("7", 7), ("0x1F", 31), (str(2**256 - 1), 2**256 - 1)])
def test_good_seeds_parse_alike(text: str, value: int) -> None:
    from arena.league.config import parse_seed

    assert parse_seed(text) == value
    if not text.startswith("0x"):
        assert parse_seed(int(text)) == value
