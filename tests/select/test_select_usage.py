"""Usage prior and shadow metrics (`skillshelf stats`)."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

import pytest

from skillshelf.cli.main import main
from skillshelf.env import Env
from skillshelf.select.index import SkillIndex
from skillshelf.select.usage import MENTION, UsageStore, record_shadow_turn
from skillshelf.skills.model import Skill

DAY = 86400.0


def test_prior_decays_with_age_and_favours_the_current_project(tmp_path: Path) -> None:
    store = UsageStore(tmp_path / "usage.jsonl")
    now = 1_000 * DAY
    store.record_load("/s/a/SKILL.md", project="/p", now=now)
    store.record_load("/s/b/SKILL.md", project="/p", now=now - 14 * DAY)
    store.record_load("/s/c/SKILL.md", project="/other", now=now)
    prior = store.prior(project="/p", now=now)
    assert prior["/s/a/SKILL.md"] == 1.0
    assert prior["/s/b/SKILL.md"] == pytest.approx(0.5)
    assert prior["/s/c/SKILL.md"] == pytest.approx(0.5)
    assert UsageStore(tmp_path / "none.jsonl").prior() == {}


def test_paths_that_are_not_utf8_are_recorded_and_read_back_as_the_same_paths(tmp_path: Path) -> None:
    store = UsageStore(tmp_path / "usage.jsonl")
    odd = os.fsdecode(b"/srv/bad\xffdir/.agents/skills/a/SKILL.md")
    store.record_turn("t1", {"x": [odd]}, project=os.fsdecode(b"/srv/bad\xffdir"), now=1.0)
    store.record_load(odd, turn="t1", project=os.fsdecode(b"/srv/bad\xffdir"), now=1.5)
    store.record_load("/srv/café/SKILL.md", turn="t1", now=1.6)
    assert [e.get("path") for e in store.events() if e["type"] == "load"] == [odd, "/srv/café/SKILL.md"]
    assert "café" in store.path.read_text(encoding="utf-8")  # valid text stays as it was written
    assert store.stats().selectors[0].hits[1] == 1


def test_stats_report_each_selectors_hit_rate_over_real_loads(tmp_path: Path) -> None:
    store = UsageStore(tmp_path / "usage.jsonl")
    store.record_turn("t1", {"x": ["/a", "/b"], "y": ["/b", "/a"]}, now=1.0)
    store.record_turn("t2", {"x": ["/c"] + [f"/n{i}" for i in range(9)], "y": ["/z"]}, now=2.0)
    store.record_load("/a", turn="t1", now=1.5)
    store.record_load("/a", turn="t1", now=1.6)  # the same skill twice in a turn counts once
    store.record_load("/n5", turn="t2", now=2.5)
    store.record_load("/q", turn="unknown", now=3.0)  # no recorded turn: not scored
    with store.path.open("a", encoding="utf-8") as fh:
        fh.write("{broken json\n" + "[" * 100_000 + "\n")
    report = store.stats()
    assert (report.turns, report.loads, report.scored_loads) == (2, 4, 2)
    by = {s.selector: s for s in report.selectors}
    assert by["x"].hits == {1: 1, 5: 1, 10: 2} and by["x"].mrr == pytest.approx((1 + 1 / 7) / 2)
    assert by["y"].hits == {1: 0, 5: 1, 10: 1}
    assert report.top_skills[0] == ("/a", 2)


def test_a_skill_the_prompt_named_counts_as_used_but_not_as_found_by_a_ranking(tmp_path: Path) -> None:
    store = UsageStore(tmp_path / "usage.jsonl")
    store.record_turn("t1", {"suggested": ["/a", "/b"]}, now=1.0)
    store.record_load("/a", turn="t1", via=MENTION, now=1.1)
    store.record_load("/a", turn="t1", via="read", now=1.2)  # read after the mention: still asked for
    store.record_load("/b", turn="t1", via="read", now=1.3)
    report = store.stats()
    assert (report.loads, report.scored_loads) == (3, 1)
    assert report.selectors[0].hits == {1: 0, 5: 1, 10: 1}
    assert report.top_skills[0] == ("/a", 2)
    assert store.prior(now=1.3)["/a"] == 1.0


def test_shadow_turn_records_every_selectors_candidates(
    skill_root: Path, tmp_path: Path, discover: Callable[[Path], tuple[Skill, ...]]
) -> None:
    store = UsageStore(tmp_path / "usage.jsonl")
    index = SkillIndex.build(discover(skill_root))
    recorded = record_shadow_turn(store, index, "merge pdf pages", turn="t1", now=5.0)
    assert "default" in recorded and "codex_lexical" in recorded and "semantic" not in recorded
    pdf = str(skill_root.resolve() / "pdf-tools" / "SKILL.md")
    assert recorded["default"][0] == pdf
    store.record_load(pdf, turn="t1", via="implicit", now=6.0)
    stats = {s.selector: s for s in store.stats().selectors}
    assert stats["default"].hit_rate(1) == 1.0


def test_unwritable_log_is_a_file_access_error(tmp_path: Path) -> None:
    from skillshelf.errors import FileAccessError

    blocker = tmp_path / "file"
    blocker.write_text("x", encoding="utf-8")
    with pytest.raises(FileAccessError) as err:
        UsageStore(blocker / "usage.jsonl").record_load("/a")
    assert err.value.code == "SE201"


def test_stats_command_reads_the_state_folder(
    isolated_home: object, capsys: pytest.CaptureFixture[str]
) -> None:
    store = UsageStore.in_state_dir(Env.from_os().dirs.state)
    store.record_turn("t", {"default": ["/a"]})
    store.record_load("/a", turn="t")
    main(["stats", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert out["scored_loads"] == 1 and out["selectors"][0]["hit@1"] == 1.0
    main(["stats"])
    assert "default" in capsys.readouterr().out


def test_stats_without_scored_loads_says_how_loads_get_recorded_and_draws_no_empty_table(
    isolated_home: object, capsys: pytest.CaptureFixture[str]
) -> None:
    UsageStore.in_state_dir(Env.from_os().dirs.state).record_turn("t", {"default": ["/a"]})
    main(["stats"])
    captured = capsys.readouterr()
    assert captured.out == "" and "skillshelf setup" in captured.err and "1 turn(s)" in captured.err


def test_stats_with_loads_but_no_recorded_turns_points_to_shadow_metrics(
    isolated_home: object, capsys: pytest.CaptureFixture[str]
) -> None:
    UsageStore.in_state_dir(Env.from_os().dirs.state).record_load("/a", turn="t")
    main(["stats"])
    err = capsys.readouterr().err
    assert "1 load(s)" in err and "--shadow-metrics" in err and "is recorded when" not in err


def test_shadow_recorder_scores_the_first_load_of_each_turn(
    skill_root: Path, tmp_path: Path, discover: Callable[[Path], tuple[Skill, ...]]
) -> None:
    from skillshelf.select.usage import ShadowRecorder

    store = UsageStore(tmp_path / "usage.jsonl")
    recorder = ShadowRecorder(store, SkillIndex.build(discover(skill_root)), project="/p", session="s")
    assert recorder.turn("trim the video clip", now=1.0) == "s-1"
    video = str(skill_root.resolve() / "video-editing" / "SKILL.md")
    recorder.loaded(video, now=2.0)
    recorder.loaded(video, now=3.0)
    recorder.turn("merge pdf files", now=4.0)
    recorder.loaded(str(skill_root.resolve() / "image-resize" / "SKILL.md"), via="implicit", now=5.0)
    report = store.stats()
    assert (report.turns, report.loads, report.scored_loads) == (2, 2, 2)
    default = next(s for s in report.selectors if s.selector == "default")
    assert default.hit_rate(1) == 0.5
    assert store.prior(project="/p", now=5.0)[video] == pytest.approx(1.0, abs=1e-3)


def test_a_full_log_keeps_its_newer_half_private(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from skillshelf.select import usage

    monkeypatch.setattr(usage, "MAX_LOG_BYTES", 400)
    store = UsageStore(tmp_path / "usage.jsonl")
    for i in range(12):
        store.record_load(f"/s/{i}/SKILL.md", now=float(i))
    lines = store.path.read_text(encoding="utf-8").splitlines()
    assert len(lines) < 12 and lines[-1].count("/s/11/") == 1 and "/s/0/" not in lines[0]
    assert store.path.stat().st_mode & 0o777 == 0o600
    assert [p.name for p in store.path.parent.iterdir()] == ["usage.jsonl"]


def _append_loads(path: str, worker: int, count: int) -> None:
    from skillshelf.select import usage

    usage.MAX_LOG_BYTES = 4_000  # halved many times while the others append
    store = UsageStore(Path(path))
    for i in range(count):
        store.record_load(f"/w{worker}/{i}", turn="t")


def test_processes_appending_while_the_log_is_halved_lose_no_newer_event(tmp_path: Path) -> None:
    import multiprocessing

    log = tmp_path / "usage.jsonl"
    workers = [
        multiprocessing.get_context("spawn").Process(target=_append_loads, args=(str(log), w, 400))
        for w in range(6)
    ]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(60)
    seen: dict[str, list[int]] = {}
    for event in UsageStore(log).events():
        _, worker_name, index = str(event["path"]).split("/")
        seen.setdefault(worker_name, []).append(int(index))
    # halving keeps a suffix of the log: each worker's events left are its last ones, none missing
    assert seen and all(found == list(range(found[0], 400)) for found in seen.values())


def test_a_log_another_process_keeps_locked_is_a_busy_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from skillshelf.errors import FileAccessError
    from skillshelf.fileio import folder_lock
    from skillshelf.select import usage

    monkeypatch.setattr(usage, "LOG_WAIT", 0.1)
    store = UsageStore(tmp_path / "select" / "usage.jsonl")
    with folder_lock(store.path.parent), pytest.raises(FileAccessError) as caught:
        store.record_load("/s/SKILL.md")
    assert caught.value.code == "SE203" and "busy" in caught.value.message
