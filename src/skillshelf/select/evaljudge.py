"""How ``skillshelf eval`` judges one query: what is in the context, and whether it passed.

A query passes when one of its ``relevant`` skills is in the context and none of its
``not_relevant`` ones is (:class:`QueryOutcome`). Ranked, a skill is in the context when it is
among the first ``k`` shown (none when the ranking is not confident). The ``default`` selector
also follows the per-turn rule of the context (a :class:`QueryTurn`, see
:mod:`skillshelf.select.evaluate`), under which a skill is in the context whatever its rank when

* it is ``pinned`` in config: the agents' ``SessionStart`` answer (``skillshelf context``: its
  stable ``pinned`` part) puts it into every session, so it is never suggested per turn
  (``pinned: always in context``);
* the query mentions it (``$name``, ``[$name](path)``, ``/name``): it is loaded whole
  (``mentioned: loaded whole``).

A relevant skill there passes the query, a not_relevant one fails it (a false trigger). The
other skills are ranked with those (and their copies, the same name and description) left out,
as the suggestions leave them out. Copies of one skill count once, under the key a label gives
them (:func:`one_per_skill`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from skillshelf.select.docs import SkillDoc, copy_key
from skillshelf.select.evalfile import EvalQuery
from skillshelf.select.index import SkillIndex
from skillshelf.skills.model import Skill

__all__ = [
    "MENTIONED_WHY",
    "NO_TURN",
    "PINNED_WHY",
    "QueryOutcome",
    "QueryTurn",
    "Shown",
    "TurnFn",
    "as_shown",
    "copy_sets",
    "doc_key",
    "one_per_skill",
    "outcome",
]

MENTIONED_WHY = "mentioned: loaded whole"
PINNED_WHY = "pinned: always in context"


def doc_key(doc: SkillDoc) -> str:
    """What a query file names: the tool id, or the absolute skill folder."""
    return doc.tool_id if doc.tool_id is not None else str(Path(doc.key).parent)


@dataclass(frozen=True, slots=True, kw_only=True)
class QueryOutcome:
    """Whether one query passed: a ``relevant`` skill in the context (``pinned``, ``mentioned``,
    or in the first ``k`` of the rest: ``rank`` is the best one's there, None when none is), and
    no ``not_relevant`` one there (``false_triggers``). ``pinned`` and ``mentioned``: the
    labelled skills in the context whatever their rank, because config pins them or the query
    mentions them; ``quiet``: nothing ranked was shown (the ``default`` ranking's confidence is
    below its threshold), so a miss is no matter of rank."""

    line: int
    query: str
    rank: int | None
    missed: bool
    false_triggers: tuple[str, ...] = ()
    mentioned: tuple[str, ...] = ()
    pinned: tuple[str, ...] = ()
    quiet: bool = False  # nothing ranked was shown: the default ranking's confidence is too low

    @property
    def passed(self) -> bool:
        return not self.missed and not self.false_triggers

    def mention_notes(self) -> tuple[str, ...]:
        """``NAME mentioned: loaded whole`` for each labelled skill the query mentions."""
        return tuple(f"{Path(key).name} {MENTIONED_WHY}" for key in self.mentioned)

    def context_notes(self) -> tuple[str, ...]:
        """Why each labelled skill is in the context whatever its rank: ``NAME pinned: always in
        context``, then the :meth:`mention_notes`."""
        return (*(f"{Path(key).name} {PINNED_WHY}" for key in self.pinned), *self.mention_notes())

    def to_dict(self) -> dict[str, object]:
        return {
            "line": self.line,
            "query": self.query,
            "passed": self.passed,
            "rank": self.rank,
            "missed": self.missed,
            "below_threshold": self.quiet,
            "false_triggers": list(self.false_triggers),
            "mentioned": [{"skill": key, "why": MENTIONED_WHY} for key in self.mentioned],
            "pinned": [{"skill": key, "why": PINNED_WHY} for key in self.pinned],
        }


def outcome(
    q: EvalQuery,
    keys: Sequence[str],
    k: int,
    triggered: bool,
    *,
    mentioned: Sequence[str] = (),
    pinned: Sequence[str] = (),
) -> QueryOutcome:
    """Judge one query on its ranked ``keys`` (those pinned or mentioned left out);
    ``triggered`` False: nothing ranked would be shown. The ``pinned`` and ``mentioned`` skills
    are in the context whatever their rank: a relevant one passes the query, a not_relevant one
    is a false trigger."""
    shown = list(keys[:k]) if triggered else []
    relevant, negative = set(q.relevant), set(q.not_relevant)
    rank = next((i + 1 for i, key in enumerate(shown) if key in relevant), None)
    held = _labelled(pinned, q)
    said = tuple(key for key in _labelled(mentioned, q) if key not in held)
    present = relevant.intersection((*held, *said))
    return QueryOutcome(
        line=q.line,
        query=q.query,
        rank=rank,
        missed=bool(q.relevant) and rank is None and not present,
        false_triggers=tuple(dict.fromkeys(key for key in (*held, *said, *shown) if key in negative)),
        mentioned=said,
        pinned=held,
        quiet=not triggered,
    )


def _labelled(keys: Sequence[str], q: EvalQuery) -> tuple[str, ...]:
    """The ``keys`` ``q`` labels (relevant or not_relevant), once each, in their order."""
    labels = {*q.relevant, *q.not_relevant}
    return tuple(dict.fromkeys(key for key in keys if key in labels))


def copy_sets(index: SkillIndex) -> dict[str, str]:
    """Each entry's key -> the key of the first of its copies (the same name and description,
    :func:`~skillshelf.select.docs.copy_key`); empty when no entry has a copy."""
    if not index.copy_depth():
        return {}
    first: dict[tuple[str, str], str] = {}
    return {doc_key(d): first.setdefault(copy_key(d.name, d.description), doc_key(d)) for d in index.docs}


def one_per_skill(
    keys: tuple[str, ...], q: EvalQuery, copies: dict[str, str]
) -> tuple[tuple[str, ...], EvalQuery]:
    """The ranked ``keys`` and the query's labels with the copies of one skill counted once, as
    the model is shown them: the set stands at its best rank, under the key a label gives it
    (else the best-ranked copy's). A label on one copy judges them all."""
    if not copies:
        return keys, q
    named = {copies.get(key, key): key for key in (*q.relevant, *q.not_relevant)}

    def once(entries: Sequence[str]) -> tuple[str, ...]:
        kept: dict[str, str] = {}
        for key in entries:
            group = copies.get(key, key)
            kept.setdefault(group, named.get(group, key))
        return tuple(kept.values())

    labels = dataclasses.replace(q, relevant=once(q.relevant), not_relevant=once(q.not_relevant))
    return once(keys), labels


@dataclass(frozen=True, slots=True, kw_only=True)
class QueryTurn:
    """What the per-turn rule does with one query
    (:func:`skillshelf.context_parts.turn_candidates` decides it): the skills config ``pinned``
    (in every session, never suggested), the skills it ``mentioned`` (loaded whole,
    whatever their rank) and the keys (SKILL.md paths) the suggestions leave ``left_out`` for it
    (those mentioned, those Claude Code's ``skillOverrides`` withhold)."""

    mentioned: tuple[Skill, ...] = ()
    left_out: frozenset[str] = frozenset()
    pinned: tuple[Skill, ...] = ()


TurnFn = Callable[[str], QueryTurn]
"""``query -> QueryTurn``: the per-turn rule the ``default`` selector is judged under."""

NO_TURN = QueryTurn()


@dataclass(frozen=True, slots=True, kw_only=True)
class Shown:
    """One query as the model has it: the keys of the ``pinned`` skills it labels and of the
    skills it ``mentioned`` (in the context whatever the ranking), the ``ranked`` keys of the
    rest, and the query's ``labels``, the copies of one skill counted once in each."""

    pinned: tuple[str, ...]
    mentioned: tuple[str, ...]
    ranked: tuple[str, ...]
    labels: EvalQuery

    def in_context(self, n: int) -> tuple[str, ...]:
        """What the model has at depth ``n``: the labelled pinned skills, the mentioned ones,
        then the best ``n`` of the rest."""
        return (*self.pinned, *self.mentioned, *self.ranked[:n])


def as_shown(docs: Sequence[SkillDoc], asked: EvalQuery, turn: QueryTurn, copies: dict[str, str]) -> Shown:
    """``docs`` ranked for ``asked`` under ``turn``: the pinned and mentioned skills taken out
    of the ranking (with ``turn``'s left-out ones and every copy of a pinned or mentioned one),
    as the suggestions leave them out (:func:`one_per_skill` counts copies once)."""
    if not turn.mentioned and not turn.left_out and not turn.pinned:
        keys, q = one_per_skill(tuple(doc_key(d) for d in docs), asked, copies)
        return Shown(pinned=(), mentioned=(), ranked=keys, labels=q)
    gone = {copy_key(s.name, s.description) for s in (*turn.pinned, *turn.mentioned)}
    rest = tuple(
        doc_key(d) for d in docs if d.key not in turn.left_out and copy_key(d.name, d.description) not in gone
    )
    held, _ = one_per_skill(_folders(turn.pinned), asked, copies)
    said, _ = one_per_skill(_folders(turn.mentioned), asked, copies)
    keys, q = one_per_skill(rest, asked, copies)
    held = _labelled(held, q)
    return Shown(pinned=held, mentioned=tuple(k for k in said if k not in held), ranked=keys, labels=q)


def _folders(skills: Sequence[Skill]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(str(s.path.parent) for s in skills))
