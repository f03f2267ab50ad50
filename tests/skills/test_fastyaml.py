"""The plain-frontmatter fast path gives exactly what the YAML parser gives, or steps aside."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from skillshelf.skills.fastyaml import simple_frontmatter
from skillshelf.skills.frontmatter import YamlDocument, load_yaml
from skillshelf.skills.parse_fields import known_fields

KEYS = st.sampled_from(
    ["name", "description", "metadata", "short-description", "license", "yes", "null", "x_1", "true", "on"]
)
VALUES = st.one_of(
    st.sampled_from(
        [
            "demo",
            "Deploy the app",
            "1.50",
            "0x1F",
            "true",
            "null",
            "~",
            "2024-01-02",
            ".inf",
            "a: b",
            "a #b",
            "(x) y",
            "/path/to",
            "é accents",
            "trailing ",
            "",
            "'q'",
            "-dash",
            "a\tb",
            "\u2028x",
            "12",
            "Yes",
        ]
    ),
    st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=12),
)
LINES = st.one_of(
    st.tuples(KEYS, VALUES).map(lambda kv: f"{kv[0]}: {kv[1]}"),
    KEYS.map(lambda k: f"{k}:"),
    st.tuples(KEYS, VALUES).map(lambda kv: f"  {kv[0]}: {kv[1]}"),
    st.sampled_from(["# comment", "", "   ", "  - item", "key:value"]),
)


@settings(max_examples=1500, deadline=None)
@given(st.lists(LINES, min_size=1, max_size=8).map("\n".join))
def test_fast_path_agrees_with_yaml(text: str) -> None:
    fast = simple_frontmatter(text)
    if fast is None:
        return
    doc = load_yaml(text)
    assert isinstance(doc, YamlDocument)
    assert doc.value == fast[0]
    slow = known_fields(doc.node, path=Path("/x/SKILL.md"))
    assert not slow.fatal
    assert (slow.name, slow.description, slow.short_description) == (
        fast[1].name,
        fast[1].description,
        fast[1].short_description,
    )


def test_typical_frontmatter_takes_the_fast_path() -> None:
    fast = simple_frontmatter(
        "name: deploy\ndescription: Deploy the app. Use when shipping.\nmetadata:\n"
        "  short-description: Ship it"
    )
    assert fast is not None
    assert fast[0] == {
        "name": "deploy",
        "description": "Deploy the app. Use when shipping.",
        "metadata": {"short-description": "Ship it"},
    }
    assert fast[1].short_description == "Ship it"


def test_anything_unusual_goes_to_yaml() -> None:
    for text in (
        "name: a\ndescription: x: y",
        "name: 1.5",
        "name: a\nname: b",
        "metadata:",
        "description: |\n  block",
        "name: 'quoted'",
        "a: b # c",
    ):
        assert simple_frontmatter(text) is None, text
