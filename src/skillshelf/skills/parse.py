"""Parse one ``SKILL.md`` into a :class:`~skillshelf.skills.model.Skill` (Codex 0.171.0 rules).

:func:`parse_skill_text` is pure; :func:`read_skill` adds the I/O (size cap, binary and
undecodable files, ``agents/openai.yaml``). Neither raises on bad content: every skipped,
repaired or questionable file yields a :class:`~skillshelf.diagnostics.Diagnostic`.

Profiles: roots Codex scans, extra roots and the built-in skills are read the way Codex reads
them (the name may fall back to the folder, a description is required, a byte-order mark makes
the file unreadable). Claude Code's roots are read the way Claude Code reads them: the folder
name is the skill's name, the frontmatter ends at the first ``---`` even inside a line, a
missing description falls back to the first line of the body, YAML that fails gets Claude Code's
repair, and a frontmatter that still fails or is not a mapping is ignored (a warning;
:mod:`skillshelf.skills.claude_reading`).
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType

from skillshelf.diagnostics import Diagnostic, Severity, diagnostic
from skillshelf.fileio import NotRegularFile
from skillshelf.skills.claude_fields import parse_claude_fields
from skillshelf.skills.claude_reading import (
    ClaudeSplit,
    Ignored,
    claude_frontmatter,
    claude_hides,
    claude_when_to_use,
    ignored_frontmatter,
    load_claude,
    repaired_note,
)
from skillshelf.skills.fastyaml import simple_frontmatter
from skillshelf.skills.frontmatter import (
    FrontmatterSplit,
    YamlDocument,
    YamlFailure,
    collapse_whitespace,
    load_yaml,
    repair_frontmatter,
    split_frontmatter,
)
from skillshelf.skills.model import MAX_SKILL_BYTES, RootOrigin, Skill, SkillRoot
from skillshelf.skills.openai_yaml import OpenAIMetadata, parse_openai_yaml
from skillshelf.skills.parse_fields import KnownFields, known_fields, to_plain
from skillshelf.skills.parse_identity import (
    MAX_NAME_CHARS,
    claude_bom_note,
    claude_description,
    claude_field_notes,
    declared_values,
    skill_description,
    skill_name,
)
from skillshelf.skills.roots import is_claude_root
from skillshelf.skills.skill_files import (
    cut_note,
    decode_text,
    over_agent_cap,
    read_head,
    read_openai_yaml,
    whole_characters,
)

__all__ = [
    "MAX_NAME_CHARS",
    "MAX_SKILL_BYTES",
    "ParsedSkill",
    "is_claude_root",
    "parse_skill_text",
    "read_skill",
    "split_body",
]

BOM = "\ufeff"


@dataclass(frozen=True, slots=True, kw_only=True)
class ParsedSkill:
    """A parse result: the skill (``None`` when it does not load), its body and the findings."""

    skill: Skill | None
    body: str
    diagnostics: tuple[Diagnostic, ...]


def _error(
    code: str, message: str, fix: str, path: Path, line: int | None = None, field: str | None = None
) -> Diagnostic:
    return diagnostic(code, Severity.ERROR, message, fix, path, line, field)


_SPLIT_FAILURES = {
    "missing": (
        "SK101",
        "missing YAML frontmatter delimited by ---",
        "start the file with a `---` line, then `name:` and `description:`, then `---`",
    ),
    "unclosed": (
        "SK102",
        "the frontmatter is never closed by a `---` line",
        "add a line `---` after the last frontmatter field",
    ),
    "empty": (
        "SK103",
        "the frontmatter is empty",
        "add `name:` and `description:` between the two `---` lines",
    ),
}


def split_body(text: str) -> str:
    """The markdown after the frontmatter (the whole text when there is none)."""
    split = split_frontmatter(text.removeprefix(BOM))
    return split.body if isinstance(split, FrontmatterSplit) else text


def _typed(loaded: YamlDocument | YamlFailure, path: Path) -> tuple[YamlDocument, KnownFields] | None:
    """The document and Codex's fields read from it; ``None`` when the YAML failed."""
    return (loaded, known_fields(loaded.node, path=path)) if isinstance(loaded, YamlDocument) else None


