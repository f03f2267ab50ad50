"""The confined reads of a skill's files under their earlier import path: they live in
:mod:`skillshelf.skills.bundled`, which every listing and read of bundled files goes through."""

from __future__ import annotations

from skillshelf.skills.bundled import (
    DEFAULT_MAX_FILE_BYTES,
    VCS_FOLDERS,
    SkillFile,
    check_relative_path,
    check_text,
    hidden_part,
    listable,
    read_confined_file,
    stays_inside,
)

__all__ = [
    "DEFAULT_MAX_FILE_BYTES",
    "VCS_FOLDERS",
    "SkillFile",
    "check_relative_path",
    "check_text",
    "hidden_part",
    "listable",
    "read_confined_file",
    "stays_inside",
]
