"""Secret redaction: well-known token formats, private keys, credentials in URLs and
connection strings, ``key=value`` secrets and high-entropy strings become ``[REDACTED_SECRET]``.

Codex's sanitizer has four rules (``sk-`` keys, ``AKIA`` ids, ``Bearer`` tokens and
``api_key|token|secret|password = value``); most token formats pass it untouched. This module
keeps those four behaviours (same replacement text, the key and quote of an assignment kept)
and adds the formats of cloud, VCS, chat, payment, package-registry and model-provider keys.

Look-alikes stay: commit hashes and other hex digests, UUIDs, placeholders (``<token>``,
``${GITHUB_TOKEN}``, ``sk-xxxx...``, ``your-api-key``) and the documentation examples vendors
publish (values containing ``EXAMPLE``).

    >>> redact_secrets("export GITHUB_TOKEN=ghp_" + "a1B2" * 9)
    'export GITHUB_TOKEN=[REDACTED_SECRET]'

Pure functions, no I/O; the ``skillshelf redact`` command wraps :func:`redact`.

Speed: Python's ``re`` cannot skip ahead when a pattern opens with a boundary test
(``\\b``, a lookbehind) or with a case-insensitive word, so it tries every rule at every
position (about 0.5 MB/s for the whole rule set). Each rule therefore runs the fastest way
that finds exactly what its pattern finds: the boundary is checked in Python after a search
for the rest of the pattern (which then starts with a literal ``re`` skips to), or the
pattern is only tried where one of its ``anchors`` occurs (found with ``str.find`` in a
case-folded copy for case-insensitive rules). Both give the matches ``finditer`` gives.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cache

__all__ = ["REDACTED", "RULES", "Finding", "Redaction", "Rule", "redact", "redact_secrets", "scan_secrets"]

REDACTED = "[REDACTED_SECRET]"
_B = r"(?<![A-Za-z0-9_])"  # start boundary that also treats "_" as part of a word
_E = r"(?![A-Za-z0-9_])"


@dataclass(frozen=True, slots=True, kw_only=True)
class Rule:
    """One secret format. ``group`` names the part that is secret (0: the whole match).

    For speed only (neither changes what is found): ``needles``, strings one of which every
    match contains (the rule is skipped when none is in the text); ``anchors``, strings every
    match holds ``back`` chars (a ``(min, max)`` range) after its start, lower case when the
    rule ignores case: the pattern is then tried only there (see :func:`_rule_matches`).
    """

    kind: str
    category: str
    pattern: str
    group: int | str = 0
    flags: int = 0
    anchors: tuple[str, ...] = ()
    back: tuple[int, int] = (0, 0)
    needles: tuple[str, ...] = ()

    @property
    def regex(self) -> re.Pattern[str]:
        return _compiled(self.pattern, self.flags)


@cache
def _compiled(pattern: str, flags: int) -> re.Pattern[str]:
    return re.compile(pattern, flags)


_SECRET_KEYS = (
    r"api[_-]?key|apikey|api[_-]?secret|access[_-]?key(?:[_-]?id)?|secret[_-]?access[_-]?key|secret[_-]?key"
    r"|client[_-]?secret|auth[_-]?token|access[_-]?token|refresh[_-]?token|private[_-]?key|token|secret"
    r"|password|passwd|pwd|passphrase|credentials?"
)

#: The words a ``_SECRET_KEYS`` match starts with (the pattern may put one ``_`` before them).
_SECRET_KEY_STARTS = (
    "api",
    "access",
    "secret",
    "client",
    "auth",
    "refresh",
    "private",
    "token",
    "pass",
    "pwd",
    "credential",
)

RULES: tuple[Rule, ...] = (
    # --- private keys -----------------------------------------------------------------------
    Rule(
        kind="pem-private-key",
        category="key",
        needles=("PRIVATE KEY",),
        pattern=(
            r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?(?:-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|\Z)"
        ),
    ),
    # --- model providers --------------------------------------------------------------------
    Rule(
        kind="anthropic-key",
        category="model-provider",
        needles=("sk-ant-",),
        pattern=_B + r"sk-ant-[a-z]+\d*-[A-Za-z0-9_-]{20,}",
    ),
    Rule(
        kind="openai-project-key",
        category="model-provider",
        needles=("sk-",),
        pattern=_B + r"sk-(?:proj|svcacct|admin|None)-[A-Za-z0-9_-]{20,}",
    ),
    Rule(kind="openai-key", category="model-provider", needles=("sk-",), pattern=r"sk-[A-Za-z0-9]{20,}"),
    Rule(
        kind="huggingface-token",
        category="model-provider",
        needles=("hf_",),
        pattern=_B + r"hf_[A-Za-z0-9]{30,}" + _E,
    ),
    Rule(
        kind="groq-key",
        category="model-provider",
        needles=("gsk_",),
        pattern=_B + r"gsk_[A-Za-z0-9]{40,}" + _E,
    ),
    Rule(
        kind="replicate-token",
        category="model-provider",
        needles=("r8_",),
        pattern=_B + r"r8_[A-Za-z0-9]{30,}" + _E,
    ),
    Rule(
        kind="perplexity-key",
        category="model-provider",
        needles=("pplx-",),
        pattern=_B + r"pplx-[A-Za-z0-9]{40,}" + _E,
    ),
    Rule(
        kind="xai-key",
        category="model-provider",
        needles=("xai-",),
        pattern=_B + r"xai-[A-Za-z0-9]{60,}" + _E,
    ),
    # --- cloud ------------------------------------------------------------------------------
    Rule(
        kind="aws-access-key-id",
        category="cloud",
        back=(0, 0),
        anchors=("AKIA", "ASIA", "ABIA", "ACCA", "AGPA", "AIDA", "AROA", "AIPA", "ANPA", "ANVA", "APKA"),
        pattern=r"\b(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|APKA)[A-Z0-9]{16}\b",
    ),
    Rule(
        kind="aws-secret-access-key",
        category="cloud",
        group="v",
        flags=re.IGNORECASE,
        anchors=("aws",),
        pattern=(
            r"aws_?secret_?(?:access_?)?key[\"']?\s*[:=]\s*[\"']?(?P<v>[A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])"
        ),
    ),
    Rule(
        kind="google-api-key",
        category="cloud",
        needles=("AIza",),
        pattern=_B + r"AIza[0-9A-Za-z_-]{35}" + r"(?![A-Za-z0-9_-])",
    ),
    Rule(
        kind="google-oauth-secret",
        category="cloud",
        needles=("GOCSPX-",),
        pattern=_B + r"GOCSPX-[A-Za-z0-9_-]{28}",
    ),
    Rule(
        kind="azure-account-key",
        category="cloud",
        group="v",
        flags=re.IGNORECASE,
        anchors=("accountkey", "sharedaccesskey"),
        pattern=r"(?:AccountKey|SharedAccessKey)\s*=\s*(?P<v>[A-Za-z0-9+/]{20,}={0,2})",
    ),
    Rule(
        kind="digitalocean-token",
        category="cloud",
        needles=("_v1_",),
        pattern=_B + r"do[opr]_v1_[a-f0-9]{64}" + _E,
    ),
    Rule(
        kind="alibaba-access-key", category="cloud", needles=("LTAI",), pattern=r"\bLTAI[A-Za-z0-9]{16,24}\b"
    ),
    # --- version control --------------------------------------------------------------------
    Rule(
        kind="github-token",
        category="vcs",
        back=(0, 0),
        anchors=("ghp_", "gho_", "ghu_", "ghs_", "ghr_"),
        pattern=_B + r"gh[pousr]_[A-Za-z0-9]{36,255}" + _E,
    ),
    Rule(
        kind="github-fine-grained-pat",
        category="vcs",
        needles=("github_pat_",),
        pattern=_B + r"github_pat_[A-Za-z0-9_]{60,255}",
    ),
    Rule(
        kind="gitlab-token",
        category="vcs",
        back=(0, 0),
        anchors=("glpat-", "gldt-", "glrt-", "glptt-", "glft-", "glsoat-", "glcbt-"),
        pattern=_B + r"gl(?:pat|dt|rt|ptt|ft|soat|cbt)-[A-Za-z0-9_-]{20,}" + r"(?![A-Za-z0-9_-])",
    ),
    Rule(
        kind="bitbucket-app-password",
        category="vcs",
        needles=("ATBB",),
        pattern=r"\bATBB[A-Za-z0-9_=.-]{28,}",
    ),
    # --- chat -------------------------------------------------------------------------------
    Rule(
        kind="slack-token",
        category="chat",
        needles=("xox",),
        pattern=_B + r"xox[abposr]-(?:\d+-)?[A-Za-z0-9-]{10,}",
    ),
    Rule(
        kind="slack-webhook",
        category="chat",
        needles=("https://hooks.slack.com/",),
        pattern=r"https://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9_/]+",
    ),
    Rule(
        kind="discord-webhook",
        category="chat",
        needles=("/api/webhooks/",),
        pattern=r"https://(?:ptb\.|canary\.)?discord(?:app)?\.com/api/webhooks/\d+/[A-Za-z0-9_-]+",
    ),
    Rule(
        kind="discord-bot-token",
        category="chat",
        pattern=r"\b[MNO][A-Za-z\d_-]{23,27}\.[A-Za-z\d_-]{6}\.[A-Za-z\d_-]{27,40}\b",
    ),
    Rule(
        kind="telegram-bot-token",
        category="chat",
        pattern=r"\b\d{8,10}:AA[A-Za-z0-9_-]{33}\b",
        anchors=(":AA",),
        back=(8, 10),
    ),
    # --- payment ----------------------------------------------------------------------------
    Rule(
        kind="stripe-key",
        category="payment",
        anchors=("_live_", "_test_"),
        back=(2, 2),
        pattern=_B + r"(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,}" + _E,
    ),
    Rule(
        kind="stripe-webhook-secret",
        category="payment",
        needles=("whsec_",),
        pattern=_B + r"whsec_[A-Za-z0-9]{24,}" + _E,
    ),
    Rule(
        kind="square-token",
        category="payment",
        back=(0, 0),
        anchors=("sq0atp-", "sq0csp-", "sq0idp-"),
        pattern=_B + r"(?:sq0atp|sq0csp|sq0idp)-[A-Za-z0-9_-]{22,43}",
    ),
    Rule(
        kind="braintree-token",
        category="payment",
        needles=("access_token$",),
        pattern=r"access_token\$(?:production|sandbox)\$[a-z0-9]{16}\$[a-f0-9]{32}",
    ),
    Rule(
        kind="shopify-token",
        category="payment",
        back=(0, 0),
        anchors=("shpat_", "shpss_", "shpca_", "shppa_"),
        pattern=_B + r"shp(?:at|ss|ca|pa)_[a-fA-F0-9]{32}" + _E,
    ),
    # --- package registries -----------------------------------------------------------------
    Rule(
        kind="npm-token",
        category="package-registry",
        needles=("npm_",),
        pattern=_B + r"npm_[A-Za-z0-9]{36}" + _E,
    ),
    Rule(
        kind="pypi-token",
        category="package-registry",
        needles=("pypi-AgEIcHlwaS5vcmc",),
        pattern=_B + r"pypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{40,}",
    ),
    Rule(
        kind="rubygems-key",
        category="package-registry",
        needles=("rubygems_",),
        pattern=_B + r"rubygems_[a-f0-9]{48}" + _E,
    ),
    Rule(kind="nuget-key", category="package-registry", needles=("oy2",), pattern=r"\boy2[a-z0-9]{43}\b"),
    Rule(
        kind="dockerhub-pat",
        category="package-registry",
        needles=("dckr_pat_",),
        pattern=_B + r"dckr_pat_[A-Za-z0-9_-]{27,}",
    ),
    Rule(
        kind="crates-io-token",
        category="package-registry",
        needles=("cio",),
        pattern=r"\bcio[A-Za-z0-9]{32}\b",
    ),
    # --- email / messaging APIs -------------------------------------------------------------
    Rule(
        kind="sendgrid-key",
        category="saas",
        needles=("SG.",),
        pattern=r"\bSG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}\b",
    ),
    Rule(kind="twilio-api-key", category="saas", needles=("SK",), pattern=r"\bSK[0-9a-fA-F]{32}\b"),
    Rule(kind="mailgun-key", category="saas", needles=("key-",), pattern=_B + r"key-[0-9a-f]{32}" + _E),
    # --- generic shapes ---------------------------------------------------------------------
    Rule(
        kind="jwt",
        category="token",
        needles=("eyJ",),
        pattern=r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}",
    ),
    Rule(
        kind="url-credentials",
        category="connection-string",
        group="v",
        anchors=("://",),
        back=(2, 21),
        pattern=r"\b[a-zA-Z][a-zA-Z0-9+.-]{1,20}://[^\s:/@\"'<>]*:(?P<v>[^\s@/\"'<>]{3,})@[^\s\"'<>]+",
    ),
    Rule(
        kind="connection-string-password",
        category="connection-string",
        group="v",
        flags=re.IGNORECASE,
        anchors=("password", "pwd"),
        pattern=r"\b(?:password|pwd)\s*=\s*(?P<v>[^;\s\"']{3,})(?=;|\s|$|[\"'])",
    ),
    Rule(
        kind="bearer-token",
        category="token",
        group="v",
        flags=re.IGNORECASE,
        anchors=("bearer",),
        pattern=r"\bBearer\s+(?P<v>[A-Za-z0-9._~+/-]{16,}=*)",
    ),
    Rule(
        kind="basic-auth",
        category="token",
        group="v",
        flags=re.IGNORECASE,
        anchors=("authorization",),
        pattern=r"\bAuthorization[\"']?\s*[:=]\s*[\"']?Basic\s+(?P<v>[A-Za-z0-9+/]{8,}={0,2})",
    ),
    Rule(
        kind="key-value-secret",
        category="assignment",
        group="v",
        flags=re.IGNORECASE,
        anchors=_SECRET_KEY_STARTS,
        back=(0, 1),
        pattern=(r"(?:\b|_)(?:" + _SECRET_KEYS + r")\b[\"']?\s*(?::|=|:=|=>)\s*[\"']?(?P<v>[^\s\"'`,;]{8,})"),
    ),
)

_HIGH_ENTROPY = re.compile(r"(?<![A-Za-z0-9+/_=.-])[A-Za-z0-9+/_=-]{32,}(?![A-Za-z0-9+/_=-])")
_HIGH_ENTROPY_ASCII = re.compile(_HIGH_ENTROPY.pattern.encode("ascii"))
_HEX = re.compile(r"^[0-9a-fA-F]+$")
_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
_PLACEHOLDER = re.compile(
    r"EXAMPLE|example|x{4,}|X{4,}|\*{3,}|\.{3}|…|REDACTED|redacted|placeholder|PLACEHOLDER|^<.*>$|^\{\{.*\}\}$"
    r"|^\$\{?[A-Za-z_][A-Za-z0-9_]*\}?$|^%[A-Za-z_]+%$|^(?:your|my)[-_]|^(?:YOUR|MY)[-_]|(.)\1{7,}"
)
_CODE_LIKE = re.compile(
    r"^[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+(?:\(.*)?$|^[a-z]+(?:_[a-z]+)+$|\("
)


@dataclass(frozen=True, slots=True, kw_only=True)
class Finding:
    """One secret found: its kind, category and where it is in the input."""

    kind: str
    category: str
    start: int
    end: int

    def to_dict(self) -> dict[str, object]:
        return {"kind": self.kind, "category": self.category, "start": self.start, "end": self.end}


@dataclass(frozen=True, slots=True, kw_only=True)
class Redaction:
    """The redacted text and what was removed."""

    text: str
    findings: tuple[Finding, ...]

    def counts(self) -> dict[str, int]:
        return dict(Counter(f.kind for f in self.findings))


def _is_placeholder(value: str) -> bool:
    return bool(_PLACEHOLDER.search(value)) or value.startswith(REDACTED) or REDACTED in value


def _entropy(value: str) -> float:
    counts = Counter(value)
    return -sum(n / len(value) * math.log2(n / len(value)) for n in counts.values())


def _looks_random(value: str) -> bool:
    stripped = value.strip("=")
    if len(stripped) < 32 or _HEX.match(stripped) or _UUID.search(stripped) or _is_placeholder(stripped):
        return False
    classes = sum(bool(re.search(p, stripped)) for p in (r"[a-z]", r"[A-Z]", r"[0-9]"))
    if sum(c.isdigit() for c in stripped) < 2 or re.search(r"[a-z]{8,}|[A-Z]{16,}", stripped):
        return False  # identifiers and words: long runs of letters, hardly any digits
    if classes < 3 or stripped.count("/") > len(stripped) // 8 or stripped.count("-") > len(stripped) // 6:
        return False
    return _entropy(stripped) >= 4.2


_ASCII_WORD = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")
#: Leading boundary tests a rule's pattern may open with: (prefix, test on the char before the match).
#: Every pattern that opens with ``\\b`` starts with a word character, so ``\\b`` there means "the
#: char before is no word character" (``re``'s Unicode notion: alphanumeric or ``_``).
_LEADS: tuple[tuple[str, Callable[[str], bool]], ...] = (
    (_B, lambda before: before not in _ASCII_WORD),
    (r"\b", lambda before: not (before.isalnum() or before == "_")),
)


@dataclass(frozen=True, slots=True)
class _Plan:
    """How one rule runs fast: a search for the pattern's body and a boundary test, or anchors."""

    full: re.Pattern[str]
    body: re.Pattern[str] | None
    lead: Callable[[str], bool] | None


