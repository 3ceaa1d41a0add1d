"""The report of a real league, opened in headless Chromium: the standings and the
matches are the league's, and stepping through a hand shows exactly what its log holds
(actions, cards, señas, faults, scores), a seat's view hides what the seat did not
see, and nothing goes to the console's errors or to the network."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from arena.cli.main import app
from arena.records.handlog import read_log
from tests.report.conftest import Page, jsonl

TEAM = 2  # seats s and s + TEAM are partners at a 4-player table


def hands(league: Path) -> list[tuple[str, int, dict[str, Any]]]:
    """Every hand of the league: (match id, hand index in its log, record)."""
    out = []
    for path in sorted((league / "logs").glob("*.jsonl")):
        log = read_log(path)
        out += [(str(log.header["match_id"]), i, rec) for i, rec in enumerate(log.hands)]
    return out


def pick(league: Path, *features: str) -> tuple[str, int, dict[str, Any]]:
    """The first hand whose steps have every feature: ``discard``, ``sena``, ``fault``."""
    def has(rec: dict[str, Any], f: str) -> bool:
        steps = rec["steps"]
        return any(s["action"].startswith("discard") for s in steps) if f == "discard" else any(s.get(f) for s in steps)
    found = [h for h in hands(league) if h[2].get("finished", True) and all(has(h[2], f) for f in features)]
    assert found, f"the tiny league has no finished hand with {features}: change its seed"
    return found[0]


def wait(page: Any, match: str, hand: int, frame: int, view: str = "all") -> None:
    # A function, not an expression: the page's Content-Security-Policy forbids eval.
    page.wait_for_function("want => document.body.dataset.ready === want", arg=f"{match}/{hand}/{frame}/{view}",
                           timeout=5000)


def seat_cards(page: Any, seat: int) -> list[str | None]:
    """The cards shown at a seat: their codes, None for a card face down."""
    return page.eval_on_selector_all(f"[data-testid=cards-{seat}] .card", "els => els.map(e => e.dataset.card || null)")


def table(page: Any) -> tuple[list[list[str | None]], list[str]]:
    """In one call: the cards shown at every seat (as :func:`seat_cards`) and the words of the viewer's text."""
    cards, text = page.evaluate("""() => [
        [...document.querySelectorAll("[data-testid^=cards-]")].map(s => [...s.children].map(e => e.dataset.card || null)),
        document.getElementById("viewer").innerText]""")
    return cards, text.split()


def open_hand(tab: Page, league: Path, match: str, hand: int) -> Any:
    """The report's index, then the match by its link, then the hand by its link (the links a reader follows)."""
    page = tab.open((league / "report" / "index.html").as_uri())
    page.click(f"tr[data-match='{match}'] a")
    wait(page, match, 0, 0)
    page.click(f"#hand-list a[data-hand='{hand}']")
    wait(page, match, hand, 0)
    return page


def test_overview_shows_the_standings_and_every_match(league: Path, tab: Page) -> None:
    page = tab.open((league / "report" / "index.html").as_uri())
    standings = json.loads((league / "standings.json").read_text())["standings"]
    names = page.eval_on_selector_all("#standings tbody tr td:nth-child(2)", "els => els.map(e => e.textContent)")
    assert names == [e["name"] for e in standings]
    ratings = page.eval_on_selector_all("#standings tbody tr td:nth-child(3)", "els => els.map(e => e.textContent)")
    assert ratings == [f"{e['rating']:.0f}" for e in standings]
    results = jsonl(league / "results.jsonl")
    ids = page.eval_on_selector_all("#matches tbody tr", "els => els.map(e => e.dataset.match)")
    assert sorted(ids) == sorted(r["match_id"] for r in results)
    for r in results:  # faults per match, as the results count them
        cell = page.text_content(f"tr[data-match='{r['match_id']}'] td:nth-child(8)")
        assert cell == str(len(r["faults"]))
    a, b = names[0], names[1]
    cross = json.loads((league / "standings.json").read_text())["crosstable"]
    cell = page.text_content(f"#crosstable a[href='#pair={a}&with={b}']")
    assert cell == f"{cross[a][b]}-{cross[b][a]}"
    page.wait_for_function("() => Chart.getChart('chart-rating') && Chart.getChart('chart-faults')", timeout=5000)
    page.click(f"#standings a[href='#entry={a}']")  # standings -> that entry's matches
    page.wait_for_function("want => document.getElementById('match-filter').value === want", arg=a)
    assert page.text_content("#match-count").startswith(f"{len(results)} of {len(results)} matches")
    assert not tab.errors


