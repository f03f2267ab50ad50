"""Query files for `eval`: keys, types and labels a line must get right (select/evalfile.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from skillshelf.errors import UsageError
from skillshelf.select.evalfile import load_queries


def _skill(root: Path, name: str) -> Path:
    folder = root / name
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(
        f"---\nname: {name}\ndescription: Merge PDF files.\n---\n# {name}\n", encoding="utf-8"
    )
    return folder


def _file(tmp_path: Path, *rows: dict[str, object]) -> Path:
    path = tmp_path / "q.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_a_misspelt_key_is_an_error_that_names_the_key_it_meant(tmp_path: Path) -> None:
    _skill(tmp_path, "pdf-tools")
    path = _file(tmp_path, {"query": "merge PDFs", "relevant": ["pdf-tools"], "not_relavant": ["pdf-tools"]})
    with pytest.raises(UsageError) as err:
        load_queries(path, tools=False)
    assert err.value.code == "SE309"
    assert "not_relavant" in err.value.message
    assert "did you mean `not_relevant` for `not_relavant`?" in (err.value.hint or "")


def test_an_unknown_key_with_no_near_miss_lists_the_keys_a_line_takes(tmp_path: Path) -> None:
    path = _file(tmp_path, {"query": "merge PDFs", "relevant": ["pdf"], "weight": 2})
    with pytest.raises(UsageError) as err:
        load_queries(path, tools=True)
    assert err.value.code == "SE309" and "weight" in err.value.message
    assert "not_relevant" in (err.value.hint or "")


def test_a_query_that_is_not_text_is_reported_as_the_wrong_type(tmp_path: Path) -> None:
    path = _file(tmp_path, {"query": 5, "relevant": ["pdf"]})
    with pytest.raises(UsageError) as err:
        load_queries(path, tools=True)
    assert err.value.code == "SE303"
    assert "must be a string" in err.value.message and "number" in err.value.message


def test_a_skill_in_both_relevant_and_not_relevant_is_an_error(tmp_path: Path) -> None:
    _skill(tmp_path, "pdf-tools")
    path = _file(
        tmp_path, {"query": "merge PDFs", "relevant": ["pdf-tools"], "not_relevant": ["./pdf-tools"]}
    )
    with pytest.raises(UsageError) as err:
        load_queries(path, tools=False)
    assert err.value.code == "SE310" and "pdf-tools" in err.value.message


def test_a_line_with_the_keys_it_takes_still_loads(tmp_path: Path) -> None:
    folder = _skill(tmp_path, "pdf-tools")
    path = _file(tmp_path, {"query": "merge PDFs", "relevant": ["pdf-tools"], "not_relevant": None})
    (query,) = load_queries(path, tools=False)
    assert query.relevant == (str(folder.resolve()),)


def test_lines_with_different_problems_each_keep_their_code(tmp_path: Path) -> None:
    _skill(tmp_path, "pdf-tools")
    path = _file(
        tmp_path,
        {"query": "merge PDFs", "relevant": ["pdf-tools"], "notrelevant": ["pdf-tools"]},
        {"query": "split PDFs", "relevant": ["pdf-tools"], "not_relevant": ["pdf-tools"]},
    )
    with pytest.raises(UsageError) as err:
        load_queries(path, tools=False)
    assert "SE309: " in err.value.message and "SE310: " in err.value.message
