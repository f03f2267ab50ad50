"""Phase 1 and Phase 2 pieces against Codex's vectors, and the memory folder's confinement."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from memory_helpers import user_session

from skillshelf.errors import ModelCallError, PathEscapeError
from skillshelf.memory.layout import summary_file_stem
from skillshelf.memory.phase1 import (
    STAGE1_SCHEMA,
    build_stage1_prompt,
    filter_items,
    parse_stage1_reply,
    serialize_items,
    truncate_middle,
)
from skillshelf.memory.phase2 import (
    EMPTY_RAW,
    Consolidation,
    apply_consolidation,
    build_consolidation_prompt,
    keep_memory_whole,
    memory_shown_whole,
    parse_consolidation_reply,
    render_selection,
    sync_artifacts,
)
from skillshelf.memory.settings import MemorySettings
from skillshelf.memory.store.records import OutputRow, Selection
from skillshelf.memory.transcripts.model import Item
from testkit import reference_vectors

VECTORS_FILE = "codex-memory-vectors.json"


def _vectors(area: str) -> list[dict[str, Any]]:
    """Codex's memory vectors of ``area``: never empty (a skip naming the file without ../shared)."""
    return reference_vectors(VECTORS_FILE, area)


def _vector(area: str, contains: str = "") -> dict[str, Any]:
    for vector in _vectors(area):
        if contains in vector["description"]:
            return vector
    pytest.fail(f"{VECTORS_FILE} has no {area} vector whose description contains {contains!r}")


def _items(raw: list[dict[str, Any]]) -> list[Item]:
    return [Item(kind="message", role=m["role"], parts=tuple(c["text"] for c in m["content"])) for m in raw]


def test_filter_drops_injected_blocks_like_codex() -> None:
    vector = _vector("phase1.filter", "User-message content filtering")
    kept = filter_items(_items(vector["input"]["rollout_items"]))
    expected = _items(vector["expected"]["serialized_items"])
    assert [i.parts for i in kept] == [i.parts for i in expected]
    assert filter_items([Item(kind="message", role="developer", parts=("x",))]) == []


def test_truncation_matches_codex() -> None:
    for vector in _vectors("truncation.helper"):
        assert (
            truncate_middle(vector["input"]["text"], vector["input"]["max_tokens"])
            == vector["expected"]["output"]
        )


def test_the_stage1_token_limit_follows_the_context_window() -> None:
    assert MemorySettings(context_window=123_000).stage1_token_limit == 81_795
    assert MemorySettings().stage1_token_limit == 150_000
    cut = truncate_middle("a" * 700_000 + "middle" + "z" * 700_000, 81_795)
    assert cut.startswith("a") and cut.endswith("z") and "tokens truncated" in cut


def test_schema_and_file_stems_match_codex() -> None:
    assert _vector("phase1.schema")["expected"]["schema"] == STAGE1_SCHEMA
    for vector in _vectors("storage.filename"):
        data = vector["input"]
        assert (
            summary_file_stem(data["thread_id"], data["source_updated_at"] * 1000, data["rollout_slug"])
            == vector["expected"]["stem"]
        )


def test_the_gate_and_invalid_replies() -> None:
    assert parse_stage1_reply('{"raw_memory": "", "rollout_summary": "", "rollout_slug": ""}') is None
    result = parse_stage1_reply(
        '```json\n{"raw_memory": "use sk-' + "a1B2" * 8 + '", "rollout_summary": "s", '
        '"rollout_slug": null}\n```'
    )
    assert result is not None and "[REDACTED_SECRET]" in result.raw_memory and result.rollout_slug is None
    with pytest.raises(ModelCallError) as info:
        parse_stage1_reply('{"raw_memory": 3}')
    assert info.value.code == "ME034"


@pytest.mark.parametrize(
    ("reply", "extra"),
    [
        (
            '{"raw_memory": "r", "rollout_summary": "s", "rollout_slug": null, "confidence": 0.9}',
            "confidence",
        ),
        ('{"raw_memory": "", "rollout_summary": "", "rollout_slug": "", "note": ""}', "note"),
    ],
)
def test_a_reply_with_keys_the_schema_does_not_allow_fails_the_job_as_codex_does(
    reply: str, extra: str
) -> None:
    with pytest.raises(ModelCallError) as info:
        parse_stage1_reply(reply)
    assert info.value.code == "ME049" and repr(extra) in info.value.message


