"""A bot that floods its Play stream (issue 14, point 8): messages nobody asked for,
during the match and after its end. The arena stops reading that stream and its memory
stays within a fixed budget, whatever the bot sends: each test sends hundreds of MiB
(or a hundred thousand tiny messages) and samples the arena's RSS (this process: the
referee runs here) every 5 ms.

Against the arena before the flood limits, the RSS grew by the whole flood (the reader
queued every message until the match ended)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from adversarial_helpers import MiB, RssSampler
from remote_helpers import close_all, config, play

from arena.referee.player import FaultKind

FLOODER = Path(__file__).resolve().parent / "bots" / "flooder"
UNSOLICITED_ALLOWANCE = 8
"""inbox.UNSOLICITED_ALLOWANCE (not imported: the test also runs against older arenas)."""
STREAM_BUDGET_BYTES = 64 * MiB
"""inbox.STREAM_BUDGET_BYTES: the most a bot may send in one match."""
ARENA_RSS_BUDGET = 48 * MiB
"""What the arena may grow by while a bot floods: the reader's budget
(inbox.INBOX_BUDGET_BYTES, 4 MiB) plus gRPC's buffers and the sampling's noise, far
below the floods sent (300 MiB)."""


def stderr_of(bot) -> str:  # type: ignore[no-untyped-def]
    return (bot.log_dir / f"{bot.label}.stderr.log").read_text(errors="replace")


@pytest.mark.parametrize(
    ("count", "size", "why"),
    [
        (300, 1000 * 1000, "bytes read and not asked for yet"),
        (100_000, 16, "more than the answers it owed (allowed: 8)"),
    ],
    ids=["300_MiB", "100k_tiny_messages"],
)
def test_a_flood_during_the_match_is_a_crash_and_reading_stops(spawn, pool, count: int, size: int, why: str) -> None:
    """Right after its second answer the bot sends ``count`` messages of ``size`` bytes
    (decisions for request 0): its stream is cancelled, every later decision of the seat
    is a CRASH saying it flooded its stream, the match is played to its end (no forfeit:
    ``max_faults = 0``, so that the outcome does not depend on how many messages the
    next decisions took before the flood was seen), and the arena's RSS barely moves."""
    with RssSampler() as rss:
        bot = spawn(path=FLOODER, MUS_FLOOD_WHEN="match", MUS_FLOOD_COUNT=str(count), MUS_FLOOD_SIZE=str(size))
        t0 = time.monotonic()
        played = play(pool.table(bot, 1), config(decision_ms=2000, max_faults=0))
        took = time.monotonic() - t0
        close_all([bot])
    r = played.result
    print(f"flood of {count} x {size} B: match over in {took:.2f} s, arena RSS {rss.start / MiB:.0f} MiB "
          f"+ {rss.growth / MiB:.1f} MiB")
    # The first messages of the flood (decisions for request 0) may be taken by the next
    # decisions before the flood is seen: WRONG_REQUEST; from the first crash on, only
    # crashes, each saying why. How many are taken first depends on how fast the arena
    # reads compared with the bot's sending (a loaded machine reads big messages one by
    # one as they come): at most the allowance, or what fits in the match's byte budget.
    assert r.faults and all(f.seat == 1 for f in r.faults), r.faults
    kinds = [f.kind for f in r.faults]
    first_crash = kinds.index(FaultKind.CRASH)
    bound = max(UNSOLICITED_ALLOWANCE, STREAM_BUDGET_BYTES // size + 1)
    assert first_crash <= bound and set(kinds[:first_crash]) <= {FaultKind.WRONG_REQUEST}, r.faults
    assert set(kinds[first_crash:]) == {FaultKind.CRASH} and len(kinds) - first_crash >= 3, r.faults
    crashes = r.faults[first_crash:]
    limits = (why, "bytes in this match (budget: ")  # the one this case aims at, or the match's budget
    assert all(f.detail.startswith("the bot flooded its stream: ") and any(w in f.detail for w in limits)
               for f in crashes), r.faults
    assert r.reason.value == "completed" and played.notify_errors == []
    assert rss.growth < ARENA_RSS_BUDGET
    # The bot saw its stream cancelled long before it sent everything.
    sent = int(stderr_of(bot).split("flooded ")[1].split()[0])
    assert sent < count // 2, stderr_of(bot)


def test_a_flood_after_the_match_end_is_discarded(spawn, pool) -> None:
    """The bot answers the match end with 300 MiB: the match stands as played, with no
    fault; nothing is queued (the reader discards after the match end, then stops at
    the flood limit), the stream does not count as ended cleanly, and closing is quick."""
    with RssSampler() as rss:
        bot = spawn(path=FLOODER, MUS_FLOOD_WHEN="match_end", MUS_FLOOD_COUNT="300")
        played = play(pool.table(bot, 2), config(decision_ms=2000))
        t0 = time.monotonic()
        close_all([bot])
        closing = time.monotonic() - t0
    r = played.result
    print(f"flood after the match end: arena RSS {rss.start / MiB:.0f} MiB + {rss.growth / MiB:.1f} MiB; "
          f"closed in {closing:.2f} s")
    assert r.reason.value == "completed" and r.faults == [] and played.notify_errors == []
    assert not bot.ended_cleanly
    assert rss.growth < ARENA_RSS_BUDGET
    assert closing < 5.0
