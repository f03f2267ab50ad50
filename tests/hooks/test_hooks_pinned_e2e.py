"""A pinned skill reaches the model inside the real Codex 0.171.0 and Claude Code 2.1.197, offline
against ``model-standin``: its body is in every request of the session once, from the first
one on, after a resume (the old conversation holds it) and after a compaction (the compaction's
``SessionStart`` answer brings it back). A session that started before the skill was pinned
gets it from its resume on, once."""

from __future__ import annotations

from typing import Any

from agent_cli_helpers import (
    E2E_MARKS,
    run_claude,
    run_codex,
    run_skillshelf,
    small_repo,
    standin_codex_home,
    strings_in,
)

pytestmark = E2E_MARKS

PIN = '[[skills.config]]\nname = "gif-maker"\nmode = "pinned"\n'
REPLIES = [{"text": "OK"}, {"text": "OK"}, {"text": "Summary: the user wanted a GIF."}, {"text": "OK"}]


def _pinned_repo(box: Any) -> tuple[Any, str]:
    """The one-skill repository (its skill where Codex looks, not Claude Code), the skill pinned."""
    repo, _skill, marker = small_repo(box, ".agents/skills")
    (box.config / "skillshelf").mkdir(parents=True, exist_ok=True)
    (box.config / "skillshelf" / "config.toml").write_text(PIN, encoding="utf-8")
    return repo, marker


def _copies(requests: list[dict[str, Any]], marker: str) -> list[int]:
    """How often each request holds ``marker``."""
    return [sum(s.count(marker) for s in strings_in(r["body"])) for r in requests]


def test_claude_code_has_a_pinned_skill_once_in_every_request(
    agent_clis: Any, isolated_home: Any, model_standin: Any
) -> None:
    """The resumed session's prompt mentions the skill (``$gif-maker``, which Claude Code cannot
    load from ``.agents/skills``): the prompt hook adds no second copy of the body it has."""
    repo, marker = _pinned_repo(isolated_home)
    standin = model_standin(REPLIES)
    run_skillshelf("setup", "claude", "--scope", "project", cwd=repo)
    run_claude(agent_clis.claude, repo, standin.url, "make me a gif")
    run_claude(agent_clis.claude, repo, standin.url, "now use $gif-maker for the team chat", resume=True)
    started = len(standin.requests())
    run_claude(agent_clis.claude, repo, standin.url, "/compact", resume=True)
    run_claude(agent_clis.claude, repo, standin.url, "go on", resume=True)
    requests = standin.requests()
    assert len(requests) > started + 1
    assert _copies(requests, marker) == [1] * len(requests)


def test_codex_has_a_pinned_skill_once_in_every_request(
    agent_clis: Any, isolated_home: Any, model_standin: Any
) -> None:
    repo, marker = _pinned_repo(isolated_home)
    standin = model_standin(REPLIES)
    standin_codex_home(isolated_home, standin.url, repo)
    run_skillshelf("setup", "codex", "--scope", "project", cwd=repo)
    run_codex(agent_clis.codex, repo, "make me a gif")
    run_codex(agent_clis.codex, repo, "go on", "resume", "--last")
    started = len(standin.requests())
    run_codex(agent_clis.codex, repo, "go on", "-c", "model_auto_compact_token_limit=5", "resume", "--last")
    requests = standin.requests()
    assert len(requests) > started + 1
    assert _copies(requests, marker) == [1] * len(requests)


def test_claude_code_resumed_after_a_pin_has_the_skill_once_from_then_on(
    agent_clis: Any, isolated_home: Any, model_standin: Any
) -> None:
    repo, _skill, marker = small_repo(isolated_home, ".agents/skills")  # nothing pinned yet
    standin = model_standin([{"text": "OK"}] * 3)
    run_skillshelf("setup", "claude", "--scope", "project", cwd=repo)
    run_claude(agent_clis.claude, repo, standin.url, "make me a gif")
    before = len(standin.requests())
    run_skillshelf("enable", "gif-maker", "--mode", "pinned", cwd=repo)
    run_claude(agent_clis.claude, repo, standin.url, "go on", resume=True)
    run_claude(agent_clis.claude, repo, standin.url, "and once more", resume=True)
    requests = standin.requests()
    assert len(requests) > before + 1
    assert _copies(requests, marker) == [0] * before + [1] * (len(requests) - before)


def test_codex_resumed_after_a_pin_has_the_skill_once_from_then_on(
    agent_clis: Any, isolated_home: Any, model_standin: Any
) -> None:
    repo, _skill, marker = small_repo(isolated_home, ".agents/skills")  # nothing pinned yet
    standin = model_standin([{"text": "OK"}] * 3)
    standin_codex_home(isolated_home, standin.url, repo)
    run_skillshelf("setup", "codex", "--scope", "project", cwd=repo)
    run_codex(agent_clis.codex, repo, "make me a gif")
    before = len(standin.requests())
    run_skillshelf("enable", "gif-maker", "--mode", "pinned", cwd=repo)
    run_codex(agent_clis.codex, repo, "go on", "resume", "--last")
    run_codex(agent_clis.codex, repo, "and once more", "resume", "--last")
    requests = standin.requests()
    assert len(requests) > before + 1
    assert _copies(requests, marker) == [0] * before + [1] * (len(requests) - before)
