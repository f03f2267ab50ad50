"""A session resumed at once, in the real Claude Code 2.1.197 offline against ``model-standin``:
``claude -p --continue`` sends the same ``SessionStart`` input byte for byte each time; with
skillshelf set up at one scope each resume is answered, none logged as a duplicate."""

from __future__ import annotations

from typing import Any

from agent_cli_helpers import E2E_MARKS, run_claude, run_skillshelf, small_repo

pytestmark = E2E_MARKS


def test_claude_code_resumed_twice_in_a_row_gets_each_session_start_answered(
    agent_clis: Any, isolated_home: Any, model_standin: Any
) -> None:
    repo, _skill, _marker = small_repo(isolated_home, ".claude/skills")
    standin = model_standin([{"text": "OK"}] * 3)
    run_skillshelf("setup", "claude", "--scope", "project", cwd=repo)
    run_claude(agent_clis.claude, repo, standin.url, "make me a gif")
    run_claude(agent_clis.claude, repo, standin.url, "a smaller one", resume=True)
    run_claude(agent_clis.claude, repo, standin.url, "and a third", resume=True)
    log = (isolated_home.state / "skillshelf" / "hooks" / "hooks.log").read_text(encoding="utf-8")
    starts = [line.split()[3] for line in log.splitlines() if " claude SessionStart " in line]
    assert len(starts) == 3 and "duplicate" not in starts, starts
