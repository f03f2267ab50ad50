"""Parsing one SKILL.md: Codex's rules, Claude Code's profile, and bad input of every kind."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from skill_tree_helpers import present, repo_root, vector_params, write

from skillshelf.diagnostics import Severity
from skillshelf.skills.model import RootOrigin, Scope, SkillRoot
from skillshelf.skills.parse import parse_skill_text, read_skill, split_body

ROOT = repo_root(Path("/r/skills"))
CLAUDE = repo_root(Path("/r/.claude/skills"), origin=RootOrigin.CLAUDE_PROJECT)


def parse(text: str, folder: str = "demo", root=ROOT):  # type: ignore[no-untyped-def]
    return parse_skill_text(text, path=Path(f"/r/skills/{folder}/SKILL.md"), root=root)


def codes(parsed) -> list[str]:  # type: ignore[no-untyped-def]
    return [d.code for d in parsed.diagnostics]


def _expand(text: str) -> str:
    return re.sub(r"<'(.)' x (\d+)>", lambda m: m.group(1) * int(m.group(2)), text)


# Vectors with a plugin namespace are left out here: namespaces are applied by discovery
# (test_skill_namespace.py), and Codex 0.171.0 loads a qualified name of 129 characters (its cap
# counts namespace and name without the colon), which those vectors reject.
PARSER_VECTORS = [
    v
    for v in vector_params("parser")
    if v is None
    or (("contents" in v["input"] or "frontmatter" in v["input"]) and "plugin_namespace" not in v["input"])
]


@pytest.mark.parametrize(
    "vector", PARSER_VECTORS, ids=lambda v: v["description"][:50] if v else "no-vectors-file"
)
def test_codex_parser_vectors(vector: dict | None) -> None:  # type: ignore[type-arg]
    vector = present(vector)
    data = vector["input"]
    text = data.get("contents") or f"---\n{_expand(data['frontmatter'])}\n---\n"
    folder = data.get("default_name") or Path(data.get("file", "skills/demo/SKILL.md")).parent.name
    parsed = parse(_expand(text), folder)
    expected = vector["expected"]
    assert (parsed.skill is not None) == expected["ok"], parsed.diagnostics
    if parsed.skill is None:
        assert any(expected["error"] in d.message for d in parsed.diagnostics)
        return
    for key in ("name", "description", "short_description"):
        if key in expected:
            assert getattr(parsed.skill, key) == expected[key]
    if "short_description_len" in expected:
        assert len(parsed.skill.short_description or "") == expected["short_description_len"]


def test_overlong_descriptions_are_kept_unchanged() -> None:
    parsed = parse("---\nname: a\ndescription: " + "\U0001f4a1" * 1025 + "\n---\n")
    assert parsed.skill is not None and len(parsed.skill.description) == 1025


def test_broken_yaml_is_repaired_when_colon_in_value() -> None:
    parsed = parse("---\nname: aws\ndescription: Deploy: ECS and Lambda\n---\nbody\n")
    assert parsed.skill is not None and parsed.skill.description == "Deploy: ECS and Lambda"
    repair = next(d for d in parsed.diagnostics if d.code == "SK105")
    assert repair.severity is Severity.WARNING and repair.line == 3


def test_unrepairable_yaml_reports_the_original_error_with_its_line() -> None:
    parsed = parse("---\nname: x\ndescription: first line\ncontinues: here: too\nnot a key\n---\n")
    assert parsed.skill is None
    error = next(d for d in parsed.diagnostics if d.code == "SK104")
    assert error.severity is Severity.ERROR and error.line is not None and error.fix


def test_byte_order_mark_is_an_error_for_codex_roots() -> None:
    parsed = parse("\ufeff---\nname: a\ndescription: b\n---\n")
    assert parsed.skill is None and codes(parsed) == ["SK112"]


def test_byte_order_mark_hides_the_frontmatter_for_claude_roots_with_a_warning() -> None:
    parsed = parse("\ufeff---\nname: demo\ndescription: b\n---\n", root=CLAUDE)
    assert parsed.skill is not None and parsed.skill.description == "---"
    assert codes(parsed) == ["SK112"] and parsed.diagnostics[0].severity is Severity.WARNING


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("# no frontmatter\n", "SK101"),
        ("---\nname: a\n", "SK102"),
        ("---\n---\n", "SK103"),
        ("---\n- a\n- b\n---\n", "SK106"),
        ("---\nname: a\n---\n", "SK107"),
        ("---\nname: a\ndescription: null\n---\n", "SK107"),
        ("---\nname: a\ndescription: [x, y]\n---\n", "SK110"),
        ("---\nname: a\nname: b\ndescription: d\n---\n", "SK110"),
        ("---\nname: a\ndescription: d\nmetadata: 5\n---\n", "SK110"),
        ("---\nname: " + "a" * 65 + "\ndescription: d\n---\n", "SK108"),
    ],
)
def test_skipped_files_get_an_error_with_a_fix(text: str, code: str) -> None:
    parsed = parse(text)
    assert parsed.skill is None
    error = next(d for d in parsed.diagnostics if d.severity is Severity.ERROR)
    assert error.code == code and error.fix and error.path == Path("/r/skills/demo/SKILL.md")


def test_scalars_are_taken_as_written() -> None:
    parsed = parse("---\nname: 1.50\ndescription: 0x1F\nmetadata:\n  short-description: true\n---\n")
    assert parsed.skill is not None
    assert (parsed.skill.name, parsed.skill.description, parsed.skill.short_description) == (
        "1.50",
        "0x1F",
        "true",
    )


def test_null_name_falls_back_to_the_folder_name() -> None:
    parsed = parse("---\nname: ~\ndescription: d\n---\n", folder="my-skill")
    assert parsed.skill is not None and parsed.skill.name == "my-skill" and "SK109" in codes(parsed)


def test_unknown_duplicate_keys_are_allowed() -> None:
    assert parse("---\nname: a\ndescription: d\nfoo: 1\nfoo: 2\n---\n").skill is not None


def test_nul_bytes_in_the_body_warn() -> None:
    parsed = parse("---\nname: a\ndescription: d\n---\n\x00\x00")
    assert parsed.skill is not None and "SK121" in codes(parsed)


def test_claude_fields_are_typed() -> None:
    text = (
        "---\nname: demo\ndescription: d\nallowed-tools: Read, Bash(git add:*) Grep\n"
        "disable-model-invocation: true\nuser-invocable: false\nargument-hint: [file]\n"
        "model: sonnet\ncontext: fork\npaths: src/**, docs/*.md\nwhen_to_use: when asked\n---\n"
    )
    parsed = parse(text)
    assert parsed.skill is not None
    claude = parsed.skill.claude
    assert claude.allowed_tools == ("Read", "Bash(git add:*)", "Grep")
    assert claude.disable_model_invocation and not claude.user_invocable
    assert claude.argument_hint == "[file]" and claude.model == "sonnet" and claude.context == "fork"
    assert claude.paths == ("src/**", "docs/*.md") and claude.when_to_use == "when asked"
    assert not parsed.skill.model_visible


def test_allowed_tools_as_a_list_and_bad_booleans_warn() -> None:
    parsed = parse(
        "---\nname: demo\ndescription: d\nallowed-tools:\n  - Read\n  - Write\nuser-invocable: maybe\n---\n"
    )
    assert parsed.skill is not None
    assert parsed.skill.claude.allowed_tools == ("Read", "Write") and parsed.skill.claude.user_invocable
    assert "SK120" in codes(parsed)


def test_claude_roots_name_skills_after_their_folder_and_fall_back_to_the_body() -> None:
    parsed = parse("---\nname: other\n---\n# Heading text\nmore\n", folder="folder-name", root=CLAUDE)
    assert parsed.skill is not None
    assert (parsed.skill.name, parsed.skill.description) == ("folder-name", "Heading text")
    assert {"SK124", "SK125"} <= set(codes(parsed))


def test_openai_yaml_is_merged_into_the_skill() -> None:
    parsed = parse_skill_text(
        "---\nname: a\ndescription: d\n---\n",
        path=Path("/r/skills/a/SKILL.md"),
        root=ROOT,
        openai_yaml="policy:\n  allow_implicit_invocation: false\n  products: [codex]\n",
    )
    assert parsed.skill is not None
    assert not parsed.skill.policy.allow_implicit_invocation and parsed.skill.policy.products == ("codex",)


def test_a_file_over_the_cap_is_listed_from_its_frontmatter_with_its_body_cut(tmp_path: Path) -> None:
    path = write(tmp_path / "big" / "SKILL.md", "---\nname: big\ndescription: d\n---\n" + "é" * 1000)
    parsed = read_skill(path, ROOT, max_bytes=1000)
    assert parsed.skill is not None and parsed.skill.description == "d"
    assert codes(parsed) == ["SK119"] and "2,033 bytes" in parsed.diagnostics[0].message
    assert parsed.body == "é" * 483  # the first 1,000 bytes, the character cut in two left out
    assert codes(read_skill(path, ROOT)) == []


def test_a_file_over_the_cap_whose_frontmatter_does_not_end_within_it_is_skipped_saying_what_codex_does(
    tmp_path: Path,
) -> None:
    path = write(tmp_path / "big" / "SKILL.md", "---\nname: big\ndescription: " + "d" * 2000 + "\n---\n")
    parsed = read_skill(path, ROOT, max_bytes=1000)
    assert parsed.skill is None and codes(parsed) == ["SK113"]
    [note] = parsed.diagnostics
    assert "skipped here, but if the frontmatter ends further on, Codex" in note.message
    assert "still lists the skill (a description over 1,024 characters cut to 1,021" in note.message
    assert "loads it on its $name" in note.message
    assert note.fix.startswith("end the frontmatter within the first 1,000 bytes")


def test_a_file_larger_than_its_agent_lists_is_skipped_unread(tmp_path: Path) -> None:
    codex = tmp_path / "codex" / "SKILL.md"
    codex.parent.mkdir()
    with codex.open("wb") as handle:
        handle.write(b"---\nname: big\ndescription: d\n---\n")
        handle.truncate(512 * 1024 * 1024 + 1)
    assert codes(read_skill(codex, ROOT)) == ["SK113"]
    claude = write(tmp_path / "claude" / "SKILL.md", "---\nname: big\ndescription: d\n---\n")
    claude_root = SkillRoot(path=tmp_path, scope=Scope.REPO, origin=RootOrigin.CLAUDE_PROJECT)
    for size, listed in [(1_000_000, True), (1_000_001, False)]:
        with claude.open("r+b") as handle:
            handle.truncate(size)
        assert (read_skill(claude, claude_root).skill is not None) is listed, size


def test_read_skill_rejects_binary_and_undecodable_files(tmp_path: Path) -> None:
    binary = write(tmp_path / "bin" / "SKILL.md", b"\x89PNG\r\n\x1a\n\x00\x00\x00binary")
    latin1 = write(tmp_path / "latin" / "SKILL.md", b"---\nname: x\ndescription: caf\xe9\n---\n")
    assert codes(read_skill(binary, ROOT)) == ["SK114"]
    undecodable = read_skill(latin1, ROOT)
    assert codes(undecodable) == ["SK115"] and undecodable.diagnostics[0].line == 3


def test_read_skill_reports_missing_files(tmp_path: Path) -> None:
    parsed = read_skill(tmp_path / "gone" / "SKILL.md", ROOT)
    assert parsed.skill is None and codes(parsed) == ["SK116"]


def test_read_skill_reads_agents_openai_yaml(tmp_path: Path) -> None:
    path = write(tmp_path / "s" / "SKILL.md", "---\nname: s\ndescription: d\n---\n")
    write(tmp_path / "s" / "agents" / "openai.yaml", "interface:\n  display_name: Nice\n")
    parsed = read_skill(path, ROOT)
    assert parsed.skill is not None and parsed.skill.interface is not None
    assert parsed.skill.interface.display_name == "Nice"


def test_split_body_returns_markdown_after_frontmatter() -> None:
    assert split_body("---\nname: a\ndescription: b\n---\n# Title\n") == "# Title\n"
    assert split_body("plain\n") == "plain\n"


def test_scope_and_origin_come_from_the_root() -> None:
    root = repo_root(Path("/u"), scope=Scope.USER, origin=RootOrigin.EXTRA)
    parsed = parse_skill_text("---\nname: a\ndescription: b\n---\n", path=Path("/u/a/SKILL.md"), root=root)
    assert parsed.skill is not None and parsed.skill.scope is Scope.USER and parsed.skill.root == Path("/u")


frontmatter_like = st.one_of(
    st.text(max_size=300),
    st.lists(st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=40), max_size=10).map(
        lambda lines: "---\n" + "\n".join(lines) + "\n---\nbody"
    ),
    st.lists(
        st.sampled_from(
            [
                "name: a",
                "description: x: y",
                "metadata:",
                "  short-description: [",
                "  - x",
                "desc: |",
                "  ---",
                "\ufeff",
                "\r",
                "{a: b}",
                "&a x",
                "*a",
                "? k",
            ]
        ),
        max_size=10,
    ).map(lambda lines: "---\n" + "\n".join(lines) + "\n---\n"),
)


@settings(max_examples=400, deadline=None)
@given(frontmatter_like, st.booleans())
def test_parse_skill_text_never_raises(text: str, claude: bool) -> None:
    parsed = parse(text, root=CLAUDE if claude else ROOT)
    assert (parsed.skill is None) == any(d.severity is Severity.ERROR for d in parsed.diagnostics)


@pytest.mark.parametrize(
    ("frontmatter", "description"),
    [
        ("description: !custom a tagged description", "a tagged description"),
        ("description: plain\nallowed-tools: !tools Bash Read", "plain"),
        ("description: plain\nmetadata: !meta\n  short-description: short", "plain"),
        ("description: plain\nx: !!python/object:os.system ls", "plain"),
        ("description: !<tag:example.com,2000:x> v", "v"),
        ("description: plain\nx: !!set {a, b}", "plain"),
        ("description: plain\nx: !!int abc", "plain"),
        ("description: !!int abc", "abc"),
        ("description: !!bool xyz", "xyz"),
        ("description: !custom 'quoted text'", "quoted text"),
        ("description: !custom |\n  block text\n  more", "block text more"),
        ("description: !custom ~", "~"),
        ("description: !!null 'abc'", "abc"),
        ("description: !custom {a: b}", "!custom {a: b}"),
        ("description: {a: b}", "{a: b}"),
        ("description: ! ~", "~"),
        ("description: ! null", "null"),
        ("description: ! 123", "123"),
        ("description: ! true", "true"),
        ("description: ! 'quoted'", "quoted"),
        ("description: ! |\n  block text\n  more", "block text more"),
        ("description: ! {a: 1}", "! {a: 1}"),
    ],
)
def test_tagged_frontmatter_loads_with_the_description_codex_lists(
    frontmatter: str, description: str
) -> None:
    parsed = parse(f"---\nname: tagged\n{frontmatter}\n---\nbody\n")
    assert parsed.skill is not None, parsed.diagnostics
    assert parsed.skill.description == description
    assert not any(d.severity is Severity.ERROR for d in parsed.diagnostics)


@pytest.mark.parametrize(
    "frontmatter",
    [
        "name: t\ndescription: !!null abc",
        "name: !!null abc\ndescription: d",
        "name: t\ndescription: d\nmetadata:\n  short-description: !!null abc",
        "name: t\ndescription: !custom [a, b]",
        "name: t\ndescription: ! [a]",
    ],
)
def test_a_field_codex_cannot_read_as_text_drops_the_skill(frontmatter: str) -> None:
    parsed = parse(f"---\n{frontmatter}\n---\nbody\n")
    assert parsed.skill is None and codes(parsed) == ["SK110"]


def test_a_mapping_description_repaired_by_quoting_is_noted() -> None:
    parsed = parse("---\nname: m\ndescription: {a: b}\n---\n")
    assert parsed.skill is not None and codes(parsed) == ["SK105"]
    assert parse("---\nname: m\ndescription: {a: b}\nmetadata: 5\n---\n").skill is None


@pytest.mark.parametrize(
    ("name", "listed"), [("! ~", "~"), ("! 12", "12"), ("! null", "null"), ("!", "demo")]
)
def test_a_nonspecific_tag_keeps_a_name_that_looks_like_null_or_a_number(name: str, listed: str) -> None:
    parsed = parse(f"---\nname: {name}\ndescription: d\n---\nbody\n")
    assert parsed.skill is not None, parsed.diagnostics
    assert parsed.skill.name == listed


def test_an_empty_name_hint_says_to_fill_in_the_line_so_following_it_adds_no_duplicate() -> None:
    for written in ('name: ""', "name:", "name: ~"):
        text = f"---\n{written}\ndescription: d\n---\n"
        (note,) = [d for d in parse(text, folder="e").diagnostics if d.code == "SK109"]
        assert note.message.startswith("`name` is empty") and "existing `name:` line" in note.fix
        followed = parse(text.replace(written, "name: e"), folder="e")  # the line filled in
        assert followed.skill is not None and codes(followed) == []
    (absent,) = [d for d in parse("---\ndescription: d\n---\n", folder="e").diagnostics if d.code == "SK109"]
    assert absent.fix == "add `name: e` to the frontmatter"


@pytest.mark.parametrize("root", [ROOT, CLAUDE])
def test_a_yaml_error_names_the_same_file_line_as_the_diagnostic(root: SkillRoot) -> None:
    parsed = parse("---\nname: q\ndescription: 'unterminated\n---\n", root=root)
    (error,) = [d for d in parsed.diagnostics if d.code == "SK104"]
    assert error.line == 3 and "at line 3 column 27" in error.message


@pytest.mark.parametrize(
    ("value", "sign", "example"),
    [
        ("@handle start", "`@`", '`description: "@handle start"`'),
        ("`x", "a backtick", 'description: "`x"'),
        ("{a: b}", "`{`", '`description: "{a: b}"`'),
    ],
)
def test_a_repair_of_a_value_starting_with_an_indicator_says_to_quote_it(
    value: str, sign: str, example: str
) -> None:
    parsed = parse(f"---\nname: a\ndescription: {value}\n---\n")
    (repair,) = [d for d in parsed.diagnostics if d.code == "SK105"]
    assert f"start with a YAML indicator ({sign}), e.g. {example}" in repair.fix and ": `" not in repair.fix
