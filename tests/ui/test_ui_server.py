"""The page's server on loopback: its JSON views against the CLI's answers, and its guards."""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from ui_helpers import (
    ESCAPES,
    SECRET,
    Page,
    cli_process,
    make_tree,
    raw_get,
    seed_memory,
    seed_usage,
    write_skill,
)

from skillshelf.env import Env
from skillshelf.serve.ui import UiOptions, UiServer
from skillshelf.tokens import approx_tokens
from skillshelf.workspace import WorkspaceOptions
from testkit import IsolatedHome, installed


class Served:
    def __init__(self, tmp_path: Path, *, semantic: bool | None = False, watch: bool = False) -> None:
        self.project, self.root = make_tree(tmp_path)
        self.env = Env.from_os(cwd=self.project)
        options = UiOptions(
            workspace=WorkspaceOptions(extra_roots=(self.root,), include_builtin=False), semantic=semantic
        )
        self.server = UiServer(self.env, options, watch=watch).start()
        self.page = Page(self.server.port, self.server.token)

    def cli(self, *args: str) -> str:
        done = cli_process([*args, "--root", str(self.root), "--no-builtin"], self.project)
        assert done.returncode in (0, 1), done.stderr
        return done.stdout

    def close(self) -> None:
        self.page.close()
        self.server.close()


@pytest.fixture
def served(tmp_path: Path, isolated_home: IsolatedHome) -> Iterator[Served]:
    box = Served(tmp_path)
    yield box
    box.close()


# -- security --------------------------------------------------------------------------------


def test_the_server_listens_on_127_0_0_1_and_nowhere_else(served: Served) -> None:
    assert served.server._http.server_address[:2] == ("127.0.0.1", served.server.port)
    assert served.server.url.startswith(f"http://127.0.0.1:{served.server.port}/?token=")
    others = {
        info[4][0]
        for info in socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET)
        if not info[4][0].startswith("127.")
    }
    for address in others:  # the machine's other addresses do not reach the page
        with pytest.raises(OSError), socket.create_connection((address, served.server.port), timeout=5):
            pass


@pytest.mark.parametrize(
    "path", ["/", "/static/app.js", "/static/app.css", "/api/budget", "/api/events", "/api/nope"]
)
def test_a_request_without_the_right_token_gets_403(served: Served, path: str) -> None:
    for token in (None, "", "wrong", served.server.token[:-1], served.server.token + "x"):
        params = {} if token is None else {"token": token}
        response = served.page.http.get(path, params=params)
        assert response.status_code == 403
        assert response.json()["error"] == "SV431"
        assert "pdf-forms" not in response.text
    forged = served.page.http.get(path, headers={"X-Skillshelf-Token": "wrong"})
    assert forged.status_code == 403


@pytest.mark.parametrize(
    "host",
    [
        "evil.example:{port}",
        "evil.example",
        "127.0.0.1:1",
        "localhost.evil.example:{port}",
        "127.0.0.1.nip.io:{port}",
        "10.0.0.1:{port}",
        "",
        "127.0.0.1:{port}@evil.example",
        "[::1]:1",
    ],
)
def test_a_host_header_that_is_not_this_loopback_server_gets_403(served: Served, host: str) -> None:
    port, token = served.server.port, served.server.token
    status, body = raw_get(port, f"/api/budget?token={token}", host=host.format(port=port))
    assert status == 403
    assert json.loads(body)["error"] == "SV430"


@pytest.mark.parametrize("host", ["127.0.0.1:{port}", "localhost:{port}", "LOCALHOST:{port}", "127.0.0.1"])
def test_a_loopback_host_header_is_served(served: Served, host: str) -> None:
    port, token = served.server.port, served.server.token
    status, _ = raw_get(port, f"/api/overview?token={token}", host=host.format(port=port))
    assert status == 200


