"""What a layer may not do, and what skillshelf does when it cannot know what a layer wants.

* A project or ``-c`` layer cannot trust a project (``[projects]``, ``CF107``); a project layer
  cannot move its own root (``project_root_markers``, ``CF116``) nor switch project config off
  (``requirements.allow_project_config``, ``CF120``: it is read from the system, user and ``-c``
  layers before any project layer, so in a project layer it could only look set). Each is
  removed from the layer with a warning.
* A system layer whose file is there but cannot be read or parsed may hold the administrator's
  ``[requirements]``: skills are withheld until it is fixed (:func:`withheld_skills`, ``CF118``),
  for every consumer of a :class:`~skillshelf.workspace.Workspace` (``catalog``, ``context``,
  the hooks, the MCP server, the agent); instructions are not skills and still load.
* The system folder moved by ``SKILLSHELF_SYSTEM_CONFIG_DIR`` is said (:func:`moved_system`,
  ``CF121``, an info that ``config show`` prints; the test suites set the variable everywhere,
  so other commands leave it out).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from skillshelf.config.layers import ConfigLayer, LayerKind
from skillshelf.diagnostics import Diagnostic, Severity

__all__ = [
    "SYSTEM_DIR_VARIABLE",
    "drop_project_requirements",
    "drop_projects",
    "drop_root_markers",
    "moved_system",
    "withheld_skills",
]

#: The environment variable that points the system config folder elsewhere (tests, containers).
SYSTEM_DIR_VARIABLE = "SKILLSHELF_SYSTEM_CONFIG_DIR"


def drop_projects(layer: ConfigLayer) -> tuple[ConfigLayer, list[Diagnostic]]:
    """Project and runtime layers cannot set trust: report and remove their ``[projects]``."""
    return _dropped(
        layer,
        ("projects",),
        "CF107",
        f"`projects` (trust) in the {layer.kind.label} layer is ignored: "
        "only the user layer can trust a project",
        "remove the [projects] table here and run `skillshelf trust DIR` instead",
    )


def drop_root_markers(layer: ConfigLayer) -> tuple[ConfigLayer, list[Diagnostic]]:
    """A project layer cannot move the root it was found from: report and remove its
    ``project_root_markers``."""
    return _dropped(
        layer,
        ("project_root_markers",),
        "CF116",
        "`project_root_markers` in the project layer is ignored: a project cannot move its own root",
        "remove it here and set project_root_markers in the user config (or pass "
        "-c project_root_markers=[...] for one run)",
    )


def drop_project_requirements(layer: ConfigLayer) -> tuple[ConfigLayer, list[Diagnostic]]:
    """A project layer cannot switch project config off (it is decided before any project layer
    is read): report and remove its ``requirements.allow_project_config``."""
    return _dropped(
        layer,
        ("requirements", "allow_project_config"),
        "CF120",
        "`requirements.allow_project_config` in the project layer is ignored: whether project "
        "config is allowed is decided by the system, user and -c layers, before any project layer",
        "remove it here; to turn project config off, set requirements.allow_project_config = false "
        "in the user config (or ask whoever manages the system config)",
    )


def _dropped(
    layer: ConfigLayer, key: tuple[str, ...], code: str, message: str, fix: str
) -> tuple[ConfigLayer, list[Diagnostic]]:
    """``layer`` without ``key`` (a top-level key, or one inside a top-level table, which goes too
    once it is empty), and the warning that says so (none without it)."""
    values = dict(layer.values)
    table: dict[str, object] = values
    if len(key) == 2:
        inner = values.get(key[0])
        if not isinstance(inner, dict):
            return layer, []
        table = dict(inner)
        values[key[0]] = table
    if key[-1] not in table:
        return layer, []
    del table[key[-1]]
    if len(key) == 2 and not table:
        del values[key[0]]
    diag = Diagnostic(
        code=code,
        severity=Severity.WARNING,
        message=message,
        fix=fix,
        path=layer.path,
        line=_first_line(layer, key),
        field=".".join(key),
    )
    return dataclasses.replace(layer, values=values), [diag]


def _first_line(layer: ConfigLayer, key: tuple[str, ...]) -> int | None:
    """The first line that writes ``key``: ``key = ...``, its table or a header below it
    (``[projects."/src/app"]``) or a dotted key (``projects."/x".trust_level = ...``); for a key
    inside a table, the table's line when the key's own is not known (an inline table)."""
    found = [line for path, line in layer.lines.items() if path[: len(key)] == key]
    return min(found, default=None) if found or len(key) == 1 else _first_line(layer, key[:1])


def withheld_skills(system: ConfigLayer) -> Diagnostic | None:
    """``CF118`` when the system layer's file is there but cannot be read or parsed: the
    administrator's requirements in it cannot be applied, so no skill is shown or suggested."""
    if system.kind is not LayerKind.SYSTEM or not system.exists or system.loaded:
        return None
    problem = system.diagnostics[0] if system.diagnostics else None
    why = f" ({problem.code}: {problem.message})" if problem is not None else ""
    line = f" (line {problem.line})" if problem is not None and problem.line else ""
    return Diagnostic(
        code="CF118",
        severity=Severity.ERROR,
        message=f"the system config {system.path} cannot be read or does not parse{why}, so its "
        "requirements cannot be applied; skills are withheld until it is fixed",
        fix=f"ask whoever manages {system.path} to fix it{line}"
        + (f": {problem.fix}" if problem is not None and problem.fix else "")
        + "; AGENTS.md and CLAUDE.md instructions still load",
        path=system.path,
        line=problem.line if problem is not None else None,
    )


def moved_system(used: Path, default: Path, variable: str | None) -> Diagnostic | None:
    """``CF121`` (info) when ``variable`` moved the system config folder from ``default`` to
    ``used``: the administrator's requirements in ``default`` are not read then."""
    if variable is None or used == default:
        return None
    return Diagnostic(
        code="CF121",
        severity=Severity.INFO,
        message=f"the system config is read from {used / 'config.toml'}, not "
        f"{default / 'config.toml'}: ${variable} points the system layer there, so the "
        "requirements in the usual file do not apply",
        fix=f"unset {variable} to read {default / 'config.toml'} (it is meant for tests and "
        "containers that keep their system config elsewhere)",
        path=used / "config.toml",
    )
