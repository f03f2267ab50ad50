"""CLAUDE.md the way Claude Code (2.1.197) loads it, checked against ``claude-oracle``.

Order of the files the model gets:

1. The managed policy (``/etc/claude-code`` on Linux): its ``CLAUDE.md``, the ``claudeMd`` text
   of its managed settings, then its ``.claude/rules/**/*.md``.
2. ``~/.claude/CLAUDE.md`` then ``~/.claude/rules/**/*.md`` (user scope; ``$CLAUDE_CONFIG_DIR``
   moves the folder).
3. For every folder from the filesystem root down to the canonical cwd: ``CLAUDE.md``,
   ``.claude/CLAUDE.md``, ``.claude/rules/**/*.md``, then ``CLAUDE.local.md``.

Files that ``claudeMdExcludes`` names in the settings are left out (:mod:`.claude_excludes`);
``CLAUDE_CODE_DISABLE_CLAUDE_MDS`` (1, true, yes or on) leaves out every one.

Rules files are taken in directory order (as Claude Code does), sub-folders where they occur,
each by its real path (:mod:`.rule_walk`); a rule whose front matter ``paths`` names globs other
than ``**`` applies only to matching files and is left out here (:mod:`.claude_rules`:
``paths: "**"``, ``[]`` or ``true`` load it). Front matter and the HTML comment blocks outside
list items and blockquotes are removed and the text trimmed; a blank file is left out. Each file
is followed by its ``@path`` imports (read from the text before the trim), depth first, up to
depth 4 (the importing chain may be five files long); a file already included is never included
again, which also stops cycles. Imports from project files may not leave the cwd (Claude Code
asks first) unless the user approved that for the project (``~/.claude.json``); imports from
user files may go anywhere. An import carries its importer's scope.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from skillshelf.diagnostics import Diagnostic, Severity
from skillshelf.env import Env, find_project_root
from skillshelf.gitrepo import git_root, main_checkout
from skillshelf.instructions.claude_excludes import ClaudeMdExcludes
from skillshelf.instructions.files import (
    invalid_utf8_diagnostic,
    is_regular_file,
    read_bounded,
    usable_file,
)
from skillshelf.instructions.imports import (
    clean_text,
    extract_imports,
    missing_import,
    resolve_import,
    strip_front_matter,
    unfollowed_import,
)
from skillshelf.instructions.model import InstructionLayer, Instructions, InstructionScope, LayerKind
from skillshelf.instructions.rule_walk import rule_files
from skillshelf.skills.claude_settings import (
    claude_flag,
    claude_project_key,
    claude_state_file,
    claude_user_dir,
    every_layer,
    managed_settings,
    read_json,
)

__all__ = ["MAX_IMPORT_DEPTH", "load_claude_md", "render_claude_md"]

#: What JavaScript's ``String.prototype.trim`` removes (Claude Code trims every file).
JS_WHITE_SPACE = (
    "\t\n\x0b\x0c\r \xa0\ufeff\u1680"
    + "".join(map(chr, range(0x2000, 0x200B)))
    + "\u2028\u2029\u202f\u205f\u3000"
)
_WORKTREE_REASON = "the main checkout's copy, above this worktree: Claude Code reads the worktree's own"
_DISABLED = Diagnostic(
    code="IN115",
    severity=Severity.INFO,
    message="CLAUDE_CODE_DISABLE_CLAUDE_MDS is set, so Claude Code reads no CLAUDE.md file",
    fix="unset CLAUDE_CODE_DISABLE_CLAUDE_MDS for Claude Code to read them",
)
MAX_IMPORT_DEPTH = 5
HEADER = "# claudeMd"
INTRO = (
    "These instruction files come from the user and from the project being worked on. They take "
    "precedence over default behaviour: follow them as written."
)
LABELS = {
    InstructionScope.MANAGED: "organisation policy for every project",
    InstructionScope.USER: "user instructions for every project",
    InstructionScope.PROJECT: "project instructions, shared with the repository",
    InstructionScope.FOLDER: "project instructions, shared with the repository",
    InstructionScope.LOCAL: "private project instructions, not in the repository",
}


@dataclass(slots=True, kw_only=True)
class _Walk:
    """Mutable state of one load (local to :func:`load_claude_md`)."""

    cwd: Path
    home: Path
    excludes: ClaudeMdExcludes = field(default_factory=ClaudeMdExcludes)
    layers: list[InstructionLayer] = field(default_factory=list)
    diags: list[Diagnostic] = field(default_factory=list)
    seen: set[str] = field(default_factory=set)

    def add_file(
        self,
        path: Path,
        scope: InstructionScope,
        kind: LayerKind,
        *,
        external_ok: bool,
        depth: int = 0,
        importer: Path | None = None,
        rule: bool = False,
    ) -> None:
        key = _key(path)
        if key in self.seen or depth >= MAX_IMPORT_DEPTH:
            return
        if scope is not InstructionScope.MANAGED and self.excludes.excludes(path):
            size = _size(path)
            self._skip(path, scope, kind, size, "named by claudeMdExcludes in the settings", importer, depth)
            return
        self.seen.add(key)
        result = read_bounded(path)
        if result.diagnostic:
            self.diags.append(result.diagnostic)
        if result.invalid_utf8:
            self.diags.append(invalid_utf8_diagnostic(path))
        body, _ = strip_front_matter(result.text)
        if rule and self._conditional(result.text, path):
            self._skip(
                path, scope, kind, result.size, "conditional rule (front matter `paths`)", importer, depth
            )
            return
        text = clean_text(body).strip(JS_WHITE_SPACE)
        if not text:
            self._skip(path, scope, kind, result.size, "blank", importer, depth)
            return
        self.layers.append(
            InstructionLayer(
                path=path,
                scope=scope,
                kind=kind,
                text=text,
                size=result.size,
                bytes_cut=result.size - result.data_len,
                imported_from=importer,
                depth=depth,
            )
        )
        for raw in extract_imports(body):  # read before the trim, as Claude Code lexes it
            self._add_import(raw, path, scope, external_ok=external_ok, depth=depth + 1)

    def skip_file(self, path: Path, scope: InstructionScope, kind: LayerKind, reason: str) -> None:
        """A file found and left out before it is read."""
        self._skip(path, scope, kind, _size(path), reason, None, 0)

    def add_policy_text(self, path: Path, text: str) -> None:
        """The ``claudeMd`` of the managed settings in ``path``: a layer of its own, read as is."""
        stripped = text.strip(JS_WHITE_SPACE)
        if stripped:
            size = len(text.encode("utf-8", "surrogatepass"))
            self.layers.append(
                InstructionLayer(
                    path=path, scope=InstructionScope.MANAGED, kind=LayerKind.POLICY, text=stripped, size=size
                )
            )

    def _conditional(self, text: str, path: Path) -> bool:
        """Whether a rule applies only to the files its front matter ``paths`` match
        (:mod:`.claude_rules`); front matter that is not YAML is noted (IN114)."""
        from skillshelf.instructions.claude_rules import rule_paths  # YAML only for rules

        paths = rule_paths(text)
        if paths.yaml_problem is not None:
            self.diags.append(
                _import_diag(
                    "IN114",
                    f"the rule's front matter is not valid YAML ({paths.yaml_problem}); "
                    "it is read as always on",
                    path,
                    "fix the front matter (paths: a list of globs) or remove it",
                )
            )
        return paths.conditional

    def _add_import(
        self, raw: str, importer: Path, scope: InstructionScope, *, external_ok: bool, depth: int
    ) -> None:
        target = resolve_import(raw, importer=importer, home=self.home)
        unfollowed = unfollowed_import(raw, target, importer)
        if unfollowed is not None:
            self.diags.append(unfollowed)
            return
        if not is_regular_file(target):
            if _key(target) not in self.seen:
                self.diags.append(missing_import(raw, importer))
            return
        if not external_ok and not _inside(target, self.cwd):
            self.diags.append(
                _import_diag(
                    "IN112",
                    f"import @{raw} leaves the working folder, so it is not loaded",
                    importer,
                    "move the file under the working folder or import it from ~/.claude/CLAUDE.md",
                    Severity.INFO,
                )
            )
            return
        if depth >= MAX_IMPORT_DEPTH and _key(target) not in self.seen:
            self.diags.append(
                _import_diag(
                    "IN113",
                    f"import @{raw} is nested more than {MAX_IMPORT_DEPTH - 1} levels deep; not loaded",
                    importer,
                    "import the file from a shallower file",
                    Severity.WARNING,
                )
            )
            return
        self.add_file(
            target, scope, LayerKind.IMPORT, external_ok=external_ok, depth=depth, importer=importer
        )

    def _skip(
        self,
        path: Path,
        scope: InstructionScope,
        kind: LayerKind,
        size: int,
        reason: str,
        importer: Path | None,
        depth: int,
    ) -> None:
        self.layers.append(
            InstructionLayer.left_out(
                path, scope, kind, size=size, reason=reason, imported_from=importer, depth=depth
            )
        )


def _import_diag(
    code: str, message: str, path: Path, fix: str, severity: Severity = Severity.WARNING
) -> Diagnostic:
    return Diagnostic(code=code, severity=severity, message=message, fix=fix, path=path)


def _key(path: Path) -> str:
    try:
        return os.path.realpath(path)
    except (OSError, ValueError):
        return str(path)


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except (OSError, ValueError):
        return 0


def _inside(path: Path, folder: Path) -> bool:
    return Path(_key(path)).is_relative_to(folder) or path.is_relative_to(folder)


def _rule_files(folder: Path, walk: _Walk) -> tuple[Path, ...]:
    """``*.md`` under ``folder`` as Claude Code walks it (:mod:`.rule_walk`); IN119 when the
    walk's bound is hit."""
    found = rule_files(folder)
    walk.diags += found.diagnostics
    return found.files


