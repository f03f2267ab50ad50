"""Fuzzing SKILL.md and agents/openai.yaml: front matter built from YAML shapes (nesting, flow
collections, anchors, odd scalars, tabs, BOMs, surrogates) and random bytes on disk. Parsing is
documented never to raise: every problem is a diagnostic with a code."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from fuzzkit import fuzz
from hypothesis import given
from hypothesis import strategies as st

from skillshelf.skills.model import RootOrigin, Scope, SkillRoot
from skillshelf.skills.openai_yaml import parse_openai_yaml
from skillshelf.skills.parse import parse_skill_text, read_skill

KEYS = [
    "name",
    "description",
    "metadata",
    "allowed-tools",
    "license",
    "compatibility",
    "x",
    "interface",
    "policy",
]
SCALARS = st.one_of(
    st.sampled_from(
        [
            "",
            "~",
            "null",
            "true",
            "no",
            "0x1F",
            "1e309",
            ".inf",
            "-",
            "|",
            ">",
            "&a",
            "*a",
            "!!binary",
            "'",
            '"',
        ]
    ),
    st.text(st.characters(blacklist_characters="\n\r"), max_size=30),
    st.from_regex(r"[a-z][a-z0-9-]{0,70}", fullmatch=True),
)


def _flow(depth: int) -> st.SearchStrategy[str]:
    """A YAML flow value nested up to ``depth`` levels."""
    leaf = SCALARS.map(lambda v: v.replace(",", " ").replace("]", " ").replace("}", " "))
    if depth == 0:
        return leaf
    inner = _flow(depth - 1)
    return st.one_of(
        leaf,
        st.lists(inner, max_size=3).map(lambda xs: "[" + ", ".join(xs) + "]"),
        st.lists(st.tuples(leaf, inner), max_size=3).map(
            lambda kv: "{" + ", ".join(f"{k}: {v}" for k, v in kv) + "}"
        ),
    )


LINE = st.one_of(
    st.tuples(st.sampled_from(KEYS), _flow(4)).map(lambda kv: f"{kv[0]}: {kv[1]}"),
    st.tuples(st.sampled_from(KEYS), SCALARS).map(lambda kv: f"  {kv[0]}: {kv[1]}"),
    st.sampled_from(
        [
            "- a",
            "  - b",
            "\t",
            "---",
            "...",
            "a: &x [1, 2]",
            "b: *x",
            "c: &y [1, *y]",
            "<<: *x",
            "? complex",
            "%YAML 1.2",
        ]
    ),
    st.text(st.characters(blacklist_characters="\n"), max_size=40),
)
FRONT = st.lists(LINE, max_size=12).map("\n".join)
BODY = st.text(max_size=200)
PREFIX = st.sampled_from(["", "\ufeff", "\n", "  ", "\r\n"])
NEWLINE = st.sampled_from(["\n", "\r\n"])


def _root(folder: Path) -> SkillRoot:
    return SkillRoot(path=folder, scope=Scope.REPO, origin=RootOrigin.AGENTS_REPO)


@fuzz(weight=2)
@given(PREFIX, FRONT, BODY, NEWLINE, st.one_of(st.none(), FRONT))
def test_skill_text_never_raises(
    prefix: str, front: str, body: str, nl: str, openai_yaml: str | None
) -> None:
    text = prefix + "---" + nl + front.replace("\n", nl) + nl + "---" + nl + body
    parsed = parse_skill_text(
        text, path=Path("/x/s/SKILL.md"), root=_root(Path("/x")), openai_yaml=openai_yaml
    )
    assert all(d.code for d in parsed.diagnostics)
    if parsed.skill is not None:
        assert isinstance(parsed.skill.name, str) and isinstance(parsed.skill.description, str)


@fuzz(weight=1)
@given(st.text(max_size=300))
def test_any_text_as_skill_md_never_raises(text: str) -> None:
    parsed = parse_skill_text(text, path=Path("/x/s/SKILL.md"), root=_root(Path("/x")))
    assert all(d.code for d in parsed.diagnostics)


@fuzz(weight=1)
@given(FRONT)
def test_openai_yaml_never_raises(text: str) -> None:
    meta, diags = parse_openai_yaml(text, path=Path("/x/s/agents/openai.yaml"), skill_dir=Path("/x/s"))
    assert all(d.code for d in diags)
    assert isinstance(meta.dependencies, tuple)


@fuzz(weight=0.5)
@given(st.binary(max_size=400), st.one_of(st.none(), st.binary(max_size=200)))
def test_skill_files_of_any_bytes_never_raise(data: bytes, openai_yaml: bytes | None) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "s"
        (folder / "agents").mkdir(parents=True)
        (folder / "SKILL.md").write_bytes(b"---\nname: s\ndescription: d\n" + data)
        if openai_yaml is not None:
            (folder / "agents" / "openai.yaml").write_bytes(openai_yaml)
        parsed = read_skill(folder / "SKILL.md", _root(Path(tmp)))
        assert all(d.code for d in parsed.diagnostics)


HOSTILE = {
    "nested-600": "x: " + "[" * 600 + "]" * 600,
    "alias-in-its-anchor": "x: &a [1, *a]",
    "nested-20000": "x: " + "{a: " * 20000 + "}" * 20000,
}


@pytest.mark.parametrize("front", HOSTILE.values(), ids=HOSTILE.keys())
def test_hostile_front_matter_is_a_diagnostic(front: str) -> None:
    text = f"---\nname: deep\ndescription: d\n{front}\n---\nbody"
    parsed = parse_skill_text(text, path=Path("/x/s/SKILL.md"), root=_root(Path("/x")))
    assert parsed.diagnostics


def test_a_self_referencing_openai_yaml_is_ignored_with_a_warning() -> None:
    meta, diags = parse_openai_yaml("interface: &a {display_name: x, more: *a}")
    assert [d.code for d in diags] == ["SK117"]


def test_a_lone_surrogate_in_openai_yaml_is_a_diagnostic() -> None:
    parsed = parse_skill_text(
        "---\nname: s\ndescription: d\n---\n",
        path=Path("/x/s/SKILL.md"),
        root=_root(Path("/x")),
        openai_yaml="interface:\n  display_name: \udb6d",
    )
    assert parsed.skill is not None
