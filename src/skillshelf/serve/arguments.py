"""A tool call's arguments checked against the JSON Schema its tool advertises.

:func:`check_arguments` is the one check every skill tool call passes before its handler runs,
whichever surface it came from (the MCP server, the OpenAI/Anthropic dispatcher, the reference
agent: all of them go through :meth:`skillshelf.serve.tools.SkillTools.dispatch`). It reads the
subset of JSON Schema the tools are written in: an object with ``properties``, ``required``
and ``additionalProperties: false``; per property ``type`` (a name or a list of names),
``minimum``/``maximum`` (and the exclusive forms), ``minLength``/``maxLength`` and ``enum``.
Annotations (``description``, ``default``, ``title``, ``examples``) are read by no check. A
keyword outside that subset is a bug in the tool's definition: a ``ValueError``, never a
schema silently left unchecked.

JSON types as JSON Schema defines them: ``true`` is a boolean, never an integer; ``2.0`` is
an integer and ``2.5`` is not; ``"5"`` is a string; NaN and the infinities are no JSON number
at all. ``null`` for an optional property stands for leaving it out, as OpenAI's strict mode
(:func:`skillshelf.serve.schemas.to_openai` with ``strict=True``) offers it.

Not the ``jsonschema`` package: importing it takes about 130 ms, which every prompt hook and
agent start would pay for four small schemas, and its messages name schema paths where the
model needs the argument and its rule. The tests hold this check to ``jsonschema``'s verdict on
every tool's schema (hypothesis).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from skillshelf.errors import UsageError

__all__ = ["ANNOTATIONS", "PROPERTY_KEYWORDS", "check_arguments", "is_integer", "json_type", "rule_text"]

ANNOTATIONS = frozenset({"description", "default", "title", "examples"})
PROPERTY_KEYWORDS = frozenset(
    {"type", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "minLength", "maxLength", "enum"}
)
OBJECT_KEYWORDS = frozenset({"type", "properties", "required", "additionalProperties"})


def is_integer(value: object) -> bool:
    """Whether ``value`` is a JSON Schema integer: an int (not a bool) or a finite whole float."""
    if isinstance(value, bool):
        return False
    return isinstance(value, int) or (
        isinstance(value, float) and math.isfinite(value) and value.is_integer()
    )


def json_type(value: object) -> str:
    """The JSON type name of a value parsed from JSON (``number`` for a float that is not whole;
    ``NaN`` / ``Infinity`` for the floats JSON has no number for)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if is_integer(value):
        return "integer"
    if isinstance(value, float):
        return "number" if math.isfinite(value) else ("NaN" if math.isnan(value) else "Infinity")
    if isinstance(value, str):
        return "string"
    if isinstance(value, Mapping):
        return "object"
    if isinstance(value, Sequence):
        return "array"
    return type(value).__name__


def _fits_type(value: object, name: str) -> bool:
    if name == "number":
        return json_type(value) in ("integer", "number")
    return json_type(value) == name


def _named(kind: str) -> str:
    """A type name with its article: ``an integer``, ``a string``, ``null``, ``NaN``."""
    if kind in ("null", "NaN", "Infinity"):
        return kind
    return f"an {kind}" if kind[:1] in "aeiou" else f"a {kind}"


def _quoted(key: object, limit: int = 40) -> str:
    text = repr(key)
    return text if len(text) <= limit else text[: limit - 4] + "...'"


def _types(prop: Mapping[str, Any]) -> tuple[str, ...]:
    kind = prop.get("type", ())
    return (kind,) if isinstance(kind, str) else tuple(kind)


def rule_text(prop: Mapping[str, Any]) -> str:
    """What a property takes, in words: ``an integer from 1 to 50``, ``a string``..."""
    kinds = " or ".join(_named(k) for k in _types(prop)) or "any value"
    if "enum" in prop:
        return "one of " + ", ".join(repr(v) for v in prop["enum"])
    low, high = prop.get("minimum"), prop.get("maximum")
    if low is not None and high is not None:
        return f"{kinds} from {low} to {high}"
    if low is not None:
        return f"{kinds} of at least {low}"
    if high is not None:
        return f"{kinds} of at most {high}"
    return kinds


