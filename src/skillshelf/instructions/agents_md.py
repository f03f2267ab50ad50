"""AGENTS.md the way Codex (0.171.0) loads it, checked rule by rule against ``codex-oracle``.

Rules (each one pinned by a differential test):

* Global: ``$CODEX_HOME/AGENTS.override.md`` if it has non-blank text, else
  ``$CODEX_HOME/AGENTS.md``. Trimmed; no byte cap; fallback names do not apply.
* Project: every folder from the project root (nearest ancestor of the canonical cwd holding a
  ``project_root_markers`` entry, default ``.git``; the cwd itself when none) down to the cwd.
  In each folder the first *existing file* among ``AGENTS.override.md``, ``AGENTS.md`` and the
  ``project_doc_fallback_filenames`` (trimmed, blank names and names with a path separator
  ignored) is the folder's file, even when it is blank. A name there that is a symbolic link
  loop (ELOOP) stops Codex's search: it then gives the model no project file at all (IN108);
  a link to nothing is passed over.
* ``project_doc_max_bytes`` (default 32 KiB) is one budget shared by all project files, read
  root first; a file is cut at the byte cap (a cut inside a UTF-8 sequence gives U+FFFD). A part
  that is blank after reading is dropped and costs nothing; once the budget is spent the
  remaining files are left out (never opened). ``0`` turns project files off. A project file
  Codex opens but cannot read (permissions, an I/O error) makes it give the model no project
  file at all, only the global one (IN101).
* Trust: the cwd's ``[projects."PATH"]`` entry in ``$CODEX_HOME/config.toml``, else its git
  trust root's: the repository root, a linked worktree's main checkout, none for a submodule or
  outside git (:func:`~skillshelf.skills.plugins.codex_trust_root`); the root found by
  ``project_root_markers`` plays no part. A cwd so marked ``untrusted`` gets no project file at
  all, only the global one (IN107); no entry is no bar.
* Settings (:mod:`.codex_doc_settings`): ``$CODEX_HOME/config.toml``; each
  ``.codex/config.toml`` from the root down to the cwd whose folder is trusted (its own entry,
  else the project root's, else the git trust root's:
  :func:`~skillshelf.skills.plugins.codex_project_layers`) overrides its ``project_doc_*`` keys,
  the nearest winning key by key (a project's ``project_root_markers`` are not read). A value of
  the wrong type (a negative or non-integer ``project_doc_max_bytes``, fallback names not a list
  of strings), unreadable TOML, a user ``profile = "..."`` (legacy) or ``[projects]`` entry Codex
  cannot read (``projects_refusal``) makes Codex refuse to start (IN104, IN109).
* Rendering: project parts joined with a blank line (untrimmed); the global text, if any,
  comes first, followed by ``--- project-doc ---``; the header names the cwd only when a
  project file contributed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from skillshelf.diagnostics import Diagnostic, Severity
from skillshelf.env import Env, find_project_root, folders_between
from skillshelf.fileio import resolve_path
from skillshelf.instructions.codex_doc_settings import (
    DEFAULT_PROJECT_DOC_MAX_BYTES,
    SKILLSHELF_MAX_BYTES,
    CodexDocSettings,
    codex_doc_settings,
)
from skillshelf.instructions.files import (
    HARD_READ_LIMIT,
    ReadResult,
    invalid_utf8_diagnostic,
    link_loops,
    read_bounded,
    usable_file,
)
from skillshelf.instructions.model import InstructionLayer, Instructions, InstructionScope, LayerKind
from skillshelf.skills.codex_config import read_codex_settings
from skillshelf.skills.load import path_text
from skillshelf.skills.plugins import codex_trust, codex_trust_root

__all__ = [
    "DEFAULT_PROJECT_DOC_MAX_BYTES",
    "CodexDocSettings",
    "codex_doc_settings",
    "load_agents_md",
    "render_agents_md",
]

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


def _project_files(
    folders: Sequence[Path], root: Path, settings: CodexDocSettings, diags: list[Diagnostic]
) -> list[tuple[Path, InstructionScope, LayerKind]] | Path:
    """Each folder's first existing file, root first; instead the path of a name that is a
    symbolic link loop, where Codex stops looking (and reads none of them)."""
    names = candidate_names(settings.fallback_filenames)
    found: list[tuple[Path, InstructionScope, LayerKind]] = []
    for folder in folders:
        for name, kind in names:
            path = folder / name
            if link_loops(path):
                return path
            if usable_file(path, diags):
                scope = InstructionScope.PROJECT if folder == root else InstructionScope.FOLDER
                found.append((path, scope, kind))
                break
    return found


def _project_layers(
    folders: Sequence[Path], root: Path, settings: CodexDocSettings, diags: list[Diagnostic]
) -> list[InstructionLayer]:
    found = _project_files(folders, root, settings, diags)
    if isinstance(found, Path):
        if settings.max_bytes > 0:  # with 0 Codex does not look for project files at all
            diags.append(_link_loop(found))
        return []
    remaining = settings.max_bytes
    layers: list[InstructionLayer] = []
    for path, scope, kind in found:
        if remaining <= 0:
            size = _size(path)
            spent = "is 0" if settings.max_bytes == 0 else "already spent"
            reason = f"{settings.max_bytes_setting} {spent}"
            layers.append(
                InstructionLayer.left_out(path, scope, kind, size=size, bytes_cut=size, reason=reason)
            )
            continue
        result = read_bounded(path, remaining)
        if result.unreadable:
            diags.append(_unreadable(path, result))
            return _all_dropped(found, path)
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
            diags.append(_truncated(path, result.size, settings, remaining))
        layers.append(
            InstructionLayer(
                path=path, scope=scope, kind=kind, text=result.text, size=result.size, bytes_cut=cut
            )
        )
        remaining -= result.data_len
    return layers


def _unreadable(path: Path, result: ReadResult) -> Diagnostic:
    """IN101 for a project file Codex opens and cannot read: it then reads no project file."""
    assert result.diagnostic is not None
    return replace(
        result.diagnostic,
        message=f"{result.diagnostic.message}; Codex then reads no project AGENTS.md at all "
        "(only the global one)",
    )


def _all_dropped(
    found: Sequence[tuple[Path, InstructionScope, LayerKind]], unreadable: Path
) -> list[InstructionLayer]:
    """Every project file left out: Codex gives up on them all when one cannot be read."""
    return [
        InstructionLayer.left_out(
            path,
            scope,
            kind,
            size=_size(path),
            reason="cannot be read" if path == unreadable else f"{unreadable} cannot be read",
        )
        for path, scope, kind in found
    ]


def _link_loop(path: Path) -> Diagnostic:
    """Codex stops looking for project files at a name that is a symbolic link loop, and the
    model then gets none of them (only the global AGENTS.md)."""
    return Diagnostic(
        code="IN108",
        severity=Severity.WARNING,
        message="this instructions name is a symbolic link loop; Codex stops at it and reads no project "
        "AGENTS.md at all (only the global one)",
        fix="remove the link or point it at an existing file",
        path=path,
    )


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


def _truncated(path: Path, size: int, settings: CodexDocSettings, remaining: int) -> Diagnostic:
    """IN105 naming the limit that made the cut: the budget left (the setting in force), or
    skillshelf's own read cap."""
    if remaining > HARD_READ_LIMIT:
        message = (
            f"this {size}-byte file is larger than skillshelf's read limit ({HARD_READ_LIMIT} bytes per "
            f"instructions file); only its first {HARD_READ_LIMIT} bytes were used"
        )
        fix = (
            "shorten the file (a file this size also swamps the model's context); raising "
            f"{settings.max_bytes_setting} does not lift this limit"
        )
    else:
        message = (
            f"AGENTS.md files here total more than {settings.max_bytes_setting} ({settings.max_bytes}); "
            f"this {size}-byte file was cut"
        )
        fix = "shorten the file or " + (
            "raise max_bytes under [instructions] in skillshelf's config.toml (or --max-bytes): "
            "it replaces Codex's project_doc_max_bytes here"
            if settings.max_bytes_setting == SKILLSHELF_MAX_BYTES
            else "raise project_doc_max_bytes in Codex's config.toml"
        )
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
    header = f"# AGENTS.md instructions for {path_text(cwd)}" if project else "# AGENTS.md instructions"
    return f"{header}\n\n<INSTRUCTIONS>\n{body}\n</INSTRUCTIONS>"


