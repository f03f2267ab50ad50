"""Contracts of the package as a whole: the public API, start-up cost, the error tree."""

from __future__ import annotations

import ast
import importlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

import skillshelf
from skillshelf import errors

HEAVY = (
    "rich",
    "mcp",
    "openai",
    "anthropic",
    "psycopg",
    "numpy",
    "bm25s",
    "httpx",
    "pydantic",
    "tomlkit",
    "watchfiles",
    "starlette",
    "uvicorn",
    "anyio",
)


def _type_checking_exports() -> dict[str, str]:
    """name -> module of the ``if TYPE_CHECKING:`` imports in skillshelf/__init__.py."""
    tree = ast.parse(Path(skillshelf.__file__).read_text(encoding="utf-8"))
    blocks = [n for n in tree.body if isinstance(n, ast.If) and ast.unparse(n.test) == "TYPE_CHECKING"]
    assert len(blocks) == 1, "skillshelf/__init__.py needs one `if TYPE_CHECKING:` block"
    found: dict[str, str] = {}
    for node in blocks[0].body:
        assert isinstance(node, ast.ImportFrom) and node.module, ast.unparse(node)
        for alias in node.names:
            # `import X as X` is what marks a re-export for type checkers (mypy strict)
            assert alias.asname == alias.name, f"write `{alias.name} as {alias.name}`"
            is_module = node.module == "skillshelf"
            found[alias.name] = f"skillshelf.{alias.name}" if is_module else node.module
    return found


def test_the_type_checking_imports_match_the_lazy_export_table() -> None:
    assert _type_checking_exports() == skillshelf._EXPORTS


def test_every_export_is_the_object_its_module_defines() -> None:
    assert set(skillshelf.__all__) == set(skillshelf._EXPORTS)
    for name, module_name in skillshelf._EXPORTS.items():
        module = importlib.import_module(module_name)
        expected = module if name == "errors" else getattr(module, name)
        assert getattr(skillshelf, name) is expected, name
    assert set(skillshelf.__all__) <= set(dir(skillshelf))


def test_unknown_attributes_raise_attribute_error() -> None:
    with pytest.raises(AttributeError):
        _ = skillshelf.no_such_thing  # type: ignore[attr-defined]


def _imported_after(code: str) -> set[str]:
    probe = f"import sys; {code}; import json; print(json.dumps(sorted(sys.modules)))"
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, encoding="utf-8", check=True
    ).stdout
    return {name.split(".")[0] for name in json.loads(out.strip().splitlines()[-1])}


def test_importing_skillshelf_loads_no_heavy_dependency() -> None:
    assert not _imported_after("import skillshelf") & set(HEAVY)


def test_the_cli_help_loads_no_heavy_dependency() -> None:
    code = "from skillshelf.cli.main import cli; import click; cli.main(['--help'], standalone_mode=False)"
    assert not _imported_after(code) & set(HEAVY)


def test_every_error_has_a_code_and_an_exit_code() -> None:
    classes = [
        c for c in vars(errors).values() if isinstance(c, type) and issubclass(c, errors.SkillshelfError)
    ]
    assert len(classes) >= 10
    for cls in classes:
        assert cls.default_code and cls.exit_code in (1, 2)
    assert errors.UsageError("x").exit_code == 2


def test_skill_not_found_suggests_close_matches() -> None:
    exc = errors.SkillNotFoundError("pdff", available=["pdf", "docx"], close=["pdf"])
    assert exc.code == "SK404" and "'pdf'" in exc.hint
