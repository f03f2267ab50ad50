"""Building frozen slotted dataclasses without their ``__init__``, where thousands are built.

A frozen dataclass's generated ``__init__`` sets each field through ``object.__setattr__``;
calling the slots' own setters on ``object.__new__(cls)`` does the same in half the time.
"""

from __future__ import annotations

import dataclasses
from typing import Any

__all__ = ["slot_setters"]


def slot_setters(cls: type, names: tuple[str, ...]) -> tuple[Any, ...] | None:
    """The slot setters of a frozen dataclass whose fields are exactly ``names``, else ``None``.

    ``None`` (the fields changed, or a ``__post_init__`` must run) tells the caller to use the
    class's own constructor.
    """
    if tuple(f.name for f in dataclasses.fields(cls)) != names or hasattr(cls, "__post_init__"):
        return None
    return tuple(cls.__dict__[name].__set__ for name in names)
