"""Real usage: the usage prior and the shadow metrics behind ``skillshelf stats``.

An append-only JSON-lines log in ``<state folder>/select/usage.jsonl`` holds two kinds
of events:

* ``turn``: for one turn, each selector's top candidates (skill paths), recorded by
  :func:`record_shadow_turn` when shadow metrics are on;
* ``load``: the model loaded a skill in that turn (via ``load_skill``, a ``SKILL.md`` read, a
  command the implicit-use detector recognised, or a ``$name`` mention in the prompt:
  ``via: "mention"``).

From them: :meth:`UsageStore.prior` (skills this user or project loads often or recently,
a recency-decayed count in [0, 1]) and :meth:`UsageStore.stats` (per-selector hit@k over the
loads that have a recorded turn, but for mentions: the user named that skill, no ranking
found it). Damaged lines are skipped, never fatal.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from skillshelf import dirs
from skillshelf.errors import FileAccessError, reason
from skillshelf.fileio import FolderBusy

__all__ = ["MENTION", "SelectorStats", "ShadowRecorder", "UsageStats", "UsageStore", "record_shadow_turn"]

MAX_CANDIDATES = 20
HALF_LIFE_DAYS = 14.0
MAX_LOG_BYTES = 8 * 1024 * 1024
LOG_WAIT = 5.0  # seconds to wait for another process's append or halving of the log
KS = (1, 5, 10)
MENTION = "mention"  # the ``via`` of a load the prompt asked for by name


@dataclass(frozen=True, slots=True, kw_only=True)
class SelectorStats:
    """Hit rates of one selector over real loads."""

    selector: str
    loads: int
    hits: Mapping[int, int]
    mrr: float

    def hit_rate(self, k: int) -> float:
        return self.hits.get(k, 0) / self.loads if self.loads else 0.0

    def to_dict(self) -> dict[str, object]:
        out: dict[str, object] = {"selector": self.selector, "loads": self.loads}
        for k in sorted(self.hits):
            out[f"hit@{k}"] = round(self.hit_rate(k), 4)
        out["mrr"] = round(self.mrr, 4)
        return out


@dataclass(frozen=True, slots=True, kw_only=True)
class UsageStats:
    """What ``skillshelf stats`` prints."""

    turns: int
    loads: int
    scored_loads: int
    selectors: tuple[SelectorStats, ...] = ()
    top_skills: tuple[tuple[str, int], ...] = field(default=())
    log: str = ""

    def to_dict(self) -> dict[str, object]:
        return {
            "log": self.log,
            "turns": self.turns,
            "loads": self.loads,
            "scored_loads": self.scored_loads,
            "selectors": [s.to_dict() for s in self.selectors],
            "top_skills": [{"path": p, "loads": n} for p, n in self.top_skills],
        }


class UsageStore:
    """The usage log. :meth:`UsageStore.in_state_dir` is its place in the user state folder."""

    def __init__(self, path: Path) -> None:
        self.path = path

    @classmethod
    def in_state_dir(cls, state_dir: Path) -> UsageStore:
        """The log of the state folder ``state_dir`` (``Env.dirs.state``)."""
        return cls(state_dir / "select" / "usage.jsonl")

    # ---- writing --------------------------------------------------------------------------

    def _append(self, event: Mapping[str, object]) -> None:
        line = json.dumps(event, ensure_ascii=False, sort_keys=True) + "\n"
        if not line.isascii() and not _encodable(line):
            # a path that is not UTF-8: escaped (``\udcff``), it reads back as the same path
            line = json.dumps(event, sort_keys=True) + "\n"
        try:
            dirs.append_to_log(self.path, line, max_bytes=MAX_LOG_BYTES, wait=LOG_WAIT)
        except FolderBusy as exc:
            raise FileAccessError(
                f"the usage log {self.path} is busy: another process has held its folder's lock"
                f" for {LOG_WAIT:g} s",
                hint="the event was not recorded; find the skillshelf process that hangs and stop it",
                code="SE203",
            ) from exc
        except OSError as exc:
            raise FileAccessError(
                f"cannot write the usage log {self.path}: {reason(exc)}",
                hint="check the permissions of the state folder or set SKILLSHELF_STATE_DIR",
                code="SE201",
            ) from exc

    def record_turn(
        self,
        turn: str,
        candidates: Mapping[str, Sequence[str]],
        *,
        project: str = "",
        now: float | None = None,
    ) -> None:
        """Each selector's top candidates (skill paths) for one turn."""
        self._append(
            {
                "type": "turn",
                "turn": turn,
                "project": project,
                "time": time.time() if now is None else now,
                "candidates": {k: list(v)[:MAX_CANDIDATES] for k, v in sorted(candidates.items())},
            }
        )

    def record_load(
        self,
        path: str,
        *,
        turn: str = "",
        project: str = "",
        via: str = "load_skill",
        now: float | None = None,
    ) -> None:
        """The model loaded the skill at ``path`` (its ``SKILL.md``) during ``turn``."""
        self._append(
            {
                "type": "load",
                "turn": turn,
                "project": project,
                "path": path,
                "via": via,
                "time": time.time() if now is None else now,
            }
        )

    # ---- reading --------------------------------------------------------------------------

    def events(self) -> Iterator[dict[str, object]]:
        """Every well-formed event, oldest first."""
        try:
            text = self.path.read_text(encoding="utf-8", errors="replace")
        except FileNotFoundError:
            return
        except OSError as exc:
            raise FileAccessError(
                f"cannot read the usage log {self.path}: {reason(exc)}",
                hint="check the permissions of the state folder",
                code="SE202",
            ) from exc
        for line in text.splitlines():
            try:
                event = json.loads(line)
            except (ValueError, RecursionError):
                continue
            if isinstance(event, dict) and event.get("type") in ("turn", "load"):
                yield event

    def prior(self, *, project: str = "", now: float | None = None) -> dict[str, float]:
        """Skill path -> recency-decayed load count, scaled to [0, 1]. Loads in ``project``
        count fully, loads elsewhere half."""
        now = time.time() if now is None else now
        raw: dict[str, float] = {}
        for e in self.events():
            if e["type"] != "load" or not isinstance(e.get("path"), str):
                continue
            age_days = max(0.0, (now - _num(e.get("time"))) / 86400.0)
            weight = 0.5 ** (age_days / HALF_LIFE_DAYS)
            if project and e.get("project") != project:
                weight *= 0.5
            path = str(e["path"])
            raw[path] = raw.get(path, 0.0) + weight
        top = max(raw.values(), default=0.0)
        return {p: v / top for p, v in sorted(raw.items())} if top > 0 else {}

    def stats(self, *, ks: Sequence[int] = KS) -> UsageStats:
        """Per-selector hit@k and MRR over the loads whose turn has recorded candidates, but
        for the skills the turn's prompt mentioned."""
        turns: dict[str, dict[str, list[str]]] = {}
        loads: list[tuple[str, str]] = []
        asked: set[tuple[str, str]] = set()  # (turn, path) the prompt mentioned
        for e in self.events():
            if e["type"] == "turn" and isinstance(e.get("candidates"), dict):
                cands = e["candidates"]
                assert isinstance(cands, dict)
                turns[str(e.get("turn", ""))] = {
                    str(k): [str(p) for p in v] for k, v in cands.items() if isinstance(v, list)
                }
            elif e["type"] == "load" and isinstance(e.get("path"), str):
                loads.append((str(e.get("turn", "")), str(e["path"])))
                if e.get("via") == MENTION:
                    asked.add(loads[-1])
        per: dict[str, list[int | None]] = {}
        scored = 0
        seen: set[tuple[str, str]] = set()
        for turn, path in loads:
            if turn not in turns or (turn, path) in seen or (turn, path) in asked:
                continue
            seen.add((turn, path))  # the first load of a skill in a turn counts, like Codex
            scored += 1
            for selector, cands in turns[turn].items():
                per.setdefault(selector, []).append(cands.index(path) + 1 if path in cands else None)
        counts: dict[str, int] = {}
        for _, path in loads:
            counts[path] = counts.get(path, 0) + 1
        top = tuple(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:10])
        return UsageStats(
            turns=len(turns),
            loads=len(loads),
            scored_loads=scored,
            selectors=tuple(_selector_stats(name, ranks, ks) for name, ranks in sorted(per.items())),
            top_skills=top,
            log=str(self.path),
        )