def _folders_from_top(cwd: Path) -> list[Path]:
    return [*reversed(cwd.parents), cwd]


def load_claude_md(env: Env) -> Instructions:
    """Claude Code's CLAUDE.md files for ``env.cwd``, in the order the model reads them."""
    cwd = Path(_key(env.cwd))
    if claude_flag(env.environ, "CLAUDE_CODE_DISABLE_CLAUDE_MDS"):
        return Instructions(profile="claude", cwd=cwd, layers=(), text="", diagnostics=(_DISABLED,))
    excludes = ClaudeMdExcludes.from_layers(every_layer(env))
    walk = _Walk(cwd=cwd, home=env.home, excludes=excludes)
    walk.diags += [_excludes_diag(problem) for problem in excludes.problems]
    approved = _external_imports_approved(env, cwd)
    _add_managed(walk, env.claude_managed_dir, approved)
    user_dir = claude_user_dir(env)
    # usable_file notes why a CLAUDE.md that is there (a folder, a broken link) is not read.
    if usable_file(user_dir / "CLAUDE.md", walk.diags):
        walk.add_file(user_dir / "CLAUDE.md", InstructionScope.USER, LayerKind.CLAUDE, external_ok=True)
    for rule in _rule_files(user_dir / "rules", walk):
        walk.add_file(rule, InstructionScope.USER, LayerKind.RULE, external_ok=True, rule=True)
    root = find_project_root(cwd, env.project_root_markers)
    main_only = _main_checkout_folders(cwd)
    for folder in _folders_from_top(cwd):
        scope = (
            InstructionScope.FOLDER
            if folder.is_relative_to(root) and folder != root
            else InstructionScope.PROJECT
        )
        shared = [
            p for p in (folder / "CLAUDE.md", folder / ".claude" / "CLAUDE.md") if usable_file(p, walk.diags)
        ]
        rules = _rule_files(folder / ".claude" / "rules", walk)
        kinds = [(path, LayerKind.CLAUDE) for path in shared] + [(path, LayerKind.RULE) for path in rules]
        for path, kind in kinds:
            if folder in main_only:
                walk.skip_file(path, scope, kind, _WORKTREE_REASON)
            else:
                walk.add_file(path, scope, kind, external_ok=approved, rule=kind is LayerKind.RULE)
        local = folder / "CLAUDE.local.md"
        if usable_file(local, walk.diags):
            walk.add_file(local, InstructionScope.LOCAL, LayerKind.CLAUDE_LOCAL, external_ok=approved)
    layers = tuple(walk.layers)
    return Instructions(
        profile="claude", cwd=cwd, layers=layers, text=render_claude_md(layers), diagnostics=tuple(walk.diags)
    )


