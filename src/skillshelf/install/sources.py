"""Where a skill comes from: a local folder, a git URL (``#subdir``, ``@ref``), an archive.

:func:`parse_source` turns what the user typed into a :class:`Source` (pure apart from
checking which local paths exist); :func:`fetch_whole` puts the source's files in a work folder
the installer owns and says which commit that was, and :func:`narrow` applies its ``#subdir``.
Git runs through the ``git`` command line.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path, PurePosixPath
from typing import Literal
from urllib.parse import urlsplit

from skillshelf.errors import InstallError
from skillshelf.fileio import resolve_path
from skillshelf.install.archive import ARCHIVE_SUFFIXES, archive_suffix, extract_archive, single_top
from skillshelf.install.download import download
from skillshelf.install.git import GitRunner, ProgressFn, git_url
from skillshelf.install.url_secrets import scrubbed, without_secrets

__all__ = [
    "ARCHIVE_SUFFIXES",
    "Fetched",
    "ProgressFn",
    "Source",
    "SourceKind",
    "fetch_whole",
    "local_place",
    "narrow",
    "parse_source",
    "recorded_source",
    "secret_out_of_errors",
]

SourceKind = Literal["folder", "git", "archive"]
_SCHEMES = ("file://", "http://", "https://", "ssh://", "git://", "git+ssh://", "git+https://")
_SCP_LIKE = re.compile(r"^[\w.+-]+@[\w.-]+:(?!//)")
_ARCHIVE_KINDS = f"a zip or tar archive ({', '.join(ARCHIVE_SUFFIXES)})"
_SOURCE_HINT = (
    f"give a skill folder, {_ARCHIVE_KINDS}, or a git URL such as file:///path/repo.git#skills/x@v1"
)


@dataclass(frozen=True, slots=True, kw_only=True)
class Source:
    """A parsed install source. ``location`` is an absolute path or a URL, never with a secret
    in it; ``secret_location`` is the URL as typed when that held one (a token in the user
    part or the query: :mod:`skillshelf.install.url_secrets`), used to fetch and nothing else."""

    kind: SourceKind
    location: str
    subdir: str | None = None
    ref: str | None = None
    secret_location: str | None = field(default=None, compare=False, repr=False)
    #: Read from a web page's URL, where the ref ends at the first slash only by guess (a branch
    #: such as ``feature/x`` goes on into ``subdir``): :mod:`.page_refs` settles it.
    page_ref: bool = field(default=False, compare=False, repr=False)

    @property
    def fetch_location(self) -> str:
        """Where the files are fetched from (with the secret, if one was typed)."""
        return self.secret_location or self.location

    @property
    def text(self) -> str:
        """The canonical spelling, which ``parse_source`` reads back to the same value."""
        ref = f"@{self.ref}" if self.ref else ""
        sub = f"#{self.subdir}" if self.subdir else ""
        return f"{self.location}{ref}{sub}"


@dataclass(frozen=True, slots=True, kw_only=True)
class Fetched:
    """The files of a source, ready to copy: ``folder`` is the skill folder (subdir applied)."""

    folder: Path
    commit: str | None = None


def recorded_source(kind: str, location: str, subdir: str | None, ref: str | None) -> Source:
    """A source as a lock file records it (a kind this version does not know read as a folder);
    a URL an older version recorded with its user part or token is fetched with it and is
    recorded again without it (``IS130``)."""
    known: SourceKind = kind if kind in ("git", "archive") else "folder"  # type: ignore[assignment]
    place = git_url(location) if known == "git" else location
    return _secret_kept_apart(Source(kind=known, location=place, subdir=subdir, ref=ref))


def local_place(location: str) -> Path | None:
    """Where a recorded source's location is on this machine's disk (a path or a ``file:`` URL);
    None for a remote one (a URL of another scheme, or git's ``user@host:path``)."""
    if location.lower().startswith("file:"):
        from urllib.request import url2pathname  # loads http.client: only when it is needed

        return Path(url2pathname(urlsplit(location).path))
    if "://" in location or _SCP_LIKE.match(location):
        return None
    return Path(location)


def _clean_subdir(raw: str, *, literal: bool = False) -> str | None:
    """``#subdir`` as a relative path; spaces around it dropped unless ``literal`` (a local folder's)."""
    text = (raw if literal else raw.strip()).strip("/")
    if not text:
        return None
    parts = PurePosixPath(text.replace("\\", "/")).parts
    if raw.startswith("/") or ".." in parts or any(":" in p for p in parts[:1]):
        raise InstallError(
            f"subfolder {raw!r} must be a relative path inside the source",
            hint="write the folder as it appears in the repository, e.g. #skills/pdf",
            code="IS102",
        )
    return "/".join(p for p in parts if p != ".")


def _path_start(url: str) -> int:
    """Index where the repository path starts (so '@' in 'user@host' is not taken as a ref)."""
    if "://" in url:
        slash = url.find("/", url.index("://") + 3)
        return len(url) if slash < 0 else slash
    match = _SCP_LIKE.match(url)
    return match.end() if match else 0


def _split_ref(url: str) -> tuple[str, str | None]:
    at = url.rfind("@", _path_start(url))
    if at < 0:
        return url, None
    ref = url[at + 1 :].strip()
    return url[:at], ref or None


def _looks_like_git(text: str) -> bool:
    return text.startswith(_SCHEMES) or bool(_SCP_LIKE.match(text)) or text.removesuffix("/").endswith(".git")


def _local(text: str, cwd: Path) -> Path:
    path = Path(text).expanduser()
    return path if path.is_absolute() else cwd / path


def _local_source(path: Path, subdir: str | None, ref: str | None) -> Source | None:
    if path.is_dir():
        if ref is not None:
            if not (path / ".git").exists():
                raise InstallError(
                    f"{path} is not a git repository, so @{ref} cannot be checked out",
                    hint="drop the @ref, or point at a git repository",
                    code="IS101",
                )
            return Source(kind="git", location=path.resolve().as_uri(), subdir=subdir, ref=ref)
        return Source(kind="folder", location=str(path.resolve()), subdir=subdir)
    if path.is_file() and archive_suffix(path.name) is not None:
        return Source(kind="archive", location=str(path.resolve()), subdir=subdir)
    if path.is_file() and path.name == "SKILL.md" and subdir is None:
        return Source(kind="folder", location=str(path.parent.resolve()))
    if path.exists():
        raise InstallError(
            f"{path} is neither a folder nor {_ARCHIVE_KINDS}", hint=_SOURCE_HINT, code="IS101"
        )
    return None


def _expand_github(text: str) -> str:
    """``gh:owner/repo...`` / ``github:owner/repo...`` -> ``https://github.com/owner/repo.git...``."""
    for prefix in ("gh:", "github:"):
        if text.lower().startswith(prefix):
            rest = text[len(prefix) :]
            match = re.match(r"^([\w.-]+)/([\w.-]+?)(?:\.git)?(?=$|[@#])", rest)
            if match is None:
                raise InstallError(
                    f"{text!r} is not owner/repo", hint="write gh:owner/repo[@ref][#subdir]", code="IS101"
                )
            return f"https://github.com/{match.group(1)}/{match.group(2)}.git{rest[match.end() :]}"
    return text


# A folder's page in the browser: github.com/OWNER/REPO/tree|blob/REF[/PATH] and GitLab's
# HOST/GROUP/.../REPO/-/tree|blob/REF[/PATH]. The ref is the first segment after tree/blob, as
# the page URL cannot show where a branch name with a slash ends (write URL@ref#subdir for one).
_WEB_PAGE = (
    re.compile(r"^(https://github\.com/[\w.-]+/[\w.-]+?)(?:\.git)?/(tree|blob)/([^/?#]+)/?([^?#]*)"),
    re.compile(r"^(https://[^/?#]+/[^?#]+?)(?:\.git)?/-/(tree|blob)/([^/?#]+)/?([^?#]*)"),
)


def _expand_web_page(text: str) -> str:
    """A repository folder's web page (as copied from the browser) -> ``URL.git@ref#subdir``."""
    from urllib.parse import unquote

    for pattern in _WEB_PAGE:
        match = pattern.match(text)
        if match is None:
            continue
        repo, kind, ref, path = match.groups()
        parts = [unquote(p) for p in path.split("/") if p]
        if kind == "blob":  # a file's page: its folder
            parts = parts[:-1]
        sub = f"#{'/'.join(parts)}" if parts else ""
        return f"{repo}.git@{unquote(ref)}{sub}"
    return text


def parse_source(text: str, *, cwd: Path) -> Source:
    """Read ``SOURCE`` as typed on the command line.

    ``URL[@ref][#subdir]`` (``#subdir@ref`` works too) for git; a local folder or archive,
    relative to ``cwd``, optionally with ``#subdir``. ``gh:owner/repo`` is short for the GitHub
    URL, and a folder's (or file's) page on GitHub or GitLab is read as the repository at that
    ref and folder; pip's ``git+https://`` is git's ``https://`` (:func:`~.git.git_url`).
    ``path@ref`` of a local git repository clones it at that ref. An existing path is always
    taken literally first.
    """
    if text != text.strip():  # a pasted command keeps its spaces, a folder's name may end in one
        found = _literal_local(text, cwd)
        if found is not None:
            return found
    short = _expand_github(text.strip())
    raw = git_url(_expand_web_page(short))
    if not raw:
        raise InstallError("empty install source", hint=_SOURCE_HINT, code="IS101")
    is_url = raw.startswith(_SCHEMES) or bool(_SCP_LIKE.match(raw))
    if not is_url and _local(raw, cwd).exists():
        found = _local_source(_local(raw, cwd), None, None)
        if found is not None:
            return found
    base, _, fragment = raw.partition("#")
    frag_ref: str | None = None
    if "@" in fragment:
        fragment, _, tail = fragment.rpartition("@")
        frag_ref = tail.strip() or None
    subdir = _clean_subdir(fragment)
    if base.lower().startswith(("http://", "https://")) and _url_suffix(base) is not None:
        return _secret_kept_apart(Source(kind="archive", location=base, subdir=subdir))
    location, ref = _split_ref(base)
    if frag_ref is not None:
        if ref is not None:
            raise InstallError(
                f"{text!r} names two refs", hint="give the ref once: URL@ref#subdir", code="IS101"
            )
        ref = frag_ref
    if not is_url:
        for candidate, candidate_ref in ((base, frag_ref), (location, ref)):
            found = _local_source(_local(candidate, cwd), subdir, candidate_ref)
            if found is not None:
                return found
    if _looks_like_git(location):
        page = raw != short and subdir is not None
        found = Source(kind="git", location=location.rstrip("/"), subdir=subdir, ref=ref, page_ref=page)
        return _secret_kept_apart(found)
    raise InstallError(
        f"cannot find {text!r}: no such folder or archive, and not a git URL", hint=_SOURCE_HINT, code="IS101"
    )


def _literal_local(text: str, cwd: Path) -> Source | None:
    """``text`` exactly as given, when it names a local path (``tool ``), or a local folder and a
    subfolder in it (``src#tool ``); None when it names nothing on disk."""
    if text.startswith(_SCHEMES) or _SCP_LIKE.match(text):
        return None
    whole = _local(text, cwd)
    if whole.exists():
        return _local_source(whole, None, None)
    base, hash_sign, fragment = text.partition("#")
    folder = _local(base, cwd) if base and hash_sign and "@" not in fragment else None
    subdir = _clean_subdir(fragment, literal=True) if folder is not None and folder.is_dir() else None
    if folder is None or subdir is None or not folder.joinpath(*subdir.split("/")).is_dir():
        return None
    return _local_source(folder, subdir, None)


def _secret_kept_apart(source: Source) -> Source:
    safe = without_secrets(source.location)
    if safe == source.location:
        return source
    return replace(source, location=safe, secret_location=source.location)


_SUBDIR_LINK = {"hint": "point #subdir at a real folder inside the source", "code": "IS102"}


def _within(base: Path, subdir: str | None, source: Source) -> Path:
    if not subdir:
        return base
    folder = base.joinpath(*subdir.split("/"))
    try:
        real_base, real = resolve_path(base), resolve_path(folder)
    except OSError:
        raise InstallError(f"#{subdir} of {source.location} is a loop of symlinks", **_SUBDIR_LINK) from None
    if real != real_base and real_base not in real.parents:
        raise InstallError(f"#{subdir} leaves {source.location} through a symlink", **_SUBDIR_LINK)
    if not folder.is_dir():
        raise InstallError(
            f"{source.location} has no folder {subdir!r}",
            hint="check the #subdir part: it is a path inside the repository or archive",
            code="IS103",
        )
    return folder


def _archive_root(unpacked: Path, subdir: str | None) -> Path:
    """Where ``#subdir`` starts in an unpacked archive: its root, or the one top folder a
    release archive wraps everything in (GitHub's ``repo-1.0/``) when ``subdir`` is only there."""
    parts = subdir.split("/") if subdir else []
    if not parts or unpacked.joinpath(*parts).exists():
        return unpacked
    top = single_top(unpacked)
    return top if top is not None and top.joinpath(*parts).is_dir() else unpacked


def _url_suffix(url: str) -> str | None:
    """The archive suffix of ``url``'s path (a signed download's ``?query`` left aside)."""
    return archive_suffix(urlsplit(url).path)


def _download(url: str, dest: Path, progress: ProgressFn | None) -> Path:
    """Download ``url`` into ``dest``, named with its archive suffix (the reader goes by it)."""
    return download(url, dest / f"download{_url_suffix(url) or '.zip'}", progress)


def fetch_whole(
    source: Source,
    workdir: Path,
    *,
    git: GitRunner,
    progress: ProgressFn | None = None,
    timeout: float = 600.0,
) -> Fetched:
    """The whole of ``source`` (its ``#subdir`` not applied yet: see :func:`narrow`) under
    ``workdir``: a local folder as it is, an archive unpacked, a repository cloned."""
    if source.kind == "folder":
        base = Path(source.location)
        if not base.is_dir():
            raise InstallError(f"{base} does not exist any more", hint=_SOURCE_HINT, code="IS103")
        return Fetched(folder=base)
    if source.kind == "archive":
        archive = Path(source.location)
        if source.location.lower().startswith(("http://", "https://")):
            with secret_out_of_errors(source):
                archive = _download(source.fetch_location, workdir, progress)
        elif not archive.is_file():
            raise InstallError(f"{archive} does not exist any more", hint=_SOURCE_HINT, code="IS103")
        if progress is not None:
            progress("Unpacking", None)
        extract_archive(archive, workdir / "archive")
        return Fetched(folder=workdir / "archive")
    repo = workdir / "repo"
    with secret_out_of_errors(source):
        commit = git.clone(source.fetch_location, repo, ref=source.ref, progress=progress, timeout=timeout)
    return Fetched(folder=repo, commit=commit)


@contextlib.contextmanager
def secret_out_of_errors(source: Source) -> Iterator[None]:
    """An error quoting the URL as typed quotes it without its secret."""
    try:
        yield
    except InstallError as exc:
        if source.secret_location is None:
            raise
        message = scrubbed(exc.message, source.secret_location)
        raise InstallError(message, hint=exc.hint, code=exc.code) from None


def narrow(whole: Fetched, source: Source) -> Fetched:
    """``whole`` (from :func:`fetch_whole`) narrowed to the source's ``#subdir``."""
    base = _archive_root(whole.folder, source.subdir) if source.kind == "archive" else whole.folder
    return Fetched(folder=_within(base, source.subdir, source), commit=whole.commit)
