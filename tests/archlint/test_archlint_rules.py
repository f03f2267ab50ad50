"""Each archlint rule fires where it should, names both modules, and carries its FIX."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from archlint_helpers import CONFIG, make_project, write

from skillshelf.archlint import lint_path
from skillshelf.diagnostics import Severity
from skillshelf.errors import ConfigError


def _codes(report: object) -> list[tuple[str, str, int | None]]:
    return [(d.code, Path(d.path).name, d.line) for d in report.diagnostics]  # type: ignore[attr-defined]


def test_clean_package_passes_and_counts_files_and_imports(tmp_path: Path) -> None:
    make_project(tmp_path)
    report = lint_path(None, cwd=tmp_path)
    assert report.diagnostics == ()
    assert report.files == 9
    assert report.imports == 9
    assert report.package == "shop"


def test_upward_import_is_an_error_naming_both_modules_with_a_fix(tmp_path: Path) -> None:
    pkg = make_project(tmp_path)
    write(pkg / "core" / "pricing.py", "import os\n\nfrom shop.adapters.db import orders\n")
    (diag,) = lint_path(None, cwd=tmp_path).diagnostics
    assert (diag.code, diag.severity, diag.line) == ("AR101", Severity.ERROR, 3)
    assert (
        diag.message
        == "core.pricing in layer 2 (core) imports adapters.db from the higher layer 3 (adapters)"
    )
    assert "do not import adapters.db from core.pricing" in diag.fix
    assert "down into layer 2 (core) or lower" in diag.fix
    assert "Protocol" in diag.fix


def test_relative_and_from_package_imports_are_resolved(tmp_path: Path) -> None:
    pkg = make_project(tmp_path)
    write(pkg / "types.py", "from . import core\nfrom .cli import main\n")
    layering = [d for d in lint_path(None, cwd=tmp_path).diagnostics if d.code != "AR105"]
    assert [(d.code, d.message.split(" imports ")[1].split(" from ")[0]) for d in layering] == [
        ("AR101", "core"),
        ("AR101", "cli.main"),
    ]


def test_lazy_import_counts_and_is_configurable(tmp_path: Path) -> None:
    pkg = make_project(tmp_path)
    write(
        pkg / "core" / "report.py",
        "class Report:\n    def show(self) -> None:\n        from shop.cli import main\n",
    )
    (diag,) = lint_path(None, cwd=tmp_path).diagnostics
    assert (diag.code, diag.severity, diag.line) == ("AR102", Severity.ERROR, 3)
    assert "inside Report.show()" in diag.message
    assert diag.fix.startswith("an import inside Report.show() still makes core.report depend on cli.main")
    (warned,) = lint_path(None, cwd=tmp_path, lazy_imports="warning").diagnostics
    assert warned.severity is Severity.WARNING
    assert lint_path(None, cwd=tmp_path, lazy_imports="ignore").diagnostics == ()


def test_type_checking_imports_are_ignored_by_default_and_can_be_errors(tmp_path: Path) -> None:
    pkg = make_project(tmp_path)
    write(
        pkg / "core" / "typed.py",
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from shop.adapters import db\n",
    )
    assert lint_path(None, cwd=tmp_path).diagnostics == ()
    write(tmp_path / "pyproject.toml", CONFIG + 'type_checking_imports = "error"\n')
    (diag,) = lint_path(None, cwd=tmp_path).diagnostics
    assert diag.code == "AR104" and "type-only import" in diag.fix


def test_allow_entry_with_a_reason_silences_one_edge(tmp_path: Path) -> None:
    pkg = make_project(tmp_path)
    write(pkg / "core" / "bridge.py", "from shop.adapters import db\nfrom shop.cli import main\n")
    write(
        tmp_path / "pyproject.toml",
        CONFIG + 'allow = [{ from = "core.bridge", to = "adapters", reason = "migration, remove by v2" }]\n',
    )
    assert [
        d.message.split(" imports ")[1].split(" ")[0] for d in lint_path(None, cwd=tmp_path).diagnostics
    ] == ["cli.main"]


def test_size_limits_are_warnings_with_fixes(tmp_path: Path) -> None:
    pkg = make_project(tmp_path)
    body = "\n".join(f"    x{i} = {i}" for i in range(12))
    write(
        pkg / "core" / "big.py",
        f"def long_one() -> None:\n{body}\n\n\ndef short() -> None:\n    pass\n" + "\n" * 10,
    )
    write(tmp_path / "pyproject.toml", CONFIG + "max_file_lines = 20\nmax_function_lines = 10\n")
    report = lint_path(None, cwd=tmp_path)
    assert _codes(report) == [("AR201", "big.py", None), ("AR202", "big.py", 1)]
    file_diag, func_diag = report.diagnostics
    assert file_diag.severity is Severity.WARNING and "split the module along a seam" in file_diag.fix
    assert "long_one() is 13 lines long" in func_diag.message and "helper functions" in func_diag.fix
    assert report.errors == 0 and report.warnings == 2


def test_unlayered_module_unknown_entry_and_bad_files_are_reported(tmp_path: Path) -> None:
    pkg = make_project(tmp_path)
    write(pkg / "stray.py", "from shop import cli\n")
    write(pkg / "core" / "broken.py", "def oops(:\n")
    (pkg / "core" / "latin1.py").write_bytes(b"name = '\xe9'\n")
    write(pkg / "core" / "escape.py", "from .... import elsewhere\n")
    write(tmp_path / "pyproject.toml", CONFIG.replace('["cli"]', '["cli", "clii"]'))
    report = lint_path(None, cwd=tmp_path)
    assert sorted((d.code, Path(d.path).name) for d in report.diagnostics) == [
        ("AR001", "broken.py"),
        ("AR002", "latin1.py"),
        ("AR103", "escape.py"),
        ("AR301", "stray.py"),
        ("AR302", "pyproject.toml"),
    ]
    assert all(d.fix for d in report.diagnostics)


def test_a_fifo_module_and_a_too_deep_config_are_reported_without_a_hang_or_crash(tmp_path: Path) -> None:
    pkg = make_project(tmp_path)
    os.mkfifo(pkg / "core" / "pipe.py")  # no writer: a blocking read would never return
    report = lint_path(None, cwd=tmp_path)
    assert [(d.code, Path(d.path).name) for d in report.diagnostics] == [("AR002", "pipe.py")]
    assert "not a regular file" in report.diagnostics[0].message
    write(tmp_path / "pyproject.toml", CONFIG + "deep = " + "[" * 50_000 + "\n")
    with pytest.raises(ConfigError) as caught:
        lint_path(None, cwd=tmp_path)
    assert caught.value.code == "AR010" and "nested too deeply" in caught.value.message


def test_a_subfolder_is_linted_with_the_whole_package_known(tmp_path: Path) -> None:
    pkg = make_project(tmp_path)
    write(pkg / "core" / "pricing.py", "from shop.adapters import db\n")
    write(pkg / "errors.py", "from shop.cli import main\n")
    report = lint_path(Path("src/shop/core"), cwd=tmp_path)
    # errors -> cli.main -> adapters.db -> core.orders -> errors: shown where it passes through core
    assert [(d.code, Path(d.path).name) for d in report.diagnostics] == [
        ("AR105", "orders.py"),
        ("AR101", "pricing.py"),
    ]
    assert report.diagnostics[0].message.startswith("import cycle core.orders -> errors -> cli.main")
    assert report.files == 3


def test_dot_skillshelf_archlint_toml_is_found_too(tmp_path: Path) -> None:
    pkg = make_project(tmp_path, config='[project]\nname = "x"\n')
    write(tmp_path / ".skillshelf" / "archlint.toml", 'root = "src/shop"\nlayers = [["cli"], ["core"]]\n')
    report = lint_path(None, cwd=pkg / "core")
    assert {d.code for d in report.diagnostics} >= {"AR301"}


@pytest.mark.parametrize(
    ("extra", "needle"),
    [
        ('lazy_imports = "sometimes"\n', "lazy_imports"),
        ("max_file_lines = -1\n", "max_file_lines"),
        ("colour = 1\n", "unknown key"),
        ('allow = [{ from = "a" }]\n', "allow"),
    ],
)
def test_bad_config_is_a_config_error_with_file_and_fix(tmp_path: Path, extra: str, needle: str) -> None:
    make_project(tmp_path)
    write(tmp_path / "pyproject.toml", CONFIG + extra)
    with pytest.raises(ConfigError) as caught:
        lint_path(None, cwd=tmp_path)
    assert caught.value.code == "AR010"
    assert needle in caught.value.message and "pyproject.toml" in caught.value.message
    assert caught.value.hint


def test_layers_missing_or_duplicated_or_absent_config(tmp_path: Path) -> None:
    write(tmp_path / "pyproject.toml", '[tool.skillshelf.archlint]\nlayers = [["a"], ["b", "a"]]\n')
    with pytest.raises(ConfigError) as dup:
        lint_path(Path("."), cwd=tmp_path)
    assert dup.value.code == "AR010" and "layer 1 and layer 2" in dup.value.message
    write(tmp_path / "pyproject.toml", '[project]\nname = "none"\n')
    with pytest.raises(ConfigError) as none:
        lint_path(Path("."), cwd=tmp_path)
    assert none.value.code == "AR011" and "[tool.skillshelf.archlint]" in none.value.hint


def test_a_submodule_can_sit_in_a_lower_layer_than_its_package(tmp_path: Path) -> None:
    config = CONFIG.replace('["core"],', '["core.model"],\n  ["core"],')
    pkg = make_project(tmp_path, config=config)
    write(pkg / "core" / "model.py", "from shop.types import Price\nfrom shop.core.orders import place\n")
    (diag,) = lint_path(None, cwd=tmp_path).diagnostics
    assert (
        diag.message
        == "core.model in layer 2 (core.model) imports core.orders from the higher layer 3 (core)"
    )


ENV_READERS = CONFIG + 'environment_readers = ["types"]\n'


def test_environment_read_below_the_top_layer_is_an_error_with_a_fix(tmp_path: Path) -> None:
    pkg = make_project(tmp_path, config=ENV_READERS)
    write(
        pkg / "core" / "paths.py",
        """
        import os
        from os import getenv
        from pathlib import Path

        def home() -> str:
            return os.environ.get("HOME") or str(Path.home())

        def here() -> Path:
            return Path.cwd() / (getenv("SUB") or os.getcwd())
        """,
    )
    write(pkg / "types.py", "import os\n\nDEBUG = os.environ.get('DEBUG')\n")  # a declared reader
    write(pkg / "cli" / "run.py", "import os\n\nCWD = os.getcwd()\n")  # the top layer
    report = lint_path(None, cwd=tmp_path)
    assert [(d.code, d.line, d.message.split("(")[1].split(")")[0]) for d in report.diagnostics] == [
        ("AR401", 2, "os.getenv"),
        ("AR401", 6, "os.environ"),
        ("AR401", 6, "Path.home"),
        ("AR401", 9, "Path.cwd"),
        ("AR401", 9, "os.getcwd"),
    ]
    diag = report.diagnostics[0]
    assert diag.severity is Severity.ERROR and Path(diag.path).name == "paths.py"
    assert diag.message.startswith("core.paths reads the process environment")
    assert "take the value from a parameter" in diag.fix and "only types and layer 4 (cli)" in diag.fix


def test_environment_reads_are_not_checked_without_environment_readers(tmp_path: Path) -> None:
    pkg = make_project(tmp_path)
    write(pkg / "core" / "paths.py", "import os\n\nHOME = os.environ['HOME']\n")
    assert lint_path(None, cwd=tmp_path).diagnostics == ()


def test_bad_environment_readers_is_a_config_error(tmp_path: Path) -> None:
    make_project(tmp_path, config=CONFIG + 'environment_readers = "env"\n')
    with pytest.raises(ConfigError) as err:
        lint_path(None, cwd=tmp_path)
    assert err.value.code == "AR010" and "environment_readers" in str(err.value)


def test_a_cycle_hidden_in_a_function_or_under_type_checking_is_an_error_with_a_fix(
    tmp_path: Path,
) -> None:
    pkg = make_project(tmp_path)
    write(pkg / "core" / "carts.py", "def total() -> int:\n    from shop.core.lines import count\n")
    write(
        pkg / "core" / "lines.py",
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from shop.core.carts import total\n",
    )
    (diag,) = lint_path(None, cwd=tmp_path).diagnostics
    assert (diag.code, diag.severity, Path(diag.path).name, diag.line) == (
        "AR105",
        Severity.ERROR,
        "carts.py",
        2,
    )
    assert diag.message == (
        "import cycle core.carts -> core.lines -> core.carts: core.carts imports core.lines "
        "(inside total()), line 2; core.lines imports core.carts (for type checking), line 3"
    )
    assert "move what the modules share" in diag.fix and "hides a cycle" in diag.fix
    write(tmp_path / "pyproject.toml", CONFIG + 'cycles = "warning"\n')
    (warned,) = lint_path(None, cwd=tmp_path).diagnostics
    assert warned.severity is Severity.WARNING
    write(tmp_path / "pyproject.toml", CONFIG + 'cycles = "ignore"\n')
    assert lint_path(None, cwd=tmp_path).diagnostics == ()


def test_each_loop_of_a_tangled_group_is_reported_once(tmp_path: Path) -> None:
    pkg = make_project(tmp_path)
    write(pkg / "core" / "a.py", "from shop.core import b\n")
    write(pkg / "core" / "b.py", "from shop.core import a, c\n")
    write(pkg / "core" / "c.py", "import shop.core.b\n")
    report = lint_path(None, cwd=tmp_path)
    assert [d.message.split(":")[0] for d in report.diagnostics] == [
        "import cycle core.a -> core.b -> core.a",
        "import cycle core.b -> core.c -> core.b",
    ]
    assert [Path(d.path).name for d in report.diagnostics] == ["a.py", "b.py"]


def test_a_package_importing_its_own_submodules_is_no_cycle(tmp_path: Path) -> None:
    pkg = make_project(tmp_path)  # core/__init__ imports core.orders, which loads core first
    write(pkg / "core" / "orders.py", "from shop.core.prices import cents\n")
    write(pkg / "core" / "prices.py", "cents = 100\n")
    assert lint_path(None, cwd=tmp_path).diagnostics == ()
    write(pkg / "core" / "prices.py", "from shop.core import place\n")  # the package's own name
    (diag,) = lint_path(None, cwd=tmp_path).diagnostics
    assert diag.message.startswith("import cycle core -> core.orders -> core.prices -> core")
