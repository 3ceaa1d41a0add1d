"""Ladders: competitions that live for weeks (``mus ladder``, docs/ladder.md).

Entries arrive and are resubmitted over time; matches are chosen where they inform
(:mod:`arena.ladder.matchmaking`); every result and the ratings after each batch are
kept in one SQLite database (:mod:`arena.ladder.store`), each result sealed by an HMAC
as ``results.jsonl``'s lines are.
"""

from arena.ladder.store import LadderError

__all__ = ["LadderError"]
