"""What `skillshelf search` and `eval` print: for people the ranked table and the per-query
listing, for programs their JSON with each skill's trust marked."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import click

from skillshelf.cli.output import literal, printable, short_path, stdout_console
from skillshelf.env import Env

if TYPE_CHECKING:
    from skillshelf.select.evaluate import EvalReport
    from skillshelf.select.service import SearchResult
    from skillshelf.skills.model import Skill

__all__ = ["eval_json", "print_eval", "print_search", "search_json"]


def search_json(result: SearchResult) -> dict[str, object]:
    """``search --json``: each result row of a skill says whether its project is trusted
    (``trusted``, as `list`, `load` and `deps` say it), so a program can tell an untrusted
    project's skill from the others; a tool record (`eval --tools`) has no trust to say."""
    data = result.to_dict()
    rows = data["results"]
    assert isinstance(rows, list)
    for row, ranked in zip(rows, result.ranked, strict=True):
        if ranked.doc.skill is not None:
            row["trusted"] = ranked.doc.skill.trusted
    return data


def eval_json(
    report: EvalReport, skills: Sequence[Skill] | None, never_suggested: Mapping[int, Sequence[str]]
) -> dict[str, object]:
    """``eval --json``: the report, each outcome with the skills never suggested for it, the
    mentioned and pinned skills with ``trusted``, and ``untrusted``: the skills the report names
    (ranked, mentioned, pinned, false triggers) that come from a project you have not trusted."""
    trusted = {str(s.path.parent): s.trusted for s in skills or ()}  # as the report names them: folders
    outcomes = []
    for o in report.outcomes:
        row = o.to_dict() | {"never_suggested": list(never_suggested.get(o.line, ()))}
        for key in ("mentioned", "pinned"):
            entries = row[key]
            assert isinstance(entries, list)
            row[key] = [e | {"trusted": trusted[e["skill"]]} if e["skill"] in trusted else e for e in entries]
        outcomes.append(row)
    named = {key for r in report.results for listed in r.ranked for key in listed}
    named |= {key for o in report.outcomes for key in (*o.mentioned, *o.pinned, *o.false_triggers)}
    untrusted = sorted(key for key in named if trusted.get(key) is False)
    return report.to_dict() | {"outcomes": outcomes, "untrusted": untrusted}


def print_search(result: SearchResult, env: Env) -> None:
    """The ranked skills as a table: ``*`` marks the ones the model would be shown, and a skill
    the suggestions leave out says why."""
    from rich.table import Table

    from skillshelf.select.docs import copy_key
    from skillshelf.skills.load import UNTRUSTED_TAG

    confidence = ""
    if result.confidence is not None and result.min_confidence is not None:
        shown = f"{result.shown_confidence(2):.2f} (threshold {result.min_confidence:.2f})"
        confidence = f"; confidence {shown}: " + (
            f"* = suggested to the model ({len(result.suggested)})"
            if result.suggested
            else "nothing suggested (the request holds no task: only greetings, thanks or acknowledgements)"
            if result.no_task
            else "nothing suggested"
        )
    table = Table(
        title=literal(
            f"{result.selector}{''.join(f' + {m}' for m in result.models)}: {len(result.ranked)} of "
            f"{result.index.documents} skills{confidence}"
        ),
        title_justify="left",
    )
    columns = ("#", "skill", "score", "why" if result.parts else "description", "path")
    for col in columns:
        table.add_column(col, overflow="fold", no_wrap=col in ("#", "score"))
    first_of: dict[tuple[str, str], int] = {}
    for r in result.ranked:
        first = first_of.setdefault(copy_key(r.doc.name, r.doc.description), r.rank)
        desc = r.doc.description if len(r.doc.description) <= 160 else r.doc.description[:157] + "..."
        if first != r.rank:
            desc = f"(a copy of #{first}: the same name and description)"
        if r.doc.skill is not None and not r.doc.skill.trusted:
            desc = f"{UNTRUSTED_TAG} {desc}"
        mark = "*" if r.doc.key in result.suggested else ""
        where = short_path(r.doc.skill.path, env.cwd, env.home) if r.doc.skill is not None else r.doc.key
        if result.parts:
            desc = _why(result.parts.get(r.doc.key, {}))
        if r.doc.key in result.never_suggested:
            desc = f"(never suggested; {result.never_suggested[r.doc.key]}) {desc}"
        table.add_row(f"{r.rank}{mark}", literal(r.doc.name), f"{r.score:.3f}", literal(desc), literal(where))
    stdout_console().print(table)


def _why(parts: Mapping[str, float]) -> str:
    """The parts of a score, largest first: ``bm25f 2.10 + wordllama 0.31 + name 0.10``."""
    shown = sorted(((v, k) for k, v in parts.items() if abs(v) >= 0.0005), reverse=True)
    return " + ".join(f"{name} {value:.3f}" for value, name in shown).replace("+ -", "- ") or "0"


def print_eval(report: EvalReport, notes: Mapping[int, Sequence[str]]) -> None:
    """The metrics per selector, then each query as PASS or FAIL (with ``notes`` by line), then
    the summary line."""
    from rich.table import Table

    table = Table(title=f"{len(report.queries)} queries, {report.documents} candidates", title_justify="left")
    for col in ("selector", "recall@1", "recall@5", "MRR@10", "nDCG@10", "false@5", "p50 ms", "p99 ms"):
        table.add_column(col, justify="left" if col == "selector" else "right")
    for r in report.results:
        false5 = "-" if r.false_trigger_5 is None else f"{r.false_trigger_5:.3f}"
        ranked = [f"{v:.3f}" if r.queries else "-" for v in (r.recall_1, r.recall_5, r.mrr_10, r.ndcg_10)]
        table.add_row(
            literal(r.selector),
            *ranked,
            false5,
            f"{r.p50_ms:.2f}",
            f"{r.p99_ms:.2f}",
        )
    stdout_console().print(table)
    for o in report.outcomes:
        status = "PASS" if o.passed else "FAIL"
        why = [f"rank {o.rank}"] if o.rank else []
        if o.missed:
            why.append(
                "nothing suggested: the confidence is below the threshold"
                if o.quiet
                else f"no relevant skill among the suggestions (top {report.k})"
                if report.judged == "default"
                else f"no relevant skill in the top {report.k}"
            )
        why += notes.get(o.line, ())
        why += [f"should not trigger: {t}" for t in o.false_triggers]
        text = o.query if len(o.query) <= 70 else o.query[:67] + "..."
        click.echo(f"{status} line {o.line}: {printable(text)}" + (f" ({'; '.join(why)})" if why else ""))
    click.echo(report.summary())
    for where, labels, fix in report.unknown_labels():
        shown = printable(", ".join(labels[:5]))
        click.echo(
            f"warning: {len(labels)} {where} entr(y/ies) name no indexed skill or tool: {shown}\n"
            f"  fix: {fix}",
            err=True,
        )
