"""`skillshelf search`: ranks the skills found here (extra roots included)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from skillshelf.cli.main import main
from skillshelf.select import search_skills
from skillshelf.select.index import SkillIndex
from skillshelf.skills.discover import discover_in
from testkit import IsolatedHome


def test_search_json_ranks_the_root_skills(
    skill_root: Path, isolated_home: object, capsys: pytest.CaptureFixture[str]
) -> None:
    main(
        [
            "search",
            "trim the video and burn subtitles",
            "--root",
            str(skill_root),
            "--no-builtin",
            "--top",
            "2",
            "--json",
            "--no-semantic",
        ]
    )
    out = json.loads(capsys.readouterr().out)
    assert out["results"][0]["name"] == "video-editing"
    assert len(out["results"]) <= 2 and out["results"][0]["rank"] == 1
    assert out["results"][0]["path"].endswith("video-editing/SKILL.md")
    main(["search", "trim the video", "--root", str(skill_root), "--no-builtin", "--no-semantic"])
    assert "video-editing" in capsys.readouterr().out


def test_search_table_shows_paths_as_list_does(
    skill_root: Path,
    isolated_home: object,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(skill_root.parent)
    monkeypatch.setenv("COLUMNS", "200")  # a path on one line
    main(
        ["search", "trim the video", "--root", str(skill_root), "--no-builtin", "--no-semantic", "--top", "1"]
    )
    out = capsys.readouterr().out
    assert f"{skill_root.name}/video-editing/SKILL.md" in out and str(skill_root) not in out


def test_search_second_run_uses_the_index_cache(
    skill_root: Path, isolated_home: object, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["search", "pdf", "--root", str(skill_root), "--no-builtin", "--json", "--no-semantic"]
    main(argv)
    first = json.loads(capsys.readouterr().out)
    main(argv)
    second = json.loads(capsys.readouterr().out)
    assert second["index"]["analysed"] == 0 and second["results"] == first["results"]


def test_search_rejects_empty_query_and_unknown_selector(
    skill_root: Path, isolated_home: object, capsys: pytest.CaptureFixture[str]
) -> None:
    for argv in (
        ["search", "  ", "--root", str(skill_root)],
        ["search", "pdf", "--root", str(skill_root), "--selector", "nope"],
    ):
        with pytest.raises(SystemExit) as code:
            main(argv)
        assert code.value.code == 2
    err = capsys.readouterr().err
    assert "SE003" in err and "SE001" in err


def test_search_skills_tool_returns_plain_dicts(skill_root: Path) -> None:
    index = SkillIndex.build(discover_in([skill_root]).skills)
    hits = search_skills(index, "resize png images", top_k=2)
    assert hits[0]["name"] == "image-resize"
    assert set(hits[0]) == {"name", "description", "path", "score"}
    assert len(search_skills(index, "resize", top_k=500)) <= 50


def test_search_finds_skills_by_meaning_in_the_base_install(
    skill_root: Path, isolated_home: object, capsys: pytest.CaptureFixture[str]
) -> None:
    # no word of these requests is in the skill they want; the static word vectors bridge it
    for request, wanted in (
        ("make my photos smaller", "image-resize"),
        ("shorten the movie", "video-editing"),
    ):
        main(
            [
                "search",
                request,
                "--root",
                str(skill_root),
                "--no-builtin",
                "--top",
                "1",
                "--json",
                "--no-semantic",
            ]
        )
        assert json.loads(capsys.readouterr().out)["results"][0]["name"] == wanted


def test_search_marks_a_copy_of_a_skill_ranked_above_it(
    skill_root: Path,
    tmp_path: Path,
    isolated_home: object,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    copy = tmp_path / "claude" / "video-editing"
    copy.mkdir(parents=True)
    copy.joinpath("SKILL.md").write_bytes((skill_root / "video-editing" / "SKILL.md").read_bytes())
    monkeypatch.setenv("COLUMNS", "250")
    argv = ["search", "trim the video", "--root", str(skill_root), "--root", str(copy.parent)]
    main([*argv, "--no-builtin", "--no-semantic", "--top", "2"])
    rows = [line for line in capsys.readouterr().out.splitlines() if "video-editing" in line]
    assert len(rows) == 2 and "a copy of #1" not in rows[0] and "a copy of #1" in rows[1]
    assert "1*" in rows[0] and "2*" not in rows[1]


def test_search_and_eval_report_a_select_setting_they_ignore(
    skill_root: Path, tmp_path: Path, isolated_home: IsolatedHome, capsys: pytest.CaptureFixture[str]
) -> None:
    isolated_home.write_user_config("[select]\nmax_suggestions = -3\n")
    main(["search", "trim the video", "--root", str(skill_root), "--no-builtin", "--no-semantic"])
    assert "CF102" in capsys.readouterr().err
    queries = tmp_path / "q.jsonl"
    line = {"query": "trim the video", "relevant": [str(skill_root / "video-editing")]}
    queries.write_text(json.dumps(line), encoding="utf-8")
    main(["eval", "--queries", str(queries), "--root", str(skill_root), "--selector", "bm25f"])
    assert "CF102" in capsys.readouterr().err


def test_search_exits_1_after_its_table_when_a_config_layer_is_skipped(
    skill_root: Path, isolated_home: IsolatedHome, capsys: pytest.CaptureFixture[str]
) -> None:
    isolated_home.write_user_config("[select\n")
    with pytest.raises(SystemExit) as failed:
        main(["search", "trim the video", "--root", str(skill_root), "--no-builtin", "--no-semantic"])
    captured = capsys.readouterr()
    assert failed.value.code == 1 and "video-editing" in captured.out and "error" in captured.err
