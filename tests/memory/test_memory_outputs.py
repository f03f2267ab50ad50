"""Which consolidated memory files changed since Phase 2 read them."""

from __future__ import annotations

from pathlib import Path

from skillshelf.memory.outputs import changed_since, edited_note, snapshot


def test_edits_additions_and_removals_of_the_consolidated_files_are_named(tmp_path: Path) -> None:
    (tmp_path / "skills" / "deploy").mkdir(parents=True)
    (tmp_path / "MEMORY.md").write_text("# Task Group: deploy\n", encoding="utf-8")
    (tmp_path / "skills" / "deploy" / "SKILL.md").write_text("---\nname: deploy\n---\n", encoding="utf-8")
    (tmp_path / "raw_memories.md").write_text("phase 2's own input\n", encoding="utf-8")
    before = snapshot(tmp_path)
    assert changed_since(tmp_path, before) == ()

    (tmp_path / "raw_memories.md").write_text("rewritten by phase 2 itself\n", encoding="utf-8")
    assert changed_since(tmp_path, before) == ()  # not a file a person mends

    (tmp_path / "MEMORY.md").write_text("# Task Group: deploy\n- mended\n", encoding="utf-8")
    (tmp_path / "memory_summary.md").write_text("new\n", encoding="utf-8")
    (tmp_path / "skills" / "deploy" / "SKILL.md").unlink()
    assert changed_since(tmp_path, before) == ("MEMORY.md", "memory_summary.md", "skills/deploy/SKILL.md")


def test_the_note_names_a_few_files_and_counts_the_rest() -> None:
    note = edited_note(("MEMORY.md", "a", "b", "c", "d"))
    assert note.startswith("nothing written: MEMORY.md, a, b and 2 more changed") and "memory run" in note
