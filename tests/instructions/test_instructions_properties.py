"""Property tests: the AGENTS.md byte cap, the @import parser and claudeMdExcludes on arbitrary input."""

from __future__ import annotations

import posixpath
import tempfile
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from skillshelf.env import Env
from skillshelf.instructions import InstructionScope, load_instructions
from skillshelf.instructions.agents_md import rust_trim
from skillshelf.instructions.claude_excludes import ClaudeMdExcludes
from skillshelf.instructions.imports import clean_text, extract_imports, strip_front_matter


@settings(max_examples=80, deadline=None)
@given(st.lists(st.binary(max_size=40), min_size=1, max_size=4), st.integers(min_value=0, max_value=120))
def test_project_files_never_exceed_the_byte_cap(contents: list[bytes], cap: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        folder = base / "repo"
        (folder / ".git").mkdir(parents=True)
        folders = [folder]
        for index in range(1, len(contents)):
            folders.append(folders[-1] / f"d{index}")
        for path, data in zip(folders, contents, strict=True):
            path.mkdir(parents=True, exist_ok=True)
            (path / "AGENTS.md").write_bytes(data)
        env = Env.for_test(cwd=folders[-1], home=base / "home")
        result = load_instructions(env, max_bytes=cap)
        project = [layer for layer in result.layers if layer.scope is not InstructionScope.USER]
        used = sum(layer.size - layer.bytes_cut for layer in project if layer.included)
        assert used <= cap
        for layer in project:
            if layer.included:
                data = layer.path.read_bytes()
                assert layer.text == data[: layer.size - layer.bytes_cut].decode("utf-8", errors="replace")
                assert rust_trim(layer.text)
        assert [layer.path.parent for layer in project] == [f for f, d in zip(folders, contents, strict=True)]
        assert (result.text == "") == (not any(layer.included for layer in result.layers))


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab @./~#`*_-\\\n<!->x:")), max_size=80))
def test_import_parser_accepts_anything_and_returns_usable_paths(text: str) -> None:
    body, _ = strip_front_matter(text)
    for path in extract_imports(clean_text(body)):
        assert path and not path.startswith("@") and "#" not in path
        assert not any(ch.isspace() and ch != " " for ch in path)


_GLOB_TEXT = st.lists(st.sampled_from([*"ab/*?{},[]!.-\\", "**", "{a,b}", "{a,b,c,d}" * 3]), max_size=20).map(
    "".join
)


@settings(max_examples=150, deadline=None)
@given(
    st.lists(_GLOB_TEXT, max_size=5),
    st.lists(st.text(alphabet="ab.-", min_size=1, max_size=6), min_size=1, max_size=6),
)
def test_any_claude_md_excludes_pattern_gives_an_answer_or_a_problem_never_an_error(
    patterns: list[str], parts: list[str]
) -> None:
    """``claudeMdExcludes`` comes from files a project can plant: every list of strings is either
    compiled or named among the problems, and matching never raises."""
    excludes = ClaudeMdExcludes.from_layers([{"claudeMdExcludes": patterns}])
    assert len(excludes.matchers) + len(excludes.problems) == len(excludes.patterns)
    path = Path("/" + "/".join(parts))
    assert excludes.excludes(path) in (True, False)
    assert excludes.excludes(path) == any(m.match(posixpath.normpath(path)) for m in excludes.matchers)
    if "**" in patterns and not excludes.problems:
        assert excludes.excludes(path)


def test_claude_md_excludes_match_a_path_with_dot_parts_as_node_folds_it() -> None:
    """A path holding ``.`` or ``..`` parts is matched as Node's ``path.resolve`` folds it."""
    excludes = ClaudeMdExcludes.from_layers([{"claudeMdExcludes": ["/b/CLAUDE.md", "**/skip/*.md"]}])
    assert excludes.excludes(Path("/a/../b/./CLAUDE.md"))
    assert excludes.excludes(Path("/x/skip/y/../CLAUDE.md"))
    assert not excludes.excludes(Path("/b/c/../../a/CLAUDE.md"))
    everything = ClaudeMdExcludes.from_layers([{"claudeMdExcludes": ["**"]}])
    assert everything.excludes(Path("/..")) and everything.excludes(Path("/a/."))
