"""Memory settings: model names, effort, limits and windows (the ``[memory]`` config table).

Defaults follow Codex (idle 6 h, age 30 days, 16 sessions per run, concurrency 8, leases of an
hour, heartbeats every 90 s, 3 retries) except where its users asked for more control: a
budget on model calls per run, per-project scope by default and retry backoff that doubles.

A setting that cannot be used (an unknown key, a value of the wrong type or range, a model that is
not ``PROVIDER:NAME``, a base URL that is not http(s)) is a :class:`~skillshelf.errors.UsageError`
(exit 2), whether it came from a config file, ``-c memory.KEY=VALUE`` or a command-line option:
nothing runs on settings it cannot honour. A config layer or ``-c`` that cannot be read at all
is a finding of the config instead (``CF100``, ``CF108``: the rest is used), which
:func:`read_memory_settings` returns beside the settings for the commands to report.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, fields, replace
from typing import Any, Literal
from urllib.parse import urlsplit

from skillshelf.diagnostics import Diagnostic
from skillshelf.env import Env
from skillshelf.errors import ConfigError, UsageError
from skillshelf.llm import ModelRef, parse_model_ref

__all__ = [
    "DEFAULT_SUMMARY_TOKEN_CAP",
    "SETTING_RANGES",
    "MemorySettings",
    "ModelRef",
    "load_memory_settings",
    "parse_model_ref",
    "range_text",
    "read_memory_settings",
]

#: Tokens of ``memory_summary.md`` put in the model's context (``memory.summary_token_cap``), cut
#: in the middle past it: Codex's read path caps its injected summary at 2,500 tokens (5,000 in
#: its April 2026 snapshot, 2,500 in its ``memories/read`` crate since).
DEFAULT_SUMMARY_TOKEN_CAP = 2500


#: The range of each numeric setting, ends included (``math.inf``: no ceiling). A value out of it
#: is refused (``ME027``, naming the range), never clamped: a count or a duration past its range is
#: a typo, not a wish. The ceilings of durations (seconds) keep a lease or a retry time in
#: milliseconds within the store's 64-bit integers, and a timeout within a thread's wait.
SETTING_RANGES: dict[str, tuple[float, float]] = {
    "context_window": (1, math.inf),
    "effective_context_percent": (1, 100),
    "max_output_tokens": (1, math.inf),
    "request_timeout_s": (0.001, 86_400.0),
    "max_rollouts_per_run": (1, 128),
    "max_running_jobs": (1, 100_000),
    "min_idle_hours": (0, 48),
    "max_age_days": (0, 3650),
    "max_unused_days": (0, 365),
    "max_raw_memories": (1, 4096),
    "concurrency": (1, 64),
    "lease_seconds": (1, 30 * 86_400.0),
    "heartbeat_seconds": (0.001, 86_400.0),
    "retry_delay_seconds": (0, 30 * 86_400.0),
    "max_model_calls": (0, math.inf),
    "summary_token_cap": (100, 100_000),
    "consolidation_max_turns": (1, 200),
}


def _number_text(value: float) -> str:
    """``value`` as the docs write it: ``100,000``, ``0.001``."""
    return f"{int(value):,}" if float(value).is_integer() else f"{value:g}"


def range_text(key: str) -> str:
    """The range of setting ``key`` in words: ``1 to 64``, ``at least 1``."""
    low, high = SETTING_RANGES[key]
    return (
        f"at least {_number_text(low)}"
        if high == math.inf
        else f"{_number_text(low)} to {_number_text(high)}"
    )


#: Counts: a fractional value is refused (``ME029``); a whole one written as a float (``3.0``) is taken.
_INTEGERS = frozenset(
    {
        "context_window",
        "effective_context_percent",
        "max_output_tokens",
        "max_rollouts_per_run",
        "max_running_jobs",
        "max_raw_memories",
        "concurrency",
        "max_model_calls",
        "summary_token_cap",
        "consolidation_max_turns",
    }
)


def _whole(key: str, value: object) -> object:
    """``value`` as an ``int`` when ``key`` counts something; a fraction is a UsageError."""
    if key not in _INTEGERS or not isinstance(value, float):
        return value
    if not value.is_integer():  # finite here: the floor and range checks came first
        raise UsageError(
            f"memory setting {key} must be a whole number, not {value!r}",
            code="ME029",
            hint=f"set memory.{key} to a whole number, such as {max(1, math.floor(value))}",
        )
    return int(value)


def _check_range(key: str, value: object) -> None:
    """Refuse a value of ``key`` that is not a number (``ME022``) or is out of its range (``ME027``)."""
    words = range_text(key)
    words = words if words.startswith("at least") else f"from {words}"
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        raise UsageError(
            f"memory setting {key} must be a number, not {value!r}",
            code="ME022",
            hint=f"set memory.{key} to a number, {words}",
        )
    low, high = SETTING_RANGES[key]
    if not math.isfinite(value) or not low <= value <= high:  # TOML has inf and nan
        default = getattr(MemorySettings(), key)
        keep = "the default" if default is None else f"the default, {_number_text(default)}"
        raise UsageError(
            f"memory setting {key} must be {words}, not {value!r}",
            code="ME027",
            hint=f"set memory.{key} to a value {words} (or leave it out for {keep})",
        )


def _checked(key: str, value: Any) -> Any:
    """``value`` for setting ``key``, refused when it is out of range or a count is fractional."""
    if key in SETTING_RANGES:
        _check_range(key, value)
    if key in _TEXTS:
        _check_text(key, value)
    if key in ("extract_model", "consolidation_model"):
        _check_model(key, value)
    return _whole(key, value)


def _check_model(key: str, value: object) -> None:
    """A model setting that is not ``PROVIDER:NAME`` text is one that cannot be used (``ME020``)."""
    if not isinstance(value, str):
        raise UsageError(
            f"memory setting {key} must be PROVIDER:NAME text, not {value!r}",
            code="ME020",
            hint=f'quote it: memory.{key} = "openai:MODEL" (or "anthropic:MODEL")',
        )
    try:
        parse_model_ref(value)
    except ConfigError as exc:
        raise UsageError(exc.message, code=exc.code, hint=exc.hint) from exc


#: Settings that are text (or unset): another type is refused (``ME019``).
_TEXTS = frozenset({"extract_effort", "consolidation_effort", "base_url", "api_key_env"})


def _check_text(key: str, value: object) -> None:
    if not isinstance(value, str):
        raise UsageError(
            f"memory setting {key} must be text, not {value!r}",
            code="ME019",
            hint=f'quote the value: memory.{key} = "..." (or leave it out for the default)',
        )
    if key == "api_key_env" and (not value or "=" in value or "\0" in value):
        raise UsageError(
            f"memory setting api_key_env must name an environment variable, not {value!r}",
            code="ME019",
            hint='set memory.api_key_env to a variable name, such as "OPENAI_API_KEY"',
        )
    if key == "base_url":
        _check_url(value)


def _check_url(value: str) -> None:
    """An API base URL is ``http://`` or ``https://`` with a host (``ME042``): anything else
    would only fail at the first model call, after a session was claimed."""
    try:
        parts = urlsplit(value)
        ok = parts.scheme.lower() in ("http", "https") and bool(parts.hostname)
    except ValueError:  # a bad port or bracketed host
        ok = False
    if not ok:
        raise UsageError(
            f"memory setting base_url must be an http:// or https:// URL with a host, not {value!r}",
            code="ME042",
            hint="use the server's API root, such as http://127.0.0.1:8000/v1 (--base-url or "
            "memory.base_url)",
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class MemorySettings:
    """Every knob of the pipeline (all have defaults; ``from_mapping`` reads a config table)."""

    scope: Literal["project", "global"] = "project"
    extract_model: str = "openai:gpt-5.4-mini"
    extract_effort: str | None = "low"
    consolidation_model: str = "openai:gpt-5.4"
    consolidation_effort: str | None = "medium"
    base_url: str | None = None
    api_key_env: str | None = None
    context_window: int | None = None
    effective_context_percent: int = 95
    max_output_tokens: int = 8000
    json_mode: Literal["schema", "object", "off"] = "schema"
    request_timeout_s: float = 600.0  # per attempt: the SDK makes up to 3, with short pauses between
    max_rollouts_per_run: int = 16
    max_running_jobs: int | None = None
    min_idle_hours: float = 6.0
    max_age_days: float = 30.0
    max_unused_days: float = 30.0
    max_raw_memories: int = 256
    concurrency: int = 8
    lease_seconds: float = 3600.0
    heartbeat_seconds: float = 90.0
    retry_delay_seconds: float = 600.0
    max_model_calls: int | None = None
    summary_token_cap: int = DEFAULT_SUMMARY_TOKEN_CAP  # the summary's cap in the model's context
    consolidator: Literal["auto", "agent", "direct"] = "auto"  # auto: the agent when its SDK is installed
    consolidation_max_turns: int = 40  # model calls the consolidation agent may make

    @classmethod
    def from_mapping(cls, values: Mapping[str, Any]) -> MemorySettings:
        """Settings from a ``[memory]`` table; unknown keys and bad types are UsageErrors."""
        known = {f.name: f for f in fields(cls)}
        kwargs: dict[str, Any] = {}
        for key, value in values.items():
            name = key.replace("-", "_")
            if name not in known:
                raise UsageError(
                    f"unknown memory setting {key!r}",
                    code="ME021",
                    hint=f"known settings: {', '.join(sorted(known))}",
                )
            kwargs[name] = value
        return cls().with_overrides(**kwargs)

    def with_overrides(self, **values: Any) -> MemorySettings:
        """A copy with ``values`` set (None values are ignored), each checked: a value that cannot
        be used is a UsageError (an ``ME0xx`` code), never clamped into range."""
        clean = {k: _checked(k, v) for k, v in values.items() if v is not None}
        if clean.get("json_mode", self.json_mode) not in ("schema", "object", "off"):
            raise UsageError(
                f"memory json_mode must be schema, object or off, not {clean['json_mode']!r}",
                code="ME025",
                hint='use "object" for servers without JSON-schema output',
            )
        if clean.get("consolidator", self.consolidator) not in ("auto", "agent", "direct"):
            raise UsageError(
                f"memory consolidator must be auto, agent or direct, not {clean['consolidator']!r}",
                code="ME026",
                hint='set memory.consolidator = "agent", "direct" or "auto"',
            )
        if clean.get("scope", self.scope) not in ("project", "global"):
            raise UsageError(
                f"memory scope must be 'project' or 'global', not {clean['scope']!r}",
                code="ME023",
                hint='set memory.scope = "project" (default) or "global"',
            )
        return replace(self, **clean)

    @property
    def beat_seconds(self) -> float:
        """How often a holder heartbeats its leases: ``heartbeat_seconds``, but at least three
        times per lease, so a short ``lease_seconds`` never lapses between beats."""
        return min(self.heartbeat_seconds, self.lease_seconds / 3)

    @property
    def stage1_token_limit(self) -> int:
        """Codex's budget for one transcript: 70% of the usable context window, else 150k."""
        if self.context_window and self.context_window > 0:
            return max(1, (self.context_window * self.effective_context_percent // 100) * 70 // 100)
        return 150_000


def load_memory_settings(
    env: Env, *, overrides: Sequence[str] = (), on_bad: Callable[[UsageError], object] | None = None
) -> MemorySettings:
    """The ``[memory]`` table of skillshelf's merged config (``-c memory.KEY=VALUE`` too). With
    ``on_bad`` (a hook, which never fails), a table that cannot be used is handed to it and the
    defaults apply.

    Raises:
        UsageError: without ``on_bad``, a ``[memory]`` setting that cannot be used.
    """
    try:
        return read_memory_settings(env, overrides=overrides)[0]
    except UsageError as exc:
        if on_bad is None:
            raise
        on_bad(exc)
        return MemorySettings()


def read_memory_settings(
    env: Env, *, overrides: Sequence[str] = ()
) -> tuple[MemorySettings, tuple[Diagnostic, ...]]:
    """:func:`load_memory_settings` with the config's findings (a layer skipped, ``CF100``; a
    ``-c`` that cannot be read, ``CF108``; ...): the values they left out, ``[memory]`` ones
    included, are not in the settings, so a command reports them as ``context`` does.

    Raises:
        UsageError: a ``[memory]`` setting that cannot be used (an ``ME02x`` code).
    """
    from skillshelf.config import load_config

    config = load_config(env, overrides=overrides)
    table = config.get("memory", {})
    if not isinstance(table, Mapping):
        raise UsageError(
            "[memory] in the config must be a table",
            code="ME024",
            hint="write it as a [memory] section with key = value lines",
        )
    return MemorySettings.from_mapping(table), config.diagnostics