def test_stepping_through_a_hand_shows_its_log(league: Path, tab: Page) -> None:
    match, index, rec = pick(league, "discard", "sena")
    page = open_hand(tab, league, match, index)
    deal, steps, result = rec["deal"], rec["steps"], rec["result"]
    for s, cards in enumerate(deal["hands"]):
        assert seat_cards(page, s) == cards.split(), f"S{s}'s cards as dealt"
    assert page.get_attribute("#scores", "data-t0") == str(deal["scores"][0])
    for k, step in enumerate(steps, start=1):
        page.click("#btn-next") if k % 2 else page.keyboard.press("ArrowRight")  # the button and the key alike
        wait(page, match, index, k)
        cur = "#step-list li.cur"
        assert page.text_content(f"{cur} .who") == f"S{step['seat']} "
        assert page.text_content(f"{cur} .action") == step["action"]
        sena = page.query_selector(f"{cur} .sena")
        assert (sena.text_content() if sena else None) == (f" · seña {step['sena']}" if step.get("sena") else None)
    # After the last step, before the count: each seat holds the cards it shows at the count.
    for s, cards in enumerate(result["hands"]):
        assert sorted(c for c in seat_cards(page, s) if c) == sorted(cards.split()), f"S{s}'s cards after the discards"
    page.keyboard.press("ArrowRight")
    wait(page, match, index, len(steps) + 1)
    assert page.text_content("#frame-label") == "the count"
    after = result["scores_after"]
    assert (page.get_attribute("#scores", "data-t0"), page.get_attribute("#scores", "data-t1")) == (str(after[0]), str(after[1]))
    assert page.text_content("#count-after").startswith(f"scores after: T0 {after[0]} – T1 {after[1]}")
    lines = page.eval_on_selector_all("#count-lines li", "els => els.map(e => e.textContent.split(' ')[0])")
    assert lines == [lance["lance"] for lance in result["lances"]]
    assert not tab.errors


def test_a_fault_is_marked_with_its_detail_as_text(league: Path, tab: Page) -> None:
    match, index, rec = pick(league, "fault")
    page = open_hand(tab, league, match, index)
    k, step = next((k, s) for k, s in enumerate(rec["steps"], start=1) if s.get("fault"))
    page.evaluate(f"location.hash = 'match={match}&hand={index}&frame={k}&view=all'")
    wait(page, match, index, k)
    shown = page.text_content("#step-list li.cur .fault")
    fault = step["fault"]
    assert shown == f"⚠ {fault['kind']}: {fault['detail']}"
    assert "<img" in shown  # the bot's HTML is shown as text ...
    assert page.query_selector("img") is None  # ... and never made into an element
    assert page.text_content(f"[data-seat='{step['seat']}'] .fault") == f"fault: {fault['kind']}"
    flag = page.text_content(f"#hand-list a[data-hand='{index}'] .flag")
    assert flag == f" ⚠{sum(1 for s in rec['steps'] if s.get('fault'))}"
    assert not tab.errors


def test_a_seats_view_shows_only_what_it_saw(league: Path, tab: Page) -> None:
    match, index, rec = pick(league, "discard", "sena")
    page = open_hand(tab, league, match, index)
    steps, result = rec["steps"], rec["result"]
    dealt = [h.split() for h in rec["deal"]["hands"]]
    giver = next(st["seat"] for st in steps if st.get("sena"))
    for v in (giver, (giver + 1) % 4):  # a seña's team, and the other team (two seats keep the test fast)
        held = set(dealt[v]) | set(result["hands"][v].split())  # every card v ever held
        others = {c for s in range(4) if s != v for c in dealt[s] + result["hands"][s].split()} - held
        page.keyboard.press(str(v))
        wait(page, match, index, 0, str(v))
        for k in range(len(steps) + 1):
            if k:
                page.keyboard.press("ArrowRight")
                wait(page, match, index, k, str(v))
            cards, text = table(page)
            assert None not in cards[v] and set(cards[v]) <= held, f"S{v} sees its own cards (frame {k})"
            for s in range(4):
                if s != v:
                    assert set(cards[s]) <= {None}, f"S{v}'s view shows S{s}'s cards at frame {k}"
            assert not others & set(text), f"S{v}'s view names cards it never saw at frame {k}"
        shown = page.eval_on_selector_all(  # the whole hand, as v saw it (in one call: it is long)
            "#step-list li[data-step]", "els => els.map(e => [e.querySelector('.action').textContent, !!e.querySelector('.sena')])")
        assert len(shown) == len(steps)
        for i, (step, (action, sena)) in enumerate(zip(steps, shown, strict=True)):
            if step["seat"] != v and step["action"].startswith("discard"):
                n = len(step["action"].split()) - 1
                assert action == f"discard {n} card{'s' if n != 1 else ''}"
            else:
                assert action == step["action"]
            # Partner signals (data/tiny.toml): the giver and its partner see a seña, the other team not.
            assert sena == bool(step.get("sena") and (step["seat"] - v) % TEAM == 0), (v, i)
        page.keyboard.press("End")  # the count: every seat is told every hand
        wait(page, match, index, len(steps) + 1, str(v))
        for s in range(4):
            assert seat_cards(page, s) == result["hands"][s].split()
        page.keyboard.press("Home")
        wait(page, match, index, 0, str(v))
    page.keyboard.press("a")
    wait(page, match, index, 0, "all")
    assert seat_cards(page, 1) == dealt[1]
    assert not tab.errors


