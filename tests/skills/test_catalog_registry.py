"""The catalog format registry: one spec per format, read by every place that offers one."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import click
import pytest

from skillshelf.cli.context_cmd import context  # imported before any test registers a format
from skillshelf.cli.skills_cmds import catalog
from skillshelf.config import load_config
from skillshelf.env import Env
from skillshelf.errors import UsageError
from skillshelf.serve.tools import SkillTools
from skillshelf.skills.catalog import (
    CATALOG_FORMATS,
    Budget,
    CatalogFormatSpec,
    CharBudget,
    FormatRendering,
    render_catalog,
)
from skillshelf.skills.catalog.codex import catalog_order
from skillshelf.skills.catalog.lines import Entry, allocate
from skillshelf.skills.model import Skill
from testkit import run_cli


def _render_names(
    skills: Sequence[Skill], budget: Budget, *, roots: Sequence[Path] | None
) -> FormatRendering:
    ordered = tuple(catalog_order(skills))
    entries = [Entry(prefix=f"* {s.name}", units=(), suffix="", minimum=f"* {s.name}") for s in ordered]
    allocation = allocate(entries, budget)
    return FormatRendering(text="\n".join(allocation.lines), ordered=ordered, allocation=allocation)


NAMES = CatalogFormatSpec(name="names-only", render=_render_names, help="one '* name' line a skill")


@pytest.fixture
def names_format() -> Iterator[CatalogFormatSpec]:
    with CATALOG_FORMATS.registered(NAMES) as spec:
        yield spec


def _skill(tmp_path: Path, name: str) -> Path:
    folder = tmp_path / "skills" / name
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(
        f"---\nname: {name}\ndescription: Does {name} things.\n---\n# {name}\n", encoding="utf-8"
    )
    return folder


def _run_in(folder: Path, args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    old = Path.cwd()
    os.chdir(folder)
    try:
        return run_cli(args, capsys)
    finally:
        os.chdir(old)


def test_a_registered_format_is_rendered_offered_and_accepted_by_config(
    tmp_path: Path, isolated_home: Any, names_format: CatalogFormatSpec, capsys: pytest.CaptureFixture[str]
) -> None:
    _skill(tmp_path, "beta")
    _skill(tmp_path, "alpha")
    root = str(tmp_path / "skills")
    code, out, _ = _run_in(
        tmp_path, ["catalog", "--no-builtin", "--root", root, "--format", "names-only"], capsys
    )
    assert code == 0 and out.splitlines() == ["* alpha", "* beta"]

    isolated_home.write_user_config('[catalog]\nformat = "names-only"\n')
    assert not load_config(Env.from_os()).diagnostics
    code, out, _ = _run_in(tmp_path, ["catalog", "--no-builtin", "--root", root, "--json"], capsys)
    data = json.loads(out)
    assert code == 0 and data["format"] == "names-only" and data["text"] == "* alpha\n* beta"


def test_a_format_taken_out_of_the_registry_is_refused_everywhere(
    tmp_path: Path, isolated_home: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    isolated_home.write_user_config('[catalog]\nformat = "names-only"\n')
    problems = load_config(Env.from_os()).diagnostics
    assert [d.code for d in problems] == ["CF102"] and "codex" in (problems[0].fix or "")
    code, _, err = _run_in(tmp_path, ["catalog", "--no-builtin", "--format", "names-only"], capsys)
    assert code == 2 and "names-only" in err
    with pytest.raises(UsageError) as caught:
        render_catalog([], CharBudget(100), "names-only")
    assert "markdown" in caught.value.hint
    with pytest.raises(UsageError):
        SkillTools((), catalog_format="names-only")


def test_cli_format_choices_and_help_are_the_registry(names_format: CatalogFormatSpec) -> None:
    for command in (catalog, context):
        option = next(p for p in command.params if p.name == "catalog_format")
        assert isinstance(option.type, click.Choice)
        assert tuple(option.type.choices) == CATALOG_FORMATS.names()
        assert "names-only" in CATALOG_FORMATS
        record = option.get_help_record(click.Context(command))
        assert record is not None
        for name in ("codex", "xml", "markdown", "names-only"):  # names-only: registered after import
            assert f"{name}: " in record[1]


def test_format_names_are_checked_and_never_registered_twice(names_format: CatalogFormatSpec) -> None:
    with pytest.raises(UsageError):
        CATALOG_FORMATS.register(names_format)
    with pytest.raises(UsageError):
        CATALOG_FORMATS.register(CatalogFormatSpec(name="codex", render=_render_names, help="again"))
    with pytest.raises(UsageError):
        CatalogFormatSpec(name="Bad Name", render=_render_names, help="spaces")
    assert CATALOG_FORMATS.names()[:3] == ("codex", "xml", "markdown")
