"""`skillshelf memory run` against a second database after the default one consolidated a
project: refused with ME053 and its fix (exit 1, no traceback), the folder and what `memory
show` gives unchanged; `--force` moves the folder aside whole and consolidates in its place."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
from memory_helpers import ScriptedModel, run_cli, write_skillshelf_transcript

from skillshelf.memory.layout import project_scope, scope_dir
from skillshelf.memory.origin import SET_ASIDE_FOLDER


def _run(capsys: pytest.CaptureFixture[str], model: ScriptedModel, sessions: Path, *extra: str) -> Any:
    argv = ["memory", "run", "--sessions", str(sessions), "--model", "openai:small"]
    return run_cli(capsys, *argv, "--base-url", model.url + "/v1", "--min-idle-hours", "0.5", *extra)


def test_a_run_against_another_database_leaves_the_consolidated_folder_and_says_how_to_fix_it(
    project: Path, isolated_home: Any, scripted_model: ScriptedModel, capsys: pytest.CaptureFixture[str]
) -> None:
    sessions = isolated_home.home / "t"
    write_skillshelf_transcript(
        sessions / "0.jsonl",
        session_id="s-0",
        cwd=project,
        task="tests use make check",
        mtime=time.time() - 3600,
    )
    code, _, err = _run(capsys, scripted_model, sessions)
    assert code == 0, err
    folder = scope_dir(isolated_home.data / "skillshelf", project_scope(project))
    summary = (folder / "memory_summary.md").read_text(encoding="utf-8")
    code, shown, _ = run_cli(capsys, "memory", "show")
    assert code == 0 and summary.strip() in shown
    second = str(isolated_home.home / "second.sqlite")

    code, out, err = _run(capsys, scripted_model, sessions, "--db", second)

    assert code == 1 and "Traceback" not in err
    assert "skillshelf: refused" in err and "ME053" in err and "--force" in err
    assert (folder / "memory_summary.md").read_text(encoding="utf-8") == summary
    assert run_cli(capsys, "memory", "show")[1] == shown

    code, out, err = _run(capsys, scripted_model, sessions, "--db", second, "--json")
    report = json.loads(out)
    assert code == 1 and report["phase2"][0]["status"] == "other_database"
    assert report["refused"] and "ME053" in report["refused"][0]

    code, out, err = _run(capsys, scripted_model, sessions, "--db", second, "--force", "--json")

    report = json.loads(out)
    assert code == 0, err
    aside = Path(report["phase2"][0]["set_aside"])
    assert aside.parent.name == SET_ASIDE_FOLDER and aside.parent.parent == folder.parent.parent
    assert (aside / "memory_summary.md").read_text(encoding="utf-8") == summary
    assert (folder / "memory_summary.md").read_text(encoding="utf-8") != summary
