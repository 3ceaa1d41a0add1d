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
    "engine": 0,      # the rules (arena/engine); mus_core below it is checked by test_architecture
    "boundedjson": 0,  # reading JSON that may be hostile, within limits (standard library only)
    "results": 1,     # JSON of the engine's results
    "handlog": 1.5,   # the hand-log format: its records (with results' JSON) built, written and read
    "narrate": 1,     # a hand's events in words (the report, a human seat)
    "log_setup": 1,   # structlog's configuration
    "deprecation": 1,  # the one-line warnings for retired settings
    "check_again": 1,  # mus check step 9's comparison of two plays of a match (hand records)
    "wire": 1,        # engine values <-> protobuf messages
    "referee": 2,     # the match session and its driver
    "replay": 2,      # re-playing a hand log through the engine
    "scenario_script": 1,  # a scenario's cards and action script as written
    "scenario": 2,    # scenario files
    "remote": 3,      # bot processes, the sandbox, the gRPC client and encoder
    "players": 3,     # in-process players
    "runtime": 4,     # how matches run for speed
    "replay_against": 4,  # mus replay --against (and the bot process mus check shares)
    "check": 5,       # mus check
    "league": 5,      # leagues and run_match
    "report": 6,      # the HTML report and the terminal's hand view (reads logs, leagues' outputs)
    "ladder": 7,      # ladders: their database, matchmaking, leaderboard (uses leagues and the report)
    "cli": 8,         # the mus command
    "__main__": 9,
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
