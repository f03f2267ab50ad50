"""AGENTS.md the way Codex (0.171.0) loads it, checked rule by rule against ``codex-oracle``.

Rules (each one pinned by a differential test):

* Global: ``$CODEX_HOME/AGENTS.override.md`` if it has non-blank text, else
  ``$CODEX_HOME/AGENTS.md``. Trimmed; no byte cap; fallback names do not apply.
* Project: every folder from the project root (nearest ancestor of the canonical cwd holding a
  ``project_root_markers`` entry, default ``.git``; the cwd itself when none) down to the cwd.
  In each folder the first *existing file* among ``AGENTS.override.md``, ``AGENTS.md`` and the
  ``project_doc_fallback_filenames`` (trimmed, blank names and names with a path separator
  ignored) is the folder's file, even when it is blank.
* ``project_doc_max_bytes`` (default 32 KiB) is one budget shared by all project files, read
  root first; a file is cut at the byte cap (a cut inside a UTF-8 sequence gives U+FFFD). A part
  that is blank after reading is dropped and costs nothing; once the budget is spent the
  remaining files are left out. ``0`` turns project files off.
* Rendering: project parts joined with a blank line (untrimmed); the global text, if any,
  comes first, followed by ``--- project-doc ---``; the header names the cwd only when a
  project file contributed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from skillshelf.diagnostics import Diagnostic, Severity
from skillshelf.env import Env, find_project_root, folders_between
from skillshelf.fileio import resolve_path
from skillshelf.instructions.files import (
    HARD_READ_LIMIT,
    invalid_utf8_diagnostic,
    is_regular_file,
    read_bounded,
    usable_file,
)
from skillshelf.instructions.model import InstructionLayer, Instructions, InstructionScope, LayerKind
from skillshelf.skills.codex_config import load_codex_toml

__all__ = [
    "DEFAULT_PROJECT_DOC_MAX_BYTES",
    "CodexDocSettings",
    "codex_doc_settings",
    "load_agents_md",
    "render_agents_md",
]

DEFAULT_PROJECT_DOC_MAX_BYTES = 32 * 1024
AGENTS_MD = "AGENTS.md"
OVERRIDE_MD = "AGENTS.override.md"
PROJECT_DOC_SEPARATOR = "\n\n--- project-doc ---\n\n"
#: Unicode White_Space: what Rust's ``str::trim`` removes (Python's ``strip`` also removes \x1c-\x1f).
WHITE_SPACE = (
    "\t\n\x0b\x0c\r \x85\xa0\u1680"
    + "".join(map(chr, range(0x2000, 0x200B)))
    + "\u2028\u2029\u202f\u205f\u3000"
)


def rust_trim(text: str) -> str:
    """``text`` trimmed the way Codex (Rust) trims it."""
    return text.strip(WHITE_SPACE)


@dataclass(frozen=True, slots=True, kw_only=True)
class CodexDocSettings:
    """The Codex settings that shape the AGENTS.md block."""

    max_bytes: int = DEFAULT_PROJECT_DOC_MAX_BYTES
    fallback_filenames: tuple[str, ...] = ()
    project_root_markers: tuple[str, ...] | None = None


def codex_doc_settings(env: Env) -> tuple[CodexDocSettings, tuple[Diagnostic, ...]]:
    """Read ``project_doc_*`` and ``project_root_markers`` from ``$CODEX_HOME/config.toml``."""
    path = env.codex_home / "config.toml"
    if not is_regular_file(path):
        return CodexDocSettings(), ()
    data, problem = load_codex_toml(path)
    if problem is not None:
        diag = Diagnostic(
            code="IN104",
            severity=Severity.WARNING,
            message=f"cannot read Codex's config for AGENTS.md settings ({problem}); using defaults",
            fix="fix the TOML syntax of Codex's config.toml",
            path=path,
        )
        return CodexDocSettings(), (diag,)
    max_bytes = data.get("project_doc_max_bytes", DEFAULT_PROJECT_DOC_MAX_BYTES)
    names = data.get("project_doc_fallback_filenames", [])
    markers = data.get("project_root_markers")
    return (
        CodexDocSettings(
            max_bytes=max_bytes
            if isinstance(max_bytes, int) and max_bytes >= 0
            else DEFAULT_PROJECT_DOC_MAX_BYTES,
            fallback_filenames=tuple(n for n in names if isinstance(n, str))
            if isinstance(names, list)
            else (),
            project_root_markers=tuple(m for m in markers if isinstance(m, str))
            if isinstance(markers, list)
            else None,
        ),
        (),
    )


def candidate_names(fallback_filenames: Sequence[str]) -> tuple[tuple[str, LayerKind], ...]:
    """File names tried in each folder, in order: override, AGENTS.md, then the fallbacks."""
    names: list[tuple[str, LayerKind]] = [(OVERRIDE_MD, LayerKind.OVERRIDE), (AGENTS_MD, LayerKind.AGENTS)]
    for raw in fallback_filenames:
        name = rust_trim(raw)
        if not name or "/" in name or "\\" in name or "\x00" in name or name in {n for n, _ in names}:
            continue
        names.append((name, LayerKind.FALLBACK))
    return tuple(names)


def _global_layer(codex_home: Path, diags: list[Diagnostic]) -> InstructionLayer | None:
    for name, kind in ((OVERRIDE_MD, LayerKind.OVERRIDE), (AGENTS_MD, LayerKind.AGENTS)):
        path = codex_home / name
        if not usable_file(path, diags):
            continue
        result = read_bounded(path)
        if result.diagnostic:
            diags.append(result.diagnostic)
        if result.invalid_utf8:
            diags.append(invalid_utf8_diagnostic(path))
        text = rust_trim(result.text)
        if text:
            return InstructionLayer(
                path=path,
                scope=InstructionScope.USER,
                kind=kind,
                text=text,
                size=result.size,
                bytes_cut=result.size - result.data_len,
            )
    return None


def _folder_file(
    folder: Path, names: Sequence[tuple[str, LayerKind]], diags: list[Diagnostic]
) -> tuple[Path, LayerKind] | None:
    for name, kind in names:
        path = folder / name
        if usable_file(path, diags):
            return path, kind
    return None


def _project_layers(
    folders: Sequence[Path], root: Path, settings: CodexDocSettings, diags: list[Diagnostic]
) -> list[InstructionLayer]:
    names = candidate_names(settings.fallback_filenames)
    remaining = settings.max_bytes
    layers: list[InstructionLayer] = []
    for folder in folders:
        found = _folder_file(folder, names, diags)
        if found is None:
            continue
        path, kind = found
        scope = InstructionScope.PROJECT if folder == root else InstructionScope.FOLDER
        if remaining <= 0:
            size = _size(path)
            reason = (
                "project_doc_max_bytes is 0"
                if settings.max_bytes == 0
                else "project_doc_max_bytes already spent"
            )
            layers.append(
                InstructionLayer.left_out(path, scope, kind, size=size, bytes_cut=size, reason=reason)
            )
            continue
        result = read_bounded(path, remaining)
        if result.diagnostic:
            diags.append(result.diagnostic)
        if result.invalid_utf8:
            diags.append(invalid_utf8_diagnostic(path))
        cut = max(result.size - result.data_len, 0)
        if not rust_trim(result.text):
            reason = "blank" if not cut else "blank within the byte cap"
            layers.append(
                InstructionLayer.left_out(path, scope, kind, size=result.size, bytes_cut=cut, reason=reason)
            )
            continue
        if cut:
            diags.append(_truncated(path, result.size, settings.max_bytes, remaining))
        layers.append(
            InstructionLayer(
                path=path, scope=scope, kind=kind, text=result.text, size=result.size, bytes_cut=cut
            )
        )
        remaining -= result.data_len
    return layers


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


def _truncated(path: Path, size: int, max_bytes: int, remaining: int) -> Diagnostic:
    """IN105 naming the limit that made the cut: the budget left, or skillshelf's own read cap."""
    if remaining > HARD_READ_LIMIT:
        message = (
            f"this {size}-byte file is larger than skillshelf's read limit ({HARD_READ_LIMIT} bytes per "
            f"instructions file); only its first {HARD_READ_LIMIT} bytes were used"
        )
        fix = (
            "shorten the file (a file this size also swamps the model's context); raising "
            "project_doc_max_bytes does not lift this limit"
        )
    else:
        message = (
            f"AGENTS.md files here total more than project_doc_max_bytes ({max_bytes}); "
            f"this {size}-byte file was cut"
        )
        fix = "shorten the file or raise project_doc_max_bytes in Codex's config.toml"
    return Diagnostic(code="IN105", severity=Severity.WARNING, message=message, fix=fix, path=path)


