"""What the bash tool's commands inherit, and what of their output the model sees.

* :func:`shell_environment`: the caller's environment less every variable whose name holds
  ``KEY``, ``SECRET`` or ``TOKEN`` (in any case): ``OPENAI_API_KEY``, ``AWS_SECRET_ACCESS_KEY``
  and ``GITHUB_TOKEN`` never reach a command the model runs. These are the default excludes of
  Codex's ``shell_environment_policy`` (``*KEY*``, ``*SECRET*``, ``*TOKEN*``, matched without
  regard to case), measured with Codex 0.171.0 and ``ignore_default_excludes = false``: its
  commands then lacked ``SOME_KEY``, ``my_token``, ``Keyring`` and kept ``PLAIN_VAR``. Codex
  applies them only when so configured (its default passed all of them); here they always
  apply.
* :func:`redacted_output`: a command's output through :func:`skillshelf.memory.redact.redact`,
  the redaction the transcripts get, before the model reads it: a secret a command prints (a
  ``.env`` file, a config dump) goes no further than the tool.
"""

from __future__ import annotations

from collections.abc import Mapping

from skillshelf.memory.redact import redact

__all__ = ["DEFAULT_EXCLUDES", "redacted_output", "shell_environment"]

DEFAULT_EXCLUDES: tuple[str, ...] = ("KEY", "SECRET", "TOKEN")


def excluded(name: str) -> bool:
    """Whether a variable called ``name`` is left out of the commands' environment."""
    upper = name.upper()
    return any(word in upper for word in DEFAULT_EXCLUDES)


def shell_environment(environ: Mapping[str, str]) -> dict[str, str]:
    """``environ`` without the variables :func:`excluded` names."""
    return {name: value for name, value in environ.items() if not excluded(name)}


def redacted_output(text: str) -> str:
    """``text`` with the secrets redaction finds replaced by its markers."""
    return redact(text).text
