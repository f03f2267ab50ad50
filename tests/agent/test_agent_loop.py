"""The reference agent loop against a real loopback server speaking both wire formats."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from skillshelf.agent.folder_tools import FolderTools
from skillshelf.agent.guards import GuardSettings
from skillshelf.agent.loop import Agent, AgentSettings, TurnContext
from skillshelf.agent.providers import ModelSpec, make_provider
from skillshelf.errors import UsageError
from skillshelf.memory.transcripts.skillshelf import TranscriptWriter
from skillshelf.serve.tools import SkillTools
from skillshelf.skills.discover import discover_in


def _skill(root: Path, name: str, body: str = "Follow these steps.") -> None:
    folder = root / name
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(
        f"---\nname: {name}\ndescription: Helps with {name} work.\n---\n{body}\n", encoding="utf-8"
    )


def _agent(
    standin: Any,
    provider: str,
    workspace: Path,
    *,
    skills_root: Path | None = None,
    settings: AgentSettings | None = None,
    transcript: TranscriptWriter | None = None,
    turn_context: Callable[[str], TurnContext] | None = None,
) -> Agent:
    base = standin.url + "/v1" if provider == "openai" else standin.url
    skills = discover_in([skills_root]).skills if skills_root else ()
    return Agent(
        provider=make_provider(ModelSpec(provider=provider, name="standin"), base_url=base, api_key="x"),
        system_prompt="You are a test agent.",
        skill_tools=SkillTools(skills),
        folder_tools=FolderTools(workspace),
        settings=settings or AgentSettings(),
        transcript=transcript,
        turn_context=turn_context,
    )


def _bodies(standin: Any) -> list[str]:
    return [
        json.dumps(r["body"]) for r in standin.requests() if r["path"].endswith(("completions", "messages"))
    ]


def _call(tool: str, **arguments: Any) -> dict[str, Any]:
    return {"tool_call": {"name": tool, "arguments": arguments}}


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_tools_run_and_unchecked_final_answer_is_sent_back_once(
    tmp_path: Path, model_standin: Any, provider: str
) -> None:
    standin = model_standin(
        [
            _call("write_file", path="notes.txt", content="hello"),
            _call("bash", command="cat notes.txt"),
            {"text": "done"},
        ]
    )
    workspace = tmp_path / "ws"
    workspace.mkdir()
    result = _agent(standin, provider, workspace).send("write a note")
    assert (workspace / "notes.txt").read_text(encoding="utf-8") == "hello"
    assert result.stopped == "answer" and result.final_text == "done"
    assert [e.kind for e in result.events] == ["send_back"]
    bodies = _bodies(standin)
    assert len(bodies) == 4  # write, cat, "done" sent back, "done" accepted
    assert "exit code 0" in bodies[2] and "hello" in bodies[2]
    assert "Harness check before finishing" in bodies[3]


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_final_answer_is_accepted_when_the_checks_ran_after_the_last_edit(
    tmp_path: Path, model_standin: Any, provider: str
) -> None:
    standin = model_standin(
        [
            _call("write_file", path="a.py", content="x = 1\n"),
            _call("bash", command="python3 -c 'import a'"),
            {"text": "verified"},
        ]
    )
    settings = AgentSettings(guards=GuardSettings(check_command="python3 -c 'import a'"))
    result = _agent(standin, provider, tmp_path, settings=settings).send("make a.py")
    assert result.final_text == "verified" and not result.events
    assert len(_bodies(standin)) == 3


def test_a_failing_check_sends_the_answer_back_with_its_exit_code(tmp_path: Path, model_standin: Any) -> None:
    standin = model_standin(
        [_call("write_file", path="a.txt", content="x"), _call("bash", command="make test"), {"text": "done"}]
    )
    result = _agent(standin, "openai", tmp_path).send("go")
    assert result.events[0].kind == "send_back"
    assert "failed (exit code 2)" in result.events[0].detail


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_editing_one_file_over_and_over_injects_a_doom_loop_note(
    tmp_path: Path, model_standin: Any, provider: str
) -> None:
    edits = [_call("write_file", path="loop.py", content=f"v = {i}\n") for i in range(6)]
    standin = model_standin([*edits, _call("bash", command="true"), {"text": "stopped"}])
    settings = AgentSettings(guards=GuardSettings(max_edits_per_file=5, check_command="true"))
    result = _agent(standin, provider, tmp_path, settings=settings).send("fix it")
    assert [e.kind for e in result.events] == ["doom_loop"]
    bodies = _bodies(standin)
    assert "you have edited loop.py 6 times" in bodies[6]
    assert "you have edited" not in bodies[5]


def test_the_same_failing_command_repeated_injects_a_note(tmp_path: Path, model_standin: Any) -> None:
    standin = model_standin([_call("bash", command="ls does-not-exist")] * 3 + [{"text": "giving up"}])
    result = _agent(standin, "openai", tmp_path).send("list it")
    assert [e.kind for e in result.events] == ["doom_loop"]
    assert "has now failed 3 times in a row" in _bodies(standin)[3]


def test_tool_errors_reach_the_model_as_results_not_exceptions(tmp_path: Path, model_standin: Any) -> None:
    standin = model_standin(
        [
            _call("read_file", path="../../etc/passwd"),
            _call("no_such_tool"),
            _call("edit_file", path="missing.txt", old_text="a", new_text="b"),
            _call("load_skill", name="nope"),
            {"text": "ok"},
        ]
    )
    result = _agent(standin, "anthropic", tmp_path).send("try things")
    assert result.final_text == "ok"
    bodies = _bodies(standin)
    assert "outside the workspace" in bodies[1]
    assert "there is no tool named 'no_such_tool'" in bodies[2]
    assert "use write_file to create it" in bodies[3]
    assert "no skill named 'nope'" in bodies[4]


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_loaded_skills_are_reattached_after_compaction(
    tmp_path: Path, model_standin: Any, provider: str
) -> None:
    skills = tmp_path / "skills"
    _skill(skills, "release-notes", body="RELEASE-STEPS: gather merged changes, group them, write the notes.")
    big = "x" * 4000
    script = (
        [_call("load_skill", name="release-notes")]
        + [_call("bash", command=f"echo {big}")] * 4
        + [{"text": "done"}]
    )
    standin = model_standin(script)
    settings = AgentSettings(compact_at_tokens=2500, keep_last_messages=2)
    result = _agent(standin, provider, tmp_path, skills_root=skills, settings=settings).send(
        "write release notes"
    )
    kinds = [e.kind for e in result.events]
    assert kinds[0] == "skill_loaded" and "compaction" in kinds
    compacted = [b for b in _bodies(standin) if "compacted" in b]
    assert compacted, "no request after compaction"
    assert "RELEASE-STEPS" in compacted[-1] and "attached again" in compacted[-1]
    assert "x" * 4000 not in compacted[-1].split("attached again")[0][:200]


def _compacting_agent(
    tmp_path: Path, model_standin: Any, fragment: str, first: list[dict[str, Any]]
) -> tuple[Any, Any]:
    """An agent whose history is compacted within a few turns, with ``fragment`` as the text a
    message mentioning ``$release-notes`` brings; its model answers ``first`` replies, then runs
    four big commands."""

    def turn_context(text: str) -> TurnContext:
        if "$release-notes" not in text:
            return TurnContext()
        return TurnContext(text=fragment, skills=(("release-notes", fragment),))

    calls = [_call("bash", command="echo " + "x" * 4000)] * 4
    standin = model_standin([*first, *calls, {"text": "done"}])
    settings = AgentSettings(compact_at_tokens=2500, keep_last_messages=2)
    return standin, _agent(standin, "openai", tmp_path, settings=settings, turn_context=turn_context)


def test_a_skill_a_later_message_mentioned_is_reattached_after_compaction(
    tmp_path: Path, model_standin: Any
) -> None:
    used: list[tuple[str, str]] = []
    fragment = "<skill>MENTIONED-STEPS of release-notes</skill>"
    standin, agent = _compacting_agent(tmp_path, model_standin, fragment, [{"text": "hi"}, {"text": "noted"}])
    agent.on_skill_used = lambda name, via: used.append((name, via))
    agent.send("hello")
    agent.send("use $release-notes for v2")
    result = agent.send("now check the logs")
    assert "compaction" in [e.kind for e in result.events]
    compacted = [b for b in _bodies(standin) if "compacted" in b]
    assert compacted and "MENTIONED-STEPS" in compacted[-1].split("attached again")[1]
    assert "use $release-notes" not in compacted[-1]  # the message itself was compacted away
    assert used == [("release-notes", "mention")]


def test_a_skill_the_first_message_brought_is_not_attached_twice_after_compaction(
    tmp_path: Path, model_standin: Any
) -> None:
    """Compaction keeps the first message, and with it the skill text it brought."""
    fragment = "<skill>FIRST-STEPS of release-notes</skill>"
    standin, agent = _compacting_agent(tmp_path, model_standin, fragment, [{"text": "noted"}])
    agent.send("use $release-notes for v2")
    result = agent.send("now check the logs")
    compaction = next(e for e in result.events if e.kind == "compaction")
    assert compaction.detail.endswith("re-attached: none")
    compacted = [b for b in _bodies(standin) if "compacted" in b]
    assert compacted and compacted[-1].count("FIRST-STEPS") == 1


def test_transcript_is_written_in_the_skillshelf_format(tmp_path: Path, model_standin: Any) -> None:
    standin = model_standin([_call("bash", command="echo hi"), {"text": "bye"}])
    path = tmp_path / "t.jsonl"
    with TranscriptWriter(path, session_id="s1", cwd=tmp_path, origin="run") as writer:
        _agent(standin, "openai", tmp_path, transcript=writer).send("say hi")
    records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    types = [r["type"] for r in records]
    assert types == ["session_meta", "message", "tool_call", "tool_result", "message"]
    assert records[1]["text"] == "say hi" and records[-1]["text"] == "bye"
    assert records[3]["output"].startswith("exit code 0")


def test_the_turn_limit_stops_a_model_that_never_answers(tmp_path: Path, model_standin: Any) -> None:
    standin = model_standin([_call("bash", command="true")])
    result = _agent(standin, "openai", tmp_path, settings=AgentSettings(max_turns=3)).send("loop forever")
    assert result.stopped == "max_turns" and result.model_calls == 3


@pytest.mark.parametrize("text", ["", "   ", "\n\t"])
def test_an_empty_message_is_a_usage_error_before_any_model_call(
    tmp_path: Path, model_standin: Any, text: str
) -> None:
    standin = model_standin([{"text": "done"}])
    agent = _agent(standin, "openai", tmp_path)
    with pytest.raises(UsageError) as raised:
        agent.send(text)
    assert raised.value.code == "AG006" and standin.requests() == [] and agent.history == []


@pytest.mark.parametrize(
    ("test_file", "sent_back"),
    [
        # below the top level the project names no check of its own: the run that failed is named
        ("checks/test_calc.py", "Run `python3 checks/test_calc.py` now"),
        # at the top pytest collects it: what failed is named, the project's check is asked for
        ("test_calc.py", "Run `python -m pytest` now"),
    ],
)
def test_a_failed_test_run_is_named_as_it_ran_not_called_never_run(
    tmp_path: Path, model_standin: Any, test_file: str, sent_back: str
) -> None:
    (tmp_path / test_file).parent.mkdir(parents=True, exist_ok=True)
    (tmp_path / test_file).write_text(
        "import sys\nsys.path.insert(0, '.')\nimport calc\nassert calc.add(2, 3) == 5\n", encoding="utf-8"
    )
    standin = model_standin(
        [
            _call("write_file", path="calc.py", content="def add(a, b):\n    return a - b\n"),
            _call("bash", command=f"python3 {test_file}"),
            {"text": "Done."},
            {"text": "Done, trust me."},
        ]
    )
    result = _agent(standin, "openai", tmp_path).send("fix calc")
    [event] = result.events
    assert f"the last run of `python3 {test_file}` failed (exit code 1)" in event.detail
    assert sent_back in event.detail and "have not run" not in event.detail
    assert result.check.status == "failed" and result.check.command == f"python3 {test_file}"


def test_tool_call_arguments_nested_too_deeply_reach_the_tool_as_raw_text() -> None:
    from skillshelf.agent.tool_arguments import raw_call_arguments

    deep = '{"path": ' + "[" * 100_000 + "]" * 100_000 + "}"
    assert raw_call_arguments(deep) == {"_raw": deep}
    assert raw_call_arguments('{"path": "a.py"}') == {"path": "a.py"}


def _calc_project(root: Path) -> None:
    (root / "calc.py").write_text("def add(a, b):\n    return a + b\n", encoding="utf-8")
    (root / "test_calc.py").write_text(
        "from calc import add\nassert add(2, 2) == 4, 'add is broken'\nprint('ok')\n", encoding="utf-8"
    )


_BREAK_CALC = _call("write_file", path="calc.py", content="def add(a, b):\n    return a - b\n")


@pytest.mark.parametrize(
    ("line", "why"),
    [
        ("python3 test_calc.py 2>&1 | tail -3", "a pipeline (`|`)"),
        ("python3 test_calc.py || true", "an `||` list"),
    ],
)
def test_a_check_whose_exit_code_a_pipe_or_or_true_hides_does_not_verify_the_answer(
    tmp_path: Path, model_standin: Any, line: str, why: str
) -> None:
    _calc_project(tmp_path)
    standin = model_standin([_BREAK_CALC, _call("bash", command=line), {"text": "All tests pass."}])
    settings = AgentSettings(guards=GuardSettings(check_command="python3 test_calc.py"))
    result = _agent(standin, "openai", tmp_path, settings=settings).send("fix calc")
    [event] = result.events
    assert event.kind == "send_back" and f"`{line}` (exit code 0) does not count" in event.detail
    assert result.check.status == "not_run" and result.check.unverified
    assert result.check.reason is not None and why in result.check.reason


def test_a_file_changed_through_bash_is_an_edit_the_checks_must_follow(
    tmp_path: Path, model_standin: Any
) -> None:
    _calc_project(tmp_path)
    rewrite = "printf 'def add(a, b):\\n    return a - b - 0\\n' > calc.py && cat calc.py"
    standin = model_standin(
        [
            _call("bash", command=rewrite),
            {"text": "Fixed add()."},
            _call("bash", command="python3 test_calc.py > run.log 2>&1"),
            {"text": "Checked: it fails."},
            {"text": "It fails."},
        ]
    )
    result = _agent(standin, "openai", tmp_path).send("fix calc")
    first, second = result.events
    assert (
        first.kind == "send_back"
        and "(`printf 'def add" in first.detail
        and "changed calc.py" in first.detail
    )
    assert "have not run `python -m pytest`" in first.detail
    assert "the last run of `python3 test_calc.py > run.log 2>&1` failed (exit code 1)" in second.detail
    assert (result.check.status, result.check.exit_code) == ("failed", 1)  # its log is no edit


@pytest.mark.parametrize(
    "line", ["python3 test_calc.py && echo ok", "cd . && python3 test_calc.py 2>&1 && echo done"]
)
def test_a_check_run_among_commands_joined_by_and_verifies_the_answer_without_a_send_back(
    tmp_path: Path, model_standin: Any, line: str
) -> None:
    _calc_project(tmp_path)
    fix = _call("write_file", path="calc.py", content="def add(a, b):\n    return b + a\n")
    standin = model_standin([fix, _call("bash", command=line), {"text": "Fixed; the tests pass."}])
    settings = AgentSettings(guards=GuardSettings(check_command="python3 test_calc.py"))
    result = _agent(standin, "openai", tmp_path, settings=settings).send("fix calc")
    assert result.final_text == "Fixed; the tests pass." and not result.events
    assert (result.check.status, result.check.exit_code) == ("passed", 0)


@pytest.mark.parametrize(
    "line", ['python3 test_calc.py; echo "exit: $?"', "python3 test_calc.py 2>&1; echo $?"]
)
def test_a_check_whose_status_an_echo_prints_is_judged_by_that_status(
    tmp_path: Path, model_standin: Any, line: str
) -> None:
    _calc_project(tmp_path)
    fix = _call("write_file", path="calc.py", content="def add(a, b):\n    return b + a\n")
    run = _call("bash", command=line)
    standin = model_standin([_BREAK_CALC, run, {"text": "All tests pass."}, fix, run, {"text": "Fixed."}])
    settings = AgentSettings(guards=GuardSettings(check_command="python3 test_calc.py"))
    result = _agent(standin, "openai", tmp_path, settings=settings).send("fix calc")
    [event] = result.events
    assert event.kind == "send_back" and f"the last run of `{line}` failed (exit code 1)" in event.detail
    assert result.final_text == "Fixed." and (result.check.status, result.check.exit_code) == ("passed", 0)


def test_a_hidden_file_changed_through_bash_is_an_edit_the_checks_must_follow(
    tmp_path: Path, model_standin: Any
) -> None:
    _calc_project(tmp_path)
    line = "mkdir -p .github/workflows && echo 'on: push' > .github/workflows/ci.yml"
    standin = model_standin([_call("bash", command=line), {"text": "Added CI."}, {"text": "Added CI."}])
    result = _agent(standin, "openai", tmp_path).send("add CI")
    [event] = result.events
    assert event.kind == "send_back" and "changed .github/workflows/ci.yml" in event.detail
    assert result.check.status == "not_run"


def test_a_check_failing_by_its_echoed_status_again_and_again_injects_a_doom_loop_note(
    tmp_path: Path, model_standin: Any
) -> None:
    _calc_project(tmp_path)
    check = "python3 -c 'import test_calc'"  # the project's check, which only its setting makes one
    line = f"{check} 2>&1; echo $?"
    run = _call("bash", command=line)
    standin = model_standin([_BREAK_CALC, run, run, run, {"text": "Stuck."}, {"text": "Stuck."}])
    settings = AgentSettings(guards=GuardSettings(check_command=check))
    result = _agent(standin, "openai", tmp_path, settings=settings).send("fix calc")
    assert [e.kind for e in result.events] == ["doom_loop", "send_back"]
    assert f"`{line}` has now failed 3 times in a row" in _bodies(standin)[4]
    assert (result.check.status, result.check.exit_code) == ("failed", 1)


def test_a_check_line_that_does_not_count_is_sent_back_with_the_forms_that_do(
    tmp_path: Path, model_standin: Any
) -> None:
    _calc_project(tmp_path)
    line = "python3 test_calc.py 2>&1 | tail -3"
    standin = model_standin([_BREAK_CALC, _call("bash", command=line), {"text": "Done."}, {"text": "Done."}])
    settings = AgentSettings(guards=GuardSettings(check_command="python3 test_calc.py"))
    result = _agent(standin, "openai", tmp_path, settings=settings).send("fix calc")
    [event] = result.events
    assert event.kind == "send_back" and "`python3 test_calc.py; echo $?`" in event.detail
    assert "`cd DIR && python3 test_calc.py`" in event.detail
    assert "followed by `; echo $?` alone" in _bodies(standin)[3]


@pytest.mark.parametrize("oversized", ["task", "argument"])
def test_a_message_over_the_threshold_is_clipped_once_not_reported_compacted_every_turn(
    tmp_path: Path, model_standin: Any, oversized: str
) -> None:
    big = "q" * 40_000
    true = _call("bash", command="true")
    first = _call("write_file", path="big.txt", content=big) if oversized == "argument" else true
    standin = model_standin([first, true, true, {"text": "done"}])
    settings = AgentSettings(compact_at_tokens=5000, keep_last_messages=12)
    task = big if oversized == "task" else "write big.txt"
    result = _agent(standin, "openai", tmp_path, settings=settings).send(task)
    compactions = [e.detail for e in result.events if e.kind == "compaction"]
    messages = 3 if oversized == "argument" else 1  # the history when it first passed the threshold
    assert compactions == [f"{messages} -> {messages} messages; 1 clipped; re-attached: none"]
    later = _bodies(standin)[-1]
    assert big not in later and "characters cut from this message to fit the context" in later
    assert len(later) < 25_000
