"""The few settings of Codex's own ``$CODEX_HOME/config.toml`` that shape skills and the catalog.

Codex reads them, so skillshelf reads them too, to find the same roots and size the catalog the
same way: ``project_root_markers`` (which folders are projects), ``model``,
``model_context_window``, ``model_catalog_json`` and ``skills.max_context_tokens`` (the catalog
budget, see :mod:`skillshelf.skills.catalog.window`), ``[skills.bundled] enabled`` (``false``: no
system skills from ``$CODEX_HOME/skills/.system``) and ``skills.include_instructions``
(``false``: no skills list for the model at all), plus the model catalog a
``model_catalog_json`` setting points to. A trusted project's ``.codex/config.toml`` can set the
two ``skills`` switches too (:func:`skillshelf.skills.roots.codex_skill_switches`).

A missing file gives the defaults; an unreadable one gives the defaults and a diagnostic. So does
a ``[projects]`` table Codex 0.171 refuses to start with (:func:`projects_refusal`: ``projects``
not a table, an entry not a table, a ``trust_level`` other than ``"trusted"`` or
``"untrusted"``, letter for letter), whose entries then count as absent (SK231). The file is
parsed once per process while its size and mtime stay the same.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from skillshelf.diagnostics import Diagnostic, Severity
from skillshelf.env import Env
from skillshelf.errors import reason
from skillshelf.fileio import MAX_SETTINGS_BYTES, read_regular_text, read_toml_text
from skillshelf.skills.codex_layers import codex_config_folders, codex_project_layers

if TYPE_CHECKING:
    from skillshelf.skills.catalog.window import BudgetChoice, ModelInfo

__all__ = [
    "TRUST_LEVELS",
    "CodexSettings",
    "budget_refusals",
    "catalog_budget",
    "codex_settings_layers",
    "load_codex_toml",
    "projects_refusal",
    "read_codex_settings",
    "read_model_catalog",
    "valid_projects",
]

CONFIG_NAME = "config.toml"
#: The ``trust_level`` values Codex accepts.
TRUST_LEVELS = ("trusted", "untrusted")


@dataclass(frozen=True, slots=True, kw_only=True)
class CodexSettings:
    """What Codex's ``config.toml`` says about skills and the model (``None``: not set)."""

    path: Path | None = None
    project_root_markers: tuple[str, ...] | None = None
    model: str | None = None
    model_context_window: int | None = None
    model_catalog_json: Path | None = None
    skills_max_context_tokens: int | None = None
    bundled_skills: bool | None = None  # ``[skills.bundled] enabled``
    skills_instructions: bool | None = None  # ``skills.include_instructions``
    plugins: tuple[tuple[str, bool], ...] = ()  # ``[plugins."NAME@MARKETPLACE"]``: (id, enabled)
    trusted_projects: tuple[str, ...] = ()  # ``[projects."PATH"]`` set ``trust_level = "trusted"``
    untrusted_projects: tuple[str, ...] = ()  # ... and ``trust_level = "untrusted"``
    diagnostics: tuple[Diagnostic, ...] = ()


_CACHE: dict[str, tuple[tuple[int, int], CodexSettings]] = {}
T = TypeVar("T")


def read_codex_settings(codex_home: Path) -> CodexSettings:
    """The settings of ``codex_home/config.toml`` (the defaults when there is none)."""
    path = os.path.join(codex_home, CONFIG_NAME)
    try:
        st = os.stat(path)
    except OSError:
        return CodexSettings()
    signature = (st.st_size, st.st_mtime_ns)
    cached = _CACHE.get(path)
    if cached is not None and cached[0] == signature:
        return cached[1]
    settings = _parse(Path(path))
    _CACHE[path] = (signature, settings)
    return settings


def load_codex_toml(path: Path) -> tuple[dict[str, object], str | None]:
    """The table of Codex's ``config.toml`` at ``path``; ``({}, why)`` when it cannot be read."""
    import tomllib

    try:
        return tomllib.loads(read_toml_text(path)), None
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError, RecursionError) as exc:
        return {}, reason(exc)