@cache
def _plan(rule: Rule) -> _Plan:
    for prefix, test in _LEADS:
        if not rule.anchors and rule.pattern.startswith(prefix):
            return _Plan(full=rule.regex, body=_compiled(rule.pattern[len(prefix) :], rule.flags), lead=test)
    return _Plan(full=rule.regex, body=None, lead=None)


#: The non-ASCII chars ``re.IGNORECASE`` equates to an ASCII letter (found by trying every code point).
_IGNORECASE_ODD = (("\u0130", "i"), ("\u0131", "i"), ("\u017f", "s"), ("\u212a", "k"))


def _folded(text: str) -> bytes:
    """``text`` as ASCII bytes, position for position, where each char ``re.IGNORECASE`` equates to an
    ASCII letter is that letter in lower case, and every other non-ASCII char is ``?``."""
    for odd, letter in _IGNORECASE_ODD:
        if odd in text:
            text = text.replace(odd, letter)
    return text.encode("ascii", errors="replace").lower()


class _Views:
    """Byte views of one text, made on first use, position for position: ``ascii`` (every non-ASCII
    char a ``?``) and ``folded`` (see :func:`_folded`). An ASCII string without ``?`` occurs in
    ``ascii`` exactly where it occurs in the text, and bytes are searched far faster than text."""

    __slots__ = ("_ascii", "_folded", "text")

    def __init__(self, text: str) -> None:
        self.text = text
        self._ascii: bytes | None = None
        self._folded: bytes | None = None

    @property
    def ascii(self) -> bytes:
        if self._ascii is None:
            self._ascii = self.text.encode("ascii", errors="replace")
        return self._ascii

    @property
    def folded(self) -> bytes:
        if self._folded is None:
            self._folded = _folded(self.text)
        return self._folded


