"""Differential tests for the ``.claude/rules`` walk: rules reached through symbolic links (named
by their real path, which ``claudeMdExcludes`` matches), link cycles and deep nesting, against
``claude-oracle``; the walk's own bound (IN119) without it."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from skillshelf.env import Env
from skillshelf.instructions import load_instructions, rule_walk

_SECTION = re.compile(r"^Contents of (/[^\n]*?) \([^\n]*\):\n\n([^\n]*)", re.M)


def _files(block: str | None) -> list[tuple[str, str]]:
    """``[(path, first line)]`` of each file in a CLAUDE.md block (theirs or ours)."""
    return [(m.group(1), m.group(2)) for m in _SECTION.finditer(block or "")]


def _write(base: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        path = base / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def _dotfiles(base: Path, excludes: list[str]) -> Path:
    """``~/.claude/rules`` a link to ``~/dotfiles/rules``; the repository's settings name
    ``excludes`` (``{base}`` filled in)."""
    _write(
        base,
        {
            "home/dotfiles/rules/style.md": "STYLE\n",
            "home/dotfiles/rules/sub/deep.md": "DEEP\n",
            "repo/.git/HEAD": "x",
            "repo/CLAUDE.md": "PROJECT\n",
            "repo/.claude/settings.json": json.dumps(
                {"claudeMdExcludes": [e.format(base=base) for e in excludes]}
            ),
        },
    )
    (base / "home" / ".claude").mkdir(parents=True)
    (base / "home" / ".claude" / "rules").symlink_to("../dotfiles/rules", target_is_directory=True)
    return base / "repo"


EXCLUDES = {
    "none": [],
    "real-path": ["{base}/home/dotfiles/rules/style.md"],
    "link-path": ["{base}/home/.claude/rules/style.md"],
    "glob-on-the-link-folder": ["**/.claude/rules/**"],
    "glob-on-the-real-folder": ["**/dotfiles/rules/sub/**"],
}


@pytest.mark.oracle
@pytest.mark.parametrize("excludes", EXCLUDES.values(), ids=EXCLUDES.keys())
def test_rules_in_a_linked_folder_are_named_and_excluded_by_their_real_path_like_claude_code(
    excludes: list[str], tmp_path: Path, claude_oracle: Any
) -> None:
    cwd = _dotfiles(tmp_path / "d", excludes)
    home = tmp_path / "d" / "home"
    theirs = _files(claude_oracle(cwd, home=home)["claude_md"])
    ours = _files(load_instructions(Env.for_test(cwd=cwd, home=home), profile="claude").text)
    assert ours == theirs
    assert all("/.claude/rules/" not in path for path, _ in ours)


@pytest.mark.oracle
def test_linked_rule_files_and_folders_cycles_and_deep_nesting_match_claude_code(
    tmp_path: Path, claude_oracle: Any
) -> None:
    base = tmp_path / "r"
    deep = "/".join(f"l{i}" for i in range(1, 13))
    _write(
        base,
        {
            "home/.keep": "",
            "repo/.git/HEAD": "x",
            "repo/docs/shared.md": "SHARED\n",
            "repo/.claude/rules/own.md": "OWN\n",
            f"repo/.claude/rules/{deep}/bottom.md": "BOTTOM\n",
            "outside/extra.md": "EXTRA\n",
        },
    )
    rules = base / "repo" / ".claude" / "rules"
    (rules / "shared.md").symlink_to("../../docs/shared.md")
    (rules / "again.md").symlink_to("own.md")
    (rules / "loop").symlink_to("..", target_is_directory=True)
    (rules / "out").symlink_to(base / "outside", target_is_directory=True)
    (rules / "gone.md").symlink_to("missing.md")
    cwd = base / "repo"
    theirs = _files(claude_oracle(cwd, home=base / "home")["claude_md"])
    ours = _files(load_instructions(Env.for_test(cwd=cwd, home=base / "home"), profile="claude").text)
    assert ours == theirs
    assert ("BOTTOM" in {text for _, text in ours}) and len(ours) == 4


def _load_rules(tmp_path: Path, files: dict[str, str]) -> tuple[list[str], list[str], Path]:
    """``(texts included, IN119 messages, rules folder)`` for a repository with these rules."""
    rules = tmp_path / "repo" / ".claude" / "rules"
    _write(tmp_path, {"repo/.git/HEAD": "x", "home/.keep": ""})
    _write(rules, files)
    result = load_instructions(Env.for_test(cwd=tmp_path / "repo", home=tmp_path / "home"), profile="claude")
    warnings = [d for d in result.diagnostics if d.code == "IN119"]
    assert all(d.path == rules for d in warnings)
    return [layer.text for layer in result.included], [d.message for d in warnings], rules


def test_the_walks_file_bound_leaves_rules_out_with_a_warning(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(rule_walk, "MAX_RULE_FILES", 3)
    texts, warnings, _ = _load_rules(tmp_path, {f"r{i}.md": f"R{i}" for i in range(5)})
    assert len(texts) == 3
    assert len(warnings) == 1 and "more than 3 rule files" in warnings[0]


def test_the_walks_depth_bound_leaves_rules_out_with_a_warning(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(rule_walk, "MAX_RULE_DEPTH", 2)
    texts, warnings, rules = _load_rules(tmp_path, {"a/b/r.md": "DEPTH 2", "a/b/c/r.md": "DEPTH 3"})
    assert texts == ["DEPTH 2"]
    assert len(warnings) == 1 and "more than 2 deep" in warnings[0] and str(rules / "a/b/c") in warnings[0]


def test_a_tree_within_the_bounds_gives_no_warning(tmp_path: Path) -> None:
    rules = tmp_path / "repo" / ".claude" / "rules"
    _write(tmp_path, {"repo/.git/HEAD": "x", "home/.keep": ""})
    _write(rules, {f"r{i}.md": f"R{i}\n" for i in range(510)})
    _write(rules, {"/".join(f"l{i}" for i in range(1, 13)) + "/r.md": "DEEP\n"})
    result = load_instructions(Env.for_test(cwd=tmp_path / "repo", home=tmp_path / "home"), profile="claude")
    assert len(result.included) == 511 and "IN119" not in {d.code for d in result.diagnostics}
