"""The page in a real browser: Debian's headless Chromium against `skillshelf ui` over the 979
SKILL.md files of ../shared/corpora.

Screenshots of every view are kept in ``build/ui-screenshots`` (or ``$SKILLSHELF_UI_ARTEFACTS``);
the folder is printed. Outside CI the tests skip when Chromium, chromedriver or the corpora are
missing (naming them); under ``CI=true`` that is a failure.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
from chromium import Browser, artefact_dir, find_chromium
from ui_helpers import BODY, seed_memory, start_ui, write_skill

from skillshelf.env import Env
from testkit import CORPORA, REPO, missing, shared_path

VIEWS = ("budget", "task", "problems", "memory", "usage")


@dataclass
class Site:
    url: str
    base: str
    token: str
    project: Path
    extra: Path
    environ: dict[str, str]
    shots: Path

    def cli(self, *args: str) -> dict[str, object]:
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "skillshelf.cli.main",
                *args,
                "--root",
                str(CORPORA),
                "--root",
                str(self.extra),
                "--json",
            ],
            cwd=self.project,
            env=self.environ,
            capture_output=True,
            text=True,
            encoding="utf-8",
            timeout=600,
            check=False,
        )
        assert done.returncode in (0, 1), done.stderr[-2000:]
        result: dict[str, object] = json.loads(done.stdout)
        return result

    def api(self, route: str, **params: object) -> dict[str, object]:
        response = httpx.get(
            f"{self.base}{route}", params={"token": self.token, **params}, timeout=300, trust_env=False
        )
        assert response.status_code == 200, response.text
        data: dict[str, object] = response.json()
        return data


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    if find_chromium() is None:
        missing("Debian's headless Chromium is not installed (apt-get install chromium chromium-driver)")
    shared_path("corpora")
    base = tmp_path_factory.mktemp("ui-browser")
    home = base / "home"
    environ = {k: v for k, v in os.environ.items() if not k.startswith(("SKILLSHELF_", "XDG_"))}
    environ |= {
        "HOME": str(home),
        "CODEX_HOME": str(home / ".codex"),
        "XDG_CACHE_HOME": str(home / ".cache"),
        "XDG_DATA_HOME": str(home / ".local" / "share"),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_STATE_HOME": str(home / ".local" / "state"),
    }
    project = base / "project"
    (project / ".git").mkdir(parents=True)
    (project / "AGENTS.md").write_text(
        "# Working here\n- Run `make check` before every commit.\n" * 40, encoding="utf-8"
    )
    extra = base / "extra"
    write_skill(extra, "local-notes", "Keep notes about this project in NOTES.md.", BODY)
    seed_memory(Env.for_test(cwd=project, home=home, codex_home=home / ".codex"))
    proc, url = start_ui(["--root", str(CORPORA), "--root", str(extra), "--no-semantic"], project, environ)
    base_url, token = url.split("/?token=")
    shots = artefact_dir(REPO / "build" / "ui-screenshots")
    print(f"\nui screenshots: {shots}")
    try:
        yield Site(url, base_url, token, project, extra, environ, shots)
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@pytest.fixture(scope="module")
def browser(site: Site) -> Iterator[Browser]:
    found = find_chromium()
    assert found is not None
    with Browser(*found) as opened:
        yield opened


def _show(browser: Browser, site: Site, view: str) -> None:
    browser.open(f"{site.url}#{view}")
    browser.wait_ready(view, timeout=300)
    assert browser.run("return window.__skillshelf.errors") == []
    assert browser.run("return document.querySelector('#view .callout.error')") is None


def test_each_view_loads_against_the_real_skills(site: Site, browser: Browser) -> None:
    overview = site.api("/api/overview")
    for view in VIEWS:
        _show(browser, site, view)
        shot = browser.screenshot(site.shots / f"{view}.png")
        assert shot.stat().st_size > 10_000
        if view == "problems":  # the corpus' broken files, each under its skill
            assert browser.run("return document.querySelectorAll('.group').length") > 100
    _show(browser, site, "budget")
    rows = browser.run(
        "return [...document.querySelectorAll('#skills-table tbody tr')].map((r) => r.title || '')"
    )
    assert len(rows) == overview["skills"]
    paths = browser.run("return [...document.querySelectorAll('#skills-table td.name')].map((c) => c.title)")
    corpus = str(CORPORA.resolve())
    assert sum(1 for p in paths if p.startswith(corpus)) == 798  # the skills the corpus' 979 files hold
    print(
        f"first paint of the budget view: {browser.run('return window.__skillshelf.rendered.budget'):.0f} ms"
    )


def _cards(browser: Browser) -> dict[str, str]:
    script = (
        "const out = {}; for (const c of document.querySelectorAll('.card')) "
        "out[c.dataset.testid] = c.querySelector('.card-value').textContent; return out;"
    )
    cards: dict[str, str] = browser.run(script)
    return cards


@pytest.mark.parametrize("window", ["", "272000", "1000000"])
def test_the_budget_view_shows_the_numbers_of_catalog_json(site: Site, browser: Browser, window: str) -> None:
    _show(browser, site, "budget")
    if window:
        browser.run(
            "const s = document.getElementById('window'); s.value = arguments[0]; "
            "s.dispatchEvent(new Event('change'));",
            window,
        )
        browser.wait(
            "return document.getElementById('view').dataset.ready && "
            "document.getElementById('window').value === arguments[0]",
            window,
        )
    expected = site.cli("catalog", *(["--context-window", window] if window else []))
    report = expected["report"]
    assert isinstance(report, dict)
    cards = _cards(browser)
    assert cards["included"] == f"{report['included']:,} of {report['total']:,}"
    assert cards["truncated-count"] == f"{report['truncated_count']:,}"
    assert cards["omitted"] == f"{report['omitted']:,}"
    assert cards["budget-used"] == f"{report['budget']['used']:,} / {report['budget']['limit']:,}"
    counts = browser.run(
        "const out = {}; for (const b of document.querySelectorAll('[data-count]')) out[b.dataset.count] = "
        "b.textContent; return out;"
    )
    listed = sum(int(counts[k].replace(",", "")) for k in ("full", "cut", "name_only"))
    assert listed == report["included"]
    assert browser.text("#view details pre.text") == expected["text"]
    browser.screenshot(site.shots / f"budget-window-{window or 'config'}.png", full=False)


@pytest.mark.parametrize("query", ["merge two pdf files", "write a changelog from the git history"])
def test_a_task_typed_in_the_page_shows_the_top_skills_of_skillshelf_search(
    site: Site, browser: Browser, query: str
) -> None:
    _show(browser, site, "task")
    browser.type("#task-input", query)
    browser.click("#task-run")
    browser.wait(  # the first task builds the index cold: minutes on a busy two-core machine
        "return document.querySelector('#ranked-table') && document.getElementById('view').dataset.ready",
        timeout=180,
    )
    shown = browser.run(
        "return [...document.querySelectorAll('#ranked-table tr.ranked')].map((r) => r.dataset.name)"
    )
    expected = site.cli("search", query, "--no-semantic")
    results = expected["results"]
    assert isinstance(results, list)
    assert shown == [r["name"] for r in results]
    browser.click("#ranked-table tr.ranked")
    browser.wait(
        "const p = document.querySelector('tr.detail:not([hidden]) pre'); return p && "
        "p.textContent.startsWith('<skill>')"
    )
    browser.screenshot(site.shots / f"task-{query.split()[0]}.png")


def test_a_skill_the_task_mentions_shows_why_it_is_never_suggested_as_skillshelf_search_says(
    site: Site, browser: Browser
) -> None:
    query = "use $local-notes and keep notes about this project in NOTES.md"
    _show(browser, site, "task")
    browser.type("#task-input", query)
    browser.click("#task-run")
    shown = browser.wait(  # each ranked row: its name and what the "model sees" cell says
        "const rows = [...document.querySelectorAll('#ranked-table tr.ranked')]; "
        "if (!rows.some((r) => r.dataset.name === 'local-notes')) return null; "
        "return rows.map((r) => [r.dataset.name, r.querySelector('.never-suggested')?.textContent ?? null]);",
        timeout=180,
    )
    results = site.cli("search", query, "--no-semantic")["results"]
    assert isinstance(results, list)
    expected = [
        [r["name"], r["never_suggested"] and f"never suggested ({r['never_suggested']})"] for r in results
    ]
    assert shown == expected
    assert ["local-notes", "never suggested (mentioned: the task loads it whole)"] in shown


def test_forgetting_a_memory_asks_first_then_forgets_it(site: Site, browser: Browser) -> None:
    def memories() -> dict[str, bool]:
        scope = site.api("/api/memory")["scopes"][0]  # type: ignore[index]
        return {m["session_id"]: m["forgotten"] for m in scope["memories"]}

    assert memories() == {"sess-one": False, "sess-two": False}
    _show(browser, site, "memory")
    title = site.api("/api/memory")["scopes"][0]["title"]  # type: ignore[index]
    assert title == "This project" and browser.text("section.scope h2").startswith(title)
    browser.click("button[data-forget='sess-one']")
    assert browser.wait("return document.getElementById('confirm').open")
    browser.screenshot(site.shots / "memory-confirm.png", full=False)
    browser.click("#confirm-cancel")
    assert memories() == {"sess-one": False, "sess-two": False}
    browser.click("button[data-forget='sess-one']")
    browser.click("#confirm-ok")
    browser.wait("return document.querySelector(\"tr[data-session='sess-one'].forgotten\")")
    assert memories() == {"sess-one": True, "sess-two": False}
    assert browser.run("return window.__skillshelf.errors") == []


def test_the_memory_card_in_the_context_shows_the_summary_the_model_reads(
    site: Site, browser: Browser
) -> None:
    data = site.api("/api/memory")
    _show(browser, site, "memory")
    assert data["scopes"][0]["in_context"]  # type: ignore[index]
    assert browser.text("section.scope details summary").startswith("Memory summary, as the model reads it")
    assert browser.text("section.scope details pre").strip() == data["in_context"]["text"]  # type: ignore[index]


def test_the_page_follows_a_new_skill(site: Site, browser: Browser) -> None:
    _show(browser, site, "budget")
    before = site.api("/api/overview")["skills"]
    write_skill(site.extra, "fresh-skill", "A skill written while the page is open.", BODY)
    browser.wait(
        "return document.getElementById('where').textContent.includes(arguments[0])",
        f"{before + 1:,} skills",
        timeout=120,
    )
    browser.wait("return document.querySelector('#skills-table tr[data-name=\"fresh-skill\"]')", timeout=120)


def test_the_page_still_answers_in_a_seventh_tab(site: Site, browser: Browser) -> None:
    """A browser keeps 6 connections per host: hidden tabs close their event stream."""
    first = browser._session("GET", "/window")
    _show(browser, site, "usage")
    opened = []
    try:
        for _ in range(6):
            handle = browser._session("POST", "/window/new", {"type": "tab"})["handle"]
            opened.append(handle)
            browser._session("POST", "/window", {"handle": handle})
            browser.open(f"{site.url}#usage")
            browser.wait_ready("usage", timeout=10)
        browser.run("location.hash = 'memory'")
        browser.wait_ready("memory", timeout=10)
        assert browser.text("#live") == "live"
    finally:
        for handle in opened:
            browser._session("POST", "/window", {"handle": handle})
            browser._session("DELETE", "/window")
        browser._session("POST", "/window", {"handle": first})
