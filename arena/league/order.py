"""The order a league plays its matches in, so that its bot processes are reused.

The schedule (:func:`arena.league.schedule.schedule`) lists every match, pairing after
pairing. Played in that order, a league starts far more bot processes than it needs:
each referee (a ``--jobs`` slot) keeps its own pool of idle processes, at most
:data:`~arena.runner.pool.MAX_IDLE` of them, and

- with one referee, a sweep such as ``(e1, e2), (e1, e3), …`` leaves the pool holding
  the last few entries when the next sweep needs others again (a 10-entry league at
  ``--jobs 1`` started 77 processes for 180 matches);
- with several, consecutive matches of one pairing went to every referee in turn, so
  every referee started processes for every entry (154 for the same league at
  ``--jobs 2``, which then took longer than at ``--jobs 1``).

:func:`deal_streams` deals the pairings to ``streams`` streams (one per referee), each
pairing whole to one stream, choosing for each stream next a pairing of two entries its
pool likely still holds, else one that brings in the entry with the most pairings left
against those it holds (so that each process started serves several pairings), and
:class:`StreamFeed` submits each stream's next match as one of it finishes. The executor gives each referee the queued
matches of its own stream, and when it has none, the one nearest to what it played last
(:func:`affinity`): no referee waits while matches are queued. The order changes nothing but
the processes started: every match keeps its seed, and a match's result does not depend
on when it is played (the same standings and hand logs whatever ``--jobs``; tests).
Pure: no I/O.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Sequence

from arena.league.schedule import ScheduledMatch

Pairing = tuple[str, str]


def pairing_of(m: ScheduledMatch) -> Pairing:
    """The two entries of a match, in a fixed order (the seats' order aside)."""
    return (m.team0, m.team1) if m.team0 <= m.team1 else (m.team1, m.team0)


class _Stream:
    """One referee's share: its matches, and the entries its pool holds, the most
    recently used last."""

    def __init__(self, resident: int) -> None:
        self.matches: list[ScheduledMatch] = []
        self.recent: list[str] = []
        self.resident = resident


def remember(recent: list[str], entries: Iterable[str], resident: int) -> None:
    """Mark ``entries`` as the most recently used in ``recent`` (the latest last), which
    keeps the ``resident`` latest."""
    for entry in entries:
        if entry in recent:
            recent.remove(entry)
        recent.append(entry)
    del recent[:-resident]


def deal_streams(matches: Sequence[ScheduledMatch], streams: int, resident: int) -> list[list[ScheduledMatch]]:
    """``matches`` dealt to ``streams`` referees, each of which keeps idle processes for
    about ``resident`` entries: each pairing whole to one stream, each stream in the
    order that reuses its processes (module docstring).

    Every match appears once; the matches of one pairing keep their relative order.
    """
    by_pairing: dict[Pairing, list[ScheduledMatch]] = {}
    for m in matches:
        by_pairing.setdefault(pairing_of(m), []).append(m)
    left = dict.fromkeys(by_pairing)  # insertion-ordered: schedule order
    with_entry: dict[str, dict[Pairing, None]] = {}
    for pairing in by_pairing:
        for entry in pairing:
            with_entry.setdefault(entry, {})[pairing] = None
    out = [_Stream(max(resident, 2)) for _ in range(max(streams, 1))]
    while left:
        stream = min(out, key=lambda s: len(s.matches))  # the first of the least loaded
        pairing = _next_pairing(stream.recent, stream.resident, left, with_entry)
        del left[pairing]
        for entry in pairing:
            del with_entry[entry][pairing]
        stream.matches += by_pairing[pairing]
        remember(stream.recent, pairing, stream.resident)
    return [s.matches for s in out]


class StreamFeed:
    """The matches left to submit, stream by stream: :meth:`take` gives the next match
    of the stream with the fewest in flight, so that each referee usually finds one of
    its own queued (submitting the streams in turns did not: referees finish at their
    own pace, and one then took another's match a third of the time). A referee whose
    stream is empty takes another's match (:meth:`ProcessExecutor._take
    <arena.league.procs.ProcessExecutor._take>`)."""

    def __init__(self, streams: Sequence[Sequence[ScheduledMatch]]) -> None:
        self._queues = [deque(s) for s in streams]
        self._stream_of = {m.match_id: i for i, s in enumerate(streams) for m in s}

    def __bool__(self) -> bool:
        return any(self._queues)

    def take(self, in_flight: Iterable[ScheduledMatch]) -> ScheduledMatch:
        """The next match to submit, given those submitted and not finished.

        Raises:
            IndexError: none left.
        """
        counts = [0] * len(self._queues)
        for m in in_flight:
            if (i := self._stream_of.get(m.match_id)) is not None:
                counts[i] += 1
        waiting = [i for i, q in enumerate(self._queues) if q]
        if not waiting:
            raise IndexError("no match left")
        return self._queues[min(waiting, key=counts.__getitem__)].popleft()


def _next_pairing(recent: list[str], resident: int, left: dict[Pairing, None],
                  with_entry: dict[str, dict[Pairing, None]]) -> Pairing:
    """The next pairing for a pool holding ``recent`` (the latest last): one of two
    entries it holds; else one that loads the entry with the most pairings left against
    those it will still hold (each load then serves several matches, not one); else the
    first left."""
    held = set(recent)
    for entry in reversed(recent):
        for pairing in with_entry.get(entry, {}):
            if pairing[0] in held and pairing[1] in held:
                return pairing
    kept = recent[1:] if len(recent) >= resident else recent  # the oldest goes when one is loaded
    best: Pairing | None = None
    gain = 0
    for entry in recent:
        for pairing in with_entry.get(entry, {}):
            new = pairing[1] if pairing[0] == entry else pairing[0]
            theirs = with_entry[new]
            g = sum(1 for k in kept if (new, k) in theirs or (k, new) in theirs)
            if g > gain:
                best, gain = pairing, g
                if gain == len(kept):
                    return pairing  # no load serves more
    return best if best is not None else next(iter(left))


def affinity(m: ScheduledMatch, recent: Sequence[str]) -> int:
    """How many of ``m``'s two entries a referee that played ``recent`` likely holds
    idle processes for (0, 1 or 2)."""
    return (m.team0 in recent) + (m.team1 in recent)
