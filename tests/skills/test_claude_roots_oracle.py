"""Differential test: which skills Claude Code (2.1.197) lists from its roots vs discover_skills.

Claude Code reads ``<root>/<folder>/SKILL.md`` one level deep in ``.claude/skills`` (project root
down to the cwd) and ``~/.claude/skills``, names each skill after its folder (hidden folders and
symlinked folders included) and falls back to the body when there is no description. Its own
bundled skills are always listed too; the test only looks at the folders it creates (``my-``).
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import pytest
from skill_tree_helpers import git_init, skill_text, write, write_skill

from skillshelf.env import Env
from skillshelf.skills.discover import DiscoveryOptions, discover_skills

pytestmark = pytest.mark.oracle

_LINE = re.compile(r"^- (?P<name>[^:]+): (?P<description>.*)$")


def claude_listing(result: dict[str, Any]) -> dict[str, str]:
    listed: dict[str, str] = {}
    for line in (result["skills_listing"] or "").splitlines():
        if (m := _LINE.match(line)) and m.group("name").lstrip(".").startswith("my-"):
            listed[m.group("name")] = m.group("description")
    return listed


def test_claude_roots_match_claude_code(tmp_path: Path, claude_oracle: Any) -> None:
    home, repo = tmp_path / "home", tmp_path / "repo"
    git_init(repo)
    cwd = repo / "sub"
    project = repo / ".claude/skills"
    write_skill(project / "my-flat", "other-name", "flat one")
    write_skill(project / "my-group/my-nested", "nested", "nested below a group")
    write_skill(project / ".my-hidden", "hidden", "a hidden folder")
    write(project / "my-nodesc/SKILL.md", "---\nname: x\n---\n# Heading here\ntext\n")
    write(project / "my-nofm/SKILL.md", "# Only a heading\nsome text\n")
    write(project / "my-repaired/SKILL.md", "---\nname: r\ndescription: AWS: ECS\n---\n")
    write(project / "my-lower/skill.md", skill_text("lower"))
    write(
        project / "my-dmi/SKILL.md", "---\nname: dmi\ndescription: d\ndisable-model-invocation: true\n---\n"
    )
    write_skill(cwd / ".claude/skills/my-sub", "sub", "from the cwd")
    write_skill(home / ".claude/skills/my-user", "user", "from home")
    write_skill(tmp_path / "shared/linked", "linked", "through a link")
    os.symlink(tmp_path / "shared/linked", project / "my-link")
    write_skill(repo / ".agents/skills/my-agents", "agents", "Claude Code does not read .agents")

    theirs = claude_listing(claude_oracle(cwd, home=home))
    env = Env.for_test(cwd=cwd, home=home)
    found = discover_skills(env, DiscoveryOptions(include_builtin=False, use_cache=False))
    ours = {
        s.name: s.description for s in found.skills if s.origin.value.startswith("claude") and s.model_visible
    }
    assert ours == theirs
    assert "my-group" not in theirs and "my-nested" not in theirs
