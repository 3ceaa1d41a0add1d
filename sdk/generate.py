"""Regenerate the protobuf/gRPC stubs in ``sdk/mus/v1/`` from ``proto/mus/v1/*.proto``.

Run from anywhere with an interpreter that has ``grpcio-tools`` installed::

    python sdk/generate.py

The output is committed, so bot authors never need grpcio-tools. Running with ``-I proto``
makes protoc emit ``from mus.v1 import game_pb2`` style imports, which resolve against the
top-level ``mus`` package that the mus-sdk distribution ships. The ``--check`` flag
regenerates into a temporary directory and fails if the committed files differ (for CI).
"""

from __future__ import annotations

import filecmp
import sys
import tempfile
from pathlib import Path

SDK = Path(__file__).resolve().parent
PROTO_ROOT = SDK.parent / "proto"
OUT_PACKAGE = ("mus", "v1")
MYPY_MARKER = "# mypy: ignore-errors\n"


def generate(out_root: Path) -> list[Path]:
    """Run protoc on every proto of ``mus/v1`` into ``out_root``; return the files made."""
    from grpc_tools import protoc  # imported here: a build-time-only dependency

    include = Path(protoc.__file__).parent / "_proto"  # google/protobuf/*.proto
    protos = sorted(
        str(p.relative_to(PROTO_ROOT)) for p in (PROTO_ROOT.joinpath(*OUT_PACKAGE)).glob("*.proto")
    )
    args = [
        "grpc_tools.protoc",
        f"-I{PROTO_ROOT}",
        f"-I{include}",
        f"--python_out={out_root}",
        f"--pyi_out={out_root}",
        f"--grpc_python_out={out_root}",
        *protos,
    ]
    if protoc.main(args) != 0:
        raise SystemExit("protoc failed")
    out_dir = out_root.joinpath(*OUT_PACKAGE)
    # protobuf and grpcio ship no stubs, so strict mypy cannot check generated code;
    # mark the files mypy reads so any config (the SDK's or the repo root's) skips them.
    for stub in [*out_dir.glob("*.pyi"), *out_dir.glob("*_grpc.py")]:
        text = stub.read_text()
        if not text.startswith(MYPY_MARKER):
            stub.write_text(MYPY_MARKER + text)
    # Package markers; generated code relies on ``mus`` and ``mus.v1`` being packages.
    for pkg in (out_root / OUT_PACKAGE[0], out_dir):
        init = pkg / "__init__.py"
        if not init.exists():
            init.write_text('"""Generated protobuf and gRPC code for the mus-arena protocol."""\n')
    return sorted(out_dir.iterdir())


def main(argv: list[str]) -> int:
    if "--check" in argv:
        with tempfile.TemporaryDirectory() as tmp:
            made = generate(Path(tmp))
            committed = SDK.joinpath(*OUT_PACKAGE)
            stale = [
                p.name
                for p in made
                if (
                    p.is_file()
                    and p.suffix in (".py", ".pyi")
                    and p.name != "__init__.py"
                    and not (committed / p.name).exists()
                )
                or ((committed / p.name).exists() and not filecmp.cmp(p, committed / p.name, shallow=False))
            ]
        if stale:
            print("stale generated files (run python sdk/generate.py):", ", ".join(stale))
            return 1
        print("generated code is up to date")
        return 0
    for path in generate(SDK):
        print(path.relative_to(SDK.parent))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
