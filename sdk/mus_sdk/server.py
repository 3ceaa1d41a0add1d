"""Serving a :class:`~mus_sdk.Bot` over gRPC: the go-plugin style process contract.

:func:`serve` is what a bot file calls last. It checks the arena's cookie, negotiates
the protocol version, binds ``127.0.0.1:0`` (or a unix socket in
``$MUS_ARENA_SOCKET_DIR``), prints the announce line, and serves ``mus.v1.BotService``
until the arena calls ``Shutdown`` (or sends SIGTERM, or goes away).

:class:`BotServicer` and :func:`start_server` are public so that tests and the arena
can host a bot in a thread of their own process.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
import traceback
from collections.abc import Callable, Iterator
from concurrent import futures
from typing import Any, NoReturn

import grpc  # type: ignore[import-untyped]  # grpcio ships no stubs
from mus.v1 import bot_service_pb2 as svc_pb
from mus.v1 import bot_service_pb2_grpc as svc_grpc

from mus_sdk import handshake
from mus_sdk._version import SDK_ID
from mus_sdk.bot import Bot, split_decision
from mus_sdk.convert import (
    bot_info_to_proto,
    fill_action,
    hand_summary_from_proto,
    match_info_from_proto,
    match_result_from_proto,
    observation_from_proto,
)
from mus_sdk.protomap import TO_PROTO

__all__ = ["BotServicer", "error_response", "serve", "start_server"]

_NOT_FROM_ARENA = """\
This is a mus-arena bot ({name}). It is meant to be started by the arena, which
connects to it over gRPC, not run by hand. Run it with `mus match ...` (see
docs/sdk.md), or test it in-process by calling its decide() method directly.
"""


class BotServicer(svc_grpc.BotServiceServicer):
    """The ``mus.v1.BotService`` implementation around one :class:`Bot`.

    It only translates: protobuf in, SDK values to the bot's methods, protobuf out. An
    exception in bot code is printed to stderr and never kills the server. A failed
    decision (``decide()`` raised, or what it returned cannot be sent) is answered with a
    ``BotError`` naming the exception's type, message and traceback
    (:func:`error_response`): the arena charges the fault at once, instead of waiting
    for the deadline, and shows why.
    """

    def __init__(self, bot: Bot, on_shutdown: Callable[[], None] | None = None) -> None:
        self._bot = bot
        self._on_shutdown = on_shutdown
        # Serialises bot calls if the arena ever opens several streams to one process;
        # uncontended, it costs well under a microsecond per decision.
        self._lock = threading.Lock()
        # Converting a notification costs ~50 µs of the bot's CPU; skip it for hooks the
        # bot does not override (most bots ignore the hand ends).
        self._hooked = {name: _overrides(bot, name) for name in ("on_match_start", "on_hand_end", "on_match_end")}

    def GetInfo(
        self, request: svc_pb.GetInfoRequest, context: grpc.ServicerContext
    ) -> svc_pb.GetInfoResponse:
        """Answers with the bot's info, the protocol versions of this SDK, and whether it
        wants hand ends (only if it overrides ``on_hand_end``)."""
        try:
            info = self._bot.info()
        except Exception:
            _report("info()")
            context.abort(grpc.StatusCode.INTERNAL, "the bot's info() raised; see its stderr")
        response = bot_info_to_proto(info, handshake.SUPPORTED_APP_PROTOCOL_VERSIONS, SDK_ID)
        # A bot without its own on_hand_end would drop every hand end unread: ask the
        # arena not to send them (a message per hand saved on both sides).
        response.skip_hand_ends = not self._hooked["on_hand_end"]
        return response

    def Play(
        self, request_iterator: Iterator[svc_pb.PlayRequest], context: grpc.ServicerContext
    ) -> Iterator[svc_pb.PlayResponse]:
        """Plays one match: answers each decision request, calls hooks on notifications."""
        bot = self._bot
        lock = self._lock
        PlayResponse = svc_pb.PlayResponse
        for request in request_iterator:
            which = request.WhichOneof("message")
            if which == "decision_request":
                msg = request.decision_request
                try:
                    obs = observation_from_proto(msg)
                    with lock:
                        decision = bot.decide(obs)
                    action, sena = split_decision(decision)
                    response = PlayResponse()
                    out = response.decision
                    out.request_id = msg.request_id
                    fill_action(out.action, action)
                    if sena is not None:
                        out.sena = TO_PROTO[sena]
                except Exception as exc:
                    _report(f"decide() for request {msg.request_id}")
                    # Say "I failed" rather than stay silent: the arena charges the
                    # fault now (not at the deadline) and shows the exception.
                    try:
                        response = error_response(msg.request_id, exc)
                    except Exception:  # e.g. a MemoryError again: the deadline will tell
                        continue
                yield response
            elif which == "match_start":
                self._hook("on_match_start", match_info_from_proto, request.match_start)
            elif which == "hand_end":
                self._hook("on_hand_end", hand_summary_from_proto, request.hand_end)
            elif which == "match_end":
                self._hook("on_match_end", match_result_from_proto, request.match_end)
            # An unknown message comes from a newer arena: ignore it (forward compatibility).

    def _hook(self, name: str, convert: Callable[[Any], Any], msg: Any) -> None:
        """Convert ``msg`` and pass it to the bot's ``name`` hook, if the bot has its own."""
        if not self._hooked[name]:
            return
        try:
            value = convert(msg)
            with self._lock:
                getattr(self._bot, name)(value)
        except Exception:
            _report(f"{name}()")

    def Shutdown(
        self, request: svc_pb.ShutdownRequest, context: grpc.ServicerContext
    ) -> svc_pb.ShutdownResponse:
        """Answers, then asks the serving loop to stop and exit."""
        if self._on_shutdown is not None:
            self._on_shutdown()
        return svc_pb.ShutdownResponse()