@cache
def _as_bytes(strings: tuple[str, ...]) -> tuple[bytes, ...]:
    return tuple(item.encode("ascii") for item in strings)


def _anchor_starts(rule: Rule, haystack: bytes) -> list[int]:
    starts: set[int] = set()
    low, high = rule.back
    for anchor in _as_bytes(rule.anchors):
        at = haystack.find(anchor)
        while at >= 0:
            starts.update(range(max(at - high, 0), at - low + 1))
            at = haystack.find(anchor, at + 1)
    return sorted(starts)


def _rule_matches(rule: Rule, views: _Views) -> Iterator[re.Match[str]]:
    """Exactly the matches ``rule.regex.finditer(views.text)`` gives (no pattern here can match empty)."""
    text = views.text
    if rule.needles and not any(needle in views.ascii for needle in _as_bytes(rule.needles)):
        return
    plan = _plan(rule)
    if rule.anchors:
        pos = 0
        for start in _anchor_starts(rule, views.folded if rule.flags & re.IGNORECASE else views.ascii):
            if start >= pos and (match := plan.full.match(text, start)) is not None:
                pos = match.end()
                yield match
        return
    if plan.body is None or plan.lead is None:
        yield from plan.full.finditer(text)
        return
    pos = 0
    search, lead = plan.body.search, plan.lead
    while (match := search(text, pos)) is not None:
        start = match.start()
        if start == 0 or lead(text[start - 1]):
            yield match
            pos = match.end()
        else:
            pos = start + 1


