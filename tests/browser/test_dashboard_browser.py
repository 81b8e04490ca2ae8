"""The dashboard in a real browser: sign in with a key, decide a real pending approval on
the inbox page (an edit the tool's schema refuses first, shown at its field), and watch
the run page follow the run to its end over its event stream, without a reload. The
screenshots it takes are the README's (docs/screenshots/) when PERDURE_SCREENSHOTS=docs,
else they go to the test's temporary folder (a run leaves the tree as it was)."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from sqlalchemy.ext.asyncio import AsyncEngine

from app.domain.principal import ALL_SCOPES
from app.main import create_app
from app.settings import Settings
from tests.browser.chromium import MISSING, chromium, executables
from tests.conftest import wait_status
from tests.dashboard import bearer, gated_agent, paused_on_approval
from tests.integration.test_tenancy import make_key
from tests.serving import serving

DOCS_SHOTS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"


def status_is(status: str) -> Callable[[WebDriver], bool]:
    def check(driver: WebDriver) -> bool:
        element = driver.find_element(By.ID, "run-status")
        return element.get_attribute("data-status") == status

    return check


async def test_approve_in_the_inbox__the_run_page_follows_it_to_the_end(
    settings: Settings, engine: AsyncEngine, tmp_path: Path
) -> None:
    shots = DOCS_SHOTS if os.environ.get("PERDURE_SCREENSHOTS") == "docs" else tmp_path
    if executables() is None:  # before a server and a key are made for nothing
        pytest.skip(MISSING)
    key = await make_key(engine, "acme", ALL_SCOPES)
    app = create_app(settings, pool_concurrency=4, open_when_keyless=False)
    async with serving(app) as url, httpx.AsyncClient(base_url=url, timeout=30) as api:
        defined = await api.post("/v1/agents", json=gated_agent(), headers=bearer(key))
        assert defined.status_code == 201, defined.text
        run = await paused_on_approval(api, key, "order-1042")
        approval = run["pending_approvals"][0]["id"]

        with chromium() as browser:
            await browser.open(f"{url}/ui/runs")  # no cookie yet: the login page
            await browser.wait_for(lambda d: d.current_url.endswith("/ui/login"), "login page")
            await browser.type_into("#key", "pdk_not-a-key")
            await browser.click("button[type=submit]")
            await browser.wait_for(lambda d: d.find_element(By.ID, "login-error"), "refusal")
            await browser.screenshot(shots / "login.png")
            await browser.type_into("#key", key, replace=True)
            await browser.click("button[type=submit]")
            await browser.wait_for(lambda d: d.current_url.endswith("/ui/runs"), "runs page")
            assert "order-1042" in await browser.text("#runs")
            await browser.screenshot(shots / "runs.png")

            await browser.open(f"{url}/ui/approvals")
            form = f"#approval-{approval}"
            assert '"amount": 500' in await browser.text(f"{form} textarea")
            await browser.type_into(f"{form} textarea", '{"amount": "all of it"}', replace=True)
            await browser.click(f"{form} button[value=approve]")
            await browser.wait_for(lambda d: d.find_element(By.CSS_SELECTOR, ".field-errors"), "")
            assert "amount" in await browser.text(f"{form} .field-errors")
            await browser.screenshot(shots / "approvals.png")
            assert (await api.get(f"/v1/approvals/{approval}", headers=bearer(key))).json()[
                "status"
            ] == "pending"

            await browser.type_into(f"{form} textarea", '{"amount": 450}', replace=True)
            await browser.type_into(f"{form} input[name=reason]", "capped at 450")
            await browser.click(f"{form} button[value=approve]")
            await browser.wait_for(
                lambda d: d.current_url.endswith(f"/ui/runs/{run['id']}"), "the run page"
            )
            await browser.wait_for(status_is("finished"), "the run finished", timeout=30)
            assert "charged" in await browser.text("#output")
            await browser.screenshot(shots / "run.png")

            # Live: a run page open while its run waits follows it over the run's event
            # stream, without a reload (the marker set on this page's window survives).
            second = await paused_on_approval(api, key, "order-1043")
            await browser.open(f"{url}/ui/runs/{second['id']}")
            await browser.wait_for(status_is("awaiting_approval"), "the paused run")
            await browser.step(browser.driver.execute_script, "window.notReloaded = true")
            decided = await api.post(
                f"/v1/approvals/{second['pending_approvals'][0]['id']}/decision",
                json={"approved": False, "reason": "not today"},
                headers=bearer(key),
            )
            assert decided.status_code == 200, decided.text
            await browser.wait_for(status_is("finished"), "the live update", timeout=30)
            assert await browser.step(browser.driver.execute_script, "return window.notReloaded")

        finished = await wait_status(api, run["id"], {"finished"}, headers=bearer(key))
        assert finished["output"] == "charged"
        tool = await api.get("/v1/sessions/order-1042/messages", headers=bearer(key))
        results = [m["content"] for m in tool.json()["items"] if m["role"] == "tool"]
        assert [r["echo"] for r in results] == [{"amount": 450}]
