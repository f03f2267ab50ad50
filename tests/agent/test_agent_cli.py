"""`skillshelf run` end to end: a real loopback model server, real skills, real state folders."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from skillshelf import context_parts
from skillshelf.cli.main import cli
from skillshelf.errors import UsageError


def _project(tmp_path: Path) -> Path:
    project = tmp_path / "proj"
    (project / ".git").mkdir(parents=True)
    for name, text in {
        "pdf-forms": "Fill and flatten the fields of PDF forms.",
        "release-notes": "Write release notes from merged changes.",
    }.items():
        folder = project / ".agents" / "skills" / name
        folder.mkdir(parents=True)
        (folder / "SKILL.md").write_text(
            f"---\nname: {name}\ndescription: {text}\n---\nSteps for {name}.\n", encoding="utf-8"
        )
    return project


def test_run_loads_a_skill_writes_a_transcript_and_feeds_the_shadow_metrics(
    tmp_path: Path, isolated_home: Any, model_standin: Any, monkeypatch: Any
) -> None:
    project = _project(tmp_path)
    monkeypatch.chdir(project)
    standin = model_standin(
        [
            {"tool_call": {"name": "load_skill", "arguments": {"name": "pdf-forms"}}},
            {"text": "The form is filled."},
        ]
    )
    args = [
        "run",
        "fill in the fields of the PDF form",
        "--model",
        "openai:standin",
        "--base-url",
        standin.url + "/v1",
        "--shadow-metrics",
        "--no-builtin",
        "--json",
    ]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output
    outcome = json.loads(result.output)
    assert outcome["final_text"] == "The form is filled." and outcome["stopped"] == "answer"
    assert [e["kind"] for e in outcome["events"]] == ["skill_loaded"]
    records = [
        json.loads(line) for line in Path(outcome["transcript"]).read_text(encoding="utf-8").splitlines()
    ]
    assert records[0]["type"] == "session_meta" and records[0]["origin"] == "run"
    assert any(r["type"] == "tool_result" and "<name>pdf-forms</name>" in r["output"] for r in records)
    first = json.dumps(standin.requests()[0]["body"])
    assert "pdf-forms" in first and "<skills_instructions>" in first  # the catalog is in the system prompt
    stats = json.loads(CliRunner().invoke(cli, ["stats", "--json"]).output)
    assert stats["turns"] == 1 and stats["loads"] == 1 and stats["scored_loads"] == 1
    default = next(s for s in stats["selectors"] if s["selector"] == "default")
    assert default["hit@1"] == 1.0


def test_run_prints_the_transcript_path_whole_on_one_line(
    tmp_path: Path, isolated_home: Any, model_standin: Any, monkeypatch: Any
) -> None:
    monkeypatch.chdir(_project(tmp_path))
    standin = model_standin([{"text": "Done."}])
    args = ["run", "say done", "--model", "openai:standin", "--base-url", standin.url + "/v1", "--no-builtin"]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output
    line = next(x for x in result.stderr.splitlines() if x.startswith("transcript: "))
    path = Path(line.removeprefix("transcript: "))
    assert len(str(path)) > 80 and path.is_file()  # longer than a terminal line, yet not wrapped


def test_a_skill_the_task_mentions_counts_as_used_but_not_as_found_by_the_ranking(
    tmp_path: Path, isolated_home: Any, model_standin: Any, monkeypatch: Any
) -> None:
    monkeypatch.chdir(_project(tmp_path))
    reads: list[str] = []
    read = context_parts.read_skill_fragment
    monkeypatch.setattr(context_parts, "read_skill_fragment", lambda s: reads.append(s.name) or read(s))
    standin = model_standin([{"text": "Notes written."}])
    model = ["--model", "openai:standin", "--base-url", standin.url + "/v1", "--no-builtin"]
    result = CliRunner().invoke(cli, ["run", "use $release-notes for v2", *model, "--shadow-metrics"])
    assert result.exit_code == 0, result.output
    assert "Steps for release-notes." in json.dumps(standin.requests()[0]["body"])
    assert reads == ["release-notes"]  # the message and the turn's parts share one read
    stats = json.loads(CliRunner().invoke(cli, ["stats", "--json"]).output)
    assert (stats["turns"], stats["loads"], stats["scored_loads"]) == (1, 1, 0)
    assert stats["top_skills"][0]["path"].endswith("release-notes/SKILL.md")


def test_run_without_a_model_is_a_usage_error(isolated_home: Any, monkeypatch: Any) -> None:
    monkeypatch.delenv("SKILLSHELF_MODEL", raising=False)
    result = CliRunner().invoke(cli, ["run", "anything"])
    assert isinstance(result.exception, UsageError) and result.exception.code == "AG004"
    assert result.exception.exit_code == 2


_CALC = "def add(a, b):\n    return a + b\n"
_TEST = "import calc\n\nassert calc.add(2, 3) == 5, 'add is broken'\nprint('ok')\n"
_BREAK = {
    "tool_call": {"name": "write_file", "arguments": {"path": "calc.py", "content": _CALC.replace("+", "-")}}
}
_RUN_CHECK = {"tool_call": {"name": "bash", "arguments": {"command": "python3 test_calc.py"}}}


@pytest.mark.parametrize(
    ("script", "status", "exit_code", "reason"),
    [
        (
            [_BREAK, {"text": "Done."}, {"text": "Done, trust me."}],
            "not_run",
            None,
            "no check ran after the last edit",
        ),
        ([_BREAK, _RUN_CHECK, {"text": "Done."}, {"text": "Done, trust me."}], "failed", 1, None),
    ],
    ids=["never-checked", "checked-and-failed"],
)
def test_a_final_answer_that_talks_past_a_failing_check_is_recorded_and_exits_1(
    tmp_path: Path,
    isolated_home: Any,
    model_standin: Any,
    monkeypatch: Any,
    script: list[dict[str, Any]],
    status: str,
    exit_code: int | None,
    reason: str | None,
) -> None:
    project = tmp_path / "calc"
    project.mkdir()
    (project / "calc.py").write_text(_CALC, encoding="utf-8")
    (project / "test_calc.py").write_text(_TEST, encoding="utf-8")
    monkeypatch.chdir(project)
    standin = model_standin(script)
    args = ["run", "fix calc", "--model", "openai:standin", "--base-url", standin.url + "/v1"]
    result = CliRunner().invoke(cli, [*args, "--check", "python3 test_calc.py", "--no-builtin", "--json"])
    outcome = json.loads(result.output)
    assert outcome["stopped"] == "answer" and outcome["final_text"] == "Done, trust me."
    assert outcome["check"] == {
        "status": status,
        "command": "python3 test_calc.py",
        "exit_code": exit_code,
        "required": True,
        "reason": reason,
    }
    assert result.exit_code == 1
    assert [e["kind"] for e in outcome["events"]] == ["send_back"]
    (project / "calc.py").write_text(_CALC, encoding="utf-8")
    again = model_standin(script)
    args[-1] = again.url + "/v1"
    text = CliRunner().invoke(cli, [*args, "--check", "python3 test_calc.py", "--no-builtin"])
    assert text.exit_code == 1 and "not verified: `python3 test_calc.py`" in text.output


def test_a_checked_answer_exits_0_and_says_the_check_passed(
    tmp_path: Path, isolated_home: Any, model_standin: Any, monkeypatch: Any
) -> None:
    project = tmp_path / "calc"
    project.mkdir()
    (project / "test_calc.py").write_text(_TEST, encoding="utf-8")
    monkeypatch.chdir(project)
    write = {"tool_call": {"name": "write_file", "arguments": {"path": "calc.py", "content": _CALC}}}
    standin = model_standin([write, _RUN_CHECK, {"text": "Fixed; test_calc.py passes."}])
    args = ["run", "fix calc", "--model", "openai:standin", "--base-url", standin.url + "/v1"]
    result = CliRunner().invoke(cli, [*args, "--check", "python3 test_calc.py", "--no-builtin", "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["check"]["status"] == "passed"


def test_run_tells_the_user_not_the_model_of_a_config_setting_it_ignores(
    tmp_path: Path, isolated_home: Any, model_standin: Any, monkeypatch: Any
) -> None:
    project = _project(tmp_path)
    monkeypatch.chdir(project)
    isolated_home.write_user_config("[select]\nmax_suggestions = -3\n")
    standin = model_standin([{"text": "Done."}])
    args = ["run", "say done", "--model", "openai:standin", "--base-url", standin.url + "/v1", "--no-builtin"]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output
    assert "CF102" in result.stderr and "max_suggestions" in result.stderr
    assert result.stdout.strip() == "Done."
    assert "max_suggestions" not in json.dumps(standin.requests()[0]["body"])


def test_a_check_whose_echoed_status_cannot_be_read_is_reported_with_why(
    tmp_path: Path, isolated_home: Any, model_standin: Any, monkeypatch: Any
) -> None:
    project = tmp_path / "calc"
    project.mkdir()
    (project / "calc.py").write_text(_CALC, encoding="utf-8")
    (project / "test_calc.py").write_text("import time\n\ntime.sleep(30)\n", encoding="utf-8")
    monkeypatch.chdir(project)
    slow = {
        "tool_call": {"name": "bash", "arguments": {"command": "python3 test_calc.py; echo $?", "timeout": 1}}
    }
    standin = model_standin([_BREAK, slow, {"text": "Done."}, {"text": "Done, trust me."}])
    args = ["run", "fix calc", "--model", "openai:standin", "--base-url", standin.url + "/v1"]
    text = CliRunner().invoke(cli, [*args, "--check", "python3 test_calc.py", "--no-builtin"])
    assert text.exit_code == 1
    assert "not verified: `python3 test_calc.py; echo $?` counts as failed: " in text.output
    assert "exit code None" not in text.output


_LS = {"tool_call": {"name": "bash", "arguments": {"command": "ls"}}}


@pytest.mark.parametrize("as_json", [False, True], ids=["text", "json"])
def test_run_stopped_by_the_turn_limit_before_an_answer_exits_1(
    tmp_path: Path, isolated_home: Any, model_standin: Any, monkeypatch: Any, as_json: bool
) -> None:
    monkeypatch.chdir(_project(tmp_path))
    standin = model_standin([_LS])  # the last reply repeats: a tool call every turn
    args = ["run", "list files", "--max-turns", "3", "--model", "openai:standin"]
    args += ["--base-url", standin.url + "/v1", "--no-builtin", *(["--json"] if as_json else [])]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 1, result.output
    if as_json:
        assert json.loads(result.stdout)["stopped"] == "max_turns"
    else:
        assert "stopped: the turn limit was reached" in result.stderr


@pytest.mark.parametrize(("task", "stdin"), [("-", ""), ("-", "\n"), ("   ", None), ("\t\n", None)], ids=repr)
def test_an_empty_task_is_a_usage_error_and_calls_no_model(
    tmp_path: Path, isolated_home: Any, model_standin: Any, monkeypatch: Any, task: str, stdin: str | None
) -> None:
    monkeypatch.chdir(_project(tmp_path))
    standin = model_standin([{"text": "Done."}])
    args = ["run", task, "--model", "openai:standin", "--base-url", standin.url + "/v1", "--no-builtin"]
    result = CliRunner().invoke(cli, args, input=stdin)
    assert isinstance(result.exception, UsageError) and result.exception.code == "AG006"
    assert result.exception.exit_code == 2 and result.exception.hint
    assert standin.requests() == []
    assert not any(isolated_home.state.rglob("*.jsonl"))  # no transcript was opened


def test_chat_exits_1_when_its_last_message_was_stopped_by_the_turn_limit(
    tmp_path: Path, isolated_home: Any, model_standin: Any, monkeypatch: Any
) -> None:
    monkeypatch.chdir(_project(tmp_path))
    model = ["--model", "openai:standin", "--no-builtin", "--max-turns", "2"]
    stuck = model_standin([_LS])
    result = CliRunner().invoke(cli, ["chat", *model, "--base-url", stuck.url + "/v1"], input="list files\n")
    assert result.exit_code == 1, result.output
    answered = model_standin([{"text": "Here they are."}])
    result = CliRunner().invoke(
        cli, ["chat", *model, "--base-url", answered.url + "/v1"], input="list files\n"
    )
    assert result.exit_code == 0, result.output
