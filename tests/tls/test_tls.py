"""Remote bots over TLS and mutual TLS (certificates made with openssl for the test)."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Iterator
from concurrent import futures
from pathlib import Path

import grpc
import pytest
from mus.v1 import bot_service_pb2_grpc as svc_grpc
from mus_core import Rules
from mus_sdk import NO_MUS, NO_QUIERO, PASO, Bot, BotServicer, Observation

from arena.driver.match import MatchConfig, play_match
from arena.players.inprocess import InProcessBot
from arena.referee.player import SyncAdapter
from arena.remote.client import RemoteBot
from arena.remote.manifest import BotAddress, ManifestError, load_spec
from arena.remote.process import BotStartError


class Passive(Bot):
    """Cuts the mus, passes, declines."""

    name = "passive"

    def decide(self, obs: Observation):  # type: ignore[no-untyped-def]
        for a in (NO_MUS, PASO, NO_QUIERO):
            if a in obs.legal_actions:
                return a
        return obs.legal_actions.fixed[0]


def _openssl(*args: str, cwd: Path) -> None:
    subprocess.run(["openssl", *args], cwd=cwd, check=True, capture_output=True)


@pytest.fixture(scope="module")
def pki(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A CA, a server certificate for localhost, and a client certificate."""
    if shutil.which("openssl") is None:
        pytest.fail("openssl is needed for the TLS tests: apt-get install openssl")
    d = tmp_path_factory.mktemp("pki")
    _openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out", "ca.pem",
             "-days", "2", "-subj", "/CN=mus-test-ca", cwd=d)
    for who, cn in (("server", "localhost"), ("client", "mus-arena")):
        _openssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", f"{who}.key", "-out", f"{who}.csr",
                 "-subj", f"/CN={cn}", cwd=d)
        (d / f"{who}.ext").write_text("subjectAltName=DNS:localhost,IP:127.0.0.1\n")
        _openssl("x509", "-req", "-in", f"{who}.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial",
                 "-out", f"{who}.pem", "-days", "2", "-extfile", f"{who}.ext", cwd=d)
    return d


def _server(pki: Path, mutual: bool) -> tuple[grpc.Server, int]:
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
    svc_grpc.add_BotServiceServicer_to_server(BotServicer(Passive()), server)  # type: ignore[no-untyped-call]
    creds = grpc.ssl_server_credentials(
        [((pki / "server.key").read_bytes(), (pki / "server.pem").read_bytes())],
        root_certificates=(pki / "ca.pem").read_bytes() if mutual else None,
        require_client_auth=mutual,
    )
    port = server.add_secure_port("127.0.0.1:0", creds)
    server.start()
    return server, port


@pytest.fixture(params=[False, True], ids=["tls", "mutual-tls"])
def tls_bot(request: pytest.FixtureRequest, pki: Path, tmp_path: Path) -> Iterator[tuple[Path, bool]]:
    server, port = _server(pki, request.param)
    manifest = tmp_path / "bot.toml"
    lines = ['name = "far"', f'address = "localhost:{port}"', "[tls]", f'ca = "{pki / "ca.pem"}"']
    if request.param:
        lines += [f'cert = "{pki / "client.pem"}"', f'key = "{pki / "client.key"}"']
    manifest.write_text("\n".join(lines) + "\n")
    yield manifest, request.param
    server.stop(0)


def test_a_match_over_tls(tls_bot: tuple[Path, bool], tmp_path: Path) -> None:
    """A remote bot reached over TLS (and mutual TLS) plays a whole match without a fault."""
    manifest, _ = tls_bot
    spec = load_spec(manifest)
    assert isinstance(spec, BotAddress) and spec.tls is not None
    remote = RemoteBot(spec, tmp_path, "far")
    remote.connect()
    try:
        players = [remote, *(SyncAdapter(InProcessBot(Passive())) for _ in range(3))]
        result = play_match(players, MatchConfig(rules=Rules(games_to_win=1), seed=3))
    finally:
        remote.close()
    assert result.reason.value == "completed" and not result.faults
    assert result.seats[0].decisions > 0


def test_mutual_tls_refuses_a_client_without_certificate(pki: Path, tmp_path: Path) -> None:
    """With client authentication required, an arena without a client certificate cannot connect."""
    server, port = _server(pki, mutual=True)
    manifest = tmp_path / "bot.toml"
    manifest.write_text(f'name = "far"\naddress = "localhost:{port}"\n[tls]\nca = "{pki / "ca.pem"}"\n')
    try:
        with pytest.raises(BotStartError, match="does not answer GetInfo"):
            RemoteBot(load_spec(manifest), tmp_path, "far").connect(info_timeout_s=2.0)
    finally:
        server.stop(0)


def test_tls_manifest_errors(tmp_path: Path, pki: Path) -> None:
    """A remote-bot manifest names its bad field."""
    m = tmp_path / "bot.toml"
    m.write_text('name = "far"\naddress = "localhost:1"\n[tls]\ncert = "x.pem"\n')
    with pytest.raises(ManifestError, match=r"tls\.cert"):
        load_spec(m)
    m.write_text(f'name = "far"\naddress = "localhost:1"\n[tls]\nca = "{pki / "ca.pem"}"\ncert = "{pki / "client.pem"}"\n')
    with pytest.raises(ManifestError, match="both cert and key"):
        load_spec(m)
    m.write_text('name = "far"\naddress = "not an address"\n')
    with pytest.raises(ManifestError, match="field address"):
        load_spec(m)
