"""Plugin namespaces: Codex names a skill inside a plugin ``<plugin>:<name>``.

Rules of Codex 0.171.0, checked with the oracle:

* a plugin folder holds ``.codex-plugin/plugin.json``, ``.claude-plugin/plugin.json`` or
  ``.cursor-plugin/plugin.json`` (the first that exists is the manifest);
* the namespace is the manifest's ``name``, used as written; an empty or missing ``name`` means
  the plugin folder's name; a manifest that is not a JSON object or whose ``name`` is not text
  counts as no manifest;
* a skill takes the namespace of the nearest plugin folder at or above its own folder, following
  its real (symlink-resolved) location: a plain folder linked into a plugin stays plain, a plugin
  linked into a root keeps its name, a manifest above the scanned root applies to it;
* Codex drops a skill whose namespace and name together run over
  :data:`MAX_QUALIFIED_CHARS` characters (Unicode scalars, the colon not counted: a qualified
  name of 129 characters loads, one of 130 does not, whatever the split or the characters'
  UTF-8 or UTF-16 sizes): :func:`qualified_name` gives ``None`` and an SK130 error.

Only the manifests are read (small JSON files), once per folder.
"""

from __future__ import annotations

import os
from pathlib import Path

from skillshelf.diagnostics import Diagnostic, Severity, diagnostic
from skillshelf.fileio import open_regular

__all__ = [
    "MANIFESTS",
    "MAX_QUALIFIED_CHARS",
    "MISSING",
    "NamespaceResolver",
    "first_manifest",
    "qualified_name",
]

MANIFESTS = (".codex-plugin", ".claude-plugin", ".cursor-plugin")
_MAX_MANIFEST_BYTES = 256 * 1024
MISSING = object()
#: Codex's cap on a plugin skill's namespace and name together (its ``:`` not counted).
MAX_QUALIFIED_CHARS = 128


def first_manifest(folder: str) -> object:
    """The parsed JSON of a folder's first manifest (``None`` when it is not JSON or too big),
    ``MISSING`` when it has none."""
    for marker in MANIFESTS:
        path = os.path.join(folder, marker, "plugin.json")
        try:
            with open_regular(path) as handle:  # a FIFO named plugin.json must not hang discovery
                data = handle.read(_MAX_MANIFEST_BYTES + 1)
        except OSError:
            continue
        import json  # only when a manifest exists

        try:
            return json.loads(data) if len(data) <= _MAX_MANIFEST_BYTES else None
        except (ValueError, RecursionError):
            return None
    return MISSING


def _read_manifest(folder: str) -> str | None | object:
    """The namespace a folder's manifest gives, ``None`` for an invalid one, ``MISSING`` for none."""
    manifest = first_manifest(folder)
    if manifest is MISSING:
        return MISSING
    name = manifest.get("name", "") if isinstance(manifest, dict) else None
    if not isinstance(name, str):
        return None
    return name if name.strip() else os.path.basename(folder)


class NamespaceResolver:
    """Finds the plugin namespace of skill folders; remembers every folder it looked at.

    ``known_plain`` lists folders already known to hold no manifest folder (the walk saw their
    entries), which saves probing them.
    """

    def __init__(self) -> None:
        self._memo: dict[str, str | None] = {}
        self.known_plain: set[str] = set()

    def _own(self, folder: str) -> str | None | object:
        if folder in self.known_plain:
            return MISSING
        return _read_manifest(folder)

    def namespace(self, canonical_folder: str) -> str | None:
        """The namespace for a skill whose real folder is ``canonical_folder`` (or ``None``)."""
        chain: list[str] = []
        folder = canonical_folder
        result: str | None = None
        while True:
            if folder in self._memo:
                result = self._memo[folder]
                break
            chain.append(folder)
            own = self._own(folder)
            if isinstance(own, str):
                result = own
                break
            parent = os.path.dirname(folder)
            if parent == folder:
                break
            folder = parent
        for seen in chain:
            self._memo[seen] = result
        return result


def qualified_name(namespace: str, name: str, *, path: Path | str, out: list[Diagnostic]) -> str | None:
    """``<namespace>:<name>`` as Codex names a plugin's skill at ``path``; ``None`` (and an SK130
    error in ``out``) when the two together are too long for Codex, which then skips the skill."""
    qualified = f"{namespace}:{name}"
    over = len(namespace) + len(name) - MAX_QUALIFIED_CHARS
    if over <= 0:
        return qualified
    out.append(
        diagnostic(
            "SK130",
            Severity.ERROR,
            f"invalid qualified name {qualified!r}: plugin name and skill name together exceed Codex's "
            f"maximum of {MAX_QUALIFIED_CHARS} characters ({len(namespace)} + {len(name)}); Codex skips "
            "the skill",
            f"shorten the skill's `name` or the plugin's `name` in its plugin.json by {over} character"
            f"{'s' if over > 1 else ''}",
            path,
            field="name",
        )
    )
    return None
