"""The catalog formats: :data:`CATALOG_FORMATS`, one
:class:`~skillshelf.skills.catalog.spec.CatalogFormatSpec` per name. Everything that offers a
format reads it: ``render_catalog``, the CLI's ``--format`` choices and help, the config check
of ``catalog.format``, ``SkillTools``.

A new format is one module defining its spec (see ``formats.py``) and one entry in
:data:`BUILTIN_FORMATS`; a program that embeds skillshelf may ``CATALOG_FORMATS.register`` its own.
"""

from __future__ import annotations

from skillshelf.registry import Registry
from skillshelf.skills.catalog.codex import CODEX_FORMAT
from skillshelf.skills.catalog.formats import MARKDOWN_FORMAT, XML_FORMAT
from skillshelf.skills.catalog.spec import CatalogFormatSpec

__all__ = ["BUILTIN_FORMATS", "CATALOG_FORMATS", "DEFAULT_FORMAT"]

BUILTIN_FORMATS: tuple[CatalogFormatSpec, ...] = (CODEX_FORMAT, XML_FORMAT, MARKDOWN_FORMAT)
DEFAULT_FORMAT = CODEX_FORMAT.name
CATALOG_FORMATS: Registry[CatalogFormatSpec] = Registry("catalog format", BUILTIN_FORMATS)