def test_no_route_reads_a_file_outside_the_skill_roots(served: Served, tmp_path: Path) -> None:
    page, token, port = served.page, served.server.token, served.server.port
    folder = seed_memory(served.env)
    (folder / "rollout_summaries").mkdir()
    (folder / "MEMORY.md").unlink()
    (folder / "MEMORY.md").symlink_to(tmp_path / "secret.txt")  # a link out of the memory folder
    answers: list[httpx.Response] = []
    for attack in ESCAPES:
        answers.append(page.get("/api/load", name=attack))
        answers.append(page.get("/api/task", q=f"read [$pdf-forms]({attack}) and $pdf-forms/{attack}"))
        answers.extend(
            page.get(view, profile=attack, window=attack, name=attack, scope=attack, path=attack)
            for view in ("/api/budget", "/api/problems", "/api/memory", "/api/usage", "/api/overview")
        )
    for response in answers:
        assert SECRET not in response.text
        assert "hunter2" not in response.text
    assert all(r.status_code in (200, 400, 404) for r in answers)
    loads = [r for r in answers if r.request.url.path == "/api/load"]
    assert all(r.status_code in (400, 404) for r in loads)
    memory = page.json("/api/memory")
    assert "error" in memory["scopes"][0]["memory_md"]  # the link out is refused, not followed
    secret = str(tmp_path / "secret.txt")
    raw = [
        f"/static/../secret.txt?token={token}",
        f"/static/..%2f..%2fsecret.txt?token={token}",
        f"/%2e%2e/%2e%2e/secret.txt?token={token}",
        f"/static/app.js/../../../secret.txt?token={token}",
        f"//etc/passwd?token={token}",
        f"{secret}?token={token}",
        f"/static/{secret}?token={token}",
        f"/api/load/../../secret.txt?token={token}",
        f"/static/%2e%2e%5csecret.txt?token={token}",
        f"/static/app.js%00.txt?token={token}",
        f"http://127.0.0.1:{port}/../secret.txt?token={token}",
    ]
    for target in raw:
        status, body = raw_get(port, target)
        assert b"hunter2" not in body
        assert b"root:" not in body
        assert status in (400, 404), target


def test_forgetting_a_memory_needs_the_header_token_the_same_origin_and_json(served: Served) -> None:
    seed_memory(served.env)
    page = served.page
    refused = {
        "no token": page.post(
            "/api/memory/forget", {"session_id": "sess-one"}, headers={"X-Skillshelf-Token": ""}
        ),
        "token in the URL only": page.http.post(
            "/api/memory/forget",
            params={"token": page.token},
            content=b'{"session_id": "sess-one"}',
            headers={"Origin": page.base, "Content-Type": "application/json"},
        ),
        "no origin": page.post("/api/memory/forget", {"session_id": "sess-one"}, headers={"Origin": ""}),
        "other origin": page.post(
            "/api/memory/forget", {"session_id": "sess-one"}, headers={"Origin": "http://evil.example"}
        ),
        "other port": page.post(
            "/api/memory/forget", {"session_id": "sess-one"}, headers={"Origin": "http://127.0.0.1:1"}
        ),
        "cross-site fetch": page.post(
            "/api/memory/forget", {"session_id": "sess-one"}, headers={"Sec-Fetch-Site": "cross-site"}
        ),
        "a form": page.post(
            "/api/memory/forget", {"session_id": "sess-one"}, headers={"Content-Type": "text/plain"}
        ),
    }
    for why, response in refused.items():
        assert response.status_code in (403, 415), why
    assert {m["session_id"]: m["forgotten"] for m in page.json("/api/memory")["scopes"][0]["memories"]} == {
        "sess-one": False,
        "sess-two": False,
    }
    done = page.post("/api/memory/forget", {"session_id": "sess-one"})
    assert done.status_code == 200, done.text
    assert done.json()["forgotten"] == "sess-one"
    memories = {m["session_id"]: m for m in page.json("/api/memory")["scopes"][0]["memories"]}
    assert memories["sess-one"]["forgotten"] and not memories["sess-one"]["memory"]
    assert not memories["sess-two"]["forgotten"]
    assert page.post("/api/memory/forget", {"session_id": "sess-unknown"}).json()["error"] == "ME404"
    assert page.post("/api/memory/forget", {"session_id": ["x"]}).status_code == 400
    assert page.post("/api/memory/forget", ["not", "an", "object"]).status_code == 400


