"""`disable` / `enable` / `trust` / `untrust` change one entry and the parsed value of nothing else.

tomlkit alone inserted a ``[[skills.config]]`` or ``[projects."..."]`` header above later dotted
keys (``memory.enabled = false``), which then belonged to the new table: memory or built-in
skills silently switched back on. Other valid files were refused or crashed the edit. The
property test parses every generated valid document before and after each edit.
"""

from __future__ import annotations

import copy
import math
import tomllib
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from skillshelf.config import SkillMode
from skillshelf.config.edit import set_skill_mode, set_trust
from skillshelf.errors import ConfigError

PROJECT = "/srv/p"

# (file text, edit) pairs that changed another key, refused valid TOML or crashed the edit.
CASES: dict[str, tuple[str, tuple[str, str]]] = {
    "disable-before-dotted-memory": ("skills.builtin = false\nmemory.enabled = false\n", ("disable", "x")),
    "trust-before-dotted-skills": (
        'projects."/srv/a".trust_level = "trusted"\nskills.builtin = false\n',
        ("trust", PROJECT),
    ),
    "trust-dotted-projects": (
        'projects.projects.top_k = 60\nrequirements = ""\nroots = ""\n',
        ("trust", PROJECT),
    ),
    "trust-beside-table": ('[projects.x]\ntrust_level = "trusted"\n', ("trust", PROJECT)),
    "disable-dotted-then-blank-lines": (
        'skills.enabled = {}\n\n\nselect.instructions.config = ""\n',
        ("disable", "x"),
    ),
    "disable-dotted-then-root-key": ('skills.memory.skills = ""\ndb = 687\n', ("disable", "x")),
    "disable-empty-aot": ("[[skills.config]]\n", ("disable", "x")),
    "disable-dotted-three": ('skills.serve = 1\nmode.instructions = ""\nroots = ""\n', ("disable", "x")),
    "trust-inline-projects": ("projects = {}\n", ("trust", PROJECT)),
    "disable-inline-skills": ("skills = {a = 1}\n", ("disable", "x")),
    "disable-out-of-order-tables": (
        "[skills.bundled]\nenabled = true\n\n[skills]\nbuiltin = true\n",
        ("disable", "x"),
    ),
}


def _edit(path: Path, action: str, target: str) -> None:
    if action in ("disable", "enable"):
        set_skill_mode(path, target, SkillMode.DISABLED if action == "disable" else SkillMode.ENABLED)
    else:
        set_trust(path, Path(target), action == "trust")


