"""The fast paths of memory/redact.py find exactly what each rule's pattern finds with ``finditer``.

``redact`` skips rules whose needles are absent, checks leading boundaries in Python and tries
case-insensitive rules only where their anchors are: these tests pin that none of this changes a
single match, on text built from the very pieces the rules look for (in odd cases and with the
non-ASCII letters ``re.IGNORECASE`` equates to ASCII ones).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from hypothesis import given, settings
from hypothesis import strategies as st

from skillshelf.memory.redact import RULES, Rule, matching, values

PIECES = [
    *{needle for rule in RULES for needle in rule.needles},
    *{anchor for rule in RULES for anchor in rule.anchors},
    "sk-ant-api03-",
    "sk-proj-",
    "ghp_",
    "AKIA",
    "AccountKey=",
    "SharedAccessKey =",
    "aws_secret_access_key = ",
    "Authorization: Basic ",
    "Bearer ",
    "password=",
    "PWD = ",
    "api_key: ",
    "_token=",
    "client-secret:",
    "secret_",
    "postgres://user:",
    "@host/db",
    "https://hooks.slack.com/services/",
    "1234567890:AA",
    "eyJhbGciOi",
    ".eyJzdWIi.",
    "-----BEGIN RSA PRIVATE KEY-----",
    "-----END RSA PRIVATE KEY-----",
    "sk_live_",
    "--password ",
    "--db-password=",
    "-token ",
    " -p",
    "mysql ",
    "curl ",
    " -u ",
    "sshpass ",
    "docker login ",
    "redis-cli ",
    " -a ",
    "machine h login u password ",
    "Cookie: ",
    "Private-Lines: 2",
    "Authorization: Token ",
    "\\n",
    '\\"',
    "=$",
    "rk_test_",
    "xoxb-1-",
    "M" + "a" * 23,
    ".abcdef.",
    "AUTHORIZATION",
    "BeArEr ",
    "\u0130",
    "\u0131",
    "\u017f",
    "\u212a",
    "pa\u017f\u017fword=",
    "\u212aey",
    "\xe9",
    "\u4e2d",
    "\udce9",
    "_",
    "-",
    ".",
    "/",
    "+",
    "=",
    ":",
    '"',
    "'",
    " ",
    "\n",
    "\t",
    ";",
    "@",
]
FILLER = st.text(alphabet="abcdefABCDEF0123456789_-xyzXYZ+/=.\xe9", min_size=1, max_size=40)
TEXTS = st.lists(st.one_of(st.sampled_from(PIECES), FILLER), max_size=60).map("".join)


def _spans(matches: Iterable[re.Match[str]], rule: Rule) -> list[tuple[int, int]]:
    return [span for m in matches for span in rule.spans(m)]


def _fast_spans(rule: Rule, text: str) -> list[tuple[int, int]]:
    return _spans(matching.rule_matches(rule, matching.Views(text)), rule)


@settings(max_examples=400, deadline=None)
@given(TEXTS)
def test_every_rule_fast_path_finds_what_finditer_finds(text: str) -> None:
    for rule in RULES:
        assert _fast_spans(rule, text) == _spans(rule.regex.finditer(text), rule), rule.kind
    ascii_view = matching.Views(text).ascii
    assert [m.span() for m in values.HIGH_ENTROPY_ASCII.finditer(ascii_view)] == [
        m.span() for m in values.HIGH_ENTROPY.finditer(text)
    ]


def test_fast_paths_on_hand_picked_edges() -> None:
    cases = [
        "xAKIAQWERTYUIOPASDFGH AKIAQWERTYUIOPASDFGH",
        "\xe9AKIAQWERTYUIOPASDFGH",
        "_ghp_" + "a1B2" * 9,
        "pa\u017f\u017fword=hunter2hunter2",
        "\u0130_TOKEN=abcdefgh12345",
        "A\u212a=x; AccountKey=" + "a" * 30,
        "my_api_key=abcdefgh1234 __secret=abcdefgh5678",
        "xBearer abcdefghijklmnop1234",
        "1234567890:AA" + "b" * 33,
        "zz12345678:AA" + "b" * 33,
        "s3://k:secretvalue@bucket",
        "a" * 25 + "ab://u:pass1234@h",
        "sk_test_" + "a" * 20,
        "xsk_test_" + "a" * 20,
        "\udce9password=abcdefgh1234\udcff",
        "helm \t  registry\t \t login -p hunter2hunter2 && az login -p hunter2hunter2",
        "helm     registry login -p hunter2hunter2",
        "GCLOUD \tCONFIG set auth/access_token abcdefgh1234; aws  configure set aws_secret_key a1b2c3d4",
        "x.UsernamePasswordAuthenticationToken(u, 'hunter2hunter2') PlainCredentials('u', 'hunter2')",
        "BasicAuth ('u', 'hunter2') DigestAuth(u,'hunter2')",
        # a boundary that fails inside a run of word chars, then one that passes
        "AATBB" * 12 + " ATBB" + "b" * 30,
        "xATBB" + "a" * 40 + "\xe9ATBB" + "c" * 30 + "_ATBB" + "d" * 30,
        "\xe9ghp_" + "a1B2" * 9 + " ghp_" + "c3D4" * 9,
        "x--password=abcdefgh1234 \t--password=hunter2hunter2",
        "Ahf_" * 20 + "=hf_" + "k" * 34,
    ]
    for text in cases:
        for rule in RULES:
            assert _fast_spans(rule, text) == _spans(rule.regex.finditer(text), rule), (rule.kind, text)


def test_folded_text_keeps_positions_and_matches_ignorecase_letters() -> None:
    text = "\u0130\u0131\u017f\u212a\xe9AbC\udce9"
    folded = matching.folded(text)
    assert len(folded) == len(text) and folded == b"iisk?abc?"
    for char, letter in zip(text, folded.decode("ascii"), strict=True):
        if letter != "?":
            assert re.fullmatch(letter, char, re.IGNORECASE)


def test_each_lexicon_string_is_found_wherever_it_occurs_overlapping_ones_too() -> None:
    text = "PassWORD=x pass pwd PASSWORD_FILE TOKENTOKEN"
    views = matching.Views(text)
    assert views.occurrences(b"pass", folded_view=True) == [0, 11, 20]
    assert views.occurrences(b"password", folded_view=True) == [0, 20]
    assert views.occurrences(b"pw", folded_view=True) == [16]
    assert views.occurrences(b"TOKEN", folded_view=False) == [34, 39]
    lexicon = matching.lexicon()
    assert b"pass" in lexicon.folded and b"password" in lexicon.folded and b"TOKEN" in lexicon.plain


def test_a_rule_outside_the_lexicon_finds_what_finditer_finds() -> None:
    rule = Rule(kind="custom", category="token", pattern=r"zq[0-9]{4}", anchors=("zq",))
    text = "zq1234 zqzq9876 zq12"
    assert b"zq" not in matching.lexicon().plain
    assert _fast_spans(rule, text) == _spans(rule.regex.finditer(text), rule) == [(0, 6), (9, 15)]
