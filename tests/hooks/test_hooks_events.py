"""What each hook event answers and records, called the way the agents call it."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest
from hooks_helpers import SKILLS, context_text, hook_input, make_project, write_config, write_skill

from skillshelf import context_parts
from skillshelf.context import ContextOptions, build_context
from skillshelf.env import Env
from skillshelf.hooks import events
from skillshelf.hooks.payload import parse_input
from skillshelf.hooks.runner import run_hook
from skillshelf.memory.layout import project_scope, scope_dir
from skillshelf.memory.queue import queued
from skillshelf.select.usage import UsageStore

PDF_PROMPT = "fill in the fields of this PDF form and flatten it"


def _ask(env: Env, event: str, agent: str = "claude", **fields: Any) -> Any:
    return run_hook(agent, event, hook_input(event, env, **fields), env=env, state_dir=env.dirs.state)  # type: ignore[arg-type]


@pytest.mark.parametrize("agent", ["codex", "claude"])
def test_a_prompt_gets_the_suggestion_fragment_naming_the_right_skill(isolated_home: Any, agent: str) -> None:
    env = make_project(isolated_home)
    run = _ask(env, "UserPromptSubmit", agent, prompt=PDF_PROMPT)
    assert run.status == "ok"
    data = json.loads(run.answer)
    assert data["hookSpecificOutput"]["hookEventName"] == "UserPromptSubmit"
    text = data["hookSpecificOutput"]["additionalContext"]
    first = text.splitlines()[2]
    # the test project is not trusted, so its skill carries the tag
    assert first.startswith(f"- pdf-forms: [untrusted project] {SKILLS['pdf-forms']} (file: ")


def test_the_fragment_is_the_one_skillshelf_context_gives(isolated_home: Any) -> None:
    env = make_project(isolated_home)
    expected = build_context(env, PDF_PROMPT, ContextOptions(instructions=False)).part("suggestions")
    assert expected is not None
    assert context_text(_ask(env, "UserPromptSubmit", prompt=PDF_PROMPT).answer) == expected.text


@pytest.mark.parametrize("prompt", ["zqxv wqpl", "", "   "])
def test_a_prompt_that_fits_no_skill_gets_the_empty_answer(isolated_home: Any, prompt: str) -> None:
    env = make_project(isolated_home)
    run = _ask(env, "UserPromptSubmit", prompt=prompt)
    assert (run.answer, run.status) == (b"", "empty")


def test_suggestions_can_be_turned_off_in_the_config(isolated_home: Any) -> None:
    env = make_project(isolated_home, config="[hooks]\nsuggestions = false\n")
    assert _ask(env, "UserPromptSubmit", prompt=PDF_PROMPT).answer == b""


def test_a_mentioned_skill_the_agent_cannot_load_itself_comes_with_its_body(isolated_home: Any) -> None:
    env = make_project(isolated_home)
    for agent, has_body in (
        ("codex", False),
        ("claude", True),
    ):  # .agents/skills is Codex's, not Claude Code's
        text = context_text(_ask(env, "UserPromptSubmit", agent, prompt="use $release-notes for v2").answer)
        assert "- release-notes: " not in text  # loaded whole (by the agent or here), never suggested
        assert ("STEPS-OF-release-notes" in text) is has_body
    # a copy of it where Claude Code reads skills (same name, same bytes): Claude Code loads it
    # for a leading /release-notes, and does nothing with a $release-notes
    original = env.cwd / ".agents" / "skills" / "release-notes" / "SKILL.md"
    copy = env.cwd / ".claude" / "skills" / "release-notes" / "SKILL.md"
    copy.parent.mkdir(parents=True)
    copy.write_bytes(original.read_bytes())
    text = context_text(_ask(env, "UserPromptSubmit", "claude", prompt="/release-notes v2").answer)
    assert "- release-notes: " not in text and "STEPS-OF-release-notes" not in text
    text = context_text(_ask(env, "UserPromptSubmit", "claude", prompt="use $release-notes for v2").answer)
    assert "- release-notes: " not in text and text.count("STEPS-OF-release-notes") == 1


@pytest.mark.parametrize("agent", ["codex", "claude"])
def test_a_prompt_that_mentions_the_skill_it_fits_gets_no_suggestion_of_it(
    isolated_home: Any, agent: str
) -> None:
    env = make_project(isolated_home)
    assert "- pdf-forms: " in context_text(_ask(env, "UserPromptSubmit", agent, prompt=PDF_PROMPT).answer)
    text = context_text(_ask(env, "UserPromptSubmit", agent, prompt=f"$pdf-forms {PDF_PROMPT}").answer)
    assert "- pdf-forms: " not in text
    assert ("<name>pdf-forms</name>" in text) is (agent == "claude")  # Codex loads a $name itself


def test_a_mentioned_skill_file_is_read_once_for_the_answer(isolated_home: Any, monkeypatch: Any) -> None:
    env = make_project(isolated_home)
    reads: list[str] = []
    read = context_parts.read_skill_fragment

    def counted(skill: Any) -> str:
        reads.append(skill.name)
        return read(skill)

    monkeypatch.setattr(context_parts, "read_skill_fragment", counted)
    text = context_text(_ask(env, "UserPromptSubmit", "claude", prompt="use $release-notes for v2").answer)
    assert "STEPS-OF-release-notes" in text and reads == ["release-notes"]


def test_memory_lines_that_match_the_prompt_are_added_and_others_are_not(isolated_home: Any) -> None:
    env = make_project(isolated_home)
    folder = scope_dir(env.dirs.data, project_scope(env.project_root))
    folder.mkdir(parents=True)
    (folder / "MEMORY.md").write_text(
        "# Task Group: forms\n- PDF form fields here are filled with pdftk, never by hand\n"
        "- the deploy runs on Fridays only\n",
        encoding="utf-8",
    )
    text = context_text(_ask(env, "UserPromptSubmit", prompt=PDF_PROMPT).answer)
    assert text.endswith(
        f"{events.MEMORY_INTRO}\n- PDF form fields here are filled with pdftk, never by hand (MEMORY.md:2)"
    )
    assert "Fridays" not in text
    assert events.memory_notes(env, "zqxv wqpl", token_cap=400, setting="project") == ""


def test_each_prompt_records_its_suggestions_and_a_skill_read_in_the_shell_counts_as_used(
    isolated_home: Any,
) -> None:
    env = make_project(isolated_home)
    _ask(env, "UserPromptSubmit", prompt=PDF_PROMPT)
    skill = env.cwd / ".agents" / "skills" / "pdf-forms" / "SKILL.md"
    run = _ask(
        env, "PostToolUse", tool_name="Bash", tool_input={"command": "cat .agents/skills/pdf-forms/SKILL.md"}
    )
    assert run.answer == b""
    stats = UsageStore.in_state_dir(env.dirs.state).stats()
    assert stats.turns == 1 and stats.loads == 1 and stats.top_skills == ((str(skill), 1),)
    assert stats.selectors[0].selector == events.SUGGESTED and stats.selectors[0].hit_rate(1) == 1.0


@pytest.mark.parametrize(
    ("tool", "tool_input", "via"),
    [
        ("Bash", {"command": "cd .agents/skills/db-migrations && python3 scripts/plan.py"}, "implicit"),
        ("Read", {"file_path": "{project}/.agents/skills/db-migrations/SKILL.md"}, "read"),
        ("Skill", {"skill": "db-migrations"}, "skill"),
    ],
)
def test_skill_use_through_each_tool_is_recorded(
    isolated_home: Any, tool: str, tool_input: dict[str, str], via: str
) -> None:
    env = make_project(isolated_home)
    filled = {k: v.format(project=env.cwd) for k, v in tool_input.items()}
    _ask(env, "PostToolUse", "codex" if tool == "Bash" else "claude", tool_name=tool, tool_input=filled)
    loads = [e for e in UsageStore.in_state_dir(env.dirs.state).events() if e["type"] == "load"]
    assert [(Path(str(e["path"])).parent.name, e["via"], e["turn"]) for e in loads] == [
        ("db-migrations", via, "sess-1:turn-1")
    ]


def test_a_skill_tool_call_by_the_name_claude_code_knows_is_recorded_for_the_skill(
    isolated_home: Any,
) -> None:
    """A folder named otherwise than its skill: Claude Code calls it by the folder's name."""
    env = make_project(isolated_home)
    skill = write_skill(env.cwd / ".agents" / "skills", "deploy-helper", "Deploy the app.")
    skill.parent.rename(skill.parent.with_name("deploy-kit"))
    (env.cwd / ".claude" / "skills").mkdir(parents=True)
    (env.cwd / ".claude" / "skills" / "deploy-kit").symlink_to(
        env.cwd / ".agents" / "skills" / "deploy-kit", target_is_directory=True
    )
    _ask(env, "PostToolUse", "claude", tool_name="Skill", tool_input={"skill": "deploy-kit"})
    loads = [e for e in UsageStore.in_state_dir(env.dirs.state).events() if e["type"] == "load"]
    assert [(Path(str(e["path"])).parent.name, e["via"]) for e in loads] == [("deploy-kit", "skill")]


