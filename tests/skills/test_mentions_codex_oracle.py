"""The skills a task's mentions load, beside the ones the real Codex CLI (0.171.0) injects:
``codex exec`` against ``model-standin``, the ``<path>`` of each ``<skill>`` block of its first
request read back, compared with those of the fragments ``build_context`` (Codex's profile)
loads for the same task (a skill folder linked into a root: its real ``SKILL.md``)."""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from skillshelf.context import ContextOptions, build_context
from skillshelf.env import Env
from testkit import IsolatedHome, agent_cli

pytestmark = [pytest.mark.oracle, pytest.mark.slow, pytest.mark.timeout(600)]

OPTIONS = ContextOptions(include_builtin=False, use_cache=False, suggestions=False, instructions=False)


def _skill(folder: Path, name: str) -> None:
    folder.mkdir(parents=True)
    text = f"---\nname: {name}\ndescription: {name} of {folder.parent.parent.name}\n---\nBODY\n"
    (folder / "SKILL.md").write_text(text, encoding="utf-8")


def _paths(texts: list[str]) -> set[str]:
    """The ``<path>`` of each ``<skill>`` block in ``texts``."""
    return {path for text in texts if "<skill>" in text for path in re.findall(r"<path>(.*?)</path>", text)}


def _injected(requests: list[dict[str, Any]]) -> set[str]:
    """The ``<path>`` of each ``<skill>`` block in the first request Codex sent."""
    body = requests[0]["body"]
    return _paths([part.get("text", "") for item in body["input"] for part in item.get("content") or []])


CASES = {
    "a name shared with a .claude/skills skill": "use $lint now",
    "a link to the skill folder": "fill it with [$pdf-forms]({repo}/.agents/skills/pdf-forms)",
    "a link with ./ in its path": "fill it with [$pdf-forms]({repo}/.agents/skills/pdf-forms/./SKILL.md)",
    "a link with // in its path": "fill it with [$pdf-forms]({repo}/.agents/skills//pdf-forms/SKILL.md)",
    "a link with .. in its path": "fill it with [$pdf-forms]({repo}/.agents/skills/x/../pdf-forms/SKILL.md)",
    "a relative link": "fill it with [$pdf-forms](.agents/skills/pdf-forms/SKILL.md)",
    "a link to the skill folder with a slash": "fill it with [$pdf-forms]({repo}/.agents/skills/pdf-forms/)",
    "a link to the SKILL.md path": "fill it with [$pdf-forms]({repo}/.agents/skills/pdf-forms/SKILL.md)",
    "a skill named like an environment variable": "fix $home dir",
    "a linked skill folder by name": "use $lnk",
    "a linked skill folder by its real SKILL.md": "use [$lnk]({real}/lnk/SKILL.md)",
    "a linked skill folder by its linked SKILL.md": "use [$lnk]({repo}/.agents/skills/lnk/SKILL.md)",
    "a linked skill folder by its real folder": "use [$lnk]({real}/lnk)",
}


@pytest.mark.parametrize("case", list(CASES))
def test_the_mentions_codex_loads_are_those_the_context_loads(
    case: str, tmp_path: Path, isolated_home: IsolatedHome, model_standin: Callable[..., Any]
) -> None:
    codex = agent_cli("codex")
    repo = (tmp_path / "repo").resolve()
    (repo / ".git").mkdir(parents=True)
    for folder, name in [(".agents/skills/lint", "lint"), (".claude/skills/lint", "lint")]:
        _skill(repo / folder, name)
    _skill(repo / ".agents/skills/pdf-forms", "pdf-forms")
    _skill(repo / ".agents/skills/home", "home")
    real = (tmp_path / "real").resolve()
    _skill(real / "lnk", "lnk")
    (repo / ".agents/skills/lnk").symlink_to(real / "lnk", target_is_directory=True)
    standin = model_standin([{"text": "OK"}])
    isolated_home.codex_home.mkdir(parents=True, exist_ok=True)
    (isolated_home.codex_home / "config.toml").write_text(
        'model = "standin-model"\nmodel_provider = "standin"\n[model_providers.standin]\nname = "standin"\n'
        f'base_url = "{standin.url}/v1"\nwire_api = "responses"\n',
        encoding="utf-8",
    )
    task = CASES[case].format(repo=repo, real=real)
    env = {**os.environ, "OPENAI_API_KEY": "sk-standin", "RUST_LOG": "error"}
    done = subprocess.run(
        [str(codex), "exec", "--skip-git-repo-check", task],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=300,
        check=False,
    )
    assert standin.requests(), done.stderr[-2000:]
    ours = build_context(Env.for_test(cwd=repo, home=isolated_home.home), task, OPTIONS)
    part = ours.part("mentioned")
    assert _paths([part.text] if part else []) == _injected(standin.requests())
    assert len(ours.mentioned) == len(_injected(standin.requests()))
