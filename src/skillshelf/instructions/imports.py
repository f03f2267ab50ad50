"""Claude Code's ``@path`` imports and the text clean-up done before a CLAUDE.md reaches the model.

What counts as an import (checked against ``claude-oracle``): ``@`` at the start of a line or
after JavaScript's white space (or directly inside ``*``/``_`` emphasis or a link's text),
outside fenced and indented code, HTML blocks and link reference definitions (CommonMark's
block rules: :mod:`.markdown_blocks`), inline code spans and HTML comments (the text after a
comment that opens an HTML block counts); the path runs to the next white space
(``\\ `` escapes a space) or to the delimiter run that closes an emphasis around it
(``**see @a.md**.``); a ``#fragment`` is dropped. Paths start with ``./``, ``~/``, ``/`` or a
letter, digit, ``.``, ``_`` or ``-``; relative paths resolve against the importing file's folder.
Each path counts once, where it is first found; in a list item, what its whole text gives comes
first, inline code and comments included (:func:`extract_imports`). Line breaks are read as
markdown reads them (``\\r\\n`` and ``\\r`` too); the text the model gets keeps its carriage
returns unless it holds an HTML comment (:func:`clean_text`).

Nothing is stripped from the end of a path: punctuation right after it is part of it. Claude
Code 2.1.197 then follows an import only to a file with no extension or a known text extension
(:func:`follows_import`), so ``@a.md,``, ``@a.md.`` and ``@a.md)`` load neither ``a.md`` nor
anything else (their extensions are ``.md,``, ``.`` and ``.md)``), while ``@Makefile,`` names a
file ``Makefile,``.

It also skips, without a word, an import whose path (as written, before it is resolved) is a
network path (:func:`network_path`): a UNC path (``@//server/share/x.md``; ``//wsl$/`` and
``//wsl.localhost/`` are let through) or one under ``/net/HOST`` (any case, after ``.`` and
``..``: ``@/tmp/../NET/host/x.md`` too), the automounter's folder. A path that does resolve
starts with one slash, as Node's ``path.resolve`` gives it (``//wsl$/d/x.md`` is ``/wsl$/d/x.md``).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from skillshelf.diagnostics import Diagnostic, Severity
from skillshelf.instructions.markdown_blocks import HtmlBlock, text_lines

__all__ = [
    "TEXT_EXTENSIONS",
    "clean_text",
    "extract_imports",
    "follows_import",
    "missing_import",
    "network_path",
    "node_extname",
    "resolve_import",
    "strip_front_matter",
    "unfollowed_import",
]

#: JavaScript's ``\s`` (Claude Code's import pattern): a byte-order mark yes; \x1c-\x1f and \x85 no.
_JS_SPACE = "\t\n\v\f\r \xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
_IMPORT = re.compile(rf"(?:^|(?<=[{_JS_SPACE}]))([*_]*)@((?:[^{_JS_SPACE}\\]|\\ )+)")
_PLAIN_IMPORT = re.compile(rf"(?:^|(?<=[{_JS_SPACE}]))@((?:[^{_JS_SPACE}\\]|\\ )+)")
# a list item's line, in a blockquote too: a bullet, or a number and `.` or `)`, then a space
_LIST_ITEM = re.compile(r"(?:[ \t]*>)*[ \t]*(?:[-+*]|[0-9]{1,9}[.)])(?:[ \t]|$)")
_LEFT_TO_PIECES = re.compile(r"[`\]*]|_(?![0-9A-Za-z])")
_DELIMITER_RUN = re.compile(r"[*_]+")
_VALID_BARE = re.compile(r"^[a-zA-Z0-9._-]")
_SPECIAL_START = re.compile(r"^[#%^&*()]+")
_CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1")
_LINK = re.compile(r"(!?)\[([^\[\]]*)\]\([^()]*\)")
_COMMENT = re.compile(r"<!--.*?-->", re.S)
_LINE_BREAK = re.compile(r"\r\n?")
_UNC = re.compile(r"^[\\/]{2}")
_WSL = re.compile(r"^[\\/]{2}wsl(?:\$|\.localhost)[\\/]", re.I)

#: The extensions (lower case, without the dot) of the files Claude Code 2.1.197 follows an import
#: to; it skips any other (``Skipping non-text file in @include``). A plain data list, as its
#: bundled CLI has it (``.R`` there is covered by ``.r``: the extension is lower-cased first).
TEXT_EXTENSIONS = frozenset(
    """
    md txt text json yaml yml toml xml csv html htm css scss sass less js ts tsx jsx mjs cjs mts cts
    py pyi pyw rb erb rake go rs java kt kts scala c cpp cc cxx h hpp hxx cs swift sh bash zsh fish
    ps1 bat cmd env ini cfg conf config properties sql graphql gql proto vue svelte astro ejs hbs
    pug jade php pl pm lua r dart ex exs erl hrl clj cljs cljc edn hs lhs elm ml mli f f90 f95 for
    cmake make makefile gradle sbt rst adoc asciidoc org tex latex lock log diff patch
    """.split()  # noqa: SIM905 (a plain word list)
)


def node_extname(path: str) -> str:
    """Node's ``path.extname`` (POSIX): the last ``.`` of the last name and what follows it,
    ``""`` when that name has no dot or only a leading one (``.env``, ``..``). A name ending in a
    dot has the extension ``"."`` (Python's ``Path.suffix`` says ``""`` there)."""
    name = path.rstrip("/").rsplit("/", 1)[-1]
    dot = name.rfind(".")
    if dot <= 0 or name == "..":
        return ""
    return name[dot:]


def follows_import(path: Path) -> bool:
    """Whether Claude Code 2.1.197 follows an import to ``path``: it has no extension, or one of
    :data:`TEXT_EXTENSIONS` in any case (``x.Md`` yes; ``x.svg``, ``x.md~``, ``x.md,`` no)."""
    extension = node_extname(str(path)).lower()
    return not extension or extension[1:] in TEXT_EXTENSIONS


def missing_import(raw: str, importer: Path) -> Diagnostic:
    """IN111: ``@raw`` names no regular file that can be read."""
    return Diagnostic(
        code="IN111",
        severity=Severity.WARNING,
        message=f"import @{raw} names no readable file",
        fix="fix the path (relative to this file) or remove the @ line",
        path=importer,
    )


def network_path(raw: str) -> bool:
    """Whether Claude Code 2.1.197 refuses the import path ``raw`` as a network path: it starts
    with two slashes (UNC) other than ``//wsl$/`` or ``//wsl.localhost/``, or it is absolute and,
    read name by name (``.`` skipped, ``..`` dropping the name before), it is ever two names deep
    with ``net`` (any case) first: ``/net/HOST``, ``/tmp/../NET/HOST/x``, ``/net/h/../../tmp/x``."""
    if _UNC.match(raw):
        return not _WSL.match(raw)
    if not raw.startswith("/"):
        return False
    names: list[str] = []
    for name in raw.split("/"):
        if name == "..":
            names = names[:-1]
        elif name not in ("", "."):
            names.append(name)
            if len(names) == 2 and names[0].lower() == "net":
                return True
    return False


def unfollowed_import(raw: str, target: Path, importer: Path) -> Diagnostic | None:
    """Why Claude Code would not follow ``@raw`` to ``target``: IN118 for a network path
    (:func:`network_path`), IN117 for a file that is not text (:func:`follows_import`)."""
    if network_path(raw):
        return Diagnostic(
            code="IN118",
            severity=Severity.INFO,
            message=f"import @{raw} is not followed: Claude Code does not import from network paths "
            "(a UNC path //server/share/..., or /net/HOST/...)",
            fix="copy the file into the project or your home folder and import it from there",
            path=importer,
        )
    if follows_import(target):
        return None
    return Diagnostic(
        code="IN117",
        severity=Severity.INFO,
        message=(
            f"import @{raw} is not followed: Claude Code imports only files with no extension or a "
            f"text one (.md, .txt, .json, .py, ...), not {node_extname(str(target))!r}"
        ),
        fix="the path runs to the next space: end it before any punctuation (@a.md, names 'a.md,'), "
        "or give the file a text extension",
        path=importer,
    )


def strip_front_matter(text: str) -> tuple[str, str | None]:
    """``(body, front_matter_source)``: a leading ``---`` block is removed from the body."""
    lines = text.split("\n")
    if not lines or lines[0].rstrip() != "---":
        return text, None
    for index in range(1, len(lines)):
        if lines[index].rstrip() == "---":
            return "\n".join(lines[index + 1 :]), "\n".join(lines[1:index])
    return text, None


def clean_text(text: str) -> str:
    """Drop the HTML comments of each HTML block that opens with one outside list items and
    blockquotes (Claude Code hides those from the model): ``<!-- x --> rest`` keeps `` rest``, a
    comment-only block goes with the empty lines after it; a comment anywhere else stays. A text
    with no ``<!--`` is kept as it is, carriage returns included; one with a ``<!--`` anywhere is
    rebuilt from its markdown reading, so each ``\\r\\n`` and lone ``\\r`` there becomes ``\\n``."""
    if "<!--" not in text:
        return text
    lines = _LINE_BREAK.sub("\n", text).split("\n")
    hidden = {
        block.first: block.last for block in text_lines(text) if isinstance(block, HtmlBlock) and block.top
    }
    out: list[str] = []
    index = 0
    while index < len(lines):
        if index in hidden:
            rest = _COMMENT.sub("", "\n".join(lines[index : hidden[index] + 1]))
            index = hidden[index] + 1
            if rest.strip():
                out.append(rest)
            else:  # the block goes with the empty lines after it, as the lexer's block holds them
                while index < len(lines) - 1 and not lines[index]:
                    index += 1
            continue
        out.append(lines[index])
        index += 1
    return "\n".join(out)


@dataclass(frozen=True, slots=True)
class _Block:
    """Consecutive prose lines: a list item's text (``in_list``) or a paragraph's. ``raw`` keeps
    each line as written, ``prose`` has its inline code spans and HTML comments blanked. An
    ``html`` block holds the text of a comment's HTML block, its comments removed."""

    in_list: bool
    html: bool = False
    raw: list[str] = field(default_factory=list)
    prose: list[str] = field(default_factory=list)


def _prose_blocks(text: str) -> list[_Block]:
    """The text outside code and HTML blocks (:func:`~.markdown_blocks.text_lines`), in blocks
    broken at blank lines, code, HTML and list items. A line that is not an item belongs to the
    list when it continues an item's line, or when it is indented and follows one after blank
    lines."""
    blocks: list[_Block] = []
    current: _Block | None = None
    in_list = False
    for line in text_lines(text):
        if isinstance(line, HtmlBlock):
            in_list = line.item or in_list
            blocks.append(_Block(in_list=False, html=True, raw=[line.text]))
            current = None
            continue
        if line is None or not line.strip():
            current = None
            continue
        if _LIST_ITEM.match(line):
            current = _Block(in_list=True)
            blocks.append(current)
            in_list = True
        elif current is None:
            in_list = in_list and line.startswith((" ", "\t"))
            current = _Block(in_list=in_list)
            blocks.append(current)
        current.raw.append(line)
        current.prose.append(_LINK.sub(_link_text, _COMMENT.sub(" ", _CODE_SPAN.sub(" ", line))))
    return blocks


def _link_text(link: re.Match[str]) -> str:
    """A link's text, read on its own (``[see @a.md](u)`` imports ``a.md``); an image's none."""
    return " " if link.group(1) else f" {link.group(2)} "


def extract_imports(text: str) -> list[str]:
    """The raw import paths in ``text``, each once, in the order Claude Code follows them.

    Claude Code reads a paragraph's inline pieces in order (``see **@a.md** and @b.md``: a, b),
    but a list item's text first whole, where only an ``@`` after whitespace counts (inline code
    and comments included), then piece by piece: ``- see **@a.md** and @b.md`` gives b, then a.
    A link's text is a piece of its own (``[see @a.md](u)``), an image's none. A whole-text path
    that holds a ``*``, a backtick, a ``]`` or a ``_`` not before a letter or digit is left to
    the pieces (:func:`_inline_path`)."""
    found: dict[str, None] = {}
    for block in _prose_blocks(text):
        if block.html:
            for match in _PLAIN_IMPORT.finditer(block.raw[0]):
                _add_path(found, match.group(1))
            continue
        if block.in_list:
            for line in block.raw:
                for match in _PLAIN_IMPORT.finditer(line):
                    written = match.group(1)
                    if not _LEFT_TO_PIECES.search(written):
                        _add_path(found, written)
        for line in block.prose:
            for match in _IMPORT.finditer(line):
                path = _inline_path(match.group(1), match.group(2), line[: match.start()])
                if path is not None:
                    _add_path(found, path)
    return list(found)


def _inline_path(emphasis: str, written: str, before: str) -> str | None:
    """The path of an import as a piece of its line reads it, where an emphasis may end it.
    With ``emphasis`` right before the ``@`` (``**@a.md**.``), the path ends at the run that
    closes it, and there is no import without one. Otherwise the first run that closes an
    emphasis opened earlier on the line (``before``) ends it (``**see @a.md**x``). A ``_`` run
    followed by a letter or digit closes nothing (``_see @a.md_x``)."""
    closing = emphasis[::-1]
    for run in _DELIMITER_RUN.finditer(written):
        after = written[run.end() : run.end() + 1]
        if run.start() == 0 or (run.group()[-1] == "_" and after.isalnum()):
            continue
        if emphasis and run.group() == closing:
            return written[: run.start()]
        if not emphasis and _opened(run.group(), before):
            return written[: run.start()]
    return None if emphasis else written


def _opened(delimiter: str, before: str) -> bool:
    """Whether an emphasis of runs of exactly ``delimiter`` is open at the end of ``before``:
    each run closes an open one when it can, else opens one when it can, by CommonMark's
    flanking rules (:func:`_flanking`)."""
    depth = 0
    for run in re.finditer(rf"(?<![*_]){re.escape(delimiter)}(?![*_])", before):
        can_open, can_close = _flanking(
            delimiter, before[run.start() - 1 : run.start()], before[run.end() :][:1]
        )
        if can_close and depth:
            depth -= 1
        elif can_open:
            depth += 1
    return depth > 0


def _flanking(delimiter: str, previous: str, following: str) -> tuple[bool, bool]:
    """Whether a delimiter run between ``previous`` and ``following`` (a character each, ``""``
    at the line's ends) can open and close an emphasis (CommonMark)."""
    previous_space = not previous.strip()
    following_space = not following.strip()
    previous_punct = not previous_space and not previous.isalnum()
    following_punct = not following_space and not following.isalnum()
    left = not following_space and (not following_punct or previous_space or previous_punct)
    right = not previous_space and (not previous_punct or following_space or following_punct)
    if delimiter[0] == "*":
        return left, right
    return left and (not right or previous_punct), right and (not left or following_punct)


def _add_path(found: dict[str, None], written: str) -> None:
    """Add the path an import writes (its ``#fragment`` dropped, ``\\ `` a space) when valid."""
    path = written.split("#", 1)[0].replace("\\ ", " ")
    if path and _valid(path):
        found.setdefault(path)


def _valid(path: str) -> bool:
    if path.startswith(("./", "~/")) or (path.startswith("/") and path != "/"):
        return True
    return not path.startswith("@") and not _SPECIAL_START.match(path) and bool(_VALID_BARE.match(path))


def resolve_import(raw: str, *, importer: Path, home: Path) -> Path:
    """The absolute, normalised path an import names."""
    if raw.startswith("~/"):
        target = home / raw[2:]
    elif raw.startswith("/"):
        target = Path(raw)
    else:
        target = importer.parent / raw
    normal = os.path.normpath(target)  # POSIX keeps two leading slashes; Node's resolve keeps one
    return Path(normal[1:] if normal.startswith("//") else normal)