def test_commands_that_use_no_skill_record_nothing(isolated_home: Any) -> None:
    env = make_project(isolated_home)
    for command in ("ls -la", "cat README.md", "python scripts/other.py"):
        _ask(env, "PostToolUse", tool_name="Bash", tool_input={"command": command})
    _ask(env, "PostToolUse", tool_name="Skill", tool_input={"skill": "no-such-skill"})
    assert list(UsageStore.in_state_dir(env.dirs.state).events()) == []


def test_usage_recording_can_be_turned_off(isolated_home: Any) -> None:
    env = make_project(isolated_home, config="[hooks]\nusage = false\n")
    _ask(env, "UserPromptSubmit", prompt=PDF_PROMPT)
    _ask(env, "PostToolUse", tool_name="Skill", tool_input={"skill": "pdf-forms"})
    assert list(UsageStore.in_state_dir(env.dirs.state).events()) == []


def test_stop_and_session_end_queue_the_transcript_for_the_memory_pipeline(isolated_home: Any) -> None:
    env = make_project(isolated_home, config='[hooks]\nmemory_run = "off"\n')
    assert _ask(env, "Stop", "codex", stop_hook_active=False).answer == b""
    entries = queued(env.dirs.state)
    assert [(e.path.name, e.agent, e.ended, e.session_id) for e in entries] == [
        ("sess-1.jsonl", "codex", False, "sess-1")
    ]
    _ask(env, "SessionEnd", "codex", reason="other")
    assert [e.ended for e in queued(env.dirs.state)] == [True]


