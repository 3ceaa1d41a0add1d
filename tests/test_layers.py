"""Every layer of arena/ imports only layers below it (docs/architecture.md, "The layers").

tests/test_architecture.py holds the rules about what each layer may import from
outside the arena (the standard library only, no gRPC in the referee, no private SDK
module); this test holds the order of the arena's own packages, so that a new import
upward (or a cycle) fails here, naming the file.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ARENA = ROOT / "arena"

LEVELS = {
    # mus_core (sdk/mus_core: the engine and the game's vocabulary) is below all of these;
    # tests/test_architecture.py checks it
    "common": 0,      # bounded JSON reading, retired-setting warnings, logging setup
    "records": 1,     # a hand's results as JSON, the hand-log format, its events in words
    "wire": 1,        # engine values <-> protobuf messages
    "referee": 2,     # the pure match session, the Player protocol, the default actions
    "runtime": 3,     # event loops, the CPUs the arena may use, the runtime settings
    "driver": 4,      # plays a session against Players on an asyncio loop
    "remote": 4,      # bot processes, the sandbox, the gRPC client and encoder
    "players": 4,     # in-process players (random, a human at a terminal, SDK bots)
    "runner": 5,      # run_match (one match, entries to a sealed hand log) and the process pool
    "tools": 6,       # mus check, replay, replay --against, scenarios
    "league": 6,      # leagues, their folders, executors, standings, SPRT
    "report": 7,      # the HTML report and the terminal's hand view (reads logs, leagues' outputs)
    "ladder": 8,      # ladders: their database, matchmaking, leaderboard (uses leagues and the report)
    "cli": 9,         # the mus command
    "__main__": 10,
}


def _layer(path: Path) -> str:
    rel = path.relative_to(ARENA).with_suffix("")
    return rel.parts[0]


def _arena_imports(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
            if node.module == "arena":  # from arena import handlog: a module (not __version__)
                names.update(f"arena.{a.name}" for a in node.names
                             if (ARENA / a.name).is_dir() or (ARENA / f"{a.name}.py").exists())
    return {n.split(".")[1] for n in names if n.startswith("arena.")}


def test_every_arena_module_has_a_layer() -> None:
    """A new package or module of arena/ gets its place in LEVELS (and in the docs)."""
    layers = {_layer(p) for p in ARENA.rglob("*.py") if p.name != "__init__.py" or p.parent != ARENA}
    assert layers <= set(LEVELS), sorted(layers - set(LEVELS))


def test_arena_layers_import_only_downward() -> None:
    for path in sorted(ARENA.rglob("*.py")):
        if path.parent == ARENA and path.name == "__init__.py":
            continue
        mine = _layer(path)
        for other in _arena_imports(path):
            if other == mine:
                continue
            assert other in LEVELS, f"{path.relative_to(ROOT)} imports arena.{other}, which has no layer"
            assert LEVELS[other] < LEVELS[mine], (
                f"{path.relative_to(ROOT)} (layer {mine}, level {LEVELS[mine]}) imports arena.{other} "
                f"(level {LEVELS[other]}): only lower layers may be imported")