def render_agents_md(cwd: Path, layers: Sequence[InstructionLayer]) -> str:
    """The block Codex gives the model (empty string when no file contributes)."""
    included = [layer for layer in layers if layer.included]
    user = next((layer.text for layer in included if layer.scope is InstructionScope.USER), None)
    project = "\n\n".join(layer.text for layer in included if layer.scope is not InstructionScope.USER)
    if user is None and not project:
        return ""
    if user is not None and project:
        body = f"{user}{PROJECT_DOC_SEPARATOR}{project}"
    else:
        body = user if user is not None else project
    header = f"# AGENTS.md instructions for {cwd}" if project else "# AGENTS.md instructions"
    return f"{header}\n\n<INSTRUCTIONS>\n{body}\n</INSTRUCTIONS>"


def load_agents_md(
    env: Env,
    *,
    max_bytes: int | None = None,
    fallback_filenames: Sequence[str] | None = None,
) -> Instructions:
    """Codex's AGENTS.md layers for ``env.cwd``; arguments override Codex's config.toml."""
    settings, read_diags = codex_doc_settings(env)
    diags = list(read_diags)
    if max_bytes is not None:
        settings = CodexDocSettings(
            max_bytes=max_bytes,
            fallback_filenames=settings.fallback_filenames,
            project_root_markers=settings.project_root_markers,
        )
    if fallback_filenames is not None:
        settings = CodexDocSettings(
            max_bytes=settings.max_bytes,
            fallback_filenames=tuple(fallback_filenames),
            project_root_markers=settings.project_root_markers,
        )
    cwd = _canonical(env.cwd)
    markers = (
        settings.project_root_markers
        if settings.project_root_markers is not None
        else env.project_root_markers
    )
    root = find_project_root(cwd, markers)
    folders = folders_between(root, cwd)
    layers: list[InstructionLayer] = []
    global_layer = _global_layer(env.codex_home, diags)
    if global_layer is not None:
        layers.append(global_layer)
    layers.extend(_project_layers(folders, root, settings, diags))
    return Instructions(
        profile="codex",
        cwd=cwd,
        layers=tuple(layers),
        text=render_agents_md(cwd, layers),
        diagnostics=tuple(diags),
    )


def _canonical(path: Path) -> Path:
    try:
        return resolve_path(path)
    except OSError:
        return path.absolute()
