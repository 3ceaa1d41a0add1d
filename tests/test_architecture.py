"""The layers import only downward: mus_core is the standard library's alone, the engine is
pure (the standard library and mus_core), the SDK stands alone."""

from __future__ import annotations

import ast
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

FORBIDDEN_IN_ENGINE = {
    "os", "sys", "io", "subprocess", "socket", "asyncio", "threading", "time", "datetime",
    "logging", "pathlib", "shutil", "tempfile", "grpc", "google", "structlog", "typer", "rich",
    "mus", "mus_sdk",
}


def _imports(source: Path | ast.AST) -> set[str]:
    tree = ast.parse(source.read_text(encoding="utf-8")) if isinstance(source, Path) else source
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


def _files(folder: str) -> list[Path]:
    """The Python files under ``folder``, not descending into node_modules (bots/js's
    thousands of folders, which hold no code of ours)."""
    files: list[Path] = []
    for here, dirs, names in os.walk(ROOT / folder):
        dirs[:] = [d for d in dirs if d != "node_modules"]
        files.extend(Path(here) / n for n in names if n.endswith(".py"))
    assert files, f"no Python files under {folder}"
    return sorted(files)


def test_mus_core_imports_stdlib_only() -> None:
    """sdk/mus_core, the game's vocabulary: standard library only (no protobuf, nothing of
    the arena or of mus_sdk), and no I/O, clock or logging modules."""
    for path in _files("sdk/mus_core"):
        for name in _imports(path):
            top = name.split(".")[0]
            if top == "mus_core":
                continue
            assert top in sys.stdlib_module_names, f"{path.name} imports non-stdlib {name}"
            assert top not in FORBIDDEN_IN_ENGINE, f"{path.name} imports {name}"


ENGINE_IN_MUS_CORE = ("state.py", "forward.py", "random_play.py")
"""The engine's state machine and its forward model live in sdk/mus_core (shipped with the
SDK so that bots search with the referee's own rules); the arena imports them from there,
and has no engine package of its own (test_the_arena_has_no_second_engine)."""


def test_engine_imports_stdlib_and_mus_core_only() -> None:
    """The engine (sdk/mus_core/state.py and its forward model): the standard library and
    mus_core only, and no I/O, clock or logging modules."""
    engine = [ROOT / "sdk" / "mus_core" / name for name in ENGINE_IN_MUS_CORE]
    assert all(p.exists() for p in engine), engine
    for path in engine:
        for name in _imports(path):
            top = name.split(".")[0]
            if top == "mus_core":
                continue
            assert top in sys.stdlib_module_names, f"{path.name} imports non-stdlib {name}"
            assert top not in FORBIDDEN_IN_ENGINE, f"{path.name} imports {name}"


def test_the_arena_has_no_second_engine() -> None:
    """One engine: nothing in the arena defines or re-exports the rules under another name
    (an ``arena/engine`` re-export once made two import paths for one class)."""
    assert not (ROOT / "arena" / "engine").exists()
    for path in _files("arena"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("mus_core"):
                assert all(a.name != "*" for a in node.names), f"{path} re-exports mus_core with *"
            if isinstance(node, ast.ClassDef):
                assert node.name != "MusState", f"{path} defines a second MusState"


def test_nothing_imports_the_cli() -> None:
    """Only arena/cli (and the ``python -m arena`` entry point) imports typer or arena.cli."""
    for path in _files("arena"):
        rel = path.relative_to(ROOT / "arena")
        if "cli" in rel.parts or rel.name == "__main__.py":
            continue
        for name in _imports(path):
            assert not name.startswith("arena.cli"), f"{path} imports {name}"
            assert name.split(".")[0] != "typer", f"{path} imports typer"


def test_sdk_does_not_import_the_arena() -> None:
    """The bot SDK stands alone: grpc, protobuf and the standard library."""
    sdk = ROOT / "sdk" / "mus_sdk"
    if not sdk.exists():
        return
    for path in sorted(sdk.rglob("*.py")):
        for name in _imports(path):
            assert name.split(".")[0] != "arena", f"{path} imports {name}"


def test_referee_does_not_import_transports() -> None:
    """arena/referee is pure, as the engine is: it sees players only through its Player
    protocol (no gRPC, no processes), and has no event loop, clock, I/O or logging (the
    asyncio driver is arena/driver; the loops and CPUs are arena/runtime)."""
    for path in _files("arena/referee"):
        for name in _imports(path):
            top = name.split(".")[0]
            assert top not in ("grpc", "subprocess", "typer", "mus", "mus_sdk"), f"{path} imports {name}"
            assert top not in FORBIDDEN_IN_ENGINE - {"mus_sdk"}, f"{path} imports {name}"
            assert not name.startswith(("arena.remote", "arena.league", "arena.players")), f"{path} imports {name}"


def test_the_session_is_pure_and_below_the_player_protocol() -> None:
    """The session imports no asyncio (drivers await, the session does not), and the
    player protocol imports neither the session nor the driver: one direction, no cycle."""
    referee = ROOT / "arena" / "referee"
    for name in ("session.py", "player.py", "policy.py"):
        found = _imports(referee / name)
        assert "asyncio" not in found, f"arena/referee/{name} imports asyncio"
    player = _imports(referee / "player.py")
    assert not {"arena.referee.session", "arena.driver.match"} & player, player
    # The hand-log format (one module builds, writes and reads it) sits below the session.
    handlog = _imports(ROOT / "arena" / "records" / "handlog.py")
    assert not [n for n in handlog if n.startswith(("arena.referee", "arena.league", "arena.cli"))], handlog


def test_nothing_imports_a_private_sdk_module() -> None:
    """The SDK's underscore modules are its own: the arena, the bots, the benchmarks and
    the tests use its public API only (a private module may change without notice)."""
    for folder in ("arena", "bots", "bench", "tests"):
        for path in _files(folder):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for name in _imports(tree):
                parts = name.split(".")
                assert not (parts[0] == "mus_sdk" and any(p.startswith("_") for p in parts[1:])), f"{path} imports {name}"
            for node in ast.walk(tree):
                if isinstance(node, ast.ImportFrom) and node.module == "mus_sdk":
                    private = [a.name for a in node.names if a.name.startswith("_")]
                    assert not private, f"{path} imports {private} from mus_sdk"

