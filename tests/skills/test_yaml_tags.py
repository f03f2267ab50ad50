"""YAML's non-specific tag ``!``: a scalar is its text, a collection stays what it is."""

from __future__ import annotations

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from skillshelf.skills.frontmatter import YamlDocument, load_yaml, mapping_pairs, raw_scalar
from skillshelf.skills.yaml_tags import mark_nonspecific_scalars


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("x: ! ~", "~"),
        ("x: ! null", "null"),
        ("x: ! NULL", "NULL"),
        ("x: ! foo", "foo"),
        ("x: ! 123", "123"),
        ("x: ! 1.50", "1.50"),
        ("x: ! 0x1F", "0x1F"),
        ("x: ! true", "true"),
        ("x: ! 2024-01-02", "2024-01-02"),
        ("x: ! '123'", "123"),
        ('x: ! "~"', "~"),
        ("x: ! |\n  ~\n", "~\n"),
        ("x: ! >-\n  12", "12"),
        ("x: !\t~", "~"),
        ("x: !<!> ~", "~"),
        ("x: &a ! ~", "~"),
        ("x: ! &a ~", "~"),
        ("x: !", ""),
        ("x: ! [~, ! ~]", [None, "~"]),
        ("x: ! {a: 1, b: ! 2}", {"a": 1, "b": "2"}),
        ("x: !\n  - ~", [None]),
        ("x: {! ~: v}", {"~": "v"}),
        ("x: [! ~, ~, !<!> 1]", ["~", None, "1"]),
    ],
)
def test_a_nonspecific_tag_makes_a_scalar_its_text(text: str, value: object) -> None:
    doc = load_yaml(text)
    assert isinstance(doc, YamlDocument), doc
    assert isinstance(doc.value, dict) and doc.value["x"] == value


def test_a_nonspecific_tag_on_a_key_makes_it_text() -> None:
    doc = load_yaml("! ~: v\n! 1: w\n")
    assert isinstance(doc, YamlDocument)
    assert doc.value == {"~": "v", "1": "w"}


@pytest.mark.parametrize(
    ("text", "value"), [("? a\n! b: c", None), ("? a\n! : c", None), ("[? a, ! ]", None)]
)
def test_an_empty_scalar_placed_at_a_nonspecific_tag_stays_null(text: str, value: object) -> None:
    doc = load_yaml(text)
    assert isinstance(doc, YamlDocument), doc
    first = doc.value if isinstance(doc.value, dict) else doc.value[0]
    assert isinstance(first, dict) and first["a"] is value


def test_an_alias_of_a_nonspecific_scalar_is_the_same_text() -> None:
    doc = load_yaml("x: &a ! ~\ny: *a\nz: &b [! null, *b]\n")
    assert isinstance(doc, YamlDocument) and isinstance(doc.value, dict)
    assert doc.value["x"] == doc.value["y"] == "~"
    assert doc.value["z"][0] == "null"


@pytest.mark.parametrize(("text", "value"), [("x: ! ~", "~"), ("x: ! null", "null"), ("x: ~", None)])
def test_a_nonspecific_null_is_present_for_codex_fields(text: str, value: str | None) -> None:
    doc = load_yaml(text)
    assert isinstance(doc, YamlDocument)
    ((_, node),) = mapping_pairs(doc.node)
    assert raw_scalar(node) == value


@pytest.mark.parametrize(
    "text", ["x: ~", "x: 'Wow! ~'", "x: Wow! 12", "x: !custom ~", "x: !!null ~", "x: [a, b]"]
)
def test_text_without_a_nonspecific_tag_is_left_alone(text: str) -> None:
    node = yaml.compose(text, Loader=yaml.SafeLoader)
    assert node is not None
    before = [(k.tag, v.tag) for k, v in node.value]
    mark_nonspecific_scalars(text, node)
    assert [(k.tag, v.tag) for k, v in node.value] == before


scalars = st.one_of(
    st.sampled_from(["~", "null", "Null", "true", "no", "On", "12", "-0", "0o17", "1e3", ".inf", ".NaN"]),
    st.sampled_from(["2024-01-02", "12:30:00", "0x1F", "1_000", "<<", "=", "a b", "1.50"]),
    st.text(alphabet="abcXYZ019.-_~+ ", min_size=1, max_size=12),
)


@given(scalars, st.sampled_from(["x: {}", "x: [{}]", "{} : y", "x: {{k: {}}}"]))
def test_a_nonspecific_scalar_is_what_the_same_scalar_quoted_is(scalar: str, shape: str) -> None:
    plain = load_yaml(shape.format(scalar))
    if not isinstance(plain, YamlDocument):
        return
    tagged = load_yaml(shape.format(f"! {scalar}"))
    quoted = load_yaml(shape.format("'" + scalar.strip() + "'"))
    assert isinstance(tagged, YamlDocument) and isinstance(quoted, YamlDocument)
    assert tagged.value == quoted.value