def test_every_answer_carries_a_strict_content_security_policy_and_no_referrer(served: Served) -> None:
    for path in ("/", "/static/app.js", "/api/overview"):
        headers = served.page.get(path).headers
        assert "script-src 'self'" in headers["content-security-policy"]
        assert "default-src 'none'" in headers["content-security-policy"]
        assert headers["referrer-policy"] == "no-referrer"
        assert headers["x-content-type-options"] == "nosniff"
        assert headers["cache-control"] == "no-store"
    page = served.page.get("/")
    assert served.server.token in page.text and "{{TOKEN}}" not in page.text


def test_bad_parameters_are_refused_with_a_fix(served: Served) -> None:
    for path, params in (
        ("/api/budget", {"profile": "vim"}),
        ("/api/budget", {"window": "-1"}),
        ("/api/budget", {"window": "1e9"}),
        ("/api/task", {"q": ""}),
        ("/api/task", {"q": "x" * 5000}),
        ("/api/task", {"q": "pdf", "top": "0"}),
        ("/api/problems", {"profile": "gemini"}),
        ("/api/load", {"name": ""}),
    ):
        response = served.page.get(path, **params)
        assert response.status_code == 400, (path, params)
        assert response.json()["error"] == "SV400" and response.json()["fix"]
    assert served.page.get("/api/nope").status_code == 404


def test_json_answers_carry_an_etag_and_a_repeat_gets_304(served: Served) -> None:
    first = served.page.get("/api/budget")
    etag = first.headers["etag"]
    again = served.page.http.get(
        "/api/budget", params={"token": served.server.token}, headers={"If-None-Match": etag}
    )
    assert again.status_code == 304 and not again.content


# -- the views ---------------------------------------------------------------------------------


@pytest.mark.parametrize("window", [None, 1_000, 2_000, 3_000, 5_000, 272_000])
def test_the_budget_view_has_the_numbers_catalog_json_prints(served: Served, window: int | None) -> None:
    args = ["catalog", "--json"] + ([] if window is None else ["--context-window", str(window)])
    expected = json.loads(served.cli(*args))
    data = served.page.json("/api/budget", **({} if window is None else {"window": window}))
    assert data["catalog"] == expected["report"]
    assert data["catalog_text"] == expected["text"]
    report = data["catalog"]
    states = [s["state"] for s in data["skills"] if s["cause"] in ("budget", "")]
    assert states.count("omitted") == report["omitted"]
    assert len(states) - states.count("omitted") == report["included"]
    assert (
        sum(1 for s in data["skills"] if s["state"] in ("cut", "name_only", "omitted"))
        == report["truncated_count"]
    )


def test_every_state_of_the_catalog_shows_with_its_reason(served: Served) -> None:
    seen: dict[str, str] = {}
    for window in (1_000, 5_000, 272_000):
        for row in served.page.json("/api/budget", window=window)["skills"]:
            seen.setdefault(row["state"], row["reason"])
            if row["state"] == "cut":
                assert 0 < row["kept_chars"] < row["description_chars"]
    assert set(seen) == {"full", "cut", "name_only", "omitted"}
    assert "whole description" in seen["full"]
    assert "one description character at a time" in seen["cut"]
    assert "by name only" in seen["name_only"]
    assert "not even its name fitted" in seen["omitted"]


def test_skill_modes_from_the_config_are_the_reason_given(
    served: Served, isolated_home: IsolatedHome
) -> None:
    config = isolated_home.config / "skillshelf" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(
        '[[skills.config]]\nname = "video-trim"\nmode = "name-only"\n'
        '[[skills.config]]\nname = "release-notes"\nmode = "manual"\n'
        '[[skills.config]]\nname = "pdf-forms"\nmode = "pinned"\n',
        encoding="utf-8",
    )
    served.server.state.reload()
    rows = {r["name"]: r for r in served.page.json("/api/budget", window=272_000)["skills"]}
    assert (
        rows["video-trim"]["state"] == "name_only"
        and "name-only in [[skills.config]]" in rows["video-trim"]["reason"]
    )
    assert rows["release-notes"]["state"] == "omitted" and "manual" in rows["release-notes"]["reason"]
    assert rows["pdf-forms"]["state"] == "full" and "pinned" in rows["pdf-forms"]["reason"]
    parts = {p["name"]: p for p in served.page.json("/api/budget", window=272_000)["parts"]}
    assert parts["pinned"]["tokens"] > 0 and parts["suggestions"]["reserved"]


