"""Differential tests: which ``@imports`` Claude Code finds in markdown blocks (indented and
fenced code, HTML blocks, blockquotes, list items, link reference definitions), and which HTML
comments it hides from the model, against ``claude-oracle``. Every snippet is a file of its
own, imported by one CLAUDE.md, so a single run of Claude Code answers them all: snippet ``N``
may import ``xN.md`` and ``yN.md``."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from skillshelf.env import Env
from skillshelf.instructions import load_instructions
from skillshelf.instructions.imports import extract_imports

pytestmark = pytest.mark.oracle

SNIPPETS: dict[str, str] = {
    "list-item-paragraph-indented-4": "- item\n\n    @x.md\n",
    "list-item-code-below-its-paragraph": "- item\n\n    @x.md\n\n      @y.md\n",
    "ordered-item-paragraph": "10. item\n\n    @x.md\n",
    "item-opened-by-code": "-     @y.md\n\n  @x.md\n",
    "tab-indented-item-paragraph": "-\ta\n\n\t@x.md\n",
    "backtick-in-a-backtick-info-string": "```a`b\n@x.md\n",
    "backtick-in-a-tilde-info-string": "~~~a`b\n@x.md\n~~~\n",
    "code-after-a-heading": "# Title\n    @x.md\n",
    "code-after-a-thematic-break": "---\n    @x.md\n",
    "code-after-a-starred-break": "* * *\n    @x.md\n",
    "code-after-a-setext-underline": "Title\n===\n    @x.md\n",
    "lazy-indented-paragraph-line": "Para\n    @x.md\n",
    "four-space-fence-is-code": "    ```\n@x.md\n",
    "fence-in-a-blockquote": "> ```\n> @x.md\n> ```\n",
    "blockquote-fence-ends-with-the-quote": "> ```\n> @y.md\n\n@x.md\n",
    "list-item-fence": "- ```\n  @y.md\n  ```\n- @x.md\n",
    "closing-fence-with-text-after-it": "```\n@y.md\n``` not closing\n@x.md\n```\n",
    "closing-fence-with-spaces-after-it": "```\n@y.md\n```   \n@x.md\n",
    "shorter-fence-does-not-close": "````\n```\n@y.md\n````\n@x.md\n",
    "html-details-block": "<details>\n@x.md\n</details>\n",
    "html-div-block": "<div>\n@x.md\n</div>\n",
    "html-script-block-spans-blank-lines": "<script>\n\n@x.md\n</script>\n",
    "html-div-block-ends-at-a-blank-line": "<div>\n\n@x.md\n",
    "lone-tag-block": "<span>\n@x.md\n",
    "lone-tag-does-not-interrupt-a-paragraph": "Para\n<span>\n@x.md\n",
    "cdata-block": "<![CDATA[\n@y.md\n]]>\n@x.md\n",
    "code-after-a-comment-block": "Para\n<!-- c -->\n    @x.md\n",
    "unclosed-comment": "<!-- unclosed\n@x.md\n",
    "text-after-a-comment-on-its-line": "<!-- c --> @x.md\n",
    "text-after-a-multi-line-comment": "<!--\n@y.md\n-->\n@x.md\n",
    "list-item-opened-by-a-comment": "- <!-- @y.md --> @x.md\n",
    "link-reference-definition": "[ref]: @x.md\n",
    "text-after-a-link-reference-definition": "[ref]: /u 'title'\n@x.md\n",
    "not-a-link-reference-definition": "[ref] @x.md\n",
    "tab-indented-first-line": "\t@x.md\n",
    "blockquote-list-item": "> - a\n>   @x.md\n",
    "blockquote-lazy-line": "> para\n@x.md\n",
    "byte-order-mark-before-the-import": "\ufeff@x.md\n",
    "byte-order-mark-is-javascripts-white-space": "see\ufeff@x.md\n",
    "next-line-is-not-javascripts-white-space": "see\x85@x.md\n",
    "unit-separator-is-not-javascripts-white-space": "see\x1f@x.md\n",
    "path-ends-at-a-byte-order-mark": "@x.md\ufeffmore\n",
}

_INCLUDED = re.compile(r"^Contents of \S*/([xy])(\d+)\.md \(", re.M)


def _imported(block: str | None) -> dict[int, list[str]]:
    """Snippet number -> the letters of the ``xN.md`` / ``yN.md`` files in the block, sorted."""
    found: dict[int, list[str]] = {}
    for letter, number in _INCLUDED.findall(block or ""):
        found.setdefault(int(number), []).append(letter)
    return {number: sorted(letters) for number, letters in found.items()}


def test_imports_in_markdown_blocks_are_found_like_claude_code(tmp_path: Path, claude_oracle: Any) -> None:
    names = sorted(SNIPPETS)
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (tmp_path / "home").mkdir()
    (repo / "CLAUDE.md").write_text("".join(f"@c{n}.md\n\n" for n in range(len(names))), encoding="utf-8")
    for number, name in enumerate(names):
        snippet = SNIPPETS[name].replace("x.md", f"x{number}.md").replace("y.md", f"y{number}.md")
        (repo / f"c{number}.md").write_text(snippet, encoding="utf-8")
        (repo / f"x{number}.md").write_text(f"X{number}\n", encoding="utf-8")
        (repo / f"y{number}.md").write_text(f"Y{number}\n", encoding="utf-8")
    theirs = _imported(claude_oracle(repo, home=tmp_path / "home")["claude_md"])
    ours = _imported(load_instructions(Env.for_test(cwd=repo, home=tmp_path / "home"), profile="claude").text)
    differ = {
        name: (ours.get(number), theirs.get(number))
        for number, name in enumerate(names)
        if ours.get(number) != theirs.get(number)
    }
    assert not differ, "snippet: (ours, Claude Code's)"
    assert len(theirs) > len(names) // 3  # the run imported something: the oracle read the files


#: Texts with HTML comments: Claude Code hides those of a comment's HTML block at the top level.
COMMENTED: dict[str, str] = {
    "comment-line-in-a-list-item": "- item\n  <!-- c -->\n- two\n",
    "comment-after-a-paragraph-line": "a\n<!-- c -->\nb\n",
    "text-after-a-multi-line-comment": "<!-- a\nb --> tail\nx\n",
    "comment-in-a-blockquote": "> <!-- q -->\nz\n",
    "comment-in-fenced-code": "```\n<!-- f -->\n```\n",
    "comment-inside-a-paragraph": "Para <!-- inline --> x\n",
    "unclosed-comment": "<!-- unclosed\nx\n",
    "comment-between-blank-lines": "a\n\n<!-- c -->\n\nb\n",
    "comment-after-a-list": "- item\n\n<!-- c -->\nb\n",
    "list-item-opened-by-a-comment": "- <!-- c --> x\n",
    "comment-after-indented-code": "    code\n<!-- c -->\nb\n",
    "carriage-returns": "a\r\n<!-- c -->\r\nb\r\n",
    "text-between-two-comments": "<!-- a --> mid <!-- b -->\nc\n",
}

_FILE = re.compile(r"^Contents of \S*/c(\d+)\.md \([^\n]*\):\n\n(.*?)(?=\n\nContents of |\Z)", re.S | re.M)


def test_comments_are_hidden_from_the_model_like_claude_code(tmp_path: Path, claude_oracle: Any) -> None:
    names = sorted(COMMENTED)
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (tmp_path / "home").mkdir()
    (repo / "CLAUDE.md").write_text("".join(f"@c{n}.md\n\n" for n in range(len(names))), encoding="utf-8")
    for number, name in enumerate(names):
        (repo / f"c{number}.md").write_bytes(f"C{number}\n\n{COMMENTED[name]}".encode())
    theirs = dict(_FILE.findall(claude_oracle(repo, home=tmp_path / "home")["claude_md"] or ""))
    ours = dict(
        _FILE.findall(
            load_instructions(Env.for_test(cwd=repo, home=tmp_path / "home"), profile="claude").text
        )
    )
    assert len(theirs) == len(names)
    differ = {
        name: (ours.get(str(number)), theirs.get(str(number)))
        for number, name in enumerate(names)
        if ours.get(str(number)) != theirs.get(str(number))
    }
    assert not differ, "text: (ours, Claude Code's)"


@pytest.mark.parametrize(
    ("text", "imports"),
    [
        ("# Title\n    @x.md\n", []),
        ("<details>\n@x.md\n</details>\n", []),
        ("- <!-- @y.md --> @x.md\n", ["x.md"]),
        ("- item\n\n    @x.md\n", ["x.md"]),
        ("\t@x.md\n", []),
    ],
)
def test_extract_imports_reads_markdown_blocks(text: str, imports: list[str]) -> None:
    """The same rules at the function's level (the differential test above pins them)."""
    assert extract_imports(text) == imports