def _rule_findings(views: _Views) -> list[Finding]:
    found: list[Finding] = []
    for rule in RULES:
        for match in _rule_matches(rule, views):
            start, end = match.span(rule.group)
            value = match.group(rule.group)
            if start < 0 or _is_placeholder(value):
                continue
            if rule.group and _CODE_LIKE.search(value):
                continue
            found.append(Finding(kind=rule.kind, category=rule.category, start=start, end=end))
    return found


def _overlap_test(spans: list[tuple[int, int]]) -> Callable[[int, int], bool]:
    """A test "does [start, end) overlap one of ``spans``" in O(log n) (spans may overlap each other)."""
    import bisect

    spans = sorted(spans)
    starts = [a for a, _ in spans]
    reach: list[int] = []  # reach[i]: the furthest end among spans[0..i]
    for _, b in spans:
        reach.append(max(b, reach[-1]) if reach else b)

    def overlaps(start: int, end: int) -> bool:
        before = bisect.bisect_left(starts, end)  # spans that start before `end`
        return before > 0 and reach[before - 1] > start

    return overlaps


def scan_secrets(text: str, *, high_entropy: bool = True) -> tuple[Finding, ...]:
    """Every secret in ``text``, without overlaps, in order of position."""
    views = _Views(text)
    found = _rule_findings(views)
    if high_entropy:
        overlaps = _overlap_test([(f.start, f.end) for f in found])
        found += [
            Finding(kind="high-entropy-string", category="entropy", start=m.start(), end=m.end())
            for m in _HIGH_ENTROPY_ASCII.finditer(
                views.ascii
            )  # ASCII classes only: same spans as on the text
            if _looks_random(text[m.start() : m.end()]) and not overlaps(m.start(), m.end())
        ]
    found.sort(key=lambda f: (f.start, -(f.end - f.start)))
    kept: list[Finding] = []
    for finding in found:
        if kept and finding.start < kept[-1].end:
            if finding.end > kept[-1].end and finding.kind == kept[-1].kind:
                kept[-1] = Finding(
                    kind=finding.kind, category=finding.category, start=kept[-1].start, end=finding.end
                )
            continue
        kept.append(finding)
    return tuple(kept)


def redact(text: str, *, high_entropy: bool = True) -> Redaction:
    """Replace every secret in ``text`` with ``[REDACTED_SECRET]``; report what was found."""
    findings = scan_secrets(text, high_entropy=high_entropy)
    if not findings:
        return Redaction(text=text, findings=())
    parts: list[str] = []
    cursor = 0
    for finding in findings:
        parts += [text[cursor : finding.start], REDACTED]
        cursor = finding.end
    parts.append(text[cursor:])
    return Redaction(text="".join(parts), findings=findings)


def redact_secrets(text: str) -> str:
    """The redacted text only (what goes to the model, the database and the memory folder)."""
    return redact(text).text
