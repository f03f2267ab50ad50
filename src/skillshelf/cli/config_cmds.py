"""`skillshelf instructions|config show|trust|untrust`: layered knowledge."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from skillshelf.cli.output import (
    echo_json,
    echo_text,
    jsonable,
    literal,
    print_diagnostics,
    printable,
    short_path,
    stdout_console,
)
from skillshelf.diagnostics import Diagnostic, has_errors
from skillshelf.env import Env

if TYPE_CHECKING:
    from skillshelf.config import Config

__all__ = [
    "config",
    "instructions",
    "override_option",
    "project_root",
    "trust",
    "untrust",
    "user_config_file",
]

#: ``-c KEY=VALUE`` (repeatable), as on `context`: a config value for this run only.
override_option = click.option(
    "-c",
    "--config",
    "overrides",
    multiple=True,
    metavar="KEY=VALUE",
    help="Override a config value for this run (value is TOML, else a string).",
)


def _finish(ctx: click.Context, diagnostics: tuple[Diagnostic, ...]) -> None:
    print_diagnostics(diagnostics)
    if has_errors(diagnostics):
        ctx.exit(1)


@click.command("instructions")
@click.option(
    "--profile",
    type=click.Choice(["codex", "claude"]),
    default=None,
    help="AGENTS.md as Codex loads it, or CLAUDE.md as Claude Code does "
    "(default: `instructions.profile` from config, else codex).",
)
@click.option(
    "--max-bytes",
    type=click.IntRange(min=0),
    help="Codex's project_doc_max_bytes for this run (default: `instructions.max_bytes`, else Codex's).",
)
@click.option(
    "--fallback",
    "fallbacks",
    multiple=True,
    metavar="NAME",
    help="Extra file name to try in each folder after AGENTS.md and the fallback names in force.",
)
@override_option
@click.option("--raw", is_flag=True, help="Print only the block the model gets.")
@click.option("--json", "as_json", is_flag=True, help="Print layers, provenance and text as JSON.")
@click.pass_context
def instructions(
    ctx: click.Context,
    profile: str | None,
    max_bytes: int | None,
    fallbacks: tuple[str, ...],
    overrides: tuple[str, ...],
    raw: bool,
    as_json: bool,
) -> None:
    """Print the AGENTS.md (or CLAUDE.md) layers that apply here and the block the model gets.

    Options left out come from the config's [instructions] table, as for `context`.
    """
    from skillshelf.config import load_config
    from skillshelf.instructions import load_instructions

    config = load_config(env := Env.from_os(), overrides=overrides)
    result = load_instructions(
        env,
        profile=profile or config.instructions_profile,  # type: ignore[arg-type]
        max_bytes=max_bytes if max_bytes is not None else config.instructions_max_bytes,
        fallback_filenames=config.instructions_fallback_filenames,
        extra_fallback_filenames=fallbacks,
    )
    if as_json:
        echo_json(result.to_dict())
    elif raw:
        echo_text(result.text)
    else:
        _print_instructions(result, env)
    _finish(ctx, (*config.diagnostics, *result.diagnostics))


def _print_instructions(result: Any, env: Env) -> None:
    """The layers table; files relative to the project root or ``~``, wrapped, never cut."""
    from rich.table import Table

    console = stdout_console()
    where = short_path(result.cwd, env.project_root.parent, env.home)
    table = Table(title=f"{result.profile} instructions for {literal(where)}", title_justify="left")
    for column in ("scope", "kind", "file", "bytes", "cut", "tokens", "status"):
        if column in {"file", "status"}:
            table.add_column(column, overflow="fold", ratio=1, min_width=12)
        else:
            table.add_column(column, justify="right" if column in {"bytes", "cut", "tokens"} else "left")
    for layer in result.layers:
        data = layer.to_dict()
        status = "included" if layer.included else f"left out: {layer.reason}"
        table.add_row(
            literal(data["scope"]),
            literal(data["kind"]),
            literal(short_path(Path(layer.path), env.project_root, env.home)),
            str(layer.size),
            str(layer.bytes_cut),
            str(data["tokens"]),
            literal(status),
        )
    if result.layers:
        console.print(table)
    else:
        name = "AGENTS.md" if result.profile == "codex" else "CLAUDE.md"
        console.print(f"No {name} files apply in {literal(result.cwd)}.")
    if result.text:
        console.print(f"\n[bold]Block given to the model[/bold] (~{result.tokens} tokens):\n")
        echo_text(result.text)


def _show_options(func: Any) -> Any:
    """`config show`'s options, which `config` alone takes too (it is `config show` then)."""
    func = override_option(func)
    func = click.option("--json", "as_json", is_flag=True, help="Print as JSON.")(func)
    return click.option("--explain", is_flag=True, help="Show which layer set each value.")(func)


@click.group("config", invoke_without_command=True)
@_show_options
@click.pass_context
def config(ctx: click.Context, explain: bool, as_json: bool, overrides: tuple[str, ...]) -> None:
    """skillshelf's layered configuration (system, Codex, user, project, -c). Without a
    command, as `config show` (with its options)."""
    if ctx.invoked_subcommand is None:
        ctx.invoke(show, explain=explain, as_json=as_json, overrides=overrides)


