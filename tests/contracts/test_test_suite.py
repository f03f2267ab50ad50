"""The test suite's own rules: a missing component skips (or fails in CI), xfail is strict, our
own modules are never import-skipped, and tests that need ../shared run on a clone without it."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from testkit import REPO, missing, shared_folder


def test_a_missing_component_skips_naming_it_outside_ci(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match="npm is not available"):
        missing("npm is not available")


@pytest.mark.parametrize("value", ["true", "1", "TRUE"])
def test_a_missing_component_fails_under_ci(monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    monkeypatch.setenv("CI", value)
    with pytest.raises(pytest.fail.Exception, match="PostgreSQL"):
        missing("no PostgreSQL binaries")


def test_shared_is_found_beside_the_project_or_beside_the_main_checkout_of_a_worktree(
    tmp_path: Path,
) -> None:
    main, worktree = tmp_path / "main", tmp_path / "wt" / "feature"
    (main / ".git" / "worktrees" / "feature").mkdir(parents=True)
    worktree.mkdir(parents=True)
    (worktree / ".git").write_text(f"gitdir: {main / '.git' / 'worktrees' / 'feature'}\n", encoding="utf-8")
    assert shared_folder(main, {}) == tmp_path / "shared"
    assert shared_folder(worktree, {}) == tmp_path / "shared"
    assert shared_folder(worktree, {"SKILLSHELF_SHARED": "/x/y"}) == Path("/x/y")
    assert shared_folder(worktree, {"SKILLSHELF_SHARED": "../y"}) == (Path.cwd() / ".." / "y").resolve()
    (tmp_path / "wt" / "shared").mkdir()
    assert shared_folder(worktree, {}) == tmp_path / "wt" / "shared"
    clone = tmp_path / "clone"
    (clone / ".git").mkdir(parents=True)
    assert shared_folder(clone, {}) == tmp_path / "shared"


def test_xfail_marks_are_strict() -> None:
    options = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["pytest"]
    assert options["ini_options"].get("xfail_strict") is True
    lenient = [
        f"{path.relative_to(REPO)}: {ast.unparse(node)}"
        for path in (REPO / "tests").rglob("*.py")
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.Call)
        and ast.unparse(node.func).endswith("xfail")
        and any(k.arg == "strict" for k in node.keywords)
    ]
    assert lenient == []


def _skips(path: Path) -> list[str]:
    """``pytest.skip(...)`` and ``pytest.importorskip(...)`` calls in ``path``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [
        ast.unparse(node)
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and ast.unparse(node.func).split(".")[-1] in {"skip", "importorskip"}
    ]


def test_tests_skip_only_through_testkit_missing() -> None:
    """A skip names what is missing and turns into a failure under CI=true; an ImportError in
    skillshelf is a bug to see, never a reason to skip (``testkit.installed`` refuses our modules)."""
    found = {
        str(p.relative_to(REPO)): calls
        for p in (REPO / "tests").rglob("*.py")
        if p.name != "testkit.py" and (calls := _skips(p))
    }
    assert found == {}


# Test modules that compare against ../shared/reference (read at collection time or in the test);
# their tests that do are named after Codex (`-k codex`).
READS_SHARED = [
    "tests/skills/test_parse.py",
    "tests/skills/test_frontmatter.py",
    "tests/skills/test_mentions.py",
    "tests/memory/test_memory_phases.py",
    "tests/memory/test_memory_redact.py",
]


def _pytest_without_shared(tmp_path: Path, ci: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in {"CI", "PYTEST_XDIST_WORKER"}}
    env.update(SKILLSHELF_SHARED=str(tmp_path / "no-shared"), CI=ci)
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-rs",
            "-p",
            "no:cacheprovider",
            "-p",
            "no:xdist",
            "-k",
            "codex",
            f"--basetemp={tmp_path / 'run'}",
            *READS_SHARED,
        ],
        cwd=REPO,
        capture_output=True,
        text=True,
        encoding="utf-8",
        env=env,
        timeout=600,
        check=False,
    )


def test_without_shared_the_tests_that_need_it_skip_naming_the_missing_file(tmp_path: Path) -> None:
    proc = _pytest_without_shared(tmp_path, ci="")
    assert proc.returncode == 0, proc.stdout[-3000:]
    skips = [line for line in proc.stdout.splitlines() if line.startswith("SKIPPED")]
    assert skips and all("no-shared/reference/codex-" in line for line in skips), skips


def test_under_ci_the_tests_that_need_shared_fail_without_it(tmp_path: Path) -> None:
    proc = _pytest_without_shared(tmp_path, ci="true")
    assert proc.returncode == 1, proc.stdout[-3000:]
    assert "CI=true" in proc.stdout and " skipped" not in proc.stdout.splitlines()[-1]
