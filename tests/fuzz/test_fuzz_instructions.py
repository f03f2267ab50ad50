"""Fuzzing instruction trees: AGENTS.md / CLAUDE.md files (and Codex's fallback names, ``.claude``
rules with front matter, ``@path`` imports that loop, climb out or point at folders) at random
depths between the project root and the working folder. Loading and rendering them never
raises; every problem is a diagnostic with a code."""

from __future__ import annotations

import tempfile
from pathlib import Path

from fuzzkit import fuzz
from hypothesis import given
from hypothesis import strategies as st

from skillshelf.env import Env
from skillshelf.instructions import load_instructions
from skillshelf.instructions.agents_md import render_agents_md
from skillshelf.instructions.claude_md import render_claude_md

FILE_NAMES = [
    "AGENTS.md",
    "AGENTS.override.md",
    "CLAUDE.md",
    "CLAUDE.local.md",
    ".claude/CLAUDE.md",
    ".claude/rules/r.md",
    "TEAM.md",
]
IMPORTS = st.sampled_from(
    [
        "@AGENTS.md",
        "@CLAUDE.md",
        "@../CLAUDE.md",
        "@/etc/hostname",
        "@~/x.md",
        "@.claude",
        "@sub/CLAUDE.md",
        "@" + "a/" * 40 + "x.md",
        "@\x00x",
    ]
)
FRONT = st.one_of(
    st.just(""),
    st.sampled_from(
        [
            "paths: src/**",
            "paths: [a, {b: c}]",
            "paths:\n  - '*.py'",
            "paths: " + "[" * 40 + "]" * 40,
            "paths: " + "[" * 3000 + "]" * 3000,
            ": :",
            "\t- x",
        ]
    ).map(lambda f: f"---\n{f}\n---\n"),
)
TEXT = st.lists(
    st.one_of(
        IMPORTS,
        st.text(max_size=60),
        st.sampled_from(["# Title", "```", "<!-- @x.md -->", "\r\n", "\x1b]0;title\x07"]),
    ),
    max_size=8,
).map("\n".join)
TREE = st.lists(st.tuples(st.integers(0, 3), st.sampled_from(FILE_NAMES), FRONT, TEXT), max_size=8)


def _write(root: Path, depth: int, name: str, content: str) -> None:
    folder = root.joinpath(*["d"] * depth)
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(content, encoding="utf-8", errors="surrogateescape")


@fuzz(weight=0.15)
@given(
    TREE, st.integers(0, 3), st.sampled_from(["codex", "claude"]), st.one_of(st.none(), st.integers(0, 200))
)
def test_instruction_trees_never_raise(
    tree: list[tuple[int, str, str, str]], cwd_depth: int, profile: str, max_bytes: int | None
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / "home"
        root = home / "repo"
        (root / ".git").mkdir(parents=True)
        for depth, name, front, text in tree:
            _write(root, depth, name, front + text)
        cwd = root.joinpath(*["d"] * cwd_depth)
        cwd.mkdir(parents=True, exist_ok=True)
        env = Env.for_test(cwd=cwd, home=home)
        if profile == "codex":
            found = load_instructions(
                env, profile="codex", max_bytes=max_bytes, fallback_filenames=["TEAM.md"]
            )
            render_agents_md(cwd, found.included)
        else:
            found = load_instructions(env, profile="claude")
            render_claude_md(found.included)
        assert all(d.code for d in found.diagnostics)


def test_a_deep_rule_front_matter_is_a_diagnostic(tmp_path: Path) -> None:
    home = tmp_path / "home"
    rules = home / "p" / ".claude" / "rules"
    rules.mkdir(parents=True)
    (home / "p" / ".git").mkdir()
    (rules / "x.md").write_text("---\npaths: " + "[" * 2000 + "]" * 2000 + "\n---\nrule\n", encoding="utf-8")
    found = load_instructions(Env.for_test(cwd=home / "p", home=home), profile="claude")
    assert all(d.code for d in found.diagnostics)
