"""The contract with bots cannot break by accident (docs/compatibility.md).

- Every decision request recorded at a release (``requests/``, made by
  ``record_requests.py``) is read by today's SDK exactly as it was read then.
- Today's arena still sends, for the same seeded play, requests that read the same.
- Bots written against earlier SDKs (``bots/``, kept as they were) still play a whole
  match against this arena, as separate processes, without a fault.

The proto itself is checked against the last release by ``buf breaking`` (``make
lint-proto``, part of ``make test``).
"""

from __future__ import annotations

import json
import struct
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from mus_core.rules import Rules

from tests.compat.record_requests import reading, requests

HERE = Path(__file__).resolve().parent
CORPORA = sorted((HERE / "requests").glob("*.json"))
MUS = Path(sys.executable).parent / "mus"


def _blobs(path: Path) -> list[bytes]:
    data, out, at = path.read_bytes(), [], 0
    while at < len(data):
        (size,) = struct.unpack_from(">I", data, at)
        out.append(data[at + 4:at + 4 + size])
        at += 4 + size
    return out


def _corpus(path: Path) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return loaded


def test_there_is_a_corpus_for_every_release_variant() -> None:
    assert {p.stem for p in CORPORA} >= {"v0.1.0-four-senas", "v0.1.0-six-corrido", "v0.1.0-two-4kings"}


def _as_then(today: dict[str, Any], then: dict[str, Any]) -> dict[str, Any]:
    """Today's reading of a request, limited to the fields the release read: a field
    added since is not a break (additive, docs/compatibility.md); a field gone is (it
    reads as missing)."""
    return {k: today.get(k, "<missing>") for k in then}


@pytest.mark.parametrize("path", CORPORA, ids=lambda p: p.stem)
def test_recorded_requests_read_as_they_did(path: Path) -> None:
    recorded = _corpus(path)["readings"]
    blobs = _blobs(path.with_suffix(".bin"))
    assert len(blobs) == len(recorded) >= 40
    for i, (blob, expected) in enumerate(zip(blobs, recorded, strict=True)):
        assert _as_then(reading(blob), expected) == expected, f"request {i} of {path.name} reads differently today"


@pytest.mark.parametrize("path", CORPORA, ids=lambda p: p.stem)
def test_todays_arena_sends_what_bots_read_the_same_way(path: Path) -> None:
    corpus = _corpus(path)
    then = corpus["readings"]
    today = [reading(blob) for blob in requests(Rules.from_mapping(corpus["rules"]))]
    assert len(today) == len(then)
    assert [_as_then(now, old) for now, old in zip(today, then, strict=True)] == then


def test_a_changed_field_is_caught() -> None:
    """The comparison is not vacuous: a request whose scores differ reads differently."""
    path = CORPORA[0]
    blob = _blobs(path.with_suffix(".bin"))[-1]
    expected = _corpus(path)["readings"][-1]
    changed = dict(reading(blob), scores=[s + 1 for s in expected["scores"]])
    assert _as_then(changed, expected) != expected
    gone = {k: v for k, v in reading(blob).items() if k != "own_discards"}
    assert _as_then(gone, expected) != expected  # a field removed is a break too


def test_bots_of_earlier_sdks_still_play(tmp_path: Path) -> None:
    old = sorted(p for p in (HERE / "bots").iterdir() if (p / "bot.toml").is_file())
    assert len(old) >= 2
    done = subprocess.run(
        [str(MUS), "match", *map(str, old[:2]), "--target", "20", "--games", "2", "--seed", "7",
         "--json", "--out", str(tmp_path), "--match-id", "compat"],
        capture_output=True, text=True, timeout=180, check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    result = json.loads(done.stdout[:done.stdout.rindex("}") + 1])
    assert result["faults"] == [], result["faults"]
    assert sum(s["decisions"] for s in result["seats"]) >= 20
    assert (tmp_path / "compat.jsonl").is_file()
