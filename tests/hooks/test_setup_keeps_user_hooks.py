"""`skillshelf setup codex` beside the user's own Codex hooks in the same hooks.json: setup adds,
updates and takes out only the trust of its own handlers; the trust Codex keeps for the user's
hooks (written into skillshelf's block or anywhere else in config.toml) survives a second setup,
a setup from another install path and `--remove`, moved to the hook's new key when taking
skillshelf's hooks out shifts the user's group."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import Any

import pytest
from hooks_helpers import COMMAND, set_up

from skillshelf.env import Env
from skillshelf.errors import ConfigError
from skillshelf.hooks import jsonfile, tomlblock
from skillshelf.hooks.agents import HookSpec, hook_specs
from skillshelf.hooks.codex import trust_hash

USER_HOOK = HookSpec(event="UserPromptSubmit", command="touch /tmp/user-hook-ran", timeout=5)
USER_HASH = trust_hash(USER_HOOK)
BASE = 'model = "gpt-5"\n'


def _project(box: Any) -> tuple[Path, Env, Path, Path]:
    repo = box.home / "repo"
    (repo / ".git").mkdir(parents=True)
    box.codex_home.mkdir()
    config = box.codex_home / "config.toml"
    config.write_text(BASE + f'\n[projects."{repo}"]\ntrust_level = "trusted"\n', encoding="utf-8")
    env = Env.for_test(cwd=repo, home=box.home, codex_home=box.codex_home)
    return repo, env, repo / ".codex" / "hooks.json", config


def _add_user_hook(hooks_file: Path) -> None:
    """The user's own UserPromptSubmit group, after skillshelf's (written by hand)."""
    data = json.loads(hooks_file.read_text(encoding="utf-8"))
    data["hooks"]["UserPromptSubmit"].append(USER_HOOK.group())
    hooks_file.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")


def _trust_in_block(config: Path, key: str) -> None:
    """What Codex writes when the user accepts the hook: a table after the other hooks.state
    tables, here the last one of skillshelf's block."""
    text = config.read_text(encoding="utf-8")
    entry = f'\n[hooks.state."{key}"]\ntrusted_hash = "{USER_HASH}"\n'
    at = text.index(tomlblock.END)
    config.write_text(text[:at] + entry + text[at:], encoding="utf-8")


def _before_block(config: Path, tables: str) -> None:
    """``tables`` written into config.toml just above skillshelf's block."""
    text = config.read_text(encoding="utf-8")
    at = text.index(tomlblock.BEGIN)
    config.write_text(text[:at] + tables + text[at:], encoding="utf-8")


def _state(config: Path) -> dict[str, Any]:
    return dict(tomllib.loads(config.read_text(encoding="utf-8")).get("hooks", {}).get("state", {}))


def _user_key(hooks_file: Path, group: int) -> str:
    return f"{hooks_file}:user_prompt_submit:{group}:0"


def test_a_second_setup_keeps_the_trust_codex_wrote_into_the_block_for_the_users_hook(
    isolated_home: Any,
) -> None:
    _repo, env, hooks_file, config = _project(isolated_home)
    set_up(env, isolated_home, "codex")
    _add_user_hook(hooks_file)
    _trust_in_block(config, _user_key(hooks_file, 1))
    trusted = config.read_bytes()

    assert not set_up(env, isolated_home, "codex").changed
    assert config.read_bytes() == trusted


def test_remove_moves_the_users_trust_in_the_block_to_its_hooks_new_key(isolated_home: Any) -> None:
    _repo, env, hooks_file, config = _project(isolated_home)
    before = config.read_text(encoding="utf-8")
    set_up(env, isolated_home, "codex")
    _add_user_hook(hooks_file)
    _trust_in_block(config, _user_key(hooks_file, 1))

    set_up(env, isolated_home, "codex", remove=True)
    assert json.loads(hooks_file.read_text(encoding="utf-8")) == {
        "hooks": {"UserPromptSubmit": [USER_HOOK.group()]}
    }
    text = config.read_text(encoding="utf-8")
    assert _state(config) == {_user_key(hooks_file, 0): {"trusted_hash": USER_HASH}}
    assert tomlblock.BEGIN not in text  # nothing of skillshelf's is left in the file
    assert text == before + f'\n[hooks.state."{_user_key(hooks_file, 0)}"]\ntrusted_hash = "{USER_HASH}"\n'


def _insert_user_hook_first(hooks_file: Path) -> None:
    """The user's own UserPromptSubmit group put before skillshelf's (by hand, after setup)."""
    data = json.loads(hooks_file.read_text(encoding="utf-8"))
    data["hooks"]["UserPromptSubmit"].insert(0, USER_HOOK.group())
    hooks_file.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")


