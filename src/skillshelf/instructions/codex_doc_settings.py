"""Codex's settings for the AGENTS.md block: ``project_doc_*`` and ``project_root_markers``
from ``$CODEX_HOME/config.toml`` and each trusted project's ``.codex/config.toml``, and the values
Codex refuses to start with (IN104, IN109). The rules are listed in :mod:`.agents_md`."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TypeGuard

from skillshelf.diagnostics import Diagnostic, Severity
from skillshelf.env import Env
from skillshelf.instructions.files import is_regular_file
from skillshelf.skills.codex_config import load_codex_toml, read_codex_settings, valid_projects
from skillshelf.skills.plugins import codex_project_layers
from skillshelf.skills.roots import codex_config_folders

__all__ = [
    "DEFAULT_PROJECT_DOC_MAX_BYTES",
    "SKILLSHELF_MAX_BYTES",
    "CodexDocSettings",
    "codex_doc_settings",
]

DEFAULT_PROJECT_DOC_MAX_BYTES = 32 * 1024
#: skillshelf's own cap (``[instructions] max_bytes``, ``--max-bytes``), in place of Codex's when set.
SKILLSHELF_MAX_BYTES = "skillshelf's max_bytes"
#: The keys a trusted project's ``.codex/config.toml`` may set for the AGENTS.md block.
_DOC_KEYS = frozenset({"project_doc_max_bytes", "project_doc_fallback_filenames"})


@dataclass(frozen=True, slots=True, kw_only=True)
class CodexDocSettings:
    """The Codex settings that shape the AGENTS.md block."""

    max_bytes: int = DEFAULT_PROJECT_DOC_MAX_BYTES
    fallback_filenames: tuple[str, ...] = ()
    project_root_markers: tuple[str, ...] | None = None
    #: The setting ``max_bytes`` comes from: Codex's, or skillshelf's own (:data:`SKILLSHELF_MAX_BYTES`).
    max_bytes_setting: str = "project_doc_max_bytes"


def codex_doc_settings(env: Env) -> tuple[CodexDocSettings, tuple[Diagnostic, ...]]:
    """``project_doc_*`` and ``project_root_markers`` from ``$CODEX_HOME/config.toml``; the
    ``project_doc_*`` of each trusted folder's ``.codex/config.toml`` from the root down to the
    cwd override them, the nearest last
    (:func:`~skillshelf.skills.plugins.codex_project_layers`, as for plugins). A project's
    ``project_root_markers`` play no part: they would move the root they are read from."""
    user, diags = _config_layer(env.codex_home / "config.toml", user=True)
    markers = user.get("project_root_markers")
    root_markers = tuple(m for m in markers if isinstance(m, str)) if isinstance(markers, list) else None
    doc = {key: value for key, value in user.items() if key in _DOC_KEYS}
    folders = codex_config_folders(
        env if root_markers is None else replace(env, project_root_markers=root_markers)
    )
    for dot_codex in codex_project_layers(env, folders, read_codex_settings(env.codex_home)):
        data, problems = _config_layer(dot_codex / "config.toml", user=False)
        doc.update((key, value) for key, value in data.items() if key in _DOC_KEYS)
        diags += problems
    max_bytes = doc.get("project_doc_max_bytes", DEFAULT_PROJECT_DOC_MAX_BYTES)
    names = doc.get("project_doc_fallback_filenames", [])
    settings = CodexDocSettings(
        max_bytes=max_bytes if _whole_bytes(max_bytes) else DEFAULT_PROJECT_DOC_MAX_BYTES,
        fallback_filenames=tuple(n for n in names if isinstance(n, str)) if isinstance(names, list) else (),
        project_root_markers=root_markers,
    )
    return settings, tuple(diags)


def _config_layer(path: Path, *, user: bool) -> tuple[dict[str, object], list[Diagnostic]]:
    """The keys of one Codex ``config.toml`` (none when it is missing); IN104 when it cannot be
    read, IN109 for each value that makes Codex refuse to start."""
    if not is_regular_file(path):
        return {}, []
    data, problem = load_codex_toml(path)
    if problem is not None:
        diag = Diagnostic(
            code="IN104",
            severity=Severity.WARNING,
            message=f"cannot read Codex's config ({problem}); Codex refuses to start with it, and "
            "skillshelf leaves its AGENTS.md settings out",
            fix="fix the TOML syntax of this config.toml",
            path=path,
        )
        return {}, [diag]
    return dict(data), [_refused(path, key, fix) for key, fix in _bad_values(data, user=user)]


def _whole_bytes(value: object) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 2**63


def _strings(value: object) -> bool:
    return isinstance(value, list) and all(isinstance(item, str) for item in value)


#: (key, read in the user's config only, valid value, fix): what Codex 0.171 refuses to start with.
_CHECKS: tuple[tuple[str, bool, Callable[[object], bool], str], ...] = (
    ("project_doc_max_bytes", False, _whole_bytes, "set it to a whole number of bytes (0 or more)"),
    ("project_doc_fallback_filenames", False, _strings, 'make it a list of file names: ["NOTES.md"]'),
    ("project_root_markers", True, _strings, 'make it a list of names: [".git"]'),
    ("profile", True, lambda _: False, "remove it and start Codex with --profile NAME (NAME.config.toml)"),
    ("projects", True, valid_projects, 'set each trust_level to "trusted" or "untrusted"'),
)


def _bad_values(data: Mapping[str, object], *, user: bool) -> list[tuple[str, str]]:
    """``(setting, fix)`` for each setting of one config.toml Codex refuses to start with."""
    return [
        (key, fix)
        for key, user_only, valid, fix in _CHECKS
        if key in data and (user or not user_only) and not valid(data[key])
    ]


def _refused(path: Path, key: str, fix: str) -> Diagnostic:
    what = "the legacy profile setting" if key == "profile" else f"this {key} value"
    then = "" if key == "profile" else "; skillshelf uses the default here"
    return Diagnostic(
        code="IN109",
        severity=Severity.WARNING,
        message=f"Codex refuses to start with {what} in its config.toml{then}",
        fix=fix,
        path=path,
        field=key,
    )
