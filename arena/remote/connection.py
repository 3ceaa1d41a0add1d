"""The connection to one bot: its process (for a manifest), its gRPC channel (plain or
TLS), the ``GetInfo`` handshake, and the ``Shutdown`` at the end.

A bot given by a manifest is started (:class:`~arena.remote.process.BotProcess`) and
reached at the address it announces; a bot given by an address (maybe over TLS) is
only reached. Either way ``GetInfo`` tells that it is ready. Stopping asks the bot to
shut down, closes the channel and stops the process.
"""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import grpc  # type: ignore[import-untyped]
from mus.v1 import bot_service_pb2 as svc
from mus.v1 import bot_service_pb2_grpc as svc_grpc
from mus_sdk import handshake

from arena.remote.inbox import MAX_MESSAGE_BYTES
from arena.remote.manifest import BotAddress, BotManifest, BotSpec
from arena.remote.process import BotProcess, BotStartError
from arena.remote.untrusted import printable

SHUTDOWN_TIMEOUT_S = 1.0
"""How long a bot has to answer ``Shutdown``."""
SHUTDOWN_GRACE_S = 2.0
"""How long a bot that answered ``Shutdown`` has to exit before SIGTERM (then SIGKILL)."""
_STOPPER = ThreadPoolExecutor(max_workers=256, thread_name_prefix="mus-bot-stop")
"""Where bot processes are waited for as they stop: many at once
(:func:`arena.remote.client.close_bots`), so that n bots that will not exit cost one
grace period, not n."""


