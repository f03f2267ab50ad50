"""Differential tests for the edges of Codex's AGENTS.md block: which ``[projects]`` entry
decides trust in a linked worktree, a submodule and under ``project_root_markers``; a name that
is a symbolic link loop; and the config.toml values Codex refuses to start with.

The git layouts are written as git writes them (a worktree's ``.git`` file and its entry under
the main checkout's ``.git/worktrees``, a submodule's ``.git`` file into ``.git/modules``).
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from skillshelf.env import Env
from skillshelf.instructions import load_instructions
from testkit import TOOLS, missing

pytestmark = pytest.mark.oracle

TOOL = TOOLS / "codex-oracle"


@pytest.fixture(autouse=True)
def _codex_is_here(codex_oracle: Any) -> None:
    """Every test here runs Codex: skipped (a failure under CI) when its oracle is missing."""


def _codex(cwd: Path, home: Path, codex_home: Path) -> subprocess.CompletedProcess[str]:
    args = [str(TOOL), "--cwd", str(cwd), "--home", str(home), "--codex-home", str(codex_home), "--raw"]
    proc = subprocess.run(args, capture_output=True, text=True, encoding="utf-8", timeout=300, check=False)
    if proc.returncode == 3:
        missing("codex-oracle could not install Codex with npm")
    return proc


def _codex_block(cwd: Path, home: Path, codex_home: Path) -> str:
    """Codex's AGENTS.md message for ``cwd`` ('' when it sends none)."""
    proc = _codex(cwd, home, codex_home)
    assert proc.returncode == 0, proc.stderr
    texts = [
        c.get("text", "")
        for item in json.loads(proc.stdout)
        for c in item.get("content", [])
        if isinstance(c, dict)
    ]
    found = [t for t in texts if t.startswith("# AGENTS.md instructions")]
    return found[0] if found else ""


