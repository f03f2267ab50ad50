"""Differential test: what Claude Code (2.1.197) shows for frontmatter values its YAML reads
otherwise than PyYAML, against :func:`skillshelf.skills.claude_reading.claude_yaml` (through
discovery); Codex's view of the same files is checked against ``codex-oracle``.

The values start with a YAML indicator (``,``, ``[``, ``]``, ``{``, ``}``, ``%``, ``@``, a
backtick), sit in or next to a flow collection, or hold control characters (C0, C1, NEL, DEL,
U+FEFF, U+FFFE, a NUL, LS) in plain, quoted and block scalars, comments and keys. Three skills of
the openclaw corpus (descriptions starting with ``,``, one holding U+0080) are listed too.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from skill_tree_helpers import git_init, write

from skillshelf.env import Env
from skillshelf.skills.claude_listing import entry_text
from skillshelf.skills.claude_view import listed_description
from skillshelf.skills.discover import discover_claude, discover_skills
from testkit import CORPORA, shared_path

pytestmark = pytest.mark.oracle

#: Frontmatter lines, by the skill's name after ``my-``; each body is ``Body <name>``.
_VALUES: dict[str, str] = {
    # a plain value starting with `,` outside a flow collection is text
    "comma": "description: , it might predict the next word",
    "comma-alone": "description: ,",
    "comma-comment": "description: ,x # c",
    "comma-space-comment": "description: , #c",
    "comma-quote": 'description: , "q"',
    "comma-wtu": "description: , c\nwhen_to_use: , w",
    "comma-repaired": "description: , a\nwhen_to_use: x: y",
    "comma-key": "description: d\n,k: v",
    "comma-tagged": "description: ! , x",
    "comma-nested": "description: d\nmetadata:\n  k: , v",
    "comma-block-seq": "description:\n  - , a\n  - b",
    "comma-after-flow": "description: [a, b]\nwhen_to_use: , w",
    "comma-in-flow": "description: [, a]",
    "comma-flow-trail": "description: [a, b], c",
    # the other indicators: quoted by Claude Code's repair, so a comment stays in the text
    "open-bracket": "description: [a # c",
    "close-bracket": "description: ]x # c",
    "open-brace": "description: {x",
    "close-brace": "description: }x # c",
    "percent": "description: %x # c",
    "at": "description: @x # c",
    "backtick": "description: `x` # c",
    "flow-trail": "description: {a: 1} x",
    # control characters are characters like any other; NEL, LS and PS break no line
    "c80": "description: a\x80b",
    "c80-start": "description: \x80ab",
    "c85": "description: a\x85b",
    "c85-spaced": "description: a \x85 b",
    "c85-end": "description: ab\x85",
    "c85-alone": "description: \x85",
    "c85-quoted": 'description: "a\x85b"',
    "c85-folded": "description:\n  a\n  \x85b",
    "c85-comment": "description: d # x\x85when_to_use: w",
    "c9f": "description: a\x9fb",
    "c8d-quoted": "description: 'a\x8db'",
    "c01": "description: a\x01b",
    "c01-quoted": 'description: "\x01"',
    "c0b": "description: a\x0bb",
    "c1f-end": "description: ab\x1f",
    "del": "description: \x7f",
    "feff": "description: a\ufeffb",
    "feff-alone": 'description: "\ufeff"',
    "fffe": 'description: "a\ufffeb"',
    "ls-folded": "description:\n  a\n  \u2028b",
    "c80-block": "description: |\n  a\x80b",
    "c80-wtu": "description: d\nwhen_to_use: a\x80b",
    "c80-number": "description: 1\x80",
    "c80-key": "description: d\nk\x80: v",
    "c80-repaired": "description: a\x80 [b\nwhen_to_use: w",
    "c80-flow": "description: [a\x80]\nwhen_to_use: x: y",
    # a NUL ends the YAML: what follows it is not read
    "nul": "description: a\x00b\nwhen_to_use: w",
    "nul-first": "when_to_use: w\x00x\ndescription: d",
    "nul-hide": "description: d\x00\ndisable-model-invocation: true",
    "nul-quoted": 'description: "a\x00b"',
    "nul-repaired": "description: a: b\x00\nwhen_to_use: w",
}

_CORPUS = "openclaw__skills/skills/hhhh124hhhh"
_CORPUS_SKILLS = (
    "a-beginner-s-guide-to-chatgpt-prompt-engineering-d-558bdbec",
    "harpa-ai-crafting-exceptional-prompts-for-midjourn-05e5faa9",
    "ai-image-prompts-for-eye-catching-marketing-creati-4e43d568",
)


def _tree(tmp_path: Path, root: str) -> tuple[Path, Path]:
    """A repository with the cases (and the corpus skills) under ``root``, and an empty home."""
    home, repo = tmp_path / "home", git_init(tmp_path / "repo")
    for key, frontmatter in _VALUES.items():
        write(repo / root / f"my-{key}/SKILL.md", f"---\nname: my-{key}\n{frontmatter}\n---\nBody {key}\n")
    shared_path("corpora")
    for name in _CORPUS_SKILLS:
        shutil.copytree(CORPORA / _CORPUS / name, repo / root / name)
    home.mkdir()
    return home, repo


def _entries(listing: str | None) -> dict[str, str]:
    """The listing's entries, by name: the text after ``: ``."""
    entries = (listing or "").split("\n- ")
    return {name: text for name, _, text in (e.removeprefix("- ").partition(": ") for e in entries)}


