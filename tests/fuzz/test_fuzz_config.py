"""Fuzzing TOML config layers and config edits.

Documents are built line by line from the shapes real config files have (tables, arrays of
tables, dotted keys, inline tables, odd value types where skillshelf expects others, comments,
CRLF) plus random text. Reading them as the user and the project layer never raises; every
problem is a diagnostic with a code. An edit (``disable``, ``trust``) either refuses with a
``ConfigError`` and leaves the file alone, or writes a file that parses, holds the new setting
and gives every other key the value it had.
"""

from __future__ import annotations

import tempfile
import tomllib
from pathlib import Path
from typing import Any

import pytest
from fuzzkit import fuzz
from hypothesis import assume, given
from hypothesis import strategies as st

from skillshelf.config.edit import set_skill_mode, set_trust
from skillshelf.config.loader import load_config
from skillshelf.config.modes import SkillMode
from skillshelf.env import Env
from skillshelf.errors import SkillshelfError

NAMES = st.sampled_from(
    [
        "skills",
        "config",
        "memory",
        "enabled",
        "builtin",
        "bundled",
        "projects",
        "mcp_servers",
        "name",
        "mode",
        "x",
    ]
)
VALUES = st.one_of(
    st.sampled_from(
        [
            '"on"',
            "true",
            "false",
            "5",
            "-1",
            "1.5",
            "inf",
            "[]",
            '["a", 1]',
            "{}",
            '{ name = "s", mode = "disabled" }',
            '"disabled"',
            '"/tmp"',
        ]
    ),
    st.text(st.characters(blacklist_categories=("Cs", "Cc")), max_size=12).map(
        lambda v: '"' + v.replace("\\", "/").replace('"', "'") + '"'
    ),
)
KEY = st.one_of(NAMES, st.lists(NAMES, min_size=2, max_size=3).map(".".join))
LINE = st.one_of(
    st.tuples(KEY, VALUES).map(lambda kv: f"{kv[0]} = {kv[1]}"),
    st.lists(NAMES, min_size=1, max_size=2).map(lambda ns: "[" + ".".join(ns) + "]"),
    st.lists(NAMES, min_size=1, max_size=2).map(lambda ns: "[[" + ".".join(ns) + "]]"),
    st.sampled_from(
        ['[projects."/tmp/p"]', 'trust_level = "trusted"', "[[skills.config]]", 'name = "s"', "# comment", ""]
    ),
)
DOCUMENT = st.lists(LINE, max_size=14).map("\n".join)
ANY_TEXT = st.one_of(DOCUMENT, st.text(max_size=200))


def _parses(text: str) -> dict[str, Any] | None:
    try:
        return tomllib.loads(text)
    except (tomllib.TOMLDecodeError, RecursionError):
        return None


@fuzz(weight=0.5)
@given(ANY_TEXT, ANY_TEXT, st.booleans())
def test_config_layers_never_raise(user: str, project: str, crlf: bool) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        home, work = root / "home", root / "home" / "work" / "p"
        (work / ".git").mkdir(parents=True)
        (work / ".skillshelf").mkdir()
        (root / "user").mkdir()
        newline = "\r\n" if crlf else "\n"
        (root / "user" / "config.toml").write_text(
            user.replace("\n", newline), encoding="utf-8", errors="replace"
        )
        (work / ".skillshelf" / "config.toml").write_text(project, encoding="utf-8", errors="replace")
        env = Env.for_test(cwd=work, home=home)
        config = load_config(env, user_dir=root / "user", system_dir=root / "system")
        assert all(d.code for d in config.diagnostics)
        assert isinstance(config.include_builtin, bool) and isinstance(config.builtin_enabled, bool)
        config.get("memory.enabled")


def _without(data: dict[str, Any], edit: str, folder: str) -> dict[str, Any]:
    """The parsed file minus what the edit may change."""
    data = dict(data)
    if edit == "trust" and isinstance(data.get("projects"), dict):
        data["projects"] = {k: v for k, v in data["projects"].items() if k != folder}
        if not data["projects"]:
            del data["projects"]
    if edit == "disable" and isinstance(data.get("skills"), dict):
        skills = dict(data["skills"])
        if isinstance(skills.get("config"), list):
            skills["config"] = [
                e for e in skills["config"] if not (isinstance(e, dict) and e.get("name") == "s")
            ]
            if not skills["config"]:
                del skills["config"]
        data["skills"] = skills
        if not skills:
            del data["skills"]
    return data


@fuzz(weight=0.5)
@given(DOCUMENT, st.sampled_from(["disable", "trust"]))
def test_an_edit_changes_its_setting_and_nothing_else(text: str, edit: str) -> None:
    before = _parses(text)
    assume(before is not None)
    assert before is not None
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "config.toml"
        path.write_text(text, encoding="utf-8")
        folder = str(Path(tmp) / "proj")
        try:
            if edit == "disable":
                set_skill_mode(path, "s", SkillMode.DISABLED)
            else:
                set_trust(path, Path(folder), True)
        except SkillshelfError as exc:
            assert exc.code.startswith("CF") and path.read_text(encoding="utf-8") == text
            return
        after = _parses(path.read_text(encoding="utf-8"))
    assert after is not None
    if edit == "trust":
        assert after["projects"][folder]["trust_level"] == "trusted"
    else:
        entries = [e for e in after["skills"]["config"] if isinstance(e, dict) and e.get("name") == "s"]
        assert (
            entries
            and entries[-1].get("mode", "disabled" if entries[-1].get("enabled") is False else "")
            == "disabled"
        )
    assert _without(after, edit, folder) == _without(before, edit, folder)


# Shapes the fuzz found breaking an edit: a new table header swallowing dotted keys, out-of-order,
# split and inline tables, a last-line comment without a line break.
TRICKY = {
    "disable-moves-dotted-keys": ("disable", "skills.builtin = false\nmemory.enabled = false\n"),
    "trust-moves-dotted-keys": (
        "trust",
        'projects."/srv/a".trust_level = "trusted"\nskills.builtin = false\n',
    ),
    "disable-out-of-order-tables": (
        "disable",
        "[skills.bundled]\nenabled = true\n\n[skills]\nbuiltin = true\n",
    ),
    "trust-out-of-order-tables": ("trust", '[projects."/tmp/p"]\nx = "on"\n[projects]\n'),
    "trust-split-table": ("trust", '[projects]\n[[skills.config]]\n[projects."/tmp/p"]\n'),
    "disable-dotted-skills": ("disable", 'skills.skills = "on"\nskills.memory = "on"\n'),
    "disable-after-a-final-comment": ("disable", "[[skills.config]]\n# comment"),
    "trust-inline-projects": ("trust", "projects = {}\n"),
    "disable-table-below-dotted-key": ("disable", 'skills.memory = "on"\n[skills.skills]\n'),
}


@pytest.mark.parametrize(("edit", "text"), TRICKY.values(), ids=TRICKY.keys())
def test_an_edit_keeps_every_other_key(tmp_path: Path, edit: str, text: str) -> None:
    path = tmp_path / "config.toml"
    path.write_text(text, encoding="utf-8")
    folder = str(tmp_path / "proj")
    if edit == "disable":
        set_skill_mode(path, "s", SkillMode.DISABLED)
    else:
        set_trust(path, Path(folder), True)
    after = tomllib.loads(path.read_text(encoding="utf-8"))
    assert _without(after, edit, folder) == _without(tomllib.loads(text), edit, folder)
