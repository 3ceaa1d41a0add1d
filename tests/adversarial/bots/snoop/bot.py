"""snoop: a hostile bot that tries to learn the deals from its own first hand.

It plays the trivial policy (no-mus, paso, no-quiero: no discards, so the cards dealt are
the cards held). At start it writes what it was given and what it can read of its
ancestors (``/proc/self/environ``, argv, each ancestor's command line and environment)
to ``$MUS_SNOOP_OUT/env-<random>.json`` (in a PID namespace every bot is pid 1).

At its first decision of a match, the process at the lower seat of its team (one search
per team) brute-forces the seed from its own four cards and the dealer, as an attacker
who read the public engine and league code would:

- league seeds ``0 .. MUS_SNOOP_RANGE-1`` (default 2**20) through today's derivation:
  match seed = BLAKE2b keyed with the league seed over the label its match id gives
  (``pair:<a>:<b>:<k>``, a league without duplicate deals), deal = the engine's PRF of
  the match seed;
- the same values taken as the match seed itself (``mus match --seed``);
- league seeds ``0 .. MUS_SNOOP_OLD_RANGE-1`` (default 2**16) through the derivation
  before the keyed PRF (unkeyed 63-bit BLAKE2b, then Python's Mersenne Twister).

Four cards and a dealer match about one seed in 365,000 by chance, so every candidate
that fits the first hand is kept, and each later hand keeps only those that also deal it
its cards then. At every hand it predicts the opponents' cards: from the first candidate
left, or, with none left, from the best guess an attacker has (league seed 0). The predictions go
to ``$MUS_SNOOP_OUT/pred-<random>.jsonl``; the test scores them against the hand logs.
``MUS_SNOOP_DELAY_MS``: sleep that long before each answer (a slow bot).
``MUS_SNOOP_HOLD``: a path; while that file exists, do not answer (at most 60 s): a test
holds a match open until it has done what it must do meanwhile.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import sys
import time
from pathlib import Path
from typing import Any

# The checkout's engine when run from it; a copy elsewhere imports the installed one.
_PARENTS = Path(__file__).resolve().parents
if len(_PARENTS) > 4 and (_PARENTS[4] / "arena" / "engine").is_dir():
    sys.path.insert(0, str(_PARENTS[4]))

from mus_core.state import _permute  # noqa: E402  (the public engine, as an attacker reads it)
from mus_sdk import NO_MUS, NO_QUIERO, PASO, Action, Bot, Observation, serve  # noqa: E402

OUT = Path(os.environ.get("MUS_SNOOP_OUT", "."))
RANGE = int(os.environ.get("MUS_SNOOP_RANGE", str(1 << 20)))
OLD_RANGE = int(os.environ.get("MUS_SNOOP_OLD_RANGE", str(1 << 16)))
DELAY_S = int(os.environ.get("MUS_SNOOP_DELAY_MS", "0")) / 1000
HOLD = os.environ.get("MUS_SNOOP_HOLD", "")
ME = os.urandom(6).hex()  # names this process's files


def _read(path: str) -> str:
    try:
        with open(path, "rb") as f:
            return f.read().replace(b"\0", b" ").decode(errors="replace")
    except OSError as exc:
        return f"<unreadable: {exc.strerror}>"


def dump_environment() -> None:
    """Everything a bot can read about how it and its ancestors were started."""
    ancestors = []
    pid = os.getppid()
    while pid > 1 and len(ancestors) < 6:
        ancestors.append({"pid": pid, "cmdline": _read(f"/proc/{pid}/cmdline"), "environ": _read(f"/proc/{pid}/environ")})
        try:
            stat = _read(f"/proc/{pid}/stat")
            pid = int(stat.rsplit(")", 1)[1].split()[1])
        except (ValueError, IndexError):
            break
    doc = {"pid": os.getpid(), "argv": sys.argv, "environ": dict(os.environ),
           "self_environ": _read("/proc/self/environ"), "ancestors": ancestors}
    (OUT / f"env-{ME}.json").write_text(json.dumps(doc))


def prf(key: int, label: bytes) -> int:
    h = hashlib.blake2b(label, key=key.to_bytes(32, "big"), digest_size=32)
    return int.from_bytes(h.digest(), "big")


def new_match_seed(league_seed: int, label: bytes) -> int:
    return int.from_bytes(hashlib.blake2b(label, key=league_seed.to_bytes(32, "big"), digest_size=16).digest(), "big")


def new_deck(match_seed: int, hand: int) -> list[int]:
    deck = list(range(40))
    _permute(deck, prf(match_seed, b"deal:%d" % hand))
    return deck


def old_decks(league_seed: int, label: str, hands: int) -> tuple[int, list[list[int]]]:
    """The first dealer and the decks of hands 0..hands-1 under the old derivation."""
    text = f"{league_seed}:{label}"
    seed = int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "big") >> 1
    rng = random.Random(seed)
    dealer = rng.randrange(4)
    decks = []
    for _ in range(hands):
        deck = list(range(40))
        for i in range(39, 0, -1):
            j = int(rng.random() * (i + 1))
            deck[i], deck[j] = deck[j], deck[i]
        decks.append(deck)
    return dealer, decks


def seat_cards(deck: list[int], seat: int, mano: int) -> list[int]:
    """Card k of the deal goes to seat mano + k."""
    return sorted(deck[(seat - mano) % 4:16:4])


def label_of(match_id: str) -> str:
    """The schedule's label of a match: ``a--b--007`` is ``pair:a:b:7``."""
    a, b, k = match_id.split("--")
    return f"pair:{a}:{b}:{int(k)}"


