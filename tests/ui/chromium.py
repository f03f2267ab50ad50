"""Debian's headless Chromium driven through chromedriver's WebDriver protocol (plain HTTP JSON,
so httpx is all it takes; nothing is downloaded). Used by the browser tests and bench/ui.py."""

from __future__ import annotations

import base64
import os
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

__all__ = ["CHROMIUM_FLAGS", "Browser", "artefact_dir", "find_chromium"]

CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
    "--window-size=1400,1000",
]
_ELEMENT = "element-6066-11e4-a52e-4f735466cecf"


def find_chromium() -> tuple[str, str] | None:
    """(chromium, chromedriver) from the Debian packages, or None when either is missing."""
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    driver = shutil.which("chromedriver")
    return (chromium, driver) if chromium and driver else None


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class Browser:
    """One headless Chromium session (a fresh profile in a temporary folder)."""

    def __init__(self, chromium: str, driver: str) -> None:
        self._profile = tempfile.TemporaryDirectory(prefix="skillshelf-chromium-")
        port = _free_port()
        self._driver = subprocess.Popen(
            [driver, f"--port={port}", "--allowed-ips=127.0.0.1"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        self._http = httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=60, trust_env=False)
        self._wait_ready()
        flags = [*CHROMIUM_FLAGS, f"--user-data-dir={self._profile.name}"]
        caps = {
            "browserName": "chrome",
            "pageLoadStrategy": "eager",
            "goog:chromeOptions": {"binary": chromium, "args": flags},
        }
        self.session = self._call("POST", "/session", {"capabilities": {"alwaysMatch": caps}})["sessionId"]

    def _wait_ready(self) -> None:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                if self._http.get("/status").json()["value"]["ready"]:
                    return
            except (httpx.HTTPError, ValueError, KeyError):
                pass
            time.sleep(0.1)
        raise RuntimeError("chromedriver did not start")

    def _call(self, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
        response = self._http.request(method, path, json={} if body is None and method == "POST" else body)
        value = response.json().get("value")
        if response.status_code >= 400:
            raise RuntimeError(f"WebDriver {path}: {value}")
        return value

    def _session(self, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
        return self._call(method, f"/session/{self.session}{path}", body)

    # -- what tests use ---------------------------------------------------------------------
    def open(self, url: str) -> None:
        self._session("POST", "/url", {"url": url})

    def run(self, script: str, *args: Any) -> Any:
        """Run ``script`` (a function body; ``arguments`` holds ``args``) and return its value."""
        return self._session("POST", "/execute/sync", {"script": script, "args": list(args)})

    def wait(self, script: str, *args: Any, timeout: float = 60.0) -> Any:
        """Poll ``script`` until it returns something truthy."""
        deadline = time.monotonic() + timeout
        while True:
            value = self.run(script, *args)
            if value:
                return value
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out waiting for: {script}")
            time.sleep(0.1)

    def wait_ready(self, view: str, timeout: float = 120.0) -> None:
        """Until the page says ``view`` is rendered (``main[data-ready]``)."""
        self.wait(
            "const r = document.getElementById('view').dataset.ready; return r && "
            "r.startsWith(arguments[0] + ':');",
            view,
            timeout=timeout,
        )

    def find(self, css: str) -> str:
        return str(self._session("POST", "/element", {"using": "css selector", "value": css})[_ELEMENT])

    def click(self, css: str) -> None:
        self._session("POST", f"/element/{self.find(css)}/click")

    def type(self, css: str, text: str) -> None:
        element = self.find(css)
        self._session("POST", f"/element/{element}/clear")
        self._session("POST", f"/element/{element}/value", {"text": text})

    def text(self, css: str) -> str:
        return str(self.run("return document.querySelector(arguments[0]).textContent;", css))

    def screenshot(self, path: Path, *, full: bool = True) -> Path:
        """A PNG of the page: all of it (up to 6,000 pixels high), or the window only."""
        height = int(self.run("return Math.min(document.documentElement.scrollHeight, 6000);"))
        if full:
            self._session("POST", "/window/rect", {"width": 1400, "height": max(height, 900)})
        path.write_bytes(base64.b64decode(self._session("GET", "/screenshot")))
        if full:
            self._session("POST", "/window/rect", {"width": 1400, "height": 1000})
        return path

    def close(self) -> None:
        try:
            self._session("DELETE", "")
        except (RuntimeError, httpx.HTTPError):
            pass
        self._http.close()
        self._driver.terminate()
        try:
            self._driver.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self._driver.kill()
            self._driver.wait()
        self._profile.cleanup()

    def __enter__(self) -> Browser:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def artefact_dir(default: Path) -> Path:
    """Where screenshots are kept: ``$SKILLSHELF_UI_ARTEFACTS``, else ``default``."""
    given = os.environ.get("SKILLSHELF_UI_ARTEFACTS")
    folder = Path(given) if given else default
    folder.mkdir(parents=True, exist_ok=True)
    return folder