def _memory_summary(box: Any, env: Env) -> None:
    folder = scope_dir(box.data / "skillshelf", project_scope(env.project_root))
    folder.mkdir(parents=True)
    (folder / "memory_summary.md").write_text(
        "## Preferences\n- tests run with make check\n", encoding="utf-8"
    )


def test_session_start_gives_the_memory_summary(isolated_home: Any) -> None:
    env = make_project(isolated_home)
    _memory_summary(isolated_home, env)
    spawned: list[list[str]] = []
    inp = parse_input(hook_input("SessionStart", env, source="startup"), "SessionStart")
    text = events.session_start("claude", inp, env, spawned.append)
    assert text == f"{events.SUMMARY_INTRO}\n\n## Preferences\n- tests run with make check"
    assert spawned == [["hook", "warm", "--agent", "claude"]]  # nothing queued: no memory run


def test_session_start_builds_the_index_before_the_first_prompt_needs_it(isolated_home: Any) -> None:
    env = make_project(isolated_home)
    spawned: list[list[str]] = []
    inp = parse_input(hook_input("SessionStart", env, source="startup"), "SessionStart")
    events.session_start("codex", inp, env, spawned.append)
    assert spawned == [["hook", "warm", "--agent", "codex"]]
    assert not list(isolated_home.cache.rglob("index-*.bin"))
    events.warm("codex", inp, env, spawned.append)  # what the detached `hook warm` runs
    assert list(isolated_home.cache.rglob("index-*.bin"))


def test_session_start_warms_nothing_when_suggestions_are_off_or_the_cache_is_unwritable(
    isolated_home: Any,
) -> None:
    env = make_project(isolated_home)
    inp = parse_input(hook_input("SessionStart", env, source="startup"), "SessionStart")
    write_config(env, "[hooks]\nsuggestions = false\n")
    spawned: list[list[str]] = []
    events.session_start("claude", inp, env, spawned.append)
    write_config(env, "")
    blocker = isolated_home.home / "not-a-folder"
    blocker.write_text("x", encoding="utf-8")
    unwritable = dataclasses.replace(env, dirs=dataclasses.replace(env.dirs, cache=blocker / "cache"))
    events.session_start("claude", inp, unwritable, spawned.append)
    assert spawned == []


