"""The MCP resources: every file of a listed skill as ``skill://NAME/PATH``, read confined.

A resource's text reaches the model as a tool's would (Codex hands ``read_mcp_resource``'s text
to it; Claude Code's ``ReadMcpResourceTool`` too), so an untrusted project's skill is served as
``read_skill_file`` serves it: its text read defused (every closing ``skill`` tag written
``<\\/skill>``, :func:`~skillshelf.skills.bundled.read_bundled_file`) and preceded by
:data:`~skillshelf.skills.load.UNTRUSTED_NOTE`; ``trusted: false`` in ``_meta`` on every one.
A binary file stays its bytes (base64), marked in ``_meta`` only. The list names a skill's
first files only (the server's cap per skill): the ``SKILL.md`` resource of a skill with more
says how many more and how to read them by URI (:func:`unlisted_files_note`).
"""

from __future__ import annotations

import mimetypes
from typing import Any
from urllib.parse import quote, unquote

import mcp.types as types
from mcp.shared.exceptions import MCPError

from skillshelf.serve.shown import shown_text
from skillshelf.skills.bundled import SkillFile
from skillshelf.skills.load import UNTRUSTED_NOTE, UNTRUSTED_TAG
from skillshelf.skills.model import Skill

__all__ = [
    "URI_TEMPLATE",
    "parse_skill_uri",
    "resource",
    "resource_contents",
    "skill_uri",
    "unlisted_files_note",
]

URI_TEMPLATE = "skill://{name}/{+path}"


def skill_uri(name: str, path: str) -> str:
    """``skill://NAME/PATH`` with each part percent-encoded."""
    return f"skill://{quote(name, safe='')}/{quote(path, safe='/')}"


def parse_skill_uri(uri: str) -> tuple[str, str]:
    """(name, path) from a ``skill://`` URI; MCPError(INVALID_PARAMS) when it is not one."""
    prefix = "skill://"
    rest = uri[len(prefix) :] if uri.startswith(prefix) else ""
    name, sep, path = rest.partition("/")
    if not name or not sep or not path:
        raise MCPError(types.INVALID_PARAMS, f"not a skill file URI: {uri!r} (expected skill://NAME/PATH)")
    return unquote(name), unquote(path)


def unlisted_files_note(skill: Skill, more: int, *, at_least: bool = False) -> str:
    """What the ``SKILL.md`` resource of a skill whose list of resources was capped says of the
    ``more`` files left out (``at_least``: a lower bound) and how to reach them."""
    count = f"at least {more:,}" if at_least else f"{more:,}"
    return (
        f"({count} more file(s) of {skill.name} are not in this list, which names a skill's first "
        f"files only: read any of them by URI, {skill_uri(skill.name, 'PATH')}, with PATH relative "
        "to the skill folder; load_skill and the skill's text name the ones it uses.)"
    )


def resource(
    skill: Skill, rel: str, meta: dict[str, Any], *, more_files: int = 0, more_at_least: bool = False
) -> types.Resource:
    """The listed resource of ``skill``'s file ``rel``; ``SKILL.md`` carries the description, and
    when the list leaves out ``more_files`` of the skill's files (a lower bound when
    ``more_at_least``), the note that says so (:func:`unlisted_files_note`)."""
    mime = mimetypes.guess_type(rel)[0] or ("text/markdown" if rel.endswith(".md") else None)
    description = None
    if rel == "SKILL.md":
        shown = shown_text(skill.description)
        description = shown if skill.trusted else f"{UNTRUSTED_TAG} {shown}"
        if more_files > 0:
            description += " " + unlisted_files_note(skill, more_files, at_least=more_at_least)
    return types.Resource(
        uri=skill_uri(skill.name, rel),
        name=f"{skill.name}/{rel}",
        mime_type=mime,
        description=description,
        _meta=meta,
    )


def resource_contents(
    skill: Skill, file: SkillFile, uri: str, meta: dict[str, Any]
) -> types.TextResourceContents | types.BlobResourceContents:
    """What ``resources/read`` answers for ``file`` of ``skill``: text with the untrusted note
    first for an untrusted skill, or the bytes as base64."""
    if file.is_binary:
        return types.BlobResourceContents(
            uri=uri, mime_type=file.mime_type, blob=file.base64 or "", _meta=meta
        )
    text = file.text or ""
    if not skill.trusted:
        text = f"{UNTRUSTED_NOTE}\n\n{text}"
    return types.TextResourceContents(uri=uri, mime_type=file.mime_type, text=text, _meta=meta)
