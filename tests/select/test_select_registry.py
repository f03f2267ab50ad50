"""The selector registry: one spec per selector, read by ranking, eval, the shadow log, the
CLI and the config check."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import click
import pytest

from skillshelf.cli import select_cmds  # imported before any test registers a selector
from skillshelf.cli.main import main
from skillshelf.errors import UsageError
from skillshelf.select import DEFAULT_SELECTOR, rank_docs
from skillshelf.select.index import SkillIndex
from skillshelf.select.registry import SELECTORS, SelectorSpec
from skillshelf.select.selectors import Extras
from skillshelf.select.service import resolve_selectors
from skillshelf.select.usage import UsageStore, record_shadow_turn

TOOLS = (("a", "alphabet", "Letters in order."), ("b", "be", "To be."), ("c", "cee", "The third letter."))


def _shortest_name(index: SkillIndex, query: str, limit: int, extras: Extras) -> list[tuple[int, float]]:
    order = sorted(range(len(index)), key=lambda i: (len(index.docs[i].name), index.docs[i].name))
    return [(i, 1.0 / (rank + 1)) for rank, i in enumerate(order[:limit])]


SHORTEST = SelectorSpec(name="shortest-name", run=_shortest_name, help="shortest name first")


@pytest.fixture
def shortest() -> Iterator[SelectorSpec]:
    with SELECTORS.registered(SHORTEST) as spec:
        yield spec


def test_a_registered_selector_ranks_and_takes_part_everywhere(
    tmp_path: Path, isolated_home: Any, shortest: SelectorSpec, capsys: pytest.CaptureFixture[str]
) -> None:
    index = SkillIndex.from_tools(list(TOOLS))
    assert [r.doc.name for r in rank_docs(index, "anything", selector="shortest-name")] == [
        "be",
        "cee",
        "alphabet",
    ]
    assert "shortest-name" in resolve_selectors("all", semantic=None)
    recorded = record_shadow_turn(UsageStore(tmp_path / "usage.jsonl"), index, "letters", turn="t1", now=1.0)
    assert recorded["shortest-name"] == ["tool:b", "tool:c", "tool:a"]

    tools = tmp_path / "tools.jsonl"
    tools.write_text(
        "".join(json.dumps({"id": i, "name": n, "description": d}) + "\n" for i, n, d in TOOLS),
        encoding="utf-8",
    )
    queries = tmp_path / "q.jsonl"
    queries.write_text(json.dumps({"query": "a letter", "relevant": ["b"]}) + "\n", encoding="utf-8")
    main(["eval", "--queries", str(queries), "--tools", str(tools), "--selector", "shortest-name", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert [s["selector"] for s in out["selectors"]] == ["shortest-name"] and out["selectors"][0][
        "recall@1"
    ] == 1.0


@pytest.mark.parametrize("command", ["search", "eval"])
def test_a_selector_registered_after_the_cli_is_imported_is_listed_in_its_help(
    isolated_home: Any, shortest: SelectorSpec, command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert select_cmds.search.name == "search"
    assert main([command, "--help"]) == 0
    shown = "".join(capsys.readouterr().out.split())  # help wraps lines, at hyphens too
    assert "shortest-name:shortestnamefirst" in shown


def test_a_selector_out_of_the_registry_is_refused(tmp_path: Path, isolated_home: Any) -> None:
    index = SkillIndex.from_tools(list(TOOLS))
    with pytest.raises(UsageError) as caught:
        rank_docs(index, "anything", selector="shortest-name")
    assert caught.value.code == "SE001" and "bm25f" in caught.value.hint
    with pytest.raises(UsageError) as resolved:
        resolve_selectors("shortest-name", semantic=None)
    assert resolved.value.code == "SE001"


def test_selectors_needing_a_model_or_ignoring_the_query_are_left_out_of_all() -> None:
    every = resolve_selectors("all", semantic=None)
    by_name = {spec.name: spec for spec in SELECTORS}
    assert every[0] == DEFAULT_SELECTOR == SELECTORS.names()[0]
    assert set(every) == {s.name for s in SELECTORS if s.compared and s.model is None}
    assert by_name["semantic"].model == "minilm" and by_name["wordllama"].model == "wordllama"
    assert not by_name["usage"].compared and "usage" not in every


def test_selector_names_are_checked_and_never_registered_twice(shortest: SelectorSpec) -> None:
    with pytest.raises(UsageError) as twice:
        SELECTORS.register(shortest)
    assert twice.value.code == "SE008"
    for bad in ("all", "Two Words"):
        with pytest.raises(UsageError):
            SelectorSpec(name=bad, run=_shortest_name, help="bad")


def test_the_cli_selector_help_lists_every_registered_selector() -> None:
    from skillshelf.cli.select_cmds import eval_cmd, search

    for command in (eval_cmd, search):
        option = next(p for p in command.params if p.name == "selector")
        record = option.get_help_record(click.Context(command))  # the help is made when shown
        assert record is not None
        shown = " ".join(record[1].split())
        for spec in SELECTORS:
            if spec is not SHORTEST:
                assert " ".join(f"{spec.name}: {spec.help}".split()) in shown
