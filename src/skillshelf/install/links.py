"""The links a lock entry may name: those ``install --for`` could have made.

A lock file is content anyone can commit, and ``update`` creates the links it names while
``remove`` deletes them, so only ``<an agent's skills folder of the scope>/<the entry's folder
name>`` is used. An absolute link that older lock files hold for the same agent folder
elsewhere (the project cloned or moved) names that folder here; any other link is a stray,
reported (``IS402``) and never used.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Literal

from skillshelf.env import Env
from skillshelf.install.lock import LockEntry
from skillshelf.install.visibility import agent_roots

__all__ = ["confined_links", "stray_links"]

Scope = Literal["user", "project"]


def confined_links(entry: LockEntry, scope: Scope, env: Env) -> LockEntry:
    """``entry`` with each link as it is here, the strays left out."""
    allowed = _allowed(entry, scope, env)
    kept = tuple(here for here in (allowed.get(_tail(link)) for link in entry.links) if here is not None)
    return entry if kept == entry.links else dataclasses.replace(entry, links=kept)


def stray_links(entry: LockEntry, scope: Scope, env: Env) -> tuple[str, ...]:
    """The links of ``entry`` that ``install`` could not have made here."""
    allowed = _allowed(entry, scope, env)
    return tuple(link for link in entry.links if _tail(link) not in allowed)


def _allowed(entry: LockEntry, scope: Scope, env: Env) -> dict[tuple[str, ...], str]:
    """The links ``install`` could have made for ``entry``, by :func:`_tail`."""
    links = (str(root / entry.name) for root in agent_roots(scope, env).values())
    return {_tail(link): link for link in links}


def _tail(link: str) -> tuple[str, ...]:
    """The last three parts of a link: ``(".claude", "skills", NAME)``."""
    return Path(link).parts[-3:]
