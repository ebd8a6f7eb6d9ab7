"""The --html page in a real headless browser: its plots decode and its timeline renders and filters.

The browser is Playwright's own Chromium or a system Chromium (tools/install_browser.sh installs one;
AKA_CHROMIUM names another). Without either the test is skipped with the reason."""

import os
import shutil

import pytest

from aka.replay import html
from aka.replay.load import load


def _browser(p):
    """A launched headless Chromium, or the reason there is none."""
    tried = []
    for path in [os.environ.get("AKA_CHROMIUM"), None, shutil.which("chromium"), shutil.which("chromium-browser"),
                 shutil.which("google-chrome")]:
        if path is False or (path is None and tried and tried[-1] == "playwright"):
            continue
        try:
            kwargs = {"executable_path": path} if path else {}
            return p.chromium.launch(args=["--no-sandbox"], **kwargs), ""
        except Exception as exc:  # noqa: BLE001 - try the next one
            tried.append(path or "playwright")
            last = exc
    return None, f"no headless Chromium could start (tried {tried}; last error {str(last)[:200]}); " \
                 "run tools/install_browser.sh"


def test_page_renders_plots_and_timeline(session, tmp_path):
    sync = pytest.importorskip("playwright.sync_api", reason="playwright is not installed (pip install playwright)")
    page_file = html.write(load(session), tmp_path / "replay.html")
    with sync.sync_playwright() as p:
        browser, why = _browser(p)
        if browser is None:
            pytest.skip(why)
        try:
            page = browser.new_page()
            page.goto(page_file.as_uri())
            widths = page.eval_on_selector_all("img.plot", "els => els.map(e => [e.id, e.complete, e.naturalWidth])")
            assert {w[0] for w in widths} == {"plot-shapes", "plot-trajectory"}
            assert all(done and width > 100 for _, done, width in widths), widths
            rows = page.locator("#timeline tbody tr")
            total = rows.count()
            assert total > 20
            assert page.locator("#timeline tbody tr.promoted").count() == 2
            page.select_option("#timeline-filter", "evaluate")
            visible = page.eval_on_selector_all("#timeline tbody tr", "els => els.filter(e => e.offsetParent !== null).length")
            assert visible == 5
            assert page.locator("#v003 >> text=diff against the incumbent v001").count() == 1
        finally:
            browser.close()
