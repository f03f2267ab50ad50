"""False findings of redaction: ``redact()`` over every text file of ``../shared/corpora``.

    python bench/redact_corpus.py [--out FINDINGS.tsv]

The corpora are public skill repositories: what redaction finds there is documentation
examples, test fixtures and code, not live secrets, so the count is how much a change makes
redaction remove that it should keep. ``--out`` writes one line per finding (file, kind, the
text around it): run it before and after a rule change and read every line that changed.
"""

from __future__ import annotations

import argparse
import os
from collections import Counter
from pathlib import Path

from skillshelf.memory.redact import redact

REPO = Path(__file__).resolve().parents[1]
CORPORA = Path(os.environ.get("SKILLSHELF_SHARED", REPO.parent / "shared")).resolve() / "corpora"
MAX_BYTES = 2_000_000
CONTEXT = 40


def findings(root: Path) -> tuple[int, Counter[str], list[str]]:
    """Files read, findings per kind, and one TSV line per finding."""
    kinds: Counter[str] = Counter()
    rows: list[str] = []
    files = 0
    for path in sorted(root.rglob("*")):
        if not path.is_file() or path.is_symlink() or path.stat().st_size > MAX_BYTES:
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue
        files += 1
        for found in redact(text).findings:
            kinds[found.kind] += 1
            around = text[max(0, found.start - CONTEXT) : found.end + 10]
            rows.append(f"{path.relative_to(root)}\t{found.kind}\t{around!r}")
    return files, kinds, rows


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--out", type=Path, help="write every finding here (TSV)")
    args = parser.parse_args()
    if not CORPORA.is_dir():
        raise SystemExit(f"error: {CORPORA} is not there (set SKILLSHELF_SHARED to the shared folder)")
    files, kinds, rows = findings(CORPORA)
    print(f"{files:,} files of {CORPORA}: {sum(kinds.values()):,} findings")
    for kind, count in kinds.most_common():
        print(f"{count:>8,} {kind}")
    if args.out:
        args.out.write_text("\n".join(rows) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
