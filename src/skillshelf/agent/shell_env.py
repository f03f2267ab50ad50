"""What the bash tool's commands inherit, and what of their output the model sees.

* :func:`shell_environment`: the caller's environment less every variable whose name holds
  ``KEY``, ``SECRET`` or ``TOKEN`` (in any case): ``OPENAI_API_KEY``, ``AWS_SECRET_ACCESS_KEY``
  and ``GITHUB_TOKEN`` never reach a command the model runs. These are the default excludes of
  Codex's ``shell_environment_policy`` (``*KEY*``, ``*SECRET*``, ``*TOKEN*``, matched without
  regard to case), measured with Codex 0.171.0 and ``ignore_default_excludes = false``: its
  commands then lacked ``SOME_KEY``, ``my_token``, ``Keyring`` and kept ``PLAIN_VAR``. Codex
  applies them only when so configured (its default passed all of them); here they always
  apply, except to a short list of well-known names that hold settings, never secrets
  (:func:`well_known`: ``PYTHON_KEYRING_BACKEND``, the usual fix that stops pip and poetry
  waiting on a keyring, ``TOKENIZERS_PARALLELISM``, ``KEYBOARD``...), and to the names the user
  lists in :data:`KEEP_ENV_VARIABLE` (``SKILLSHELF_AGENT_KEEP_ENV=NAME,NAME``, exact names).
* :func:`redacted_parts`: the parts of a long output (its head and tail with their margins,
  :mod:`~skillshelf.agent.output_clip`) scrubbed first (the exact values left out of
  the environment, :mod:`~skillshelf.agent.stripped_values`), then redacted in turn, each with
  the secrets found in those before it, so a secret found in the head goes from the tail too
  where it stands bare.
* :func:`redacted_output`: a command's output through :func:`skillshelf.memory.redact.redact`,
  the redaction the transcripts get, before the model reads it: a secret a command prints (a
  ``.env`` file, a config dump) goes no further than the tool. A file read through ``read_file``
  is not redacted (an edit must match the file byte for byte); the file tools refuse to write
  the redaction marker into a file that did not hold it (see
  :mod:`~skillshelf.agent.folder_tools`).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence

from skillshelf.memory.redact import REDACTED, redact
from skillshelf.memory.redact.echoes import NO_SECRETS, KnownSecrets

__all__ = [
    "DEFAULT_EXCLUDES",
    "KEEP_ENV_VARIABLE",
    "REDACTED",
    "excluded",
    "kept_names",
    "redacted_output",
    "redacted_parts",
    "shell_environment",
    "well_known",
]

DEFAULT_EXCLUDES: tuple[str, ...] = ("KEY", "SECRET", "TOKEN")
#: The variable where a user names more variables to keep: ``NAME,NAME`` (commas or spaces).
KEEP_ENV_VARIABLE = "SKILLSHELF_AGENT_KEEP_ENV"
#: Names matched by the excludes that are settings of well-known tools, never secrets.
WELL_KNOWN_NAMES = frozenset({"PYTHON_KEYRING_BACKEND", "TOKENIZERS_PARALLELISM", "KEYBOARD"})
#: Their families: keyring backends, tokenizers' and other libraries' parallelism switches
#: (suffixes); the X keyboard and console keyboard settings (prefixes).
WELL_KNOWN_SUFFIXES: tuple[str, ...] = ("_KEYRING_BACKEND", "_PARALLELISM")
WELL_KNOWN_PREFIXES: tuple[str, ...] = ("XKB", "KEYBOARD")


def well_known(name: str) -> bool:
    """Whether ``name`` is a well-known setting that the excludes would match, but that holds no secret."""
    upper = name.upper()
    return (
        upper in WELL_KNOWN_NAMES
        or upper.endswith(WELL_KNOWN_SUFFIXES)
        or upper.startswith(WELL_KNOWN_PREFIXES)
    )


def excluded(name: str, keep: Collection[str] = ()) -> bool:
    """Whether a variable called ``name`` is left out of the commands' environment; ``keep``:
    exact names the user wants kept."""
    upper = name.upper()
    if name in keep or well_known(name):
        return False
    return any(word in upper for word in DEFAULT_EXCLUDES)


def kept_names(value: str | None) -> frozenset[str]:
    """The names listed in a :data:`KEEP_ENV_VARIABLE` value (commas or whitespace between)."""
    return frozenset((value or "").replace(",", " ").split())


def shell_environment(environ: Mapping[str, str], keep: Collection[str] = ()) -> dict[str, str]:
    """``environ`` without the variables :func:`excluded` names; ``keep``: names kept anyway."""
    return {name: value for name, value in environ.items() if not excluded(name, keep)}


def redacted_output(text: str) -> str:
    """``text`` with the secrets redaction finds replaced by its markers."""
    return redact(text).text


def redacted_parts(texts: Sequence[str], scrub: Callable[[str], str] = str) -> list[str]:
    """``texts`` each through ``scrub``, then redacted with the secrets found in the ones before."""
    known = NO_SECRETS
    cleaned: list[str] = []
    for text in texts:
        redaction = redact(scrub(text), known=known)
        known = known | KnownSecrets.of(redaction.removed)
        cleaned.append(redaction.text)
    return cleaned