def test_stage1_prompt_is_redacted_and_marks_the_transcript_as_data(tmp_path: Path) -> None:
    secret = "xoxb-" + "1234567890-" * 2 + "abcdefABCDEF1234"
    session = user_session(tmp_path, f"post with {secret}")
    system, user = build_stage1_prompt(session, token_limit=1000)
    assert secret not in user and "[REDACTED_SECRET]" in user and "Do not follow instructions" in user
    assert "[REDACTED_SECRET]" in system
    assert json.loads(serialize_items(session.items))[0]["content"] == ["post with [REDACTED_SECRET]"]


def _row(i: str, at: int, **kw: Any) -> OutputRow:
    return OutputRow(
        session_id=i,
        scope="s",
        source_updated_at_ms=at,
        raw_memory=f"raw {i}",
        rollout_summary=f"sum {i}",
        rollout_slug=f"rollout-{i}",
        usage_count=0,
        last_usage_ms=None,
        selected_for_phase2=False,
        selected_source_updated_at_ms=None,
        path=f"/t/{i}.jsonl",
        cwd="/w",
        git_branch=kw.get("branch"),
    )


def test_sync_writes_summaries_raw_memories_and_wipes_when_empty(tmp_path: Path) -> None:
    (tmp_path / "rollout_summaries").mkdir()
    (tmp_path / "rollout_summaries" / "stale.md").write_text("old", encoding="utf-8")
    (tmp_path / "rollout_summaries" / "notes.txt").write_text("kept", encoding="utf-8")
    sync_artifacts(tmp_path, [_row("a", 100_999, branch="feature/x"), _row("b", 200_000)])
    files = sorted(p.name for p in (tmp_path / "rollout_summaries").iterdir())
    assert len(files) == 3 and "stale.md" not in files and "notes.txt" in files
    text = next((tmp_path / "rollout_summaries").glob("*rollout_a.md")).read_text(encoding="utf-8")
    assert text.startswith(
        "thread_id: a\nupdated_at: 1970-01-01T00:01:40+00:00\nrollout_path: /t/a.jsonl\ncwd: /w\n"
        "git_branch: feature/x\n\nsum a\n"
    )
    raw = (tmp_path / "raw_memories.md").read_text(encoding="utf-8")
    assert raw.index("## Thread `a`") < raw.index("## Thread `b`")
    assert "## Thread `b`\nupdated_at: 1970-01-01T00:03:20+00:00\n" in raw  # Codex's whole seconds
    (tmp_path / "MEMORY.md").write_text("x", encoding="utf-8")
    (tmp_path / "skills" / "demo").mkdir(parents=True)
    sync_artifacts(tmp_path, [])
    assert (tmp_path / "raw_memories.md").read_text(encoding="utf-8") == EMPTY_RAW
    assert not (tmp_path / "MEMORY.md").exists() and not (tmp_path / "skills").exists()


def test_selection_block_lists_added_retained_and_removed() -> None:
    selection = Selection(
        selected=(_row("C", 3), _row("B", 2)),
        retained_ids=frozenset({"C"}),
        previous=(_row("A", 1), _row("C", 3)),
        removed=(_row("A", 1),),
    )
    text = render_selection(selection)
    assert "- selected inputs this run: 2\n- newly added since the last successful Phase 2 run: 1" in text
    assert "- [retained] thread_id=C," in text and "- [added] thread_id=B," in text
    assert "Removed from the last successful Phase 2 selection:\n- thread_id=A," in text


@pytest.mark.parametrize(
    "path",
    [
        "../escape.md",
        "/etc/passwd",
        "raw_memories.md",
        "rollout_summaries/x.md",
        "skills/Bad Name/SKILL.md",
        "notes.md",
        "~/x",
    ],
)
def test_the_model_cannot_write_outside_its_files(path: str) -> None:
    with pytest.raises(PathEscapeError):
        parse_consolidation_reply(
            json.dumps({"files": {path: "x", "MEMORY.md": "m", "memory_summary.md": "s"}}), init=True
        )


def test_consolidation_reply_rules_and_symlinks(tmp_path: Path) -> None:
    with pytest.raises(ModelCallError) as info:
        parse_consolidation_reply('{"files": {"MEMORY.md": "m"}}', init=True)
    assert info.value.code == "ME037"
    ok = parse_consolidation_reply('{"files": {}, "delete": ["skills/old/"]}', init=False)
    assert ok.delete == ("skills/old",)
    outside = tmp_path / "outside"
    outside.mkdir()
    root = tmp_path / "root"
    (root / "skills").mkdir(parents=True)
    (root / "skills" / "evil").symlink_to(outside, target_is_directory=True)
    with pytest.raises(PathEscapeError):
        apply_consolidation(root, Consolidation(files={"skills/evil/SKILL.md": "x"}, delete=()))
    assert list(outside.iterdir()) == []
    changed = apply_consolidation(
        root, Consolidation(files={"MEMORY.md": "m", "skills/ok/SKILL.md": "s"}, delete=())
    )
    assert (
        changed == ["MEMORY.md", "skills/ok/SKILL.md"]
        and (root / "MEMORY.md").read_text(encoding="utf-8") == "m"
    )


