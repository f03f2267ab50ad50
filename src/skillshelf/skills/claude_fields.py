"""Claude Code's extra frontmatter fields, read into :class:`ClaudeFields` (pure).

Claude Code accepts loose shapes (``allowed-tools`` as ``"Read, Grep"``, ``"Bash(git add:*) Read"``
or a YAML list; booleans written as ``"true"``). Each field that has a shape we cannot use keeps
Claude Code's default and yields a warning, so one odd field never costs the whole skill.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from skillshelf.diagnostics import Diagnostic, Severity
from skillshelf.skills.model import ClaudeFields

__all__ = ["parse_claude_fields", "split_tool_list"]

_TRUE = frozenset({"true", "yes", "on", "1"})
_FALSE = frozenset({"false", "no", "off", "0"})


def split_tool_list(text: str) -> tuple[str, ...]:
    """Split ``"Read, Bash(git add:*) Grep"`` into tools; commas and spaces inside ``()`` are kept."""
    tools: list[str] = []
    current: list[str] = []
    depth = 0
    for char in text:
        if char == "(":
            depth += 1
        elif char == ")" and depth:
            depth -= 1
        if depth == 0 and (char == "," or char.isspace()):
            if current:
                tools.append("".join(current))
                current = []
            continue
        current.append(char)
    if current:
        tools.append("".join(current))
    return tuple(tools)


def _warn(path: Path | None, field: str, message: str, fix: str) -> Diagnostic:
    return Diagnostic(
        code="SK120", severity=Severity.WARNING, message=message, fix=fix, path=path, field=field
    )


def _as_bool(value: object, field: str, default: bool, path: Path | None, out: list[Diagnostic]) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in _TRUE | _FALSE:
        return value.strip().lower() in _TRUE
    if value is None:
        return default
    out.append(
        _warn(
            path,
            field,
            f"`{field}` should be true or false, not {value!r}",
            f"write `{field}: true` or `{field}: false`",
        )
    )
    return default


def _as_text(value: object, field: str, path: Path | None, out: list[Diagnostic]) -> str | None:
    if value is None:
        return None
    if isinstance(value, str):
        return value.strip() or None
    if isinstance(value, bool | int | float):
        return str(value)
    if isinstance(value, list) and all(isinstance(v, str | int | float) for v in value):
        # `argument-hint: [file]` is a YAML list; Claude Code users mean the text "[file]".
        return " ".join(f"[{v}]" for v in value) or None
    out.append(_warn(path, field, f"`{field}` should be text", f"write `{field}` as a single line of text"))
    return None


def _as_list(value: object, field: str, path: Path | None, out: list[Diagnostic]) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        return split_tool_list(value)
    if isinstance(value, list) and all(
        isinstance(v, str | int | float) and not isinstance(v, bool) for v in value
    ):
        return tuple(str(v).strip() for v in value if str(v).strip())
    out.append(
        _warn(
            path,
            field,
            f"`{field}` should be a list or a space-separated string",
            f"write `{field}: Read Grep` or a YAML list",
        )
    )
    return ()


def parse_claude_fields(
    frontmatter: Mapping[str, object], *, path: Path | None = None
) -> tuple[ClaudeFields, tuple[Diagnostic, ...]]:
    """Read Claude Code's fields from a parsed frontmatter mapping."""
    out: list[Diagnostic] = []
    paths_value = frontmatter.get("paths")
    when = frontmatter.get("when_to_use", frontmatter.get("when-to-use"))
    fields = ClaudeFields(
        allowed_tools=_as_list(frontmatter.get("allowed-tools"), "allowed-tools", path, out),
        disable_model_invocation=_as_bool(
            frontmatter.get("disable-model-invocation"), "disable-model-invocation", False, path, out
        ),
        user_invocable=_as_bool(frontmatter.get("user-invocable"), "user-invocable", True, path, out),
        argument_hint=_as_text(frontmatter.get("argument-hint"), "argument-hint", path, out),
        model=_as_text(frontmatter.get("model"), "model", path, out),
        context=_as_text(frontmatter.get("context"), "context", path, out),
        paths=tuple(p for p in (s.strip() for s in paths_value.split(",")) if p)
        if isinstance(paths_value, str)
        else _as_list(paths_value, "paths", path, out),
        when_to_use=_as_text(when, "when_to_use", path, out),
    )
    return fields, tuple(out)
