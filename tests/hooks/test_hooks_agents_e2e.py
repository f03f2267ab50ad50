"""skillshelf inside the real Codex 0.171.0 and Claude Code 2.1.197, offline.

Each agent runs against ``model-standin`` in a repository whose skills are the corpora of
``../shared`` (linked into ``.agents/skills``), set up with ``skillshelf setup AGENT --scope
project``. The tests read what the model received: the suggestion fragment naming the right
skill with its description for a prompt that fits one, nothing for a prompt that fits none.
Then the finished sessions are in the memory queue and ``skillshelf memory run`` extracts them
without being pointed at the files; the hooks stay harmless when things go wrong (garbage on
stdin, no usable index cache, a memory model server that was killed); ``setup --remove``
gives the agent's configuration files back byte for byte; and after the agent compacts a
session (in a small repository of one skill), the skill the model had read comes back.
"""

from __future__ import annotations

import contextlib
import json
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from agent_cli_helpers import (
    E2E_MARKS,
    copy_vectors,
    corpora_repo,
    run_claude,
    run_codex,
    run_skillshelf,
    small_repo,
    standin_codex_home,
    strings_in,
    suggestion_fragments,
)

from skillshelf.memory.queue import queued

pytestmark = E2E_MARKS


TARGET = Path("anthropics__skills") / "skills" / "slack-gif-creator"  # read at run time, never copied
NO_FIT = "zqxv wqpl brrmf"
STAGE1 = {
    "raw_memory": "---\ndescription: gif work\n---\n### Task 1\n- the user makes GIFs for Slack",
    "rollout_summary": "GIF work\n## Task 1\n- Outcome: success",
    "rollout_slug": "gif-work",
}


def _skill(corpora: Path) -> tuple[str, str]:
    text = (corpora / TARGET / "SKILL.md").read_text(encoding="utf-8")
    front = yaml.safe_load(text.split("---")[1])
    return str(front["name"]), " ".join(str(front["description"]).split())


def _repo(box: Any, corpora: Path, vectors: Path) -> Path:
    """The corpora's repository, the models' vectors of its skills already in the cache (as on a
    user's machine after a first prompt there)."""
    copy_vectors(vectors, box.cache)
    return corpora_repo(box.home, corpora)


def _snapshot(*files: Path) -> dict[Path, bytes | None]:
    return {f: f.read_bytes() if f.exists() else None for f in files}


def _memory_run(repo: Path, url: str) -> dict[str, Any]:
    done = run_skillshelf(
        "memory",
        "run",
        "--phase",
        "1",
        "--model",
        "openai:standin",
        "--base-url",
        f"{url}/v1",
        "--json",
        cwd=repo,
    )
    report: dict[str, Any] = json.loads(done.stdout)
    return report


def _check_suggestions(requests: list[dict[str, Any]], name: str, description: str) -> None:
    fragments = suggestion_fragments(requests)
    assert fragments, "the model never received a suggestion fragment"
    first = fragments[0].splitlines()[2]
    # the test repository is not trusted, so its skills carry the tag
    assert first.startswith(f"- {name}: [untrusted project] {description[:100]}"), first


def _hook_garbage(settings: Path, event: str, repo: Path) -> None:
    """The exact command the agent runs for ``event``, fed garbage: exit 0, nothing printed."""
    data = json.loads(settings.read_text(encoding="utf-8"))
    command = data["hooks"][event][0]["hooks"][0]["command"]
    done = subprocess.run(
        command, shell=True, cwd=repo, input=b"\x00{not json", capture_output=True, timeout=120, check=False
    )
    assert (done.returncode, done.stdout) == (0, b"")


# ---- Codex ----------------------------------------------------------------------------------------


def _user_config(box: Any, text: str) -> None:
    (box.config / "skillshelf").mkdir(parents=True)
    (box.config / "skillshelf" / "config.toml").write_text(text, encoding="utf-8")