def _load_with_repair(
    split: FrontmatterSplit, path: Path, out: list[Diagnostic]
) -> tuple[YamlDocument, KnownFields] | None:
    """The document and Codex's fields, repaired when the YAML or the types of those fields
    fail (Codex repairs after any error of its one typed read); when the repair does not help,
    the first error stands."""
    first_yaml = load_yaml(split.yaml_text, first_line=split.first_line)
    first = _typed(first_yaml, path)
    if first is not None and not first[1].fatal:
        return first
    repaired = repair_frontmatter(split.yaml_text)
    if repaired is not None:
        second = _typed(load_yaml(repaired[0]), path)
        if second is not None and not second[1].fatal:
            out.append(repaired_note(path, split.first_line, repaired[1], "Codex", split.yaml_text))
            return second
    if not isinstance(first_yaml, YamlFailure):
        return first  # the YAML parsed: the fields' own errors are reported with the skill
    line = split.first_line + first_yaml.line if first_yaml.line is not None else None
    out.append(
        _error(
            "SK104",
            f"invalid YAML: {first_yaml.message}",
            "fix the YAML between the `---` lines; quote values that contain `: ` or "
            "start with `[`, `{`, `@`",
            path,
            line,
        )
    )
    return None


def parse_skill_text(
    text: str,
    *,
    path: Path,
    root: SkillRoot,
    openai_yaml: str | None = None,
    openai_yaml_path: Path | None = None,
) -> ParsedSkill:
    """Parse the text of ``path`` (a ``SKILL.md`` found under ``root``). Pure; never raises."""
    claude = is_claude_root(root)
    out: list[Diagnostic] = []
    readable = _readable_text(text, path=path, claude=claude, out=out)
    if readable is None:
        return ParsedSkill(skill=None, body=text, diagnostics=tuple(out))
    build = functools.partial(_build, path=path, root=root, out=out, openai=(openai_yaml, openai_yaml_path))
    if claude and readable is not text:  # a byte-order mark: Claude Code finds no frontmatter
        _check_body(readable, path, out)
        parsed = build(mapping={}, doc=None, body=readable)
        return dataclasses.replace(
            parsed, diagnostics=tuple(d for d in parsed.diagnostics if d.code != "SK125")
        )
    text = readable
    codex = split_frontmatter(text)
    if isinstance(codex, str):
        code, message, fix = _SPLIT_FAILURES[codex]
        if not claude:
            return ParsedSkill(skill=None, body=text, diagnostics=(*out, _error(code, message, fix, path, 1)))
        out.append(
            diagnostic(code, Severity.WARNING, f"{message} (Claude Code reads it anyway)", fix, path, 1)
        )
    split = claude_frontmatter(text, codex, path, out) if claude else codex  # Claude Code's own split
    if split is None or isinstance(split, str):
        return build(mapping={}, doc=None, body=text)
    if (
        isinstance(codex, FrontmatterSplit)
        and codex.closing_indented
        and split.closing_line == codex.closing_line
    ):
        out.append(
            diagnostic(
                "SK123",
                Severity.WARNING,
                f"line {codex.closing_line} closes the frontmatter because it trims to `---`; anything "
                "meant after it is body",
                "do not put a line that is only `---` inside a frontmatter value",
                path,
                codex.closing_line,
            )
        )
    simple = simple_frontmatter(split.yaml_text)
    if simple is not None:
        _check_body(split.body, path, out)
        return build(mapping=simple[0], doc=None, fields=simple[1], body=split.body)
    loaded = (
        load_claude(split, path, out)
        if isinstance(split, ClaudeSplit)
        else _load_with_repair(split, path, out)
    )
    if loaded is None:
        return ParsedSkill(skill=None, body=split.body, diagnostics=tuple(out))
    if isinstance(loaded, Ignored):
        return _ignored(build, loaded, body=split.body, path=path, root=root, out=out)
    doc, fields = loaded
    if doc.value is not None and not isinstance(doc.value, dict):
        problem = f"the frontmatter is a YAML {type(doc.value).__name__}, not a mapping"
        if claude:
            why = Ignored(code="SK106", problem=problem, line=split.first_line)
            return _ignored(build, why, body=split.body, path=path, root=root, out=out)
        fix = "write `key: value` lines between the `---` lines"
        out.append(_error("SK106", problem, fix, path, split.first_line))
        return ParsedSkill(skill=None, body=split.body, diagnostics=tuple(out))
    _check_body(split.body, path, out)
    return build(mapping=doc.value or {}, doc=doc, fields=fields, body=split.body)


