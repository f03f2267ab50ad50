"""The Codex-format catalog: the worked examples of Codex's renderer and what 0.171.0 does.

Fixture paths are ``/tmp/<name>/SKILL.md`` as in Codex's own render tests, so the character
counts match theirs (e.g. the two minimum lines of the first example cost 49 + 47 = 96).
"""

from __future__ import annotations

from pathlib import Path

from skillshelf.skills.catalog import CharBudget, TokenBudget, render_catalog
from skillshelf.skills.catalog.aliases import AliasPlan
from skillshelf.skills.catalog.codex import catalog_order, codex_entry
from skillshelf.skills.catalog.lines import Entry, allocate, new_entry
from skillshelf.skills.model import RootOrigin, Scope, Skill, SkillPolicy

ORIGIN = {
    Scope.REPO: RootOrigin.AGENTS_REPO,
    Scope.USER: RootOrigin.AGENTS_USER,
    Scope.SYSTEM: RootOrigin.CODEX_SYSTEM,
    Scope.ADMIN: RootOrigin.CODEX_ADMIN,
}


def make(
    name: str,
    description: str,
    *,
    scope: Scope = Scope.REPO,
    path: str | None = None,
    root: str | None = None,
    visible: bool = True,
) -> Skill:
    file = Path(path or f"/tmp/{name}/SKILL.md")
    return Skill(
        name=name,
        description=description,
        path=file,
        root=Path(root) if root else file.parent.parent,
        scope=scope,
        origin=ORIGIN[scope],
        policy=SkillPolicy(allow_implicit_invocation=visible),
    )


def _absolute(skills: list[Skill], budget: CharBudget | TokenBudget) -> tuple[str, ...]:
    """The absolute-path rendering alone (what Codex's core renderer examples show)."""
    return allocate([codex_entry(s, str(s.path)) for s in catalog_order(skills)], budget).lines


def test_descriptions_are_shortened_round_robin_before_any_skill_is_dropped() -> None:
    skills = [make("beta-skill", "uvwxyz"), make("alpha-skill", "abcdef")]
    assert _absolute(skills, CharBudget(102)) == (
        "- alpha-skill: ab (file: /tmp/alpha-skill/SKILL.md)",
        "- beta-skill: uv (file: /tmp/beta-skill/SKILL.md)",
    )


def test_room_a_short_description_does_not_need_flows_to_longer_ones() -> None:
    skills = [make("short-skill", "x"), make("long-skill", "abcdefghi")]
    assert _absolute(skills, CharBudget(107)) == (
        "- long-skill: abcdefgh (file: /tmp/long-skill/SKILL.md)",
        "- short-skill: x (file: /tmp/short-skill/SKILL.md)",
    )


def test_token_budgets_charge_four_bytes_per_token_so_some_characters_are_free() -> None:
    assert _absolute([make("long-skill", "a" * 1000)], TokenBudget(13)) == (
        "- long-skill: aaaa (file: /tmp/long-skill/SKILL.md)",
    )


def test_when_names_alone_do_not_fit_skills_are_dropped_in_scope_priority() -> None:
    skills = [
        make("system-skill", "desc", scope=Scope.SYSTEM),
        make("user-skill", "desc", scope=Scope.USER),
        make("repo-skill", "desc", scope=Scope.REPO),
        make("admin-skill", "desc", scope=Scope.ADMIN),
    ]
    assert _absolute(skills, CharBudget(100)) == (
        "- system-skill: (file: /tmp/system-skill/SKILL.md)",
        "- admin-skill: (file: /tmp/admin-skill/SKILL.md)",
    )


def test_a_skill_too_big_to_fit_does_not_stop_later_ones() -> None:
    skills = [make("oversized-system-skill", "desc " * 100, scope=Scope.SYSTEM), make("repo-skill", "desc")]
    assert _absolute(skills, CharBudget(52)) == ("- repo-skill: (file: /tmp/repo-skill/SKILL.md)",)


def test_descriptions_over_1024_characters_are_capped_with_an_ellipsis() -> None:
    skill = make("long-skill", "\U0001f4a1" * 1025)
    rendered = render_catalog([skill], CharBudget(10**9))
    (entry,) = rendered.entries
    assert entry.startswith("- long-skill: " + "\U0001f4a1" * 1021 + "... (file: ")
    assert skill.description == "\U0001f4a1" * 1025
    assert rendered.report.truncated_chars == 0


