"""`skillshelf ui`: first paint of the context budget view over the 979 real skills.

    python bench/ui.py [--root DIR] [--runs 7]

Starts `skillshelf ui --root ../shared/corpora` (a real process, a temporary home so the user's
folders are not touched) and measures, warm (the parsed-skill cache filled and the page loaded
once before):

1. ``GET /api/budget``: the server's time to answer the budget view's data (p50 / max);
2. first paint of the budget view in Debian's headless Chromium: from the start of the
   navigation to the frame after the view's 800 rows are in the page (the page records it as
   ``window.__skillshelf.rendered.budget``), p50 / max over ``--runs`` fresh navigations.

Target: first paint <= 1,000 ms warm. There is no reference tool to compare with: neither Codex
nor Claude Code shows its catalog's cuts. Chromium is driven as the browser tests drive it
(tests/ui/chromium.py, chromedriver's WebDriver protocol); without it only (1) is measured.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

REPO = Path(__file__).resolve().parents[1]
CORPORA = Path(os.environ.get("SKILLSHELF_SHARED", REPO.parent / "shared")).resolve() / "corpora"
TARGET_MS = 1000.0
sys.path.insert(0, str(REPO / "tests" / "ui"))  # the browser driver the tests use

from chromium import Browser, find_chromium  # noqa: E402


def _environ(home: Path) -> dict[str, str]:
    environ = {k: v for k, v in os.environ.items() if not k.startswith(("SKILLSHELF_", "XDG_"))}
    return environ | {"HOME": str(home), "CODEX_HOME": str(home / ".codex")}


def _start(root: Path, home: Path) -> tuple[subprocess.Popen[str], str]:
    project = home / "project"
    (project / ".git").mkdir(parents=True, exist_ok=True)
    proc = subprocess.Popen(
        [sys.executable, "-m", "skillshelf.cli.main", "ui", "--root", str(root), "--no-watch"],
        cwd=project,
        env=_environ(home),
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        encoding="utf-8",
    )
    assert proc.stdout is not None
    match = re.search(r"http://\S+", proc.stdout.readline())
    if match is None:
        proc.kill()
        raise SystemExit("skillshelf ui did not print its URL")
    return proc, match.group(0)


def _ms(values: list[float]) -> str:
    return f"p50 {statistics.median(values):7.1f} ms   max {max(values):7.1f} ms"


def budget_api(url: str, runs: int) -> list[float]:
    base, token = url.split("/?token=")
    times: list[float] = []
    with httpx.Client(timeout=120, trust_env=False) as client:
        client.get(f"{base}/api/budget", params={"token": token}).raise_for_status()  # warm
        for _ in range(runs):
            start = time.perf_counter()
            response = client.get(f"{base}/api/budget", params={"token": token})
            times.append((time.perf_counter() - start) * 1000)
            response.raise_for_status()
        skills = len(response.json()["skills"])
    print(f"GET /api/budget ({skills} skills, {len(response.content):,} bytes): {_ms(times)}")
    return times


def first_paint(url: str, runs: int) -> list[float] | None:
    found = find_chromium()
    if found is None:
        print("first paint: skipped (Debian's chromium and chromium-driver are not installed)")
        return None
    times: list[float] = []
    with Browser(*found) as browser:
        for i in range(runs + 1):
            browser.open("about:blank")
            browser.open(url)
            browser.wait("return window.__skillshelf && window.__skillshelf.rendered.budget")
            if i:  # the first load warms the browser's and the server's caches
                times.append(float(browser.run("return window.__skillshelf.rendered.budget")))
    verdict = "within" if statistics.median(times) <= TARGET_MS else "OVER"
    print(
        f"first paint of the budget view (Chromium, warm): {_ms(times)}   {verdict} the "
        f"{TARGET_MS:.0f} ms target"
    )
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", type=Path, default=CORPORA)
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    if not args.root.is_dir():
        raise SystemExit(f"no skills at {args.root}")
    with tempfile.TemporaryDirectory(prefix="skillshelf-bench-ui-") as folder:
        home = Path(folder)
        warm, _ = _start(args.root, home)  # fills the parsed-skill cache
        warm.terminate()
        warm.wait()
        proc, url = _start(args.root, home)
        try:
            print(f"skills root: {args.root}")
            budget_api(url, args.runs)
            first_paint(url, args.runs)
        finally:
            proc.terminate()
            proc.wait()


if __name__ == "__main__":
    main()
