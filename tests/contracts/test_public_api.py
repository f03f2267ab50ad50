"""Contracts of the package as a whole: the public API, start-up cost, the error tree."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

import skillshelf
from skillshelf import errors

HEAVY = (
    "rich",
    "mcp",
    "openai",
    "anthropic",
    "psycopg",
    "numpy",
    "bm25s",
    "httpx",
    "pydantic",
    "tomlkit",
    "watchfiles",
    "starlette",
    "uvicorn",
    "anyio",
)


def test_all_is_sorted_and_every_name_resolves() -> None:
    assert skillshelf.__all__ == sorted(skillshelf.__all__, key=str.lower)
    for name in skillshelf.__all__:
        assert getattr(skillshelf, name) is not None, name


def test_unknown_attributes_raise_attribute_error() -> None:
    with pytest.raises(AttributeError):
        _ = skillshelf.no_such_thing  # type: ignore[attr-defined]


def _imported_after(code: str) -> set[str]:
    probe = f"import sys; {code}; import json; print(json.dumps(sorted(sys.modules)))"
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, encoding="utf-8", check=True
    ).stdout
    return {name.split(".")[0] for name in json.loads(out.strip().splitlines()[-1])}


def test_importing_skillshelf_loads_no_heavy_dependency() -> None:
    assert not _imported_after("import skillshelf") & set(HEAVY)


def test_the_cli_help_loads_no_heavy_dependency() -> None:
    code = "from skillshelf.cli.main import cli; import click; cli.main(['--help'], standalone_mode=False)"
    assert not _imported_after(code) & set(HEAVY)


def test_every_error_has_a_code_and_an_exit_code() -> None:
    classes = [
        c for c in vars(errors).values() if isinstance(c, type) and issubclass(c, errors.SkillshelfError)
    ]
    assert len(classes) >= 10
    for cls in classes:
        assert cls.default_code and cls.exit_code in (1, 2)
    assert errors.UsageError("x").exit_code == 2


def test_skill_not_found_suggests_close_matches() -> None:
    exc = errors.SkillNotFoundError("pdff", available=["pdf", "docx"], close=["pdf"])
    assert exc.code == "SK404" and "'pdf'" in exc.hint
