"""Bad config files: every problem has a code, the file, the line and a fix; nothing crashes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from skillshelf.cli.main import cli
from skillshelf.config import LayerKind, load_config
from skillshelf.config.schema import MAX_UNKNOWN_REPORTED
from skillshelf.config.tomlmap import key_lines
from skillshelf.diagnostics import Diagnostic
from skillshelf.env import Env


def _load(tmp_path: Path, user_text: str | bytes, *overrides: str):  # type: ignore[no-untyped-def]
    user = tmp_path / "user"
    user.mkdir(exist_ok=True)
    data = user_text.encode("utf-8") if isinstance(user_text, str) else user_text
    (user / "config.toml").write_bytes(data)
    (tmp_path / "home").mkdir(exist_ok=True)
    env = Env.for_test(cwd=tmp_path, home=tmp_path / "home")
    return load_config(env, overrides=overrides, user_dir=user, system_dir=tmp_path / "nosys")


def _only(diags: tuple[Diagnostic, ...], code: str) -> Diagnostic:
    found = [d for d in diags if d.code == code]
    assert len(found) == 1, diags
    return found[0]


def test_toml_syntax_error_gives_file_line_fix_and_skips_only_that_layer(tmp_path: Path) -> None:
    config = _load(tmp_path, "[catalog]\nbudget_tokens = 5\nformat = xml\n", "select.max_suggestions=4")
    diag = _only(config.diagnostics, "CF100")
    assert diag.path == tmp_path / "user" / "config.toml" and diag.line == 3
    assert "quotes" in diag.fix and "skipped" in diag.message
    user = next(layer for layer in config.layers if layer.kind is LayerKind.USER)
    assert not user.loaded and not user.active
    assert config.get("catalog") is None and config.get("select.max_suggestions") == 4


def test_wrong_types_are_dropped_with_line_and_example(tmp_path: Path) -> None:
    text = (
        '[catalog]\nbudget_tokens = "lots"\nformat = "html"\n[skills]\nbuiltin = "no"\nroots = "one"\n'
        "[instructions]\nmax_bytes = -1\n"
    )
    config = _load(tmp_path, text)
    found = {(d.field, d.line) for d in config.diagnostics if d.code == "CF102"}
    assert found == {
        ("catalog.budget_tokens", 2),
        ("catalog.format", 3),
        ("skills.builtin", 5),
        ("skills.roots", 6),
        ("instructions.max_bytes", 8),
    }
    by_field = {d.field: d for d in config.diagnostics}
    assert "no quotes" in by_field["skills.builtin"].fix
    assert "codex, xml, markdown" in by_field["catalog.format"].fix
    assert config.values == {}


def test_unknown_keys_are_kept_and_reported_with_a_suggestion(tmp_path: Path) -> None:
    config = _load(tmp_path, "[catalog]\nbudget_tokenz = 5\n[zzzz]\nx = 1\n")
    typo = next(d for d in config.diagnostics if d.field == "catalog.budget_tokenz")
    assert typo.code == "CF103" and typo.line == 2 and "budget_tokens" in typo.fix
    other = next(d for d in config.diagnostics if d.field == "zzzz")
    assert other.line == 3 and "known keys here" in other.fix
    assert config.get("zzzz.x") == 1


def test_many_unknown_keys_are_reported_one_by_one_up_to_a_cap_then_in_one_summary(tmp_path: Path) -> None:
    text = "".join(f"[t{i}]\nk = 1\n" for i in range(500)) + "[catalog]\nbudget_tokens = 9\n"
    config = _load(tmp_path, text)
    unknown = [d for d in config.diagnostics if d.code == "CF103"]
    assert [d.field for d in unknown[:-1]] == [f"t{i}" for i in range(MAX_UNKNOWN_REPORTED)]
    summary = unknown[-1]
    assert len(unknown) == MAX_UNKNOWN_REPORTED + 1
    assert summary.message.startswith(f"{500 - MAX_UNKNOWN_REPORTED} more unknown config keys")
    assert summary.line == 2 * MAX_UNKNOWN_REPORTED + 1
    assert config.get("t499.k") == 1 and config.get("catalog.budget_tokens") == 9


def test_a_key_written_in_the_wrong_table_names_the_table_it_belongs_in(tmp_path: Path) -> None:
    text = "budget_tokens = 9\n[skills]\nbudget = 5\n[catalog]\nmax_suggestions = 2\n[hooks]\nzzz = 1\n"
    fixes = {d.field: d.fix for d in _load(tmp_path, text).diagnostics if d.code == "CF103"}
    assert fixes["budget_tokens"] == "it belongs in another table: did you mean `catalog.budget_tokens`?"
    assert fixes["skills.budget"] == "it belongs in another table: did you mean `catalog.budget_tokens`?"
    assert "`select.max_suggestions`" in fixes["catalog.max_suggestions"]
    assert "known keys here" in fixes["hooks.zzz"]


def test_catalog_keys_that_nothing_reads_are_reported_as_unknown(tmp_path: Path) -> None:
    config = _load(tmp_path, "[catalog]\nbudget_chars = 50\nmax_context_tokens = 10\nbudget_tokens = 7\n")
    fixes = {d.field: d.fix for d in config.diagnostics if d.code == "CF103"}
    assert set(fixes) == {"catalog.budget_chars", "catalog.max_context_tokens"}
    assert "`skills.max_context_tokens`" in fixes["catalog.max_context_tokens"]
    assert config.skills_max_context_tokens == 7


@pytest.mark.parametrize(
    ("table", "key"),
    [("catalog", "budget_tokens"), ("skills", "max_context_tokens"), ("requirements", "max_catalog_tokens")],
)
def test_a_catalog_budget_of_zero_is_refused_with_its_line_and_the_default_applies(
    tmp_path: Path, table: str, key: str
) -> None:
    config = _load(tmp_path, f"[{table}]\n{key} = 0\n")
    diag = _only(config.diagnostics, "CF102")
    assert (diag.field, diag.path, diag.line) == (f"{table}.{key}", tmp_path / "user" / "config.toml", 2)
    assert diag.fix == "set it to 1 or more"
    assert config.get(f"{table}.{key}") is None
    assert config.skills_max_context_tokens is None and config.max_catalog_tokens is None


def test_a_system_catalog_cap_of_zero_leaves_the_users_budget_in_force(tmp_path: Path) -> None:
    system = tmp_path / "sys"
    system.mkdir()
    (system / "config.toml").write_text("[requirements]\nmax_catalog_tokens = 0\n", encoding="utf-8")
    (tmp_path / "home").mkdir()
    (tmp_path / "user").mkdir()
    (tmp_path / "user" / "config.toml").write_text("[catalog]\nbudget_tokens = 4000\n", encoding="utf-8")
    env = Env.for_test(cwd=tmp_path, home=tmp_path / "home")
    config = load_config(env, user_dir=tmp_path / "user", system_dir=system)
    diag = _only(config.diagnostics, "CF102")
    assert diag.path == system / "config.toml" and diag.line == 2
    assert config.max_catalog_tokens is None and config.skills_max_context_tokens == 4000


@pytest.mark.parametrize("command", [["context", "write a skill"], ["catalog"]])
def test_commands_keep_working_with_a_zero_budget_in_config(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cli_config_dir: Path, command: list[str]
) -> None:
    (cli_config_dir / "config.toml").write_text("[skills]\nmax_context_tokens = 0\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(cli, command)
    assert result.exit_code == 0, result.output
    assert f"{cli_config_dir / 'config.toml'}:2: warning CF102" in result.stderr


@pytest.mark.parametrize("key", ["top_k", "selector", "suggest_tokens", "cache_dir"])
def test_select_keys_that_nothing_reads_are_reported_as_unknown(tmp_path: Path, key: str) -> None:
    config = _load(tmp_path, f'[select]\n{key} = "2"\nmin_confidence = 50\nmax_suggestions = 2\n')
    diag = _only(config.diagnostics, "CF103")
    assert diag.field == f"select.{key}" and diag.line == 2
    assert config.get("select.min_confidence") == 50 and config.get("select.max_suggestions") == 2


def test_unknown_mode_and_bad_skill_entries(tmp_path: Path) -> None:
    text = (
        '[[skills.config]]\nname = "a"\nmode = "name_only"\n\n'
        '[[skills.config]]\nname = "b"\npath = "/x/SKILL.md"\nmode = "manual"\n\n'
        '[[skills.config]]\nname = "c"\n\n'
        '[[skills.config]]\nname = "d"\nenabled = "no"\n\n'
        '[[skills.config]]\nname = "ok"\nmode = "manual"\n'
    )
    config = _load(tmp_path, text)
    by_line = {d.line: d for d in config.diagnostics}
    assert by_line[1].code == "CF104" and 'did you mean mode = "name-only"' in by_line[1].fix
    assert by_line[5].code == "CF105" and "exactly one" in by_line[5].message
    assert by_line[10].code == "CF105" and "mode" in by_line[10].message
    assert by_line[13].code == "CF102"
    assert [r.name for r in config.skill_rules] == ["ok"]


def test_non_utf8_config_is_reported_with_its_line(tmp_path: Path) -> None:
    config = _load(tmp_path, b'[catalog]\nformat = "x\xff"\n')
    diag = _only(config.diagnostics, "CF101")
    assert diag.line == 2 and "UTF-8" in diag.fix


def test_key_lines_follow_tables_arrays_and_quoted_keys() -> None:
    text = (
        'a = 1\n[t]\nb.c = 2\n"q.k" = 3\ns = """\nfake = 1\n"""\n[[arr]]\nx = 1\n[[arr]]\nx = 2\n'
        "[arr.sub]\ny = 3\n"
    )
    lines = key_lines(text)
    assert lines[("a",)] == 1 and lines[("t", "b", "c")] == 3 and lines[("t", "q.k")] == 4
    assert ("t", "fake") not in lines
    assert (
        lines[("arr", 0, "x")] == 9 and lines[("arr", 1, "x")] == 11 and lines[("arr", 1, "sub", "y")] == 13
    )


def test_config_show_prints_problems_without_traceback_and_exits_1(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cli_config_dir: Path
) -> None:
    user = cli_config_dir
    (user / "config.toml").write_text("[catalog\nbudget_tokens = 1\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(cli, ["config", "show", "--json"])
    assert result.exit_code == 1
    assert result.exception is None or isinstance(result.exception, SystemExit)
    data = json.loads(result.stdout)
    assert data["diagnostics"][0]["code"] == "CF100" and data["diagnostics"][0]["line"] == 1
    assert f"{user / 'config.toml'}:1: error CF100" in result.stderr


@pytest.mark.parametrize("value", ["101", "8000", "-1"])
def test_a_min_confidence_outside_0_to_100_is_refused_and_the_default_applies(
    tmp_path: Path, value: str
) -> None:
    from skillshelf.select.ranking import RankingSettings

    config = _load(tmp_path, f"[select]\nmin_confidence = {value}\n")
    diag = _only(config.diagnostics, "CF102")
    assert (diag.field, diag.line) == ("select.min_confidence", 2)
    assert diag.message == f"`select.min_confidence` must be from 0 to 100, not {value}"
    assert "from 0 to 100" in diag.fix and "88 (the default)" in diag.fix
    assert config.get("select.min_confidence") is None
    assert RankingSettings.from_config(config.get) == RankingSettings()
    assert not _load(tmp_path, "[select]\nmin_confidence = 100\n").diagnostics


def test_a_min_confidence_of_the_wrong_type_is_told_the_range_and_the_default(tmp_path: Path) -> None:
    diag = _only(_load(tmp_path, '[select]\nmin_confidence = "high"\n').diagnostics, "CF102")
    assert diag.fix == "write a whole number from 0 to 100 without quotes, such as 88 (the default)"