def _num(value: object) -> float:
    return float(value) if isinstance(value, int | float) else 0.0


def _selector_stats(name: str, ranks: list[int | None], ks: Sequence[int]) -> SelectorStats:
    hits = {k: sum(1 for r in ranks if r is not None and r <= k) for k in ks}
    mrr = sum(1.0 / r for r in ranks if r is not None) / len(ranks) if ranks else 0.0
    return SelectorStats(selector=name, loads=len(ranks), hits=hits, mrr=mrr)


def record_shadow_turn(
    store: UsageStore,
    index: object,
    query: str,
    *,
    turn: str,
    project: str = "",
    selectors: Sequence[str] | None = None,
    now: float | None = None,
) -> dict[str, list[str]]:
    """Run every selector on ``query`` (top 20 each) and record the candidates for ``turn``.

    Returns what was recorded. The ranking itself has no side effect; only the log is written."""
    from skillshelf.select import rank_docs
    from skillshelf.select.index import SkillIndex
    from skillshelf.select.registry import SELECTORS

    assert isinstance(index, SkillIndex)
    specs = [SELECTORS.get(name) for name in selectors] if selectors else list(SELECTORS)
    names = [s.name for s in specs if s.compared and s.model is None]
    prior = store.prior(project=project, now=now)
    candidates = {
        name: [r.doc.key for r in rank_docs(index, query, top_k=MAX_CANDIDATES, selector=name, usage=prior)]
        for name in names
    }
    store.record_turn(turn, candidates, project=project, now=now)
    return candidates


class ShadowRecorder:
    """Per-conversation helper for an agent loop: call :meth:`turn` with each user turn's text
    and :meth:`loaded` when the model loads a skill (``load_skill`` or an implicit use)."""

    def __init__(self, store: UsageStore, index: object, *, project: str = "", session: str = "") -> None:
        self.store = store
        self.index = index
        self.project = project
        self.session = session or f"s{int(time.time() * 1000)}-{os.getpid()}"
        self.count = 0
        self.current = ""
        self.loaded_now: set[str] = set()

    def turn(self, query: str, *, now: float | None = None) -> str:
        """Record every selector's candidates for a new turn; returns the turn id."""
        self.count += 1
        self.current = f"{self.session}-{self.count}"
        self.loaded_now = set()
        if query.strip():
            record_shadow_turn(
                self.store, self.index, query, turn=self.current, project=self.project, now=now
            )
        return self.current

    def loaded(self, path: str, *, via: str = "load_skill", now: float | None = None) -> None:
        """Record the first load of the skill at ``path`` (its ``SKILL.md``) in this turn."""
        if path in self.loaded_now:
            return
        self.loaded_now.add(path)
        self.store.record_load(path, turn=self.current, project=self.project, via=via, now=now)


def _encodable(text: str) -> bool:
    """Whether ``text`` is valid UTF-8 once encoded (no lone surrogate)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True
