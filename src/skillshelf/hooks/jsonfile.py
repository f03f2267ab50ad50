"""skillshelf's entries in an agent's JSON settings: hook groups and the MCP server.

Pure functions from text to text on top of :mod:`.jsonedit`, so everything else in the file
(other hooks, permissions, comments-free formatting, key order) is left byte for byte. Adding
is idempotent: an entry already there is left alone, a stale one (an older command path, a
changed timeout) is replaced. Taking out removes skillshelf's groups (or its handler from a
group the user shares with their own), then any ``EVENT`` list and ``hooks`` table that this
emptied, and reports whether the document is left empty (the caller may delete a file it
created).

Which ``skillshelf hook`` handlers are skillshelf's own is decided by ``recorded``: the handlers
setup wrote (:data:`HookValue`, from setup's record, or with no record of the file those
exactly as a setup writes them, :func:`setup_written`; ``None``: every one is). The others, a
handler the user wrote by hand that runs skillshelf, are the user's: never changed or taken
out, and an event that has one gets no second one from setup (:func:`users_hooks`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Collection, Iterator, Sequence
from dataclasses import dataclass

from skillshelf.errors import ConfigError
from skillshelf.hooks import jsonedit
from skillshelf.hooks.agents import Agent, HookSpec, hook_specs, is_our_command

__all__ = [
    "HookValue",
    "OurHook",
    "Position",
    "Recorded",
    "add_hooks",
    "handler_positions",
    "is_empty_document",
    "moved_handlers",
    "our_hooks",
    "remove_hooks",
    "remove_server",
    "set_server",
    "setup_written",
    "skillshelf_values",
    "users_hooks",
]

#: A handler by value: event, command, timeout and matcher (how setup's record names its own).
HookValue = tuple[str, str, int | None, str | None]
Recorded = Collection[HookValue] | None


@dataclass(frozen=True, slots=True, kw_only=True)
class Position:
    """Where a handler is in a hooks file: its event, group index and handler index (the
    parts of Codex's trust key)."""

    event: str
    group: int
    handler: int


@dataclass(frozen=True, slots=True, kw_only=True)
class OurHook:
    """One skillshelf handler found in a hooks file, with its position (Codex's trust key)."""

    event: str
    group: int
    handler: int
    member: int  # position of the event's list among the members of "hooks"
    command: str
    timeout: int | None
    matcher: str | None

    @property
    def value(self) -> HookValue:
        return (self.event, self.command, self.timeout, self.matcher)


def _root(text: str, where: str) -> jsonedit.Node:
    try:
        root = jsonedit.parse(text)
    except jsonedit.JsonEditError as exc:
        raise ConfigError(
            f"{where} is not valid JSON ({exc})",
            hint="fix the JSON by hand (or move the file away), then run setup again",
            code="HK101",
        ) from exc
    if root.kind != "object":
        raise ConfigError(
            f"{where} does not hold a JSON object", hint="it should start with '{'", code="HK102"
        )
    return root


def _table(node: jsonedit.Node | None, where: str, key: str) -> jsonedit.Node | None:
    if node is not None and node.kind != "object":
        raise ConfigError(
            f"{where}: `{key}` is not a JSON object",
            hint=f"write `{key}` as an object ({{...}}), or move it away, then run setup again",
            code="HK103",
        )
    return node


def _handlers(group: jsonedit.Node) -> Sequence[jsonedit.Node]:
    member = group.member("hooks") if group.kind == "object" else None
    return member.node.items if member is not None and member.node.kind == "array" else ()


def _walk(text: str, where: str) -> Iterator[tuple[int, str, int, jsonedit.Node, int, jsonedit.Node]]:
    """Every handler of ``text``: its event's member index and name, its group's index and
    node, its own index and node (Codex counts every group and handler in its trust key)."""
    hooks = _table(_member_node(_root(text, where), "hooks"), where, "hooks")
    for m, event in enumerate(hooks.members if hooks is not None else ()):
        for g, group in enumerate(event.node.items if event.node.kind == "array" else ()):
            for h, handler in enumerate(_handlers(group)):
                yield m, event.key, g, group, h, handler


def our_hooks(text: str, where: str = "the hooks file", recorded: Recorded = None) -> list[OurHook]:
    """skillshelf's own handlers in ``text``, in file order: of the handlers that run skillshelf,
    those ``recorded`` names (each recorded value once, the first in the file), or all of
    them when ``recorded`` is None."""
    found = _skillshelf_hooks(text, where)
    if recorded is None:
        return found
    left = Counter(recorded)
    mine: list[OurHook] = []
    for hook in found:
        if left[hook.value] > 0:
            left[hook.value] -= 1
            mine.append(hook)
    return mine


def users_hooks(text: str, where: str = "the hooks file", recorded: Recorded = None) -> list[OurHook]:
    """The handlers in ``text`` that run skillshelf but that setup did not write (the user's)."""
    mine = our_hooks(text, where, recorded)
    return [h for h in _skillshelf_hooks(text, where) if h not in mine]


def skillshelf_values(text: str, where: str, users: Sequence[OurHook]) -> list[HookValue]:
    """What setup's record keeps of ``text`` (a hooks file as setup leaves it): the handlers
    running skillshelf that are not ``users``, which are the user's."""
    left = Counter(h.value for h in users)
    values: list[HookValue] = []
    for hook in _skillshelf_hooks(text, where):
        if left[hook.value] > 0:
            left[hook.value] -= 1
        else:
            values.append(hook.value)
    return values


def setup_written(text: str, where: str, agent: Agent) -> tuple[HookValue, ...]:
    """The handlers in ``text`` exactly as a setup for ``agent`` writes them, by any path to
    skillshelf (this install's, an older one's, ``PYTHON -m skillshelf.cli.main``): the
    command, timeout and matcher of their event's entry. How setup tells its own handlers from
    the user's in a file its record says nothing of; a handler that differs (another timeout, a
    command written another way) is the user's."""
    return tuple(
        h.value for h in _skillshelf_hooks(text, where) if any(_matches(h, s) for s in _specs_of(h, agent))
    )


def _specs_of(hook: OurHook, agent: Agent) -> tuple[HookSpec, ...]:
    """The entries a setup for ``agent`` writes with the skillshelf that ``hook`` starts."""
    import shlex

    try:
        words = shlex.split(hook.command)
    except ValueError:
        return ()
    return hook_specs(agent, words[: words.index("hook")]) if "hook" in words else ()


def _skillshelf_hooks(text: str, where: str) -> list[OurHook]:
    """Every handler in ``text`` whose command runs ``skillshelf hook``, in file order."""
    found: list[OurHook] = []
    for m, event, g, group, h, handler in _walk(text, where):
        data = handler.plain()
        if isinstance(data, dict) and is_our_command(data.get("command")):
            plain = group.plain()
            matcher = plain.get("matcher") if isinstance(plain, dict) else None
            timeout = data.get("timeout")
            found.append(
                OurHook(
                    event=event,
                    group=g,
                    handler=h,
                    member=m,
                    command=str(data["command"]),
                    timeout=timeout if isinstance(timeout, int) and not isinstance(timeout, bool) else None,
                    matcher=matcher if isinstance(matcher, str) else None,
                )
            )
    return found


def handler_positions(
    text: str, where: str = "the hooks file", recorded: Recorded = None
) -> dict[Position, bool]:
    """The position of every handler in ``text``, and whether it is skillshelf's own."""
    mine = {
        Position(event=h.event, group=h.group, handler=h.handler) for h in our_hooks(text, where, recorded)
    }
    return {
        Position(event=event, group=g, handler=h): Position(event=event, group=g, handler=h) in mine
        for _m, event, g, _group, h, _handler in _walk(text, where)
    }


def moved_handlers(
    before: str, after: str, where: str = "the hooks file", recorded: tuple[Recorded, Recorded] = (None, None)
) -> dict[Position, Position]:
    """Where the user's own handlers of ``before`` are in ``after``, for those whose position
    changed (``recorded``: skillshelf's own in each, see :func:`our_hooks`). Setup only takes
    out, replaces and appends its own handlers, so the user's keep their order within each
    event: the n-th of an event before is its n-th after."""
    old = _users_by_event(before, where, recorded[0])
    new = _users_by_event(after, where, recorded[1])
    return {
        a: b
        for event, places in old.items()
        for a, b in zip(places, new.get(event, []), strict=False)
        if a != b
    }


def _users_by_event(text: str, where: str, recorded: Recorded) -> dict[str, list[Position]]:
    found: dict[str, list[Position]] = {}
    for position, ours in handler_positions(text, where, recorded).items():
        if not ours:
            found.setdefault(position.event, []).append(position)
    return found


def _member_node(node: jsonedit.Node, key: str) -> jsonedit.Node | None:
    member = node.member(key)
    return member.node if member is not None else None


def _matches(hook: OurHook, spec: HookSpec) -> bool:
    return (
        hook.event == spec.event
        and hook.command == spec.command
        and hook.timeout == spec.timeout
        and hook.matcher == spec.matcher
    )


Created = tuple[tuple[str, ...], ...]  # JSON paths of the containers an edit created


def add_hooks(
    text: str, specs: Sequence[HookSpec], where: str = "the hooks file", recorded: Recorded = None
) -> tuple[str, Created]:
    """``text`` with a group for every spec, and the containers (``("hooks",)``,
    ``("hooks", EVENT)``) that had to be created for them.

    A stale skillshelf entry of the same event (an older command path, a changed timeout) is
    replaced where it is, so every other handler keeps its position (Codex's trust key); one
    that cannot be (it shares a group of the user's under another matcher) is taken out and
    a new group appended. An event that has a handler of the user's running skillshelf
    (:func:`users_hooks`) keeps that one alone: no spec of it is added, and setup's own there
    is taken out."""
    present = our_hooks(text, where, recorded)
    covered = {h.event for h in users_hooks(text, where, recorded)}
    specs = [s for s in specs if s.event not in covered]
    wanted = [s for s in specs if not any(_matches(h, s) for h in present)]
    stale = [h for h in present if not any(_matches(h, s) for s in specs)]
    for spec in list(wanted):
        hook = next((h for h in stale if h.event == spec.event), None)
        replaced = _replace(text, hook, spec, where) if hook is not None else None
        if hook is not None and replaced is not None:
            text = replaced
            stale.remove(hook)
            wanted.remove(spec)
    if stale:
        text = _remove(text, stale, where, drop=lambda path: False)
    created: list[tuple[str, ...]] = []
    for spec in wanted:
        text, made = _add_group(text, spec, where)
        created += made
    return text, tuple(created)


def _replace(text: str, hook: OurHook, spec: HookSpec, where: str) -> str | None:
    """``text`` with ``hook`` rewritten as ``spec`` at the same position: its whole group when
    the group holds nothing else, else the handler alone when the matcher is the same; None
    when neither can be."""
    hooks = _member_node(_root(text, where), "hooks")
    assert hooks is not None  # the hook was found in it
    event = hooks.members[hook.member].node
    group = event.items[hook.group]
    handlers = group.member("hooks")
    assert handlers is not None
    if len(handlers.node.items) == 1:
        return jsonedit.replace_item(text, event, hook.group, spec.group())
    if hook.matcher != spec.matcher:
        return None
    handler = {"type": "command", "command": spec.command, "timeout": spec.timeout}
    return jsonedit.replace_item(text, handlers.node, hook.handler, handler)


def _add_group(text: str, spec: HookSpec, where: str) -> tuple[str, Created]:
    root = _root(text, where)
    hooks = _table(_member_node(root, "hooks"), where, "hooks")
    if hooks is None:
        made = (("hooks",), ("hooks", spec.event))
        return jsonedit.add_member(text, root, "hooks", {spec.event: [spec.group()]}), made
    event = hooks.member(spec.event)
    if event is None:
        return jsonedit.add_member(text, hooks, spec.event, [spec.group()]), (("hooks", spec.event),)
    if event.node.kind != "array":
        raise ConfigError(
            f"{where}: hooks.{spec.event} is not a list",
            hint=f"write hooks.{spec.event} as a list of groups ([...]), then run setup again",
            code="HK104",
        )
    return jsonedit.append_item(text, event.node, spec.group()), ()


def remove_hooks(
    text: str, where: str = "the hooks file", *, created: Created | None = None, recorded: Recorded = None
) -> str:
    """``text`` without skillshelf's own handlers (``recorded``, see :func:`our_hooks`). An
    event list or ``hooks`` table this empties is taken out too when ``created`` says setup
    made it (or, with no record, always)."""
    made = set(created) if created is not None else None
    hooks = our_hooks(text, where, recorded)
    return _remove(text, hooks, where, drop=lambda path: made is None or path in made)


def _remove(
    text: str, ours: Sequence[OurHook], where: str, *, drop: Callable[[tuple[str, ...]], bool]
) -> str:
    """Take out ``ours`` (found in ``text``; last first, so earlier offsets stay valid), their
    groups, and the containers that emptied which ``drop`` allows."""
    for hook in sorted(ours, key=lambda h: (h.member, h.group, h.handler), reverse=True):
        root = _root(text, where)
        hooks_at = max(i for i, m in enumerate(root.members) if m.key == "hooks")
        hooks = root.members[hooks_at].node
        event = hooks.members[hook.member].node
        handlers = event.items[hook.group].member("hooks")
        if handlers is not None and len(handlers.node.items) > 1:
            text = jsonedit.remove_item(text, handlers.node, hook.handler)
        elif len(event.items) > 1 or not drop(("hooks", hook.event)):
            text = jsonedit.remove_item(text, event, hook.group)
        elif len(hooks.members) > 1 or not drop(("hooks",)):
            text = jsonedit.remove_member(text, hooks, hook.member)
        else:
            text = jsonedit.remove_member(text, root, hooks_at)
    return text


def set_server(
    text: str, name: str, server: dict[str, object], where: str = "the MCP file"
) -> tuple[str, Created]:
    """``text`` with ``mcpServers.<name> = server`` (replacing a different entry of that name),
    and ``(("mcpServers",),)`` when that table had to be created."""
    root = _root(text, where)
    servers = _table(_member_node(root, "mcpServers"), where, "mcpServers")
    if servers is None:
        return jsonedit.add_member(text, root, "mcpServers", {name: server}), (("mcpServers",),)
    current = servers.member(name)
    if current is not None and current.node.plain() == server:
        return text, ()
    if current is not None:
        return set_server(remove_server(text, name, where, created=()), name, server, where)
    return jsonedit.add_member(text, servers, name, server), ()


def remove_server(
    text: str, name: str, where: str = "the MCP file", *, created: Created | None = None
) -> str:
    """``text`` without ``mcpServers.<name>``; an emptied ``mcpServers`` goes too when setup
    made it (``created``), or always when there is no record (``None``)."""
    root = _root(text, where)
    servers = _table(_member_node(root, "mcpServers"), where, "mcpServers")
    if servers is None or servers.member(name) is None:
        return text
    index = max(i for i, m in enumerate(servers.members) if m.key == name)
    if len(servers.members) > 1 or (created is not None and ("mcpServers",) not in created):
        return jsonedit.remove_member(text, servers, index)
    at = max(i for i, m in enumerate(root.members) if m.key == "mcpServers")
    return jsonedit.remove_member(text, root, at)


def is_empty_document(text: str) -> bool:
    """True for ``{}`` with nothing but white space around it."""
    try:
        root = jsonedit.parse(text)
    except jsonedit.JsonEditError:
        return False
    return root.kind == "object" and not root.members
