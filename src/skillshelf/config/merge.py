"""Merging layers: tables merge key by key, recursively; any other value from a later layer
replaces the earlier one. ``[requirements]`` is merged by :func:`tighten` instead, so a later
layer can only make it stricter. Every leaf remembers which layer set it (``--explain``).

The merge is associative (``(a+b)+c == a+(b+c)``) as long as each key keeps one kind, table
or value, across layers; the schema makes that so for every known key (a wrong-kind value is
dropped from its layer). An unknown key that one layer writes as a table and another as a
value is simply replaced by the later layer.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from skillshelf.config.layers import ConfigLayer
from skillshelf.config.tomlmap import KeyPath
from skillshelf.diagnostics import Diagnostic, Severity

__all__ = ["Merged", "Provenance", "merge_layers", "merge_requirements", "merge_values"]


@dataclass(frozen=True, slots=True, kw_only=True)
class Provenance:
    """Who set one merged value, and which earlier layers it overrode."""

    layer: str
    file: str | None
    line: int | None
    overridden: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, object]:
        return {
            "layer": self.layer,
            "file": self.file,
            "line": self.line,
            "overridden": list(self.overridden),
        }


@dataclass(frozen=True, slots=True, kw_only=True)
class Merged:
    """The merged values, where each leaf came from, and findings made while merging."""

    values: dict[str, object]
    provenance: dict[str, Provenance] = field(default_factory=dict)
    diagnostics: tuple[Diagnostic, ...] = ()


def merge_values(base: Mapping[str, object], over: Mapping[str, object]) -> dict[str, object]:
    """``over`` on top of ``base``: tables merge recursively, anything else is replaced."""
    out = {key: copy.deepcopy(value) for key, value in base.items()}
    for key, value in over.items():
        current = out.get(key)
        if isinstance(current, dict) and isinstance(value, dict):
            out[key] = merge_values(current, value)
        else:
            out[key] = copy.deepcopy(value)
    return out


def _leaves(values: Mapping[str, object], prefix: KeyPath = ()) -> Iterable[KeyPath]:
    for key, value in values.items():
        if isinstance(value, dict) and value:
            yield from _leaves(value, (*prefix, key))
        else:
            yield (*prefix, key)


def _dotted(path: KeyPath) -> str:
    return ".".join(str(p) for p in path)


def merge_requirements(
    layers: Iterable[tuple[str, Mapping[str, object]]],
) -> tuple[dict[str, object], dict[str, str], list[tuple[str, str, str, str]]]:
    """Combine ``[requirements]`` tables in order.

    Returns the values, the layer that last shaped each key, and the refusals as
    ``(key, layer that tried, what it tried, layer whose value was kept)``.
    """
    values: dict[str, object] = {}
    owner: dict[str, str] = {}
    refused: list[tuple[str, str, str, str]] = []
    for label, table in layers:
        if not table:
            continue
        from skillshelf.config.requirements import REQUIREMENTS, tighten  # only with requirements

        for key, new in table.items():
            kind = REQUIREMENTS.get(key)
            if kind is None:
                if key not in values:
                    values[key], owner[key] = new, label
                elif values[key] != new:
                    refused.append((key, label, f"tried to change it to {new!r}", owner[key]))
                continue
            if key not in values:
                values[key] = _dedupe(new)
                owner[key] = label
                continue
            result = tighten(kind, values[key], new)
            if result.refused:
                refused.append((key, label, result.refused, owner[key]))
            if result.value != values[key]:
                owner[key] = label
            values[key] = result.value
    return values, owner, refused


def _dedupe(value: object) -> object:
    if not isinstance(value, list):
        return value
    out: list[object] = []
    for item in value:
        if item not in out:
            out.append(item)
    return out


def merge_layers(layers: Iterable[ConfigLayer]) -> Merged:
    """Merge the values of the active layers in order, with provenance and requirement checks."""
    values: dict[str, object] = {}
    provenance: dict[str, Provenance] = {}
    requirement_tables: list[tuple[str, Mapping[str, object]]] = []
    active = [layer for layer in layers if layer.active]
    for layer in active:
        plain = {k: v for k, v in layer.values.items() if k != "requirements"}
        requirements = layer.values.get("requirements")
        if isinstance(requirements, dict):
            requirement_tables.append((layer.label, requirements))
        for leaf in _leaves(plain):
            key = _dotted(leaf)
            before = provenance.get(key)
            overridden = (*before.overridden, before.layer) if before else ()
            provenance[key] = Provenance(
                layer=layer.label,
                file=str(layer.path) if layer.path else None,
                line=layer.line_of(leaf),
                overridden=overridden,
            )
        values = merge_values(values, plain)
    req_values, owner, refused = merge_requirements(requirement_tables)
    by_label = {layer.label: layer for layer in active}
    diagnostics = [
        _refusal(key, tried, what, kept, by_label, req_values) for key, tried, what, kept in refused
    ]
    if req_values:
        values["requirements"] = req_values
        for key, label in owner.items():
            layer = by_label[label]
            provenance[f"requirements.{key}"] = Provenance(
                layer=label,
                file=str(layer.path) if layer.path else None,
                line=layer.line_of(("requirements", key)),
            )
    return Merged(values=values, provenance=provenance, diagnostics=tuple(diagnostics))


def _refusal(
    key: str,
    tried: str,
    what: str,
    kept: str,
    layers: Mapping[str, ConfigLayer],
    values: Mapping[str, object],
) -> Diagnostic:
    layer = layers[tried]
    return Diagnostic(
        code="CF106",
        severity=Severity.WARNING,
        message=f"layer {tried} {what} for requirements.{key}; requirements cannot be loosened, "
        f"kept {values.get(key)!r} (set by layer {kept})",
        fix=f"remove requirements.{key} from this file, or change it in layer {kept}",
        path=layer.path,
        line=layer.line_of(("requirements", key)),
        field=f"requirements.{key}",
    )
