"""Secrets a model repeats bare: redaction reports the strings it removed, and what a model
writes back is scrubbed of them in every spelling it may use."""

from __future__ import annotations

import json
import random
import re
import string
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from memory_helpers import user_session

from skillshelf.memory.phase1 import parse_stage1_reply, stage1_prompt
from skillshelf.memory.redact import REDACTED, redact
from skillshelf.memory.redact.echoes import MIN_ECHO_CHARS, NO_SECRETS, KnownSecrets, is_distinct
from skillshelf.memory.transcripts.skillshelf import TranscriptWriter

_rng = random.Random(20261202)


def r(n: int) -> str:
    """Random letters and digits (no secret-shaped literals in the repo)."""
    return "".join(_rng.choice(string.ascii_letters + string.digits) for _ in range(n))


PASSWORD = "k" + r(10) + "7"  # letters and a digit, as is_distinct wants
PASSPHRASE = "lantern orbit velvet quarry"


def test_redaction_reports_each_string_it_removed_as_the_rules_saw_it() -> None:
    text = f"mysql -u root -p{PASSWORD} app\nexport DB_PASSWORD='{PASSPHRASE}'\n" + json.dumps(
        {"out": json.dumps({"token": f'ab\\"{PASSWORD}'})}
    )
    result = redact(text)
    assert PASSWORD not in result.text and PASSPHRASE not in result.text
    assert PASSWORD in result.removed and PASSPHRASE in result.removed
    assert f'ab\\"{PASSWORD}' in result.removed  # the field's value, decoded from both JSON levels
    assert PASSWORD not in repr(result) and redact("nothing here").removed == ()


def test_a_bare_secret_is_scrubbed_in_each_spelling_a_model_may_use() -> None:
    escaped = f'ab\\"{PASSWORD}'
    known = KnownSecrets.of([PASSPHRASE, escaped])
    for spelling in (PASSPHRASE, escaped, f'ab"{PASSWORD}', json.dumps(escaped)[1:-1]):
        assert known.scrub(f"the value is {spelling}.") == f"the value is {REDACTED}."
    assert PASSPHRASE not in repr(known)


def test_each_line_of_a_removed_key_is_scrubbed_on_its_own() -> None:
    lines = [r(70) for _ in range(3)]
    known = KnownSecrets.of(["\n".join(lines), "\\n".join(lines)])
    assert known.scrub(f"line two: {lines[1]}") == f"line two: {REDACTED}"


def test_short_values_and_the_marker_are_left_in_prose() -> None:
    known = KnownSecrets.of(["root", "x" * (MIN_ECHO_CHARS - 1), REDACTED, "  "])
    assert not known
    prose = "log in as root and run xxxxxxx"
    assert known.scrub(prose) == prose and NO_SECRETS.scrub(prose) == prose


def test_the_longest_secret_wins_where_two_overlap() -> None:
    known = KnownSecrets.of([PASSWORD, PASSWORD + "-suffix"])
    assert known.scrub(f"{PASSWORD}-suffix and {PASSWORD}") == f"{REDACTED} and {REDACTED}"


_SECRET = st.text(st.characters(min_codepoint=33, max_codepoint=0x2FF), min_size=MIN_ECHO_CHARS, max_size=40)


@given(st.lists(_SECRET, min_size=1, max_size=5), st.text(max_size=200), st.text(max_size=200))
def test_no_known_secret_survives_a_scrub(secrets: list[str], before: str, after: str) -> None:
    known = KnownSecrets.of(secrets)
    out = known.scrub(before + " ".join(secrets) + after)
    for secret in secrets:
        for line in re.split(r"\r?\n|\\r\\n|\\n", secret):  # a value is scrubbed line by line
            piece = line.strip(" \t'\"`,;.:!?*()[]{}<>")
            assert not is_distinct(piece) or piece not in out


@given(st.lists(_SECRET, max_size=5), st.text(max_size=300))
def test_text_without_a_known_secret_is_unchanged(secrets: list[str], text: str) -> None:
    known = KnownSecrets.of(secrets)
    if not any(piece in text for piece in known.pieces):
        assert known.scrub(text) == text


def test_a_stage1_answer_is_scrubbed_of_the_secrets_its_prompt_lost(tmp_path: Path) -> None:
    session = user_session(
        tmp_path, f"deploy with curl -u admin:{PASSWORD} https://x and DB_PASSWORD='{PASSPHRASE}'"
    )
    prompt = stage1_prompt(session, token_limit=10_000)
    assert PASSWORD not in prompt.user and PASSPHRASE not in prompt.user
    echo = f"the admin password is {PASSWORD}; the database one is {PASSPHRASE}"
    reply = json.dumps({"raw_memory": echo, "rollout_summary": echo, "rollout_slug": PASSWORD})
    result = parse_stage1_reply(reply, prompt.known)
    assert result is not None
    for text in (result.raw_memory, result.rollout_summary, result.rollout_slug or ""):
        assert PASSWORD not in text and PASSPHRASE not in text
    assert REDACTED in result.raw_memory and result.known == prompt.known
    unscrubbed = parse_stage1_reply(reply)
    assert unscrubbed is not None and PASSPHRASE in unscrubbed.raw_memory  # no rule sees it bare


