"""Bad config, instruction files and tasks through the library: diagnostics, never tracebacks.

The public functions never raise on bad *content* (they return Diagnostic values with a code and
a fix) and raise only :mod:`skillshelf.errors` exceptions, with a code and a hint, on misuse or
I/O that cannot go on. No test here is marked ``xfail``: a known bug would be, and
``xfail_strict`` (pyproject) makes the mark fail once the bug is fixed.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from bad_input_helpers import BROKEN_SKILLS, assert_coded, codes, write_bytes_skill, write_skill

import skillshelf
from skillshelf.errors import FileAccessError, SkillshelfError, UsageError
from skillshelf.skills.catalog import CharBudget

# -- config, instructions, context --------------------------------------------------------------------

OVERRIDES = [
    "",
    "=",
    "a",
    "a=",
    "a.=1",
    ".a=1",
    "a..b=1",
    "a=[",
    "\x00=1",
    "a=\x00",
    "skills.roots=5",
    "projects=5",
    "projects.x=5",
    "requirements=5",
    "requirements.skills=5",
    "model=5",
    "mcp_servers=5",
    "mcp_servers.x=5",
    "project_root_markers=[5]",
    "skills.config=[5]",
    "skills.config=[{}]",
    'skills.config=[{name=5, mode="pinned"}]',
    'skills.config=[{name="a", path="b", mode="pinned"}]',
    "instructions=5",
    "catalog=5",
    "select=5",
    "serve=5",
    "agent=5",
    "memory=5",
    "install=5",
    f"skills.max_context_tokens={10**40}",
    "skills.max_context_tokens=-1",
]


@pytest.mark.parametrize("override", OVERRIDES)
def test_load_config_turns_any_override_into_diagnostics(env: skillshelf.Env, override: str) -> None:
    config = skillshelf.load_config(env, overrides=[override])
    assert_coded(config.diagnostics)
    options = skillshelf.ContextOptions(include_builtin=False, use_cache=False, config_overrides=(override,))
    assert skillshelf.build_context(env, "x", options).tokens >= 0


@pytest.mark.parametrize(
    "content",
    [
        b"[skills\n",
        b"\xff\xfe",
        b"skills = 5\n",
        b"[skills]\nconfig = 5\n",
        b"[[skills.config]]\nname = 1\nmode = 2\n",
        b"x = 1\nx = 2\n",
        b"\x00" * 100,
    ],
    ids=["syntax", "not-utf8", "skills-int", "config-int", "rule-types", "duplicate-key", "nul"],
)
def test_load_config_reports_unusable_files(env: skillshelf.Env, isolated_home: Any, content: bytes) -> None:
    folder = Path(isolated_home.config) / "skillshelf"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "config.toml").write_bytes(content)
    config = skillshelf.load_config(env)
    assert config.diagnostics and all(d.code.startswith("CF") for d in config.diagnostics)
    assert_coded(config.diagnostics)
    result = skillshelf.build_context(
        env, "x", skillshelf.ContextOptions(include_builtin=False, use_cache=False)
    )
    assert {d.code for d in config.diagnostics} <= {d.code for d in result.diagnostics}


def test_load_config_with_a_config_file_that_is_a_folder_or_a_fifo(
    env: skillshelf.Env, isolated_home: Any
) -> None:
    folder = Path(isolated_home.config) / "skillshelf"
    (folder / "config.toml").mkdir(parents=True)
    assert_coded(skillshelf.load_config(env).diagnostics)
    (folder / "config.toml").rmdir()
    os.mkfifo(folder / "config.toml")
    assert_coded(skillshelf.load_config(env).diagnostics)  # returns: the loader does not open FIFOs


def test_load_instructions_with_binary_huge_and_odd_files(env: skillshelf.Env) -> None:
    agents = env.cwd / "AGENTS.md"
    agents.write_bytes(b"\x89PNG\r\n\x1a\n\xff\xfe" + bytes(range(256)))
    assert "IN102" in codes(skillshelf.load_instructions(env).diagnostics)
    with open(agents, "wb") as handle:
        handle.write(b"Run the tests.\n")
        handle.truncate(50 * 1024 * 1024)
    capped = skillshelf.load_instructions(env)
    assert len(capped.text.encode()) < 64 * 1024 and "IN105" in codes(capped.diagnostics)
    agents.unlink()
    agents.mkdir()
    assert skillshelf.load_instructions(env).text == ""
    agents.rmdir()
    os.mkfifo(agents)
    assert_coded(skillshelf.load_instructions(env).diagnostics)
    agents.unlink()
    agents.symlink_to(agents)
    assert_coded(skillshelf.load_instructions(env, profile="claude").diagnostics)


def test_load_instructions_misuse_is_coded(env: skillshelf.Env) -> None:
    with pytest.raises(UsageError):
        skillshelf.load_instructions(env, max_bytes=-1)
    with pytest.raises(UsageError):
        skillshelf.load_instructions(env, profile="vim")  # type: ignore[arg-type]


def test_build_context_carries_instruction_findings(env: skillshelf.Env) -> None:
    (env.cwd / "AGENTS.md").write_bytes(b"Run the tests \xff\xfe please.\n")
    result = skillshelf.build_context(
        env, "x", skillshelf.ContextOptions(include_builtin=False, use_cache=False)
    )
    assert "IN102" in codes(result.diagnostics)


def test_build_context_with_a_broken_skill_mentioned_and_hostile_task(env: skillshelf.Env) -> None:
    skills = env.cwd / ".agents" / "skills"
    write_bytes_skill(skills, "broken-yaml", BROKEN_SKILLS["broken-yaml"][0])
    write_skill(skills / "good", "good")
    task = "use $broken-yaml and $good and [$x](/etc/passwd) and /../../etc " + "\x00\x1b[31m" * 100
    result = skillshelf.build_context(
        env, task, skillshelf.ContextOptions(include_builtin=False, use_cache=False)
    )
    assert [s.name for s in result.mentioned] == ["good"]
    assert "root:x:" not in result.text
    assert "SK104" in codes(result.diagnostics)


def test_every_raised_error_has_a_code_and_a_hint(env: skillshelf.Env, tmp_path: Path) -> None:
    calls = [
        lambda: skillshelf.validate_paths([]),
        lambda: skillshelf.load_skill([], "nothing"),
        lambda: skillshelf.render_catalog([], CharBudget(chars=1), "html"),  # type: ignore[arg-type]
        lambda: skillshelf.load_instructions(env, max_bytes=-1),
    ]
    for call in calls:
        with pytest.raises(SkillshelfError) as caught:
            call()
        assert caught.value.code and caught.value.hint


def test_a_pinned_skill_that_vanished_is_a_coded_file_error(tmp_path: Path) -> None:
    from skillshelf.context_parts import ContextSkills, pinned_part

    write_skill(tmp_path / "gone", "gone")
    skill = skillshelf.discover_in([tmp_path]).skills[0]
    (tmp_path / "gone" / "SKILL.md").unlink()
    moded = ContextSkills(listed=(), name_only=(), pinned=(skill,), loadable=(skill,), manual=())
    with pytest.raises(FileAccessError) as caught:
        pinned_part(moded)
    assert caught.value.code == "SS005" and caught.value.hint
