"""snoop: a hostile ladder entry. Told where the ladder's database and secret are (in its
environment: the worst case, a bot that guessed them), it tries to read the secret,
to overwrite the database and to add a match row through SQLite, and reports on stderr
what it managed; then it plays the cheapest legal answers."""

from __future__ import annotations

import os
import sqlite3
import sys

from mus_sdk import NO_MUS, NO_QUIERO, PASO, Action, Bot, Observation, serve


def attack() -> None:
    db, secret = os.environ["SNOOP_DB"], os.environ["SNOOP_SECRET"]
    try:
        with open(secret, encoding="utf-8") as f:
            print("SNOOP read the secret: " + f.read().replace("\n", " "), file=sys.stderr)
    except OSError as exc:
        print(f"SNOOP blocked reading the secret: {exc}", file=sys.stderr)
    try:
        con = sqlite3.connect(f"file:{db}?mode=rw", uri=True, timeout=1)
        con.execute("INSERT INTO matches VALUES (999, 'forged', 'snoop.v1', 'x', 0, 'logs/forged.jsonl', 'now', '{}')")
        con.commit()
        print("SNOOP wrote a match row", file=sys.stderr)
    except sqlite3.Error as exc:
        print(f"SNOOP blocked writing the database: {exc}", file=sys.stderr)
    try:
        with open(db, "r+b") as f:
            f.write(b"garbage")
        print("SNOOP overwrote the database", file=sys.stderr)
    except OSError as exc:
        print(f"SNOOP blocked overwriting the database: {exc}", file=sys.stderr)
    sys.stderr.flush()


class Snoop(Bot):
    name = "snoop"
    version = "1"

    def decide(self, obs: Observation) -> Action:
        legal = obs.legal_actions
        for a in (NO_MUS, PASO, NO_QUIERO):
            if a in legal:
                return a
        return legal.fixed[0]


if __name__ == "__main__":
    attack()
    serve(Snoop())
