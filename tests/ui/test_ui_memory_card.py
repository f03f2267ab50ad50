"""The memory card shows what an agent could be given: memory files redacted, and on the card
"in the context" the summary as the model reads it."""

from __future__ import annotations

import random
import string
from collections.abc import Iterator
from pathlib import Path

import pytest
from ui_helpers import Served, seed_memory

from testkit import IsolatedHome


@pytest.fixture
def served(tmp_path: Path, isolated_home: IsolatedHome) -> Iterator[Served]:
    box = Served(tmp_path)
    yield box
    box.close()


def _token() -> str:
    """A GitHub-token-shaped secret, built at run time."""
    return "ghp_" + "".join(random.choices(string.ascii_letters + string.digits, k=36))


def test_the_memory_files_a_card_shows_are_redacted_as_the_model_gets_them(served: Served) -> None:
    folder = seed_memory(served.env)
    secret = _token()
    (folder / "memory_summary.md").write_text(f"Deploy with {secret}\n", encoding="utf-8")
    (folder / "MEMORY.md").write_text(f"# Deploys\n- token {secret}\n", encoding="utf-8")
    data = served.page.json("/api/memory")
    card = next(s for s in data["scopes"] if s["in_context"])
    assert secret in (folder / "memory_summary.md").read_text(encoding="utf-8")
    assert secret not in card["summary"]["text"] and secret not in card["memory_md"]["text"]
    assert card["summary"]["text"].strip() == data["in_context"]["text"]
    assert card["memory_md"]["text"].startswith("# Deploys\n- token ")


def test_a_summary_linked_out_of_the_memory_folder_is_refused_in_the_memory_folders_words(
    served: Served, tmp_path: Path
) -> None:
    folder = seed_memory(served.env)
    outside = tmp_path / "elsewhere.md"
    outside.write_text("- kept elsewhere\n", encoding="utf-8")
    (folder / "memory_summary.md").unlink()
    (folder / "memory_summary.md").symlink_to(outside)
    data = served.page.json("/api/memory")
    card = next(s for s in data["scopes"] if s["current"])
    error = card["summary"]["error"]
    assert "memory folder" in error and "skill folder" not in error and card["summary"]["code"] == "SS403"
    assert data["in_context"]["text"] == "- kept elsewhere"  # what the read path gives the model
