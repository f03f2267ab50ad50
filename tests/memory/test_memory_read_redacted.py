"""Memory reaches a model redacted: a secret in a hand-edited (or old) memory_summary.md or
MEMORY.md is redacted in the summary `context` and SessionStart give, in the lines the prompt
hook and `memory search` give, and in `memory show`; the redacted text is kept (in the process
and in the cache folder, never with the secret) until the file or the redactor changes."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any

import pytest
from memory_helpers import run_cli
from redact_cases import r

from skillshelf.env import Env
from skillshelf.hooks import events
from skillshelf.hooks.payload import parse_input
from skillshelf.memory import read_redacted
from skillshelf.memory.layout import memory_project, project_scope, scope_dir
from skillshelf.memory.read import memory_summary_for, search_memory
from skillshelf.memory.read_redacted import CACHE_FOLDER, redacted_file
from skillshelf.memory.redact import REDACTED


def _staging(password: str) -> str:
    return f"Staging: export PGPASSWORD={password} before psql."


def _project_memory(box: Any, monkeypatch: pytest.MonkeyPatch, *, summary: str, memory: str) -> Env:
    """A project whose memory folder holds ``summary`` and ``MEMORY.md`` lines ``memory``."""
    project = box.home / "proj"
    (project / ".git").mkdir(parents=True)
    monkeypatch.chdir(project)
    env = Env.from_os()
    folder = scope_dir(env.dirs.data, project_scope(memory_project(env.project_root)))
    folder.mkdir(parents=True)
    (folder / "memory_summary.md").write_text(f"## Databases\n- {summary}\n", encoding="utf-8")
    (folder / "MEMORY.md").write_text(f"# Task Group: staging\n{memory}\n", encoding="utf-8")
    return env


def test_the_summary_agents_read_is_redacted(isolated_home: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    password = r(15)
    env = _project_memory(isolated_home, monkeypatch, summary=_staging(password), memory="- none")

    summary = memory_summary_for(env, setting="project")

    assert summary is not None and password not in summary.text
    assert summary.text == f"## Databases\n- {_staging(REDACTED)}"
    assert password in summary.path.read_text(encoding="utf-8")  # the file itself is left as it is


def test_memory_lines_found_are_redacted_in_place(
    isolated_home: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    password, token = r(15), r(14)
    memory = (
        f"- psql on staging: {_staging(password)} (thread_id=t1)\n"
        f"- the staging api token {token} expires in May\n- staging deploys with make ship"
    )
    env = _project_memory(isolated_home, monkeypatch, summary="none", memory=memory)

    hits = search_memory(env, "staging psql", setting="project", record_usage=False)

    shown = {hit.line: hit.text for hit in hits}
    assert shown == {
        1: "# Task Group: staging",
        2: f"- psql on staging: {_staging(REDACTED)} (thread_id=t1)",
        3: f"- the staging api token {REDACTED} expires in May",
        4: "- staging deploys with make ship",
    }
    assert {hit.line: hit.session_id for hit in hits}[2] == "t1"


def test_the_session_start_and_prompt_hooks_give_no_secret_of_memory(
    isolated_home: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    password, other = r(15), r(16)
    memory = f"- psql on staging needs {_staging(other)}"
    env = _project_memory(isolated_home, monkeypatch, summary=_staging(password), memory=memory)
    raw = {"session_id": "s", "cwd": str(env.cwd), "hook_event_name": "SessionStart", "source": "startup"}
    start = parse_input(json.dumps(raw).encode(), "SessionStart")
    ask = {**raw, "hook_event_name": "UserPromptSubmit", "prompt": "run psql against staging"}
    prompt = parse_input(json.dumps(ask).encode(), "UserPromptSubmit")

    summary = events.session_start("claude", start, env, lambda args: None)
    lines = events.user_prompt_submit("claude", prompt, env, lambda args: None)

    assert _staging(REDACTED) in summary and password not in summary
    assert _staging(REDACTED) in lines and other not in lines


def test_context_and_memory_show_give_the_summary_redacted(
    isolated_home: Any, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    password = r(15)
    _project_memory(isolated_home, monkeypatch, summary=_staging(password), memory="- none")

    code, out, err = run_cli(capsys, "context", "--json", "--no-builtin", "--no-suggestions", "psql staging")
    assert code == 0, err
    memory = "".join(p["text"] for p in json.loads(out)["parts"] if p["name"] == "memory")
    code, shown, err = run_cli(capsys, "memory", "show", "--json")

    assert code == 0, err
    assert _staging(REDACTED) in memory and password not in out
    assert _staging(REDACTED) in json.loads(shown)["text"] and password not in shown


def test_the_redacted_text_is_kept_on_disk_without_the_secret(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    password = r(15)
    path, cache = tmp_path / "memory_summary.md", tmp_path / "cache"
    path.write_text(_staging(password), encoding="utf-8")

    assert redacted_file(path, cache=cache) == _staging(REDACTED)

    kept = list((cache / CACHE_FOLDER).iterdir())
    assert len(kept) == 1 and password not in kept[0].read_text(encoding="utf-8")
    assert stat.S_IMODE(kept[0].stat().st_mode) == 0o600
    assert stat.S_IMODE((cache / CACHE_FOLDER).stat().st_mode) == 0o700
    monkeypatch.setattr(read_redacted, "_kept", {})  # a fresh process: only the disk keeps it

    def no_redaction(raw: str) -> str:
        raise AssertionError("redacted again")

    monkeypatch.setattr(read_redacted, "_redacted", no_redaction)
    assert redacted_file(path, cache=cache) == _staging(REDACTED)


@pytest.mark.parametrize("change", ["file", "redactor"])
def test_a_changed_file_or_redactor_is_redacted_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, change: str
) -> None:
    path, cache = tmp_path / "MEMORY.md", tmp_path / "cache"
    path.write_text(_staging(r(15)), encoding="utf-8")
    assert redacted_file(path, cache=cache) == _staging(REDACTED)
    monkeypatch.setattr(read_redacted, "_kept", {})
    calls: list[str] = []
    redact = read_redacted._redacted

    def counted(raw: str) -> str:
        calls.append(raw)
        return redact(raw)

    monkeypatch.setattr(read_redacted, "_redacted", counted)
    if change == "file":
        path.write_text(_staging(r(15)) + "\nplus a line", encoding="utf-8")
    else:
        stamp = read_redacted._redactor_stamp()
        monkeypatch.setattr(read_redacted, "_redactor_stamp", lambda: [*stamp, ["new.py", 1, 1]])

    out = redacted_file(path, cache=cache)

    assert len(calls) == 1 and out is not None and out.startswith(_staging(REDACTED))


def test_a_file_that_cannot_be_read_gives_none(tmp_path: Path) -> None:
    fifo = tmp_path / "memory_summary.md"
    os.mkfifo(fifo)
    assert redacted_file(fifo, cache=tmp_path / "cache") is None
    assert redacted_file(tmp_path / "missing.md", cache=None) is None
