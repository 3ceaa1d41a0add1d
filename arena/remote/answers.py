"""A bot's answer, as the arena reads it: parsed, checked against the request asked, or
a fault.

Everything a bot can send wrong becomes a :class:`~arena.referee.player.BotFault`: an
unreadable answer (MALFORMED), another request's id (WRONG_REQUEST), and the bot's own
report that it failed, a ``BotError`` answer (BOT_ERROR, at once;
:func:`~arena.remote.untrusted.error_report` makes what it says printable and short). A
late answer to an earlier, timed-out request is skipped, and so is an answer to a
request that was already charged as WRONG_REQUEST: their ids are in the ``stale`` set
the caller keeps for the match.
"""

from __future__ import annotations

from mus.v1 import bot_service_pb2 as svc

from arena.referee.player import BotFault, Decision, FaultKind
from arena.remote.untrusted import error_report
from arena.wire import convert as wire


def decision_in(raw: bytes, request_id: int, stale: set[int]) -> Decision | None:
    """The decision in ``raw`` (a serialized ``PlayResponse``) answering ``request_id``,
    or None for a stale answer to skip (its id is taken out of ``stale``).

    Raises:
        BotFault: MALFORMED, WRONG_REQUEST (``request_id`` then joins ``stale``: the bot
            may still answer it) or BOT_ERROR.
    """
    try:
        message = svc.PlayResponse.FromString(raw)
    except Exception:  # protobuf's DecodeError: not a PlayResponse at all
        raise BotFault(FaultKind.MALFORMED, f"the answer does not parse ({len(raw)} bytes)") from None
    which = message.WhichOneof("message")
    if which == "decision":
        d = message.decision
    elif which == "error":
        d = message.error  # "I failed": charged below, once its id is checked
    else:
        raise BotFault(FaultKind.MALFORMED, "the answer holds no decision")
    if d.request_id != request_id:
        if d.request_id in stale:
            stale.discard(d.request_id)  # a late answer to a timed-out request
            return None
        # The bot may still answer this request: that answer will be stale too.
        stale.add(request_id)
        raise BotFault(FaultKind.WRONG_REQUEST, f"answered request {d.request_id}, asked {request_id}")
    if which == "error":
        raise BotFault(FaultKind.BOT_ERROR, error_report(d.error_type, d.message, d.traceback))
    try:
        action = wire.action_from_pb(d.action)
        sena = wire.sena_from_pb(d.sena) if d.HasField("sena") else None
    except wire.WireError as exc:
        raise BotFault(FaultKind.MALFORMED, str(exc)) from None
    return Decision(action, sena)