def _parse(path: Path) -> CodexSettings:
    data, problem = load_codex_toml(path)
    if problem is not None:
        diag = Diagnostic(
            code="SK230",
            severity=Severity.WARNING,
            message=f"cannot read Codex's config ({problem}); its model and project settings are ignored",
            fix="fix the TOML syntax of Codex's config.toml",
            path=path,
        )
        return CodexSettings(path=path, diagnostics=(diag,))
    refusal = projects_refusal(data.get("projects"))
    projects = data.get("projects") if refusal is None else None
    skills = data.get("skills")
    skills = skills if isinstance(skills, dict) else {}
    bundled = skills.get("bundled")
    catalog = data.get("model_catalog_json")
    refused = tuple(_refused_value(path, key, why) for key, why in budget_refusals(data))
    return CodexSettings(
        path=path,
        project_root_markers=_strings(data.get("project_root_markers")),
        model=_text(data.get("model")),
        model_context_window=_whole(data.get("model_context_window"), -_I64, _I64),
        model_catalog_json=_path(catalog, path.parent) if isinstance(catalog, str) and catalog else None,
        skills_max_context_tokens=_whole(skills.get("max_context_tokens"), 1, _I64),
        bundled_skills=_flag(bundled.get("enabled")) if isinstance(bundled, dict) else None,
        skills_instructions=_flag(skills.get("include_instructions")),
        plugins=_plugin_states(data.get("plugins")),
        trusted_projects=_projects_at(projects, "trusted"),
        untrusted_projects=_projects_at(projects, "untrusted"),
        diagnostics=refused if refusal is None else (_refused_projects(path, refusal), *refused),
    )


_I64 = 2**63  # TOML integers are 64-bit: Codex refuses the file over that


def budget_refusals(data: dict[str, object]) -> list[tuple[str, str]]:
    """``(setting, what Codex wants)`` for each setting sizing the catalog that makes Codex
    0.171 refuse to start (measured with codex-oracle): ``skills`` not a table,
    ``skills.max_context_tokens`` not a whole number from 1 up, ``model_context_window`` not a
    whole number (a negative one is taken, as 0: the window is unknown), ``model`` not text or
    blank ("No models are available")."""
    found: list[tuple[str, str]] = []
    skills = data.get("skills")
    if skills is not None and not isinstance(skills, dict):
        found.append(("skills", "a table: [skills]"))
    elif (
        isinstance(skills, dict)
        and "max_context_tokens" in skills
        and _whole(skills["max_context_tokens"], 1, _I64) is None
    ):
        found.append(("skills.max_context_tokens", "a whole number of tokens, 1 or more"))
    if "model_context_window" in data and _whole(data["model_context_window"], -_I64, _I64) is None:
        found.append(("model_context_window", "a whole number of tokens"))
    if "model" in data and _text(data["model"]) is None:
        found.append(("model", 'the name of a model as text: model = "gpt-5"'))
    return found


def _refused_value(path: Path, key: str, wanted: str) -> Diagnostic:
    return Diagnostic(
        code="SK232",
        severity=Severity.WARNING,
        message=f"Codex refuses to start with this {key} value in its config.toml; skillshelf sizes "
        "the catalog as if it were not set",
        fix=f"make {key} {wanted}, or remove it",
        path=path,
        field=key,
    )


def projects_refusal(table: object) -> str | None:
    """Why Codex refuses to start with ``table`` as its ``[projects]``, else ``None`` (also when
    it is not set): not a table, an entry not a table, or a ``trust_level`` Codex does not know."""
    if table is None:
        return None
    if not isinstance(table, dict):
        return "projects is not a table"
    for key, entry in table.items():
        if not isinstance(entry, dict):
            return f'[projects] "{key}" is not a table'
        level = entry.get("trust_level", TRUST_LEVELS[0])
        if level not in TRUST_LEVELS:
            return f'[projects."{key}"] has trust_level = {_shown(level)}'
    return None


def valid_projects(table: object) -> bool:
    """Whether Codex starts with ``table`` as its ``[projects]`` (:func:`projects_refusal`)."""
    return projects_refusal(table) is None


def _shown(value: object) -> str:
    return f'"{value}"' if isinstance(value, str) else repr(value)


def _refused_projects(path: Path, refusal: str) -> Diagnostic:
    return Diagnostic(
        code="SK231",
        severity=Severity.WARNING,
        message=f"Codex refuses to start with its config.toml: {refusal}; skillshelf reads none of "
        "its [projects] trust entries",
        fix='set each trust_level to "trusted" or "untrusted" (the table of a folder Codex trusts: '
        '[projects."/path/to/folder"])',
        path=path,
        field="projects",
    )


def _plugin_states(table: object) -> tuple[tuple[str, bool], ...]:
    """Each plugin table's id and whether it is on (a table without ``enabled = false`` is)."""
    if not isinstance(table, dict):
        return ()
    return tuple(
        (key, value.get("enabled", True) is not False)
        for key, value in sorted(table.items())
        if isinstance(value, dict)
    )


def _projects_at(table: object, level: str) -> tuple[str, ...]:
    if not isinstance(table, dict):
        return ()
    return tuple(
        key for key, value in table.items() if isinstance(value, dict) and value.get("trust_level") == level
    )


def _strings(value: object) -> tuple[str, ...] | None:
    if not isinstance(value, list):
        return None
    return tuple(v for v in value if isinstance(v, str))


def _flag(value: object) -> bool | None:
    return value if isinstance(value, bool) else None


