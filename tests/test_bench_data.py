"""The tuning requests in ``bench/data``: well formed, and every label a skill of the corpora."""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

from testkit import REPO, shared_path

AUTHORED = REPO / "bench" / "data" / "authored-requests.jsonl"
KINDS = {"direct", "paraphrase", "indirect", "multi", "none"}


def _requests() -> list[dict[str, Any]]:
    return [json.loads(line) for line in AUTHORED.read_text(encoding="utf-8").splitlines() if line.strip()]


def test_the_authored_requests_are_well_formed_tuning_rows() -> None:
    requests = _requests()
    assert len({r["id"] for r in requests}) == len(requests)
    assert all(r["split"] == "dev2" and r["kind"] in KINDS and r["query"].strip() for r in requests)
    assert all((r["kind"] == "none") == (not r["relevant"]) for r in requests)
    assert all(len(r["relevant"]) >= 2 for r in requests if r["kind"] == "multi")
    kinds = Counter(r["kind"] for r in requests)
    assert kinds["none"] >= 100 and sum(kinds.values()) - kinds["none"] >= 150, kinds


def test_every_authored_label_is_a_skill_agents_would_find() -> None:
    corpora = shared_path("corpora")
    for request in _requests():
        for folder in request["relevant"]:
            assert not any(part.startswith(".") for part in folder.split("/")), (request["id"], folder)
            assert (corpora / folder / "SKILL.md").is_file(), (request["id"], folder)