def test_remove_takes_out_skillshelfs_trust_at_the_key_the_users_hook_took_since(isolated_home: Any) -> None:
    _repo, env, hooks_file, config = _project(isolated_home)
    before = config.read_bytes()
    set_up(env, isolated_home, "codex")
    _insert_user_hook_first(hooks_file)

    set_up(env, isolated_home, "codex", remove=True)
    assert config.read_bytes() == before


def test_setup_again_moves_skillshelfs_trust_off_the_key_the_users_hook_took(isolated_home: Any) -> None:
    _repo, env, hooks_file, config = _project(isolated_home)
    set_up(env, isolated_home, "codex")
    ours = _state(config)[_user_key(hooks_file, 0)]
    _insert_user_hook_first(hooks_file)

    set_up(env, isolated_home, "codex")
    state = _state(config)
    assert _user_key(hooks_file, 0) not in state  # the user's hook is not trusted: Codex asks
    assert state[_user_key(hooks_file, 1)] == ours


def test_remove_keeps_the_trust_codex_wrote_over_skillshelfs_for_the_users_hook(isolated_home: Any) -> None:
    """The user accepted their hook in Codex, which set its hash in the table skillshelf's
    block already had at that key: the table is theirs now."""
    _repo, env, hooks_file, config = _project(isolated_home)
    set_up(env, isolated_home, "codex")
    _insert_user_hook_first(hooks_file)
    text = config.read_text(encoding="utf-8")
    ours = _state(config)[_user_key(hooks_file, 0)]["trusted_hash"]
    config.write_text(text.replace(ours, USER_HASH), encoding="utf-8")

    set_up(env, isolated_home, "codex", remove=True)
    assert _state(config) == {_user_key(hooks_file, 0): {"trusted_hash": USER_HASH}}


def test_remove_moves_the_users_trust_written_outside_the_block_in_place(isolated_home: Any) -> None:
    _repo, env, hooks_file, config = _project(isolated_home)
    before = config.read_text(encoding="utf-8")
    set_up(env, isolated_home, "codex")
    _add_user_hook(hooks_file)
    mine = f'# my own hook\n[hooks.state."{_user_key(hooks_file, 1)}"]\ntrusted_hash = "{USER_HASH}"\n\n'
    _before_block(config, mine)

    set_up(env, isolated_home, "codex", remove=True)
    assert (
        config.read_text(encoding="utf-8") == before + "\n" + mine.replace(":1:0", ":0:0").rstrip("\n") + "\n"
    )
    assert _state(config) == {_user_key(hooks_file, 0): {"trusted_hash": USER_HASH}}


def test_setup_from_another_install_replaces_its_hooks_where_they_are(isolated_home: Any) -> None:
    """The stale commands are rewritten in place: the user's group stays the second, and its
    trust (above skillshelf's block) is not touched; skillshelf's own entries get new hashes."""
    _repo, env, hooks_file, config = _project(isolated_home)
    set_up(env, isolated_home, "codex")
    _add_user_hook(hooks_file)
    mine = f'[hooks.state."{_user_key(hooks_file, 1)}"]\ntrusted_hash = "{USER_HASH}"\n\n'
    _before_block(config, mine)
    other = ["/usr/bin/python3", "-m", "skillshelf.cli.main"]

    from skillshelf.hooks.setup import apply_setup, plan_setup

    plan = plan_setup(env, "codex", "project", command=other, state_dir=env.dirs.state)
    apply_setup(plan, state_dir=env.dirs.state)
    groups = json.loads(hooks_file.read_text(encoding="utf-8"))["hooks"]["UserPromptSubmit"]
    assert groups[1] == USER_HOOK.group() and len(groups) == 2
    assert mine + tomlblock.BEGIN in config.read_text(encoding="utf-8")
    state = _state(config)
    assert state[_user_key(hooks_file, 1)] == {"trusted_hash": USER_HASH}
    new = hook_specs("codex", other)[1]
    assert state[_user_key(hooks_file, 0)] == {"trusted_hash": trust_hash(new)}


