"""skillshelf set up in the real Codex 0.171.0 at both project and user scope, offline against
``model-standin``: Codex runs both hook sets on every event, at once, and the model still gets
each answer once (one suggestion fragment, one copy of a pinned skill); the session is queued for
the memory pipeline once. Resumed at once (``codex exec resume --last``, whose ``SessionStart``
input is the first one's byte for byte), it is answered again, once."""

from __future__ import annotations

from typing import Any

from agent_cli_helpers import E2E_MARKS, run_codex, run_skillshelf, small_repo, standin_codex_home, strings_in
from hooks_helpers import write_skill

from skillshelf.memory.queue import queued

pytestmark = E2E_MARKS

PIN = '[[skills.config]]\nname = "gif-maker"\nmode = "pinned"\n'


def test_codex_with_skillshelf_at_both_scopes_gets_each_answer_once(
    agent_clis: Any, isolated_home: Any, model_standin: Any
) -> None:
    repo, _skill, marker = small_repo(isolated_home, ".agents/skills")
    write_skill(
        repo / ".agents" / "skills",
        "pdf-forms",
        "Fill, flatten and extract fields of PDF forms. Use when a task involves PDF form fields.",
    )
    (isolated_home.config / "skillshelf").mkdir(parents=True, exist_ok=True)
    (isolated_home.config / "skillshelf" / "config.toml").write_text(PIN, encoding="utf-8")
    standin = model_standin([{"text": "OK"}] * 2)
    standin_codex_home(isolated_home, standin.url, repo)
    run_skillshelf("setup", "codex", "--scope", "project", cwd=repo)
    run_skillshelf("setup", "codex", "--scope", "user", cwd=repo)

    run_codex(agent_clis.codex, repo, "fill the fields of this PDF form")
    (request,) = standin.requests()
    texts = strings_in(request["body"])
    assert sum(text.count("<skill_suggestions>") for text in texts) == 1
    assert sum(text.count(marker) for text in texts) == 1  # the pinned skill, from SessionStart
    log = (isolated_home.state / "skillshelf" / "hooks" / "hooks.log").read_text(encoding="utf-8")
    for event in ("SessionStart", "UserPromptSubmit", "Stop", "SessionEnd"):
        calls = [line.split()[3] for line in log.splitlines() if f" codex {event} " in line]
        assert calls.count("duplicate") == 1 and len(calls) == 2, (event, calls)
    assert len(queued(isolated_home.state / "skillshelf")) == 1

    run_codex(agent_clis.codex, repo, "go on", "resume", "--last")
    log = (isolated_home.state / "skillshelf" / "hooks" / "hooks.log").read_text(encoding="utf-8")
    for event in ("SessionStart", "UserPromptSubmit", "Stop", "SessionEnd"):
        calls = [line.split()[3] for line in log.splitlines() if f" codex {event} " in line]
        assert calls.count("duplicate") == 2 and len(calls) == 4, (event, calls)
