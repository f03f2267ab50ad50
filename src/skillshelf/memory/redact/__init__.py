"""Secret redaction: well-known token formats, private keys, credentials in URLs, connection
strings and command lines, ``key=value`` secrets and high-entropy strings become
``[REDACTED_SECRET]``.

Codex's sanitizer has four rules (``sk-`` keys, ``AKIA`` ids, ``Bearer`` tokens and
``api_key|token|secret|password = value``); most token formats pass it untouched. This module
keeps those four behaviours (same replacement text, the key and quote of an assignment kept)
and adds the formats of cloud, VCS, chat, payment, package-registry and model-provider keys
(:mod:`.rules`), passwords on command lines (``--password X``, ``mysql -pX``, ``curl -u
user:X``), quoted values with spaces or escaped quotes, and private keys whole, including the
parts of one split over two records.

A secret found in its context is also replaced where the same text repeats it bare
(``repeated-secret``, 8 characters or more; :mod:`.echoes`).

Look-alikes stay: commit hashes and other hex digests, UUIDs, placeholders (``<token>``,
``${GITHUB_TOKEN}``, ``sk-xxxx...``, ``your-api-key``) and the documentation examples vendors
publish (values containing ``EXAMPLE``).

    >>> redact_secrets("export GITHUB_TOKEN=ghp_" + "a1B2" * 9)
    'export GITHUB_TOKEN=[REDACTED_SECRET]'

Two guarantees beyond the rules: the output has as many lines as the input (a secret that spans
lines becomes one marker per line), and JSON lines are redacted string by string on the decoded
text (:mod:`.jsonl`), so an escaped ``\\n`` ends a value and the line stays valid JSON.

Pure functions, no I/O; the ``skillshelf redact`` command wraps :func:`redact`.
"""

from __future__ import annotations

import bisect
import json
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from skillshelf.memory.redact.echoes import NO_SECRETS, KnownSecrets
from skillshelf.memory.redact.jsonl import is_json_line, redact_json_line
from skillshelf.memory.redact.matching import RuleSet, Views, rule_matches
from skillshelf.memory.redact.rule import Rule
from skillshelf.memory.redact.rules import RULES
from skillshelf.memory.redact.values import (
    REDACTED,
    config_line_spans,
    high_entropy_spans,
    is_code_like,
    is_env_secret_value,
    is_named_stand_in,
    is_placeholder,
    looks_like_credential,
    pem_tail_spans,
)

__all__ = [
    "REDACTED",
    "RULES",
    "Finding",
    "Redaction",
    "Rule",
    "redact",
    "redact_secrets",
    "redact_value",
    "scan_secrets",
]

_MAX_DEPTH = 4  # JSON inside a JSON string inside ... : deeper levels are redacted as plain text
_LINE_BREAK = re.compile(r"(\r?\n|\\r\\n|\\n)")
_SPACE = " \t\r\n"
_ENTROPY = "high-entropy-string"
_REPEATED = "repeated-secret"
_WEAKNESS = {_ENTROPY: 1, _REPEATED: 2}  # where findings overlap, the strongest names the union
_ESCAPED_BREAKS = ("\\n", "\\r")