class Connection:
    """A bot's process and channel. Not thread-safe: one event loop uses it."""

    def __init__(self, spec: BotSpec, log_dir: Path, label: str, *, start_timeout_s: float = 10.0,
                 unix_socket: bool = True, max_message_bytes: int = MAX_MESSAGE_BYTES,
                 sandbox: str = "default") -> None:
        self.spec = spec
        self.name = spec.name
        """The bot's name: the manifest's, or what a bot at an address says it is."""
        self.label = label
        self.log_dir = log_dir
        self.start_timeout_s = start_timeout_s
        self.unix_socket = unix_socket
        """Whether the bot is offered a private unix socket directory (else it binds TCP);
        always under the strict sandbox."""
        self.max_message_bytes = max_message_bytes
        self.sandbox = sandbox
        """The isolation profile of the bot's process (:mod:`arena.remote.sandbox`)."""
        self.process: BotProcess | None = None
        self.info: svc.GetInfoResponse | None = None
        self.channel: Any = None
        """The gRPC channel to the bot (None before :meth:`connect` and after :meth:`close`)."""
        self._stub: Any = None

    def launch(self) -> None:
        """Start the bot's process without waiting for it (several bots start at once);
        :meth:`connect` then waits. Nothing to do for a bot at an address.

        Raises:
            BotStartError: the command cannot be run.
        """
        if isinstance(self.spec, BotManifest) and self.process is None:
            process = BotProcess(self.spec, self.log_dir, self.label, sandbox=self.sandbox,
                                 unix_socket=self.unix_socket)
            process.spawn()
            self.process = process

    async def connect(self, info_timeout_s: float) -> svc.GetInfoResponse:
        """Start the process (for a manifest), open the channel and ask ``GetInfo``.

        Raises:
            BotStartError: the bot did not start, or does not answer ``GetInfo``.
        """
        if isinstance(self.spec, BotManifest):
            self.launch()
            assert self.process is not None
            self.process.wait_announce(self.start_timeout_s)
            assert self.process.target is not None
            target = self.process.target
        else:
            assert isinstance(self.spec, BotAddress)
            target = self.spec.target
        self.channel = self._open_channel(target)
        self._stub = svc_grpc.BotServiceStub(self.channel)  # type: ignore[no-untyped-call]
        call = self._stub.GetInfo(
            svc.GetInfoRequest(protocol_versions=list(handshake.SUPPORTED_APP_PROTOCOL_VERSIONS)),
            timeout=info_timeout_s,
            wait_for_ready=True,
        )
        try:
            info: svc.GetInfoResponse = await self._until_exit(call)
        except (grpc.RpcError, BotStartError) as exc:
            process = self.process
            why = f"does not answer GetInfo: {exc.code().name}" if isinstance(exc, grpc.RpcError) else str(exc)
            await self.close()
            tail = process.stderr_text() if process is not None else ""  # stderr head and tail, made printable
            raise BotStartError(f"bot {self.name} at {printable(target, 200)} {why}{tail}") from None
        self.info = info
        if isinstance(self.spec, BotAddress) and info.name:
            info.name = printable(info.name, 100)  # shown in standings and on the console
            self.name = info.name
        if info.version:
            info.version = printable(info.version, 100)
        return info

    def _open_channel(self, target: str) -> Any:
        """A ``grpc.aio`` channel to ``target``: TLS if the bot's address asks for it."""
        options: list[tuple[str, Any]] = [
            ("grpc.max_receive_message_length", self.max_message_bytes),
            ("grpc.max_send_message_length", 16 * 1024 * 1024),
            ("grpc.enable_http_proxy", 0),
        ]
        tls = self.spec.tls if isinstance(self.spec, BotAddress) else None
        if tls is None:
            return grpc.aio.insecure_channel(target, options=options)
        creds = grpc.ssl_channel_credentials(
            root_certificates=tls.ca.read_bytes(),
            private_key=tls.key.read_bytes() if tls.key else None,
            certificate_chain=tls.cert.read_bytes() if tls.cert else None,
        )
        if tls.server_name:
            options.append(("grpc.ssl_target_name_override", tls.server_name))
        return grpc.aio.secure_channel(target, creds, options=options)

    async def _until_exit(self, call: Any) -> Any:
        """The answer of ``call``, unless the bot's process exits first: then a
        BotStartError with its exit code at once (a dead bot is not waited for until
        the readiness timeout)."""
        if self.process is None:
            return await call
        task = asyncio.ensure_future(call)
        while True:
            done, _ = await asyncio.wait({task}, timeout=0.05)
            if done:
                return task.result()
            if not self.process.alive():
                task.cancel()
                code = self.process.proc.returncode if self.process.proc else None
                raise BotStartError(f"exited with code {code} before answering GetInfo")

    async def close(self) -> None:
        """Ask the bot to shut down, close the channel, and stop the process. Idempotent."""
        agreed = False
        if self._stub is not None and self.process is not None and self.process.alive():
            try:
                await self._stub.Shutdown(svc.ShutdownRequest(), timeout=SHUTDOWN_TIMEOUT_S)
                agreed = True
            except (TimeoutError, grpc.RpcError):
                pass
        if self.channel is not None:
            await self.channel.close()
            self.channel = None
            self._stub = None
        if self.process is not None:
            # A bot that answered Shutdown gets the grace period to exit; one that did not
            # answer it (it hung, or refused) would only make the league wait longer.
            grace = SHUTDOWN_GRACE_S if agreed else 0.0
            await asyncio.get_running_loop().run_in_executor(_STOPPER, self.process.stop, grace)

    async def request_shutdown(self, timeout_s: float) -> None:
        """Call the bot's ``Shutdown`` RPC (and nothing else: the process is not stopped).

        Raises:
            RuntimeError: not connected.
            grpc.RpcError: the call failed or timed out.
        """
        if self._stub is None:
            raise RuntimeError("not connected")
        await self._stub.Shutdown(svc.ShutdownRequest(), timeout=timeout_s)

    def exit_note(self) -> str:
        """``"process exited with code N; "`` if the bot's process has exited, else ``""``."""
        if self.process is None or self.process.alive():
            return ""
        code = self.process.proc.returncode if self.process.proc else None
        return f"process exited with code {code}; "
