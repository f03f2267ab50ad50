"""Plugin namespaces: Codex names a skill inside a plugin ``<plugin>:<name>``.

Rules of Codex 0.171.0, checked with the oracle:

* a plugin folder holds ``.codex-plugin/plugin.json``, ``.claude-plugin/plugin.json`` or
  ``.cursor-plugin/plugin.json`` (the first that exists is the manifest);
* the namespace is the manifest's ``name``, used as written; an empty or missing ``name`` means
  the plugin folder's name; a manifest that is not a JSON object or whose ``name`` is not text
  counts as no manifest;
* a skill takes the namespace of the nearest plugin folder at or above its own folder, following
  its real (symlink-resolved) location: a plain folder linked into a plugin stays plain, a plugin
  linked into a root keeps its name, a manifest above the scanned root applies to it.

Only the manifests are read (small JSON files), once per folder.
"""

from __future__ import annotations

import os

from skillshelf.fileio import open_regular

__all__ = ["MANIFESTS", "MISSING", "NamespaceResolver", "first_manifest"]

MANIFESTS = (".codex-plugin", ".claude-plugin", ".cursor-plugin")
_MAX_MANIFEST_BYTES = 256 * 1024
MISSING = object()


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