def _ignored(
    build: Callable[..., ParsedSkill],
    why: Ignored,
    *,
    body: str,
    path: Path,
    root: SkillRoot,
    out: list[Diagnostic],
) -> ParsedSkill:
    """A skill whose frontmatter Claude Code ignores, read as if it had none: the warning says
    so in place of the missing description's."""
    _check_body(body, path, out)
    parsed = build(mapping={}, doc=None, body=body)
    skill = parsed.skill
    name, shown = (skill.name, skill.description) if skill is not None else (path.parent.name, "")
    notes = [d for d in parsed.diagnostics if d.code != "SK125"]
    plugin = root.origin is RootOrigin.CLAUDE_PLUGIN
    note = ignored_frontmatter(why, name=name, shown=shown, plugin=plugin, path=path)
    return ParsedSkill(skill=skill, body=body, diagnostics=(*notes, note))


def _readable_text(text: str, *, path: Path, claude: bool, out: list[Diagnostic]) -> str | None:
    """``text`` without its byte-order mark, or None when it cannot be read as a skill: a lone
    surrogate (SK115), or a byte-order mark where Codex reads the file (SK112). Where Claude
    Code reads it, a byte-order mark hides the frontmatter (measured with claude-oracle: it
    lists the first line, ``---``, as the description), so the caller reads the whole text,
    the mark taken off, as the body."""
    if not text.isascii():
        try:
            text.encode("utf-8")
        except UnicodeEncodeError as exc:  # a lone surrogate, e.g. from a "\ud800" JSON escape
            line = text.count("\n", 0, exc.start) + 1
            message = "the text holds a lone surrogate code point, which is not valid Unicode text"
            out.append(_error("SK115", message, "save the file as UTF-8 text", path, line))
            return None
    if not text.startswith(BOM):
        return text
    if not claude:
        message = "the file starts with a UTF-8 byte-order mark, so Codex finds no frontmatter and skips it"
        out.append(_error("SK112", message, "save the file as UTF-8 without BOM", path, 1))
        return None
    out.append(claude_bom_note(text[1:], path))
    return text[1:]


def _check_body(body: str, path: Path, out: list[Diagnostic]) -> None:
    """SK121 when the body holds NUL bytes (binary data)."""
    if "\x00" in body:
        out.append(
            diagnostic(
                "SK121",
                Severity.WARNING,
                "the body contains NUL bytes (binary data)",
                "keep binary data in separate files under assets/",
                path,
            )
        )


