"""The real agent CLIs and skillshelf as a user runs them, for the end-to-end hook tests:
each call in a folder, against ``model-standin``; what the model was sent, read back."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

__all__ = [
    "E2E_MARKS",
    "copy_vectors",
    "corpora_repo",
    "run_claude",
    "run_codex",
    "run_skillshelf",
    "small_repo",
    "standin_codex_home",
    "strings_in",
    "suggestion_fragments",
    "warm_vectors",
]


E2E_MARKS = [
    pytest.mark.oracle,
    pytest.mark.slow,
    pytest.mark.timeout(900),
    pytest.mark.usefixtures("patient_hooks"),
]
"""The marks of every end-to-end hook test module (``pytestmark = E2E_MARKS``)."""


def run_skillshelf(*args: str, cwd: Path) -> subprocess.CompletedProcess[bytes]:
    command = [sys.executable, "-m", "skillshelf.cli.main", *args]
    done = subprocess.run(command, cwd=cwd, capture_output=True, timeout=600, check=False)
    assert done.returncode == 0, done.stderr.decode()
    return done


def strings_in(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in strings_in(v)]
    if isinstance(value, list):
        return [s for v in value for s in strings_in(v)]
    return []


def suggestion_fragments(requests: list[dict[str, Any]]) -> list[str]:
    """Every suggestion fragment the model was sent (the text of the block, once per request)."""
    found = []
    for request in requests:
        for text in strings_in(request["body"]):
            start = text.find("<skill_suggestions>")
            if start >= 0:
                found.append(text[start : text.index("</skill_suggestions>", start)])
                break
    return found


def standin_codex_home(box: Any, url: str, repo: Path) -> Path:
    box.codex_home.mkdir(parents=True, exist_ok=True)
    config = box.codex_home / "config.toml"
    config.write_text(
        'model = "standin-model"\nmodel_provider = "standin"\n\n[model_providers.standin]\nname = "standin"\n'
        f'base_url = "{url}/v1"\nwire_api = "responses"\n\n[projects."{repo}"]\ntrust_level = "trusted"\n',
        encoding="utf-8",
    )
    return config


def run_codex(cli: Path, repo: Path, prompt: str, *args: str) -> subprocess.CompletedProcess[str]:
    """``codex exec [ARGS] PROMPT`` in ``repo`` (``ARGS``: options, then a subcommand)."""
    env = {**os.environ, "OPENAI_API_KEY": "sk-standin", "RUST_LOG": "error"}
    return _agent([str(cli), "exec", "--skip-git-repo-check", *args, prompt], repo, env)


def small_repo(box: Any, skills: str) -> tuple[Path, Path, str]:
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


def run_claude(
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
    return _agent([str(cli), "-p", prompt, *flags], repo, env)


def _agent(argv: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """One agent CLI run that must succeed (its output's end in the failure message)."""
    done = subprocess.run(
        argv, cwd=cwd, env=env, capture_output=True, text=True, encoding="utf-8", timeout=300, check=False
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    return done


def corpora_repo(home: Path, corpora: Path) -> Path:
    """A repository under ``home`` whose ``.agents/skills`` links every corpus of ``corpora``."""
    repo = (home / "repo").resolve()
    (repo / ".git").mkdir(parents=True)
    skills = repo / ".agents" / "skills"
    skills.mkdir(parents=True)
    for corpus in sorted(p for p in corpora.iterdir() if p.is_dir()):
        (skills / corpus.name).symlink_to(corpus, target_is_directory=True)
    return repo


def warm_vectors(box: Path, corpora: Path) -> None:
    """Fill ``box/cache`` with skillshelf's vector caches for the skills of :func:`corpora_repo`: a
    ``search`` there, under a home, cache, data, config and state of ``box``'s own."""
    folders = {name: box / name for name in ("home", "cache", "data", "config", "state")}
    for folder in folders.values():
        folder.mkdir(parents=True)
    repo = corpora_repo(folders["home"], corpora)
    env = {
        **os.environ,
        "HOME": str(folders["home"]),
        **{f"XDG_{name.upper()}_HOME": str(folders[name]) for name in ("cache", "data", "config", "state")},
    }
    command = [sys.executable, "-m", "skillshelf.cli.main", "search", "make a gif for slack", "--json"]
    done = subprocess.run(command, cwd=repo, env=env, capture_output=True, timeout=600, check=False)
    assert done.returncode == 0, done.stderr.decode()


def copy_vectors(vectors: Path, cache: Path) -> None:
    """Put the vector caches the ``corpora_vectors`` fixture made into a test's cache folder."""
    into = cache / "skillshelf" / "index" / "select"
    into.mkdir(parents=True, exist_ok=True)
    for made in vectors.glob("*-vectors.bin"):
        shutil.copy2(made, into / made.name)
