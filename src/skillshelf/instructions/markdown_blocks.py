"""Which lines of a CLAUDE.md are text, by the block rules of CommonMark as Claude Code's markdown
lexer (marked, ``gfm: false``) applies them; checked against ``claude-oracle``.

Not text: fenced code (a backtick fence's info string holds no backtick; a closing fence holds
nothing but spaces after it; a fence in a blockquote or a list item ends with it), indented code
(four columns past the container's content, never inside an open paragraph, so right after a
heading, a thematic break or a setext underline too), HTML blocks (CommonMark's seven kinds; the
seventh, a lone complete tag, does not interrupt a paragraph) and link reference definitions. An
HTML block that opens with a comment and holds its end is read with its comments removed
(:class:`HtmlBlock`); any other HTML block is not read at all.

A list item's content starts at the column after its marker; a later line indented at least that
far belongs to it, a blank line and a line indented less end it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["HtmlBlock", "MarkdownLine", "text_lines"]

#: List markers read on one line (``- - - a``); past them the line is text (a bound of this reading).
MAX_ITEMS_ON_A_LINE = 64
_LINE_BREAK = re.compile(r"\r\n?")
#: The characters a line that is not plain text starts with (after its indentation).
_BLOCK_STARTS = frozenset("`~<-*_=[")
_ITEM_STARTS = frozenset("-+*0123456789")
_QUOTES = re.compile(r"(?: {0,3}> ?)*")
_ITEM = re.compile(r"( {0,3})([-+*]|[0-9]{1,9}[.)])( {1,4}(?! )|[ \t]|$)")
_FENCE_OPEN = re.compile(r" {0,3}(`{3,}|~{3,})(.*)$")
_ATX = re.compile(r" {0,3}#{1,6}(?:[ \t]|$)")
_BREAK = re.compile(r" {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$")
_SETEXT = re.compile(r" {0,3}(?:=+|-+)[ \t]*$")
_LINK_DEF = re.compile(
    r" {0,3}\[(?!\s*\])(?:\\.|[^\[\]\\])+\]: *(?:[^<\s]\S*|<[^>\n]*>)"
    r"""(?: +(?:"(?:\\"?|[^"\\])*"|'[^'\n]*'|\([^()]*\)))? *$"""
)
_BLOCK_TAGS = (
    "address|article|aside|base|basefont|blockquote|body|caption|center|col|colgroup|dd|details|"
    "dialog|dir|div|dl|dt|fieldset|figcaption|figure|footer|form|frame|frameset|h[1-6]|head|header|"
    "hr|html|iframe|legend|li|link|main|menu|menuitem|meta|nav|noframes|ol|optgroup|option|p|param|"
    "search|section|summary|table|tbody|td|tfoot|th|thead|title|tr|track|ul"
)
_ATTRIBUTE = r"""(?:\s+[A-Za-z_:][A-Za-z0-9_.:-]*(?:\s*=\s*(?:[^\s"'=<>`]+|'[^']*'|"[^"]*"))?)"""
#: (start, end or None: ends at a blank line, interrupts a paragraph) for CommonMark's kinds 1-7.
_HTML_KINDS: tuple[tuple[re.Pattern[str], re.Pattern[str] | None, bool], ...] = (
    (
        re.compile(r" {0,3}<(?:script|pre|style|textarea)(?:[ \t>]|$)", re.I),
        re.compile(r"</(?:script|pre|style|textarea)>", re.I),
        True,
    ),
    (re.compile(r" {0,3}<!--"), re.compile(r"-->"), True),
    (re.compile(r" {0,3}<\?"), re.compile(r"\?>"), True),
    (re.compile(r" {0,3}<![A-Za-z]"), re.compile(r">"), True),
    (re.compile(r" {0,3}<!\[CDATA\["), re.compile(r"\]\]>"), True),
    (re.compile(rf" {{0,3}}</?(?:{_BLOCK_TAGS})(?:[ \t]|/?>|$)", re.I), None, True),
    (
        re.compile(
            rf" {{0,3}}(?:<(?!(?:script|style|pre|textarea)\b)[A-Za-z][A-Za-z0-9-]*{_ATTRIBUTE}*\s*/?>"
            r"|</[A-Za-z][A-Za-z0-9-]*\s*>)[ \t]*$",
            re.I,
        ),
        None,
        False,
    ),
)
_COMMENT = re.compile(r"<!--.*?-->", re.S)


@dataclass(frozen=True, slots=True)
class HtmlBlock:
    """An HTML block that opens with a comment and holds its end: ``text`` is what is left once
    its comments are removed (Claude Code looks for imports there); ``item``: it opens a list
    item (``- <!-- c --> @a.md``)."""

    text: str
    item: bool = False
    #: Not inside a list item or a blockquote: the comment is then hidden from the model.
    top: bool = False
    #: The indexes of its first and last lines.
    first: int = 0
    last: int = 0


#: A line of text as written, ``None`` for a line that is not text, or a comment's HTML block.
MarkdownLine = str | None | HtmlBlock


def _expand(line: str) -> str:
    """``line`` with the tabs of its leading white space expanded to 4-column stops."""
    stripped = line.lstrip(" \t")
    leading = line[: len(line) - len(stripped)]
    return leading.expandtabs(4) + stripped if "\t" in leading else line


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _starts_block(content: str) -> bool:
    """Whether ``content`` opens a block that ends a lazy paragraph line's claim to its item."""
    return bool(
        _ITEM.match(content)
        or _FENCE_OPEN.match(content)
        or _ATX.match(content)
        or _BREAK.match(content)
        or any(start.match(content) for start, _, _ in _HTML_KINDS[:6])
    )


@dataclass(slots=True)
class _Scanner:
    """The state of one pass over the lines (local to :func:`text_lines`)."""

    out: list[MarkdownLine]
    items: list[int]  # content columns of the open list items, outermost first
    fence: tuple[str, int, int] | None = None  # (marker, quote depth, content column)
    # (end, lines, opens an item, at the top level, first line)
    html: tuple[re.Pattern[str] | None, list[str], bool, bool, int] | None = None
    paragraph: bool = False
    quotes: int = 0
    index: int = 0

    def close_html(self) -> None:
        if self.html is None:
            return
        _, lines, item, top, first = self.html
        self.html = None
        raw = "\n".join(lines)
        if raw.lstrip().startswith("<!--") and "-->" in raw:
            self.out.append(HtmlBlock(_COMMENT.sub("", raw), item, top, first, self.index))
        else:
            self.out.append(None)

    def line(self, raw: str) -> None:
        prefix = _QUOTES.match(raw)
        quotes = prefix.group().count(">") if prefix else 0
        body = _expand(raw[prefix.end() :] if prefix else raw)
        if self.html is not None:
            end, lines = self.html[:2]
            if end is None and not body.strip():
                self.close_html()
                return
            lines.append(body)
            if end is not None and end.search(body):
                self.close_html()
            else:
                self.out.append(None)
            return
        indent = _indent(body)
        if self.fence is not None and (quotes < self.fence[1] or (indent < self.fence[2] and body.strip())):
            self.fence = None
        if quotes != self.quotes and not (self.paragraph and quotes < self.quotes):
            self.items.clear()
        self.quotes = quotes
        if self.fence is not None:
            self._fenced(body, indent)
            return
        if not body.strip():
            self.paragraph = False
            self.out.append("")
            return
        while self.items and indent < self.items[-1] and (not self.paragraph or _starts_block(body[indent:])):
            self.items.pop()
            self.paragraph = False
        base = self.items[-1] if self.items else 0
        if self.block(body[min(base, indent) :], base):
            self.out.append(raw)

    def _fenced(self, body: str, indent: int) -> None:
        """A line inside fenced code: the closing fence (same character, at least as long, only
        spaces after it) ends it."""
        assert self.fence is not None
        marker, _, column = self.fence
        closing = body[column:] if indent >= column else body
        if re.fullmatch(rf" {{0,3}}{re.escape(marker[0])}{{{len(marker)},}}[ \t]*", closing):
            self.fence = None
        self.out.append(None)

    def block(self, content: str, base: int) -> bool:
        """Read ``content`` (a line less its containers' prefixes) as a block's line: whether
        it is text (the caller keeps the line), else what it is was recorded. A list item's
        content is read in turn, up to :data:`MAX_ITEMS_ON_A_LINE` markers deep."""
        item = False
        for _ in range(MAX_ITEMS_ON_A_LINE):
            if not self._text_block(content, base, item=item):
                return False
            marker = _ITEM.match(content) if content.lstrip(" ")[:1] in _ITEM_STARTS else None
            rest = content[marker.end() :] if marker else ""
            if not (marker and (not self.paragraph or rest.strip())):
                self.paragraph = not _ATX.match(content)
                return True
            spaces = len(marker.group(3)) if rest.strip() else 1
            self.items.append(base + len(marker.group(1)) + len(marker.group(2)) + spaces)
            self.paragraph = False
            if not rest.strip():
                return True
            content, base, item = rest, self.items[-1], True
        return True

    def _text_block(self, content: str, base: int, *, item: bool) -> bool:
        """Whether ``content`` may be text: not code, HTML, a break or a link reference
        definition (each recorded here)."""
        indent = _indent(content)
        first = content[indent : indent + 1]
        if indent >= 4 and not self.paragraph:
            self.out.append(None)  # indented code
            return False
        if first not in _BLOCK_STARTS:
            return True
        fence = _FENCE_OPEN.match(content) if first in "`~" else None
        if fence and not (fence.group(1)[0] == "`" and "`" in fence.group(2)):
            self.fence, self.paragraph = (fence.group(1), self.quotes, base), False
            self.out.append(None)
            return False
        if first == "<" and self._html_block(content, item=item):
            return False
        if (first in "-*_" and content.rstrip()[-1:] == first and _BREAK.match(content)) or (
            self.paragraph and not item and first in "=-" and _SETEXT.match(content)
        ):
            self.paragraph = False
            self.out.append(None)
            return False
        if first == "[" and not self.paragraph and _LINK_DEF.match(content):
            self.out.append(None)
            return False
        return True

    def _html_block(self, content: str, *, item: bool) -> bool:
        """Whether ``content`` opens an HTML block (then recorded)."""
        for start, end, interrupts in _HTML_KINDS:
            opened = start.match(content)
            if opened and (interrupts or not self.paragraph):
                top = not self.items and not self.quotes
                self.html, self.paragraph = (end, [content], item, top, self.index), False
                if end is not None and end.search(content, opened.end()):
                    self.close_html()
                else:
                    self.out.append(None)
                return True
        return False


def text_lines(text: str) -> list[MarkdownLine]:
    """The lines of ``text`` (``\\r\\n`` and ``\\r`` breaks too): as written when it is text,
    ``""`` when blank, ``None`` when it is code, HTML or a link reference definition; a comment's
    HTML block is one :class:`HtmlBlock` in place of its lines."""
    scanner = _Scanner(out=[], items=[])
    for index, line in enumerate(_LINE_BREAK.sub("\n", text).split("\n")):
        scanner.index = index
        scanner.line(line)
    scanner.close_html()
    return scanner.out