@dataclass(frozen=True, slots=True, kw_only=True)
class Finding:
    """One secret found: its kind, category and where it is in the input (in a JSON line: the
    string that held it, so findings in one string share a span)."""

    kind: str
    category: str
    start: int
    end: int

    def to_dict(self) -> dict[str, object]:
        return {"kind": self.kind, "category": self.category, "start": self.start, "end": self.end}

    def moved(self, offset: int) -> Finding:
        """The same finding in a text ``offset`` characters longer in front."""
        if not offset:
            return self
        return Finding(
            kind=self.kind, category=self.category, start=self.start + offset, end=self.end + offset
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class Redaction:
    """The redacted text and what was removed: ``findings`` say where and of which kind;
    ``removed`` holds the secret strings themselves (decoded as the rules saw them), kept in
    memory only so that a model's answer can be scrubbed of any it repeats
    (:class:`~skillshelf.memory.redact.echoes.KnownSecrets`). Never print or store them."""

    text: str
    findings: tuple[Finding, ...]
    removed: tuple[str, ...] = field(default=(), repr=False, compare=False)

    def counts(self) -> dict[str, int]:
        return dict(Counter(f.kind for f in self.findings))


def _key_body(text: str, start: int, end: int) -> tuple[int, int]:
    """The span of a key body without the line breaks around it (real or JSON-escaped)."""
    while start < end:
        if text[start] in _SPACE:
            start += 1
        elif text.startswith(_ESCAPED_BREAKS, start):
            start += 2
        else:
            break
    while end > start:
        if text[end - 1] in _SPACE:
            end -= 1
        elif end - start >= 2 and text[end - 2 : end] in _ESCAPED_BREAKS:
            end -= 2
        else:
            break
    return start, end


def _in_userinfo(text: str, start: int) -> bool:
    """Whether ``start`` is in the user part of a URL (``https://x-access-token:<here>@host``)."""
    word = max(text.rfind(" ", 0, start), text.rfind("\n", 0, start), text.rfind("\t", 0, start)) + 1
    scheme = text.find("://", word, start)
    return scheme >= 0 and "/" not in text[scheme + 3 : start] and "@" not in text[scheme + 3 : start]


def _vetted(rule: Rule, text: str, start: int, end: int) -> tuple[int, int] | None:
    if rule.vet == "key":
        start, end = _key_body(text, start, end)
        return (start, end) if end > start else None
    if rule.category == "assignment" and "@" in text[start:end] and _in_userinfo(text, start):
        end = text.index("@", start)  # the password of a URL ends at its "@": the host stays
    value = text[start:end]
    if rule.vet == "env":
        return (start, end) if len(value) >= rule.min_len and is_env_secret_value(value) else None
    if len(value) < max(rule.min_len, 1) or is_placeholder(value):
        return None
    if rule.group and is_code_like(value, paths=rule.category in ("assignment", "connection-string")):
        return None
    if rule.vet == "argument" and is_named_stand_in(value):
        return None
    if rule.vet == "credential" and not looks_like_credential(value):
        return None
    return start, end


def _rule_findings(views: Views) -> list[Finding]:
    found: list[Finding] = []
    for rule in _rule_set().may_match(views):
        for match in rule_matches(rule, views):
            kept = (_vetted(rule, views.text, *span) for span in rule.spans(match))
            found.extend(
                Finding(kind=rule.kind, category=rule.category, start=a, end=b) for a, b in filter(None, kept)
            )
    found += [
        Finding(kind="pem-private-key", category="key", start=a, end=b) for a, b in pem_tail_spans(views)
    ]
    found += [
        Finding(kind="key-value-secret", category="assignment", start=a, end=b)
        for a, b in config_line_spans(views)
    ]
    return found


@cache
def _rule_set() -> RuleSet:
    return RuleSet(RULES)


def _merged(found: list[Finding]) -> list[Finding]:
    """Overlapping findings as one: the union of their spans, named by the first rule that is not
    the high-entropy fallback (or a repeat of a secret found elsewhere)."""
    found.sort(key=lambda f: (f.start, -(f.end - f.start)))
    kept: list[Finding] = []
    for finding in found:
        if not kept or finding.start >= kept[-1].end:
            kept.append(finding)
            continue
        last = kept[-1]
        named = finding if _WEAKNESS.get(last.kind, 0) > _WEAKNESS.get(finding.kind, 0) else last
        kept[-1] = Finding(
            kind=named.kind, category=named.category, start=last.start, end=max(last.end, finding.end)
        )
    return kept


def _scan_plain(text: str, high_entropy: bool) -> list[Finding]:
    if not text.strip():
        return []
    views = Views(text)
    found = _merged(_rule_findings(views))
    if not high_entropy:
        return found
    runs = high_entropy_spans(views, _inside(found))
    return _merged(found + [Finding(kind=_ENTROPY, category="entropy", start=a, end=b) for a, b in runs])


def _inside(spans: list[Finding]) -> Callable[[int, int], bool]:
    """A test "is [start, end) inside one of ``spans``" (sorted, not overlapping)."""
    starts = [f.start for f in spans]

    def covered(start: int, end: int) -> bool:
        index = bisect.bisect_right(starts, start) - 1
        return index >= 0 and spans[index].end >= end

    return covered


def _marker(secret: str) -> str:
    """``[REDACTED_SECRET]`` once per line of ``secret``, its line breaks kept."""
    if "\n" not in secret and "\\n" not in secret:
        return REDACTED
    pieces = _LINE_BREAK.split(secret)
    return "".join(p if i % 2 or not p.strip() else REDACTED for i, p in enumerate(pieces))


def _replaced(text: str, spans: list[Finding]) -> str:
    parts: list[str] = []
    cursor = 0
    for finding in spans:
        parts += [text[cursor : finding.start], _marker(text[finding.start : finding.end])]
        cursor = finding.end
    parts.append(text[cursor:])
    return "".join(parts)


_Plain = Callable[[str], tuple[str, list[Finding]]]
"""What one pass does to a stretch of plain text (a decoded JSON string included)."""


def _walk(
    text: str, depth: int, plain: _Plain, secret_field: Callable[[str], str]
) -> tuple[str, list[Finding]]:
    """``text`` with ``plain`` applied to its plain stretches and, in each JSON line, to its
    decoded strings (to JSON inside those strings too, down to ``_MAX_DEPTH``); the value of a
    field whose key names a secret becomes ``secret_field(value)``."""
    if depth >= _MAX_DEPTH or ("{" not in text and "[" not in text):
        return plain(text)

    def redact_strings(joined: str) -> tuple[str, list[tuple[int, int, str, str]]]:
        new, inner = _walk(joined, depth + 1, plain, secret_field)
        return new, [(f.start, f.end, f.kind, f.category) for f in inner]

    out: list[str] = []
    findings: list[Finding] = []
    block = pos = 0
    for line in text.split("\n"):
        end = pos + len(line)
        if is_json_line(line):
            new, found = plain(text[block:pos])
            out.append(new)
            findings += [f.moved(block) for f in found]
            new, changes = redact_json_line(line, redact_strings, secret_field)
            out.append(new)
            findings += [
                Finding(kind=c.kind, category=c.category, start=pos + c.start, end=pos + c.end)
                for c in changes
            ]
            block = end
        pos = end + 1
    new, found = plain(text[block:])
    out.append(new)
    findings += [f.moved(block) for f in found]
    return "".join(out), findings


def redact(text: str, *, high_entropy: bool = True, known: KnownSecrets = NO_SECRETS) -> Redaction:
    """Replace every secret in ``text`` with ``[REDACTED_SECRET]``; report what was found.

    A second pass also replaces each other occurrence of a secret the first removed (8
    characters or more), and of those in ``known`` (found in earlier text), wherever it stands
    bare (``repeated-secret``): the password of ``mysql -pX`` in a later "I logged in with X".
    It runs only when the first pass's output may still hold such a secret, and reuses the
    rules' findings of the first, so it costs a walk over the text, not the rules again."""
    removed: list[str] = []
    scanned: dict[str, list[Finding]] = {}  # the first pass's findings, for the second

    def rules(block: str) -> list[Finding]:
        if (found := scanned.get(block)) is None:
            found = _scan_plain(block, high_entropy)
        return found

    def first(block: str) -> tuple[str, list[Finding]]:
        found = scanned[block] = _scan_plain(block, high_entropy)
        removed.extend(block[f.start : f.end] for f in found)
        return (_replaced(block, found) if found else block), found

    def secret_field(value: str) -> str:
        removed.append(value)
        return _marker(value)

    new, findings = _walk(text, 0, first, secret_field)
    known = known | KnownSecrets.of(removed)
    if known.may_stand_in(new):

        def again(block: str) -> tuple[str, list[Finding]]:
            found = rules(block)
            spans = known.spans(block, outside=[(f.start, f.end) for f in found])
            if spans:
                repeats = [Finding(kind=_REPEATED, category="repeated", start=a, end=b) for a, b in spans]
                found = _merged(found + repeats)
            return (_replaced(block, found) if found else block), found

        new, findings = _walk(text, 0, again, _marker)
    return Redaction(text=new, findings=tuple(findings), removed=tuple(removed))


def scan_secrets(text: str, *, high_entropy: bool = True) -> tuple[Finding, ...]:
    """Every secret in ``text`` in order of position (without overlaps, except that the secrets
    of one string of a JSON line share that string's span)."""
    return redact(text, high_entropy=high_entropy).findings


def redact_secrets(text: str) -> str:
    """The redacted text only (what goes to the model, the database and the memory folder)."""
    return redact(text).text


def redact_value(value: Any) -> Any:
    """A JSON value (dicts, lists, strings, numbers) with every string in it redacted."""
    return json.loads(redact_secrets(json.dumps(value, ensure_ascii=False)))