def _text(value: object) -> str | None:
    return value.strip() or None if isinstance(value, str) else None


def _whole(value: object, minimum: int = 0, below: int | None = None) -> int | None:
    """``value`` when it is an integer from ``minimum`` up (and under ``below``), else None."""
    if not isinstance(value, int) or isinstance(value, bool) or value < minimum:
        return None
    return value if below is None or value < below else None


def _path(text: str, base: Path) -> Path:
    path = Path(text).expanduser()
    return path if path.is_absolute() else base / path


def read_model_catalog(settings: CodexSettings) -> tuple[Path, tuple[ModelInfo, ...]] | None:
    """The model catalog ``model_catalog_json`` points to (its path and entries), else ``None``.

    Codex's own catalog (built into its binary, refreshed into ``models_cache.json`` when it is
    online) is not read: Codex 0.171.0 ignores a ``models_cache.json`` it did not fetch itself,
    so what such a file says cannot be checked to be what Codex uses.
    """
    path = settings.model_catalog_json
    if path is None:
        return None
    try:
        import json

        data = json.loads(read_regular_text(path, limit=MAX_SETTINGS_BYTES))
    except (OSError, ValueError, RecursionError):
        return None
    models = data.get("models") if isinstance(data, dict) else None
    if not isinstance(models, list):
        return None
    return path, tuple(info for item in models if (info := _model_info(item)) is not None)


def _model_info(item: object) -> ModelInfo | None:
    from skillshelf.skills.catalog.window import ModelInfo

    if not isinstance(item, dict) or not isinstance(item.get("slug"), str):
        return None
    priority = item.get("priority")
    return ModelInfo(
        slug=item["slug"],
        context_window=_whole(item.get("context_window")),
        max_context_window=_whole(item.get("max_context_window")),
        priority=priority if isinstance(priority, int) and not isinstance(priority, bool) else 0,
        pickable=item.get("visibility") == "list" and item.get("supported_in_api") is not False,
    )


def catalog_budget(
    env: Env,
    *,
    chars: tuple[int, str] | None = None,
    tokens: tuple[int, str] | None = None,
    window: tuple[int, str] | None = None,
) -> BudgetChoice:
    """The catalog budget for ``env``: what the caller was given (``(value, where)``), else what
    Codex's config and model catalog say (:func:`~skillshelf.skills.catalog.window.choose_budget`)."""
    from skillshelf.skills.catalog.window import choose_budget

    layers = codex_settings_layers(env)
    model = _last(layers, lambda layer: layer.model)
    if tokens is None:
        tokens = _setting(
            env, _last(layers, lambda layer: layer.skills_max_context_tokens), "skills.max_context_tokens"
        )
    if window is None:
        window = _setting(
            env, _last(layers, lambda layer: layer.model_context_window), "model_context_window"
        )
    if chars is not None or tokens is not None:
        return choose_budget(chars=chars, tokens=tokens)
    catalog_layer = _last(layers, lambda layer: layer.model_catalog_json)
    found = read_model_catalog(catalog_layer[1]) if catalog_layer is not None else None
    catalog = found[1] if found is not None else None
    choice = choose_budget(window=window, model=model[0] if model else None, catalog=catalog)
    if found is not None and window is None:
        return replace(choice, source=f"{choice.source}; catalog {_home_relative(found[0], env)}")
    return choice


def codex_settings_layers(env: Env) -> list[CodexSettings]:
    """The settings of Codex's ``config.toml`` and of each trusted project's
    ``.codex/config.toml`` from the project's root down to the cwd, in the order Codex layers
    them (the last that sets a key wins; measured with codex-oracle: a trusted project's
    ``model``, ``model_context_window``, ``model_catalog_json`` and ``skills.max_context_tokens``
    size the catalog, an untrusted one's are not read)."""
    user = read_codex_settings(env.codex_home)
    markers = user.project_root_markers
    folders = codex_config_folders(env if markers is None else replace(env, project_root_markers=markers))
    return [user, *(read_codex_settings(dot_codex) for dot_codex in codex_project_layers(env, folders, user))]


def _last(
    layers: Sequence[CodexSettings], value: Callable[[CodexSettings], T | None]
) -> tuple[T, CodexSettings] | None:
    """The value of the last layer that sets it, and that layer."""
    for layer in reversed(layers):
        found = value(layer)
        if found is not None:
            return found, layer
    return None


def _setting(env: Env, found: tuple[int, CodexSettings] | None, key: str) -> tuple[int, str] | None:
    if found is None:
        return None
    path = found[1].path
    return found[0], f"{key} in {_home_relative(path, env) if path is not None else 'config.toml'}"


def _home_relative(path: Path, env: Env) -> str:
    try:
        return f"~/{path.relative_to(env.home)}"
    except ValueError:
        return str(path)
