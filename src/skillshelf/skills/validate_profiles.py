"""How each validation profile judges one skill file (helpers of :mod:`skillshelf.skills.validate`).

- ``codex``: would Codex load it from a skills root, and if not, why: a file name other than
  exactly ``SKILL.md``, a hidden folder, more than six levels deep, a symlinked ``SKILL.md``
  file, what the parser rejects (no frontmatter, YAML broken beyond repair, name over 64
  characters, no description), ``policy.products`` without ``codex``; and what it would not
  read (``dependencies``, ``interface`` or ``policy`` in the frontmatter, not agents/openai.yaml).
- ``claude``: would Claude Code list it (checked against the real CLI): only
  ``<skills folder>/<name>/SKILL.md`` (exact file name, one level, not inside another skill);
  the folder gives the name; broken or missing frontmatter does not stop it, the first line
  of the body becomes the description; hidden folders and symlinked files are fine. A skill
  with ``paths`` is left out of the listing until the session works on a matching file.
- ``spec``: the Agent Skills specification's rules (:mod:`skillshelf.skills.validate_spec`).
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from skillshelf.diagnostics import Diagnostic, Severity, diagnostic
from skillshelf.skills.model import MAX_SKILL_BYTES, RootOrigin, Scope, Skill, SkillRoot
from skillshelf.skills.validate_spec import OPENAI_YAML_KEYS
from skillshelf.skills.validate_walk import Candidate
from skillshelf.skills.walk import shown_name, unlisted_name, unlisted_reason

__all__ = ["CODEX_MAX_DEPTH", "Judgement", "judge_claude", "judge_codex", "judge_spec"]

CODEX_MAX_DEPTH = 6
CLAUDE_LISTING_CAP = 1536
CATALOG_DESCRIPTION_CAP = 1024
_IO_CODES = frozenset({"SK113", "SK114", "SK115", "SK116"})


@dataclass(frozen=True, slots=True, kw_only=True)
class Judgement:
    """The verdict on one file under one profile."""

    name: str | None
    loaded: bool
    listed: bool
    diagnostics: tuple[Diagnostic, ...]


def _wrong_file_name(cand: Candidate, agent: str, severity: Severity = Severity.ERROR) -> Diagnostic:
    return diagnostic(
        "SK353",
        severity,
        f"the file is named `{cand.path.name}`; {agent} only reads files named exactly `SKILL.md`",
        f"rename it: mv {shlex.quote(str(cand.path))} {shlex.quote(str(cand.folder / 'SKILL.md'))}",
        cand.path,
    )


def _read(cand: Candidate, origin: RootOrigin, scope: Scope) -> tuple[Skill | None, tuple[Diagnostic, ...]]:
    from skillshelf.skills.parse import read_skill

    parsed = read_skill(cand.path, SkillRoot(path=cand.base, scope=scope, origin=origin))
    return parsed.skill, parsed.diagnostics


def _folders_below_root(cand: Candidate) -> tuple[str, ...]:
    """The names of the folders from ``cand``'s skills root (excluded) to its own folder."""
    try:
        return cand.folder.relative_to(cand.base).parts
    except ValueError:
        return ()


def _structure_codex(cand: Candidate) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    if not cand.exact_name:
        out.append(_wrong_file_name(cand, "Codex"))
    if cand.hidden:
        out.append(
            diagnostic(
                "SK354",
                Severity.ERROR,
                f"it sits under the hidden folder `{cand.hidden}`; Codex does not look inside folders whose "
                "name starts with `.` below a skills root",
                "move the skill to a folder without a leading `.`, or give that hidden folder itself to "
                "Codex as a skills root",
                cand.path,
            )
        )
    unlisted = next((part for part in _folders_below_root(cand) if unlisted_name(part)), None)
    if unlisted is not None:
        out.append(
            diagnostic(
                "SK370",
                Severity.ERROR,
                f"it sits under the folder `{shown_name(unlisted)}`: {unlisted_reason(unlisted)}, and "
                "Codex lists no skill under such a folder",
                "rename the folder to valid UTF-8 text without line breaks or tabs",
                cand.path,
            )
        )
    if cand.depth > CODEX_MAX_DEPTH:
        out.append(
            diagnostic(
                "SK355",
                Severity.ERROR,
                f"its folder is {cand.depth} levels below {cand.base}; Codex stops at "
                f"{CODEX_MAX_DEPTH} levels",
                f"move the skill at most {CODEX_MAX_DEPTH} folders below the skills root",
                cand.path,
            )
        )
    if cand.symlink_file:
        out.append(
            diagnostic(
                "SK356",
                Severity.ERROR,
                "SKILL.md is a symbolic link to a file; Codex skips symlinked files (it follows "
                "symlinked folders only)",
                "replace the file link by a real file, or link the whole skill folder instead",
                cand.path,
            )
        )
    return out