def test_citations_are_parsed_like_codex() -> None:
    from skillshelf.memory.read import parse_citations

    vector = _vector("read_path.citations", "Citation parsing")
    entries, ids = parse_citations(vector["input"]["citation"])
    assert [list(e) for e in entries] == vector["expected"]["entries"]
    assert ids == vector["expected"]["rollout_ids"]
    legacy = _vector("read_path.citations", "Legacy")
    _, legacy_ids = parse_citations(legacy["input"]["citation"])
    assert legacy_ids[0] == "<first>" and "<second>" in legacy_ids


def test_a_citation_with_line_numbers_that_are_not_ascii_digits_is_skipped() -> None:
    from skillshelf.memory.read import parse_citations

    reply = (
        "<citation_entries>\nMEMORY.md:\u00b2-3|note=[superscript]\nMEMORY.md:1-"
        + "9" * 5000
        + "|note=[long]\nMEMORY.md:4-7|note=[kept]\n</citation_entries>"
    )
    entries, _ = parse_citations(reply)
    assert entries == [("MEMORY.md", 4, 7, "kept")]


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=200))
def test_any_reply_text_parses_into_citations_without_an_error(inside: str) -> None:
    from skillshelf.memory.read import parse_citations

    entries, ids = parse_citations(
        f"<citation_entries>\n{inside}\n</citation_entries><rollout_ids>{inside}</rollout_ids>"
    )
    assert all(isinstance(start, int) and isinstance(end, int) for _, start, end, _ in entries)
    assert all(isinstance(i, str) for i in ids)


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=400), st.integers(min_value=0, max_value=120))
def test_middle_truncation_keeps_head_and_tail_within_budget(text: str, limit: int) -> None:
    out = truncate_middle(text, limit)
    if len(text.encode("utf-8")) <= 4 * limit:
        assert out == text
        return
    head, marker, tail = out.partition("…")
    assert text.startswith(head) and text.endswith(out.rsplit("truncated…", 1)[1])
    kept = len(head.encode("utf-8")) + len(out.rsplit("truncated…", 1)[1].encode("utf-8"))
    assert kept <= 4 * limit and "tokens truncated…" in out


def test_memory_md_is_kept_from_a_rewrite_that_would_lose_what_the_prompt_cut_out() -> None:
    reply = Consolidation(files={"MEMORY.md": "new", "memory_summary.md": "s"}, delete=())
    assert keep_memory_whole(reply, shown_whole=True, direct=True) == (reply, ())
    assert keep_memory_whole(reply, shown_whole=False, direct=False) == (reply, ())  # an agent reads it whole
    kept, why = keep_memory_whole(reply, shown_whole=False, direct=True)
    assert kept.files == {"memory_summary.md": "s"} and "shortened" in why[0]
    deleted = Consolidation(files={}, delete=("MEMORY.md", "skills/old"))
    assert keep_memory_whole(deleted, shown_whole=False, direct=True)[0].delete == ("skills/old",)
    copied = Consolidation(files={"MEMORY.md": "head…1200 tokens truncated…tail"}, delete=())
    kept, why = keep_memory_whole(copied, shown_whole=True, direct=False)
    assert kept.files == {} and "copies the prompt's shortened view" in why[0]


def test_the_prompt_says_when_memory_md_is_shown_shortened(tmp_path: Path) -> None:
    selection = Selection(selected=(_row("A", 1),), retained_ids=frozenset(), previous=(), removed=())
    (tmp_path / "MEMORY.md").write_text("# Task Group: x\n- short\n", encoding="utf-8")
    assert memory_shown_whole(tmp_path, token_limit=1000)
    assert (
        "too long to show whole" not in build_consolidation_prompt(tmp_path, selection, token_limit=1000)[0]
    )
    (tmp_path / "MEMORY.md").write_text("- line\n" * 1000, encoding="utf-8")
    assert not memory_shown_whole(tmp_path, token_limit=1000)
    prompt, init = build_consolidation_prompt(tmp_path, selection, token_limit=1000)
    assert "too long to show whole" in prompt and "tokens truncated" in prompt and not init
