"""The README's "Dashboard in brief", step by step, as a newcomer would follow it.

The commands are read from the README itself and run as written (only the ports
are moved to free ones and results go to a temporary directory), in a shell from
the checkout; what each step says the page shows is checked in a real Chromium.
If the README changes, this test follows it or fails.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.browser import RUN_TIMEOUT_MS, launch_browser
from tests.support.dashboard import PHONE, check_layout, click_generate, resize
from tests.support.paths import REPO
from tests.support.server import ServerProcess, free_port, uvicorn_ready

# Three whole runs and four server starts, each bounded on its own (a run by
# RUN_TIMEOUT_MS, which alone equals the suite's 300 s per test): the walk as a whole
# gets room for all of them on a loaded machine.
pytestmark = [pytest.mark.e2e, pytest.mark.browser, pytest.mark.timeout(900)]


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    yield from launch_browser()


def readme_commands() -> list[str]:
    text = (REPO / "README.md").read_text()
    section = text.split("## Dashboard in brief", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```bash\n(.*?)```", section, flags=re.S)
    return [b.replace("\\\n", " ").strip() for b in blocks]


class Shell:
    """Commands as a user types them, from the checkout, on this test's ports."""

    def __init__(self, tmp: Path) -> None:
        self.web_port, self.api_port = free_port(), free_port()
        self.env = {
            k: v for k, v in os.environ.items() if not k.startswith(("CODREAMER_", "FRONTEND"))
        }
        self.env |= {
            "CODREAMER_WEB_PORT": str(self.web_port),
            "CODREAMER_API_PORT": str(self.api_port),
            "CODREAMER_RESULTS_DIR": str(tmp / "results"),
        }
        self.server: ServerProcess | None = None
        self.log = tmp / "server.log"

    def ports(self, command: str) -> str:
        command = re.sub(r"(127\.0\.0\.1|localhost):3000", rf"\g<1>:{self.web_port}", command)
        return re.sub(r"(127\.0\.0\.1|localhost):8000", rf"\g<1>:{self.api_port}", command)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.web_port}"

    def start(self, command: str, wait_api: bool = False) -> None:
        """Start `command` and return once its servers say they listen."""
        self.stop()
        ports = [self.web_port] + ([self.api_port] if wait_api else [])
        self.server = ServerProcess(
            ["bash", "-c", self.ports(command)],
            cwd=REPO,
            env=self.env,
            log=self.log,
            ready=[uvicorn_ready(p) for p in ports],
        ).start(timeout=90)

    def run(self, command: str) -> str:
        done = subprocess.run(
            ["bash", "-c", self.ports(command)],
            cwd=REPO,
            env=self.env,
            capture_output=True,
            timeout=60,
        )
        assert done.returncode == 0, done.stderr.decode()
        return done.stdout.decode()

    def stop(self) -> None:
        """Ctrl-C, as the README says; then make sure."""
        if self.server is not None:
            self.server.stop(signal.SIGINT, grace_s=20, group=True)
            self.server = None


def step(name: str) -> None:
    """Say which step runs, with the time, so a failure or a timeout shows where it stood."""
    print(f"{time.monotonic():.1f} {name}", flush=True)


def generate_and_wait(page: Any) -> str:
    run_id = click_generate(page)
    step(f"run {run_id} started")
    page.wait_for_selector(f"#email-meta:has-text('run {run_id} · final')", timeout=RUN_TIMEOUT_MS)
    step(f"run {run_id} final")
    page.wait_for_selector(f"#run-status:has-text('{run_id} · succeeded')", timeout=60_000)
    return run_id


def test_readme_dashboard_section(browser: Any, tmp_path: Path) -> None:
    commands = readme_commands()
    assert len(commands) == 4, commands  # web, a webhook by hand, serve, serve with a key
    web, post_by_hand, serve, protected = commands
    assert web == "uv run codreamer web" and serve == "uv run codreamer serve"
    password = re.search(r"CODREAMER_WEB_PASSWORD=(\S+)", protected).group(1)  # type: ignore[union-attr]

    sh = Shell(tmp_path)
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.set_default_timeout(60_000)
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        step("1. The dashboard alone")
        # 1. The dashboard alone: mock data, and how to start the backend.
        sh.start(web)
        page.goto(sh.url)
        page.locator("#mock-banner").wait_for(state="visible")
        assert "uv run codreamer" in page.locator("#mock-banner").inner_text()

        step("2. A result by hand")
        # 2. A result by hand: it appears without a reload.
        page.evaluate("window.__noReload = 1")
        answer = json.loads(sh.run(post_by_hand))
        assert answer["status"] == "accepted"
        hook = json.loads((REPO / "examples" / "webhook-final.json").read_text())
        page.wait_for_selector(f"#email-subject:has-text('{hook['final_email']['subject']}')")
        assert page.locator("#mock-banner").is_hidden()
        assert page.locator("#email-citations a").count() == len(hook["final_email"]["citations"])
        assert page.evaluate("window.__noReload") == 1

        step("3. With the backend")
        # 3. With the backend: a preset prospect, one click, the final email.
        sh.start(serve, wait_api=True)
        page.goto(sh.url)
        page.wait_for_selector("#backend-pill:has-text('connected')")
        page.wait_for_selector("#preset option:nth-child(2)", state="attached")
        page.select_option("#preset", index=1)
        generate_and_wait(page)
        assert page.locator("#email-body p").count() >= 3
        page.click("#reward-details summary")
        assert "oracle" in page.locator("#reward-details").inner_text()
        assert page.locator(".reward-table tbody tr").count() >= 2

        step("4. Our own graph")
        # 4. Our own graph, drawn whole on a phone.
        page.select_option("#preset", index=0)
        scenario = json.loads((REPO / "examples" / "scenario-clinic-ops.json").read_text())
        page.set_input_files("#graph-file", str(REPO / "examples" / "graph-16-nodes.json"))
        page.fill("#p-name", scenario["prospect"]["name"])
        page.fill("#p-company", scenario["prospect"]["company"])
        page.fill("#p-goal", scenario["goal"])
        generate_and_wait(page)
        assert scenario["prospect"]["name"].split()[0] in page.locator("#email-body").inner_text()
        resize(page, *PHONE)
        page.wait_for_selector("svg.graph-svg g.node >> nth=15")
        check_layout(page, expect_nodes=16)

        step("5. A protected backend")
        # 5. A protected backend: sign in once, then one click.
        sh.start(protected, wait_api=True)
        page.goto(sh.url)
        page.wait_for_selector("#signin-form")
        assert page.locator("#generate").count() == 0
        page.fill("#password", password)
        page.click("#signin")
        page.wait_for_selector("#backend-pill:has-text('connected')")
        generate_and_wait(page)
        assert not errors, errors
    finally:
        context.close()
        sh.stop()
