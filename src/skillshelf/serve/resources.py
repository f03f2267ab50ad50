"""The MCP resources: every file of a listed skill as ``skill://NAME/PATH``, read confined.

A resource's text reaches the model as a tool's would (Codex hands ``read_mcp_resource``'s text
to it; Claude Code's ``ReadMcpResourceTool`` too), so an untrusted project's skill is served as
``read_skill_file`` serves it: its text read defused (every closing ``skill`` tag written
``<\\/skill>``, :func:`~skillshelf.skills.bundled.read_bundled_file`) and preceded by
:data:`~skillshelf.skills.load.UNTRUSTED_NOTE`; ``trusted: false`` in ``_meta`` on every one.
A binary file stays its bytes (base64), marked in ``_meta`` only.
"""

from __future__ import annotations

import mimetypes
from typing import Any
from urllib.parse import quote, unquote

import mcp.types as types
from mcp.shared.exceptions import MCPError

from skillshelf.skills.bundled import SkillFile
from skillshelf.skills.load import UNTRUSTED_NOTE, UNTRUSTED_TAG
from skillshelf.skills.model import Skill

__all__ = ["URI_TEMPLATE", "parse_skill_uri", "resource", "resource_contents", "skill_uri"]

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


def resource(skill: Skill, rel: str, meta: dict[str, Any]) -> types.Resource:
    """The listed resource of ``skill``'s file ``rel``; ``SKILL.md`` carries the description."""
    mime = mimetypes.guess_type(rel)[0] or ("text/markdown" if rel.endswith(".md") else None)
    description = None
    if rel == "SKILL.md":
        description = skill.description if skill.trusted else f"{UNTRUSTED_TAG} {skill.description}"
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