def _normal(value: Any) -> Any:
    if isinstance(value, float) and math.isnan(value):
        return "NaN"
    if isinstance(value, dict):
        return {k: _normal(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_normal(v) for v in value]
    return value


def _expected(before: dict[str, Any], action: str, target: str) -> list[dict[str, Any]]:
    """The data the edit may leave: ``before`` with the one entry changed and nothing else.

    A mode may be set on the last matching ``[[skills.config]]`` entry or by a new last entry
    (the last match is the one that applies); trust is set on the project's table.
    """
    after = copy.deepcopy(before)
    if action in ("trust", "untrust"):
        level = "trusted" if action == "trust" else "untrusted"
        after.setdefault("projects", {}).setdefault(target, {})["trust_level"] = level
        return [after]
    mode = "disabled" if action == "disable" else "enabled"
    key = "path" if "/" in target else "name"
    appended = copy.deepcopy(before)
    appended.setdefault("skills", {}).setdefault("config", []).append({key: target, "mode": mode})
    entries = after.setdefault("skills", {}).setdefault("config", [])
    mine = [e for e in entries if isinstance(e, dict) and e.get(key) == target]
    if not mine:
        return [appended]
    if "mode" not in mine[-1] and "enabled" in mine[-1]:
        mine[-1]["enabled"] = mode == "enabled"
    else:
        mine[-1].pop("enabled", None)
        mine[-1]["mode"] = mode
    return [after, appended]


def _wrong_type(before: dict[str, Any], action: str, target: str) -> bool:
    """True when the table the edit needs has another type (a CF111 refusal is right)."""
    if action in ("trust", "untrust"):
        projects = before.get("projects", {})
        return not isinstance(projects, dict) or not isinstance(projects.get(target, {}), dict)
    skills = before.get("skills", {})
    return not isinstance(skills, dict) or not isinstance(skills.get("config", []), list)


def _check_edit(path: Path, text: str, action: str, target: str) -> None:
    path.write_bytes(text.encode("utf-8"))
    before = tomllib.loads(text)
    try:
        _edit(path, action, target)
    except ConfigError as exc:
        assert exc.code == "CF111" and _wrong_type(before, action, target), (exc.code, exc.message, text)
        assert path.read_bytes() == text.encode("utf-8")
        return
    written = path.read_bytes().decode("utf-8")
    assert _normal(tomllib.loads(written)) in [_normal(e) for e in _expected(before, action, target)], written


@pytest.mark.parametrize("name", list(CASES))
def test_an_edit_changes_exactly_one_entry(tmp_path: Path, name: str) -> None:
    text, (action, target) = CASES[name]
    _check_edit(tmp_path / "config.toml", text, action, target)


def test_disable_after_dotted_keys_keeps_memory_off(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text("skills.builtin = false\nmemory.enabled = false\n", encoding="utf-8")
    set_skill_mode(path, "some-skill", SkillMode.DISABLED)
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    assert data["memory"] == {"enabled": False} and data["skills"]["builtin"] is False


# -- generated documents -----------------------------------------------------------------------

_BARE = st.sampled_from(["skills", "config", "projects", "memory", "enabled", "mode", "name", "builtin", "a"])
_QUOTED = st.sampled_from(['"/srv/a"', f'"{PROJECT}"', '"x y"', "'lit'", '"trust_level"'])
_KEY_PART = st.one_of(_BARE, _BARE, _QUOTED)
_DOT = st.sampled_from([".", " . ", ".\t"])
_SPACE = st.sampled_from(["", " ", "  ", "\t", " \t "])


@st.composite
def _key(draw: st.DrawFn, max_parts: int = 3) -> str:
    parts = draw(st.lists(_KEY_PART, min_size=1, max_size=max_parts))
    return "".join(p if i == 0 else draw(_DOT) + p for i, p in enumerate(parts))


_SCALAR = st.one_of(
    st.integers(-5, 10**6).map(str),
    st.sampled_from(["true", "false", "nan", "inf", "-0.5", "1979-05-27", "0x1F", "1_000"]),
    st.sampled_from(['"x"', '"some-skill"', '"disabled"', '"trusted"', "'raw \\n'", '"tab\\there"', '""']),
    st.sampled_from(['"""multi\nline"""', "'''lit\n# not a comment'''"]),
)


def _inline(children: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    pairs = st.lists(st.tuples(_key(2), children), max_size=3)
    return pairs.map(lambda kv: "{" + ", ".join(f"{k} = {v}" for k, v in kv) + "}")


_VALUE = st.recursive(
    _SCALAR,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3).map(lambda xs: "[" + ", ".join(xs) + "]"),
        st.lists(inner, max_size=3).map(lambda xs: "[\n  " + ",\n  ".join(xs) + ",\n]"),
        _inline(inner),
    ),
    max_leaves=6,
)


@st.composite
def _statement(draw: st.DrawFn) -> str:
    kind = draw(st.sampled_from(["kv", "kv", "kv", "table", "aot", "comment", "blank", "entry", "project"]))
    pad, after = draw(_SPACE), draw(st.sampled_from(["", "  # note", "\t#", " "]))
    if kind == "kv":
        return f"{pad}{draw(_key())}{draw(_SPACE)}={draw(_SPACE)}{draw(_VALUE)}{after}\n"
    if kind == "table":
        return f"{pad}[{draw(_SPACE)}{draw(_key())}{draw(_SPACE)}]{after}\n"
    if kind == "aot":
        return f"{pad}[[{draw(_key())}]]{after}\n"
    if kind == "comment":
        return f"{pad}# [[skills.config]] {draw(_key())} = 1\n"
    if kind == "blank":
        return draw(st.sampled_from(["\n", "\n\n", " \t\n"]))
    if kind == "entry":
        name = draw(st.sampled_from(["x", "some-skill", "alpha"]))
        setting = draw(st.sampled_from(['mode = "manual"', "enabled = true", "enabled = false", ""]))
        shape = draw(st.sampled_from(["aot", "inline"]))
        if shape == "aot":
            return f'[[skills.config]]\nname = "{name}"\n{setting}\n'
        return f'skills.config = [{{name = "{name}"{", " + setting if setting else ""}}}]\n'
    level = draw(st.sampled_from(["trusted", "untrusted"]))
    return draw(
        st.sampled_from(
            [
                f'[projects."{PROJECT}"]\ntrust_level = "{level}"\n',
                f'projects."{PROJECT}".trust_level = "{level}"\n',
                f'[projects]\n"/srv/a" = {{trust_level = "{level}"}}\n',
            ]
        )
    )


@st.composite
def _document(draw: st.DrawFn) -> str:
    """A valid TOML document: each drawn statement is kept only if the text still parses."""
    text = ""
    for statement in draw(st.lists(_statement(), min_size=1, max_size=12)):
        try:
            tomllib.loads(text + statement)
        except tomllib.TOMLDecodeError:
            continue
        text += statement
    if draw(st.booleans()):
        text = text.rstrip("\n")  # no newline at the end of the file
    return text


_EDIT = st.tuples(
    st.sampled_from(["disable", "enable", "trust", "untrust"]),
    st.sampled_from(["x", "some-skill", "alpha", "/srv/a/SKILL.md", PROJECT, "/srv/a"]),
).filter(lambda e: e[0] in ("disable", "enable") or e[1].startswith("/"))


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=_document(), edit=_EDIT, crlf=st.booleans())
def test_every_edit_of_a_generated_valid_file_keeps_every_other_key(
    tmp_path_factory: pytest.TempPathFactory, text: str, edit: tuple[str, str], crlf: bool
) -> None:
    if crlf:
        text = text.replace("\n", "\r\n")
        try:
            tomllib.loads(text)
        except tomllib.TOMLDecodeError:  # a CR inside a multi-line literal string
            return
    path = tmp_path_factory.mktemp("edit") / "config.toml"
    _check_edit(path, text, *edit)
    once = path.read_bytes()
    if b"\r" not in once:  # the same edit again changes nothing
        _check_edit(path, once.decode("utf-8"), *edit)
        assert path.read_bytes() == once