def _build(
    *,
    mapping: dict[object, object] | dict[str, object],
    doc: YamlDocument | None,
    fields: KnownFields | None = None,
    body: str,
    path: Path,
    root: SkillRoot,
    out: list[Diagnostic],
    openai: tuple[str | None, Path | None],
) -> ParsedSkill:
    claude = is_claude_root(root)
    if fields is None:
        fields = known_fields(doc.node if doc else None, path=path)
    if claude:  # Claude Code types no field: what stops Codex only warns
        out.extend(claude_field_notes(fields.diagnostics))
    else:
        out.extend(fields.diagnostics)
        if fields.fatal:
            return ParsedSkill(skill=None, body=body, diagnostics=tuple(out))
    plugin = root.origin is RootOrigin.CLAUDE_PLUGIN
    named = "" if fields.name is None and "name" in mapping else fields.name  # "": written, empty
    name = skill_name(
        named, path=path, claude=claude, out=out, self_named=plugin and path.parent == root.path
    )
    node = doc.node if doc else None
    if claude:  # `when_to_use` alone, as JavaScript prints it; a plugin's skill listed only with one
        when, when_notes = claude_when_to_use(declared_values(node, mapping, "when_to_use"), path=path)
        declared = declared_values(node, mapping, "description")
        listed = not plugin or bool(when)
        description: str | None = claude_description(declared, body, path=path, out=out, listed=listed)
    else:
        description = skill_description(fields.description, path=path, out=out)
    if name is None or description is None:
        return ParsedSkill(skill=None, body=body, diagnostics=tuple(out))
    plain = to_plain(mapping, path=path, out=out)  # type: ignore[arg-type]
    claude_fields, notes = parse_claude_fields(plain, path=path)
    if claude:
        hides, hide_notes = claude_hides(
            declared_values(node, mapping, "disable-model-invocation"), path=path
        )
        claude_fields = dataclasses.replace(claude_fields, when_to_use=when, disable_model_invocation=hides)
        notes = (*(n for n in notes if n.field != "when_to_use"), *when_notes, *hide_notes)
    out.extend(notes)
    meta = OpenAIMetadata()
    if openai[0] is not None:
        meta, notes = parse_openai_yaml(openai[0], path=openai[1], skill_dir=path.parent)
        out.extend(notes)
    short = collapse_whitespace(fields.short_description or "") or None
    skill = Skill(
        name=name,
        description=description,
        path=path,
        root=root.path,
        scope=root.scope,
        origin=root.origin,
        short_description=short,
        interface=meta.interface,
        policy=meta.policy,
        dependencies=meta.dependencies,
        claude=claude_fields,
        frontmatter=MappingProxyType(plain),
        trusted=root.trusted,
    )
    return ParsedSkill(skill=skill, body=body, diagnostics=tuple(out))


def read_skill(
    path: Path, root: SkillRoot, *, max_bytes: int = MAX_SKILL_BYTES, probe_openai_yaml: bool = True
) -> ParsedSkill:
    """Read and parse the ``SKILL.md`` at ``path`` (as found under ``root``); never raises.

    A file over ``max_bytes`` is read from its first ``max_bytes`` only: listed from its
    frontmatter when that ends there (a warning says the body is cut), skipped when it does not;
    one larger than its agent lists at all (:func:`over_agent_cap`) is skipped unread.
    ``probe_openai_yaml=False``: no look for ``agents/openai.yaml`` (the walk saw no ``agents``).
    """
    out: list[Diagnostic] = []
    try:
        data, size = read_head(path, max_bytes)
    except NotRegularFile as exc:
        note = _error(
            "SK116", f"failed to read file: {exc.strerror}", "replace it with a regular SKILL.md file", path
        )
        return ParsedSkill(skill=None, body="", diagnostics=(note,))
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        note = _error(
            "SK116", f"failed to read file: {reason}", "check that the file exists and is readable", path
        )
        return ParsedSkill(skill=None, body="", diagnostics=(note,))
    too_big = over_agent_cap(path, size, claude=is_claude_root(root))
    if too_big is not None:
        return ParsedSkill(skill=None, body="", diagnostics=(too_big,))
    cut = len(data) > max_bytes
    text = decode_text(whole_characters(data[:max_bytes]) if cut else data, path, out)
    if text is not None and cut:
        out.append(cut_note(text, path, size, max_bytes))
    if text is None or any(d.severity is Severity.ERROR for d in out):
        return ParsedSkill(skill=None, body="", diagnostics=tuple(out))
    openai_path = path.parent / "agents" / "openai.yaml" if probe_openai_yaml else None
    openai_text = read_openai_yaml(openai_path, out) if openai_path is not None else None
    parsed = parse_skill_text(
        text, path=path, root=root, openai_yaml=openai_text, openai_yaml_path=openai_path
    )
    return ParsedSkill(skill=parsed.skill, body=parsed.body, diagnostics=(*out, *parsed.diagnostics))
