"""Properties of the catalog for any skills and any budget (hypothesis)."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from skillshelf.skills.catalog import Budget, CharBudget, TokenBudget, render_catalog
from skillshelf.skills.catalog.codex import codex_entry, table_cost
from skillshelf.skills.catalog.formats import xml_entry
from skillshelf.skills.catalog.lines import Entry, _share_description_room
from skillshelf.skills.model import RootOrigin, Scope, Skill, SkillPolicy

ROOTS = [
    ("/p/repo/.agents/skills", Scope.REPO, RootOrigin.AGENTS_REPO),
    ("/p/repo/sub/.agents/skills", Scope.REPO, RootOrigin.AGENTS_REPO),
    ("/h/.agents/skills", Scope.USER, RootOrigin.AGENTS_USER),
    ("/h/.codex/skills", Scope.USER, RootOrigin.CODEX_USER),
    ("/h/.codex/skills/.system", Scope.SYSTEM, RootOrigin.CODEX_SYSTEM),
    ("/etc/codex/skills", Scope.ADMIN, RootOrigin.CODEX_ADMIN),
    ("/h/.codex/plugins/cache/market/plug/1.0/skills", Scope.USER, RootOrigin.EXTRA),
]

text = st.text(st.characters(blacklist_categories=("Cs",)), max_size=60)
long_text = st.one_of(
    text, st.text(st.characters(blacklist_categories=("Cs",)), min_size=900, max_size=1_300)
)


ALWAYS_TRUSTED = st.just(True)


@st.composite
def skills(draw: st.DrawFn, trusted: st.SearchStrategy[bool] = ALWAYS_TRUSTED) -> Skill:
    root, scope, origin = draw(st.sampled_from(ROOTS))
    folder = draw(st.lists(st.text("abcxyz-é", min_size=1, max_size=8), min_size=1, max_size=3))
    return Skill(
        name=draw(st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=70)),
        description=draw(long_text),
        path=Path(root, *folder, "SKILL.md"),
        root=Path(root),
        scope=scope,
        origin=origin,
        policy=SkillPolicy(allow_implicit_invocation=draw(st.booleans())),
        trusted=draw(trusted),
    )


budgets = st.one_of(
    st.integers(0, 6_000).map(CharBudget),
    st.integers(0, 2_000).map(TokenBudget),
)
formats = st.sampled_from(["codex", "xml", "markdown"])


def entries_cost(budget: Budget, entries: tuple[str, ...]) -> int:
    return sum(budget.cost(entry + "\n") for entry in entries)


@settings(max_examples=150, deadline=None)
@given(st.lists(skills(), max_size=25), budgets, formats)
def test_rendered_entries_and_roots_table_never_exceed_the_budget(
    batch: list[Skill], budget: Budget, fmt: str
) -> None:
    rendered = render_catalog(batch, budget, fmt)  # type: ignore[arg-type]
    spent = entries_cost(budget, rendered.entries)
    if rendered.root_lines:
        spent += table_cost(budget, rendered.root_lines)
    assert spent <= budget.limit
    assert rendered.report.used == spent


@settings(max_examples=100, deadline=None)
@given(st.lists(skills(), max_size=20), budgets, formats, st.randoms(use_true_random=False))
def test_rendering_is_deterministic_and_independent_of_input_order(
    batch: list[Skill], budget: Budget, fmt: str, rnd: object
) -> None:
    first = render_catalog(batch, budget, fmt)  # type: ignore[arg-type]
    shuffled = list(batch)
    rnd.shuffle(shuffled)  # type: ignore[attr-defined]
    again = render_catalog(shuffled, budget, fmt)  # type: ignore[arg-type]
    assert again.text == first.text
    assert again.report == first.report


@settings(max_examples=100, deadline=None)
@given(st.lists(skills(), max_size=25), budgets, formats)
def test_report_accounts_for_every_visible_skill(batch: list[Skill], budget: Budget, fmt: str) -> None:
    rendered = render_catalog(batch, budget, fmt)  # type: ignore[arg-type]
    report = rendered.report
    visible = [s for s in batch if s.model_visible]
    assert report.total == len(visible)
    assert report.hidden == len(batch) - len(visible)
    assert report.included + report.omitted == report.total
    assert len(rendered.entries) == report.included == len(rendered.skills)
    assert all(s.model_visible for s in rendered.skills)
    assert (report.warning is None) == (
        report.omitted == 0 and report.truncated_count == 0 and report.level != 3
    )


@settings(max_examples=60, deadline=None)
@given(st.lists(skills(), min_size=1, max_size=15))
def test_a_generous_budget_lists_every_visible_skill_in_full(batch: list[Skill]) -> None:
    rendered = render_catalog(batch, CharBudget(10**7))
    assert rendered.report.omitted == 0 and rendered.report.truncated_chars == 0
    for skill, entry in zip(rendered.skills, rendered.entries, strict=True):
        description = (
            skill.description if len(skill.description) <= 1024 else skill.description[:1021] + "..."
        )
        assert entry.startswith(
            f"- {skill.name}: {description}" if description else f"- {skill.name}: (file: "
        )


def naive_round_robin(entries: list[Entry], budget: Budget, room: int) -> list[int]:
    """Codex's description sharing, step by step, charging the actual rendered text."""

    def extra(entry: Entry, kept: int) -> int:
        return 0 if kept == 0 else budget.cost(entry.render(kept) + "\n") - budget.cost(entry.minimum + "\n")

    kept = [0] * len(entries)
    changed = True
    while changed:
        changed = False
        for i, entry in enumerate(entries):
            if kept[i] >= len(entry.units):
                continue
            delta = extra(entry, kept[i] + 1) - extra(entry, kept[i])
            if delta <= room:
                kept[i] += 1
                room -= delta
                changed = True
    return kept


@settings(max_examples=150, deadline=None)
@given(
    st.lists(st.tuples(st.text(min_size=1, max_size=12), text), min_size=1, max_size=8),
    budgets,
    st.booleans(),
)
def test_fast_description_sharing_equals_the_step_by_step_round_robin(
    items: list[tuple[str, str]], budget: Budget, xml: bool
) -> None:
    batch = [
        Skill(
            name=name,
            description=description,
            path=Path(f"/r/s{i}/SKILL.md"),
            root=Path("/r"),
            scope=Scope.REPO,
            origin=RootOrigin.AGENTS_REPO,
        )
        for i, (name, description) in enumerate(items)
    ]
    entries = [xml_entry(s) if xml else codex_entry(s, str(s.path)) for s in batch]
    minimum = sum(budget.cost(e.minimum + "\n") for e in entries)
    if minimum > budget.limit:
        return
    room = budget.limit - minimum
    assert _share_description_room(entries, budget, room) == naive_round_robin(entries, budget, room)
