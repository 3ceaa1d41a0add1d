"""``BotError`` on the wire (issue 15 item 1): the SDK's answer for a decide() that
raised, as the arena reads it. It answers its request as a decision would (a stale one
is discarded, another id is WRONG_REQUEST); what it says reaches the hand log and the
console only made printable and capped, however much a bot sends."""

from __future__ import annotations

import pytest
from mus.v1 import bot_service_pb2 as svc
from mus_sdk.server import error_response

from arena.referee.player import BotFault, FaultKind
from arena.remote.answers import decision_in
from arena.remote.untrusted import ERROR_MESSAGE_CHARS, ERROR_TYPE_CHARS, TRACEBACK_LINE_CHARS, error_report


class Unlucky(Exception):
    pass


def raised() -> Unlucky:
    """An exception that was raised, with its traceback."""
    try:
        raise Unlucky("no luck\nat all")
    except Unlucky as exc:
        return exc


def wire(response: svc.PlayResponse) -> bytes:
    data: bytes = response.SerializeToString()
    return data


def check(data: bytes, request_id: int, stale: frozenset[int] = frozenset()) -> object:
    """What the arena makes of answer ``data`` to ``request_id``."""
    return decision_in(data, request_id, set(stale))


def test_the_sdk_error_is_a_bot_error_of_its_request() -> None:
    exc = raised()
    response = svc.PlayResponse.FromString(wire(error_response(42, exc)))
    assert response.WhichOneof("message") == "error"
    err = response.error
    assert (err.request_id, err.error_type, err.message) == (42, "Unlucky", "no luck\nat all")
    assert err.traceback.splitlines()[0].endswith(", in raised")
    with pytest.raises(BotFault) as fault:
        check(wire(error_response(42, exc)), 42)
    assert fault.value.kind is FaultKind.BOT_ERROR
    head, *trace = fault.value.detail.splitlines()
    assert head == "Unlucky: no luck at all"  # one line
    assert trace == ["    " + line for line in err.traceback.splitlines()]


def test_an_error_for_a_timed_out_request_is_discarded_and_another_id_is_wrong_request() -> None:
    data = wire(error_response(7, raised()))
    assert check(data, 9, stale=frozenset({7})) is None
    with pytest.raises(BotFault) as fault:
        check(data, 9)
    assert fault.value.kind is FaultKind.WRONG_REQUEST


def test_what_a_bot_says_is_made_printable_and_capped() -> None:
    hostile = svc.BotError(
        request_id=1,
        error_type="\x1b]0;owned\x07Oops" + "T" * 10_000,
        message="\x1b[2J" + "m" * 2_000_000,
        traceback="\n".join(f"line {i} \x1b[31mred\x1b[0m " + "x" * 1000 for i in range(1, 1001)),  # 1 MB
    )
    detail = bot_error_detail(svc.PlayResponse.FromString(wire(svc.PlayResponse(error=hostile))).error)
    assert "\x1b" not in detail and "\x07" not in detail
    head, *trace = detail.splitlines()
    kind, message = head.split(": ", 1)
    assert kind.startswith("\\x1b]0;owned\\x07Oops") and len(kind) <= ERROR_TYPE_CHARS + 20
    assert message.startswith("\\x1b[2J") and len(message) <= ERROR_MESSAGE_CHARS + 20
    assert [line.split()[:2] for line in trace] == [
        ["line", "1"], ["line", "2"], ["…", "(about"], ["line", "997"], ["line", "998"], ["line", "999"], ["line", "1000"],
    ]
    assert all(len(line) <= 4 + TRACEBACK_LINE_CHARS + 40 for line in trace)
    assert len(detail) < 3000


def test_a_long_traceback_keeps_its_first_and_last_lines() -> None:
    err = svc.BotError(request_id=1, error_type="RecursionError", traceback="\n".join(f"frame {i}" for i in range(20)))
    assert bot_error_detail(err).splitlines() == [
        "RecursionError", "    frame 0", "    frame 1", "    … (14 lines left out)",
        "    frame 16", "    frame 17", "    frame 18", "    frame 19",
    ]
    # Short enough: all of it; nothing at all from a bot that sent only an error.
    assert bot_error_detail(svc.BotError(traceback="a\nb")).splitlines() == ["error", "    a", "    b"]


def bot_error_detail(error: svc.BotError) -> str:
    """The fault detail of a ``BotError`` answer, as the client builds it."""
    return error_report(error.error_type, error.message, error.traceback)