def test_keys_and_buttons_move_between_hands(league: Path, tab: Page) -> None:
    match, _, _ = hands(league)[0]
    n = sum(1 for h in hands(league) if h[0] == match)
    assert n >= 2, "the first match has one hand: change the tiny league's seed"
    page = open_hand(tab, league, match, 0)
    page.keyboard.press("ArrowDown")
    wait(page, match, 1, 0)
    assert page.text_content("#hand-list a.cur").startswith("hand 1")
    page.keyboard.press("ArrowLeft")  # back from a deal: the count of the hand before
    last = len(hands(league)[0][2]["steps"]) + 1
    wait(page, match, 0, last)
    assert page.text_content("#frame-label") == "the count"
    page.click("#btn-next-hand")
    wait(page, match, 1, 0)
    page.click("#btn-prev-hand")
    wait(page, match, 0, 0)
    assert page.is_disabled("#btn-prev-hand") and page.is_disabled("#btn-prev")
    page.select_option("#view-select", "2")
    wait(page, match, 0, 0, "2")
    assert not tab.errors


def test_replay_html_opens_one_match(league: Path, tab: Page) -> None:
    log = sorted((league / "logs").glob("*.jsonl"))[0]
    r = CliRunner().invoke(app, ["replay", str(log), "--html"])
    assert r.exit_code == 0, r.output
    index = log.with_name(f"{log.stem}.report") / "index.html"
    assert r.stdout.strip() == f"report: {index} (1 match)"
    page = tab.open(index.as_uri())
    first = read_log(log).hands[0]
    wait(page, log.stem, 0, 0)  # straight to the match: it is the report's only one
    assert seat_cards(page, 0) == first["deal"]["hands"][0].split()
    assert not tab.errors


@pytest.mark.parametrize("bad", ["missing", "empty"])
def test_report_of_a_folder_without_logs_fails(tmp_path: Path, bad: str) -> None:
    folder = tmp_path / "x"
    if bad == "empty":
        folder.mkdir()
    r = CliRunner().invoke(app, ["report", str(folder), "--no-open"])
    assert r.exit_code == 2
    assert r.output.startswith("error: ") and str(folder) in r.output


def test_a_large_report_pages_its_matches_and_loads_one_match_at_a_time(league: Path, tmp_path: Path, tab: Page) -> None:
    """150 matches: 100 a page, a filter, and opening a match loads that match's file alone."""
    lines = sorted((league / "logs").glob("*.jsonl"))[0].read_text(encoding="utf-8").splitlines()
    header = json.loads(lines[0])
    logs = tmp_path / "logs"
    logs.mkdir()
    for k in range(150):
        mid = f"copy-{k:03d}"
        (logs / f"{mid}.jsonl").write_text("\n".join([json.dumps({**header, "match_id": mid}), *lines[1:]]) + "\n",
                                           encoding="utf-8")
    r = CliRunner().invoke(app, ["report", str(tmp_path), "--no-open"])
    assert r.exit_code == 0, r.output
    page = tab.open((tmp_path / "report" / "index.html").as_uri())
    rows = "#matches tbody tr"
    assert page.eval_on_selector_all(rows, "els => els.length") == 100
    assert page.text_content("#page-no") == "page 1 of 2"
    page.click("#page-next")
    assert page.eval_on_selector_all(rows, "els => els.map(e => e.dataset.match)") == [f"copy-{k:03d}" for k in range(100, 150)]
    page.fill("#match-filter", "copy-12")
    assert page.eval_on_selector_all(rows, "els => els.length") == 10  # copy-120 … copy-129, on one page
    assert page.eval_on_selector_all("script[src]", "els => els.length") == 0  # no match loaded yet
    page.click("tr[data-match='copy-125'] a")
    wait(page, "copy-125", 0, 0)
    assert page.eval_on_selector_all("script[src]", "els => els.map(e => e.getAttribute('src'))") == ["matches/m125.js"]
    assert not tab.errors
