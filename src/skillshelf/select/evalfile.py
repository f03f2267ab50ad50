"""Query and tool files for ``skillshelf eval``: JSON lines read into :class:`EvalQuery` values
(skill entries resolved to absolute folders) and tool records. A query line must name at least
one ``relevant`` or ``not_relevant`` entry (else it tests nothing, SE307), takes no other key (a
misspelt ``not_relavant`` would leave its check unrun: SE309, with the key it was close to) and
names no entry in both lists (the query could never pass: SE310). Every unusable line is
reported at once, in one :class:`~skillshelf.errors.UsageError` naming the file and each line."""

from __future__ import annotations

import dataclasses
import functools
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from skillshelf.errors import NotFoundError, UsageError, reason
from skillshelf.fileio import read_regular_text, resolve_path
from skillshelf.select.docs import copy_key

__all__ = ["MAX_EVAL_FILE_BYTES", "EvalQuery", "load_queries", "load_tools", "on_ranked_copies"]

#: Query and tool files hold hundreds or thousands of short lines; past this they are not one.
MAX_EVAL_FILE_BYTES = 64 * 1024 * 1024
#: Unusable lines listed one by one in the error; past this a count says how many more.
MAX_LISTED_PROBLEMS = 20
#: The keys a query line takes; any other is an error (SE309), as a misspelt one tests nothing.
QUERY_KEYS = ("query", "relevant", "not_relevant")


@dataclass(frozen=True, slots=True, kw_only=True)
class EvalQuery:
    """One line of a query file, with relevant entries normalised to index keys."""

    line: int
    query: str
    relevant: tuple[str, ...] = ()
    not_relevant: tuple[str, ...] = ()


def _read_lines(path: Path, what: str) -> list[tuple[int, dict[str, object] | UsageError]]:
    """The file's lines as JSON objects, each unusable one as the error to report."""
    try:
        # a leading byte-order mark (editors on Windows write one) is not part of the first line
        text = read_regular_text(path, limit=MAX_EVAL_FILE_BYTES).removeprefix("\ufeff")
    except FileNotFoundError as exc:
        raise NotFoundError(f"{what} file not found: {path}", hint="check the path", code="SE301") from exc
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(
            f"cannot read {what} file {path}: {reason(exc)}",
            hint="give a UTF-8 JSON-lines file",
            code="SE302",
        ) from exc
    out: list[tuple[int, dict[str, object] | UsageError]] = []
    for n, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except (ValueError, RecursionError) as exc:
            value = UsageError(
                f"{path}:{n}: not valid JSON ({reason(exc)})",
                hint="write one JSON object per line",
                code="SE302",
            )
        if not isinstance(value, dict | UsageError):
            value = UsageError(
                f"{path}:{n}: expected a JSON object", hint="write one JSON object per line", code="SE302"
            )
        out.append((n, value))
    return out


def _every_problem(path: Path, problems: list[UsageError]) -> UsageError:
    """One error for the unusable lines of ``path``: the only one as it is, else all of them."""
    if len(problems) == 1:
        return problems[0]
    fixes = "; ".join(dict.fromkeys(p.hint for p in problems if p.hint))
    codes = {p.code for p in problems}  # one code leads; each line keeps its own when they differ
    lines = "\n".join(
        f"  {p.code}: {p.message}" if len(codes) > 1 else f"  {p.message}"
        for p in problems[:MAX_LISTED_PROBLEMS]
    )
    more = len(problems) - MAX_LISTED_PROBLEMS
    lines += f"\n  ... and {more} more" if more > 0 else ""
    return UsageError(
        f"{len(problems)} lines of {path} cannot be used:\n{lines}", hint=fixes, code=problems[0].code
    )


def _str_list(value: object, path: Path, line: int, key: str) -> list[str]:
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise UsageError(
            f"{path}:{line}: `{key}` must be a list of non-empty strings",
            hint=f'write e.g. "{key}": ["skills/pdf"]',
            code="SE303",
        )
    return list(value)


def _skill_key(entry: str, base: Path, where: str) -> str:
    p = Path(entry).expanduser()
    if not p.is_absolute():
        p = base / p
    if p.name.lower() == "skill.md":
        p = p.parent
    try:
        p = resolve_path(p)
    except OSError:
        p = p.absolute()
    if not (p / "SKILL.md").is_file():
        raise UsageError(
            f"{where}: {entry!r} names no skill folder ({p} holds no SKILL.md)",
            hint="skill paths are absolute or relative to the query file's folder",
            code="SE306",
        )
    return str(p)


def load_queries(path: Path, *, tools: bool) -> tuple[EvalQuery, ...]:
    """Read a query file. With ``tools`` relevant entries are tool ids, else skill folders."""
    queries: list[EvalQuery] = []
    problems: list[UsageError] = []
    for n, obj in _read_lines(path, "query"):
        if isinstance(obj, UsageError):
            problems.append(obj)
            continue
        try:
            queries.append(_query(obj, path, n, tools=tools))
        except UsageError as exc:
            problems.append(exc)
    if problems:
        raise _every_problem(path, problems)
    if not queries:
        raise UsageError(
            f"{path} holds no queries",
            hint='add lines like {"query": "...", "relevant": [...]}',
            code="SE304",
        )
    return tuple(queries)


def _unknown_keys(obj: dict[str, object], where: str) -> None:
    """SE309 for a key a query line does not take (a misspelt ``not_relavant`` would otherwise
    leave the check it meant unrun), with the key it was probably meant to be."""
    unknown = [key for key in obj if key not in QUERY_KEYS]
    if not unknown:
        return
    import difflib

    meant = {key: difflib.get_close_matches(key, QUERY_KEYS, n=1, cutoff=0.6) for key in unknown}
    guesses = [f"`{close[0]}` for `{key}`" for key, close in meant.items() if close]
    takes = ", ".join(f"`{key}`" for key in QUERY_KEYS)
    raise UsageError(
        f"{where}: unknown key(s) {', '.join(f'`{key}`' for key in unknown)}",
        hint=(f"did you mean {', '.join(guesses)}? " if guesses else "") + f"a query line takes {takes}",
        code="SE309",
    )