def _overrides(bot: Bot, name: str) -> bool:
    """Whether ``bot`` has its own ``name`` method (in its class or set on the instance)."""
    return name in vars(bot) or getattr(type(bot), name, None) is not getattr(Bot, name)


ERROR_TYPE_CHARS = 200
"""Longest exception type name sent in a ``BotError`` (the arena shows at most 100)."""
ERROR_MESSAGE_CHARS = 2000
"""Longest exception message sent in a ``BotError`` (the arena shows at most 500)."""
TRACEBACK_FRAMES = 20
"""Innermost frames sent in a ``BotError``'s traceback (the arena shows a few lines)."""
TRACEBACK_LINE_CHARS = 300
"""Longest line of a ``BotError``'s traceback."""


def error_response(request_id: int, exc: BaseException) -> svc_pb.PlayResponse:
    """The ``PlayResponse`` that tells the arena the decision of ``request_id`` failed
    with ``exc``: its type, message and traceback, each capped (a bot's answer must stay
    well under the arena's 1 MiB message limit whatever the exception holds).

    The traceback lists the innermost :data:`TRACEBACK_FRAMES` frames, outermost first as
    Python prints them, two lines a frame (``File "…", line N, in f`` and the source
    line), without the SDK's own frame in this module: it starts at the bot's ``decide``.
    """
    response = svc_pb.PlayResponse()
    error = response.error
    error.request_id = request_id
    error.error_type = type(exc).__qualname__[:ERROR_TYPE_CHARS]
    try:
        error.message = str(exc)[:ERROR_MESSAGE_CHARS]
    except Exception:  # a bot's exception whose __str__ fails: its type must still go out
        error.message = "(str() of the exception raised)"
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename != __file__]
    lines: list[str] = []
    for frame in frames[-TRACEBACK_FRAMES:]:
        lines.append(f'File "{frame.filename}", line {frame.lineno}, in {frame.name}'[:TRACEBACK_LINE_CHARS])
        if frame.line:
            lines.append(f"  {frame.line.strip()}"[:TRACEBACK_LINE_CHARS])
    error.traceback = "\n".join(lines)
    return response


def _report(what: str) -> None:
    """Print the current exception to stderr; the arena drains it into the bot's log."""
    sys.stderr.write(f"mus_sdk: exception in bot {what}:\n{traceback.format_exc()}")
    sys.stderr.flush()