def judge_codex(cand: Candidate, discovered: Mapping[str, Skill]) -> Judgement:
    """What Codex would do with ``cand``; ``discovered`` maps canonical paths skillshelf's scan loaded."""
    out = _structure_codex(cand)
    skill, parsed = _read(cand, RootOrigin.EXTRA, Scope.USER)
    out += parsed
    found = discovered.get(os.path.realpath(cand.path))
    if skill is not None:
        out += _codex_skill_notes(cand, skill)
    loaded = found is not None and not any(d.severity is Severity.ERROR for d in out)
    if found is None and not any(d.severity is Severity.ERROR for d in out):
        out.append(
            diagnostic(
                "SK366",
                Severity.ERROR,
                "the scan of this folder did not load this file",
                "check the discovery notes above (scan limits, unreadable folders) and run `skillshelf "
                "validate` on the skill folder itself",
                cand.path,
            )
        )
    if cand.parent_skill is not None:
        out.append(
            diagnostic(
                "SK357",
                Severity.WARNING,
                f"it is inside the folder of another skill ({cand.parent_skill}); Codex loads it as a "
                "separate skill, Claude Code does not list it",
                "move it beside the other skill, or rename the file if it is meant as "
                "part of the outer skill",
                cand.path,
            )
        )
    listed = loaded and skill is not None and skill.policy.allow_implicit_invocation
    name = found.name if found is not None else skill.name if skill else None  # found: with a plugin's prefix
    return Judgement(name=name, loaded=loaded, listed=listed, diagnostics=tuple(out))


def _codex_skill_notes(cand: Candidate, skill: Skill) -> list[Diagnostic]:
    out = [
        diagnostic(
            "SK367",
            Severity.WARNING,
            f"`{key}` in the frontmatter is not read: Codex takes it only from agents/openai.yaml",
            f"move `{key}:` and what is under it to {cand.folder / 'agents' / 'openai.yaml'}",
            cand.path,
            field=key,
        )
        for key in OPENAI_YAML_KEYS
        if key in skill.frontmatter
    ]
    products = skill.policy.products
    if products and "codex" not in products:
        out.append(
            diagnostic(
                "SK360",
                Severity.ERROR,
                f"agents/openai.yaml limits it to {', '.join(products)}; Codex drops skills whose "
                "`policy.products` leaves out codex",
                "add `codex` to policy.products, or remove the list to allow every product",
                cand.path,
            )
        )
    if len(skill.description) > CATALOG_DESCRIPTION_CAP:
        out.append(
            diagnostic(
                "SK361",
                Severity.WARNING,
                f"the description is {len(skill.description):,} characters; Codex cuts it to "
                f"{CATALOG_DESCRIPTION_CAP:,} in the catalog (and the specification forbids more)",
                f"shorten the description to at most {CATALOG_DESCRIPTION_CAP:,} characters; move "
                "detail into the body",
                cand.path,
                field="description",
            )
        )
    if not skill.policy.allow_implicit_invocation:
        out.append(
            diagnostic(
                "SK363",
                Severity.INFO,
                "agents/openai.yaml sets allow_implicit_invocation: false, so it is left out of the "
                "catalog; `$name` still loads it",
                "nothing to do if that is intended",
                cand.path,
            )
        )
    elif skill.claude.disable_model_invocation:
        out.append(
            diagnostic(
                "SK363",
                Severity.INFO,
                "disable-model-invocation is a Claude Code field: Codex still lists this skill "
                "(skillshelf's catalog hides it)",
                "to hide it from Codex too, set policy.allow_implicit_invocation: false "
                "in agents/openai.yaml",
                cand.path,
            )
        )
    return out


def _structure_claude(cand: Candidate) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    if not cand.exact_name:
        out.append(_wrong_file_name(cand, "Claude Code"))
    if cand.parent_skill is not None:
        out.append(
            diagnostic(
                "SK357",
                Severity.ERROR,
                f"it is inside the folder of another skill ({cand.parent_skill}); Claude Code lists only "
                "<skills folder>/<name>/SKILL.md",
                "move the folder up beside the other skill",
                cand.path,
            )
        )
    elif cand.depth >= 2:
        as_root = cand.base.name == "skills"
        out.append(
            diagnostic(
                "SK358",
                Severity.ERROR if as_root else Severity.WARNING,
                f"it is {cand.depth} folders below {cand.base}; Claude Code lists only skills directly "
                "inside a skills folder"
                + ("" if as_root else " (fine if its parent folder becomes the skills folder)"),
                f"place it as .claude/skills/{cand.folder.name}/SKILL.md (a symlinked folder works)",
                cand.path,
            )
        )
    return out


