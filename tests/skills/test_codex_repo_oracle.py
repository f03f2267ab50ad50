"""Differential tests in real Git repositories: the whole catalog against Codex 0.171.0.

Each seed builds one random tree: a repository made by ``git init`` (or a worktree, whose
``.git`` is a file; or a submodule-style ``.git`` file; or a repository nested in another; or
an empty ``.git`` folder in the way; or other ``project_root_markers`` written to Codex's
``config.toml``), a cwd a few levels down, and ``.codex/skills`` and ``.agents/skills`` folders
with skills at random levels: above the repository, at its root, between the root and the cwd,
at the cwd and below it, plus the user's roots. The budget is random too (Codex's default model
or a ``model_context_window`` in ``config.toml``). skillshelf reads the same ``config.toml``,
discovers, sizes the budget and renders; the roots table and every skill line must equal
Codex's (the intro prose is ours). One oracle call per tree.
"""

from __future__ import annotations

import dataclasses
import json
import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from skill_tree_helpers import git, split_catalog

from skillshelf.env import Env
from skillshelf.skills.catalog import render_catalog
from skillshelf.skills.codex_config import catalog_budget
from skillshelf.skills.discover import DiscoveryOptions, discover_skills

pytestmark = pytest.mark.oracle

SEEDS = range(60)
KINDS = ["init", "init", "worktree", "gitfile", "nested", "empty-inside", "empty-only", "hg", "no-markers"]
WINDOWS: list[int | None] = [None, None, 4_000, 30_000, 120_000, 400_000]
NAMES = ["deploy", "review", "lint", "docs", "release", "triage", "data", "café", "数据", "x"]
WORDS = ["build", "test", "the", "api", "when:", "données", "🚀", "a-long-hyphenated-word", "run"]


@dataclass
class RepoTree:
    base: Path
    home: Path
    codex_home: Path
    cwd: Path = Path()
    config: list[str] = field(default_factory=list)


def make_repository(tree: RepoTree, repo: Path, kind: str, rnd: random.Random) -> None:
    """``repo`` (which exists) becomes a project of ``kind``."""
    if kind == "worktree":
        main = tree.base / "main-checkout"
        git("init", "-q", str(main))
        git("commit", "-q", "--allow-empty", "-m", "init", cwd=main)
        repo.rmdir()
        git("worktree", "add", "-q", "-b", "work", str(repo), cwd=main)
    elif kind == "gitfile":
        (repo / ".git").write_text("gitdir: ../.git/modules/repo\n", encoding="utf-8")
    elif kind in ("empty-only",):
        (repo / ".git").mkdir()
    elif kind == "hg":
        (repo / ".hg").mkdir()
        tree.config.append('project_root_markers = [".hg"]')
        if rnd.random() < 0.5:
            git("init", "-q", str(repo / "l1"))
    else:
        git("init", "-q", str(repo))
        if kind == "no-markers":
            tree.config.append("project_root_markers = []")


def words(rnd: random.Random) -> str:
    return " ".join(
        rnd.choice(WORDS) if rnd.random() < 0.4 else f"w{rnd.randrange(10**5)}"
        for _ in range(rnd.randint(1, 40))
    )


def add_skills(root: Path, rnd: random.Random, tag: str) -> None:
    for i in range(rnd.randint(1, 3)):
        parts = [rnd.choice(["g", "team", ".hidden"]) for _ in range(rnd.choice([0, 0, 1, 2]))]
        folder = root.joinpath(*parts, f"{tag}-{i}")
        folder.mkdir(parents=True, exist_ok=True)
        name = rnd.choice(NAMES) if rnd.random() < 0.5 else f"{rnd.choice(NAMES)}-{tag}-{i}"
        text = (
            f"---\nname: {json.dumps(name, ensure_ascii=False)}\n"
            f"description: {json.dumps(words(rnd), ensure_ascii=False)}\n---\n"
        )
        (folder / "SKILL.md").write_text(text, encoding="utf-8")


def build_tree(base: Path, seed: int) -> RepoTree:
    rnd = random.Random(seed)
    tree = RepoTree(base=base.resolve(), home=base.resolve() / "home", codex_home=base.resolve() / "codex")
    outer = tree.base / "outer"
    repo = outer / "repo"
    depth = rnd.randint(0, 3)
    levels = [repo / Path(*[f"l{i}" for i in range(1, n + 1)]) for n in range(depth + 1)]
    for folder in (tree.home, tree.codex_home, repo):
        folder.mkdir(parents=True, exist_ok=True)
    kind = KINDS[seed % len(KINDS)]
    make_repository(tree, repo, kind, rnd)
    levels[-1].mkdir(parents=True, exist_ok=True)
    if kind == "nested" and depth:
        git("init", "-q", str(rnd.choice(levels[1:])))
    if kind == "empty-inside" and depth:
        (rnd.choice(levels[1:]) / ".git").mkdir()
    tree.cwd = levels[-1]
    places = [outer, *levels, levels[-1] / "below"]
    always = {
        (repo, ".codex"),
        (levels[-1], ".agents"),
    }  # the repository root's .codex: the case to get right
    for index, folder in enumerate(places):
        for kind_dir in (".codex", ".agents"):
            if (folder, kind_dir) in always or rnd.random() < 0.5:
                add_skills(folder / kind_dir / "skills", rnd, f"{kind_dir[1]}{index}")
    if rnd.random() < 0.5:
        add_skills(tree.codex_home / "skills", rnd, "cu")
    if rnd.random() < 0.5:
        add_skills(tree.home / ".agents" / "skills", rnd, "au")
    codex_roots = [p / ".codex" / "skills" for p in places if (p / ".codex" / "skills").is_dir()]
    agents_roots = [p / ".agents" / "skills" for p in places if (p / ".agents" / "skills").is_dir()]
    if codex_roots and agents_roots and rnd.random() < 0.3:  # one skill reached from two roots
        target = next(iter(sorted(rnd.choice(codex_roots).glob("*/SKILL.md"))), None)
        if target is not None:
            (rnd.choice(agents_roots) / "linked").symlink_to(target.parent)
    window = rnd.choice(WINDOWS)
    if window is not None:
        tree.config.append(f"model_context_window = {window}")
    tree.config.append("[skills.bundled]\nenabled = false")
    (tree.codex_home / "config.toml").write_text("\n".join(tree.config) + "\n", encoding="utf-8")
    return tree


def ours(tree: RepoTree) -> tuple[list[str], list[str]]:
    env = dataclasses.replace(
        Env.for_test(cwd=tree.cwd, home=tree.home, codex_home=tree.codex_home),
        admin_skills_dir=Path("/etc/codex/skills"),
    )
    options = DiscoveryOptions(
        include_builtin=False, include_claude=False, include_installed=False, use_cache=False
    )
    found = discover_skills(env, options)
    rendered = render_catalog(found.skills, catalog_budget(env).budget, roots=[r.path for r in found.roots])
    return list(rendered.root_lines), list(rendered.entries)


@pytest.mark.parametrize("seed", SEEDS)
def test_catalog_in_a_real_repository_matches_codex(tmp_path: Path, codex_oracle: Any, seed: int) -> None:
    tree = build_tree(tmp_path, seed)
    theirs = split_catalog(
        codex_oracle(tree.cwd, home=tree.home, codex_home=tree.codex_home)["skills_instructions"]
    )
    mine = ours(tree)
    assert mine[0] == theirs[0], f"roots table differs for seed {seed} ({KINDS[seed % len(KINDS)]})"
    assert mine[1] == theirs[1]