def start_server(
    bot: Bot,
    *,
    socket_dir: str | None = None,
    max_workers: int = 4,
    on_shutdown: Callable[[], None] | None = None,
) -> tuple[grpc.Server, handshake.Announce]:
    """Start a gRPC server for ``bot`` on ``127.0.0.1:0`` or a unix socket in ``socket_dir``.

    Returns the started server and its announce value (``announce.target`` is the
    channel target). The caller stops the server (``server.stop(grace)``) and, for a
    unix socket, removes the socket file at ``announce.address``.

    Raises:
        RuntimeError: the address could not be bound (the kernel gave port 0, the socket
            path is too long, or the directory does not exist).
    """
    # A few workers suffice: one per open Play stream plus the odd unary call.
    pool = futures.ThreadPoolExecutor(max_workers=max_workers, thread_name_prefix="mus-bot")
    options: list[tuple[str, Any]] = [("grpc.so_reuseport", 0)]
    server = grpc.server(pool, options=options)
    svc_grpc.add_BotServiceServicer_to_server(BotServicer(bot, on_shutdown), server)  # type: ignore[no-untyped-call]
    if socket_dir:
        path = os.path.join(os.path.abspath(socket_dir), f"mus-bot-{os.getpid()}-{id(server):x}.sock")
        if len(path.encode()) > 100:  # sun_path is 108 bytes on Linux, 104 on macOS
            raise RuntimeError(f"unix socket path too long ({len(path)} bytes): {path}")
        if os.path.exists(path):
            os.unlink(path)
        server.add_insecure_port(f"unix:{path}")  # raises RuntimeError on failure
        announce = handshake.Announce(
            handshake.CORE_PROTOCOL_VERSION, handshake.APP_PROTOCOL_VERSION, handshake.NETWORK_UNIX, path
        )
    else:
        port = server.add_insecure_port("127.0.0.1:0")
        if not port:  # grpc reports some bind failures as port 0 (grpc issue #13096)
            raise RuntimeError("could not bind 127.0.0.1:0")
        announce = handshake.Announce(
            handshake.CORE_PROTOCOL_VERSION,
            handshake.APP_PROTOCOL_VERSION,
            handshake.NETWORK_TCP,
            f"127.0.0.1:{port}",
        )
    server.start()
    return server, announce


def serve(bot: Bot, *, max_workers: int = 4) -> NoReturn:
    """Serve ``bot`` to the arena that started this process; never returns.

    Steps (the go-plugin contract): check :data:`~mus_sdk.handshake.COOKIE_ENV` (without it, print
    a friendly message and exit 1); pick the newest protocol version both sides speak
    (exit 1 if none); ignore SIGINT, since the arena owns the process's lifetime; bind
    and print the announce line to stdout; serve until ``Shutdown``, SIGTERM, or the
    parent process going away; then stop gracefully and exit 0.
    """
    env = os.environ
    if env.get(handshake.COOKIE_ENV) != handshake.COOKIE_VALUE:
        sys.stderr.write(_NOT_FROM_ARENA.format(name=_safe_name(bot)))
        sys.exit(1)
    try:
        version = handshake.negotiate(handshake.parse_versions(env.get(handshake.PROTOCOL_VERSIONS_ENV)))
    except handshake.HandshakeError as exc:
        sys.stderr.write(f"mus_sdk: {exc}\n")
        sys.exit(1)

    stop = threading.Event()
    terminated: list[int] = []
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # The handler must take no lock: it runs on the main thread between two bytecodes,
    # possibly while that thread holds stop's lock inside stop.wait(), and stop.set()
    # would then deadlock (seen in CI: a bot that never exited on SIGTERM).
    signal.signal(signal.SIGTERM, lambda signum, frame: terminated.append(signum))
    try:
        server, announce = start_server(
            bot,
            socket_dir=env.get(handshake.SOCKET_DIR_ENV) or None,
            max_workers=max_workers,
            on_shutdown=stop.set,
        )
    except RuntimeError as exc:
        sys.stderr.write(f"mus_sdk: cannot serve: {exc}\n")
        sys.exit(1)
    line = handshake.format_line(announce.network, announce.address, app_version=version)
    sys.stdout.write(line + "\n")
    sys.stdout.flush()

    parent = os.getppid()
    # Poll instead of blocking forever: SIGTERM only sets a flag (see above), and an
    # orphaned bot (arena killed with SIGKILL) must notice its parent is gone.
    while not terminated and not stop.wait(0.1):
        if os.getppid() != parent:
            break
    server.stop(grace=1.0).wait(3.0)
    if announce.network == handshake.NETWORK_UNIX:
        try:
            os.unlink(announce.address)
        except OSError:
            pass
    # The server is stopped. Leave now: the interpreter's normal exit joins the gRPC
    # worker threads, which can take seconds (or forever, with a decide() stuck in bot
    # code). Run the bot's atexit handlers ourselves, flush, and exit at once.
    import atexit

    # A handler that blocks (a bot's own, or a library's) must not keep us alive.
    watchdog = threading.Timer(2.0, os._exit, args=(0,))
    watchdog.daemon = True
    watchdog.start()
    atexit._run_exitfuncs()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


def _safe_name(bot: Bot) -> str:
    try:
        return bot.info().name
    except Exception:
        return type(bot).__name__
