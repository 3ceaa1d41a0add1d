"""The announce line and the handshake environment (go-plugin contract)."""

from __future__ import annotations

import pytest
from mus_sdk import handshake as hs


class TestFormatAndParse:
    def test_tcp_round_trip(self) -> None:
        """A formatted TCP line parses back to the same address and versions."""
        line = hs.format_line("tcp", "127.0.0.1:41234")
        assert line == "1|1|tcp|127.0.0.1:41234|grpc"
        a = hs.parse_line(line + "\n")
        assert (a.core_version, a.app_version, a.network, a.address, a.protocol) == (
            1,
            1,
            "tcp",
            "127.0.0.1:41234",
            "grpc",
        )
        assert a.target == "127.0.0.1:41234"
        assert a.line() == line

    def test_unix_round_trip(self) -> None:
        """A unix line gives a unix: channel target."""
        a = hs.parse_line("1|1|unix|/tmp/x/bot.sock|grpc")
        assert a.network == "unix" and a.target == "unix:/tmp/x/bot.sock"

    def test_extra_trailing_fields_are_ignored(self) -> None:
        """Later handshake versions may append fields (go-plugin's SplitN lesson)."""
        a = hs.parse_line("1|1|tcp|127.0.0.1:5000|grpc|some-future-field|more")
        assert a.address == "127.0.0.1:5000"

    @pytest.mark.parametrize(
        "line",
        [
            "",
            "hello world",
            "1|1|tcp|127.0.0.1:5000",  # too few fields
            "x|1|tcp|127.0.0.1:5000|grpc",  # non-integer version
            "2|1|tcp|127.0.0.1:5000|grpc",  # unsupported core version
            "1|1|udp|127.0.0.1:5000|grpc",  # unknown network
            "1|1|tcp|127.0.0.1:5000|netrpc",  # unknown protocol
            "1|1|tcp|127.0.0.1|grpc",  # no port
            "1|1|tcp|127.0.0.1:0|grpc",  # port 0
            "1|1|tcp|127.0.0.1:99999|grpc",  # port out of range
            "1|1|unix|relative.sock|grpc",  # unix path not absolute
        ],
    )
    def test_malformed_lines_raise(self, line: str) -> None:
        """Malformed lines raise HandshakeError quoting the line."""
        with pytest.raises(hs.HandshakeError):
            hs.parse_line(line)

    def test_format_rejects_bad_input(self) -> None:
        """Unknown networks and addresses with separators are rejected."""
        with pytest.raises(hs.HandshakeError):
            hs.format_line("udp", "x:1")
        with pytest.raises(hs.HandshakeError):
            hs.format_line("tcp", "a|b:1")


class TestVersions:
    def test_parse_versions(self) -> None:
        """The env list parses; absent means the SDK's version."""
        assert hs.parse_versions("1,2, 3") == (1, 2, 3)
        assert hs.parse_versions(None) == (hs.APP_PROTOCOL_VERSION,)
        with pytest.raises(hs.HandshakeError):
            hs.parse_versions("1,x")

    def test_negotiate_picks_newest_common(self) -> None:
        """The newest version both sides speak wins."""
        assert hs.negotiate([1, 2, 3], [1, 2]) == 2

    def test_negotiate_mismatch(self) -> None:
        """No common version is a typed error with both lists."""
        with pytest.raises(hs.ProtocolVersionMismatch) as info:
            hs.negotiate([7], [1])
        assert info.value.offered == (7,) and info.value.supported == (1,)

    def test_handshake_env(self) -> None:
        """The arena's launch env carries the cookie, versions and the optional socket dir."""
        env = hs.handshake_env("/tmp/s")
        assert env[hs.COOKIE_ENV] == hs.COOKIE_VALUE
        assert env[hs.PROTOCOL_VERSIONS_ENV] == "1"
        assert env[hs.SOCKET_DIR_ENV] == "/tmp/s"
        assert hs.SOCKET_DIR_ENV not in hs.handshake_env()