def search(label: str, seat: int, dealer: int, mine: list[int]) -> tuple[list[dict[str, Any]], int]:
    """Every seed in range that deals ``mine`` to ``seat`` with this first dealer."""
    mano = (dealer + 1) % 4
    tried = 0
    key = label.encode()
    found: list[dict[str, Any]] = []
    for c in range(RANGE):
        for kind, ms in (("league", new_match_seed(c, key)), ("match", c)):
            tried += 1
            if prf(ms, b"dealer") % 4 != dealer:
                continue
            if seat_cards(new_deck(ms, 0), seat, mano) == mine:
                found.append({"kind": kind, "candidate": c, "match_seed": ms})
    for c in range(OLD_RANGE):
        tried += 1
        old_dealer, decks = old_decks(c, label, 1)
        if old_dealer == dealer and seat_cards(decks[0], seat, mano) == mine:
            found.append({"kind": "old", "candidate": c})
    return found, tried


def deck_of(candidate: dict[str, Any], label: str, hand: int) -> list[int]:
    """The deck of ``hand`` if ``candidate`` is the seed."""
    if candidate["kind"] == "old":
        return old_decks(int(candidate["candidate"]), label, hand + 1)[1][hand]
    return new_deck(int(candidate["match_seed"]), hand)


class Snoop(Bot):
    name = "snoop"
    version = "1.0"

    def __init__(self) -> None:
        self.match_id = ""
        self.candidates: list[dict[str, Any]] = []
        self.searching = False
        self.hands_seen: set[int] = set()
        self.search_s = 0.0
        self.tried = 0
        self.first_fits = 0

    def decide(self, obs: Observation) -> Action:
        if obs.match_id != self.match_id:
            self.match_id, self.candidates, self.hands_seen = obs.match_id, [], set()
            partner = (obs.seat + 2) % 4
            self.searching = obs.seat < partner and RANGE > 0
            if self.searching:
                t0 = time.monotonic()
                self.candidates, self.tried = search(label_of(obs.match_id), obs.seat, obs.dealer,
                                                     sorted(int(c) for c in obs.cards))
                self.first_fits = len(self.candidates)
                self.search_s = time.monotonic() - t0
        if self.searching and obs.hand not in self.hands_seen:
            self.hands_seen.add(obs.hand)
            self.predict(obs)
        if DELAY_S:
            time.sleep(DELAY_S)
        held_until = time.monotonic() + 60
        while HOLD and os.path.exists(HOLD) and time.monotonic() < held_until:
            time.sleep(0.05)
        legal = obs.legal_actions
        for a in (NO_MUS, PASO, NO_QUIERO):
            if a in legal:
                return a
        return legal.fixed[0]

    def predict(self, obs: Observation) -> None:
        label = label_of(obs.match_id)
        mine = sorted(int(c) for c in obs.cards)
        # Keep the candidates that also deal this hand's cards (the first hand's did).
        self.candidates = [c for c in self.candidates if seat_cards(deck_of(c, label, obs.hand), obs.seat, obs.mano) == mine]
        found = self.candidates[0] if self.candidates else None
        guess = {"kind": "league", "match_seed": new_match_seed(0, label.encode())}
        deck = deck_of(found or guess, label, obs.hand)
        opponents = [(obs.seat + 1) % 4, (obs.seat + 3) % 4]
        rec = {"match_id": obs.match_id, "seat": obs.seat, "hand": obs.hand, "found": found,
               "candidates": len(self.candidates), "first_hand_fits": self.first_fits, "tried": self.tried,
               "search_s": round(self.search_s, 2), "mine": sorted(int(c) for c in obs.cards),
               "pred": {str(s): seat_cards(deck, s, obs.mano) for s in opponents}}
        with open(OUT / f"pred-{ME}.jsonl", "a", encoding="utf-8") as f:
            f.write(json.dumps(rec) + "\n")


if __name__ == "__main__":
    dump_environment()
    serve(Snoop())
