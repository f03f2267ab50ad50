"""Tool arguments that are no JSON object, from the providers to the tools' error results.

A model may send a call's arguments as text that is not JSON (cut off mid-object) or as JSON
that is no object (a string, a list, ``null``). The providers hand either on as
``{"_raw": text}`` (:func:`raw_call_arguments`): the text as sent, so two different bad calls
stay two different calls for the repeat guard, and the OpenAI wire format plays the model's own
arguments back to it as it sent them. :func:`raw_problem` says what is wrong with them, the
same way for the folder tools and the skill tools.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from skillshelf.errors import UsageError
from skillshelf.serve.arguments import check_arguments
from skillshelf.serve.schemas import ToolSpec

__all__ = ["EXAMPLES", "RAW_KEY", "argument_problem", "raw_call_arguments", "raw_of", "raw_problem"]

RAW_KEY = "_raw"
MAX_RAW_SHOWN = 200  # characters of the arguments quoted back to the model
#: One call of each tool the agent offers, for the error that says what to send.
EXAMPLES = {
    "bash": '{"command": "ls"}',
    "read_file": '{"path": "README.md"}',
    "write_file": '{"path": "notes.txt", "content": "text"}',
    "edit_file": '{"path": "notes.txt", "old_text": "old", "new_text": "new"}',
    "load_skill": '{"name": "SKILL-NAME"}',
    "search_skills": '{"query": "a few words about the task"}',
    "read_skill_file": '{"name": "SKILL-NAME", "path": "references/notes.md"}',
}

_JSON_TYPES: tuple[tuple[type, str], ...] = (
    (bool, "a boolean"),
    (str, "a string"),
    (list, "an array"),
    (int, "a number"),
    (float, "a number"),
)


def raw_call_arguments(text: str | None) -> dict[str, Any]:
    """A call's arguments (JSON text) as a dict; anything but a JSON object is
    ``{"_raw": text}`` for the tool to report. No text is ``{}``."""
    if not text:
        return {}
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        return {RAW_KEY: text}
    return value if isinstance(value, dict) else {RAW_KEY: text}


def raw_of(arguments: Mapping[str, Any]) -> str | None:
    """The text of arguments that were no JSON object (``{"_raw": text}``), else ``None``."""
    raw = arguments.get(RAW_KEY)
    return raw if isinstance(raw, str) and set(arguments) == {RAW_KEY} else None


def raw_problem(raw: str, example: str = "{}") -> str:
    """What is wrong with arguments sent as ``raw``: not JSON, or JSON of another type than an
    object; with an ``example`` of what to send."""
    shown = raw if len(raw) <= MAX_RAW_SHOWN else raw[:MAX_RAW_SHOWN] + f"... ({len(raw)} characters)"
    try:
        value = json.loads(raw)
    except (ValueError, RecursionError):
        return f"the arguments were not valid JSON: {shown!r}; send one JSON object, e.g. {example}"
    return f"arguments must be a JSON object, got {_json_type(value)}: {shown}; send one, e.g. {example}"


def argument_problem(spec: ToolSpec, arguments: Mapping[str, Any]) -> str | None:
    """What is wrong with ``arguments`` for the tool ``spec``: no JSON object
    (:func:`raw_problem`), or not fitting its schema; ``None`` when they fit."""
    raw = raw_of(arguments)
    if raw is not None:
        return raw_problem(raw, EXAMPLES.get(spec.name, "{}"))
    try:
        check_arguments(spec.name, spec.parameters, arguments)
    except UsageError as exc:
        return f"{exc.message} ({exc.hint})"
    return None


def _json_type(value: object) -> str:
    if value is None:
        return "null"
    return next((name for kind, name in _JSON_TYPES if isinstance(value, kind)), type(value).__name__)