def _main_checkout_folders(cwd: Path) -> set[Path]:
    """The folders of the main checkout above a worktree nested in it (Claude Code's own are in
    ``.claude/worktrees``): their shared files are the worktree's own in an older version, so
    Claude Code reads only the worktree's (``CLAUDE.local.md`` is read everywhere)."""
    root = git_root(cwd)
    main = main_checkout(root) if root is not None else None
    if root is None or main is None or main == root or not root.is_relative_to(main):
        return set()
    return {
        folder
        for folder in _folders_from_top(cwd)
        if folder.is_relative_to(main) and not folder.is_relative_to(root)
    }


def _excludes_diag(problem: str) -> Diagnostic:
    return Diagnostic(
        code="IN116",
        severity=Severity.WARNING,
        message=f"a claudeMdExcludes pattern cannot be used, so it leaves out nothing: {problem}",
        fix="write the pattern with fewer {a,b} alternatives, or name the files one by one",
    )


def _add_managed(walk: _Walk, managed: Path, approved: bool) -> None:
    """The managed policy's CLAUDE.md, its settings' ``claudeMd`` text and its rules."""
    if usable_file(managed / "CLAUDE.md", walk.diags):
        walk.add_file(managed / "CLAUDE.md", InstructionScope.MANAGED, LayerKind.CLAUDE, external_ok=approved)
    text = managed_settings(managed).get("claudeMd")
    if isinstance(text, str):
        walk.add_policy_text(managed / "managed-settings.json", text)
    for rule in _rule_files(managed / ".claude" / "rules", walk):
        walk.add_file(rule, InstructionScope.MANAGED, LayerKind.RULE, external_ok=approved, rule=True)


def _external_imports_approved(env: Env, cwd: Path) -> bool:
    """Whether the user let Claude Code load this project's imports from outside the cwd: the
    ``hasClaudeMdExternalIncludesApproved`` of its ``~/.claude.json`` entry, which is keyed by
    the repository root (a worktree's main checkout), else by the cwd."""
    projects = read_json(claude_state_file(env)).get("projects")
    entry = projects.get(claude_project_key(cwd)) if isinstance(projects, dict) else None
    return isinstance(entry, dict) and entry.get("hasClaudeMdExternalIncludesApproved") is True


def render_claude_md(layers: tuple[InstructionLayer, ...]) -> str:
    """One section per included file: ``Contents of PATH (LABEL):`` then the text."""
    sections = [
        f"Contents of {layer.path} ({LABELS[layer.scope]}):\n\n{layer.text}"
        for layer in layers
        if layer.included
    ]
    if not sections:
        return ""
    return f"{HEADER}\n{INTRO}\n\n" + "\n\n".join(sections)