def load_agents_md(
    env: Env,
    *,
    max_bytes: int | None = None,
    fallback_filenames: Sequence[str] | None = None,
    extra_fallback_filenames: Sequence[str] = (),
) -> Instructions:
    """Codex's AGENTS.md layers for ``env.cwd``; ``max_bytes`` and ``fallback_filenames``
    override Codex's config.toml, ``extra_fallback_filenames`` are tried after the fallback
    names in force."""
    settings, read_diags = codex_doc_settings(env)
    diags = list(read_diags)
    if max_bytes is not None:
        settings = replace(settings, max_bytes=max_bytes, max_bytes_setting=SKILLSHELF_MAX_BYTES)
    names = settings.fallback_filenames if fallback_filenames is None else tuple(fallback_filenames)
    settings = replace(settings, fallback_filenames=(*names, *extra_fallback_filenames))
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
    user = read_codex_settings(env.codex_home)
    trust_root = codex_trust_root(cwd)
    if codex_trust(user, cwd, trust_root) is False:
        diags.append(_untrusted(cwd, None if codex_trust(user, cwd) is False else trust_root))
    else:
        layers.extend(_project_layers(folders, root, settings, diags))
    return Instructions(
        profile="codex",
        cwd=cwd,
        layers=tuple(layers),
        text=render_agents_md(cwd, layers),
        diagnostics=tuple(diags),
    )


def _untrusted(cwd: Path, trust_root: Path | None) -> Diagnostic:
    """Codex marks a project untrusted and then reads none of its AGENTS.md files, only the
    global one (its skills it still lists). ``trust_root``: the repository whose entry decided,
    ``None`` when the cwd's own did."""
    where = cwd if trust_root is None or trust_root == cwd else f"{cwd} (repository {trust_root})"
    return Diagnostic(
        code="IN107",
        severity=Severity.INFO,
        message=f"Codex reads no project AGENTS.md here: {where} is marked untrusted in Codex's config.toml",
        fix=f'set trust_level = "trusted" under [projects."{trust_root or cwd}"] in $CODEX_HOME/config.toml '
        "(the entry that decides here), or answer Codex's trust prompt, to have its AGENTS.md read",
    )


def _canonical(path: Path) -> Path:
    try:
        return resolve_path(path)
    except OSError:
        return path.absolute()
