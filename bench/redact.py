"""Redaction throughput: `skillshelf redact`'s core (memory/redact/) over three kinds of text.

    python bench/redact.py [--mb 20] [--runs 3]
    python bench/redact.py --hostile   # each rule on long lines that repeat its anchors

- ``prose``: the skill corpora in ../shared/corpora (markdown, code, shell) with secret lines of
  every family the rules know mixed in (token formats, quoted and command-line passwords,
  JWT-shaped tokens with opaque payloads, dotted session tokens, OpenSSH keys);
- ``jsonl``: the real Codex and Claude Code transcripts of tests/fixtures/transcripts with the
  same secret lines in their tool output, so every line goes through the JSON path (decode,
  redact each string, re-encode);
- ``keys``: OpenSSH private keys (ssh-keygen; skipped when it is missing);
- ``echoes``: a model answer scrubbed of secrets redaction removed from its input
  (:class:`~skillshelf.memory.redact.echoes.KnownSecrets`), over 4 MB of ``prose`` with the
  secrets of that text, then with 10,000 more (the scrub reads the text once, whatever the
  number).

Each is repeated up to --mb megabytes. Prints MB/s (best of --runs) and the findings per kind,
so a speed-up that loses a finding shows up as a new count, then the rules that cost the most on
``prose`` (each rule's own matching, timed alone).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import string
import subprocess
import tempfile
import time
from collections import Counter
from pathlib import Path

from skillshelf.memory.redact import RULES, redact
from skillshelf.memory.redact.echoes import KnownSecrets
from skillshelf.memory.redact.matching import Views, rule_matches
from skillshelf.memory.redact.rule import Rule

REPO = Path(__file__).resolve().parents[1]
CORPORA = Path(os.environ.get("SKILLSHELF_SHARED", REPO.parent / "shared")).resolve() / "corpora"
FIXTURES = REPO / "tests" / "fixtures" / "transcripts"
_rng = random.Random(7)


def _r(n: int, alphabet: str = string.ascii_letters + string.digits) -> str:
    return "".join(_rng.choice(alphabet) for _ in range(n))


def _secret_lines() -> list[str]:
    b64url = string.ascii_letters + string.digits + "-_"
    return [
        f"export GITHUB_TOKEN=ghp_{_r(36)}",
        f"sha 3f2a9c1d4e5b6a7980f1e2d3c4b5a69788776655 password=hunter2{_r(8)}",
        f"curl -H 'Authorization: Bearer {_r(24)}' https://api.example.net/v1 postgres://app:{_r(10)}@db/x",
        f"aws_secret_access_key = {_r(40, string.ascii_letters + string.digits + '/+')}",
        f"export DB_PASSWORD='{_r(7)} {_r(6)} {_r(8)}'",
        f"curl -u admin:{_r(12)} https://x.example.net && mysql -u root -p{_r(14)} app",
        f"./deploy --password {_r(12)} --token={_r(20)}",
        f'echo "cookie session=v1.{_r(44)}"',
        f"jwt eyJhbGciOiJIUzI1NiJ9.{_r(40, b64url)}.{_r(43, b64url)}",
        f'password=pa$$w0rd"Q\'{_r(3)}! PGPASSWORD="{_r(6)}@{_r(6)}" psql',
    ]


def _keys(count: int) -> list[str]:
    if not shutil.which("ssh-keygen"):
        return []
    keys = []
    with tempfile.TemporaryDirectory() as tmp:
        for n in range(count):
            path = Path(tmp) / f"k{n}"
            kind = ("ed25519", "ecdsa", "rsa")[n % 3]
            args = ["ssh-keygen", "-q", "-t", kind, "-N", "", "-f", str(path)] + (
                ["-b", "1024"] if kind == "rsa" else []
            )
            subprocess.run(args, check=True, capture_output=True)
            keys.append(path.read_text(encoding="ascii"))
    return keys


def _repeat(blob: str, megabytes: int) -> str:
    size = megabytes * 1024 * 1024
    return (blob * (size // max(len(blob), 1) + 1))[:size]


def _prose(megabytes: int, secrets: list[str], keys: list[str]) -> str:
    parts = []
    for path in sorted(CORPORA.rglob("*.md"))[:3000]:
        try:
            parts.append(path.read_text(encoding="utf-8", errors="replace"))
        except OSError:
            continue
    mixed = "\n".join(secrets + keys[:3]) + "\n"
    blob = "".join(part + "\n" + (mixed if n % 20 == 0 else "") for n, part in enumerate(parts)) or mixed
    return _repeat(blob, megabytes)


def _jsonl(megabytes: int, secrets: list[str], keys: list[str]) -> str:
    lines = []
    for path in sorted(FIXTURES.rglob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            record = json.loads(line)
            payload = record.get("payload", {})
            if payload.get("type") == "function_call_output":
                payload["output"] += "\n" + "\n".join(secrets + keys[:1])
            lines.append(json.dumps(record))
    return _repeat("\n".join(lines) + "\n", megabytes)


def _measure(name: str, text: str, runs: int) -> None:
    megabytes = len(text.encode("utf-8", errors="surrogatepass")) / 1e6
    best, counts = float("inf"), Counter[str]()
    for _ in range(runs):
        start = time.perf_counter()
        counts = Counter(f.kind for f in redact(text).findings)
        best = min(best, time.perf_counter() - start)
    kinds = ", ".join(f"{kind} {n}" for kind, n in counts.most_common())
    print(f"{name:<8}{megabytes:>8.1f} MB {best:>8.2f} s {megabytes / best:>8.2f} MB/s   {kinds}")


def _echoes(text: str, runs: int) -> None:
    own = KnownSecrets.of(redact(text).removed)
    many = own | KnownSecrets.of(_r(_rng.randint(12, 60)) for _ in range(10_000))
    megabytes = len(text.encode("utf-8")) / 1e6
    for label, known in (("its own", own), ("+10,000", many)):
        best = float("inf")
        for _ in range(runs):
            start = time.perf_counter()
            known.scrub(text)
            best = min(best, time.perf_counter() - start)
        pieces = f"{len(known.pieces):,} pieces ({label})"
        print(f"{'echoes':<8}{megabytes:>8.1f} MB {best:>8.2f} s {megabytes / best:>8.2f} MB/s   {pieces}")


def _costliest(text: str, top: int = 8) -> None:
    views = Views(text)
    views.ascii, views.folded  # noqa: B018 (made once, as redact makes them once)
    costs = []
    for rule in RULES:
        start = time.perf_counter()
        found = sum(1 for _ in rule_matches(rule, views))
        costs.append((time.perf_counter() - start, rule.kind, found))
    print(f"costliest rules on prose ({len(text) / 1e6:.1f} MB):")
    for seconds, kind, found in sorted(costs, reverse=True)[:top]:
        print(f"  {kind:<28}{seconds:>7.3f} s {found:>7} matches")


_HOSTILE_FILLERS = (" ", "=", "1", "-", "=aB1", " u/", ":a/", "\nvalue: aB1", " is aB1")
_HOSTILE_CHARS = 60_000
# Units no anchor-plus-filler pair spells: env names cut into many parts, a name left open in quotes.
_HOSTILE_UNITS = ("_SECRET_A", "_TOKEN_1_2_3", "A_TOKEN: ", 'API_KEY="a')
_HOSTILE_GROWTH = 3.0  # time on twice the line over time on the line: about 2 when linear, 4 when quadratic


def _rule_seconds(rule: Rule, text: str) -> float:
    start = time.perf_counter()
    for _ in rule_matches(rule, Views(text)):
        pass
    return time.perf_counter() - start


def _line(unit: str, chars: int = _HOSTILE_CHARS) -> str:
    return unit * (chars // len(unit))


def _hostile(top: int = 5) -> bool:
    """Each rule alone on one-line texts of 60,000 chars that repeat one of its anchors or needles
    (alone, and after a capital) with a filler, or one of :data:`_HOSTILE_UNITS`: the slowest
    rules, each on its slowest line and on that line twice as long, best of three each (a rule
    whose time grows with the square of the line shows a growth near 4: marked, and the run exits
    1), and ``redact()`` over the slowest line. The growth, not a time limit, is what is checked:
    it holds on a busy machine too."""
    costs = []
    for rule in RULES:
        words = [*rule.anchors, *rule.needles] or [rule.kind.split("-")[0]]
        units = [lead + word + filler for word in words for lead in ("", "A") for filler in _HOSTILE_FILLERS]
        worst = max((_rule_seconds(rule, _line(unit)), unit) for unit in (*units, *_HOSTILE_UNITS))
        costs.append((*worst, rule))
    costs.sort(key=lambda cost: cost[0], reverse=True)
    print(f"slowest rules on hostile lines ({_HOSTILE_CHARS:,} chars, one unit repeated; x: on twice that)")
    quadratic = []
    for _, unit, rule in costs[:top]:
        once, twice = (
            min(_rule_seconds(rule, _line(unit, chars)) for _ in range(3))
            for chars in (_HOSTILE_CHARS, 2 * _HOSTILE_CHARS)
        )
        growth = twice / max(once, 1e-9)
        start = time.perf_counter()
        redact(_line(unit))
        whole = time.perf_counter() - start
        mark = "  QUADRATIC?" if growth > _HOSTILE_GROWTH else ""
        quadratic += [rule.kind] if mark else []
        row = f"{rule.kind:<28}{once:>7.3f} s  x{growth:>4.1f}   redact() {whole:>6.3f} s"
        print(f"  {row}   {unit!r}{mark}")
    if quadratic:
        print(f"grows faster than the line on a hostile line: {', '.join(quadratic)}")
    return not quadratic


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--mb", type=int, default=20)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--hostile", action="store_true", help="only the hostile lines (a few minutes)")
    args = parser.parse_args()
    if args.hostile:
        raise SystemExit(0 if _hostile() else 1)
    secrets, keys = _secret_lines(), _keys(12)
    prose = _prose(args.mb, secrets, keys)
    _measure("prose", prose, args.runs)
    _measure("jsonl", _jsonl(args.mb, secrets, keys), args.runs)
    if keys:
        _measure("keys", _repeat("\n".join(keys), max(1, args.mb // 4)), args.runs)
    else:
        print("keys    skipped: ssh-keygen is not installed")
    _echoes(prose[: 4 * 1024 * 1024], args.runs)
    _costliest(prose[: 4 * 1024 * 1024])


if __name__ == "__main__":
    main()
