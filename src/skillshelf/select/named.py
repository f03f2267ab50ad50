"""A request that is nothing but a skill's name puts that skill first.

``skillshelf search pdf`` beside skills ``pdf`` and ``pdf-forms``, or ``scan`` in a library
where the learned reorder prefers a neighbour: the user named the skill, so no blend of signals
should outrank it (Codex's own ranking gives a whole-name match a bonus no other evidence
reaches). The rule is not tuned: none of the tuning requests (the skill-requests dev split, the
authored requests, the MetaTool dev half) is only a skill's name, so it changes none of their
figures. Names compare without case, with ``-``, ``_`` and blanks alike.

Like the reorder, it deals out the same scores again: the named skills take the best places, the
others keep their order below them, so the scale the confidence model reads stays as it was.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from skillshelf.select.index import SkillIndex

__all__ = ["MAX_NAME_CHARS", "named_first", "normalised_name"]

MAX_NAME_CHARS = 200
"""A longer request is a task, never only a name (and is not compared)."""
_SEPARATORS = re.compile(r"[-_\s]+")
_WRAPPERS = "\"'`$/"


def normalised_name(text: str) -> str:
    """``text`` as names are compared: lower case, ``-``/``_``/blank runs one blank, quotes,
    backticks and a leading ``$`` or ``/`` around it dropped."""
    return " ".join(_SEPARATORS.sub(" ", text.strip().strip(_WRAPPERS).lower()).split())


def _named(index: SkillIndex, query: str) -> list[int]:
    if len(query) > MAX_NAME_CHARS:
        return []
    wanted = normalised_name(query)
    if not wanted:
        return []
    names: dict[str, list[int]] = index.memo("normalised_names", lambda: _by_name(index))
    return names.get(wanted, [])


def _by_name(index: SkillIndex) -> dict[str, list[int]]:
    out: dict[str, list[int]] = {}
    for i, doc in enumerate(index.docs):
        out.setdefault(normalised_name(doc.name), []).append(i)
    return out


def named_first(index: SkillIndex, query: str, total: Any) -> Any:
    """``total`` with the skills the request names (all of it) dealt the best scores, in their
    own order, and every other skill in its order below them; ``total`` itself when the request
    names none or they already lead."""
    import numpy as np

    named = np.array(_named(index, query), np.int64)
    if not len(named):
        return total
    ranked = np.argsort(-total, kind="stable")
    if set(ranked[: len(named)].tolist()) == set(named.tolist()):
        return total
    named = named[np.argsort(-total[named], kind="stable")]
    order = np.concatenate([named, ranked[~np.isin(ranked, named)]])
    out = total.copy()
    out[order] = total[ranked]
    return out