def _kind(value: object) -> str:
    """A JSON value's kind, as a message names it."""
    if isinstance(value, bool):
        return "true/false"
    return (
        "a number" if isinstance(value, int | float) else "a list" if isinstance(value, list) else "an object"
    )


def _query(obj: dict[str, object], path: Path, n: int, *, tools: bool) -> EvalQuery:
    _unknown_keys(obj, f"{path}:{n}")
    query = obj.get("query")
    if query is not None and not isinstance(query, str):
        raise UsageError(
            f'{path}:{n}: "query" must be a string, not {_kind(query)}',
            hint='write the request as text: {"query": "...", "relevant": [...]}',
            code="SE303",
        )
    if not isinstance(query, str) or not query.strip():
        raise UsageError(
            f'{path}:{n}: missing "query" text',
            hint='write {"query": "...", "relevant": [...]}',
            code="SE303",
        )
    rel = _str_list(obj.get("relevant"), path, n, "relevant")
    neg = _str_list(obj.get("not_relevant"), path, n, "not_relevant")
    if not rel and not neg:
        what = "tool" if tools else "skill"
        raise UsageError(
            f'{path}:{n}: the query names no "relevant" or "not_relevant" {what}, so it tests nothing',
            hint=f'add "relevant": [...] ({what}s it should pick) or "not_relevant": [...] '
            f"({what}s it must not pick)",
            code="SE307",
        )
    norm: Callable[[str], str] = (
        (lambda s: s) if tools else functools.partial(_skill_key, base=path.parent, where=f"{path}:{n}")
    )
    relevant, not_relevant = tuple(dict.fromkeys(map(norm, rel))), tuple(dict.fromkeys(map(norm, neg)))
    both = [entry for entry in relevant if entry in not_relevant]
    if both:
        raise UsageError(
            f"{path}:{n}: {', '.join(both)} is both relevant and not_relevant, so the query can never pass",
            hint="keep each entry in one of the two lists",
            code="SE310",
        )
    return EvalQuery(line=n, query=query, relevant=relevant, not_relevant=not_relevant)


def load_tools(path: Path) -> list[tuple[str, str, str]]:
    """Read a tools file: ``{"id", "name"?, "description"}`` per line. An id that an earlier
    line already gave is an error (SE308), like any other unusable line: query lines name tools
    by id, so a label on it could not say which of the two it means (and the index keeps one
    entry per id)."""
    tools = []
    first: dict[str, int] = {}
    problems: list[UsageError] = []
    for n, obj in _read_lines(path, "tools"):
        if isinstance(obj, UsageError):
            problems.append(obj)
            continue
        tid, name, desc = obj.get("id"), obj.get("name", obj.get("id")), obj.get("description", "")
        if not isinstance(tid, str) or not tid or not isinstance(name, str) or not isinstance(desc, str):
            problems.append(
                UsageError(
                    f'{path}:{n}: a tool needs string "id", "name" and "description"',
                    hint='write {"id": "...", "name": "...", "description": "..."}',
                    code="SE305",
                )
            )
            continue
        if tid in first:
            problems.append(
                UsageError(
                    f"{path}:{n}: the tool id {tid!r} is already the id of line {first[tid]}",
                    hint='give each tool an "id" of its own: query lines name tools by id',
                    code="SE308",
                )
            )
            continue
        first[tid] = n
        tools.append((tid, name, desc))
    if problems:
        raise _every_problem(path, problems)
    if not tools:
        raise UsageError(f"{path} holds no tools", hint="add one tool per line", code="SE305")
    return tools


def on_ranked_copies(
    queries: Sequence[EvalQuery], ranked: Sequence[tuple[str, str, str]]
) -> tuple[EvalQuery, ...]:
    """``queries`` with each label that names a skill folder not among the ``ranked`` ones
    (``(key, name, description)``) but holding a copy of one of them (the same name and
    description, :func:`~skillshelf.select.docs.copy_key`: the source folder of an installed
    skill, say) moved onto that one, so an author's file beside the source judges the copy."""
    known = {key for key, _, _ in ranked}
    labels = {label for q in queries for label in (*q.relevant, *q.not_relevant)} - known
    if not labels:
        return tuple(queries)
    by_copy: dict[tuple[str, str], str] = {}
    for key, name, description in ranked:
        by_copy.setdefault(copy_key(name, description), key)
    moved = {}
    for label in labels:
        found = _copy_key_of(Path(label))
        if found is not None and found in by_copy:
            moved[label] = by_copy[found]
    if not moved:
        return tuple(queries)
    return tuple(
        dataclasses.replace(
            q,
            relevant=tuple(dict.fromkeys(moved.get(r, r) for r in q.relevant)),
            not_relevant=tuple(dict.fromkeys(moved.get(r, r) for r in q.not_relevant)),
        )
        for q in queries
    )


def _copy_key_of(folder: Path) -> tuple[str, str] | None:
    """The name and description of the skill in ``folder`` (None when it does not parse)."""
    from skillshelf.skills.model import RootOrigin, Scope, SkillRoot
    from skillshelf.skills.parse import read_skill

    root = SkillRoot(path=folder.parent, scope=Scope.USER, origin=RootOrigin.EXTRA)
    parsed = read_skill(folder / "SKILL.md", root, probe_openai_yaml=False)
    return None if parsed.skill is None else copy_key(parsed.skill.name, parsed.skill.description)
