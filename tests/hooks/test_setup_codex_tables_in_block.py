"""Tables Codex 0.171.0 writes into skillshelf's block of ``$CODEX_HOME/config.toml``: its TOML
editor appends a new table ahead of the file's last comment line, which is the block's end
marker, so ``codex exec --trust`` (or its trust prompt) puts ``[projects."…"]`` inside the block
(seen with the real CLI). Setup settles in one run around such a table: a second run changes
nothing, status is current, and the user's table is not moved again; once setup rewrites the
block, the table is kept, byte for byte, after the end marker instead of inside it."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import pytest
from hooks_helpers import COMMAND, set_up

from skillshelf.env import Env
from skillshelf.errors import ConfigError
from skillshelf.hooks import tomlblock
from skillshelf.hooks.setup import plan_setup
from skillshelf.hooks.status import setup_status


def _repos(box: Any) -> tuple[Env, Env, Path]:
    envs = []
    for name in ("a", "b"):
        repo = box.home / name
        (repo / ".git").mkdir(parents=True)
        envs.append(Env.for_test(cwd=repo, home=box.home, codex_home=box.codex_home))
    box.codex_home.mkdir()
    config = box.codex_home / "config.toml"
    config.write_text('model = "gpt-5"\n', encoding="utf-8")
    return envs[0], envs[1], config


def _codex_trusts(config: Path, env: Env) -> str:
    """What ``codex exec --trust`` in ``env``'s project writes (a table before the last comment);
    the table's text."""
    table = f'[projects."{env.project_root}"]\ntrust_level = "trusted"\n'
    text = config.read_text(encoding="utf-8")
    at = text.rindex(tomlblock.END)
    config.write_text(text[:at] + "\n" + table + text[at:], encoding="utf-8")
    return table


def _current(env: Env) -> bool:
    row = next(r for r in setup_status(env, command=COMMAND) if (r.agent, r.scope) == ("codex", "project"))
    return row.current


def _trusted(config: Path, env: Env) -> bool:
    data = tomllib.loads(config.read_text(encoding="utf-8"))
    return bool(data["projects"][str(env.project_root)]["trust_level"] == "trusted")


def test_a_trust_table_codex_wrote_into_the_block_changes_nothing_until_setup_runs_again(
    isolated_home: Any,
) -> None:
    a, _b, config = _repos(isolated_home)
    set_up(a, isolated_home, "codex")
    _codex_trusts(config, a)
    written = config.read_bytes()
    assert _current(a)
    assert not plan_setup(a, "codex", "project", command=COMMAND, state_dir=a.dirs.state).changed
    assert config.read_bytes() == written


def test_setup_settles_in_one_run_after_codex_wrote_a_table_into_the_block(isolated_home: Any) -> None:
    a, b, config = _repos(isolated_home)
    set_up(a, isolated_home, "codex")
    table = _codex_trusts(config, a)

    set_up(b, isolated_home, "codex")
    settled = config.read_text(encoding="utf-8")
    assert not set_up(b, isolated_home, "codex").changed
    assert _current(b) and _current(a)
    assert config.read_text(encoding="utf-8") == settled
    assert _trusted(config, a)
    assert table in settled.split(tomlblock.END, 1)[1]  # kept as written, after the block


def test_remove_leaves_the_users_table_codex_wrote_into_the_block_without_marker_lines(
    isolated_home: Any,
) -> None:
    a, b, config = _repos(isolated_home)
    set_up(a, isolated_home, "codex")
    set_up(b, isolated_home, "codex")
    table = _codex_trusts(config, a)
    _codex_trusts(config, b)

    set_up(a, isolated_home, "codex", remove=True)
    set_up(b, isolated_home, "codex", remove=True)
    text = config.read_text(encoding="utf-8")
    assert tomlblock.BEGIN not in text and tomlblock.END not in text
    assert text.startswith('model = "gpt-5"\n') and table in text
    assert _trusted(config, a) and _trusted(config, b)
    assert "hooks" not in tomllib.loads(text)


