"""skillshelf's own rollout-summary file names pass redaction as they are, in ``raw_memories.md``
and in the Phase 2 prompt, so the consolidating model can link a raw memory to its summary;
a random token of the same length is still a secret."""

from __future__ import annotations

import random
import uuid
from pathlib import Path

import pytest
from redact_cases import r

from skillshelf.memory.layout import summary_file_stem
from skillshelf.memory.phase2 import build_consolidation_prompt, sync_artifacts
from skillshelf.memory.redact import REDACTED, redact
from skillshelf.memory.store.records import OutputRow, Selection

SLUGS = [
    "deploy_staging",
    "fix-ci-flake",
    "Refactor Auth Module",
    "migrate_db_to_pg16",
    "bump-deps-2026",
    "debug_k8s_ingress_timeouts",
    "write release notes v2.3",
    "x",
    None,
    "tune_bm25_weights_and_rerank_thresholds_for_the_large_library",
]


def _stems(count: int) -> list[tuple[str, int, str | None]]:
    rng = random.Random(20261207)
    at = 1_796_000_000_000
    return [
        (str(uuid.UUID(int=rng.getrandbits(128))), at + rng.randrange(10**10), SLUGS[n % len(SLUGS)])
        for n in range(count)
    ]


def _row(session_id: str, at: int, slug: str | None) -> OutputRow:
    return OutputRow(
        session_id=session_id,
        scope="s",
        source_updated_at_ms=at,
        raw_memory="- use make check",
        rollout_summary="deploy recap",
        rollout_slug=slug,
        usage_count=0,
        last_usage_ms=None,
        selected_for_phase2=False,
        selected_source_updated_at_ms=None,
        path="/t/x.jsonl",
        cwd="/w",
        git_branch=None,
    )


def test_every_summary_file_name_passes_redaction_unchanged() -> None:
    names = [summary_file_stem(*combo) + ".md" for combo in _stems(400)]
    changed = [
        n for n in names if redact(f"rollout_summary_file: {n}\n").text != f"rollout_summary_file: {n}\n"
    ]
    assert changed == []


def test_raw_memories_and_the_phase2_prompt_name_each_summary_file(tmp_path: Path) -> None:
    rows = [_row(*combo) for combo in _stems(40)]
    sync_artifacts(tmp_path, rows)
    raw = (tmp_path / "raw_memories.md").read_text(encoding="utf-8")
    selection = Selection(selected=tuple(rows), retained_ids=frozenset(), previous=(), removed=())
    prompt, _ = build_consolidation_prompt(tmp_path, selection, token_limit=200_000)
    for row in rows:
        stem = summary_file_stem(row.session_id, row.source_updated_at_ms, row.rollout_slug)
        assert (tmp_path / "rollout_summaries" / f"{stem}.md").is_file()
        assert f"rollout_summary_file: {stem}.md\n" in raw
        assert f"rollout_summary_file: {stem}.md\n" in prompt
    assert REDACTED not in raw


@pytest.mark.parametrize(
    "value",
    [
        lambda: r(40),
        lambda: f"2026-12-07T06-03-39-{r(40)}",  # a stem's time before a mixed-case token
        lambda: f"2026-12-07T06-03-39-paZU-{r(40)}",  # a stem whose slug is a mixed-case token
    ],
    ids=["token", "time-then-token", "stem-then-token"],
)
def test_a_random_token_in_the_same_place_is_still_redacted(value: object) -> None:
    assert callable(value)
    token = value()
    assert redact(f"rollout_summary_file: {token}.md\n").text == f"rollout_summary_file: {REDACTED}\n"
