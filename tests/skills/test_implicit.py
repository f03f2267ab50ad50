"""Implicit skill use from shell commands (Codex's detector rules, plus cd/&&/bash -lc)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from skillshelf.skills.implicit import ImplicitUseDetector, read_paths, script_token, split_command
from skillshelf.skills.model import RootOrigin, Scope, Skill, SkillPolicy


def make_skill(root: Path, name: str, *, hidden: bool = False) -> Skill:
    folder = root / name
    (folder / "scripts" / "sub").mkdir(parents=True)
    (folder / "SKILL.md").write_text(f"---\nname: {name}\ndescription: d\n---\n", encoding="utf-8")
    for script in ("scripts/fetch.py", "scripts/sub/run.sh"):
        (folder / script).write_text("", encoding="utf-8")
    return Skill(
        name=name,
        description="d",
        path=(folder / "SKILL.md").resolve(),
        root=root,
        scope=Scope.USER,
        origin=RootOrigin.EXTRA,
        policy=SkillPolicy(allow_implicit_invocation=not hidden),
    )


@pytest.fixture
def tree(tmp_path: Path) -> tuple[Path, Skill, Skill]:
    return tmp_path, make_skill(tmp_path, "alpha"), make_skill(tmp_path, "beta", hidden=True)


@pytest.mark.parametrize(
    ("tokens", "expected"),
    [
        (["python3", "-u", "scripts/fetch_comments.py"], "scripts/fetch_comments.py"),
        (["python3", "-c", "print(1)"], None),
        (["PYTHON.EXE", "scripts/a.py"], "scripts/a.py"),
        (["/usr/bin/node", "scripts/a.js"], "scripts/a.js"),
        (["python3.11", "scripts/a.py"], None),
        (["bash", "--", "scripts/run.sh"], "scripts/run.sh"),
        (["ruby", "scripts/a.txt"], None),
        (["python3", "-m", "tool"], None),
        (["pwsh", "scripts/Do.PS1"], "scripts/Do.PS1"),
    ],
)
def test_script_token_follows_codex_runner_and_extension_lists(
    tokens: list[str], expected: str | None
) -> None:
    assert script_token(tokens) == expected


@pytest.mark.parametrize(
    ("command", "cwd_name", "expected"),
    [
        ("python3 scripts/fetch.py", "alpha", "alpha"),
        ("python3 {root}/alpha/scripts/sub/run.sh", "elsewhere", "alpha"),
        ("bash scripts/sub/run.sh --flag", "beta", "beta"),
        ("cat {root}/alpha/SKILL.md | head", "elsewhere", "alpha"),
        ("nl -ba SKILL.md", "alpha", "alpha"),
        ("sed -n '1,40p' alpha/SKILL.md", ".", "alpha"),
        ("sed 's/a/b/' alpha/SKILL.md", ".", None),
        ("head -n 20 beta/SKILL.md", ".", "beta"),
        ("tail -n +5 beta/SKILL.md 2>/dev/null", ".", "beta"),
        ("awk 'NR<10' alpha/SKILL.md", ".", "alpha"),
        ("less < alpha/SKILL.md", ".", "alpha"),
        ("cd alpha && cat SKILL.md", ".", "alpha"),
        ("cd beta; python scripts/fetch.py", ".", "beta"),
        ("ls || bat ./alpha/../beta/SKILL.md", ".", "beta"),
        ("bash -lc 'cd alpha && more SKILL.md'", ".", "alpha"),
        ("FOO=1 env BAR=2 python3 alpha/scripts/fetch.py", ".", "alpha"),
        ("cat alpha/README.md", ".", None),
        ("python3 alpha/other.py", ".", None),
        ("vim alpha/SKILL.md", ".", None),
        ("cat 'alpha/SKILL.md", ".", None),
    ],
)
def test_detects_reads_and_script_runs(
    tree: tuple[Path, Skill, Skill], command: str, cwd_name: str, expected: str | None
) -> None:
    root, alpha, beta = tree
    cwd = root / cwd_name
    cwd.mkdir(exist_ok=True)
    found = ImplicitUseDetector([alpha, beta]).detect(command.format(root=root), cwd=cwd)
    assert (found.name if found else None) == expected


def test_argv_with_pipe_tokens_is_understood(tree: tuple[Path, Skill, Skill]) -> None:
    root, alpha, beta = tree
    found = ImplicitUseDetector([alpha, beta]).detect(["cat", str(alpha.path), "|", "head"], cwd=root)
    assert found is alpha


def test_symlinked_paths_are_canonicalised(tree: tuple[Path, Skill, Skill]) -> None:
    root, alpha, beta = tree
    os.symlink(root / "alpha", root / "alias")
    detector = ImplicitUseDetector([alpha, beta])
    assert detector.detect("cat alias/SKILL.md", cwd=root) is alpha
    assert detector.detect("python alias/scripts/fetch.py", cwd=root) is None  # already reported this turn


def test_each_skill_is_reported_once_per_turn(tree: tuple[Path, Skill, Skill]) -> None:
    root, alpha, beta = tree
    detector = ImplicitUseDetector([alpha, beta])
    assert detector.detect("cat alpha/SKILL.md", cwd=root) is alpha
    assert detector.detect("head alpha/SKILL.md", cwd=root) is None
    assert detector.detect("cat alpha/SKILL.md && cat beta/SKILL.md", cwd=root) is beta
    detector.new_turn()
    assert detector.detect("cat alpha/SKILL.md", cwd=root) is alpha


def test_script_runs_are_reported_before_reads(tree: tuple[Path, Skill, Skill]) -> None:
    root, alpha, beta = tree
    matches = ImplicitUseDetector([alpha, beta]).matches(
        "cat alpha/SKILL.md; python beta/scripts/fetch.py", cwd=root
    )
    assert matches == (beta, alpha)


def test_read_paths_skip_option_values() -> None:
    assert read_paths(["head", "-n", "5", "a", "b"]) == ["a", "b"]
    assert read_paths(["awk", "-F", ":", "{print}", "f"]) == ["f"]
    assert read_paths(["sed", "-n", "-e", "1p", "f"]) == ["f"]
    assert read_paths(["grep", "x", "f"]) == []


@given(st.text())
def test_splitting_any_command_never_raises(command: str) -> None:
    assert isinstance(split_command(command), list)


@given(st.text(max_size=80))
def test_detection_never_raises(command: str) -> None:
    detector = ImplicitUseDetector([])
    assert detector.detect(command, cwd=Path("/")) is None