def test_codex_gets_no_summary_while_its_own_memories_are_on_unless_asked(isolated_home: Any) -> None:
    env = make_project(isolated_home)
    _memory_summary(isolated_home, env)
    isolated_home.codex_home.mkdir()
    (isolated_home.codex_home / "config.toml").write_text("[features]\nmemories = true\n", encoding="utf-8")
    inp = parse_input(hook_input("SessionStart", env, source="startup"), "SessionStart")
    assert events.session_start("codex", inp, env, lambda args: None) == ""
    assert events.session_start("claude", inp, env, lambda args: None) != ""
    write_config(env, '[hooks]\nsession_memory = "on"\n')
    assert events.session_start("codex", inp, env, lambda args: None).startswith(events.SUMMARY_INTRO)


@pytest.mark.parametrize("trust", ["", "trusted", "untrusted"])
def test_codex_memories_turned_on_in_a_project_count_only_where_codex_trusts_the_project(
    isolated_home: Any, trust: str
) -> None:
    env = make_project(isolated_home)
    _memory_summary(isolated_home, env)
    (env.project_root / ".codex").mkdir()
    (env.project_root / ".codex" / "config.toml").write_text(
        "[features]\nmemories = true\n", encoding="utf-8"
    )
    isolated_home.codex_home.mkdir()
    entry = f'[projects."{env.project_root}"]\ntrust_level = "{trust}"\n' if trust else ""
    (isolated_home.codex_home / "config.toml").write_text(entry, encoding="utf-8")
    inp = parse_input(hook_input("SessionStart", env, source="startup"), "SessionStart")
    given = events.session_start("codex", inp, env, lambda args: None)
    # Codex reads a project's .codex/config.toml only once the project is trusted
    assert given.startswith(events.SUMMARY_INTRO) is (trust != "trusted")


def test_a_queue_with_a_callable_memory_model_starts_a_detached_run(isolated_home: Any) -> None:
    env = make_project(isolated_home, config='[memory]\nbase_url = "http://127.0.0.1:9/v1"\n')
    spawned: list[list[str]] = []
    inp = parse_input(hook_input("SessionEnd", env, reason="other"), "SessionEnd")
    events.stop("claude", inp, env, spawned.append)
    assert spawned == [["memory", "run", "--queued"]]
    write_config(env, '[memory]\nbase_url = "http://127.0.0.1:9/v1"\n[hooks]\nmemory_run = "off"\n')
    events.stop("claude", inp, env, spawned.append)
    assert len(spawned) == 1


@pytest.mark.parametrize(
    ("environ", "expected"),
    [
        ({"OPENAI_API_KEY": "k", "ANTHROPIC_API_KEY": "k"}, [["memory", "run", "--queued"]]),
        ({"OPENAI_API_KEY": "k"}, [["memory", "run", "--queued", "--phase", "1"]]),
        ({"ANTHROPIC_API_KEY": "k"}, []),
    ],
)
def test_the_detached_run_consolidates_only_when_the_consolidation_model_can_be_called(
    isolated_home: Any, environ: dict[str, str], expected: list[list[str]]
) -> None:
    config = '[memory]\nextract_model = "openai:mini"\nconsolidation_model = "anthropic:big"\n'
    env = dataclasses.replace(make_project(isolated_home, config=config), environ=environ)
    spawned: list[list[str]] = []
    inp = parse_input(hook_input("SessionEnd", env, reason="other"), "SessionEnd")
    events.stop("claude", inp, env, spawned.append)
    assert spawned == expected


def test_a_skill_outside_the_agents_roots_is_named_by_its_path(isolated_home: Any) -> None:
    env = make_project(isolated_home, config=f'[skills]\nroots = ["{isolated_home.home / "team"}"]\n')
    path = write_skill(
        isolated_home.home / "team", "invoice-export", "Export invoices as CSV for accounting."
    )
    text = context_text(_ask(env, "UserPromptSubmit", "codex", prompt="export the invoices as csv").answer)
    assert f"- invoice-export: Export invoices as CSV for accounting. (file: {path})" in text