def test_a_duplicate_name_says_which_copy_wins_and_why(served: Served) -> None:
    (group,) = served.page.json("/api/budget")["duplicates"]
    assert group["name"] == "helper"
    assert group["winner"] == str(served.root / "a" / "helper" / "SKILL.md")
    assert "first in load order" in group["why"] and "path" in group["why"]
    assert "selects none" in group["mention"]
    loaded = served.page.json("/api/load", name="helper")
    assert loaded["data"]["path"] == group["winner"]


def test_the_roots_show_with_their_catalog_alias(served: Served) -> None:
    roots = {r["path"]: r for r in served.page.json("/api/budget", window=272_000)["roots"]}
    extra = roots[str(served.root)]
    assert extra["exists"] and extra["skill_files"] == 5 and extra["alias"] == "r0"


@pytest.mark.parametrize(
    "query", ["merge and fill a pdf form", "trim the video clip", "write release notes for v2"]
)
def test_the_task_view_ranks_as_skillshelf_search(served: Served, query: str) -> None:
    expected = json.loads(served.cli("search", query, "--json", "--no-semantic"))
    data = served.page.json("/api/task", q=query)
    assert [(r["name"], r["path"]) for r in data["ranked"]] == [
        (r["name"], r["path"]) for r in expected["results"]
    ]
    assert [r["score"] for r in data["ranked"]] == pytest.approx(
        [r["score"] for r in expected["results"]], abs=1e-5
    )
    for row in data["ranked"]:  # the signals add up to the score the ranking gave
        assert sum(row["signals"].values()) == pytest.approx(row["score"], abs=1e-4)
        assert set(row["signals"]) <= set(data["signals"])


def test_the_task_view_with_the_installed_models_ranks_as_skillshelf_search(
    tmp_path: Path, isolated_home: IsolatedHome
) -> None:
    installed("wordllama", "the wordllama extra: skillshelf[wordllama]")
    box = Served(tmp_path, semantic=None)
    try:
        query = "fill in a pdf form"
        expected = json.loads(box.cli("search", query, "--json"))
        data = box.page.json("/api/task", q=query)
        assert data["models"] == expected["models"] and data["models"]
        assert [r["path"] for r in data["ranked"]] == [r["path"] for r in expected["results"]]
        for row in data["ranked"]:
            assert sum(row["signals"].values()) == pytest.approx(row["score"], abs=1e-4)
    finally:
        box.close()


def test_the_task_view_shows_the_suggestions_and_what_load_skill_injects(served: Served) -> None:
    data = served.page.json("/api/task", q="fill a pdf form")
    top = data["ranked"][0]
    assert top["name"] == "pdf-forms" and top["suggested"]
    assert data["suggestions"]["text"].startswith("<skill_suggestions>")
    assert str(served.root / "pdf-forms" / "SKILL.md") in data["suggestions"]["sources"]
    loaded = served.page.json("/api/load", name="pdf-forms")
    from skillshelf.serve.loading import open_library

    tool = open_library(served.env, WorkspaceOptions(extra_roots=(served.root,), include_builtin=False)).tools
    assert loaded["text"] == tool.load_skill("pdf-forms").text
    assert loaded["tokens"] == approx_tokens(loaded["text"]) == top["load"]["tokens"]
    assert "scripts/fill.py" in loaded["text"] and "leak.md" not in loaded["text"]
    missing = served.page.get("/api/load", name="pdf-form")
    assert missing.status_code == 404 and "pdf-forms" in missing.json()["fix"] + missing.json()["message"]