def _tree(base: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        path = base / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def _repositories(base: Path) -> None:
    """A main checkout with a linked worktree, a superproject with a submodule, and a
    repository whose sub-folder holds a ``.marker``; each with AGENTS.md files and a
    ``.codex/config.toml`` setting ``project_doc_max_bytes = 3`` in a folder below its root."""
    _tree(
        base,
        {
            "main/.git/HEAD": "ref: refs/heads/main\n",
            "main/.git/worktrees/wt/HEAD": "ref: refs/heads/wt\n",
            "main/.git/worktrees/wt/gitdir": f"{base / 'wt' / '.git'}\n",
            "main/.git/worktrees/wt/commondir": "../..\n",
            "main/AGENTS.md": "main checkout rules\n",
            "wt/.git": f"gitdir: {base / 'main' / '.git' / 'worktrees' / 'wt'}\n",
            "wt/AGENTS.md": "worktree rules\n",
            "wt/n/AGENTS.md": "worktree folder rules\n",
            "wt/n/.codex/config.toml": "project_doc_max_bytes = 3\n",
            "top/.git/HEAD": "ref: refs/heads/main\n",
            "top/.git/modules/lib/HEAD": "ref: refs/heads/main\n",
            "top/AGENTS.md": "superproject rules\n",
            "top/lib/.git": "gitdir: ../.git/modules/lib\n",
            "top/lib/AGENTS.md": "submodule rules\n",
            "top/lib/n/AGENTS.md": "submodule folder rules\n",
            "top/lib/n/.codex/config.toml": "project_doc_max_bytes = 3\n",
            "repo/.git/HEAD": "ref: refs/heads/main\n",
            "repo/pkg/.marker": "",
            "repo/pkg/AGENTS.md": "package rules\n",
            "repo/pkg/x/AGENTS.md": "package folder rules\n",
            "repo/pkg/.codex/config.toml": "project_doc_max_bytes = 3\n",
        },
    )


# name -> (cwd, [projects] entries: folder -> trust_level); all relative to the case folder
TRUST_ROOT_CASES: dict[str, tuple[str, dict[str, str]]] = {
    "worktree-main-checkout-untrusted": ("wt", {"main": "untrusted"}),
    "worktree-main-checkout-untrusted-below": ("wt/n", {"main": "untrusted"}),
    "worktree-untrusted-cwd-below-it": ("wt/n", {"wt": "untrusted"}),
    "worktree-main-checkout-trusted": ("wt/n", {"main": "trusted"}),
    "worktree-own-entry-first": ("wt", {"main": "untrusted", "wt": "trusted"}),
    "markers-git-root-untrusted": ("repo/pkg", {"repo": "untrusted"}),
    "markers-git-root-trusted": ("repo/pkg/x", {"repo": "trusted"}),
    "markers-root-untrusted-cwd-below-it": ("repo/pkg/x", {"repo/pkg": "untrusted"}),
    "markers-root-untrusted-git-root-trusted": ("repo/pkg/x", {"repo": "trusted", "repo/pkg": "untrusted"}),
    "submodule-untrusted-cwd-below-it": ("top/lib/n", {"top/lib": "untrusted"}),
    "submodule-superproject-trusted": ("top/lib/n", {"top": "trusted"}),
    "submodule-superproject-untrusted": ("top/lib/n", {"top": "untrusted"}),
    "submodule-own-entry": ("top/lib", {"top/lib": "untrusted"}),
}


@pytest.mark.parametrize("case", sorted(TRUST_ROOT_CASES))
def test_trust_is_read_from_the_cwd_then_its_git_trust_root_like_codex(case: str, tmp_path: Path) -> None:
    """The cwd's own entry decides, else its repository root's (a worktree's main checkout;
    none for a submodule); the root ``project_root_markers`` finds only decides for the
    ``.codex`` layers, before the repository root."""
    cwd_rel, entries = TRUST_ROOT_CASES[case]
    base = tmp_path / "t"
    _repositories(base)
    table = "".join(
        f'[projects."{base / folder}"]\ntrust_level = "{level}"\n' for folder, level in entries.items()
    )
    _tree(
        base, {"home/.keep": "", "chome/config.toml": f'project_root_markers = [".git", ".marker"]\n{table}'}
    )
    cwd = base / cwd_rel
    env = Env.for_test(cwd=cwd, home=base / "home", codex_home=base / "chome")
    ours = load_instructions(env, profile="codex")
    theirs = _codex_block(cwd, base / "home", base / "chome")
    assert ours.text == theirs
    assert ("IN107" in {d.code for d in ours.diagnostics}) is (theirs == "")


@pytest.mark.parametrize("name", ["AGENTS.md", "AGENTS.override.md", "NOTES.md"])
def test_a_symbolic_link_loop_leaves_out_every_project_file_like_codex(name: str, tmp_path: Path) -> None:
    base = tmp_path / "loop"
    _tree(
        base,
        {
            "home/.keep": "",
            "chome/AGENTS.md": "global rules\n",
            "chome/config.toml": 'project_doc_fallback_filenames = ["NOTES.md"]\n',
            "repo/.git/HEAD": "x",
            "repo/AGENTS.md": "root rules\n",
            "repo/sub/d/AGENTS.md": "below the loop\n",
        },
    )
    sub = base / "repo" / "sub"
    (sub / "a").symlink_to("b")
    (sub / "b").symlink_to("a")
    (sub / name).symlink_to("a")
    cwd = sub / "d"
    env = Env.for_test(cwd=cwd, home=base / "home", codex_home=base / "chome")
    ours = load_instructions(env, profile="codex")
    assert ours.text == _codex_block(cwd, base / "home", base / "chome")
    assert "root rules" not in ours.text and "global rules" in ours.text
    assert [d.path for d in ours.diagnostics if d.code == "IN108"] == [sub / name]


# name -> (project_doc_max_bytes, root AGENTS.md): a sub-folder's AGENTS.md cannot be read
UNREADABLE_CASES: dict[str, tuple[int, str]] = {
    "read-after-the-root": (32768, "root rules\n"),
    "after-a-blank-root": (32768, "  \n"),
    "budget-spent-before-it": (4, "root rules\n"),
}


@pytest.mark.parametrize("case", sorted(UNREADABLE_CASES))
def test_an_unreadable_project_file_leaves_out_every_project_file_like_codex(
    case: str, tmp_path: Path
) -> None:
    """A file Codex opens and cannot read (here an I/O error: a link to ``/proc/self/mem``)
    costs it every project file, unless the budget ran out before it was opened."""
    max_bytes, root_text = UNREADABLE_CASES[case]
    base = tmp_path / "unreadable"
    _tree(
        base,
        {
            "home/.keep": "",
            "chome/AGENTS.md": "global rules\n",
            "chome/config.toml": f"project_doc_max_bytes = {max_bytes}\n",
            "repo/.git/HEAD": "x",
            "repo/AGENTS.md": root_text,
            "repo/sub/d/AGENTS.md": "below it\n",
        },
    )
    (base / "repo" / "sub" / "AGENTS.md").symlink_to("/proc/self/mem")
    cwd = base / "repo" / "sub" / "d"
    env = Env.for_test(cwd=cwd, home=base / "home", codex_home=base / "chome")
    ours = load_instructions(env, profile="codex")
    assert ours.text == _codex_block(cwd, base / "home", base / "chome")
    dropped = [d for d in ours.diagnostics if d.code == "IN101"]
    assert bool(dropped) is (max_bytes > 4)
    assert all("reads no project AGENTS.md at all" in d.message for d in dropped)


REFUSED = {
    "negative-max-bytes": "project_doc_max_bytes = -5\n",
    "text-max-bytes": 'project_doc_max_bytes = "big"\n',
    "fraction-max-bytes": "project_doc_max_bytes = 1.5\n",
    "fallback-names-a-string": 'project_doc_fallback_filenames = "NOTES.md"\n',
    "fallback-names-not-strings": "project_doc_fallback_filenames = [1]\n",
    "markers-a-string": 'project_root_markers = ".git"\n',
    "legacy-profile": 'profile = "p"\n[profiles.p]\nmodel = "x"\n',
    "bad-toml": "x = [\n",
    "unknown-trust-level": '[projects."/elsewhere"]\ntrust_level = "maybe"\n',
    "trust-level-in-other-case": '[projects."/elsewhere"]\ntrust_level = "Trusted"\n',
    "trust-level-not-text": '[projects."/elsewhere"]\ntrust_level = true\n',
    "projects-entry-not-a-table": '[projects]\n"/elsewhere" = "trusted"\n',
}


@pytest.mark.parametrize("config", REFUSED.values(), ids=REFUSED.keys())
def test_a_config_codex_refuses_to_start_with_is_a_warning(config: str, tmp_path: Path) -> None:
    base = tmp_path / "cfg"
    _tree(
        base, {"home/.keep": "", "chome/config.toml": config, "repo/.git/HEAD": "x", "repo/AGENTS.md": "r\n"}
    )
    cwd = base / "repo"
    proc = _codex(cwd, base / "home", base / "chome")
    assert proc.returncode != 0 and "Error" in proc.stderr
    env = Env.for_test(cwd=cwd, home=base / "home", codex_home=base / "chome")
    [problem] = [
        d for d in load_instructions(env, profile="codex").diagnostics if d.code in {"IN104", "IN109"}
    ]
    assert "refuses to start" in problem.message and problem.fix
    assert problem.path == base / "chome" / "config.toml"


# name -> ([projects] key, cwd), relative to the case folder; "link" is a symbolic link to "repo"
SPELLING_CASES: dict[str, tuple[str, str]] = {
    "exact": ("repo", "repo"),
    "trailing-slash": ("repo/", "repo"),
    "double-slash": ("repo//", "repo"),
    "dot-dot": ("repo/sub/..", "repo"),
    "dot": ("repo/.", "repo"),
    "linked-spelling": ("link", "repo"),
    "linked-spelling-cwd-linked": ("link", "link"),
    "real-path-cwd-linked": ("repo", "link"),
    "other-case": ("Repo", "repo"),
    "git-root-exact-cwd-below": ("repo", "repo/sub"),
    "git-root-trailing-slash-cwd-below": ("repo/", "repo/sub"),
}


@pytest.mark.parametrize("level", ["trusted", "untrusted"])
@pytest.mark.parametrize("case", sorted(SPELLING_CASES))
def test_a_trust_entry_matches_the_real_path_letter_for_letter_like_codex(
    case: str, level: str, tmp_path: Path
) -> None:
    """A ``[projects]`` key names the folder's real path exactly: no trailing slash, ``..``,
    linked spelling or other case matches, while the cwd itself may be reached through a link."""
    key, cwd_rel = SPELLING_CASES[case]
    base = tmp_path / "s"
    _tree(
        base,
        {
            "home/.keep": "",
            "chome/config.toml": f'[projects."{base}/{key}"]\ntrust_level = "{level}"\n',
            "repo/.git/HEAD": "ref: refs/heads/main\n",
            "repo/AGENTS.md": "repository rules\n",
            "repo/sub/AGENTS.md": "folder rules\n",
            "repo/.codex/config.toml": "project_doc_max_bytes = 3\n",
        },
    )
    (base / "link").symlink_to(base / "repo")
    cwd = base / cwd_rel
    env = Env.for_test(cwd=cwd, home=base / "home", codex_home=base / "chome")
    assert load_instructions(env, profile="codex").text == _codex_block(cwd, base / "home", base / "chome")
