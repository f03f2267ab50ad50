"""A SKILL.md that starts with a UTF-8 byte-order mark, read as Claude Code reads it: no
frontmatter, the folder's name and the first line (``---``) as the description (SK112 says so);
Codex skips the file."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from skill_tree_helpers import git_init, write

from skillshelf.env import Env
from skillshelf.skills.claude_listing import entry_text
from skillshelf.skills.claude_view import listed_description
from skillshelf.skills.discover import discover_claude
from skillshelf.skills.model import RootOrigin, Scope, SkillRoot
from skillshelf.skills.parse import parse_skill_text

_TEXTS = {
    "bom": "\ufeff---\nname: other\ndescription: Convert CSV files to parquet\n---\nbody\n",
    "bom-crlf": "\ufeff---\r\nname: other\r\ndescription: Convert CSV files\r\n---\r\nbody\r\n",
    "bom-heading": "\ufeff\n# Title here\nbody\n",
}


@pytest.mark.parametrize("origin", [RootOrigin.CLAUDE_PROJECT, RootOrigin.AGENTS_REPO])
def test_a_byte_order_mark_hides_the_frontmatter_from_claude_code_and_codex_skips_the_file(
    origin: RootOrigin,
) -> None:
    root = SkillRoot(path=Path("/r"), scope=Scope.REPO, origin=origin)
    parsed = parse_skill_text(_TEXTS["bom"], path=Path("/r/bom/SKILL.md"), root=root)
    notes = [d for d in parsed.diagnostics if d.code == "SK112"]
    assert len(notes) == 1
    if origin is RootOrigin.AGENTS_REPO:
        assert parsed.skill is None
        return
    assert parsed.skill is not None
    assert (parsed.skill.name, parsed.skill.description) == ("bom", "---")
    assert "'---'" in notes[0].message and "Claude Code finds no frontmatter" in notes[0].message
    assert not any(d.code in ("SK101", "SK125") for d in parsed.diagnostics)


def test_claude_code_lists_a_file_with_a_byte_order_mark_as_skillshelf_reads_it(
    tmp_path: Path, claude_oracle: Any
) -> None:
    home, repo = tmp_path / "home", git_init(tmp_path / "repo")
    home.mkdir()
    for name, text in _TEXTS.items():
        write(repo / ".claude/skills" / name / "SKILL.md", text)
    listing = claude_oracle(repo, home=home)["skills_listing"] or ""
    entries = (e.removeprefix("- ").partition(": ") for e in listing.split("\n- "))
    theirs = {name: text for name, _, text in entries if name in _TEXTS}
    found = discover_claude(Env.for_test(cwd=repo, home=home), use_cache=False).skills
    ours = {
        s.name: entry_text(listed_description(s), s.claude.when_to_use) for s in found if s.name in _TEXTS
    }
    assert ours == theirs
    assert theirs["bom"] == "---" and theirs["bom-crlf"] == "---"
