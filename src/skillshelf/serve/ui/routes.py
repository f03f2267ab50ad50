"""The page's routes: each turns a request's parameters into one view's data.

Every parameter is checked here (a bad one is a :class:`~skillshelf.errors.UsageError`, code
``SV400``); no route takes a file path: skills are named, memories are session ids, and the
static files are a fixed list shipped in the package.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from importlib import resources
from typing import TYPE_CHECKING, Any, cast

from skillshelf.errors import SkillshelfError, UsageError
from skillshelf.serve.schemas import whole_number
from skillshelf.serve.ui.state import UiState

if TYPE_CHECKING:
    from skillshelf.serve.ui.budget import Profile
    from skillshelf.serve.ui.problems import ValidateProfile

__all__ = ["GET_ROUTES", "POST_ROUTES", "STATIC", "Params", "static_file"]

Params = Mapping[str, str]
MAX_QUERY_CHARS = 4000
MAX_WINDOW = 100_000_000

STATIC: Mapping[str, tuple[str, str]] = {
    "/": ("index.html", "text/html; charset=utf-8"),
    "/static/app.js": ("app.js", "text/javascript; charset=utf-8"),
    "/static/app.css": ("app.css", "text/css; charset=utf-8"),
}
"""Path -> (file in the package's ``static`` folder, content type). Nothing else is served."""


def static_file(name: str) -> bytes:
    """A file of the package's ``static`` folder (one of :data:`STATIC`)."""
    return resources.files("skillshelf.serve.ui").joinpath("static", name).read_bytes()


def _choice(params: Params, key: str, choices: tuple[str, ...]) -> str:
    value = params.get(key) or choices[0]
    if value not in choices:
        raise UsageError(
            f"{key} must be one of {', '.join(choices)}", hint=f"pass {key}={choices[0]}", code="SV400"
        )
    return value


def _int(params: Params, key: str, *, low: int, high: int, default: int | None, hint: str = "") -> int | None:
    raw = params.get(key, "")
    if raw == "":
        return default
    number = whole_number(raw)
    if number is None or not low <= number <= high:
        fix = hint or f"pass {key}={low if default is None else default}"
        raise UsageError(f"{key} must be a whole number from {low} to {high:,}", hint=fix, code="SV400")
    return number


def _text(params: Params, key: str, *, limit: int = MAX_QUERY_CHARS) -> str:
    value = params.get(key, "")
    if not value.strip():
        raise UsageError(f"{key} is empty", hint=f"pass {key}=...", code="SV400")
    if len(value) > limit:
        raise UsageError(f"{key} is over {limit:,} characters", hint="send a shorter text", code="SV400")
    return value


def _profile(params: Params) -> Profile:
    """Whose instruction files: Codex's AGENTS.md or Claude Code's CLAUDE.md."""
    return "claude" if _choice(params, "profile", ("codex", "claude")) == "claude" else "codex"


def _window(params: Params) -> int | None:
    fix = (
        "leave window out for the config's (or the model's) window, or pass the model's window in "
        "tokens, such as window=200000"
    )
    return _int(params, "window", low=0, high=MAX_WINDOW, default=None, hint=fix)


def overview(state: UiState, params: Params) -> dict[str, object]:
    from skillshelf import __version__

    snapshot = state.snapshot
    workspace = snapshot.workspace
    error = (snapshot.error, snapshot.error_code, snapshot.error_fix)
    try:
        state.check_folder()  # gone before the watch saw it: say so already
    except SkillshelfError as exc:
        error = (exc.message, exc.code, exc.hint)
    return {
        "version": __version__,
        "snapshot": snapshot.version,
        "opened_at": snapshot.opened_at,
        "error": error[0],
        "error_code": error[1],
        "error_fix": error[2],
        "watching": state.watching,
        "cwd": str(state.env.cwd),
        "project": str(state.project_root),
        "skills": len(workspace.discovery.skills),
        "loadable": len(workspace.skills.loadable),
        "roots": [str(r) for r in workspace.roots],
        "profile": workspace.config.instructions_profile or "codex",
        "window": workspace.config.context_window,
        "semantic": state.options.semantic,
    }


def budget(state: UiState, params: Params) -> dict[str, object]:
    state.check_folder()
    from skillshelf.serve.ui.budget import budget_view

    return budget_view(
        state.env, state.snapshot, state.options, profile=_profile(params), window=_window(params)
    )


def task(state: UiState, params: Params) -> dict[str, object]:
    state.check_folder()
    from skillshelf.serve.ui.task import task_view

    return task_view(
        state.env,
        state,
        query=_text(params, "q"),
        profile=_profile(params),
        window=_window(params),
        top=_int(params, "top", low=1, high=50, default=10) or 10,
    )


def load(state: UiState, params: Params) -> dict[str, object]:
    from skillshelf.serve.ui.task import load_view

    return load_view(state.snapshot, _text(params, "name", limit=200))


def problems(state: UiState, params: Params) -> dict[str, object]:
    from skillshelf.serve.ui.problems import problems_view, validate_roots

    profile = cast("ValidateProfile", _choice(params, "profile", ("codex", "claude", "spec")))
    report = state.memo(f"validate:{profile}", lambda snapshot: validate_roots(snapshot, profile))
    return problems_view(state.snapshot, report, profile)


def memory(state: UiState, params: Params) -> dict[str, object]:
    state.check_folder()
    from skillshelf.serve.ui.memory_view import memory_view

    return memory_view(state.env, state.snapshot.workspace.config)


def usage(state: UiState, params: Params) -> dict[str, object]:
    state.check_folder()
    from skillshelf.serve.ui.usage import usage_view

    return usage_view(state.env, state.snapshot)


def forget(state: UiState, body: Mapping[str, Any]) -> dict[str, object]:
    state.check_folder()
    from skillshelf.serve.ui.memory_view import forget_memory

    return forget_memory(state.env, body.get("session_id"))


GET_ROUTES: Mapping[str, Callable[[UiState, Params], dict[str, object]]] = {
    "/api/overview": overview,
    "/api/budget": budget,
    "/api/task": task,
    "/api/load": load,
    "/api/problems": problems,
    "/api/memory": memory,
    "/api/usage": usage,
}
POST_ROUTES: Mapping[str, Callable[[UiState, Mapping[str, Any]], dict[str, object]]] = {
    "/api/memory/forget": forget,
}
