"""Property tests: requirements never loosen, merging is associative, untrusted values stay out."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

import tomlkit
from hypothesis import given, settings
from hypothesis import strategies as st

from skillshelf.config import load_config
from skillshelf.config.merge import merge_requirements, merge_values
from skillshelf.config.requirements import EXCLUSIVE, REQUIREMENTS, RequirementKind
from skillshelf.env import Env

NAMES = st.sampled_from(["a", "b", "c", "d", "e"])
VALUE_FOR_KIND = {
    RequirementKind.SET_UNION: st.lists(NAMES, max_size=4),
    RequirementKind.ALLOW_LIST: st.lists(NAMES, max_size=4),
    RequirementKind.FLAG_OFF: st.booleans(),
    RequirementKind.UPPER_BOUND: st.integers(min_value=1, max_value=10_000),  # the schema refuses 0
}
REQUIREMENT_TABLE = st.fixed_dictionaries(
    {}, optional={key: VALUE_FOR_KIND[kind] for key, kind in REQUIREMENTS.items()}
)


def _at_least_as_strict(kind: RequirementKind, new: Any, old: Any) -> bool:
    if kind is RequirementKind.SET_UNION:
        return set(new) >= set(old)
    if kind is RequirementKind.ALLOW_LIST:
        return set(new) <= set(old)
    if kind is RequirementKind.FLAG_OFF:
        return new <= old
    return bool(new <= old)


def _first_listing_decides(tables: list[dict[str, Any]]) -> dict[str, set[str]]:
    """What required_skills / disabled_skills must hold: each name where the first layer that
    lists it puts it (disabled when that layer lists it in both)."""
    decided: dict[str, str] = {}
    for table in tables:
        for key in ("disabled_skills", "required_skills"):
            for name in table.get(key, []):
                decided.setdefault(name, key)
    return {key: {n for n, k in decided.items() if k == key} for key in EXCLUSIVE}


def _merge(tables: list[dict[str, Any]]) -> dict[str, Any]:
    values, _, _ = merge_requirements((f"layer{i}", table) for i, table in enumerate(tables))
    return values


@settings(max_examples=300, deadline=None)
@given(st.lists(REQUIREMENT_TABLE, min_size=1, max_size=6))
def test_no_later_layer_can_loosen_a_requirement(tables: list[dict[str, Any]]) -> None:
    previous: dict[str, Any] = {}
    for count in range(1, len(tables) + 1):
        current = _merge(tables[:count])
        for key, old in previous.items():
            assert _at_least_as_strict(REQUIREMENTS[key], current[key], old), (key, old, current[key])
        previous = current
    decided = _first_listing_decides(tables)
    assert {key: set(previous.get(key, [])) for key in EXCLUSIVE} == decided


@settings(max_examples=300, deadline=None)
@given(st.lists(REQUIREMENT_TABLE, min_size=2, max_size=6))
def test_loosening_attempts_are_reported_with_the_kept_layer(tables: list[dict[str, Any]]) -> None:
    _, _, refused = merge_requirements((f"layer{i}", t) for i, t in enumerate(tables))
    for refusal in refused:
        tried, kept = int(refusal.tried.removeprefix("layer")), int(refusal.kept.removeprefix("layer"))
        assert tried > kept or (tried == kept and refusal.kept_key == "disabled_skills"), refusal
        assert refusal.key in tables[tried]
        if refusal.kept_key is not None:
            assert refusal.name in tables[kept][refusal.kept_key], "the kept layer is the one listing it"


@settings(max_examples=300, deadline=None)
@given(REQUIREMENT_TABLE, REQUIREMENT_TABLE, REQUIREMENT_TABLE)
def test_requirement_merge_is_associative(a: dict[str, Any], b: dict[str, Any], c: dict[str, Any]) -> None:
    assert _merge([_merge([a, b]), c]) == _merge([a, _merge([b, c])])


LEAF = st.one_of(st.integers(), st.text(max_size=5), st.booleans(), st.lists(st.integers(), max_size=3))
# Keys keep one kind across layers, as the schema makes them: x/y/z hold values, t/u tables.
TREE = st.recursive(
    st.dictionaries(st.sampled_from(["x", "y", "z"]), LEAF, max_size=3),
    lambda children: st.builds(
        lambda leaves, tables: {**leaves, **tables},
        st.dictionaries(st.sampled_from(["x", "y", "z"]), LEAF, max_size=3),
        st.dictionaries(st.sampled_from(["t", "u"]), children, max_size=2),
    ),
    max_leaves=12,
)


@settings(max_examples=300, deadline=None)
@given(TREE, TREE, TREE)
def test_value_merge_is_associative_per_key(a: dict[str, Any], b: dict[str, Any], c: dict[str, Any]) -> None:
    assert merge_values(merge_values(a, b), c) == merge_values(a, merge_values(b, c))


SECRET_TABLE = st.dictionaries(
    st.sampled_from(["catalog", "skills", "select", "install", "requirements", "model", "zzz"]),
    st.dictionaries(
        st.sampled_from(
            [
                "format",
                "budget_tokens",
                "builtin",
                "roots",
                "selector",
                "dir",
                "name",
                "required_skills",
                "disabled_skills",
                "allow_project_config",
                "other",
            ]
        ),
        st.sampled_from(["SECRET", ["SECRET"], 987_654_321, False]),
        min_size=1,
        max_size=4,
    ),
    min_size=1,
    max_size=4,
)


@settings(max_examples=60, deadline=None)
@given(SECRET_TABLE, st.booleans())
def test_untrusted_project_values_never_reach_the_merged_result(
    table: dict[str, Any], with_rule: bool
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        repo = base / "repo"
        (repo / ".git").mkdir(parents=True)
        (repo / "sub" / ".skillshelf").mkdir(parents=True)
        (repo / ".skillshelf").mkdir()
        doc = tomlkit.document()
        doc.update(table)
        text = tomlkit.dumps(doc)
        if with_rule:
            text += '\n[[skills.config]]\nname = "SECRET"\nmode = "disabled"\n'
        for folder in (repo, repo / "sub"):
            (folder / ".skillshelf" / "config.toml").write_text(text, encoding="utf-8")
        user = base / "user"
        user.mkdir()
        (user / "config.toml").write_text(
            f'[projects."{base}"]\ntrust_level = "untrusted"\n', encoding="utf-8"
        )
        env = Env.for_test(cwd=repo / "sub", home=base / "home")
        config = load_config(env, user_dir=user, system_dir=base / "sys")
        merged = json.dumps(
            [config.values, [r.to_dict() for r in config.skill_rules], config.requirements], default=str
        )
        assert "SECRET" not in merged and "987654321" not in merged
        assert config.include_builtin and not config.trusted
        assert all(not layer.enabled for layer in config.layers if layer.kind.label == "project")


@settings(max_examples=30, deadline=None)
@given(st.lists(REQUIREMENT_TABLE, min_size=4, max_size=4))
def test_every_layer_on_disk_is_respected_by_the_final_requirements(tables: list[dict[str, Any]]) -> None:
    system, user, project, runtime = tables
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        repo = base / "repo"
        (repo / ".git").mkdir(parents=True)

        def write(path: Path, table: dict[str, Any], extra: str = "") -> None:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(tomlkit.dumps({"requirements": table}) + extra, encoding="utf-8")

        write(base / "sys" / "config.toml", system)
        write(base / "user" / "config.toml", user, f'\n[projects."{repo}"]\ntrust_level = "trusted"\n')
        write(repo / ".skillshelf" / "config.toml", project)
        overrides = [f"requirements.{k}={tomlkit.item(v).as_string()}" for k, v in runtime.items()]
        env = Env.for_test(cwd=repo, home=base / "home")
        config = load_config(env, overrides=overrides, user_dir=base / "user", system_dir=base / "sys")
        assert config.trusted
        project_off = any(t.get("allow_project_config") is False for t in (system, user, runtime))
        own = {k: v for k, v in project.items() if k != "allow_project_config"}  # not a project's (CF120)
        in_effect = [system, user, runtime] if project_off else [system, user, own, runtime]
        decided = _first_listing_decides(in_effect)
        assert {key: set(config.requirements.get(key, [])) for key in EXCLUSIVE} == decided
        for table in in_effect:
            for key, value in table.items():
                if key in EXCLUSIVE:
                    continue
                kind = REQUIREMENTS[key]
                assert _at_least_as_strict(kind, config.requirements[key], value), (
                    key,
                    value,
                    config.requirements,
                )