def test_aliases_are_used_even_without_budget_pressure_because_they_cost_less() -> None:
    skills = [
        make("alpha-skill", "a", path="/tmp/skills/alpha/SKILL.md", root="/tmp/skills"),
        make("beta-skill", "b", path="/tmp/skills/beta/SKILL.md", root="/tmp/skills"),
    ]
    rendered = render_catalog(skills, CharBudget(8_000))
    assert rendered.root_lines == ("- `r0` = `/tmp/skills`",)
    assert rendered.entries == (
        "- alpha-skill: a (file: r0/alpha/SKILL.md)",
        "- beta-skill: b (file: r0/beta/SKILL.md)",
    )
    assert "### Skill roots\n- `r0` = `/tmp/skills`\n### Available skills\n" in rendered.text
    assert rendered.report.aliased


def test_absolute_paths_are_kept_when_the_roots_table_would_cost_more() -> None:
    # One skill per root and twenty deep roots: the table costs more than it saves.
    skills = []
    folder = "/tmp/repo"
    for i in range(20):
        skills.append(
            make(
                f"s{i:02d}", "d", path=f"{folder}/.agents/skills/x/SKILL.md", root=f"{folder}/.agents/skills"
            )
        )
        folder += f"/l{i}"
    rendered = render_catalog(skills, CharBudget(8_000))
    assert rendered.root_lines == ()
    assert rendered.entries[0] == "- s00: d (file: /tmp/repo/.agents/skills/x/SKILL.md)"
    assert "### Skill roots" not in rendered.text


def test_roots_are_numbered_in_root_order_not_catalog_order() -> None:
    repo = make(
        "alpha", "repo skill", path="/w/repo/.agents/skills/a/SKILL.md", root="/w/repo/.agents/skills"
    )
    user = Skill(
        name="beta",
        description="user skill",
        path=Path("/w/home/.agents/skills/b/SKILL.md"),
        root=Path("/w/home/.agents/skills"),
        scope=Scope.USER,
        origin=RootOrigin.AGENTS_USER,
    )
    rendered = render_catalog([repo, user], CharBudget(8_000))
    assert rendered.root_lines == ("- `r0` = `/w/home/.agents/skills`", "- `r1` = `/w/repo/.agents/skills`")
    assert rendered.entries == (
        "- alpha: repo skill (file: r1/a/SKILL.md)",
        "- beta: user skill (file: r0/b/SKILL.md)",
    )
    explicit = render_catalog(
        [repo, user],
        CharBudget(8_000),
        roots=[Path("/w/repo/.agents/skills"), Path("/w/home/.agents/skills")],
    )
    assert explicit.root_lines[0] == "- `r0` = `/w/repo/.agents/skills`"


def test_roots_of_skills_left_out_for_budget_stay_in_the_table() -> None:
    pool = [make(f"pool-{i}", "pooled", path=f"/w/pool/p{i}/SKILL.md", root="/w/pool") for i in range(2)]
    user = Skill(
        name="home-one",
        description="home",
        path=Path("/w/home/.agents/skills/h/SKILL.md"),
        root=Path("/w/home/.agents/skills"),
        scope=Scope.USER,
        origin=RootOrigin.AGENTS_USER,
    )
    rendered = render_catalog([*pool, user], TokenBudget(12))
    assert rendered.entries == ("- pool-0: (file: r1/p0/SKILL.md)",)
    assert len(rendered.root_lines) == 2
    assert rendered.report.omitted == 2


def test_when_nothing_fits_the_section_is_still_there_with_an_empty_list() -> None:
    rendered = render_catalog([make("repo-skill", "desc")], TokenBudget(1))
    assert rendered.entries == ()
    assert rendered.text.endswith("### Available skills\n</skills_instructions>")
    assert rendered.report.included == 0 and rendered.report.omitted == 1
    assert rendered.report.truncated_chars == 4


