"""docs/config.md, the config reference: it lists every key the schema knows (and no other), each
key has its text, and the file is what scripts/config_reference.py writes from the schema."""

from __future__ import annotations

import dataclasses
import importlib.util
import re
from pathlib import Path
from types import ModuleType

from skillshelf.config.schema import SCHEMA, Spec
from skillshelf.memory.settings import MemorySettings

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "config.md"
_ROW = re.compile(r"^\| `([^`]+)` \|", re.MULTILINE)


def _generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "config_reference", ROOT / "scripts" / "config_reference.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _schema_keys(spec: Spec, path: str = "") -> set[str]:
    """Every key of the schema as the reference names it (free keys as ``*``; tables whose keys are
    listed stand for themselves only when open)."""
    keys: set[str] = set()
    for key, child in spec.children.items():
        dotted = f"{path}.{key}".lstrip(".")
        if child.kind != "table":
            keys.add(dotted)
        keys |= _schema_keys(child, dotted)
    if spec.each is not None:
        keys |= _schema_keys(spec.each, f"{path}.*")
    return keys


def _expected_keys() -> set[str]:
    return _schema_keys(SCHEMA) | {f"memory.{item.name}" for item in dataclasses.fields(MemorySettings)}


def test_the_reference_lists_every_schema_key_and_no_other() -> None:
    listed = _ROW.findall(DOC.read_text(encoding="utf-8"))
    assert len(listed) == len(set(listed)), "a key is listed twice"
    expected = _expected_keys()
    assert not expected - set(listed), f"keys missing from docs/config.md: {sorted(expected - set(listed))}"
    assert not set(listed) - expected, (
        f"keys docs/config.md lists but the schema lacks: {sorted(set(listed) - expected)}"
    )


def test_every_schema_key_has_its_text_and_readers() -> None:
    def undocumented(spec: Spec, path: str = "") -> list[str]:
        out = []
        for key, child in {**spec.children, **({"*": spec.each} if spec.each else {})}.items():
            dotted = f"{path}.{key}".lstrip(".")
            if child.kind != "table" and not (child.help and child.read_by):
                out.append(dotted)
            out += undocumented(child, dotted)
        return out

    assert undocumented(SCHEMA) == []
    assert set(_generator().MEMORY_HELP) == {item.name for item in dataclasses.fields(MemorySettings)}


def test_the_reference_is_what_the_generator_writes_from_the_schema() -> None:
    assert DOC.read_text(encoding="utf-8") == _generator().render(), "run scripts/config_reference.py"