def _claude_translate(diag: Diagnostic) -> Diagnostic:
    """Parser errors that Claude Code shrugs off become warnings that say what it does instead."""
    if diag.severity is not Severity.ERROR:
        return diag
    if diag.code != "SK115":  # the Claude view reports the frontmatter it reads past as warnings
        return diag
    return Diagnostic(
        code="SK365",
        severity=Severity.WARNING,
        message=f"{diag.message}; Claude Code reads it anyway, with replacement characters",
        fix=diag.fix,
        path=diag.path,
        line=diag.line,
        field=diag.field,
    )


def judge_claude(cand: Candidate) -> Judgement:
    """What Claude Code would do with ``cand`` if its folder were in a skills folder."""
    out = _structure_claude(cand)
    skill, parsed = _read(cand, RootOrigin.CLAUDE_PROJECT, Scope.REPO)
    out += [_claude_translate(d) for d in parsed]
    loaded = not any(d.severity is Severity.ERROR for d in out)
    hidden = skill is not None and skill.claude.disable_model_invocation
    if skill is not None:
        shown = skill.description + (f" - {skill.claude.when_to_use}" if skill.claude.when_to_use else "")
        if len(shown) > CLAUDE_LISTING_CAP:
            out.append(
                diagnostic(
                    "SK364",
                    Severity.WARNING,
                    f"description and when_to_use add up to {len(shown):,} characters; Claude Code cuts the "
                    f"listing entry at {CLAUDE_LISTING_CAP:,}",
                    "shorten the description (the specification's limit is 1,024 characters)",
                    cand.path,
                    field="description",
                )
            )
        if hidden:
            out.append(
                diagnostic(
                    "SK363",
                    Severity.INFO,
                    "disable-model-invocation: true keeps it out of Claude Code's listing; "
                    "only `/name` runs it",
                    "nothing to do if that is intended",
                    cand.path,
                )
            )
    gated = skill is not None and bool(skill.claude.paths)
    if skill is not None and gated and not hidden:
        out.append(
            diagnostic(
                "SK368",
                Severity.INFO,
                f"paths ({', '.join(skill.claude.paths)}) keeps it out of Claude Code's listing until "
                "the session works on a matching file",
                "nothing to do if that is intended; remove `paths` to list it from the start",
                cand.path,
                field="paths",
            )
        )
    return Judgement(
        name=cand.folder.name,
        loaded=loaded,
        listed=loaded and not hidden and not gated,
        diagnostics=tuple(out),
    )


def judge_spec(cand: Candidate) -> Judgement:
    """The specification's rules for ``cand``."""
    from skillshelf.skills.validate_spec import spec_diagnostics

    out: list[Diagnostic] = []
    if not cand.exact_name:
        out.append(_wrong_file_name(cand, "the specification (and Codex and Claude Code)", Severity.WARNING))
    if cand.parent_skill is not None:
        out.append(
            diagnostic(
                "SK357",
                Severity.INFO,
                f"it is inside the folder of another skill ({cand.parent_skill}); agents differ on "
                "whether they load it",
                "keep skills side by side rather than nested",
                cand.path,
            )
        )
    skill, parsed = _read(cand, RootOrigin.EXTRA, Scope.USER)
    io_problems = [d for d in parsed if d.code in _IO_CODES]
    if io_problems:
        out += io_problems
    else:
        out += [d for d in parsed if d.code == "SK119"]  # checked from the file's head only
        text = _text_of(cand.path)
        if text is not None:
            out += spec_diagnostics(text, path=cand.path)
    valid = not any(d.severity is Severity.ERROR for d in out)
    return Judgement(name=skill.name if skill else None, loaded=valid, listed=valid, diagnostics=tuple(out))


def _text_of(path: Path) -> str | None:
    """The file's text, line breaks as ``\\n`` (as ``Path.read_text`` gives them); of a file over
    :data:`MAX_SKILL_BYTES`, its first ones (as parse reads it)."""
    from skillshelf.skills.skill_files import read_head, whole_characters

    try:
        data, _ = read_head(path, MAX_SKILL_BYTES)
        text = whole_characters(data[:MAX_SKILL_BYTES]).decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    return text.replace("\r\n", "\n").replace("\r", "\n")
