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
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from skillshelf.memory.queue import queued
from testkit import git_worktrees

pytestmark = [pytest.mark.oracle, pytest.mark.slow, pytest.mark.timeout(900)]


@pytest.fixture(autouse=True)
def _patient_hooks(monkeypatch: pytest.MonkeyPatch) -> None:
    """CI runs these beside other tests on two cores, where the agent's own start-up competes
    with the hook: give the prompt hook most of the 10 s the agents allow it."""
    monkeypatch.setenv("SKILLSHELF_HOOK_DEADLINE", "9")


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


def _repo(box: Any, corpora: Path) -> Path:
    repo = (box.home / "repo").resolve()
    (repo / ".git").mkdir(parents=True)
    skills = repo / ".agents" / "skills"
    skills.mkdir(parents=True)
    for corpus in sorted(p for p in corpora.iterdir() if p.is_dir()):
        (skills / corpus.name).symlink_to(corpus, target_is_directory=True)
    return repo


def _skillshelf(*args: str, cwd: Path) -> subprocess.CompletedProcess[bytes]:
    command = [sys.executable, "-m", "skillshelf.cli.main", *args]
    done = subprocess.run(command, cwd=cwd, capture_output=True, timeout=600, check=False)
    assert done.returncode == 0, done.stderr.decode()
    return done


def _snapshot(*files: Path) -> dict[Path, bytes | None]:
    return {f: f.read_bytes() if f.exists() else None for f in files}


