"""The browser tests' one way to start a browser: Debian's Chromium (/usr/bin/chromium;
nothing can be downloaded here) driven by Playwright, headless, offline."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from tests.support.paths import ARTIFACTS

__all__ = ["ARTIFACTS", "CHROMIUM", "CHROMIUM_ARGS", "chromium", "launch_browser", "open_tab"]

CHROMIUM = "/usr/bin/chromium"
# How long a browser test waits for a whole run to reach the page. The wait ends on
# the event itself; this only bounds it, and a loaded 2-core CI machine (a CPU hog
# beside the suite) has taken over 120 s for a run that takes 5 s when quiet.
RUN_TIMEOUT_MS = 300_000
# No sandbox (root), and nothing that reaches for the network this machine lacks.
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@contextmanager
def chromium() -> Iterator[Any]:
    """A Playwright Browser on Debian's Chromium, closed after the block. Skips the test
    without Chromium, but fails it in CI, whose .ci/run installs it."""
    if not shutil.which(CHROMIUM):
        if os.environ.get("CI"):
            pytest.fail(f"{CHROMIUM} is missing; .ci/run must install Debian's chromium")
        pytest.skip(f"{CHROMIUM} not installed (apt-get install chromium)")
    from playwright.sync_api import sync_playwright  # only the browser tests need it

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()


def launch_browser() -> Iterator[Any]:
    """For a module-scoped `browser` fixture: `yield from launch_browser()`."""
    with chromium() as browser:
        yield browser


@contextmanager
def open_tab(
    browser: Any,
    size: tuple[int, int] = (1280, 900),
    timeout_ms: float = 60_000,
    console_error: Callable[[str], bool] | None = None,
) -> Iterator[Any]:
    """A page in a fresh context (no cookies shared with other tabs). The block fails if
    the page threw, or if it logged an error that `console_error` counts (a CSP refusal
    is logged, not thrown)."""
    context = browser.new_context(viewport={"width": size[0], "height": size[1]})
    page = context.new_page()
    page.set_default_timeout(timeout_ms)
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    if console_error is not None:
        counts = console_error

        def on_console(message: Any) -> None:
            if message.type == "error" and counts(message.text):
                errors.append(message.text)

        page.on("console", on_console)
    try:
        yield page
    finally:
        context.close()
    assert not errors, errors
