"""The MCP prompts: one per user-invocable skill, so ``/name`` runs it in clients with prompt support.

What is declared follows how a client hands on what the user typed after the command:

- Claude Code (2.1.197, client name ``claude-code``; read from its ``getPromptForCommand``)
  splits the typed text on whitespace and pairs the words with the declared arguments by
  position, dropping the words past the last argument, while the user's message it sends the
  model holds the whole typed text as ``<command-args>``. It is offered prompts without
  arguments, and the prompt names the command's arguments as the request: one declared argument
  would hand on only the request's first word.
- Other clients (the MCP spec's ``prompts/get``: a map of argument names to strings) are offered
  one optional argument, ``arguments``, the request. Every value a client sends is read, in
  the order sent, and joined with spaces, so a request split over several arguments is whole.
"""

from __future__ import annotations

from collections.abc import Mapping

import mcp.types as types

from skillshelf.serve.shown import shown_text
from skillshelf.skills.load import UNTRUSTED_NOTE
from skillshelf.skills.model import Skill

__all__ = ["CLAUDE_CODE", "REQUEST_ARGUMENT", "passes_words_by_position", "prompt", "prompt_text"]

CLAUDE_CODE = "claude-code"
"""The client name Claude Code gives in ``initialize`` (``clientInfo.name``)."""
REQUEST_ARGUMENT = "arguments"


def passes_words_by_position(client_name: str | None, *, shaped_for_claude: bool) -> bool:
    """Whether the client pairs typed words with declared arguments by position (Claude Code):
    by the name it gave, or, when it gave none, by the client the server was started for."""
    return client_name == CLAUDE_CODE if client_name is not None else shaped_for_claude


def prompt(skill: Skill, meta: dict[str, object], *, positional: bool) -> types.Prompt:
    """The prompt of ``skill``; no declared argument for a client that passes words by position.
    Its description is shown as the tools show one (:func:`~skillshelf.serve.shown.shown_text`)."""
    argument = types.PromptArgument(
        name=REQUEST_ARGUMENT, description=skill.claude.argument_hint or "What to do", required=False
    )
    return types.Prompt(
        name=skill.name,
        description=shown_text(skill.short_description or skill.description)
        + ("" if skill.trusted else " [untrusted project]"),
        arguments=None if positional else [argument],
        _meta=meta,
    )


def prompt_text(skill: Skill, loaded: str, arguments: Mapping[str, str] | None, *, positional: bool) -> str:
    """The prompt's message: the loaded skill (``loaded``), then the request: every argument
    value given, in order, joined; with none, the command's arguments for a client that keeps
    them in the conversation (Claude Code), else the task at hand."""
    given = (str(value).strip() for value in (arguments or {}).values())
    request = " ".join(value for value in given if value)
    if request:
        ask = f"Use the skill {skill.name} for this request: {request}"
    elif positional:
        ask = (
            f"Use the skill {skill.name} for the request typed with this command (its arguments), "
            "or for the task at hand when there is none."
        )
    else:
        ask = f"Use the skill {skill.name} for the task at hand."
    text = f"{loaded}\n\n{ask}"
    if not skill.trusted and UNTRUSTED_NOTE not in text:
        text = UNTRUSTED_NOTE + "\n\n" + text
    return text
