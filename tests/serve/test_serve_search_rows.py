"""MCP `search_skills` rows: each describes the skill that earned its score (its own
description, scope, path and how to load exactly it), and marks the suggestions, the ones
`context` would show and `skillshelf search` marks with `*`."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from serve_helpers import write_skill

from skillshelf.select.service import search
from skillshelf.serve.tools import SkillTools
from skillshelf.skills.discover import discover_in
from skillshelf.skills.load import UNTRUSTED_NOTE
from skillshelf.skills.model import Scope

TASK = "deploy the app to the staging kubernetes cluster"


def _same_name(tmp_path: Path) -> tuple[SkillTools, Path, Path]:
    """``deploy`` twice: an untrusted project's (Kubernetes, first in load order) and the user's."""
    k8s = "Deploy the web app to the staging Kubernetes cluster with helm."
    clone = write_skill(tmp_path / "project", "deploy", k8s, "# deploy\nRun helm upgrade.")
    mine = write_skill(
        tmp_path / "home", "deploy", "Deploy static documentation sites to GitHub Pages.", "# d"
    )
    (theirs,) = discover_in([tmp_path / "project"]).skills
    (own,) = discover_in([tmp_path / "home"]).skills
    skills = (dataclasses.replace(theirs, trusted=False, scope=Scope.REPO), own)
    return SkillTools(skills, semantic=False), clone / "SKILL.md", mine / "SKILL.md"


def test_each_row_of_a_shared_name_carries_its_own_description_scope_and_path(tmp_path: Path) -> None:
    tools, clone, mine = _same_name(tmp_path)
    found = tools.dispatch("search_skills", {"query": TASK, "top_k": 5})
    first = found.data["results"][0]
    assert first["path"] == str(clone) and "Kubernetes" in first["description"]
    assert first["scope"] == "repo" and first["trusted"] is False
    for row in found.data["results"]:
        own = next(s for s in tools.skills if str(s.path) == row["path"])
        assert row["description"] == own.description and row["scope"] == own.scope.value


def test_a_row_whose_name_loads_another_skill_says_how_to_load_it(tmp_path: Path) -> None:
    tools, clone, _ = _same_name(tmp_path)
    found = tools.dispatch("search_skills", {"query": TASK, "top_k": 5})
    first = found.data["results"][0]
    assert first["load"] == str(clone) and str(clone) in found.text
    loaded = tools.dispatch("load_skill", {"name": first["load"]})
    assert not loaded.is_error and loaded.data["path"] == str(clone) and "helm upgrade" in loaded.text
    assert loaded.text.startswith(UNTRUSTED_NOTE)  # still marked untrusted
    by_name = tools.dispatch("load_skill", {"name": "deploy"})
    assert by_name.data["path"] != str(clone)  # the name still loads the trusted skill


def test_search_marks_the_suggestions_as_skillshelf_search_does(tmp_path: Path) -> None:
    lib = tmp_path / "lib"
    write_skill(lib, "image-resize", "Resize, crop and convert PNG and JPEG images in bulk.", "# Images\n")
    write_skill(lib, "video-editing", "Cut and join video clips; crop frames of a video.", "# Video\n")
    write_skill(lib, "git-release", "Bump the version, write the changelog and tag a release.", "# Git\n")
    skills = discover_in([lib]).skills
    query = "resize and crop PNG images"
    found = SkillTools(skills, semantic=False).dispatch("search_skills", {"query": query, "top_k": 5})
    cli = search(skills, query, semantic=False)
    marked = [row["path"] for row in found.data["results"] if row["suggested"]]
    assert marked == list(cli.suggested) and len(found.data["results"]) > len(marked) >= 1
    assert found.data["suggested"] == len(marked)


def test_a_turn_with_no_task_gets_no_result_and_says_why(tmp_path: Path) -> None:
    tools, _, _ = _same_name(tmp_path)
    found = tools.dispatch("search_skills", {"query": "thanks!"})
    assert found.data["results"] == [] and found.data["no_task"] is True and "no task" in found.text
