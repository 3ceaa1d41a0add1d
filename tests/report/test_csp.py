"""The report's Content-Security-Policy holds if escaping ever broke.

Every field a bot (or an entrant) controls that the report shows gets a payload: an
inline handler (``<img src=x onerror=pwn(N)>``), an inline ``<script>pwn(N)</script>``
and a ``<script src>`` of a file on the disk, N naming the field. Escaping is then bypassed on purpose: the template is rendered
without autoescaping, and the viewer is given markup where it sets text (``innerHTML``
for ``textContent``). Opened in Chromium, no payload runs; the same page without its
policy runs one for every field, so the test can fail.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jinja2
import pytest

from arena.league.standings import compute_standings
from arena.report import render
from tests.report.conftest import Page
from tests.report.test_watch import played_log

FIELDS = ["league name", "entry 0", "entry 1", "bot name", "match id", "fault kind", "fault detail",
          "result reason", "result detail"]
"""Where a payload goes; its number is its index here. (A bot's version is in the
match's data too, under a payload of its own, but the page never shows it.)"""


FILE_SCRIPT = 100
"""A payload's third part loads ``evil<N>.js`` from the disk (beside the report folder),
which calls ``pwn(FILE_SCRIPT + N)``: what a ``file:`` source in the policy would let run."""


def payload(field: str) -> str:
    n = FIELDS.index(field)
    return f"{field}<img src=x onerror=pwn({n})><script>pwn({n})</script><script src=../evil{n}.js></script>"


def _hostile_league(folder: Path) -> None:
    """A league folder whose every bot-controlled text is a payload: one real match,
    its log rewritten, and the league's files around it."""
    (folder / "logs").mkdir(parents=True)
    for n in range(len(FIELDS)):
        (folder / f"evil{n}.js").write_text(f"pwn({FILE_SCRIPT + n});\n", encoding="utf-8")
    lines = [json.loads(line) for line in played_log(folder / "m.jsonl")]
    (folder / "m.jsonl").unlink()
    header, first, footer = lines[0], lines[1], lines[-1]
    entries = [payload("entry 0"), payload("entry 1")]
    match_id = payload("match id")
    header["match_id"] = footer["result"]["match_id"] = match_id
    for seat in header["seats"]:
        seat.update(entry=entries[seat["seat"] % 2], bot=payload("bot name"), version=payload("bot name"))
    header["seats"][3]["entry"] = None  # a match played outside a league: the bot's own name is shown
    first["steps"][0]["fault"] = {"kind": payload("fault kind"), "detail": payload("fault detail")}
    footer["result"].update(reason=payload("result reason"), detail=payload("result detail"))
    (folder / "logs" / "m.jsonl").write_text("".join(json.dumps(rec) + "\n" for rec in lines), encoding="utf-8")
    result = {"match_id": match_id, "team0": entries[0], "team1": entries[1], "log": "logs/m.jsonl",
              **{k: footer["result"][k] for k in ("winner_team", "games_won", "stones", "hands")}}
    (folder / "results.jsonl").write_text(json.dumps(result) + "\n", encoding="utf-8")
    (folder / "league.json").write_text(json.dumps({
        "name": payload("league name"), "entries": [{"name": e} for e in entries], "rules": {}}), encoding="utf-8")
    (folder / "standings.json").write_text(json.dumps(compute_standings(entries, {}, [result]).to_json()),
                                           encoding="utf-8")


def _markup_viewer(js: str) -> str:
    """The viewer with its escaping broken: text set as markup."""
    js = js.replace(".textContent = ", ".innerHTML = ")
    js = js.replace("for (const c of children) if (c !== null && c !== undefined) e.append(c);",
                    "for (const c of children) if (c !== null && c !== undefined) "
                    "typeof c === 'string' ? e.insertAdjacentHTML('beforeend', c) : e.append(c);")
    assert js.count("innerHTML") >= 3 and "insertAdjacentHTML" in js, "the viewer changed: update this test"
    return js


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The hostile league's report, written with escaping off everywhere. (Asked for before
    ``browser``: the match is played with asyncio, which Playwright's running loop forbids.)"""
    folder = tmp_path_factory.mktemp("csp") / "league"
    _hostile_league(folder)
    mp = pytest.MonkeyPatch()
    static = render._static
    mp.setattr(render, "_static", lambda name: _markup_viewer(static(name)) if name == "viewer.js" else static(name))
    environment = render._environment
    mp.setattr(render, "_environment", lambda: _no_autoescape(environment()))
    try:
        written = render.report_folder(folder)
    finally:
        mp.undo()
    assert written.matches == 1 and not written.warnings, written.warnings
    yield written.index


def _no_autoescape(env: jinja2.Environment) -> jinja2.Environment:
    env.autoescape = False
    return env


def ran(browser: Any, index: Path) -> set[str]:
    """The fields whose payload ran (``file:`` for one loaded from the disk), the overview
    and the match opened as a reader would."""
    tab = Page(browser)
    try:
        tab.page.add_init_script("window.pwn = (n) => (window.pwned = window.pwned || []).push(n);")
        page = tab.open(index.as_uri())
        page.wait_for_function("() => document.querySelectorAll('#matches tbody tr a').length > 0", timeout=5000)
        page.click("#matches tbody tr a")
        page.wait_for_function("() => document.body.dataset.ready && document.body.dataset.ready.endsWith('/0/all')",
                               timeout=5000)
        page.wait_for_timeout(300)  # the images' error events
        return {FIELDS[n] if n < FILE_SCRIPT else f"file: {FIELDS[n - FILE_SCRIPT]}"
                for n in page.evaluate("() => window.pwned || []")}
    finally:
        tab.context.close()


def test_no_payload_runs_under_the_policy(report: Path, browser: Any) -> None:
    policy = re.search(r'http-equiv="Content-Security-Policy" content="([^"]*)"', report.read_text(encoding="utf-8"))
    assert ran(browser, report) == set()
    assert policy is not None
    assert "unsafe-inline" not in policy.group(1) and "file:" not in policy.group(1)


def test_without_the_policy_every_field_would_run(report: Path, browser: Any) -> None:
    """The contrast: the same page, its policy taken out, runs a payload for every field,
    and a script from the disk for the fields the template writes (the viewer's markup
    never runs a ``<script>``; its handlers do)."""
    bare = report.with_name("bare.html")
    text = report.read_text(encoding="utf-8")
    bare.write_text(re.sub(r'<meta http-equiv="Content-Security-Policy"[^>]*>', "", text), encoding="utf-8")
    got = ran(browser, bare)
    assert {f for f in got if not f.startswith("file: ")} == set(FIELDS)
    assert {"file: league name", "file: entry 0", "file: entry 1"} <= got, got