def _signature(schema: Mapping[str, Any]) -> str:
    required = set(schema.get("required", ()))
    parts = []
    for key, prop in schema.get("properties", {}).items():
        extra = "required" if key in required else "optional"
        if "default" in prop:
            extra += f", default {prop['default']!r}"
        parts.append(f"{key} ({rule_text(prop)}; {extra})")
    return ", ".join(parts) or "no arguments"


def _bounds_problem(key: str, value: Any, prop: Mapping[str, Any]) -> str | None:
    if "minimum" in prop and value < prop["minimum"]:
        return f"argument {key!r} must be at least {prop['minimum']}"
    if "maximum" in prop and value > prop["maximum"]:
        return f"argument {key!r} must be at most {prop['maximum']}"
    if "exclusiveMinimum" in prop and value <= prop["exclusiveMinimum"]:
        return f"argument {key!r} must be more than {prop['exclusiveMinimum']}"
    if "exclusiveMaximum" in prop and value >= prop["exclusiveMaximum"]:
        return f"argument {key!r} must be less than {prop['exclusiveMaximum']}"
    return None


def _length_problem(key: str, value: str, prop: Mapping[str, Any]) -> str | None:
    if "minLength" in prop and len(value) < prop["minLength"]:
        return f"argument {key!r} must be at least {prop['minLength']} characters long"
    if "maxLength" in prop and len(value) > prop["maxLength"]:
        return f"argument {key!r} must be at most {prop['maxLength']} characters long"
    return None


def _property_problem(key: str, value: Any, prop: Mapping[str, Any]) -> str | None:
    kinds = _types(prop)
    if kinds and not any(_fits_type(value, kind) for kind in kinds):
        return f"argument {key!r} must be {rule_text({'type': list(kinds)})}, not {_named(json_type(value))}"
    if "enum" in prop and not any(value == v and json_type(value) == json_type(v) for v in prop["enum"]):
        return f"argument {key!r} must be {rule_text(prop)}"
    if isinstance(value, int | float) and not isinstance(value, bool):
        return _bounds_problem(key, value, prop)
    if isinstance(value, str):
        return _length_problem(key, value, prop)
    return None


def _read_only_known_keywords(schema: Mapping[str, Any]) -> None:
    """A ``ValueError`` when ``schema`` (or one of its properties) uses a keyword no check reads."""
    unknown = set(schema) - OBJECT_KEYWORDS - ANNOTATIONS
    if unknown or schema.get("type", "object") != "object":
        raise ValueError(f"tool schema keywords not checked: {sorted(unknown) or schema.get('type')}")
    for key, prop in schema.get("properties", {}).items():
        unknown = set(prop) - PROPERTY_KEYWORDS - ANNOTATIONS
        if unknown:
            raise ValueError(f"argument {key!r}: schema keywords not checked: {sorted(unknown)}")


def _problems(schema: Mapping[str, Any], args: Mapping[str, Any]) -> list[str]:
    _read_only_known_keywords(schema)
    properties: Mapping[str, Mapping[str, Any]] = schema.get("properties", {})
    required = schema.get("required", ())
    problems: list[str] = []
    if schema.get("additionalProperties", True) is False:
        extra = [key for key in args if key not in properties]
        if extra:
            names = ", ".join(_quoted(key) for key in extra[:5]) + (", ..." if len(extra) > 5 else "")
            problems.append(
                f"argument {names} is not one this tool takes"
                if len(extra) == 1
                else f"arguments {names} are not ones this tool takes"
            )
    for key, prop in properties.items():
        value = args.get(key)
        if value is None:  # left out, or null: OpenAI's strict mode for "left out"
            if key in required:
                present = "is null" if key in args else "is missing"
                problems.append(f"argument {key!r} {present}")
            continue
        problem = _property_problem(key, value, prop)
        if problem:
            problems.append(problem)
    return problems


def check_arguments(name: str, schema: Mapping[str, Any], args: Mapping[str, Any]) -> Mapping[str, Any]:
    """``args`` when they fit the tool ``name``'s argument ``schema``; else a ``UsageError``
    (SV400) naming every argument that does not and its rule, with the tool's arguments as
    the fix.

    Raises:
        UsageError: an argument is missing, of the wrong type, out of bounds, or not one the
            tool takes.
        ValueError: ``schema`` uses a keyword this check does not read (a bug in the tool).
    """
    problems = _problems(schema, args)
    if problems:
        raise UsageError(
            "; ".join(problems),
            hint=f"{name} takes {_signature(schema)}",
            code="SV400",
        )
    return args
