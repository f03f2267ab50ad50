"""The catalog formats: one :class:`~skillshelf.skills.catalog.spec.CatalogFormatSpec` per
name. Everything that offers a format reads this registry: ``render_catalog``, the CLI's
``--format`` choices and help, the config check of ``catalog.format``, ``SkillTools``.

A new format is one module defining its spec (see ``formats.py``) and one entry in
:data:`BUILTIN_FORMATS`; a program that embeds skillshelf may :func:`register_format` its own.
"""

from __future__ import annotations

import difflib

from skillshelf.errors import UsageError
from skillshelf.skills.catalog.codex import CODEX_FORMAT
from skillshelf.skills.catalog.formats import MARKDOWN_FORMAT, XML_FORMAT
from skillshelf.skills.catalog.spec import CatalogFormatSpec

__all__ = [
    "BUILTIN_FORMATS",
    "DEFAULT_FORMAT",
    "catalog_format",
    "catalog_formats",
    "format_names",
    "register_format",
    "unregister_format",
]

BUILTIN_FORMATS: tuple[CatalogFormatSpec, ...] = (CODEX_FORMAT, XML_FORMAT, MARKDOWN_FORMAT)
DEFAULT_FORMAT = CODEX_FORMAT.name

_registry: dict[str, CatalogFormatSpec] = {spec.name: spec for spec in BUILTIN_FORMATS}


def catalog_formats() -> tuple[CatalogFormatSpec, ...]:
    """Every registered format, built-in ones first, in registration order."""
    return tuple(_registry.values())


def format_names() -> tuple[str, ...]:
    return tuple(_registry)


def catalog_format(name: str) -> CatalogFormatSpec:
    """The format called ``name``; an unknown name raises a ``UsageError`` naming the closest one."""
    spec = _registry.get(name)
    if spec is None:
        close = difflib.get_close_matches(name, _registry, n=1)
        guess = f'did you mean "{close[0]}"? ' if close else ""
        raise UsageError(
            f"unknown catalog format {name!r}", hint=f"{guess}use one of: {', '.join(_registry)}"
        )
    return spec


def register_format(spec: CatalogFormatSpec) -> None:
    """Offer ``spec`` everywhere a format is chosen; a name already taken raises a ``UsageError``."""
    if spec.name in _registry:
        raise UsageError(
            f"the catalog format {spec.name!r} is already registered",
            hint="pick another name, or unregister_format() the old one first",
        )
    _registry[spec.name] = spec


def unregister_format(name: str) -> None:
    """Take a registered format out again (a built-in one included); unknown names are ignored."""
    _registry.pop(name, None)
