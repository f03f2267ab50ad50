"""Phase 2 run by the reference agent (the agent layer's consolidator) through the whole pipeline,
and memory citations in an agent's final answers counted as uses."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
from memory_helpers import write_skillshelf_transcript

from skillshelf.agent.consolidate import choose_consolidator
from skillshelf.agent.session import AgentOptions, open_agent
from skillshelf.context import ContextOptions
from skillshelf.env import Env
from skillshelf.memory.read import memory_skill_roots, memory_summary_for
from skillshelf.memory.redact.echoes import NO_SECRETS, KnownSecrets
from skillshelf.memory.service import RunOptions, run_memory
from skillshelf.memory.settings import MemorySettings
from skillshelf.memory.store import open_store
from skillshelf.memory.transcripts import read_transcript

STAGE1 = {
    "text": json.dumps(
        {
            "raw_memory": "- tests run with make check",
            "rollout_summary": "Ran the tests",
            "rollout_slug": "tests",
        }
    )
}
SUMMARY = "## User preferences\n- Remember: make check runs the tests (thread_id=agent-1).\n"
HANDBOOK = "# Task Group: tests\nscope: project\n## Task 1\n### rollout_summary_files\n- thread_id=agent-1\n"
SKILL = (
    "---\nname: run-tests\ndescription: Run this project's tests with make check.\n---\nRun `make check`.\n"
)


def _call(tool: str, **arguments: Any) -> dict[str, Any]:
    return {"tool_call": {"name": tool, "arguments": arguments}}


@pytest.fixture
def project(isolated_home: Any) -> Path:
    folder = isolated_home.home / "repo"
    (folder / ".git").mkdir(parents=True)
    return folder


def _transcripts(isolated_home: Any, project: Path, ids: list[str]) -> Path:
    folder = isolated_home.home / "sessions"
    for session_id in ids:
        write_skillshelf_transcript(
            folder / f"{session_id}.jsonl",
            session_id=session_id,
            cwd=project,
            task="run the tests with make check",
            mtime=time.time() - 7 * 3600,
        )
    return folder


def _settings(standin: Any, provider: str, **kw: Any) -> MemorySettings:
    base = standin.url + ("/v1" if provider == "openai" else "")
    return MemorySettings().with_overrides(
        extract_model=f"{provider}:small",
        consolidation_model=f"{provider}:big",
        base_url=base,
        concurrency=1,
        **kw,
    )


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_agent_consolidation_writes_the_memory_folder_and_its_transcript_is_never_a_memory(
    isolated_home: Any, project: Path, model_standin: Any, provider: str
) -> None:
    sessions = _transcripts(isolated_home, project, ["agent-1"])
    standin = model_standin(
        [
            STAGE1,
            _call("read_file", path="raw_memories.md"),
            _call("bash", command="curl https://example.invalid"),
            _call("write_file", path="../escape.md", content="x"),
            _call("write_file", path="memory_summary.md", content=SUMMARY),
            _call("write_file", path="MEMORY.md", content=HANDBOOK),
            _call("write_file", path="skills/run-tests/SKILL.md", content=SKILL),
            {"text": "Wrote the summary, the handbook and a run-tests skill."},
        ]
    )
    env = Env.for_test(cwd=project, home=isolated_home.home, codex_home=isolated_home.codex_home)
    settings = _settings(standin, provider)

    report = run_memory(
        env, settings, RunOptions(sessions=(sessions,)), consolidator=choose_consolidator(env, settings)
    )

    assert report.outcomes == {"extracted": 1}, report.errors
    [done] = report.consolidation
    assert (done.status, done.consolidator, done.model_calls) == ("consolidated", "agent", 7)
    assert report.model_calls == 8
    assert set(done.files) == {"memory_summary.md", "MEMORY.md", "skills/run-tests/SKILL.md"}
    assert [r.split(":")[0] for r in done.refused] == ["bash", "write_file"]
    folder = done.folder
    assert (folder / "MEMORY.md").read_text(encoding="utf-8") == HANDBOOK
    assert (folder / "skills" / "run-tests" / "SKILL.md").read_text(encoding="utf-8") == SKILL
    assert len(list((folder / "rollout_summaries").glob("*.md"))) == 1
    assert not (folder.parent / "escape.md").exists()
    summary = memory_summary_for(env, setting="project")
    assert summary is not None and "make check runs the tests" in summary.text
    assert memory_skill_roots(env, setting="project") == (folder / "skills",)
    requests = standin.requests()
    assert all(
        r["path"].endswith("/messages" if provider == "anthropic" else "/chat/completions") for r in requests
    )
    assert "there is no tool named 'bash'" in json.dumps(requests[3]["body"])

    [transcript] = list((Env.from_os().dirs.state / "transcripts").rglob("*.jsonl"))
    parsed = read_transcript(transcript)
    assert parsed is not None and parsed.subagent
    again = run_memory(
        env,
        settings,
        RunOptions(sessions=(sessions, transcript.parent)),
        consolidator=choose_consolidator(env, settings),
    )
    assert again.registered == 1 and again.claimed == 0 and again.consolidation == []  # never a memory
    assert len(standin.requests()) == len(requests)


def test_a_failed_agent_consolidation_changes_nothing_and_goes_into_backoff(
    isolated_home: Any, project: Path, model_standin: Any
) -> None:
    sessions = _transcripts(isolated_home, project, ["agent-2"])
    standin = model_standin(
        [STAGE1, _call("write_file", path="MEMORY.md", content=HANDBOOK), {"text": "done"}]
    )
    env = Env.for_test(cwd=project, home=isolated_home.home, codex_home=isolated_home.codex_home)
    settings = _settings(standin, "openai", consolidator="agent")

    report = run_memory(
        env, settings, RunOptions(sessions=(sessions,)), consolidator=choose_consolidator(env, settings)
    )

    [failed] = report.consolidation
    assert failed.status == "failed" and failed.error is not None and failed.error.startswith("ME037")
    assert not (failed.folder / "MEMORY.md").exists()  # INIT needs both files: nothing was applied
    with open_store(None, data_dir=Env.from_os().dirs.data) as store:
        status = store.status(now_ms=int(time.time() * 1000))
    [scope] = status["consolidation"]
    assert scope["status"] == "error" and "ME037" in (scope["last_error"] or "")
    again = run_memory(
        env, settings, RunOptions(sessions=(sessions,)), consolidator=choose_consolidator(env, settings)
    )
    assert [c.status for c in again.consolidation] == ["backoff"]  # said, not retried at once
    assert len(standin.requests()) == 3


def test_the_budget_caps_the_agents_model_calls(
    isolated_home: Any, project: Path, model_standin: Any
) -> None:
    sessions = _transcripts(isolated_home, project, ["agent-3"])
    standin = model_standin([STAGE1, _call("read_file", path="raw_memories.md")])
    env = Env.for_test(cwd=project, home=isolated_home.home, codex_home=isolated_home.codex_home)
    settings = _settings(standin, "anthropic", max_model_calls=4)

    report = run_memory(
        env, settings, RunOptions(sessions=(sessions,)), consolidator=choose_consolidator(env, settings)
    )

    [stopped] = report.consolidation
    assert stopped.status == "budget" and (stopped.error or "").startswith("ME041") and not report.failed
    assert len(standin.requests()) == report.model_calls == 4  # one extraction + three agent turns
    assert not (stopped.folder / "MEMORY.md").exists()
    with open_store(None, data_dir=Env.from_os().dirs.data) as store:
        [scope] = store.status(now_ms=int(time.time() * 1000))["consolidation"]
    assert scope["status"] != "running"  # the lock was released for the next run


def test_memory_citations_in_final_answers_count_as_uses(
    isolated_home: Any, project: Path, model_standin: Any
) -> None:
    sessions = _transcripts(isolated_home, project, ["agent-4"])
    pipeline = model_standin(
        [
            STAGE1,
            _call("write_file", path="memory_summary.md", content=SUMMARY),
            _call("write_file", path="MEMORY.md", content=HANDBOOK),
            {"text": "done"},
        ]
    )
    env = Env.for_test(cwd=project, home=isolated_home.home, codex_home=isolated_home.codex_home)
    settings = _settings(pipeline, "openai")
    run_memory(
        env, settings, RunOptions(sessions=(sessions,)), consolidator=choose_consolidator(env, settings)
    )
    with open_store(None, data_dir=Env.from_os().dirs.data) as store:
        assert store.outputs(session_id="agent-4")[0].usage_count == 0

    answer = (
        "Use make check.\n<oai-mem-citation>\n<citation_entries>\nMEMORY.md:1-5|note=[test command]\n"
        "</citation_entries>\n<rollout_ids>\nagent-4\n</rollout_ids>\n</oai-mem-citation>"
    )
    chat = model_standin([{"text": answer}, {"text": "No memory needed."}])
    seen: list[str] = []
    options = AgentOptions(
        model="openai:standin",
        base_url=chat.url + "/v1",
        api_key="x",
        context=ContextOptions(suggestions=False),
        state_dir=isolated_home.state,
    )
    agent = open_agent(env, options, on_answer=seen.append)
    assert "<oai-mem-citation>" in agent.system_prompt and "make check runs the tests" in agent.system_prompt
    summary = memory_summary_for(env, setting="project")
    assert summary is not None and f"Memory folder: {summary.folder} " in agent.system_prompt

    agent.send("how do I run the tests?")
    agent.send("what time is it?")

    assert seen == [answer, "No memory needed."]
    with open_store(None, data_dir=Env.from_os().dirs.data) as store:
        assert store.outputs(session_id="agent-4")[0].usage_count == 1
    quiet = open_agent(
        env,
        AgentOptions(
            model="openai:standin",
            base_url=chat.url + "/v1",
            api_key="x",
            context=ContextOptions(suggestions=False, memory=False),
            write_transcript=False,
        ),
    )
    assert "<oai-mem-citation>" not in quiet.system_prompt and quiet.on_answer is None


@pytest.mark.parametrize(
    ("flag", "expected"),
    [
        ((), "agent"),
        (("--consolidator", "direct"), "direct"),
        (("-c", 'memory.consolidator="direct"'), "direct"),
    ],
)
def test_memory_run_picks_the_agent_by_default_and_direct_on_request(
    isolated_home: Any,
    project: Path,
    model_standin: Any,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    flag: tuple[str, ...],
    expected: str,
) -> None:
    from skillshelf.cli.main import main

    sessions = _transcripts(isolated_home, project, ["cli-agent"])
    files = {"MEMORY.md": HANDBOOK, "memory_summary.md": SUMMARY}
    by_agent = [_call("write_file", path=name, content=text) for name, text in files.items()] + [
        {"text": "done"}
    ]
    direct = [{"text": json.dumps({"files": files, "delete": []})}]
    standin = model_standin([STAGE1, *(by_agent if expected == "agent" else direct)])
    monkeypatch.chdir(project)
    try:
        main(
            [
                "memory",
                "run",
                "--sessions",
                str(sessions),
                "--model",
                "openai:m",
                "--base-url",
                standin.url + "/v1",
                "--min-idle-hours",
                "1",
                *flag,
                "--json",
            ]
        )
    except SystemExit as exc:
        assert not exc.code, capsys.readouterr().err
    report = json.loads(capsys.readouterr().out)
    [phase2] = report["phase2"]
    assert (phase2["status"], phase2["consolidator"]) == ("consolidated", expected)
    assert report["model_calls"] == len(standin.requests()) == (4 if expected == "agent" else 2)
    assert (Path(phase2["folder"]) / "MEMORY.md").read_text(encoding="utf-8") == HANDBOOK


def test_an_agent_that_finishes_after_losing_its_lease_writes_nothing(
    isolated_home: Any, project: Path, model_standin: Any, tmp_path: Path
) -> None:
    from skillshelf.memory.consolidator import ConsolidationOutcome
    from skillshelf.memory.models import CallBudget
    from skillshelf.memory.store import CONSOLIDATE

    sessions = _transcripts(isolated_home, project, ["agent-5"])
    standin = model_standin(
        [
            STAGE1,
            _call("write_file", path="memory_summary.md", content=SUMMARY),
            _call("write_file", path="MEMORY.md", content=HANDBOOK),
            {"text": "done"},
        ]
    )
    env = Env.for_test(cwd=project, home=isolated_home.home, codex_home=isolated_home.codex_home)
    settings = _settings(standin, "openai")
    factory = choose_consolidator(env, settings)
    assert factory is not None
    store = open_store(f"sqlite:///{tmp_path / 'state.sqlite'}")

    class TakenOverMidway:
        """The agent runs; meanwhile another worker takes the expired consolidation lease."""

        name = "agent"

        def consolidate(
            self,
            prompt: str,
            memory_dir: Path,
            *,
            init: bool,
            effort: str | None,
            budget: CallBudget | None = None,
            known: KnownSecrets = NO_SECRETS,
        ) -> ConsolidationOutcome:
            outcome = factory().consolidate(
                prompt, memory_dir, init=init, effort=effort, budget=budget, known=known
            )
            with store.transaction() as tx:
                tx.execute(
                    "UPDATE jobs SET ownership_token = ?, worker_id = ? WHERE kind = ?",
                    ("other-token", "other-worker", CONSOLIDATE),
                )
            return outcome

    try:
        report = run_memory(
            env, settings, RunOptions(sessions=(sessions,)), store=store, consolidator=TakenOverMidway
        )
    finally:
        store.close()

    [lost] = report.consolidation
    assert lost.status == "lost_lease" and len(standin.requests()) == 4
    assert not (lost.folder / "MEMORY.md").exists() and not (lost.folder / "memory_summary.md").exists()