def test_claude_code_shows_the_odd_values_as_skillshelf_reads_them(
    tmp_path: Path, claude_oracle: Any
) -> None:
    home, repo = _tree(tmp_path, ".claude/skills")
    names = [*(f"my-{key}" for key in _VALUES), *_CORPUS_SKILLS]

    listed = _entries(claude_oracle(repo, home=home)["skills_listing"])
    theirs = {name: listed.get(name) for name in names}
    found = discover_claude(Env.for_test(cwd=repo, home=home), use_cache=False).skills
    ours = {s.name: entry_text(listed_description(s), s.claude.when_to_use) for s in found if s.name in names}

    assert ours == theirs
    assert theirs["my-comma"] == ", it might predict the next word" and theirs["my-comma-comment"] == ",x"
    assert theirs["my-comma-wtu"] == ", c - , w" and theirs["my-close-bracket"] == "]x # c"
    assert theirs["my-c80"] == "a\x80b" and theirs["my-c85-quoted"] == "a\x85b"
    assert theirs["my-c85-comment"] == "d" and theirs["my-feff-alone"] == "Body feff-alone"
    assert theirs["my-nul"] == "a" and theirs["my-nul-hide"] == "d"
    assert theirs[_CORPUS_SKILLS[0]] == ", it might predict the next word as"


def test_codex_reads_the_same_files_as_skillshelf_reads_them_for_codex(
    tmp_path: Path, codex_oracle: Any
) -> None:
    """Codex's YAML refuses most of these values (a value starting with ``,``, a control
    character): it does not list those skills, and skillshelf's Codex view agrees."""
    home, repo = _tree(tmp_path, ".agents/skills")

    result = codex_oracle(
        repo, home=home, codex_home=home / ".codex", config={"model_context_window": 400000}
    )
    theirs = {
        name: text.rpartition(" (file: ")[0]
        for name, text in _entries(result["skills_instructions"]).items()
        if name.startswith("my-") or name in _CORPUS_SKILLS
    }
    found = discover_skills(Env.for_test(cwd=repo, home=home)).skills
    ours = {s.name: s.description for s in found if s.name.startswith("my-") or s.name in _CORPUS_SKILLS}

    assert ours == theirs
    assert "my-comma" not in theirs and "my-c80" not in theirs and theirs["my-at"] == "@x"
