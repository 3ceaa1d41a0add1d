"""A person at a terminal, in a seat: a :class:`~arena.referee.player.Player` like any bot.

The referee asks it for decisions through the same match session and fault policy as
any bot (``mus play``): it shows the seat's view (its cards, the hand so far, the bet on
the table), lists the legal actions, numbered, and reads the answer from its input. A
person who does not answer before the decision's deadline (generous, and set by
``mus play --think-s``) has the safe default played for them, a timeout fault, as a bot
would. The end of its input (Ctrl-D, a closed pipe) is the person leaving the table:
the match stops (:class:`InputClosed`), it is not played on with faults. At the end of
each hand it shows the count.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable, Sequence
from typing import IO

from mus_core import (
    Action,
    DiscardRange,
    EnvidoRange,
    EventKind,
    HandResult,
    LegalAction,
    Observation,
    Sena,
    discard,
    envido,
    format_cards,
    is_in,
)

from arena.records.narrate import bet_text, event_text
from arena.records.results import format_result
from arena.referee.player import BotFault, Decision, DecisionTiming, FaultKind, MatchEndInfo, MatchStartInfo

_EOF = object()


class InputClosed(KeyboardInterrupt):
    """The person's input ended (Ctrl-D, or a closed pipe): they left the table. A
    ``KeyboardInterrupt``, so that it stops the match as Ctrl-C does (the referee plays
    on through a player's ordinary exceptions, as faults), never caught as a bot's error."""


class LineReader:
    """Lines of a text stream, read by a thread of their own, so that waiting for the next
    one can stop at a deadline (``input()`` cannot be interrupted)."""

    def __init__(self, stream: IO[str]) -> None:
        self._lines: queue.Queue[object] = queue.Queue()
        self._closed = False
        threading.Thread(target=self._read, args=(stream,), name="mus-human-input", daemon=True).start()

    def _read(self, stream: IO[str]) -> None:
        for line in stream:
            self._lines.put(line.rstrip("\r\n"))
        self._lines.put(_EOF)

    def get(self, timeout_s: float) -> str | None:
        """The next line; None when none came within ``timeout_s``.

        Raises:
            EOFError: the stream is closed (and every line was read).
        """
        if self._closed:
            raise EOFError
        try:
            line = self._lines.get(timeout=max(0.0, timeout_s))
        except queue.Empty:
            return None
        if line is _EOF:
            self._closed = True
            raise EOFError
        assert isinstance(line, str)
        return line


def choices(legal: Sequence[LegalAction]) -> list[str]:
    """The numbered options' texts, in the order of ``legal``."""
    out = []
    for entry in legal:
        if isinstance(entry, EnvidoRange):
            top = "∞" if entry.max_amount is None else entry.max_amount
            out.append(f"envido N ({entry.min_amount}..{top}): type the number and N, or envido N")
        elif isinstance(entry, DiscardRange):
            out.append(f"discard {entry.min_count}-{entry.max_count} cards: type the number and the cards' positions "
                       "(1-4), or discard CARDS")
        else:
            out.append(str(entry))
    return out


def parse_answer(text: str, view: Observation) -> Decision:
    """A typed answer: an option's number (with an amount for an envido, the cards'
    positions for a discard) or an action in the log's notation (``envido 5``,
    ``discard Ro 7c``, ``p``, ``q``), then optionally ``+SEÑA`` (``+dos_reyes``).

    Raises:
        ValueError: the answer is not one of the legal actions, or names no seña it may give.
    """
    words = text.split()
    sena: Sena | None = None
    if words and words[-1].startswith("+"):
        name = words.pop()[1:].upper()
        if name not in Sena.__members__ or Sena[name] not in view.legal_senas:
            raise ValueError(f"no seña {name.lower()!r} now; you may give: "
                             + (", ".join(s.name.lower() for s in view.legal_senas) or "none"))
        sena = Sena[name]
    if not words:
        raise ValueError("type the number of an option")
    legal = view.legal_actions
    action: Action
    if words[0].isdigit():
        k = int(words[0])
        if not 1 <= k <= len(legal):
            raise ValueError(f"choose an option from 1 to {len(legal)}")
        entry = legal[k - 1]
        if isinstance(entry, EnvidoRange):
            if len(words) != 2 or not words[1].isdigit():
                raise ValueError(f"{k} needs an amount: {k} {entry.min_amount}")
            action = envido(int(words[1]))
        elif isinstance(entry, DiscardRange):
            cards = sorted(view.cards)
            try:
                picked = {cards[int(w) - 1] for w in words[1:] if 1 <= int(w) <= len(cards)}
            except ValueError:
                raise ValueError(f"{k} needs the positions (1-4) of the cards to discard: {k} 1 3") from None
            if len(picked) != len(words) - 1 or not picked:
                raise ValueError(f"{k} needs the positions (1-4) of the cards to discard: {k} 1 3")
            action = discard(picked)
        else:
            if len(words) != 1:
                raise ValueError(f"{k} takes nothing more")
            action = entry
    else:
        action = Action.parse(" ".join(words))
    if not is_in(action, legal):
        raise ValueError(f"{action} is not legal now")
    return Decision(action, sena)


def render_view(view: Observation, names: tuple[str, ...]) -> list[str]:
    """The seat's view as lines: the hand, its cards, the hand so far, the bet, the legal options."""
    s, team = view.seat, view.team
    partner = " and ".join(f"S{p}" for p in range(team, view.num_seats, 2) if p != s)
    cards = sorted(view.cards)
    lines = [
        f"── hand {view.hand} (game {view.game}) · you are S{s} (T{team}" + (f", with {partner}" if partner else "")
        + f") · dealer S{view.dealer} · mano S{view.mano}",
        f"   scores: T0 {view.scores[0]} – T1 {view.scores[1]} · games {view.games_won[0]}-{view.games_won[1]}"
        + f" · seats: {', '.join(f'S{i} {n}' for i, n in enumerate(names))}",
        "   your cards: " + "  ".join(f"{i}:{format_cards([c])}" for i, c in enumerate(cards, start=1)),
    ]
    # The hand so far, a line per round or lance (a new one where betting opens or cards are replaced).
    segment: list[str] = []
    for ev in view.history:
        if ev.kind in (EventKind.LANCE_START, EventKind.REPLACEMENTS) and segment:
            lines.append("   | " + " · ".join(segment))
            segment = []
        segment.append(event_text(ev))
    if segment:
        lines.append("   | " + " · ".join(segment))
    if view.bet is not None:
        lines.append(f"   on the table: {bet_text(view.bet)}")
    where = view.lance.name.lower() if view.lance is not None else view.phase.name.lower()
    lines.append(f"   {where}: your turn")
    for k, text in enumerate(choices(view.legal_actions), start=1):
        lines.append(f"   {k}) {text}")
    if view.legal_senas:
        lines.append("   señas you may give with it (add +NAME): " + ", ".join(x.name.lower() for x in view.legal_senas))
    return lines


class HumanPlayer:
    """A seat played by a person: shows the view with ``write`` (a line) and ``prompt`` (no
    new line), reads answers from ``reader``."""

    def __init__(self, reader: LineReader, write: Callable[[str], None], prompt: Callable[[str], None],
                 name: str = "you", clock: Callable[[], float] = time.monotonic) -> None:
        self.name = name
        self._reader = reader
        self._write = write
        self._prompt = prompt
        self._clock = clock
        self._names: tuple[str, ...] = ()

    def start_match(self, info: MatchStartInfo) -> None:
        """Say who sits where and how long a decision may take."""
        self._names = info.seat_names
        self._write(f"match {info.match_id}: you are S{info.seat}; "
                    + ", ".join(f"S{i} {n}" for i, n in enumerate(info.seat_names))
                    + f"; {info.rules.target_points} stones a game, {info.rules.games_to_win} game(s) to win;"
                    + f" {info.decision_ms / 1000:.0f} s a decision, then the referee plays the default for you")

    def decide(self, view: Observation, request_id: int, timing: DecisionTiming) -> Decision:
        """Show the view and the options; the first legal answer typed before the deadline."""
        for line in render_view(view, self._names):
            self._write(line)
        deadline = self._clock() + timing.deadline_s
        while True:
            self._prompt(f"your answer (1-{len(view.legal_actions)}) > ")
            try:
                text = self._reader.get(deadline - self._clock())
            except EOFError:
                self._write("")  # after the prompt, on a line of its own
                raise InputClosed("the input ended") from None
            if text is None:
                self._write("time is up: the referee plays the default for you (a timeout fault)")
                raise BotFault(FaultKind.TIMEOUT, f"no answer in {timing.deadline_s:.0f} s")
            try:
                return parse_answer(text, view)
            except ValueError as exc:
                self._write(f"   {exc}")

    def hand_end(self, result: HandResult) -> None:
        """The count, lance by lance, and every hand shown."""
        self._write(format_result(result))

    def end_match(self, info: MatchEndInfo) -> None:
        """Who won."""
        winner = "nobody" if info.winner_team is None else f"team {info.winner_team}"
        self._write(f"match over: {winner} wins, games {info.games_won[0]}-{info.games_won[1]} ({info.reason.value}"
                    + (f": {info.detail}" if info.detail else "") + ")")
