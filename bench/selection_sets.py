"""The benchmark sets, read at run time from ``../shared`` (``SKILLSHELF_SHARED``) and
``bench/data``: the corpus skills and their bodies, the skill-requests requests (and any file in
their format), MetaTool split by query id, SkillsBench with the corpus as distractors. Shared by
``selection.py``, ``selection_small.py`` and ``fit_selection.py``."""

from __future__ import annotations

import hashlib
import json
import os
import random
import sys
import tempfile
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
# resolved, as discovery resolves the roots the index keys come from
SHARED = Path(os.environ.get("SKILLSHELF_SHARED", REPO.parent / "shared")).resolve()
sys.path.insert(0, str(REPO / "src"))

from skillshelf.select.index import SkillIndex  # noqa: E402
from skillshelf.skills.model import RootOrigin, Scope, Skill  # noqa: E402

Query = dict[str, Any]
AUTHORED = REPO / "bench" / "data" / "authored-requests.jsonl"
CACHE = Path(tempfile.mkdtemp(prefix="skillshelf-bench-"))


def jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def load_corpus() -> list[Skill]:
    from skillshelf.skills.discover import discover_in

    folders = sorted(p for p in (SHARED / "corpora").iterdir() if p.is_dir())
    return [s for s in discover_in(folders).skills if s.description.strip()]


_BODIES: dict[str, str] = {}


def body_of(skill: Skill) -> str:
    from skillshelf.skills.discover import read_skill_body

    key = str(skill.path)
    if key not in _BODIES:
        _BODIES[key] = read_skill_body(skill) if skill.path.exists() else ""
    return _BODIES[key]


_INDEX_BODIES: dict[str, str] = {}


def index_body_of(skill: Skill) -> str:
    """What the product's index reads as ``skill``'s body (:func:`skillshelf.select.bodies.index_body`:
    the ``SKILL.md`` body, then bundled markdown in the room left), read once per path."""
    from skillshelf.select.bodies import index_body

    key = str(skill.path)
    if key not in _INDEX_BODIES:
        _INDEX_BODIES[key] = index_body(skill) if skill.path.exists() else ""
    return _INDEX_BODIES[key]


def corpus_requests(path: Path) -> list[Query]:
    """Requests in the skill-requests format, their ``relevant`` skill folders (relative to
    ``corpora/``) made ``SKILL.md`` paths, as the index keys them."""
    queries = jsonl(path)
    for q in queries:
        q["relevant"] = [label_key(r) for r in q.get("relevant") or ()]
    return queries


def label_key(label: str) -> str:
    """The index key of one ``relevant`` label: a skill folder relative to ``corpora/`` as the
    format says, and also written as ``corpora/...``, ``.../SKILL.md``, with a trailing slash
    or as an absolute path (other files in this format may label their skills that way)."""
    text = label.strip().replace("\\", "/").rstrip("/")
    text = text.removesuffix("/SKILL.md").removesuffix("/skill.md")
    if not Path(text).is_absolute():
        for prefix in ("shared/corpora/", "corpora/", "./"):
            text = text.removeprefix(prefix)
    folder = Path(text) if Path(text).is_absolute() else SHARED / "corpora" / text
    return str(folder / "SKILL.md")


def authored_requests() -> list[Query]:
    """:data:`AUTHORED`: tuning data, see ``bench/data/README.md``."""
    return corpus_requests(AUTHORED)


def requests_set() -> tuple[SkillIndex, list[Query]]:
    """The corpus index and the skill-requests queries (``relevant``: ``SKILL.md`` paths)."""
    index = SkillIndex.build(load_corpus(), cache_dir=CACHE / "requests", body_reader=index_body_of)
    return index, corpus_requests(SHARED / "benchmarks" / "skill-requests" / "requests.jsonl")


def held_out_requests(path: Path, index: SkillIndex) -> list[Query]:
    """The requests of ``path`` (skill-requests format) not marked as dev, each ``kind`` kept
    (``all`` where none is given). Labels that name no indexed skill are dropped with a warning:
    counted, they would be misses no ranker could avoid."""
    queries = [q for q in corpus_requests(path) if q.get("split") != "dev"]
    unknown = sorted({r for q in queries for r in q["relevant"] if r not in index.by_key})
    if unknown:
        shown = ", ".join(unknown[:5])
        print(f"warning: {len(unknown)} label(s) name no corpus skill, dropped: {shown}", file=sys.stderr)
    for q in queries:
        q.setdefault("kind", "none" if not q["relevant"] else "all")
        q["relevant"] = [r for r in q["relevant"] if r in index.by_key]
    return [q for q in queries if q["relevant"] or q["kind"] == "none"]


def held_out(query_id: str) -> bool:
    """MetaTool's held-out half: queries whose id has an odd SHA-1."""
    return int(hashlib.sha1(query_id.encode()).hexdigest(), 16) % 2 == 1


def metatool_split() -> tuple[SkillIndex, list[Query], list[Query]]:
    """The tools index, the dev half (shuffled, seed 0) and the held-out half (shuffled, seed 0)."""
    mt = SHARED / "benchmarks" / "metatool"
    tools = jsonl(mt / "tools.jsonl")
    index = SkillIndex.from_tools([(str(t["id"]), str(t["name"]), str(t["description"])) for t in tools])
    queries = jsonl(mt / "queries.jsonl")
    for q in queries:
        q["relevant"] = [f"tool:{r}" for r in q["relevant"]]
        q["kind"] = "all"
    dev = [q for q in queries if not held_out(str(q["id"]))]
    test = [q for q in queries if held_out(str(q["id"]))]
    random.Random(0).shuffle(dev)
    random.Random(0).shuffle(test)
    return index, dev, test


def skillsbench_set() -> tuple[SkillIndex, list[Query]]:
    sb = SHARED / "benchmarks" / "skillsbench-routing"
    tools = jsonl(sb / "tools.jsonl")
    names = {str(t["name"]).lower() for t in tools}
    root = Path("/skillsbench-routing")
    skills = [
        Skill(
            name=str(t["name"]),
            description=str(t["description"]),
            path=root / str(t["id"]) / "SKILL.md",
            root=root,
            scope=Scope.USER,
            origin=RootOrigin.EXTRA,
        )
        for t in tools
    ]
    distractors = [s for s in load_corpus() if s.name.lower() not in names]
    index = SkillIndex.build(skills + distractors, cache_dir=CACHE / "sb", body_reader=index_body_of)
    queries = jsonl(sb / "queries.jsonl")
    for q in queries:
        q["relevant"] = [str(root / r / "SKILL.md") for r in q["relevant"]]
        q["kind"] = "all"
    return index, queries
