"""``skillshelf setup`` where the agents read a project's files from another folder than its
root: Claude Code in a subfolder, Codex in a linked git worktree, Claude Code's trust dialog for
either."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

from hooks_helpers import COMMAND
from hooks_helpers import set_up as _setup

from skillshelf.env import Env
from skillshelf.hooks.setup import plan_setup
from skillshelf.hooks.status import setup_status
from testkit import git_worktrees


def _project(box: Any) -> tuple[Path, Env]:
    repo = box.home / "repo"
    (repo / ".git").mkdir(parents=True)
    return repo, Env.for_test(cwd=repo, home=box.home, codex_home=box.codex_home)


def test_status_in_a_subfolder_says_the_root_folders_claude_hooks_do_not_run_there(
    isolated_home: Any,
) -> None:
    """Claude Code reads the ``.claude`` settings of the folder it starts in only: hooks set up at
    the repository root are not set up for a session started in ``repo/app``."""
    repo, env = _project(isolated_home)
    _setup(env, isolated_home, "claude")
    app = repo / "app"
    app.mkdir()
    in_app = Env.for_test(cwd=app, home=isolated_home.home, codex_home=isolated_home.codex_home)
    row = setup_status(in_app, command=COMMAND)[2]
    assert row.hooks_file == app / ".claude" / "settings.local.json"
    assert not row.events and not row.runs
    assert any(
        f"{repo / '.claude' / 'settings.local.json'} run only when Claude Code starts in {repo}" in r
        for r in row.reasons
    )
    assert setup_status(env, command=COMMAND)[2].runs

    plan = _setup(in_app, isolated_home, "claude")
    assert any("only in the folder it starts in" in note for note in plan.notes)
    assert setup_status(in_app, command=COMMAND)[2].runs


def test_in_a_git_worktree_codex_hooks_go_to_the_main_checkout_and_the_worktrees_folder(
    isolated_home: Any,
) -> None:
    """Codex 0.171.0 runs a worktree's project hooks from the main checkout's ``.codex``, and
    only when the worktree has a ``.codex`` folder of its own; the main checkout's trust counts."""
    main, worktree = isolated_home.home / "main", isolated_home.home / "wt"
    git_worktrees(main, worktree)
    env = Env.for_test(cwd=worktree, home=isolated_home.home, codex_home=isolated_home.codex_home)
    isolated_home.codex_home.mkdir(parents=True, exist_ok=True)
    (isolated_home.codex_home / "config.toml").write_text(
        f'[projects."{main.resolve()}"]\ntrust_level = "trusted"\n', encoding="utf-8"
    )

    plan = _setup(env, isolated_home, "codex")
    assert {c.path for c in plan.changed} >= {
        main.resolve() / ".codex/hooks.json",
        worktree / ".codex/hooks.json",
    }
    assert not any("does not trust" in note for note in plan.notes)
    row = setup_status(env, command=COMMAND)[0]
    assert row.hooks_file == main.resolve() / ".codex" / "hooks.json" and row.runs and row.current

    with_mcp = plan_setup(env, "codex", "project", command=COMMAND, state_dir=env.dirs.state, mcp=True)
    config_files = {c.path for c in with_mcp.changed if c.path.name == "config.toml"}
    assert worktree / ".codex" / "config.toml" in config_files  # Codex reads the worktree's own
    assert main.resolve() / ".codex" / "config.toml" not in config_files

    in_main = Env.for_test(cwd=main, home=isolated_home.home, codex_home=isolated_home.codex_home)
    _setup(env, isolated_home, "codex", remove=True)
    _setup(in_main, isolated_home, "codex")  # set up in the main checkout only: no .codex in the worktree
    row = setup_status(env, command=COMMAND)[0]
    assert not row.runs and any("only once the worktree has a .codex folder" in r for r in row.reasons)


def test_claude_codes_trust_dialog_counts_for_the_folder_its_parents_and_a_worktrees_main_checkout(
    isolated_home: Any,
) -> None:
    """As Claude Code 2.1.197 decides it: an accepted entry in ``~/.claude.json`` for the cwd, a
    parent, or the project (a worktree's main checkout), or a sandboxed session; setup's note
    about the trust dialog is left out then."""
    from skillshelf.hooks.claude import trust_dialog_accepted

    main, worktree = isolated_home.home / "main", isolated_home.home / "wt"
    git_worktrees(main, worktree)
    (worktree / "app").mkdir()
    env = Env.for_test(cwd=worktree / "app", home=isolated_home.home, codex_home=isolated_home.codex_home)
    state = isolated_home.home / ".claude.json"

    def accepted(folder: Path) -> bool:
        state.write_text(
            json.dumps({"projects": {str(folder): {"hasTrustDialogAccepted": True}}}), encoding="utf-8"
        )
        return trust_dialog_accepted(env)

    assert not trust_dialog_accepted(env)
    assert any(
        "trust dialog" in note
        for note in plan_setup(env, "claude", "project", command=COMMAND, state_dir=env.dirs.state).notes
    )
    assert accepted(worktree) and accepted(main.resolve()) and not accepted(isolated_home.home / "other")
    sandboxed = dataclasses.replace(env, environ={**env.environ, "CLAUDE_CODE_SANDBOXED": "true"})
    assert trust_dialog_accepted(sandboxed)
    assert accepted(main.resolve())
    assert not any(
        "trust dialog" in note
        for note in plan_setup(env, "claude", "project", command=COMMAND, state_dir=env.dirs.state).notes
    )
