"""``requirements.allowed_install_sources``: the sources ``install`` and ``update`` may fetch from.

The key absent: every source is allowed. Present: a source must match one of its patterns, and
an empty list allows none. Later configuration layers can only drop patterns
(:mod:`skillshelf.config.requirements`). It fails closed: a value that is not a list of strings,
or a layer that may set requirements (system, user, a trusted project's) whose file exists but
cannot be read (``CF101``), or cannot be parsed (``CF100``) and names the key, allows no source
until the file is fixed.
``install`` (one skill or ``--all``) is refused before anything is fetched; ``update`` refuses a
lock entry whose source no longer matches (``failed``) and does not look at a pack whose source
does not match, so that pack gains no skill.

What a pattern is matched against (:func:`matched_text`): the source's location after
:func:`~skillshelf.install.sources.parse_source` (``gh:owner/repo`` and a folder's web page
already read as the repository's URL), without its ``@ref`` and ``#subdir``: a pattern says
which repositories, archives and folders, not which refs or folders inside them.

- a URL (a git repository, an archive to download): ``scheme://host[:port]/path[?query]`` with
  the user part (a name, a password, a token) left out, scheme and host in lower case and the
  path percent-decoded; ``https://x-access-token:T@github.com/acme/r.git`` is matched as
  ``https://github.com/acme/r.git``;
- git's ``user@host:path``: as written (a pattern for it is written the same way);
- a local folder, a local archive, a ``file:`` URL, a local git repository: its absolute path,
  symlinks followed (``/opt/skills/pdf``, never ``file:///opt/skills/pdf``).

A URL whose path has a ``.`` or ``..`` segment (percent-encoded or not), a URL host with
characters a host name cannot hold, a ``file:`` URL naming another machine and a path in a loop
of symlinks match no pattern (a local path's ``..`` is resolved like its symlinks).

Patterns are globs matched against the whole text, case-sensitively: ``*`` is any run of
characters other than ``/``, ``**`` any run including ``/``, ``?`` one character other than
``/``, ``[abc]`` / ``[!abc]`` one character (never ``/``) in or not in the set; anything else
stands for itself. So ``https://github.com/acme/*`` is any repository of acme
(``https://github.com/acme/tools.git``), ``https://*.acme.com/**`` anything on acme's hosts (the
``*`` cannot reach past the host), ``/opt/skills/*`` a folder directly in ``/opt/skills`` and
``/opt/skills/**`` one at any depth below it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import unquote, urlsplit

from skillshelf.errors import InstallError
from skillshelf.fileio import resolve_path
from skillshelf.install.sources import Source, local_place

if TYPE_CHECKING:
    from skillshelf.config import Config
    from skillshelf.env import Env

__all__ = ["KEY", "SourceNotAllowedError", "SourcePolicy", "configured_policy", "matched_text"]

KEY = "requirements.allowed_install_sources"
_HOST = re.compile(r"[a-z0-9._~-]+|[0-9a-f:.]+")
_SCP_LIKE = re.compile(r"^[\w.+-]+@[\w.-]+:(?!//)")


class SourceNotAllowedError(InstallError):
    """The source matches none of the patterns of ``requirements.allowed_install_sources``."""

    default_code = "IS106"


@dataclass(frozen=True, slots=True, kw_only=True)
class SourcePolicy:
    """The allowed patterns (None: the key is not set, so every source is allowed) and where
    they were set: the configuration layer and its file and line, which the messages name."""

    patterns: tuple[str, ...] | None = None
    layer: str = ""
    file: str | None = None
    line: int | None = None
    unreadable: str | None = None  # why a layer's value was left out: then nothing is allowed
    skipped: str | None = None  # why the whole layer was left out (its file cannot be read or parsed)

    @classmethod
    def from_config(cls, config: Config) -> SourcePolicy:
        """The policy of ``config``. A value a layer in effect sets but the schema left out (not
        a list of strings) allows nothing, rather than everything, until it is fixed; so does a
        layer that may set requirements but was skipped because its file cannot be read."""
        skipped = _skipped_requirements_layer(config)
        if skipped is not None:
            return skipped
        for layer in config.layers:
            for found in layer.diagnostics if layer.active else ():
                if found.field == KEY:
                    return cls(
                        patterns=(),
                        layer=layer.label,
                        file=None if found.path is None else str(found.path),
                        line=found.line,
                        unreadable=f"{found.message}; {found.fix}",
                    )
        value = config.requirements.get("allowed_install_sources")
        if not isinstance(value, list):
            return cls()
        patterns = tuple(p for p in value if isinstance(p, str))
        prov = config.provenance.get(KEY)
        if prov is None:
            return cls(patterns=patterns)
        return cls(patterns=patterns, layer=prov.layer, file=prov.file, line=prov.line)

    @property
    def set_in(self) -> str:
        """``FILE:LINE (the LAYER layer)``, as far as it is known."""
        at = f"{self.file}:{self.line}" if self.file and self.line else self.file
        layer = f"the {self.layer} layer" if self.layer else "the configuration"
        return f"{at} ({layer})" if at else layer

    def allows(self, source: Source) -> bool:
        return self.refusal(source) is None

    def refusal(self, source: Source) -> SourceNotAllowedError | None:
        """Why ``source`` may not be fetched, or None when it may."""
        if self.patterns is None:
            return None
        text = matched_text(source)
        if text is not None and any(_compiled(p).fullmatch(text) for p in self.patterns):
            return None
        add = f"a pattern for it must be added to {KEY} in {self.set_in}, as a later layer cannot add one"
        shown = text or source.location  # as matched: a URL without its user part
        if self.skipped is not None:
            return SourceNotAllowedError(
                f"{shown} is not an allowed install source: {self.set_in} cannot be read ({self.skipped}), "
                f"and that layer may set {KEY}, so no source is allowed until it is fixed",
                hint=f"{self.unreadable}; install and update refuse every source while it cannot be read",
            )
        if self.unreadable is not None:
            return SourceNotAllowedError(
                f"{shown} is not an allowed install source: {KEY} in {self.set_in} cannot be read, so no "
                "source is allowed until it is fixed",
                hint=self.unreadable,
            )
        if not self.patterns:
            return SourceNotAllowedError(
                f"{shown} is not an allowed install source: {KEY} is empty in {self.set_in}, so no source "
                "is allowed",
                hint=add,
            )
        listed = ", ".join(map(repr, self.patterns))
        odd = (
            "" if text else " (a '.' or '..' segment, an odd host or a loop of symlinks: it matches nothing)"
        )
        return SourceNotAllowedError(
            f"{shown} is not an allowed install source{odd}: {KEY} in {self.set_in} allows only [{listed}]",
            hint=f"install from a source matching one of {listed}; {add}",
        )

    def check(self, source: Source) -> None:
        """Raise :class:`SourceNotAllowedError` unless ``source`` is allowed."""
        refused = self.refusal(source)
        if refused is not None:
            raise refused


def configured_policy(env: Env) -> SourcePolicy:
    """The policy of the configuration in effect for ``env`` (its layers merged)."""
    from skillshelf.config import load_config

    return SourcePolicy.from_config(load_config(env))


def _skipped_requirements_layer(config: Config) -> SourcePolicy | None:
    """The policy that allows nothing, naming the first layer whose file exists but was skipped
    (unreadable, not UTF-8, a TOML syntax error) although it could set requirements: the system
    and user layers, and a project layer that takes effect (a trusted project whose config is
    allowed). None when there is no such layer. Codex's own config is read for its skill rules
    only, and ``-c`` overrides are never skipped."""
    from skillshelf.config.layers import LayerKind

    projects = config.trusted and config.requirements.get("allow_project_config") is not False
    for layer in config.layers:
        if not layer.exists or layer.loaded or layer.path is None:
            continue
        if layer.kind in (LayerKind.SYSTEM, LayerKind.USER) or (layer.kind is LayerKind.PROJECT and projects):
            problem = layer.diagnostics[0] if layer.diagnostics else None
            if problem is not None and problem.code == "CF100" and not _names_key(layer.path):
                continue  # a syntax error in a file that never names the key cannot set it
            return SourcePolicy(
                patterns=(),
                layer=layer.label,
                file=str(layer.path),
                line=None if problem is None else problem.line,
                unreadable="check the file's permissions" if problem is None else problem.fix,
                skipped="it cannot be read" if problem is None else f"{problem.code}: {problem.message}",
            )
    return None


def _names_key(path: Path) -> bool:
    """Whether the text of the config file ``path`` names :data:`KEY`'s last part anywhere (True when it
    cannot be read now: then it may)."""
    from skillshelf.config.layers import MAX_CONFIG_BYTES
    from skillshelf.fileio import read_regular_text

    try:
        return KEY.rpartition(".")[2] in read_regular_text(path, limit=MAX_CONFIG_BYTES, errors="replace")
    except (OSError, ValueError):
        return True


def matched_text(source: Source) -> str | None:
    """The text the patterns are matched against (see the module's docstring), or None when
    the location cannot be matched at all."""
    location = source.location
    web = location.lower().startswith(("http://", "https://"))
    if source.kind == "folder" or (source.kind == "archive" and not web):
        return _path_text(Path(location))  # as the fetch reads it
    if source.kind == "archive":
        return _url_text(location)
    if location.lower().startswith("file:") and urlsplit(location).netloc.lower() not in ("", "localhost"):
        return None
    place = local_place(location)
    if place is not None:
        return _path_text(place)
    if _SCP_LIKE.match(location):
        return None if _dotted(location.partition(":")[2]) else location
    return _url_text(location)


def _path_text(place: Path) -> str | None:
    try:
        return resolve_path(place).as_posix()
    except OSError:
        return None


def _url_text(location: str) -> str | None:
    try:
        parts = urlsplit(location)
        port = parts.port
    except ValueError:
        return None
    host = (parts.hostname or "").lower()
    path = unquote(parts.path) or "/"
    if not parts.scheme or not _HOST.fullmatch(host) or _dotted(path) or not path.startswith("/"):
        return None
    host = f"[{host}]" if ":" in host else host
    netloc = host if port is None else f"{host}:{port}"
    query = f"?{parts.query}" if parts.query else ""
    return f"{parts.scheme.lower()}://{netloc}{path}{query}"


def _dotted(path: str) -> bool:
    """Whether ``path`` has a ``.`` or ``..`` segment (``\\`` counted as a separator too)."""
    return any(part in (".", "..") for part in re.split(r"[/\\]", unquote(path)))


@lru_cache(maxsize=256)
def _compiled(pattern: str) -> re.Pattern[str]:
    return re.compile(_translate(pattern), re.DOTALL)


def _translate(pattern: str) -> str:
    """The regular expression of a glob pattern (the syntax in the module's docstring)."""
    out: list[str] = []
    i, n = 0, len(pattern)
    while i < n:
        char = pattern[i]
        i += 1
        if char == "*":
            if i < n and pattern[i] == "*":
                while i < n and pattern[i] == "*":
                    i += 1
                out.append(".*")
            else:
                out.append("[^/]*")
        elif char == "?":
            out.append("[^/]")
        elif char == "[":
            end, members = _char_class(pattern, i)
            if end < 0:
                out.append(re.escape(char))
            else:
                out.append(members)
                i = end
        else:
            out.append(re.escape(char))
    return "".join(out)


def _char_class(pattern: str, start: int) -> tuple[int, str]:
    """The ``[...]`` set starting after the ``[`` at ``start - 1``: where it ends (past its
    ``]``; -1 when it does not close) and its regular expression, which never matches ``/``."""
    i = start
    negate = i < len(pattern) and pattern[i] == "!"
    if negate:
        i += 1
    if i < len(pattern) and pattern[i] == "]":
        i += 1
    close = pattern.find("]", i)
    if close < 0:
        return -1, ""
    body = pattern[start + negate : close]
    escaped = "".join("\\" + c if c in "\\^[]" else c for c in body)
    return close + 1, f"(?!/)[{'^' if negate else ''}{escaped}]"
