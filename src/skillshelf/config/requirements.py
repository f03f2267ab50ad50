"""``[requirements]``: limits that a later configuration layer can tighten but never loosen.

Every requirement key has a kind that says what "looser" means for it:

====================================  ============  =============================================
key                                   kind          a later layer may...
====================================  ============  =============================================
``required_skills = [names]``         set-union     add names; names already required stay
``disabled_skills = [names]``         set-union     add names; names already disabled stay
``allow_builtin_skills = bool``       flag-off      turn it off; once false it stays false
``allow_project_config = bool``       flag-off      turn it off; once false it stays false
``max_catalog_tokens = int``          upper-bound   lower it; raising it is refused
``allowed_install_sources = [globs]`` allow-list    drop patterns; adding a pattern is refused
====================================  ============  =============================================

``required_skills`` and ``disabled_skills`` exclude each other: the first layer that lists a name
in either key decides what happens to that skill, and a later layer that lists it in the other
key is refused (a later layer cannot disable a required skill, nor require a disabled one). A
layer that lists a name in both keys itself keeps it disabled. Both lists also overrule every
``[[skills.config]]`` entry, by ``name`` or by ``path``, that gives such a skill another mode (a
disabling entry on a required skill, any other mode on a disabled one), each with a ``CF106``
warning: entries by name as the config loads, entries by path once the skills they select are
found (:attr:`~skillshelf.config.modes.ModedSkills.diagnostics`).

A layer that tries to loosen a value gets a ``CF106`` warning naming the layer that set the
value that was kept. Each combination (ordered union, AND, min, ordered intersection, first
listing of a name) is associative, so the result does not depend on how layers are grouped.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum

__all__ = ["EXCLUSIVE", "REQUIREMENTS", "Clash", "RequirementKind", "Tightened", "separate", "tighten"]


class RequirementKind(StrEnum):
    """How values of one requirement key combine across layers."""

    SET_UNION = "set-union"
    ALLOW_LIST = "allow-list"
    FLAG_OFF = "flag-off"
    UPPER_BOUND = "upper-bound"


REQUIREMENTS: Mapping[str, RequirementKind] = {
    "required_skills": RequirementKind.SET_UNION,
    "disabled_skills": RequirementKind.SET_UNION,
    "allow_builtin_skills": RequirementKind.FLAG_OFF,
    "allow_project_config": RequirementKind.FLAG_OFF,
    "max_catalog_tokens": RequirementKind.UPPER_BOUND,
    "allowed_install_sources": RequirementKind.ALLOW_LIST,
}


EXCLUSIVE: Mapping[str, str] = {"required_skills": "disabled_skills", "disabled_skills": "required_skills"}


@dataclass(frozen=True, slots=True, kw_only=True)
class Clash:
    """A name refused from ``key`` because ``kept_key`` already lists it."""

    key: str
    name: object
    kept_key: str


@dataclass(frozen=True, slots=True, kw_only=True)
class Tightened:
    """The combined value and, when the newer value was looser, what it tried to do."""

    value: object
    refused: str | None = None


def tighten(kind: RequirementKind, kept: object, new: object) -> Tightened:
    """Combine an earlier value ``kept`` with a later ``new`` one, never loosening."""
    if kind is RequirementKind.SET_UNION:
        old = list(kept) if isinstance(kept, list) else []
        return Tightened(value=old + [x for x in _items(new) if x not in old])
    if kind is RequirementKind.ALLOW_LIST:
        old = list(kept) if isinstance(kept, list) else []
        incoming = _items(new)
        extra = [x for x in incoming if x not in old]
        shown = (json.dumps(x, ensure_ascii=False) for x in extra)  # as TOML writes them: "b"
        refused = f"tried to allow {', '.join(shown)}" if extra else None
        return Tightened(value=[x for x in old if x in incoming], refused=refused)
    if kind is RequirementKind.FLAG_OFF:
        refused = "tried to turn it back on" if kept is False and new is True else None
        return Tightened(value=bool(kept) and bool(new), refused=refused)
    assert isinstance(kept, int) and isinstance(new, int)
    refused = f"tried to raise it to {new}" if new > kept else None
    return Tightened(value=min(kept, new), refused=refused)


def _items(value: object) -> list[object]:
    seen: list[object] = []
    for item in value if isinstance(value, list) else []:
        if item not in seen:
            seen.append(item)
    return seen


def separate(
    table: Mapping[str, object], kept: Mapping[str, object]
) -> tuple[dict[str, object], tuple[Clash, ...]]:
    """``table`` (one layer's ``[requirements]``) without the names that conflict across the
    :data:`EXCLUSIVE` keys: a name ``kept`` (the earlier layers' values) lists in the other key
    stays there, and a name ``table`` itself lists in both keys stays disabled."""
    out = dict(table)
    clashes: list[Clash] = []
    for key, other in EXCLUSIVE.items():
        earlier = _items(kept.get(other))
        if isinstance(out.get(key), list) and earlier:
            clashes += [Clash(key=key, name=x, kept_key=other) for x in _items(out[key]) if x in earlier]
            out[key] = [x for x in _items(out[key]) if x not in earlier]
    disabled = _items(out.get("disabled_skills"))
    if isinstance(out.get("required_skills"), list) and disabled:
        listed = _items(out["required_skills"])
        clashes += [
            Clash(key="required_skills", name=x, kept_key="disabled_skills") for x in listed if x in disabled
        ]
        out["required_skills"] = [x for x in listed if x not in disabled]
    return out, tuple(clashes)
