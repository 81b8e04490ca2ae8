"""Headless Chromium from Debian's packages, driven by Selenium through the matching
`chromedriver` (the `chromium-driver` package): no browser download, no network.

Selenium is synchronous and the server under test runs in the test's event loop, so each
browser step runs in a thread (`await browser.step(...)`) and the loop keeps serving.
"""

from __future__ import annotations

import asyncio
import shutil
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.remote.webelement import WebElement

T = TypeVar("T")
BROWSER = ("chromium", "chromium-browser")
DRIVER = "chromedriver"
MISSING = (
    "no Chromium here: the browser tests need Debian's `chromium` and `chromium-driver` "
    "(`apt-get install -y chromium chromium-driver`, as .ci/run does)"
)


def executables() -> tuple[str, str] | None:
    browser = next((p for p in map(shutil.which, BROWSER) if p), None)
    driver = shutil.which(DRIVER)
    return (browser, driver) if browser and driver else None


@contextmanager
def chromium(width: int = 1280, height: int = 860) -> Iterator[Browser]:
    """A headless Chromium, or the test skips (saying what to install)."""
    found = executables()
    if found is None:
        pytest.skip(MISSING)
    browser_path, driver_path = found
    options = webdriver.ChromeOptions()
    options.binary_location = browser_path
    for flag in (
        "--headless=new",
        "--no-sandbox",  # root in CI containers has no user namespace for the sandbox
        "--disable-dev-shm-usage",
        "--disable-gpu",
        f"--window-size={width},{height}",
    ):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(executable_path=driver_path), options=options)
    try:
        yield Browser(driver)
    finally:
        driver.quit()


class Browser:
    def __init__(self, driver: WebDriver) -> None:
        self.driver = driver

    async def step(self, action: Callable[..., T], *args: Any) -> T:
        return await asyncio.to_thread(action, *args)

    async def open(self, url: str) -> None:
        await self.step(self.driver.get, url)

    async def find(self, css: str) -> WebElement:
        return await self.step(self.driver.find_element, By.CSS_SELECTOR, css)

    async def type_into(self, css: str, text: str, *, replace: bool = False) -> None:
        element = await self.find(css)
        if replace:
            await self.step(element.clear)
        await self.step(element.send_keys, text)

    async def click(self, css: str) -> None:
        await self.step((await self.find(css)).click)

    async def text(self, css: str) -> str:
        value: str = await self.step(lambda: self.driver.find_element(By.CSS_SELECTOR, css).text)
        return value

    async def wait_for(
        self, check: Callable[[WebDriver], object], what: str, timeout: float = 20
    ) -> None:
        """Until `check(driver)` is truthy (the page may change under it: each try rereads)."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                if await self.step(check, self.driver):
                    return
            except Exception:
                pass
            if time.monotonic() > deadline:
                source = await self.step(lambda: self.driver.page_source)
                raise AssertionError(f"{what} not seen in {timeout}s:\n{source[:3000]}")
            await asyncio.sleep(0.1)

    async def screenshot(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        assert await self.step(self.driver.save_screenshot, str(path))