def test_memory_lines_given_to_the_model_count_as_a_use_of_their_session(isolated_home: Any) -> None:
    from skillshelf.memory.store import SessionRow, open_store

    env = make_project(isolated_home)
    folder = scope_dir(env.dirs.data, project_scope(env.project_root))
    (folder / "rollout_summaries").mkdir(parents=True)
    (folder / "rollout_summaries" / "s.md").write_text(
        "thread_id: sess-42\n- PDF form fields are filled with pdftk here\n", encoding="utf-8"
    )
    with open_store(None, data_dir=env.dirs.data) as store:
        store.register_sessions(
            [SessionRow(id="sess-42", source="codex", path="/x.jsonl", cwd="", project="", updated_at_ms=1)],
            1,
        )
        store.execute_for_tests(
            "INSERT INTO stage1_outputs (session_id, scope, source_updated_at_ms, raw_memory, "
            "rollout_summary, generated_at_ms) VALUES ('sess-42', 's', 1, 'r', 's', 1)"
        )
    assert "pdftk" in events.memory_notes(env, PDF_PROMPT, token_cap=400, setting="project")
    with open_store(None, data_dir=env.dirs.data) as store:
        assert [o.usage_count for o in store.outputs()] == [1]


def test_hook_input_nested_too_deeply_is_a_hook_input_error() -> None:
    from skillshelf.hooks.payload import HookInputError

    with pytest.raises(HookInputError, match="nested too deeply"):
        parse_input(b'{"prompt": ' + b"[" * 100_000, "UserPromptSubmit")


def test_a_usage_log_that_cannot_be_written_keeps_the_answer_and_is_logged(isolated_home: Any) -> None:
    env = make_project(isolated_home)
    usage_log = UsageStore.in_state_dir(env.dirs.state).path
    usage_log.mkdir(parents=True)  # a folder where the log should be: every append fails
    run = _ask(env, "UserPromptSubmit", prompt=PDF_PROMPT)
    assert run.status == "ok" and "pdf-forms" in context_text(run.answer)
    assert _ask(env, "PostToolUse", tool_name="Skill", tool_input={"skill": "pdf-forms"}).status == "empty"
    log = (env.dirs.state / "hooks" / "hooks.log").read_text(encoding="utf-8")
    assert log.count("usage not recorded: SE201") == 2


def test_claude_codes_prompts_see_its_project_folder_after_the_model_moved_to_a_subfolder(
    isolated_home: Any,
) -> None:
    """The model's ``cd`` moves the ``cwd`` of Claude Code's later hook calls, not the folder whose
    skills and settings Claude Code has (``$CLAUDE_PROJECT_DIR``): a skill turned off in that
    folder's settings stays unsuggested."""
    env = make_project(isolated_home)
    (env.cwd / ".claude" / "skills").mkdir(parents=True)
    (env.cwd / ".claude" / "skills" / "pdf-forms").symlink_to(
        env.cwd / ".agents" / "skills" / "pdf-forms", target_is_directory=True
    )
    off = '{"skillOverrides": {"pdf-forms": "off"}}'
    (env.cwd / ".claude" / "settings.json").write_text(off, encoding="utf-8")
    sub = env.cwd / "sub"
    sub.mkdir()
    in_sub = dataclasses.replace(env, cwd=sub)
    assert "- pdf-forms:" in context_text(_ask(in_sub, "UserPromptSubmit", prompt=PDF_PROMPT).answer)

    project = dataclasses.replace(in_sub, environ={**in_sub.environ, "CLAUDE_PROJECT_DIR": str(env.cwd)})
    assert "- pdf-forms:" not in context_text(_ask(project, "UserPromptSubmit", prompt=PDF_PROMPT).answer)
    codex = _ask(project, "UserPromptSubmit", "codex", prompt=PDF_PROMPT)  # Codex has no such variable
    assert "- pdf-forms:" in context_text(codex.answer)
    gone = dataclasses.replace(
        project, environ={**project.environ, "CLAUDE_PROJECT_DIR": str(env.cwd / "gone")}
    )
    assert "- pdf-forms:" in context_text(_ask(gone, "UserPromptSubmit", prompt=PDF_PROMPT).answer)
