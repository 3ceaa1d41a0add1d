"""The SDK needs only grpcio and protobuf: it imports nothing from the arena, and its
vocabulary package mus_core needs only the standard library."""

from __future__ import annotations

import ast
import subprocess
import sys
import sysconfig

from sdk_helpers import REPO


def test_sdk_imports_with_only_grpc_and_protobuf() -> None:
    """`python -I -S` with sys.path = [stdlib, sdk/, site-packages]: mus_sdk imports, arena does not.

    -S also skips .pth files, so the editable install of the arena is not on the path.
    """
    site = sysconfig.get_paths()["purelib"]
    plat = sysconfig.get_paths()["platlib"]
    code = f"""
import sys
stdlib = [p for p in sys.path if p.startswith(sys.base_prefix) and 'site-packages' not in p]
sys.path[:] = stdlib + [{str(REPO / "sdk")!r}, {site!r}, {plat!r}]
import mus_core, mus_sdk, mus_sdk.evaluate, mus_sdk.forward, mus.v1.bot_service_pb2_grpc
from mus_sdk import serve, Bot
assert mus_sdk.__file__.startswith({str(REPO / "sdk")!r}), mus_sdk.__file__
assert mus_core.__file__.startswith({str(REPO / "sdk")!r}), mus_core.__file__
assert not any(m == 'arena' or m.startswith('arena.') for m in sys.modules), 'arena imported'
third_party = {{m.split('.')[0] for m in sys.modules}} - set(sys.stdlib_module_names) - {{'__main__'}}
print(sorted(m for m in third_party if 'cython' not in m))
try:
    import arena
except ImportError:
    print('no arena')
"""
    out = subprocess.run([sys.executable, "-I", "-S", "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert "no arena" in out.stdout
    # Besides ours: grpcio and protobuf, grpcio's dependency typing_extensions, and
    # grpc_tools, which `import grpc` itself probes for when it happens to be installed.
    allowed = {"google", "grpc", "mus", "mus_core", "mus_sdk", "typing_extensions", "grpc_tools"}
    assert set(ast.literal_eval(out.stdout.splitlines()[0])) <= allowed


def test_mus_core_imports_with_the_standard_library_alone() -> None:
    """`python -I -S` with sys.path = [stdlib, sdk/]: mus_core and every module of it import
    (bot authors may vendor it; mus_sdk.evaluate is mus_core.evaluate)."""
    code = f"""
import sys
sys.path[:] = [p for p in sys.path if p.startswith(sys.base_prefix) and 'site-packages' not in p]
sys.path.append({str(REPO / "sdk")!r})
import mus_core, mus_core.actions, mus_core.cards, mus_core.errors, mus_core.evaluate, mus_core.events, mus_core.rules
import mus_core.state, mus_core.forward, mus_core.random_play, random
state = mus_core.state.MusState.new(mus_core.Rules(), seed=1)
mus_core.forward.play_out_hand(mus_core.forward.sample_state(state.view(0), random.Random(1)), random.Random(2))
assert mus_core.evaluate.evaluate(mus_core.parse_cards("Ro 3c Co Ab")).total == 31
print(sorted({{m.split('.')[0] for m in sys.modules}} - set(sys.stdlib_module_names) - {{'__main__'}}))
"""
    out = subprocess.run([sys.executable, "-I", "-S", "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert ast.literal_eval(out.stdout.splitlines()[0]) == ["mus_core"]
