"""Merging layers: tables merge key by key, recursively; any other value from a later layer
replaces the earlier one. ``[requirements]`` is merged by ``requirements.tighten`` instead, so a
later layer can only make it stricter, and by ``requirements.separate``, so a skill that the first
layer naming it requires (or disables) cannot be disabled (or required) by a later one. Every leaf
remembers which layer set it (``--explain``).

The merge is associative (``(a+b)+c == a+(b+c)``) as long as each key keeps one kind, table
or value, across layers; the schema makes that so for every known key (a wrong-kind value is
dropped from its layer). An unknown key that one layer writes as a table and another as a
value is simply replaced by the later layer.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import NamedTuple

from skillshelf.config.layers import ConfigLayer
from skillshelf.config.tomlmap import KeyPath, dotted_key
from skillshelf.diagnostics import Diagnostic, Severity

__all__ = ["Merged", "Provenance", "Refusal", "merge_layers", "merge_requirements", "merge_values"]


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
    out = {key: _copied(value) for key, value in base.items()}
    for key, value in over.items():
        current = out.get(key)
        if isinstance(current, dict) and isinstance(value, dict):
            out[key] = merge_values(current, value)
        else:
            out[key] = _copied(value)
    return out


def _copied(value: object) -> object:
    """A copy of a TOML value's tables and arrays (its other values cannot change): what
    ``copy.deepcopy`` gives, several times faster (a layer's depth is bounded as it loads)."""
    if isinstance(value, dict):
        return {key: _copied(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_copied(item) for item in value]
    return value


def _leaves(values: Mapping[str, object]) -> Iterator[KeyPath]:
    """The path of every value that is not a table (an empty table is one), depth first, in the
    order the keys were written; walked with a stack, not recursion."""
    stack: list[tuple[KeyPath, Iterator[tuple[str, object]]]] = [((), iter(values.items()))]
    while stack:
        prefix, items = stack[-1]
        for key, value in items:
            if isinstance(value, dict) and value:
                stack.append(((*prefix, key), iter(value.items())))
                break
            yield (*prefix, key)
        else:
            stack.pop()


def _dotted(path: KeyPath) -> str:
    """The key of a leaf's provenance: its parts joined as TOML writes a dotted key (a part with
    a dot or a slash quoted: ``projects."/src/my.app".trust_level``), so it splits back."""
    return dotted_key(path)


class Refusal(NamedTuple):
    """A later layer's attempt to loosen ``requirements.key``, refused.

    ``what`` says what ``tried`` (a layer label) attempted; ``kept`` is the layer whose value
    stayed and ``before`` the value it had set when ``tried`` was refused (a later layer may
    still tighten it). ``kept_key`` is set when the value that stayed is in another key: ``name``
    listed in ``requirements.kept_key`` (see :data:`~skillshelf.config.requirements.EXCLUSIVE`).
    """

    key: str
    tried: str
    what: str
    kept: str
    kept_key: str | None = None
    name: object = None
    before: object = None


def merge_requirements(
    layers: Iterable[tuple[str, Mapping[str, object]]],
) -> tuple[dict[str, object], dict[str, str], list[Refusal]]:
    """Combine ``[requirements]`` tables in order.

    Returns the values, the layer that last shaped each key, and the refusals.
    """
    values: dict[str, object] = {}
    owner: dict[str, str] = {}
    first_listed: dict[tuple[str, object], str] = {}  # (exclusive key, name) -> layer that added it
    refused: list[Refusal] = []
    for label, table in layers:
        if not table:
            continue
        from skillshelf.config.requirements import EXCLUSIVE, REQUIREMENTS, separate, tighten

        table, clashes = separate(table, values)
        for clash in clashes:
            kept = first_listed.get((clash.kept_key, clash.name), label)
            what = f"tried to add {clash.name!r}"
            refused.append(Refusal(clash.key, label, what, kept, clash.kept_key, clash.name))
        for key, new in table.items():
            kind = REQUIREMENTS.get(key)
            if kind is None:
                if key not in values:
                    values[key], owner[key] = new, label
                elif values[key] != new:
                    what = f"tried to change it to {new!r}"
                    refused.append(Refusal(key, label, what, owner[key], before=values[key]))
                continue
            if key not in values:
                values[key] = _dedupe(new)
                owner[key] = label
            else:
                result = tighten(kind, values[key], new)
                if result.refused:
                    refused.append(Refusal(key, label, result.refused, owner[key], before=values[key]))
                if result.value != values[key]:
                    owner[key] = label
                values[key] = result.value
            listed = values[key]
            if key in EXCLUSIVE and isinstance(listed, list):
                for name in listed:
                    first_listed.setdefault((key, name), label)
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
        label, file = layer.label, str(layer.path) if layer.path else None
        if isinstance(requirements, dict):
            requirement_tables.append((label, requirements))
        for leaf in _leaves(plain):
            key = _dotted(leaf)
            before = provenance.get(key)
            overridden = (*before.overridden, before.layer) if before else ()
            provenance[key] = Provenance(
                layer=label, file=file, line=layer.line_of(leaf), overridden=overridden
            )
        values = merge_values(values, plain)
    req_values, owner, refused = merge_requirements(requirement_tables)
    by_label = {layer.label: layer for layer in active}
    diagnostics = [_refusal(refusal, by_label) for refusal in refused]
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


def _refusal(refusal: Refusal, layers: Mapping[str, ConfigLayer]) -> Diagnostic:
    key, tried, kept = refusal.key, refusal.tried, refusal.kept
    layer = layers[tried]
    where: KeyPath = ("requirements", key)
    here = "this file" if layer.path is not None else "the -c overrides"
    if refusal.kept_key is None:
        import json  # only for a refusal: the kept value in TOML's spelling (false, ["a"])

        message = (
            f"layer {tried} {refusal.what} for requirements.{key}; requirements cannot be loosened: "
            f"layer {kept} set {json.dumps(refusal.before, ensure_ascii=False)}"
        )
        fix = f"remove requirements.{key} from {here}, or change it in layer {kept}"
    else:
        listed = _listed(layer, key)
        where = (*where, listed.index(refusal.name)) if refusal.name in listed else where
        message = (
            f"layer {tried} {refusal.what} to requirements.{key}, but layer {kept} lists it in "
            f"requirements.{refusal.kept_key}; requirements cannot be loosened, kept it there"
        )
        fix = (
            f"remove {refusal.name!r} from requirements.{key} in {here}, or from "
            f"requirements.{refusal.kept_key} in layer {kept}"
        )
    return Diagnostic(
        code="CF106",
        severity=Severity.WARNING,
        message=message,
        fix=fix,
        path=layer.path,
        line=layer.line_of(where),
        field=f"requirements.{key}",
    )


def _listed(layer: ConfigLayer, key: str) -> list[object]:
    requirements = layer.values.get("requirements")
    value = requirements.get(key) if isinstance(requirements, dict) else None
    return value if isinstance(value, list) else []
