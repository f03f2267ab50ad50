"""A turn with no task in it ("ok", "thanks!", "go on") gets no suggestion, however large the
library: the shared ranking's gate on the request's content words (select/tokenize.has_content)."""

from __future__ import annotations

from pathlib import Path

import pytest

from skillshelf.select.ranking import Ranker, RankingSettings
from skillshelf.select.service import search
from skillshelf.select.tokenize import has_content
from skillshelf.skills.builtin import packaged_skills_dir
from skillshelf.skills.discover import discover_in
from skillshelf.skills.model import Skill

CHAT = [
    "ok",
    "OK.",
    "hello",
    "lgtm",
    "go on",
    "thanks!",
    "yes please",
    "Thank you so much!",
    "sounds good",
    "👍",
    "fix it",
    "please fix this",
    "try again",
    "can you help?",
    "check this stuff",
]
TASKS = [
    "resize a png image",
    "go",
    "merge these PDFs",
    "thanks page for the docs site",
    "合并两个PDF文件",
    "$pdf",
    "fix the flaky test",
    "update the changelog",
    "run make",
]
TOPICS = (
    "rust async tokio futures; return Ok(value) from handlers",
    "hello world web server in go",
    "code review checklist lgtm approvals",
    "changelog automation thanks contributors",
    "concurrency go channels go on",
    "image resize crop png",
)


@pytest.fixture(scope="module")
def big_library(tmp_path_factory: pytest.TempPathFactory) -> tuple[Skill, ...]:
    """60 skills (a library past the 50 whose calibration is sure of a one-word match)."""
    root = tmp_path_factory.mktemp("big") / "skills"
    for i in range(60):
        topic = TOPICS[i % len(TOPICS)] + f" variant {i}"
        folder = root / f"skill-{i}"
        folder.mkdir(parents=True)
        (folder / "SKILL.md").write_text(
            f"---\nname: skill-{i}\ndescription: Help with {topic}.\n---\n# Skill {i}\n\n"
            f"Steps for {topic}. Say hello, ok, yes please, thanks.\n",
            encoding="utf-8",
        )
    return discover_in([root]).skills


@pytest.mark.parametrize("turn", CHAT)
def test_a_turn_of_greetings_thanks_acknowledgement_or_vague_work_holds_no_content(turn: str) -> None:
    assert not has_content(turn)


@pytest.mark.parametrize("task", TASKS)
def test_a_request_with_one_content_word_holds_content(task: str) -> None:
    assert has_content(task)


@pytest.mark.parametrize("turn", ["ok", "hello", "lgtm", "go on", "thanks!"])
def test_a_turn_with_no_task_gets_no_suggestion_in_a_big_library(
    big_library: tuple[Skill, ...], turn: str
) -> None:
    ranking = Ranker.open(big_library, models=False).rank(turn, top_k=5)
    assert ranking.ranked and not ranking.suggested and not ranking.confident
    assert ranking.no_task and ranking.confidence == 0.0


def test_a_task_in_the_same_library_is_still_suggested(big_library: tuple[Skill, ...]) -> None:
    ranking = Ranker.open(big_library, models=False).rank("resize a png image", top_k=5)
    assert ranking.suggested and not ranking.no_task


def test_search_lists_the_ranking_of_a_turn_with_no_task_and_says_why_nothing_is_suggested(
    big_library: tuple[Skill, ...], tmp_path: Path
) -> None:
    result = search(big_library, "thanks!", semantic=False)
    assert result.ranked and result.suggested == () and result.no_task
    assert result.to_dict()["no_task"] is True


def test_a_threshold_of_zero_still_suggests_whatever_ranks_for_a_task(big_library: tuple[Skill, ...]) -> None:
    settings = RankingSettings(min_confidence=0.0)
    assert Ranker.open(big_library, models=False, settings=settings).rank("a web server").suggested


@pytest.mark.parametrize("turn", ["fix it", "fix this", "please fix it", "try again"])
def test_a_vague_turn_on_a_fresh_machine_gets_no_built_in_skill(turn: str) -> None:
    """Only the built-in skills installed: "fix it" names no subject, and the skill that
    mentions fixing skills is not suggested for it."""
    built_ins = discover_in([packaged_skills_dir()]).skills
    ranking = Ranker.open(built_ins, models=False).rank(turn, top_k=5)
    assert not ranking.suggested and ranking.no_task