def _wait_for_server(repo: Path) -> None:
    for _ in range(600):
        if b"calls" in run_skillshelf("hook-server", "status", "--json", cwd=repo).stdout:
            return
        time.sleep(0.1)
    raise AssertionError("no hook server started")


@contextlib.contextmanager
def _hook_server(repo: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """A running hook server for the hooks of the block (stopped after it)."""
    monkeypatch.setenv("SKILLSHELF_HOOK_SERVER", "1")
    start = [sys.executable, "-m", "skillshelf.cli.main", "hook-server", "start"]
    process = subprocess.Popen(start, cwd=repo, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
    try:
        _wait_for_server(repo)
        yield
    finally:
        run_skillshelf("hook-server", "stop", cwd=repo)
        process.wait(timeout=60)
        monkeypatch.setenv("SKILLSHELF_HOOK_SERVER", "0")


def test_codex_sees_the_right_skill_feeds_memory_and_gets_its_files_back(
    agent_clis: Any,
    corpora_vectors: Path,
    isolated_home: Any,
    model_standin: Any,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Codex's prompt hooks are answered by the hook server (Claude Code's below by the hook
    process itself)."""
    name, description = _skill(agent_clis.corpora)
    standin = model_standin([{"text": "OK"}])
    repo = _repo(isolated_home, agent_clis.corpora, corpora_vectors)
    config = standin_codex_home(isolated_home, standin.url, repo)
    _user_config(isolated_home, '[hooks]\nmemory_run = "off"\n')
    run_codex(
        agent_clis.codex, repo, "hello"
    )  # a user who ran Codex here before (it writes its system skills)
    earlier = set((isolated_home.codex_home / "sessions").rglob("rollout-*.jsonl"))
    before = _snapshot(config, repo / ".codex" / "hooks.json", repo / ".codex" / "config.toml")

    run_skillshelf("setup", "codex", "--scope", "project", cwd=repo)
    with _hook_server(repo, monkeypatch):  # as a user's earlier prompt would have started it
        run_codex(agent_clis.codex, repo, f"Please help: {description}")
        _check_suggestions(standin.requests(), name, description)
        seen = len(standin.requests())
        run_codex(agent_clis.codex, repo, NO_FIT)
        assert suggestion_fragments(standin.requests()[seen:]) == []
    log = (isolated_home.state / "skillshelf" / "hooks" / "hooks.log").read_text(encoding="utf-8")
    prompts = [line for line in log.splitlines() if " codex UserPromptSubmit " in line]
    assert len(prompts) == 2 and all(line.endswith("(server)") for line in prompts)

    sessions = sorted(
        str(p) for p in set((isolated_home.codex_home / "sessions").rglob("rollout-*.jsonl")) - earlier
    )
    assert len(sessions) == 2
    assert sorted(str(e.path) for e in queued(isolated_home.state / "skillshelf")) == sessions
    memory = model_standin([{"text": json.dumps(STAGE1)}])
    report = _memory_run(repo, memory.url)
    assert report["phase1"] == {"extracted": 2} and report["queue"] == {"queued": 2, "done": 2}
    assert queued(isolated_home.state / "skillshelf") == []  # the earlier session waits for its idle time

    _hook_garbage(repo / ".codex" / "hooks.json", "UserPromptSubmit", repo)
    run_skillshelf("setup", "codex", "--scope", "project", "--remove", cwd=repo)
    assert _snapshot(*before) == before


def _reattached(requests: list[dict[str, Any]], marker: str) -> bool:
    return any(
        "Skills loaded earlier in this session, attached again" in s and marker in s
        for r in requests
        for s in strings_in(r["body"])
    )


def test_codex_gets_the_skills_a_session_read_back_after_it_compacts(
    agent_clis: Any, isolated_home: Any, model_standin: Any
) -> None:
    """The model reads a skill through the shell; the resumed session compacts at once (a tiny
    ``model_auto_compact_token_limit``), Codex starts it again (``SessionStart``, ``source:
    "compact"``) and the next request carries the skill's text once more."""
    repo, skill, marker = small_repo(isolated_home, ".agents/skills")
    standin = model_standin(
        [
            {"tool_call": {"name": "exec_command", "arguments": {"cmd": f"cat {skill}"}}},
            {"text": "done"},
            {"text": "Summary: the user wanted a GIF."},
            {"text": "OK"},
        ]
    )
    standin_codex_home(isolated_home, standin.url, repo)
    run_skillshelf("setup", "codex", "--scope", "project", cwd=repo)
    run_codex(agent_clis.codex, repo, "make me a gif")
    read = len(standin.requests())
    assert not _reattached(standin.requests(), marker)
    run_codex(agent_clis.codex, repo, "go on", "-c", "model_auto_compact_token_limit=5", "resume", "--last")
    assert _reattached(standin.requests()[read:], marker)


# ---- Claude Code ----------------------------------------------------------------------------------


def test_claude_code_sees_the_right_skill_feeds_memory_and_gets_its_files_back(
    agent_clis: Any,
    corpora_vectors: Path,
    isolated_home: Any,
    model_standin: Any,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The session's first hook answers by itself and starts the hook server, which answers the
    later prompts."""
    name, description = _skill(agent_clis.corpora)
    standin = model_standin([{"text": "OK"}])
    repo = _repo(isolated_home, agent_clis.corpora, corpora_vectors)
    (repo / ".claude").mkdir()
    settings = repo / ".claude" / "settings.json"
    settings.write_text('{\n  "permissions": {\n    "allow": ["Bash(ls:*)"]\n  }\n}\n', encoding="utf-8")
    personal = repo / ".claude" / "settings.local.json"  # where the hooks go: the shared file stays as it is
    _user_config(isolated_home, '[hooks]\nmemory_run = "off"\n')
    before = _snapshot(
        settings, personal, repo / ".mcp.json", isolated_home.home / ".claude" / "settings.json"
    )

    run_skillshelf("setup", "claude", "--scope", "project", cwd=repo)
    assert settings.read_bytes() == before[settings] and personal.is_file()
    monkeypatch.setenv("SKILLSHELF_HOOK_SERVER", "1")  # as for a user: the first prompt starts it
    try:
        run_claude(agent_clis.claude, repo, standin.url, f"Please help: {description}")
        requests = standin.requests()
        _check_suggestions(requests, name, description)
        assert any(
            "UserPromptSubmit hook additional context: <skill_suggestions>" in s
            for r in requests
            for s in strings_in(r["body"])
        )
        _wait_for_server(repo)
        seen = len(standin.requests())
        run_claude(agent_clis.claude, repo, standin.url, NO_FIT)
        assert suggestion_fragments(standin.requests()[seen:]) == []
    finally:
        run_skillshelf("hook-server", "stop", cwd=repo)
        monkeypatch.setenv("SKILLSHELF_HOOK_SERVER", "0")
    log = (isolated_home.state / "skillshelf" / "hooks" / "hooks.log").read_text(encoding="utf-8")
    calls = [line for line in log.splitlines() if " claude " in line]
    assert " SessionStart " in calls[0] and not calls[0].endswith("(server)")  # it starts the server
    prompts = [line for line in calls if " UserPromptSubmit " in line]
    assert len(prompts) == 2 and prompts[-1].endswith("(server)")

    sessions = sorted(str(p) for p in (isolated_home.home / ".claude" / "projects").rglob("*.jsonl"))
    assert len(sessions) == 2
    assert sorted(str(e.path) for e in queued(isolated_home.state / "skillshelf")) == sessions
    memory = model_standin([{"text": json.dumps(STAGE1)}])
    report = _memory_run(repo, memory.url)
    assert report["phase1"] == {"extracted": 2} and report["queue"] == {"queued": 2, "done": 2}

    _hook_garbage(personal, "UserPromptSubmit", repo)
    run_skillshelf("setup", "claude", "--scope", "project", "--remove", cwd=repo)
    assert _snapshot(*before) == before


def test_claude_code_gets_the_skills_a_session_read_back_after_compact(
    agent_clis: Any, isolated_home: Any, model_standin: Any
) -> None:
    """The model reads a skill; ``/compact`` starts the session again (``SessionStart``,
    ``source: "compact"``) and the next request carries the skill's text once more."""
    repo, skill, marker = small_repo(isolated_home, ".claude/skills")
    standin = model_standin(
        [
            {"tool_call": {"name": "Read", "arguments": {"file_path": str(skill)}}},
            {"text": "done"},
            {"text": "Summary: the user wanted a GIF."},
            {"text": "OK"},
        ]
    )
    run_skillshelf("setup", "claude", "--scope", "project", cwd=repo)
    run_claude(agent_clis.claude, repo, standin.url, "make me a gif", allowed="Read")
    read = len(standin.requests())
    run_claude(agent_clis.claude, repo, standin.url, "/compact", resume=True)
    run_claude(agent_clis.claude, repo, standin.url, "go on", resume=True)
    assert _reattached(standin.requests()[read:], marker)


def test_claude_code_is_pointed_at_its_skill_tool_for_the_skills_it_lists(
    agent_clis: Any, isolated_home: Any, model_standin: Any
) -> None:
    """A skill Claude Code lists is suggested by name, with no path, and the Skill tool loads it
    by that name (the scripted model calls it as the suggestion says)."""
    repo, _skill_file, marker = small_repo(isolated_home, ".claude/skills")
    standin = model_standin(
        [{"tool_call": {"name": "Skill", "arguments": {"skill": "gif-maker"}}}, {"text": "done"}]
    )
    run_skillshelf("setup", "claude", "--scope", "project", cwd=repo)
    run_claude(agent_clis.claude, repo, standin.url, "make me a gif for the team chat", allowed="Skill")
    requests = standin.requests()
    fragment = suggestion_fragments(requests)[0]
    assert "call the Skill tool with its name" in fragment
    assert "- gif-maker: [untrusted project] Make GIFs for chat." in fragment and "(file:" not in fragment
    loaded = [s for r in requests[1:] for s in strings_in(r["body"]) if marker in s]
    assert loaded, "the Skill tool did not load the skill by the suggested name"


def test_the_turn_goes_on_when_the_index_cannot_be_kept_and_the_memory_server_is_dead(
    agent_clis: Any, isolated_home: Any, model_standin: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No usable cache folder (a file is in the way), and the memory model server the detached
    `memory run` would call has been killed: Claude Code still answers, the prompt's hook ranks
    without a cache, every hook exits 0, the session stays queued for a later run."""
    standin = model_standin([{"text": "OK"}])
    dead = model_standin([{"text": "{}"}])
    dead.process.kill()
    dead.process.wait(timeout=10)
    repo, _skill_file, _marker = small_repo(isolated_home, ".agents/skills")
    blocker = isolated_home.home / "cache-is-a-file"
    blocker.write_text("x", encoding="utf-8")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocker))
    _user_config(isolated_home, f'[memory]\nbase_url = "{dead.url}/v1"\n')
    run_skillshelf("setup", "claude", "--scope", "project", cwd=repo)
    done = run_claude(agent_clis.claude, repo, standin.url, "make me a gif for chat")
    assert done.stdout.strip() == "OK"
    log = (isolated_home.state / "skillshelf" / "hooks" / "hooks.log").read_text(encoding="utf-8")
    events = [line.split()[2] for line in log.splitlines() if line.split()[1:2] == ["claude"]]
    assert {"SessionStart", "UserPromptSubmit", "Stop", "SessionEnd"} <= set(events)
    assert " claude UserPromptSubmit ok " in log  # ranked without a cache, in time
    assert len(queued(isolated_home.state / "skillshelf")) == 1  # the failed extraction retries later