def test_mentions_are_resolved_or_the_page_says_why_not(served: Served) -> None:
    data = served.page.json("/api/task", q="use $pdf-forms, $helper and $nothing-here for this")
    rows = {m["mention"]: m for m in data["mentions"]}
    assert rows["$pdf-forms"]["selected"] == str(served.root / "pdf-forms" / "SKILL.md")
    assert rows["$helper"]["selected"] is None and "2 skills are named" in rows["$helper"]["why"]
    assert rows["$nothing-here"]["selected"] is None and "no loadable skill" in rows["$nothing-here"]["why"]
    assert "<name>pdf-forms</name>" in data["mentioned"]["text"]
    slash = served.page.json("/api/task", q="/video-trim from 0:10 to 0:20")["mentions"]
    assert slash == [
        {
            "mention": "/video-trim",
            "selected": str(served.root / "video-trim" / "SKILL.md"),
            "why": slash[0]["why"],
        }
    ]


def test_problems_are_grouped_by_skill_with_their_fix(served: Served) -> None:
    data = served.page.json("/api/problems")
    groups = {g["key"]: g for g in data["groups"]}
    broken = groups[str(served.root / "broken")]
    assert broken["kind"] == "skill" and broken["loaded"] is False
    assert [d["code"] for d in broken["diagnostics"]] == ["SK101"]
    assert broken["diagnostics"][0]["fix"]
    assert data["groups"][0]["key"] == str(served.root / "broken")  # errors first
    assert data["counts"]["error"] >= 1 and data["checked"] == 6
    expected = json.loads(
        cli_process(["validate", "--json", "--profile", "spec", str(served.root)], served.project).stdout
    )
    spec = served.page.json("/api/problems", profile="spec")
    assert sorted((d["code"], d["path"]) for g in spec["groups"] for d in g["diagnostics"]) == sorted(
        (d["code"], d["path"]) for d in expected["diagnostics"]
    )


def test_the_memory_view_shows_each_memory_with_its_session_and_citations(served: Served) -> None:
    assert served.page.json("/api/memory")["db"] is None  # nothing yet, and nothing created
    assert not (served.env.dirs.data / "memory").exists()
    folder = seed_memory(served.env)
    data = served.page.json("/api/memory")
    (scope, *_rest) = data["scopes"]
    assert scope["current"] and scope["in_context"] and scope["folder"] == str(folder)
    assert "make check" in scope["summary"]["text"] and scope["memory_md"]["text"].startswith("# Task Group")
    memories = {m["session_id"]: m for m in scope["memories"]}
    assert memories["sess-one"]["citations"] == 1 and memories["sess-two"]["citations"] == 2
    assert memories["sess-one"]["transcript"] == "/transcripts/sess-one.jsonl"
    assert memories["sess-one"]["source"] == "codex" and "make check" in memories["sess-one"]["memory"]


def test_the_usage_view_has_the_figures_of_skillshelf_stats(served: Served) -> None:
    pdf, notes = str(served.root / "pdf-forms" / "SKILL.md"), str(served.root / "release-notes" / "SKILL.md")
    seed_usage(
        served.env,
        [
            ("t1", {"default": [pdf, notes], "bm25f": [notes, pdf]}, pdf),
            ("t2", {"default": [notes], "bm25f": [pdf]}, notes),
        ],
    )
    data = served.page.json("/api/usage")
    assert data["stats"] == json.loads(cli_process(["stats", "--json"], served.project).stdout)
    assert {(m["name"], m["loads"]) for m in data["most_used"]} == {("pdf-forms", 1), ("release-notes", 1)}
    never = {n["name"] for n in data["never_used"]}
    assert never == {"video-trim", "helper"} and data["loadable"] == 5


def test_a_new_skill_is_announced_on_the_event_stream(tmp_path: Path, isolated_home: IsolatedHome) -> None:
    box = Served(tmp_path, watch=True)
    try:
        before = box.page.json("/api/overview")
        with box.page.http.stream("GET", "/api/events", params={"token": box.server.token}) as stream:
            lines = stream.iter_lines()
            assert next(lines).startswith("retry:")
            assert next(lines) == "event: hello"
            write_skill(box.root, "csv-clean", "Clean CSV files: trim, dedupe, fix encodings.")
            for line in lines:
                if line == "event: change":
                    break
        after = box.page.json("/api/overview")
        assert after["skills"] == before["skills"] + 1 and after["snapshot"] > before["snapshot"]
        assert any(r["name"] == "csv-clean" for r in box.page.json("/api/budget")["skills"])
    finally:
        box.close()