def _strings(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


def _fragments(requests: list[dict[str, Any]]) -> list[str]:
    """Every suggestion fragment the model was sent (the text of the block, once per request)."""
    found = []
    for request in requests:
        for text in _strings(request["body"]):
            start = text.find("<skill_suggestions>")
            if start >= 0:
                found.append(text[start : text.index("</skill_suggestions>", start)])
                break
    return found


def _memory_run(repo: Path, url: str) -> dict[str, Any]:
    done = _skillshelf(
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
    fragments = _fragments(requests)
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


def _codex_home(box: Any, url: str, repo: Path) -> Path:
    box.codex_home.mkdir(parents=True, exist_ok=True)
    config = box.codex_home / "config.toml"
    config.write_text(
        'model = "standin-model"\nmodel_provider = "standin"\n\n[model_providers.standin]\nname = "standin"\n'
        f'base_url = "{url}/v1"\nwire_api = "responses"\n\n[projects."{repo}"]\ntrust_level = "trusted"\n',
        encoding="utf-8",
    )
    return config


def _codex(cli: Path, repo: Path, prompt: str, *args: str) -> subprocess.CompletedProcess[str]:
    """``codex exec [ARGS] PROMPT`` in ``repo`` (``ARGS``: options, then a subcommand)."""
    env = {**os.environ, "OPENAI_API_KEY": "sk-standin", "RUST_LOG": "error"}
    done = subprocess.run(
        [str(cli), "exec", "--skip-git-repo-check", *args, prompt],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return done


def _wait_for_server(repo: Path) -> None:
    for _ in range(600):
        if b"calls" in _skillshelf("hook-server", "status", "--json", cwd=repo).stdout:
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
        _skillshelf("hook-server", "stop", cwd=repo)
        process.wait(timeout=60)
        monkeypatch.setenv("SKILLSHELF_HOOK_SERVER", "0")


def test_codex_sees_the_right_skill_feeds_memory_and_gets_its_files_back(
    agent_clis: Any, isolated_home: Any, model_standin: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Codex's prompt hooks are answered by the hook server (Claude Code's below by the hook
    process itself)."""
    name, description = _skill(agent_clis.corpora)
    standin = model_standin([{"text": "OK"}])
    repo = _repo(isolated_home, agent_clis.corpora)
    config = _codex_home(isolated_home, standin.url, repo)
    _user_config(isolated_home, '[hooks]\nmemory_run = "off"\n')
    _codex(agent_clis.codex, repo, "hello")  # a user who ran Codex here before (it writes its system skills)
    earlier = set((isolated_home.codex_home / "sessions").rglob("rollout-*.jsonl"))
    before = _snapshot(config, repo / ".codex" / "hooks.json", repo / ".codex" / "config.toml")

    _skillshelf("setup", "codex", "--scope", "project", cwd=repo)
    with _hook_server(repo, monkeypatch):  # as a user's earlier prompt would have started it
        _codex(agent_clis.codex, repo, f"Please help: {description}")
        _check_suggestions(standin.requests(), name, description)
        seen = len(standin.requests())
        _codex(agent_clis.codex, repo, NO_FIT)
        assert _fragments(standin.requests()[seen:]) == []
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
    _skillshelf("setup", "codex", "--scope", "project", "--remove", cwd=repo)
    assert _snapshot(*before) == before


def _small_repo(box: Any, skills: str) -> tuple[Path, Path, str]:
    """A repository holding one skill in ``skills`` (a folder under the repository): the
    repository, the skill file and a line of its body."""
    repo = (box.home / "small").resolve()
    (repo / ".git").mkdir(parents=True)
    skill = repo / skills / "gif-maker" / "SKILL.md"
    skill.parent.mkdir(parents=True)
    marker = "KEEP-GIFS-UNDER-2-MB"
    skill.write_text(
        f"---\nname: gif-maker\ndescription: Make GIFs for chat.\n---\n{marker}\n", encoding="utf-8"
    )
    return repo, skill, marker


def _reattached(requests: list[dict[str, Any]], marker: str) -> bool:
    return any(
        "Skills loaded earlier in this session, attached again" in s and marker in s
        for r in requests
        for s in _strings(r["body"])
    )


def test_codex_gets_the_skills_a_session_read_back_after_it_compacts(
    agent_clis: Any, isolated_home: Any, model_standin: Any
) -> None:
    """The model reads a skill through the shell; the resumed session compacts at once (a tiny
    ``model_auto_compact_token_limit``), Codex starts it again (``SessionStart``, ``source:
    "compact"``) and the next request carries the skill's text once more."""
    repo, skill, marker = _small_repo(isolated_home, ".agents/skills")
    standin = model_standin(
        [
            {"tool_call": {"name": "exec_command", "arguments": {"cmd": f"cat {skill}"}}},
            {"text": "done"},
            {"text": "Summary: the user wanted a GIF."},
            {"text": "OK"},
        ]
    )
    _codex_home(isolated_home, standin.url, repo)
    _skillshelf("setup", "codex", "--scope", "project", cwd=repo)
    _codex(agent_clis.codex, repo, "make me a gif")
    read = len(standin.requests())
    assert not _reattached(standin.requests(), marker)
    _codex(agent_clis.codex, repo, "go on", "-c", "model_auto_compact_token_limit=5", "resume", "--last")
    assert _reattached(standin.requests()[read:], marker)


def test_codex_started_in_a_subfolder_runs_the_hooks_set_up_at_the_project_root(
    agent_clis: Any, isolated_home: Any, model_standin: Any
) -> None:
    """Codex reads the ``.codex`` folders from the project root down to its cwd: hooks set up at
    the root answer a session started in ``repo/app`` (a real repository: Codex finds the root
    whose trust counts with git)."""
    repo, _skill_file, _marker = _small_repo(isolated_home, ".agents/skills")
    (repo / ".git").rmdir()
    subprocess.run(["git", "init", "-q", str(repo)], check=True, timeout=60)
    app = repo / "app"
    app.mkdir()
    standin = model_standin([{"text": "OK"}])
    _codex_home(isolated_home, standin.url, repo)
    _skillshelf("setup", "codex", "--scope", "project", cwd=repo)
    _codex(agent_clis.codex, app, "make me a gif for the team chat")
    assert "gif-maker" in _fragments(standin.requests())[0]


def test_codex_in_a_git_worktree_runs_the_hooks_set_up_there(
    agent_clis: Any, isolated_home: Any, model_standin: Any
) -> None:
    """In a linked worktree Codex runs the main checkout's project hooks, and only when the
    worktree has a ``.codex`` folder: set up from the worktree, the hooks go to both, Codex
    answers the worktree's prompts, and ``--remove`` takes both out again."""
    repo, _skill_file, _marker = _small_repo(isolated_home, ".agents/skills")
    (repo / ".git").rmdir()
    worktree = repo.parent / "small-wt"
    git_worktrees(repo, worktree)
    standin = model_standin([{"text": "OK"}])
    config = _codex_home(isolated_home, standin.url, repo)
    before = config.read_bytes()
    done = _skillshelf("setup", "codex", "--scope", "project", cwd=worktree)
    assert b"is a git worktree of" in done.stdout + done.stderr
    assert (repo / ".codex" / "hooks.json").is_file() and (worktree / ".codex" / "hooks.json").is_file()
    _codex(agent_clis.codex, worktree, "make me a gif for the team chat")
    assert "gif-maker" in _fragments(standin.requests())[0]

    _skillshelf("setup", "codex", "--scope", "project", "--remove", cwd=worktree)
    assert not (repo / ".codex").exists() and not (worktree / ".codex").exists()
    assert config.read_bytes() == before


# ---- Claude Code ----------------------------------------------------------------------------------


def _claude(
    cli: Path, repo: Path, url: str, prompt: str, *, allowed: str = "", resume: bool = False, **extra: str
) -> subprocess.CompletedProcess[str]:
    """``claude -p PROMPT`` in ``repo`` (``allowed``: its ``--allowedTools``; ``resume``: go on with
    the folder's latest session)."""
    flags = [*(["--allowedTools", allowed] if allowed else []), *(["--continue"] if resume else [])]
    env = {
        **os.environ,
        "ANTHROPIC_BASE_URL": url,
        "ANTHROPIC_API_KEY": "sk-ant-standin",
        "DISABLE_TELEMETRY": "1",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "DISABLE_AUTOUPDATER": "1",
        **extra,
    }
    done = subprocess.run(
        [str(cli), "-p", prompt, *flags],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    return done


def test_claude_code_sees_the_right_skill_feeds_memory_and_gets_its_files_back(
    agent_clis: Any, isolated_home: Any, model_standin: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The session's first hook answers by itself and starts the hook server, which answers the
    later prompts."""
    name, description = _skill(agent_clis.corpora)
    standin = model_standin([{"text": "OK"}])
    repo = _repo(isolated_home, agent_clis.corpora)
    (repo / ".claude").mkdir()
    settings = repo / ".claude" / "settings.json"
    settings.write_text('{\n  "permissions": {\n    "allow": ["Bash(ls:*)"]\n  }\n}\n', encoding="utf-8")
    personal = repo / ".claude" / "settings.local.json"  # where the hooks go: the shared file stays as it is
    _user_config(isolated_home, '[hooks]\nmemory_run = "off"\n')
    before = _snapshot(
        settings, personal, repo / ".mcp.json", isolated_home.home / ".claude" / "settings.json"
    )

    _skillshelf("setup", "claude", "--scope", "project", cwd=repo)
    assert settings.read_bytes() == before[settings] and personal.is_file()
    monkeypatch.setenv("SKILLSHELF_HOOK_SERVER", "1")  # as for a user: the first prompt starts it
    try:
        _claude(agent_clis.claude, repo, standin.url, f"Please help: {description}")
        requests = standin.requests()
        _check_suggestions(requests, name, description)
        assert any(
            "UserPromptSubmit hook additional context: <skill_suggestions>" in s
            for r in requests
            for s in _strings(r["body"])
        )
        _wait_for_server(repo)
        seen = len(standin.requests())
        _claude(agent_clis.claude, repo, standin.url, NO_FIT)
        assert _fragments(standin.requests()[seen:]) == []
    finally:
        _skillshelf("hook-server", "stop", cwd=repo)
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
    _skillshelf("setup", "claude", "--scope", "project", "--remove", cwd=repo)
    assert _snapshot(*before) == before


def test_claude_code_gets_the_skills_a_session_read_back_after_compact(
    agent_clis: Any, isolated_home: Any, model_standin: Any
) -> None:
    """The model reads a skill; ``/compact`` starts the session again (``SessionStart``,
    ``source: "compact"``) and the next request carries the skill's text once more."""
    repo, skill, marker = _small_repo(isolated_home, ".claude/skills")
    standin = model_standin(
        [
            {"tool_call": {"name": "Read", "arguments": {"file_path": str(skill)}}},
            {"text": "done"},
            {"text": "Summary: the user wanted a GIF."},
            {"text": "OK"},
        ]
    )
    _skillshelf("setup", "claude", "--scope", "project", cwd=repo)
    _claude(agent_clis.claude, repo, standin.url, "make me a gif", allowed="Read")
    read = len(standin.requests())
    _claude(agent_clis.claude, repo, standin.url, "/compact", resume=True)
    _claude(agent_clis.claude, repo, standin.url, "go on", resume=True)
    assert _reattached(standin.requests()[read:], marker)


def test_claude_code_is_pointed_at_its_skill_tool_for_the_skills_it_lists(
    agent_clis: Any, isolated_home: Any, model_standin: Any
) -> None:
    """A skill Claude Code lists is suggested by name, with no path, and the Skill tool loads it
    by that name (the scripted model calls it as the suggestion says)."""
    repo, _skill_file, marker = _small_repo(isolated_home, ".claude/skills")
    standin = model_standin(
        [{"tool_call": {"name": "Skill", "arguments": {"skill": "gif-maker"}}}, {"text": "done"}]
    )
    _skillshelf("setup", "claude", "--scope", "project", cwd=repo)
    _claude(agent_clis.claude, repo, standin.url, "make me a gif for the team chat", allowed="Skill")
    requests = standin.requests()
    fragment = _fragments(requests)[0]
    assert "call the Skill tool with its name" in fragment
    assert "- gif-maker: [untrusted project] Make GIFs for chat." in fragment and "(file:" not in fragment
    loaded = [s for r in requests[1:] for s in _strings(r["body"]) if marker in s]
    assert loaded, "the Skill tool did not load the skill by the suggested name"


def test_claude_code_started_in_a_subfolder_runs_the_hooks_set_up_there(
    agent_clis: Any, isolated_home: Any, model_standin: Any
) -> None:
    """Claude Code reads the ``.claude`` settings of the folder it starts in, not the repository
    root's: set up from ``repo/app``, the hooks land where Claude Code started there runs them."""
    repo, _skill_file, _marker = _small_repo(isolated_home, ".claude/skills")
    app = repo / "app"
    app.mkdir()
    standin = model_standin([{"text": "OK"}])
    done = _skillshelf("setup", "claude", "--scope", "project", cwd=app)
    assert b"only in the folder it starts in" in done.stdout + done.stderr
    assert (app / ".claude" / "settings.local.json").is_file()
    assert not (repo / ".claude" / "settings.local.json").exists()
    _claude(agent_clis.claude, app, standin.url, "make me a gif for the team chat")
    assert "- gif-maker: [untrusted project] Make GIFs for chat." in _fragments(standin.requests())[0]


def test_the_turn_goes_on_when_the_index_cannot_be_kept_and_the_memory_server_is_dead(
    agent_clis: Any, isolated_home: Any, model_standin: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No usable cache folder (a file is in the way), and the memory model server the detached
    `memory run` would call has been killed: Claude Code still answers, every hook exits 0,
    the session stays queued for a later run."""
    standin = model_standin([{"text": "OK"}])
    dead = model_standin([{"text": "{}"}])
    dead.process.kill()
    dead.process.wait(timeout=10)
    repo = _repo(isolated_home, agent_clis.corpora)
    blocker = isolated_home.home / "cache-is-a-file"
    blocker.write_text("x", encoding="utf-8")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocker))
    _user_config(isolated_home, f'[memory]\nbase_url = "{dead.url}/v1"\n')
    _skillshelf("setup", "claude", "--scope", "project", cwd=repo)
    done = _claude(agent_clis.claude, repo, standin.url, "make me an animated gif for slack")
    assert done.stdout.strip() == "OK"
    log = (isolated_home.state / "skillshelf" / "hooks" / "hooks.log").read_text(encoding="utf-8")
    events = [line.split()[2] for line in log.splitlines() if line.split()[1:2] == ["claude"]]
    assert {"SessionStart", "UserPromptSubmit", "Stop", "SessionEnd"} <= set(events)
    assert len(queued(isolated_home.state / "skillshelf")) == 1  # the failed extraction retries later