def test_trust_of_skillshelfs_own_hook_written_outside_the_block_goes_with_remove(isolated_home: Any) -> None:
    """Codex kept the trust of skillshelf's hook outside the block (at the key the user's hook
    moves to): that entry goes, the user's takes its key."""
    _repo, env, hooks_file, config = _project(isolated_home)
    set_up(env, isolated_home, "codex")
    _add_user_hook(hooks_file)
    ours = f'[hooks.state."{_user_key(hooks_file, 0)}"]\ntrusted_hash = "sha256:'
    text = config.read_text(encoding="utf-8")
    start = text.index(ours)
    table = text[start : text.index("\n\n", start) + 2]
    user = f'[hooks.state."{_user_key(hooks_file, 1)}"]\ntrusted_hash = "{USER_HASH}"\n\n'
    config.write_text(text.replace(table, ""), encoding="utf-8")
    _before_block(config, table + user)

    set_up(env, isolated_home, "codex", remove=True)
    assert _state(config) == {_user_key(hooks_file, 0): {"trusted_hash": USER_HASH}}


def test_remove_after_the_hooks_file_was_deleted_takes_out_skillshelfs_trust_only(isolated_home: Any) -> None:
    _repo, env, hooks_file, config = _project(isolated_home)
    before = config.read_text(encoding="utf-8")
    set_up(env, isolated_home, "codex")
    _add_user_hook(hooks_file)
    _trust_in_block(config, _user_key(hooks_file, 1))
    hooks_file.unlink()

    set_up(env, isolated_home, "codex", remove=True)
    user = f'[hooks.state."{_user_key(hooks_file, 1)}"]\ntrusted_hash = "{USER_HASH}"\n'
    block = f"\n{tomlblock.BEGIN}\n{user}{tomlblock.END}\n"
    assert config.read_text(encoding="utf-8") == before + block  # another file's hook: kept marked


def test_a_stale_handler_is_rewritten_in_place_and_taking_it_out_restores_the_bytes() -> None:
    user = USER_HOOK.group()
    original = json.dumps({"hooks": {"UserPromptSubmit": [user]}}, indent=2) + "\n"
    old, created = jsonfile.add_hooks(original, hook_specs("codex", ["/old/bin/skillshelf"]))
    data = json.loads(old)
    data["hooks"]["UserPromptSubmit"].append(user)  # the user's second group, after ours
    old = json.dumps(data, indent=4)
    new, made = jsonfile.add_hooks(old, hook_specs("codex", ["/new/bin/skillshelf"]))
    assert made == () and new == old.replace("/old/bin/", "/new/bin/")
    assert jsonfile.remove_hooks(new, created=created) == jsonfile.remove_hooks(old, created=created)


def test_moved_handlers_follow_the_users_hooks_when_skillshelfs_go() -> None:
    before, _ = jsonfile.add_hooks('{"hooks": {"UserPromptSubmit": []}}', hook_specs("codex", COMMAND))
    data = json.loads(before)
    handler = {"type": "command", "command": USER_HOOK.command}
    data["hooks"]["UserPromptSubmit"].append({"hooks": [handler, handler]})
    before = json.dumps(data)
    after = jsonfile.remove_hooks(before)
    at = jsonfile.Position
    assert jsonfile.moved_handlers(before, after) == {
        at(event="UserPromptSubmit", group=1, handler=h): at(event="UserPromptSubmit", group=0, handler=h)
        for h in (0, 1)
    }


KEY = ("hooks", "state", "/r/.codex/hooks.json:stop:1:0")
NEW = ("hooks", "state", "/r/.codex/hooks.json:stop:0:0")


def test_tables_outside_the_block_are_moved_and_taken_out_by_their_header_lines() -> None:
    text = (
        "# mine\n"
        f'[hooks.state."{NEW[2]}"]\ntrusted_hash = "sha256:ours"\n\n'
        f"[hooks.state.'{KEY[2]}']   \r\n"
        'trusted_hash = "sha256:user"  # accepted in the TUI\n'
        "\n[projects.x]\ntrust_level = 'trusted'\n"
    )
    after = tomlblock.with_tables(text, {}, drop={NEW}, renames={KEY: NEW})
    assert after == (
        "# mine\n"
        f'[hooks.state."{NEW[2]}"]\r\n'
        'trusted_hash = "sha256:user"  # accepted in the TUI\n'
        "\n[projects.x]\ntrust_level = 'trusted'\n"
    )


@pytest.mark.parametrize(
    "text",
    [
        f'[hooks]\nstate."{KEY[2]}".trusted_hash = "sha256:user"\n',
        f'[hooks.state]\n"{KEY[2]}" = {{ trusted_hash = "sha256:user" }}\n',
    ],
)
def test_trust_not_written_as_a_table_of_its_own_cannot_be_moved_and_is_refused(text: str) -> None:
    with pytest.raises(ConfigError) as caught:
        tomlblock.with_tables(text, {}, renames={KEY: NEW})
    assert caught.value.code == "HK113"