def test_hidden_skills_are_not_listed_and_not_counted_as_omitted() -> None:
    rendered = render_catalog([make("shown", "yes"), make("secret", "no", visible=False)], CharBudget(8_000))
    assert [line.split(":")[0] for line in rendered.entries] == ["- shown"]
    assert rendered.report.total == 1 and rendered.report.hidden == 1 and rendered.report.omitted == 0


def test_no_visible_skill_renders_nothing() -> None:
    rendered = render_catalog([make("secret", "no", visible=False)], CharBudget(8_000))
    assert rendered.text == ""
    assert rendered.report.total == 0 and rendered.report.warning is None


def test_plugin_cache_skills_share_the_marketplace_alias_when_alone_in_their_version() -> None:
    base = "/Users/xl/.codex/plugins/cache/openai-curated"
    fix = make(
        "github:gh-fix-ci",
        "fix",
        path=f"{base}/github/hash123/skills/gh-fix-ci/SKILL.md",
        root=f"{base}/github/hash123/skills",
    )
    digest = make(
        "slack:daily-digest",
        "digest",
        path=f"{base}/slack/hash456/skills/daily-digest/SKILL.md",
        root=f"{base}/slack/hash456/skills",
    )
    rendered = render_catalog([fix, digest], CharBudget(8_000))
    assert rendered.root_lines == (f"- `r0` = `{base}`",)
    assert rendered.entries[0].endswith("(file: r0/github/hash123/skills/gh-fix-ci/SKILL.md)")


def test_plugin_versions_with_several_skills_alias_their_own_roots() -> None:
    base = "/Users/xl/.codex/plugins/cache/openai-curated/github/hash123"
    fix = make("github:gh-fix-ci", "fix", path=f"{base}/skills/gh-fix-ci/SKILL.md", root=f"{base}/skills")
    yeet = make("github:yeet", "yeet", path=f"{base}/extra-skills/yeet/SKILL.md", root=f"{base}/extra-skills")
    rendered = render_catalog([fix, yeet], CharBudget(8_000))
    assert rendered.root_lines == (f"- `r0` = `{base}/skills`", f"- `r1` = `{base}/extra-skills`")
    assert rendered.entries[1].endswith("(file: r1/yeet/SKILL.md)")


def test_backslashes_in_paths_are_written_as_slashes() -> None:
    skill = make("win", "windows", path="C:\\skills\\win\\SKILL.md", root="C:\\skills")
    rendered = render_catalog([skill], CharBudget(8_000))
    assert "C:/skills" in rendered.text and "\\" not in rendered.text


def test_the_intro_is_our_own_prose() -> None:
    rendered = render_catalog([make("alpha", "a")], CharBudget(8_000))
    assert rendered.text.startswith("<skills_instructions>\n## Skills\n")
    assert "A skill is a set of" not in rendered.text


def test_roots_table_tips_to_absolute_paths_at_eleven_single_skill_roots() -> None:
    # Each root line costs 12 + len(root) characters, Codex's shorter intro frees 141, and each
    # alias saves len(root) - 2: ten roots leave the aliased form 1 character cheaper, eleven do not.
    def nested(levels: int) -> list[Skill]:
        out, folder = [], "/tmp/repo"
        for i in range(levels):
            out.append(
                make(
                    f"s{i:02d}",
                    "d",
                    path=f"{folder}/.agents/skills/x/SKILL.md",
                    root=f"{folder}/.agents/skills",
                )
            )
            folder += f"/l{i}"
        return out

    assert render_catalog(nested(10), CharBudget(8_000)).report.aliased
    assert not render_catalog(nested(11), CharBudget(8_000)).report.aliased


def test_entries_built_without_their_constructor_equal_constructed_ones() -> None:
    built = new_entry("- a: ", "text", " (file: p)", "- a: (file: p)", True)
    assert built == Entry(
        prefix="- a: ", units="text", suffix=" (file: p)", minimum="- a: (file: p)", single_chars=True
    )


def test_shortening_many_paths_picks_the_longest_root_like_one_at_a_time() -> None:
    plan = AliasPlan(roots=("/a", "/a/b/", "/a/bc", "/", "/a/b"))
    paths = ["/a/b/c/SKILL.md", "/a/bc/x", "/a/x", "/q", "/a/b", "r0/x"]
    assert plan.shorten_all(paths) == [plan.shorten(p) for p in paths]
