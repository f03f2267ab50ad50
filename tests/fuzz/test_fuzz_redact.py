"""Fuzzing the redactor: any text, any JSON line, secrets planted anywhere.

- it never raises, keeps one output line per input line, is idempotent, and a JSON line stays
  JSON with the same keys and the same non-string values;
- a secret planted between separators in random text or in a random JSON document is gone
  (no 8-char piece of its random part is left);
- text without a secret-looking word comes back unchanged.
"""

from __future__ import annotations

import json
import string
from typing import Any

from fuzzkit import fuzz
from hypothesis import given
from hypothesis import strategies as st

from skillshelf.memory.redact import REDACTED, redact, redact_secrets

ALNUM = string.ascii_letters + string.digits
B64 = ALNUM + "+/"
B64URL = ALNUM + "-_"


def _random(alphabet: str, size: int) -> st.SearchStrategy[str]:
    """Random tokens that look random: a digit, an upper and a lower case letter, no long word."""
    return st.text(st.sampled_from(alphabet), min_size=size, max_size=size).filter(_looks_random)


def _blob(size: int) -> st.SearchStrategy[str]:
    """A bare base64 token, found by its shape alone, so drawn uniformly: hypothesis's own text
    draws lean toward repeats and sorted runs ("0000000011111222...ABCDEFGHIJKLMNOPQa"), which
    no reader takes for a random token."""
    chars = st.randoms(use_true_random=True).map(lambda r: "".join(r.choice(B64) for _ in range(size)))
    return chars.filter(_looks_random)


def _looks_random(value: str) -> bool:
    return (
        sum(c.isdigit() for c in value) >= 2
        and any(c.isupper() for c in value)
        and any(c.islower() for c in value)
        and not any(run.isalpha() and len(run) >= 8 for run in _runs(value))
        and len(set(value)) * 2 > len(value)  # "0000000000Aa" is a placeholder, not a secret
        and max(map(value.count, set(value))) * 4 <= len(value)  # nor is "000...0123456789ABC" random
    )


def _runs(value: str) -> list[str]:
    out, current = [], ""
    for char in value:
        if char.isalpha() and char.islower():
            current += char
        else:
            out.append(current)
            current = ""
    return [*out, current]


# (the line with {} for the secret, the secret's strategy)
FORMATS: list[tuple[str, st.SearchStrategy[str]]] = [
    ("export GITHUB_TOKEN={}", _random(ALNUM, 36).map(lambda v: "ghp_" + v)),
    ("key {} here", _random(ALNUM, 48).map(lambda v: "sk-" + v)),
    ("password={}", _random(ALNUM + "$@!%^&*", 14)),
    (
        "password='{}'",
        st.lists(_random(string.ascii_lowercase + string.digits, 8), min_size=2, max_size=4).map(" ".join),
    ),
    ('DB_PASSWORD="{}"', _random(ALNUM + "$@ '", 16)),
    ("curl -s -u admin:{} https://example.net", _random(ALNUM + "!$%", 12)),
    ("mysql -u root -p{} app", _random(ALNUM, 12)),
    ("./run --password {} --verbose", _random(ALNUM + "@%", 12)),
    ("Authorization: Bearer {}", _random(B64URL, 32)),
    ("session={}", st.tuples(_random(B64URL, 36), _random(B64URL, 40), _random(B64URL, 43)).map(".".join)),
    ("jwt eyJhbGciOiJIUzI1NiJ9.{}", st.tuples(_random(B64URL, 24), _random(B64URL, 43)).map(".".join)),
    ("postgres://app:{}@db:5432/prod", _random(ALNUM + "!$", 16)),
    ("blob {}", _blob(48)),
]
SEPARATORS = st.sampled_from([" ", "\n", "\t", " (", ") ", "\n\n"])
NOISE = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\r"), max_size=120).filter(
    lambda v: not v[-1:].isalnum() and not v[:1].isalnum() if v else True
)
JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=40),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner, max_size=4),
    max_leaves=20,
)


def _left(secret: str, rest: str, out: str) -> list[str]:
    """The 8-char pieces of ``secret`` in ``out`` that the text around it (``rest``) does not hold."""
    return [
        w for w in (secret[i : i + 8] for i in range(max(1, len(secret) - 7))) if w in out and w not in rest
    ]


@fuzz(weight=2)
@given(st.text(max_size=400))
def test_any_text_keeps_its_lines_and_redacts_once(text: str) -> None:
    result = redact(text)
    assert result.text.count("\n") == text.count("\n")
    assert redact_secrets(result.text) == result.text
    for finding in result.findings:
        assert 0 <= finding.start < finding.end <= len(text)


@fuzz(weight=1)
@given(JSON_VALUES)
def test_any_json_line_stays_json_with_the_same_shape(value: Any) -> None:
    line = json.dumps(value, ensure_ascii=False)
    out = redact_secrets(line)
    assert "\n" not in out
    assert _shape(json.loads(out)) == _shape(value)


def _shape(value: Any, secret: str | None = None) -> Any:
    """The value with every string replaced by a mark (what redaction may change); a key that
    holds ``secret`` is marked too (a bare repeat of a secret found in the line goes, a key's
    included)."""
    if isinstance(value, dict):
        return {
            "<key>" if REDACTED in k or (secret and secret in k) else k: _shape(v, secret)
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [_shape(v, secret) for v in value]
    return "<str>" if isinstance(value, str) else value


@fuzz(weight=2)
@given(st.data(), NOISE, NOISE, SEPARATORS, SEPARATORS)
def test_a_planted_secret_is_gone_from_any_text(
    data: st.DataObject, before: str, after: str, sep1: str, sep2: str
) -> None:
    template, secrets = data.draw(st.sampled_from(FORMATS))
    secret = data.draw(secrets)
    text = before + sep1 + template.format(secret) + sep2 + after
    out = redact_secrets(text)
    assert _left(secret, before + sep1 + template.format("") + sep2 + after, out) == [], (text, out)
    assert out.count("\n") == text.count("\n")


@fuzz(weight=1)
@given(st.data(), JSON_VALUES, st.sampled_from(["text", "output", "content", "arguments"]))
def test_a_planted_secret_is_gone_from_any_json_line(data: st.DataObject, value: Any, field: str) -> None:
    template, secrets = data.draw(st.sampled_from(FORMATS))
    secret = data.draw(secrets)
    record = {"type": "item", field: "before\n" + template.format(secret) + "\nafter", "rest": value}
    line = json.dumps(record, ensure_ascii=data.draw(st.booleans()))
    out = redact_secrets(line)
    parsed = json.loads(out)
    assert _left(secret, template.format(""), parsed[field]) == []
    assert parsed[field].startswith("before\n") and parsed[field].endswith("\nafter")
    assert _shape(parsed["rest"]) == _shape(value, secret)


@fuzz(weight=1)
@given(
    st.lists(
        st.sampled_from(
            ["the", "tests", "run", "with", "make", "check", "--verbose", "a.b.c", "x=1", "(ok)", "\n"]
        ),
        max_size=60,
    )
)
def test_ordinary_prose_and_commands_come_back_unchanged(words: list[str]) -> None:
    text = " ".join(words)
    assert redact_secrets(text) == text
