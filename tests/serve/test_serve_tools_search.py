"""SkillTools' search_skills: the models it ranks with, the skills it leaves out, its threshold
and its query cap, as the per-turn suggestions rank."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from serve_helpers import make_skill_tree, write_skill

from skillshelf.serve.tools import SkillTools
from skillshelf.skills.discover import discover_in
from testkit import missing

pytestmark = pytest.mark.usefixtures("isolated_home")


@pytest.fixture
def tools(tmp_path: Path, isolated_home: object) -> SkillTools:
    root = make_skill_tree(tmp_path)
    return SkillTools(discover_in([root]).skills)


def test_search_ranks_with_the_installed_models_unless_told_not_to(tmp_path: Path) -> None:
    from skillshelf.select.semantic import any_model_available

    if not any_model_available():
        missing("no embedding model is installed (wordllama, a dependency, or skillshelf[semantic])")
    skills = discover_in([make_skill_tree(tmp_path)]).skills
    plain, with_models = SkillTools(skills, semantic=False), SkillTools(skills)
    for library in (plain, with_models):
        found = library.dispatch("search_skills", {"query": "fill in the fields of an official form"})
        assert found.data["results"][0]["name"] == "pdf-forms"
    assert plain.models == () and with_models.models


def test_a_model_that_fails_to_load_costs_its_signal_not_the_search(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    from skillshelf.errors import NotFoundError
    from skillshelf.select import service

    def broken(*args: object, **kwargs: object) -> None:
        raise NotFoundError("the model files are damaged", hint="reinstall the extra", code="SE101")

    monkeypatch.setattr(service, "semantic_for", broken)
    library = SkillTools(discover_in([make_skill_tree(tmp_path)]).skills, semantic=True)
    found = library.dispatch("search_skills", {"query": "fill in a PDF form"})
    assert not found.is_error and found.data["results"][0]["name"] == "pdf-forms"
    assert library.models == () and "without the embedding models" in caplog.text


def test_search_leaves_out_skills_hidden_from_the_model_which_still_load_by_name(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    write_skill(root, "pdf-forms", "Fill in PDF forms and read their fields.", "# PDF forms\n")
    write_skill(
        root,
        "pdf-secrets",
        "Fill in PDF forms with the company's signing keys.",
        "# PDF secrets\n",
        extra="disable-model-invocation: true\n",
    )
    tools = SkillTools(discover_in([root]).skills)
    found = tools.dispatch("search_skills", {"query": "fill in pdf forms"})
    assert [r["name"] for r in found.data["results"]] == ["pdf-forms"]
    assert not tools.dispatch("load_skill", {"name": "pdf-secrets"}).is_error


def test_a_hidden_skill_in_the_listing_weighs_on_no_search_and_lends_no_confidence(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    write_skill(
        root,
        "secret",
        "Rotate API credentials in the vault.",
        "# Vault\n",
        extra="disable-model-invocation: true\n",
    )
    write_skill(root, "git", "Commit, branch and rebase with git safely.", "# Git\n")
    write_skill(root, "docs", "Write documentation pages with mkdocs.", "# Docs\n")
    skills = discover_in([root]).skills
    tools = SkillTools(skills, listed=skills)  # as Codex's catalog lists it
    for query in ("secret", "rotate the vault API credentials"):
        found = tools.dispatch("search_skills", {"query": query})
        assert found.data["results"] == [] and found.text.startswith("No skill matches"), found.text


def test_search_ranks_the_listed_skills_alone_as_the_per_turn_suggestions_do(
    tmp_path: Path, isolated_home: object
) -> None:
    from skillshelf.select.ranking import Ranker, RankingSettings

    lib = tmp_path / "lib"
    write_skill(lib, "csv-report", "Build a CSV report from sales data.", "# Report\nGroup sales rows.\n")
    write_skill(lib, "pdf-merge", "Merge PDF files into one document.", "# Merge\nUse pypdf.\n")
    write_skill(lib, "sales-sheets", "Sales spreadsheets: pivot sales figures by region.", "# Sales\nsales\n")
    skills = discover_in([lib]).skills
    listed = [s for s in skills if s.name != "sales-sheets"]  # say, set to `manual`
    library = SkillTools(skills, listed=listed)
    query = "a report of this quarter's sales"
    found = library.dispatch("search_skills", {"query": query, "top_k": 3})
    alone = Ranker.open(listed).rank(query, top_k=6)
    assert found.data["confidence"] == RankingSettings().shown(alone.confidence, 4)
    assert [r["score"] for r in found.data["results"]] == [
        round(float(r.score), 4) for r in alone.ranked if alone.confident
    ][:3]


def test_search_gives_its_threshold_and_a_confidence_under_it_never_reads_as_reaching_it(
    tmp_path: Path, isolated_home: object
) -> None:
    from skillshelf.select.ranking import Ranker, RankingSettings

    lib = tmp_path / "lib"
    write_skill(lib, "csv-report", "Build a CSV report from sales data.", "# Report\nGroup sales rows.\n")
    write_skill(lib, "pdf-merge", "Merge PDF files into one document.", "# Merge\nUse pypdf.\n")
    skills = discover_in([lib]).skills
    query = "a report of this quarter's sales"
    confidence = Ranker.open(skills).rank(query, top_k=4).confidence
    just_over = RankingSettings(min_confidence=math.nextafter(confidence, 1.0))
    found = SkillTools(skills, ranking=just_over).dispatch("search_skills", {"query": query})
    assert found.data["results"] == [] and "No skill matches" in found.text
    assert found.data["min_confidence"] == just_over.min_confidence
    assert found.data["confidence"] < found.data["min_confidence"]
    at = SkillTools(skills, ranking=RankingSettings(min_confidence=confidence)).dispatch(
        "search_skills", {"query": query}
    )
    assert at.data["results"] and at.data["confidence"] >= round(confidence, 4) - 1e-4


def test_a_search_query_over_the_cap_is_refused_on_the_tool_apis_too(tools: SkillTools) -> None:
    from skillshelf.serve.skill_tools import MAX_QUERY_CHARS

    refused = tools.dispatch("search_skills", {"query": "pdf " * (MAX_QUERY_CHARS // 4 + 1)})
    assert refused.is_error and "SV400" in refused.text and f"{MAX_QUERY_CHARS}" in refused.text
    assert not tools.dispatch("search_skills", {"query": "fill a pdf form"}).is_error
