"""Redaction throughput: `skillshelf redact`'s core (memory/redact.py) over transcript-like text.

    python bench/redact.py [--mb 20] [--runs 3]

The text is the skill corpora in ../shared/corpora (markdown, code, shell) with tokens of the
formats the rules know mixed in, repeated up to --mb megabytes. Prints MB/s (best of --runs)
and how many secrets were found, so a speed-up that loses a finding shows up as a new count.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from skillshelf.memory.redact import redact

CORPORA = Path(__file__).resolve().parents[2] / "shared" / "corpora"
TOKENS = (
    "export GITHUB_TOKEN=ghp_" + "a1B2" * 9 + "\n",
    '{"type":"response_item","payload":{"text":"sha 3f2a9c1d4e5b6a7980f1e2d3c4b5a69788776655 password=hunter2hunter2"}}\n',
    "curl -H 'Authorization: Bearer abcdefghijklmnop1234' https://api.example.net/v1 postgres://app:s3cretpw@db/x\n",
    "aws_secret_access_key = " + "Ab1/" * 10 + "\n",
)


def _text(megabytes: int) -> str:
    parts = []
    for path in sorted(CORPORA.rglob("*.md"))[:3000]:
        try:
            parts.append(path.read_text(encoding="utf-8", errors="replace"))
        except OSError:
            continue
    blob = "\n".join(parts) + "".join(TOKENS) * 500 if parts else "".join(TOKENS) * 5000
    size = megabytes * 1024 * 1024
    return (blob * (size // len(blob) + 1))[:size]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--mb", type=int, default=20)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    text = _text(args.mb)
    megabytes = len(text.encode("utf-8", errors="surrogatepass")) / 1e6
    best = float("inf")
    found = 0
    for _ in range(args.runs):
        start = time.perf_counter()
        found = len(redact(text).findings)
        best = min(best, time.perf_counter() - start)
    print(
        f"{'redact':<12}{megabytes:>8.1f} MB {best:>8.2f} s {megabytes / best:>8.2f} MB/s   {found} secrets found"
    )


if __name__ == "__main__":
    main()