@config.command("show")
@_show_options
@click.pass_context
def show(ctx: click.Context, explain: bool, as_json: bool, overrides: tuple[str, ...]) -> None:
    """Print the merged configuration, the layers it came from and every problem in them.

    A [[skills.config]] path entry that a requirement overrules (CF106) is found among the
    skills, as `list` finds them.
    """
    group = ctx.parent.params if ctx.parent is not None else {}
    explain = explain or bool(group.get("explain"))  # `config --json show` as `config show --json`
    as_json = as_json or bool(group.get("as_json"))
    overrides = (*group.get("overrides", ()), *overrides)
    loaded = _checked_config(Env.from_os(), overrides)
    if as_json:
        echo_json(jsonable(loaded.to_dict(explain=explain)))
    else:
        _print_config(loaded, explain=explain)
    _finish(ctx, (*loaded.diagnostics, *filter(None, [loaded.system_moved])))


def _checked_config(env: Env, overrides: tuple[str, ...]) -> Config:
    """The config with every finding: read alone, or, when a requirement may overrule a path
    entry, as the workspace reports it (its skills tell whether one does: CF106)."""
    from skillshelf.config import load_config

    loaded = load_config(env, overrides=overrides)
    if not loaded.path_rules_to_check:
        return loaded
    from skillshelf.workspace import Workspace, WorkspaceOptions

    return Workspace.open(env, WorkspaceOptions(config_overrides=overrides)).config


def _print_config(loaded: Any, *, explain: bool) -> None:
    import tomlkit
    from rich.table import Table

    console = stdout_console()
    layers = Table(title="Layers (lowest precedence first)", title_justify="left")
    for column in ("layer", "file", "status"):
        layers.add_column(column, overflow="fold")
    for layer in loaded.layers:
        if not layer.exists:
            status = "no file"
        elif not layer.loaded:
            status = "[red]skipped: cannot be read (see below)[/red]"
        elif not layer.enabled:
            status = f"[yellow]off: {literal(layer.disabled_reason)}[/yellow]"
        else:
            status = "[green]in effect[/green]"
        if layer.label == "system" and loaded.system_moved is not None:
            status += " [yellow](folder set by $SKILLSHELF_SYSTEM_CONFIG_DIR, see CF121)[/yellow]"
        layers.add_row(literal(layer.label), literal(layer.path) if layer.path else "-c", status)
    console.print(layers)
    trusted = "trusted" if loaded.trusted else "not trusted"
    console.print(f"project root: {literal(loaded.project_root)} ({trusted})")
    console.print("\n[bold]Merged values[/bold]")
    merged = jsonable(dict(loaded.values))
    assert isinstance(merged, dict)
    click.echo(tomlkit.dumps(merged) or "(nothing set: defaults apply)\n")
    if loaded.skill_rules:
        console.print("[bold]Skill rules[/bold] (applied in this order; the last match wins)")
        for rule in loaded.skill_rules:
            where = f"{rule.file}:{rule.line}" if rule.file and rule.line else rule.source
            click.echo(f"  {rule.selector} -> {rule.mode.value}   ({where})")
    if explain:
        table = Table(title="Where each value comes from", title_justify="left")
        for column in ("key", "value", "set by", "overrides"):
            table.add_column(column, overflow="fold")
        for key, prov in sorted(loaded.provenance.items()):
            place = f"{prov.layer}" + (f" ({prov.file}:{prov.line})" if prov.file and prov.line else "")
            table.add_row(
                literal(key),
                literal(json.dumps(jsonable(loaded.get(key)), ensure_ascii=False)),
                literal(place),
                literal(", ".join(prov.overridden)),
            )
        console.print(table)


def project_root(directory: Path | None) -> Path:
    """The project root of ``directory`` (default: the cwd) as the config loader finds it: with
    the ``project_root_markers`` of the system and user config, else Codex's, so that `trust`
    trusts and `--project` writes the project whose config is then read."""
    from skillshelf.config import load_config

    return load_config(Env.from_os(cwd=directory)).project_root


def user_config_file() -> Path:
    from skillshelf.config.loader import CONFIG_NAME

    return Env.from_os().dirs.config / CONFIG_NAME


json_option = click.option("--json", "as_json", is_flag=True, help="Print what was written as JSON.")


def _set_trust(directory: Path | None, trusted: bool, as_json: bool) -> None:
    from skillshelf.config.edit import set_trust

    root = project_root(directory)
    result = set_trust(user_config_file(), root, trusted)
    if as_json:
        echo_json({"project": str(root), "trusted": trusted, **result.to_dict()})
        return
    verb = "trusted" if trusted else "no longer trusted"
    note = "" if result.changed else " (already so)"
    click.echo(f"{printable(str(root))} is {verb}{note}; recorded in {printable(str(result.path))}")


@click.command("trust")
@click.argument("directory", required=False, type=click.Path(path_type=Path, file_okay=False, exists=True))
@json_option
def trust(directory: Path | None, as_json: bool) -> None:
    """Trust a project so its .skillshelf/config.toml files take effect.

    DIRECTORY (default: the cwd) stands for its project root; a folder outside any repository
    is trusted as such, which also trusts every project below it.
    """
    _set_trust(directory, True, as_json)


@click.command("untrust")
@click.argument("directory", required=False, type=click.Path(path_type=Path, file_okay=False, exists=True))
@json_option
def untrust(directory: Path | None, as_json: bool) -> None:
    """Stop trusting a project (default: this one); its config is then shown but not used.

    Like `trust`, DIRECTORY must exist: a typo must not fall back to the project around it.
    """
    _set_trust(directory, False, as_json)
