"""``mus play``: a person at the terminal against bots, driven here by a script through a
real terminal (pexpect): what is shown is the seat's view, what is typed is what the log
records, the count follows every hand, and a person who does not answer gets the safe
default after the deadline, with a timeout fault, until the team forfeits."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

import pexpect

from tests.report.conftest import REPO

PROMPT = r"your answer \(1-(\d+)\) > "


def spawn(tmp_path: Path, bot: str, *extra: str) -> pexpect.spawn:
    args = ["-m", "arena", "play", bot, "--seed", "5", "--target", "10", "--games", "2", "--out",
            str(tmp_path), "--match-id", "p", *extra]
    return pexpect.spawn(sys.executable, args, cwd=str(REPO), encoding="utf-8", timeout=30, dimensions=(50, 200))


def records(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def answer(shown: str) -> tuple[str, str]:
    """What the script types for the options ``shown``, and the action it means: the first
    option that needs nothing more, but mus only before the hand's first discard round (the
    bots always want mus: the mus would never end); for a discard, the first card."""
    once = "replacements dealt" in shown
    options = re.findall(r"^ +(\d+)\) (.*)$", shown, re.M)
    cards = re.search(r"your cards: (.*)$", shown, re.M)
    assert options and cards, shown
    for k, text in options:
        if text.startswith("discard "):
            first = cards.group(1).split()[0].split(":")[1]
            return f"{k} 1", f"discard {first}"
        if not text.startswith("envido N") and not (once and text.strip() == "mus"):
            return k, text.strip()
    raise AssertionError(f"no option to choose in {shown}")


def test_a_scripted_person_plays_a_match(tmp_path: Path) -> None:
    # clumsy always asks for mus: the hands have discard rounds (and each clumsy seat faults once).
    child = spawn(tmp_path, "tests/report/bots/clumsy")
    typed: list[str] = []
    first_cards: dict[int, set[str]] = {}
    counts: list[tuple[int, int]] = []
    tried_wrong = gave_sena = False
    while child.expect([PROMPT, r"match over: (.*)\r\n"]) == 0:
        shown = child.before
        for a, b in re.findall(r"scores after: T0 (\d+) - T1 (\d+)", shown):
            counts.append((int(a), int(b)))
        hand = int(re.findall(r"── hand (\d+) ", shown)[-1])
        cards = re.search(r"your cards: (.*)$", shown, re.M)
        assert cards is not None
        first_cards.setdefault(hand, {c.split(":")[1] for c in cards.group(1).split()})
        if not tried_wrong:  # a wrong answer is explained, and asked again
            child.sendline("9")
            child.expect(f"choose an option from 1 to {child.match.group(1)}")
            child.expect(PROMPT)
            tried_wrong = True
        keys, action = answer(shown)
        if not gave_sena and "cortar_mus" in shown.split("señas you may give")[-1]:
            keys += " +cortar_mus"
            gave_sena = True
        child.sendline(keys)
        typed.append(action)
    counts += [(int(a), int(b)) for a, b in re.findall(r"scores after: T0 (\d+) - T1 (\d+)", child.before)]
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0, child.before
    log = records(tmp_path / "p.jsonl")
    hands = [r for r in log if r["type"] == "hand"]
    mine = [s for h in hands for s in h["steps"] if s["seat"] == 0]
    assert [s["action"] for s in mine] == typed  # every answer typed, as the log records it
    assert any(a.startswith("discard") for a in typed) and len(hands) >= 2, typed
    assert not any(s.get("fault") for s in mine)
    assert any(s.get("sena") == "cortar_mus" for s in mine) == gave_sena
    for h in hands:  # the cards shown are the seat's own, as dealt
        if h["hand"] in first_cards:
            assert first_cards[h["hand"]] == set(h["deal"]["hands"][0].split())
    assert counts == [tuple(h["result"]["scores_after"]) for h in hands]  # the count after every hand
    assert log[-1]["result"]["reason"] == "completed"


def test_a_person_who_walks_away_gets_the_default_and_forfeits(tmp_path: Path) -> None:
    # A table of 2: one bot process to start.
    child = spawn(tmp_path, "bots/random", "--think-s", "1", "--max-faults", "2", "--players", "2")
    for _ in range(2):
        child.expect(PROMPT)
        child.expect("time is up: the referee plays the default for you")
    child.expect(r"match over: team 1 wins, games 0-0 \(forfeit: S0 \(you\) reached 2 faults\)")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    footer = records(tmp_path / "p.jsonl")[-1]["result"]
    assert [(f["seat"], f["kind"]) for f in footer["faults"]] == [(0, "timeout"), (0, "timeout")]
    assert footer["reason"] == "forfeit"


def test_the_end_of_the_input_is_the_person_leaving(tmp_path: Path) -> None:
    """Ctrl-D (the input closed) stops the match at once, says so, and exits 130: not one
    prompt after another, each a fault, to a forfeit and exit 0 (issue 29, item 5)."""
    child = spawn(tmp_path, "bots/random", "--players", "2")
    child.expect(PROMPT)
    child.sendeof()
    child.expect(r"the input ended \(Ctrl-D, or a closed pipe\): you left the table")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 130, child.before
    assert "your answer" not in child.before
    log = records(tmp_path / "p.jsonl")
    assert not any(s.get("fault") for r in log if r["type"] == "hand" for s in r["steps"]), log
