"""The SDK needs only grpcio and protobuf: it imports nothing from the arena."""

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
import mus_sdk, mus_sdk.evaluate, mus.v1.bot_service_pb2_grpc
from mus_sdk import serve, Bot
assert mus_sdk.__file__.startswith({str(REPO / "sdk")!r}), mus_sdk.__file__
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
    allowed = {"google", "grpc", "mus", "mus_sdk", "typing_extensions", "grpc_tools"}
    assert set(ast.literal_eval(out.stdout.splitlines()[0])) <= allowed


def test_evaluate_is_stdlib_only() -> None:
    """mus_sdk.evaluate imports only the standard library (bot authors may vendor it)."""
    tree = ast.parse((REPO / "sdk" / "mus_sdk" / "evaluate.py").read_text())
    modules = {
        (n.module or "") if isinstance(n, ast.ImportFrom) else a.name
        for n in ast.walk(tree)
        if isinstance(n, ast.Import | ast.ImportFrom)
        for a in n.names
    }
    assert {m.split(".")[0] for m in modules} <= set(sys.stdlib_module_names) | {"__future__"}
