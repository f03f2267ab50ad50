"""The main job, end to end: `build_context` and `skillshelf context` in an isolated project."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from skillshelf.cli.main import cli
from skillshelf.context import ContextOptions, build_context
from skillshelf.dirs import UserDirs
from skillshelf.env import Env
from skillshelf.errors import RequiredSkillError, UsageError

SKILLS = {
    "release-notes": "Write release notes from merged pull requests and tags. Use when preparing a release.",
    "pdf-forms": "Fill, flatten and extract fields of PDF forms. Use when a task involves PDF form fields.",
    "db-migrations": "Plan and write safe database schema migrations with rollbacks.",
    "secret-ops": "Rotate deployment credentials safely.",
    "style-guide": "The house style for prose and code comments.",
}


def _project(tmp_path: Path, home: Path, config: str = "") -> Env:
    project = tmp_path / "proj"
    (project / ".git").mkdir(parents=True)
    (project / "AGENTS.md").write_text("Always run the tests before committing.\n", encoding="utf-8")
    for name, description in SKILLS.items():
        folder = project / ".agents" / "skills" / name
        folder.mkdir(parents=True)
        (folder / "SKILL.md").write_text(
            f"---\nname: {name}\ndescription: {description}\n---\n# {name}\nSTEPS-OF-{name}\n",
            encoding="utf-8",
        )
    if config:
        user_config = UserDirs.under(home).config
        user_config.mkdir(parents=True, exist_ok=True)
        (user_config / "config.toml").write_text(config, encoding="utf-8")
    return Env.for_test(cwd=project, home=home)


OPTIONS = ContextOptions(include_builtin=False, use_cache=False)


def test_context_has_instructions_catalog_and_the_mentioned_skill(tmp_path: Path, isolated_home) -> None:  # type: ignore[no-untyped-def]
    env = _project(tmp_path, isolated_home.home)
    result = build_context(env, "use $release-notes for v2.0", OPTIONS)
    names = [p.name for p in result.parts]
    assert names[:2] == ["instructions", "catalog"] and names[-1] == "mentioned"
    assert "Always run the tests" in result.part("instructions").text  # type: ignore[union-attr]
    catalog = result.part("catalog").text  # type: ignore[union-attr]
    assert all(f"- {name}:" in catalog for name in SKILLS)
    mentioned = result.part("mentioned").text  # type: ignore[union-attr]
    assert "<name>release-notes</name>" in mentioned and "STEPS-OF-release-notes" in mentioned
    assert result.tokens == sum(p.tokens for p in result.parts) > 0


def test_suggestions_rank_the_skill_that_fits_the_task(tmp_path: Path, isolated_home) -> None:  # type: ignore[no-untyped-def]
    env = _project(tmp_path, isolated_home.home)
    result = build_context(env, "fill in the fields of this PDF form", OPTIONS)
    suggestions = result.part("suggestions")
    assert suggestions is not None
    assert suggestions.sources[0].endswith("pdf-forms/SKILL.md")


def test_no_semantic_ranks_the_suggestions_without_the_embedding_models(
    tmp_path: Path,
    isolated_home,
    monkeypatch: pytest.MonkeyPatch,  # type: ignore[no-untyped-def]
) -> None:
    env = _project(tmp_path, isolated_home.home)
    monkeypatch.chdir(env.cwd)
    asked: list[bool | None] = []

    def models_for(index: object, *, mode: bool | None, cache_dir: object) -> None:
        asked.append(mode)  # and no model is loaded, installed or not

    monkeypatch.setattr("skillshelf.select.ranking.semantic_index", models_for)
    task = "fill in the fields of this PDF form"
    done = CliRunner().invoke(cli, ["context", task, "--no-builtin", "--no-cache", "--no-semantic", "--json"])
    assert done.exit_code == 0, done.output
    [part] = [p for p in json.loads(done.output)["parts"] if p["name"] == "suggestions"]
    assert part["sources"][0].endswith("pdf-forms/SKILL.md")
    assert asked == []
    assert build_context(env, task, OPTIONS).part("suggestions") is not None
    assert asked == [None]  # by default every installed model ranks
    with pytest.raises(UsageError, match="semantic must be None or False"):
        dataclasses.replace(OPTIONS, semantic=True)


def test_for_claude_code_the_skills_it_lists_are_named_for_its_skill_tool(
    tmp_path: Path, isolated_home
) -> None:  # type: ignore[no-untyped-def]
    env = _project(tmp_path, isolated_home.home)
    claude = env.cwd / ".claude" / "skills"
    claude.mkdir(parents=True)
    (claude / "pdf-forms").symlink_to(env.cwd / ".agents" / "skills" / "pdf-forms", target_is_directory=True)
    task = "fill in the fields of this PDF form"
    claude_options = dataclasses.replace(OPTIONS, skill_tool=True)

    def suggestions(options: ContextOptions) -> str:
        part = build_context(env, task, options).part("suggestions")
        assert part is not None and part.sources[0].endswith("pdf-forms/SKILL.md")
        return part.text

    assert "- pdf-forms: [untrusted project] Fill, flatten" in suggestions(OPTIONS)
    assert "(file: " + str(env.cwd / ".agents/skills/pdf-forms/SKILL.md") in suggestions(OPTIONS)
    named = suggestions(claude_options)
    assert "call the Skill tool with its name" in named and "pdf-forms/SKILL.md" not in named
    settings = env.cwd / ".claude" / "settings.json"
    for withheld in ("off", "user-invocable-only"):  # the user keeps it from the model in Claude Code
        settings.write_text(json.dumps({"skillOverrides": {"pdf-forms": withheld}}), encoding="utf-8")
        assert build_context(env, task, claude_options).part("suggestions") is None
        assert "pdf-forms/SKILL.md" in suggestions(OPTIONS)  # Codex is not told of Claude's settings
        mentioned = build_context(env, f"$pdf-forms {task}", claude_options)
        assert mentioned.part("suggestions") is None  # a mention loads it whole instead
        assert [s.name for s in mentioned.mentioned] == ["pdf-forms"]
    settings.write_text(json.dumps({"skillOverrides": {"pdf-forms": "name-only"}}), encoding="utf-8")
    assert "call the Skill tool with its name" in suggestions(claude_options)
    settings.write_text("{}", encoding="utf-8")
    skill_md = env.cwd / ".agents" / "skills" / "pdf-forms" / "SKILL.md"  # Claude Code lists it only for
    text = skill_md.read_text(encoding="utf-8")  # matching files: the model is given its path
    skill_md.write_text(text.replace("---\n#", "paths: ['*.pdf']\n---\n#", 1), encoding="utf-8")
    assert "pdf-forms/SKILL.md" in suggestions(claude_options)


def test_the_context_command_names_skills_for_claude_codes_tool_when_the_profile_is_claude(
    tmp_path: Path, isolated_home, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    env = _project(tmp_path, isolated_home.home, config='[instructions]\nprofile = "claude"\n')
    claude = env.cwd / ".claude" / "skills"
    claude.mkdir(parents=True)
    (claude / "pdf-forms").symlink_to(env.cwd / ".agents" / "skills" / "pdf-forms", target_is_directory=True)
    monkeypatch.chdir(env.cwd)

    def fragment(*args: str) -> str:
        task = "fill in the fields of this PDF form"
        out = CliRunner().invoke(cli, ["context", task, "--no-builtin", "--json", *args]).output
        return next(p["text"] for p in json.loads(out)["parts"] if p["name"] == "suggestions")

    assert "call the Skill tool" in fragment() and "pdf-forms/SKILL.md" not in fragment()
    assert "pdf-forms/SKILL.md" in fragment("--profile", "codex")
    assert "call the Skill tool" in fragment("--profile", "claude")


def test_a_skill_hidden_from_implicit_use_is_never_suggested_but_loads_by_mention(
    tmp_path: Path, isolated_home
) -> None:  # type: ignore[no-untyped-def]
    env = _project(tmp_path, isolated_home.home)
    agents = env.cwd / ".agents" / "skills" / "pdf-forms" / "agents"
    agents.mkdir()
    (agents / "openai.yaml").write_text("policy:\n  allow_implicit_invocation: false\n", encoding="utf-8")
    result = build_context(env, "fill in the fields of this PDF form", OPTIONS)
    suggestions = result.part("suggestions")
    assert suggestions is None or not any("pdf-forms" in s for s in suggestions.sources)
    assert "pdf-forms" not in result.part("catalog").text  # type: ignore[union-attr]
    mentioned = build_context(env, "use $pdf-forms on this form", OPTIONS).part("mentioned")
    assert mentioned is not None and "STEPS-OF-pdf-forms" in mentioned.text


def test_the_catalog_does_not_change_when_only_the_task_changes(tmp_path: Path, isolated_home) -> None:  # type: ignore[no-untyped-def]
    env = _project(tmp_path, isolated_home.home)
    first = build_context(env, "fill a PDF form", OPTIONS)
    second = build_context(env, "write a database migration", OPTIONS)
    assert first.part("catalog") == second.part("catalog")
    assert first.part("instructions") == second.part("instructions")


def test_per_skill_modes_shape_the_context(tmp_path: Path, isolated_home) -> None:  # type: ignore[no-untyped-def]
    config = """
