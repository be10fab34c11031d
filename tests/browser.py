"""Headless Debian Chromium driven by Playwright for the UI tests. The browser is the system's
(`scripts/install-browser.sh`), never one `playwright install` downloads; it is kept off the
network except for the test server."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, ViewportSize, sync_playwright

CHROMIUM = Path("/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]
VIEWPORT: ViewportSize = {"width": 1400, "height": 760}
READY_MS = 120_000  # a loaded CI machine; a page that never gets ready still fails


@contextmanager
def chromium() -> Iterator[Browser]:
    if not CHROMIUM.exists():
        pytest.fail(f"{CHROMIUM} is missing: run scripts/install-browser.sh", pytrace=False)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        try:
            yield browser
        finally:
            browser.close()


class Visit:
    """A page of the test server, with what it logged and every URL it tried outside it."""

    def __init__(self, browser: Browser, base: str) -> None:
        self.base = base
        self.page: Page = browser.new_page(viewport=VIEWPORT)
        self.errors: list[str] = []
        self.outside: list[str] = []
        self.page.on("pageerror", lambda exc: self.errors.append(str(exc)))
        self.page.on("console", lambda m: self.errors.append(m.text) if m.type == "error"
                     else None)
        self.page.on("request", lambda r: None if r.url.startswith((base, "data:"))
                     else self.outside.append(r.url))

    def open(self, path: str, state: str = "ready") -> Any:
        """Go to `path`, wait for `body[data-state=state]`, return `window.vaultkg`."""
        self.page.goto(self.base + path)
        self.page.wait_for_selector(f"body[data-state={state}], body[data-state=error]",
                                    timeout=READY_MS)
        found = self.page.evaluate("window.vaultkg")
        assert found["state"] == state, found
        return found

    def hover_edge(self, child: str, parent: str, relation: str | None = None,
                   at: float = 0.5) -> None:
        """Move the real pointer onto the edge child -> parent (`at`: 0 child, 1 parent)."""
        point = self.page.evaluate(
            """([child, parent, relation, fraction]) => {
              const g = [...document.querySelectorAll('g.edge')].find((e) =>
                e.dataset.child === child && e.dataset.parent === parent &&
                (!relation || e.dataset.relation === relation));
              g.parentNode.append(g);  // on top, so no other edge takes the pointer
              const path = g.querySelector('path.line');
              const at = path.getPointAtLength(path.getTotalLength() * fraction);
              const m = path.getScreenCTM();
              return [at.x * m.a + at.y * m.c + m.e, at.x * m.b + at.y * m.d + m.f];
            }""", [child, parent, relation, at])
        self.page.mouse.move(point[0], point[1])
        self.page.wait_for_selector(".tooltip:not([hidden])", timeout=5_000)

    def close(self) -> None:
        self.page.close()
