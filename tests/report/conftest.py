"""A real league for the report's tests, and a headless Chromium to open its report in.

The league (data/tiny.toml) is played once per test session through the real ``mus``
command: random against clumsy (tests/report/bots/clumsy: wants mus, so hands have
discard rounds; gives señas that only its partner sees; fails once a match, with HTML
in its error). Chromium is Debian's (``bots/setup-toolchains.sh`` installs it), driven
by Playwright for Python; no browser is ever downloaded, and the page may reach
nothing but ``file://``: any other request is refused and fails the test.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]
TINY = Path(__file__).resolve().parent / "data" / "tiny.toml"
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
    "--no-first-run", "--disable-sync", "--disable-extensions", "--disable-default-apps",
    # Name resolution fails for every host: nothing but file:// can load even if a request slipped out.
    "--host-resolver-rules=MAP * ~NOTFOUND",
]


def mus(*args: str | Path, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """The real ``mus`` command (``python -m arena``), from the repository root."""
    return subprocess.run([sys.executable, "-m", "arena", *(str(a) for a in args)], cwd=REPO, capture_output=True,
                          text=True, timeout=timeout, check=False)


def jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


@pytest.fixture(scope="session")
def league(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The tiny league's output folder, with its report written by ``mus report``."""
    out = tmp_path_factory.mktemp("report") / "tiny"
    r = mus("league", TINY, "--out", out, "--no-progress")
    assert r.returncode == 0, f"exit {r.returncode}\n{r.stdout}\n{r.stderr}"
    from typer.testing import CliRunner

    from arena.cli.main import app

    written = CliRunner().invoke(app, ["report", str(out), "--no-open"])  # in this process: no interpreter to start
    assert written.exit_code == 0, written.output
    assert f"report: {out / 'report' / 'index.html'}" in written.output
    return out


def chromium_args() -> dict[str, Any]:
    """How the tests and the bench launch Chromium: Debian's binary, headless, offline."""
    return {"executable_path": str(CHROMIUM), "args": CHROMIUM_ARGS, "headless": True}


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Headless Chromium. Missing, it fails (never skips) and says what to install: CI runs these tests.

    One per module, closed after it: Playwright's sync API keeps an event loop running on
    this thread while it is open, and the tests that play matches run one of their own."""
    if not CHROMIUM.exists():
        pytest.fail("the browser tests need Debian's chromium: bash bots/setup-toolchains.sh (as root it installs "
                    "it), or apt-get install --no-install-recommends chromium")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(**chromium_args())
        yield b
        b.close()


class Page:
    """A browser tab on a report, recording console errors and refusing every request but file://."""

    def __init__(self, browser: Any) -> None:
        self.context = browser.new_context(viewport={"width": 1400, "height": 900})
        self.page = self.context.new_page()
        self.errors: list[str] = []
        self.refused: list[str] = []
        self.page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.route("**/*", self._route)

    def _route(self, route: Any) -> None:
        if route.request.url.startswith("file://"):
            route.continue_()
        else:
            self.refused.append(route.request.url)
            route.abort()

    def open(self, url: str) -> Any:
        self.page.goto(url)
        return self.page

    def close(self) -> None:
        self.context.close()
        assert not self.refused, f"the page asked for the network: {self.refused}"


@pytest.fixture
def tab(browser: Any) -> Iterator[Page]:
    page = Page(browser)
    yield page
    page.close()