[[skills.config]]
name = "secret-ops"
mode = "manual"

[[skills.config]]
name = "db-migrations"
mode = "name-only"

[[skills.config]]
name = "style-guide"
mode = "pinned"

[[skills.config]]
name = "pdf-forms"
mode = "disabled"
"""
    env = _project(tmp_path, isolated_home.home, config)
    result = build_context(env, "rotate credentials with $secret-ops and fill a pdf form", OPTIONS)
    catalog = result.part("catalog").text  # type: ignore[union-attr]
    assert "- secret-ops" not in catalog and "pdf-forms" not in catalog
    assert "- db-migrations: (file: r0/" in catalog  # name only
    assert "` [untrusted project]: every skill under this root" in catalog  # the project is not trusted
    pinned = result.part("pinned").text  # type: ignore[union-attr]
    assert "STEPS-OF-style-guide" in pinned
    assert "STEPS-OF-secret-ops" in result.part("mentioned").text  # type: ignore[union-attr]
    suggested = result.part("suggestions")
    assert suggested is None or not any("pdf-forms" in s for s in suggested.sources)
    unmentioned = build_context(env, "rotate the deployment credentials", OPTIONS).part("suggestions")
    assert unmentioned is None or not any("secret-ops" in s for s in unmentioned.sources)


def test_a_missing_required_skill_fails_with_a_clear_error(tmp_path: Path, isolated_home) -> None:  # type: ignore[no-untyped-def]
    env = _project(tmp_path, isolated_home.home, '[[skills.config]]\nname = "not-here"\nmode = "required"\n')
    with pytest.raises(RequiredSkillError):
        build_context(env, "anything", OPTIONS)


def test_the_context_command_prints_parts_and_json(tmp_path: Path, isolated_home, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    env = _project(tmp_path, isolated_home.home)
    monkeypatch.chdir(env.cwd)
    runner = CliRunner()
    people = runner.invoke(cli, ["context", "use $pdf-forms", "--no-builtin", "--no-cache"])
    assert people.exit_code == 0, people.output
    assert "Skills catalog" in people.output and "total" in people.output
    raw = runner.invoke(cli, ["context", "use $pdf-forms", "--no-builtin", "--raw"])
    assert raw.output.startswith("# AGENTS.md instructions for")
    as_json = json.loads(runner.invoke(cli, ["context", "use $pdf-forms", "--no-builtin", "--json"]).output)
    assert as_json["mentioned"] == ["pdf-forms"]
    assert {p["name"] for p in as_json["parts"]} >= {"instructions", "catalog", "mentioned"}


def test_builtin_skills_are_what_an_empty_machine_shows(tmp_path: Path, isolated_home) -> None:  # type: ignore[no-untyped-def]
    empty = tmp_path / "empty"
    empty.mkdir()
    env = Env.for_test(cwd=empty, home=isolated_home.home)
    result = build_context(env, "how do I write a skill", ContextOptions(use_cache=False))
    assert result.skills_total >= 2
    assert result.part("suggestions") is not None


def test_for_claude_code_the_skill_its_leading_slash_command_loads_is_not_sent_again(
    tmp_path: Path, isolated_home
) -> None:  # type: ignore[no-untyped-def]
    """Claude Code loads the skill a prompt's leading ``/name`` names itself (as the prompt hook
    leaves it out); a ``$name`` it does nothing with, and Codex's context is as before."""
    env = _project(tmp_path, isolated_home.home)
    claude = env.cwd / ".claude" / "skills"
    claude.mkdir(parents=True)
    (claude / "pdf-forms").symlink_to(env.cwd / ".agents" / "skills" / "pdf-forms", target_is_directory=True)
    claude_options = dataclasses.replace(OPTIONS, skill_tool=True, suggestions=False)

    def sent(task: str, options: ContextOptions) -> list[str]:
        result = build_context(env, task, options)
        assert len(result.mentioned) == 1
        part = result.part("mentioned")
        return [] if part is None else [Path(source).parent.name for source in part.sources]

    assert sent("/pdf-forms fill this in", claude_options) == []
    assert (
        sent(
            "/pdf-forms fill this in", dataclasses.replace(claude_options, profile="claude", skill_tool=None)
        )
        == []
    )
    assert sent("use $pdf-forms here", claude_options) == ["pdf-forms"]
    assert sent("/release-notes v2", claude_options) == ["release-notes"]  # not where Claude Code looks
    codex = dataclasses.replace(claude_options, profile="codex", skill_tool=None)
    assert sent("/pdf-forms fill this in", codex) == ["pdf-forms"]