def test_ejected_moves_only_the_users_tables_and_keeps_a_byte_order_mark() -> None:
    ours = '[hooks.state."k"]\ntrusted_hash = "h"\n'
    theirs = '[projects."/p"]\ntrust_level = "trusted"\n'
    text = f'\ufeffmodel = "m"\n\n{tomlblock.BEGIN}\n{ours}\n{theirs}{tomlblock.END}\n'
    moved = tomlblock.ejected(text)
    assert moved == f'\ufeffmodel = "m"\n\n{tomlblock.BEGIN}\n{ours}\n{tomlblock.END}\n\n{theirs}'
    assert tomlblock.ejected(moved) == moved
    assert tomlblock.block_tables(moved) == {("hooks", "state", "k"): {"trusted_hash": "h"}}


def _codex_appends(config: Path, table: str) -> None:
    """``table`` put ahead of the end marker, as Codex's TOML editor appends one."""
    text = config.read_text(encoding="utf-8")
    at = text.rindex(tomlblock.END)
    config.write_text(text[:at] + "\n" + table + text[at:], encoding="utf-8")


@pytest.mark.parametrize(
    "hook",
    [
        '[[hooks.Stop]]\n[[hooks.Stop.hooks]]\ntype = "command"\ncommand = "echo bye"\n',
        '[hooks]\nStop = [{ hooks = [{ type = "command", command = "echo bye" }] }]\n',
    ],
)
def test_an_array_of_tables_in_the_block_moves_out_as_written_and_remove_keeps_it(
    isolated_home: Any, hook: str
) -> None:
    a, b, config = _repos(isolated_home)
    set_up(a, isolated_home, "codex", "user")
    _codex_appends(config, hook)

    assert _current(b) is not None  # status reads the file without an internal error
    set_up(b, isolated_home, "codex")
    settled = config.read_text(encoding="utf-8")
    assert hook in settled.split(tomlblock.END, 1)[1]
    assert not set_up(b, isolated_home, "codex").changed
    set_up(a, isolated_home, "codex", "user", remove=True)
    text = config.read_text(encoding="utf-8")
    assert hook in text and tomllib.loads(text)["hooks"]["Stop"][0]["hooks"][0]["command"] == "echo bye"


def test_a_comment_line_above_the_users_table_in_the_block_moves_out_with_it(isolated_home: Any) -> None:
    a, b, config = _repos(isolated_home)
    set_up(a, isolated_home, "codex", "user")
    table = '# work laptop: keep this project trusted\n[projects."/srv/app"]\ntrust_level = "trusted"\n'
    _codex_appends(config, table)

    set_up(b, isolated_home, "codex")
    assert table in config.read_text(encoding="utf-8").split(tomlblock.END, 1)[1]


def test_a_bracket_line_inside_a_multi_line_string_in_the_block_is_no_array_of_tables() -> None:
    ours = '[hooks.state."k"]\ntrusted_hash = """\n[[not.a.table]]\n"""\n'
    text = f'model = "m"\n\n{tomlblock.BEGIN}\n{ours}{tomlblock.END}\n'
    assert tomlblock.with_tables(text, {("hooks", "state", "k"): {"trusted_hash": "h"}}).endswith(
        f'{tomlblock.BEGIN}\n[hooks.state.k]\ntrusted_hash = "h"\n{tomlblock.END}\n'
    )


def test_a_hook_in_the_block_whose_command_has_a_line_like_a_table_header_is_refused_with_hk114(
    isolated_home: Any,
) -> None:
    """The block's tables are told apart by their header lines; a line of a multi-line string
    that starts with ``[`` (a shell test ``[ -f … ]`` in a hook's command) reads as one, a table
    of setup's, which would split the user's hook in two: setup refuses, the file as it was."""
    a, b, config = _repos(isolated_home)
    set_up(a, isolated_home, "codex", "user")
    _codex_appends(
        config,
        '[[hooks.Stop]]\n[[hooks.Stop.hooks]]\ntype = "command"\n'
        'command = """\n[ -f .stop-note ] && cat .stop-note\n"""\n',
    )
    written = config.read_bytes()
    with pytest.raises(ConfigError) as raised:
        set_up(b, isolated_home, "codex")
    assert raised.value.code == "HK114" and tomlblock.END in raised.value.hint
    assert config.read_bytes() == written
    assert tomllib.loads(written.decode("utf-8"))["hooks"]["Stop"][0]["hooks"][0]["command"].startswith(
        "[ -f"
    )
