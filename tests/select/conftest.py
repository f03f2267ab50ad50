"""Fixtures for the selection tests: skill folders written in tmp_path, discovered for real."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from skillshelf.skills.discover import discover_in
from skillshelf.skills.model import Skill

SkillSpec = tuple[str, str, str]  # (folder name, description, body)

# Hand-written skills (no corpus text): enough overlap to make ranking non-trivial.
SAMPLE: tuple[SkillSpec, ...] = (
    (
        "pdf-tools",
        "Merge, split and rotate PDF files; extract text and tables from PDF documents.",
        "# PDF toolkit\n\n## Merging\nUse qpdf to merge pages.\n\n## Text extraction\n"
        "pdftotext keeps the layout.\n",
    ),
    (
        "spreadsheet-helper",
        "Read and write Excel workbooks, formulas and pivot tables with openpyxl.",
        "# Spreadsheets\n\n## Formulas\nRecalculate formulas after editing cells.\n",
    ),
    (
        "git-release",
        "Prepare a release: bump the version, write the changelog, tag and push with git.",
        "# Releases\n\n## Changelog\nGroup commits by type.\n\n## Tagging\nSign tags.\n",
    ),
    (
        "image-resize",
        "Resize, crop and convert images (PNG, JPEG, WebP) in bulk.",
        "# Images\n\nUse Pillow for thumbnails and format conversion.\n",
    ),
    (
        "flaky-tests",
        "Find and fix flaky tests in pytest suites: reruns, isolation, seeds.",
        "# Flaky tests\n\n## Isolation\nRun each test alone to find order dependence.\n",
    ),
    (
        "video-editing",
        "Cut, trim and concatenate video clips and add subtitles with ffmpeg.",
        "# Video\n\n## Subtitles\nBurn subtitles with the subtitles filter.\n",
    ),
)


def write_skill(
    root: Path, folder: str, description: str, body: str = "", *, name: str | None = None
) -> Path:
    """Write ``root/folder/SKILL.md`` and return its path."""
    path = root / folder / "SKILL.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    desc = description.replace('"', "'")
    path.write_text(f'---\nname: {name or folder}\ndescription: "{desc}"\n---\n{body}', encoding="utf-8")
    return path


@pytest.fixture
def skill_root(tmp_path: Path) -> Path:
    root = tmp_path / "skills"
    for folder, desc, body in SAMPLE:
        write_skill(root, folder, desc, body)
    return root


@pytest.fixture
def discover() -> Callable[[Path], tuple[Skill, ...]]:
    def run(root: Path) -> tuple[Skill, ...]:
        return discover_in([root]).skills

    return run


@pytest.fixture
def make_skill() -> Callable[..., Path]:
    """``make_skill(root, folder, description, body="", name=None)`` writes one skill."""
    return write_skill