def test_a_transcript_keeps_no_secret_a_reply_repeats_bare(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    with TranscriptWriter(path, session_id="s1", cwd=tmp_path) as writer:
        writer.message("user", f"the reply may say {PASSPHRASE} before any rule has seen it")
        writer.tool_call("c1", "bash", {"command": f"mysql -u root -p{PASSWORD} app"})
        writer.tool_result("c1", f"DB_PASSWORD='{PASSPHRASE}'")
        writer.message("assistant", f"Connected with {PASSWORD}; the other one is {PASSPHRASE}.")
    lines = path.read_text(encoding="utf-8").splitlines()
    records = [json.loads(line) for line in lines]
    assert PASSWORD not in "".join(lines) and PASSPHRASE not in "".join(lines[2:])
    assert records[-1]["text"] == f"Connected with {REDACTED}; the other one is {REDACTED}."
    assert PASSPHRASE in records[1]["text"]  # nothing marked it a secret yet: it is kept


def test_thousands_of_secrets_sharing_a_head_are_each_scrubbed() -> None:
    head = "sha512-" + r(4)
    secrets = [head + r(40) for _ in range(2000)] + [head + "tail" + r(8), head + "tail" + r(8) + "more"]
    known = KnownSecrets.of(secrets)
    picked = [*secrets[::400], secrets[-1]]
    text = "\n".join(f"integrity {value} ok" for value in picked)
    assert known.scrub(text) == "\n".join(f"integrity {REDACTED} ok" for _ in picked)
    assert known.scrub(head + "tail") == head + "tail"  # a shared head alone is no secret


_BIT = st.text(st.sampled_from("ab8-"), min_size=1, max_size=6)
_HEAD = st.text(st.sampled_from("ab8-"), min_size=MIN_ECHO_CHARS, max_size=10)


@given(_HEAD, st.lists(_BIT, max_size=6), st.data())
def test_both_ways_of_finding_secrets_give_the_same_spans(
    head: str, tails: list[str], data: st.DataObject
) -> None:
    secrets = [head, *(head + tail for tail in tails), *(tail + head for tail in tails)]
    known = KnownSecrets.of(secrets)
    text = "".join(data.draw(st.lists(st.sampled_from([*secrets, *tails, " "]), max_size=12)))
    assert known._found(text) == known._scanned(text)


def test_a_secret_found_in_context_goes_where_the_same_text_repeats_it_bare() -> None:
    before = f"I logged in with {PASSWORD} this morning\n"
    result = redact(before + f"mysql -u root -p{PASSWORD} app\nthen {PASSWORD}!")
    assert PASSWORD not in result.text and result.text.count(REDACTED) == 3
    assert result.counts() == {"cli-password-option": 1, "repeated-secret": 2}
    start = next(f.start for f in result.findings if f.kind == "repeated-secret")
    assert start == before.index(PASSWORD)  # positions are in the input


def test_a_bare_repeat_inside_a_json_line_is_replaced_and_the_line_stays_json() -> None:
    windows = "C:\\\\Users\\\\" + PASSWORD
    line = json.dumps({"cmd": f"mysql -p'{windows}' db", "note": f"the password is {windows}", "n": 3})
    result = redact(line)
    assert PASSWORD not in result.text
    assert json.loads(result.text) == {
        "cmd": f"mysql -p'{REDACTED}' db",
        "note": f"the password is {REDACTED}",
        "n": 3,
    }


def test_a_json_key_that_repeats_a_secret_of_the_line_is_scrubbed_too() -> None:
    line = json.dumps({"cmd": f"curl -s -u admin:{PASSWORD} https://x", "rest": {PASSWORD: None, "n": 1}})
    result = redact(line)
    assert PASSWORD not in result.text
    assert json.loads(result.text) == {
        "cmd": f"curl -s -u admin:{REDACTED} https://x",
        "rest": {REDACTED: None, "n": 1},
    }


@pytest.mark.parametrize(
    ("value", "distinct"),
    [
        ("hunter2curl", True),
        ("pa$$w0rd!", True),
        ("lantern orbit velvet quarry", True),
        ("abcdefg1 hijklmno", True),
        ("password", False),
        ("REQUIRED", False),
        ("PARALLEL_API_KEY", False),
        ("paired with", False),
        ("config['access_key_id", False),
        ("os.environ.get", False),
        ("${DB_PASSWORD}", False),
        ("short1!", False),
        ("20261202", False),
        ("503918273645", True),
    ],
)
def test_only_values_that_look_like_secrets_are_replaced_everywhere(value: str, distinct: bool) -> None:
    assert is_distinct(value) is distinct


def test_a_word_a_rule_took_for_a_secret_stays_everywhere_else() -> None:
    text = "password: password\nThe password field of the form is required."
    assert redact(text).text.endswith("The password field of the form is required.")


def test_a_repeat_is_found_in_a_json_line_that_escapes_non_ascii() -> None:
    secret = "pässwort9" + r(6)
    line = json.dumps({"out": f"mysql -p{secret} db", "note": f"then {secret}"})  # \u00e4 in the line
    result = redact(line)
    assert json.loads(result.text) == {"out": f"mysql -p{REDACTED} db", "note": f"then {REDACTED}"}
