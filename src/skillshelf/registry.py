"""Named extension points: :class:`Registry` holds one frozen spec per name, in registration
order, built-in ones first (the catalog formats, the selectors). Everything that offers a
choice reads its registry, so one registration makes a new spec usable everywhere.

A program that embeds skillshelf may :meth:`Registry.register` its own spec (and take it out
again); tests use :meth:`Registry.registered` for a spec that lives as long as a block.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Generic, Protocol, TypeVar

from skillshelf.errors import UsageError

__all__ = ["Named", "Registry", "check_name"]

_NAME = re.compile(r"[a-z][a-z0-9_-]*\Z")


class Named(Protocol):
    @property
    def name(self) -> str: ...


S = TypeVar("S", bound=Named)


def check_name(kind: str, name: str, *, reserved: Iterable[str] = ()) -> None:
    """Raise a ``UsageError`` unless ``name`` is lowercase letters, digits, ``-`` and ``_``,
    starting with a letter, and not one of ``reserved``."""
    if not _NAME.match(name) or name in reserved:
        refused = f" (not {', '.join(reserved)})" if reserved else ""
        raise UsageError(
            f"not a {kind} name: {name!r}",
            hint=f"use lowercase letters, digits, '-' and '_', starting with a letter{refused}",
        )


class Registry(Generic[S]):
    """The specs of one kind by name. ``codes``: the error codes of an unknown name and of a
    name registered twice (None: ``UsageError``'s own)."""

    def __init__(
        self,
        kind: str,
        builtin: Iterable[S],
        *,
        unknown_code: str | None = None,
        taken_code: str | None = None,
    ) -> None:
        self.kind = kind
        self._specs: dict[str, S] = {}
        self._unknown_code = unknown_code
        self._taken_code = taken_code
        for spec in builtin:
            self.register(spec)

    def __iter__(self) -> Iterator[S]:
        return iter(tuple(self._specs.values()))

    def __contains__(self, name: object) -> bool:
        return name in self._specs

    def names(self) -> tuple[str, ...]:
        return tuple(self._specs)

    def get(self, name: str) -> S:
        """The spec called ``name``; an unknown name raises a ``UsageError`` naming the closest."""
        spec = self._specs.get(name)
        if spec is None:
            import difflib  # only for a wrong name

            close = difflib.get_close_matches(name, self._specs, n=1)
            guess = f'did you mean "{close[0]}"? ' if close else ""
            raise UsageError(
                f"unknown {self.kind} {name!r}",
                hint=f"{guess}use one of: {', '.join(self._specs)}",
                code=self._unknown_code,
            )
        return spec

    def register(self, spec: S) -> None:
        """Offer ``spec`` wherever a spec of this kind is chosen; a name taken raises a ``UsageError``."""
        if spec.name in self._specs:
            raise UsageError(
                f"the {self.kind} {spec.name!r} is already registered",
                hint="pick another name, or unregister the old one first",
                code=self._taken_code,
            )
        self._specs[spec.name] = spec

    def unregister(self, name: str) -> None:
        """Take the spec called ``name`` out (a built-in one too); an unknown name is ignored."""
        self._specs.pop(name, None)

    @contextmanager
    def registered(self, spec: S) -> Iterator[S]:
        """``spec`` registered for the length of a ``with`` block."""
        self.register(spec)
        try:
            yield spec
        finally:
            self.unregister(spec.name)
